//! Joint hierarchy and skins.

use glam::Mat4;

use super::soa::{to_soa, SoaTransform};
use super::{AnimError, Transform};

/// A joint hierarchy stored parent-before-child, so model-space accumulation is one
/// forward loop.
///
/// For glTF characters every node of the scene is a joint here (skin joints, their
/// ancestors such as a `Z_UP` correction node, and mesh nodes), so that any node an
/// animation targets can be sampled; a [`Skin`] selects the joints one mesh is bound to.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    names: Vec<String>,
    parents: Vec<Option<usize>>,
    rest_pose: Vec<Transform>,
    /// The rest pose in four-joint blocks (for the SoA jobs), padding lanes identity.
    rest_pose_soa: Vec<SoaTransform>,
    /// Joints a skin binds; empty when no skin binds any (every joint then counts as a
    /// bone: a BVH or a skinless FBX take).
    bound: Vec<bool>,
    /// A standing pose for analysis when the rest pose is not one (a BVH zero pose with
    /// every bone along +X): legs are found and measured on it. Empty: the rest pose.
    reference_pose: Vec<Transform>,
}

impl Skeleton {
    /// Builds a skeleton. `parents[i]` must be `None` or less than `i`; the rest pose is
    /// in each joint's parent space and must be finite.
    pub fn new(
        names: Vec<String>,
        parents: Vec<Option<usize>>,
        rest_pose: Vec<Transform>,
    ) -> Result<Self, AnimError> {
        let n = names.len();
        for (what, len) in [
            ("skeleton parents", parents.len()),
            ("skeleton rest pose", rest_pose.len()),
        ] {
            if len != n {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected: n,
                    actual: len,
                });
            }
        }
        for (joint, parent) in parents.iter().enumerate() {
            if let Some(parent) = *parent {
                if parent >= joint {
                    return Err(AnimError::ParentOrder { joint, parent });
                }
            }
        }
        for (joint, t) in rest_pose.iter().enumerate() {
            if !t.is_finite() {
                return Err(AnimError::NonFinite {
                    what: format!("rest pose of joint {joint}"),
                });
            }
        }
        Ok(Self {
            names,
            parents,
            rest_pose_soa: to_soa(&rest_pose),
            rest_pose,
            bound: Vec::new(),
            reference_pose: Vec::new(),
        })
    }

    /// The pose analysis stands the skeleton in (leg detection, leg lengths): the one set
    /// by [`Self::set_reference_pose`], else the rest pose. Each joint in its parent space.
    pub fn reference_pose(&self) -> &[Transform] {
        if self.reference_pose.is_empty() {
            &self.rest_pose
        } else {
            &self.reference_pose
        }
    }

    /// Sets the standing pose analysis uses instead of a rest pose that is not one (e.g.
    /// a BVH's first frame). Errors: not one finite transform per joint.
    pub fn set_reference_pose(&mut self, pose: Vec<Transform>) -> Result<(), AnimError> {
        if pose.len() != self.names.len() {
            return Err(AnimError::LengthMismatch {
                what: "reference pose",
                expected: self.names.len(),
                actual: pose.len(),
            });
        }
        if let Some(joint) = pose.iter().position(|t| !t.is_finite()) {
            return Err(AnimError::NonFinite {
                what: format!("reference pose of joint {joint}"),
            });
        }
        self.reference_pose = pose;
        Ok(())
    }

    /// Marks the joints the skins bind. Legs and the root-motion joint are looked for
    /// among them, so that a mesh node that shares a bone's name (Quaternius exports
    /// name the mesh pieces after the bones they follow) is never taken for a bone.
    /// Out-of-range skin joints are ignored (a [`Skin`] is checked when it is built).
    pub fn mark_bound_by(&mut self, skins: &[Skin]) {
        let mut bound = vec![false; self.joint_count()];
        for j in skins.iter().flat_map(|s| &s.joints) {
            if let Some(b) = bound.get_mut(*j) {
                *b = true;
            }
        }
        self.mark_bones(bound);
    }

    /// Marks which joints are bones when a format says so without a skin (an FBX file's
    /// limb nodes): one flag per joint. No flag set (or a list of the wrong length):
    /// every joint counts as a bone again.
    pub fn mark_bones(&mut self, bones: Vec<bool>) {
        self.bound = if bones.len() == self.joint_count() && bones.contains(&true) {
            bones
        } else {
            Vec::new()
        };
    }

    /// True when a skin binds `joint`, or when no skin binds any joint (then every joint
    /// is a bone). False for an out-of-range index.
    pub fn is_bound(&self, joint: usize) -> bool {
        joint < self.joint_count() && (self.bound.is_empty() || self.bound[joint])
    }

    /// Number of joints; valid joint indices are `0..joint_count()`.
    pub fn joint_count(&self) -> usize {
        self.names.len()
    }

    /// Name of each joint, by joint index (not necessarily unique).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Parent index of each joint (`None` for roots); always less than the joint's index.
    pub fn parents(&self) -> &[Option<usize>] {
        &self.parents
    }

    /// Rest (bind-time node) transforms, each in its parent's space.
    pub fn rest_pose(&self) -> &[Transform] {
        &self.rest_pose
    }

    /// The rest pose in [`SoaTransform`] blocks of four joints (joint `j` is lane `j % 4`
    /// of block `j / 4`; padding lanes hold the identity), for the SoA jobs.
    pub fn rest_pose_soa(&self) -> &[SoaTransform] {
        &self.rest_pose_soa
    }

    /// Index of the first joint with this exact name.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Number of ancestors of `joint` (0 for a root).
    pub fn depth(&self, joint: usize) -> usize {
        let mut depth = 0;
        let mut j = self.parents[joint];
        while let Some(p) = j {
            depth += 1;
            j = self.parents[p];
        }
        depth
    }

    /// True when `ancestor` is `joint` itself or one of its ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: usize, joint: usize) -> bool {
        let mut j = Some(joint);
        while let Some(i) = j {
            if i == ancestor {
                return true;
            }
            j = self.parents[i];
        }
        false
    }
}

/// A set of skeleton joints a mesh is bound to, with their inverse bind matrices.
///
/// `inverse_bind[i]` maps model-space bind-pose positions into the space of joint
/// `joints[i]` (`joint_from_model` at bind time), so the skinning matrix is
/// `model_from_joint * inverse_bind`.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    /// The skin's name, for messages and the UI.
    pub name: String,
    /// Skeleton index of each skin joint, in the skin's order (vertex JOINTS_n index it).
    pub joints: Vec<usize>,
    /// `joint_from_model` at bind time of each skin joint, in the order of `joints`.
    pub inverse_bind: Vec<Mat4>,
}

impl Skin {
    /// Whether every inverse bind matrix has the last row (0, 0, 0, 1) exactly (glTF's and
    /// FBX's do), so [`crate::skinning_palette_affine`] computes the palette.
    pub fn inverse_binds_are_affine(&self) -> bool {
        self.inverse_bind.iter().all(|m| {
            m.x_axis.w == 0.0 && m.y_axis.w == 0.0 && m.z_axis.w == 0.0 && m.w_axis.w == 1.0
        })
    }

    /// Builds a skin and checks it against `skeleton`.
    pub fn new(
        name: String,
        joints: Vec<usize>,
        inverse_bind: Vec<Mat4>,
        skeleton: &Skeleton,
    ) -> Result<Self, AnimError> {
        if inverse_bind.len() != joints.len() {
            return Err(AnimError::LengthMismatch {
                what: "skin inverse bind matrices",
                expected: joints.len(),
                actual: inverse_bind.len(),
            });
        }
        for (i, &j) in joints.iter().enumerate() {
            if j >= skeleton.joint_count() {
                return Err(AnimError::JointOutOfRange {
                    what: format!("skin joint {i}"),
                    joint: j,
                    joint_count: skeleton.joint_count(),
                });
            }
        }
        for (i, m) in inverse_bind.iter().enumerate() {
            if !m.is_finite() {
                return Err(AnimError::NonFinite {
                    what: format!("inverse bind matrix {i}"),
                });
            }
        }
        Ok(Self {
            name,
            joints,
            inverse_bind,
        })
    }
}
