//! CPU-side bounds of a posed model (for frame-to-fit and for checking where the GPU
//! drew it): the CPU reference skinning of every vertex, plus joint positions.

use glam::{Mat4, Vec3};

use super::PoseMatrices;
use crate::anim::morph::{MorphDeltas, MorphJob};
use crate::anim::{AnimError, PreparedSkin, PreparedSkinningJob, MAX_INFLUENCES};
use crate::asset::Model;

/// Meshes at least this large are skinned over rayon's threads (below it the threads'
/// start-up costs more than they save: the Robot's 7,218 vertices skin in ~30 us).
const PARALLEL_SKINNING_VERTICES: usize = 16_384;

/// An axis-aligned box; `min > max` when empty.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest x, y and z of the box, in the space of the points it holds.
    pub min: Vec3,
    /// Largest x, y and z of the box, in the same space.
    pub max: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    /// The empty box (`min` +inf, `max` -inf): extending it by a point gives that point.
    pub const EMPTY: Aabb = Aabb {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    /// The smallest box holding every finite point of `points` (empty when there is none).
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Self {
        let mut b = Self::EMPTY;
        for p in points {
            b.extend(p);
        }
        b
    }

    /// Grows the box to hold `p` (non-finite points are ignored).
    pub fn extend(&mut self, p: Vec3) {
        if p.is_finite() {
            self.min = self.min.min(p);
            self.max = self.max.max(p);
        }
    }

    /// The smallest box holding both boxes.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// True when the box holds no point (`min > max` on some axis, or a NaN bound).
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y && self.min.z <= self.max.z)
    }

    /// The midpoint of `min` and `max` (NaN for an empty box).
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Length of the diagonal (0 when empty).
    pub fn diagonal(&self) -> f32 {
        if self.is_empty() {
            0.0
        } else {
            (self.max - self.min).length()
        }
    }

    /// The eight corners.
    pub fn corners(&self) -> [Vec3; 8] {
        std::array::from_fn(|i| {
            Vec3::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            )
        })
    }
}

/// Joint indices and weights that drive a primitive's vertices on the GPU and in the CPU
/// oracle. Skinned meshes use the file's; unskinned meshes use palette entry 0 with
/// weight 1 (the node's model transform, see [`PoseMatrices::mesh_palette`]).
pub fn primitive_influences(
    model: &Model,
    mesh_index: usize,
    primitive_index: usize,
) -> (Vec<[u16; MAX_INFLUENCES]>, Vec<[f32; MAX_INFLUENCES]>) {
    let mesh = &model.meshes[mesh_index];
    let primitive = &mesh.primitives[primitive_index];
    if mesh.skin.is_some() {
        (primitive.joints.clone(), primitive.weights.clone())
    } else {
        let mut w = [0.0; MAX_INFLUENCES];
        w[0] = 1.0;
        let n = primitive.positions.len();
        (vec![[0; MAX_INFLUENCES]; n], vec![w; n])
    }
}

/// Morphs and skins one primitive on the CPU ([`MorphJob`] with the pose's morph weights
/// for the mesh, or its defaults, then [`PreparedSkinningJob`], which matches the plain
/// reference [`crate::anim::SkinningJob`] to 1e-5 of the mesh's size, tested): positions,
/// and normals when `with_normals`. The GPU pass is tested against it; `snapshot --obj`
/// and the bounds use it.
pub fn cpu_skin_primitive(
    model: &Model,
    pose: &impl PoseMatrices,
    mesh_index: usize,
    primitive_index: usize,
    with_normals: bool,
) -> Result<(Vec<Vec3>, Vec<Vec3>), AnimError> {
    let mesh = &model.meshes[mesh_index];
    let primitive = &mesh.primitives[primitive_index];
    let palette = pose.mesh_palette(model, mesh_index);
    let (joints, weights) = primitive_influences(model, mesh_index, primitive_index);
    let n = primitive.positions.len();
    let base_normals: &[Vec3] = if with_normals {
        &primitive.normals
    } else {
        &[]
    };
    let morphed_positions;
    let morphed_normals;
    let (bind_positions, bind_normals) = if primitive.morph_targets.is_empty() {
        (&primitive.positions[..], base_normals)
    } else {
        let morph_weights = match pose.morph_weights().get(mesh_index) {
            Some(w) if w.len() == mesh.morph_weights.len() => &w[..],
            _ => &mesh.morph_weights[..],
        };
        let targets: Vec<MorphDeltas> = primitive
            .morph_targets
            .iter()
            .map(|t| MorphDeltas {
                positions: &t.positions,
                normals: if with_normals { &t.normals } else { &[] },
                tangents: &[],
            })
            .collect();
        let mut p = vec![Vec3::ZERO; n];
        let mut nrm = vec![Vec3::ZERO; base_normals.len()];
        MorphJob {
            positions: &primitive.positions,
            normals: base_normals,
            tangents: &[],
            targets: &targets,
            weights: morph_weights,
        }
        .run(&mut p, &mut nrm, &mut [])?;
        morphed_positions = p;
        morphed_normals = nrm;
        (&morphed_positions[..], &morphed_normals[..])
    };
    let mut positions = vec![Vec3::ZERO; n];
    let mut normals = vec![Vec3::ZERO; if with_normals { n } else { 0 }];
    // The prepared job: weights normalised once, loops per influence count, four vertices
    // at a time; big meshes over rayon's threads (the same results either way).
    let skin = PreparedSkin::new(&joints, &weights, bind_positions, bind_normals)?;
    let job = PreparedSkinningJob {
        palette: &palette,
        skin: &skin,
    };
    if n >= PARALLEL_SKINNING_VERTICES {
        job.run_parallel(&mut positions, &mut normals)?;
    } else {
        job.run(&mut positions, &mut normals)?;
    }
    Ok((positions, normals))
}

/// The box around every CPU-skinned vertex of the posed model (empty for a model without
/// meshes; use [`joint_bounds`] then).
pub fn skinned_bounds(model: &Model, pose: &impl PoseMatrices) -> Result<Aabb, AnimError> {
    let mut bounds = Aabb::EMPTY;
    for (m, mesh) in model.meshes.iter().enumerate() {
        for p in 0..mesh.primitives.len() {
            let (positions, _) = cpu_skin_primitive(model, pose, m, p, false)?;
            for v in positions {
                bounds.extend(v);
            }
        }
    }
    Ok(bounds)
}

/// The box around every joint's model-space origin.
pub fn joint_bounds(pose: &impl PoseMatrices) -> Aabb {
    Aabb::from_points(
        pose.model_from_joint()
            .iter()
            .map(|m: &Mat4| m.w_axis.truncate()),
    )
}

/// Skinned bounds, falling back to the joints when the model has no geometry.
pub fn pose_bounds(model: &Model, pose: &impl PoseMatrices) -> Result<Aabb, AnimError> {
    let b = skinned_bounds(model, pose)?;
    Ok(if b.is_empty() { joint_bounds(pose) } else { b })
}
