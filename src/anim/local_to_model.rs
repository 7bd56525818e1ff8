//! Accumulates a local pose through the hierarchy once: `model = parent_model * local`.

use glam::{Mat3A, Mat4, Vec3A, Vec4};

use super::soa::{soa_len, SoaTransform};
use super::{AnimError, Transform};

/// Converts a local pose (parent space) into model-space matrices.
///
/// Joints must be ordered parent-before-child (as [`super::Skeleton`] guarantees), so this
/// is one forward loop. `model_from_root` places the roots (identity for model space).
pub struct LocalToModelJob<'a> {
    /// Parent of each joint, `None` for roots; `parents[i] < i`.
    pub parents: &'a [Option<usize>],
    /// Local transforms, one per joint.
    pub local: &'a [Transform],
    /// Transform applied to root joints (e.g. a world placement); usually identity.
    pub model_from_root: Mat4,
}

impl LocalToModelJob<'_> {
    /// Writes `model_from_joint` for every joint.
    pub fn run(&self, model_from_joint: &mut [Mat4]) -> Result<(), AnimError> {
        let n = self.parents.len();
        validate(
            self.parents,
            ("local pose", n, self.local.len()),
            model_from_joint.len(),
        )?;
        for i in 0..n {
            let parent = match self.parents[i] {
                None => self.model_from_root,
                Some(p) if p < i => model_from_joint[p],
                Some(p) => return Err(order_error(i, p, self.model_from_root, model_from_joint)),
            };
            model_from_joint[i] = mul_trs(&parent, &self.local[i]);
        }
        Ok(())
    }

    /// Recomputes `from` and every joint below it, leaving the others as they are: after a
    /// model-space edit of one joint's local transform (pelvis offset, IK corrections), the
    /// rest of `model_from_joint` is still valid (ozz's `from` joint). Joints before `from`
    /// are read, never written. Cost: one pass over the joints after `from`, each
    /// checked against its parent chain.
    pub fn run_subtree(&self, from: usize, model_from_joint: &mut [Mat4]) -> Result<(), AnimError> {
        let n = self.parents.len();
        if self.local.len() != n || model_from_joint.len() != n {
            return Err(AnimError::LengthMismatch {
                what: "local pose / model-space output",
                expected: n,
                actual: self.local.len().min(model_from_joint.len()),
            });
        }
        if from >= n {
            return Err(AnimError::JointOutOfRange {
                what: "local-to-model subtree root".into(),
                joint: from,
                joint_count: n,
            });
        }
        for i in from..n {
            if i != from && !is_below(self.parents, from, i) {
                continue;
            }
            model_from_joint[i] = self.joint(i, model_from_joint)?;
        }
        Ok(())
    }

    /// Joint `i`'s model transform from its parent's (already computed) one.
    #[inline]
    fn joint(&self, i: usize, model_from_joint: &[Mat4]) -> Result<Mat4, AnimError> {
        let parent = match self.parents[i] {
            None => self.model_from_root,
            Some(p) if p < i => model_from_joint[p],
            Some(p) => {
                return Err(AnimError::ParentOrder {
                    joint: i,
                    parent: p,
                })
            }
        };
        Ok(mul_trs(&parent, &self.local[i]))
    }
}

/// The length checks both jobs make before writing anything: the local pose's
/// (`(what, expected, actual)`) and the output's (one per joint).
///
/// Parent order is checked where each joint reads its parent, not in a pass of its own:
/// a pass over the parents took about 30 ns of the Robot's 260 ns local-to-model (58 joints),
/// every frame, for a hierarchy that a [`super::Skeleton`] already checked when it was
/// built. A joint whose parent does not come before it stops the job with
/// [`AnimError::ParentOrder`] and [`order_error`] sets every output matrix to
/// `model_from_root`, so no partly placed pose is left behind.
fn validate(
    parents: &[Option<usize>],
    (what, expected, actual): (&'static str, usize, usize),
    output_len: usize,
) -> Result<(), AnimError> {
    if actual != expected {
        return Err(AnimError::LengthMismatch {
            what,
            expected,
            actual,
        });
    }
    if output_len != parents.len() {
        return Err(AnimError::LengthMismatch {
            what: "model-space output",
            expected: parents.len(),
            actual: output_len,
        });
    }
    Ok(())
}

/// The parent-order error of joint `joint` (parent `parent`), the output reset to
/// `model_from_root` first (see [`validate`]).
#[cold]
#[inline(never)]
fn order_error(
    joint: usize,
    parent: usize,
    model_from_root: Mat4,
    model_from_joint: &mut [Mat4],
) -> AnimError {
    model_from_joint.fill(model_from_root);
    AnimError::ParentOrder { joint, parent }
}

/// Whether `joint` is a descendant of `ancestor` in a parents-before-children hierarchy
/// (the walk stops once it passes `ancestor`; a joint is not below itself).
pub(crate) fn is_below(parents: &[Option<usize>], ancestor: usize, joint: usize) -> bool {
    let mut j = joint;
    while let Some(p) = parents.get(j).copied().flatten() {
        if p == ancestor {
            return true;
        }
        if p < ancestor || p >= j {
            return false;
        }
        j = p;
    }
    false
}

/// `parent * local.to_mat4()`, using that the TRS matrix's bottom row is `(0, 0, 0, 1)`:
/// 12 column scalings instead of 16, and the rotation's columns are scaled in place.
/// Same operation order as glam's `Mat4 * Mat4`, so the result matches it (up to the sign
/// of zero terms).
#[inline]
fn mul_trs(parent: &Mat4, local: &Transform) -> Mat4 {
    let r = Mat3A::from_quat(local.rotation);
    let (s, t) = (local.scale, local.translation);
    let col =
        |c: Vec3A| -> Vec4 { parent.x_axis * c.x + parent.y_axis * c.y + parent.z_axis * c.z };
    Mat4::from_cols(
        col(r.x_axis * s.x),
        col(r.y_axis * s.y),
        col(r.z_axis * s.z),
        col(Vec3A::from(t)) + parent.w_axis,
    )
}

/// [`LocalToModelJob`] on a structure-of-arrays local pose ([`SoaTransform`] blocks, joint
/// `j` in lane `j % 4` of block `j / 4`).
///
/// Each block's four rotations become scaled rotation columns with vertical SIMD
/// arithmetic (glam's `Mat3A::from_quat` formula lane by lane, without the per-joint
/// shuffles of packing scalars into vectors); the parent products then run joint by joint
/// in parent order, as they must. The matrices are bit-identical to
/// [`LocalToModelJob`]'s on the same pose.
pub struct SoaLocalToModelJob<'a> {
    /// Parent of each joint, `None` for roots; `parents[i] < i`.
    pub parents: &'a [Option<usize>],
    /// Local transforms in blocks: [`soa_len`]`(parents.len())` of them.
    pub local: &'a [SoaTransform],
    /// Transform applied to root joints (e.g. a world placement); usually identity.
    pub model_from_root: Mat4,
}

/// A block's local matrices, component-major: `cols[c][r]` is row `r` of column `c`
/// (columns 0..3 the scaled rotation, 3 the translation), four joints per vector.
struct SoaColumns {
    cols: [[Vec4; 3]; 4],
}

impl SoaColumns {
    #[inline(always)]
    fn of(block: &SoaTransform) -> Self {
        let [x, y, z, w] = block.rotation;
        let [sx, sy, sz] = block.scale;
        let (x2, y2, z2) = (x + x, y + y, z + z);
        let (xx, xy, xz) = (x * x2, x * y2, x * z2);
        let (yy, yz, zz) = (y * y2, y * z2, z * z2);
        let (wx, wy, wz) = (w * x2, w * y2, w * z2);
        let one = Vec4::ONE;
        Self {
            cols: [
                [(one - (yy + zz)) * sx, (xy + wz) * sx, (xz - wy) * sx],
                [(xy - wz) * sy, (one - (xx + zz)) * sy, (yz + wx) * sy],
                [(xz + wy) * sz, (yz - wx) * sz, (one - (xx + yy)) * sz],
                block.translation,
            ],
        }
    }

    /// `parent * local` for the block's lane `L`.
    #[inline(always)]
    fn model<const L: usize>(&self, parent: &Mat4) -> Mat4 {
        let col = |c: &[Vec4; 3]| -> Vec4 {
            parent.x_axis * splat_lane::<L>(c[0])
                + parent.y_axis * splat_lane::<L>(c[1])
                + parent.z_axis * splat_lane::<L>(c[2])
        };
        Mat4::from_cols(
            col(&self.cols[0]),
            col(&self.cols[1]),
            col(&self.cols[2]),
            col(&self.cols[3]) + parent.w_axis,
        )
    }
}

/// Lane `L` of `v` in all four lanes (one shuffle).
#[inline(always)]
fn splat_lane<const L: usize>(v: Vec4) -> Vec4 {
    Vec4::splat(v.to_array()[L])
}

impl SoaLocalToModelJob<'_> {
    /// Writes `model_from_joint` for every joint (`parents.len()` of them).
    pub fn run(&self, model_from_joint: &mut [Mat4]) -> Result<(), AnimError> {
        let n = self.parents.len();
        validate(
            self.parents,
            ("SoA local pose", soa_len(n), self.local.len()),
            model_from_joint.len(),
        )?;
        // The previous joint's matrix stays in registers: in a chain (spine, limbs,
        // fingers) it is the next joint's parent, and reading it back from memory would
        // put a store-to-load forwarding delay on the chain's critical path.
        let mut prev = Mat4::IDENTITY;
        for (b, block) in self.local.iter().enumerate() {
            let cols = SoaColumns::of(block);
            let j = 4 * b;
            macro_rules! lane {
                ($l:literal) => {
                    let i = j + $l;
                    if i < n {
                        let parent = match self.parents[i] {
                            None => self.model_from_root,
                            // In a chain (spine, limbs, fingers) the parent is the joint
                            // before, still in registers.
                            Some(p) if p < i && p + 1 == i => prev,
                            Some(p) if p < i => model_from_joint[p],
                            Some(p) => {
                                let root = self.model_from_root;
                                return Err(order_error(i, p, root, model_from_joint));
                            }
                        };
                        prev = cols.model::<$l>(&parent);
                        model_from_joint[i] = prev;
                    }
                };
            }
            lane!(0);
            lane!(1);
            lane!(2);
            lane!(3);
        }
        Ok(())
    }
}
