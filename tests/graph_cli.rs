//! `stridescope trace --blend / --scenario` and `render --scenario`: the headless face of
//! the pose graph, with the JSON keys scripts depend on.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::scratch::Scratch;

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .args(args)
        .output()
        .expect("run stridescope")
}

fn json(args: &[&str]) -> Value {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: bad JSON: {e}"))
}

/// Writes `text` to a file `name` in `dir`.
fn temp(dir: &Scratch, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn blend(extra: &[&str]) -> Value {
    let mut args = vec!["trace", "--json", "--seconds", "2.2", "--fps", "30"];
    args.extend_from_slice(extra);
    json(&args)
}

#[test]
fn half_a_cycle_apart_warns_in_phase_and_synced_do_not() {
    let half = blend(&[
        "--blend",
        "Walk,Walk",
        "--weight",
        "0.5",
        "--offset",
        "0.5",
        "--no-sync",
    ]);
    let s = &half["summary"];
    assert_eq!(s["phase_warning"], Value::Bool(true), "{s}");
    assert!(s["amplitude_drop"].as_f64().unwrap() > 0.6, "{s}");
    let same = blend(&[
        "--blend",
        "Walk,Walk",
        "--weight",
        "0.5",
        "--offset",
        "0",
        "--no-sync",
    ]);
    assert_eq!(same["summary"]["phase_warning"], Value::Bool(false));
    assert!(same["summary"]["amplitude_drop"].as_f64().unwrap() < 0.01);
    let synced = blend(&["--blend", "Walk,Run", "--weight", "0.5"]);
    assert_eq!(
        synced["summary"]["phase_warning"],
        Value::Bool(false),
        "{}",
        synced["summary"]
    );
    // Each input's final time and weight are in the summary.
    let layers = synced["summary"]["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 2);
    for l in layers {
        assert!((l["weight"].as_f64().unwrap() - 0.5).abs() < 1e-6, "{l}");
        assert!(l["time_secs"].as_f64().is_some());
    }
    // The summary is the last object: a script's "last phase_warning" reads it.
    let text = String::from_utf8(
        run(&["trace", "--json", "--blend", "Walk,Run", "--seconds", "0.5"]).stdout,
    )
    .unwrap();
    assert!(text.rfind("\"summary\"").unwrap() > text.rfind("\"frames\"").unwrap());
}

#[test]
fn a_blend_at_weight_zero_and_one_is_the_single_clip() {
    // Weight 0: the walk alone, 2.2 s = 2 cycles of 1.4 m; weight 1: the run alone, 2.1 s
    // = 3 cycles of 3.5 m.
    let walk = blend(&["--blend", "Walk,Run", "--weight", "0", "--no-sync"]);
    let d = walk["summary"]["distance_m"].as_f64().unwrap();
    assert!((d - 2.8).abs() < 1e-3, "walked {d}");
    let run = json(&[
        "trace",
        "--json",
        "--seconds",
        "2.1",
        "--fps",
        "30",
        "--blend",
        "Walk,Run",
        "--weight",
        "1",
        "--no-sync",
    ]);
    let d = run["summary"]["distance_m"].as_f64().unwrap();
    assert!((d - 10.5).abs() < 1e-3, "ran {d}");
}

const SCENARIO: &str = r#"// Idle, then walk, ramp to a run, wave, seek.
(
    fps: 30,
    seconds: 4.0,
    events: [
        (at_secs: 0.5, action: Set("speed", 1.27)),
        (at_secs: 1.5, action: Ramp(param: "speed", to: 5.0, secs: 1.0)),
        (at_secs: 2.0, action: Set("wave", 1.0)),
        (at_secs: 3.0, action: Seek(0.35)),
    ],
)
"#;

#[test]
fn a_scenario_drives_the_default_demo_graph() {
    let dir = Scratch::new("graph-cli");
    let path = temp(&dir, "walk_run_wave.ron", SCENARIO);
    let r = json(&["trace", "--json", "--scenario", path.to_str().unwrap()]);
    let frames = r["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 121);
    assert_eq!(frames[0]["state"], "Idle");
    assert_eq!(r["summary"]["final_state"], "Move");
    // The seek frame moves nothing.
    let seek = frames.iter().find(|f| f["event"] == "seek").unwrap();
    assert_eq!(seek["frame"], 90);
    assert_eq!(seek["delta_x_m"].as_f64(), Some(0.0));
    assert_eq!(seek["delta_z_m"].as_f64(), Some(0.0));
    // Running at the end: the run input carries all the weight, the wave layer is on.
    let layers = r["summary"]["layers"].as_array().unwrap();
    let by_clip = |c: &str| layers.iter().find(|l| l["clip"] == c).cloned();
    assert!((by_clip("Run").unwrap()["weight"].as_f64().unwrap() - 1.0).abs() < 1e-6);
    assert!((by_clip("Wave").unwrap()["weight"].as_f64().unwrap() - 1.0).abs() < 1e-6);
    // Speed rises from the walk to the run over the ramp (mean over a cycle either side).
    let mean_speed = |a: usize, b: usize| {
        frames[a..b]
            .iter()
            .map(|f| f["speed_mps"].as_f64().unwrap())
            .sum::<f64>()
            / (b - a) as f64
    };
    let walk = mean_speed(15, 45);
    let run = mean_speed(76, 90);
    assert!((walk - 1.27).abs() < 0.25, "walk speed {walk}");
    assert!(run > 4.0, "run speed {run}");
    // Deterministic: the same scenario prints the same bytes.
    let a = run_text(&path);
    let b = run_text(&path);
    assert_eq!(a, b);
}

fn run_text(path: &std::path::Path) -> Vec<u8> {
    run(&["trace", "--json", "--scenario", path.to_str().unwrap()]).stdout
}

#[test]
fn bad_scenarios_name_the_file_line_and_state() {
    let dir = Scratch::new("graph-cli");
    let bad_state = temp(
        &dir,
        "bad_state.ron",
        r#"(
    seconds: 1.0,
    graph: Some((
        base: StateMachine(machine: (
            initial: "Idle",
            states: [
                (name: "Idle", node: Clip(clip: "Idle")),
                (name: "Sprint", node: Clip(clip: "Sprinting")),
            ],
        )),
    )),
)"#,
    );
    let o = run(&["trace", "--scenario", bad_state.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("bad_state.ron:8:"), "{e}");
    assert!(
        e.contains("state 'Sprint'") && e.contains("Sprinting"),
        "{e}"
    );
    let syntax = temp(
        &dir,
        "syntax.ron",
        "(\n  seconds: 1.0,\n  events: [(at_secs: 0.1 action: Seek(0.0))],\n)",
    );
    let o = run(&["trace", "--scenario", syntax.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("syntax.ron:3:"), "{e}");
    let unknown_param = temp(
        &dir,
        "param.ron",
        "(seconds: 1.0, events: [(at_secs: 0.2, action: Set(\"sped\", 1.0))])",
    );
    let o = run(&["trace", "--scenario", unknown_param.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("0.2 s") && e.contains("sped"), "{e}");
    // Usage errors.
    let o = run(&["trace", "--blend", "Walk", "--seconds", "0.1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("at least two clips"));
    let o = run(&["trace", "--blend", "Walk,Jog", "--seconds", "0.1"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown clip 'Jog'"));
}

#[test]
fn render_draws_a_scenario_frame() {
    let dir = Scratch::new("graph-cli");
    let path = temp(&dir, "render.ron", SCENARIO);
    let out = dir.join("scenario.png");
    let o = run(&[
        "render",
        "--scenario",
        path.to_str().unwrap(),
        "--time",
        "2.5",
        "--size",
        "160x120",
        "--out",
        out.to_str().unwrap(),
    ]);
    // Only a machine without a GPU adapter may skip; any other failure fails.
    let stderr = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() && stderr.contains("no GPU adapter") && !common::gpu_required() {
        common::report_skip(stderr.trim());
        return;
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The summary names what played: the scenario, not a rest pose.
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("scenario ") && stdout.contains("render.ron at 2.5000 s"),
        "{stdout}"
    );
    let img = image::open(&out).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (160, 120));
    // The character is drawn: some pixels differ from the background gradient's corners.
    let corner = *img.get_pixel(0, 60);
    let differing = img
        .pixels()
        .filter(|p| {
            p.0.iter()
                .zip(corner.0.iter())
                .map(|(a, b)| (*a as i32 - *b as i32).abs())
                .sum::<i32>()
                > 60
        })
        .count();
    assert!(
        differing > 200,
        "only {differing} pixels differ from the background"
    );
}
