//! Accumulates a local pose through the hierarchy once: `model = parent_model * local`.

use glam::{Mat3A, Mat4, Vec3A, Vec4};

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
        if self.local.len() != n {
            return Err(AnimError::LengthMismatch {
                what: "local pose",
                expected: n,
                actual: self.local.len(),
            });
        }
        if model_from_joint.len() != n {
            return Err(AnimError::LengthMismatch {
                what: "model-space output",
                expected: n,
                actual: model_from_joint.len(),
            });
        }
        // Parent order is checked once up front, so the loop below is branch-light and
        // an invalid hierarchy writes nothing.
        if let Some((joint, parent)) = self
            .parents
            .iter()
            .enumerate()
            .find_map(|(i, p)| p.filter(|&p| p >= i).map(|p| (i, p)))
        {
            return Err(AnimError::ParentOrder { joint, parent });
        }
        for i in 0..n {
            let parent = match self.parents[i] {
                None => self.model_from_root,
                Some(p) => model_from_joint[p],
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

/// `parent * local.to_mat4()`, using that the TRS matrix's bottom row is `(0, 0, 0, 1)`:
/// 12 column scalings instead of 16, and the rotation's columns are scaled in place.
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
