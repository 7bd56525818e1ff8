//! Typed renderer errors. Each variant says what failed and, where there is one, how to fix
//! it; none of them is a panic.

use std::fmt;
use std::path::{Path, PathBuf};

/// Everything the renderer can fail with.
#[derive(Clone, Debug, PartialEq)]
pub enum RenderError {
    /// No usable GPU adapter (or none with compute shaders).
    NoAdapter(String),
    /// The adapter refused to create a device.
    RequestDevice(String),
    /// The device was lost (driver reset, GPU removed, out of memory in the driver...).
    /// Every GPU object made from it is dead: rebuild the [`super::GpuContext`], the
    /// [`super::Renderer`] and every uploaded model, then render again.
    DeviceLost(String),
    /// wgpu reported a validation error (a bug in the renderer or its input).
    Validation(String),
    /// The GPU ran out of memory for an allocation.
    OutOfMemory(String),
    /// An internal error reported by wgpu (driver or system limit).
    Internal(String),
    /// Data does not fit the device's limits and cannot be split further.
    TooLarge {
        /// The data, as messages name it (`the palettes of 64 instances`, `Fox.glb: index
        /// buffer`).
        what: String,
        /// How many bytes it needs in one buffer or binding.
        bytes: u64,
        /// The device's limit for that buffer or binding, in bytes.
        limit: u64,
        /// What the user can do about it (`draw fewer instances per group`).
        hint: &'static str,
    },
    /// Invalid input from the caller (zero-sized target, joint index out of range...).
    InvalidInput(String),
    /// Reading a rendered image back from the GPU failed.
    Readback(String),
    /// Creating, configuring or acquiring a window surface failed.
    Surface(String),
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderError::NoAdapter(detail) => write!(
                f,
                "no GPU adapter found ({detail}); install a Vulkan driver, e.g. mesa-vulkan-drivers \
                 (the lavapipe software rasteriser) on Debian/Ubuntu, or select a backend with \
                 WGPU_BACKEND=vulkan|gl"
            ),
            RenderError::RequestDevice(detail) => write!(f, "the GPU adapter refused to create a device: {detail}"),
            RenderError::DeviceLost(detail) => write!(
                f,
                "the GPU device was lost ({detail}); recreate the GPU context, renderer and models"
            ),
            RenderError::Validation(detail) => write!(f, "GPU validation error: {detail}"),
            RenderError::OutOfMemory(detail) => write!(f, "GPU out of memory: {detail}"),
            RenderError::Internal(detail) => write!(f, "internal GPU error: {detail}"),
            RenderError::TooLarge { what, bytes, limit, hint } => {
                write!(f, "{what} needs {bytes} bytes but the device allows {limit}; {hint}")
            }
            RenderError::InvalidInput(detail) => write!(f, "invalid render input: {detail}"),
            RenderError::Readback(detail) => write!(f, "reading the rendered image back failed: {detail}"),
            RenderError::Surface(detail) => write!(f, "window surface error: {detail}"),
        }
    }
}

impl std::error::Error for RenderError {}

impl RenderError {
    /// Converts an error captured by a wgpu error scope or the uncaptured-error handler.
    pub fn from_wgpu(error: &wgpu::Error) -> Self {
        match error {
            wgpu::Error::OutOfMemory { .. } => RenderError::OutOfMemory(error.to_string()),
            wgpu::Error::Validation { description, .. } => {
                RenderError::Validation(description.clone())
            }
            wgpu::Error::Internal { description, .. } => RenderError::Internal(description.clone()),
        }
    }
}

/// Writing or reading an image file: a PNG, or a preview export (GIF, APNG, MP4 through
/// `ffmpeg`) frame by frame ([`super::frames`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ExportError {
    /// A file name whose extension is not an export format.
    UnknownFormat {
        /// The output file, as given.
        path: PathBuf,
    },
    /// An export of no frames.
    NoFrames,
    /// A file or folder that cannot be created, written or read (`action`: `cannot
    /// create`, `cannot write`, or empty for a read).
    Io {
        /// The file, or the folder that could not be created, as given.
        path: PathBuf,
        /// What was being done, as messages say it (see above).
        action: &'static str,
        /// The I/O error's kind (`NotFound`...), for callers that tell cases apart.
        kind: std::io::ErrorKind,
        /// The I/O error's text.
        message: String,
    },
    /// An encoder or decoder failed (`what`: `cannot write APNG`, `cannot write GIF
    /// frame`, or empty).
    Codec {
        /// The image or export file, as given.
        path: PathBuf,
        /// What was being done, as messages say it (see above).
        what: &'static str,
        /// The encoder's or decoder's error text.
        message: String,
    },
    /// Encoding a PNG in memory failed.
    Png(String),
    /// A frame rate that gives no frame delay.
    FrameRate {
        /// The GIF export file, as given.
        path: PathBuf,
        /// The frame rate asked for, in frames per second: 0 or less, or not finite.
        fps: f32,
    },
    /// `ffmpeg` is not on PATH.
    NoFfmpeg,
    /// `ffmpeg` could not be started.
    FfmpegStart(String),
    /// Waiting for `ffmpeg` failed.
    FfmpegWait(String),
    /// `ffmpeg` exited with an error (`status`, its stderr).
    FfmpegFailed {
        /// The MP4 export file, as given.
        path: PathBuf,
        /// `ffmpeg`'s exit status, as the system words it (`exit status: 1`).
        status: String,
        /// What `ffmpeg` wrote to its stderr, trimmed.
        stderr: String,
    },
    /// A frame of another size than the export's.
    FrameSize {
        /// The export file, as given.
        path: PathBuf,
        /// Index of the refused frame in the export, from 0 (the frames written before it).
        frame: u32,
        /// The frame's size in pixels, `(width, height)`.
        size: (u32, u32),
        /// The export's size in pixels, `(width, height)`.
        export: (u32, u32),
    },
    /// More frames pushed than announced.
    TooManyFrames {
        /// The export file, as given.
        path: PathBuf,
        /// How many frames the export announced.
        frames: u32,
    },
    /// A frame pushed after the export finished.
    Finished {
        /// The export file, as given.
        path: PathBuf,
    },
    /// A frame whose pixel buffer does not match its size.
    FrameBuffer {
        /// The export file, as given.
        path: PathBuf,
    },
    /// Finished before every announced frame was pushed.
    Unfinished {
        /// The export file, as given.
        path: PathBuf,
        /// How many frames were pushed.
        written: u32,
        /// How many frames the export announced.
        frames: u32,
    },
}

impl ExportError {
    pub(crate) fn io(path: &Path, action: &'static str, e: &std::io::Error) -> Self {
        ExportError::Io {
            path: path.to_path_buf(),
            action,
            kind: e.kind(),
            message: e.to_string(),
        }
    }

    pub(crate) fn codec(path: &Path, what: &'static str, e: impl fmt::Display) -> Self {
        ExportError::Codec {
            path: path.to_path_buf(),
            what,
            message: e.to_string(),
        }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::UnknownFormat { path } => {
                write!(f, "{}: export as .gif, .png or .mp4", path.display())
            }
            ExportError::NoFrames => f.write_str("no frames to write"),
            ExportError::Io {
                path,
                action,
                message,
                ..
            }
            | ExportError::Codec {
                path,
                what: action,
                message,
            } => {
                if action.is_empty() {
                    write!(f, "{}: {message}", path.display())
                } else {
                    write!(f, "{}: {action}: {message}", path.display())
                }
            }
            ExportError::Png(e) => f.write_str(e),
            ExportError::FrameRate { path, fps } => {
                write!(f, "{}: {fps} fps has no frame delay", path.display())
            }
            ExportError::NoFfmpeg => f.write_str(super::frames::NO_FFMPEG),
            ExportError::FfmpegStart(e) => write!(f, "cannot run ffmpeg: {e}"),
            ExportError::FfmpegWait(e) => write!(f, "ffmpeg: {e}"),
            ExportError::FfmpegFailed {
                path,
                status,
                stderr,
            } => write!(f, "{}: ffmpeg failed ({status}): {stderr}", path.display()),
            ExportError::FrameSize {
                path,
                frame,
                size,
                export,
            } => write!(
                f,
                "{}: frame {frame} is {}x{}, the export is {}x{}",
                path.display(),
                size.0,
                size.1,
                export.0,
                export.1
            ),
            ExportError::TooManyFrames { path, frames } => write!(
                f,
                "{}: more than the {frames} frames announced",
                path.display()
            ),
            ExportError::Finished { path } => write!(f, "{}: already finished", path.display()),
            ExportError::FrameBuffer { path } => {
                write!(f, "{}: frame buffer has the wrong size", path.display())
            }
            ExportError::Unfinished {
                path,
                written,
                frames,
            } => write!(
                f,
                "{}: {written} of the {frames} frames were written",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ExportError {}

/// A locomotion overlay name that is not one of [`super::locomotion_overlay::OVERLAY_NAMES`].
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownOverlay {
    /// The refused item of the comma-separated list, trimmed and lowercased.
    pub name: String,
}

impl fmt::Display for UnknownOverlay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown overlay '{}'; use all, none or a list of {}",
            self.name,
            super::locomotion_overlay::OVERLAY_NAMES.join(", ")
        )
    }
}

impl std::error::Error for UnknownOverlay {}
