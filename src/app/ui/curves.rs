//! The curve view: the selected and pinned joints' channels over the timeline's clip, one
//! plot per unit (metres, degrees, quaternion, scale), keys marked, a click seeks.

use super::inspect::{AXIS, CURVE_SAMPLES, SCALE, TRANSLATION};
use super::palette::WARN;
use super::Previewer;
use crate::anim::curves::EulerOrder;
use crate::controller::{Transport, ViewCommand};
use egui::Color32;
use egui_plot::{Line, Plot, PlotPoints, Points, VLine};

/// The curve view of the selected and pinned joints over the timeline's clip.
pub(super) fn curves_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        ui.strong("Curves");
        let mut c = p.inspect.channels;
        ui.checkbox(&mut c.translation, "translation");
        ui.checkbox(&mut c.euler, "rotation (Euler)");
        ui.checkbox(&mut c.quaternion, "quaternion");
        ui.checkbox(&mut c.scale, "scale");
        if c != p.inspect.channels {
            p.set_view(ViewCommand::CurveChannels(c));
        }
        let mut order = p.inspect.euler_order;
        egui::ComboBox::new("euler_order", "order")
            .selected_text(order.label())
            .show_ui(ui, |ui| {
                for o in EulerOrder::ALL {
                    ui.selectable_value(&mut order, o, o.label());
                }
            });
        if order != p.inspect.euler_order {
            p.set_view(ViewCommand::EulerOrder(order));
        }
    });
    if let Some(step) = p.timeline_hidden_by() {
        ui.weak(format!("The curve view shows the timeline's clip: {step}."));
        return;
    }
    let Some(clip_index) = p.stage.main.timeline.clip() else {
        ui.weak("No clip.");
        return;
    };
    let mut joints: Vec<usize> = p.inspect.pinned.clone();
    if let Some(j) = p.inspect.selected {
        if !joints.contains(&j) {
            joints.push(j);
        }
    }
    if joints.is_empty() {
        ui.weak(
            "Select a joint (outliner, seam table or a click in the viewport) to see its curves.",
        );
        return;
    }
    let clip = &p.stage.main.model.clips[clip_index];
    let duration = f64::from(clip.duration_secs());
    let channels = p.inspect.channels;
    let order = p.inspect.euler_order;
    let curves = p
        .inspect
        .curves(&p.stage.main.model, clip_index, &joints, CURVE_SAMPLES);
    let names = p.stage.main.model.skeleton.names();
    // Translations in metres (see `joint_details_ui`).
    let scales: Vec<glam::Vec3> = curves
        .iter()
        .map(|(j, _)| crate::stage::inspect::parent_scale(&p.stage.main.model, *j))
        .collect();
    let playhead = p.stage.main.timeline.phase_secs();
    // One plot per unit, stacked, their time axes linked: degrees and metres never share
    // an axis (a 30-degree swing flattened a 2 cm bob), and each plot says its unit.
    let groups: Vec<CurveGroup> = [
        (channels.translation, CurveGroup::Translation),
        (channels.euler, CurveGroup::Rotation),
        (channels.quaternion, CurveGroup::Quaternion),
        (channels.scale, CurveGroup::Scale),
    ]
    .into_iter()
    .filter_map(|(on, g)| on.then_some(g))
    .collect();
    if groups.is_empty() {
        ui.weak("Tick a channel above to plot it.");
        return;
    }
    // The legend above the plots (inside, it covered them): each channel's colour, and
    // the joints when several are pinned (their curves share the colours; hover one).
    let mut legend: Vec<(String, Color32)> = Vec::new();
    let axes = ["x", "y", "z", "w"];
    for group in &groups {
        match group {
            CurveGroup::Translation => {
                legend.extend((0..3).map(|k| (format!("t{}", axes[k]), TRANSLATION[k])))
            }
            CurveGroup::Rotation => legend.extend(
                order.axes()[..3]
                    .iter()
                    .map(|&a| (format!("r{}", axes[a]), AXIS[a])),
            ),
            CurveGroup::Quaternion => {
                legend.extend((0..4).map(|k| (format!("q{}", axes[k]), AXIS[k])))
            }
            CurveGroup::Scale => legend.extend((0..3).map(|k| (format!("s{}", axes[k]), SCALE[k]))),
        }
    }
    let mut items: Vec<(&str, Color32)> = legend.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    items.push(("playhead", Color32::from_rgb(240, 70, 70)));
    items.push(("loop seam", WARN));
    super::plot::legend_row_ui(ui, &items);
    if curves.len() > 1 {
        let joints: Vec<&str> = curves.iter().map(|(j, _)| names[*j].as_str()).collect();
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!(
                    "{} (hover a curve for its joint)",
                    joints.join(", ")
                ))
                .small()
                .weak(),
            )
            .wrap(),
        );
    }
    // Side by side: the curve view is a wide, short strip.
    let height = ui.available_height().max(60.0);
    let width = ((ui.available_width() - 8.0 * (groups.len() as f32 - 1.0)) / groups.len() as f32)
        .max(120.0);
    let mut seek = None;
    ui.horizontal(|ui| {
        for group in &groups {
            let response = Plot::new(("curve_view", group.title()))
                .height(height)
                .width(width)
                .allow_scroll(false)
                .link_axis(egui::Id::unique("curve_view_time"), [true, false])
                .link_cursor(egui::Id::unique("curve_view_time"), [true, false])
                .x_axis_label("clip time (s)")
                .x_grid_spacer(super::plot::time_grid_spacer())
                .y_axis_label(group.title())
                .include_x(0.0)
                .include_x(duration)
                .show(ui, |plot| {
                    for ((j, c), scale) in curves.iter().zip(&scales) {
                        let name = &names[*j];
                        let mut series =
                            |label: &str,
                             values: &[f32],
                             color: Color32,
                             keys: Option<&Vec<f32>>| {
                                let pts: Vec<[f64; 2]> = c
                                    .times
                                    .iter()
                                    .zip(values)
                                    .map(|(&t, &v)| [f64::from(t), f64::from(v)])
                                    .collect();
                                let key_pts: Vec<[f64; 2]> = keys
                                    .map(|k| {
                                        c.times
                                            .iter()
                                            .zip(values)
                                            .filter(|(t, _)| {
                                                k.binary_search_by(|x| x.total_cmp(t)).is_ok()
                                            })
                                            .map(|(&t, &v)| [f64::from(t), f64::from(v)])
                                            .collect()
                                    })
                                    .unwrap_or_default();
                                let full = format!("{name} {label}");
                                plot.line(
                                    Line::new(full.as_str(), PlotPoints::from(pts)).color(color),
                                );
                                if !key_pts.is_empty() {
                                    plot.points(
                                        Points::new(full.as_str(), PlotPoints::from(key_pts))
                                            .color(color)
                                            .radius(2.0),
                                    );
                                }
                            };
                        let axes = ["x", "y", "z", "w"];
                        match group {
                            CurveGroup::Translation => {
                                for k in 0..3 {
                                    let metres: Vec<f32> =
                                        c.translation[k].iter().map(|v| v * scale[k]).collect();
                                    series(
                                        &format!("t{}", axes[k]),
                                        &metres,
                                        TRANSLATION[k],
                                        c.translation_keys.as_ref(),
                                    );
                                }
                            }
                            CurveGroup::Rotation => {
                                for k in 0..3 {
                                    let axis = order.axes()[k];
                                    series(
                                        &format!("r{}", axes[axis]),
                                        &c.euler_deg[k],
                                        AXIS[axis],
                                        c.rotation_keys.as_ref(),
                                    );
                                }
                            }
                            CurveGroup::Quaternion => {
                                for k in 0..4 {
                                    series(
                                        &format!("q{}", axes[k]),
                                        &c.quaternion[k],
                                        AXIS[k],
                                        c.rotation_keys.as_ref(),
                                    );
                                }
                            }
                            CurveGroup::Scale => {
                                for k in 0..3 {
                                    series(
                                        &format!("s{}", axes[k]),
                                        &c.scale[k],
                                        SCALE[k],
                                        c.scale_keys.as_ref(),
                                    );
                                }
                            }
                        }
                    }
                    plot.vline(
                        VLine::new("playhead", playhead).color(Color32::from_rgb(240, 70, 70)),
                    );
                    plot.vline(VLine::new("loop seam", duration).color(WARN).width(1.5));
                });
            let title = format!("Curve view: {}", group.title());
            response
                .response
                .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, &title));
            if response.response.clicked() {
                if let Some(pos) = response.response.interact_pointer_pos() {
                    seek = Some(response.transform.value_from_position(pos).x);
                }
            }
        }
    });
    if let Some(x) = seek {
        // A seek within the current cycle (no root motion), like the scrub bar.
        let cycle_start = p.stage.main.timeline.time_secs() - p.stage.main.timeline.phase_secs();
        let phase = x.clamp(0.0, duration * (1.0 - 1e-9));
        p.transport(Transport::Play(false));
        p.transport(Transport::Seek(cycle_start + phase));
        p.evaluate_pose();
    }
}

/// One plot of the curve view: channels sharing a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CurveGroup {
    Translation,
    Rotation,
    Quaternion,
    Scale,
}

impl CurveGroup {
    fn title(self) -> &'static str {
        match self {
            Self::Translation => "translation (m)",
            Self::Rotation => "rotation (deg)",
            Self::Quaternion => "quaternion",
            Self::Scale => "scale",
        }
    }
}
