//! The root-motion panel: per-cycle numbers and a plot of the root's speed along the
//! travel direction over the clip (m/s against clip time, the same curve whatever the
//! frame rate), with played frames that moved against the direction of play marked in red
//! (a loop-wrap bug shows up there at once as a big negative spike); an in-place clip
//! shows the speed its feet imply instead.

use egui::Color32;
use egui_plot::{
    uniform_grid_spacer, GridInput, GridMark, HLine, Line, Plot, PlotPoints, Points, VLine,
};

use super::Previewer;

/// The smallest of ..., 0.1, 0.2, 0.5, 1, 2, 5, 10, ... that is at least `min` (> 0,
/// finite): the time axes' grid steps and the scrub bar's frame ticks.
pub(super) fn step_125(min: f64) -> f64 {
    let decade = 10f64.powf(min.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|s| *s >= min * (1.0 - 1e-9))
        .unwrap_or(10.0 * decade)
}

/// Grid steps for a time axis, each the next 1-2-5 value: the thinnest at least the
/// plot's smallest line spacing (`base_step_size`, 8 points), then 3 times it, then 7.6
/// times it, since the plot labels only steps more than 60 points apart. Its default
/// steps are powers of 10, so a 3-10 s clip on a panel-wide plot was labelled only at 0
/// (1 s too dense to label, 10 s past the clip's end).
pub(super) fn time_steps(input: GridInput) -> [f64; 3] {
    let base = input.base_step_size;
    if !(base.is_finite() && base > 0.0) {
        return [1.0, 2.0, 5.0];
    }
    [step_125(base), step_125(base * 3.0), step_125(base * 7.6)]
}

/// [`time_steps`] as a plot's grid spacer.
pub(super) fn time_grid_spacer() -> impl Fn(GridInput) -> Vec<GridMark> {
    uniform_grid_spacer(time_steps)
}

pub(super) fn root_motion_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    ui.heading("Root motion");
    if p.matching().is_some() {
        ui.weak("Motion matching moves the root: see the Motion matching panel.");
        return;
    }
    if let Some(g) = p.graph() {
        blended_root_motion_ui(g, p.is_driving(), ui);
        return;
    }
    match p.stage.main.timeline.root_motion() {
        Some(root) => {
            let d = root.motion.cycle_displacement();
            let name = &p.model().skeleton.names()[root.source.joint];
            // One wrapped line per figure: a table cut the world position at the edge.
            let line = |ui: &mut egui::Ui, text: String| ui.add(egui::Label::new(text).wrap());
            line(ui, format!("joint: {name}"));
            line(
                ui,
                format!(
                    "per cycle: {:.3} m, yaw {:.1}°",
                    d.translation.length(),
                    d.yaw_rad.to_degrees()
                ),
            );
            line(
                ui,
                format!(
                    "average speed: {:.3} m/s",
                    d.translation.length() / root.motion.duration_secs()
                ),
            );
            let w = p.stage.main.timeline.world_from_root();
            line(
                ui,
                format!(
                    "world: x {:.3}  z {:.3} m, yaw {:.1}°",
                    w.translation.x,
                    w.translation.y,
                    w.yaw_rad.to_degrees()
                ),
            );
        }
        None => {
            // Say why from the clip's analysis: an in-place clip's root may well be
            // animated (its seam drift is not root motion).
            let analysis = p
                .stage
                .main
                .timeline
                .clip()
                .map(|i| p.model().clip_analysis(i));
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
                _ if p.stage.main.timeline.clip().is_none() => {
                    ui.weak("No clip.");
                }
                _ if p
                    .stage
                    .main
                    .timeline
                    .clip()
                    .and_then(|i| p.model().clips.get(i))
                    .is_some_and(|c| c.duration_secs() <= 0.0) =>
                {
                    ui.weak("A zero-length take (a single pose): no root motion.");
                }
                _ => {
                    ui.weak("This clip has no root motion (no joint translation is animated).");
                }
            }
        }
    }
    ui.separator();
    root_speed_plot_ui(p, ui);
}

/// Samples of the root-speed curve over one cycle.
const SPEED_SAMPLES: usize = 120;

/// The root's speed along its travel over the clip's cycle (central differences of the
/// wrap-safe root motion, so the seam is measured like any other instant), the mean, the
/// playhead, and played frames that went against the direction of play; for a clip
/// played in place, the speed its planted feet imply.
fn root_speed_plot_ui(p: &Previewer, ui: &mut egui::Ui) {
    let Some(clip) = p.stage.main.timeline.clip() else {
        return;
    };
    let duration = f64::from(p.model().clips[clip].duration_secs());
    if duration <= 0.0 {
        return;
    }
    let playhead = p.stage.main.timeline.phase_secs();
    let mut curve: Vec<[f64; 2]> = Vec::new();
    let mut mean = None;
    if let Some(root) = p.stage.main.timeline.root_motion() {
        let cycle = root.motion.cycle_displacement().translation;
        // Along the cycle's travel; a clip that ends where it started (a turn on the
        // spot) is measured along +Z.
        let dir = if cycle.length() > 1e-9 {
            cycle.normalize()
        } else {
            glam::DVec2::Y
        };
        let h = duration / (2.0 * SPEED_SAMPLES as f64);
        for k in 0..=SPEED_SAMPLES {
            let t = duration * k as f64 / SPEED_SAMPLES as f64;
            if let Ok(d) = root.motion.delta_secs(t - h, t + h) {
                // The delta is in the root's frame at t - h: close enough to the travel
                // frame for a speed (the yaw over 2h is tiny).
                curve.push([t, d.translation.dot(dir) / (2.0 * h)]);
            }
        }
        mean = Some(cycle.length() / duration);
    }
    let analysis = p.model().clip_analysis(clip).ok();
    let implied = analysis
        .as_ref()
        .filter(|a| a.in_place.in_place || p.stage.main.timeline.root_motion().is_none())
        .and_then(|a| a.implied.as_ref())
        .map(|i| f64::from(i.speed));
    // Played frames against the direction of play, as speeds at their phase.
    let backwards: Vec<[f64; 2]> = p
        .stage
        .main
        .timeline
        .displacement()
        .zip(p.stage.main.timeline.displacement().skip(1))
        .filter(|(_, b)| b.against_play)
        .filter_map(|(a, b)| {
            let dt = (b.time_secs - a.time_secs).abs();
            (dt > 1e-9).then(|| [b.time_secs.rem_euclid(duration), b.along_m / dt])
        })
        .collect();
    ui.label(match (mean, implied) {
        (Some(m), _) => format!("Root speed along travel (m/s), mean {m:.3}"),
        (None, Some(v)) => format!("In place: the feet imply {v:.3} m/s"),
        (None, None) => "Root speed (m/s): no root motion, and the feet imply none (none planted, or standing still)".to_string(),
    });
    if !backwards.is_empty() {
        ui.colored_label(
            Color32::from_rgb(255, 90, 80),
            format!(
                "{} played frame(s) moved against the direction of play",
                backwards.len()
            ),
        );
    }
    Plot::new("root_speed")
        .height(ui.available_height().max(120.0))
        .allow_scroll(false)
        .x_axis_label("clip time (s)")
        .x_grid_spacer(time_grid_spacer())
        .y_axis_label("m/s")
        .include_x(0.0)
        .include_x(duration)
        .include_y(0.0)
        .show(ui, |plot| {
            plot.hline(HLine::new("zero", 0.0).color(Color32::from_gray(110)));
            if let Some(m) = mean {
                plot.hline(HLine::new("mean", m).color(Color32::from_rgb(90, 140, 240)));
            }
            if let Some(v) = implied {
                plot.hline(
                    HLine::new("implied by the feet", v).color(Color32::from_rgb(230, 170, 80)),
                );
            }
            if !curve.is_empty() {
                plot.line(
                    Line::new("root speed", PlotPoints::from(curve))
                        .color(Color32::from_rgb(120, 200, 140)),
                );
            }
            plot.vline(VLine::new("playhead", playhead).color(Color32::from_rgb(240, 70, 70)));
            if !backwards.is_empty() {
                plot.points(
                    Points::new("against play", PlotPoints::from(backwards))
                        .color(Color32::from_rgb(255, 60, 50))
                        .radius(3.0),
                );
            }
        });
}

/// With the pose graph: the blended root motion's world position and its horizontal speed
/// per played frame (walk -> run fades show as a smooth rise).
fn blended_root_motion_ui(
    g: &crate::stage::session::GraphSession,
    driving: bool,
    ui: &mut egui::Ui,
) {
    let w = g.world_from_root();
    // Driving, the locomotion stage moves the root at the movement speed and direction.
    let how = if driving {
        "moved by Drive at the movement speed"
    } else {
        "blended from the inputs' own deltas"
    };
    ui.label(format!(
        "{how}; world x {:.3} z {:.3} m, yaw {:.1}°",
        w.translation.x,
        w.translation.y,
        w.yaw_rad.to_degrees()
    ));
    let speeds: Vec<[f64; 2]> = g.speed_history().map(|(t, v)| [t, v]).collect();
    ui.label(if driving {
        "Driven root speed (m/s)"
    } else {
        "Blended root speed (m/s)"
    });
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

/// A small plot's legend as a row of coloured names above it (wrapped to the panel):
/// egui_plot's legend sits inside the plot, where it covered a third of a 100-point plot.
pub(super) fn legend_row_ui(ui: &mut egui::Ui, items: &[(&str, Color32)]) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        for (i, (name, color)) in items.iter().enumerate() {
            if i > 0 {
                ui.add_space(6.0);
            }
            let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 10.0), egui::Sense::hover());
            ui.painter().line_segment(
                [rect.left_center(), rect.right_center()],
                egui::Stroke::new(2.5, *color),
            );
            ui.label(egui::RichText::new(*name).small());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(base_step_size: f64) -> [f64; 3] {
        time_steps(GridInput {
            bounds: (0.0, 10.0),
            base_step_size,
        })
    }

    #[test]
    fn time_axis_steps_go_one_two_five() {
        // A 9 s clip on a 250-point plot: 8 points are 0.3 s; labels every 5 s.
        assert_eq!(steps(0.3), [0.5, 1.0, 5.0]);
        assert_eq!(steps(0.1), [0.1, 0.5, 1.0]);
        assert_eq!(steps(1.3), [2.0, 5.0, 10.0]);
        assert_eq!(steps(0.004), [0.005, 0.02, 0.05]);
        assert_eq!(steps(7.0), [10.0, 50.0, 100.0]);
        assert_eq!(steps(0.0), [1.0, 2.0, 5.0]);
    }
}
