//! Accumulates a local pose through the hierarchy once: `model = parent_model * local`.

use glam::Mat4;

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
        for i in 0..n {
            let local = self.local[i].to_mat4();
            model_from_joint[i] = match self.parents[i] {
                None => self.model_from_root * local,
                Some(p) if p < i => model_from_joint[p] * local,
                Some(p) => {
                    return Err(AnimError::ParentOrder {
                        joint: i,
                        parent: p,
                    })
                }
            };
        }
        Ok(())
    }
}
