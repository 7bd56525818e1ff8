//! Typed renderer errors. Each variant says what failed and, where there is one, how to fix
//! it; none of them is a panic.

use std::fmt;

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
        what: String,
        bytes: u64,
        limit: u64,
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
