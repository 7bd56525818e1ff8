//! SPEC section 2: root motion across loop wraps, to 1e-9 m.

use glam::DVec2;
use stridescope::anim::{
    AnimError, ClipTime, GroundTransform, RootMotion, RootMotionTrack, MAX_ABS_CYCLE,
};

const TOL: f64 = 1e-9;

/// Reference clip: T = 1 s, D = 2 m along +Z, keys (0,0) (0.25,0.2) (0.75,1.7) (1,2).
const KEYS: [(f64, f64); 4] = [(0.0, 0.0), (0.25, 0.2), (0.75, 1.7), (1.0, 2.0)];

fn reference() -> RootMotion {
    let keys: Vec<_> = KEYS
        .iter()
        .map(|&(t, z)| (t, DVec2::new(0.0, z), 0.0))
        .collect();
    RootMotion::new(RootMotionTrack::new(1.0, &keys).unwrap())
}

/// Distance along the travel axis (+Z) of a delta that must not turn.
fn along(d: GroundTransform) -> f64 {
    assert_eq!(d.yaw_rad, 0.0);
    assert!(d.translation.x.abs() < TOL, "sideways motion {d:?}");
    d.translation.y
}

fn delta(rm: &RootMotion, t0: f64, t1: f64) -> f64 {
    along(rm.delta_secs(t0, t1).unwrap())
}

/// Independent integrator: walks every cycle and key segment the interval crosses and
/// sums overlap_time * segment_speed, negated for reversed intervals.
fn integrate(t0: f64, t1: f64) -> f64 {
    let (lo, hi, sign) = if t0 <= t1 {
        (t0, t1, 1.0)
    } else {
        (t1, t0, -1.0)
    };
    let speeds: Vec<(f64, f64, f64)> = KEYS
        .windows(2)
        .map(|w| (w[0].0, w[1].0, (w[1].1 - w[0].1) / (w[1].0 - w[0].0)))
        .collect();
    let mut sum = 0.0;
    let first_cycle = lo.floor() as i64;
    let last_cycle = hi.floor() as i64;
    for k in first_cycle..=last_cycle {
        for &(a, b, v) in &speeds {
            let (sa, sb) = (k as f64 + a, k as f64 + b);
            let overlap = hi.min(sb) - lo.max(sa);
            if overlap > 0.0 {
                sum += overlap * v;
            }
        }
    }
    sign * sum
}

#[test]
fn spec_reference_numbers() {
    let rm = reference();
    assert!((along(rm.cycle_displacement()) - 2.0).abs() < TOL);
    assert!((rm.sample(0.9).translation.y - 1.88).abs() < TOL);
    assert!((rm.sample(0.1).translation.y - 0.08).abs() < TOL);
    assert!((delta(&rm, 0.9, 1.1) - 0.20).abs() < TOL);
    // The bug to avoid: sampling the phases and subtracting ignores the wrap.
    let naive = rm.sample(0.1).translation.y - rm.sample(0.9).translation.y;
    assert!((naive - -1.80).abs() < TOL);
    assert!((delta(&rm, 0.9, 3.1) - 4.20).abs() < TOL);
    assert!((delta(&rm, 1.1, 0.9) - -0.20).abs() < TOL);
}

#[test]
fn floor_not_truncation_for_negative_time() {
    let t = ClipTime::from_secs(-0.1, 1.0).unwrap();
    assert_eq!(t.cycle, -1);
    assert!((t.phase_secs - 0.9).abs() < 1e-15);
    let rm = reference();
    // F(-0.1) = -1*2 + p(0.9) - p(0) = -0.12.
    let f = along(rm.transform_at_secs(-0.1).unwrap());
    assert!((f - -0.12).abs() < TOL, "{f}");
    assert!((delta(&rm, -0.1, 0.1) - 0.20).abs() < TOL);
    assert!((delta(&rm, -2.5, -0.5) - 4.0).abs() < TOL);
}

#[test]
fn zero_intervals_are_zero() {
    let rm = reference();
    for &t in &[-3.0, -1.0, -0.25, 0.0, 0.25, 0.5, 1.0, 2.75, 4.0] {
        assert_eq!(delta(&rm, t, t), 0.0, "t = {t}");
    }
}

#[test]
fn sweep_against_independent_integrator() {
    let rm = reference();
    let points: Vec<f64> = (0..161).map(|i| -5.0 + i as f64 / 16.0).collect();
    let mut worst: f64 = 0.0;
    let mut checked = 0usize;
    for &a in &points {
        for &b in &points {
            let d = delta(&rm, a, b);
            let expected = integrate(a, b);
            worst = worst.max((d - expected).abs());
            assert!(
                (d - expected).abs() <= TOL,
                "Delta({a}, {b}) = {d}, integrator {expected}"
            );
            let m = 0.5 * (a + b);
            let split = delta(&rm, a, m) + delta(&rm, m, b);
            assert!(
                (d - split).abs() <= TOL,
                "additivity at ({a}, {m}, {b}): {d} vs {split}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 25_921);
    eprintln!("worst |Delta - integrator| over {checked} intervals: {worst:e} m");
}

#[test]
fn both_sides_of_key_and_cycle_boundaries() {
    let rm = reference();
    let eps = 1e-7;
    for k in [-2.0, -1.0, 0.0, 1.0, 3.0] {
        for key in [0.0, 0.25, 0.75] {
            let t = k + key;
            // Position is continuous across keys and the wrap.
            let left = along(rm.transform_at_secs(t - eps).unwrap());
            let right = along(rm.transform_at_secs(t + eps).unwrap());
            let at = along(rm.transform_at_secs(t).unwrap());
            assert!((left - at).abs() < 3.0 * eps * 3.0, "left limit at {t}");
            assert!((right - at).abs() < 3.0 * eps * 3.0, "right limit at {t}");
            assert!((delta(&rm, t - eps, t + eps) - integrate(t - eps, t + eps)).abs() < TOL);
        }
        // Velocity across the wrap: 1.2 m/s before, 0.8 m/s after (the asset's business).
        let before = delta(&rm, k - 0.01, k) / 0.01;
        let after = delta(&rm, k, k + 0.01) / 0.01;
        assert!((before - 1.2).abs() < 1e-6, "{before}");
        assert!((after - 0.8).abs() < 1e-6, "{after}");
    }
    // Exactly on the boundary, time t = k belongs to cycle k, phase 0.
    let t = ClipTime::from_secs(3.0, 1.0).unwrap();
    assert_eq!((t.cycle, t.phase_secs), (3, 0.0));
}

#[test]
fn non_finite_and_out_of_range_times_are_rejected() {
    let rm = reference();
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(
            rm.delta_secs(bad, 0.0),
            Err(AnimError::NonFinite { .. })
        ));
        assert!(matches!(
            rm.delta_secs(0.0, bad),
            Err(AnimError::NonFinite { .. })
        ));
    }
    let too_far = (MAX_ABS_CYCLE as f64) * 4.0;
    assert!(matches!(
        rm.delta_secs(0.0, too_far),
        Err(AnimError::OutOfRange { .. })
    ));
    assert!(matches!(
        rm.delta_secs(-too_far, 0.0),
        Err(AnimError::OutOfRange { .. })
    ));
    // Inside the range still works: one million cycles is 2e6 m.
    let d = delta(&rm, 0.0, 1.0e6 + 0.25);
    assert!((d - (2.0e6 + 0.2)).abs() < 1e-6);
}

#[test]
fn rejects_bad_tracks() {
    let k = |t: f64| (t, DVec2::ZERO, 0.0);
    assert!(RootMotionTrack::new(0.0, &[k(0.0)]).is_err());
    assert!(RootMotionTrack::new(1.0, &[]).is_err());
    assert!(matches!(
        RootMotionTrack::new(1.0, &[k(0.0), k(0.5), k(0.5)]),
        Err(AnimError::KeysNotIncreasing { key: 2, .. })
    ));
    assert!(RootMotionTrack::new(1.0, &[k(0.0), k(1.5)]).is_err());
    assert!(RootMotionTrack::new(1.0, &[k(0.0), (0.5, DVec2::new(f64::NAN, 0.0), 0.0)]).is_err());
}

#[test]
fn last_key_carries_the_cycle_displacement() {
    // Dropping the last key to "fix the seam" would lose D: with keys only up to 0.75 s
    // the track holds 1.7 m and one cycle moves 1.7 m, not 2.
    let keys: Vec<_> = KEYS[..3]
        .iter()
        .map(|&(t, z)| (t, DVec2::new(0.0, z), 0.0))
        .collect();
    let truncated = RootMotion::new(RootMotionTrack::new(1.0, &keys).unwrap());
    assert!((along(truncated.cycle_displacement()) - 1.7).abs() < TOL);
    assert!((along(reference().cycle_displacement()) - 2.0).abs() < TOL);
}

/// A clip that walks 1 m forward per cycle while turning 30 degrees (linearly) per cycle.
fn turning() -> RootMotion {
    let yaw = 30f64.to_radians();
    let keys: Vec<_> = (0..=8)
        .map(|i| {
            let s = i as f64 / 8.0;
            // An arc: integrate heading s*yaw over the cycle, roughly.
            let a = s * yaw;
            let r = 1.0 / yaw;
            (s, DVec2::new(r * (1.0 - a.cos()), r * a.sin()), a)
        })
        .collect();
    RootMotion::new(RootMotionTrack::new(1.0, &keys).unwrap())
}

#[test]
fn turning_clip_composes_rigid_transforms() {
    let rm = turning();
    let d = rm.cycle_displacement();
    assert!((d.yaw_rad - 30f64.to_radians()).abs() < 1e-12);
    // Step-by-step composition over many small frames equals the direct delta.
    let dt = 1.0 / 60.0;
    let mut world = GroundTransform::IDENTITY;
    let mut t = 0.3;
    let end = 0.3 + 600.0 * dt; // ten cycles
    for _ in 0..600 {
        world = world.compose(&rm.delta_secs(t, t + dt).unwrap());
        t += dt;
    }
    let direct = rm.delta_secs(0.3, end).unwrap();
    assert!((world.yaw_rad - direct.yaw_rad).abs() < 1e-9);
    assert!(
        (world.translation - direct.translation).length() < 1e-9,
        "{world:?} vs {direct:?}"
    );
    // Twelve cycles of 30 degrees close the circle: back at the start, facing forward
    // again (mod 2π). k*D as a vector would be 12 m away instead.
    let full = rm.delta_secs(0.0, 12.0).unwrap();
    assert!(full.translation.length() < 1e-9, "{full:?}");
    assert!((full.yaw_rad - std::f64::consts::TAU).abs() < 1e-9);
    let naive = d.translation * 12.0;
    assert!(naive.length() > 10.0);
    // Second cycle moves along the direction rotated by 30 degrees.
    let c2 = rm.delta_secs(1.0, 2.0).unwrap();
    let c2_world = rm.delta_secs(0.0, 1.0).unwrap().compose(&c2);
    let expected = d.translation + GroundTransform::rotate(d.yaw_rad, d.translation);
    assert!((c2_world.translation - expected).length() < 1e-12);
}

#[test]
fn ground_transform_rotation_matches_quaternion() {
    let yaw = 0.7;
    let v = DVec2::new(0.3, -1.2);
    let q = glam::DQuat::from_rotation_y(yaw) * glam::DVec3::new(v.x, 0.0, v.y);
    let r = GroundTransform::rotate(yaw, v);
    assert!((r.x - q.x).abs() < 1e-15 && (r.y - q.z).abs() < 1e-15);
    let g = GroundTransform::new(0.4, DVec2::new(1.0, 2.0));
    let p = DVec2::new(-0.5, 0.25);
    let m = g
        .to_dmat4()
        .transform_point3(glam::DVec3::new(p.x, 0.0, p.y));
    let gp = g.transform_point(p);
    assert!((gp.x - m.x).abs() < 1e-12 && (gp.y - m.z).abs() < 1e-12);
    let id = g.compose(&g.inverse());
    assert!(id.yaw_rad.abs() < 1e-15 && id.translation.length() < 1e-15);
    let p5 = g.pow(5);
    let mut c = GroundTransform::IDENTITY;
    for _ in 0..5 {
        c = c.compose(&g);
    }
    assert!((p5.translation - c.translation).length() < 1e-12);
    let pm3 = g.pow(-3).compose(&g.pow(3));
    assert!(pm3.translation.length() < 1e-12 && pm3.yaw_rad.abs() < 1e-15);
}

/// `ModelPoseJob` with `in_place` takes the travel out before going to model space: the
/// joint the motion was extracted from stays over its start on the ground, while the same
/// job without it walks away (the demo Walk covers about a metre per cycle).
#[test]
fn a_model_pose_in_place_stays_over_its_start() {
    use glam::Mat4;
    use stridescope::anim::model_pose::ModelPoseJob;
    use stridescope::anim::ClipRootMotion;
    let model = stridescope::asset::load_from_slice(
        &stridescope::asset::demo::demo_glb(),
        std::path::Path::new("demo.glb"),
    )
    .unwrap();
    let sk = &model.skeleton;
    let clip = &model.clips[model.find_clip("Walk").unwrap()];
    let root = ClipRootMotion::for_clip(sk, clip, None).unwrap().unwrap();
    let joint = root.source.joint;
    assert!(
        sk.parents()[joint].is_none(),
        "the demo's motion comes from a root joint"
    );
    let ground_of = |in_place: Option<&ClipRootMotion>, t: f32| {
        let mut local = sk.rest_pose().to_vec();
        let mut model_from_joint = vec![Mat4::IDENTITY; sk.joint_count()];
        ModelPoseJob {
            skeleton: sk,
            clip,
            time_secs: t,
            in_place,
        }
        .run(&mut local, &mut model_from_joint)
        .unwrap();
        let p = model_from_joint[joint].w_axis;
        glam::Vec2::new(p.x, p.z)
    };
    let half = clip.duration_secs() * 0.5;
    let travelled = ground_of(None, half).distance(ground_of(None, 0.0));
    assert!(
        travelled > 0.3,
        "the Walk travels: {travelled} m in half a cycle"
    );
    let drift = ground_of(Some(&root), half).distance(ground_of(Some(&root), 0.0));
    assert!(
        drift < 1e-4,
        "in place, the root stays over its start: {drift} m"
    );
}
