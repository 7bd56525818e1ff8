//! Local-to-model accumulation, the skinning palette and the CPU reference skinning.

use glam::{Mat4, Quat, Vec3};
use stridescope::anim::{
    skinning_palette, AnimError, LocalToModelJob, Skeleton, Skin, SkinningJob, Transform,
    MAX_INFLUENCES,
};

fn t(translation: Vec3, rotation: Quat) -> Transform {
    Transform {
        translation,
        rotation,
        scale: Vec3::ONE,
    }
}

fn chain() -> Skeleton {
    Skeleton::new(
        vec!["root".into(), "upper".into(), "lower".into()],
        vec![None, Some(0), Some(1)],
        vec![
            t(Vec3::new(0.0, 1.0, 0.0), Quat::IDENTITY),
            t(
                Vec3::new(0.0, 0.5, 0.0),
                Quat::from_rotation_z(90f32.to_radians()),
            ),
            t(Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY),
        ],
    )
    .unwrap()
}

#[test]
fn local_to_model_accumulates_parent_first() {
    let s = chain();
    let mut model = [Mat4::ZERO; 3];
    LocalToModelJob {
        parents: s.parents(),
        local: s.rest_pose(),
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut model)
    .unwrap();
    // root at y=1; upper at y=1.5 rotated 90 deg about Z; lower 0.5 along upper's +Y,
    // which points to -X: (-0.5, 1.5, 0).
    let p = |m: &Mat4| m.w_axis.truncate();
    assert!((p(&model[0]) - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-6);
    assert!((p(&model[1]) - Vec3::new(0.0, 1.5, 0.0)).length() < 1e-6);
    assert!((p(&model[2]) - Vec3::new(-0.5, 1.5, 0.0)).length() < 1e-6);
    // With a placement for the roots.
    let place = Mat4::from_translation(Vec3::new(10.0, 0.0, 0.0));
    LocalToModelJob {
        parents: s.parents(),
        local: s.rest_pose(),
        model_from_root: place,
    }
    .run(&mut model)
    .unwrap();
    assert!((p(&model[2]) - Vec3::new(9.5, 1.5, 0.0)).length() < 1e-6);
}

#[test]
fn local_to_model_validity() {
    let s = chain();
    let mut out = [Mat4::ZERO; 2];
    let r = LocalToModelJob {
        parents: s.parents(),
        local: s.rest_pose(),
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut out);
    assert!(matches!(r, Err(AnimError::LengthMismatch { .. })));
    let bad_parents = [None, Some(2), Some(1)];
    let mut out = [Mat4::ZERO; 3];
    let r = LocalToModelJob {
        parents: &bad_parents,
        local: s.rest_pose(),
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut out);
    assert!(matches!(
        r,
        Err(AnimError::ParentOrder {
            joint: 1,
            parent: 2
        })
    ));
    assert!(Skeleton::new(
        vec!["a".into(), "b".into()],
        vec![Some(1), None],
        vec![Transform::IDENTITY; 2]
    )
    .is_err());
}

fn bind_skin(s: &Skeleton) -> (Skin, [Mat4; 3]) {
    let mut model = [Mat4::ZERO; 3];
    LocalToModelJob {
        parents: s.parents(),
        local: s.rest_pose(),
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut model)
    .unwrap();
    let skin = Skin::new(
        "skin".into(),
        vec![0, 1, 2],
        model.iter().map(|m| m.inverse()).collect(),
        s,
    )
    .unwrap();
    (skin, model)
}

fn influences(pairs: &[(u16, f32)]) -> ([u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES]) {
    let mut j = [0u16; MAX_INFLUENCES];
    let mut w = [0f32; MAX_INFLUENCES];
    for (i, &(joint, weight)) in pairs.iter().enumerate() {
        j[i] = joint;
        w[i] = weight;
    }
    (j, w)
}

#[test]
fn bind_pose_skins_to_itself_and_weights_are_normalised() {
    let s = chain();
    let (skin, model) = bind_skin(&s);
    let mut palette = [Mat4::ZERO; 3];
    skinning_palette(&model, &skin, &mut palette).unwrap();
    for m in &palette {
        assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-5));
    }
    // Move joint 2 up by 1 m; a vertex weighted (2, 2) between joints 1 and 2
    // (unnormalised) moves 0.5 m.
    let mut moved = model;
    moved[2] = Mat4::from_translation(Vec3::Y) * model[2];
    skinning_palette(&moved, &skin, &mut palette).unwrap();
    let (j, w) = influences(&[(1, 2.0), (2, 2.0)]);
    let positions = [Vec3::new(0.3, 1.7, 0.0)];
    let normals = [Vec3::X];
    let mut out_p = [Vec3::ZERO];
    let mut out_n = [Vec3::ZERO];
    SkinningJob {
        palette: &palette,
        positions: &positions,
        normals: &normals,
        joints: &[j],
        weights: &[w],
    }
    .run(&mut out_p, &mut out_n)
    .unwrap();
    assert!(
        (out_p[0] - Vec3::new(0.3, 2.2, 0.0)).length() < 1e-5,
        "{}",
        out_p[0]
    );
    assert!((out_n[0] - Vec3::X).length() < 1e-5);
}

#[test]
fn eight_influences_are_honoured() {
    // Eight joints each translating by a different amount; weights spread over
    // JOINTS_0 and JOINTS_1 slots. Dropping the second set would change the result.
    let palette: Vec<Mat4> = (0..8)
        .map(|i| Mat4::from_translation(Vec3::X * i as f32))
        .collect();
    let pairs: Vec<(u16, f32)> = (0..8).map(|i| (i as u16, 1.0 / 8.0)).collect();
    let (j, w) = influences(&pairs);
    let mut out = [Vec3::ZERO];
    SkinningJob {
        palette: &palette,
        positions: &[Vec3::ZERO],
        normals: &[],
        joints: &[j],
        weights: &[w],
    }
    .run(&mut out, &mut [])
    .unwrap();
    // mean of 0..7 = 3.5
    assert!((out[0].x - 3.5).abs() < 1e-5, "{}", out[0]);
    // Only the second set weighted.
    let mut w2 = [0.0; MAX_INFLUENCES];
    w2[7] = 0.25;
    SkinningJob {
        palette: &palette,
        positions: &[Vec3::ZERO],
        normals: &[],
        joints: &[j],
        weights: &[w2],
    }
    .run(&mut out, &mut [])
    .unwrap();
    assert!((out[0].x - 7.0).abs() < 1e-5);
}

#[test]
fn normals_stay_perpendicular_under_non_uniform_scale() {
    // Scale x by 4: a 45-degree surface normal (1,1,0)/√2 of the plane x + y = c becomes
    // the normal of the scaled plane x/4 + y = c, i.e. (1, 4, 0) normalised.
    let palette = [Mat4::from_scale(Vec3::new(4.0, 1.0, 1.0))];
    let (j, w) = influences(&[(0, 1.0)]);
    let mut p = [Vec3::ZERO];
    let mut n = [Vec3::ZERO];
    SkinningJob {
        palette: &palette,
        positions: &[Vec3::ZERO],
        normals: &[Vec3::new(1.0, 1.0, 0.0).normalize()],
        joints: &[j],
        weights: &[w],
    }
    .run(&mut p, &mut n)
    .unwrap();
    assert!(
        (n[0] - Vec3::new(1.0, 4.0, 0.0).normalize()).length() < 1e-5,
        "{}",
        n[0]
    );
}

#[test]
fn skinning_validity() {
    let palette = [Mat4::IDENTITY];
    let (j, w) = influences(&[(3, 1.0)]);
    let mut out = [Vec3::ZERO];
    let r = SkinningJob {
        palette: &palette,
        positions: &[Vec3::ONE],
        normals: &[],
        joints: &[j],
        weights: &[w],
    }
    .run(&mut out, &mut []);
    assert!(matches!(
        r,
        Err(AnimError::JointOutOfRange { joint: 3, .. })
    ));
    // All-zero weights keep the bind position.
    let zero = [0.0; MAX_INFLUENCES];
    SkinningJob {
        palette: &[Mat4::from_translation(Vec3::X)],
        positions: &[Vec3::ONE],
        normals: &[],
        joints: &[[0; MAX_INFLUENCES]],
        weights: &[zero],
    }
    .run(&mut out, &mut [])
    .unwrap();
    assert_eq!(out[0], Vec3::ONE);
    let r = SkinningJob {
        palette: &palette,
        positions: &[Vec3::ONE, Vec3::ONE],
        normals: &[],
        joints: &[j],
        weights: &[w],
    }
    .run(&mut [Vec3::ZERO; 2], &mut []);
    assert!(matches!(r, Err(AnimError::LengthMismatch { .. })));
    let s = chain();
    assert!(Skin::new("s".into(), vec![0, 5], vec![Mat4::IDENTITY; 2], &s).is_err());
    assert!(Skin::new("s".into(), vec![0, 1], vec![Mat4::IDENTITY; 1], &s).is_err());
    let (skin, model) = bind_skin(&s);
    assert!(skinning_palette(&model[..2], &skin, &mut [Mat4::ZERO; 3]).is_err());
    assert!(skinning_palette(&model, &skin, &mut [Mat4::ZERO; 2]).is_err());
}

#[test]
fn local_to_model_equals_the_matrix_products() {
    // A tree with several roots, non-uniform scales and arbitrary rotations: the job
    // (which multiplies TRS columns directly) against `parent * local.to_mat4()`.
    let parents = [
        None,
        Some(0),
        Some(1),
        Some(0),
        Some(3),
        None,
        Some(5),
        Some(2),
    ];
    let local: Vec<Transform> = (0..parents.len())
        .map(|i| {
            let f = i as f32;
            Transform {
                translation: Vec3::new(0.3 * f, -1.0 + f, 0.7 - 0.2 * f),
                rotation: Quat::from_euler(glam::EulerRot::ZXY, 0.9 * f, -0.4 + f, 2.0 - f),
                scale: Vec3::new(1.0 + 0.1 * f, 0.5 + 0.3 * f, 2.0 - 0.15 * f),
            }
        })
        .collect();
    let root = Mat4::from_scale_rotation_translation(
        Vec3::splat(0.01),
        Quat::from_rotation_x(-90f32.to_radians()),
        Vec3::new(3.0, 0.0, -4.0),
    );
    let mut model = vec![Mat4::ZERO; parents.len()];
    LocalToModelJob {
        parents: &parents,
        local: &local,
        model_from_root: root,
    }
    .run(&mut model)
    .unwrap();
    let mut expected = vec![Mat4::ZERO; parents.len()];
    for i in 0..parents.len() {
        let parent = parents[i].map_or(root, |p| expected[p]);
        expected[i] = parent * local[i].to_mat4();
    }
    for (i, (m, e)) in model.iter().zip(&expected).enumerate() {
        assert!(m.abs_diff_eq(*e, 1e-6), "joint {i}: {m} != {e}");
    }
}
