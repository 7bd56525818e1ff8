//! Real animator files (issue 38): a Mixamo "with skin" download opens on its animation,
//! not on the empty `Take 001` before it; takes that exporters name after themselves
//! (`mixamo.com`, `Take 001`) are named after their file; empty takes are listed but left
//! out of defaults, libraries and retargets; written GLBs keep names unique.
//!
//! ../shared has no Mixamo download: `common/mixamo.rs` writes files the way Mixamo's are
//! made (an empty `Take 001` of no curve and no length, then the take `mixamo.com`).

mod common;

use common::scratch::Scratch;
use std::path::{Path, PathBuf};
use std::process::Command;

use stridescope::anim::ClipEmptiness;
use stridescope::asset;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

/// A folder with two Mixamo-style downloads ("Walking.fbx", "Samba Dancing.fbx", each an
/// empty `Take 001` and the take `mixamo.com`) and the skeleton without a take.
fn downloads(test: &str) -> (Scratch, Vec<common::mixamo::Take>) {
    let dir = Scratch::new(&format!("animator-files-{test}"));
    let walk = shared("mocap/bandai/dataset-2_walk_normal_002.bvh");
    let run = shared("mocap/bandai/dataset-2_run_normal_001.bvh");
    let takes = vec![
        common::mixamo::write_take_after_empty(dir.path(), &walk, "Walking.fbx", "mixamo.com"),
        common::mixamo::write_take_after_empty(dir.path(), &run, "Samba Dancing.fbx", "mixamo.com"),
    ];
    (dir, takes)
}

fn stridescope(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_mixamo_download_opens_on_its_take_named_after_the_file() {
    let (_dir, takes) = downloads("open");
    let path = &takes[0].path;
    let model = asset::load(path).unwrap();
    let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
    assert_eq!(names, ["Walking/Take 001", "Walking"]);
    assert_eq!(model.clips[0].emptiness(), Some(ClipEmptiness::NoChannels));
    assert!(model.clips[1].animates());
    assert_eq!(model.default_clip(), Some(1));
    assert_eq!(model.animated_clips(), [1]);
    // The window's clip list leaves the empty take out ("Show hidden" lists it, greyed).
    assert_eq!(model.listed_clips(false), [1]);
    assert_eq!(model.listed_clips(true), [0, 1]);
    assert!(model
        .clip_hidden(0)
        .is_some_and(|why| why.contains("no animated channel")));

    // `inspect` says which clip opens and why the other does not.
    let out = stridescope(&["inspect".as_ref(), path.as_os_str(), "--json".as_ref()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["default_clip"], "Walking");
    assert!(
        report["clips"][0]["empty"]
            .as_str()
            .is_some_and(|s| s.contains("no animated channel")),
        "{}",
        report["clips"][0]
    );
    assert!(report["clips"][1]["empty"].is_null());
    // The text says the same.
    let out = stridescope(&["inspect".as_ref(), path.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("clips: (opens on Walking)"), "{text}");
    assert!(
        text.contains(
            "empty take: no animated channel: not opened by default, left out of libraries"
        ),
        "{text}"
    );

    // `trace` and `snapshot` without --clip play the take, not the T pose.
    let out = stridescope(&[
        "trace".as_ref(),
        path.as_os_str(),
        "--json".as_ref(),
        "--seconds".as_ref(),
        "0.5".as_ref(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trace: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(trace["clip"], "Walking");
    assert!(
        trace["duration_secs"].as_f64().unwrap() > 8.0,
        "{}",
        trace["duration_secs"]
    );
    let obj = std::env::temp_dir().join(format!("stridescope-af-{}.obj", std::process::id()));
    let out = stridescope(&[
        "snapshot".as_ref(),
        path.as_os_str(),
        "--time".as_ref(),
        "1".as_ref(),
        "--obj".as_ref(),
        obj.as_os_str(),
    ]);
    let _ = std::fs::remove_file(&obj);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("clip 'Walking'"), "{said}");

    // The window's timeline opens on it too.
    let timeline = stridescope::stage::timeline::Timeline::new(&model);
    assert_eq!(timeline.clip(), Some(1));
}

#[test]
fn a_folder_of_downloads_lists_its_clips_by_file_and_skips_empty_takes() {
    let (dir, _takes) = downloads("folder");
    let model = asset::load(dir.path()).unwrap();
    let mut names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "Samba Dancing",
            "Samba Dancing/Take 001",
            "Walking",
            "Walking/Take 001"
        ]
    );
    // The library grid shows the two takes that move, the default is one of them.
    let grid = stridescope::stage::library::ClipGrid::new(&model).unwrap();
    assert_eq!(grid.len(), 2);
    for cell in 0..grid.len() {
        let clip = grid.clip(cell).unwrap();
        assert!(model.clips[clip].animates(), "{}", model.clips[clip].name());
    }
    assert!(model.clips[model.default_clip().unwrap()].animates());
}

#[test]
fn retargeting_a_download_carries_its_take_not_the_empty_one() {
    let (_dir, takes) = downloads("retarget");
    let source = asset::load(&takes[1].path).unwrap();
    let target = asset::load(&shared("assets/CesiumMan/CesiumMan.glb")).unwrap();
    let (clips, report) =
        stridescope::cli::retarget::retarget_models(&source, &target, &[], &Default::default())
            .unwrap();
    assert_eq!(clips.len(), 1);
    assert_eq!(clips[0].name(), "Samba Dancing");
    let q = &report.clips[0];
    assert_eq!(q.name, "Samba Dancing");
    // A run: the feet plant, and the target plants with them (the empty take's
    // figures were 0).
    assert!(q.contact_agreement > 0.5, "{q:?}");
    assert!(q.duration_secs > 1.0, "{q:?}");
}

/// The GLB writer behind `retarget --out` keeps animation names unique: a clip added
/// under a name the file already has (the demo's `Walk`) gets ` (2)` (other tools pick the
/// first animation of a name).
#[test]
fn a_written_glb_keeps_animation_names_unique() {
    let glb = asset::demo::demo_glb();
    let out = asset::glb_writer::append_animations(
        &glb,
        &[
            ("Walk".to_string(), Vec::new()),
            ("Walk".to_string(), Vec::new()),
        ],
    )
    .unwrap();
    let json_len = u32::from_le_bytes(out[12..16].try_into().unwrap()) as usize;
    let doc: serde_json::Value = serde_json::from_slice(&out[20..20 + json_len]).unwrap();
    let names: Vec<&str> = doc["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names.iter().filter(|n| **n == "Walk").count(),
        1,
        "{names:?}"
    );
    assert!(
        names.contains(&"Walk (2)") && names.contains(&"Walk (3)"),
        "{names:?}"
    );
}

/// A file whose only take is empty (Maya's `maya_character` sample: a rig and an empty
/// `Take 001`) opens on it, and `inspect` does not claim otherwise.
#[test]
fn a_file_of_only_an_empty_take_opens_on_it_and_says_so() {
    let path = shared("fbx/ufbx/maya_character_7500_binary.fbx");
    let model = asset::load(&path).unwrap();
    assert_eq!(model.clips.len(), 1);
    assert_eq!(model.clips[0].emptiness(), Some(ClipEmptiness::NoChannels));
    assert_eq!(model.default_clip(), Some(0));
    let out = stridescope(&["inspect".as_ref(), path.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("clips: (opens on maya_character_7500_binary/Take 001)"),
        "{text}"
    );
    assert!(
        text.contains("empty take: no animated channel: left out of libraries"),
        "{text}"
    );
    assert!(!text.contains("not opened by default"), "{text}");
}
