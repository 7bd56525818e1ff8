//! The root-motion panel: per-cycle numbers and a plot of each played frame's displacement
//! along the travel direction, with backward frames marked in red (a loop-wrap bug shows
//! up there at once as a big negative spike).

use egui::Color32;
use egui_plot::{HLine, Line, Plot, PlotPoints, Points};

use super::Previewer;

pub(super) fn root_motion_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    ui.heading("Root motion");
    if let Some(g) = &p.graph {
        blended_root_motion_ui(g, ui);
        return;
    }
    match p.timeline.root_motion() {
        Some(root) => {
            let d = root.motion.cycle_displacement();
            let name = &p.model().skeleton.names()[root.source.joint];
            egui::Grid::new("root_motion_numbers")
                .num_columns(2)
                .show(ui, |ui| {
                    ui.label("joint");
                    ui.label(name);
                    ui.end_row();
                    ui.label("per cycle");
                    ui.label(format!(
                        "{:.3} m, yaw {:.1}°",
                        d.translation.length(),
                        d.yaw_rad.to_degrees()
                    ));
                    ui.end_row();
                    ui.label("average speed");
                    ui.label(format!(
                        "{:.3} m/s",
                        d.translation.length() / root.motion.duration_secs()
                    ));
                    ui.end_row();
                    let w = p.timeline.world_from_root();
                    ui.label("world");
                    ui.label(format!(
                        "x {:.3}  z {:.3} m, yaw {:.1}°",
                        w.translation.x,
                        w.translation.y,
                        w.yaw_rad.to_degrees()
                    ));
                    ui.end_row();
                });
        }
        None => {
            // Say why from the clip's analysis: an in-place clip's root may well be
            // animated (its seam drift is not root motion).
            let analysis = p.timeline.clip().map(|i| p.model().clip_analysis(i));
            match analysis {
                Some(Ok(a)) if a.extracted_root.is_some() => {
                    ui.weak(format!(
                        "Played in place, without root motion: {}. Override it with the clip-motion choice beside Drive.",
                        a.in_place.reason
                    ));
                }
                Some(Err(e)) => {
                    ui.weak(format!("No root motion: {e}"));
                }
                _ => {
                    ui.weak("This clip has no root motion (no joint translation is animated).");
                }
            }
        }
    }
    ui.separator();
    let samples: Vec<[f64; 2]> = p
        .timeline
        .displacement()
        .map(|s| [s.time_secs, s.along_m])
        .collect();
    let backwards: Vec<[f64; 2]> = p
        .timeline
        .displacement()
        .filter(|s| s.against_play)
        .map(|s| [s.time_secs, s.along_m])
        .collect();
    ui.label("Per-frame displacement along travel (m)");
    if !backwards.is_empty() {
        ui.colored_label(
            Color32::from_rgb(255, 90, 80),
            format!(
                "{} frame(s) moved against the direction of play",
                backwards.len()
            ),
        );
    }
    Plot::new("root_displacement")
        .height(ui.available_height().max(120.0))
        .allow_scroll(false)
        .x_axis_label("clip time (s, unwrapped)")
        // A flat line stays flat: never zoom into rounding noise.
        .include_y(-0.01)
        .include_y(0.01)
        .show(ui, |plot| {
            plot.hline(HLine::new("zero", 0.0).color(Color32::from_gray(110)));
            plot.line(
                Line::new("displacement", PlotPoints::from(samples))
                    .color(Color32::from_rgb(120, 200, 140)),
            );
            if !backwards.is_empty() {
                plot.points(
                    Points::new("backwards", PlotPoints::from(backwards))
                        .color(Color32::from_rgb(255, 60, 50))
                        .radius(3.0),
                );
            }
        });
}

/// With the pose graph: the blended root motion's world position and its horizontal speed
/// per played frame (walk -> run fades show as a smooth rise).
fn blended_root_motion_ui(g: &crate::graph::session::GraphSession, ui: &mut egui::Ui) {
    let w = g.world_from_root();
    ui.label(format!(
        "blended from the inputs' own deltas; world x {:.3} z {:.3} m, yaw {:.1}°",
        w.translation.x,
        w.translation.y,
        w.yaw_rad.to_degrees()
    ));
    let speeds: Vec<[f64; 2]> = g.speed_history().map(|(t, v)| [t, v]).collect();
    ui.label("Blended root speed (m/s)");
    Plot::new("blended_speed")
        .height(ui.available_height().max(120.0))
        .allow_scroll(false)
        .x_axis_label("wall time (s)")
        .include_y(0.0)
        .show(ui, |plot| {
            plot.line(
                Line::new("speed", PlotPoints::from(speeds))
                    .color(Color32::from_rgb(120, 200, 140)),
            );
        });
}
