//! The desktop window: winit events -> egui (egui-winit) -> animation tick -> 3D render
//! into an offscreen texture (the same renderer the CLI uses) -> egui paints the panels
//! and that texture to the window surface (egui-wgpu).
//!
//! Repaint on demand: the event loop sleeps (`ControlFlow::Wait`) unless a clip plays or
//! egui asks for a repaint, so a paused preview costs almost no CPU.

pub mod controller;
pub mod file_browser;
pub mod settings;
pub mod ui;
pub mod watch;

use crate::app::controller::{StageCommand, Transport};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::Vec3;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use crate::app::file_browser::Purpose;
use crate::app::settings::Settings;
use crate::app::ui::{Action, Previewer};
use crate::app::watch::FileWatcher;
use crate::asset::Model;
use crate::render::scene::{OnGpu, Second};
use crate::render::{
    Frame, GpuContext, GpuModel, Grid, LocomotionDraw, OffscreenTarget, RenderError, Renderer,
    RgbaImage, SceneBuilder, SkinnedInstances,
};
use crate::stage::pose::Pose;

/// How the window starts.
#[derive(Clone, Debug, Default)]
pub struct AppOptions {
    /// File to open; the built-in demo when `None`.
    pub file: Option<PathBuf>,
    /// Write a PNG of the whole window (UI included) after `after_frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    pub after_frames: u32,
    /// Inner size in logical pixels (overrides the saved size).
    pub size: Option<[u32; 2]>,
    /// Clip to select at start (default: the first).
    pub clip: Option<String>,
    /// Start playing (for scripted screenshots).
    pub play: bool,
    /// Joint to select at start.
    pub select: Option<String>,
    /// Onion skin with this many ghosts on each side.
    pub onion: Option<u32>,
    /// How the ghosts are drawn (`None`: the default, skeletons).
    pub ghosts: Option<crate::stage::inspect::GhostStyle>,
    /// Export a preview of the clip (like File > Export preview) after `after_frames`
    /// frames, then exit.
    pub export: Option<PathBuf>,
    /// A/B compare against this clip, over A or beside it.
    pub compare: Option<String>,
    pub side_by_side: bool,
    /// Retarget this file's or folder's clips onto the character at start, the source
    /// beside it.
    pub retarget_from: Option<PathBuf>,
    /// Start in pose-graph mode with the file's default graph.
    pub graph: bool,
    /// Graph parameters to set at start (imply `graph`).
    pub param: Vec<(String, f32)>,
    /// Start driving (locomotion) at `movement_speed` (default: the clip's own speed)
    /// toward `direction_deg`.
    pub drive: bool,
    pub movement_speed: Option<f32>,
    pub direction_deg: f32,
    /// In place / root motion for every clip of the file (`--in-place`,
    /// `--root-motion`); `Auto` lets the rule decide.
    pub in_place: crate::anim::locomotion::InPlaceOverride,
    /// Start in motion-matching mode (the demo's locomotion set without a file).
    pub motion_matching: bool,
    /// Motion matching on these clip files and folders instead of the character's own
    /// clips, retargeted onto it (and mirrored with `mirror`).
    pub library: Vec<PathBuf>,
    pub mirror: bool,
    /// Open the library view (every clip at once) at start, on the library when one is
    /// built.
    pub library_view: bool,
    /// The motion-matching style (`--style`; see
    /// [`crate::stage::matching::MatchingDef::style`]).
    pub style: Option<String>,
    /// Movement keys held throughout a scripted run (`--screenshot`, `--export`).
    pub hold_keys: Option<crate::stage::matching::KeyInput>,
    /// A file dropped on the window halfway through a scripted run (`--drop`).
    pub drop: Option<PathBuf>,
}

/// A file `--drop` hands to egui as a drag and drop would.
#[derive(Debug)]
struct ScriptedDrop(PathBuf);

impl egui::DroppedFile for ScriptedDrop {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| format!("{}: {e}", self.0.display()))
    }
}

/// Seconds of playback per frame in scripted runs (`--screenshot`, `--export`).
const SCRIPTED_FRAME_SECS: f64 = 1.0 / 60.0;

/// The colour format of the 3D viewport texture: egui-wgpu samples native textures as
/// `Rgba8Unorm`; the renderer's shaders then encode sRGB themselves.
const VIEWPORT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// Opens the window and runs until it is closed. Returns an error message for failures
/// that stop the app (no display, no GPU adapter, screenshot could not be written).
pub fn run(options: AppOptions) -> Result<(), String> {
    let settings_path = Settings::default_path();
    let (settings, settings_note) = match &settings_path {
        Some(p) => Settings::load(p),
        None => (Settings::default(), None),
    };
    let (model, path, load_error) = initial_model(options.file.as_deref())?;
    if let (Some(e), false) = (&load_error, options.library.is_empty()) {
        // The library goes onto FILE's character: without it there is nothing to build.
        return Err(e.clone());
    }
    if let (Some(e), true) = (
        &load_error,
        options.screenshot.is_some() || options.export.is_some(),
    ) {
        // A scripted run of a file that does not open must fail: a screenshot of the
        // demo in its place would pass for the file's in a script that checks exit codes.
        return Err(e.clone());
    }
    let mut previewer = Previewer::new(model, path, settings);
    let load_error = load_error.map(|e| format!("{e} (showing the demo instead)"));
    if let Some(e) = load_error.or(settings_note) {
        previewer.set_message(e, true);
    }
    if options.library.is_empty() {
        apply_start_options(&mut previewer, &options);
    } else {
        // The library is built on a worker thread while the window draws the character
        // and the progress; the other options apply to it when it is ready (its clips,
        // in-place choices and motion matching), in `App::frame`.
        previewer.start_library_load(
            &options.library,
            options.mirror,
            options.motion_matching,
            options.in_place,
        );
    }
    let event_loop = EventLoop::<UserEvent>::with_user_event()
        .build()
        .map_err(|e| format!("cannot open a window (is a display available?): {e}"))?;
    event_loop.set_control_flow(ControlFlow::Wait);
    let mut app = App {
        proxy: event_loop.create_proxy(),
        options,
        settings_path,
        previewer,
        egui_ctx: egui::Context::default(),
        window: None,
        egui_state: None,
        gpu: None,
        watcher: None,
        last_tick: None,
        frame_count: 0,
        messages_printed: 0,
        ctrl_held: false,
        fps: FpsCounter::default(),
        fatal: None,
        portal_answers: true,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| format!("event loop: {e}"))?;
    match app.fatal {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The start-up options that set up what plays (after the file, or the library, is on
/// the character): in-place choice, clip, play, selection, compare, retarget source, onion
/// skin, pose graph and parameters, drive, motion matching (a library starts its own).
fn apply_start_options(previewer: &mut Previewer, options: &AppOptions) {
    if options.in_place != crate::anim::locomotion::InPlaceOverride::Auto {
        previewer.set_in_place_override_all(options.in_place);
    }
    if let Some(name) = &options.clip {
        match previewer.model().find_clip(name) {
            Some(i) => previewer.select_clip(i),
            None => previewer.set_message(format!("no clip named '{name}'"), true),
        }
    }
    if options.play {
        previewer.transport(Transport::Play(true));
    }
    if let Some(name) = &options.select {
        match previewer.model().skeleton.find(name) {
            Some(j) => previewer.select_joint(Some(j)),
            None => previewer.set_message(format!("no joint named '{name}'"), true),
        }
    }
    if let Some(name) = &options.compare {
        match previewer.model().find_clip(name) {
            Some(i) => {
                previewer.compare_with_clip(i);
                if let Some(c) = &previewer.stage.compare {
                    let view = if options.side_by_side {
                        crate::stage::inspect::CompareView::SideBySide
                    } else {
                        crate::stage::inspect::CompareView::Overlay
                    };
                    let (lock, offset) = (c.lock, c.offset);
                    previewer.send(StageCommand::CompareLayout { lock, offset, view });
                }
            }
            None => previewer.set_message(format!("no clip named '{name}' to compare"), true),
        }
    }
    if let Some(path) = &options.retarget_from {
        // Errors are in the status bar; the character stays as it was.
        let _ = previewer.retarget_from(path);
    }
    if let Some(n) = options.onion {
        let onion = &mut previewer.inspect.onion;
        onion.enabled = n > 0;
        onion.before = n.min(crate::stage::inspect::MAX_GHOSTS);
        onion.after = onion.before;
        if let Some(style) = options.ghosts {
            onion.style = style;
        }
        previewer.evaluate_pose();
    }
    if options.graph || !options.param.is_empty() {
        previewer.set_graph_enabled(true);
        for (name, v) in &options.param {
            previewer.send(StageCommand::GraphFloat {
                name: name.clone(),
                value: *v,
            });
        }
        previewer.send(StageCommand::GraphPlaying(options.play));
    }
    if options.drive {
        let mut s = previewer.locomotion_settings;
        s.direction_deg = options.direction_deg;
        if let Some(v) = options.movement_speed {
            s.movement_speed = v;
            previewer.speed_chosen = true;
        }
        previewer.locomotion_settings = s;
        previewer.set_drive(true);
        previewer.send(StageCommand::GraphPlaying(options.play));
    }
    if options.motion_matching && options.library.is_empty() {
        if options.file.is_none() {
            previewer.open_matching_demo();
        } else {
            previewer.set_matching_enabled(true);
        }
    }
    if let Some(style) = &options.style {
        // An unknown style is an error in the status bar; matching goes on as it was.
        previewer.edit_matching(|d| d.style = Some(style.clone()));
    }
    if options.library_view {
        previewer.open_library_view();
    }
}

/// Loads the requested file; a bad file falls back to the demo, with its error returned.
fn initial_model(file: Option<&Path>) -> Result<(Model, Option<PathBuf>, Option<String>), String> {
    match file {
        Some(path) => match crate::asset::load(path) {
            Ok(m) => Ok((m, Some(path.to_path_buf()), None)),
            Err(e) => {
                let demo = crate::asset::load_or_demo(None)?;
                Ok((demo, None, Some(e.to_string())))
            }
        },
        None => Ok((crate::asset::load_or_demo(None)?, None, None)),
    }
}

/// Wake-ups from other threads.
#[derive(Clone, Copy, Debug)]
enum UserEvent {
    /// The open file changed on disk.
    FileChanged,
}

struct App {
    proxy: winit::event_loop::EventLoopProxy<UserEvent>,
    options: AppOptions,
    settings_path: Option<PathBuf>,
    previewer: Previewer,
    egui_ctx: egui::Context,
    window: Option<Arc<Window>>,
    egui_state: Option<egui_winit::State>,
    gpu: Option<Gpu>,
    watcher: Option<FileWatcher>,
    /// When the clock last advanced; `None` while paused, so resuming never jumps.
    last_tick: Option<Instant>,
    frame_count: u32,
    /// Status messages already printed to stderr (scripted runs).
    messages_printed: u64,
    /// Ctrl is down (for the numpad camera views, which bypass egui).
    ctrl_held: bool,
    fps: FpsCounter,
    fatal: Option<String>,
    /// False once the system file dialog failed to appear (no XDG desktop portal):
    /// File > Open uses the in-app browser from then on.
    portal_answers: bool,
}

/// The viewport texture shared with egui.
struct Viewport {
    target: OffscreenTarget,
    texture_id: egui::TextureId,
}

/// GPU model data for the previewer's current model.
struct GpuCharacter {
    generation: u64,
    model: GpuModel,
    instances: SkinnedInstances,
    /// Grid spacing follows the character's size.
    grid: Grid,
}

/// GPU data of A/B compare's B: `(A's model generation, B's file generation)` it was made
/// for, B's own model (`None`: B shares A's) and one skinned instance.
struct CompareGpu {
    made_for: (u64, u64),
    model: Option<GpuModel>,
    instances: SkinnedInstances,
}

struct Gpu {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    ctx: GpuContext,
    renderer: Renderer,
    egui_renderer: egui_wgpu::Renderer,
    viewport: Option<Viewport>,
    character: Option<GpuCharacter>,
    /// A/B compare's B for the side-by-side view: instances of A's model, or B's own
    /// model when B comes from another file.
    compare: Option<CompareGpu>,
    /// Model generation whose upload failed, so it is not retried every frame.
    failed_generation: Option<u64>,
    /// The library view's instances: `(model generation, count)` they were made for.
    crowd: Option<((u64, usize), SkinnedInstances)>,
    /// The grid whose instances could not be made (too large for the GPU's bindings):
    /// not retried every frame; its error was shown once.
    crowd_failed: Option<(u64, usize)>,
    /// Trail points, reused every frame.
    trail_scratch: Vec<Vec3>,
    /// The overlay and the ghosts' instances, kept between frames.
    scene: SceneBuilder,
}

impl Gpu {
    fn new(event_loop: &ActiveEventLoop, window: Arc<Window>) -> Result<Self, String> {
        let display = Box::new(event_loop.owned_display_handle());
        let instance = wgpu::Instance::new(
            wgpu::InstanceDescriptor::new_with_display_handle_from_env(display),
        );
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| format!("cannot create a window surface: {e}"))?;
        let ctx = GpuContext::for_surface(instance, &surface).map_err(|e| e.to_string())?;
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
        let renderer = Renderer::new(&ctx, VIEWPORT_FORMAT).map_err(|e| e.to_string())?;
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
    fn recreate_surface(&mut self, window: &Arc<Window>) -> Result<(), String> {
        let instance = self
            .ctx
            .instance
            .as_ref()
            .ok_or("cannot recreate the window surface: no instance")?;
        self.surface = instance
            .create_surface(window.clone())
            .map_err(|e| format!("cannot recreate the window surface: {e}"))?;
        self.surface.configure(&self.ctx.device, &self.config);
        Ok(())
    }

    fn resize(&mut self, width: u32, height: u32) {
        // A minimised or tiny window: keep at least one pixel so configure stays valid.
        self.config.width = width.max(1);
        self.config.height = height.max(1);
        self.surface.configure(&self.ctx.device, &self.config);
    }

    /// Uploads the previewer's model when it changed.
    fn sync_character(&mut self, previewer: &mut Previewer) {
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
    fn sync_compare(&mut self, previewer: &mut Previewer) {
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
    fn sync_viewport(&mut self, size: [u32; 2]) -> Result<egui::TextureId, RenderError> {
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
    fn draw_viewport(
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
    fn export_preview(&mut self, previewer: &mut Previewer, path: &Path) -> Result<String, String> {
        if let Some(step) = previewer.timeline_hidden_by() {
            return Err(format!("export follows the timeline's clip: {step}"));
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
        let [w, h] = previewer.viewport_size_px;
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
                .map_err(|e| e.to_string())
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
    fn draw_scene(
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
        let toggles = previewer.toggles;
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
        let mut frame = scene_frame(previewer, &self.trail_scratch);
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
    fn draw_library(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        previewer: &Previewer,
        library: &crate::app::controller::LibraryView,
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
        let grid = previewer.toggles.grid.then(|| {
            let (lo, hi) = library.grid.bounds();
            let mut g = Grid::for_bounds(lo, hi);
            g.center = Vec3::ZERO;
            g
        });
        let poses: Vec<&Pose> = library.grid.poses().collect();
        let crowd = crate::render::Crowd {
            camera: previewer.camera,
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

/// What the previewer shows this frame, without GPU copies (the window adds those it
/// has): the character and its pose, the skeleton, onion-skin ghosts, A/B compare's B
/// with its heat points and paths, the selected joint, the trail (`trail`, world space),
/// and the locomotion and motion-matching overlays.
fn scene_frame<'a>(previewer: &'a Previewer, trail: &'a [Vec3]) -> Frame<'a, Pose> {
    let toggles = previewer.toggles;
    let model = previewer.model();
    let pose = &previewer.stage.main.pose;
    let mut frame = Frame::new(previewer.camera, model, pose);
    frame.skeleton = toggles.skeleton;
    frame.selected_joint = previewer.inspect.selected;
    let style = previewer.inspect.onion.style;
    frame.ghost_skeletons = style.skeletons();
    frame.ghost_meshes = style.meshes() && toggles.mesh;
    frame.ghosts = &previewer.ghosts;
    frame.ghost_offsets_secs = &previewer.ghost_offsets_secs;
    if let Some(c) = previewer.stage.compare.as_ref().filter(|c| c.valid) {
        let full = crate::stage::inspect::HEAT_FULL_M * c.unit_scale;
        let skin_joint =
            |j: usize| model.skins.is_empty() || model.skins.iter().any(|s| s.joints.contains(&j));
        let heat = c
            .difference
            .per_joint_m
            .iter()
            .enumerate()
            .filter(|&(j, _)| c.joint_map[j].is_some() && skin_joint(j))
            .filter_map(|(j, d)| {
                let m = pose.model_from_joint.get(j)?;
                Some((
                    m.w_axis.truncate(),
                    crate::stage::inspect::heat_color(*d, full),
                ))
            })
            .collect();
        frame.second = Some(Second {
            model: &c.b.model,
            pose: &c.b.pose,
            gpu: None,
            tinted: c.retarget_pairs.is_some(),
            heat,
            paths: [&c.a_path, &c.b_path],
        });
    }
    if toggles.trail {
        frame.trail = Some((trail, previewer.root_position()));
    }
    if let Some(l) = previewer.graph().and_then(|g| g.locomotion.as_ref()) {
        frame.locomotion = Some((
            LocomotionDraw {
                warp: &l.warp,
                world_from_model: l.model_from_root(),
                leg_length: l.unit_scale() * crate::anim::locomotion::REFERENCE_LEG_LENGTH_M,
                body_yaw_rad: l.orientation.body_yaw_rad,
                movement_yaw_rad: l.orientation.angle_rad,
                travel: l.travel(),
            },
            previewer.locomotion_overlays,
        ));
    }
    if let Some(d) = previewer.matching_draw() {
        frame.matching = Some((d, previewer.matching_overlays));
    }
    frame
}

/// Frames per second over the last half second, and the CPU time of the last frame.
#[derive(Default)]
struct FpsCounter {
    window_start: Option<Instant>,
    frames: u32,
    fps: f32,
    /// Time spent building and submitting the previous frame (ms).
    frame_ms: f32,
}

impl FpsCounter {
    /// The window slept (nothing animating): the next frames start a new window, so the
    /// sleep is not counted as one slow frame.
    fn idle(&mut self) {
        self.window_start = None;
        self.frames = 0;
    }

    fn frame(&mut self, now: Instant) {
        let start = *self.window_start.get_or_insert(now);
        self.frames += 1;
        let elapsed = now.duration_since(start).as_secs_f32();
        if elapsed >= 0.5 {
            self.fps = self.frames as f32 / elapsed;
            self.frames = 0;
            self.window_start = Some(now);
        }
    }
}

impl App {
    fn window(&self) -> Option<&Arc<Window>> {
        self.window.as_ref()
    }

    fn exit(&mut self, event_loop: &ActiveEventLoop) {
        self.previewer.store_settings();
        if let Some(window) = &self.window {
            let size = window.inner_size().to_logical::<f64>(window.scale_factor());
            self.previewer.settings.window_size =
                [size.width.round() as u32, size.height.round() as u32];
        }
        // Scripted screenshots and exports leave the user's settings alone.
        if self.options.screenshot.is_none() && self.options.export.is_none() {
            if let Some(path) = &self.settings_path {
                if let Err(e) = self.previewer.settings.save(path) {
                    eprintln!("stridescope: could not save settings: {e}");
                }
            }
        }
        event_loop.exit();
    }

    /// Asks the system file dialog (`dialog`) for a file, or opens the in-app browser
    /// for `purpose` where no XDG desktop portal answers: without a session bus there is
    /// none; with one but no portal, rfd returns at once (nobody cancels a dialog in
    /// 150 ms), and the in-app browser is used from then on. `None`: cancelled, or the
    /// browser took over (it acts on the file itself).
    fn pick_file(
        &mut self,
        purpose: Purpose,
        dialog: impl FnOnce() -> Option<PathBuf>,
    ) -> Option<PathBuf> {
        if !self.portal_answers || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
            self.previewer.open_file_browser_for(purpose);
            return None;
        }
        let asked = std::time::Instant::now();
        let picked = dialog();
        if picked.is_none() && asked.elapsed() < std::time::Duration::from_millis(150) {
            self.portal_answers = false;
            self.previewer.open_file_browser_for(purpose);
        }
        picked
    }

    /// File > Export preview to `path`, with the outcome in the status bar.
    fn export_preview_to(&mut self, path: &Path) {
        if let Some(gpu) = self.gpu.as_mut() {
            match gpu.export_preview(&mut self.previewer, path) {
                Ok(text) => self.previewer.set_message(text, false),
                Err(e) => self.previewer.set_message(format!("export: {e}"), true),
            }
        }
    }

    /// Reloads the open file when the watcher saw it change (also while paused: the
    /// watcher wakes the event loop). A failed reload keeps the current character.
    fn reload_if_changed(&mut self) {
        let Some(watcher) = &self.watcher else {
            return;
        };
        if !watcher.changed() {
            return;
        }
        let path = watcher.path().to_path_buf();
        if self.previewer.open_path(&path).is_ok() {
            // A folder reloads in the background: say so now, "reloaded" when it is done.
            let text = if path.is_dir() {
                format!("reloading {} (changed on disk) ...", path.display())
            } else {
                format!("reloaded {} (changed on disk)", path.display())
            };
            self.previewer.set_message(text, false);
        }
        if let Some(w) = &self.window {
            w.request_redraw();
        }
    }

    fn update_watcher(&mut self) {
        let wanted = self.previewer.path().map(Path::to_path_buf);
        if self.watcher.as_ref().map(|w| w.path().to_path_buf()) != wanted {
            let proxy = self.proxy.clone();
            self.watcher = wanted.as_deref().and_then(|p| {
                FileWatcher::new(p, move || {
                    let _ = proxy.send_event(UserEvent::FileChanged);
                })
            });
        }
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Some(window) = self.window().cloned() else {
            return;
        };
        // Sleep until the next event unless this frame asks for a timed wake-up below.
        event_loop.set_control_flow(ControlFlow::Wait);
        let now = Instant::now();
        // Advance playback by real time; paused frames do not accumulate time. Scripted
        // runs (--screenshot, --export) step a fixed 1/60 s per frame instead, so the
        // same command gives the same picture on a fast machine and on a loaded one.
        let scripted = self.options.screenshot.is_some() || self.options.export.is_some();
        let dt = match (self.previewer.is_animating(), self.last_tick) {
            (true, Some(_)) if scripted => SCRIPTED_FRAME_SECS,
            (true, Some(last)) => now.duration_since(last).as_secs_f64(),
            _ => 0.0,
        };
        if self.last_tick.is_none() {
            // The window slept since the last frame (or this is the first).
            self.fps.idle();
        }
        self.last_tick = self.previewer.is_animating().then_some(now);
        if let (true, Some(keys)) = (scripted, self.options.hold_keys) {
            self.previewer.send(StageCommand::MatchingKeys(keys));
        }
        self.previewer.poll_pending_load();
        match self.previewer.take_library_outcome() {
            // The library is on the character: the options that choose what plays apply
            // to it now.
            Some(Ok(())) => apply_start_options(&mut self.previewer, &self.options),
            // A scripted run needed the library: stop with its reason.
            Some(Err(e)) if scripted => {
                let what = if self.options.motion_matching {
                    "motion-matching library"
                } else {
                    "library"
                };
                self.fatal = Some(format!("{what}: {e}"));
                self.exit(event_loop);
                return;
            }
            _ => {}
        }
        if dt > 0.0 {
            self.previewer.advance(dt);
        }
        self.fps.frame(now);
        self.previewer.stats.fps = self.fps.fps;
        self.previewer.stats.frame_ms = self.fps.frame_ms;

        let Some(gpu) = self.gpu.as_mut() else {
            return;
        };
        gpu.sync_character(&mut self.previewer);
        gpu.sync_compare(&mut self.previewer);
        let texture = match gpu.sync_viewport(self.previewer.viewport_size_px()) {
            Ok(id) => Some(id),
            Err(e) => {
                self.previewer.set_message(format!("viewport: {e}"), true);
                None
            }
        };
        let Some(egui_state) = self.egui_state.as_mut() else {
            return;
        };
        let mut raw_input = egui_state.take_egui_input(&window);
        if let Some(path) = &self.options.drop {
            // Halfway through a scripted run, as a file manager's drag and drop does.
            if scripted && self.frame_count == self.options.after_frames / 2 {
                raw_input
                    .dropped_files
                    .push(std::sync::Arc::new(ScriptedDrop(path.clone())));
            }
        }
        let previewer = &mut self.previewer;
        let mut full_output = self
            .egui_ctx
            .run_ui(raw_input, |ui| previewer.ui(ui, texture));
        egui_state
            .handle_platform_output(&window, std::mem::take(&mut full_output.platform_output));
        // Texture uploads must be applied (or deliberately dropped, on the early-return
        // paths below where the renderer goes away anyway).
        let textures = AppliedOnce(std::mem::take(&mut full_output.textures_delta));

        for action in self.previewer.take_actions() {
            match action {
                Action::OpenDialog => {
                    let picked = self.pick_file(Purpose::Open, || {
                        rfd::FileDialog::new()
                            .add_filter("glTF 2.0, FBX and BVH", &["gltf", "glb", "fbx", "bvh"])
                            .set_title(Purpose::Open.title())
                            .pick_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.open_path(&path);
                    }
                }
                Action::ExportPreview => {
                    let picked = self.pick_file(Purpose::Export, || {
                        rfd::FileDialog::new()
                            .add_filter("GIF", &["gif"])
                            .add_filter("Animated PNG", &["png"])
                            .add_filter("MP4 (ffmpeg)", &["mp4"])
                            .set_file_name("preview.gif")
                            .set_title(Purpose::Export.title())
                            .save_file()
                    });
                    if let Some(path) = picked {
                        self.export_preview_to(&path);
                    }
                }
                Action::ExportPreviewTo(path) => self.export_preview_to(&path),
                Action::OpenCompareDialog => {
                    let picked = self.pick_file(Purpose::CompareB, || {
                        rfd::FileDialog::new()
                            .add_filter("glTF 2.0, FBX and BVH", &["gltf", "glb", "fbx", "bvh"])
                            .set_title(Purpose::CompareB.title())
                            .pick_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.compare_with_file(&path);
                    }
                }
                Action::OpenRetargetDialog => {
                    let picked = self.pick_file(Purpose::Retarget, || {
                        rfd::FileDialog::new()
                            .add_filter("glTF 2.0, FBX and BVH", &["gltf", "glb", "fbx", "bvh"])
                            .set_title(Purpose::Retarget.title())
                            .pick_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.retarget_from(&path);
                    }
                }
                Action::OpenLibraryDialog => {
                    let picked = self.pick_file(Purpose::Library, || {
                        rfd::FileDialog::new()
                            .set_title(Purpose::Library.title())
                            .pick_folder()
                    });
                    if let Some(path) = picked {
                        self.previewer.open_library_folder(&path);
                    }
                }
                Action::SaveRetargetMapDialog => {
                    let picked = self.pick_file(Purpose::SaveMap, || {
                        rfd::FileDialog::new()
                            .add_filter("RON map file", &["ron"])
                            .set_file_name("retarget-map.ron")
                            .set_title(Purpose::SaveMap.title())
                            .save_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.save_retarget_map(&path);
                    }
                }
                Action::SaveRetargetedDialog => {
                    let picked = self.pick_file(Purpose::SaveRetargeted, || {
                        rfd::FileDialog::new()
                            .add_filter("glTF binary", &["glb"])
                            .set_file_name("retargeted.glb")
                            .set_title(Purpose::SaveRetargeted.title())
                            .save_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.save_retargeted_clips(&path);
                    }
                }
                Action::LoadRetargetMapDialog => {
                    let picked = self.pick_file(Purpose::LoadMap, || {
                        rfd::FileDialog::new()
                            .add_filter("RON map file", &["ron"])
                            .set_title(Purpose::LoadMap.title())
                            .pick_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.load_retarget_map(&path);
                    }
                }
                Action::Quit => {
                    self.exit(event_loop);
                    return;
                }
            }
        }
        let Some(gpu) = self.gpu.as_mut() else {
            return;
        };
        // The UI may have opened another file (browser, recent files, drop) or another
        // B: upload it before drawing, so this frame's pose meets its own model.
        gpu.sync_character(&mut self.previewer);
        gpu.sync_compare(&mut self.previewer);
        // 3D first, into the viewport texture, then egui on top of the window.
        let mut encoder = gpu
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            });
        if let Err(e) = gpu.draw_viewport(&mut encoder, &self.previewer) {
            if matches!(e, RenderError::DeviceLost(_)) {
                // Rebuild everything: device, renderers, GPU models, and a fresh egui
                // context so the font atlas is uploaded again.
                self.previewer
                    .set_message(format!("{e}; recreating the GPU device"), true);
                self.gpu = None;
                self.egui_ctx = egui::Context::default();
                self.egui_state = None;
                self.gpu = Gpu::new(event_loop, window.clone())
                    .map_err(|e| self.previewer.set_message(e, true))
                    .ok();
                if let Some(gpu) = &self.gpu {
                    self.egui_state =
                        Some(new_egui_state(&self.egui_ctx, event_loop, &window, gpu));
                }
                window.request_redraw();
                return;
            }
            self.previewer.set_message(format!("render: {e}"), true);
        }
        let ppp = full_output.pixels_per_point;
        let paint_jobs = self.egui_ctx.tessellate(full_output.shapes, ppp);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [gpu.config.width, gpu.config.height],
            pixels_per_point: ppp,
        };
        for (id, deltas) in &textures.0.set {
            for delta in deltas {
                gpu.egui_renderer
                    .update_texture(&gpu.ctx.device, &gpu.ctx.queue, *id, delta);
            }
        }
        let user_buffers = gpu.egui_renderer.update_buffers(
            &gpu.ctx.device,
            &gpu.ctx.queue,
            &mut encoder,
            &paint_jobs,
            &screen,
        );

        let mut suboptimal = false;
        let frame = match gpu.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f) => Some(f),
            wgpu::CurrentSurfaceTexture::Suboptimal(f) => {
                suboptimal = true;
                Some(f)
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                // Resized under us: reconfigure and draw again.
                let size = window.inner_size();
                gpu.resize(size.width, size.height);
                window.request_redraw();
                None
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                if let Err(e) = gpu.recreate_surface(&window) {
                    self.previewer.set_message(e, true);
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
                self.previewer
                    .set_message("the window surface rejected the frame", true);
                None
            }
        };
        let screenshot_due = self.options.screenshot.is_some()
            && self.frame_count + 1 >= self.options.after_frames.max(1);
        let capture = screenshot_due
            .then(|| {
                OffscreenTarget::new(
                    &gpu.ctx.device,
                    gpu.config.width,
                    gpu.config.height,
                    gpu.config.format,
                )
                .ok()
            })
            .flatten();
        if let Some(frame) = &frame {
            let view = frame
                .texture
                .create_view(&wgpu::TextureViewDescriptor::default());
            paint_egui(gpu, &mut encoder, &view, &paint_jobs, &screen);
        }
        let readback = capture.as_ref().map(|target| {
            paint_egui(gpu, &mut encoder, &target.view, &paint_jobs, &screen);
            target.copy_out(&gpu.ctx.device, &mut encoder)
        });
        gpu.ctx.queue.submit(
            user_buffers
                .into_iter()
                .chain(std::iter::once(encoder.finish())),
        );
        if let Some(frame) = frame {
            window.pre_present_notify();
            gpu.ctx.queue.present(frame);
            if suboptimal {
                let size = window.inner_size();
                gpu.resize(size.width, size.height);
            }
        }
        for id in &textures.0.free {
            gpu.egui_renderer.free_texture(id);
        }
        // Once a frame, without blocking: finished submissions release their staging
        // memory and dropped resources, and map callbacks run. (`submit` triages too;
        // this also covers frames that submit nothing new, e.g. while paused.)
        let _ = gpu.ctx.device.poll(wgpu::PollType::Poll);
        // A scripted run counts the frames after a library or folder has loaded.
        if !(scripted && self.previewer.is_loading()) {
            self.frame_count += 1;
        }
        self.fps.frame_ms = now.elapsed().as_secs_f32() * 1000.0;
        if scripted {
            // Scripts and tests read what the status bar said, in order.
            let (new, seen) = self.previewer.messages_since(self.messages_printed);
            for m in new {
                let kind = if m.is_error { "error" } else { "status" };
                eprintln!("stridescope: {kind}: {}", m.text);
            }
            self.messages_printed = seen;
        }

        if let Some(path) = self.options.export.clone() {
            if self.frame_count >= self.options.after_frames.max(1) {
                match gpu.export_preview(&mut self.previewer, &path) {
                    Ok(text) => eprintln!("stridescope: {text}"),
                    Err(e) => self.fatal = Some(format!("export {}: {e}", path.display())),
                }
                self.exit(event_loop);
                return;
            }
        }
        if let (Some(readback), Some(path)) = (readback, self.options.screenshot.clone()) {
            let format = gpu.config.format;
            let result = readback
                .finish(&gpu.ctx)
                .map_err(|e| e.to_string())
                .and_then(|image| save_screenshot(image, format, &path));
            match result {
                Ok(()) => {
                    let [w, h] = self.previewer.viewport_size_px();
                    eprintln!("stridescope: viewport {w}x{h} px");
                    eprintln!("stridescope: wrote {}", path.display());
                }
                Err(e) => self.fatal = Some(format!("screenshot {}: {e}", path.display())),
            }
            self.exit(event_loop);
            return;
        }
        if self.options.screenshot.is_some()
            || self.options.export.is_some()
            || self.previewer.is_animating()
        {
            window.request_redraw();
        } else {
            let delay = full_output
                .viewport_output
                .get(&egui::ViewportId::ROOT)
                .map(|v| v.repaint_delay)
                .unwrap_or(Duration::MAX);
            if delay.is_zero() {
                window.request_redraw();
            } else if delay < Duration::from_secs(3600) {
                event_loop.set_control_flow(ControlFlow::WaitUntil(Instant::now() + delay));
            }
        }
    }
}

/// egui's per-frame texture changes; dropping them unapplied is deliberate only when the
/// renderer they were for is going away, so clear them on drop.
struct AppliedOnce(egui::TexturesDelta);

impl Drop for AppliedOnce {
    fn drop(&mut self) {
        self.0.clear();
    }
}

fn new_egui_state(
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

fn paint_egui(
    gpu: &Gpu,
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
    gpu.egui_renderer
        .render(&mut pass.forget_lifetime(), paint_jobs, screen);
}

/// Writes a readback of the window (in the surface format) as an RGBA PNG.
fn save_screenshot(
    mut image: RgbaImage,
    format: wgpu::TextureFormat,
    path: &Path,
) -> Result<(), String> {
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
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    Ok(image.save_png(path)?)
}

impl ApplicationHandler<UserEvent> for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        let [w, h] = self
            .options
            .size
            .unwrap_or(self.previewer.settings.window_size);
        let attributes = Window::default_attributes()
            .with_title("stridescope")
            .with_inner_size(winit::dpi::LogicalSize::new(
                w.max(200) as f64,
                h.max(150) as f64,
            ))
            .with_min_inner_size(winit::dpi::LogicalSize::new(1.0, 1.0));
        let window = match event_loop.create_window(attributes) {
            Ok(w) => Arc::new(w),
            Err(e) => {
                self.fatal = Some(format!("cannot create a window: {e}"));
                event_loop.exit();
                return;
            }
        };
        match Gpu::new(event_loop, window.clone()) {
            Ok(gpu) => {
                self.previewer.stats.adapter = gpu.ctx.adapter_label();
                self.egui_state = Some(new_egui_state(&self.egui_ctx, event_loop, &window, &gpu));
                self.gpu = Some(gpu);
            }
            Err(e) => {
                self.fatal = Some(e);
                event_loop.exit();
                return;
            }
        }
        self.window = Some(window.clone());
        self.update_watcher();
        window.request_redraw();
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(window) = self.window().cloned() else {
            return;
        };
        if let WindowEvent::ModifiersChanged(m) = &event {
            self.ctrl_held = m.state().control_key();
        }
        // Numpad 1/3/7/9 are camera views as in Blender. egui reads numpad digits as the
        // digit keys (which pick the root-motion mode), so they are taken here, before
        // egui sees them, unless a text field has the keyboard.
        if let WindowEvent::KeyboardInput { event: key, .. } = &event {
            use winit::keyboard::{KeyCode, PhysicalKey};
            let digit = match key.physical_key {
                PhysicalKey::Code(KeyCode::Numpad1) => Some(1),
                PhysicalKey::Code(KeyCode::Numpad3) => Some(3),
                PhysicalKey::Code(KeyCode::Numpad7) => Some(7),
                PhysicalKey::Code(KeyCode::Numpad9) => Some(9),
                _ => None,
            };
            let preset = digit
                .and_then(|d| crate::app::controller::CameraPreset::for_digit(d, self.ctrl_held));
            if let (Some(preset), false) = (preset, self.egui_ctx.egui_wants_keyboard_input()) {
                if key.state.is_pressed() {
                    self.previewer.camera_preset(preset);
                    window.request_redraw();
                }
                return;
            }
        }
        let response = match self.egui_state.as_mut() {
            Some(state) => state.on_window_event(&window, &event),
            None => egui_winit::EventResponse {
                consumed: false,
                repaint: false,
            },
        };
        match event {
            WindowEvent::CloseRequested => self.exit(event_loop),
            WindowEvent::Resized(size) => {
                if let Some(gpu) = self.gpu.as_mut() {
                    gpu.resize(size.width, size.height);
                }
                window.request_redraw();
            }
            WindowEvent::RedrawRequested => {
                self.redraw(event_loop);
                self.update_watcher();
            }
            _ => {
                if response.repaint {
                    window.request_redraw();
                }
            }
        }
    }

    fn new_events(&mut self, event_loop: &ActiveEventLoop, cause: winit::event::StartCause) {
        // egui asked to be repainted at this time (an animation, a tooltip delay).
        if let winit::event::StartCause::ResumeTimeReached { .. } = cause {
            event_loop.set_control_flow(ControlFlow::Wait);
            if let Some(w) = &self.window {
                w.request_redraw();
            }
        }
    }

    fn user_event(&mut self, _event_loop: &ActiveEventLoop, event: UserEvent) {
        match event {
            UserEvent::FileChanged => self.reload_if_changed(),
        }
    }
}
