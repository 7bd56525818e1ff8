//! The prepared CPU skinning job (issue 23: influences grouped by count and normalised
//! once, the bind pose stored four vertices to a block, a loop per influence count, rigid
//! similarities turning unit normals without renormalising, a parallel version) gives
//! what the per-call oracle (`SkinningJob`) gives: positions within 1e-5 of the mesh's
//! size, unit normals within 1e-5, on every skinned primitive of the shared characters
//! (glTF and FBX) at several clip times, and on hand-made influences (zero weights,
//! weights that do not sum to 1, eight influences, a vertex with no weight, bind normals
//! that are not unit, joints that are nearly but not quite rotations).

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use stridescope::anim::{PreparedSkin, PreparedSkinningJob, SkinningJob, MAX_INFLUENCES};
use stridescope::asset::PoseMatrices;
use stridescope::stage::pose::{Pose, PoseRequest};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

/// Positions and normals from the prepared job (outputs start as NaN).
fn skin_prepared(
    palette: &[Mat4],
    positions: &[Vec3],
    normals: &[Vec3],
    joints: &[[u16; MAX_INFLUENCES]],
    weights: &[[f32; MAX_INFLUENCES]],
) -> (Vec<Vec3>, Vec<Vec3>) {
    let skin = PreparedSkin::new(joints, weights, positions, normals).unwrap();
    let n = positions.len();
    let (mut p, mut nn) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
    PreparedSkinningJob {
        palette,
        skin: &skin,
    }
    .run(&mut p, &mut nn)
    .unwrap();
    (p, nn)
}

/// Largest position and normal differences of the prepared job (sequential and
/// parallel) from the oracle, positions relative to the mesh's size.
fn compare(
    palette: &[Mat4],
    positions: &[Vec3],
    normals: &[Vec3],
    joints: &[[u16; MAX_INFLUENCES]],
    weights: &[[f32; MAX_INFLUENCES]],
) -> (f32, f32) {
    let n = positions.len();
    let (mut want_p, mut want_n) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
    SkinningJob {
        palette,
        positions,
        normals,
        joints,
        weights,
    }
    .run(&mut want_p, &mut want_n)
    .unwrap();
    let skin = PreparedSkin::new(joints, weights, positions, normals).unwrap();
    let job = PreparedSkinningJob {
        palette,
        skin: &skin,
    };
    let (lo, hi) = positions
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(a, b), p| (a.min(*p), b.max(*p)));
    let size = (hi - lo).length().max(1e-6);
    let (mut worst_p, mut worst_n) = (0.0f32, 0.0f32);
    for parallel in [false, true] {
        let (mut p, mut nn) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
        if parallel {
            job.run_parallel(&mut p, &mut nn).unwrap();
        } else {
            job.run(&mut p, &mut nn).unwrap();
        }
        for v in 0..n {
            // Outputs start as NaN: a vertex the job skipped fails here (f32::max would
            // drop the NaN).
            let dp = p[v].distance(want_p[v]) / size;
            assert!(
                dp.is_finite(),
                "vertex {v} not written (parallel {parallel})"
            );
            worst_p = worst_p.max(dp);
            if !normals.is_empty() {
                let dn = nn[v].distance(want_n[v]);
                assert!(
                    dn.is_finite(),
                    "vertex {v} normal not written (parallel {parallel})"
                );
                worst_n = worst_n.max(dn);
            }
        }
    }
    (worst_p, worst_n)
}

#[test]
fn the_prepared_job_skins_the_shared_characters_as_the_oracle_does() {
    let files = [
        shared("assets/Robot/robot.glb"),
        shared("assets/Fox/Fox.glb"),
        shared("assets/CesiumMan/CesiumMan.glb"),
        shared("fbx/ufbx/blender_293_barbarian_7400_binary.fbx"),
    ];
    for file in files {
        let model = stridescope::asset::load(&file).unwrap();
        let mut pose = Pose::new(&model);
        let mut skinned_vertices = 0;
        for (clip, k) in (0..model.clips.len().min(3)).flat_map(|c| (0..3).map(move |k| (c, k))) {
            let t = model.clips[clip].duration_secs() * k as f32 / 3.0;
            pose.evaluate(
                &model,
                &PoseRequest {
                    clip: Some(clip),
                    time_secs: t,
                    remove_root_motion: None,
                    model_from_root: Mat4::IDENTITY,
                },
            )
            .unwrap();
            for (mi, mesh) in model.meshes.iter().enumerate() {
                if mesh.skin.is_none() {
                    continue;
                }
                let palette = pose.mesh_palette(&model, mi);
                for prim in &mesh.primitives {
                    let (dp, dn) = compare(
                        &palette,
                        &prim.positions,
                        &prim.normals,
                        &prim.joints,
                        &prim.weights,
                    );
                    assert!(
                        dp <= 1e-5,
                        "{}: mesh {mi} position off by {dp} of its size",
                        file.display()
                    );
                    assert!(
                        dn <= 1e-5,
                        "{}: mesh {mi} normal off by {dn}",
                        file.display()
                    );
                    skinned_vertices += prim.positions.len();
                }
            }
        }
        assert!(skinned_vertices > 0, "{}", file.display());
    }
}

#[test]
fn hand_made_influences_skin_as_the_oracle_does() {
    // A palette of turned, moved and non-uniformly scaled joints (one mirrored).
    let palette: Vec<Mat4> = (0..10)
        .map(|j| {
            let f = j as f32;
            let scale = if j == 7 {
                Vec3::new(-1.0, 1.2, 0.9)
            } else {
                Vec3::new(1.0 + 0.05 * f, 1.0, 1.0 - 0.03 * f)
            };
            Mat4::from_scale_rotation_translation(
                scale,
                Quat::from_euler(glam::EulerRot::YXZ, 0.3 * f, 0.1 * f, -0.2 * f),
                Vec3::new(f * 0.1, -f * 0.05, 0.2),
            )
        })
        .collect();
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    // Runs of 0, 1, 3, 8 and 2 influences, then alternating counts (runs of one).
    let counts: Vec<usize> = [0usize, 1, 3, 8, 2]
        .iter()
        .flat_map(|&c| std::iter::repeat_n(c, 50))
        .chain((0..100).map(|i| [1, 4, 8, 0, 5][i % 5]))
        .collect();
    for (v, &c) in counts.iter().enumerate() {
        let f = v as f32;
        positions.push(Vec3::new(f.sin(), (f * 0.3).cos() * 2.0, f * 0.01));
        normals.push(Vec3::new(f.cos(), 0.5, (f * 0.7).sin()).normalize());
        let mut j = [0u16; MAX_INFLUENCES];
        let mut w = [0f32; MAX_INFLUENCES];
        // Spread over the 8 slots with zero weights between them; weights sum to 3.
        for k in 0..c {
            let slot = (k * 8 / c.max(1) + v) % 8;
            j[slot] = ((v + 3 * k) % palette.len()) as u16;
            w[slot] = 3.0 * (k as f32 + 1.0) / (c * (c + 1) / 2) as f32;
        }
        joints.push(j);
        weights.push(w);
    }
    let skin = PreparedSkin::new(&joints, &weights, &positions, &normals).unwrap();
    assert_eq!(skin.vertex_count(), counts.len());
    // One window (fewer than 2048 vertices), sorted: one run per count for 0, 3, 4, 5 and
    // 8 influences; one per joint for 1 (joints v % 10: 10 runs); one per ordered joint pair
    // for 2 (v % 10 and (v + 3) % 10, in either slot order: 20 runs).
    assert_eq!(skin.run_count(), 5 + 10 + 20);
    let (dp, dn) = compare(&palette, &positions, &normals, &joints, &weights);
    assert!(dp <= 1e-5 && dn <= 1e-5, "{dp} {dn}");
    // A vertex without weight keeps its bind pose.
    let job = PreparedSkinningJob {
        palette: &palette,
        skin: &skin,
    };
    let (mut p, mut n) = (
        vec![Vec3::ZERO; positions.len()],
        vec![Vec3::ZERO; positions.len()],
    );
    job.run(&mut p, &mut n).unwrap();
    assert_eq!(p[10], positions[10]);
    assert_eq!(n[10], normals[10]);
    // Without normals, positions only (the normals output may be empty); the same
    // positions.
    let positions_only = PreparedSkin::new(&joints, &weights, &positions, &[]).unwrap();
    let mut q = vec![Vec3::NAN; positions.len()];
    PreparedSkinningJob {
        palette: &palette,
        skin: &positions_only,
    }
    .run(&mut q, &mut [])
    .unwrap();
    assert_eq!(q, p);
}

#[test]
fn windows_sorted_by_influences_skin_as_the_oracle_does() {
    // 5000 vertices, three windows of 2048: the first alternates between one and two
    // influences every vertex, the second has blocks of 512 with 1, 2, 3 and 1, the third
    // is rigid. Sequential and parallel jobs against the oracle.
    let palette: Vec<Mat4> = (0..6)
        .map(|j| {
            Mat4::from_scale_rotation_translation(
                Vec3::new(1.0, 1.0 + 0.1 * j as f32, 1.0),
                Quat::from_rotation_y(0.4 * j as f32),
                Vec3::new(j as f32, 0.0, -0.5),
            )
        })
        .collect();
    let n = 5000;
    let count = |v: usize| match v {
        0..2048 => 1 + v % 2,
        2048..4096 => 1 + (v - 2048) / 512 % 3,
        _ => 1,
    };
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for v in 0..n {
        let mut j = [0u16; MAX_INFLUENCES];
        let mut w = [0f32; MAX_INFLUENCES];
        for k in 0..count(v) {
            j[k] = ((v + k) % palette.len()) as u16;
            w[k] = 1.0 + k as f32;
        }
        joints.push(j);
        weights.push(w);
    }
    let positions: Vec<Vec3> = (0..n)
        .map(|v| Vec3::new(v as f32 * 0.001, 1.0, -0.3))
        .collect();
    let normals: Vec<Vec3> = (0..n)
        .map(|v| Vec3::new((v as f32).sin(), 1.0, 0.2).normalize())
        .collect();
    let skin = PreparedSkin::new(&joints, &weights, &positions, &normals).unwrap();
    // Joints (v + k) % 6. Window 1: one influence on even vertices (joints 0, 2, 4: 3 runs),
    // two on odd ones (pairs from 1, 3, 5: 3 runs). Window 2: one influence, all six joints
    // (6 runs), two (6 pairs), three (1 run: by count). Window 3: 6 runs.
    assert_eq!(skin.run_count(), (3 + 3) + (6 + 6 + 1) + 6);
    let (dp, dn) = compare(&palette, &positions, &normals, &joints, &weights);
    assert!(dp <= 1e-5 && dn <= 1e-5, "{dp} {dn}");
}

#[test]
fn degenerate_normals_and_matrices_skin_as_the_oracle_does() {
    // Runs long enough for the four-at-a-time path (one and two influences on the same
    // joints), with normals of zero, subnormal, huge, infinite and NaN length, and a joint
    // scaled to nothing: the oracle's results (zero where there is no direction, unit
    // otherwise), lane by lane. The last group has no weight: bind pose and normal as
    // given, to the bit, whatever the normal.
    let palette = vec![
        Mat4::from_rotation_z(0.3),
        Mat4::from_scale(Vec3::new(2.0, 0.5, 1.0)),
        Mat4::from_scale(Vec3::ZERO),
    ];
    let normals_in = [
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::ZERO,
        Vec3::new(1e-20, 0.0, 0.0),
        Vec3::new(3e19, 3e19, 0.0),
        Vec3::new(f32::INFINITY, 0.0, 0.0),
        Vec3::new(f32::NAN, 1.0, 0.0),
        Vec3::new(0.0, 0.0, -1.0),
    ];
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for (j, w) in [
        ([0u16, 0], [1.0f32, 0.0]),
        ([2, 0], [1.0, 0.0]),
        ([0, 1], [0.3, 0.7]),
        ([1, 2], [1.0, 1.0]),
        ([1, 2], [0.0, 0.0]),
    ] {
        for (i, &nv) in normals_in.iter().enumerate() {
            positions.push(Vec3::new(i as f32, 1.0, 2.0));
            normals.push(nv);
            let mut jj = [0u16; MAX_INFLUENCES];
            let mut ww = [0f32; MAX_INFLUENCES];
            jj[..2].copy_from_slice(&j);
            ww[..2].copy_from_slice(&w);
            joints.push(jj);
            weights.push(ww);
        }
    }
    // Unweighted vertices whose normals are finite but not unit: kept, not normalised.
    for nv in [Vec3::new(0.0, 2.0, 0.0), Vec3::new(0.3, 0.4, 0.0)] {
        positions.push(Vec3::new(-1.0, 0.5, 0.25));
        normals.push(nv);
        joints.push([1; MAX_INFLUENCES]);
        weights.push([0.0; MAX_INFLUENCES]);
    }
    let n = positions.len();
    let (mut want_p, mut want_n) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
    SkinningJob {
        palette: &palette,
        positions: &positions,
        normals: &normals,
        joints: &joints,
        weights: &weights,
    }
    .run(&mut want_p, &mut want_n)
    .unwrap();
    let (p, nn) = skin_prepared(&palette, &positions, &normals, &joints, &weights);
    let bits = |v: Vec3| v.to_array().map(f32::to_bits);
    let unweighted = 4 * normals_in.len();
    for v in unweighted..n {
        assert_eq!(bits(p[v]), bits(positions[v]), "vertex {v}: position");
        assert_eq!(bits(nn[v]), bits(normals[v]), "vertex {v}: normal");
        assert_eq!(
            bits(want_n[v]),
            bits(normals[v]),
            "vertex {v}: oracle's normal"
        );
    }
    for v in 0..unweighted {
        let what = format!(
            "vertex {v}: normal {} -> {} (oracle {})",
            normals[v], nn[v], want_n[v]
        );
        assert!(p[v].distance(want_p[v]) <= 1e-5, "{what}: position");
        assert!(nn[v].is_finite(), "{what}");
        assert!(nn[v].distance(want_n[v]) <= 1e-5, "{what}");
    }
    // What the oracle gives, spelled out for the rigid joint: zero for no direction, the
    // rotated unit vector for a subnormal one.
    assert_eq!(nn[1], Vec3::ZERO);
    assert_eq!(nn[4], Vec3::ZERO);
    assert_eq!(nn[5], Vec3::ZERO);
    let turned = Mat4::from_rotation_z(0.3).transform_vector3(Vec3::X);
    assert!(nn[2].distance(turned) <= 1e-5, "{}", nn[2]);
    // The joint scaled to nothing has no normal direction either.
    assert!(nn[7..14].iter().all(|v| *v == Vec3::ZERO));
}

#[test]
fn bad_inputs_are_errors() {
    let joints = vec![[0u16, 5, 0, 0, 0, 0, 0, 0]; 4];
    let weights = vec![[0.5f32, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]; 4];
    let positions = vec![Vec3::ONE; 4];
    let normals = vec![Vec3::Y; 4];
    // Lengths that differ from the joints', each named.
    for (e, what) in [
        (
            PreparedSkin::new(&joints, &weights[..3], &positions, &[]),
            "weights",
        ),
        (
            PreparedSkin::new(&joints, &weights, &positions[..3], &[]),
            "positions",
        ),
        (
            PreparedSkin::new(&joints, &weights, &positions, &normals[..2]),
            "normals",
        ),
    ] {
        let e = e.unwrap_err().to_string();
        assert!(e.contains(what), "{e}");
    }
    let skin = PreparedSkin::new(&joints, &weights, &positions, &normals).unwrap();
    let short = vec![Mat4::IDENTITY; 5];
    let job = PreparedSkinningJob {
        palette: &short,
        skin: &skin,
    };
    let mut out = vec![Vec3::ZERO; 4];
    let mut out_n = vec![Vec3::ZERO; 4];
    let e = job.run(&mut out, &mut out_n).unwrap_err().to_string();
    assert!(e.contains('5'), "{e}");
    assert!(job.run_parallel(&mut out, &mut out_n).is_err());
    let palette = vec![Mat4::IDENTITY; 6];
    let job = PreparedSkinningJob {
        palette: &palette,
        ..job
    };
    assert!(job.run(&mut out[..3], &mut out_n).is_err());
    // A skin with normals needs somewhere to write them.
    let e = job.run(&mut out, &mut []).unwrap_err().to_string();
    assert!(e.contains("normals"), "{e}");
    job.run(&mut out, &mut out_n).unwrap();
    assert_eq!(out, positions);
    assert_eq!(out_n, normals);
}

/// Bind positions, bind normals, joints and weights of a hand-made mesh.
type Mesh = (
    Vec<Vec3>,
    Vec<Vec3>,
    Vec<[u16; MAX_INFLUENCES]>,
    Vec<[f32; MAX_INFLUENCES]>,
);

/// One rigid run per palette joint (runs of `len` vertices, consecutive in the mesh, so
/// full blocks are written four at a time and the last block is ragged when `len` is not
/// a multiple of four), normals given by `normal_of(v)`.
fn rigid_mesh(joint_count: usize, len: usize, normal_of: impl Fn(usize) -> Vec3) -> Mesh {
    let n = joint_count * len;
    let positions = (0..n)
        .map(|v| Vec3::new((v as f32 * 0.37).sin(), v as f32 * 0.01, -0.4))
        .collect();
    let normals = (0..n).map(normal_of).collect();
    let joints = (0..n)
        .map(|v| {
            let mut j = [0u16; MAX_INFLUENCES];
            j[0] = (v / len) as u16;
            j
        })
        .collect();
    let mut w = [0f32; MAX_INFLUENCES];
    w[0] = 1.0;
    (positions, normals, joints, vec![w; n])
}

#[test]
fn rigid_similarities_turn_unit_normals_as_the_oracle_does() {
    // Rotations times uniform scales (0.01, as a centimetre rig's inverse bind, 1, 37),
    // one mirrored: the normals are turned without renormalising and must still be unit
    // and equal to the oracle's. Bind normals that are not unit (int8-quantised ones are
    // off by up to 1%, here up to 10%) are normalised when prepared.
    let palette: Vec<Mat4> = [0.01f32, 1.0, 37.0, -2.0]
        .iter()
        .enumerate()
        .map(|(j, &s)| {
            let scale = if s < 0.0 {
                Vec3::new(-2.0, 2.0, 2.0)
            } else {
                Vec3::splat(s)
            };
            Mat4::from_scale_rotation_translation(
                scale,
                Quat::from_euler(glam::EulerRot::YXZ, 0.7 * j as f32, -0.4, 0.25),
                Vec3::new(0.3, j as f32, -1.0),
            )
        })
        .collect();
    for len in [1usize, 4, 6, 13] {
        let (positions, normals, joints, weights) = rigid_mesh(palette.len(), len, |v| {
            let f = v as f32;
            Vec3::new(f.cos(), 0.4, (f * 1.3).sin()).normalize() * (0.9 + 0.2 * (f * 0.5).sin())
        });
        let (dp, dn) = compare(&palette, &positions, &normals, &joints, &weights);
        assert!(dp <= 1e-6, "runs of {len}: position off by {dp}");
        assert!(dn <= 2e-6, "runs of {len}: normal off by {dn}");
    }
}

#[test]
fn a_joint_that_is_not_quite_a_rotation_renormalises() {
    // Scales of 1 + 1e-6 .. 1 + 1e-2 along one axis: rotation-only turning would leave
    // normals up to 1% long. Whichever path each joint takes, the normals are unit and
    // the oracle's within 1e-5.
    let palette: Vec<Mat4> = [1e-6f32, 1e-5, 1e-4, 1e-3, 1e-2]
        .iter()
        .map(|&e| {
            Mat4::from_scale_rotation_translation(
                Vec3::new(1.0, 1.0 + e, 1.0),
                Quat::from_rotation_x(0.6) * Quat::from_rotation_z(0.3),
                Vec3::ZERO,
            )
        })
        .collect();
    let (positions, normals, joints, weights) = rigid_mesh(palette.len(), 9, |v| {
        Vec3::new(0.3, 1.0, v as f32 * 0.2).normalize()
    });
    let (dp, dn) = compare(&palette, &positions, &normals, &joints, &weights);
    assert!(dp <= 1e-6 && dn <= 1e-5, "{dp} {dn}");
    let (_, nn) = skin_prepared(&palette, &positions, &normals, &joints, &weights);
    for (v, normal) in nn.iter().enumerate() {
        assert!(
            (normal.length() - 1.0).abs() <= 2e-6,
            "vertex {v}: {normal}"
        );
    }
}
