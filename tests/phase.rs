//! Phase cancellation (seed 004, SPEC section 4): blending a gait with a phase-shifted copy
//! of itself keeps `|cos(phi / 2)|` of the swing. Exact on a synthetic sine leg, within a
//! measured bound on the demo character's walk (which is not a pure sine).

use std::f64::consts::PI;
use std::path::Path;

use glam::{DQuat, Quat, Vec3};
use stridescope::anim::phase::{
    measure_phase_cancellation, measure_phase_cancellation_with_curves, PhaseInput, SwingCurves,
    PHASE_WARNING_DROP,
};
use stridescope::anim::{Clip, Interpolation, JointTracks, Skeleton, Track, Transform};

fn demo() -> stridescope::asset::Model {
    stridescope::asset::load_from_slice(
        &stridescope::asset::demo::demo_glb(),
        Path::new("demo.glb"),
    )
    .unwrap()
}

fn legs(skeleton: &Skeleton) -> Vec<(usize, usize)> {
    ["l", "r"]
        .iter()
        .map(|side| {
            let find = |name: String| {
                skeleton
                    .find(&name)
                    .unwrap_or_else(|| panic!("demo has no joint {name}"))
            };
            (find(format!("thigh_{side}")), find(format!("foot_{side}")))
        })
        .collect()
}

fn pair<'a>(a: &'a Clip, b: &'a Clip, offset_deg: f64) -> [PhaseInput<'a>; 2] {
    [
        PhaseInput {
            clip: a,
            phase_offset: 0.0,
            weight: 0.5,
            window_secs: None,
            aligned: None,
        },
        PhaseInput {
            clip: b,
            phase_offset: offset_deg / 360.0,
            weight: 0.5,
            window_secs: None,
            aligned: None,
        },
    ]
}

/// A hip (joint 0) swinging 30 deg * sin(2 pi t) about X over 1 s, with a foot 1 m below
/// it (joint 1): the swing angle the measurement sees is exactly the hip angle.
fn sine_leg() -> (Skeleton, Clip) {
    let rest = vec![
        Transform::IDENTITY,
        Transform {
            translation: Vec3::NEG_Y,
            ..Transform::IDENTITY
        },
    ];
    let skeleton =
        Skeleton::new(vec!["hip".into(), "foot".into()], vec![None, Some(0)], rest).unwrap();
    let times: Vec<f32> = (0..=1000).map(|i| i as f32 / 1000.0).collect();
    let values: Vec<Quat> = times
        .iter()
        .map(|&t| {
            DQuat::from_rotation_x(-(30f64.to_radians()) * (2.0 * PI * f64::from(t)).sin())
                .as_quat()
        })
        .collect();
    let mut tracks = JointTracks::new(0);
    tracks.rotation = Some(Track::new(Interpolation::Linear, times, values, "hip").unwrap());
    let clip = Clip::new("sine".into(), vec![tracks], vec![], 2).unwrap();
    (skeleton, clip)
}

#[test]
fn sine_leg_follows_cos_half_phi() {
    let (skeleton, clip) = sine_leg();
    let legs = [(0, 1)];
    for phi in [0.0, 60.0, 90.0, 120.0, 180.0] {
        let r =
            measure_phase_cancellation(&skeleton, &legs, &pair(&clip, &clip, phi), 3600).unwrap();
        // Peak to peak of a 30-degree sine: 60 degrees (keys and the 0.1-degree sample
        // grid are well inside 0.01).
        assert!((r.input_amplitude_deg - 60.0).abs() < 0.01, "{r:?}");
        let expected = 60.0 * (phi.to_radians() / 2.0).cos().abs();
        assert!(
            (r.blend_amplitude_deg - expected).abs() < 0.01,
            "phi {phi}: {r:?}, expected {expected}"
        );
        assert_eq!(r.warning, r.amplitude_drop > PHASE_WARNING_DROP);
    }
}

#[test]
fn demo_walk_against_itself_follows_cos_half_phi() {
    let model = demo();
    let skeleton = &model.skeleton;
    let legs = legs(skeleton);
    let walk = &model.clips[model.find_clip("Walk").unwrap()];
    // Measured (512 samples per cycle), blend / input swing range against |cos(phi/2)|:
    //   phi    0: 1.0000 vs 1.0000      phi  60: 0.8302 vs 0.8660
    //   phi   90: 0.7048 vs 0.7071      phi 120: 0.5721 vs 0.5000
    //   phi  180: 0.2895 vs 0.0000
    // Up to 120 degrees the walk stays within 0.08 of the sine law. At half a cycle a
    // linear blend cancels only the odd harmonics of the swing (a half-period shift
    // negates them); the even ones (the walk is not a sine) add up, so 29 % of the range survives. That is still
    // a drop of 0.71, far past PHASE_WARNING_DROP.
    const TOLERANCE: f64 = 0.08;
    const RESIDUE_AT_180: f64 = 0.29;
    for phi in [0.0, 60.0, 90.0, 120.0, 180.0] {
        let r = measure_phase_cancellation(skeleton, &legs, &pair(walk, walk, phi), 512).unwrap();
        let ratio = r.blend_amplitude_deg / r.input_amplitude_deg;
        let expected = (phi.to_radians() / 2.0).cos().abs();
        println!(
            "phi {phi:5.1}: input {:.3} deg, blend {:.3} deg, ratio {ratio:.4}, |cos(phi/2)| {expected:.4}, drop {:.4}, warning {}",
            r.input_amplitude_deg, r.blend_amplitude_deg, r.amplitude_drop, r.warning
        );
        if phi <= 120.0 {
            assert!(
                (ratio - expected).abs() < TOLERANCE,
                "phi {phi}: ratio {ratio}, expected {expected}"
            );
        } else {
            assert!(
                (ratio - RESIDUE_AT_180).abs() < 0.02,
                "phi {phi}: ratio {ratio}, measured {RESIDUE_AT_180} before"
            );
        }
        assert!(
            r.input_amplitude_deg > 20.0,
            "the walk swings its legs: {r:?}"
        );
        match phi as u32 {
            0 | 60 => assert!(!r.warning, "phi {phi}: {r:?}"),
            180 => assert!(r.warning, "phi {phi}: {r:?}"),
            _ => {}
        }
    }
}

#[test]
fn walk_and_run_in_phase_do_not_warn() {
    let model = demo();
    let skeleton = &model.skeleton;
    let legs = legs(skeleton);
    let walk = &model.clips[model.find_clip("Walk").unwrap()];
    let run = &model.clips[model.find_clip("Run").unwrap()];
    let r = measure_phase_cancellation(skeleton, &legs, &pair(walk, run, 0.0), 512).unwrap();
    println!("walk + run at 0: {r:?}");
    assert!(!r.warning, "{r:?}");
    assert!(r.amplitude_drop < PHASE_WARNING_DROP);
}

#[test]
fn invalid_inputs_are_rejected() {
    let (skeleton, clip) = sine_leg();
    let ok = pair(&clip, &clip, 90.0);
    assert!(measure_phase_cancellation(&skeleton, &[(0, 1)], &ok, 64).is_ok());
    assert!(measure_phase_cancellation(&skeleton, &[], &ok, 64).is_err());
    assert!(measure_phase_cancellation(&skeleton, &[(0, 2)], &ok, 64).is_err());
    assert!(measure_phase_cancellation(&skeleton, &[(0, 1)], &[], 64).is_err());
    assert!(measure_phase_cancellation(&skeleton, &[(0, 1)], &ok, 1).is_err());
    let mut bad = ok;
    bad[1].phase_offset = f64::NAN;
    assert!(measure_phase_cancellation(&skeleton, &[(0, 1)], &bad, 64).is_err());
    let mut bad = ok;
    bad[0].weight = -1.0;
    assert!(measure_phase_cancellation(&skeleton, &[(0, 1)], &bad, 64).is_err());
    let mut bad = ok;
    bad[0].weight = 0.0;
    bad[1].weight = 0.0;
    assert!(measure_phase_cancellation(&skeleton, &[(0, 1)], &bad, 64).is_err());
}

/// The swing curves the Blend panel plots: the sine leg's own curve is `30 sin(2 pi u)`
/// degrees, and two copies a quarter cycle apart blend (rotations about one axis average
/// their angles) to `15 sqrt(2) sin(2 pi u + pi / 4)`. A rig that faces +X (the hip
/// swings about Z) gives the same curves in its own plane. The sign of the swing axis is
/// free (it is a principal axis), so the curves are compared up to one common sign.
#[test]
fn swing_curves_are_the_measured_angles_in_the_facing_plane() {
    let (skeleton, clip) = sine_leg();
    // The same leg turned to face +X: rotate every key by 90 degrees about Y.
    let turn = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2);
    let turned = {
        let t = clip.tracks()[0].rotation.as_ref().unwrap();
        let values: Vec<Quat> = (0..t.times().len())
            .map(|i| (turn * t.key_value(i).as_dquat() * turn.inverse()).as_quat())
            .collect();
        let mut tracks = JointTracks::new(0);
        tracks.rotation =
            Some(Track::new(Interpolation::Linear, t.times().to_vec(), values, "hip").unwrap());
        Clip::new("sine +X".into(), vec![tracks], vec![], 2).unwrap()
    };
    let n = 360;
    for (c, axis) in [(&clip, Vec3::Z), (&turned, Vec3::X)] {
        let mut curves = SwingCurves::default();
        let r = measure_phase_cancellation_with_curves(
            &skeleton,
            &[(0, 1)],
            &pair(c, c, 90.0),
            n,
            &mut curves,
        )
        .unwrap();
        assert!(
            curves.forward.dot(axis).abs() > 0.999,
            "{:?}",
            curves.forward
        );
        assert_eq!(curves.inputs.len(), 2);
        assert!(curves.inputs.iter().all(|i| i.len() == n) && curves.blend.len() == n);
        let sign = if curves.inputs[0][n / 4] > 0.0 {
            1.0
        } else {
            -1.0
        };
        for k in 0..n {
            let u = 2.0 * PI * k as f64 / n as f64;
            let own = sign * 30.0 * u.sin();
            let quarter = sign * 30.0 * (u + PI / 2.0).sin();
            let blend = sign * 15.0 * 2f64.sqrt() * (u + PI / 4.0).sin();
            for (got, want, what) in [
                (curves.inputs[0][k], own, "input 0"),
                (curves.inputs[1][k], quarter, "input 1"),
                (curves.blend[k], blend, "blend"),
            ] {
                assert!(
                    (f64::from(got) - want).abs() < 0.01,
                    "{axis}: {what} at {k}: {got} vs {want}"
                );
            }
        }
        // The report is the curves' peak to peak.
        assert!(
            (r.blend_amplitude_deg - 30.0 * 2f64.sqrt()).abs() < 0.01,
            "{r:?}"
        );
    }
}
