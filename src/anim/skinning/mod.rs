//! The skinning palette, the CPU reference skinning (the oracle the GPU compute shader
//! and the prepared job are tested against) and the prepared job ([`PreparedSkinningJob`]
//! on a [`PreparedSkin`]), the fast CPU skinning that `snapshot --obj`, the bounds and the
//! GPU tests' oracle use.

mod lanes;
mod prepared;

use glam::{Mat3, Mat4, Vec3};

use super::{AnimError, Skin};

pub use prepared::{PreparedSkin, PreparedSkinningJob};

/// Influences per vertex: glTF JOINTS_0/WEIGHTS_0 plus JOINTS_1/WEIGHTS_1.
pub const MAX_INFLUENCES: usize = 8;

/// Writes `palette[i] = model_from_joint[skin.joints[i]] * skin.inverse_bind[i]`, the
/// matrix that moves a bind-pose model-space vertex with skin joint `i`.
pub fn skinning_palette(
    model_from_joint: &[Mat4],
    skin: &Skin,
    palette: &mut [Mat4],
) -> Result<(), AnimError> {
    palette_with(model_from_joint, skin, palette, mul_by_affine)
}

/// [`skinning_palette`] for a skin whose inverse bind matrices all have the last row
/// (0, 0, 0, 1) exactly ([`Skin::inverse_binds_are_affine`], which a caller checks once
/// when it sizes its buffers for the skin; other matrices give wrong palettes). The same
/// values, without the per-matrix check.
pub fn skinning_palette_affine(
    model_from_joint: &[Mat4],
    skin: &Skin,
    palette: &mut [Mat4],
) -> Result<(), AnimError> {
    palette_with(model_from_joint, skin, palette, mul_affine)
}

#[inline(always)]
fn palette_with(
    model_from_joint: &[Mat4],
    skin: &Skin,
    palette: &mut [Mat4],
    mul: impl Fn(&Mat4, &Mat4) -> Mat4,
) -> Result<(), AnimError> {
    if palette.len() != skin.joints.len() {
        return Err(AnimError::LengthMismatch {
            what: "skinning palette",
            expected: skin.joints.len(),
            actual: palette.len(),
        });
    }
    for (i, (&joint, inverse_bind)) in skin.joints.iter().zip(&skin.inverse_bind).enumerate() {
        let Some(model) = model_from_joint.get(joint) else {
            return Err(AnimError::JointOutOfRange {
                what: format!("skin '{}' joint {i}", skin.name),
                joint,
                joint_count: model_from_joint.len(),
            });
        };
        palette[i] = mul(model, inverse_bind);
    }
    Ok(())
}

/// `a * b`, through [`mul_affine`] when `b`'s last row is exactly (0, 0, 0, 1) (an
/// inverse bind matrix's is); a projective `b` takes glam's full product.
#[inline(always)]
fn mul_by_affine(a: &Mat4, b: &Mat4) -> Mat4 {
    if b.x_axis.w != 0.0 || b.y_axis.w != 0.0 || b.z_axis.w != 0.0 || b.w_axis.w != 1.0 {
        return *a * *b;
    }
    mul_affine(a, b)
}

/// `a * b` for a `b` whose last row is (0, 0, 0, 1): each column is what glam's product
/// computes, in the same order (the same values; a zero may come out as -0 instead of
/// +0), with 12 of its 16 vector products.
#[inline(always)]
fn mul_affine(a: &Mat4, b: &Mat4) -> Mat4 {
    let column = |c: glam::Vec4| {
        a.x_axis * glam::Vec4::splat(c.x)
            + a.y_axis * glam::Vec4::splat(c.y)
            + a.z_axis * glam::Vec4::splat(c.z)
    };
    Mat4::from_cols(
        column(b.x_axis),
        column(b.y_axis),
        column(b.z_axis),
        column(b.w_axis) + a.w_axis,
    )
}

/// Linear-blend skinning of positions and normals on the CPU.
///
/// Weights are normalised to sum 1 per vertex first (glTF convention); a vertex whose
/// weights are all zero keeps its bind-pose position. Normals use the cofactor of the
/// blended matrix (the inverse transpose up to scale), so non-uniform scale keeps them
/// perpendicular, and are renormalised.
pub struct SkinningJob<'a> {
    /// Skinning matrices, one per skin joint (see [`skinning_palette`]).
    pub palette: &'a [Mat4],
    /// Bind-pose positions, model space (metres).
    pub positions: &'a [Vec3],
    /// Bind-pose unit normals, model space; may be empty to skip normals.
    pub normals: &'a [Vec3],
    /// Skin-joint indices per vertex; entries with weight 0 are ignored.
    pub joints: &'a [[u16; MAX_INFLUENCES]],
    /// Weights per vertex, any non-negative scale (normalised here).
    pub weights: &'a [[f32; MAX_INFLUENCES]],
}

impl SkinningJob<'_> {
    /// Writes skinned positions (and normals when given) in model space.
    pub fn run(
        &self,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) -> Result<(), AnimError> {
        let n = self.positions.len();
        same_lengths(
            n,
            &[
                ("skinning joints", self.joints.len()),
                ("skinning weights", self.weights.len()),
                ("skinned positions output", out_positions.len()),
            ],
        )?;
        let with_normals = !self.normals.is_empty();
        if with_normals {
            same_lengths(
                n,
                &[
                    ("skinning normals", self.normals.len()),
                    ("skinned normals output", out_normals.len()),
                ],
            )?;
        }
        for v in 0..n {
            let m = self.blended_matrix(v)?;
            let Some(m) = m else {
                out_positions[v] = self.positions[v];
                if with_normals {
                    out_normals[v] = self.normals[v];
                }
                continue;
            };
            out_positions[v] = m.transform_point3(self.positions[v]);
            if with_normals {
                out_normals[v] =
                    (cofactor(&Mat3::from_mat4(m)) * self.normals[v]).normalize_or_zero();
            }
        }
        Ok(())
    }

    fn blended_matrix(&self, v: usize) -> Result<Option<Mat4>, AnimError> {
        let w = &self.weights[v];
        let sum: f32 = w.iter().sum();
        if !sum.is_finite() || sum <= 0.0 {
            return Ok(None);
        }
        let inv = sum.recip();
        let mut m = Mat4::ZERO;
        for (k, (&weight, &joint)) in w.iter().zip(&self.joints[v]).enumerate() {
            if weight == 0.0 {
                continue;
            }
            let j = joint as usize;
            let Some(joint) = self.palette.get(j) else {
                return Err(AnimError::JointOutOfRange {
                    what: format!("vertex {v} influence {k}"),
                    joint: j,
                    joint_count: self.palette.len(),
                });
            };
            m += *joint * (weight * inv);
        }
        Ok(Some(m))
    }
}

/// Cofactor matrix: `det(m) * inverse(m)^T`, oriented so it never flips a normal when the
/// determinant is negative (mirrored joints).
pub fn cofactor(m: &Mat3) -> Mat3 {
    let c = Mat3::from_cols(
        m.y_axis.cross(m.z_axis),
        m.z_axis.cross(m.x_axis),
        m.x_axis.cross(m.y_axis),
    );
    if m.determinant() < 0.0 {
        -c
    } else {
        c
    }
}

/// `Ok` when every `(what, len)` has length `n`, the first that does not named otherwise.
fn same_lengths(n: usize, checks: &[(&'static str, usize)]) -> Result<(), AnimError> {
    match checks.iter().find(|&&(_, len)| len != n) {
        Some(&(what, len)) => Err(AnimError::LengthMismatch {
            what,
            expected: n,
            actual: len,
        }),
        None => Ok(()),
    }
}
