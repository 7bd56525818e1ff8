//! Why a command failed. The layers' own errors are wrapped as they are (their text and
//! their `source()` kept), with what the command was doing around them (`clip 'Walk'`,
//! `--rate`, `frame 12`); files that cannot be read or written keep their `io::Error`.
//! `main` prints the whole chain ([`crate::anim::ErrorChain`]) after `error: `.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::anim::contacts::LegError;
use crate::anim::{AnimError, ErrorChain};
use crate::asset::{GlbError, ImportError, LoadError, ModelError};
use crate::graph::GraphError;
use crate::render::{ExportError, RenderError};
use crate::stage::StageError;

/// A command's failure: what the user asked that cannot work, a file, or a layer's error,
/// each with the context the command adds.
#[derive(Debug)]
pub enum CliError {
    /// Flags or input that cannot work together, in the user's terms: names the flag or
    /// the file and the element (`--fps must be a positive number, got 0`).
    Usage(String),
    /// A file or folder that cannot be read, written, listed or created.
    File {
        /// The file or folder, as given.
        path: PathBuf,
        /// What was tried: `read`, `write`, `list`, `create`.
        action: &'static str,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A report that does not serialize to JSON.
    Json(serde_json::Error),
    /// An error of the animation core.
    Anim(AnimError),
    /// Legs that cannot be found or were chosen wrongly.
    Legs(LegError),
    /// A file or folder that does not import.
    Import(ImportError),
    /// A model that does not load (options, import, key reduction).
    Load(LoadError),
    /// An operation on a loaded model.
    Model(ModelError),
    /// A GLB that cannot be written.
    Glb(GlbError),
    /// A pose graph that cannot be built or evaluated.
    Graph(GraphError),
    /// The GPU or the renderer.
    Render(RenderError),
    /// An image or video export.
    Export(ExportError),
    /// A character, scenario, matching or retargeting error of the stage.
    Stage(StageError),
    /// `source` while the command was doing `context` (`clip 'Walk'`, `--rate`,
    /// `frame 12`): shown as `context: source`.
    Context {
        /// What the command was doing, in the user's terms.
        context: String,
        /// What failed.
        source: Box<CliError>,
    },
}

impl CliError {
    /// A usage or input problem, worded for the user.
    pub fn usage(message: impl Into<String>) -> Self {
        CliError::Usage(message.into())
    }

    /// `source` failed doing `action` on `path`.
    pub fn file(path: &Path, action: &'static str, source: std::io::Error) -> Self {
        CliError::File {
            path: path.to_path_buf(),
            action,
            source,
        }
    }

    /// This error, while the command was doing `context`.
    pub fn context(self, context: impl Into<String>) -> Self {
        CliError::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// The text `main` prints after `error: `: this error and every cause it does not
    /// already say.
    pub fn report(&self) -> String {
        ErrorChain(self).to_string()
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(message) => f.write_str(message),
            // The reason is the source's; `report` adds it after the action.
            CliError::File { path, action, .. } => {
                write!(f, "{}: cannot {action}", path.display())
            }
            CliError::Json(e) => write!(f, "JSON: {e}"),
            CliError::Anim(e) => fmt::Display::fmt(e, f),
            CliError::Legs(e) => fmt::Display::fmt(e, f),
            CliError::Import(e) => fmt::Display::fmt(e, f),
            CliError::Load(e) => fmt::Display::fmt(e, f),
            CliError::Model(e) => fmt::Display::fmt(e, f),
            CliError::Glb(e) => fmt::Display::fmt(e, f),
            CliError::Graph(e) => fmt::Display::fmt(e, f),
            CliError::Render(e) => fmt::Display::fmt(e, f),
            CliError::Export(e) => fmt::Display::fmt(e, f),
            CliError::Stage(e) => fmt::Display::fmt(e, f),
            CliError::Context { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

impl std::error::Error for CliError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CliError::Usage(_) => None,
            CliError::File { source, .. } => Some(source),
            CliError::Json(e) => Some(e),
            CliError::Anim(e) => Some(e),
            CliError::Legs(e) => Some(e),
            CliError::Import(e) => Some(e),
            CliError::Load(e) => Some(e),
            CliError::Model(e) => Some(e),
            CliError::Glb(e) => Some(e),
            CliError::Graph(e) => Some(e),
            CliError::Render(e) => Some(e),
            CliError::Export(e) => Some(e),
            CliError::Stage(e) => Some(e),
            CliError::Context { source, .. } => Some(source.as_ref()),
        }
    }
}

macro_rules! from_layer_errors {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        $(impl From<$ty> for CliError {
            fn from(e: $ty) -> Self {
                CliError::$variant(e)
            }
        })*
    };
}

from_layer_errors!(
    Json(serde_json::Error),
    Anim(AnimError),
    Legs(LegError),
    Import(ImportError),
    Load(LoadError),
    Model(ModelError),
    Glb(GlbError),
    Graph(GraphError),
    Render(RenderError),
    Export(ExportError),
    Stage(StageError),
);

/// Adds what the command was doing to any error that becomes a [`CliError`].
pub trait Context<T> {
    /// `Err(e)` becomes `Err(e.context(context))`.
    fn context(self, context: impl Into<String>) -> Result<T, CliError>;
    /// As [`Context::context`], the text built only on error.
    fn with_context<S: Into<String>>(self, context: impl FnOnce() -> S) -> Result<T, CliError>;
}

impl<T, E: Into<CliError>> Context<T> for Result<T, E> {
    fn context(self, context: impl Into<String>) -> Result<T, CliError> {
        self.map_err(|e| e.into().context(context))
    }

    fn with_context<S: Into<String>>(self, context: impl FnOnce() -> S) -> Result<T, CliError> {
        self.map_err(|e| e.into().context(context()))
    }
}

/// A usage or input problem worded for the user (the commands build them with `format!`).
impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError::Usage(message)
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        CliError::Usage(message.to_string())
    }
}
