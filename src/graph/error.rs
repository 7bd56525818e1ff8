//! Typed errors of the pose graph: loading a definition, building the runtime graph from
//! it, and driving it (travel). Every variant says what was wrong and where (the file and
//! line, or the state or layer and the clip, parameter or field); the text users see is
//! [`GraphError`]'s `Display`.

use std::fmt;
use std::path::PathBuf;

use crate::anim::state_machine::StateMachineError;
use crate::anim::AnimError;

/// Everything loading, building or driving a pose graph can fail with.
///
/// `context` fields name the part of the definition at fault as the messages show it:
/// `base`, `state 'Walk'`, `layer 'Wave'`.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphError {
    /// A definition file that could not be read.
    Read {
        /// The definition file, as given.
        file: PathBuf,
        /// The I/O error's kind (`NotFound`...), for callers that tell cases apart.
        kind: std::io::ErrorKind,
        /// The I/O error's text.
        message: String,
    },
    /// A definition that does not parse (RON syntax or shape), at a line and column.
    Parse {
        /// The definition file, as given.
        file: PathBuf,
        /// Where the error starts: line, from 1.
        line: usize,
        /// Where the error starts: column, from 1.
        column: usize,
        /// What RON found wrong there.
        error: ron::Error,
    },
    /// A node or layer names a clip the model does not have (`clips`: the ones it has).
    UnknownClip {
        /// The part of the definition that names it (`state 'Walk'`, `layer 'Wave'`).
        context: String,
        /// The clip name as written.
        clip: String,
        /// The names of the model's clips, in the model's order.
        clips: Vec<String>,
    },
    /// An additive layer's reference frame names a clip the model does not have.
    UnknownReferenceClip {
        /// The clip name as written in the reference.
        clip: String,
    },
    /// A node, blend space or layer weight names a float parameter `params` does not
    /// declare.
    UnknownParameter {
        /// The part of the definition that names it (`base`, `layer 'Wave'`).
        context: String,
        /// The parameter name as written.
        param: String,
    },
    /// A node's field (`rate`, `offset`) that must be finite is not.
    NotFinite {
        /// The part of the definition holding the field (`state 'Walk'`, `layer 'Wave'`).
        context: String,
        /// The field's name in the definition: `rate`, `offset` or `hold`.
        field: &'static str,
    },
    /// A fixed weight that is negative or not finite.
    BadWeight {
        /// The part of the definition holding the weight (`base`, `layer 'Wave'`).
        context: String,
        /// The weight as written.
        weight: f32,
    },
    /// A blend without inputs.
    EmptyBlend {
        /// The part of the definition holding the blend (`base`, `state 'Walk'`).
        context: String,
    },
    /// A state machine anywhere but the graph's base node.
    NestedStateMachine {
        /// The part of the definition holding it (`state 'Walk'`, `layer 'Wave'`).
        context: String,
    },
    /// A blend space the core refuses (too few or coincident samples...).
    BlendSpace {
        /// The part of the definition holding the blend space (`base`, `state 'Walk'`).
        context: String,
        /// Why the core refused its positions or points.
        source: AnimError,
    },
    /// A layer mask naming joints the skeleton lacks, or with bad weights.
    Mask {
        /// The layer, as messages name it (`layer 'Wave'`).
        context: String,
        /// Why the core refused the mask (an unknown joint name...).
        source: AnimError,
    },
    /// A clip whose root motion cannot be extracted.
    RootMotion {
        /// The part of the definition that plays the clip (`state 'Walk'`).
        context: String,
        /// The clip's name.
        clip: String,
        /// Why the core cannot extract its root motion.
        source: AnimError,
    },
    /// A clip whose playback clock cannot be made (a non-finite duration).
    Clock {
        /// The clip's name.
        clip: String,
        /// Why the core refused the clock (the duration in seconds is not finite...).
        source: AnimError,
    },
    /// The state machine definition is refused (see [`StateMachineError`]).
    StateMachine(StateMachineError),
    /// `travel` on a graph whose base is not a state machine.
    NoStateMachine,
    /// `travel` to a state the machine does not have (`states`: the ones it has).
    UnknownState {
        /// The state name as given to `travel`.
        state: String,
        /// The machine's state names, in state index order.
        states: Vec<String>,
    },
    /// An error of the animation core (sampling, clocks, blending...).
    Anim(AnimError),
    /// Another graph error in a part of the definition: `CONTEXT: ERROR` (a layer's
    /// reference, a clip input's clock).
    In {
        /// The part of the definition, as messages name it (`layer 'Wave': reference`).
        context: String,
        /// The error found in that part.
        source: Box<GraphError>,
    },
}

impl GraphError {
    /// `self` in a part of the definition (`layer 'Wave': reference`).
    pub fn in_context(self, context: impl Into<String>) -> Self {
        GraphError::In {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// The innermost error under [`GraphError::In`] layers.
    pub fn innermost(&self) -> &GraphError {
        match self {
            GraphError::In { source, .. } => source.innermost(),
            other => other,
        }
    }
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphError::Read { file, message, .. } => {
                write!(f, "{}: cannot read: {message}", file.display())
            }
            GraphError::Parse {
                file,
                line,
                column,
                error,
            } => write!(f, "{}:{line}:{column}: {error}", file.display()),
            GraphError::UnknownClip {
                context,
                clip,
                clips,
            } => write!(
                f,
                "{context}: unknown clip '{clip}' (clips: {})",
                clips.join(", ")
            ),
            GraphError::UnknownReferenceClip { clip } => write!(f, "unknown clip '{clip}'"),
            GraphError::UnknownParameter { context, param } => write!(
                f,
                "{context}: unknown float parameter '{param}' (declare it in `params`)"
            ),
            GraphError::NotFinite { context, field } => {
                write!(f, "{context}: {field} must be finite")
            }
            GraphError::BadWeight { context, weight } => {
                write!(f, "{context}: weight {weight} must be finite and >= 0")
            }
            GraphError::EmptyBlend { context } => {
                write!(f, "{context}: a blend needs at least one input")
            }
            GraphError::NestedStateMachine { context } => write!(
                f,
                "{context}: state machines can only be the graph's base node"
            ),
            GraphError::BlendSpace { context, source } => {
                write!(f, "{context}: blend space: {source}")
            }
            GraphError::Mask { context, source } => write!(f, "{context}: mask: {source}"),
            GraphError::RootMotion {
                context,
                clip,
                source,
            } => write!(f, "{context}: clip '{clip}': root motion: {source}"),
            GraphError::Clock { clip, source } => write!(f, "clip '{clip}': {source}"),
            GraphError::StateMachine(e) => fmt::Display::fmt(e, f),
            GraphError::NoStateMachine => f.write_str("the graph has no state machine"),
            GraphError::UnknownState { state, states } => {
                write!(f, "no state '{state}' (states: {})", states.join(", "))
            }
            GraphError::Anim(e) => fmt::Display::fmt(e, f),
            GraphError::In { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

impl std::error::Error for GraphError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GraphError::Parse { error, .. } => Some(error),
            GraphError::BlendSpace { source, .. }
            | GraphError::Mask { source, .. }
            | GraphError::RootMotion { source, .. }
            | GraphError::Clock { source, .. } => Some(source),
            GraphError::StateMachine(e) => Some(e),
            GraphError::Anim(e) => Some(e),
            GraphError::In { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

impl From<AnimError> for GraphError {
    fn from(e: AnimError) -> Self {
        GraphError::Anim(e)
    }
}

impl From<StateMachineError> for GraphError {
    fn from(e: StateMachineError) -> Self {
        GraphError::StateMachine(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn errors_in_a_part_of_the_definition_read_as_before_and_keep_the_inner_variant() {
        let e = GraphError::UnknownReferenceClip {
            clip: "Pose".into(),
        }
        .in_context("layer 'Wave': reference");
        assert_eq!(
            e.to_string(),
            "layer 'Wave': reference: unknown clip 'Pose'"
        );
        assert!(matches!(
            e.innermost(),
            GraphError::UnknownReferenceClip { clip } if clip == "Pose"
        ));
        assert!(e.source().is_some());
    }

    #[test]
    fn unknown_names_list_what_there_is() {
        let e = GraphError::UnknownState {
            state: "Fly".into(),
            states: vec!["Idle".into(), "Walk".into()],
        };
        assert_eq!(e.to_string(), "no state 'Fly' (states: Idle, Walk)");
        let e = GraphError::UnknownParameter {
            context: "base".into(),
            param: "speed".into(),
        };
        assert_eq!(
            e.to_string(),
            "base: unknown float parameter 'speed' (declare it in `params`)"
        );
        let e = GraphError::from(AnimError::NonFinite {
            what: "clip time".into(),
        });
        assert_eq!(e.to_string(), "clip time: value is not finite");
        assert_eq!(e.to_string(), "clip time: value is not finite");
    }
}
