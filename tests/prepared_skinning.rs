//! The prepared CPU skinning job (issue 23: influences grouped by count and normalised
//! once, a loop per influence count, a parallel version) gives what the per-call oracle
//! (`SkinningJob`) gives: positions within 1e-5 of the mesh's size, unit normals within
//! 1e-5, on every skinned primitive of the shared characters (glTF and FBX) at several
//! clip times, and on hand-made influences (zero weights, weights that do not sum to 1,
//! eight influences, a vertex with no weight).

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use stridescope::anim::{PreparedSkinningJob, SkinInfluences, SkinningJob, MAX_INFLUENCES};
use stridescope::asset::PoseMatrices;
use stridescope::stage::pose::{Pose, PoseRequest};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
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
    let influences = SkinInfluences::new(joints, weights).unwrap();
    let job = PreparedSkinningJob {
        palette,
        positions,
        normals,
        influences: &influences,
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
    let influences = SkinInfluences::new(&joints, &weights).unwrap();
    assert_eq!(influences.vertex_count(), counts.len());
    // One window (fewer than 2048 vertices), sorted: one run per count for 0, 3, 4, 5 and
    // 8 influences; one per joint for 1 (joints v % 10: 10 runs); one per ordered joint pair
    // for 2 (v % 10 and (v + 3) % 10, in either slot order: 20 runs).
    assert_eq!(influences.run_count(), 5 + 10 + 20);
    let (dp, dn) = compare(&palette, &positions, &normals, &joints, &weights);
    assert!(dp <= 1e-5 && dn <= 1e-5, "{dp} {dn}");
    // A vertex without weight keeps its bind pose.
    let job = PreparedSkinningJob {
        palette: &palette,
        positions: &positions,
        normals: &normals,
        influences: &influences,
    };
    let (mut p, mut n) = (
        vec![Vec3::ZERO; positions.len()],
        vec![Vec3::ZERO; positions.len()],
    );
    job.run(&mut p, &mut n).unwrap();
    assert_eq!(p[10], positions[10]);
    assert_eq!(n[10], normals[10]);
    // Without normals, positions only.
    let job = PreparedSkinningJob {
        normals: &[],
        ..job
    };
    job.run(&mut p, &mut []).unwrap();
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
    let influences = SkinInfluences::new(&joints, &weights).unwrap();
    // Joints (v + k) % 6. Window 1: one influence on even vertices (joints 0, 2, 4: 3 runs),
    // two on odd ones (pairs from 1, 3, 5: 3 runs). Window 2: one influence, all six joints
    // (6 runs), two (6 pairs), three (1 run: by count). Window 3: 6 runs.
    assert_eq!(influences.run_count(), (3 + 3) + (6 + 6 + 1) + 6);
    let (dp, dn) = compare(&palette, &positions, &normals, &joints, &weights);
    assert!(dp <= 1e-5 && dn <= 1e-5, "{dp} {dn}");
}

#[test]
fn degenerate_normals_and_matrices_skin_as_the_oracle_does() {
    // Runs long enough for the four-at-a-time path (one and two influences on the same
    // joints), with normals of zero, subnormal, huge, infinite and NaN length, and a joint
    // scaled to nothing: the oracle's results (zero where there is no direction, unit
    // otherwise), lane by lane.
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
    let influences = SkinInfluences::new(&joints, &weights).unwrap();
    let (mut p, mut nn) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
    PreparedSkinningJob {
        palette: &palette,
        positions: &positions,
        normals: &normals,
        influences: &influences,
    }
    .run(&mut p, &mut nn)
    .unwrap();
    for v in 0..n {
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
    assert!(SkinInfluences::new(&joints, &weights[..3]).is_err());
    let influences = SkinInfluences::new(&joints, &weights).unwrap();
    let positions = vec![Vec3::ONE; 4];
    let short = vec![Mat4::IDENTITY; 5];
    let job = PreparedSkinningJob {
        palette: &short,
        positions: &positions,
        normals: &[],
        influences: &influences,
    };
    let mut out = vec![Vec3::ZERO; 4];
    let e = job.run(&mut out, &mut []).unwrap_err().to_string();
    assert!(e.contains('5'), "{e}");
    assert!(job.run_parallel(&mut out, &mut []).is_err());
    let palette = vec![Mat4::IDENTITY; 6];
    let job = PreparedSkinningJob {
        palette: &palette,
        ..job
    };
    assert!(job.run(&mut out[..3], &mut []).is_err());
    job.run(&mut out, &mut []).unwrap();
    assert_eq!(out, positions);
}
