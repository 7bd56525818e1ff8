//! Real clips (issue 18): the in-place rule, contacts and drive on material that looks
//! like real files, made here from the shared Robot (see `common/messy.rs`): an in-place
//! walk whose root misses the loop by 0.5% of a leg per cycle (what a Mixamo "in place"
//! download does), and the same file exported at a scale of 0.0012.
//!
//! Before the one in-place rule, a fixed 1 mm/s cut-off took the drifting walk for a
//! root-motion clip: driven, it covered a tenth of the distance with skating feet, and in
//! Accumulate mode its seam drift moved the character every cycle.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use stridescope::anim::contacts::leg_length;
use stridescope::anim::RootMotionSource;

use common::messy::{add_drift, read_glb, temp_dir, wrap_scale, write_glb};

const CLIP: &str = "Robot_Walking";

fn robot() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb")
}

fn json(args: &[&str]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .args(args)
        .output()
        .expect("run stridescope");
    assert!(
        o.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: bad JSON: {e}"))
}

/// Root travel per cycle as extracted, in leg lengths, and the mean leg length.
fn drift_in_legs(path: &Path) -> (f64, f64) {
    let model = stridescope::asset::load(path).unwrap();
    let clip = model.find_clip(CLIP).unwrap();
    let a = model.clip_analysis(clip).unwrap();
    let travel = a
        .extracted_root
        .as_ref()
        .map_or(0.0, |r| r.motion.cycle_displacement().translation.length());
    let legs = model.legs().unwrap();
    let leg = legs
        .iter()
        .map(|l| f64::from(leg_length(&model.skeleton, l)))
        .sum::<f64>()
        / legs.len() as f64;
    (travel / leg, leg)
}

/// Writes the Robot with its walk's root drifting `legs_per_cycle` leg lengths per cycle
/// (scaled by `scale`), and returns the path.
fn drifting_robot(dir: &Path, legs_per_cycle: f64, scale: Option<f32>) -> PathBuf {
    let model = stridescope::asset::load(&robot()).unwrap();
    let clip = &model.clips[model.find_clip(CLIP).unwrap()];
    let joint = RootMotionSource::detect(&model.skeleton, clip).expect("a translated joint");
    let node = model.node_of_joint[joint];
    // One unit of drift in the node's parent space, measured, then scaled to the target.
    let probe = dir.join("probe.glb");
    let mut glb = read_glb(&robot());
    add_drift(&mut glb, CLIP, node, [0.0, 0.0, 1.0]);
    write_glb(&glb, &probe);
    let (per_unit, _) = drift_in_legs(&probe);
    assert!(per_unit > 0.0, "the probe drift moved the root");
    let d = (legs_per_cycle / per_unit) as f32;
    let mut glb = read_glb(&robot());
    add_drift(&mut glb, CLIP, node, [0.0, 0.0, d]);
    if let Some(k) = scale {
        wrap_scale(&mut glb, k);
    }
    let out = dir.join(match scale {
        Some(_) => "robot-drift-scaled.glb",
        None => "robot-drift.glb",
    });
    write_glb(&glb, &out);
    out
}

fn clip_report<'a>(inspect: &'a Value, clip: &str) -> &'a Value {
    inspect["clips"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == clip)
        .unwrap_or_else(|| panic!("no clip {clip}"))
}

/// `trace --json` of the walk driven at `speed` for 4 s at 30 fps, with `extra` flags.
fn drive(path: &Path, speed: f64, extra: &[&str]) -> Value {
    let speed = format!("{speed}");
    let mut args = vec![
        "trace",
        path.to_str().unwrap(),
        "--clip",
        CLIP,
        "--movement-speed",
        &speed,
        "--seconds",
        "4",
        "--fps",
        "30",
        "--json",
    ];
    args.extend_from_slice(extra);
    json(&args)
}

/// Drives the clip at 1.1 times its implied speed for 4 s and checks the run against the
/// same drive on the shared Robot (whose root returns exactly): the drift changes nothing
/// that matters. (The Robot's own walk slides: its planted IK feet move at uneven speed,
/// so its skating ratio is about 0.35 at any scale; lint reports it on the shared file.)
fn drives_like_an_in_place_clip(path: &Path) {
    let inspect = json(&["inspect", path.to_str().unwrap(), "--json"]);
    let loco = &clip_report(&inspect, CLIP)["locomotion"];
    assert_eq!(loco["in_place"], true, "{loco}");
    let reason = loco["in_place_reason"].as_str().unwrap();
    assert!(reason.contains("of a leg"), "{reason}");
    let implied = loco["implied_speed_mps"].as_f64().unwrap();
    let v = 1.1 * implied;
    let s = &drive(path, v, &[])["summary"];
    assert_eq!(s["in_place"], true, "{s}");
    let covered = s["distance_m"].as_f64().unwrap();
    let expected = v * 4.0;
    assert!(
        (covered / expected - 1.0).abs() < 0.10,
        "covered {covered} of {expected}"
    );
    let skating = s["skating_ratio"].as_f64().unwrap();
    let reference = drive(&robot(), 1.1 * f64::from(reference_implied()), &[]);
    let reference = reference["summary"]["skating_ratio"].as_f64().unwrap();
    assert!(
        (skating - reference).abs() < 0.03,
        "skating {skating} against {reference} on the shared file"
    );

    // Without warping the feet slide by the mismatch; warping slides less.
    let unwarped = drive(path, 1.6 * implied, &["--no-speed-match", "--no-warp"]);
    let warped = drive(path, 1.6 * implied, &["--no-speed-match"]);
    let slide = |r: &Value| r["summary"]["slide_m_per_cycle"].as_f64().unwrap();
    assert!(
        slide(&warped) < slide(&unwarped),
        "warped {} vs unwarped {}",
        slide(&warped),
        slide(&unwarped)
    );
}

/// The implied speed of the shared Robot's walk.
fn reference_implied() -> f32 {
    let model = stridescope::asset::load(&robot()).unwrap();
    let a = model.clip_analysis(model.find_clip(CLIP).unwrap()).unwrap();
    a.implied.as_ref().unwrap().speed
}

#[test]
fn the_fixture_drifts_half_a_percent_of_a_leg() {
    let dir = temp_dir("fixture");
    let path = drifting_robot(&dir, 0.005, None);
    let (legs, _) = drift_in_legs(&path);
    assert!((legs - 0.005).abs() < 5e-4, "{legs} legs per cycle");
    // The shared Robot itself returns its root exactly.
    let (own, _) = drift_in_legs(&robot());
    assert!(own < 1e-6, "{own}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_drifting_in_place_walk_drives_at_its_implied_speed() {
    let dir = temp_dir("drive");
    drives_like_an_in_place_clip(&drifting_robot(&dir, 0.005, None));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_walk_exported_at_a_scale_of_0_0012_drives_the_same() {
    let dir = temp_dir("scaled");
    let path = drifting_robot(&dir, 0.005, Some(0.0012));
    let (legs, leg) = drift_in_legs(&path);
    assert!((legs - 0.005).abs() < 5e-4, "{legs} legs per cycle");
    assert!(leg < 0.01, "scaled leg {leg}");
    drives_like_an_in_place_clip(&path);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_override_flags_win_and_say_so() {
    let dir = temp_dir("override");
    let path = drifting_robot(&dir, 0.005, None);
    let p = path.to_str().unwrap();
    let inspect = json(&["inspect", p, "--json", "--root-motion"]);
    let loco = &clip_report(&inspect, CLIP)["locomotion"];
    assert_eq!(loco["in_place"], false);
    assert_eq!(loco["in_place_reason"], "set to root motion by the user");
    // A real root-motion clip (the demo's Walk) forced in place.
    let inspect = json(&["inspect", "--json", "--in-place"]);
    let loco = &clip_report(&inspect, "Walk")["locomotion"];
    assert_eq!(loco["in_place"], true);
    assert_eq!(loco["in_place_reason"], "set in place by the user");
    let inspect = json(&["inspect", "--json"]);
    assert_eq!(
        clip_report(&inspect, "Walk")["locomotion"]["in_place"],
        false
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn accumulate_does_not_move_or_turn_a_drifting_in_place_walk() {
    use stridescope::timeline::Timeline;
    let dir = temp_dir("accumulate");
    let path = drifting_robot(&dir, 0.005, None);
    let model = stridescope::asset::load(&path).unwrap();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, model.find_clip(CLIP).unwrap());
    t.set_mode(stridescope::timeline::RootMotionMode::Accumulate);
    t.set_playing(true);
    // A minute at 60 fps.
    for _ in 0..3600 {
        t.tick(1.0 / 60.0);
    }
    let m = t.model_from_root();
    assert!(m.w_axis.truncate().length() < 1e-6, "moved {:?}", m.w_axis);
    assert!((m.z_axis.z - 1.0).abs() < 1e-6, "turned {:?}", m.z_axis);
    let _ = std::fs::remove_dir_all(&dir);
}

fn slide_findings(path: &Path) -> Vec<(String, f64)> {
    let o = Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .args(["lint", path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    report_findings(&report)
        .into_iter()
        .filter(|f| f["clip"] == CLIP && (f["check"] == "foot-slide" || f["check"] == "skating"))
        .map(|f| {
            (
                f["check"].as_str().unwrap().to_string(),
                f["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Lint measures the drifting walk as it measures the shared one (in place, against the
/// speed its feet imply), so the drift adds no finding: the Robot's own sliding feet are
/// reported on both, with the same values. Before, the drift made the walk a root-motion
/// clip moving at 5 mm/s, and every planted frame skated.
#[test]
fn lint_measures_the_drifting_walk_like_the_shared_one() {
    let dir = temp_dir("lint");
    let drifting = slide_findings(&drifting_robot(&dir, 0.005, None));
    let shared = slide_findings(&robot());
    assert_eq!(drifting.len(), shared.len(), "{drifting:?} vs {shared:?}");
    for ((c1, v1), (c2, v2)) in drifting.iter().zip(&shared) {
        assert_eq!(c1, c2);
        assert!(
            (v1 - v2).abs() <= 0.02 * v2.abs().max(0.01),
            "{c1}: {v1} vs {v2}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn report_findings(v: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
        match v {
            Value::Object(o) => {
                if o.contains_key("check") && o.contains_key("message") {
                    out.push(v);
                }
                for x in o.values() {
                    walk(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out
}
