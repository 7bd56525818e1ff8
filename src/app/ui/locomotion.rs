//! The Locomotion panel: drive toggle, movement speed and direction (drag values and a 2D
//! pad), speed matching / stride warping / orientation warping with every setting and its
//! value scaled to the rig, the play-rate vs stride-scale split over time, overlay
//! toggles, and the foot-slide curve under the timeline. It reads the previewer's Drive
//! part (`drive.settings`) and changes it through the controller's methods; no state of
//! its own.

use crate::AppError;
use egui::{Color32, Pos2, Sense, Stroke, Vec2};
use egui_plot::{HLine, Line, Plot, PlotPoints};

use super::palette::WARN;
use super::Previewer;
use crate::anim::locomotion::{SpeedSource, REFERENCE_LEG_LENGTH_M};
use crate::stage::locomotion::LocomotionSettings;

const RATE: Color32 = Color32::from_rgb(120, 180, 255);
const STRIDE: Color32 = Color32::from_rgb(255, 150, 40);

/// Speed and direction pad: the circle's radius is `max_speed`; the dot is the movement
/// (up = the character's forward, left = its left). Click or drag to set both. Returns
/// true when the user changed them.
pub fn movement_pad_ui(
    ui: &mut egui::Ui,
    speed: &mut f32,
    direction_deg: &mut f32,
    max_speed: f32,
    clip_speed: Option<f32>,
) -> bool {
    let size = Vec2::splat(132.0);
    let (rect, response) = ui.allocate_exact_size(size, Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    let c = rect.center();
    let r = rect.width() * 0.5 - 4.0;
    let max_speed = if max_speed > 0.0 { max_speed } else { 1.0 };
    painter.circle_filled(c, r, Color32::from_gray(28));
    painter.circle_stroke(c, r, Stroke::new(1.0, Color32::from_gray(90)));
    painter.line_segment(
        [c - Vec2::new(r, 0.0), c + Vec2::new(r, 0.0)],
        Stroke::new(1.0, Color32::from_gray(60)),
    );
    painter.line_segment(
        [c - Vec2::new(0.0, r), c + Vec2::new(0.0, r)],
        Stroke::new(1.0, Color32::from_gray(60)),
    );
    if let Some(v) = clip_speed.filter(|v| *v > 0.0) {
        // The clip's own speed: where no warping is needed.
        painter.circle_stroke(
            c,
            r * (v / max_speed).min(1.0),
            Stroke::new(1.0, Color32::from_rgb(90, 160, 90)),
        );
    }
    let mut changed = false;
    if let Some(pos) = response.interact_pointer_pos() {
        if response.clicked() || response.dragged() {
            let d = pos - c;
            let len = (d.length() / r).min(1.0);
            *speed = len * max_speed;
            // Screen up = forward (+Z), screen left = the character's left (+X).
            *direction_deg = (-d.x).atan2(-d.y).to_degrees();
            changed = true;
        }
    }
    let a = direction_deg.to_radians();
    let dot = c + Vec2::new(-a.sin(), -a.cos()) * r * (*speed / max_speed).min(1.0);
    painter.line_segment([c, dot], Stroke::new(2.0, STRIDE));
    painter.circle_filled(dot, 5.0, STRIDE);
    painter.text(
        Pos2::new(c.x, rect.top() + 2.0),
        egui::Align2::CENTER_TOP,
        "forward",
        egui::FontId::proportional(10.0),
        Color32::GRAY,
    );
    response.on_hover_text(format!(
        "click or drag: speed (radius = {max_speed:.2} m/s) and direction (up = forward)"
    ));
    changed
}

/// A setting's label, its value, and (`scale` given) the value scaled to the rig.
fn setting_row(
    ui: &mut egui::Ui,
    label: &str,
    value: &mut f32,
    range: std::ops::RangeInclusive<f32>,
    unit: &str,
    scale: Option<f32>,
) -> bool {
    ui.label(label);
    let changed = ui
        .add(
            egui::DragValue::new(value)
                .range(range)
                .speed(0.005)
                .suffix(unit),
        )
        .changed();
    match scale.map(|k| *value * k) {
        Some(v) => ui.weak(format!("= {v:.4}{unit} here")),
        None => ui.weak(""),
    };
    ui.end_row();
    changed
}

/// The clip's motion: in place or root motion (why: on hover), and the user's override.
/// One combo, on the Drive row, so the panel grows by nothing.
fn clip_motion_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    use crate::anim::locomotion::InPlaceOverride;
    let Some(clip) = p.stage.main.timeline.clip() else {
        return;
    };
    let current = p.stage.main.model.in_place_override(clip);
    // The timeline computed the analysis when it selected the clip: this is a lookup.
    let analysis = p
        .stage
        .main
        .model
        .clip_analysis(clip)
        .map_err(|e| AppError::from(e).report());
    let (in_place, reason) = match &analysis {
        Ok(a) => (a.in_place.in_place, a.in_place.reason.as_str()),
        Err(e) => (false, e.as_str()),
    };
    let mut choice = current;
    egui::ComboBox::from_id_salt("in_place_override")
        .selected_text(match current {
            InPlaceOverride::Auto if in_place => "auto: in place",
            InPlaceOverride::Auto => "auto: root motion",
            InPlaceOverride::InPlace => "in place",
            InPlaceOverride::RootMotion => "root motion",
        })
        .show_ui(ui, |ui| {
            ui.selectable_value(
                &mut choice,
                InPlaceOverride::Auto,
                "auto (decided from the root and the feet)",
            );
            ui.selectable_value(
                &mut choice,
                InPlaceOverride::InPlace,
                "in place (the feet give the speed)",
            );
            ui.selectable_value(
                &mut choice,
                InPlaceOverride::RootMotion,
                "root motion (the root's travel)",
            );
        })
        .response
        .on_hover_text(reason);
    if choice != current {
        p.set_in_place_override(choice);
    }
}

pub(super) fn locomotion_panel_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    ui.heading("Locomotion");
    let mut driving = p.is_driving();
    let toggled = ui
        .horizontal(|ui| {
            let toggled = ui
                .checkbox(&mut driving, "Drive (D)")
                .on_hover_text("Move the character at a speed and direction: speed matching sets the play rate within its clamp, stride warping and foot IK cover the rest")
                .changed();
            clip_motion_ui(p, ui);
            toggled
        })
        .inner;
    if toggled {
        p.set_drive(driving);
    }
    if !p.is_driving() {
        ui.weak(if p.matching().is_some() {
            "Off: motion matching moves the character (WASD). Drive turns it off."
        } else if p.graph().is_some() {
            "Off: the pose graph plays at its own speed. Drive sets a movement speed and direction."
        } else {
            "Off: the clip plays at its own speed. Drive sets a movement speed and direction."
        });
        return;
    }
    let mut s: LocomotionSettings = p.drive.settings;
    let before = s;
    // Clip speed of what plays (root motion or implied).
    let (clip_speed, source, unit_scale) = match p.graph().and_then(|g| g.locomotion.as_ref()) {
        Some(l) => (Some(l.anim_speed as f32), l.speed_source(), l.unit_scale()),
        None => (None, "", 1.0),
    };
    super::sideways_ui(ui, "loco_speed_sideways", |ui| {
        egui::Grid::new("loco_speed").num_columns(2).show(ui, |ui| {
            ui.label("movement speed");
            ui.add(
                egui::DragValue::new(&mut s.movement_speed)
                    .range(0.0..=1000.0)
                    .speed(0.01)
                    .suffix(" m/s"),
            );
            ui.end_row();
            ui.label("direction");
            ui.add(
                egui::DragValue::new(&mut s.direction_deg)
                    .range(-180.0..=180.0)
                    .speed(0.5)
                    .suffix("°"),
            )
            .on_hover_text(
                "relative to the character's facing, counter-clockwise from above (90 = left)",
            );
            ui.end_row();
        })
    });
    ui.horizontal_wrapped(|ui| {
        let max = clip_speed.map_or(3.0, |v| (2.0 * v).max(0.1));
        movement_pad_ui(
            ui,
            &mut s.movement_speed,
            &mut s.direction_deg,
            max,
            clip_speed,
        );
        ui.vertical(|ui| {
            if let Some(v) = clip_speed {
                ui.label(format!("clip speed {v:.3} m/s\n({source})"));
                for (label, k) in [("×1 (natural)", 1.0), ("×1.5", 1.5), ("×0.6", 0.6)] {
                    if ui.small_button(label).clicked() {
                        s.movement_speed = v * k;
                    }
                }
            } else {
                ui.weak("the clip's speed is unknown (no root motion, and no planted foot moves to imply one)");
            }
        });
    });
    if let Some(g) = p.graph() {
        if let Some(l) = &g.locomotion {
            ui.label(format!(
                "play rate {:.3}   stride scale {:.3}",
                g.graph.rate(),
                l.warp.scale
            ));
            for w in &l.warnings {
                ui.colored_label(WARN, w);
            }
            // Per cycle once a cycle has played (a part cycle divides by a small number).
            ui.label(if l.cycles_played >= 1.0 {
                format!(
                    "slide {:.1} cm/cycle   skating {:.0}% of frames",
                    l.slide.slide_per_cycle(l.cycles_played) * 100.0,
                    l.slide.skating_ratio() * 100.0
                )
            } else {
                format!(
                    "slide: after the first cycle   skating {:.0}% of frames",
                    l.slide.skating_ratio() * 100.0
                )
            });
            let slide = l.slide.slide_per_cycle(l.cycles_played);
            if !l.settings.foot_lock
                && l.cycles_played >= 1.0
                && slide > 0.05 * f64::from(l.unit_scale())
            {
                ui.colored_label(
                    WARN,
                    "the planted feet still slide: the clip's feet do not move at one ground speed; foot locking pins them",
                );
            }
            if l.orientation.flipped {
                ui.colored_label(
                    WARN,
                    "movement is more than 90° off the clip's travel: warping as if backwards",
                );
            }
        }
    }
    ui.checkbox(&mut s.speed_matching, "speed matching (play rate)");
    ui.checkbox(&mut s.stride_warping, "stride warping + foot IK");
    ui.checkbox(&mut s.orientation.enabled, "orientation warping");
    ui.add_enabled(
        s.stride_warping,
        egui::Checkbox::new(&mut s.foot_lock, "foot locking"),
    )
    .on_hover_text(
        "pin planted feet where they came down; released over the blend time after lift-off",
    );
    let mut manual = s.manual_stride.is_some();
    ui.horizontal_wrapped(|ui| {
        if ui
            .checkbox(&mut manual, "manual stride")
            .on_hover_text("a fixed stride direction and scale instead of the graph-driven ones")
            .changed()
        {
            s.manual_stride = manual.then_some(crate::stage::locomotion::ManualStride {
                direction_deg: 0.0,
                scale: 1.0,
            });
        }
        if let Some(m) = &mut s.manual_stride {
            ui.add(
                egui::DragValue::new(&mut m.scale)
                    .range(0.0..=4.0)
                    .speed(0.01)
                    .prefix("x"),
            );
            ui.add(
                egui::DragValue::new(&mut m.direction_deg)
                    .range(-180.0..=180.0)
                    .speed(0.5)
                    .suffix("°"),
            );
        }
    });
    egui::CollapsingHeader::new("Settings")
        .id_salt("loco_settings")
        .show(ui, |ui| {
            let k = unit_scale;
            super::sideways_ui(ui, "loco_settings_grid_sideways", |ui| {
egui::Grid::new("loco_settings_grid")
                .num_columns(3)
                .show(ui, |ui| {
                    ui.label("play rate min");
                    let mut lo = s.speed_match.min_rate as f32;
                    if ui.add(egui::DragValue::new(&mut lo).range(0.0..=10.0).speed(0.01)).changed() {
                        s.speed_match.min_rate = f64::from(lo);
                    }
                    ui.weak("(0, 0) = no clamp");
                    ui.end_row();
                    ui.label("play rate max");
                    let mut hi = s.speed_match.max_rate as f32;
                    if ui.add(egui::DragValue::new(&mut hi).range(0.0..=10.0).speed(0.01)).changed() {
                        s.speed_match.max_rate = f64::from(hi);
                    }
                    ui.weak("");
                    ui.end_row();
                    ui.label("stride speed source");
                    egui::ComboBox::from_id_salt("stride_source")
                        .selected_text(s.stride.speed_source.as_str())
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut s.stride.speed_source, SpeedSource::CycleAverage, "cycle average (default)");
                            ui.selectable_value(&mut s.stride.speed_source, SpeedSource::PerFrame, "per frame");
                        });
                    ui.weak("").on_hover_text("cycle average: one steady scale from the clip's mean speed; per frame: follows the root speed inside the cycle and oscillates");
                    ui.end_row();
                    setting_row(ui, "min root speed", &mut s.stride.min_root_speed_mps, 0.0..=10.0, " m/s", Some(k));
                    ui.label("scale interpolation");
                    ui.checkbox(&mut s.stride.interpolate_scale, "");
                    ui.weak(format!("{:.0}/s up, {:.0}/s down", s.stride.scale_interp_up, s.stride.scale_interp_down));
                    ui.end_row();
                    ui.label("stride scale clamp");
                    let mut clamp = s.stride.scale_clamp.is_some();
                    if ui.checkbox(&mut clamp, "").changed() {
                        s.stride.scale_clamp = clamp.then_some((0.5, 2.0));
                    }
                    match &mut s.stride.scale_clamp {
                        Some((lo, hi)) => {
                            ui.horizontal_wrapped(|ui| {
                                ui.add(egui::DragValue::new(lo).range(0.01..=*hi).speed(0.01));
                                ui.add(egui::DragValue::new(hi).range(*lo..=10.0).speed(0.01));
                            });
                        }
                        None => {
                            ui.weak("off (default)");
                        }
                    }
                    ui.end_row();
                    setting_row(ui, "scale interp up", &mut s.stride.scale_interp_up, 0.0..=100.0, " /s", None);
                    setting_row(ui, "scale interp down", &mut s.stride.scale_interp_down, 0.0..=100.0, " /s", None);
                    ui.label("floor normal re-orientation");
                    ui.checkbox(&mut s.stride.floor_normal_reorient, "");
                    ui.weak("");
                    ui.end_row();
                    ui.label("pelvis adjustment");
                    ui.checkbox(&mut s.stride.pelvis_adjust, "");
                    ui.weak("");
                    ui.end_row();
                    ui.label("pelvis iterations");
                    ui.add(egui::DragValue::new(&mut s.stride.pelvis_max_iterations).range(1..=10));
                    ui.weak("");
                    ui.end_row();
                    setting_row(ui, "pelvis alpha", &mut s.stride.pelvis_alpha, 0.0..=1.0, "", None);
                    setting_row(ui, "pelvis max offset", &mut s.stride.pelvis_max_offset_m, 0.0..=10.0, " m", Some(k));
                    setting_row(ui, "pelvis tolerance", &mut s.stride.pelvis_tolerance_m, 0.0..=1.0, " m", Some(k));
                    setting_row(ui, "pelvis half-life", &mut s.stride.pelvis_halflife_secs, 0.0..=2.0, " s", None);
                    ui.label("thigh compensation");
                    ui.checkbox(&mut s.stride.thigh_compensation, "");
                    ui.weak("");
                    ui.end_row();
                    ui.label("clamp IK to FK length");
                    ui.checkbox(&mut s.stride.clamp_to_fk_length, "");
                    ui.weak("");
                    ui.end_row();
                    setting_row(ui, "IK soften", &mut s.ik_soften, 0.0..=1.0, "", None);
                    setting_row(ui, "foot lock release", &mut s.foot_lock_release_secs, 0.0..=2.0, " s", None);
                    setting_row(ui, "orientation body share", &mut s.orientation.body_share, 0.0..=1.0, "", None);
                    setting_row(ui, "orientation interp", &mut s.orientation.interp_speed, 0.0..=100.0, " /s", None);
                    setting_row(ui, "skate speed", &mut s.slide.skate_speed_mps, 0.0..=10.0, " m/s", Some(k));
                    ui.label("contact height");
                    ui.weak(format!("{:.0}% of leg", s.contacts.height_fraction * 100.0));
                    ui.weak(format!("= {:.4} m here", s.contacts.height_fraction * p.model().leg_length_or_reference_m()));
                    ui.end_row();
                })
});
            ui.weak(format!(
                "Thresholds in metres are for a {REFERENCE_LEG_LENGTH_M} m human leg; this rig scales them by {k:.4}."
            ));
            if ui.button("Reset to defaults").clicked() {
                s = LocomotionSettings {
                    movement_speed: s.movement_speed,
                    direction_deg: s.direction_deg,
                    ..LocomotionSettings::default()
                };
            }
        });
    super::locomotion_debug::legs_ui(p, ui);
    egui::CollapsingHeader::new("Overlays")
        .id_salt("loco_overlays")
        .default_open(true)
        .show(ui, |ui| {
            let mut flags = p.drive.overlays;
            ui.horizontal_wrapped(|ui| {
                for (name, flag) in flags.flags_mut() {
                    ui.checkbox(flag, name);
                }
            });
            if flags != p.drive.overlays {
                p.set_view(crate::controller::ViewCommand::LocomotionOverlays(flags));
            }
        });
    if s != before {
        p.set_locomotion_settings(s);
    }
    // Play rate vs stride scale over time.
    if let Some(g) = p.graph() {
        if g.locomotion.is_some() {
            let rate: Vec<[f64; 2]> = g
                .locomotion_history()
                .map(|x| [x.wall_secs, x.play_rate])
                .collect();
            let stride: Vec<[f64; 2]> = g
                .locomotion_history()
                .map(|x| [x.wall_secs, f64::from(x.stride_scale)])
                .collect();
            ui.label("Split: play rate vs stride scale");
            super::plot::legend_row_ui(ui, &[("play rate", RATE), ("stride scale", STRIDE)]);
            Plot::new("loco_split")
                .height(130.0)
                .allow_scroll(false)
                .include_y(0.5)
                .include_y(1.5)
                .x_axis_label("wall time (s)")
                .show(ui, |plot| {
                    plot.hline(HLine::new("1", 1.0).color(Color32::from_gray(90)));
                    plot.line(Line::new("play rate", PlotPoints::from(rate)).color(RATE));
                    plot.line(Line::new("stride scale", PlotPoints::from(stride)).color(STRIDE));
                });
        }
    }
}
