//! `trace --movement-speed` and `inspect --json` locomotion fields, end to end through the
//! binary: the demo walk (1.4 m per 1.1 s cycle, 1.2727 m/s) driven at 1.5x, with and
//! without warping and speed matching; a movement direction; the Fox's implied speeds;
//! clear errors for a rig without legs and bad flags.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

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

fn json(args: &[&str]) -> Value {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: bad JSON: {e}"))
}

fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

const WALK: f64 = 1.4 / 1.1;

fn walk(extra: &[&str]) -> Value {
    let speed = format!("{}", WALK * 1.5);
    let mut args = vec![
        "trace",
        "--clip",
        "Walk",
        "--json",
        "--seconds",
        "4.4",
        "--fps",
        "30",
        "--movement-speed",
        &speed,
    ];
    args.extend_from_slice(extra);
    json(&args)
}

#[test]
fn demo_walk_at_one_and_a_half_times_its_speed() {
    let warped = walk(&[]);
    let s = &warped["summary"];
    // Rate clamped at 1.25; stride covers the rest: 1.5 / 1.25 = 1.2.
    assert!((f(s, "play_rate") - 1.25).abs() < 1e-9);
    assert!((f(s, "stride_scale") - 1.2).abs() < 1e-3, "{s}");
    assert!((f(s, "clip_speed_mps") - WALK).abs() < 1e-4);
    assert_eq!(s["in_place"], false);
    // The root carries the motion; the feet (root motion removed) imply the same speed,
    // within 5%, and trace reports it whether or not the clip is in place.
    let implied = f(s, "implied_speed_mps");
    assert!((implied / WALK - 1.0).abs() < 0.05, "{implied} vs {WALK}");
    assert!(
        s["in_place_reason"]
            .as_str()
            .unwrap()
            .contains("root motion"),
        "{s}"
    );
    // 4.4 s at 1.25: 5 cycles; 1.909 m/s for 4.4 s = 8.4 m.
    assert!((f(s, "cycles_played") - 5.0).abs() < 1e-3);
    assert!((f(s, "distance_m") - WALK * 1.5 * 4.4).abs() < 0.01, "{s}");
    assert_eq!(s["legs"], serde_json::json!(["foot_l", "foot_r"]));
    let frames = warped["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 133);
    for fr in &frames[1..] {
        assert!((f(fr, "play_rate") - 1.25).abs() < 1e-9);
        // The pelvis only goes down, at most 0.1 m scaled by the rig (0.944).
        let off = &fr["pelvis_offset"];
        assert!(off[1].as_f64().unwrap() <= 0.0);
        assert!(f(fr, "pelvis_offset_m") <= 0.1 * 0.85 / 0.9 + 1e-6);
        for foot in fr["feet"].as_array().unwrap() {
            assert_eq!(foot["reached"], true, "{fr}");
        }
    }

    let unwarped = walk(&["--no-warp"]);
    let n = &unwarped["summary"];
    assert!((f(n, "stride_scale") - 1.0).abs() < 1e-9);
    assert!((f(n, "distance_m") - WALK * 1.5 * 4.4).abs() < 0.01);
    let (sw, sn) = (f(s, "slide_m_per_cycle"), f(n, "slide_m_per_cycle"));
    assert!(sw < 0.5 * sn, "warped {sw} vs unwarped {sn}");
    assert!(f(s, "skating_ratio") < f(n, "skating_ratio"));

    // Without speed matching the stride takes all of it: 1.5.
    let stride_only = walk(&["--no-speed-match"]);
    let o = &stride_only["summary"];
    assert!((f(o, "play_rate") - 1.0).abs() < 1e-9);
    assert!((f(o, "stride_scale") - 1.5).abs() < 1e-3);
    // Per-frame source: the scale follows the walk's root speed (0.6 to 1.2 x mean).
    let per_frame = walk(&["--stride-source", "frame"]);
    let scales: Vec<f64> = per_frame["frames"].as_array().unwrap()[10..]
        .iter()
        .map(|fr| f(fr, "stride_scale"))
        .collect();
    let lo = scales.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = scales.iter().copied().fold(0.0, f64::max);
    assert!(lo < 1.1 && hi > 1.6, "per-frame scale {lo}..{hi}");
}

#[test]
fn movement_direction_turns_the_body_by_half() {
    let v = walk(&["--direction", "40"]);
    let last = v["frames"].as_array().unwrap().last().unwrap();
    assert!((f(last, "body_yaw_deg") - 20.0).abs() < 1e-3, "{last}");
    // The character travels along 40 degrees (counter-clockwise from +Z toward +X).
    let (x, z) = (f(last, "world_x_m"), f(last, "world_z_m"));
    let angle = x.atan2(z).to_degrees();
    assert!((angle - 40.0).abs() < 0.5, "{angle}");
    // The stride direction is the remaining 20 degrees in the turned body's frame.
    let d = &last["stride_direction"];
    let (dx, dz) = (d[0].as_f64().unwrap(), d[2].as_f64().unwrap());
    assert!((dx.atan2(dz).to_degrees() - 20.0).abs() < 0.5);
}

#[test]
fn fox_walk_in_place_gets_an_implied_speed() {
    let fox = shared("assets/Fox/Fox.glb");
    let report = json(&["inspect", fox.to_str().unwrap(), "--json"]);
    assert_eq!(report["legs"].as_array().unwrap().len(), 4);
    let clips = report["clips"].as_array().unwrap();
    let walk = clips.iter().find(|c| c["name"] == "Walk").unwrap();
    let loco = &walk["locomotion"];
    assert_eq!(loco["in_place"], true);
    assert!(f(loco, "implied_speed_mps") > 0.0);
    assert_eq!(loco["legs"].as_array().unwrap().len(), 4);
    // Survey stands still: no speed.
    let survey = clips.iter().find(|c| c["name"] == "Survey").unwrap();
    assert!(survey["locomotion"]["implied_speed_mps"].is_null());

    let t = json(&[
        "trace",
        fox.to_str().unwrap(),
        "--clip",
        "Walk",
        "--json",
        "--seconds",
        "2",
        "--movement-speed",
        "100",
    ]);
    let s = &t["summary"];
    assert_eq!(s["in_place"], true);
    let implied = f(s, "implied_speed_mps");
    assert!((f(s, "clip_speed_mps") - implied).abs() < 1e-3);
    // 100 / 87 = 1.149: within the clamp, no stride change needed.
    assert!((f(s, "play_rate") - 100.0 / implied).abs() < 1e-3);
    assert!((f(s, "stride_scale") - 1.0).abs() < 2e-3, "{s}");
}

#[test]
fn clear_errors() {
    let skin = shared("assets/SimpleSkin/SimpleSkin.gltf");
    let o = run(&[
        "trace",
        skin.to_str().unwrap(),
        "--movement-speed",
        "1",
        "--json",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no legs"), "{err}");
    let o = run(&[
        "trace",
        "--movement-speed",
        "1",
        "--stride-source",
        "sometimes",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--stride-source"));
    let o = run(&["trace", "--movement-speed", "-1"]);
    assert!(!o.status.success());
    // A driven render plays from the start: a negative time is refused before any GPU work.
    let o = run(&["render", "--overlays", "all", "--time", "-1"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--time must be >= 0"));
    let o = run(&["trace", "--leg", "thigh_l,calf_l"]);
    assert!(!o.status.success());
    // A leg override by names works; an unknown joint is named.
    let ok = json(&[
        "trace",
        "--clip",
        "Walk",
        "--movement-speed",
        "1.5",
        "--json",
        "--seconds",
        "0.5",
        "--leg",
        "thigh_l,calf_l,foot_l",
    ]);
    assert_eq!(ok["summary"]["legs"], serde_json::json!(["foot_l"]));
    let o = run(&[
        "trace",
        "--movement-speed",
        "1.5",
        "--leg",
        "thigh_l,calf_l,nofoot",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("nofoot"));
}

#[test]
fn foot_lock_and_manual_stride() {
    let warped = walk(&[]);
    let locked = walk(&["--foot-lock"]);
    let (a, b) = (
        f(&warped["summary"], "slide_m_per_cycle"),
        f(&locked["summary"], "slide_m_per_cycle"),
    );
    // Measured: 6.3 cm/cycle warped, 1.7 with the planted feet pinned.
    assert!(b < 0.5 * a && b < 0.03, "locked {b} vs {a}");
    assert_eq!(locked["summary"]["foot_lock"], true);
    // A manual stride: scale 1.3 at the clip's own rate; the character covers 1.3x the
    // clip's distance (5.6 m in 4.4 s at rate 1).
    let manual = walk(&["--no-speed-match", "--stride-scale", "1.3"]);
    let s = &manual["summary"];
    assert_eq!(s["stride_mode"], "manual");
    assert!((f(s, "stride_scale") - 1.3).abs() < 1e-4);
    assert!((f(s, "distance_m") - 5.6 * 1.3).abs() < 0.02, "{s}");
    // Sideways manual direction: the warped feet move along X only.
    let side = walk(&[
        "--no-speed-match",
        "--stride-scale",
        "1.3",
        "--stride-direction",
        "90",
    ]);
    for fr in &side["frames"].as_array().unwrap()[1..] {
        let d = &fr["stride_direction"];
        assert!((d[0].as_f64().unwrap() - 1.0).abs() < 1e-5, "{d}");
    }
}

#[test]
fn movement_speed_through_a_scenario_drives_the_state_machine() {
    let dir = std::env::temp_dir().join(format!("stridescope-loco-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.ron");
    // The demo's default graph (no `graph:`), 3 s, a seek at 2 s.
    std::fs::write(
        &path,
        "(fps: 30.0, seconds: 3.0, events: [(at_secs: 2.0, action: Seek(0.3))])",
    )
    .unwrap();
    let v = json(&[
        "trace",
        "--scenario",
        path.to_str().unwrap(),
        "--movement-speed",
        "3",
        "--json",
    ]);
    let frames = v["frames"].as_array().unwrap();
    let last = frames.last().unwrap();
    // The movement speed sets the graph's `speed` to 3: Walk and Run blend (cycle-synced)
    // to 2.597 m/s, speed matching plays them at 3 / 2.597 and the stride stays at 1.
    assert!((f(last, "play_rate") - 3.0 / 2.597).abs() < 0.01, "{last}");
    assert!((f(last, "stride_scale") - 1.0).abs() < 0.01);
    let s = &v["summary"];
    assert!((f(s, "clip_speed_mps") - 2.597).abs() < 0.01, "{s}");
    // The seek frame does not move the character.
    let seek = frames.iter().position(|fr| fr["event"] == "seek").unwrap();
    let (a, b) = (&frames[seek - 1], &frames[seek]);
    assert_eq!(a["world_x_m"], b["world_x_m"]);
    assert_eq!(a["world_z_m"], b["world_z_m"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sideways_movement_direction_does_not_make_the_feet_skate() {
    let natural = format!("{}", WALK);
    let run_dir = |extra: &[&str]| {
        let mut args = vec![
            "trace",
            "--clip",
            "Walk",
            "--json",
            "--seconds",
            "4.4",
            "--fps",
            "30",
            "--movement-speed",
            &natural,
            "--direction",
            "40",
        ];
        args.extend_from_slice(extra);
        json(&args)
    };
    let warped = run_dir(&[]);
    let plain = run_dir(&["--no-warp"]);
    let (a, b) = (
        f(&warped["summary"], "slide_m_per_cycle"),
        f(&plain["summary"], "slide_m_per_cycle"),
    );
    // Measured: 4.6 cm/cycle with the feet's paths turned along the movement, 26.7 cm when
    // the legs keep walking along the body's half-turned heading.
    assert!(a < 0.06 && a < 0.3 * b, "warped {a} vs {b}");
    assert_eq!(f(&warped["summary"], "skating_ratio"), 0.0);
    let o = run(&["trace", "--movement-speed", "1", "--foot-lock", "--no-warp"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--foot-lock"));
}
