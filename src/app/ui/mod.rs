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
//! the character, 1/2/3 root-motion mode, D drive, M motion matching (then WASD / arrows
//! move, Shift runs, Ctrl strafes; paused, Left/Right step the recording), Ctrl+O open,
//! Ctrl+Q quit.

mod blend;
mod browser;
mod help;
mod inspect;
mod library;
mod locomotion;
mod mask;
mod matching;
mod morph;
mod plot;
mod retarget;
pub mod timeline;

pub use blend::{blend_space_2d_ui, common_word_prefix, state_boxes};
pub use help::{FIGURES, SHORTCUTS};
pub use locomotion::movement_pad_ui;

use crate::app::controller::{StageCommand, Transport, ViewCommand};
use std::path::PathBuf;

use egui::{Color32, Key, PointerButton, Sense};
use glam::Vec2;

pub use crate::app::controller::{Action, CameraPreset, Message, Previewer, Stats};
use crate::stage::timeline::RootMotionMode;

/// What a clip's context menu asked for.
enum ClipMenuAction {
    Rename(usize, String),
    Trim(usize),
    AddMarker(usize, &'static str),
    RemoveMarker(usize),
    Additive(usize, bool),
    Hide(usize, bool),
    Move(usize, isize),
    Default(usize, bool),
}

/// What the clip menu needs to know about one clip.
struct ClipMenuState<'a> {
    clip: usize,
    name: &'a str,
    range: Option<(f64, f64)>,
    on_timeline: bool,
    hidden: bool,
    is_default: bool,
    /// `Some(reference seconds)` for an additive clip.
    additive: Option<f32>,
}

/// A clip's context menu (right-click in the clip list): rename, trim to the in/out
/// range, add or remove a sync marker at the playhead and make it additive relative to
/// the playhead's frame (these for the clip on the timeline), move it in the list, hide
/// it, open the file on it.
fn clip_menu_ui(ui: &mut egui::Ui, c: &ClipMenuState) -> Option<ClipMenuAction> {
    let clip = c.clip;
    let mut action = None;
    let id = egui::Id::unique(("rename_clip", clip));
    let mut typed: String = ui
        .data(|d| d.get_temp(id))
        .unwrap_or_else(|| c.name.to_string());
    ui.horizontal(|ui| {
        let field = ui.add(egui::TextEdit::singleline(&mut typed).desired_width(160.0));
        field.widget_info(|| egui::WidgetInfo::labeled(egui::Role::TextInput, true, "new name"));
        let enter = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
        if ui.button("Rename").clicked() || enter {
            action = Some(ClipMenuAction::Rename(clip, typed.clone()));
            ui.close();
        }
    });
    ui.data_mut(|d| d.insert_temp(id, typed));
    let here = c.on_timeline;
    let trim_text = match c.range {
        Some((a, b)) => format!("Trim to the in/out range ({a:.3}-{b:.3} s)"),
        None => "Trim to the in/out range (set I and O first)".to_string(),
    };
    if ui
        .add_enabled(here && c.range.is_some(), egui::Button::new(trim_text))
        .clicked()
    {
        action = Some(ClipMenuAction::Trim(clip));
        ui.close();
    }
    ui.add_enabled_ui(here, |ui| {
        ui.menu_button("Add a marker at the playhead", |ui| {
            for m in crate::app::controller::MARKER_NAMES {
                if ui.button(m).clicked() {
                    action = Some(ClipMenuAction::AddMarker(clip, m));
                    ui.close();
                }
            }
        });
        if ui
            .button("Remove the marker at the playhead")
            .on_hover_text("or drag a marker on the timeline to move it")
            .clicked()
        {
            action = Some(ClipMenuAction::RemoveMarker(clip));
            ui.close();
        }
        let additive_text = match c.additive {
            Some(t) => format!("Additive from {t:.3} s: make it a plain clip"),
            None => "Make additive relative to the playhead's frame".to_string(),
        };
        if ui
            .button(additive_text)
            .on_hover_text(
                "an additive clip is layered as its difference from that frame \
                 (Blend panel > Additive; the pose graph)",
            )
            .clicked()
        {
            action = Some(ClipMenuAction::Additive(clip, c.additive.is_none()));
            ui.close();
        }
    });
    if !here {
        ui.weak("Play this clip to trim, mark or make it additive.");
    }
    ui.separator();
    ui.horizontal(|ui| {
        if ui
            .button("Move up")
            .on_hover_text("Alt+Up on the playing clip")
            .clicked()
        {
            action = Some(ClipMenuAction::Move(clip, -1));
        }
        if ui.button("Move down").on_hover_text("Alt+Down").clicked() {
            action = Some(ClipMenuAction::Move(clip, 1));
        }
    });
    let hide_text = if c.hidden { "Show in the list" } else { "Hide" };
    if ui.button(hide_text).clicked() {
        action = Some(ClipMenuAction::Hide(clip, !c.hidden));
        ui.close();
    }
    let mut default = c.is_default;
    if ui
        .checkbox(&mut default, "Open the file on this clip")
        .changed()
    {
        action = Some(ClipMenuAction::Default(clip, default));
        ui.close();
    }
    action
}

/// Where the 3D viewport was drawn last frame (egui memory key): toasts sit over it.
const VIEWPORT_RECT: &str = "viewport_rect";

/// A table that may be wider than its panel: it scrolls sideways in its own strip instead
/// of widening the panel, where its last columns would be cut at the edge.
pub(super) fn sideways_ui<R>(
    ui: &mut egui::Ui,
    id: &str,
    add: impl FnOnce(&mut egui::Ui) -> R,
) -> R {
    egui::ScrollArea::horizontal()
        .id_salt(id)
        .show(ui, add)
        .inner
}

/// Narrows `ui`'s slider rails so a slider with its value and a name of about
/// `label_width` points fits the width left (within 40-160 points).
pub(super) fn fit_sliders(ui: &mut egui::Ui, label_width: f32) {
    ui.spacing_mut().slider_width = (ui.available_width() - 60.0 - label_width).clamp(40.0, 160.0);
}

/// Records that panel `name`'s content was `content_width` points wide in the panel's
/// content area `area` this frame (read with [`panel_fit`]).
fn record_fit(ctx: &egui::Context, name: &str, content_width: f32, area: egui::Rect) {
    ctx.data_mut(|d| d.insert_temp(egui::Id::unique(("panel_fit", name)), (content_width, area)));
}

/// How wide panel `name`'s (`left`, `right`, `status`, `timeline`) content was last frame,
/// in points, and the area it had: content wider than the area is cut at its edge.
pub fn panel_fit(ctx: &egui::Context, name: &str) -> Option<(f32, egui::Rect)> {
    ctx.data(|d| d.get_temp(egui::Id::unique(("panel_fit", name))))
}

impl Previewer {
    /// Draws the whole UI. `viewport_texture` is the renderer's image of the 3D view (or
    /// `None` in headless UI tests, which then show a placeholder).
    pub fn ui(&mut self, ui: &mut egui::Ui, viewport_texture: Option<egui::TextureId>) {
        self.keyboard(ui);
        self.dropped_files(ui);
        // The viewport keeps at least half the window each way: side panels share half
        // the width (resizable within their ranges, content scrolls rather than widening
        // them), the optional bottom panels (curve view, foot slide) what half the height
        // leaves after the menu, status bar and timeline (measured last frame).
        let window = ui.max_rect();
        let (w, h) = (window.width(), window.height());
        let left_max = (0.21 * w).max(160.0);
        let right_max = (0.27 * w).max(200.0);
        let timeline_id = egui::Id::unique("timeline_height");
        let timeline_h: f32 = ui.data(|d| d.get_temp(timeline_id)).unwrap_or(100.0);
        let optional = (0.5 * h - 72.0 - timeline_h).max(90.0);
        let curves_open = self.inspect.show_curves
            && (self.inspect.selected.is_some() || !self.inspect.pinned.is_empty());
        let foot_h = if curves_open {
            (0.45 * optional).min(120.0)
        } else {
            optional.min(120.0)
        };
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| {
            self.status_ui(ui);
            record_fit(ui.ctx(), "status", ui.min_rect().width(), ui.max_rect());
        });
        if self.is_driving() {
            egui::Panel::bottom("foot_slide")
                .resizable(false)
                .exact_size(foot_h)
                .show(ui, |ui| locomotion::foot_slide_ui(self, ui));
        }
        if curves_open {
            let curves_max = (optional - if self.is_driving() { foot_h } else { 0.0 }).max(60.0);
            egui::Panel::bottom("curves")
                .resizable(true)
                .default_size(curves_max.min(220.0))
                .size_range(60.0..=curves_max)
                .show(ui, |ui| inspect::curves_ui(self, ui));
        }
        let timeline = egui::Panel::bottom("timeline")
            .resizable(false)
            .show(ui, |ui| {
                if self.library_view().is_some() {
                    library::library_bar_ui(self, ui)
                } else if self.matching().is_some() {
                    matching::matching_timeline_ui(self, ui)
                } else if self.graph().is_some() {
                    blend::graph_timeline_ui(self, ui)
                } else {
                    timeline::timeline_ui(self, ui)
                }
                record_fit(ui.ctx(), "timeline", ui.min_rect().width(), ui.max_rect());
            });
        let measured = timeline.response.rect.height();
        ui.data_mut(|d| d.insert_temp(timeline_id, measured));
        egui::Panel::left("clips")
            .resizable(true)
            .default_size(left_max.min(240.0))
            .size_range(160.0..=left_max)
            .show(ui, |ui| {
                // One scroll for the whole panel: with a joint selected and the pose graph
                // open it is taller than a small window, and nothing may fall off its end.
                let out = egui::ScrollArea::vertical()
                    .id_salt("left_scroll")
                    .show(ui, |ui| {
                        self.clips_ui(ui);
                        ui.separator();
                        inspect::outliner_ui(self, ui);
                        ui.separator();
                        blend::blend_panel_ui(self, ui);
                        blend::graph_edit_ui(self, ui);
                    });
                record_fit(ui.ctx(), "left", out.content_size.x, out.inner_rect);
            });
        egui::Panel::right("root_motion")
            .resizable(true)
            .default_size(right_max.min(300.0))
            .size_range(200.0..=right_max)
            .show(ui, |ui| {
                // Vertical only: what is wider than the panel wraps, or scrolls sideways in
                // its own table, so no line is cut at the panel's edge.
                let out = egui::ScrollArea::vertical()
                    .id_salt("right_scroll")
                    .show(ui, |ui| {
                        matching::matching_panel_ui(self, ui);
                        morph::morphs_ui(self, ui);
                        inspect::seam_table_ui(self, ui);
                        retarget::retarget_panel_ui(self, ui);
                        inspect::compare_ui(self, ui);
                        inspect::onion_ui(self, ui);
                        ui.separator();
                        locomotion::locomotion_panel_ui(self, ui);
                        ui.separator();
                        plot::root_motion_ui(self, ui);
                    });
                record_fit(ui.ctx(), "right", out.content_size.x, out.inner_rect);
            });
        egui::CentralPanel::no_frame().show(ui, |ui| self.viewport_ui(ui, viewport_texture));
        let ctx = ui.ctx().clone();
        browser::file_browser_ui(self, &ctx);
        self.toast_ui(&ctx);
        self.messages_ui(&ctx);
        help::help_windows_ui(self, &ctx);
    }

    /// The last error over the top right of the window for [`crate::app::controller::TOAST_SECS`],
    /// with a button to close it (the status bar and View > Messages keep it).
    fn toast_ui(&mut self, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        let Some(left) = self.age_toast(now) else {
            return;
        };
        let Some(text) = self.toast().map(|m| m.text.clone()) else {
            return;
        };
        let mut dismiss = false;
        // Over the viewport's top right corner, not over the side panel's controls.
        let viewport = ctx
            .data(|d| d.get_temp::<egui::Rect>(egui::Id::unique(VIEWPORT_RECT)))
            .unwrap_or_else(|| ctx.content_rect());
        egui::Area::new(egui::Id::unique("error_toast"))
            .pivot(egui::Align2::RIGHT_TOP)
            .fixed_pos(viewport.right_top() + egui::vec2(-12.0, 12.0))
            .order(egui::Order::Foreground)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style())
                    .fill(Color32::from_rgb(90, 30, 30))
                    .show(ui, |ui| {
                        ui.set_max_width((viewport.width() - 48.0).clamp(160.0, 420.0));
                        ui.horizontal_top(|ui| {
                            if ui.small_button("x").on_hover_text("Dismiss").clicked() {
                                dismiss = true;
                            }
                            // Wrapped within the toast's width (a file path is long).
                            ui.add(
                                egui::Label::new(
                                    egui::RichText::new(&text)
                                        .color(Color32::from_rgb(255, 200, 190)),
                                )
                                .wrap(),
                            );
                        });
                    });
            });
        if dismiss {
            self.dismiss_toast();
        }
        ctx.request_repaint_after(std::time::Duration::from_secs_f64(left.min(1.0)));
    }

    /// View > Messages: every status message and warning of the session, newest first.
    fn messages_ui(&mut self, ctx: &egui::Context) {
        if !self.show_messages {
            return;
        }
        let mut open = true;
        let mut clear = false;
        egui::Window::new("Messages")
            .open(&mut open)
            .default_size([520.0, 300.0])
            .show(ctx, |ui| {
                if ui.button("Clear").clicked() {
                    clear = true;
                }
                egui::ScrollArea::vertical().show(ui, |ui| {
                    if self.message_log().next().is_none() {
                        ui.weak("No messages yet.");
                    }
                    for m in self.message_log().rev() {
                        let color = if m.is_error {
                            Color32::from_rgb(255, 110, 100)
                        } else if m.text.starts_with("warning") {
                            Color32::from_rgb(255, 170, 80)
                        } else {
                            ui.visuals().text_color()
                        };
                        ui.add(egui::Label::new(egui::RichText::new(&m.text).color(color)).wrap());
                    }
                });
            });
        if clear {
            self.clear_message_log();
        }
        if !open {
            self.set_view(ViewCommand::ShowMessages(false));
        }
    }

    fn keyboard(&mut self, ui: &egui::Ui) {
        // A dialog owns the keyboard while it is open (its fields, Enter and Escape):
        // nothing typed into it may toggle the window behind it.
        if ui.ctx().egui_wants_keyboard_input() || self.file_browser.is_some() {
            if self.matching().is_some() {
                self.send(StageCommand::MatchingKeys(Default::default()));
            }
            return;
        }
        use egui::Modifiers;
        if library::library_keys(self, ui) {
            return;
        }
        if ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::M)) {
            let on = self.matching().is_none();
            self.set_matching_enabled(on);
        }
        if let Some(m) = self.matching() {
            // Motion matching owns the movement keys while it is on: held WASD / arrows
            // steer; paused, Left/Right step through the recording.
            let paused = !m.playing;
            self.send(StageCommand::MatchingKeys(matching::read_keys(ui)));
            let step = ui.input_mut(|i| {
                let back = i.consume_key(Modifiers::NONE, Key::ArrowLeft);
                let fwd = i.consume_key(Modifiers::NONE, Key::ArrowRight);
                i.consume_key(Modifiers::NONE, Key::D);
                fwd as i64 - back as i64
            });
            if paused && step != 0 {
                self.step_matching_view(step);
            }
        }
        // Each shortcut is matched with the modifiers held when its key went down (a
        // quick Ctrl+Q can release Ctrl before the frame runs).
        let shortcuts: [(Modifiers, Key); 29] = [
            (Modifiers::NONE, Key::F1),
            // The playing clip up or down the clip list.
            (Modifiers::ALT, Key::ArrowUp),
            (Modifiers::ALT, Key::ArrowDown),
            // The range: Alt+I clears it (before plain I, which would also match).
            (Modifiers::ALT, Key::I),
            (Modifiers::NONE, Key::I),
            (Modifiers::NONE, Key::O),
            (Modifiers::NONE, Key::P),
            // Camera views on Alt+digits (for keyboards without a numpad) before the plain
            // digits, which would also match them.
            (Modifiers::COMMAND | Modifiers::ALT, Key::Num1),
            (Modifiers::COMMAND | Modifiers::ALT, Key::Num3),
            (Modifiers::ALT, Key::Num1),
            (Modifiers::ALT, Key::Num3),
            (Modifiers::ALT, Key::Num7),
            (Modifiers::ALT, Key::Num9),
            // Redo before undo: Ctrl+Shift+Z would also match a plain Ctrl+Z.
            (Modifiers::COMMAND | Modifiers::SHIFT, Key::Z),
            (Modifiers::COMMAND, Key::Z),
            (Modifiers::COMMAND, Key::O),
            (Modifiers::COMMAND, Key::S),
            (Modifiers::COMMAND, Key::Q),
            (Modifiers::NONE, Key::Space),
            (Modifiers::NONE, Key::ArrowLeft),
            (Modifiers::NONE, Key::ArrowRight),
            (Modifiers::NONE, Key::Home),
            (Modifiers::NONE, Key::End),
            (Modifiers::NONE, Key::L),
            (Modifiers::NONE, Key::F),
            (Modifiers::NONE, Key::D),
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
            match (key, modifiers.alt) {
                (Key::I, true) => {
                    self.transport(Transport::Range(None));
                    continue;
                }
                (Key::I, false) => {
                    self.transport(Transport::InAtPlayhead);
                    continue;
                }
                (Key::O, _) => {
                    self.transport(Transport::OutAtPlayhead);
                    continue;
                }
                (Key::ArrowUp | Key::ArrowDown, true) => {
                    if let Some(clip) = self.stage.main.timeline.clip() {
                        let by = if key == Key::ArrowUp { -1 } else { 1 };
                        if let Err(e) = self.move_clip(clip, by) {
                            self.set_message(e, true);
                        }
                    }
                    continue;
                }
                (Key::P, _) => {
                    let on = !self.stage.main.timeline.ping_pong();
                    self.transport(Transport::PingPong(on));
                    continue;
                }
                _ => {}
            }
            if modifiers.alt {
                let digit = match key {
                    Key::Num1 => 1,
                    Key::Num3 => 3,
                    Key::Num7 => 7,
                    _ => 9,
                };
                if let Some(preset) = CameraPreset::for_digit(digit, modifiers.command) {
                    self.camera_preset(preset);
                }
                continue;
            }
            match key {
                Key::Z if modifiers.command && modifiers.shift => self.redo_edit(),
                Key::Z if modifiers.command => self.undo_edit(),
                Key::O if modifiers.command => self.request(Action::OpenDialog),
                Key::F1 => self.set_view(ViewCommand::ShowShortcuts(!self.show_shortcuts)),
                Key::S if modifiers.command => {
                    if let Err(e) = self.save_clip_edits() {
                        self.set_message(format!("save clip edits: {e}"), true);
                    }
                }
                Key::Q if modifiers.command => self.request(Action::Quit),
                Key::Space => self.toggle_play(),
                Key::ArrowLeft => self.transport(Transport::Step(-1)),
                Key::ArrowRight => self.transport(Transport::Step(1)),
                Key::Home => self.transport(Transport::ToStart),
                Key::End => self.transport(Transport::ToEnd),
                Key::L => {
                    let looping = !self.stage.main.timeline.clock().looping();
                    self.transport(Transport::Looping(looping));
                }
                Key::F => self.frame_character(),
                Key::D => {
                    let on = !self.is_driving();
                    self.set_drive(on);
                }
                Key::Num1 => self.transport(Transport::Mode(RootMotionMode::InPlace)),
                Key::Num2 => self.transport(Transport::Mode(RootMotionMode::Accumulate)),
                Key::Num3 => self.transport(Transport::Mode(RootMotionMode::LoopAndReset)),
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
                    self.request(Action::OpenDialog);
                    ui.close();
                }
                if ui
                    .button("Open the motion-matching demo")
                    .on_hover_text(
                        "the demo character with a locomotion set (walk, run, turns, strafes, \
                         start, stop), driven with WASD",
                    )
                    .clicked()
                {
                    self.open_matching_demo();
                    ui.close();
                }
                if ui
                    .button("Open with the built-in browser…")
                    .on_hover_text("a file browser inside the window, with recent folders")
                    .clicked()
                {
                    self.open_file_browser();
                    ui.close();
                }
                if ui
                    .button("Retarget onto this character…")
                    .on_hover_text(
                        "play the clips of another humanoid (glTF, FBX, BVH, or a folder) on this one: they join the clip list",
                    )
                    .clicked()
                {
                    self.request(Action::OpenRetargetDialog);
                    ui.close();
                }
                if ui
                    .add_enabled(
                        self.retarget.is_some(),
                        egui::Button::new("Save retargeted clips…"),
                    )
                    .on_hover_text(
                        "the character's GLB with the clips the last retarget added, as \
                         `stridescope retarget --out` writes it",
                    )
                    .clicked()
                {
                    self.request(Action::SaveRetargetedDialog);
                    ui.close();
                }
                if ui
                    .button("Open a folder as a library…")
                    .on_hover_text(
                        "every clip of a folder (glTF, FBX, BVH) at once in a grid, on this \
                         character (retargeted when the skeletons differ)",
                    )
                    .clicked()
                {
                    self.request(Action::OpenLibraryDialog);
                    ui.close();
                }
                let can_save = self.stage.main.path.is_some();
                if ui
                    .add_enabled(
                        can_save,
                        egui::Button::new(if self.clip_edits_unsaved() {
                            "Save clip edits  (Ctrl+S) *"
                        } else {
                            "Save clip edits  (Ctrl+S)"
                        }),
                    )
                    .on_hover_text(
                        "keep renamed, trimmed and re-marked clips beside the file \
                         (<file>.clips.ron): opening the file again shows them so",
                    )
                    .clicked()
                {
                    if let Err(e) = self.save_clip_edits() {
                        self.set_message(format!("save clip edits: {e}"), true);
                    }
                    ui.close();
                }
                if ui
                    .button("Export preview…")
                    .on_hover_text(
                        "one cycle of the clip as the viewport shows it: GIF, animated PNG or MP4",
                    )
                    .clicked()
                {
                    self.request(Action::ExportPreview);
                    ui.close();
                }
                if ui.button("Open the demo character").clicked() {
                    match crate::asset::load_or_demo(None) {
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
                    self.request(Action::Quit);
                }
            });
            ui.menu_button("View", |ui| {
                self.toggles_ui(ui);
                ui.separator();
                let open = self.library_view().is_some();
                if ui
                    .selectable_label(open, "Library view: every clip at once  (G)")
                    .on_hover_text("the open character's clips in a grid, all playing")
                    .clicked()
                {
                    if open {
                        self.close_library_view();
                    } else {
                        self.open_library_view();
                    }
                    ui.close();
                }
                ui.separator();
                if ui
                    .button("Messages…")
                    .on_hover_text("every status message, error and warning of this session")
                    .clicked()
                {
                    self.set_view(ViewCommand::ShowMessages(true));
                    ui.close();
                }
            });
            ui.menu_button("Help", |ui| {
                if ui.button("Keyboard shortcuts…  (F1)").clicked() {
                    self.set_view(ViewCommand::ShowShortcuts(true));
                    ui.close();
                }
                if ui
                    .button("What the figures mean…")
                    .on_hover_text("the retarget, seam, root-motion, drive and motion-matching figures, with units and thresholds")
                    .clicked()
                {
                    self.set_view(ViewCommand::ShowFigures(true));
                    ui.close();
                }
            });
            ui.separator();
            ui.label(match &self.stage.main.path {
                Some(p) => p.display().to_string(),
                // Not from one file: the demo, or a character built in memory (a motion
                // matching library on it).
                None if self.stage.main.model.source == "demo.glb" || self.stage.main.model.source == "demo" => {
                    "built-in demo character".to_string()
                }
                None => self.stage.main.model.source.clone(),
            });
        });
    }

    /// Viewport toggles (also in the View menu).
    pub fn toggles_ui(&mut self, ui: &mut egui::Ui) {
        let mut t = self.toggles;
        ui.checkbox(&mut t.mesh, "Mesh");
        ui.checkbox(&mut t.skeleton, "Skeleton");
        ui.checkbox(&mut t.grid, "Grid");
        ui.checkbox(&mut t.bind_pose, "Bind pose");
        ui.checkbox(&mut t.trail, "Root-motion trail");
        ui.checkbox(&mut t.follow, "Camera follows character");
        if t != self.toggles {
            self.set_view(ViewCommand::Toggles(t));
        }
        let mut curves = self.inspect.show_curves;
        if ui
            .checkbox(&mut curves, "Curve view (selected joint)")
            .changed()
        {
            self.set_view(ViewCommand::ShowCurves(curves));
        }
        inspect::onion_ui(self, ui);
        if ui.button("Frame character  (F)").clicked() {
            self.frame_character();
        }
        if ui.button("Reset view").clicked() {
            self.reset_view();
        }
        ui.menu_button("Camera", |ui| {
            for preset in CameraPreset::ALL {
                if ui.button(preset.label()).clicked() {
                    self.camera_preset(preset);
                    ui.close();
                }
            }
        });
    }

    fn clips_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Clips");
        if self.stage.main.model.scenes.len() > 1 {
            let current = self.stage.main.model.scene.unwrap_or(0);
            let mut picked = current;
            ui.horizontal(|ui| {
                ui.label("Scene");
                egui::ComboBox::from_id_salt("scene")
                    .selected_text(self.stage.main.model.scenes[current].clone())
                    .show_ui(ui, |ui| {
                        for (i, name) in self.stage.main.model.scenes.iter().enumerate() {
                            ui.selectable_value(&mut picked, i, name);
                        }
                    });
            });
            if picked != current {
                let _ = self.show_scene(picked);
            }
        }
        if self.stage.main.model.clips.is_empty() {
            ui.weak("This file has no animations (showing the rest pose).");
            self.import_warnings_ui(ui);
            return;
        }
        let mut picked = None;
        // Highlighted: what shows now (the timeline's clip, the graph's inputs with their
        // weights, the clip motion matching plays).
        let weights = self.clip_weights();
        let blending = self.graph().is_some() && self.matching().is_none();
        let range = self.stage.main.timeline.range();
        let on_timeline = self.stage.main.timeline.clip();
        let mut edit: Option<ClipMenuAction> = None;
        let reveal = self.take_reveal_clip();
        let model = &self.stage.main.model;
        let listed = model.listed_clips(self.show_hidden_clips());
        let hidden_count = model.clips.len() - model.listed_clips(false).len();
        let default_clip = model.default_clip();
        // A long clip list (a mocap folder) scrolls in 40% of the panel, so the outliner
        // and the pose graph below stay reachable.
        egui::ScrollArea::vertical()
            .id_salt("clip_list")
            .max_height((ui.clip_rect().height() * 0.4).max(80.0))
            .show(ui, |ui| {
                for &i in &listed {
                    let clip = &model.clips[i];
                    let w = weights.get(i).copied().unwrap_or(0.0);
                    let mut text = format!("{}  ({:.3} s)", clip.name(), clip.duration_secs());
                    if clip.is_additive() {
                        text.push_str("  additive");
                    }
                    // A hidden clip (shown with "Show hidden") or an empty take: greyed,
                    // with why.
                    let hidden = model.clip_hidden(i);
                    let empty = clip.emptiness();
                    let text = if hidden.is_some() || empty.is_some() {
                        egui::RichText::new(text).weak().italics()
                    } else {
                        egui::RichText::new(text)
                    };
                    let mut hover = match (&hidden, empty) {
                        (Some(why), _) => why.clone(),
                        (None, Some(why)) => format!("{why}: nothing to play"),
                        (None, None) => "play this clip alone".to_string(),
                    };
                    if default_clip == Some(i) && model.arrangement.default_clip == Some(i) {
                        hover.push_str("; the file opens on it");
                    }
                    ui.horizontal_wrapped(|ui| {
                        // Wrapped, not cut: takes of one session differ only at their
                        // names' ends (`..._002`, `..._003`).
                        let row = ui
                            .add(egui::Button::selectable(w > 0.0, text).wrap())
                            .on_hover_text(format!(
                                "{hover}; right-click to rename, trim, mark, hide or move it"
                            ));
                        if row.clicked() {
                            picked = Some(i);
                        }
                        if reveal == Some(i) {
                            row.scroll_to_me(Some(egui::Align::Center));
                        }
                        row.context_menu(|ui| {
                            let state = ClipMenuState {
                                clip: i,
                                name: clip.name(),
                                range,
                                on_timeline: on_timeline == Some(i),
                                hidden: model.arrangement.hidden.contains(&i),
                                is_default: model.arrangement.default_clip == Some(i),
                                additive: clip
                                    .is_additive()
                                    .then(|| clip.additive_reference_secs()),
                            };
                            if let Some(a) = clip_menu_ui(ui, &state) {
                                edit = Some(a);
                            }
                        });
                        if blending && w > 0.0 {
                            ui.weak(format!("{:.0}%", w * 100.0));
                        }
                    });
                }
            });
        if hidden_count > 0 {
            let mut show = self.show_hidden_clips();
            if ui
                .checkbox(&mut show, format!("Show hidden ({hidden_count})"))
                .on_hover_text("clips you hid and empty takes (nothing to play)")
                .changed()
            {
                self.set_show_hidden_clips(show);
            }
        }
        if let Some(i) = picked {
            self.select_clip(i);
        }
        if let Some(action) = edit {
            self.clip_menu_action(action);
        }
        self.import_warnings_ui(ui);
    }

    /// Carries out what a clip's context menu asked for.
    fn clip_menu_action(&mut self, action: ClipMenuAction) {
        let t = self.stage.main.timeline.phase_secs() as f32;
        let result = match action {
            ClipMenuAction::Rename(i, name) => self.rename_clip(i, &name),
            ClipMenuAction::Trim(i) => self.trim_clip_to_range(i),
            ClipMenuAction::AddMarker(i, name) => self.add_marker(i, name, t),
            ClipMenuAction::RemoveMarker(i) => {
                let frame = 1.0 / self.stage.main.timeline.frame_rate_hz() as f32;
                self.remove_marker_near(i, t, frame)
            }
            ClipMenuAction::Additive(i, on) => self.set_clip_additive(i, on.then_some(t)),
            ClipMenuAction::Hide(i, hide) => self.set_clip_hidden(i, hide),
            ClipMenuAction::Move(i, by) => self.move_clip(i, by),
            ClipMenuAction::Default(i, on) => self.set_default_clip(on.then_some(i)),
        };
        if let Err(e) = result {
            self.set_message(e, true);
        }
    }

    /// What the importer ignored or repaired, listed once each.
    fn import_warnings_ui(&self, ui: &mut egui::Ui) {
        if self.stage.main.model.warnings.is_empty() {
            return;
        }
        egui::CollapsingHeader::new(format!(
            "Import warnings ({})",
            self.stage.main.model.warnings.len()
        ))
        .id_salt("import_warnings")
        .show(ui, |ui| {
            for w in &self.stage.main.model.warnings {
                ui.add(egui::Label::new(egui::RichText::new(w).weak()).wrap());
            }
        });
    }

    fn status_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label(format!(
                "{:.0} fps  {:.1} ms",
                self.stats.fps, self.stats.frame_ms
            ));
            ui.separator();
            let bones_mesh = crate::asset::bone_shapes::BONE_MESH_NAME;
            let skins: Vec<String> = self
                .stage
                .main
                .model
                .skins
                .iter()
                .filter(|s| s.name != bones_mesh)
                .map(|s| s.joints.len().to_string())
                .collect();
            let drawn_bones = self
                .stage
                .main
                .model
                .meshes
                .iter()
                .any(|m| m.name == bones_mesh);
            let vertices: usize = self
                .stage
                .main
                .model
                .meshes
                .iter()
                .filter(|m| m.name != bones_mesh)
                .flat_map(|m| &m.primitives)
                .map(|p| p.positions.len())
                .sum();
            ui.label(if drawn_bones && vertices == 0 {
                format!(
                    "{} joints (no mesh: bones drawn from the skeleton)",
                    self.stage.main.model.skeleton.joint_count()
                )
            } else {
                format!(
                    "{} joints ({} in skins)  {vertices} vertices",
                    self.stage.main.model.skeleton.joint_count(),
                    if skins.is_empty() {
                        "none".into()
                    } else {
                        skins.join("+")
                    },
                )
            });
            ui.separator();
            ui.label(if self.stats.adapter.is_empty() {
                "no GPU"
            } else {
                &self.stats.adapter
            });
            if let Some((text, fraction)) = self.loading_progress() {
                ui.separator();
                let bar = egui::ProgressBar::new(fraction.unwrap_or(0.0))
                    .desired_width(300.0)
                    .text(text);
                // A step that cannot say how far it is animates instead of standing at 0.
                ui.add(if fraction.is_none() {
                    bar.animate(true)
                } else {
                    bar
                });
            }
            if let Some(m) = &self.message {
                ui.separator();
                let color = if m.is_error {
                    Color32::from_rgb(255, 110, 100)
                } else {
                    ui.visuals().text_color()
                };
                // Cut to the bar's width (the whole text on hover and in View > Messages):
                // a long message must not push the bar wider than the window.
                ui.add(egui::Label::new(egui::RichText::new(&m.text).color(color)).truncate())
                    .on_hover_text(&m.text);
            }
            if let Some(e) = self.stage.main.timeline.error() {
                ui.separator();
                ui.add(
                    egui::Label::new(egui::RichText::new(e).color(Color32::from_rgb(255, 170, 80)))
                        .truncate(),
                )
                .on_hover_text(e);
            }
            if let Some((w, ago)) = self.recent_phase_warning() {
                // Held for a moment after it stops: a short cross-fade warns for a frame.
                ui.separator();
                let text = if ago > 0.0 {
                    format!("{w} ({ago:.1} s ago)")
                } else {
                    w.to_string()
                };
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(&text).color(Color32::from_rgb(255, 170, 80)),
                    )
                    .truncate(),
                )
                .on_hover_text(&text);
            }
        });
    }

    /// The selected joint's name next to it in the viewport.
    fn selected_label_ui(&self, ui: &egui::Ui, rect: egui::Rect) {
        let Some(j) = self.inspect.selected else {
            return;
        };
        let Some(m) = self.stage.main.pose.model_from_joint.get(j) else {
            return;
        };
        let [w, h] = self.viewport_size_px;
        let size = Vec2::new(w as f32, h as f32);
        let clip_from_world = self.camera.clip_from_world(size.x / size.y.max(1.0));
        if let Some(px) =
            crate::render::camera::world_to_pixel(&clip_from_world, m.w_axis.truncate(), size)
        {
            let ppp = ui.ctx().pixels_per_point();
            let at = rect.min + egui::vec2(px.x, px.y) / ppp + egui::vec2(8.0, -8.0);
            ui.painter().text(
                at,
                egui::Align2::LEFT_BOTTOM,
                &self.stage.main.model.skeleton.names()[j],
                egui::FontId::proportional(13.0),
                Color32::from_rgb(90, 200, 255),
            );
        }
    }

    fn viewport_ui(&mut self, ui: &mut egui::Ui, texture: Option<egui::TextureId>) {
        let rect = ui.available_rect_before_wrap();
        ui.data_mut(|d| d.insert_temp(egui::Id::unique(VIEWPORT_RECT), rect));
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        // Named for screen readers (and the UI tests, which click in it).
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "3D viewport"));
        let ppp = ui.ctx().pixels_per_point();
        self.set_view(ViewCommand::ViewportSize([
            (rect.width() * ppp).round() as u32,
            (rect.height() * ppp).round() as u32,
        ]));
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
        let library = library::library_viewport_ui(self, ui, rect, &response);
        if !library {
            locomotion::overlay_text_ui(self, ui, rect);
        }
        // Camera input: left drag orbits, middle or shift+left drag pans, wheel zooms.
        let delta = response.drag_delta();
        let shift = ui.input(|i| i.modifiers.shift);
        if response.dragged_by(PointerButton::Middle)
            || (shift && response.dragged_by(PointerButton::Primary))
        {
            self.set_view(ViewCommand::Pan(delta.x * ppp, delta.y * ppp));
        } else if response.dragged_by(PointerButton::Primary) {
            self.set_view(ViewCommand::Orbit(-delta.x * 0.01, delta.y * 0.01));
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                self.set_view(ViewCommand::Zoom((-scroll * 0.002).exp()));
            }
        }
        if library {
            // The library view picks characters, not joints.
        } else if response.double_clicked() {
            self.frame_character();
        } else if response.clicked() {
            if let Some(pos) = response.interact_pointer_pos() {
                let local = (pos - rect.min) * ppp;
                self.pick_joint(Vec2::new(local.x, local.y));
            }
        }
        if !library {
            self.selected_label_ui(ui, rect);
        }
    }
}
