//! The clip list: each clip with its length, what plays highlighted, hidden clips and
//! empty takes left out (or greyed), and a clip's context menu (rename, trim, markers,
//! additive, move, hide, opening clip).

use egui::Key;

use super::*;

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
            for m in crate::controller::MARKER_NAMES {
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

impl Previewer {
    pub(super) fn clips_ui(&mut self, ui: &mut egui::Ui) {
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
            self.set_message(e.report(), true);
        }
    }

    /// What the importer ignored or repaired, listed once each.
    pub(super) fn import_warnings_ui(&self, ui: &mut egui::Ui) {
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
}
