//! Loop-seam check (issue 10): position and velocity jumps at the wrap, ranked by how far
//! they move the end of the chain.

use glam::{Quat, Vec3};
use stridescope::anim::seam::{ChannelSeam, LoopSeamJob, SeamChannel};
use stridescope::anim::{
    Clip, ClipRootMotion, Interpolation, JointTracks, Skeleton, Track, Transform,
};

/// hips (root) -> spine (0.5 m up) -> arm (0.4 m) -> finger (0.02 m, a leaf).
fn rig() -> Skeleton {
    let t = |x: f32, y: f32, z: f32| Transform {
        translation: Vec3::new(x, y, z),
        ..Transform::IDENTITY
    };
    Skeleton::new(
        vec!["hips".into(), "spine".into(), "arm".into(), "finger".into()],
        vec![None, Some(0), Some(1), Some(2)],
        vec![
            t(0.0, 1.0, 0.0),
            t(0.0, 0.5, 0.0),
            t(0.4, 0.0, 0.0),
            t(0.02, 0.0, 0.0),
        ],
    )
    .unwrap()
}

/// 31 keys over 1 s of a seamless swing about `axis` (sin of the phase: the same value
/// and slope at both ends), plus `pop_deg` turned onto the last key only.
fn swing(joint: usize, axis: Vec3, amplitude_rad: f32, pop_deg: f32) -> JointTracks {
    let times: Vec<f32> = (0..=30).map(|i| i as f32 / 30.0).collect();
    let mut values: Vec<Quat> = times
        .iter()
        .map(|&t| Quat::from_axis_angle(axis, amplitude_rad * (std::f32::consts::TAU * t).sin()))
        .collect();
    let last = values.len() - 1;
    values[last] = Quat::from_axis_angle(Vec3::X, pop_deg.to_radians()) * values[last];
    let mut tracks = JointTracks::new(joint);
    tracks.rotation = Some(Track::new(Interpolation::Linear, times, values, "swing").unwrap());
    tracks
}

fn seams(sk: &Skeleton, clip: &Clip, root: Option<&ClipRootMotion>) -> Vec<ChannelSeam> {
    let mut out = Vec::new();
    LoopSeamJob {
        skeleton: sk,
        clip,
        root_motion: root,
    }
    .run(&mut out)
    .unwrap();
    out
}

#[test]
fn a_seamless_clip_reports_zero() {
    let sk = rig();
    let clip = Clip::new(
        "Seamless".into(),
        vec![
            swing(1, Vec3::Z, 0.3, 0.0),
            swing(2, Vec3::Y, 0.5, 0.0),
            swing(3, Vec3::Z, 0.8, 0.0),
        ],
        vec![],
        4,
    )
    .unwrap();
    let s = seams(&sk, &clip, None);
    assert_eq!(s.len(), 3);
    for c in &s {
        assert!(c.position_jump < 1e-5, "{c:?}");
        assert!(c.visible_m < 1e-5, "{c:?}");
    }
}

#[test]
fn a_five_degree_pop_ranks_its_joint_first() {
    let sk = rig();
    // A 5 degree pop on the spine (0.42 m chain) and a bigger 10 degree one on the
    // finger (0.02 m): the spine shows more and ranks first.
    let clip = Clip::new(
        "Pop".into(),
        vec![
            swing(1, Vec3::Z, 0.3, 5.0),
            swing(2, Vec3::Y, 0.5, 0.0),
            swing(3, Vec3::Z, 0.8, 10.0),
        ],
        vec![],
        4,
    )
    .unwrap();
    let s = seams(&sk, &clip, None);
    let first = &s[0];
    assert_eq!((first.joint, first.channel), (1, SeamChannel::Rotation));
    assert!(
        (first.position_jump.to_degrees() - 5.0).abs() < 1e-3,
        "{}",
        first.position_jump.to_degrees()
    );
    // spine -> arm -> finger: 0.4 + 0.02 m.
    assert!((first.chain_length_m - 0.42).abs() < 1e-5, "{first:?}");
    // The chord the chain's end moves: 2 x 0.42 m x sin(2.5 degrees).
    assert!(
        (first.visible_m - 2.0 * 0.42 * 2.5f32.to_radians().sin()).abs() < 1e-5,
        "{first:?}"
    );
    let finger = s.iter().find(|c| c.joint == 3).unwrap();
    assert!((finger.position_jump.to_degrees() - 10.0).abs() < 1e-3);
    // A leaf counts its own bone.
    assert!((finger.chain_length_m - 0.02).abs() < 1e-6);
    assert_eq!(s[1].joint, 3);
    let arm = s.iter().find(|c| c.joint == 2).unwrap();
    assert!(arm.position_jump < 1e-5, "{arm:?}");
    assert_eq!(s[2].joint, 2);
}

/// SPEC 2's reference root track, along +Z: keys (0, 0), (0.25, 0.2), (0.75, 1.7),
/// (1, 2), segment speeds 0.8, 3, 1.2 m/s.
fn reference_walk() -> (Skeleton, Clip) {
    let sk = rig();
    let mut root = JointTracks::new(0);
    root.translation = Some(
        Track::new(
            Interpolation::Linear,
            vec![0.0, 0.25, 0.75, 1.0],
            [0.0, 0.2, 1.7, 2.0]
                .iter()
                .map(|&z| Vec3::new(0.0, 1.0, z))
                .collect(),
            "root",
        )
        .unwrap(),
    );
    (
        sk,
        Clip::new("Reference".into(), vec![root], vec![], 4).unwrap(),
    )
}

#[test]
fn spec_reference_track_has_continuous_position_and_a_velocity_jump() {
    let (sk, clip) = reference_walk();
    let rm = ClipRootMotion::for_clip(&sk, &clip, None).unwrap().unwrap();
    let s = seams(&sk, &clip, Some(&rm));
    assert_eq!(s.len(), 1);
    let root = &s[0];
    assert_eq!((root.joint, root.channel), (0, SeamChannel::Translation));
    // The cycle's 2 m of travel is not a pop...
    assert!(root.position_jump < 1e-5, "{root:?}");
    // ... but 1.2 m/s into the seam against 0.8 m/s out of it is a 0.4 m/s jump.
    assert!((root.velocity_jump - 0.4).abs() < 1e-3, "{root:?}");

    // Measured without the root motion, the raw track does jump back 2 m at the wrap.
    let raw = seams(&sk, &clip, None);
    assert!((raw[0].position_jump - 2.0).abs() < 1e-5, "{:?}", raw[0]);
}

#[test]
fn translations_count_in_model_space() {
    // The same reference root under a 0.01-scaled armature, keys in centimetres: the
    // velocity jump is still 0.4 m/s.
    let (sk, clip) = reference_walk();
    let armature = Transform {
        scale: Vec3::splat(0.01),
        ..Transform::IDENTITY
    };
    let mut rest = vec![armature];
    rest.extend(sk.rest_pose().iter().map(|t| Transform {
        translation: t.translation * 100.0,
        ..*t
    }));
    let big = Skeleton::new(
        std::iter::once("Armature".to_string())
            .chain(sk.names().iter().cloned())
            .collect(),
        vec![None, Some(0), Some(1), Some(2), Some(3)],
        rest,
    )
    .unwrap();
    let track = clip.tracks()[0].translation.as_ref().unwrap();
    let mut root = JointTracks::new(1);
    root.translation = Some(
        Track::new(
            Interpolation::Linear,
            track.times().to_vec(),
            track.values().iter().map(|v| *v * 100.0).collect(),
            "root",
        )
        .unwrap(),
    );
    let clip = Clip::new("Reference".into(), vec![root], vec![], 5).unwrap();
    let rm = ClipRootMotion::for_clip(&big, &clip, None)
        .unwrap()
        .unwrap();
    let s = seams(&big, &clip, Some(&rm));
    assert!((s[0].velocity_jump - 0.4).abs() < 1e-3, "{:?}", s[0]);
    assert!(s[0].position_jump < 1e-5, "{:?}", s[0]);
}

#[test]
fn zero_length_clips_are_refused() {
    let sk = rig();
    let mut t = JointTracks::new(1);
    t.rotation = Some(
        Track::new(
            Interpolation::Linear,
            vec![0.0],
            vec![Quat::IDENTITY],
            "pose",
        )
        .unwrap(),
    );
    let clip = Clip::new("Pose".into(), vec![t], vec![], 4).unwrap();
    let mut out = Vec::new();
    let err = LoopSeamJob {
        skeleton: &sk,
        clip: &clip,
        root_motion: None,
    }
    .run(&mut out)
    .unwrap_err();
    assert!(err.to_string().contains("zero-length"), "{err}");
}

/// A seam that turns a chain most of the way round moves its end by the chord, at most
/// twice the chain: 160 degrees on the spine's 0.42 m chain is 2 x 0.42 x sin(80 degrees)
/// = 0.827 m (the arc, 1.17 m, is further than the end can go).
#[test]
fn a_large_rotation_seam_moves_the_chain_end_by_its_chord() {
    let sk = rig();
    let clip = Clip::new(
        "Flip".into(),
        vec![swing(1, Vec3::Z, 0.0, 160.0)],
        vec![],
        4,
    )
    .unwrap();
    let s = seams(&sk, &clip, None);
    let spine = s.iter().find(|c| c.joint == 1).unwrap();
    assert!(
        (spine.position_jump.to_degrees() - 160.0).abs() < 1e-2,
        "{spine:?}"
    );
    assert!(
        (spine.visible_m - 2.0 * 0.42 * 80f32.to_radians().sin()).abs() < 1e-4,
        "{spine:?}"
    );
    assert!(spine.visible_m <= 2.0 * spine.chain_length_m);
}

/// Rotation pops below the dot product's resolution read as what they are: 0.01 and
/// 0.002 degrees (the dot product's step below 1 is 0.0396 degrees, which every
/// seamless channel used to read).
#[test]
fn a_tiny_pop_reads_its_size() {
    let sk = rig();
    let clip = Clip::new(
        "Tiny".into(),
        vec![
            swing(1, Vec3::Z, 0.3, 0.01),
            swing(2, Vec3::Y, 0.5, 0.002),
            swing(3, Vec3::Z, 0.8, 0.0),
        ],
        vec![],
        4,
    )
    .unwrap();
    let s = seams(&sk, &clip, None);
    let deg = |joint: usize| {
        s.iter()
            .find(|c| c.joint == joint)
            .unwrap()
            .position_jump
            .to_degrees()
    };
    assert!((deg(1) - 0.01).abs() < 1e-3, "{}", deg(1));
    assert!((deg(2) - 0.002).abs() < 1e-3, "{}", deg(2));
    assert!(deg(3) < 1e-4, "{}", deg(3));
}
