//! Offscreen rendering to an image: the CLI's `render` command, the image tests and the
//! benchmarks. It calls exactly the same [`Renderer::render`] as the window.

use super::bounds::Aabb;
use super::camera::OrbitCamera;
use super::target::{OffscreenTarget, RgbaImage};
use super::{GpuContext, RenderError, Renderer, SceneView};

/// Renders `scene` into a new `width` x `height` offscreen target and reads it back.
/// GPU validation and out-of-memory errors during the frame are captured with error
/// scopes and returned as [`RenderError`]s.
pub fn render_to_image(
    ctx: &GpuContext,
    renderer: &mut Renderer,
    width: u32,
    height: u32,
    scene: &SceneView<'_>,
) -> Result<RgbaImage, RenderError> {
    let format = renderer.color_format();
    if !matches!(
        format,
        wgpu::TextureFormat::Rgba8UnormSrgb | wgpu::TextureFormat::Rgba8Unorm
    ) {
        return Err(RenderError::InvalidInput(format!(
            "offscreen images need an RGBA8 renderer, this one targets {format:?}"
        )));
    }
    ctx.scoped(|| {
        let target = OffscreenTarget::new(&ctx.device, width, height, format)?;
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("offscreen frame"),
            });
        renderer.render(ctx, &mut encoder, &target.view, [width, height], scene)?;
        let pending = target.copy_out(&ctx.device, &mut encoder);
        ctx.queue.submit([encoder.finish()]);
        pending.finish(ctx)
    })
}

/// The default three-quarter camera framed to fit `bounds` at `aspect` (width / height).
pub fn framed_camera(bounds: &Aabb, aspect: f32) -> OrbitCamera {
    let mut camera = OrbitCamera::default();
    if !bounds.is_empty() {
        camera.frame_to_fit(bounds.min, bounds.max, aspect);
    }
    camera
}
