//! Drive's debug views: the legs in use (each joint pickable), the foot-slide plot and
//! the overlay text over the viewport.

use super::palette::{leg_color, SKATE};
use super::Previewer;
use egui::{Color32, Vec2};
use egui_plot::{HLine, Plot, PlotPoints, Points};

/// The legs in use, each joint pickable from the skeleton; "Detect" goes back to the
/// detected legs.
pub(super) fn legs_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(l) = p.graph().and_then(|g| g.locomotion.as_ref()) else {
        return;
    };
    let mut legs = l.legs().to_vec();
    let names = p.model().skeleton.names().to_vec();
    let mut changed = false;
    egui::CollapsingHeader::new(format!(
        "Legs ({}{})",
        legs.len(),
        if p.model().leg_override().is_some() {
            ", chosen"
        } else {
            ", detected"
        }
    ))
    .id_salt("loco_legs")
    .show(ui, |ui| {
        super::sideways_ui(ui, "loco_legs_grid_sideways", |ui| {
            egui::Grid::new("loco_legs_grid")
                .num_columns(4)
                .show(ui, |ui| {
                    for (i, leg) in legs.iter_mut().enumerate() {
                        ui.label(&leg.name);
                        for (role, joint) in [
                            ("thigh", &mut leg.thigh),
                            ("calf", &mut leg.calf),
                            ("foot", &mut leg.foot),
                        ] {
                            egui::ComboBox::from_id_salt(("leg_joint", i, role))
                                .selected_text(names[*joint].as_str())
                                .width(110.0)
                                .show_ui(ui, |ui| {
                                    for (j, n) in names.iter().enumerate() {
                                        changed |=
                                            ui.selectable_value(joint, j, n.as_str()).changed();
                                    }
                                })
                                .response
                                .on_hover_text(role);
                        }
                        ui.end_row();
                    }
                })
        });
        if ui
            .button("Detect")
            .on_hover_text("use the legs found by name or shape")
            .clicked()
        {
            p.set_leg_override(None);
        }
    });
    if changed {
        // Through the name-based override, so a bad choice is refused with a reason.
        let chosen: Vec<(String, String, String)> = legs
            .iter()
            .map(|l| {
                (
                    names[l.thigh].clone(),
                    names[l.calf].clone(),
                    names[l.foot].clone(),
                )
            })
            .collect();
        let overrides: Vec<crate::anim::contacts::LegOverride> = chosen
            .iter()
            .map(|(t, c, f)| crate::anim::contacts::LegOverride {
                thigh: t,
                calf: c,
                foot: f,
            })
            .collect();
        match crate::anim::contacts::legs_from_override(&p.model().skeleton, &overrides) {
            Ok(l) => p.set_leg_override(Some(l)),
            Err(e) => p.set_message(format!("legs: {e}"), true),
        }
    }
}

/// The foot-slide curve under the timeline: each planted foot's world speed per frame,
/// with the skate threshold as a line.
pub(super) fn foot_slide_ui(p: &Previewer, ui: &mut egui::Ui) {
    let Some(g) = p.graph() else { return };
    let Some(l) = &g.locomotion else { return };
    let names: Vec<String> = l.legs().iter().map(|leg| leg.name.clone()).collect();
    let threshold = f64::from(l.settings.slide.skate_speed_mps * l.unit_scale());
    ui.horizontal(|ui| {
        ui.strong("Foot slide");
        ui.weak(format!(
            "planted feet's world speed (m/s); skating over {threshold:.3} m/s; {:.1} cm/cycle, {:.0}% skating",
            l.slide.slide_per_cycle(l.cycles_played) * 100.0,
            l.slide.skating_ratio() * 100.0
        ));
    });
    let mut legend: Vec<(&str, Color32)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), leg_color(n, i)))
        .collect();
    legend.push(("skate threshold", SKATE));
    super::plot::legend_row_ui(ui, &legend);
    Plot::new("foot_slide")
        .height((ui.available_height() - 4.0).clamp(40.0, 90.0))
        .allow_scroll(false)
        .include_y(0.0)
        .include_y(threshold * 1.5)
        .show(ui, |plot| {
            plot.hline(HLine::new("skate threshold", threshold).color(SKATE));
            for (i, name) in names.iter().enumerate() {
                let pts: Vec<[f64; 2]> = g
                    .locomotion_history()
                    .filter_map(|x| {
                        x.slide_mps
                            .get(i)
                            .copied()
                            .flatten()
                            .map(|v| [x.wall_secs, f64::from(v)])
                    })
                    .collect();
                // Points, not a line: a foot in the air has no value, and a line would
                // join the contacts across the swing.
                plot.points(
                    Points::new(name.as_str(), PlotPoints::from(pts))
                        .color(leg_color(name, i))
                        .radius(1.5),
                );
            }
        });
}

/// The overlay text block over the viewport (top left).
pub(super) fn overlay_text_ui(p: &Previewer, ui: &egui::Ui, rect: egui::Rect) {
    if !p.drive.overlays.text {
        return;
    }
    let Some(g) = p.graph() else { return };
    let Some(l) = &g.locomotion else { return };
    let lines = l.readout(g.graph.rate());
    let painter = ui.painter_at(rect);
    let character = p.character_screen_rect(ui.ctx().pixels_per_point(), rect.min);
    let layout = |lines: &[&str], size: f32| {
        painter.layout_no_wrap(
            lines.join("\n"),
            egui::FontId::monospace(size),
            Color32::from_gray(230),
        )
    };
    let full: Vec<&str> = lines.iter().map(String::as_str).collect();
    let mut galley = layout(&full, 12.0);
    let mut at = overlay_corner(rect, galley.size() + Vec2::splat(8.0), character);
    let covers = |at: egui::Pos2, size: Vec2| {
        character.is_some_and(|c| egui::Rect::from_min_size(at, size).intersects(c))
    };
    if covers(at, galley.size() + Vec2::splat(8.0)) {
        // No corner is clear of the character (a small viewport): the four speeds,
        // without their explanations, the rest stays in the Locomotion panel.
        let short: Vec<&str> = full
            .iter()
            .take(4)
            .map(|l| l.split(" (").next().unwrap_or(l))
            .collect();
        galley = layout(&short, 11.0);
        at = overlay_corner(rect, galley.size() + Vec2::splat(8.0), character);
    }
    let at = at + Vec2::splat(4.0);
    painter.rect_filled(
        egui::Rect::from_min_size(at - Vec2::splat(4.0), galley.size() + Vec2::splat(8.0)),
        4.0,
        Color32::from_black_alpha(160),
    );
    painter.galley(at, galley, Color32::from_gray(230));
}

/// The top-left corner for a `size` box in a corner of `viewport` (8 points in) that
/// covers the least of `character` (its joints' screen rectangle): top left, top right,
/// bottom left, bottom right, in that order of preference.
pub(super) fn overlay_corner(
    viewport: egui::Rect,
    size: Vec2,
    character: Option<egui::Rect>,
) -> egui::Pos2 {
    let m = 8.0;
    let corners = [
        viewport.left_top() + Vec2::new(m, m),
        egui::pos2(viewport.right() - m - size.x, viewport.top() + m),
        egui::pos2(viewport.left() + m, viewport.bottom() - m - size.y),
        viewport.right_bottom() - size - Vec2::new(m, m),
    ];
    let Some(body) = character else {
        return corners[0];
    };
    let covered = |c: egui::Pos2| {
        let i = egui::Rect::from_min_size(c, size).intersect(body);
        if i.is_positive() {
            i.area()
        } else {
            0.0
        }
    };
    let mut best = corners[0];
    for c in corners {
        if covered(c) < covered(best) {
            best = c;
        }
    }
    best
}
