//! The GPU renderer: wgpu only (plus glam and bytemuck) — no egui, no winit.
//!
//! It draws into a `&wgpu::TextureView` it is given (with its own depth and MSAA targets
//! sized to it), so the window and the headless path share every line:
//!
//! ```text
//! GpuContext ─► Renderer (pipelines) ─► upload_model ─► GpuModel (static buffers)
//!                                     └► create_instances ─► SkinnedInstances (palettes,
//!                                                            skinned vertex buffers)
//! per frame: Pose ─► SkinnedInstances::write_poses ─► Renderer::render(encoder, view, scene)
//!            = compute pass (skinning.wgsl) + render pass (background, mesh.wgsl,
//!              lines.wgsl: grid, overlay, skeleton; frame.wgsl prepended to all three)
//! ```
//!
//! # Headless (CLI, tests)
//! [`GpuContext::headless`] + [`Renderer::new`] with [`OFFSCREEN_FORMAT`] +
//! [`render_to_image`] (error scopes around the frame, readback to [`RgbaImage`]).
//!
//! # In the window (egui-wgpu owns the device)
//! 1. From egui-wgpu's `RenderState`: `GpuContext::from_device(rs.device.clone(),
//!    rs.queue.clone(), rs.adapter.get_info())` (and set `ctx.adapter =
//!    Some(rs.adapter.clone())` so MSAA support is checked against the adapter).
//!    [`GpuContext::adapter_label`] is the status-bar text.
//! 2. `Renderer::new(&ctx, wgpu::TextureFormat::Rgba8Unorm)`: egui-wgpu's
//!    `register_native_texture` wants `Rgba8Unorm` holding sRGB-encoded bytes (egui blends
//!    in gamma space); with a non-sRGB format the shaders encode sRGB themselves. Upload
//!    the model and create instances.
//! 3. Make an [`OffscreenTarget`] (`Rgba8Unorm`) of the viewport's pixel size (re-create
//!    on resize) and register its view once with
//!    `egui_wgpu::Renderer::register_native_texture` (`update_egui_texture_from_wgpu_texture`
//!    after a resize); show it with `egui::Image`.
//! 4. Each frame: `ctx.check()`; evaluate the pose; `instances.write_poses(..)`; build an
//!    [`OverlayBatch`] (skeleton, trails); `renderer.render(&ctx, &mut encoder,
//!    &target.view, size, &scene)` in an encoder submitted before egui paints (e.g.
//!    from an `egui_wgpu::CallbackTrait::prepare` or right before egui's own submit).
//! 5. On [`RenderError::DeviceLost`] rebuild the context (egui-wgpu must rebuild its
//!    device too), the renderer, models and instances. Other errors: log once, keep
//!    running.
//!
//! Surface lost / outdated is the window's business (`wgpu::CurrentSurfaceTexture::
//! {Lost, Outdated}` -> reconfigure the surface); nothing here holds a surface texture.

// Every public item says what it is, with its units, spaces and ranges.
#![warn(missing_docs)]

// The layers below, under their layer names: `crate::anim::Clip` reads the same here as in
// the `stridescope` facade, and the manifest is what allows each one.
use stridescope_anim as anim;
use stridescope_asset as asset;

pub mod bounds;
pub mod camera;
mod context;
mod error;
pub mod frames;
pub mod gpu_types;
mod headless;
pub mod locomotion_overlay;
pub mod matching_overlay;
mod model;
pub mod overlay;
mod renderer;
pub mod scene;
pub mod skinning;
mod target;

pub use crate::asset::PoseMatrices;
pub use bounds::Aabb;
pub use camera::OrbitCamera;
pub use context::GpuContext;
pub use error::{ExportError, RenderError, UnknownOverlay};
pub use headless::{framed_camera, render_to_image};
pub use locomotion_overlay::{LocomotionDraw, LocomotionOverlays};
pub use matching_overlay::{MatchingDraw, MatchingOverlays, PathPoint};
pub use model::{GpuModel, MorphLayout, PrimitiveDraw};
pub use overlay::{DepthTest, Grid, OverlayBatch, Rgba8, SkeletonStyle};
pub use renderer::{
    shader_source, Background, CharacterDraw, GhostTint, Renderer, SceneView, DEPTH_FORMAT,
    FRAME_PRELUDE,
};
pub use scene::{Crowd, Frame, SceneBuilder};
pub use skinning::{PaletteLayout, SkinnedInstances, SkinningLimits, SkinningPipeline};
pub use target::{read_buffer, OffscreenTarget, PendingReadback, RgbaImage, OFFSCREEN_FORMAT};
