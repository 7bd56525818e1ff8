//! Typed errors of the animation core. Every variant says what was wrong and where.

use std::fmt;

/// An input rejected by a job or constructor of the animation core.
#[derive(Clone, Debug, PartialEq)]
pub enum AnimError {
    /// Two slices that must have the same length do not.
    LengthMismatch {
        what: &'static str,
        expected: usize,
        actual: usize,
    },
    /// A joint index that is out of range.
    JointOutOfRange {
        what: String,
        joint: usize,
        joint_count: usize,
    },
    /// Joints are not ordered parent-before-child.
    ParentOrder { joint: usize, parent: usize },
    /// A time or value that must be finite is NaN or infinite.
    NonFinite { what: String },
    /// Key times are not strictly increasing.
    KeysNotIncreasing { what: String, key: usize },
    /// A value outside the supported range.
    OutOfRange { what: String, detail: String },
    /// A track or clip that is empty where data is needed.
    Empty { what: String },
    /// A joint named in `what` (a mask, a definition) that the skeleton lacks, with the
    /// closest names it has (nearest first; empty when it has no joints).
    UnknownJoint {
        what: &'static str,
        name: String,
        closest: Vec<String>,
    },
}

impl fmt::Display for AnimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnimError::LengthMismatch {
                what,
                expected,
                actual,
            } => write!(f, "{what}: expected {expected} elements, got {actual}"),
            AnimError::JointOutOfRange {
                what,
                joint,
                joint_count,
            } => write!(
                f,
                "{what}: joint {joint} is out of range (skeleton has {joint_count} joints)"
            ),
            AnimError::ParentOrder { joint, parent } => write!(
                f,
                "joint {joint} has parent {parent}; parents must come before children"
            ),
            AnimError::NonFinite { what } => write!(f, "{what}: value is not finite"),
            AnimError::KeysNotIncreasing { what, key } => {
                write!(f, "{what}: key times not increasing at key {key}")
            }
            AnimError::OutOfRange { what, detail } => write!(f, "{what}: {detail}"),
            AnimError::Empty { what } => write!(f, "{what}: no data"),
            AnimError::UnknownJoint {
                what,
                name,
                closest,
            } if closest.is_empty() => write!(
                f,
                "unknown joint '{name}' in {what}; the skeleton has no joints"
            ),
            AnimError::UnknownJoint {
                what,
                name,
                closest,
            } => write!(
                f,
                "unknown joint '{name}' in {what}; closest joints: {}",
                closest.join(", ")
            ),
        }
    }
}

impl std::error::Error for AnimError {}
