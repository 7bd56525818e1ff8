//! Layering. The top-level folders of `src` are layers, bottom to top: `anim` (the pure
//! CPU core), `asset` (importers), `graph` (the pose graph), `render` (wgpu), `stage`
//! (characters and their motion sources), then `app` (the window) and `cli` (the
//! commands). Each layer is its own crate (`src/<layer>/Cargo.toml`), so the compiler
//! refuses an import its manifest does not allow; these tests check the manifests
//! themselves (a layer names only the layers below it and its own external crates: no GPU
//! in the stage, no window in the renderer), and, inside a crate, what the compiler cannot
//! see: egui only in the UI, panels that change the controller only through its methods.
//! Every `.rs` file is read and every `crate::` path and external crate outside comments is
//! checked, so a dependency that breaks the layering fails here with the file and line.

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

/// The layers, bottom to top.
const LAYERS: [&str; 7] = ["anim", "asset", "graph", "render", "stage", "app", "cli"];

/// Fails, naming file and line, when a file under `src/<layer>` uses a layer (as
/// `crate::<layer>`, the name each crate gives the layers below it) outside `allowed` or
/// names one of the `forbidden` external crates.
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
                if LAYERS.contains(&module) && !allowed.contains(&module) {
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
    for layer in LAYERS {
        let manifest = src().join(layer).join("Cargo.toml");
        assert!(manifest.is_file(), "{} is missing", manifest.display());
    }
}

/// The names in the `[section]` of the manifest at `path`, as Rust paths spell them
/// (`egui-wgpu` as `egui_wgpu`).
fn manifest_names(path: &Path, section: &str) -> Vec<String> {
    let toml = std::fs::read_to_string(path).unwrap();
    toml.lines()
        .skip_while(|l| l.trim() != section)
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter_map(|l| l.split_once('=').map(|(name, _)| name.trim()))
        .filter(|name| !name.is_empty() && !name.starts_with('#'))
        .map(|name| name.trim_end_matches(".workspace").replace('-', "_"))
        .collect()
}

/// Every outside crate the workspace may use (`[workspace.dependencies]`).
fn workspace_crates() -> Vec<String> {
    manifest_names(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"),
        "[workspace.dependencies]",
    )
}

/// What `src/<layer>/Cargo.toml` depends on: (layers, outside crates).
fn layer_manifest(layer: &str) -> (Vec<String>, Vec<String>) {
    let path = src().join(layer).join("Cargo.toml");
    // Every section the layer's code builds with: its dependencies, build dependencies and
    // per-target dependencies (`[target.'cfg(unix)'.dependencies]`); dev-dependencies only
    // reach its tests.
    let toml = std::fs::read_to_string(&path).unwrap();
    let mut names = Vec::new();
    for section in toml.lines().map(str::trim).filter(|l| l.starts_with('[')) {
        let builds = section == "[dependencies]"
            || section == "[build-dependencies]"
            || (section.starts_with("[target.") && section.ends_with(".dependencies]"));
        if builds {
            names.extend(manifest_names(&path, section));
        }
    }
    let (layers, outside): (Vec<String>, Vec<String>) = names
        .into_iter()
        .partition(|n| n.starts_with("stridescope_"));
    let layers = layers
        .iter()
        .map(|n| n.trim_start_matches("stridescope_").to_string())
        .collect();
    (layers, outside)
}

#[test]
fn each_layer_crate_depends_only_on_the_layers_below_it() {
    // What the compiler enforces is the manifests: check them, so widening one is a
    // deliberate change here too. The graph and the renderer sit side by side; so do the
    // window and the commands.
    let below: [(&str, &[&str]); 7] = [
        ("anim", &[]),
        ("asset", &["anim"]),
        ("graph", &["anim", "asset"]),
        ("render", &["anim", "asset"]),
        ("stage", &["anim", "asset", "graph"]),
        ("app", &["anim", "asset", "graph", "render", "stage"]),
        ("cli", &["anim", "asset", "graph", "render", "stage"]),
    ];
    let no_gpu_window_ui: Vec<&str> = GPU_WINDOW_UI.to_vec();
    let forbidden: [(&str, Vec<&str>); 7] = [
        ("anim", vec![]), // checked against CORE_CRATES below
        ("asset", no_gpu_window_ui.clone()),
        ("graph", [&no_gpu_window_ui[..], &["gltf", "ufbx"]].concat()),
        (
            "render",
            vec![
                "winit",
                "egui",
                "egui_winit",
                "egui_plot",
                "gltf",
                "ufbx",
                "clap",
            ],
        ),
        (
            "stage",
            [&no_gpu_window_ui[..], &["gltf", "ufbx", "clap"]].concat(),
        ),
        ("app", vec!["clap", "gltf", "ufbx"]),
        (
            "cli",
            vec!["winit", "egui", "egui_wgpu", "egui_winit", "egui_plot"],
        ),
    ];
    let mut problems = Vec::new();
    for ((layer, expected), (_, refused)) in below.iter().zip(&forbidden) {
        let (layers, outside) = layer_manifest(layer);
        if layers != *expected {
            problems.push(format!(
                "src/{layer}/Cargo.toml names layers {layers:?}, expected {expected:?}"
            ));
        }
        for c in &outside {
            if refused.contains(&c.as_str()) {
                problems.push(format!("src/{layer}/Cargo.toml must not depend on {c}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The core's allowed crates, stated: glam (maths), serde (definitions read from RON by
/// the layers above), smallvec (per-frame lists without allocation), spade (blend-space
/// triangulation) and rayon (the motion-matching database build and parallel skinning).
/// Every other dependency is refused, so a new one must be added here on purpose.
const CORE_CRATES: [&str; 5] = ["glam", "serde", "smallvec", "spade", "rayon"];

#[test]
fn the_animation_core_is_pure_cpu_and_uses_no_other_layer() {
    let (layers, outside) = layer_manifest("anim");
    assert!(layers.is_empty(), "the core depends on layers {layers:?}");
    for c in &outside {
        assert!(
            CORE_CRATES.contains(&c.as_str()),
            "src/anim/Cargo.toml depends on {c}"
        );
    }
    // The workspace list is read (not a copy of it), so the scan below refuses every
    // outside crate but the core's.
    let all = workspace_crates();
    for c in CORE_CRATES.iter().chain(&["wgpu", "egui", "ufbx"]) {
        assert!(all.iter().any(|d| d == c), "{c} not among {all:?}");
    }
    let forbidden: Vec<&str> = all
        .iter()
        .map(String::as_str)
        .filter(|d| !CORE_CRATES.contains(d))
        .collect();
    assert_layer("anim", 8, &[], &forbidden);
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
    // (`StageError`) say what was wrong in types callers can match; the window and the
    // commands (`AppError`, `CliError`) keep them as their causes and turn the chain into
    // text only where they show it (`ErrorChain`).
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
fn the_window_and_the_commands_keep_the_cause() {
    // Text errors are left only where an outside API asks for text: clap's value parsers
    // and the timeline's go-to field (`parse_*`), and egui's dropped-file trait.
    let mut problems = Vec::new();
    for layer in ["app", "cli"] {
        problems.extend(string_errors(layer));
    }
    problems.retain(|p| {
        let line = p.splitn(3, ':').nth(2).unwrap_or("");
        !(line.contains("fn parse_")
            || line.contains("let parse = |v: &str|")
            || line.contains("fn bytes(&self)"))
    });
    assert!(
        problems.is_empty(),
        "use AppError / CliError (they keep the cause):\n{}",
        problems.join("\n")
    );
    // No layer turns its error into a String for the layers above (that dropped `source()`).
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let to_string: Vec<String> = files
        .iter()
        .filter(|f| {
            let code = squeezed_code(f);
            // Squeezed: `impl From<X> for String {` reads `implFrom<X>forString{`.
            code.contains("forString{")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        to_string.is_empty(),
        "`impl From<_> for String` in {to_string:?}"
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
    // window's (`app/lib.rs`).
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
    files.push(src().join("app/lib.rs"));
    files.push(src().join("app/frame.rs"));
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

/// The module path of `file` inside its layer's crate (`src/asset/bvh/parse.rs` ->
/// `["bvh", "parse"]`; a `mod.rs` or `lib.rs` is its folder's module).
fn module_path(layer_dir: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(layer_dir).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The module paths `code` (without comments) names through `crate::` and `super::`, seen
/// from module `at`; a `{a, b}` group gives each member.
fn named_modules(code: &str, at: &[String], is_file: bool) -> Vec<Vec<String>> {
    let ident = |s: &str| -> usize {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    let mut out = Vec::new();
    for (prefix, base) in [
        ("crate::", Vec::new()),
        // A file module's `super` is its parent; a `mod.rs`'s is its folder's parent.
        ("super::", {
            let mut p = at.to_vec();
            if is_file || !p.is_empty() {
                p.pop();
            }
            p
        }),
    ] {
        for (i, _) in code.match_indices(prefix) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let mut path = base.clone();
            let mut rest = &code[i + prefix.len()..];
            // Further `super::`s climb.
            while let Some(r) = rest.strip_prefix("super::") {
                path.pop();
                rest = r;
            }
            loop {
                if let Some(group) = rest.strip_prefix('{') {
                    let end = group.find('}').unwrap_or(group.len());
                    for member in group[..end].split(',') {
                        let member = member.trim();
                        let n = ident(member);
                        if n > 0 {
                            let mut p = path.clone();
                            p.push(member[..n].to_string());
                            out.push(p);
                        }
                    }
                    break;
                }
                let n = ident(rest);
                if n == 0 {
                    break;
                }
                path.push(rest[..n].to_string());
                out.push(path.clone());
                match rest[n..].strip_prefix("::") {
                    Some(r) => rest = r,
                    None => break,
                }
            }
        }
    }
    out
}

/// Files of one layer that use each other (`a.rs` uses `b.rs` and `b.rs` uses `a.rs`,
/// directly or through others), as `a -> b -> a`. A module and the folder module above it
/// are not counted: a parent declares its children.
fn file_cycles(layer_dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(layer_dir, &mut files);
    files.sort();
    let paths: Vec<Vec<String>> = files.iter().map(|f| module_path(layer_dir, f)).collect();
    let index_of = |p: &[String]| paths.iter().position(|q| q == p);
    let related = |a: &[String], b: &[String]| a.starts_with(b) || b.starts_with(a);
    let mut uses: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); files.len()];
    for (i, file) in files.iter().enumerate() {
        let is_file = !matches!(
            file.file_name().and_then(|n| n.to_str()),
            Some("mod.rs" | "lib.rs")
        );
        let text = std::fs::read_to_string(file).unwrap();
        let code: Vec<&str> = text.lines().map(code_of).collect();
        for named in named_modules(&code.join(" "), &paths[i], is_file) {
            // The longest prefix of the named path that is a file of this layer.
            let target = (1..=named.len()).rev().find_map(|n| index_of(&named[..n]));
            if let Some(j) = target {
                if j != i && !related(&paths[i], &paths[j]) {
                    uses[i].insert(j);
                }
            }
        }
    }
    // Every cycle through each file, found by a walk from it (files are few).
    let mut cycles = BTreeSet::new();
    for start in 0..files.len() {
        let mut stack = vec![(start, vec![start])];
        while let Some((at, trail)) = stack.pop() {
            for &next in &uses[at] {
                if next == start {
                    let mut names: Vec<String> =
                        trail.iter().map(|&k| paths[k].join("::")).collect();
                    // One spelling per cycle: rotate to its smallest file.
                    let min = (0..names.len()).min_by_key(|&k| names[k].clone()).unwrap();
                    names.rotate_left(min);
                    names.push(names[0].clone());
                    cycles.insert(names.join(" -> "));
                } else if !trail.contains(&next) && trail.len() < 6 {
                    let mut t = trail.clone();
                    t.push(next);
                    stack.push((next, t));
                }
            }
        }
    }
    cycles.into_iter().collect()
}

#[test]
fn no_two_files_of_a_layer_use_each_other() {
    // A cycle makes neither file readable on its own; each was broken by moving the
    // shared part where both can use it (the BVH types vs. the motion reader, FBX
    // materials vs. meshes, a character vs. the A/B compare, RON parsing vs. retargeting).
    let mut problems = Vec::new();
    for layer in LAYERS {
        for cycle in file_cycles(&src().join(layer)) {
            problems.push(format!("src/{layer}: {cycle}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The scan itself: a `{}` group, `super::` from a file and a nested path are seen.
    let at = vec!["bvh".to_string(), "motion".to_string()];
    assert_eq!(
        named_modules("use super::parse::{Bvh,\n    Joint};", &at, true),
        [
            vec!["bvh", "parse"],
            vec!["bvh", "parse", "Bvh"],
            vec!["bvh", "parse", "Joint"]
        ]
    );
    assert_eq!(
        named_modules("let x = crate::inspect::AbCompare::new();", &at, true),
        [
            vec!["inspect"],
            vec!["inspect", "AbCompare"],
            vec!["inspect", "AbCompare", "new"]
        ]
    );
}

/// One owner each for in place, contacts and placement (ARCHITECTURE.md, "Who owns which
/// concept"). A clip's analysis (the in-place rule, contacts, detected markers) is run by
/// the model (`asset/analysis.rs`, cached per clip); outside the core only three callers
/// run it themselves, each for what the model's cache does not hold: the stage's
/// `clip_locomotion` for contact settings or legs other than the model's, retargeting for
/// the source's contacts under the retargeter's legs, and the lint's marker check, which
/// compares the file's foot markers with contacts detected from the feet (the analysis
/// takes a leg's contacts from its markers when the file has them). Placement (the root's travel
/// accumulated into `world_from_root`) is the core's and the stage's: the window and the
/// commands only read it.
#[test]
fn in_place_contacts_and_placement_have_one_owner() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let analysis_owners = [
        src().join("asset/analysis.rs"),
        src().join("stage/locomotion.rs"),
        src().join("stage/retarget.rs"),
        src().join("cli/lint/feet.rs"),
    ];
    let mut problems = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(src().join("anim"))) {
        let text = std::fs::read_to_string(file).unwrap();
        let placement_owner = file.starts_with(src().join("stage"));
        for (n, line) in text.lines().enumerate() {
            let code = code_of(line);
            let analyses = ["analyse_clip(", "detect_contacts(", "decide_in_place("]
                .iter()
                .any(|c| code.contains(c));
            if analyses && !analysis_owners.contains(file) {
                problems.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
            let places = code.contains("world_from_root.compose(")
                || (code.contains("world_from_root =") && !code.contains("let "));
            if places && !placement_owner {
                problems.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "ask the model (`clip_analysis`) or the stage for these:\n{}",
        problems.join("\n")
    );
}

/// `(struct name, field count)` of each braced struct in `code`: a field is a line of the
/// body that starts (after `pub`/`pub(crate)`) with `name:`.
fn struct_field_counts(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize)> = None;
    for line in code.lines().map(code_of) {
        let trimmed = line.trim();
        if let Some((name, count)) = open.as_mut() {
            if line.starts_with('}') {
                out.push((std::mem::take(name), *count));
                open = None;
            } else {
                let field = trimmed
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub(super) ")
                    .trim_start_matches("pub ");
                let is_field = field.split_once(':').is_some_and(|(name, _)| {
                    !name.is_empty()
                        && name
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                });
                if line.starts_with("    ") && !line.starts_with("     ") && is_field {
                    *count += 1;
                }
            }
        } else if let Some(rest) = line.split_once("struct ").map(|(_, r)| r) {
            if line.trim_end().ends_with('{') && !line.starts_with(' ') {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                open = Some((name, 0));
            }
        }
    }
    out
}

#[test]
fn the_field_counter_counts_fields() {
    let code = "pub struct Parts {\n    /// doc: not a field\n    pub view: View,\n    pub(crate) loads: Loads,\n    drive: Drive<\n        A,\n    >,\n}\nstruct Unit;\n";
    assert_eq!(struct_field_counts(code), vec![("Parts".to_string(), 3)]);
}

#[test]
fn the_window_and_the_commands_stay_in_parts_a_reader_can_hold() {
    // The controller is split into parts, each in its own file, none over ~10 fields; no
    // file of the window or the commands grows past ~600 lines (it is then split by
    // concern, as the controller's and the commands' folders are).
    let mut too_long = Vec::new();
    for layer in ["app", "cli"] {
        let mut files = Vec::new();
        rust_files(&src().join(layer), &mut files);
        for file in files {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > 600 {
                too_long.push(format!("{} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(too_long.is_empty(), "split by concern: {too_long:?}");
    let mut files = Vec::new();
    rust_files(&src().join("app/controller"), &mut files);
    let mut big = Vec::new();
    let mut seen_previewer = false;
    for file in files {
        for (name, fields) in struct_field_counts(&std::fs::read_to_string(&file).unwrap()) {
            seen_previewer |= name == "Previewer";
            if fields > 11 {
                big.push(format!("{name} in {} ({fields} fields)", file.display()));
            }
        }
    }
    assert!(seen_previewer, "the controller moved: update this test");
    assert!(big.is_empty(), "group these fields into parts: {big:?}");
}
