//! The Blend panel: the pose graph's parameters, the state machine as a graph view (states,
//! transitions, the active one and its progress), every input with its clip time and
//! weight, the phase-cancellation warning, and the 2D blend-space widget. It draws the
//! previewer's [`GraphSession`](crate::stage::session::GraphSession) and calls its
//! methods; no state of its own.

use egui::{Color32, Pos2, Sense, Stroke, Vec2};

use super::graph_view::{blend_space_2d_ui, state_machine_ui};
use super::palette::WARN;
use super::Previewer;
use crate::controller::StageCommand;
use crate::graph::def::{NodeDef, ParamDef};
use crate::stage::session::GraphSession;

pub(super) fn blend_panel_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    ui.heading("Pose graph");
    // Driving one clip plays it through a one-clip graph: that is not the file's graph.
    let mut on = p.graph().is_some() && !p.source().is_drive_only();
    if ui
        .checkbox(&mut on, "Play through the pose graph")
        .on_hover_text("The file's default graph: the demo's Idle / Walk / Run state machine with the Wave layer, or one state per clip")
        .changed()
    {
        p.set_graph_enabled(on);
    }
    if p.source().is_drive_only() {
        ui.weak("Off: Drive plays the selected clip.");
        return;
    }
    let held_warning = p
        .recent_phase_warning()
        .map(|(t, ago)| (t.to_string(), ago));
    if p.graph().is_none() {
        ui.weak(if p.matching().is_some() {
            "Off: motion matching drives the character (M turns it off)."
        } else {
            "Off: the timeline plays the selected clip."
        });
        two_clip_blend_ui(p, ui);
        additive_layer_ui(p, ui);
        return;
    }
    let Some(session) = p.graph() else {
        return;
    };
    let model = p.model();
    let mut commands = Vec::new();
    // Parameters.
    ui.separator();
    ui.strong("Parameters");
    let defs = session.graph.def().params.clone();
    // Rails as wide as the panel leaves beside the value and the longest name.
    let longest = defs.iter().map(|d| d.name().len()).max().unwrap_or(0);
    super::fit_sliders(ui, 7.0 * longest as f32);
    for def in &defs {
        match def {
            ParamDef::Float { name, min, max, .. } => {
                let mut v = session.graph.params().get_float(name).unwrap_or(0.0);
                let range = min.unwrap_or(0.0)..=max.unwrap_or(1.0);
                if ui
                    .add(egui::Slider::new(&mut v, range).text(name.as_str()))
                    .changed()
                {
                    commands.push(StageCommand::GraphFloat {
                        name: name.clone(),
                        value: v,
                    });
                }
            }
            ParamDef::Bool { name, .. } => {
                let mut v = session.graph.params().get_bool(name).unwrap_or(false);
                if ui.checkbox(&mut v, name.as_str()).changed() {
                    commands.push(StageCommand::GraphBool {
                        name: name.clone(),
                        value: v,
                    });
                }
            }
        }
    }
    if defs.is_empty() {
        ui.weak("This graph has no parameters.");
    }
    // State machine.
    if session.graph.state_machine().is_some() {
        ui.separator();
        ui.strong("State machine");
        if let Some(state) = state_machine_ui(session, ui) {
            commands.push(StageCommand::GraphTravel {
                state,
                blend_secs: 0.3,
            });
        }
    }
    // Inputs.
    ui.separator();
    ui.strong("Inputs");
    inputs_ui(session, model, ui);
    // Phase.
    ui.separator();
    match session.graph.phase_report() {
        Some(r) => {
            let text = format!(
                "Leg swing: {:.1} deg blended of {:.1} deg ({:.0}% drop)",
                r.blend_amplitude_deg,
                r.input_amplitude_deg,
                r.amplitude_drop * 100.0
            );
            if r.warning {
                ui.colored_label(WARN, format!("Phase cancellation! {text}"))
                    .on_hover_text("The blended inputs are out of phase (e.g. left foot down against right foot down): turn sync on or change the phase offset. View > Messages lists every warning.");
            } else {
                ui.label(text);
            }
        }
        None => {
            ui.weak("Phase: one input (nothing to cancel).");
        }
    }
    // A warning that just stopped (a short cross-fade) stays up for a moment.
    if let Some((_, ago)) = held_warning.filter(|(_, ago)| *ago > 0.0) {
        ui.colored_label(WARN, format!("Phase cancellation {ago:.1} s ago"))
            .on_hover_text("The blended inputs were out of phase (e.g. left foot down against right foot down): turn sync on or change the phase offset. View > Messages lists every warning.");
    }
    for note in session.graph.sync_notes() {
        ui.weak(note);
    }
    swing_plot_ui(session, model, ui);
    // Blend-space samples with their positions (default: each clip's root speed).
    let samples = session.graph.blend_space_samples(model);
    if !samples.is_empty() {
        ui.separator();
        ui.strong("Blend space samples");
        for (clip, pos) in &samples {
            if pos.y == 0.0 {
                ui.label(format!("{clip}: {:.2} m/s", pos.x));
            } else {
                ui.label(format!(
                    "{clip}: ({:.2}, {:.2}) m/s  |v| {:.2}",
                    pos.x,
                    pos.y,
                    pos.length()
                ));
            }
        }
    }
    // 2D blend space.
    let space = session
        .graph
        .blend_space_2d()
        .map(|(s, q, w)| (s.clone(), q.cloned(), w.to_vec()));
    if let Some((space, query, weights)) = space {
        ui.separator();
        ui.strong("2D blend space");
        let (x, y) = blend_space_params(session);
        let mut q = glam::Vec2::new(
            session.graph.params().get_float(&x).unwrap_or(0.0),
            session.graph.params().get_float(&y).unwrap_or(0.0),
        );
        if blend_space_2d_ui(ui, &space, query.as_ref(), &weights, &mut q) {
            commands.push(StageCommand::GraphFloat {
                name: x,
                value: q.x,
            });
            commands.push(StageCommand::GraphFloat {
                name: y,
                value: q.y,
            });
        }
    }
    if let Some(e) = session.error() {
        ui.colored_label(Color32::from_rgb(255, 110, 100), e);
    }
    for command in commands {
        p.send(command);
    }
}

/// The parameter names of the 2D blend space in use.
fn blend_space_params(session: &GraphSession) -> (String, String) {
    let node = match &session.graph.def().base {
        NodeDef::StateMachine { machine, .. } => session
            .graph
            .state_machine()
            .map(|sm| &machine.states[sm.current()].node),
        other => Some(other),
    };
    match node {
        Some(NodeDef::BlendSpace2D { x, y, .. }) => (x.clone(), y.clone()),
        _ => (String::new(), String::new()),
    }
}

fn inputs_ui(session: &GraphSession, model: &crate::asset::Model, ui: &mut egui::Ui) {
    super::sideways_ui(ui, "graph_inputs_sideways", |ui| {
        egui::Grid::new("graph_inputs")
            .num_columns(4)
            .striped(true)
            .show(ui, |ui| {
                for s in session.graph.status(model) {
                    let name = match &s.owner {
                        Some(o) if *o != s.clip => format!("{} ({o})", s.clip),
                        _ => s.clip.clone(),
                    };
                    ui.label(name);
                    ui.label(format!("{:.3} s", s.time_secs));
                    ui.add(
                        egui::ProgressBar::new(s.weight.clamp(0.0, 1.0))
                            .desired_width(80.0)
                            .text(format!("{:.2}", s.weight)),
                    );
                    if s.markers_detected {
                        ui.weak("markers detected");
                    } else {
                        ui.label("");
                    }
                    ui.end_row();
                }
            })
    });
}

/// The timeline while the pose graph plays: transport, a scrub bar for the leading input
/// (dragging it is a seek: every input moves to the matching phase, no root motion), and
/// one row per input with its clip time, markers and weight.
pub(super) fn graph_timeline_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(session) = p.graph() else {
        return;
    };
    let model = p.model();
    let mut commands = Vec::new();
    ui.add_space(4.0);
    ui.horizontal(|ui| {
        let label = if session.playing { "Pause" } else { "Play" };
        if ui
            .button(label)
            .on_hover_text("Play / pause (Space)")
            .clicked()
        {
            commands.push(StageCommand::GraphPlaying(!session.playing));
        }
        if ui
            .button("Restart")
            .on_hover_text("Back to the origin, every clock to 0")
            .clicked()
        {
            commands.push(StageCommand::GraphRestart);
        }
        ui.separator();
        let mut rate = session.graph.rate();
        if ui
            .add(
                egui::DragValue::new(&mut rate)
                    .speed(0.01)
                    .range(-4.0..=4.0)
                    .prefix("rate "),
            )
            .changed()
        {
            commands.push(StageCommand::GraphRate(rate));
        }
        ui.separator();
        let world = session.world_from_root();
        ui.label(format!(
            "root x {:.2}  z {:.2} m",
            world.translation.x, world.translation.y
        ));
        if let Some(v) = session.last_speed() {
            ui.label(format!("speed {v:.2} m/s"));
        }
    });
    // Scrub bar for the leader.
    let leader = session.graph.leader();
    let duration = leader.duration_secs();
    let leader_name = model.clips[leader.clip].name().to_string();
    let mut t = leader.clock.time().phase_secs;
    ui.horizontal(|ui| {
        ui.label(format!("{leader_name} (leads)"));
        let slider = egui::Slider::new(&mut t, 0.0..=duration.max(1e-3))
            .show_value(true)
            .suffix(" s");
        if ui.add(slider).changed() {
            let cycle = session.graph.leader().clock.time().cycle as f64;
            commands.push(StageCommand::GraphSeek(
                cycle * duration + t.min(duration - 1e-6).max(0.0),
            ));
        }
    });
    // One row per input.
    let rows = session.graph.status(model);
    let players = session.graph.players();
    for s in rows {
        ui.horizontal(|ui| {
            let name = match &s.owner {
                Some(o) if *o != s.clip => format!("{} ({o})", s.clip),
                _ => s.clip.clone(),
            };
            ui.add_sized([150.0, 16.0], egui::Label::new(name).truncate());
            let width = (ui.available_width() - 90.0).max(60.0);
            let (rect, _) = ui.allocate_exact_size(Vec2::new(width, 12.0), Sense::hover());
            let painter = ui.painter_at(rect);
            painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
            // Markers of this input's clip.
            if let Some(player) = players.get(s.player) {
                let d = player.duration_secs().max(1e-6);
                for m in &player.markers {
                    let x = rect.left() + rect.width() * (m.time_secs as f64 / d) as f32;
                    let color = if m.name.starts_with("left") {
                        Color32::from_rgb(80, 150, 255)
                    } else {
                        Color32::from_rgb(255, 150, 60)
                    };
                    let down = m.name.ends_with("down");
                    let c = Pos2::new(x, rect.center().y);
                    if down {
                        painter.circle_filled(c, 3.0, color);
                    } else {
                        painter.circle_stroke(c, 3.0, Stroke::new(1.0, color));
                    }
                }
            }
            let x = rect.left() + rect.width() * s.phase as f32;
            painter.line_segment(
                [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
                Stroke::new(2.0, Color32::WHITE),
            );
            ui.label(format!("{:.3} s  w {:.2}", s.time_secs, s.weight));
        });
    }
    ui.add_space(4.0);
    for command in commands {
        p.send(command);
    }
}

/// The clips the pickers offer: the clip list's, in its order (hidden clips and empty
/// takes only with "Show hidden"), so a file's hidden `(internal)` take is never picked
/// for the user.
fn pickable_clips(p: &Previewer) -> Vec<usize> {
    p.stage.main.model.listed_clips(p.show_hidden_clips())
}

/// The first clip after `clip` in `listed` (wrapping) that is not `clip`, preferring one
/// that animates; `clip` itself when it is the only one.
fn next_pickable(p: &Previewer, listed: &[usize], clip: usize) -> usize {
    let at = listed
        .iter()
        .position(|&i| i == clip)
        .unwrap_or(listed.len());
    let after: Vec<usize> = (1..=listed.len())
        .map(|k| listed[(at + k) % listed.len()])
        .filter(|&i| i != clip)
        .collect();
    let clips = &p.stage.main.model.clips;
    after
        .iter()
        .copied()
        .find(|&i| clips[i].emptiness().is_none())
        .or(after.first().copied())
        .unwrap_or(clip)
}

/// "Blend two clips": pick A and B and start a blend held at any weight (the weight is
/// then a slider among the graph's parameters).
fn two_clip_blend_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let n = p.stage.main.model.clips.len();
    let listed = pickable_clips(p);
    // The listed clips are some of the model's: fewer than two listed, no pair to blend.
    if listed.len() < 2 {
        return;
    }
    let id = egui::Id::unique("two_clip_pick");
    let (mut a, mut b): (usize, usize) = ui.data(|d| d.get_temp(id)).unwrap_or_else(|| {
        let a = p.stage.main.timeline.clip().unwrap_or(listed[0]);
        (a, next_pickable(p, &listed, a))
    });
    let (a_was, b_was) = (a, b);
    let mut go = false;
    ui.horizontal_wrapped(|ui| {
        ui.label("Two clips:");
        for (salt, pick, name) in [
            ("two_clip_a", &mut a, "first clip to blend"),
            ("two_clip_b", &mut b, "second clip to blend"),
        ] {
            if salt == "two_clip_b" {
                ui.label("with");
            }
            let r = egui::ComboBox::from_id_salt(salt)
                .selected_text(p.stage.main.model.clips[(*pick).min(n - 1)].name())
                .show_ui(ui, |ui| {
                    for &i in &listed {
                        ui.selectable_value(pick, i, p.stage.main.model.clips[i].name());
                    }
                });
            r.response
                .widget_info(|| egui::WidgetInfo::labeled(egui::Role::ComboBox, true, name));
        }
        go = ui
            .button("Blend")
            .on_hover_text("Play both, synced on their foot markers, at a weight you hold with a slider (0 = the first, 1 = the second)")
            .clicked();
    });
    if (a, b) != (a_was, b_was) || go {
        ui.data_mut(|d| d.insert_temp(id, (a, b)));
    }
    if go {
        p.blend_two_clips(a.min(n - 1), b.min(n - 1), 0.5);
    }
}

/// "Additive": any clip added on top of the playing one as an additive layer, relative to
/// one of its own frames (the frame at which it adds nothing), e.g. a lean or a breath
/// authored as a plain clip.
fn additive_layer_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let listed = pickable_clips(p);
    let n = p.stage.main.model.clips.len();
    if n == 0 || listed.is_empty() {
        return;
    }
    let base = p.stage.main.timeline.clip().unwrap_or(listed[0]).min(n - 1);
    let id = egui::Id::unique("additive_layer_pick");
    // By default a clip authored as additive (the demo's Wave), else the next one: only
    // until a pick is stored.
    let default_layer = || {
        let clips = &p.stage.main.model.clips;
        listed
            .iter()
            .copied()
            .find(|&i| i != base && clips[i].is_additive())
            .unwrap_or_else(|| next_pickable(p, &listed, base))
    };
    let clips = &p.stage.main.model.clips;
    // A clip made additive relative to one of its frames (right-click > Make additive)
    // starts from that frame.
    let own_frame = |i: usize| {
        let c = &clips[i];
        if c.has_additive_reference() {
            (f64::from(c.additive_reference_secs()) * c.frame_rate_hz().unwrap_or(30.0)).round()
                as u32
        } else {
            0
        }
    };
    let (mut layer, mut frame): (usize, u32) = ui.data(|d| d.get_temp(id)).unwrap_or_else(|| {
        let l = default_layer();
        (l, own_frame(l))
    });
    layer = layer.min(n - 1);
    let picked_before = layer;
    let was = (layer, frame);
    let mut go = false;
    ui.horizontal_wrapped(|ui| {
        ui.label("Additive:");
        let r = egui::ComboBox::from_id_salt("additive_layer_clip")
            .selected_text(clips[layer].name())
            .show_ui(ui, |ui| {
                for &i in &listed {
                    ui.selectable_value(&mut layer, i, clips[i].name());
                }
            });
        r.response
            .widget_info(|| egui::WidgetInfo::labeled(egui::Role::ComboBox, true, "clip to add"));
        if layer != picked_before {
            frame = own_frame(layer);
        }
    });
    // On lines of their own: a take's name can be wider than the panel, and in the
    // wrapped row above it pushed the frame field and the button out of the panel.
    ui.add(
        egui::Label::new(format!(
            "over {}, relative to its frame",
            clips[base].name()
        ))
        .wrap(),
    );
    ui.horizontal(|ui| {
        let clip = &clips[layer];
        let last = (f64::from(clip.duration_secs()) * clip.frame_rate_hz().unwrap_or(30.0))
            .round() as u32;
        frame = frame.min(last);
        ui.add(egui::DragValue::new(&mut frame).range(0..=last).speed(0.2))
            .on_hover_text("the frame of the added clip at which it adds nothing: what it adds is its difference from that frame");
        go = ui
            .button("Add layer")
            .on_hover_text("Play the selected clip with this one added on top (strength, reference, hold and mask then under Edit graph)")
            .clicked();
    });
    if (layer, frame) != was || go {
        ui.data_mut(|d| d.insert_temp(id, (layer, frame)));
    }
    if go {
        p.layer_additive(base, layer, frame);
    }
}

/// The first leg's swing over one cycle, per active input and for their blend: the
/// curves the phase report measures, in the plane the feet swing in (whatever way the
/// rig faces). Out-of-phase inputs show as curves that peak at different phases and a
/// flat blend.
fn swing_plot_ui(session: &GraphSession, model: &crate::asset::Model, ui: &mut egui::Ui) {
    use egui_plot::{Line, Plot, PlotPoints};
    let Some((curves, clips)) = session.graph.swing_curves() else {
        return;
    };
    let leg = session
        .graph
        .legs()
        .first()
        .map_or("first leg", |l| l.name.as_str());
    ui.label(format!(
        "Swing of the {leg} leg over a cycle (deg, forward +)"
    ))
    .on_hover_text(format!(
        "hip-to-foot angle from straight down, toward the swing axis ({:.2}, {:.2}) of model space",
        curves.forward.x, curves.forward.z
    ));
    let points = |c: &[f32]| -> PlotPoints {
        let n = c.len().max(1) as f64;
        c.iter()
            .enumerate()
            .map(|(k, &a)| [k as f64 / n, f64::from(a)])
            .collect()
    };
    let names: Vec<String> = clips
        .iter()
        .enumerate()
        .map(|(i, &clip)| {
            format!(
                "{i}: {}",
                model.clips.get(clip).map_or("input", |c| c.name())
            )
        })
        .collect();
    let mut legend: Vec<(&str, Color32)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                n.as_str(),
                super::palette::FOOT[i % super::palette::FOOT.len()],
            )
        })
        .collect();
    legend.push(("blend", Color32::WHITE));
    super::plot::legend_row_ui(ui, &legend);
    Plot::new("swing_curves")
        .height(110.0)
        .allow_scroll(false)
        .x_axis_label("cycle")
        .show(ui, |plot| {
            for (i, (curve, &clip)) in curves.inputs.iter().zip(clips).enumerate() {
                let name = model.clips.get(clip).map_or("input", |c| c.name());
                plot.line(
                    Line::new(format!("{i}: {name}"), points(curve))
                        .color(super::palette::FOOT[i % super::palette::FOOT.len()]),
                );
            }
            plot.line(
                Line::new("blend", points(&curves.blend))
                    .color(Color32::WHITE)
                    .width(2.0),
            );
        });
}
