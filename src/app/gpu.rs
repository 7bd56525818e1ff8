//! The window's GPU side: the device and surface, the character, B and library
//! instances on the GPU, the 3D viewport texture egui shows, the frame description the
//! renderer draws and screenshots (egui's paint pass and the present: `present.rs`).

use std::path::Path;
use std::sync::Arc;

use glam::Vec3;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use super::VIEWPORT_FORMAT;
use crate::controller::Transport;
use crate::render::scene::OnGpu;
use crate::render::{
    GpuContext, GpuModel, Grid, OffscreenTarget, RenderError, Renderer, RgbaImage, SceneBuilder,
    SkinnedInstances,
};
use crate::stage::pose::Pose;
use crate::ui::Previewer;
use crate::AppError;

/// The viewport texture shared with egui.
pub(super) struct Viewport {
    pub(super) target: OffscreenTarget,
    pub(super) texture_id: egui::TextureId,
}

/// GPU model data for the previewer's current model.
pub(super) struct GpuCharacter {
    pub(super) generation: u64,
    pub(super) model: GpuModel,
    pub(super) instances: SkinnedInstances,
    /// Grid spacing follows the character's size.
    pub(super) grid: Grid,
}

/// GPU data of A/B compare's B: `(A's model generation, B's file generation)` it was made
/// for, B's own model (`None`: B shares A's) and one skinned instance.
pub(super) struct CompareGpu {
    pub(super) made_for: (u64, u64),
    pub(super) model: Option<GpuModel>,
    pub(super) instances: SkinnedInstances,
}

pub(super) struct Gpu {
    pub(super) surface: wgpu::Surface<'static>,
    pub(super) config: wgpu::SurfaceConfiguration,
    pub(super) ctx: GpuContext,
    pub(super) renderer: Renderer,
    pub(super) egui_renderer: egui_wgpu::Renderer,
    pub(super) viewport: Option<Viewport>,
    pub(super) character: Option<GpuCharacter>,
    /// A/B compare's B for the side-by-side view: instances of A's model, or B's own
    /// model when B comes from another file.
    pub(super) compare: Option<CompareGpu>,
    /// Model generation whose upload failed, so it is not retried every frame.
    pub(super) failed_generation: Option<u64>,
    /// The library view's instances: `(model generation, count)` they were made for.
    pub(super) crowd: Option<((u64, usize), SkinnedInstances)>,
    /// The grid whose instances could not be made (too large for the GPU's bindings):
    /// not retried every frame; its error was shown once.
    pub(super) crowd_failed: Option<(u64, usize)>,
    /// Trail points, reused every frame.
    pub(super) trail_scratch: Vec<Vec3>,
    /// The overlay and the ghosts' instances, kept between frames.
    pub(super) scene: SceneBuilder,
}

impl Gpu {
    pub(super) fn new(event_loop: &ActiveEventLoop, window: Arc<Window>) -> Result<Self, AppError> {
        let display = Box::new(event_loop.owned_display_handle());
        let instance = wgpu::Instance::new(
            wgpu::InstanceDescriptor::new_with_display_handle_from_env(display),
        );
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| AppError::system("create a window surface", e))?;
        let ctx = GpuContext::for_surface(instance, &surface)?;
        let adapter = ctx.adapter.as_ref().ok_or("no adapter")?;
        let caps = surface.get_capabilities(adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or("the window surface supports no colour format")?;
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(&ctx.device, &config);
        let renderer = Renderer::new(&ctx, VIEWPORT_FORMAT)?;
        let egui_renderer =
            egui_wgpu::Renderer::new(&ctx.device, format, egui_wgpu::RendererOptions::default());
        Ok(Self {
            surface,
            config,
            ctx,
            renderer,
            egui_renderer,
            viewport: None,
            character: None,
            compare: None,
            failed_generation: None,
            crowd: None,
            crowd_failed: None,
            trail_scratch: Vec::new(),
            scene: SceneBuilder::new(),
        })
    }

    /// Replaces a lost surface (same instance, device and configuration).
    pub(super) fn recreate_surface(&mut self, window: &Arc<Window>) -> Result<(), AppError> {
        let instance = self
            .ctx
            .instance
            .as_ref()
            .ok_or("cannot recreate the window surface: no instance")?;
        self.surface = instance
            .create_surface(window.clone())
            .map_err(|e| AppError::system("recreate the window surface", e))?;
        self.surface.configure(&self.ctx.device, &self.config);
        Ok(())
    }

    pub(super) fn resize(&mut self, width: u32, height: u32) {
        // A minimised or tiny window: keep at least one pixel so configure stays valid.
        self.config.width = width.max(1);
        self.config.height = height.max(1);
        self.surface.configure(&self.ctx.device, &self.config);
    }

    /// Uploads the previewer's model when it changed.
    pub(super) fn sync_character(&mut self, previewer: &mut Previewer) {
        let generation = Some(previewer.model_generation());
        if self.character.as_ref().map(|c| c.generation) == generation
            || self.failed_generation == generation
        {
            return;
        }
        let model = previewer.model();
        let result = self
            .renderer
            .upload_model(&self.ctx, model)
            .and_then(|gpu_model| {
                let instances = self.renderer.create_instances(&self.ctx, &gpu_model, 1)?;
                Ok((gpu_model, instances))
            });
        match result {
            Ok((gpu_model, instances)) => {
                let pose = crate::stage::pose::Pose::new(model);
                let bounds = crate::render::bounds::pose_bounds(model, &pose).unwrap_or_default();
                let grid = if bounds.is_empty() {
                    Grid::for_bounds(Vec3::splat(-1.0), Vec3::splat(1.0))
                } else {
                    Grid::for_bounds(bounds.min, bounds.max)
                };
                self.character = Some(GpuCharacter {
                    generation: previewer.model_generation(),
                    model: gpu_model,
                    instances,
                    grid,
                });
            }
            Err(e) => {
                self.character = None;
                self.failed_generation = generation;
                previewer.set_message(format!("cannot draw {}: {e}", model.source), true);
            }
        }
    }

    /// Uploads what the side-by-side compare view draws for B, once per B.
    pub(super) fn sync_compare(&mut self, previewer: &mut Previewer) {
        let Some(c) = previewer
            .stage
            .compare
            .as_ref()
            .filter(|c| c.view == crate::stage::inspect::CompareView::SideBySide)
        else {
            self.compare = None;
            return;
        };
        let Some(a) = &self.character else {
            return;
        };
        let made_for = (previewer.model_generation(), c.generation);
        if self.compare.as_ref().map(|g| g.made_for) == Some(made_for) {
            return;
        }
        let result = match c.b_is_a {
            true => self
                .renderer
                .create_instances(&self.ctx, &a.model, 1)
                .map(|i| (None, i)),
            false => self
                .renderer
                .upload_model(&self.ctx, &c.b.model)
                .and_then(|m| {
                    let i = self.renderer.create_instances(&self.ctx, &m, 1)?;
                    Ok((Some(m), i))
                }),
        };
        match result {
            Ok((model, instances)) => {
                self.compare = Some(CompareGpu {
                    made_for,
                    model,
                    instances,
                })
            }
            Err(e) => {
                self.compare = None;
                previewer.set_message(format!("cannot draw B: {e}"), true);
                previewer.stop_compare();
            }
        }
    }

    /// Makes the viewport texture match the size egui laid out.
    pub(super) fn sync_viewport(&mut self, size: [u32; 2]) -> Result<egui::TextureId, RenderError> {
        if let Some(v) = &self.viewport {
            if [v.target.width, v.target.height] == size {
                return Ok(v.texture_id);
            }
        }
        let target = OffscreenTarget::new(&self.ctx.device, size[0], size[1], VIEWPORT_FORMAT)?;
        let texture_id = match &self.viewport {
            Some(old) => {
                self.egui_renderer.update_egui_texture_from_wgpu_texture(
                    &self.ctx.device,
                    &target.view,
                    wgpu::FilterMode::Linear,
                    old.texture_id,
                );
                old.texture_id
            }
            None => self.egui_renderer.register_native_texture(
                &self.ctx.device,
                &target.view,
                wgpu::FilterMode::Linear,
            ),
        };
        self.viewport = Some(Viewport { target, texture_id });
        Ok(texture_id)
    }

    /// Records the 3D view of the previewer into the viewport texture.
    pub(super) fn draw_viewport(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        previewer: &Previewer,
    ) -> Result<(), RenderError> {
        let Some(viewport) = &self.viewport else {
            return Ok(());
        };
        let size = [viewport.target.width, viewport.target.height];
        let view = viewport.target.view.clone();
        self.draw_scene(encoder, previewer, &view, size)
    }

    /// Exports one cycle of the timeline's clip as the viewport shows it (camera, mesh,
    /// overlays, ghosts, compare), one frame per key interval up to 30 fps, to `path`: a
    /// GIF, an animated PNG (`.png`/`.apng`) or an MP4 (through ffmpeg). The playhead and
    /// play state are put back afterwards.
    pub(super) fn export_preview(
        &mut self,
        previewer: &mut Previewer,
        path: &Path,
    ) -> Result<String, AppError> {
        if let Some(step) = previewer.timeline_hidden_by() {
            return Err(format!("export follows the timeline's clip: {step}").into());
        }
        let clip = previewer
            .stage
            .main
            .timeline
            .clip()
            .ok_or("no clip to export (the file has no animations)")?;
        let duration = f64::from(previewer.model().clips[clip].duration_secs());
        let fps = previewer
            .stage
            .main
            .timeline
            .frame_rate_hz()
            .clamp(1.0, 30.0);
        let frames = ((duration * fps).round() as u32).clamp(1, 600);
        let [w, h] = previewer.view.viewport_size_px;
        let format = crate::render::frames::ExportFormat::from_path(path)?;
        let (was_playing, time, phase) = (
            previewer.stage.main.timeline.is_playing(),
            previewer.stage.main.timeline.time_secs(),
            previewer.stage.main.timeline.phase_secs(),
        );
        previewer.transport(Transport::Play(false));
        // Written as the frames are drawn: one image in memory at a time.
        let mut writer =
            crate::render::frames::FrameWriter::create(path, format, (w, h), frames, fps as f32)?;
        let mut result = Ok(());
        for i in 0..frames {
            previewer.transport(Transport::Seek(time - phase + f64::from(i) / fps));
            previewer.evaluate_pose();
            let frame = (|| -> Result<crate::render::RgbaImage, RenderError> {
                let target = OffscreenTarget::new(&self.ctx.device, w, h, VIEWPORT_FORMAT)?;
                let mut encoder =
                    self.ctx
                        .device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("export frame"),
                        });
                self.draw_scene(&mut encoder, previewer, &target.view, [w, h])?;
                let pending = target.copy_out(&self.ctx.device, &mut encoder);
                self.ctx.queue.submit([encoder.finish()]);
                pending.finish(&self.ctx)
            })();
            if let Err(e) = frame
                .map_err(AppError::from)
                .and_then(|image| Ok(writer.push(&image)?))
            {
                result = Err(e);
                break;
            }
        }
        previewer.transport(Transport::Seek(time));
        previewer.transport(Transport::Play(was_playing));
        previewer.evaluate_pose();
        result?;
        let written = writer.written();
        writer.finish()?;
        Ok(format!(
            "exported {written} frames ({w}x{h}, {fps:.0} fps) to {}",
            path.display()
        ))
    }

    /// Records the previewer's 3D view into `view` (`size` pixels): the frame described
    /// by [`scene_frame`], drawn by the builder `stridescope render` uses too.
    pub(super) fn draw_scene(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        previewer: &Previewer,
        view: &wgpu::TextureView,
        size: [u32; 2],
    ) -> Result<(), RenderError> {
        if let Some(v) = previewer.library_view() {
            return self.draw_library(encoder, previewer, v, view, size);
        }
        self.crowd = None;
        let toggles = previewer.view.toggles;
        self.trail_scratch.clear();
        if toggles.trail {
            self.trail_scratch.extend(
                previewer
                    .trail()
                    .map(|p| Vec3::new(p.x as f32, 0.005, p.y as f32)),
            );
        }
        // The GPU character drawn is the one made for the previewer's model: a pose of
        // another model (a file opened earlier in this frame, not yet uploaded) is never
        // paired with it. The window syncs right before drawing, so this only skips.
        let generation = previewer.model_generation();
        let character = self
            .character
            .as_mut()
            .filter(|c| c.generation == generation);
        let mut frame = super::frame::scene_frame(previewer, &self.trail_scratch);
        if let Some(c) = character {
            if toggles.grid {
                let mut g = c.grid;
                let root = previewer.root_position();
                // Keep the floor under the character as root motion carries it away.
                g.center = Vec3::new(
                    (root.x / g.spacing).round() * g.spacing,
                    0.0,
                    (root.z / g.spacing).round() * g.spacing,
                );
                frame.grid = Some(g);
            }
            if toggles.mesh {
                if let (Some(g), Some(second)) = (&mut self.compare, frame.second.as_mut()) {
                    second.gpu = Some(OnGpu {
                        model: g.model.as_ref().unwrap_or(&c.model),
                        instances: &mut g.instances,
                        upload: generation,
                    });
                }
                frame.gpu = Some(OnGpu {
                    model: &c.model,
                    instances: &mut c.instances,
                    upload: generation,
                });
            }
        }
        self.scene
            .draw(&self.ctx, &mut self.renderer, frame, |renderer, scene| {
                renderer.render(&self.ctx, encoder, view, size, scene)
            })
    }
}

impl Gpu {
    /// Records the library view's grid into `view`: every character skinned in one
    /// dispatch per model from instances made once per model and clip count.
    pub(super) fn draw_library(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        previewer: &Previewer,
        library: &crate::controller::LibraryView,
        view: &wgpu::TextureView,
        size: [u32; 2],
    ) -> Result<(), RenderError> {
        let generation = previewer.model_generation();
        let Some(c) = self
            .character
            .as_mut()
            .filter(|c| c.generation == generation)
        else {
            return Ok(());
        };
        let count = library.grid.len();
        let made_for = (generation, count);
        if self.crowd_failed == Some(made_for) {
            return Ok(());
        }
        if count == 0 {
            // A filter that matches no clip: the ground alone.
            self.crowd = None;
        } else if self.crowd.as_ref().map(|(k, _)| *k) != Some(made_for) {
            // Dropped first: a grid of hundreds of characters holds large buffers.
            self.crowd = None;
            match self
                .renderer
                .create_instances(&self.ctx, &c.model, count as u32)
            {
                Ok(instances) => self.crowd = Some((made_for, instances)),
                Err(e) => {
                    self.crowd_failed = Some(made_for);
                    return Err(e);
                }
            }
        }
        let grid = previewer.view.toggles.grid.then(|| {
            let (lo, hi) = library.grid.bounds();
            let mut g = Grid::for_bounds(lo, hi);
            g.center = Vec3::ZERO;
            g
        });
        let poses: Vec<&Pose> = library.grid.poses().collect();
        let crowd = crate::render::Crowd {
            camera: previewer.view.camera,
            grid,
            gpu: self.crowd.as_mut().map(|(_, instances)| OnGpu {
                model: &c.model,
                instances,
                upload: generation,
            }),
            poses: &poses,
        };
        self.scene
            .draw_crowd(&self.ctx, &mut self.renderer, crowd, |renderer, scene| {
                renderer.render(&self.ctx, encoder, view, size, scene)
            })
    }
}

/// egui's per-frame texture changes; dropping them unapplied is deliberate only when the
/// renderer they were for is going away, so clear them on drop.
pub(super) struct AppliedOnce(pub(super) egui::TexturesDelta);

impl Drop for AppliedOnce {
    fn drop(&mut self) {
        self.0.clear();
    }
}

pub(super) fn new_egui_state(
    ctx: &egui::Context,
    event_loop: &ActiveEventLoop,
    window: &Window,
    gpu: &Gpu,
) -> egui_winit::State {
    let max_side = gpu.ctx.device.limits().max_texture_dimension_2d as usize;
    egui_winit::State::new(
        ctx.clone(),
        egui::ViewportId::ROOT,
        event_loop,
        Some(window.scale_factor() as f32),
        None,
        Some(max_side),
    )
}

/// Writes a readback of the window (in the surface format) as an RGBA PNG.
pub(super) fn save_screenshot(
    mut image: RgbaImage,
    format: wgpu::TextureFormat,
    path: &Path,
) -> Result<(), AppError> {
    if matches!(
        format,
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    ) {
        for px in image.pixels.chunks_exact_mut(4) {
            px.swap(0, 2);
        }
    }
    for px in image.pixels.chunks_exact_mut(4) {
        px[3] = 255;
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| AppError::file(dir, "create", e))?;
    }
    Ok(image.save_png(path)?)
}
