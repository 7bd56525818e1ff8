//! Morph targets in the window: the Morphs panel (every mesh's targets by name with their
//! live weights, and sliders that override them while paused) and the timeline rows of
//! the clip's morph-weight channels. State lives on the previewer
//! ([`Inspection::morph_overrides`](crate::stage::inspect::Inspection::morph_overrides)); these functions only draw it.

use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};

use super::Previewer;

/// Timeline rows shown at most (the panel lists every target).
const MAX_ROWS: usize = 6;
const ROW_HEIGHT: f32 = 16.0;
const CURVE: Color32 = Color32::from_rgb(230, 160, 90);
const OVERRIDDEN: Color32 = Color32::from_rgb(90, 200, 255);

/// The Morphs panel; draws nothing for a model without morph targets.
pub(super) fn morphs_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    if p.model().meshes.iter().all(|m| m.morph_target_count() == 0) {
        return;
    }
    // Read-only while drawing; edits are collected and applied after (no per-frame
    // copies of the names).
    let mut changes: Vec<(usize, usize, Option<f32>)> = Vec::new();
    let mut release_all = false;
    egui::CollapsingHeader::new("Morphs")
        .id_salt("morphs")
        .default_open(true)
        .show(ui, |ui| {
            let paused = !p.is_playing();
            ui.label(
                egui::RichText::new(if paused {
                    "Drag a slider to set a weight by hand (shown while paused)."
                } else if p.matching().is_some() {
                    "Motion matching plays no morph channels (the meshes' defaults). Pause to set them by hand."
                } else if p.graph().is_some() {
                    "Playing: weights follow the pose graph's blend. Pause to set them by hand."
                } else {
                    "Playing: weights follow the clip. Pause to set them by hand."
                })
                .small()
                .weak(),
            );
            for (m, mesh) in p.model().meshes.iter().enumerate() {
                if mesh.morph_target_count() == 0 {
                    continue;
                }
                ui.label(egui::RichText::new(&mesh.name).strong());
                for (t, target) in mesh.target_names.iter().enumerate() {
                    let live = p
                        .stage.main.pose
                        .morph_weights
                        .get(m)
                        .and_then(|w| w.get(t))
                        .copied()
                        .unwrap_or(0.0);
                    let overridden = p.inspect.morph_overrides.get(m, t).is_some();
                    ui.horizontal_wrapped(|ui| {
                        let label = egui::RichText::new(target);
                        let label = if overridden {
                            label.color(OVERRIDDEN)
                        } else {
                            label
                        };
                        let mut value = live;
                        // Weights may leave [0, 1] (glTF allows any value): typed values
                        // are kept, the slider shows the usual range.
                        let slider = egui::Slider::new(&mut value, 0.0..=1.0)
                            .clamping(egui::SliderClamping::Never)
                            .fixed_decimals(2)
                            .text(label);
                        let response = ui
                            .add_enabled(paused, slider)
                            .on_disabled_hover_text("pause playback to set weights by hand");
                        if response.changed() {
                            changes.push((m, t, Some(value)));
                        }
                        if overridden
                            && ui
                                .small_button("x")
                                .on_hover_text("back to the clip")
                                .clicked()
                        {
                            changes.push((m, t, None));
                        }
                    });
                }
            }
            let any = p.inspect.morph_overrides.any();
            release_all = ui
                .add_enabled(any, egui::Button::new("Release all"))
                .clicked();
        });
    if release_all {
        p.clear_morph_overrides();
    }
    for (m, t, w) in changes {
        p.set_morph_override(m, t, w);
    }
}

/// One row per animated target of the current clip under the scrub bar: its weight over
/// the clip (0 at the bottom, 1 at the top), key ticks and the playhead.
pub(super) fn morph_rows_ui(p: &Previewer, ui: &mut egui::Ui) {
    let model = p.model();
    let Some(clip) = p
        .stage
        .main
        .timeline
        .clip()
        .and_then(|i| model.clips.get(i))
    else {
        return;
    };
    let duration = clip.duration_secs();
    if clip.morph_tracks().is_empty() || duration <= 0.0 {
        return;
    }
    let mut rows = Vec::new();
    for track in clip.morph_tracks() {
        let Some(mesh) = model.meshes.iter().find(|m| m.joint == track.joint) else {
            continue;
        };
        for t in 0..track.targets() {
            let name = mesh.target_names.get(t).cloned().unwrap_or_default();
            rows.push((track, t, format!("{}: {name}", mesh.name)));
        }
    }
    let hidden = rows.len().saturating_sub(MAX_ROWS);
    let now = p.stage.main.timeline.clock().time().phase_secs as f32;
    let mut buf = vec![0.0f32; rows.iter().map(|r| r.0.targets()).max().unwrap_or(0)];
    for (track, target, label) in rows.into_iter().take(MAX_ROWS) {
        let width = ui.available_width();
        let (rect, _) = ui.allocate_exact_size(Vec2::new(width, ROW_HEIGHT), Sense::hover());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 2.0, ui.visuals().faint_bg_color);
        let track_rect = Rect::from_min_max(
            Pos2::new(rect.left() + 8.0, rect.top() + 2.0),
            Pos2::new(rect.right() - 8.0, rect.bottom() - 2.0),
        );
        let x_of = |t: f32| track_rect.left() + t / duration * track_rect.width();
        let y_of = |w: f32| track_rect.bottom() - w.clamp(-0.1, 1.1) * track_rect.height();
        let buf = &mut buf[..track.targets()];
        let steps = (track_rect.width() / 3.0).max(2.0) as usize;
        let points: Vec<Pos2> = (0..=steps)
            .map(|i| {
                let t = duration * i as f32 / steps as f32;
                let _ = track.sample(t, buf);
                Pos2::new(x_of(t), y_of(buf[target]))
            })
            .collect();
        painter.add(egui::Shape::line(points, Stroke::new(1.5, CURVE)));
        for &k in track.times() {
            let x = x_of(k);
            painter.line_segment(
                [
                    Pos2::new(x, track_rect.bottom() - 3.0),
                    Pos2::new(x, track_rect.bottom()),
                ],
                Stroke::new(1.0, ui.visuals().weak_text_color()),
            );
        }
        let x = x_of(now.clamp(0.0, duration));
        painter.line_segment(
            [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
            Stroke::new(1.0, ui.visuals().strong_text_color()),
        );
        painter.text(
            Pos2::new(rect.left() + 10.0, rect.center().y),
            Align2::LEFT_CENTER,
            label,
            FontId::proportional(10.0),
            ui.visuals().text_color(),
        );
    }
    if hidden > 0 {
        ui.label(
            egui::RichText::new(format!("+{hidden} more morph channels (see Morphs)"))
                .small()
                .weak(),
        );
    }
}
