//! Track interpolation (STEP / LINEAR / CUBICSPLINE) against hand-computed values, the
//! rotation kernel against exact slerp, the sampling job's contract, and the sampling
//! cache against the uncached path, and the structure-of-arrays sampler against the
//! per-joint one, and a track's sampler (the prepared key pair kept between samples)
//! against `Track::sample`.

use std::path::Path;

use glam::{DQuat, EulerRot, Quat, Vec3};
use stridescope::anim::clip::TrackValue;
use stridescope::anim::seam::VELOCITY_STEP_SECS;
use stridescope::anim::soa::{soa_len, transforms_from_soa, SoaTransform};
use stridescope::anim::{
    AnimError, Clip, Interpolation, JointTracks, SamplingCache, SamplingJob, SoaSamplingJob,
    SyncMarker, Track, TrackSampler, Transform,
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

// ---------------------------------------------------------------------------------------
// Rotation kernel accuracy

/// Bound on the rotation-angle deviation of LINEAR rotation sampling from exact slerp.
const SLERP_MAX_ERROR_RAD: f64 = 1e-6;

/// Exact shortest-arc slerp in f64 of the (f32) keys. The hemisphere is chosen by the sign
/// of the f32 dot product, as the sampler does: at exactly 180 degrees both arcs are
/// shortest and only the tie-break could differ.
fn exact_slerp(a: Quat, b: Quat, s: f64) -> DQuat {
    let flip = a.dot(b) < 0.0;
    let a = a.as_dquat().normalize();
    let b = b.as_dquat().normalize();
    let b = if flip { -b } else { b };
    let omega = a.dot(b).clamp(-1.0, 1.0).acos();
    if omega < 1e-12 {
        return a;
    }
    (a * ((1.0 - s) * omega).sin() + b * (s * omega).sin()).normalize()
}

/// Rotation axes of the slerp sweeps (normalised where used).
const SWEEP_AXES: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.3, -0.8, 0.5], [-1.0, 0.2, 0.1]];

/// Key angles of the slerp sweeps: 0 to 360 degrees in quarter degrees, plus tiny ones
/// (where nlerp and slerp meet and acos is ill-conditioned).
fn sweep_angles() -> Vec<f32> {
    let mut angles: Vec<f32> = (0..=1440).map(|i| (i as f32 * 0.25).to_radians()).collect();
    angles.extend((0..=12).map(|e| 10f32.powf(-7.0 + 0.5 * e as f32)));
    angles
}

/// Angle of the rotation between `a` and `b` (radians, in `[0, pi]`).
fn rotation_angle_between(a: DQuat, b: DQuat) -> f64 {
    let d = a.conjugate() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

#[test]
fn linear_rotation_matches_exact_slerp() {
    let axes = SWEEP_AXES.map(|a| Vec3::from_array(a).normalize());
    let starts = [
        Quat::IDENTITY,
        Quat::from_euler(EulerRot::XYZ, 0.7, -1.2, 2.9),
    ];
    let angles = sweep_angles();
    let mut worst = (0.0f64, 0.0f32, 0.0f32);
    for axis in axes {
        for a in starts {
            for &angle in &angles {
                let b = (Quat::from_axis_angle(axis, angle) * a).normalize();
                let track =
                    Track::new(Interpolation::Linear, vec![0.0, 1.0], vec![a, b], "r").unwrap();
                for k in 0..=64 {
                    let s = k as f32 / 64.0;
                    let q = track.sample(s);
                    assert!((q.length() - 1.0).abs() < 1e-6, "|q| = {}", q.length());
                    let err = rotation_angle_between(exact_slerp(a, b, s as f64), q.as_dquat());
                    if err > worst.0 {
                        worst = (err, angle, s);
                    }
                }
            }
        }
    }
    assert!(
        worst.0 < SLERP_MAX_ERROR_RAD,
        "max deviation {:e} rad at key angle {} rad, s = {}",
        worst.0,
        worst.1,
        worst.2
    );
}

// ---------------------------------------------------------------------------------------
// Sampling cache

/// Every component of every joint as bits.
fn pose_bits(pose: &[Transform]) -> Vec<[u32; 10]> {
    pose.iter()
        .map(|t| {
            let [a, b, c] = t.translation.to_array().map(f32::to_bits);
            let [d, e, f, g] = t.rotation.to_array().map(f32::to_bits);
            let [h, i, k] = t.scale.to_array().map(f32::to_bits);
            [a, b, c, d, e, f, g, h, i, k]
        })
        .collect()
}

/// Samples `clip` the slow, independent way: the rest pose with each track's own
/// `Track::sample` (per-track storage, binary search, scalar kernel).
fn reference_pose(clip: &Clip, rest: &[Transform], t: f32) -> Vec<Transform> {
    let mut pose = rest.to_vec();
    for tracks in clip.tracks() {
        let out = &mut pose[tracks.joint];
        if let Some(k) = &tracks.translation {
            out.translation = k.sample(t);
        }
        if let Some(k) = &tracks.rotation {
            out.rotation = k.sample(t);
        }
        if let Some(k) = &tracks.scale {
            out.scale = k.sample(t);
        }
    }
    pose
}

/// Samples `times` in order with one cache and checks every pose is bit-identical to the
/// uncached job and to [`reference_pose`].
fn check_cached_matches_uncached(clip: &Clip, rest: &[Transform], times: &[f32], what: &str) {
    let mut cache = SamplingCache::new();
    let mut cached = vec![Transform::IDENTITY; rest.len()];
    let mut uncached = vec![Transform::IDENTITY; rest.len()];
    for &t in times {
        let job = SamplingJob {
            clip,
            time_secs: t,
            rest_pose: rest,
        };
        job.run_with_cache(&mut cache, &mut cached).unwrap();
        job.run(&mut uncached).unwrap();
        assert_eq!(pose_bits(&cached), pose_bits(&uncached), "{what}: t = {t}");
        // Bit for bit, so that a zero's sign counts (`==` takes -0.0 for 0.0).
        assert_eq!(
            pose_bits(&uncached),
            pose_bits(&reference_pose(clip, rest, t)),
            "{what}: t = {t} (reference)"
        );
    }
}

/// Deterministic pseudo-random numbers in `[0, 1)` (xorshift).
fn random_unit(seed: &mut u64) -> f32 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    (*seed >> 40) as f32 / (1u64 << 24) as f32
}

/// Time sequences that exercise the cursors: playback forwards (smaller and larger than
/// a key interval, wrapping), scrubbing backwards, random jumps, times outside the key
/// range and exactly on keys.
fn scrub_times(clip: &Clip, keys: &[f32]) -> Vec<f32> {
    let d = clip.duration_secs().max(1e-3);
    let mut times = Vec::new();
    for step in [0.004, 0.0137, 0.05, 0.31] {
        times.extend((0..200).map(|i| (i as f32 * step) % d));
    }
    times.extend((0..200).map(|i| d - i as f32 * 0.011 * d / 2.0));
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    times.extend((0..400).map(|_| random_unit(&mut seed) * 1.4 * d - 0.2 * d));
    times.extend([-1.0, 0.0, d, d + 5.0, 0.5 * d, -0.0, f32::MIN_POSITIVE]);
    times.extend(keys.iter().copied());
    times.extend(keys.iter().rev().copied());
    times
}

/// A 67-joint chain-and-fan skeleton's rest pose and a clip animating T/R/S on every joint
/// (31 keys on shared times, or per-channel key times), like `benches/sampling.rs`.
fn synthetic_67(per_channel_keys: bool) -> (Vec<Transform>, Clip) {
    let n = 67;
    let rest = vec![
        Transform {
            translation: Vec3::Y * 0.1,
            ..Transform::IDENTITY
        };
        n
    ];
    let times = |id: usize| -> Vec<f32> {
        if !per_channel_keys {
            return (0..31).map(|i| i as f32 / 30.0).collect();
        }
        let keys = 11 + id * 7 % 31;
        (0..keys)
            .map(|i| {
                let jitter = if i == 0 || i == keys - 1 {
                    0.0
                } else {
                    0.4 * (1.7 * i as f32 + id as f32).sin()
                };
                (i as f32 + jitter) / (keys - 1) as f32
            })
            .collect()
    };
    let tracks = (0..n)
        .map(|j| {
            let phase = j as f32 * 0.37;
            let mut t = JointTracks::new(j);
            let k = times(3 * j);
            let v = k
                .iter()
                .map(|&s| Vec3::new((s * 6.0 + phase).sin() * 0.01, 0.1, 0.0))
                .collect();
            t.translation = Some(Track::new(Interpolation::Linear, k, v, "t").unwrap());
            let k = times(3 * j + 1);
            let v = k
                .iter()
                .map(|&s| Quat::from_euler(EulerRot::XYZ, (s * 6.0 + phase).sin() * 2.5, s, 0.2))
                .collect();
            t.rotation = Some(Track::new(Interpolation::Linear, k, v, "r").unwrap());
            let k = times(3 * j + 2);
            let v = k.iter().map(|&s| Vec3::splat(1.0 + s * phase)).collect();
            t.scale = Some(Track::new(Interpolation::Linear, k, v, "s").unwrap());
            t
        })
        .collect();
    (
        rest,
        Clip::new("synthetic".into(), tracks, vec![], n).unwrap(),
    )
}

#[test]
fn cache_matches_uncached_on_the_synthetic_clips() {
    for per_channel_keys in [false, true] {
        let (rest, clip) = synthetic_67(per_channel_keys);
        // Joint 0's scale is 1 at every key (phase 0): a constant track, which needs no
        // timeline, so 200 of the 201 channels have their own key times.
        let expected = if per_channel_keys { 200 } else { 1 };
        assert_eq!(clip.timeline_count(), expected);
        let keys = clip.tracks()[5].rotation.as_ref().unwrap().times().to_vec();
        check_cached_matches_uncached(
            &clip,
            &rest,
            &scrub_times(&clip, &keys),
            &format!("synthetic, per-channel keys {per_channel_keys}"),
        );
    }
}

/// Every interpolation, grouped and loose channels, shared and private timelines, keys
/// that start after 0, single-key tracks, partly animated and unanimated joints.
fn mixed_clip() -> (Vec<Transform>, Clip) {
    let n = 14;
    let rest: Vec<Transform> = (0..n)
        .map(|j| Transform {
            translation: Vec3::new(j as f32, 1.0, -2.0),
            rotation: Quat::from_rotation_y(0.1 * j as f32),
            scale: Vec3::splat(1.0 + j as f32),
        })
        .collect();
    let shared: Vec<f32> = vec![0.25, 0.5, 0.6, 1.0, 1.7, 2.0];
    let late: Vec<f32> = vec![0.8, 0.9, 1.3];
    let rot = |i: usize, j: usize| {
        Quat::from_euler(
            EulerRot::YXZ,
            1.3 * i as f32 + 0.2 * j as f32,
            0.4,
            -0.3 * i as f32,
        )
    };
    let vec3 = |i: usize, j: usize| Vec3::new(i as f32, (i * j) as f32 * 0.1, -(j as f32));
    let values = |times: &[f32], interp: Interpolation, f: &dyn Fn(usize) -> Vec3| -> Vec<Vec3> {
        match interp {
            Interpolation::CubicSpline => (0..times.len())
                .flat_map(|i| [f(i) * 0.3, f(i), -f(i) * 0.7])
                .collect(),
            _ => (0..times.len()).map(f).collect(),
        }
    };
    let qvalues = |times: &[f32], interp: Interpolation, f: &dyn Fn(usize) -> Quat| -> Vec<Quat> {
        match interp {
            Interpolation::CubicSpline => (0..times.len())
                .flat_map(|i| {
                    let t = Quat::from_xyzw(0.1, -0.2, 0.05 * i as f32, 0.0);
                    [t, f(i), -t]
                })
                .collect(),
            _ => (0..times.len()).map(f).collect(),
        }
    };
    let mut tracks = Vec::new();
    // Joints 1..=6: full T/R/S on the shared times (groups of six), LINEAR.
    for j in 1..=6 {
        let mut t = JointTracks::new(j);
        let lin = Interpolation::Linear;
        t.translation = Some(
            Track::new(
                lin,
                shared.clone(),
                values(&shared, lin, &|i| vec3(i, j)),
                "t",
            )
            .unwrap(),
        );
        t.rotation = Some(
            Track::new(
                lin,
                shared.clone(),
                qvalues(&shared, lin, &|i| rot(i, j)),
                "r",
            )
            .unwrap(),
        );
        t.scale = Some(
            Track::new(
                lin,
                shared.clone(),
                values(&shared, lin, &|i| vec3(j, i)),
                "s",
            )
            .unwrap(),
        );
        tracks.push(t);
    }
    // Joint 8: STEP rotation and CUBICSPLINE translation on the shared times (loose).
    let mut t = JointTracks::new(8);
    let step = Interpolation::Step;
    let cubic = Interpolation::CubicSpline;
    t.rotation = Some(
        Track::new(
            step,
            shared.clone(),
            qvalues(&shared, step, &|i| rot(i, 8)),
            "r",
        )
        .unwrap(),
    );
    t.translation = Some(
        Track::new(
            cubic,
            shared.clone(),
            values(&shared, cubic, &|i| vec3(i, 8)),
            "t",
        )
        .unwrap(),
    );
    tracks.push(t);
    // Joints 9..=12: CUBICSPLINE rotations on late keys (a group of four), and a LINEAR
    // scale with a single key on joint 9.
    for j in 9..=12 {
        let mut t = JointTracks::new(j);
        t.rotation = Some(
            Track::new(
                cubic,
                late.clone(),
                qvalues(&late, cubic, &|i| rot(i, j)),
                "r",
            )
            .unwrap(),
        );
        if j == 9 {
            t.scale = Some(
                Track::new(
                    Interpolation::Linear,
                    vec![0.4],
                    vec![Vec3::splat(3.0)],
                    "s",
                )
                .unwrap(),
            );
        }
        tracks.push(t);
    }
    // Joint 13: a LINEAR rotation on its own times (loose, scalar kernel).
    let mut t = JointTracks::new(13);
    let own = vec![0.0, 0.33, 1.9];
    t.rotation = Some(
        Track::new(
            Interpolation::Linear,
            own.clone(),
            qvalues(&own, Interpolation::Linear, &|i| rot(i, 13)),
            "r",
        )
        .unwrap(),
    );
    tracks.push(t);
    // Joints 0 and 7 stay unanimated.
    (rest, Clip::new("mixed".into(), tracks, vec![], n).unwrap())
}

#[test]
fn cache_matches_uncached_for_every_interpolation_and_layout() {
    let (rest, clip) = mixed_clip();
    // The single-key scale of joint 9 is a constant and has no timeline.
    assert_eq!(clip.timeline_count(), 3);
    let keys = [0.25, 0.5, 0.6, 0.8, 0.9, 1.0, 1.3, 1.7, 2.0, 0.33, 1.9, 0.4];
    check_cached_matches_uncached(&clip, &rest, &scrub_times(&clip, &keys), "mixed");
    // Unanimated joints and channels keep the rest pose.
    let mut pose = vec![Transform::IDENTITY; rest.len()];
    let mut cache = SamplingCache::new();
    SamplingJob {
        clip: &clip,
        time_secs: 0.7,
        rest_pose: &rest,
    }
    .run_with_cache(&mut cache, &mut pose)
    .unwrap();
    assert_eq!(pose[0], rest[0]);
    assert_eq!(pose[7], rest[7]);
    assert_eq!(pose[8].scale, rest[8].scale);
    assert_eq!(pose[10].translation, rest[10].translation);
    assert_eq!(pose[9].scale, Vec3::splat(3.0));
}

fn robot() -> stridescope::asset::Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb");
    stridescope::asset::load(&path).unwrap_or_else(|e| panic!("Robot failed to import: {e}"))
}

#[test]
fn cache_matches_uncached_on_the_robot() {
    let robot = robot();
    let rest = robot.skeleton.rest_pose();
    let running = &robot.clips[robot.find_clip("Robot_Running").unwrap()];
    let keys = running.tracks()[0]
        .rotation
        .as_ref()
        .unwrap()
        .times()
        .to_vec();
    check_cached_matches_uncached(running, rest, &scrub_times(running, &keys), "Robot_Running");
}

#[test]
fn one_cache_follows_clip_switches_and_invalidation() {
    let robot = robot();
    let rest = robot.skeleton.rest_pose();
    let (synthetic_rest, synthetic) = synthetic_67(true);
    let mut cache = SamplingCache::new();
    let mut cached = vec![Transform::IDENTITY; rest.len()];
    let mut uncached = vec![Transform::IDENTITY; rest.len()];
    let mut seed = 7u64;
    for round in 0..300 {
        // Alternate between clips (different key counts and durations) every few frames,
        // sometimes invalidating, sometimes sampling a clone (same data, same cursors).
        let clip = &robot.clips[(round / 3) % robot.clips.len()];
        let t = random_unit(&mut seed) * clip.duration_secs();
        if round % 17 == 0 {
            cache.invalidate();
        }
        let copy;
        let clip = if round % 5 == 0 {
            copy = clip.clone();
            &copy
        } else {
            clip
        };
        let job = SamplingJob {
            clip,
            time_secs: t,
            rest_pose: rest,
        };
        job.run_with_cache(&mut cache, &mut cached).unwrap();
        job.run(&mut uncached).unwrap();
        assert_eq!(cached, uncached, "round {round}: '{}' t = {t}", clip.name());
        if round % 50 == 0 {
            // A clip with 201 timelines in between, on the same cache.
            let mut a = vec![Transform::IDENTITY; synthetic_rest.len()];
            let mut b = a.clone();
            let job = SamplingJob {
                clip: &synthetic,
                time_secs: t.min(1.0),
                rest_pose: &synthetic_rest,
            };
            job.run_with_cache(&mut cache, &mut a).unwrap();
            job.run(&mut b).unwrap();
            assert_eq!(a, b);
        }
    }
}

#[test]
fn cached_job_keeps_the_error_contract() {
    let clip = two_joint_clip();
    let rest = [Transform::IDENTITY; 3];
    let mut cache = SamplingCache::new();
    let mut out3 = [Transform::IDENTITY; 3];
    let mut out2 = [Transform::IDENTITY; 2];
    fn job<'a>(clip: &'a Clip, t: f32, rest: &'a [Transform]) -> SamplingJob<'a> {
        SamplingJob {
            clip,
            time_secs: t,
            rest_pose: rest,
        }
    }
    let job = |t, rest| job(&clip, t, rest);
    assert!(job(0.7, &rest)
        .run_with_cache(&mut cache, &mut out3)
        .is_ok());
    assert!(matches!(
        job(0.7, &rest).run_with_cache(&mut cache, &mut out2),
        Err(AnimError::LengthMismatch { .. })
    ));
    assert!(matches!(
        job(f32::NAN, &rest).run_with_cache(&mut cache, &mut out3),
        Err(AnimError::NonFinite { .. })
    ));
    assert!(matches!(
        job(0.0, &rest[..1]).run_with_cache(&mut cache, &mut out3[..1]),
        Err(AnimError::JointOutOfRange { .. })
    ));
    // A failed run leaves the cache usable.
    assert!(job(1.2, &rest)
        .run_with_cache(&mut cache, &mut out3)
        .is_ok());
    assert_vec(out3[1].translation, Vec3::new(0.7, 0.0, 0.0));
}

#[test]
fn clip_equality_ignores_the_cache_identity() {
    let a = two_joint_clip();
    let b = two_joint_clip();
    assert_eq!(a, b);
    assert_eq!(a, a.clone());
}

// ---------------------------------------------------------------------------------------
// Structure-of-arrays sampling

/// Samples `times` in order with [`SoaSamplingJob`] (with a cache and without) and checks
/// that every joint is bit for bit what [`SamplingJob`] writes for it (a pose graph may
/// sample through either, and shows a clip frame for frame as the per-joint job does), and
/// that the padding lanes hold the identity. Returns the number of joints compared whose
/// rotation was interpolated between two different keys (so that a run that only met
/// constant or clamped channels cannot pass unnoticed).
fn check_soa_matches_per_joint(
    clip: &Clip,
    rest: &[Transform],
    times: &[f32],
    what: &str,
) -> usize {
    let n = rest.len();
    let rest_soa = stridescope::anim::soa::to_soa(rest);
    let mut cache = SamplingCache::new();
    let mut soa_cached = vec![SoaTransform::IDENTITY; soa_len(n)];
    let mut soa = vec![SoaTransform::IDENTITY; soa_len(n)];
    let mut unpacked = vec![Transform::IDENTITY; n];
    let mut expected = vec![Transform::IDENTITY; n];
    let mut previous = rest.to_vec();
    let mut moving = 0;
    for &t in times {
        let job = SoaSamplingJob {
            clip,
            time_secs: t,
            rest_pose: &rest_soa,
        };
        job.run_with_cache(&mut cache, &mut soa_cached).unwrap();
        job.run(&mut soa).unwrap();
        assert_eq!(
            soa_cached, soa,
            "{what}: t = {t}: cached and uncached SoA differ"
        );
        SamplingJob {
            clip,
            time_secs: t,
            rest_pose: rest,
        }
        .run(&mut expected)
        .unwrap();
        transforms_from_soa(&soa, &mut unpacked).unwrap();
        for (j, (got, want)) in unpacked.iter().zip(&expected).enumerate() {
            assert_eq!(
                pose_bits(std::slice::from_ref(got)),
                pose_bits(std::slice::from_ref(want)),
                "{what}: t = {t}, joint {j}: SoA {got:?} vs per-joint {want:?}"
            );
            if want.rotation != previous[j].rotation {
                moving += 1;
            }
        }
        previous.copy_from_slice(&expected);
        for lane in n..4 * soa.len() {
            assert_eq!(
                soa[lane / 4].lane(lane % 4),
                Transform::IDENTITY,
                "{what}: padding lane"
            );
        }
    }
    moving
}

#[test]
fn soa_sampling_matches_per_joint_sampling_for_every_interpolation_and_layout() {
    // STEP, LINEAR and CUBICSPLINE, shared and private timelines, constants, unanimated
    // joints and channels: the SoA runtime's keyed, fixed, rest and loose lanes.
    let (rest, clip) = mixed_clip();
    let keys = [0.25, 0.5, 0.6, 0.8, 0.9, 1.0, 1.3, 1.7, 2.0, 0.33, 1.9, 0.4];
    check_soa_matches_per_joint(&clip, &rest, &scrub_times(&clip, &keys), "mixed");
    for per_channel in [false, true] {
        let (rest, clip) = synthetic_67(per_channel);
        check_soa_matches_per_joint(&clip, &rest, &scrub_times(&clip, &[]), "synthetic 67");
    }
}

#[test]
fn soa_sampling_matches_on_the_shared_characters() {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets");
    let mut clips = 0;
    for file in [
        "Robot/robot.glb",
        "Fox/Fox.glb",
        "CesiumMan/CesiumMan.glb",
        "RiggedFigure/RiggedFigure.glb",
    ] {
        let path = assets.join(file);
        let model = stridescope::asset::load(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        for clip in &model.clips {
            let times = scrub_times(clip, &[]);
            check_soa_matches_per_joint(clip, model.skeleton.rest_pose(), &times, clip.name());
            clips += 1;
        }
    }
    // Robot 14, Fox 3, CesiumMan 1, RiggedFigure 1.
    assert_eq!(clips, 19);
}

#[test]
fn soa_sampling_matches_on_mocap_and_fbx_takes_played_for_minutes() {
    // Real capture (120 joints' worth of noisy rotations, root translation) and an FBX
    // export, played the way a user leaves them looping: 3 minutes at 60 Hz each, wrapping.
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let files = [
        "mocap/bandai/dataset-2_run_active_001.bvh",
        "mocap/bandai/dataset-2_walk_normal_002.bvh",
        "fbx/ufbx/blender_293_barbarian_7400_binary.fbx",
    ];
    for file in files {
        let model =
            stridescope::asset::load(&shared.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let clip = model
            .clips
            .first()
            .unwrap_or_else(|| panic!("{file}: no clip"));
        let d = clip.duration_secs().max(1e-3);
        let times: Vec<f32> = (0..180 * 60)
            .map(|i| (i as f64 / 60.0) as f32 % d)
            .collect();
        let moving = check_soa_matches_per_joint(clip, model.skeleton.rest_pose(), &times, file);
        // Most joints turn between almost every pair of frames.
        assert!(
            moving > times.len() * 10,
            "{file}: only {moving} rotations moved"
        );
    }
}

#[test]
fn soa_slerp_matches_exact_slerp() {
    // The sweep of `linear_rotation_matches_exact_slerp`, through the SoA sampler: four
    // channels per block, so every lane position is covered.
    let axes = SWEEP_AXES.map(|a| Vec3::from_array(a).normalize());
    let start = Quat::from_euler(EulerRot::XYZ, 0.7, -1.2, 2.9);
    let angles = sweep_angles();
    let mut worst = (0.0f64, 0.0f32, 0.0f32);
    for chunk in angles.chunks(6) {
        // Joint 3 * i + a: axis a, key angle chunk[i].
        let n = 3 * chunk.len();
        let mut tracks = Vec::new();
        for (i, &angle) in chunk.iter().enumerate() {
            for (a, axis) in axes.iter().enumerate() {
                let b = (Quat::from_axis_angle(*axis, angle) * start).normalize();
                let mut jt = JointTracks::new(3 * i + a);
                jt.rotation = Some(
                    Track::new(Interpolation::Linear, vec![0.0, 1.0], vec![start, b], "r").unwrap(),
                );
                tracks.push(jt);
            }
        }
        let clip = Clip::new("sweep".into(), tracks, vec![], n).unwrap();
        let rest_soa = vec![SoaTransform::IDENTITY; soa_len(n)];
        let mut soa = vec![SoaTransform::IDENTITY; soa_len(n)];
        for k in 0..=64 {
            let s = k as f32 / 64.0;
            SoaSamplingJob {
                clip: &clip,
                time_secs: s,
                rest_pose: &rest_soa,
            }
            .run(&mut soa)
            .unwrap();
            for (i, &angle) in chunk.iter().enumerate() {
                for (a, axis) in axes.iter().enumerate() {
                    let j = 3 * i + a;
                    let b = (Quat::from_axis_angle(*axis, angle) * start).normalize();
                    let q = soa[j / 4].lane(j % 4).rotation;
                    assert!((q.length() - 1.0).abs() < 1e-6, "|q| = {}", q.length());
                    let err = rotation_angle_between(exact_slerp(start, b, s as f64), q.as_dquat());
                    if err > worst.0 {
                        worst = (err, angle, s);
                    }
                }
            }
        }
    }
    assert!(
        worst.0 < SLERP_MAX_ERROR_RAD,
        "max deviation {:e} rad at key angle {} rad, s = {}",
        worst.0,
        worst.1,
        worst.2
    );
}

#[test]
fn soa_sampling_job_validity() {
    let clip = two_joint_clip();
    let rest = stridescope::anim::soa::to_soa(&[Transform::IDENTITY; 2]);
    let mut out = vec![SoaTransform::IDENTITY; 1];
    // Output and rest pose lengths differ.
    let mut two = vec![SoaTransform::IDENTITY; 2];
    let err = SoaSamplingJob {
        clip: &clip,
        time_secs: 0.1,
        rest_pose: &rest,
    }
    .run(&mut two)
    .unwrap_err();
    assert!(
        matches!(
            err,
            AnimError::LengthMismatch {
                expected: 1,
                actual: 2,
                ..
            }
        ),
        "{err}"
    );
    // A NaN time.
    let err = SoaSamplingJob {
        clip: &clip,
        time_secs: f32::NAN,
        rest_pose: &rest,
    }
    .run_with_cache(&mut SamplingCache::new(), &mut out)
    .unwrap_err();
    assert!(matches!(err, AnimError::NonFinite { .. }), "{err}");
    // A clip animating joint 5 on a pose of one block (joints 0..4).
    let mut jt = JointTracks::new(5);
    jt.translation = Some(vec_track(
        Interpolation::Linear,
        &[0.0, 1.0],
        &[Vec3::ZERO, Vec3::X],
    ));
    let far = Clip::new("far".into(), vec![jt], vec![], 6).unwrap();
    let before = out.clone();
    let err = SoaSamplingJob {
        clip: &far,
        time_secs: 0.5,
        rest_pose: &rest,
    }
    .run(&mut out)
    .unwrap_err();
    assert!(
        matches!(
            err,
            AnimError::JointOutOfRange {
                joint: 5,
                joint_count: 4,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(out, before, "nothing written on error");
}

/// Times for one track's sampler: the loop seam's pattern (each key and `h` either side),
/// forwards and backwards sweeps, random jumps, and times outside the keys.
fn sampler_times(keys: &[f32]) -> Vec<f32> {
    let (first, last) = (keys[0], keys[keys.len() - 1]);
    let span = (last - first).max(1e-3);
    let h = VELOCITY_STEP_SECS;
    let mut times: Vec<f32> = keys.iter().flat_map(|&t| [t - h, t, t + h]).collect();
    times.extend((0..300).map(|i| first + i as f32 * 0.0137 * span));
    times.extend((0..300).map(|i| last - i as f32 * 0.0071 * span));
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    times.extend((0..400).map(|_| first + random_unit(&mut seed) * 1.4 * span - 0.2 * span));
    times.extend([
        first - 1.0,
        first,
        last,
        last + 1.0,
        -0.0,
        f32::MIN_POSITIVE,
    ]);
    times
}

/// Every sample of `sampler` (one sampler through all `times`, in order) has the bits of
/// `Track::sample` at that time.
fn check_sampler_bits<T: TrackValue>(track: &Track<T>, what: &str) {
    let mut sampler: TrackSampler<T> = track.sampler();
    for (i, &t) in sampler_times(track.times()).iter().enumerate() {
        let (got, want) = (sampler.sample(t), track.sample(t));
        assert!(
            got.same_bits(&want),
            "{what}: sample {i} at t = {t}: sampler {got:?}, track {want:?}"
        );
    }
}

#[test]
fn track_sampler_gives_the_bits_of_track_sample() {
    // Uneven key intervals, some shorter than the seam's h = 1/240 s.
    let times = [0.1, 0.134, 0.136, 0.2, 0.45, 0.451, 0.9, 1.3];
    let rot = |i: usize| {
        let q = Quat::from_euler(
            EulerRot::YXZ,
            0.9 * i as f32,
            -0.4 * i as f32,
            0.25 * i as f32,
        );
        // Every other key in the other hemisphere, one slightly non-unit.
        let q = if i % 2 == 1 { -q } else { q };
        if i == 3 {
            q * 1.001
        } else {
            q
        }
    };
    let quats: Vec<Quat> = (0..times.len()).map(rot).collect();
    let vecs: Vec<Vec3> = (0..times.len())
        .map(|i| Vec3::new(i as f32 * 0.3, (i as f32).sin(), -0.2 * i as f32))
        .collect();
    let cubic = |v: &[Vec3]| -> Vec<Vec3> {
        v.iter()
            .flat_map(|&x| [x * 0.5, x, Vec3::new(0.1, -x.y, 2.0)])
            .collect()
    };
    let cubic_q: Vec<Quat> = quats
        .iter()
        .flat_map(|&q| {
            [
                Quat::from_xyzw(0.1, 0.0, -0.2, 0.05),
                q,
                Quat::from_xyzw(0.0, 0.3, 0.0, 0.0),
            ]
        })
        .collect();
    for interp in [Interpolation::Step, Interpolation::Linear] {
        let t = Track::new(interp, times.to_vec(), quats.clone(), "r").unwrap();
        check_sampler_bits(&t, &format!("rotation {interp:?}"));
        let t = Track::new(interp, times.to_vec(), vecs.clone(), "t").unwrap();
        check_sampler_bits(&t, &format!("translation {interp:?}"));
    }
    let t = Track::new(Interpolation::CubicSpline, times.to_vec(), cubic_q, "r").unwrap();
    check_sampler_bits(&t, "rotation CubicSpline");
    let t = Track::new(
        Interpolation::CubicSpline,
        times.to_vec(),
        cubic(&vecs),
        "t",
    )
    .unwrap();
    check_sampler_bits(&t, "translation CubicSpline");
    // One key, two keys, and a constant channel.
    let one = Track::new(Interpolation::Linear, vec![0.5], vec![quats[1]], "r").unwrap();
    check_sampler_bits(&one, "one key");
    let two = Track::new(
        Interpolation::Linear,
        vec![0.0, 1.0],
        vec![quats[0], quats[5]],
        "r",
    );
    check_sampler_bits(&two.unwrap(), "two keys");
    let flat = Track::new(
        Interpolation::Linear,
        vec![0.0, 1.0, 2.0],
        vec![quats[2]; 3],
        "r",
    );
    check_sampler_bits(&flat.unwrap(), "constant");
}

#[test]
fn track_sampler_interpolates_known_values() {
    let t = Track::new(
        Interpolation::Linear,
        vec![0.0, 1.0, 2.0],
        vec![
            Quat::IDENTITY,
            Quat::from_rotation_z(90f32.to_radians()),
            Quat::from_rotation_z(120f32.to_radians()),
        ],
        "r",
    )
    .unwrap();
    let mut at = t.sampler();
    // Twice in the first interval (the second from the kept pair), then the second.
    assert_rot(at.sample(0.25), Quat::from_rotation_z(22.5f32.to_radians()));
    assert_rot(at.sample(0.5), Quat::from_rotation_z(45f32.to_radians()));
    assert_rot(at.sample(1.5), Quat::from_rotation_z(105f32.to_radians()));
    assert_rot(at.sample(0.75), Quat::from_rotation_z(67.5f32.to_radians()));
    let v = vec_track(
        Interpolation::Linear,
        &[0.0, 2.0, 3.0],
        &[Vec3::ZERO, Vec3::X * 4.0, Vec3::Y],
    );
    let mut at = v.sampler();
    assert_vec(at.sample(0.5), Vec3::X);
    assert_vec(at.sample(2.5), Vec3::new(2.0, 0.5, 0.0));
    assert_vec(at.sample(1.0), Vec3::X * 2.0);
    // From a clamped end into the interval beside it: the kept pair shares one key index
    // with the next one, and must not be taken for it.
    assert_vec(at.sample(5.0), Vec3::Y);
    assert_vec(at.sample(2.75), Vec3::new(1.0, 0.75, 0.0));
    assert_vec(at.sample(-1.0), Vec3::ZERO);
    assert_vec(at.sample(1.5), Vec3::X * 3.0);
}
