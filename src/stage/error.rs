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
        /// The file, as given.
        path: PathBuf,
        /// What was being done, as messages say it (see above).
        action: &'static str,
        /// The I/O error's kind (`NotFound`...), for callers that tell cases apart.
        kind: std::io::ErrorKind,
        /// The I/O error's text.
        message: String,
    },
    /// A RON file (retarget map, tag sidecar) that does not parse, at a line and column.
    Ron {
        /// The RON file, as given.
        path: PathBuf,
        /// Where the error starts: line, from 1.
        line: usize,
        /// Where the error starts: column, from 1.
        column: usize,
        /// What RON found wrong there.
        error: ron::Error,
    },
    /// A value that cannot be written as RON.
    RonWrite {
        /// The file it was to be written to (a retarget map), as given.
        path: PathBuf,
        /// The RON serialiser's error text.
        message: String,
    },

    // --- Clips and poses ---
    /// A clip (named) whose data the core refuses.
    Clip {
        /// The clip's name.
        clip: String,
        /// Why the core refused it (its analysis, or posing it at some time).
        source: AnimError,
    },
    /// A model that cannot be posed (`model`: its source).
    Pose {
        /// The model's source as displayed (its file name, or "demo").
        model: String,
        /// Why the core cannot pose it (a clip index out of range, a non-finite pose...).
        source: AnimError,
    },
    /// A model without animations where one is needed.
    NoAnimations {
        /// The model's source as displayed (its file name, or "demo").
        model: String,
    },
    /// A clip's playback stopped with an error (the timeline's message).
    Playback {
        /// The timeline's error text, as the status bar shows it.
        message: String,
    },

    // --- Locomotion setup ---
    /// The rig has no legs to warp.
    NoLegs {
        /// The model's source as displayed (its file name, or "demo").
        model: String,
    },
    /// A leg whose joints are out of the skeleton's range.
    LegJointOutOfRange {
        /// The leg's name: `left`, `right`, or `leg N` (N from 1) past the first pair.
        leg: String,
    },
    /// A leg whose calf does not hang below its thigh.
    CalfNotBelowThigh {
        /// The leg's name: `left`, `right`, or `leg N` (N from 1) past the first pair.
        leg: String,
        /// The name of the leg's calf (knee) joint in the skeleton.
        calf: String,
        /// The name of the leg's thigh (hip) joint in the skeleton.
        thigh: String,
    },
    /// The legs share no parent joint, so there is no pelvis to move.
    NoPelvis {
        /// The model's source as displayed (its file name, or "demo").
        model: String,
    },

    // --- Scenarios ---
    /// A scenario's `fps` that is not positive and finite.
    ScenarioFps {
        /// The `fps` as written, in frames per second.
        fps: f64,
    },
    /// A scenario's `seconds` that is negative or not finite.
    ScenarioSeconds {
        /// The `seconds` as written: the scenario's length in seconds.
        seconds: f64,
    },
    /// A scenario longer than the frames a run may have.
    ScenarioTooLong,
    /// A scenario event whose time is not finite.
    ScenarioEventTime {
        /// Index of the event in the scenario's `events`, from 0, in file order.
        event: usize,
    },
    /// A scenario event (due at `at_secs`) that failed.
    ScenarioEvent {
        /// The event's `at_secs`: the scenario time it is due at, in seconds.
        at_secs: f64,
        /// What failed when the event was applied.
        source: Box<StageError>,
    },
    /// A scenario event that ramps a float parameter the graph does not have.
    UnknownFloatParameter {
        /// The parameter name as written in the ramp.
        param: String,
    },
    /// A motion-matching action (`action`: how it reads) in a graph scenario.
    MatchingAction {
        /// The event's `at_secs`: the scenario time it is due at, in seconds.
        at_secs: f64,
        /// The action in its debug form (`Stand`, `Move { .. }`, `Tags { .. }`).
        action: String,
    },
    /// A scenario's parameter ramp that the graph refused.
    ScenarioRamp(ParamError),
    /// A scenario frame that reported an error (`message`: the session's).
    Frame {
        /// The scenario frame's index, from 0 (the start frame).
        frame: u64,
        /// The session's error text for that frame.
        message: String,
    },

    // --- Motion matching ---
    /// An error of motion matching's set, settings or matcher.
    Matching(Box<StageError>),
    /// The motion-matching database cannot be built.
    MatchingDatabase(AnimError),
    /// A live motion-matching frame failed.
    MatchingFrame {
        /// The frame's number in the live run, from 0 for the first step.
        frame: u64,
        /// Why the matcher's step failed.
        source: AnimError,
    },
    /// Replaying a recorded motion-matching frame failed.
    MatchingReplay {
        /// Index of the replayed frame among the recorded ones kept, from 0 (the oldest).
        frame: usize,
        /// Why the matcher's step failed.
        source: AnimError,
    },
    /// The motion-matching definition names a clip the model does not have.
    MatchingUnknownClip {
        /// The clip name as written in the definition.
        clip: String,
    },
    /// A motion-matching style that is not one of the set's tags.
    MatchingUnknownStyle {
        /// The style asked for.
        style: String,
        /// The database's tag names, in bit order.
        tags: Vec<String>,
    },
    /// The model has no clip motion matching can use.
    NoClipToMatch,
    /// A tag past the 32 a database holds.
    TooManyTags {
        /// The first tag name that found no free slot.
        tag: String,
    },
    /// A tag on a clip that is not in the set.
    TagClipNotInSet {
        /// The tag's name.
        tag: String,
        /// The clip name the tag gives, as written.
        clip: String,
    },
    /// A tag whose clip-time range is invalid.
    TagRange {
        /// The tag's name.
        tag: String,
        /// The tagged clip's name.
        clip: String,
        /// Where the range starts, in clip seconds (0 when the tag gives none).
        start_secs: f32,
        /// Where the range ends, in clip seconds (the clip's duration when the tag gives
        /// none); below `start_secs`, or either is not finite.
        end_secs: f32,
    },

    // --- Retargeting ---
    /// The automatic map of a skeleton failed (`role`: `source` or `target`).
    Automap {
        /// The model's source as displayed (its file name, or "demo").
        model: String,
        /// Which side of the retarget the model is: `source` or `target`.
        role: String,
        /// Why the automatic map failed (required bones not found...).
        source: AnimError,
    },
    /// A map file names a joint the skeleton does not have.
    MapNoJoint {
        /// Which side of the map: `source` or `target`.
        role: String,
        /// The profile bone name the map file gives the joint for (`hips`).
        bone: String,
        /// The joint name as written in the map file.
        joint: String,
        /// The model's source as displayed (its file name, or "demo").
        model: String,
    },
    /// A map file names a bone that is not in the profile.
    MapNotABone {
        /// Which side of the map: `source` or `target`.
        role: String,
        /// The bone name as written in the map file.
        bone: String,
    },
    /// A map file's `chains` names something that is not a chain (`path`: the file).
    MapNotAChain {
        /// The chain name as written.
        chain: String,
        /// The map file, as given; `None` for a map that was not read from a file.
        path: Option<std::path::PathBuf>,
    },
    /// Required bones the map leaves without a joint.
    MapMissing {
        /// The model's source as displayed (its file name, or "demo").
        model: String,
        /// Which side of the retarget the model is: `source` or `target`.
        role: String,
        /// The required profile bones (VRM names) the map leaves without a joint.
        missing: Vec<String>,
    },
    /// The retargeter cannot be set up from the two maps.
    Retargeter {
        /// The source model's source as displayed (its file name, or "demo").
        source_model: String,
        /// The target model's source as displayed (its file name, or "demo").
        target_model: String,
        /// Why the core's retargeter refused the maps.
        error: AnimError,
    },
    /// The source model has no clip of that name.
    NoClipNamed {
        /// The source model's source as displayed (its file name, or "demo").
        model: String,
        /// The clip name as given.
        clip: String,
    },
    /// Retargeting, measuring or mirroring a clip of `model` failed.
    RetargetClip {
        /// The source model's source as displayed (its file name, or "demo").
        model: String,
        /// The source clip's name.
        clip: String,
        /// Why the core failed (contacts, retargeting, quality measures, mirroring).
        source: AnimError,
    },
    /// `--library` found no clip.
    EmptyLibrary,
    /// `--mirror` on a model without left and right legs.
    MirrorNoLegs {
        /// The model's source as displayed (its file name, or "demo").
        model: String,
    },
    /// `--mirror` refused a clip.
    Mirror {
        /// The name of the clip to mirror.
        clip: String,
        /// Why the core refused to mirror it (a non-finite pose...).
        source: AnimError,
    },

    // --- A/B compare ---
    /// The file compared with the model is not the same skeleton.
    NotSameSkeleton {
        /// The compared file, as given.
        path: PathBuf,
        /// How many of the model's joints have a joint of the same name in the file.
        matched: usize,
        /// How many joints the model has (half must match).
        joints: usize,
        /// True when the file has no clips (refused as well, whatever matches).
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
