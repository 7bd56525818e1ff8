//! Two-bone IK and the local-to-model subtree pass, on a leg built in code with known
//! lengths (0.5 m thigh, 0.4 m shin) so every expected position is hand-computed.

use glam::{Mat4, Quat, Vec3};
use stridescope::anim::ik::{knee_axis, TwoBoneIkJob};
use stridescope::anim::{LocalToModelJob, Transform};

/// hip at (0, 1, 0); knee bent forward: knee at (0, 0.5·cos a, 0.5·sin a) below the hip;
/// ankle straight below the knee... returned as local transforms of a 3-joint chain.
fn leg(bend_deg: f32) -> (Vec<Option<usize>>, Vec<Transform>) {
    let a = bend_deg.to_radians();
    let parents = vec![None, Some(0), Some(1), Some(2)];
    // The thigh points down and forward by a/2, the shin down and back by a/2.
    let thigh_rot = Quat::from_rotation_x(-a / 2.0);
    let local = vec![
        Transform {
            translation: Vec3::new(0.0, 1.0, 0.0),
            rotation: thigh_rot,
            scale: Vec3::ONE,
        },
        Transform {
            translation: Vec3::new(0.0, -0.5, 0.0),
            rotation: Quat::from_rotation_x(a),
            scale: Vec3::ONE,
        },
        Transform {
            translation: Vec3::new(0.0, -0.4, 0.0),
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        },
        // A toe 0.1 m forward of the ankle (rides along, checked by the subtree pass).
        Transform {
            translation: Vec3::new(0.0, 0.0, 0.1),
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        },
    ];
    (parents, local)
}

fn model_of(parents: &[Option<usize>], local: &[Transform]) -> Vec<Mat4> {
    let mut m = vec![Mat4::IDENTITY; local.len()];
    LocalToModelJob {
        parents,
        local,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut m)
    .unwrap();
    m
}

fn pos(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

fn solve(bend: f32, target: Vec3) -> (Vec<Mat4>, stridescope::anim::ik::TwoBoneIkResult) {
    let (parents, mut local) = leg(bend);
    let m = model_of(&parents, &local);
    let job = TwoBoneIkJob {
        target,
        pole_vector: Vec3::Z,
        mid_axis: knee_axis(pos(&m[0]), &m[1], pos(&m[2]), -Vec3::X),
        start_joint: m[0],
        mid_joint: m[1],
        end_joint: m[2],
        ..TwoBoneIkJob::default()
    };
    let r = job.run().unwrap();
    local[0].rotation *= r.start_correction;
    local[1].rotation *= r.mid_correction;
    (model_of(&parents, &local), r)
}

#[test]
fn reaches_reachable_targets_within_0_1_mm() {
    let targets = [
        Vec3::new(0.0, 0.3, 0.1),
        Vec3::new(0.1, 0.25, -0.2),
        Vec3::new(-0.2, 0.4, 0.3),
        Vec3::new(0.0, 0.15, 0.05),
        Vec3::new(0.0, 0.8, 0.05), // 0.2 m from the hip: nearly folded (min reach 0.1)
    ];
    for bend in [10.0, 40.0, 90.0] {
        for t in targets {
            let (m, r) = solve(bend, t);
            let end = pos(&m[2]);
            assert!(end.distance(t) < 1e-4, "bend {bend} target {t}: end {end}");
            assert!(r.reached, "bend {bend} target {t}");
            assert!(r.end_position.distance(end) < 1e-4);
            // Bone lengths are kept.
            assert!((pos(&m[0]).distance(pos(&m[1])) - 0.5).abs() < 1e-5);
            assert!((pos(&m[1]).distance(end) - 0.4).abs() < 1e-5);
            // The knee still bends forward (+Z side of the hip-ankle line, pole +Z).
            let (a, b) = (pos(&m[0]), pos(&m[1]));
            let axis = (end - a).normalize();
            let knee = (b - a) - axis * (b - a).dot(axis);
            assert!(knee.z > 0.0, "bend {bend} target {t}: knee {knee}");
        }
    }
}

#[test]
fn unreachable_targets_are_not_reached_and_never_over_extend() {
    // 1.2 m from the hip: the 0.9 m leg straightens toward it.
    let t = Vec3::new(0.0, -0.2, 0.0);
    let (m, r) = solve(30.0, t);
    assert!(!r.reached);
    let (a, end) = (pos(&m[0]), pos(&m[2]));
    assert!(a.distance(end) <= 0.9 + 1e-5, "{}", a.distance(end));
    assert!(
        (a.distance(end) - 0.9).abs() < 1e-4,
        "straight: {}",
        a.distance(end)
    );
    // Points at the target.
    assert!((end - a).normalize().dot((t - a).normalize()) > 0.99999);
    // Too close (0.05 m < |0.5 - 0.4|): folded as far as it goes, not reached.
    let (m, r) = solve(30.0, Vec3::new(0.0, 0.95, 0.0));
    assert!(!r.reached);
    assert!((pos(&m[0]).distance(pos(&m[2])) - 0.1).abs() < 1e-4);
}

#[test]
fn weight_soften_and_errors() {
    let (parents, local) = leg(30.0);
    let m = model_of(&parents, &local);
    let base = TwoBoneIkJob {
        target: Vec3::new(0.0, 0.3, 0.2),
        pole_vector: Vec3::Z,
        mid_axis: knee_axis(pos(&m[0]), &m[1], pos(&m[2]), -Vec3::X),
        start_joint: m[0],
        mid_joint: m[1],
        end_joint: m[2],
        ..TwoBoneIkJob::default()
    };
    let zero = TwoBoneIkJob {
        weight: 0.0,
        ..base
    }
    .run()
    .unwrap();
    assert_eq!(zero.start_correction, Quat::IDENTITY);
    assert_eq!(zero.mid_correction, Quat::IDENTITY);
    assert!(!zero.reached);
    let half = TwoBoneIkJob {
        weight: 0.5,
        ..base
    }
    .run()
    .unwrap();
    assert!(!half.reached);
    let full = base.run().unwrap();
    let angle = |q: Quat| q.to_axis_angle().1;
    assert!((angle(half.start_correction) - angle(full.start_correction) / 2.0).abs() < 1e-4);
    // Softening at 0.9: a target at exactly full reach (0.9 m) stops short of it.
    let far = Vec3::new(0.0, 0.1, 0.0);
    let soft = TwoBoneIkJob {
        target: far,
        soften: 0.9,
        ..base
    }
    .run()
    .unwrap();
    let reach = pos(&m[0]).distance(soft.end_position);
    // da = 0.81, ds = 0.09: 0.81 + 0.09 (1 - e^-1) = 0.8669.
    assert!((reach - 0.866_89).abs() < 1e-3, "{reach}");
    assert!(!soft.reached);
    // Bad input is an error, not a panic.
    assert!(TwoBoneIkJob {
        target: Vec3::NAN,
        ..base
    }
    .run()
    .is_err());
    assert!(TwoBoneIkJob {
        mid_axis: Vec3::ZERO,
        ..base
    }
    .run()
    .is_err());
    assert!(TwoBoneIkJob {
        mid_joint: m[0],
        ..base
    }
    .run()
    .is_err());
}

#[test]
fn pole_vector_turns_the_knee() {
    let (_, r) = solve(30.0, Vec3::new(0.0, 0.3, 0.0));
    assert!(r.reached);
    let (parents, mut local) = leg(30.0);
    let m = model_of(&parents, &local);
    let r = TwoBoneIkJob {
        target: Vec3::new(0.0, 0.3, 0.0),
        pole_vector: Vec3::X,
        mid_axis: knee_axis(pos(&m[0]), &m[1], pos(&m[2]), -Vec3::X),
        start_joint: m[0],
        mid_joint: m[1],
        end_joint: m[2],
        ..TwoBoneIkJob::default()
    }
    .run()
    .unwrap();
    local[0].rotation *= r.start_correction;
    local[1].rotation *= r.mid_correction;
    let m = model_of(&parents, &local);
    let knee = pos(&m[1]);
    // Target straight below the hip: the knee now points along +X, not +Z.
    assert!(knee.x > 0.1 && knee.z.abs() < 1e-3, "{knee}");
    assert!(pos(&m[2]).distance(Vec3::new(0.0, 0.3, 0.0)) < 1e-4);
}

#[test]
fn subtree_pass_matches_a_full_pass() {
    let (parents, mut local) = leg(40.0);
    let mut m = model_of(&parents, &local);
    local[1].rotation *= Quat::from_rotation_x(0.3);
    let before0 = m[0];
    LocalToModelJob {
        parents: &parents,
        local: &local,
        model_from_root: Mat4::IDENTITY,
    }
    .run_subtree(1, &mut m)
    .unwrap();
    let full = model_of(&parents, &local);
    assert_eq!(m[0], before0);
    for (a, b) in m.iter().zip(&full) {
        assert!(a.abs_diff_eq(*b, 1e-6));
    }
    assert!(LocalToModelJob {
        parents: &parents,
        local: &local,
        model_from_root: Mat4::IDENTITY,
    }
    .run_subtree(9, &mut m)
    .is_err());
}
