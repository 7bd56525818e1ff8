//! Where the timeline puts the character, checked against the evaluated pose itself, on a
//! rig whose root-motion joint starts away from the origin and turns every cycle (so
//! `R0·W·R0⁻¹`, `W` and `R0·W` all differ).

use glam::{DVec2, Quat, Vec3};
use stridescope::anim::{Clip, Interpolation, JointTracks, Skeleton, Track, Transform};
use stridescope::asset::Model;
use stridescope::stage::pose::Pose;
use stridescope::stage::timeline::{RootMotionMode, Timeline};

/// `offset` (translated and turned 90 degrees) -> `root` (walks an arc, turning 40 degrees
/// per 1 s cycle) -> `pelvis`. A second clip `Stand` only rotates the pelvis (no root
/// motion).
fn rig() -> Model {
    let skeleton = Skeleton::new(
        vec!["offset".into(), "root".into(), "pelvis".into()],
        vec![None, Some(0), Some(1)],
        vec![
            Transform {
                translation: Vec3::new(3.0, 0.0, 2.0),
                rotation: Quat::from_rotation_y(90f32.to_radians()),
                scale: Vec3::ONE,
            },
            Transform {
                translation: Vec3::new(0.5, 0.0, -0.25),
                ..Transform::IDENTITY
            },
            Transform {
                translation: Vec3::Y,
                ..Transform::IDENTITY
            },
        ],
    )
    .unwrap();
    let times: Vec<f32> = (0..=8).map(|i| i as f32 / 8.0).collect();
    let turn = 40f32.to_radians();
    let radius = 1.0 / turn;
    let mut root = JointTracks::new(1);
    root.translation = Some(
        Track::new(
            Interpolation::Linear,
            times.clone(),
            times
                .iter()
                .map(|&s| {
                    let a = turn * s;
                    Vec3::new(
                        0.5 + radius * (1.0 - a.cos()),
                        0.0,
                        -0.25 + radius * a.sin(),
                    )
                })
                .collect(),
            "root",
        )
        .unwrap(),
    );
    root.rotation = Some(
        Track::new(
            Interpolation::Linear,
            times.clone(),
            times
                .iter()
                .map(|&s| Quat::from_rotation_y(turn * s))
                .collect(),
            "root",
        )
        .unwrap(),
    );
    let walk = Clip::new("Walk".into(), vec![root], vec![], 3).unwrap();
    let mut pelvis = JointTracks::new(2);
    pelvis.rotation = Some(
        Track::new(
            Interpolation::Linear,
            vec![0.0, 1.0],
            vec![Quat::IDENTITY, Quat::from_rotation_x(0.3)],
            "pelvis",
        )
        .unwrap(),
    );
    let stand = Clip::new("Stand".into(), vec![pelvis], vec![], 3).unwrap();
    Model {
        source: "placement rig".into(),
        scenes: vec![],
        scene: None,
        skeleton,
        node_of_joint: vec![0, 1, 2],
        skins: vec![],
        meshes: vec![],
        materials: vec![],
        images: vec![],
        clips: vec![walk, stand],
        arrangement: Default::default(),
        warnings: vec![],
        analysis: Default::default(),
        format: stridescope::asset::SourceFormat::Gltf,
        source_units_m: 1.0,
        source_units_reason: "metres".into(),
        source_up_axis: "+Y".into(),
        source_creator: None,
    }
}

/// Ground position of the root joint in the evaluated pose.
fn drawn_root(model: &Model, timeline: &Timeline, pose: &mut Pose) -> DVec2 {
    pose.evaluate(model, &timeline.pose_request()).unwrap();
    let p = pose.model_from_joint[1].w_axis;
    DVec2::new(p.x as f64, p.z as f64)
}

/// The raw clip (root motion left in, no placement) at clip time `t`.
fn raw_root(model: &Model, t: f32) -> DVec2 {
    let pose = stridescope::stage::pose::pose_at(model, Some(0), t).unwrap();
    let p = pose.model_from_joint[1].w_axis;
    DVec2::new(p.x as f64, p.z as f64)
}

const TOL: f64 = 1e-4;

#[test]
fn the_drawn_root_is_where_the_timeline_says_in_every_mode() {
    let model = rig();
    let mut pose = Pose::new(&model);
    let start = raw_root(&model, 0.0);
    assert!(
        start.length() > 1.0,
        "the rig must start away from the origin"
    );
    for mode in RootMotionMode::ALL {
        let mut t = Timeline::new(&model);
        t.set_mode(mode);
        t.set_playing(true);
        for step in 0..25 {
            t.tick(0.1);
            let drawn = drawn_root(&model, &t, &mut pose);
            let said = t.root_world_position();
            assert!(
                (drawn - said).length() < TOL,
                "{mode:?} step {step}: drawn {drawn} vs {said}"
            );
            match mode {
                RootMotionMode::InPlace => assert!((drawn - start).length() < TOL),
                RootMotionMode::LoopAndReset => {
                    let raw = raw_root(&model, t.phase_secs() as f32);
                    assert!((drawn - raw).length() < TOL);
                }
                RootMotionMode::Accumulate => {
                    // Within the first cycle accumulation equals the raw animation.
                    if t.time_secs() < 1.0 {
                        let raw = raw_root(&model, t.time_secs() as f32);
                        assert!(
                            (drawn - raw).length() < TOL,
                            "step {step}: {drawn} vs raw {raw}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn accumulated_turns_follow_the_rotated_path() {
    let model = rig();
    let mut pose = Pose::new(&model);
    let mut t = Timeline::new(&model);
    t.set_playing(true);
    // Nine cycles of 40 degrees close a full circle: the drawn root is back at the start
    // (a vector k*D would be nine chords away).
    for _ in 0..90 {
        t.tick(0.1);
    }
    let drawn = drawn_root(&model, &t, &mut pose);
    let start = raw_root(&model, 0.0);
    assert!((drawn - start).length() < 1e-3, "{drawn} vs {start}");
}

#[test]
fn switching_to_a_clip_without_root_motion_keeps_the_character_in_place() {
    let model = rig();
    let mut pose = Pose::new(&model);
    let mut t = Timeline::new(&model);
    t.set_playing(true);
    for _ in 0..17 {
        t.tick(0.1);
    }
    let before = drawn_root(&model, &t, &mut pose);
    t.select_clip(&model, 1); // Stand: no root motion
    assert!(t.root_motion().is_none());
    let after = drawn_root(&model, &t, &mut pose);
    assert!((after - before).length() < TOL, "{before} -> {after}");
    assert!((t.root_world_position() - after).length() < TOL);
    // And back: still no jump.
    t.select_clip(&model, 0);
    let back = drawn_root(&model, &t, &mut pose);
    assert!((back - before).length() < TOL, "{before} -> {back}");
}
