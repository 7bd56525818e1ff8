//! The command line: `inspect`, `trace`, `make-demo`, exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use stridescope::anim::ClipRootMotion;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .args(args)
        .output()
        .expect("run stridescope")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(args: &[&str]) -> Value {
    let o = run(args);
    assert!(o.status.success(), "{args:?} failed: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: bad JSON: {e}"))
}

const MODELS: [(&str, usize, usize, usize); 8] = [
    // (path, skin joints, vertices, clips)
    ("assets/Fox/Fox.glb", 24, 1728, 3),
    ("assets/Fox/Fox.gltf", 24, 1728, 3),
    ("assets/CesiumMan/CesiumMan.glb", 19, 3273, 1),
    ("assets/CesiumMan/CesiumMan.gltf", 19, 3273, 1),
    ("assets/RiggedSimple/RiggedSimple.glb", 2, 160, 1),
    ("assets/RiggedFigure/RiggedFigure.glb", 19, 370, 1),
    // 10 shared vertices, no NORMAL: flat normals give each of its 8 triangles its own
    // 3 corners (the Fox has none shared and keeps its 1,728).
    ("assets/SimpleSkin/SimpleSkin.gltf", 2, 24, 1),
    ("assets/Robot/robot.glb", 43, 7218, 14),
];

#[test]
fn inspect_every_shared_model() {
    for (rel, joints, vertices, clips) in MODELS {
        let path = shared(rel);
        let path = path.to_str().unwrap();
        let o = run(&["inspect", path]);
        assert!(o.status.success(), "{rel}: {}", stderr(&o));
        let text = stdout(&o);
        assert!(
            text.contains("joint tree:") && text.contains("clips:"),
            "{rel}: {text}"
        );
        let report = json(&["inspect", path, "--json"]);
        assert_eq!(report["skins"][0]["joint_count"], joints, "{rel}");
        assert_eq!(report["vertex_count"], vertices, "{rel}");
        let report_clips = report["clips"].as_array().unwrap();
        assert_eq!(report_clips.len(), clips, "{rel}");
        for c in report_clips {
            assert!(
                text.contains(c["name"].as_str().unwrap()),
                "{rel}: clip missing from text"
            );
            assert!(c["duration_secs"].as_f64().unwrap() > 0.0);
        }
    }
}

#[test]
fn inspect_reports_root_motion_of_the_demo() {
    let report = json(&["inspect", "--json"]);
    let clip = |name: &str| {
        report["clips"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("demo has no clip {name}"))
            .clone()
    };
    let walk = clip("Walk");
    let rm = &walk["root_motion"];
    assert_eq!(rm["joint"], "root");
    assert!(rm["cycle_z_m"].as_f64().unwrap() > 0.5, "{rm}");
    assert!(rm["cycle_x_m"].as_f64().unwrap().abs() < 1e-6);
    let speed = rm["average_speed_mps"].as_f64().unwrap();
    let expected =
        rm["cycle_distance_m"].as_f64().unwrap() / walk["duration_secs"].as_f64().unwrap();
    assert!((speed - expected).abs() < 1e-9);
    assert!(!walk["markers"].as_array().unwrap().is_empty());
    let turn = clip("TurnWalk");
    assert!(turn["root_motion"]["cycle_yaw_deg"].as_f64().unwrap().abs() > 5.0);
    assert_eq!(clip("Wave")["additive"], true);
}

#[test]
fn trace_play_accumulates_and_seek_does_not() {
    // Play the demo Walk from 0.9 s: frame 1 seeks to 0.9, then 2.2 s of playback at
    // 10 fps (22 frames) ends at 3.1 s.
    let t = json(&[
        "trace",
        "--clip",
        "Walk",
        "--fps",
        "10",
        "--seconds",
        "2.3",
        "--seek",
        "0.9@1",
        "--json",
    ]);
    let frames = t["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 24);
    assert_eq!(frames[1]["event"], "seek");
    assert_eq!(frames[1]["world_z_m"], 0.0);
    assert_eq!(frames[1]["delta_z_m"], 0.0);
    let last = frames.last().unwrap();
    assert!((last["time_secs"].as_f64().unwrap() - 3.1).abs() < 1e-9);
    // Expected motion from the library: Delta(0.9, 3.1) of the same clip.
    let model = stridescope::cli::load_model(None).unwrap();
    let clip = model.find_clip("Walk").unwrap();
    let rm = ClipRootMotion::for_clip(&model.skeleton, &model.clips[clip], None)
        .unwrap()
        .unwrap();
    let expected = rm.motion.delta_secs(0.9, 3.1).unwrap();
    assert!((last["world_z_m"].as_f64().unwrap() - expected.translation.y).abs() < 1e-9);
    // Per-frame deltas sum to the total (no yaw in Walk).
    let sum: f64 = frames
        .iter()
        .map(|f| f["delta_z_m"].as_f64().unwrap())
        .sum();
    assert!((sum - expected.translation.y).abs() < 1e-9);
    // Seeking straight to 3.1 moves nothing.
    let s = json(&[
        "trace",
        "--clip",
        "Walk",
        "--fps",
        "10",
        "--seconds",
        "0.1",
        "--seek",
        "3.1@1",
        "--json",
    ]);
    let f1 = &s["frames"][1];
    assert_eq!(f1["cycle"], 2);
    assert_eq!(f1["world_z_m"], 0.0);
}

#[test]
fn trace_reverse_and_text_output() {
    let t = json(&[
        "trace",
        "--clip",
        "Run",
        "--rate",
        "-2",
        "--fps",
        "30",
        "--seconds",
        "1",
        "--json",
    ]);
    let last = t["frames"].as_array().unwrap().last().unwrap().clone();
    assert!(last["time_secs"].as_f64().unwrap() < -1.99);
    assert!(last["cycle"].as_i64().unwrap() < 0);
    assert!(
        last["world_z_m"].as_f64().unwrap() < -1.0,
        "reverse walks backwards: {last}"
    );
    let o = run(&["trace", "--clip", "Run", "--seconds", "0.05"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(
        text.lines().count() >= 5 && text.contains("world_z_m"),
        "{text}"
    );
}

#[test]
fn errors_exit_1_with_a_clear_message_and_usage_errors_exit_2() {
    let o = run(&["inspect", "/nonexistent/file.glb"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("/nonexistent/file.glb"),
        "{}",
        stderr(&o)
    );
    let o = run(&["trace", "--clip", "NoSuchClip"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("NoSuchClip") && stderr(&o).contains("Walk"),
        "{}",
        stderr(&o)
    );
    let o = run(&["trace", "--fps", "0"]);
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["trace", "--seek", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["trace", "--root-joint", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nope"));
    let o = run(&["--frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bad_gltf_files_never_panic_the_cli() {
    let mut checked = 0;
    let mut stack = vec![shared("bad-gltf")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext != "gltf" && ext != "glb" {
                continue;
            }
            let o = run(&["inspect", path.to_str().unwrap()]);
            let code = o.status.code();
            assert!(
                code == Some(0) || code == Some(1),
                "{}: exit {code:?}: {}",
                path.display(),
                stderr(&o)
            );
            if code == Some(1) {
                assert!(stderr(&o).starts_with("error: "), "{}", stderr(&o));
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} files found");
}

#[test]
fn make_demo_writes_the_committed_bytes() {
    let dir = std::env::temp_dir().join(format!("stridescope-make-demo-{}", std::process::id()));
    let out = dir.join("demo.glb");
    let o = run(&["make-demo", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written = std::fs::read(&out).unwrap();
    let committed =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.glb")).unwrap();
    assert!(
        written == committed,
        "assets/demo.glb is stale: run `cargo run -- make-demo`"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `--no-loop`: a clip plays to its end and rests there (no motion, no rewind); played
/// backwards from its start it stays at the start; a seek past the end lands on the end
/// and stays.
#[test]
fn trace_without_looping_rests_at_the_ends() {
    let frames = |args: &[&str]| -> Vec<serde_json::Value> {
        let mut all = vec![
            "trace",
            "--clip",
            "Walk",
            "--fps",
            "10",
            "--no-loop",
            "--json",
        ];
        all.extend_from_slice(args);
        json(&all)["frames"].as_array().unwrap().clone()
    };
    // Walk is 1.1 s: after 11 frames at 10 fps it rests at 1.1 s.
    let f = frames(&["--seconds", "2.0"]);
    assert_eq!(f.len(), 21);
    for row in &f[11..] {
        assert!(
            (row["time_secs"].as_f64().unwrap() - 1.1).abs() < 1e-6,
            "{row}"
        );
        assert_eq!(row["cycle"], 0);
    }
    // (11 x 0.1 s falls a rounding short of the f32 end: the next frame closes it.)
    for row in &f[12..] {
        assert!(row["delta_z_m"].as_f64().unwrap().abs() < 1e-6, "{row}");
    }
    let end_z = f[12]["world_z_m"].as_f64().unwrap();
    assert!(end_z > 0.5, "Walk travels: {end_z}");
    assert_eq!(f[20]["world_z_m"].as_f64().unwrap(), end_z);
    // Backwards from the start: nowhere to go.
    let f = frames(&["--seconds", "0.5", "--rate", "-1"]);
    for row in &f {
        assert_eq!(row["time_secs"].as_f64().unwrap(), 0.0, "{row}");
        assert_eq!(row["world_z_m"], 0.0, "{row}");
    }
    // A seek past the end is the end, and the clip rests there.
    let f = frames(&["--seconds", "0.3", "--seek", "100@1"]);
    assert_eq!(f[1]["event"], "seek");
    for row in &f[1..] {
        assert!(
            (row["time_secs"].as_f64().unwrap() - 1.1).abs() < 1e-6,
            "{row}"
        );
    }
}

/// A scripted window run (`--screenshot`, `--export`) of a file that does not open fails
/// with the file's error and writes nothing: showing the demo in its place, as an
/// interactive start does, would pass a script that checks exit codes. It fails before
/// any window opens (no display needed).
#[test]
fn a_scripted_run_of_a_file_that_does_not_open_fails() {
    let dir = std::env::temp_dir().join(format!("stridescope-scripted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("no-such-character.glb");
    let broken = dir.join("broken.glb");
    std::fs::write(&broken, b"glTF\x02\x00\x00\x00truncated").unwrap();
    for (file, flag, out) in [
        (&missing, "--screenshot", dir.join("shot.png")),
        (&broken, "--screenshot", dir.join("shot2.png")),
        (&missing, "--export", dir.join("clip.gif")),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_stridescope"))
            .arg(file)
            .args([flag, out.to_str().unwrap()])
            .env("STRIDESCOPE_CONFIG_DIR", &dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{flag} {}: {err}", file.display());
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(err.contains(name.as_ref()), "{err}");
        assert!(!err.contains("showing the demo"), "{err}");
        assert!(!out.exists(), "{}", out.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
