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
mod clips;
mod curves;
mod graph_edit;
mod graph_view;
mod help;
mod inspect;
mod keys;
mod library;
mod locomotion;
mod locomotion_debug;
mod mask;
mod matching;
mod menu;
mod morph;
mod palette;
mod plot;
mod retarget;
mod scrub_bar;
pub mod timeline;

pub use graph_view::{blend_space_2d_ui, common_word_prefix, state_boxes};
pub use help::{FIGURES, SHORTCUTS};
pub use locomotion::movement_pad_ui;

use crate::controller::ViewCommand;

use egui::{Color32, PointerButton, Sense};
use glam::Vec2;

pub use crate::controller::{Action, CameraPreset, Message, Previewer, Stats};

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
                .show(ui, |ui| locomotion_debug::foot_slide_ui(self, ui));
        }
        if curves_open {
            let curves_max = (optional - if self.is_driving() { foot_h } else { 0.0 }).max(60.0);
            egui::Panel::bottom("curves")
                .resizable(true)
                .default_size(curves_max.min(220.0))
                .size_range(60.0..=curves_max)
                .show(ui, |ui| curves::curves_ui(self, ui));
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
                        graph_edit::graph_edit_ui(self, ui);
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

    /// The last error over the top right of the window for [`crate::controller::TOAST_SECS`],
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
        if !self.view.windows.messages {
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

    fn status_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label(format!(
                "{:.0} fps  {:.1} ms",
                self.view.stats.fps, self.view.stats.frame_ms
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
            ui.label(if self.view.stats.adapter.is_empty() {
                "no GPU"
            } else {
                &self.view.stats.adapter
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
            if let Some(m) = self.message() {
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
        let [w, h] = self.view.viewport_size_px;
        let size = Vec2::new(w as f32, h as f32);
        let clip_from_world = self.view.camera.clip_from_world(size.x / size.y.max(1.0));
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
            locomotion_debug::overlay_text_ui(self, ui, rect);
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
