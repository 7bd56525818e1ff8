//! The structure-of-arrays pose pipeline (`SoaBlendingJob`, `SoaLocalToModelJob`, the SoA
//! pose conversions) against the per-joint jobs, which `tests/blending.rs` and
//! `tests/hierarchy_skinning.rs` check against hand-computed values. The SoA sampler is
//! checked in `tests/sampling.rs`.

use std::path::Path;

use glam::{EulerRot, Mat4, Quat, Vec3, Vec4};
use stridescope::anim::blend::blending::{BlendLayer, BlendingJob};
use stridescope::anim::blend::soa::{soa_joint_weights, SoaBlendLayer, SoaBlendingJob};
use stridescope::anim::soa::{
    soa_from_transforms, soa_len, to_soa, transforms_from_soa, SoaTransform,
};
use stridescope::anim::{
    AnimError, LocalToModelJob, SamplingCache, SamplingJob, SoaLocalToModelJob, SoaSamplingJob,
    Transform,
};
use stridescope::asset::Model;

fn load(rel: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    stridescope::asset::load(&path).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn sample(model: &Model, clip: &str, t: f32) -> Vec<Transform> {
    let clip = &model.clips[model
        .find_clip(clip)
        .unwrap_or_else(|| panic!("no clip {clip}"))];
    let mut pose = vec![Transform::IDENTITY; model.skeleton.joint_count()];
    SamplingJob {
        clip,
        time_secs: t,
        rest_pose: model.skeleton.rest_pose(),
    }
    .run(&mut pose)
    .unwrap();
    pose
}

fn unpack(pose: &[SoaTransform], n: usize) -> Vec<Transform> {
    let mut out = vec![Transform::IDENTITY; n];
    transforms_from_soa(pose, &mut out).unwrap();
    out
}

/// Every component of every joint bit for bit (so `-0.0` and `0.0` differ): the SoA jobs
/// run the per-joint jobs' operations in the same order, and a pose graph may use either.
fn assert_same_pose(got: &[Transform], want: &[Transform], what: &str) {
    assert_eq!(got.len(), want.len());
    let bits = |t: &Transform| {
        let [a, b, c] = t.translation.to_array().map(f32::to_bits);
        let [d, e, f, g] = t.rotation.to_array().map(f32::to_bits);
        let [h, i, k] = t.scale.to_array().map(f32::to_bits);
        [a, b, c, d, e, f, g, h, i, k]
    };
    for (j, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            bits(g),
            bits(w),
            "{what}: joint {j}: SoA {g:?} vs per-joint {w:?}"
        );
    }
}

/// Two Robot poses (walking and running), the second with every other joint's rotation
/// stored with the opposite sign (the same rotation: the blend must flip it back), and a
/// non-uniform scale on a few joints.
fn robot_layers(model: &Model) -> (Vec<Transform>, Vec<Transform>) {
    let a = sample(model, "Robot_Walking", 0.3);
    let mut b = sample(model, "Robot_Running", 0.61);
    for (j, t) in b.iter_mut().enumerate() {
        if j % 2 == 1 {
            t.rotation = -t.rotation;
        }
        if j % 7 == 3 {
            t.scale *= Vec3::new(1.5, 0.5, 2.0);
        }
    }
    (a, b)
}

/// Per-joint weights that cover 0, 1 and fractions.
fn mask(n: usize, phase: usize) -> Vec<f32> {
    (0..n)
        .map(|j| [0.0, 1.0, 0.5, 0.25, 0.0, 2.0][(j + phase) % 6])
        .collect()
}

#[test]
fn soa_blend_matches_the_per_joint_blend() {
    let model = load("assets/Robot/robot.glb");
    let rest = model.skeleton.rest_pose();
    let n = rest.len();
    let (a, b) = robot_layers(&model);
    let c = sample(&model, "Robot_Idle", 0.8);
    let mut d = sample(&model, "Robot_Running", 0.2);
    for t in d.iter_mut().step_by(3) {
        t.rotation = -t.rotation;
    }
    let (sa, sb, sc, srest) = (to_soa(&a), to_soa(&b), to_soa(&c), to_soa(rest));
    let sd = to_soa(&d);
    let (ma, mb) = (mask(n, 0), mask(n, 3));
    let (sma, smb) = (soa_joint_weights(&ma), soa_joint_weights(&mb));
    // Weights need not sum to 1 (0.3 + 0.9, 0.6 + 0.9 + 0.3): the jobs normalise.
    let weight_sets: [&[f32]; 10] = [
        &[0.5, 0.5],
        &[0.3, 0.9],
        &[1.0, 0.0],
        &[0.0, 1.0],
        &[0.04, 0.03],
        &[0.0, 0.0],
        &[0.2, 0.5, 0.3],
        &[0.6, 0.9, 0.3],
        &[0.05, 0.0, 0.02],
        // Three contributors after a layer of weight 0 (the first decides the hemisphere).
        &[0.0, 0.5, 0.3, 0.2],
    ];
    let mut cases = 0;
    for weights in weight_sets {
        for with_masks in [false, true] {
            for threshold in [0.1, 0.0] {
                let poses = [&a, &b, &c, &d];
                let soa_poses = [&sa, &sb, &sc, &sd];
                let layers: Vec<BlendLayer> = weights
                    .iter()
                    .enumerate()
                    .map(|(i, &w)| BlendLayer {
                        pose: poses[i],
                        weight: w,
                        joint_weights: with_masks.then(|| if i == 0 { &ma[..] } else { &mb[..] }),
                    })
                    .collect();
                let soa_layers: Vec<SoaBlendLayer> = weights
                    .iter()
                    .enumerate()
                    .map(|(i, &w)| SoaBlendLayer {
                        pose: soa_poses[i],
                        weight: w,
                        joint_weights: with_masks.then(|| if i == 0 { &sma[..] } else { &smb[..] }),
                    })
                    .collect();
                let mut want = vec![Transform::IDENTITY; n];
                BlendingJob {
                    layers: &layers,
                    rest_pose: rest,
                    threshold,
                }
                .run(&mut want)
                .unwrap();
                let mut got = vec![SoaTransform::IDENTITY; soa_len(n)];
                SoaBlendingJob {
                    layers: &soa_layers,
                    rest_pose: &srest,
                    threshold,
                }
                .run(&mut got)
                .unwrap();
                let what =
                    format!("weights {weights:?}, masks {with_masks}, threshold {threshold}");
                let got = unpack(&got, n);
                assert_same_pose(&got, &want, &what);
                // SPEC 4's exact cases hold bit for bit, rotations included.
                if !with_masks && threshold > 0.0 {
                    match weights {
                        [1.0, 0.0] => assert_eq!(got, a, "{what}"),
                        [0.0, 1.0] => assert_eq!(got, b, "{what}"),
                        [0.0, 0.0] => assert_eq!(got, rest, "{what}"),
                        [0.5, 0.5] => {
                            for j in 0..n {
                                assert_eq!(
                                    got[j].translation,
                                    (a[j].translation + b[j].translation) * 0.5
                                );
                            }
                        }
                        _ => {}
                    }
                }
                if with_masks && weights.len() == 2 && weights[0] > 0.1 && weights[1] > 0.1 {
                    // Joint 0: mask a 0, mask b 0.25 (phase 3): b alone, copied exactly.
                    assert_eq!(
                        got[0], b[0],
                        "{what}: joint 0 copies the single contributor"
                    );
                    // Joint 4: both masks 0 -> rest.
                    assert_eq!(got[4], rest[4], "{what}: joint 4 falls back to rest");
                }
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 40);
}

#[test]
fn soa_blend_reports_non_finite_values_that_reach_the_output() {
    let model = load("assets/Fox/Fox.glb");
    let rest = model.skeleton.rest_pose();
    let n = rest.len();
    let a = sample(&model, "Walk", 0.2);
    let b = sample(&model, "Run", 0.5);
    let run = |a: &[Transform], b: &[Transform], rest: &[Transform], wa: f32, wb: f32| {
        let (sa, sb, sr) = (to_soa(a), to_soa(b), to_soa(rest));
        let layers = [
            SoaBlendLayer {
                pose: &sa,
                weight: wa,
                joint_weights: None,
            },
            SoaBlendLayer {
                pose: &sb,
                weight: wb,
                joint_weights: None,
            },
        ];
        let mut out = vec![SoaTransform::IDENTITY; soa_len(n)];
        let r = SoaBlendingJob {
            layers: &layers,
            rest_pose: &sr,
            threshold: 0.1,
        }
        .run(&mut out);
        (r, unpack(&out, n))
    };
    // An error naming the input, and the rest pose written.
    let rejected = |(r, out): (Result<(), AnimError>, Vec<Transform>), what: &str| {
        assert_eq!(r, Err(AnimError::NonFinite { what: what.into() }));
        assert_eq!(out, rest, "{what}");
    };
    // A NaN in a contributing layer.
    let mut bad = b.clone();
    bad[9].translation.y = f32::NAN;
    rejected(run(&a, &bad, rest, 0.5, 0.5), "blend layer 1 pose, joint 9");
    // A NaN rotation in the second layer: the rotation sum is NaN, not small, so it is
    // no fallback to the first layer's rotation but an error.
    let mut bad_b = b.clone();
    bad_b[6].rotation = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
    rejected(
        run(&a, &bad_b, rest, 0.5, 0.5),
        "blend layer 1 pose, joint 6",
    );
    // An infinite rotation in the first layer, the general path (below the threshold).
    let mut bad_a = a.clone();
    bad_a[13].rotation = Quat::from_xyzw(f32::INFINITY, 0.0, 0.0, 1.0);
    rejected(
        run(&bad_a, &b, rest, 0.03, 0.04),
        "blend layer 0 pose, joint 13",
    );
    // The same NaN in a layer of weight 0 is never read.
    let (r, out) = run(&a, &bad, rest, 1.0, 0.0);
    assert_eq!(r, Ok(()));
    assert_eq!(out, a);
    // A rest pose with an infinite joint: harmless while no joint falls back to it ...
    let mut bad_rest = rest.to_vec();
    bad_rest[3].scale.x = f32::INFINITY;
    let (r, _) = run(&a, &b, &bad_rest, 0.5, 0.5);
    assert_eq!(r, Ok(()));
    // ... an error once the weights drop below the threshold and it is blended in.
    let (r, out) = run(&a, &b, &bad_rest, 0.02, 0.03);
    assert_eq!(
        r,
        Err(AnimError::NonFinite {
            what: "blend rest pose, joint 3".into()
        })
    );
    assert_eq!(
        out[3].scale.x,
        f32::INFINITY,
        "the output is the rest pose as given"
    );
    // Huge but finite translations overflow the running check's sum, not the blend: the
    // exact re-check accepts them.
    let mut huge_a = a.clone();
    let mut huge_b = b.clone();
    for t in huge_a.iter_mut().chain(huge_b.iter_mut()) {
        t.translation = Vec3::splat(3.0e38);
    }
    let (r, out) = run(&huge_a, &huge_b, rest, 0.5, 0.5);
    assert_eq!(r, Ok(()));
    assert!(out.iter().all(|t| t.translation == Vec3::splat(3.0e38)));
}

#[test]
fn soa_blend_validity() {
    let rest = to_soa(&[Transform::IDENTITY; 6]);
    let pose = rest.clone();
    let short = vec![SoaTransform::IDENTITY; 1];
    let w_nan = soa_joint_weights(&[1.0, f32::NAN, 1.0, 1.0, 1.0, 1.0]);
    let w_neg = soa_joint_weights(&[1.0, 1.0, 1.0, 1.0, 1.0, -0.5]);
    let w_short = vec![Vec4::ONE; 1];
    let layer =
        |pose: &'static [SoaTransform], weight: f32, jw: Option<&'static [Vec4]>| SoaBlendLayer {
            pose,
            weight,
            joint_weights: jw,
        };
    let leak = |v: Vec<SoaTransform>| -> &'static [SoaTransform] { Vec::leak(v) };
    let leak_w = |v: Vec<Vec4>| -> &'static [Vec4] { Vec::leak(v) };
    let (pose, short) = (leak(pose), leak(short));
    let (w_nan, w_neg, w_short) = (leak_w(w_nan), leak_w(w_neg), leak_w(w_short));
    let cases: Vec<(&str, Vec<SoaBlendLayer>, f32, usize, &str)> = vec![
        (
            "output too short",
            vec![layer(pose, 1.0, None)],
            0.1,
            1,
            "SoA blend output: expected 2 elements, got 1",
        ),
        (
            "layer too short",
            vec![layer(short, 1.0, None)],
            0.1,
            2,
            "SoA blend layer pose: expected 2 elements, got 1",
        ),
        (
            "negative weight",
            vec![layer(pose, -1.0, None)],
            0.1,
            2,
            "blend layer 0 weight: -1 is negative; blend weights must be >= 0",
        ),
        (
            "NaN weight",
            vec![layer(pose, 1.0, None), layer(pose, f32::NAN, None)],
            0.1,
            2,
            "blend layer 1 weight: value is not finite",
        ),
        (
            "NaN joint weight",
            vec![layer(pose, 1.0, Some(w_nan))],
            0.1,
            2,
            "blend layer 0 joint weight 1: value is not finite",
        ),
        (
            "negative joint weight",
            vec![layer(pose, 1.0, Some(w_neg))],
            0.1,
            2,
            "blend layer 0 joint weight 5: -0.5 is negative; blend weights must be >= 0",
        ),
        (
            "joint weights too short",
            vec![layer(pose, 1.0, Some(w_short))],
            0.1,
            2,
            "SoA blend layer joint weights: expected 2 elements, got 1",
        ),
        (
            "negative threshold",
            vec![layer(pose, 1.0, None)],
            -0.1,
            2,
            "blend threshold: -0.1 must be finite and >= 0",
        ),
    ];
    let marker = SoaTransform {
        translation: [Vec4::splat(7.0); 3],
        ..SoaTransform::IDENTITY
    };
    for (what, layers, threshold, out_len, message) in cases {
        let mut out = vec![marker; out_len];
        let err = SoaBlendingJob {
            layers: &layers,
            rest_pose: &rest,
            threshold,
        }
        .run(&mut out)
        .unwrap_err();
        assert_eq!(err.to_string(), message, "{what}");
        assert!(out.iter().all(|t| *t == marker), "{what}: nothing written");
    }
}

#[test]
fn soa_local_to_model_is_bit_identical_to_the_per_joint_job() {
    let placed = Mat4::from_scale_rotation_translation(
        Vec3::new(0.01, 0.01, 0.01),
        Quat::from_euler(EulerRot::YXZ, 0.4, -0.2, 0.1),
        Vec3::new(3.0, -1.0, 250.0),
    );
    let mut checked = 0;
    for (file, clip, t) in [
        ("assets/Robot/robot.glb", "Robot_Running", 0.37),
        ("assets/Fox/Fox.glb", "Survey", 1.1),
        ("mocap/bandai/dataset-2_walk_normal_002.bvh", "", 0.9),
        ("fbx/ufbx/blender_293_barbarian_7400_binary.fbx", "", 0.5),
    ] {
        let model = load(file);
        let sk = &model.skeleton;
        let n = sk.joint_count();
        let clip = if clip.is_empty() {
            model.clips[0].name().to_string()
        } else {
            clip.to_string()
        };
        let mut local = sample(&model, &clip, t);
        // Non-uniform scale on a few joints (the product has no shear to lose: both jobs
        // build the same matrices).
        for (j, tr) in local.iter_mut().enumerate() {
            if j % 5 == 2 {
                tr.scale *= Vec3::new(1.3, 0.7, 1.1);
            }
        }
        for model_from_root in [Mat4::IDENTITY, placed] {
            let mut want = vec![Mat4::ZERO; n];
            LocalToModelJob {
                parents: sk.parents(),
                local: &local,
                model_from_root,
            }
            .run(&mut want)
            .unwrap();
            let mut got = vec![Mat4::ZERO; n];
            SoaLocalToModelJob {
                parents: sk.parents(),
                local: &to_soa(&local),
                model_from_root,
            }
            .run(&mut got)
            .unwrap();
            assert_eq!(got, want, "{file}");
            checked += 1;
        }
    }
    assert_eq!(checked, 8);
}

/// Weighted sums start at -0, the identity of IEEE addition, as ozz-animation's blend
/// (which starts from the first layer): inputs whose component is -0 blend to -0 in every
/// path of both jobs (a start at +0 gives +0: `+0 + -0` is `+0`). A layer that does not
/// contribute to a joint (joint weight 0) leaves its sums as they are, even where its
/// value is not -0.
#[test]
fn blended_sums_start_at_minus_zero_in_every_path() {
    let z = -0.0f32;
    // Translation x, rotation x and z, scale y are -0 in every input; the rest is plain.
    let t = |ty: f32, w: f32| Transform {
        translation: Vec3::new(z, ty, 1.0),
        rotation: Quat::from_xyzw(z, w, z, (1.0 - w * w).sqrt()),
        scale: Vec3::new(1.0, z, 2.0),
    };
    let n = 5;
    let a = vec![t(0.5, 0.2); n];
    let b = vec![t(-1.5, -0.6); n];
    let rest = vec![t(2.0, 0.1); n];
    // A layer whose values are not -0 (translation x -0.5, scale y 3): masked off at joints
    // 0, 2 and 4, where it must change nothing (`-0.5 * 0` is -0 but `3 * 0` is +0).
    let other = vec![
        Transform {
            translation: Vec3::new(-0.5, 0.0, 0.0),
            rotation: Quat::from_xyzw(0.6, 0.0, 0.0, 0.8),
            scale: Vec3::new(1.0, 3.0, 1.0),
        };
        n
    ];
    let off_even: Vec<f32> = (0..n).map(|j| (j % 2) as f32).collect();
    let ones = vec![1.0f32; n];
    let (sa, sb, srest, sother) = (to_soa(&a), to_soa(&b), to_soa(&rest), to_soa(&other));
    let (s_off, s_ones) = (soa_joint_weights(&off_even), soa_joint_weights(&ones));
    type Case<'a> = (&'a str, Vec<(&'a [Transform], f32, Option<&'a [f32]>)>);
    let cases: Vec<Case> = vec![
        ("two layers", vec![(&a, 0.3, None), (&b, 0.7, None)]),
        (
            "three layers",
            vec![(&a, 0.3, None), (&b, 0.5, None), (&rest, 0.2, None)],
        ),
        (
            "below the threshold",
            vec![(&a, 0.02, None), (&b, 0.03, None)],
        ),
        (
            "joint weights",
            vec![(&a, 0.3, Some(&ones)), (&b, 0.7, Some(&ones))],
        ),
        (
            "a layer masked off first",
            vec![
                (&other, 0.5, Some(&off_even)),
                (&a, 0.3, None),
                (&b, 0.7, None),
            ],
        ),
    ];
    for (what, layers) in cases {
        let per_joint: Vec<BlendLayer> = layers
            .iter()
            .map(|&(pose, weight, joint_weights)| BlendLayer {
                pose,
                weight,
                joint_weights,
            })
            .collect();
        let mut want = vec![Transform::IDENTITY; n];
        BlendingJob {
            layers: &per_joint,
            rest_pose: &rest,
            threshold: BlendingJob::DEFAULT_THRESHOLD,
        }
        .run(&mut want)
        .unwrap();
        let soa_of = |pose: &[Transform]| -> &[SoaTransform] {
            [(&a, &sa), (&b, &sb), (&rest, &srest), (&other, &sother)]
                .into_iter()
                .find(|(p, _)| p.as_ptr() == pose.as_ptr())
                .map(|(_, s)| &s[..])
                .unwrap()
        };
        let soa_layers: Vec<SoaBlendLayer> = layers
            .iter()
            .map(|&(pose, weight, joint_weights)| SoaBlendLayer {
                pose: soa_of(pose),
                weight,
                joint_weights: joint_weights.map(|w| {
                    if w.as_ptr() == ones.as_ptr() {
                        &s_ones[..]
                    } else {
                        &s_off[..]
                    }
                }),
            })
            .collect();
        let mut got = srest.clone();
        SoaBlendingJob {
            layers: &soa_layers,
            rest_pose: &srest,
            threshold: SoaBlendingJob::DEFAULT_THRESHOLD,
        }
        .run(&mut got)
        .unwrap();
        let got = unpack(&got, n);
        assert_same_pose(&got, &want, what);
        for (j, x) in want.iter().enumerate() {
            if what == "a layer masked off first" && j % 2 == 1 {
                // The layer contributes here: 0.5 / 1.5 of -0.5 is in translation x.
                assert!(x.translation.x < -0.16, "{what}, joint {j}: {x:?}");
                continue;
            }
            let minus_zero = (-0.0f32).to_bits();
            for (c, v) in [
                ("translation x", x.translation.x),
                ("rotation x", x.rotation.x),
                ("rotation z", x.rotation.z),
                ("scale y", x.scale.y),
            ] {
                assert_eq!(v.to_bits(), minus_zero, "{what}, joint {j}, {c}: {v}");
            }
        }
    }
    // A masked-off joint adds -0 only for a finite value: a NaN there still reaches the
    // output's check where two other layers blend (the per-joint job rejects it too), and
    // the output is the rest pose.
    let mut bad = other.clone();
    bad[2].translation.y = f32::NAN;
    let sbad = to_soa(&bad);
    let layers = [
        SoaBlendLayer {
            pose: &sbad,
            weight: 0.5,
            joint_weights: Some(&s_off),
        },
        SoaBlendLayer {
            pose: &sa,
            weight: 0.3,
            joint_weights: None,
        },
        SoaBlendLayer {
            pose: &sb,
            weight: 0.2,
            joint_weights: None,
        },
    ];
    let mut got = sa.clone();
    let r = SoaBlendingJob {
        layers: &layers,
        rest_pose: &srest,
        threshold: SoaBlendingJob::DEFAULT_THRESHOLD,
    }
    .run(&mut got);
    assert_eq!(
        r,
        Err(AnimError::NonFinite {
            what: "blend layer 0 pose, joint 2".into()
        })
    );
    assert_eq!(got, srest);
}

#[test]
fn soa_local_to_model_validity() {
    let local = to_soa(&[Transform::IDENTITY; 5]);
    let marker = Mat4::from_diagonal(Vec4::splat(7.0));
    let root = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
    // A parent after its child, a parent past the end, a joint its own parent: each stops
    // both jobs at that joint (not before: the joints ahead of it are fine), and neither
    // leaves a partly placed pose behind: every matrix is the root placement.
    let cases: [([Option<usize>; 5], usize, usize); 3] = [
        ([None, Some(0), Some(3), Some(1), Some(2)], 2, 3),
        (
            [None, Some(0), Some(1), Some(usize::MAX), Some(0)],
            3,
            usize::MAX,
        ),
        ([None, Some(0), Some(1), Some(2), Some(4)], 4, 4),
    ];
    for (parents_bad, joint, parent) in cases {
        let want = AnimError::ParentOrder { joint, parent };
        let mut out = vec![marker; 5];
        let err = SoaLocalToModelJob {
            parents: &parents_bad,
            local: &local,
            model_from_root: root,
        }
        .run(&mut out)
        .unwrap_err();
        assert_eq!(err, want, "SoA job, {parents_bad:?}");
        assert!(
            out.iter().all(|m| *m == root),
            "SoA job, {parents_bad:?}: {out:?}"
        );
        let mut out = vec![marker; 5];
        let err = LocalToModelJob {
            parents: &parents_bad,
            local: &[Transform::IDENTITY; 5],
            model_from_root: root,
        }
        .run(&mut out)
        .unwrap_err();
        assert_eq!(err, want, "per-joint job, {parents_bad:?}");
        assert!(
            out.iter().all(|m| *m == root),
            "per-joint job, {parents_bad:?}: {out:?}"
        );
    }
    let mut out = vec![marker; 5];
    let parents = [None, Some(0), Some(1), Some(1), Some(0)];
    let err = SoaLocalToModelJob {
        parents: &parents,
        local: &local[..1],
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut out)
    .unwrap_err();
    assert!(
        matches!(
            err,
            AnimError::LengthMismatch {
                expected: 2,
                actual: 1,
                ..
            }
        ),
        "{err}"
    );
    let err = SoaLocalToModelJob {
        parents: &parents,
        local: &local,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut out[..4])
    .unwrap_err();
    assert!(
        matches!(
            err,
            AnimError::LengthMismatch {
                expected: 5,
                actual: 4,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn soa_pose_conversions_round_trip_with_identity_padding() {
    let pose: Vec<Transform> = (0..7)
        .map(|j| Transform {
            translation: Vec3::new(j as f32, -2.0 * j as f32, 0.5),
            rotation: Quat::from_rotation_z(0.3 * j as f32),
            scale: Vec3::new(1.0, 2.0, 3.0 + j as f32),
        })
        .collect();
    let soa = to_soa(&pose);
    assert_eq!(soa.len(), 2);
    // Joint 5 is lane 1 of block 1; its components sit in lane 1 of each vector.
    assert_eq!(soa[1].translation[0].y, 5.0);
    assert_eq!(soa[1].scale[2].y, 8.0);
    assert_eq!(soa[1].lane(3), Transform::IDENTITY);
    assert_eq!(unpack(&soa, 7), pose);
    let mut wrong = vec![SoaTransform::IDENTITY; 3];
    assert!(soa_from_transforms(&pose, &mut wrong).is_err());
    let mut out = vec![Transform::IDENTITY; 9];
    assert!(transforms_from_soa(&soa, &mut out).is_err());
}

#[test]
fn the_soa_pipeline_follows_the_per_joint_pipeline_over_a_long_run() {
    // Two clips of different lengths sampled with caches, cross-faded with a weight that
    // sweeps 0..1, placed in the world: ten minutes at 60 Hz. Both pipelines give the same
    // model-space matrices on every frame, bit for bit.
    let model = load("assets/Robot/robot.glb");
    let sk = &model.skeleton;
    let n = sk.joint_count();
    let walk = &model.clips[model.find_clip("Robot_Walking").unwrap()];
    let jump = &model.clips[model.find_clip("Robot_Jump").unwrap()];
    let (mut ca, mut cb, mut sca, mut scb) = (
        SamplingCache::new(),
        SamplingCache::new(),
        SamplingCache::new(),
        SamplingCache::new(),
    );
    let (mut a, mut b, mut blended) = (
        vec![Transform::IDENTITY; n],
        vec![Transform::IDENTITY; n],
        vec![Transform::IDENTITY; n],
    );
    let nb = soa_len(n);
    let (mut sa, mut sb, mut sblended) = (
        vec![SoaTransform::IDENTITY; nb],
        vec![SoaTransform::IDENTITY; nb],
        vec![SoaTransform::IDENTITY; nb],
    );
    let (mut want, mut got) = (vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]);
    for frame in 0..36_000u32 {
        let t = frame as f64 / 60.0;
        let (ta, tb) = (
            (t % walk.duration_secs() as f64) as f32,
            (t % jump.duration_secs() as f64) as f32,
        );
        let w = (0.5 + 0.5 * (t * 0.7).sin()) as f32;
        // Placed within a few metres of the origin (far away, f32 positions themselves
        // round to more than the tolerance).
        let world = Mat4::from_rotation_translation(
            Quat::from_rotation_y(t as f32 * 0.1),
            Vec3::new(2.0 * (t * 0.3).sin() as f32, 0.0, 2.0),
        );
        SamplingJob {
            clip: walk,
            time_secs: ta,
            rest_pose: sk.rest_pose(),
        }
        .run_with_cache(&mut ca, &mut a)
        .unwrap();
        SamplingJob {
            clip: jump,
            time_secs: tb,
            rest_pose: sk.rest_pose(),
        }
        .run_with_cache(&mut cb, &mut b)
        .unwrap();
        let layers = [
            BlendLayer {
                pose: &a,
                weight: 1.0 - w,
                joint_weights: None,
            },
            BlendLayer {
                pose: &b,
                weight: w,
                joint_weights: None,
            },
        ];
        BlendingJob {
            layers: &layers,
            rest_pose: sk.rest_pose(),
            threshold: 0.1,
        }
        .run(&mut blended)
        .unwrap();
        LocalToModelJob {
            parents: sk.parents(),
            local: &blended,
            model_from_root: world,
        }
        .run(&mut want)
        .unwrap();
        SoaSamplingJob {
            clip: walk,
            time_secs: ta,
            rest_pose: sk.rest_pose_soa(),
        }
        .run_with_cache(&mut sca, &mut sa)
        .unwrap();
        SoaSamplingJob {
            clip: jump,
            time_secs: tb,
            rest_pose: sk.rest_pose_soa(),
        }
        .run_with_cache(&mut scb, &mut sb)
        .unwrap();
        let soa_layers = [
            SoaBlendLayer {
                pose: &sa,
                weight: 1.0 - w,
                joint_weights: None,
            },
            SoaBlendLayer {
                pose: &sb,
                weight: w,
                joint_weights: None,
            },
        ];
        SoaBlendingJob {
            layers: &soa_layers,
            rest_pose: sk.rest_pose_soa(),
            threshold: 0.1,
        }
        .run(&mut sblended)
        .unwrap();
        SoaLocalToModelJob {
            parents: sk.parents(),
            local: &sblended,
            model_from_root: world,
        }
        .run(&mut got)
        .unwrap();
        let bits = |m: &[Mat4]| -> Vec<u32> {
            m.iter()
                .flat_map(|m| m.to_cols_array().map(f32::to_bits))
                .collect()
        };
        assert!(bits(&got) == bits(&want), "frame {frame}: matrices differ");
    }
}

#[test]
fn a_soa_pose_hands_out_the_form_that_holds_the_pose() {
    use stridescope::anim::soa::SoaPose;
    // Six joints (one full block, one partial) with distinct values.
    let joint = |i: usize| Transform {
        translation: Vec3::new(i as f32, 1.0, -(i as f32)),
        rotation: Quat::from_rotation_y(0.1 * i as f32),
        scale: Vec3::splat(1.0 + i as f32),
    };
    let a: Vec<Transform> = (0..6).map(joint).collect();
    let b: Vec<Transform> = (0..6).map(|i| joint(i + 10)).collect();
    let mut pose = SoaPose::new(&a);
    // Built per joint: no blocks handed out, the joints as given, packed on request.
    assert!(pose.blocks().is_none());
    assert_eq!(pose.joints(), &a[..]);
    assert_eq!(pose.packed(), &to_soa(&a)[..]);
    // Written in blocks: the blocks are the pose and the joints are unpacked from them.
    pose.blocks_mut().copy_from_slice(&to_soa(&b));
    assert_eq!(pose.blocks(), Some(&to_soa(&b)[..]));
    assert_eq!(pose.joints(), &b[..]);
    // Written in blocks again: the per-joint view follows (not the first unpacking).
    pose.blocks_mut().copy_from_slice(&to_soa(&a));
    assert_eq!(pose.joints(), &a[..]);
    // Changed per joint: the blocks are stale, so none are handed out until packed.
    pose.to_joints()[2] = b[2];
    assert!(pose.blocks().is_none());
    assert_eq!(pose.joints()[2], b[2]);
    assert_eq!(pose.joints()[1], a[1]);
    let mut want = a.clone();
    want[2] = b[2];
    assert_eq!(pose.packed(), &to_soa(&want)[..]);
}

/// `for_each_model_pose` (the SoA jobs when the pose stays as sampled, the per-joint jobs
/// when root motion is taken out) gives, at every time of a run, the matrices
/// `ModelPoseJob` (the per-joint jobs, no cache) gives at that time, bit for bit, with the
/// times' indices in order: playback forwards, past the end, scrubbing back, jumps.
#[test]
fn for_each_model_pose_gives_the_model_pose_job_s_matrices() {
    use stridescope::anim::model_pose::{for_each_model_pose, ModelPoseJob};
    use stridescope::anim::ClipRootMotion;
    let cases = [
        ("assets/Robot/robot.glb", "Robot_Walking"),
        ("assets/Fox/Fox.glb", "Run"),
        (
            "mocap/bandai/dataset-2_walk_normal_002.bvh",
            "dataset-2_walk_normal_002",
        ),
    ];
    let bits = |m: &[Mat4]| -> Vec<u32> {
        m.iter()
            .flat_map(|m| m.to_cols_array().map(f32::to_bits))
            .collect()
    };
    let mut with_root_motion = 0;
    for (file, name) in cases {
        let model = load(file);
        let sk = &model.skeleton;
        let clip = &model.clips[model
            .find_clip(name)
            .unwrap_or_else(|| panic!("{file}: no clip {name}"))];
        let d = clip.duration_secs();
        let mut times: Vec<f32> = (0..150).map(|i| i as f32 / 60.0 * d).collect();
        times.extend((0..40).map(|i| 1.2 * d - i as f32 * 0.037 * d));
        times.extend([0.5 * d, 0.1 * d, 0.9 * d, -1.0, 0.0, d]);
        let root = ClipRootMotion::for_clip(sk, clip, None).unwrap();
        let mut in_place_cases = vec![None];
        if let Some(r) = root.as_ref() {
            in_place_cases.push(Some(r));
            with_root_motion += 1;
        }
        for in_place in in_place_cases {
            let what = format!("{file} {name} in_place {}", in_place.is_some());
            let mut seen = 0;
            for_each_model_pose(sk, clip, in_place, times.iter().copied(), |i, t, got| {
                assert_eq!(i, seen, "{what}: index");
                assert_eq!(t.to_bits(), times[i].to_bits(), "{what}: time");
                seen += 1;
                let mut local = sk.rest_pose().to_vec();
                let mut want = vec![Mat4::IDENTITY; sk.joint_count()];
                ModelPoseJob {
                    skeleton: sk,
                    clip,
                    time_secs: t,
                    in_place,
                }
                .run(&mut local, &mut want)
                .unwrap();
                assert!(bits(got) == bits(&want), "{what}: time {t} ({i})");
                Ok(())
            })
            .unwrap();
            assert_eq!(seen, times.len(), "{what}");
        }
    }
    // All three clips travel, so both paths ran on each.
    assert_eq!(with_root_motion, 3);
}
