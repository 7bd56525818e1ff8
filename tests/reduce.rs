//! Key reduction (`anim::reduce`): constant-track detection, the error model on hand-built
//! chains with known answers, the measured error on the shared characters (checked here
//! independently of the report), and the CLI / environment switches.

use std::path::Path;
use std::process::Command;

use glam::{Mat4, Quat, Vec3};
use stridescope::anim::reduce::{KeyReductionJob, DEFAULT_DISTANCE_M};
use stridescope::anim::{
    Clip, Interpolation, JointTracks, LocalToModelJob, SamplingJob, Skeleton, Track, Transform,
};

fn chain(lengths: &[f32]) -> Skeleton {
    let n = lengths.len() + 1;
    let names = (0..n).map(|i| format!("j{i}")).collect();
    let parents = (0..n).map(|i| i.checked_sub(1)).collect();
    let rest = (0..n)
        .map(|i| Transform {
            translation: if i == 0 {
                Vec3::ZERO
            } else {
                Vec3::new(lengths[i - 1], 0.0, 0.0)
            },
            ..Transform::IDENTITY
        })
        .collect();
    Skeleton::new(names, parents, rest).unwrap()
}

/// A rotation track about z swinging between `+deg` and `-deg` (keys at 0 and 1 s).
fn wobble(deg: f32) -> Track<Quat> {
    let a = deg.to_radians();
    Track::new(
        Interpolation::Linear,
        vec![0.0, 1.0],
        vec![Quat::from_rotation_z(a), Quat::from_rotation_z(-a)],
        "wobble",
    )
    .unwrap()
}

fn model_positions(clip: &Clip, skeleton: &Skeleton, t: f32) -> Vec<Vec3> {
    let n = skeleton.joint_count();
    let mut local = vec![Transform::IDENTITY; n];
    SamplingJob {
        clip,
        time_secs: t,
        rest_pose: skeleton.rest_pose(),
    }
    .run(&mut local)
    .unwrap();
    let mut model = vec![Mat4::IDENTITY; n];
    LocalToModelJob {
        parents: skeleton.parents(),
        local: &local,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut model)
    .unwrap();
    model.iter().map(|m| m.w_axis.truncate()).collect()
}

#[test]
fn constant_tracks_are_detected_and_sample_to_their_value() {
    let v = Vec3::new(0.25, -1.0, 3.0);
    let flat = Track::new(Interpolation::Linear, vec![0.0, 0.5, 1.0], vec![v; 3], "t").unwrap();
    assert_eq!(flat.constant(), Some(v));
    assert_eq!(flat.sample(0.3), v);
    let one = Track::new(Interpolation::Step, vec![0.2], vec![v], "t").unwrap();
    assert_eq!(one.constant(), Some(v));
    // A changing key, or a cubic spline with equal values but a tangent, is not constant.
    let moving = Track::new(
        Interpolation::Linear,
        vec![0.0, 1.0],
        vec![v, v + Vec3::X * 1e-7],
        "t",
    )
    .unwrap();
    assert_eq!(moving.constant(), None);
    let tangent = Track::new(
        Interpolation::CubicSpline,
        vec![0.0, 1.0],
        vec![Vec3::ZERO, v, Vec3::X, Vec3::ZERO, v, Vec3::ZERO],
        "t",
    )
    .unwrap();
    assert_eq!(tangent.constant(), None);
    assert!((tangent.sample(0.5) - v).length() > 0.1);
    // Rotations come out unit length.
    let q = Quat::from_xyzw(0.0, 0.0, 0.0, 2.0);
    let r = Track::new(Interpolation::Linear, vec![0.0, 1.0], vec![q, q], "r").unwrap();
    assert_eq!(r.constant(), Some(Quat::IDENTITY));
}

#[test]
fn a_wobble_is_removed_exactly_when_its_chord_fits_the_tolerance() {
    // Root rotating +-0.5 deg about z, child 1 m away. The constant is the mean, the
    // identity; the farthest measured point is 10 cm past the child (1.1 m from the
    // root), which moves by the chord 2 sin(0.25 deg) * 1.1 m = 9.5993 mm.
    let skeleton = chain(&[1.0]);
    let mut tracks = JointTracks::new(0);
    tracks.rotation = Some(wobble(0.5));
    let clip = Clip::new("w".into(), vec![tracks], vec![], 2).unwrap();
    let expected = 2.0 * (0.25f32).to_radians().sin() * 1.1;
    let run = |tolerance_m| {
        KeyReductionJob {
            clip: &clip,
            skeleton: &skeleton,
            tolerance_m,
            distance_m: DEFAULT_DISTANCE_M,
        }
        .run()
        .unwrap()
    };
    let (reduced, report) = run(0.010);
    assert_eq!((report.animated_before, report.animated_after), (1, 0));
    assert_eq!((report.keys_before, report.keys_after), (2, 0));
    assert!(
        (report.bound_m - expected).abs() < 1e-6,
        "{}",
        report.bound_m
    );
    assert!(
        (report.measured_max_m - expected).abs() < 1e-6,
        "{}",
        report.measured_max_m
    );
    assert_eq!(report.worst_joint.as_deref(), Some("j1"));
    let rot = reduced.tracks()[0].rotation.as_ref().unwrap();
    assert!(rot.constant().unwrap().angle_between(Quat::IDENTITY) < 1e-6);
    assert_eq!(reduced.duration_secs(), 1.0);
    // The child, at the key times, is where the identity puts it.
    let p = model_positions(&reduced, &skeleton, 0.0);
    assert!((p[1] - Vec3::X).length() < 1e-6);

    let (kept, report) = run(0.0095);
    assert_eq!(report.animated_after, 1);
    assert_eq!(report.measured_max_m, 0.0);
    assert_eq!(kept.tracks(), clip.tracks());
}

#[test]
fn errors_along_a_chain_add_up_within_the_tolerance() {
    // Three joints on a 3 x 1 m chain wobble by 0.1 deg each. Alone, each moves the chain
    // end by 2 sin(0.05 deg) * r: 5.41, 3.67 and 1.92 mm for r = 3.1, 2.1, 1.1 m, so each
    // fits a 6 mm tolerance, but all three add up to 11.0 mm. The smallest two
    // (5.59 mm together) are taken; the root's wobble stays.
    let skeleton = chain(&[1.0, 1.0, 1.0]);
    let tracks: Vec<JointTracks> = (0..3)
        .map(|j| {
            let mut t = JointTracks::new(j);
            t.rotation = Some(wobble(0.1));
            t
        })
        .collect();
    let clip = Clip::new("c".into(), tracks, vec![], 4).unwrap();
    let (reduced, report) = KeyReductionJob {
        clip: &clip,
        skeleton: &skeleton,
        tolerance_m: 0.006,
        distance_m: DEFAULT_DISTANCE_M,
    }
    .run()
    .unwrap();
    let chord = 2.0 * (0.05f32).to_radians().sin();
    assert_eq!(report.animated_after, 1);
    assert!(reduced.tracks()[0]
        .rotation
        .as_ref()
        .unwrap()
        .constant()
        .is_none());
    assert!(reduced.tracks()[1]
        .rotation
        .as_ref()
        .unwrap()
        .constant()
        .is_some());
    assert!(reduced.tracks()[2]
        .rotation
        .as_ref()
        .unwrap()
        .constant()
        .is_some());
    assert!((report.bound_m - chord * (2.1 + 1.1)).abs() < 1e-6);
    assert!(report.measured_max_m <= report.bound_m + 1e-6);
    assert!(report.measured_max_m > 0.5 * report.bound_m);
}

#[test]
fn bad_settings_are_refused() {
    let skeleton = chain(&[1.0]);
    let clip = Clip::new("e".into(), vec![], vec![], 2).unwrap();
    for (tolerance_m, distance_m) in [(0.0, 0.1), (f32::NAN, 0.1), (1e-3, -1.0)] {
        let err = KeyReductionJob {
            clip: &clip,
            skeleton: &skeleton,
            tolerance_m,
            distance_m,
        }
        .run()
        .unwrap_err();
        assert!(err.to_string().contains("key reduction"), "{err}");
    }
}

fn shared(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/assets")
        .join(rel)
}

#[test]
fn shared_characters_stay_within_one_millimetre() {
    for file in ["Robot/robot.glb", "Fox/Fox.glb", "CesiumMan/CesiumMan.glb"] {
        let path = shared(file);
        let original = stridescope::asset::load(&path).unwrap();
        let mut model = original.clone();
        let reports = model.reduce_keys(1e-3).unwrap();
        assert_eq!(reports.len(), original.clips.len());
        for ((a, b), report) in original.clips.iter().zip(&model.clips).zip(&reports) {
            assert_eq!(a.duration_secs(), b.duration_secs());
            assert_eq!(a.markers(), b.markers());
            assert!(report.measured_max_m <= 1e-3, "{file} {}", report.summary());
            assert!(report.bound_m <= 1e-3 + 1e-7, "{file} {}", report.summary());
            // An independent check: joint positions at 97 times over the clip.
            let sk = &model.skeleton;
            for k in 0..=96 {
                let t =
                    a.first_key_secs() + (a.duration_secs() - a.first_key_secs()) * k as f32 / 96.0;
                let (pa, pb) = (model_positions(a, sk, t), model_positions(b, sk, t));
                for (j, (x, y)) in pa.iter().zip(&pb).enumerate() {
                    assert!(
                        (*x - *y).length() <= 1e-3,
                        "{file} '{}' joint {j} at {t} s: {x} vs {y}",
                        a.name()
                    );
                }
            }
        }
        assert!(model.warnings.iter().any(|w| w.starts_with("keys reduced")));
    }
    // The Robot's exports key all 43 joints' translation, rotation and scale; in
    // Robot_Running only the hips' translation and the moving limbs' rotations change by
    // more than float noise.
    let mut robot = stridescope::asset::load(&shared("Robot/robot.glb")).unwrap();
    let reports = robot.reduce_keys(1e-3).unwrap();
    let running = reports.iter().find(|r| r.clip == "Robot_Running").unwrap();
    assert_eq!(running.channels, 129);
    assert_eq!(running.animated_before, 120);
    assert!(running.animated_after <= 20, "{}", running.summary());
    assert!(running.animated_after >= 14, "{}", running.summary());
}

fn stridescope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stridescope"))
}

#[test]
fn inspect_reports_the_reduction_and_the_environment_switch_applies_to_loads() {
    let robot = shared("Robot/robot.glb");
    let out = stridescope()
        .args(["inspect", "--json", "--reduce-keys", "1"])
        .arg(&robot)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reports = json["key_reduction"].as_array().unwrap();
    assert_eq!(reports.len(), 14);
    for r in reports {
        assert!(r["measured_max_m"].as_f64().unwrap() <= 1e-3);
        assert!(r["animated_after"].as_u64() < r["animated_before"].as_u64());
    }
    // Without the flag there is no reduction and no key_reduction key.
    let out = stridescope()
        .args(["inspect", "--json"])
        .arg(&robot)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.get("key_reduction").is_none());

    let out = stridescope()
        .args(["inspect", "--json"])
        .arg(&robot)
        .env("STRIDESCOPE_REDUCE_KEYS", "1")
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = json["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .starts_with("keys reduced (tolerance 1.000 mm)")),
        "{warnings:?}"
    );

    for bad in ["abc", "0", "-1"] {
        let out = stridescope()
            .args(["inspect"])
            .arg(&robot)
            .env("STRIDESCOPE_REDUCE_KEYS", bad)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("STRIDESCOPE_REDUCE_KEYS") && err.contains(bad),
            "{err}"
        );
        let out = stridescope()
            .args(["inspect", "--reduce-keys", bad])
            .arg(&robot)
            .output()
            .unwrap();
        assert!(!out.status.success());
    }
}

#[test]
fn an_additive_clip_keeps_its_reference_frame() {
    // An additive layer applies its difference to its first frame; a channel made constant
    // keeps the first key's value, so the reference and what the layer adds stay put.
    let skeleton = chain(&[1.0]);
    let mut tracks = JointTracks::new(0);
    tracks.rotation = Some(wobble(0.5));
    let clip = Clip::new("a".into(), vec![tracks], vec![], 2)
        .unwrap()
        .with_additive(true);
    let (reduced, report) = KeyReductionJob {
        clip: &clip,
        skeleton: &skeleton,
        tolerance_m: 0.05,
        distance_m: DEFAULT_DISTANCE_M,
    }
    .run()
    .unwrap();
    assert_eq!(report.animated_after, 0);
    assert!(reduced.is_additive());
    let q = reduced.tracks()[0]
        .rotation
        .as_ref()
        .unwrap()
        .constant()
        .unwrap();
    assert!(q.angle_between(Quat::from_rotation_z(0.5f32.to_radians())) < 1e-6);
    // Against the original, the error is now the whole swing: 2 sin(0.5 deg) * 1.1 m.
    let expected = 2.0 * (0.5f32).to_radians().sin() * 1.1;
    assert!(
        (report.measured_max_m - expected).abs() < 1e-5,
        "{}",
        report.measured_max_m
    );
}
