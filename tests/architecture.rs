//! Layering. The top-level folders of `src` are layers, bottom to top: `anim` (the pure
//! CPU core), `asset` (importers), `graph` (the pose graph), `render` (wgpu), `stage`
//! (characters and their motion sources), then `app` (the window) and `cli` (the
//! commands). A layer may use the ones below it and never one above it or beside it at the
//! top; each also keeps to its own external crates (no GPU in the stage, no window in the
//! renderer, egui only in the UI). Every `.rs` file is read and every `crate::` path and
//! external crate outside comments is checked, so a new dependency that breaks the
//! layering fails here with the file and line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a line: what comes before a `//` comment (doc comments included).
fn code_of(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// `file`'s code without comments or whitespace (calls split over lines by rustfmt read
/// as one).
fn squeezed_code(file: &Path) -> String {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(code_of)
        .collect::<String>()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Every `crate::NAME` in `code`, as NAME.
fn crate_paths(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        let after = &rest[i + "crate::".len()..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        // `$crate::` and `some_crate::` are not this crate.
        if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            out.push(&after[..end]);
        }
        rest = &after[end..];
    }
    out
}

/// Whether `code` names the external crate `name` (as `name::` or `use name`).
fn names_crate(code: &str, name: &str) -> bool {
    let needle = format!("{name}::");
    code.match_indices(&needle).any(|(i, _)| {
        !code[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    }) || code.trim_start().starts_with(&format!("use {name}"))
}

/// Fails, naming file and line, when a file under `src/<layer>` uses a `crate::` module
/// outside `allowed` or names one of the `forbidden` external crates.
fn assert_layer(layer: &str, min_files: usize, allowed: &[&str], forbidden: &[&str]) {
    let dir = src().join(layer);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(
        files.len() >= min_files,
        "expected at least {min_files} modules under {}",
        dir.display()
    );
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = code_of(line);
            for module in crate_paths(code) {
                if !allowed.contains(&module) {
                    problems.push(format!(
                        "{}:{}: src/{layer} must not use crate::{module}: {}",
                        file.display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
            for name in forbidden {
                if names_crate(code, name) {
                    problems.push(format!(
                        "{}:{}: src/{layer} must not use `{name}`: {}",
                        file.display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

const GPU_WINDOW_UI: [&str; 6] = [
    "wgpu",
    "winit",
    "egui",
    "egui_wgpu",
    "egui_winit",
    "egui_plot",
];

#[test]
fn the_top_level_folders_are_the_layers() {
    let mut found = BTreeSet::new();
    for entry in std::fs::read_dir(src()).unwrap() {
        let entry = entry.unwrap();
        found.insert(entry.file_name().to_string_lossy().into_owned());
    }
    let expected: BTreeSet<String> = [
        "anim", "asset", "graph", "render", "stage", "app", "cli", "lib.rs", "main.rs",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(
        found, expected,
        "src holds the layers and lib.rs/main.rs, nothing else"
    );
}

/// The crates named in Cargo.toml's `[dependencies]`, as Rust paths spell them.
fn dependencies() -> Vec<String> {
    let toml =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    toml.lines()
        .skip_while(|l| l.trim() != "[dependencies]")
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter_map(|l| l.split_once('=').map(|(name, _)| name.trim()))
        .filter(|name| !name.is_empty() && !name.starts_with('#'))
        .map(|name| name.replace('-', "_"))
        .collect()
}

/// The core's allowed crates, stated: glam (maths), serde (definitions read from RON by
/// the layers above), smallvec (per-frame lists without allocation), spade (blend-space
/// triangulation) and rayon (the motion-matching database build and parallel skinning).
/// Every other dependency is refused, so a new one must be added here on purpose.
const CORE_CRATES: [&str; 5] = ["glam", "serde", "smallvec", "spade", "rayon"];

#[test]
fn the_animation_core_is_pure_cpu_and_uses_no_other_layer() {
    let deps = dependencies();
    for c in CORE_CRATES.iter().chain(&["wgpu", "egui", "ufbx"]) {
        assert!(deps.iter().any(|d| d == c), "{c} not among {deps:?}");
    }
    let forbidden: Vec<&str> = deps
        .iter()
        .map(String::as_str)
        .filter(|d| !CORE_CRATES.contains(d))
        .collect();
    assert_layer("anim", 8, &["anim"], &forbidden);
}

/// Every `Result<_, String>` in the code (not comments) of the files under `src/<layer>`,
/// as `FILE:LINE: LINE`.
fn string_errors(layer: &str) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&src().join(layer), &mut files);
    assert!(!files.is_empty(), "no modules under src/{layer}");
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if returns_string_error(code_of(line)) {
                problems.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    problems
}

/// Whether `code` names a `Result` whose error type is `String`.
fn returns_string_error(code: &str) -> bool {
    code.find("Result<")
        .is_some_and(|i| code[i..].contains(", String>"))
}

#[test]
fn the_string_error_check_finds_string_errors() {
    // The scan must be able to fail: these are what it looks for.
    assert!(returns_string_error(
        "pub fn new(model: &Model) -> Result<Self, String> {"
    ));
    assert!(returns_string_error(
        ") -> Result<(Vec<Clip>, RetargetReport), String> {"
    ));
    assert!(returns_string_error(
        "    clips: Vec<Option<Result<ClipLocomotion, String>>>,"
    ));
    assert!(!returns_string_error(
        "pub fn new(model: &Model) -> Result<Self, GraphError> {"
    ));
    assert!(!returns_string_error(code_of(
        "let x = 1; // was Result<Self, String>"
    )));
}

#[test]
fn the_animation_core_returns_typed_errors() {
    // Jobs and constructors of the core say what was wrong in a type callers can match
    // (`AnimError`, `LegError`, `StateMachineError`...), never in a bare string.
    let problems = string_errors("anim");
    assert!(
        problems.is_empty(),
        "the core returns String errors:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_layers_under_the_user_boundary_return_typed_errors() {
    // Importers (`ImportError`, `ModelError`, `OptionError`...), the pose graph
    // (`GraphError`), the renderer (`RenderError`, `ExportError`) and the stage
    // (`StageError`) say what was wrong in types callers can match; only the window and
    // the commands (`app`, `cli`), which show errors to people, turn them into text.
    let mut problems = Vec::new();
    for layer in ["asset", "graph", "render", "stage"] {
        problems.extend(string_errors(layer));
    }
    assert!(
        problems.is_empty(),
        "these layers return String errors:\n{}",
        problems.join("\n")
    );
}

#[test]
fn importers_use_only_the_core() {
    assert_layer("asset", 8, &["anim", "asset"], &GPU_WINDOW_UI);
}

#[test]
fn the_pose_graph_uses_only_the_core_and_the_importers() {
    let mut forbidden = GPU_WINDOW_UI.to_vec();
    forbidden.extend(["gltf", "ufbx"]);
    assert_layer("graph", 3, &["anim", "asset", "graph"], &forbidden);
}

#[test]
fn the_renderer_draws_matrices_and_knows_no_stage_window_or_ui() {
    // It draws what `asset::PoseMatrices` gives; it evaluates nothing.
    assert_layer(
        "render",
        8,
        &["anim", "asset", "render"],
        &["winit", "egui", "egui_winit", "egui_plot", "gltf", "ufbx"],
    );
}

#[test]
fn the_stage_is_cpu_only_and_below_the_window_and_the_commands() {
    let mut forbidden = GPU_WINDOW_UI.to_vec();
    forbidden.extend(["gltf", "ufbx", "clap"]);
    assert_layer("stage", 6, &["anim", "asset", "graph", "stage"], &forbidden);
}

#[test]
fn the_window_does_not_use_the_commands() {
    assert_layer(
        "app",
        8,
        &["anim", "asset", "graph", "render", "stage", "app"],
        &["clap", "gltf", "ufbx"],
    );
}

#[test]
fn the_ui_is_egui_only() {
    // Panels draw the controller and send it commands; the GPU and the event loop are the
    // window's (`app/mod.rs`).
    assert_layer(
        "app/ui",
        8,
        &["anim", "asset", "graph", "render", "stage", "app"],
        &[
            "wgpu",
            "winit",
            "egui_wgpu",
            "egui_winit",
            "gltf",
            "ufbx",
            "clap",
        ],
    );
}

#[test]
fn the_ui_changes_the_stage_through_the_controller() {
    // Panels, keys and the window's scripted runs send `Transport` and `StageCommand`
    // values (or call the controller's methods); only the controller and the stage change
    // a timeline, a pose graph, motion matching or the A/B compare. Calls split over lines by rustfmt count
    // too: the code is read with its whitespace removed.
    let mut files = Vec::new();
    rust_files(&src().join("app/ui"), &mut files);
    files.push(src().join("app/mod.rs"));
    let mut problems = Vec::new();
    for file in &files {
        let code = squeezed_code(file);
        for call in [
            ".timeline.set_",
            ".timeline.seek",
            ".timeline.step_",
            ".timeline.jump_",
            ".timeline.toggle_play",
            ".timeline.restart",
            ".timeline.select_clip",
            "graph_mut(",
            "matching_mut(",
            "params_mut(",
            ".compare.as_mut(",
            "stage.compare=",
            ".retarget.as_mut(",
            ".set_b_clip(",
            ".travel(model",
            ".set_float(",
            ".set_rate(",
            ".playing=",
            ".keys=",
            ".require_tags=",
            ".exclude_tags=",
        ] {
            if code.contains(call) {
                problems.push(format!("{}: calls `{call}`", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Writes to the controller's fields in `code` (squeezed: no comments or whitespace):
/// `p.x = ..`, `p.x.y += ..`, `&mut p.x` and the same through `self` (the panels of
/// `ui/mod.rs` are methods of the controller type).
fn field_writes(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for owner in ["p.", "self."] {
        for (at, _) in code.match_indices(owner) {
            // Only a whole name (`p.` not the end of `sp.` or `top.`); squeezed, `&mut p.x`
            // reads `&mutp.x`.
            let borrowed = code[..at].ends_with("&mut");
            let before = code[..at].chars().next_back();
            if !borrowed && before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                continue;
            }
            let path_end = code[at + owner.len()..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .map_or(code.len(), |n| at + owner.len() + n);
            let path = &code[at..path_end];
            let rest = &code[path_end..];
            let assigns = (rest.starts_with('=') && !rest.starts_with("=="))
                || ["+=", "-=", "*=", "/=", "|=", "&="]
                    .iter()
                    .any(|op| rest.starts_with(op));
            if assigns || borrowed {
                found.push(path.to_string());
            }
        }
    }
    found
}

#[test]
fn the_panels_change_the_controller_only_through_its_methods() {
    // View settings, windows, the camera and the file browser included: panels read the
    // controller's fields and send `ViewCommand`s / `StageCommand`s or call its methods.
    let mut files = Vec::new();
    rust_files(&src().join("app/ui"), &mut files);
    let mut problems = Vec::new();
    for file in &files {
        let code = squeezed_code(file);
        for path in field_writes(&code) {
            problems.push(format!("{}: writes `{path}`", file.display()));
        }
        // Methods that change a field's value in place.
        for call in [
            ".inspect.select(",
            ".inspect.toggle_",
            ".inspect.update_",
            ".camera.orbit(",
            ".camera.pan(",
            ".camera.zoom(",
            ".actions.push(",
        ] {
            // The camera is the view part's (`p.view.camera`).
            let owners = ["p", "self", "p.view", "self.view"];
            if owners.iter().any(|o| code.contains(&format!("{o}{call}"))) {
                problems.push(format!("{}: calls `{call}`", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The scan itself.
    assert_eq!(
        field_writes(
            "p.view.toggles.mesh=true;letx=p.a==b;f(&mutself.view.camera);top.x=1;p.n+=1;"
        ),
        ["p.view.toggles.mesh", "p.n", "self.view.camera"]
    );
}

#[test]
fn one_scene_builder_draws_the_window_and_the_cli() {
    // The window and `stridescope render` describe a `Frame`; only `render::scene` turns
    // one into the renderer's `SceneView` (there were two builders that drifted apart).
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let builders: Vec<String> = files
        .iter()
        .filter(|f| {
            let code = squeezed_code(f);
            code.contains("SceneView{") && !code.contains("pubstructSceneView")
        })
        .map(|f| f.strip_prefix(src()).unwrap().display().to_string())
        .collect();
    assert_eq!(builders, ["render/scene.rs"]);
}

#[test]
fn the_commands_do_not_use_the_window() {
    let mut forbidden = GPU_WINDOW_UI.to_vec();
    forbidden.retain(|c| *c != "wgpu");
    assert_layer(
        "cli",
        6,
        &["anim", "asset", "graph", "render", "stage", "cli"],
        &forbidden,
    );
}

#[test]
fn the_guard_sees_paths_and_crates() {
    // The scanner itself: these must be found (or not), or every test above passes vacuously.
    assert_eq!(
        crate_paths("use crate::stage::pose::Pose; x = crate::anim::Transform"),
        ["stage", "anim"]
    );
    assert!(crate_paths("$crate::foo, other_crate::bar").is_empty());
    assert!(names_crate("let d: wgpu::Device", "wgpu"));
    assert!(names_crate("use winit::event::WindowEvent;", "winit"));
    assert!(!names_crate("egui_wgpu::Renderer", "wgpu"));
    assert!(!names_crate("crate::render::wgpu_thing", "wgpu"));
    assert_eq!(code_of("let a = 1; // crate::app"), "let a = 1; ");
}

/// One owner for the legs' size (ARCHITECTURE.md, "Who owns which concept"): outside the
/// core, which defines them, and `asset/analysis.rs`, which computes them once per model,
/// nobody rebuilds the leg length or the unit scale from the legs; they ask the model
/// (`Model::leg_length_m`, `unit_scale`, `leg_length_or_reference_m`, `legs`).
#[test]
fn leg_length_and_scale_are_computed_in_one_place() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let owner = src().join("asset/analysis.rs");
    let mut problems = Vec::new();
    for file in files
        .iter()
        .filter(|f| !f.starts_with(src().join("anim")) && **f != owner)
    {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = code_of(line);
            let rebuilds = [
                "locomotion::unit_scale(",
                "contacts::leg_length(",
                "detect_legs(",
            ]
            .iter()
            .any(|c| code.contains(c))
                || (code.contains("REFERENCE_LEG_LENGTH_M") && code.contains('*'));
            if rebuilds {
                problems.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "ask the model for legs, leg length and scale:\n{}",
        problems.join("\n")
    );
}
