//! Track interpolation (STEP / LINEAR / CUBICSPLINE) against hand-computed values, and the
//! sampling job's contract.

use glam::{Quat, Vec3};
use stridescope::anim::{
    AnimError, Clip, Interpolation, JointTracks, SamplingJob, SyncMarker, Track, Transform,
};

const EPS: f32 = 1e-6;

fn vec_track(interp: Interpolation, times: &[f32], values: &[Vec3]) -> Track<Vec3> {
    Track::new(interp, times.to_vec(), values.to_vec(), "test").unwrap()
}

fn assert_vec(a: Vec3, b: Vec3) {
    assert!((a - b).length() < EPS, "{a} != {b}");
}

/// Same rotation (q and -q are equal).
fn assert_rot(a: Quat, b: Quat) {
    assert!(a.dot(b).abs() > 1.0 - 1e-6, "{a} != {b}");
}

#[test]
fn step_holds_previous_key() {
    let v = [Vec3::ZERO, Vec3::new(1.0, 2.0, 3.0), Vec3::splat(5.0)];
    let t = vec_track(Interpolation::Step, &[0.0, 1.0, 2.0], &v);
    assert_vec(t.sample(0.5), v[0]);
    assert_vec(t.sample(0.999), v[0]);
    assert_vec(t.sample(1.0), v[1]);
    assert_vec(t.sample(1.99), v[1]);
    assert_vec(t.sample(2.0), v[2]);
}

#[test]
fn linear_lerps_and_clamps_outside_keys() {
    let t = vec_track(
        Interpolation::Linear,
        &[0.5, 1.5],
        &[Vec3::ZERO, Vec3::new(1.0, 2.0, 3.0)],
    );
    assert_vec(t.sample(0.75), Vec3::new(0.25, 0.5, 0.75));
    // Keys that start after 0 are not shifted: before the first key, hold it.
    assert_vec(t.sample(0.0), Vec3::ZERO);
    assert_vec(t.sample(-3.0), Vec3::ZERO);
    assert_vec(t.sample(9.0), Vec3::new(1.0, 2.0, 3.0));
}

#[test]
fn linear_rotation_takes_the_shortest_arc() {
    let q90 = Quat::from_rotation_z(90f32.to_radians());
    let q45 = Quat::from_rotation_z(45f32.to_radians());
    let t = Track::new(
        Interpolation::Linear,
        vec![0.0, 1.0],
        vec![Quat::IDENTITY, q90],
        "r",
    )
    .unwrap();
    assert_rot(t.sample(0.5), q45);
    // The second key stored in the opposite hemisphere: same rotation, must not go the
    // long way round (which would pass through a 225-degree rotation).
    let t = Track::new(
        Interpolation::Linear,
        vec![0.0, 1.0],
        vec![Quat::IDENTITY, -q90],
        "r",
    )
    .unwrap();
    assert_rot(t.sample(0.5), q45);
    let q = t.sample(0.25);
    assert!((q.length() - 1.0).abs() < EPS);
    assert_rot(q, Quat::from_rotation_z(22.5f32.to_radians()));
}

#[test]
fn cubic_spline_uses_interval_scaled_tangents() {
    // keys t = 0 and 2 (interval 2 s): v0 = 0 with out-tangent 1/s, v1 = 4 with in-tangent 3/s.
    // s = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125;
    // p = 0.5*0 + 0.125*2*1 + 0.5*4 - 0.125*2*3 = 1.5.
    let x = |v: f32| Vec3::new(v, 0.0, 0.0);
    let values = [x(9.0), x(0.0), x(1.0), x(3.0), x(4.0), x(9.0)];
    let t = vec_track(Interpolation::CubicSpline, &[0.0, 2.0], &values);
    assert_vec(t.sample(1.0), x(1.5));
    // s = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875
    // p = 0.140625*2*1 + 0.15625*4 - 0.046875*2*3 = 0.625
    assert_vec(t.sample(0.5), x(0.625));
    assert_vec(t.sample(0.0), x(0.0));
    assert_vec(t.sample(2.0), x(4.0));
    assert_vec(t.sample(5.0), x(4.0));
}

#[test]
fn cubic_spline_rotation_is_normalised() {
    let q90 = Quat::from_rotation_y(90f32.to_radians());
    let z = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let t = Track::new(
        Interpolation::CubicSpline,
        vec![0.0, 1.0],
        vec![z, Quat::IDENTITY, z, z, q90, z],
        "r",
    )
    .unwrap();
    let q = t.sample(0.5);
    assert!((q.length() - 1.0).abs() < EPS);
    assert_rot(q, Quat::from_rotation_y(45f32.to_radians()));
}

#[test]
fn slightly_non_unit_keys_come_out_unit() {
    // SimpleSkin writes (0, 0, 0.707, 0.707): norm 0.99985.
    let a = Quat::from_xyzw(0.0, 0.0, 0.707, 0.707);
    let b = Quat::from_xyzw(0.0, 0.0, -0.707, 0.707);
    let t = Track::new(Interpolation::Linear, vec![0.0, 1.0], vec![a, b], "r").unwrap();
    for s in [0.0, 0.3, 0.5, 1.0] {
        assert!((t.sample(s).length() - 1.0).abs() < EPS, "at {s}");
    }
    assert_rot(t.sample(0.5), Quat::IDENTITY);
}

#[test]
fn track_validation() {
    let v = |n: usize| vec![Vec3::ZERO; n];
    let err = |r: Result<Track<Vec3>, AnimError>| r.unwrap_err();
    assert!(matches!(
        err(Track::new(Interpolation::Linear, vec![], v(0), "t")),
        AnimError::Empty { .. }
    ));
    assert!(matches!(
        err(Track::new(Interpolation::Linear, vec![0.0, 1.0], v(3), "t")),
        AnimError::LengthMismatch { .. }
    ));
    assert!(matches!(
        err(Track::new(
            Interpolation::CubicSpline,
            vec![0.0, 1.0],
            v(2),
            "t"
        )),
        AnimError::LengthMismatch { expected: 6, .. }
    ));
    let e = err(Track::new(
        Interpolation::Linear,
        vec![0.0, 1.0, 1.0, 2.0],
        v(4),
        "animation 2 channel 5",
    ));
    assert_eq!(
        e.to_string(),
        "animation 2 channel 5: key times not increasing at key 2"
    );
    assert!(matches!(
        err(Track::new(
            Interpolation::Linear,
            vec![0.0, f32::NAN],
            v(2),
            "t"
        )),
        AnimError::NonFinite { .. }
    ));
    assert!(matches!(
        err(Track::new(
            Interpolation::Linear,
            vec![-1.0, 0.0],
            v(2),
            "t"
        )),
        AnimError::OutOfRange { .. }
    ));
    assert!(matches!(
        err(Track::new(
            Interpolation::Linear,
            vec![0.0, 1.0],
            vec![Vec3::ZERO, Vec3::NAN],
            "t"
        )),
        AnimError::NonFinite { .. }
    ));
}

fn two_joint_clip() -> Clip {
    let mut j1 = JointTracks::new(1);
    j1.translation = Some(vec_track(
        Interpolation::Linear,
        &[0.5, 1.5],
        &[Vec3::ZERO, Vec3::X],
    ));
    Clip::new(
        "clip".into(),
        vec![j1],
        vec![SyncMarker {
            name: "left_foot_down".into(),
            time_secs: 0.5,
        }],
        3,
    )
    .unwrap()
}

#[test]
fn sampling_job_writes_every_joint() {
    let clip = two_joint_clip();
    assert_eq!(clip.duration_secs(), 1.5);
    assert_eq!(clip.first_key_secs(), 0.5);
    assert_eq!(clip.channel_count(), 1);
    let rest = [
        Transform {
            translation: Vec3::Y,
            ..Transform::IDENTITY
        },
        Transform {
            rotation: Quat::from_rotation_x(0.3),
            scale: Vec3::splat(2.0),
            translation: Vec3::new(0.0, 7.0, 0.0),
        },
        Transform::IDENTITY,
    ];
    // Sentinel output shows any joint the job forgets to write.
    let sentinel = Transform {
        translation: Vec3::splat(f32::NAN),
        rotation: Quat::from_xyzw(9.0, 9.0, 9.0, 9.0),
        scale: Vec3::splat(-7.0),
    };
    let mut out = [sentinel; 3];
    SamplingJob {
        clip: &clip,
        time_secs: 1.0,
        rest_pose: &rest,
    }
    .run(&mut out)
    .unwrap();
    assert_eq!(out[0], rest[0]);
    assert_eq!(out[2], rest[2]);
    // Animated channel replaced, the others keep the rest pose.
    assert_vec(out[1].translation, Vec3::new(0.5, 0.0, 0.0));
    assert_eq!(out[1].rotation, rest[1].rotation);
    assert_eq!(out[1].scale, rest[1].scale);
}

#[test]
fn sampling_job_validity_matrix() {
    let clip = two_joint_clip();
    let rest = [Transform::IDENTITY; 3];
    let mut out3 = [Transform::IDENTITY; 3];
    let mut out2 = [Transform::IDENTITY; 2];
    let job = |t: f32, rest: &[Transform], out: &mut [Transform]| {
        SamplingJob {
            clip: &clip,
            time_secs: t,
            rest_pose: rest,
        }
        .run(out)
    };
    assert!(job(0.0, &rest, &mut out3).is_ok());
    assert!(matches!(
        job(0.0, &rest, &mut out2),
        Err(AnimError::LengthMismatch { .. })
    ));
    assert!(matches!(
        job(f32::NAN, &rest, &mut out3),
        Err(AnimError::NonFinite { .. })
    ));
    assert!(matches!(
        job(f32::INFINITY, &rest, &mut out3),
        Err(AnimError::NonFinite { .. })
    ));
    // Clip built for a bigger skeleton than the pose.
    assert!(matches!(
        job(0.0, &rest[..1], &mut out3[..1]),
        Err(AnimError::JointOutOfRange { .. })
    ));
}

#[test]
fn clip_validation() {
    let track = || vec_track(Interpolation::Linear, &[0.0, 1.0], &[Vec3::ZERO, Vec3::X]);
    let mut a = JointTracks::new(1);
    a.translation = Some(track());
    let mut b = JointTracks::new(1);
    b.scale = Some(track());
    assert!(Clip::new("dup".into(), vec![a.clone(), b], vec![], 3).is_err());
    assert!(Clip::new("range".into(), vec![a.clone()], vec![], 1).is_err());
    let late = SyncMarker {
        name: "x".into(),
        time_secs: 2.0,
    };
    assert!(Clip::new("marker".into(), vec![a], vec![late], 3).is_err());
}
