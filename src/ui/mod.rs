//! The previewer's egui user interface: panels, the timeline, the root-motion plot and the
//! viewport's camera input. egui only: the window (src/app) hands in the texture the
//! renderer drew the 3D view into, and reads back the actions and the viewport size.
//!
//! Layout:
//! ```text
//! ┌ menu: File (open, recent) · View toggles ───────────────────────────────┐
//! │ clips    │            viewport (3D)                   │ root motion     │
//! │ list     │                                            │ plot + numbers  │
//! ├──────────┴────────────────────────────────────────────┴─────────────────┤
//! │ timeline: transport · rate · loop · mode · scrub bar with markers       │
//! ├─────────────────────────────────────────────────────────────────────────┤
//! │ status: fps · joints · vertices · adapter · last message                │
//! └─────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! Keyboard: Space play/pause, Left/Right step a frame, Home/End jump, L loop, F frame
//! the character, 1/2/3 root-motion mode, Ctrl+O open, Ctrl+Q quit.

mod plot;
mod timeline;

use std::path::{Path, PathBuf};

use egui::{Color32, Key, PointerButton, Sense};
use glam::{Vec2, Vec3};

use crate::asset::Model;
use crate::render::camera::OrbitCamera;
use crate::scene::{Pose, PoseRequest};
use crate::settings::{Settings, ViewToggles};
use crate::timeline::{RootMotionMode, Timeline};

/// Something the window must do for the UI (things egui cannot do itself).
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Show the native open-file dialog.
    OpenDialog,
    Quit,
}

/// A status-bar message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub text: String,
    pub is_error: bool,
}

/// Frame statistics and adapter, filled in by the window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub fps: f32,
    pub frame_ms: f32,
    /// e.g. "llvmpipe (LLVM 15) (Vulkan)".
    pub adapter: String,
}

/// The previewer's state: the open character, playback, pose, camera and view settings.
pub struct Previewer {
    model: Model,
    /// `None` for the built-in demo.
    path: Option<PathBuf>,
    /// Increments whenever `model` is replaced, so the window re-uploads GPU data.
    model_generation: u64,
    pub timeline: Timeline,
    pub pose: Pose,
    pub camera: OrbitCamera,
    pub toggles: ViewToggles,
    pub settings: Settings,
    pub stats: Stats,
    message: Option<Message>,
    actions: Vec<Action>,
    /// Viewport size in physical pixels, as laid out last frame.
    viewport_size_px: [u32; 2],
    /// Frame the character on the next viewport layout.
    frame_pending: bool,
    /// Camera target minus the root position while following.
    follow_offset: Option<Vec3>,
}

impl Previewer {
    /// A previewer showing `model` (from `path`, `None` for the demo).
    pub fn new(model: Model, path: Option<PathBuf>, settings: Settings) -> Self {
        let mut timeline = Timeline::new(&model);
        if let Some(mode) = RootMotionMode::ALL
            .into_iter()
            .find(|m| m.label() == settings.root_motion_mode)
        {
            timeline.set_mode(mode);
        }
        timeline.set_rate(settings.play_rate);
        timeline.set_looping(settings.looping);
        let pose = Pose::new(&model);
        let mut settings = settings;
        if let Some(path) = &path {
            settings.push_recent(path);
            settings.last_file = Some(path.clone());
        }
        let mut p = Self {
            model,
            path,
            model_generation: 0,
            timeline,
            pose,
            camera: OrbitCamera::default(),
            toggles: settings.toggles,
            settings,
            stats: Stats::default(),
            message: None,
            actions: Vec::new(),
            viewport_size_px: [1, 1],
            frame_pending: true,
            follow_offset: None,
        };
        p.evaluate_pose();
        p
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The open file, `None` for the built-in demo.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn model_generation(&self) -> u64 {
        self.model_generation
    }

    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    pub fn set_message(&mut self, text: impl Into<String>, is_error: bool) {
        self.message = Some(Message {
            text: text.into(),
            is_error,
        });
    }

    /// Actions for the window, oldest first.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }

    /// Physical pixel size the viewport had at the last layout.
    pub fn viewport_size_px(&self) -> [u32; 2] {
        self.viewport_size_px
    }

    /// True while something animates, so the window keeps redrawing; when false the
    /// window sleeps until input arrives.
    pub fn is_animating(&self) -> bool {
        self.timeline.is_advancing()
    }

    /// Loads `path` and shows it. On failure the error goes to the status bar and the
    /// current character stays (returns the error too).
    pub fn open_path(&mut self, path: &Path) -> Result<(), String> {
        match crate::asset::load(path) {
            Ok(model) => {
                self.replace_model(model, Some(path.to_path_buf()));
                self.set_message(format!("opened {}", path.display()), false);
                Ok(())
            }
            Err(e) => {
                let text = e.to_string();
                self.set_message(format!("{text} (kept {})", self.model.source), true);
                Err(text)
            }
        }
    }

    /// Shows `model`: keeps mode, rate and looping, selects the clip of the same name when
    /// there is one (a reload), frames the camera for a new file.
    pub fn replace_model(&mut self, model: Model, path: Option<PathBuf>) {
        let reload = path.is_some() && path == self.path;
        let clip_name = self
            .timeline
            .clip()
            .and_then(|i| self.model.clips.get(i))
            .map(|c| c.name().to_string());
        let (mode, rate, looping, playing) = (
            self.timeline.mode(),
            self.timeline.clock().rate(),
            self.timeline.clock().looping(),
            self.timeline.is_playing(),
        );
        let time = self.timeline.clock().time();
        let world = self.timeline.world_from_root();
        self.model = model;
        self.path = path.clone();
        self.model_generation += 1;
        self.pose = Pose::new(&self.model);
        let mut timeline = Timeline::new(&self.model);
        timeline.set_mode(mode);
        timeline.set_rate(rate);
        timeline.set_looping(looping);
        if reload {
            // A reload (file changed on disk): same clip, same cycle and phase, same
            // accumulated placement.
            if let Some(i) = clip_name.and_then(|n| self.model.find_clip(&n)) {
                timeline.select_clip(&self.model, i);
                timeline.seek(time);
            }
            timeline.set_world_from_root(world);
        }
        timeline.set_playing(playing);
        self.timeline = timeline;
        if !reload {
            self.frame_pending = true;
        }
        if let Some(p) = &path {
            self.settings.push_recent(p);
        }
        self.settings.last_file = path;
        self.evaluate_pose();
    }

    /// Switches to clip `index` (a seek: the character does not move).
    pub fn select_clip(&mut self, index: usize) {
        self.timeline.select_clip(&self.model, index);
        self.evaluate_pose();
    }

    /// Advances playback by `dt_secs` of wall time and re-evaluates the pose.
    pub fn advance(&mut self, dt_secs: f64) {
        self.timeline.tick(dt_secs);
        self.evaluate_pose();
    }

    /// Evaluates the current pose (after playback or any seek).
    pub fn evaluate_pose(&mut self) {
        let request = if self.toggles.bind_pose {
            PoseRequest {
                clip: None,
                time_secs: 0.0,
                remove_root_motion: None,
                model_from_root: self.timeline.model_from_root(),
            }
        } else {
            self.timeline.pose_request()
        };
        if let Err(e) = self.pose.evaluate(&self.model, &request) {
            // Per-frame errors are reported once, the viewer keeps running.
            let text = format!("pose evaluation: {e}");
            if self.message.as_ref().map(|m| &m.text) != Some(&text) {
                self.set_message(text, true);
            }
        }
        if self.toggles.follow {
            let root = self.root_position();
            match self.follow_offset {
                Some(offset) => self.camera.target = root + offset,
                None => self.follow_offset = Some(self.camera.target - root),
            }
        }
    }

    /// World position of the displayed root on the ground (y = 0).
    pub fn root_position(&self) -> Vec3 {
        let p = self.timeline.root_world_position();
        Vec3::new(p.x as f32, 0.0, p.y as f32)
    }

    /// Frames the character in the viewport (F).
    pub fn frame_character(&mut self) {
        self.frame_pending = true;
    }

    fn apply_pending_frame(&mut self) {
        if !self.frame_pending {
            return;
        }
        self.frame_pending = false;
        let bounds = match crate::render::bounds::pose_bounds(&self.model, &self.pose) {
            Ok(b) if !b.is_empty() => b,
            _ => return,
        };
        let [w, h] = self.viewport_size_px;
        self.camera
            .frame_to_fit(bounds.min, bounds.max, w.max(1) as f32 / h.max(1) as f32);
        self.follow_offset = self
            .toggles
            .follow
            .then(|| self.camera.target - self.root_position());
    }

    /// Resets the camera to the default three-quarter view, framed.
    pub fn reset_view(&mut self) {
        self.camera = OrbitCamera::default();
        self.frame_pending = true;
    }

    /// Writes the current preferences into `settings` (the window saves them on exit).
    pub fn store_settings(&mut self) {
        self.settings.toggles = self.toggles;
        self.settings.root_motion_mode = self.timeline.mode().label().to_string();
        self.settings.play_rate = self.timeline.clock().rate();
        self.settings.looping = self.timeline.clock().looping();
    }

    /// Draws the whole UI. `viewport_texture` is the renderer's image of the 3D view (or
    /// `None` in headless UI tests, which then show a placeholder).
    pub fn ui(&mut self, ui: &mut egui::Ui, viewport_texture: Option<egui::TextureId>) {
        self.keyboard(ui);
        self.dropped_files(ui);
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        egui::Panel::bottom("timeline")
            .resizable(false)
            .show(ui, |ui| timeline::timeline_ui(self, ui));
        egui::Panel::left("clips")
            .resizable(true)
            .default_size(200.0)
            .show(ui, |ui| self.clips_ui(ui));
        egui::Panel::right("root_motion")
            .resizable(true)
            .default_size(300.0)
            .show(ui, |ui| plot::root_motion_ui(self, ui));
        egui::CentralPanel::no_frame().show(ui, |ui| self.viewport_ui(ui, viewport_texture));
    }

    fn keyboard(&mut self, ui: &egui::Ui) {
        if ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        use egui::Modifiers;
        // Each shortcut is matched with the modifiers held when its key went down (a
        // quick Ctrl+Q can release Ctrl before the frame runs).
        let shortcuts: [(Modifiers, Key); 12] = [
            (Modifiers::COMMAND, Key::O),
            (Modifiers::COMMAND, Key::Q),
            (Modifiers::NONE, Key::Space),
            (Modifiers::NONE, Key::ArrowLeft),
            (Modifiers::NONE, Key::ArrowRight),
            (Modifiers::NONE, Key::Home),
            (Modifiers::NONE, Key::End),
            (Modifiers::NONE, Key::L),
            (Modifiers::NONE, Key::F),
            (Modifiers::NONE, Key::Num1),
            (Modifiers::NONE, Key::Num2),
            (Modifiers::NONE, Key::Num3),
        ];
        let pressed: Vec<(Modifiers, Key)> = ui.input_mut(|i| {
            shortcuts
                .into_iter()
                .filter(|(m, k)| i.consume_key(*m, *k))
                .collect()
        });
        if pressed.is_empty() {
            return;
        }
        for (modifiers, key) in pressed {
            match key {
                Key::O if modifiers.command => self.actions.push(Action::OpenDialog),
                Key::Q if modifiers.command => self.actions.push(Action::Quit),
                Key::Space => self.timeline.toggle_play(),
                Key::ArrowLeft => self.timeline.step_frames(-1),
                Key::ArrowRight => self.timeline.step_frames(1),
                Key::Home => self.timeline.jump_to_start(),
                Key::End => self.timeline.jump_to_end(),
                Key::L => {
                    let looping = !self.timeline.clock().looping();
                    self.timeline.set_looping(looping);
                }
                Key::F => self.frame_character(),
                Key::Num1 => self.timeline.set_mode(RootMotionMode::InPlace),
                Key::Num2 => self.timeline.set_mode(RootMotionMode::Accumulate),
                Key::Num3 => self.timeline.set_mode(RootMotionMode::LoopAndReset),
                _ => {}
            }
        }
        self.evaluate_pose();
    }

    fn dropped_files(&mut self, ui: &egui::Ui) {
        let dropped: Vec<PathBuf> = ui.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if let Some(path) = dropped.last() {
            let _ = self.open_path(path);
        }
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open…  (Ctrl+O)").clicked() {
                    self.actions.push(Action::OpenDialog);
                    ui.close();
                }
                if ui.button("Open the demo character").clicked() {
                    match crate::cli::load_model(None) {
                        Ok(m) => self.replace_model(m, None),
                        Err(e) => self.set_message(e, true),
                    }
                    ui.close();
                }
                ui.separator();
                ui.label("Recent files");
                let recent = self.settings.recent_files.clone();
                if recent.is_empty() {
                    ui.weak("(none yet)");
                }
                for path in recent {
                    if ui.button(path.display().to_string()).clicked() {
                        let _ = self.open_path(&path);
                        ui.close();
                    }
                }
                ui.separator();
                if ui.button("Quit  (Ctrl+Q)").clicked() {
                    self.actions.push(Action::Quit);
                }
            });
            ui.menu_button("View", |ui| {
                self.toggles_ui(ui);
            });
            ui.separator();
            ui.label(match &self.path {
                Some(p) => p.display().to_string(),
                None => "built-in demo character".to_string(),
            });
        });
    }

    /// Viewport toggles (also in the View menu).
    pub fn toggles_ui(&mut self, ui: &mut egui::Ui) {
        let before = self.toggles;
        ui.checkbox(&mut self.toggles.mesh, "Mesh");
        ui.checkbox(&mut self.toggles.skeleton, "Skeleton");
        ui.checkbox(&mut self.toggles.grid, "Grid");
        ui.checkbox(&mut self.toggles.bind_pose, "Bind pose");
        ui.checkbox(&mut self.toggles.trail, "Root-motion trail");
        if ui
            .checkbox(&mut self.toggles.follow, "Camera follows character")
            .changed()
        {
            self.follow_offset = None;
        }
        if ui.button("Frame character  (F)").clicked() {
            self.frame_character();
        }
        if ui.button("Reset view").clicked() {
            self.reset_view();
        }
        if self.toggles != before {
            self.evaluate_pose();
        }
    }

    fn clips_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Clips");
        if self.model.clips.is_empty() {
            ui.weak("This file has no animations (showing the rest pose).");
            return;
        }
        let mut picked = None;
        egui::ScrollArea::vertical().show(ui, |ui| {
            for (i, clip) in self.model.clips.iter().enumerate() {
                let selected = self.timeline.clip() == Some(i);
                let text = format!("{}  ({:.3} s)", clip.name(), clip.duration_secs());
                if ui.selectable_label(selected, text).clicked() {
                    picked = Some(i);
                }
            }
        });
        if let Some(i) = picked {
            self.select_clip(i);
        }
    }

    fn status_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label(format!(
                "{:.0} fps  {:.1} ms",
                self.stats.fps, self.stats.frame_ms
            ));
            ui.separator();
            let skins: Vec<String> = self
                .model
                .skins
                .iter()
                .map(|s| s.joints.len().to_string())
                .collect();
            ui.label(format!(
                "{} joints ({} in skins)  {} vertices",
                self.model.skeleton.joint_count(),
                if skins.is_empty() {
                    "none".into()
                } else {
                    skins.join("+")
                },
                self.model.vertex_count()
            ));
            ui.separator();
            ui.label(if self.stats.adapter.is_empty() {
                "no GPU"
            } else {
                &self.stats.adapter
            });
            if let Some(m) = &self.message {
                ui.separator();
                let color = if m.is_error {
                    Color32::from_rgb(255, 110, 100)
                } else {
                    ui.visuals().text_color()
                };
                ui.colored_label(color, &m.text);
            }
            if let Some(e) = self.timeline.error() {
                ui.separator();
                ui.colored_label(Color32::from_rgb(255, 170, 80), e);
            }
        });
    }

    fn viewport_ui(&mut self, ui: &mut egui::Ui, texture: Option<egui::TextureId>) {
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        let ppp = ui.ctx().pixels_per_point();
        self.viewport_size_px = [
            ((rect.width() * ppp).round() as u32).max(1),
            ((rect.height() * ppp).round() as u32).max(1),
        ];
        self.apply_pending_frame();
        match texture {
            Some(id) => {
                let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
                ui.painter().image(id, rect, uv, Color32::WHITE);
            }
            None => {
                ui.painter().rect_filled(rect, 0.0, Color32::from_gray(40));
                ui.painter().text(
                    rect.center(),
                    egui::Align2::CENTER_CENTER,
                    "3D viewport",
                    egui::FontId::proportional(14.0),
                    Color32::GRAY,
                );
            }
        }
        // Camera input: left drag orbits, middle or shift+left drag pans, wheel zooms.
        let delta = response.drag_delta();
        let shift = ui.input(|i| i.modifiers.shift);
        if response.dragged_by(PointerButton::Middle)
            || (shift && response.dragged_by(PointerButton::Primary))
        {
            self.camera.pan(
                Vec2::new(delta.x, delta.y) * ppp,
                self.viewport_size_px[1] as f32,
            );
            self.follow_offset = None;
            self.evaluate_pose();
        } else if response.dragged_by(PointerButton::Primary) {
            self.camera.orbit(-delta.x * 0.01, delta.y * 0.01);
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                self.camera.zoom((-scroll * 0.002).exp());
            }
        }
        if response.double_clicked() {
            self.frame_character();
        }
    }
}
