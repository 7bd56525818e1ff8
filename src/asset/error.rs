use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::anim::AnimError;

/// A file that could not be imported. Displays as `FILE: ELEMENT: MESSAGE`, e.g.
/// `Fox.gltf: animation 2 channel 5: key times not increasing at key 3`. An error
/// underneath (an `io::Error`, the core's `AnimError`, a bad load option) is kept as the
/// [`source`](std::error::Error::source) and its text ends the message.
#[derive(Clone, Debug)]
pub struct ImportError {
    /// The file (or folder) that did not import, as given.
    pub file: PathBuf,
    /// The glTF element at fault (`skin 0`, `animation 1 sampler 3`, `accessor 7`...), or
    /// empty when the whole file is at fault (I/O, not glTF at all).
    pub element: String,
    /// What is wrong, in the user's terms (the cause's text included).
    pub message: String,
    /// The error underneath, when there is one (shared: import errors are cloned into
    /// the window's state and the reports).
    cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl ImportError {
    /// `file`'s `element` is wrong as `message` says.
    pub fn new(
        file: impl Into<PathBuf>,
        element: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            file: file.into(),
            element: element.into(),
            message: message.into(),
            cause: None,
        }
    }

    /// `file`'s `element` failed with `cause`: its text is the message and it stays the
    /// source.
    pub fn caused_by(
        file: impl Into<PathBuf>,
        element: impl Into<String>,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self::doing(file, element, "", cause)
    }

    /// As [`Self::caused_by`], the message saying first what was being done
    /// (`cannot read file: No such file or directory (os error 2)`); `doing` may be empty.
    pub fn doing(
        file: impl Into<PathBuf>,
        element: impl Into<String>,
        doing: &str,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        let message = if doing.is_empty() {
            cause.to_string()
        } else {
            format!("{doing}: {cause}")
        };
        Self {
            cause: Some(Arc::new(cause)),
            ..Self::new(file, element, message)
        }
    }
}

/// Two import errors are equal when they say the same thing about the same element; the
/// cause's text is part of the message.
impl PartialEq for ImportError {
    fn eq(&self, other: &Self) -> bool {
        self.file == other.file && self.element == other.element && self.message == other.message
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.element.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}: {}: {}",
                self.file.display(),
                self.element,
                self.message
            )
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// What is wrong inside a file, found by an importer's helper that does not know the file
/// and the element at fault: the message of the [`ImportError`] it becomes (its caller
/// names the file and the element, and may say where inside the element it is).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ImportProblem {
    pub message: String,
}

impl ImportProblem {
    /// This problem found in `context` (`buffer 2`): `CONTEXT: PROBLEM`.
    pub fn within(self, context: impl fmt::Display) -> Self {
        Self {
            message: format!("{context}: {}", self.message),
        }
    }
}

impl fmt::Display for ImportProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ImportProblem {}

impl From<String> for ImportProblem {
    fn from(message: String) -> Self {
        Self { message }
    }
}

impl From<&str> for ImportProblem {
    fn from(message: &str) -> Self {
        Self {
            message: message.to_string(),
        }
    }
}

/// A load option (an environment variable, a command-line value) that does not parse.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionError {
    /// Not a key-reduction tolerance in millimetres.
    NotATolerance {
        /// The value as given (a number above 0, at most 1000, was expected).
        text: String,
    },
    /// Not a unit name or a number of metres per file unit.
    NotAUnit {
        /// The value as given, trimmed.
        text: String,
    },
    /// Not a yes/no value (`1`, `0`, `true`, `false`...).
    NotAFlag {
        /// The value as given, trimmed and lowercased.
        text: String,
    },
    /// A bad value of the environment variable `variable`.
    Env {
        /// The variable's name (`STRIDESCOPE_REDUCE_KEYS`...).
        variable: &'static str,
        /// What is wrong with its value.
        source: Box<OptionError>,
    },
}

impl OptionError {
    /// This error in the value of the environment variable `variable`.
    pub fn in_env(self, variable: &'static str) -> Self {
        OptionError::Env {
            variable,
            source: Box::new(self),
        }
    }
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::NotATolerance { text } => write!(
                f,
                "'{text}' is not a tolerance in millimetres (a number above 0, at most 1000)"
            ),
            OptionError::NotAUnit { text } => write!(
                f,
                "'{text}' is not a unit (cm, mm, m, in, ft, or metres per file unit such as 0.01)"
            ),
            OptionError::NotAFlag { text } => {
                write!(f, "'{text}' is not 1 or 0 (true or false)")
            }
            OptionError::Env { variable, source } => write!(f, "{variable}: {source}"),
        }
    }
}

impl std::error::Error for OptionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OptionError::Env { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// An operation on a loaded model (a clip's analysis, key reduction, bone shapes) that
/// failed.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelError {
    /// A clip index past the model's clips ([`AnimError::ClipOutOfRange`]).
    Clip(AnimError),
    /// The clip's analysis failed (a pose that is not finite at some time...).
    Analysis {
        /// The clip's name.
        clip: String,
        /// Why the core's analysis failed.
        source: AnimError,
    },
    /// Key reduction refused the clip of the model (`model`: its source).
    KeyReduction {
        /// The model's source as displayed (its file name, or "demo").
        model: String,
        /// The clip's name.
        clip: String,
        /// Why the core's key reduction refused it (a bad tolerance...).
        source: AnimError,
    },
    /// The rest pose cannot be posed for bone shapes, or their skin is refused.
    BoneShapes(AnimError),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Clip(e) => fmt::Display::fmt(e, f),
            ModelError::Analysis { clip, source } => write!(f, "clip '{clip}': {source}"),
            ModelError::KeyReduction {
                model,
                clip,
                source,
            } => write!(f, "{model}: clip '{clip}': key reduction: {source}"),
            ModelError::BoneShapes(e) => write!(f, "bone shapes: {e}"),
        }
    }
}

impl std::error::Error for ModelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ModelError::Clip(e) => Some(e),
            ModelError::Analysis { source, .. } | ModelError::KeyReduction { source, .. } => {
                Some(source)
            }
            ModelError::BoneShapes(e) => Some(e),
        }
    }
}

/// A binary glTF that animations cannot be appended to ([`super::glb_writer`]).
#[derive(Clone, Debug, PartialEq)]
pub enum GlbError {
    /// Not a GLB at all (no `glTF` magic).
    NotGlb,
    /// The header or a chunk header is cut off.
    Truncated,
    /// The first chunk is not the JSON chunk.
    FirstChunkNotJson,
    /// The JSON chunk runs past the end of the file.
    JsonPastEnd,
    /// The JSON chunk is not valid JSON.
    Json(String),
    /// The BIN chunk runs past the end of the file.
    BinPastEnd,
    /// Buffer 0 is an external file, not the BIN chunk.
    ExternalBuffer,
    /// A new channel whose value count does not match its key count.
    ChannelLength {
        /// The new animation's name as it is written to the file (made unique there).
        animation: String,
        /// Index of the channel's target node in the file's `nodes`.
        node: usize,
        /// The animated property: `"translation"` or `"rotation"`.
        path: &'static str,
        /// How many floats the channel has (3 per translation key, 4 per rotation key).
        values: usize,
        /// How many key times the channel has.
        keys: usize,
    },
}

impl fmt::Display for GlbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GlbError::NotGlb => {
                f.write_str("not a binary glTF (.glb) file: --out needs a .glb target")
            }
            GlbError::Truncated => f.write_str("truncated GLB"),
            GlbError::FirstChunkNotJson => f.write_str("the GLB's first chunk is not JSON"),
            GlbError::JsonPastEnd => f.write_str("the GLB's JSON chunk runs past the end"),
            GlbError::Json(e) => write!(f, "the GLB's JSON: {e}"),
            GlbError::BinPastEnd => f.write_str("the GLB's BIN chunk runs past the end"),
            GlbError::ExternalBuffer => {
                f.write_str("the GLB's buffer 0 is an external file, not its BIN chunk")
            }
            GlbError::ChannelLength {
                animation,
                node,
                path,
                values,
                keys,
            } => write!(
                f,
                "animation '{animation}': node {node} {path}: {values} values for {keys} keys"
            ),
        }
    }
}

impl std::error::Error for GlbError {}

/// Why a file of a folder cannot join the folder's character by joint name
/// ([`super::folder`]); the folder skips it with this as the reason.
#[derive(Clone, Debug, PartialEq)]
pub enum FolderError {
    /// Fewer than half of the file's `bones` have a joint of the same name.
    OtherRig {
        /// How many of the file's bones have a joint of the same name in the character.
        matched: usize,
        /// How many bones (skinned joints, or all joints without a skin) the file has.
        bones: usize,
    },
    /// A take whose moved tracks the core refuses.
    Take {
        /// The take's clip name in the file.
        take: String,
        /// Why the core refused the clip built on the character's skeleton.
        source: AnimError,
    },
}

impl fmt::Display for FolderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FolderError::OtherRig { matched, bones } => write!(
                f,
                "another rig: {matched} of its {bones} bones have a joint of the same name in the character"
            ),
            FolderError::Take { take, source } => write!(f, "take '{take}': {source}"),
        }
    }
}

impl std::error::Error for FolderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FolderError::OtherRig { .. } => None,
            FolderError::Take { source, .. } => Some(source),
        }
    }
}

/// Loading a file, a folder or the demo with the environment's options
/// ([`super::folder::load_with_progress`]).
#[derive(Clone, Debug, PartialEq)]
pub enum LoadError {
    /// A bad load option in the environment.
    Options(OptionError),
    /// The file or folder does not import.
    Import(ImportError),
    /// Key reduction of the loaded model failed.
    Model(ModelError),
    /// The progress bar could not be set up.
    Progress(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Options(e) => fmt::Display::fmt(e, f),
            LoadError::Import(e) => fmt::Display::fmt(e, f),
            LoadError::Model(e) => fmt::Display::fmt(e, f),
            LoadError::Progress(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Options(e) => Some(e),
            LoadError::Import(e) => Some(e),
            LoadError::Model(e) => Some(e),
            LoadError::Progress(_) => None,
        }
    }
}

impl From<OptionError> for LoadError {
    fn from(e: OptionError) -> Self {
        LoadError::Options(e)
    }
}

impl From<ImportError> for LoadError {
    fn from(e: ImportError) -> Self {
        LoadError::Import(e)
    }
}

impl From<ModelError> for LoadError {
    fn from(e: ModelError) -> Self {
        LoadError::Model(e)
    }
}

/// A sidecar that could not be written: `FILE: why`.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteError {
    /// The sidecar's path: the model file's path with `.clips.ron` appended.
    pub file: PathBuf,
    /// Why it could not be written or removed (the I/O or RON error's text).
    pub message: String,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.message)
    }
}

impl std::error::Error for WriteError {}
