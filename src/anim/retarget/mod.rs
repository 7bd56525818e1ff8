//! Retargeting: a clip made on one humanoid skeleton played on another.
//!
//! 1. Both skeletons are mapped onto a humanoid profile ([`BONES`], VRM's names) by
//!    [`automap`]: name tables for the common rigs, then the hierarchy for what names do
//!    not give.
//! 2. [`Retargeter::new`] builds the retarget poses: the source's reference pose (its rest
//!    pose, or the standing pose a zero-pose BVH is analysed on) and the target's rest pose
//!    with every mapped bone turned to point where the source's points, so an A-pose
//!    character and a T-pose clip agree (and a bones-along-+X BVH and a T-pose character).
//! 3. Per frame ([`Retargeter::retarget_pose`]) each mapped bone's model-space rotation
//!    change from the source's retarget pose is applied to the target's retarget pose in a
//!    shared frame (the two characters' facings aligned); unmapped target joints keep their
//!    retarget-pose local transforms; the hips move by the source hips' displacement scaled
//!    by the leg-length ratio.
//! 4. [`Retargeter::retarget_clip`] samples a whole clip; planted source feet can pin the
//!    target's feet with two-bone IK; [`quality`] measures the result.
//!
//! Units: model space of each skeleton (metres for imported files); angles in radians.

mod automap;
mod job;
pub mod mirror;
pub mod quality;

pub use automap::{automap, automap_partial, MappedBone, RetargetMap};
pub use job::{pose_chain_of, ChainPose, ChainPoses, RetargetOptions, Retargeter, POSE_CHAINS};

/// The humanoid profile: VRM's bone names, parents first within each chain.
pub const BONES: [&str; 22] = [
    "hips",
    "spine",
    "chest",
    "upperChest",
    "neck",
    "head",
    "leftShoulder",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightShoulder",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "leftToes",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
    "rightToes",
];

/// The bones every humanoid must have (VRM's required set).
pub const REQUIRED: [&str; 15] = [
    "hips",
    "spine",
    "head",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
];

/// Bone pairs `(bone, child bone)` whose direction the retarget poses match, parent
/// chains first. A bone whose child is not mapped keeps its own orientation.
pub const CHAINS: [(&str, &[&str]); 17] = [
    ("hips", &["spine"]),
    ("spine", &["chest", "upperChest", "neck", "head"]),
    ("chest", &["upperChest", "neck", "head"]),
    ("upperChest", &["neck", "head"]),
    ("neck", &["head"]),
    ("leftShoulder", &["leftUpperArm"]),
    ("leftUpperArm", &["leftLowerArm"]),
    ("leftLowerArm", &["leftHand"]),
    ("rightShoulder", &["rightUpperArm"]),
    ("rightUpperArm", &["rightLowerArm"]),
    ("rightLowerArm", &["rightHand"]),
    ("leftUpperLeg", &["leftLowerLeg"]),
    ("leftLowerLeg", &["leftFoot"]),
    ("leftFoot", &["leftToes"]),
    ("rightUpperLeg", &["rightLowerLeg"]),
    ("rightLowerLeg", &["rightFoot"]),
    ("rightFoot", &["rightToes"]),
];

/// Index of a profile bone by its VRM name.
pub fn bone_index(name: &str) -> Option<usize> {
    BONES.iter().position(|b| *b == name)
}
