//! The desktop window: winit events -> egui (egui-winit) -> animation tick -> 3D render
//! into an offscreen texture (the same renderer the CLI uses) -> egui paints the panels
//! and that texture to the window surface (egui-wgpu).
//!
//! Repaint on demand: the event loop sleeps (`ControlFlow::Wait`) unless a clip plays or
//! egui asks for a repaint, so a paused preview costs almost no CPU.

// Every public item says what it is, with its units, spaces and ranges.
#![warn(missing_docs)]

// The layers below, under their layer names: `crate::anim::Clip` reads the same here as in
// the `stridescope` facade, and the manifest is what allows each one.
use stridescope_anim as anim;
use stridescope_asset as asset;
use stridescope_graph as graph;
use stridescope_render as render;
use stridescope_stage as stage;

pub mod controller;
mod dialogs;
mod error;
pub mod file_browser;
mod frame;
mod gpu;
mod options;
mod present;
mod script;
pub mod settings;
pub mod ui;
pub mod watch;

pub use error::{AppError, Context};
use gpu::{new_egui_state, AppliedOnce, Gpu};
pub use options::AppOptions;
use options::{apply_start_options, initial_model};
use present::EguiFrame;
use script::ScriptedDrop;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use crate::render::RenderError;
use crate::settings::Settings;
use crate::ui::Previewer;
use crate::watch::FileWatcher;

/// The colour format of the 3D viewport texture: egui-wgpu samples native textures as
/// `Rgba8Unorm`; the renderer's shaders then encode sRGB themselves.
const VIEWPORT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// Opens the window and runs until it is closed. Returns an error message for failures
/// that stop the app (no display, no GPU adapter, screenshot could not be written).
pub fn run(options: AppOptions) -> Result<(), AppError> {
    let settings_path = Settings::default_path();
    let (settings, settings_note) = match &settings_path {
        Some(p) => Settings::load(p),
        None => (Settings::default(), None),
    };
    let (model, path, mut load_error) = initial_model(options.file.as_deref(), &options.load)?;
    if let Some(e) = load_error {
        if !options.library.is_empty() {
            // The library goes onto FILE's character: without it there is nothing to
            // build.
            return Err(e);
        }
        if options.screenshot.is_some() || options.export.is_some() {
            // A scripted run of a file that does not open must fail: a screenshot of the
            // demo in its place would pass for the file's in a script that checks exit
            // codes.
            return Err(e);
        }
        load_error = Some(e);
    }
    let mut previewer = Previewer::new(model, path, settings);
    previewer.set_load_options(options.load);
    let load_error = load_error.map(|e| format!("{} (showing the demo instead)", e.report()));
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
        .map_err(|e| AppError::system("open a window (is a display available?)", e))?;
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
        fps: frame::FpsCounter::default(),
        fatal: None,
        portal_answers: true,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| AppError::system("run the event loop", e))?;
    match app.fatal {
        Some(e) => Err(e),
        None => Ok(()),
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
    fps: frame::FpsCounter,
    fatal: Option<AppError>,
    /// False once the system file dialog failed to appear (no XDG desktop portal):
    /// File > Open uses the in-app browser from then on.
    portal_answers: bool,
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
                    eprintln!("stridescope: could not save settings: {}", e.report());
                }
            }
        }
        event_loop.exit();
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

    /// The frame's UI pass: egui draws the panels over the viewport texture (`texture`,
    /// `None` when it could not be made) and the panels act on the previewer. Returns
    /// egui's output and its texture changes, or `None` before the window has its egui
    /// state. A scripted `--drop` is handed over halfway through the run.
    fn run_ui(
        &mut self,
        window: &Arc<Window>,
        scripted: bool,
        texture: Option<egui::TextureId>,
    ) -> Option<(egui::FullOutput, AppliedOnce)> {
        let egui_state = self.egui_state.as_mut()?;
        let mut raw_input = egui_state.take_egui_input(window);
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
        egui_state.handle_platform_output(window, std::mem::take(&mut full_output.platform_output));
        // Texture uploads must be applied (or deliberately dropped, on the early-return
        // paths of the frame where the renderer goes away anyway).
        let textures = AppliedOnce(std::mem::take(&mut full_output.textures_delta));
        Some((full_output, textures))
    }

    /// After a lost device: rebuilds the device, renderers and GPU models, with a fresh
    /// egui context so the font atlas is uploaded again, and asks for a redraw.
    fn recreate_gpu(&mut self, event_loop: &ActiveEventLoop, window: &Arc<Window>) {
        self.gpu = None;
        self.egui_ctx = egui::Context::default();
        self.egui_state = None;
        self.gpu = Gpu::new(event_loop, window.clone())
            .map_err(|e| self.previewer.set_message(e.report(), true))
            .ok();
        if let Some(gpu) = &self.gpu {
            self.egui_state = Some(new_egui_state(&self.egui_ctx, event_loop, window, gpu));
        }
        window.request_redraw();
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Some(window) = self.window().cloned() else {
            return;
        };
        // Sleep until the next event unless this frame asks for a timed wake-up below.
        event_loop.set_control_flow(ControlFlow::Wait);
        let now = Instant::now();
        let Some(scripted) = self.advance_playback(event_loop, now) else {
            return;
        };

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
        let Some((full_output, textures)) = self.run_ui(&window, scripted, texture) else {
            return;
        };

        if !self.carry_out_actions(event_loop) {
            return;
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
                self.previewer
                    .set_message(format!("{e}; recreating the GPU device"), true);
                self.recreate_gpu(event_loop, &window);
                return;
            }
            self.previewer.set_message(format!("render: {e}"), true);
        }
        let ppp = full_output.pixels_per_point;
        let paint_jobs = self.egui_ctx.tessellate(full_output.shapes, ppp);
        let egui_frame = EguiFrame {
            paint_jobs: &paint_jobs,
            pixels_per_point: ppp,
            textures: &textures,
        };
        let screenshot_due = self.options.screenshot.is_some()
            && self.frame_count + 1 >= self.options.after_frames.max(1);
        let presented = gpu.paint_and_present(&window, encoder, egui_frame, screenshot_due);
        if let Some(problem) = presented.problem {
            self.previewer.set_message(problem, true);
        }
        // A scripted run counts the frames after a library or folder has loaded.
        if !(scripted && self.previewer.is_loading()) {
            self.frame_count += 1;
        }
        self.fps.frame_ms = now.elapsed().as_secs_f32() * 1000.0;
        if scripted && self.finish_scripted_frame(event_loop, presented.readback) {
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
                self.fatal = Some(AppError::system("create a window", e));
                event_loop.exit();
                return;
            }
        };
        match Gpu::new(event_loop, window.clone()) {
            Ok(gpu) => {
                self.previewer.view.stats.adapter = gpu.ctx.adapter_label();
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
            let preset =
                digit.and_then(|d| crate::controller::CameraPreset::for_digit(d, self.ctrl_held));
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
