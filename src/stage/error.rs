//! Typed errors of the stage: sessions and their motion sources (graph, locomotion,
//! motion matching), scenarios, retargeting and its map files. Every variant says what
//! was wrong and where (the file and line, the clip, the bone, the frame); the text users
//! see is [`StageError`]'s `Display`.

use std::fmt;
use std::path::PathBuf;

use crate::anim::contacts::LegError;
use crate::anim::retarget::BONES;
use crate::anim::state_machine::ParamError;
use crate::anim::AnimError;
use crate::asset::{GlbError, ImportError, LoadError, ModelError};
use crate::graph::GraphError;

/// Everything the stage can fail with.
#[derive(Clone, Debug, PartialEq)]
pub enum StageError {
    // --- Errors of the layers below, shown as they are ---
    /// Building or driving the pose graph failed.
    Graph(GraphError),
    /// A job of the animation core refused its input.
    Anim(AnimError),
    /// A graph parameter was set with the wrong name, type or value.
    Param(ParamError),
    /// No legs could be found in the rig.
    Legs(LegError),
    /// A file does not import.
    Import(ImportError),
    /// A file, folder or the demo does not load (options, import, key reduction).
    Load(LoadError),
    /// A clip's analysis failed, or a clip index is out of range for the model.
    Model(ModelError),
    /// Animations cannot be appended to the target GLB.
    Glb(GlbError),

    // --- Files ---
    /// A file that cannot be read or written (`action`: `cannot read`, `cannot write`).
    Io {
        path: PathBuf,
        action: &'static str,
        kind: std::io::ErrorKind,
        message: String,
    },
    /// A RON file (retarget map, tag sidecar) that does not parse, at a line and column.
    Ron {
        path: PathBuf,
        line: usize,
        column: usize,
        error: ron::Error,
    },
    /// A value that cannot be written as RON.
    RonWrite { path: PathBuf, message: String },

    // --- Clips and poses ---
    /// A clip (named) whose data the core refuses.
    Clip { clip: String, source: AnimError },
    /// A model that cannot be posed (`model`: its source).
    Pose { model: String, source: AnimError },
    /// A model without animations where one is needed.
    NoAnimations { model: String },
    /// A clip's playback stopped with an error (the timeline's message).
    Playback { message: String },

    // --- Locomotion setup ---
    /// The rig has no legs to warp.
    NoLegs { model: String },
    /// A leg whose joints are out of the skeleton's range.
    LegJointOutOfRange { leg: String },
    /// A leg whose calf does not hang below its thigh.
    CalfNotBelowThigh {
        leg: String,
        calf: String,
        thigh: String,
    },
    /// The legs share no parent joint, so there is no pelvis to move.
    NoPelvis { model: String },

    // --- Scenarios ---
    /// A scenario's `fps` that is not positive and finite.
    ScenarioFps { fps: f64 },
    /// A scenario's `seconds` that is negative or not finite.
    ScenarioSeconds { seconds: f64 },
    /// A scenario longer than the frames a run may have.
    ScenarioTooLong,
    /// A scenario event whose time is not finite.
    ScenarioEventTime { event: usize },
    /// A scenario event (due at `at_secs`) that failed.
    ScenarioEvent {
        at_secs: f64,
        source: Box<StageError>,
    },
    /// A scenario event that ramps a float parameter the graph does not have.
    UnknownFloatParameter { param: String },
    /// A motion-matching action (`action`: how it reads) in a graph scenario.
    MatchingAction { at_secs: f64, action: String },
    /// A scenario's parameter ramp that the graph refused.
    ScenarioRamp(ParamError),
    /// A scenario frame that reported an error (`message`: the session's).
    Frame { frame: u64, message: String },

    // --- Motion matching ---
    /// An error of motion matching's set, settings or matcher.
    Matching(Box<StageError>),
    /// The motion-matching database cannot be built.
    MatchingDatabase(AnimError),
    /// A live motion-matching frame failed.
    MatchingFrame { frame: u64, source: AnimError },
    /// Replaying a recorded motion-matching frame failed.
    MatchingReplay { frame: usize, source: AnimError },
    /// The motion-matching definition names a clip the model does not have.
    MatchingUnknownClip { clip: String },
    /// A motion-matching style that is not one of the set's tags.
    MatchingUnknownStyle { style: String, tags: Vec<String> },
    /// The model has no clip motion matching can use.
    NoClipToMatch,
    /// A tag past the 32 a database holds.
    TooManyTags { tag: String },
    /// A tag on a clip that is not in the set.
    TagClipNotInSet { tag: String, clip: String },
    /// A tag whose clip-time range is invalid.
    TagRange {
        tag: String,
        clip: String,
        start_secs: f32,
        end_secs: f32,
    },

    // --- Retargeting ---
    /// The automatic map of a skeleton failed (`role`: `source` or `target`).
    Automap {
        model: String,
        role: String,
        source: AnimError,
    },
    /// A map file names a joint the skeleton does not have.
    MapNoJoint {
        role: String,
        bone: String,
        joint: String,
        model: String,
    },
    /// A map file names a bone that is not in the profile.
    MapNotABone { role: String, bone: String },
    /// A map file's `chains` names something that is not a chain (`path`: the file).
    MapNotAChain {
        chain: String,
        path: Option<std::path::PathBuf>,
    },
    /// Required bones the map leaves without a joint.
    MapMissing {
        model: String,
        role: String,
        missing: Vec<String>,
    },
    /// The retargeter cannot be set up from the two maps.
    Retargeter {
        source_model: String,
        target_model: String,
        error: AnimError,
    },
    /// The source model has no clip of that name.
    NoClipNamed { model: String, clip: String },
    /// Retargeting, measuring or mirroring a clip of `model` failed.
    RetargetClip {
        model: String,
        clip: String,
        source: AnimError,
    },
    /// `--library` found no clip.
    EmptyLibrary,
    /// `--mirror` on a model without left and right legs.
    MirrorNoLegs { model: String },
    /// `--mirror` refused a clip.
    Mirror { clip: String, source: AnimError },

    // --- A/B compare ---
    /// The file compared with the model is not the same skeleton.
    NotSameSkeleton {
        path: PathBuf,
        matched: usize,
        joints: usize,
        no_clips: bool,
    },
}

impl StageError {
    /// A file that cannot be read.
    pub fn read(path: impl Into<PathBuf>, e: &std::io::Error) -> Self {
        Self::io(path, "cannot read", e)
    }

    /// A file that cannot be written.
    pub fn write(path: impl Into<PathBuf>, e: &std::io::Error) -> Self {
        Self::io(path, "cannot write", e)
    }

    fn io(path: impl Into<PathBuf>, action: &'static str, e: &std::io::Error) -> Self {
        StageError::Io {
            path: path.into(),
            action,
            kind: e.kind(),
            message: e.to_string(),
        }
    }

    /// This error inside motion matching (`motion matching: ERROR`).
    pub fn in_matching(self) -> Self {
        StageError::Matching(Box::new(self))
    }

    /// This error in a scenario event due at `at_secs` (`scenario: at T s: ERROR`).
    pub fn at_scenario_time(self, at_secs: f64) -> Self {
        StageError::ScenarioEvent {
            at_secs,
            source: Box::new(self),
        }
    }
}

impl fmt::Display for StageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StageError::Graph(e) => fmt::Display::fmt(e, f),
            StageError::Anim(e) => fmt::Display::fmt(e, f),
            StageError::Param(e) => fmt::Display::fmt(e, f),
            StageError::Legs(e) => fmt::Display::fmt(e, f),
            StageError::Import(e) => fmt::Display::fmt(e, f),
            StageError::Load(e) => fmt::Display::fmt(e, f),
            StageError::Model(e) => fmt::Display::fmt(e, f),
            StageError::Glb(e) => fmt::Display::fmt(e, f),
            StageError::Io {
                path,
                action,
                message,
                ..
            } => write!(f, "{}: {action}: {message}", path.display()),
            StageError::Ron {
                path,
                line,
                column,
                error,
            } => write!(
                f,
                "{}: line {line}, column {column}: {error}",
                path.display()
            ),
            StageError::RonWrite { path, message } => {
                write!(f, "{}: {message}", path.display())
            }
            StageError::Clip { clip, source } => write!(f, "clip '{clip}': {source}"),
            StageError::Pose { model, source } => write!(f, "{model}: {source}"),
            StageError::NoAnimations { model } => write!(f, "{model}: has no animations"),
            StageError::Playback { message } => f.write_str(message),
            StageError::NoLegs { model } => write!(f, "{model}: no legs to warp"),
            StageError::LegJointOutOfRange { leg } => {
                write!(f, "leg '{leg}': joint out of range")
            }
            StageError::CalfNotBelowThigh { leg, calf, thigh } => write!(
                f,
                "leg '{leg}': calf '{calf}' is not below thigh '{thigh}'"
            ),
            StageError::NoPelvis { model } => write!(
                f,
                "{model}: the legs share no parent joint (no pelvis to move)"
            ),
            StageError::ScenarioFps { fps } => {
                write!(f, "scenario: fps must be > 0, got {fps}")
            }
            StageError::ScenarioSeconds { seconds } => {
                write!(f, "scenario: seconds must be >= 0, got {seconds}")
            }
            StageError::ScenarioTooLong => f.write_str("scenario: more than 10,000,000 frames"),
            StageError::ScenarioEventTime { event } => {
                write!(f, "scenario: event {event}: at_secs must be finite")
            }
            StageError::ScenarioEvent { at_secs, source } => {
                write!(f, "scenario: at {at_secs} s: {source}")
            }
            StageError::UnknownFloatParameter { param } => {
                write!(f, "unknown float parameter '{param}'")
            }
            StageError::MatchingAction { at_secs, action } => write!(
                f,
                "scenario: at {at_secs} s: {action} drives motion matching: run it with `trace --motion-matching`"
            ),
            StageError::ScenarioRamp(e) => write!(f, "scenario: ramp: {e}"),
            StageError::Frame { frame, message } => write!(f, "frame {frame}: {message}"),
            StageError::Matching(e) => write!(f, "motion matching: {e}"),
            StageError::MatchingDatabase(e) => write!(f, "motion matching database: {e}"),
            StageError::MatchingFrame { frame, source } => {
                write!(f, "motion matching: frame {frame}: {source}")
            }
            StageError::MatchingReplay { frame, source } => {
                write!(f, "motion matching replay: frame {frame}: {source}")
            }
            StageError::MatchingUnknownClip { clip } => write!(
                f,
                "motion matching: no clip named '{clip}' (see `stridescope inspect`)"
            ),
            StageError::MatchingUnknownStyle { style, tags } => write!(
                f,
                "motion matching: no style '{style}': a style is one of the set's tags ({}), or 'any'",
                tags.join(", ")
            ),
            StageError::NoClipToMatch => f.write_str(
                "motion matching: the model has no clip to match (additive and empty clips are left out)",
            ),
            StageError::TooManyTags { tag } => {
                write!(f, "motion matching: tag '{tag}': at most 32 tags")
            }
            StageError::TagClipNotInSet { tag, clip } => write!(
                f,
                "motion matching: tag '{tag}' names clip '{clip}', which is not in the set"
            ),
            StageError::TagRange {
                tag,
                clip,
                start_secs,
                end_secs,
            } => write!(
                f,
                "motion matching: tag '{tag}' on '{clip}': range {start_secs}..{end_secs} s is invalid"
            ),
            StageError::Automap {
                model,
                role,
                source,
            } => write!(f, "{model} ({role}): {source}"),
            StageError::MapNoJoint {
                role,
                bone,
                joint,
                model,
            } => write!(
                f,
                "map: {role} bone '{bone}': no joint named '{joint}' in {model}"
            ),
            StageError::MapNotABone { role, bone } => write!(
                f,
                "map: {role}: '{bone}' is not a bone of the profile ({})",
                BONES.join(", ")
            ),
            StageError::MapNotAChain { chain, path } => {
                if let Some(path) = path {
                    write!(f, "{}: ", path.display())?;
                }
                write!(
                    f,
                    "map: chains: '{chain}' is not a chain ({})",
                    crate::anim::retarget::POSE_CHAINS.join(", ")
                )
            }
            StageError::MapMissing {
                model,
                role,
                missing,
            } => write!(
                f,
                "{model} ({role}): no joint for {}; add them to the map",
                missing.join(", ")
            ),
            StageError::Retargeter {
                source_model,
                target_model,
                error,
            } => write!(f, "{source_model} onto {target_model}: {error}"),
            StageError::NoClipNamed { model, clip } => {
                write!(f, "{model}: no clip named '{clip}'")
            }
            StageError::RetargetClip {
                model,
                clip,
                source,
            } => write!(f, "{model}: clip '{clip}': {source}"),
            StageError::EmptyLibrary => {
                f.write_str("library: no clip found in the given files and folders (.bvh, .fbx, .glb, .gltf)")
            }
            StageError::MirrorNoLegs { model } => write!(
                f,
                "--mirror: {model}: no left and right legs to mirror across"
            ),
            StageError::Mirror { clip, source } => {
                write!(f, "--mirror: clip '{clip}': {source}")
            }
            StageError::NotSameSkeleton {
                path,
                matched,
                joints,
                no_clips,
            } => write!(
                f,
                "{}: {matched} of {joints} joints match by name{}: not the same skeleton",
                path.display(),
                if *no_clips {
                    " and it has no clips"
                } else {
                    ""
                }
            ),
        }
    }
}

impl std::error::Error for StageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StageError::Graph(e) => Some(e),
            StageError::Anim(e)
            | StageError::MatchingDatabase(e)
            | StageError::Clip { source: e, .. }
            | StageError::Pose { source: e, .. }
            | StageError::MatchingFrame { source: e, .. }
            | StageError::MatchingReplay { source: e, .. }
            | StageError::Automap { source: e, .. }
            | StageError::Retargeter { error: e, .. }
            | StageError::RetargetClip { source: e, .. }
            | StageError::Mirror { source: e, .. } => Some(e),
            StageError::Param(e) | StageError::ScenarioRamp(e) => Some(e),
            StageError::Legs(e) => Some(e),
            StageError::Import(e) => Some(e),
            StageError::Load(e) => Some(e),
            StageError::Model(e) => Some(e),
            StageError::Glb(e) => Some(e),
            StageError::Ron { error, .. } => Some(error),
            StageError::ScenarioEvent { source, .. } => Some(source.as_ref()),
            StageError::Matching(e) => Some(e.as_ref()),
            _ => None,
        }
    }
}

impl From<GraphError> for StageError {
    fn from(e: GraphError) -> Self {
        StageError::Graph(e)
    }
}

impl From<AnimError> for StageError {
    fn from(e: AnimError) -> Self {
        StageError::Anim(e)
    }
}

impl From<ParamError> for StageError {
    fn from(e: ParamError) -> Self {
        StageError::Param(e)
    }
}

impl From<LegError> for StageError {
    fn from(e: LegError) -> Self {
        StageError::Legs(e)
    }
}

impl From<ImportError> for StageError {
    fn from(e: ImportError) -> Self {
        StageError::Import(e)
    }
}

impl From<LoadError> for StageError {
    fn from(e: LoadError) -> Self {
        StageError::Load(e)
    }
}

impl From<ModelError> for StageError {
    fn from(e: ModelError) -> Self {
        StageError::Model(e)
    }
}

impl From<GlbError> for StageError {
    fn from(e: GlbError) -> Self {
        StageError::Glb(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, ScenarioRun};

    #[test]
    fn a_bad_scenario_is_a_variant_with_the_text_users_see() {
        let scenario = Scenario {
            graph: None,
            fps: 0.0,
            seconds: 1.0,
            events: Vec::new(),
            motion_matching: None,
        };
        let e = ScenarioRun::new(scenario).err().unwrap();
        assert_eq!(e, StageError::ScenarioFps { fps: 0.0 });
        assert_eq!(e.to_string(), "scenario: fps must be > 0, got 0");
    }

    #[test]
    fn wrapped_errors_keep_their_text_and_their_source() {
        use std::error::Error as _;
        let param = ParamError::Unknown("speed".into());
        let e = StageError::from(param.clone()).at_scenario_time(1.5);
        assert_eq!(
            e.to_string(),
            "scenario: at 1.5 s: unknown parameter 'speed'"
        );
        let inner = e.source().unwrap();
        assert_eq!(inner.to_string(), param.to_string());
        assert!(inner.source().is_some(), "the parameter error under it");
        let e = StageError::from(AnimError::Empty {
            what: "clip".into(),
        })
        .in_matching();
        assert_eq!(e.to_string(), "motion matching: clip: no data");
    }

    #[test]
    fn map_file_errors_name_the_role_the_bone_and_the_joint() {
        let e = StageError::MapNoJoint {
            role: "source".into(),
            bone: "hips".into(),
            joint: "Pelvis".into(),
            model: "walk.bvh".into(),
        };
        assert_eq!(
            e.to_string(),
            "map: source bone 'hips': no joint named 'Pelvis' in walk.bvh"
        );
        let e = StageError::MapNotABone {
            role: "target".into(),
            bone: "tail".into(),
        };
        assert!(e
            .to_string()
            .starts_with("map: target: 'tail' is not a bone of the profile (hips, "));
    }
}
