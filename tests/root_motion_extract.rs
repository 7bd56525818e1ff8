//! Extracting root motion from a clip's joint tracks, auto-detection, and removing it
//! from a display pose.

use glam::{Mat4, Quat, Vec3};
use stridescope::anim::{
    Clip, Interpolation, JointTracks, LocalToModelJob, RootMotionSource, SamplingJob, Skeleton,
    Track, Transform,
};

/// Z_UP (rotates Z-up content into glTF's Y-up) -> root (translates along its local -Y,
/// i.e. model +Z) -> pelvis (bobs up and down, deeper, must not be picked).
fn rig() -> Skeleton {
    Skeleton::new(
        vec!["Z_UP".into(), "root".into(), "pelvis".into()],
        vec![None, Some(0), Some(1)],
        vec![
            Transform {
                rotation: Quat::from_rotation_x(-90f32.to_radians()),
                ..Transform::IDENTITY
            },
            Transform::IDENTITY,
            Transform {
                translation: Vec3::new(0.0, 0.0, 1.0),
                ..Transform::IDENTITY
            },
        ],
    )
    .unwrap()
}

/// SPEC reference keys in the root's local -Y; `yaw_deg` of turn per cycle about the
/// local Z axis (model Y).
fn clip(yaw_deg: f32) -> Clip {
    let times = vec![0.0, 0.25, 0.75, 1.0];
    let mut root = JointTracks::new(1);
    root.translation = Some(
        Track::new(
            Interpolation::Linear,
            times.clone(),
            [0.0, 0.2, 1.7, 2.0]
                .iter()
                .map(|&d| Vec3::new(0.0, -d, 0.0))
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
                .map(|t| Quat::from_rotation_z((yaw_deg * t).to_radians()))
                .collect(),
            "root",
        )
        .unwrap(),
    );
    let mut pelvis = JointTracks::new(2);
    pelvis.translation = Some(
        Track::new(
            Interpolation::Linear,
            vec![0.0, 0.5, 1.0],
            vec![
                Vec3::new(3.0, 0.0, 1.0),
                Vec3::new(3.0, 0.0, 0.9),
                Vec3::new(3.0, 0.0, 1.0),
            ],
            "pelvis",
        )
        .unwrap(),
    );
    Clip::new("walk".into(), vec![root, pelvis], vec![], 3).unwrap()
}

#[test]
fn detects_shallowest_translating_joint_and_extracts_model_space_motion() {
    let s = rig();
    let c = clip(0.0);
    assert_eq!(RootMotionSource::detect(&s, &c), Some(1));
    let src = RootMotionSource::new(&s, 1).unwrap();
    let rm = src.extract(&c, &s.rest_pose()[1]).unwrap();
    let d = rm.cycle_displacement();
    // f32 keys: 0.2 m is stored as 0.2000000030 m, so 1e-6 here (the f64 maths is checked
    // to 1e-9 in tests/root_motion.rs).
    assert!(d.yaw_rad.abs() < 1e-6);
    assert!(d.translation.x.abs() < 1e-6);
    assert!((d.translation.y - 2.0).abs() < 1e-6, "{d:?}");
    assert!((rm.delta_secs(0.9, 3.1).unwrap().translation.y - 4.2).abs() < 1e-5);
    assert!((rm.delta_secs(0.9, 1.1).unwrap().translation.y - 0.2).abs() < 1e-6);
}

#[test]
fn clip_without_translation_has_no_root_motion() {
    let s = rig();
    let mut only_rot = JointTracks::new(1);
    only_rot.rotation = Some(
        Track::new(
            Interpolation::Linear,
            vec![0.0, 1.0],
            vec![Quat::IDENTITY; 2],
            "r",
        )
        .unwrap(),
    );
    let c = Clip::new("idle".into(), vec![only_rot], vec![], 3).unwrap();
    assert_eq!(RootMotionSource::detect(&s, &c), None);
}

#[test]
fn turning_clip_extracts_yaw_per_cycle() {
    let s = rig();
    let c = clip(40.0);
    let src = RootMotionSource::new(&s, 1).unwrap();
    let rm = src.extract(&c, &s.rest_pose()[1]).unwrap();
    let d = rm.cycle_displacement();
    // Rotation about the root's local Z = model +Y (Z_UP maps local Z to model Y).
    assert!((d.yaw_rad - 40f64.to_radians()).abs() < 1e-5, "{d:?}");
    // Nine cycles of 40 degrees = one full turn.
    let nine = rm.delta_secs(0.0, 9.0).unwrap();
    assert!((nine.yaw_rad - std::f64::consts::TAU).abs() < 1e-4);
}

fn model_pose(s: &Skeleton, local: &[Transform]) -> Vec<Mat4> {
    let mut m = vec![Mat4::ZERO; local.len()];
    LocalToModelJob {
        parents: s.parents(),
        local,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut m)
    .unwrap();
    m
}

#[test]
fn removing_root_motion_keeps_the_character_on_the_spot() {
    let s = rig();
    for yaw in [0.0, 40.0] {
        let c = clip(yaw);
        let src = RootMotionSource::new(&s, 1).unwrap();
        let rm = src.extract(&c, &s.rest_pose()[1]).unwrap();
        let at0 = {
            let mut pose = vec![Transform::IDENTITY; 3];
            SamplingJob {
                clip: &c,
                time_secs: 0.0,
                rest_pose: s.rest_pose(),
            }
            .run(&mut pose)
            .unwrap();
            model_pose(&s, &pose)
        };
        for tau in [0.0f32, 0.1, 0.5, 0.6, 0.99, 1.0] {
            let mut pose = vec![Transform::IDENTITY; 3];
            SamplingJob {
                clip: &c,
                time_secs: tau,
                rest_pose: s.rest_pose(),
            }
            .run(&mut pose)
            .unwrap();
            let before = model_pose(&s, &pose);
            src.remove(&rm, tau as f64, &mut pose).unwrap();
            let after = model_pose(&s, &pose);
            // Root back at its start position and heading; height kept.
            assert!(
                after[1].abs_diff_eq(at0[1], 1e-5),
                "yaw {yaw} tau {tau}: {:?}",
                after[1]
            );
            // The pelvis keeps its bob relative to the root (in-cycle animation survives).
            let rel_before = before[1].inverse() * before[2];
            let rel_after = after[1].inverse() * after[2];
            assert!(rel_before.abs_diff_eq(rel_after, 1e-5));
        }
    }
}

/// A Blender rig whose foot IK targets hang from the armature (one level), while the
/// translated hips sit under an unanimated root bone (two levels): the shallowest
/// translated joint is the IK target, but only a joint that carries the legs can be the
/// root-motion joint.
#[test]
fn an_ik_target_shallower_than_the_hips_is_not_the_root() {
    let t = |x: f32, y: f32, z: f32| Transform {
        translation: Vec3::new(x, y, z),
        ..Transform::IDENTITY
    };
    let names = [
        "Armature",
        "root",
        "hips",
        "thigh_l",
        "calf_l",
        "foot_l",
        "thigh_r",
        "calf_r",
        "foot_r",
        "ik_target_l",
    ];
    let s = Skeleton::new(
        names.iter().map(|n| n.to_string()).collect(),
        vec![
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(2),
            Some(6),
            Some(7),
            Some(0),
        ],
        vec![
            Transform::IDENTITY,
            Transform::IDENTITY,
            t(0.0, 1.0, 0.0),
            t(0.1, 0.0, 0.0),
            t(0.0, -0.45, 0.0),
            t(0.0, -0.45, 0.0),
            t(-0.1, 0.0, 0.0),
            t(0.0, -0.45, 0.0),
            t(0.0, -0.45, 0.0),
            t(0.1, 0.1, 0.0),
        ],
    )
    .unwrap();
    let track = |joint: usize, from: Vec3, to: Vec3| {
        let mut j = JointTracks::new(joint);
        j.translation =
            Some(Track::new(Interpolation::Linear, vec![0.0, 1.0], vec![from, to], "t").unwrap());
        j
    };
    // The hips move 1 m forward, the IK target 1.2 m (a foot reaching ahead).
    let c = Clip::new(
        "walk".into(),
        vec![
            track(2, Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 1.0, 1.0)),
            track(9, Vec3::new(0.1, 0.1, 0.0), Vec3::new(0.1, 0.1, 1.2)),
        ],
        vec![],
        names.len(),
    )
    .unwrap();
    assert_eq!(RootMotionSource::detect(&s, &c), Some(2), "the hips");
    // Without legs to carry (no hips track), the old rule still finds a root.
    let only_ik = Clip::new(
        "ik".into(),
        vec![track(9, Vec3::ZERO, Vec3::Z)],
        vec![],
        names.len(),
    )
    .unwrap();
    assert_eq!(RootMotionSource::detect(&s, &only_ik), Some(9));
}
