//! SPEC section 4 for the blending jobs: the exact cases of the weighted blend (bits), N-way
//! normalisation, the rest-pose fallback, the validity matrix, the phase envelope of two
//! shifted sines (swept), joint masks, additive layers, and the Transform helpers they are
//! built from. All expected values are computed by hand in the comments.

use std::path::Path;

use glam::{DQuat, Quat, Vec3};
use stridescope::anim::blend::additive::{additive_delta, AdditiveJob};
use stridescope::anim::blend::blending::{BlendLayer, BlendingJob};
use stridescope::anim::blend::mask::JointMask;
use stridescope::anim::transform::slerp_shortest;
use stridescope::anim::{
    AnimError, Clip, Interpolation, JointTracks, SamplingJob, Skeleton, Track, Transform,
};

const EPS: f32 = 1e-6;

/// (name, layers, rest pose, threshold, output length) of an invalid blend.
type BlendCase<'a> = (&'a str, Vec<BlendLayer<'a>>, &'a [Transform], f32, usize);
/// (name, base, additive, reference, weight, joint weights, output length).
type AdditiveCase<'a> = (
    &'a str,
    &'a [Transform],
    &'a [Transform],
    &'a [Transform],
    f32,
    Option<&'a [f32]>,
    usize,
);

fn tr(t: [f32; 3], r: Quat, s: [f32; 3]) -> Transform {
    Transform {
        translation: Vec3::from_array(t),
        rotation: r,
        scale: Vec3::from_array(s),
    }
}

fn rx(deg: f32) -> Quat {
    Quat::from_rotation_x(deg.to_radians())
}
fn ry(deg: f32) -> Quat {
    Quat::from_rotation_y(deg.to_radians())
}
fn rz(deg: f32) -> Quat {
    Quat::from_rotation_z(deg.to_radians())
}

fn bits(t: &Transform) -> [u32; 10] {
    let (a, q, s) = (t.translation, t.rotation, t.scale);
    [a.x, a.y, a.z, q.x, q.y, q.z, q.w, s.x, s.y, s.z].map(f32::to_bits)
}

fn assert_bits(a: &Transform, b: &Transform, what: &str) {
    assert_eq!(bits(a), bits(b), "{what}: {a:?} != {b:?} bit for bit");
}

fn assert_vec(a: Vec3, b: Vec3, what: &str) {
    assert!((a - b).length() < 1e-5, "{what}: {a} != {b}");
}

/// Same rotation (q and -q are equal).
fn assert_rot(a: Quat, b: Quat, what: &str) {
    assert!(a.dot(b).abs() > 1.0 - 1e-6, "{what}: {a} != {b}");
}

/// Rotation angle in degrees, in f64 (0..=180).
fn angle_deg(q: Quat) -> f64 {
    let q = q.as_dquat();
    (2.0 * q.xyz().length().atan2(q.w.abs())).to_degrees()
}

/// A sentinel that no job writes on purpose, to see unwritten outputs.
const SENTINEL: Transform = Transform {
    translation: Vec3::splat(-777.0),
    rotation: Quat::IDENTITY,
    scale: Vec3::splat(-777.0),
};

fn layer(pose: &[Transform], weight: f32) -> BlendLayer<'_> {
    BlendLayer {
        pose,
        weight,
        joint_weights: None,
    }
}

fn blend(layers: &[BlendLayer], rest: &[Transform]) -> Result<Vec<Transform>, AnimError> {
    let mut out = vec![SENTINEL; rest.len()];
    BlendingJob {
        layers,
        rest_pose: rest,
        threshold: BlendingJob::DEFAULT_THRESHOLD,
    }
    .run(&mut out)?;
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Transform helpers

#[test]
fn slerp_shortest_flips_into_the_first_hemisphere() {
    let half = 22.5f32.to_radians();
    // -Rz(90) is the same rotation as Rz(90); the shortest path from identity passes
    // through Rz(45) = (0, 0, sin 22.5, cos 22.5) and stays in identity's hemisphere (w > 0).
    let q = slerp_shortest(Quat::IDENTITY, -rz(90.0), 0.5);
    assert!(
        (q.z - half.sin()).abs() < EPS && (q.w - half.cos()).abs() < EPS,
        "{q}"
    );
    assert!((q.length() - 1.0).abs() < EPS);
    assert_rot(
        slerp_shortest(Quat::IDENTITY, -rz(90.0), 1.0),
        rz(90.0),
        "t = 1",
    );
    assert_rot(
        slerp_shortest(Quat::IDENTITY, -rz(90.0), 0.0),
        Quat::IDENTITY,
        "t = 0",
    );
    // Extrapolation continues along the same great circle: 1.5 * 90 = 135 degrees.
    assert_rot(
        slerp_shortest(Quat::IDENTITY, rz(90.0), 1.5),
        rz(135.0),
        "t = 1.5",
    );
    // Nearly equal inputs (0.001 degrees apart) still interpolate the angle.
    let q = slerp_shortest(rx(10.0), rx(10.001), 0.5);
    assert!((angle_deg(q) - 10.0005).abs() < 1e-4, "{}", angle_deg(q));
}

#[test]
fn lerp_interpolates_each_channel() {
    let a = tr([0.0; 3], Quat::IDENTITY, [1.0; 3]);
    let b = tr([2.0, 4.0, -6.0], ry(60.0), [3.0; 3]);
    let m = a.lerp(&b, 0.25);
    assert_vec(m.translation, Vec3::new(0.5, 1.0, -1.5), "translation");
    assert_rot(m.rotation, ry(15.0), "rotation");
    assert_vec(m.scale, Vec3::splat(1.5), "scale");
}

#[test]
fn compose_and_inverse_match_hand_values_and_round_trip() {
    let parent = tr([1.0, 2.0, 3.0], rz(90.0), [2.0; 3]);
    let child = tr([1.0, 0.0, 0.0], rx(90.0), [0.5; 3]);
    // translation: (1,2,3) + Rz90 * (2 * (1,0,0)) = (1,2,3) + (0,2,0); scale 2 * 0.5 = 1.
    let c = parent.compose(&child);
    assert_vec(
        c.translation,
        Vec3::new(1.0, 4.0, 3.0),
        "compose translation",
    );
    assert_rot(c.rotation, rz(90.0) * rx(90.0), "compose rotation");
    assert_vec(c.scale, Vec3::ONE, "compose scale");
    // Same as the matrix product for uniform scale.
    let m = parent.to_mat4() * child.to_mat4();
    assert!(m.abs_diff_eq(c.to_mat4(), 1e-5), "{m} != {}", c.to_mat4());

    // inverse: scale 1/2, rotation Rz(-90), translation 0.5 * Rz(-90) * (-1,-2,-3);
    // Rz(-90) maps (x, y, z) to (y, -x, z): (-2, 1, -3) * 0.5 = (-1, 0.5, -1.5).
    let inv = parent.inverse();
    assert_vec(
        inv.translation,
        Vec3::new(-1.0, 0.5, -1.5),
        "inverse translation",
    );
    assert_rot(inv.rotation, rz(-90.0), "inverse rotation");
    assert_vec(inv.scale, Vec3::splat(0.5), "inverse scale");
    for round_trip in [parent.compose(&inv), inv.compose(&parent)] {
        assert_vec(round_trip.translation, Vec3::ZERO, "round trip translation");
        assert_rot(round_trip.rotation, Quat::IDENTITY, "round trip rotation");
        assert_vec(round_trip.scale, Vec3::ONE, "round trip scale");
    }
    // A zero scale has no inverse: it stays finite (0) instead of becoming infinite.
    let flat = tr([0.0; 3], Quat::IDENTITY, [0.0, 1.0, 4.0]);
    assert_vec(
        flat.inverse().scale,
        Vec3::new(0.0, 1.0, 0.25),
        "zero-scale inverse",
    );
}

#[test]
fn delta_then_apply_restores_the_target() {
    let from = tr([1.0, 1.0, 1.0], rx(30.0), [2.0, 2.0, 2.0]);
    let to = tr([1.0, 3.0, 1.0], rx(30.0) * ry(40.0), [4.0, 1.0, 2.0]);
    let d = Transform::delta(&from, &to);
    // translation (0, 2, 0); rotation Rx(30)^-1 * Rx(30) * Ry(40) = Ry(40); scale
    // (4/2, 1/2, 2/2).
    assert_vec(d.translation, Vec3::new(0.0, 2.0, 0.0), "delta translation");
    assert_rot(d.rotation, ry(40.0), "delta rotation");
    assert_vec(d.scale, Vec3::new(2.0, 0.5, 1.0), "delta scale");
    let back = from.apply_delta(&d, 1.0);
    assert_vec(back.translation, to.translation, "re-applied translation");
    assert_rot(back.rotation, to.rotation, "re-applied rotation");
    assert_vec(back.scale, to.scale, "re-applied scale");
    // Half the delta: translation +1, Ry(20) on the right, scale factor sqrt per axis.
    let half = from.apply_delta(&d, 0.5);
    assert_vec(
        half.translation,
        Vec3::new(1.0, 2.0, 1.0),
        "half translation",
    );
    assert_rot(half.rotation, rx(30.0) * ry(20.0), "half rotation");
    assert_vec(
        half.scale,
        Vec3::new(2.0 * 2f32.sqrt(), 2.0 * 0.5f32.sqrt(), 2.0),
        "half scale",
    );
    // Weight 0 is the identity, bit for bit.
    assert_bits(&from.apply_delta(&d, 0.0), &from, "weight 0");
    // A zero `from` scale component gives factor 1, not infinity.
    let zero = tr([0.0; 3], Quat::IDENTITY, [0.0, 1.0, 1.0]);
    assert_vec(
        Transform::delta(&zero, &to).scale,
        Vec3::new(1.0, 1.0, 2.0),
        "zero guard",
    );
}

// ---------------------------------------------------------------------------------------
// BlendingJob: SPEC 4 exact cases

fn pose_a() -> Vec<Transform> {
    vec![
        tr([0.1, -3.7, 1e-3], rx(20.0), [1.0, 0.3, 2.0]),
        tr([1.0 / 3.0, 7.1, -0.2], ry(-15.0), [0.7, 0.7, 0.7]),
    ]
}

fn pose_b() -> Vec<Transform> {
    vec![
        tr([0.7, 2.2, 5.5], rx(60.0), [3.0, 0.1, 1.1]),
        tr([-2.9, 0.3, 0.01], ry(45.0), [1.3, 1.3, 1.3]),
    ]
}

fn rest2() -> Vec<Transform> {
    vec![Transform::IDENTITY; 2]
}

#[test]
fn midpoint_translation_and_scale_are_exactly_the_mean() {
    let (a, b) = (pose_a(), pose_b());
    let out = blend(&[layer(&a, 0.5), layer(&b, 0.5)], &rest2()).unwrap();
    for j in 0..2 {
        // SPEC: w = 0.5 gives (A + B) / 2, bit for bit.
        let t = (a[j].translation + b[j].translation) / 2.0;
        let s = (a[j].scale + b[j].scale) / 2.0;
        assert_eq!(
            out[j].translation.to_array().map(f32::to_bits),
            t.to_array().map(f32::to_bits),
            "joint {j} translation {} != {t}",
            out[j].translation
        );
        assert_eq!(
            out[j].scale.to_array().map(f32::to_bits),
            s.to_array().map(f32::to_bits),
            "joint {j} scale"
        );
    }
    // Rotation: the bisector of Rx(20) and Rx(60) is Rx(40); of Ry(-15) and Ry(45), Ry(15).
    assert_rot(out[0].rotation, rx(40.0), "joint 0 rotation");
    assert_rot(out[1].rotation, ry(15.0), "joint 1 rotation");
    // Equal weights of any size are the same midpoint.
    let out2 = blend(&[layer(&a, 3.0), layer(&b, 3.0)], &rest2()).unwrap();
    for j in 0..2 {
        assert_vec(out2[j].translation, out[j].translation, "weights 3/3");
    }
}

#[test]
fn weight_zero_and_one_give_the_inputs_exactly() {
    let (a, b) = (pose_a(), pose_b());
    let rest = rest2();
    // p = (1 - w) A + w B.
    let at = |w: f32| blend(&[layer(&a, 1.0 - w), layer(&b, w)], &rest).unwrap();
    let (w0, w1) = (at(0.0), at(1.0));
    for j in 0..2 {
        assert_bits(&w0[j], &a[j], "w = 0 gives A");
        assert_bits(&w1[j], &b[j], "w = 1 gives B");
    }
    // In between: 0.75 A + 0.25 B.
    let q = at(0.25);
    let expect = a[0].translation * 0.75 + b[0].translation * 0.25;
    assert_vec(q[0].translation, expect, "w = 0.25");
    // One contributing layer at any weight >= threshold is copied, not scaled.
    let single = blend(&[layer(&a, 0.3), layer(&b, 0.0)], &rest).unwrap();
    assert_bits(&single[1], &a[1], "single contributor at 0.3");
}

#[test]
fn three_inputs_are_normalised() {
    let p = |x: [f32; 3], r: Quat, s: f32| vec![tr(x, r, [s; 3])];
    let a = p([4.0, 0.0, 0.0], ry(0.0), 1.0);
    let b = p([0.0, 8.0, 0.0], ry(40.0), 2.0);
    let c = p([0.0, 0.0, -4.0], ry(80.0), 5.0);
    let rest = vec![Transform::IDENTITY];
    // Weights 1, 2, 1 (sum 4): translation (4, 0, 0)/4 + (0, 8, 0)/2 + (0, 0, -4)/4
    // = (1, 4, -1); scale 1/4 + 2/2 + 5/4 = 2.5. Rotation: the quaternion sum
    // (1 + cos 40) (cos 0 ...) is symmetric about 20 degrees half-angle, so the normalised
    // sum is exactly Ry(40): y = 2 sin 20 + sin 40 = 2 sin 20 (1 + cos 20),
    // w = 1 + 2 cos 20 + cos 40 = 2 cos 20 (1 + cos 20).
    for scale in [1.0, 0.5, 10.0] {
        let out = blend(
            &[layer(&a, scale), layer(&b, 2.0 * scale), layer(&c, scale)],
            &rest,
        )
        .unwrap();
        assert_vec(out[0].translation, Vec3::new(1.0, 4.0, -1.0), "translation");
        assert_vec(out[0].scale, Vec3::splat(2.5), "scale");
        assert_rot(out[0].rotation, ry(40.0), "rotation");
        assert!((out[0].rotation.length() - 1.0).abs() < EPS);
    }
}

#[test]
fn layer_weights_alone_and_all_one_joint_weights_give_the_same_bits() {
    // Without per-joint weights the job decides the case once for all joints (and has a
    // two-layer loop); with joint weights of 1 it decides per joint. Both must agree
    // bit for bit, for 2 and 3 layers, including weights that sum below the threshold.
    let model = demo();
    let sk = &model.skeleton;
    let poses: Vec<Vec<Transform>> = [0.1, 0.45, 0.8]
        .iter()
        .map(|&t| sample(&model.clips[1], sk, t))
        .collect();
    let ones = vec![1.0f32; sk.joint_count()];
    for weights in [
        [0.7, 0.3, 0.0],
        [0.2, 0.5, 0.3],
        [0.03, 0.04, 0.0],
        [0.0, 1.0, 0.0],
    ] {
        let uniform: Vec<BlendLayer> = poses
            .iter()
            .zip(weights)
            .map(|(p, w)| layer(p, w))
            .collect();
        let per_joint: Vec<BlendLayer> = poses
            .iter()
            .zip(weights)
            .map(|(p, w)| BlendLayer {
                joint_weights: Some(&ones),
                ..layer(p, w)
            })
            .collect();
        let a = blend(&uniform, sk.rest_pose()).unwrap();
        let b = blend(&per_joint, sk.rest_pose()).unwrap();
        for (j, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_bits(x, y, &format!("weights {weights:?}, joint {j}"));
        }
    }
}

#[test]
fn opposite_sign_quaternions_are_flipped_before_summing() {
    // -Rx(60) is Rx(60); a plain sum with Rx(20) would nearly cancel.
    let a = vec![tr([0.0; 3], rx(20.0), [1.0; 3])];
    let b = vec![tr([0.0; 3], -rx(60.0), [1.0; 3])];
    let out = blend(&[layer(&a, 0.5), layer(&b, 0.5)], &[Transform::IDENTITY]).unwrap();
    assert_rot(out[0].rotation, rx(40.0), "bisector");
}

#[test]
fn zero_and_small_weights_fall_back_to_rest() {
    let (a, b) = (pose_a(), pose_b());
    let rest = vec![
        tr([9.0, 9.0, 9.0], rz(10.0), [1.0; 3]),
        tr([0.0, 0.0, 0.0], Quat::IDENTITY, [1.0; 3]),
    ];
    let out = blend(&[layer(&a, 0.0), layer(&b, 0.0)], &rest).unwrap();
    for j in 0..2 {
        assert_bits(&out[j], &rest[j], "all weights 0");
    }
    let out = blend(&[], &rest).unwrap();
    assert_bits(&out[0], &rest[0], "no layers");
    // Below the threshold (0.1) the rest pose takes the missing weight 0.1 - 0.05: joint 1
    // (rest at the origin) gets A's translation * 0.05 / 0.1.
    let out = blend(&[layer(&a, 0.05)], &rest).unwrap();
    assert_vec(
        out[1].translation,
        a[1].translation * 0.5,
        "half way to rest",
    );
    assert_vec(
        out[1].scale,
        (a[1].scale + Vec3::ONE) * 0.5,
        "scale half way",
    );
    // Per joint: a joint weight of 0 on the only layer leaves that joint at rest.
    let jw = [1.0, 0.0];
    let out = blend(
        &[BlendLayer {
            pose: &a,
            weight: 1.0,
            joint_weights: Some(&jw),
        }],
        &rest,
    )
    .unwrap();
    assert_bits(&out[0], &a[0], "joint weight 1");
    assert_bits(&out[1], &rest[1], "joint weight 0");
    // Threshold 0: a tiny weight is enough to take the layer as is.
    let mut out = vec![SENTINEL; 2];
    BlendingJob {
        layers: &[layer(&a, 1e-6)],
        rest_pose: &rest,
        threshold: 0.0,
    }
    .run(&mut out)
    .unwrap();
    assert_bits(&out[0], &a[0], "threshold 0");
}

#[test]
fn blending_validity_matrix() {
    let (a, b) = (pose_a(), pose_b());
    let rest = rest2();
    let short = vec![Transform::IDENTITY; 1];
    let nan_pose = vec![a[0], tr([f32::NAN, 0.0, 0.0], Quat::IDENTITY, [1.0; 3])];
    let bad_rest = vec![a[0], tr([0.0; 3], Quat::IDENTITY, [f32::INFINITY; 3])];
    let jw_short = [1.0];
    let jw_neg = [1.0, -0.5];
    let jw_nan = [f32::NAN, 1.0];
    let with_jw = |jw| BlendLayer {
        pose: &a,
        weight: 1.0,
        joint_weights: Some(jw),
    };
    let (jw_short, jw_neg, jw_nan): (&[f32], &[f32], &[f32]) = (&jw_short, &jw_neg, &jw_nan);
    let cases: Vec<BlendCase> = vec![
        ("output too short", vec![layer(&a, 1.0)], &rest, 0.1, 1),
        ("output too long", vec![layer(&a, 1.0)], &rest, 0.1, 3),
        (
            "layer pose too short",
            vec![layer(&short, 1.0)],
            &rest,
            0.1,
            2,
        ),
        (
            "joint weights too short",
            vec![with_jw(jw_short)],
            &rest,
            0.1,
            2,
        ),
        (
            "negative weight",
            vec![layer(&a, -0.1), layer(&b, 1.0)],
            &rest,
            0.1,
            2,
        ),
        ("NaN weight", vec![layer(&a, f32::NAN)], &rest, 0.1, 2),
        (
            "infinite weight",
            vec![layer(&a, f32::INFINITY)],
            &rest,
            0.1,
            2,
        ),
        (
            "negative joint weight",
            vec![with_jw(jw_neg)],
            &rest,
            0.1,
            2,
        ),
        ("NaN joint weight", vec![with_jw(jw_nan)], &rest, 0.1, 2),
        (
            "NaN in a layer pose",
            vec![layer(&nan_pose, 1.0)],
            &rest,
            0.1,
            2,
        ),
        (
            "infinite rest pose",
            vec![layer(&a, 1.0)],
            &bad_rest,
            0.1,
            2,
        ),
        ("negative threshold", vec![layer(&a, 1.0)], &rest, -0.1, 2),
        ("NaN threshold", vec![layer(&a, 1.0)], &rest, f32::NAN, 2),
    ];
    for (what, layers, rest_pose, threshold, out_len) in cases {
        let mut out = vec![SENTINEL; out_len];
        let r = BlendingJob {
            layers: &layers,
            rest_pose,
            threshold,
        }
        .run(&mut out);
        assert!(r.is_err(), "{what}: accepted");
        assert!(
            out.iter().all(|t| bits(t) == bits(&SENTINEL)),
            "{what}: output written before the error"
        );
    }
    // The valid configuration next to them passes.
    assert!(blend(&[layer(&a, 1.0), layer(&b, 0.0)], &rest).is_ok());
}

// ---------------------------------------------------------------------------------------
// Phase envelope (SPEC 4): 30 deg * sin(2 pi t) blended 50/50 with a copy shifted by phi.

fn sine_clip(phi_deg: f64) -> Clip {
    const KEYS: usize = 2001;
    let times: Vec<f32> = (0..KEYS).map(|i| i as f32 / (KEYS - 1) as f32).collect();
    let values = times
        .iter()
        .map(|&t| {
            let a = 30f64.to_radians()
                * (2.0 * std::f64::consts::PI * f64::from(t) + phi_deg.to_radians()).sin();
            DQuat::from_rotation_x(a).as_quat()
        })
        .collect();
    let mut tracks = JointTracks::new(0);
    tracks.rotation = Some(Track::new(Interpolation::Linear, times, values, "swing").unwrap());
    Clip::new(format!("sine {phi_deg}"), vec![tracks], vec![], 1).unwrap()
}

#[test]
fn phase_envelope_of_two_shifted_sines_is_swept_not_evaluated() {
    const STEPS: usize = 20_000;
    let rest = [Transform::IDENTITY];
    let base = sine_clip(0.0);
    for (phi, expected) in [
        (0.0, 30.0),
        (60.0, 25.98),
        (90.0, 21.21),
        (120.0, 15.00),
        (180.0, 0.00),
    ] {
        let shifted = sine_clip(phi);
        let (mut a, mut b, mut out) = ([SENTINEL], [SENTINEL], [SENTINEL]);
        let mut max_deg = 0.0f64;
        for k in 0..=STEPS {
            let t = k as f32 / STEPS as f32;
            for (clip, pose) in [(&base, &mut a), (&shifted, &mut b)] {
                SamplingJob {
                    clip,
                    time_secs: t,
                    rest_pose: &rest,
                }
                .run(pose)
                .unwrap();
            }
            BlendingJob {
                layers: &[layer(&a, 0.5), layer(&b, 0.5)],
                rest_pose: &rest,
                threshold: BlendingJob::DEFAULT_THRESHOLD,
            }
            .run(&mut out)
            .unwrap();
            max_deg = max_deg.max(angle_deg(out[0].rotation));
        }
        // The SPEC values are rounded to 0.01; the keys (0.18 deg apart at the steepest)
        // and f32 add well under 0.001.
        assert!(
            (max_deg - expected).abs() < 0.01,
            "phi {phi}: swept amplitude {max_deg:.4} deg, SPEC {expected}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Masks

fn demo() -> stridescope::asset::Model {
    stridescope::asset::load_from_slice(
        &stridescope::asset::demo::demo_glb(),
        Path::new("demo.glb"),
    )
    .unwrap()
}

fn sample(clip: &Clip, skeleton: &Skeleton, t: f32) -> Vec<Transform> {
    let mut pose = vec![SENTINEL; skeleton.joint_count()];
    SamplingJob {
        clip,
        time_secs: t,
        rest_pose: skeleton.rest_pose(),
    }
    .run(&mut pose)
    .unwrap();
    pose
}

/// Upper-body mask with the spine ramp: chest (spine_03) and everything above it at 1,
/// pelvis 0.25, spine_01 0.5, spine_02 0.75, root and legs 0.
fn upper_body(skeleton: &Skeleton) -> JointMask {
    JointMask::from_names(
        skeleton,
        &[("spine_03", 1.0)],
        &[("pelvis", 0.25), ("spine_01", 0.5), ("spine_02", 0.75)],
    )
    .unwrap()
}

#[test]
fn mask_ramp_on_the_demo_skeleton() {
    let model = demo();
    let skeleton = &model.skeleton;
    let mask = upper_body(skeleton);
    assert_eq!(mask.joint_count(), skeleton.joint_count());
    let expected = [
        ("root", 0.0),
        ("pelvis", 0.25),
        ("spine_01", 0.5),
        ("spine_02", 0.75),
        ("spine_03", 1.0),
        ("neck", 1.0),
        ("head", 1.0),
        ("clavicle_l", 1.0),
        ("upperarm_l", 1.0),
        ("lowerarm_l", 1.0),
        ("hand_l", 1.0),
        ("clavicle_r", 1.0),
        ("upperarm_r", 1.0),
        ("lowerarm_r", 1.0),
        ("hand_r", 1.0),
        ("thigh_l", 0.0),
        ("calf_l", 0.0),
        ("foot_l", 0.0),
        ("toe_l", 0.0),
        ("thigh_r", 0.0),
        ("calf_r", 0.0),
        ("foot_r", 0.0),
        ("toe_r", 0.0),
    ];
    for (name, w) in expected {
        let j = skeleton.find(name).unwrap();
        assert_eq!(mask.weights()[j], w, "{name}");
    }
    // Later subtrees override earlier ones: upper body without the left arm.
    let s = |n: &str| skeleton.find(n).unwrap();
    let m = JointMask::from_subtrees(skeleton, &[(s("spine_01"), 1.0), (s("clavicle_l"), 0.0)])
        .unwrap();
    for (name, w) in [
        ("spine_01", 1.0),
        ("head", 1.0),
        ("clavicle_l", 0.0),
        ("hand_l", 0.0),
        ("hand_r", 1.0),
        ("pelvis", 0.0),
    ] {
        assert_eq!(m.weights()[s(name)], w, "override: {name}");
    }
    let n = skeleton.joint_count();
    assert!(JointMask::none(n).weights().iter().all(|&w| w == 0.0));
    assert!(JointMask::all(n).weights().iter().all(|&w| w == 1.0));
    assert_eq!(JointMask::all(n).joint_count(), n);
}

#[test]
fn mask_errors_name_the_problem() {
    let model = demo();
    let skeleton = &model.skeleton;
    let err = JointMask::from_names(skeleton, &[("spine1", 1.0)], &[]).unwrap_err();
    match &err {
        stridescope::anim::AnimError::UnknownJoint {
            what: "mask",
            name,
            closest,
        } => {
            assert_eq!(name, "spine1");
            assert_eq!(closest.len(), 4);
        }
        other => panic!("{other:?}"),
    }
    let err = err.to_string();
    assert!(err.contains("'spine1'"), "{err}");
    assert!(err.contains("spine_01"), "no close names in: {err}");
    let err = JointMask::from_names(skeleton, &[], &[("Pelvis", 0.5)])
        .unwrap_err()
        .to_string();
    assert!(err.contains("'Pelvis'") && err.contains("pelvis"), "{err}");
    let n = skeleton.joint_count();
    assert!(JointMask::from_subtrees(skeleton, &[(n, 1.0)]).is_err());
    assert!(JointMask::from_subtrees(skeleton, &[(0, 1.5)]).is_err());
    assert!(JointMask::from_subtrees(skeleton, &[(0, -0.1)]).is_err());
    assert!(JointMask::none(n).with_ramp(&[(1, f32::NAN)]).is_err());
    assert!(JointMask::none(n).with_ramp(&[(n, 0.5)]).is_err());
    assert!(JointMask::from_names(skeleton, &[("head", 2.0)], &[]).is_err());
}

#[test]
fn masked_joints_take_the_base_exactly() {
    let model = demo();
    let skeleton = &model.skeleton;
    let walk = &model.clips[model.find_clip("Walk").unwrap()];
    let run = &model.clips[model.find_clip("Run").unwrap()];
    let base = sample(walk, skeleton, 0.3);
    let overlay = sample(run, skeleton, 0.2);
    let mask = upper_body(skeleton);
    let rest = skeleton.rest_pose();
    let masked = blend(
        &[
            layer(&base, 1.0),
            BlendLayer {
                pose: &overlay,
                weight: 1.0,
                joint_weights: Some(mask.weights()),
            },
        ],
        rest,
    )
    .unwrap();
    let unmasked = blend(&[layer(&base, 1.0), layer(&overlay, 1.0)], rest).unwrap();
    let mut checked = [0; 3];
    for (j, &m) in mask.weights().iter().enumerate() {
        let name = &skeleton.names()[j];
        if m == 0.0 {
            // Masked: the difference to the base is exactly 0.0.
            assert_bits(&masked[j], &base[j], name);
            let d = masked[j].translation - base[j].translation;
            assert_eq!(d.to_array().map(f32::to_bits), [0; 3], "{name}");
            checked[0] += 1;
        } else if m == 1.0 {
            assert_bits(&masked[j], &unmasked[j], name);
            checked[1] += 1;
        } else {
            // Ramp: base weight 1 and overlay weight m, normalised by 1 + m.
            let t = base[j].translation / (1.0 + m) + overlay[j].translation * (m / (1.0 + m));
            assert_vec(masked[j].translation, t, name);
            checked[2] += 1;
        }
    }
    // Masked: root, the 8 leg joints and the non-bone nodes the demo file has (its mesh
    // node); 11 upper-body joints at 1; 3 ramp joints.
    let n = skeleton.joint_count();
    assert!(n >= 23, "{n}");
    assert_eq!(checked, [n - 14, 11, 3]);
    // The walk and run poses differ on the masked joints, so the check above is not
    // trivially true.
    let thigh = skeleton.find("thigh_l").unwrap();
    assert!(!overlay[thigh]
        .rotation
        .abs_diff_eq(base[thigh].rotation, 1e-3));
}

// ---------------------------------------------------------------------------------------
// Additive layers

fn additive(
    base: &[Transform],
    add: &[Transform],
    reference: &[Transform],
    weight: f32,
    joint_weights: Option<&[f32]>,
) -> Result<Vec<Transform>, AnimError> {
    let mut out = vec![SENTINEL; base.len()];
    AdditiveJob {
        base,
        additive: add,
        reference,
        weight,
        joint_weights,
    }
    .run(&mut out)?;
    Ok(out)
}

#[test]
fn additive_weight_zero_restores_the_base_exactly() {
    let base = pose_a();
    let add = pose_b();
    let reference = rest2();
    let out = additive(&base, &add, &reference, 0.0, None).unwrap();
    for j in 0..2 {
        assert_bits(&out[j], &base[j], "weight 0");
    }
    let jw = [0.0, 1.0];
    let out = additive(&base, &add, &reference, 1.0, Some(&jw)).unwrap();
    assert_bits(&out[0], &base[0], "joint weight 0");
    assert!(
        bits(&out[1]) != bits(&base[1]),
        "joint weight 1 adds the layer"
    );
}

#[test]
fn additive_angle_is_linear_in_weight_on_any_base() {
    // The layer: 35 degrees about X relative to its reference (which is itself rotated, so
    // the layer pose is Ry(10) * Rx(35) and only the difference counts).
    let reference = [tr([0.0; 3], ry(10.0), [1.0; 3])];
    let add = [tr([0.0; 3], ry(10.0) * rx(35.0), [1.0; 3])];
    for base_rot in [Quat::IDENTITY, rz(50.0) * ry(-70.0)] {
        let base = [tr([0.3, 0.2, 0.1], base_rot, [1.0; 3])];
        for (w, expected) in [
            (0.0, 0.0),
            (0.5, 17.5),
            (1.0, 35.0),
            (1.5, 52.5),
            (-1.0, 35.0),
        ] {
            let out = additive(&base, &add, &reference, w, None).unwrap();
            // The offset in the joint's frame: base^-1 * out.
            let offset = base_rot.conjugate() * out[0].rotation;
            let got = angle_deg(offset);
            assert!(
                (got - expected).abs() < 1e-4,
                "base {base_rot}, w {w}: {got} deg, expected {expected}"
            );
            if w != 0.0 {
                // About +X (or -X for a negative weight).
                let axis = offset.xyz().normalize() * offset.w.signum();
                let x = if w > 0.0 { Vec3::X } else { -Vec3::X };
                assert_vec(axis, x, "axis");
            }
        }
    }
}

#[test]
fn additive_is_right_multiplied() {
    // Base turned 90 degrees about Y; the layer adds 35 degrees about X.
    let base = [tr([0.0; 3], ry(90.0), [1.0; 3])];
    let reference = [Transform::IDENTITY];
    let add = [tr([0.0; 3], rx(35.0), [1.0; 3])];
    let out = additive(&base, &add, &reference, 1.0, None).unwrap()[0].rotation;
    assert_rot(out, ry(90.0) * rx(35.0), "q_base * delta");
    // Seen from the parent, the right-multiplied offset turns about the base's own X axis,
    // Ry(90) * X = -Z; left-multiplying (delta * q_base) would turn about the parent's X.
    let in_parent = out * base[0].rotation.conjugate();
    let axis = in_parent.xyz().normalize() * in_parent.w.signum();
    assert_vec(
        axis,
        Vec3::NEG_Z,
        "right-multiplied axis in the parent frame",
    );
    let left = rx(35.0) * ry(90.0);
    let left_in_parent = left * base[0].rotation.conjugate();
    let left_axis = left_in_parent.xyz().normalize() * left_in_parent.w.signum();
    assert_vec(left_axis, Vec3::X, "left-multiplied axis");
    assert!(out.dot(left).abs() < 0.99, "the two orders must differ");
}

#[test]
fn additive_translation_is_linear_and_scale_multiplicative() {
    let base = [tr([1.0, 2.0, 3.0], Quat::IDENTITY, [2.0; 3])];
    let reference = [tr([0.0, 1.0, 0.0], Quat::IDENTITY, [1.0, 1.0, 0.0])];
    let add = [tr([0.5, 1.0, -1.0], Quat::IDENTITY, [1.5, 1.0, 3.0])];
    // delta translation (0.5, 0, -1); scale factor (1.5, 1, 1) (z: zero reference -> 1).
    for (w, t, sx) in [
        (2.0, [2.0, 2.0, 1.0], 4.5),
        (-1.0, [0.5, 2.0, 4.0], 2.0 / 1.5),
        (0.5, [1.25, 2.0, 2.5], 2.0 * 1.5f32.sqrt()),
        (1.0, [1.5, 2.0, 2.0], 3.0),
    ] {
        let out = additive(&base, &add, &reference, w, None).unwrap();
        assert_vec(out[0].translation, Vec3::from_array(t), "translation");
        assert_vec(out[0].scale, Vec3::new(sx, 2.0, 2.0), "scale");
    }
}

#[test]
fn additive_delta_reapplied_on_the_reference_gives_the_layer() {
    let (add, reference) = (pose_b(), pose_a());
    let mut deltas = vec![SENTINEL; 2];
    additive_delta(&add, &reference, &mut deltas).unwrap();
    for j in 0..2 {
        let back = reference[j].apply_delta(&deltas[j], 1.0);
        assert_vec(back.translation, add[j].translation, "translation");
        assert_rot(back.rotation, add[j].rotation, "rotation");
        assert_vec(back.scale, add[j].scale, "scale");
    }
    assert!(additive_delta(&add, &reference[..1], &mut deltas).is_err());
    assert!(additive_delta(&add, &reference, &mut deltas[..1]).is_err());
}

#[test]
fn additive_validity_matrix() {
    let (a, b) = (pose_a(), pose_b());
    let rest = rest2();
    let short = &a[..1];
    let nan_pose = vec![
        a[0],
        tr([0.0; 3], Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), [1.0; 3]),
    ];
    let cases: Vec<AdditiveCase> = vec![
        ("additive too short", &a, short, &rest, 1.0, None, 2),
        ("reference too short", &a, &b, short, 1.0, None, 2),
        ("output too short", &a, &b, &rest, 1.0, None, 1),
        ("NaN weight", &a, &b, &rest, f32::NAN, None, 2),
        ("infinite weight", &a, &b, &rest, f32::INFINITY, None, 2),
        (
            "joint weights too short",
            &a,
            &b,
            &rest,
            1.0,
            Some(&[1.0]),
            2,
        ),
        (
            "negative joint weight",
            &a,
            &b,
            &rest,
            1.0,
            Some(&[1.0, -1.0]),
            2,
        ),
        (
            "NaN joint weight",
            &a,
            &b,
            &rest,
            1.0,
            Some(&[f32::NAN, 1.0]),
            2,
        ),
        ("NaN in the base", &nan_pose, &b, &rest, 1.0, None, 2),
        ("NaN in the layer", &a, &nan_pose, &rest, 1.0, None, 2),
        ("NaN in the reference", &a, &b, &nan_pose, 1.0, None, 2),
    ];
    for (what, base, add, reference, weight, joint_weights, out_len) in cases {
        let mut out = vec![SENTINEL; out_len];
        let r = AdditiveJob {
            base,
            additive: add,
            reference,
            weight,
            joint_weights,
        }
        .run(&mut out);
        assert!(r.is_err(), "{what}: accepted");
        assert!(
            out.iter().all(|t| bits(t) == bits(&SENTINEL)),
            "{what}: output written before the error"
        );
    }
    // Negative and above-one weights are valid for additive layers.
    assert!(additive(&a, &b, &rest, -1.0, None).is_ok());
    assert!(additive(&a, &b, &rest, 1.5, Some(&[1.0, 0.5])).is_ok());
}
