//! Why something the user asked of the window failed. The layers' own errors are wrapped
//! as they are (their text and their `source()` kept), with what the window was doing
//! around them (`clip 'Walk'`, `retarget map`); files that cannot be read or written keep
//! their `io::Error`. The status bar and the log show the whole chain
//! ([`crate::anim::ErrorChain`], [`AppError::report`]); `main` prints it after `error: `.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::anim::contacts::LegError;
use crate::anim::state_machine::ParamError;
use crate::anim::{AnimError, ErrorChain};
use crate::asset::{GlbError, ImportError, LoadError, ModelError, WriteError};
use crate::graph::GraphError;
use crate::render::{ExportError, RenderError};
use crate::stage::StageError;

/// A failure in the window: what the user asked that cannot be done now, a file, the GPU
/// or the window system, or a layer's error, each with the context the window adds.
#[derive(Debug)]
pub enum AppError {
    /// What the user asked cannot be done now, in the user's terms (`no clip edits to
    /// save`, `'Walk' is already a clip name`).
    Refused(String),
    /// The operating system, the window system or the GPU surface (`what`: the step, e.g.
    /// `create the window`, `start the library build`).
    System {
        /// The step that failed.
        what: &'static str,
        /// The system's, winit's or wgpu's reason.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A file or folder that cannot be read, written, listed or created.
    File {
        /// The file or folder, as given.
        path: PathBuf,
        /// What was tried: `read`, `write`, `list`, `create`.
        action: &'static str,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// Settings or a report that do not serialize to JSON.
    Json(serde_json::Error),
    /// An error of the animation core.
    Anim(AnimError),
    /// A pose-graph parameter that does not exist or has the wrong type.
    Param(ParamError),
    /// A file the window writes (the clip-edits sidecar) that cannot be written.
    Write(WriteError),
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
    /// `source` while the window was doing `context` (`clip 'Walk'`, `retarget map`):
    /// shown as `context: source`.
    Context {
        /// What the window was doing, in the user's terms.
        context: String,
        /// What failed.
        source: Box<AppError>,
    },
}

impl AppError {
    /// A refusal worded for the user.
    pub fn refused(message: impl Into<String>) -> Self {
        AppError::Refused(message.into())
    }

    /// The operating system, the window system or the GPU surface failed at `what`.
    pub fn system(
        what: &'static str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        AppError::System {
            what,
            source: Box::new(source),
        }
    }

    /// `source` failed doing `action` on `path`.
    pub fn file(path: &Path, action: &'static str, source: std::io::Error) -> Self {
        AppError::File {
            path: path.to_path_buf(),
            action,
            source,
        }
    }

    /// This error, while the command was doing `context`.
    pub fn context(self, context: impl Into<String>) -> Self {
        AppError::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// The text the status bar shows (and `main` prints after `error: `): this error and
    /// every cause it does not already say.
    pub fn report(&self) -> String {
        ErrorChain(self).to_string()
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppError::Refused(message) => f.write_str(message),
            // The reason is the source's; `report` adds it.
            AppError::System { what, .. } => write!(f, "cannot {what}"),
            // The reason is the source's; `report` adds it after the action.
            AppError::File { path, action, .. } => {
                write!(f, "{}: cannot {action}", path.display())
            }
            AppError::Json(e) => write!(f, "JSON: {e}"),
            AppError::Anim(e) => fmt::Display::fmt(e, f),
            AppError::Param(e) => fmt::Display::fmt(e, f),
            AppError::Write(e) => fmt::Display::fmt(e, f),
            AppError::Legs(e) => fmt::Display::fmt(e, f),
            AppError::Import(e) => fmt::Display::fmt(e, f),
            AppError::Load(e) => fmt::Display::fmt(e, f),
            AppError::Model(e) => fmt::Display::fmt(e, f),
            AppError::Glb(e) => fmt::Display::fmt(e, f),
            AppError::Graph(e) => fmt::Display::fmt(e, f),
            AppError::Render(e) => fmt::Display::fmt(e, f),
            AppError::Export(e) => fmt::Display::fmt(e, f),
            AppError::Stage(e) => fmt::Display::fmt(e, f),
            AppError::Context { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

impl std::error::Error for AppError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AppError::Refused(_) => None,
            AppError::System { source, .. } => Some(source.as_ref()),
            AppError::File { source, .. } => Some(source),
            AppError::Json(e) => Some(e),
            AppError::Anim(e) => Some(e),
            AppError::Param(e) => Some(e),
            AppError::Write(e) => Some(e),
            AppError::Legs(e) => Some(e),
            AppError::Import(e) => Some(e),
            AppError::Load(e) => Some(e),
            AppError::Model(e) => Some(e),
            AppError::Glb(e) => Some(e),
            AppError::Graph(e) => Some(e),
            AppError::Render(e) => Some(e),
            AppError::Export(e) => Some(e),
            AppError::Stage(e) => Some(e),
            AppError::Context { source, .. } => Some(source.as_ref()),
        }
    }
}

macro_rules! from_layer_errors {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        $(impl From<$ty> for AppError {
            fn from(e: $ty) -> Self {
                AppError::$variant(e)
            }
        })*
    };
}

from_layer_errors!(
    Json(serde_json::Error),
    Anim(AnimError),
    Param(ParamError),
    Write(WriteError),
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

/// Adds what the window was doing to any error that becomes an [`AppError`].
pub trait Context<T> {
    /// `Err(e)` becomes `Err(e.context(context))`.
    fn context(self, context: impl Into<String>) -> Result<T, AppError>;
    /// As [`Context::context`], the text built only on error.
    fn with_context<S: Into<String>>(self, context: impl FnOnce() -> S) -> Result<T, AppError>;
}

impl<T, E: Into<AppError>> Context<T> for Result<T, E> {
    fn context(self, context: impl Into<String>) -> Result<T, AppError> {
        self.map_err(|e| e.into().context(context))
    }

    fn with_context<S: Into<String>>(self, context: impl FnOnce() -> S) -> Result<T, AppError> {
        self.map_err(|e| e.into().context(context()))
    }
}

/// A refusal worded for the user (the controller builds them with `format!`).
impl From<String> for AppError {
    fn from(message: String) -> Self {
        AppError::Refused(message)
    }
}

impl From<&str> for AppError {
    fn from(message: &str) -> Self {
        AppError::Refused(message.to_string())
    }
}
