//! Typed errors of the animation core. Every variant says what was wrong and where.

use std::fmt;

/// An input rejected by a job or constructor of the animation core.
#[derive(Clone, Debug, PartialEq)]
pub enum AnimError {
    /// Two slices that must have the same length do not.
    LengthMismatch {
        /// The input whose length is wrong, as messages name it (`"reference pose"`).
        what: &'static str,
        /// The length it must have (often the skeleton's joint count).
        expected: usize,
        /// The length it has.
        actual: usize,
    },
    /// A joint index that is out of range.
    JointOutOfRange {
        /// What holds the index, as messages name it (`"skin 'Body' joint 3"`, `"hips"`).
        what: String,
        /// The joint index, into the skeleton's joints.
        joint: usize,
        /// How many joints the skeleton has.
        joint_count: usize,
    },
    /// Joints are not ordered parent-before-child.
    ParentOrder {
        /// Index of the joint whose parent does not come before it.
        joint: usize,
        /// Index of that joint's parent (`>= joint`).
        parent: usize,
    },
    /// A time or value that must be finite is NaN or infinite.
    NonFinite {
        /// The value, as messages name it (`"clip time"`, `"rest pose of joint 2"`).
        what: String,
    },
    /// Key times are not strictly increasing.
    KeysNotIncreasing {
        /// The track, as messages name it (`"root motion track"`).
        what: String,
        /// Index of the first key whose time is not above the previous key's.
        key: usize,
    },
    /// A value outside the supported range.
    OutOfRange {
        /// The setting or input, as messages name it (`"key reduction tolerance"`).
        what: String,
        /// The value and the range it must be in, as written after `what: `.
        detail: String,
    },
    /// A track or clip that is empty where data is needed.
    Empty {
        /// What has no data, as messages name it (`"motion matching clip set"`).
        what: String,
    },
    /// A clip index past the end of a model's clip list (`clips` long). The one
    /// definition every layer uses (the graph, the stage and the model wrap it).
    ClipOutOfRange {
        /// The clip index asked for, into the model's clips.
        clip: usize,
        /// How many clips the model has.
        clips: usize,
    },
    /// A joint named in `what` (a mask, a definition) that the skeleton lacks, with the
    /// closest names it has (nearest first; empty when it has no joints).
    UnknownJoint {
        /// What names the joint (`"mask"`).
        what: &'static str,
        /// The joint name as written.
        name: String,
        /// Up to four of the skeleton's joint names closest to `name`, nearest first.
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
            AnimError::ClipOutOfRange { clip, clips } => {
                write!(f, "clip {clip} out of range ({clips} clips)")
            }
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

/// An error and every cause under it, for the user boundary (the window's messages, the
/// command line's `error:` line). The project's errors already say their cause in their own
/// message (`clip 'Walk': joint 3: value is not finite`) and keep it in `source()` for code;
/// this writes each cause that the text so far does not already say, after `: `, so a
/// wrapped outside error (an `io::Error`, a ufbx or JSON error whose wrapper only says
/// "cannot read") still reaches the user. One line, no trailing period.
pub struct ErrorChain<'a>(pub &'a (dyn std::error::Error + 'static));

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut said = self.0.to_string();
        f.write_str(&said)?;
        let mut cause = self.0.source();
        while let Some(c) = cause {
            let text = c.to_string();
            if !text.is_empty() && !said.contains(&text) {
                write!(f, ": {text}")?;
                said.push_str(": ");
                said.push_str(&text);
            }
            cause = c.source();
        }
        Ok(())
    }
}
