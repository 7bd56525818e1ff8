//! The end of a window frame: egui painted over the surface (and into an offscreen copy
//! when a screenshot is due), the command buffers submitted and the frame presented.
//!
//! The surface can be outdated (resized under us), lost, timed out or occluded; each is
//! answered here with a reconfigure or a redraw request, so the frame loop in `lib.rs`
//! only sees whether a readback is pending and what to tell the user.

use std::sync::Arc;

use winit::window::Window;

use super::gpu::{AppliedOnce, Gpu};
use crate::render::{OffscreenTarget, PendingReadback};

/// egui's output of one frame, tessellated for the renderer.
pub(super) struct EguiFrame<'a> {
    /// The triangles egui drew, in points.
    pub paint_jobs: &'a [egui::ClippedPrimitive],
    /// Physical pixels per egui point.
    pub pixels_per_point: f32,
    /// Textures egui created, changed or freed this frame.
    pub textures: &'a AppliedOnce,
}

/// What came of [`Gpu::paint_and_present`].
#[derive(Default)]
pub(super) struct Presented {
    /// The offscreen copy of the window being read back, when a capture was asked for.
    pub readback: Option<PendingReadback>,
    /// A problem to show in the status bar (the frame was dropped, not retried in a loop).
    pub problem: Option<String>,
}

impl Gpu {
    /// Paints `egui` over the window's surface after the viewport pass already in
    /// `encoder`, submits it and presents. With `capture` the same frame is also painted
    /// into an offscreen target of the surface's size and format and read back (the
    /// screenshot of a scripted run). Surface trouble asks `window` for another redraw.
    pub(super) fn paint_and_present(
        &mut self,
        window: &Arc<Window>,
        mut encoder: wgpu::CommandEncoder,
        egui: EguiFrame<'_>,
        capture: bool,
    ) -> Presented {
        let mut out = Presented::default();
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: egui.pixels_per_point,
        };
        for (id, deltas) in &egui.textures.0.set {
            for delta in deltas {
                self.egui_renderer
                    .update_texture(&self.ctx.device, &self.ctx.queue, *id, delta);
            }
        }
        let user_buffers = self.egui_renderer.update_buffers(
            &self.ctx.device,
            &self.ctx.queue,
            &mut encoder,
            egui.paint_jobs,
            &screen,
        );
        let mut suboptimal = false;
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f) => Some(f),
            wgpu::CurrentSurfaceTexture::Suboptimal(f) => {
                suboptimal = true;
                Some(f)
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                // Resized under us: reconfigure and draw again.
                let size = window.inner_size();
                self.resize(size.width, size.height);
                window.request_redraw();
                None
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                if let Err(e) = self.recreate_surface(window) {
                    out.problem = Some(e.report());
                }
                window.request_redraw();
                None
            }
            wgpu::CurrentSurfaceTexture::Timeout => {
                window.request_redraw();
                None
            }
            // Minimised or covered: draw again when the window shows (Occluded(false) or
            // a resize sends an event); a validation error is reported, not retried in a
            // loop.
            wgpu::CurrentSurfaceTexture::Occluded => None,
            _ => {
                out.problem = Some("the window surface rejected the frame".into());
                None
            }
        };
        let target = capture
            .then(|| {
                let (w, h, format) = (self.config.width, self.config.height, self.config.format);
                OffscreenTarget::new(&self.ctx.device, w, h, format).ok()
            })
            .flatten();
        if let Some(frame) = &frame {
            let view = frame
                .texture
                .create_view(&wgpu::TextureViewDescriptor::default());
            self.paint_egui(&mut encoder, &view, egui.paint_jobs, &screen);
        }
        out.readback = target.as_ref().map(|target| {
            self.paint_egui(&mut encoder, &target.view, egui.paint_jobs, &screen);
            target.copy_out(&self.ctx.device, &mut encoder)
        });
        self.ctx.queue.submit(
            user_buffers
                .into_iter()
                .chain(std::iter::once(encoder.finish())),
        );
        if let Some(frame) = frame {
            window.pre_present_notify();
            self.ctx.queue.present(frame);
            if suboptimal {
                let size = window.inner_size();
                self.resize(size.width, size.height);
            }
        }
        for id in &egui.textures.0.free {
            self.egui_renderer.free_texture(id);
        }
        // Once a frame, without blocking: finished submissions release their staging
        // memory and dropped resources, and map callbacks run. (`submit` triages too;
        // this also covers frames that submit nothing new, e.g. while paused.)
        let _ = self.ctx.device.poll(wgpu::PollType::Poll);
        out
    }

    /// egui's pass: clears `view` to the window's background and draws `paint_jobs`.
    fn paint_egui(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        paint_jobs: &[egui::ClippedPrimitive],
        screen: &egui_wgpu::ScreenDescriptor,
    ) {
        let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("egui"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: 0.1,
                        g: 0.1,
                        b: 0.1,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        self.egui_renderer
            .render(&mut pass.forget_lifetime(), paint_jobs, screen);
    }
}
