//! Inertialization (`anim::inertialize`): a jump between two poses leaves the output
//! continuous in position and velocity, the offset decays like a critically damped spring
//! (hand-computed values; under 1% after 5 half-lives), a jump to the same pose changes
//! nothing, and an interrupted decay carries over.

use glam::{Quat, Vec3};
use stridescope::anim::inertialize::{Inertializer, JointVelocity};
use stridescope::anim::Transform;

fn tr(t: Vec3, deg_z: f32) -> Transform {
    Transform {
        translation: t,
        rotation: Quat::from_rotation_z(deg_z.to_radians()),
        scale: Vec3::ONE,
    }
}

#[test]
fn a_jump_to_the_same_pose_changes_nothing() {
    let pose = [tr(Vec3::new(0.1, 0.9, 0.0), 12.0), tr(Vec3::Y, -40.0)];
    let still = [JointVelocity::default(); 2];
    let mut i = Inertializer::new(2, 0.1).unwrap();
    i.transition(&pose, &still, &pose, &still).unwrap();
    let mut out = [Transform::IDENTITY; 2];
    for _ in 0..5 {
        i.update(1.0 / 60.0).unwrap();
        i.apply(&pose, &mut out).unwrap();
        for (a, b) in out.iter().zip(&pose) {
            assert!((a.translation - b.translation).length() < 1e-6);
            assert!(a.rotation.angle_between(b.rotation) < 1e-5);
        }
    }
    assert!(i.remaining().0 < 1e-6 && i.remaining().1 < 1e-5);
}

#[test]
fn the_offset_decays_like_a_critically_damped_spring() {
    // One joint jumps 1 m (and 30 deg) with no velocity on either side: the offset is
    // (1 + y t) e^{-y t} of its start, y = 2 ln 2 / half-life.
    let h = 0.2f32;
    let from = [tr(Vec3::X, 30.0)];
    let to = [tr(Vec3::ZERO, 0.0)];
    let still = [JointVelocity::default()];
    let mut i = Inertializer::new(1, h).unwrap();
    i.transition(&from, &still, &to, &still).unwrap();
    let mut out = [Transform::IDENTITY];
    // At the jump the output is the old pose.
    i.apply(&to, &mut out).unwrap();
    assert!((out[0].translation - Vec3::X).length() < 1e-6);
    assert!(out[0].rotation.angle_between(from[0].rotation) < 1e-5);
    let y = 2.0 * std::f32::consts::LN_2 / h;
    let mut t = 0.0f32;
    let mut last = 1.0f32;
    for _ in 0..60 {
        i.update(1.0 / 60.0).unwrap();
        t += 1.0 / 60.0;
        let expected = (1.0 + y * t) * (-y * t).exp();
        let (dt, dr) = i.remaining();
        assert!((dt - expected).abs() < 1e-4, "t {t}: {dt} vs {expected}");
        assert!((dr - 30f32.to_radians() * expected).abs() < 1e-4);
        assert!(dt <= last + 1e-7, "monotonic");
        last = dt;
    }
    // 60 frames = 5 half-lives: 0.77% left.
    assert!((last - 0.007745).abs() < 1e-4, "{last}");
    assert!(last < 0.01);
    // Frame rate does not matter: one 1 s step lands on the same value.
    let mut j = Inertializer::new(1, h).unwrap();
    j.transition(&from, &still, &to, &still).unwrap();
    j.update(1.0).unwrap();
    assert!((j.remaining().0 - last).abs() < 1e-5);
}

#[test]
fn position_and_velocity_stay_continuous_across_a_jump() {
    // The old motion moves at 1 m/s along x; the new one stands at x = 3 (a 2 m jump).
    // At the jump the output keeps the old position and velocity; after it, the speed
    // changes at most by the spring's largest acceleration, y^2 * 2 m + 2 y * 1 m/s
    // (critically damped from these start values), per second: no step, no pop.
    let h = 0.15f32;
    let y = 2.0 * std::f32::consts::LN_2 / h;
    let a_max = y * y * 2.0 + 2.0 * y * 1.0;
    let from = [tr(Vec3::new(1.0, 0.0, 0.0), 0.0)];
    let from_prev = [tr(Vec3::new(1.0 - 0.01, 0.0, 0.0), 0.0)];
    let v_from = [JointVelocity::between(&from_prev[0], &from[0], 0.01)];
    assert!((v_from[0].linear - Vec3::X).length() < 1e-3);
    let to = [tr(Vec3::new(3.0, 0.0, 0.0), 0.0)];
    let still = [JointVelocity::default()];
    let mut out = [Transform::IDENTITY];
    // The velocity right after the jump is the old one: a 0.1 ms step moves 0.1 mm.
    let mut i = Inertializer::new(1, h).unwrap();
    i.transition(&from, &v_from, &to, &still).unwrap();
    i.update(1e-4).unwrap();
    i.apply(&to, &mut out).unwrap();
    let v0 = (out[0].translation.x - 1.0) / 1e-4;
    assert!((v0 - 1.0).abs() < 0.02, "velocity after the jump {v0}");
    // At 60 Hz, frame to frame.
    let dt = 1.0 / 60.0;
    let mut i = Inertializer::new(1, h).unwrap();
    i.transition(&from, &v_from, &to, &still).unwrap();
    let (mut prev, mut prev_step) = (1.0f32, dt);
    for k in 0..120 {
        i.update(dt).unwrap();
        i.apply(&to, &mut out).unwrap();
        let x = out[0].translation.x;
        let step = x - prev;
        assert!(
            (step - prev_step).abs() <= a_max * dt * dt * 1.05,
            "frame {k}: step {step} after {prev_step}"
        );
        prev = x;
        prev_step = step;
    }
    assert!(
        (prev - 3.0).abs() < 0.01,
        "converges to the new pose: {prev}"
    );
}

#[test]
fn an_interrupted_decay_carries_over_and_bad_input_is_refused() {
    let still = [JointVelocity::default()];
    let mut i = Inertializer::new(1, 0.1).unwrap();
    let a = [tr(Vec3::ZERO, 0.0)];
    let b = [tr(Vec3::X, 0.0)];
    let c = [tr(Vec3::new(2.0, 0.0, 0.0), 0.0)];
    i.transition(&a, &still, &b, &still).unwrap();
    i.update(0.05).unwrap();
    let mut shown = [Transform::IDENTITY];
    i.apply(&b, &mut shown).unwrap();
    // A second jump from b to c starts from what was showing, not from b.
    i.transition(&b, &still, &c, &still).unwrap();
    let mut out = [Transform::IDENTITY];
    i.apply(&c, &mut out).unwrap();
    assert!((out[0].translation - shown[0].translation).length() < 1e-5);
    assert!(Inertializer::new(1, 0.0).is_err());
    assert!(i.update(-1.0).is_err());
    assert!(i.apply(&[], &mut out).is_err());
}

/// Model-space joint positions of a local pose.
fn model_positions(
    model: &stridescope::asset::Model,
    pose: &[stridescope::anim::Transform],
) -> Vec<glam::Vec3> {
    let mut m = vec![glam::Mat4::IDENTITY; pose.len()];
    stridescope::anim::LocalToModelJob {
        parents: model.skeleton.parents(),
        local: pose,
        model_from_root: glam::Mat4::IDENTITY,
    }
    .run(&mut m)
    .unwrap();
    m.iter().map(|x| x.w_axis.truncate()).collect()
}

fn idle_run_graph(
    model: &stridescope::asset::Model,
    transition: &str,
) -> stridescope::graph::PoseGraph {
    let text = format!(
        r#"(
        params: [Float(name: "speed", default: 0.0, min: 0.0, max: 6.0)],
        base: StateMachine(machine: (
            initial: "Idle",
            states: [(name: "Idle", node: Clip(clip: "Idle")), (name: "Run", node: Clip(clip: "Run"))],
            transitions: [(from: "Idle", to: "Run", conditions: [Greater(param: "speed", value: 1.0)], {transition})],
        )),
    )"#
    );
    let def: stridescope::graph::GraphDef =
        stridescope::graph::def::parse_ron(&text, std::path::Path::new("t.ron")).unwrap();
    stridescope::graph::PoseGraph::new(model, &def).unwrap()
}

/// The demo's Idle -> Run switch at 1 s (`speed` set to 5): per frame, the largest change
/// of a joint's model-space velocity, and the output poses.
fn idle_to_run(transition: &str) -> (Vec<f32>, Vec<Vec<glam::Vec3>>) {
    let model = stridescope::cli::load_model(None).unwrap();
    let mut g = idle_run_graph(&model, transition);
    let dt = 1.0 / 60.0;
    let mut poses = vec![model_positions(&model, g.local_pose())];
    let mut steps = Vec::new();
    for i in 1..=120 {
        if i == 60 {
            g.params_mut().set_float("speed", 5.0).unwrap();
        }
        g.advance(&model, dt).unwrap();
        poses.push(model_positions(&model, g.local_pose()));
        let n = poses.len();
        if n >= 3 {
            let worst = (0..poses[n - 1].len())
                .map(|j| {
                    let v1 = (poses[n - 2][j] - poses[n - 3][j]) / dt as f32;
                    let v2 = (poses[n - 1][j] - poses[n - 2][j]) / dt as f32;
                    (v2 - v1).length()
                })
                .fold(0.0f32, f32::max);
            steps.push(worst);
        }
    }
    (steps, poses)
}

#[test]
fn inertialized_state_machine_transitions_switch_without_a_pop() {
    let (instant, instant_poses) = idle_to_run("duration_secs: 0");
    let (inert, inert_poses) = idle_to_run("inertialize: 0.05");
    // Frames 58..=62 hold the switch (steps[i] is the change into frame i + 2).
    let around = |s: &[f32]| s[56..62].iter().copied().fold(0.0f32, f32::max);
    let before = inert[..50].iter().copied().fold(0.0f32, f32::max);
    // The instant switch jumps from the idle pose to the run's: a velocity step of
    // several m/s in one frame; inertialized, the change stays like the run's own.
    assert!(
        around(&instant) > 5.0,
        "instant switch: {} m/s",
        around(&instant)
    );
    assert!(
        around(&inert) < 0.35 * around(&instant),
        "inertialized: {} vs {}",
        around(&inert),
        around(&instant)
    );
    assert!(before < 0.5, "idle before the switch: {before}");
    // After 0.5 s (10 half-lives) the inertialized output is the run itself (within a
    // millimetre); just after the switch it was still close to the idle pose.
    let last = inert_poses.len() - 1;
    let gap = |a: &[glam::Vec3], b: &[glam::Vec3]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (*x - *y).length())
            .fold(0.0f32, f32::max)
    };
    assert!(gap(&inert_poses[last], &instant_poses[last]) < 1e-3);
    assert!(gap(&inert_poses[60], &instant_poses[60]) > 0.05);
    assert!(
        gap(&inert_poses[60], &inert_poses[59]) < 0.02,
        "no pose step at the switch"
    );
}

#[test]
fn a_bad_inertialize_half_life_is_refused() {
    let model = stridescope::cli::load_model(None).unwrap();
    let text = r#"(
        params: [Float(name: "speed", default: 0.0, min: 0.0, max: 6.0)],
        base: StateMachine(machine: (
            initial: "Idle",
            states: [(name: "Idle", node: Clip(clip: "Idle")), (name: "Run", node: Clip(clip: "Run"))],
            transitions: [(from: "Idle", to: "Run", conditions: [Greater(param: "speed", value: 1.0)], inertialize: 0)],
        )),
    )"#;
    let def: stridescope::graph::GraphDef =
        stridescope::graph::def::parse_ron(text, std::path::Path::new("t.ron")).unwrap();
    let e = stridescope::graph::PoseGraph::new(&model, &def)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("inertialize half-life 0"), "{e}");
}

#[test]
fn a_seek_or_a_paused_edit_right_after_an_inertialized_switch_shows_the_clips() {
    let model = stridescope::cli::load_model(None).unwrap();
    let mut inert = idle_run_graph(&model, "inertialize: 0.2");
    let mut instant = idle_run_graph(&model, "duration_secs: 0");
    for g in [&mut inert, &mut instant] {
        for i in 1..=62 {
            if i == 60 {
                g.params_mut().set_float("speed", 5.0).unwrap();
            }
            g.advance(&model, 1.0 / 60.0).unwrap();
        }
    }
    // Two frames after the switch the offset is still large...
    let gap = |a: &stridescope::graph::PoseGraph, b: &stridescope::graph::PoseGraph| {
        let (p, q) = (
            model_positions(&model, a.local_pose()),
            model_positions(&model, b.local_pose()),
        );
        p.iter()
            .zip(&q)
            .map(|(x, y)| (*x - *y).length())
            .fold(0.0f32, f32::max)
    };
    assert!(gap(&inert, &instant) > 0.05);
    // ...a seek shows the run as it is.
    inert.seek(&model, 0.3).unwrap();
    instant.seek(&model, 0.3).unwrap();
    assert!(gap(&inert, &instant) < 1e-6, "{}", gap(&inert, &instant));
    // A re-evaluation while paused on the switch frame follows the destination.
    let mut paused = idle_run_graph(&model, "inertialize: 0.2");
    for i in 1..=60 {
        if i == 60 {
            paused.params_mut().set_float("speed", 5.0).unwrap();
        }
        paused.advance(&model, 1.0 / 60.0).unwrap();
    }
    let shown = model_positions(&model, paused.local_pose());
    paused.evaluate(&model).unwrap();
    let again = model_positions(&model, paused.local_pose());
    let moved = shown
        .iter()
        .zip(&again)
        .map(|(a, b)| (*a - *b).length())
        .fold(0.0f32, f32::max);
    assert!(moved < 1e-5, "a refresh does not move the pose: {moved}");
}
