//! Motion matching on a motion-capture library (issue 22, first part): `trace
//! --motion-matching --library DIR` retargets every clip of the folder onto the character
//! (the built-in demo here) and matches on them instead of the character's own clips.

use std::path::Path;
use std::process::Command;

#[test]
fn a_folder_of_mocap_is_retargeted_onto_the_demo_and_matched() {
    let bandai = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mocap/bandai");
    let dir = std::env::temp_dir().join(format!("stridescope-mm-library-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let names = [
        "dataset-2_walk_normal_002",
        "dataset-2_walk_normal_004",
        "dataset-2_run_normal_001",
    ];
    for n in names {
        std::fs::copy(
            bandai.join(format!("{n}.bvh")),
            dir.join(format!("{n}.bvh")),
        )
        .unwrap();
    }
    let run = Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .args(["trace", "--motion-matching", "--json", "--library"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(r["library_files"], 3);
    assert_eq!(r["mirrored"], false);
    assert!(r["build_secs"].as_f64().unwrap() > 0.0);
    // The database holds the library's clips, not the demo's own (about 20 s of mocap
    // sampled by the matcher).
    let mut clips: Vec<String> = r["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    clips.sort();
    let mut expected: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(clips, expected);
    let frames = r["database_frames"].as_u64().unwrap();
    assert!(frames > 300, "{frames} database frames");
    // The default scenario walks most of its 12 s: the walks play.
    let secs = &r["summary"]["clip_secs"];
    let walking = secs["dataset-2_walk_normal_002"].as_f64().unwrap_or(0.0)
        + secs["dataset-2_walk_normal_004"].as_f64().unwrap_or(0.0);
    assert!(walking > 6.0, "walked {walking} s: {secs}");

    // --mirror: every clip enters mirrored too, doubling the database.
    let run = Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .args([
            "trace",
            "--motion-matching",
            "--json",
            "--mirror",
            "--library",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let m: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(m["mirrored"], true);
    assert_eq!(m["database_frames"].as_u64().unwrap(), 2 * frames);
    let names: Vec<&str> = m["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"dataset-2_walk_normal_002 (mirrored)"),
        "{names:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
