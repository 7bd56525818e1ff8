//! Bone shapes for a character that has a skeleton and no mesh (a BVH take, a skeleton-only
//! export): one octahedron per bone, from the parent joint to the child, rigidly bound to
//! the parent through a generated skin, so the renderer's skinning and lighting draw a
//! body where there would only be lines.

use glam::{Mat4, Vec4};

use super::{Material, Mesh, Model, ModelError, Primitive};
use crate::anim::{LocalToModelJob, Skin, MAX_INFLUENCES};

/// Name of the generated mesh (and of its skin and material).
pub const BONE_MESH_NAME: &str = "bones (drawn from the skeleton)";

/// Where the octahedron is widest, as a share of the bone from the parent.
const WAIST: f32 = 0.2;
/// Half-width of the waist as a share of the bone's length.
const WIDTH: f32 = 0.1;

/// Adds bone shapes to `model` when it has no mesh and at least one bone. A bone from a
/// root joint to a child whose translation is animated (a BVH's `joint_Root` above the
/// hips, which stays at the origin while the hips travel) is left out: it would draw a
/// stick from the floor's origin to the moving body.
///
/// Errors: the rest pose cannot be posed (non-finite), or the generated skin is refused.
pub fn add_bone_shapes(model: &mut Model) -> Result<(), ModelError> {
    let n = model.skeleton.joint_count();
    if !model.meshes.is_empty() || n < 2 {
        return Ok(());
    }
    let parents = model.skeleton.parents().to_vec();
    let mut rest = vec![Mat4::IDENTITY; n];
    LocalToModelJob {
        parents: &parents,
        local: model.skeleton.rest_pose(),
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut rest)
    .map_err(ModelError::BoneShapes)?;
    let moves_alone = |j: usize| {
        model
            .clips
            .iter()
            .any(|c| c.joint_tracks(j).is_some_and(|t| t.translation.is_some()))
    };
    let mut prim = Primitive {
        positions: Vec::new(),
        normals: Vec::new(),
        tangents: Vec::new(),
        uvs: Vec::new(),
        colors: Vec::new(),
        indices: Vec::new(),
        joints: Vec::new(),
        weights: Vec::new(),
        material: Some(model.materials.len()),
        morph_targets: Vec::new(),
    };
    for (j, parent) in parents.iter().enumerate() {
        let Some(p) = *parent else { continue };
        if parents[p].is_none() && moves_alone(j) {
            continue;
        }
        let a = rest[p].w_axis.truncate();
        let b = rest[j].w_axis.truncate();
        let length = (b - a).length();
        if !(length > 1e-6 && length.is_finite()) {
            continue;
        }
        let d = (b - a) / length;
        let u = d.any_orthonormal_vector();
        let v = d.cross(u);
        let waist = a + d * (WAIST * length);
        let w = WIDTH * length;
        let ring = [waist + u * w, waist + v * w, waist - u * w, waist - v * w];
        for k in 0..4 {
            let (r0, r1) = (ring[k], ring[(k + 1) % 4]);
            // Towards the parent, then towards the child; outward winding.
            for tri in [[a, r1, r0], [b, r0, r1]] {
                let normal = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero();
                for corner in tri {
                    prim.indices.push(prim.positions.len() as u32);
                    prim.positions.push(corner);
                    prim.normals.push(normal);
                    let mut joints = [0u16; MAX_INFLUENCES];
                    joints[0] = p as u16;
                    let mut weights = [0.0f32; MAX_INFLUENCES];
                    weights[0] = 1.0;
                    prim.joints.push(joints);
                    prim.weights.push(weights);
                }
            }
        }
    }
    if prim.positions.is_empty() || n > usize::from(u16::MAX) {
        return Ok(());
    }
    let inverse_bind: Vec<Mat4> = rest.iter().map(Mat4::inverse).collect();
    let skin = Skin::new(
        BONE_MESH_NAME.to_string(),
        (0..n).collect(),
        inverse_bind,
        &model.skeleton,
    )
    .map_err(ModelError::BoneShapes)?;
    model.materials.push(Material::plain(
        BONE_MESH_NAME,
        Vec4::new(0.78, 0.62, 0.50, 1.0),
    ));
    model.skins.push(skin);
    model.meshes.push(Mesh {
        name: BONE_MESH_NAME.to_string(),
        joint: 0,
        skin: Some(model.skins.len() - 1),
        primitives: vec![prim],
        morph_weights: Vec::new(),
        target_names: Vec::new(),
    });
    Ok(())
}
