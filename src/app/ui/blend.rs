//! The Blend panel: the pose graph's parameters, the state machine as a graph view (states,
//! transitions, the active one and its progress), every input with its clip time and
//! weight, the phase-cancellation warning, and the 2D blend-space widget. It draws the
//! previewer's [`GraphSession`](crate::stage::session::GraphSession) and calls its
//! methods; no state of its own.

use egui::{Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};

use super::Previewer;
use crate::anim::blend::space::{BlendSpace2D, BlendSpace2DQuery};
use crate::anim::state_machine::{Ease, Slot, StateMachine};
use crate::app::controller::StageCommand;
use crate::graph::def::{LayerMode, NodeDef, ParamDef, ReferenceDef, SyncMode, Weight};
use crate::stage::session::GraphSession;

const ACTIVE: Color32 = Color32::from_rgb(90, 170, 255);
const WARN: Color32 = Color32::from_rgb(255, 170, 80);

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

/// Bytes of the prefix every name shares up to a word boundary (`_`, space, `:`, `|`),
/// leaving each name at least one character: `Robot_Dance`, `Robot_Idle` -> 6.
pub fn common_word_prefix(names: &[&str]) -> usize {
    let Some(first) = names.first() else {
        return 0;
    };
    let mut end = 0;
    for (i, c) in first.char_indices() {
        let len = i + c.len_utf8();
        if !names
            .iter()
            .all(|n| n.len() > len && n.as_bytes()[..len] == first.as_bytes()[..len])
        {
            break;
        }
        if matches!(c, '_' | ' ' | ':' | '|') {
            end = len;
        }
    }
    end
}

/// Where the state machine view draws `n` state boxes in `rect`: on an ellipse (two side by
/// side, one in the middle), each as wide as its share of the ring leaves (at most 76
/// points, at least 30), so no two overlap and none leaves the rect; in rows when even
/// 30-point boxes do not fit on the ring.
pub fn state_boxes(rect: Rect, n: usize) -> Vec<Rect> {
    let center = rect.center();
    let h = 24.0f32.min(rect.height() / 3.0);
    let ring = |w: f32| {
        Vec2::new(
            (rect.width() / 2.0 - w / 2.0 - 6.0).max(0.0),
            (rect.height() / 2.0 - h / 2.0 - 6.0).max(0.0),
        )
    };
    // Every two boxes apart by a margin along x or y.
    let fits = |w: f32| -> bool {
        if n < 3 {
            return 2.0 * w + 24.0 <= rect.width();
        }
        let r = ring(w);
        let at = |i: usize| {
            let a = std::f32::consts::TAU * i as f32 / n as f32 - std::f32::consts::FRAC_PI_2;
            center + Vec2::new(a.cos() * r.x, a.sin() * r.y)
        };
        (0..n).all(|i| {
            (i + 1..n).all(|j| {
                let (p, q) = (at(i), at(j));
                (p.x - q.x).abs() >= w + 4.0 || (p.y - q.y).abs() >= h + 4.0
            })
        })
    };
    let mut w = 76.0f32;
    while w > 30.0 && !fits(w) {
        w -= 2.0;
    }
    if !fits(w) {
        // Too many for a ring in this space: rows of boxes instead.
        let cols = (((rect.width() - 8.0) / 64.0).floor() as usize).clamp(1, n);
        let rows = n.div_ceil(cols);
        let w = (rect.width() - 12.0 - 4.0 * (cols - 1) as f32) / cols as f32;
        let h = (((rect.height() - 12.0) / rows as f32) - 4.0).min(24.0);
        return (0..n)
            .map(|i| {
                let (row, col) = (i / cols, i % cols);
                Rect::from_min_size(
                    rect.min
                        + Vec2::new(6.0 + col as f32 * (w + 4.0), 6.0 + row as f32 * (h + 4.0)),
                    Vec2::new(w, h),
                )
            })
            .collect();
    }
    let r = ring(w);
    (0..n)
        .map(|i| {
            let c = match n {
                1 => center,
                2 => center + Vec2::new(if i == 0 { -r.x } else { r.x }, 0.0),
                _ => {
                    let a =
                        std::f32::consts::TAU * i as f32 / n as f32 - std::f32::consts::FRAC_PI_2;
                    center + Vec2::new(a.cos() * r.x, a.sin() * r.y)
                }
            };
            Rect::from_center_size(c, Vec2::new(w, h))
        })
        .collect()
}

/// Draws the states as boxes on a circle with the transitions as arrows; the current state
/// is filled, a running cross-fade shows its progress. Returns a state to travel to when
/// the user clicks one.
fn state_machine_ui(session: &GraphSession, ui: &mut egui::Ui) -> Option<String> {
    let sm: &StateMachine = session.graph.state_machine()?;
    let NodeDef::StateMachine { machine, .. } = &session.graph.def().base else {
        return None;
    };
    let n = sm.state_count();
    let width = ui.available_width().max(100.0);
    // Taller with more states, so the ring has room for every box.
    let height = match n {
        0..=2 => 90.0,
        3..=6 => 170.0,
        _ => (170.0 + 22.0 * (n - 6) as f32).min(320.0),
    };
    let (rect, response) = ui.allocate_exact_size(Vec2::new(width, height), Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let boxes = state_boxes(rect, n);
    let box_size = boxes.first().map_or(Vec2::new(76.0, 24.0), |b| b.size());
    let pos = |i: usize| -> Pos2 { boxes[i].center() };
    let progress = sm.transition_progress();
    // Strong text: the boxes' fill is grey, and grey on grey did not read.
    let text_color = ui.visuals().strong_text_color();
    // Transitions first, under the boxes.
    for t in &machine.transitions {
        let Some(to) = sm.state_index(&t.to) else {
            continue;
        };
        let froms: Vec<usize> = if t.from == "*" {
            (0..n).filter(|&i| i != to).collect()
        } else {
            sm.state_index(&t.from).into_iter().collect()
        };
        for from in froms {
            let active = matches!(progress, Some((Slot::State(f), d, _)) if f == from && d == to);
            let (a, b) = (pos(from), pos(to));
            let dir = (b - a).normalized();
            // Offset sideways so A->B and B->A do not overlap.
            let side = Vec2::new(-dir.y, dir.x) * 5.0;
            let a = a + side + dir * (box_size.x / 2.0 + 4.0);
            let b = b + side - dir * (box_size.x / 2.0 + 4.0);
            let color = if active { ACTIVE } else { Color32::GRAY };
            painter.arrow(a, b - a, Stroke::new(if active { 2.5 } else { 1.0 }, color));
        }
    }
    let mut clicked = None;
    let names: Vec<&str> = (0..n).map(|i| sm.state_name(i)).collect();
    let shared_prefix = if n > 1 { common_word_prefix(&names) } else { 0 };
    for i in 0..n {
        let r = Rect::from_center_size(pos(i), box_size);
        let current = sm.current() == i;
        let weight: f32 = sm
            .weights()
            .iter()
            .filter(|(s, _)| *s == Slot::State(i))
            .map(|(_, w)| *w)
            .sum();
        painter.rect_filled(r, 5.0, ui.visuals().widgets.inactive.bg_fill);
        if weight > 0.0 {
            // Fill from the left by the state's current weight.
            let mut f = r;
            f.set_width(r.width() * weight.clamp(0.0, 1.0));
            painter.rect_filled(f, 5.0, ACTIVE.gamma_multiply(0.6));
        }
        painter.rect_stroke(
            r,
            5.0,
            Stroke::new(
                if current { 2.0 } else { 1.0 },
                if current { ACTIVE } else { Color32::GRAY },
            ),
            egui::StrokeKind::Inside,
        );
        // The name cut to its box (whole in the buttons below), without the prefix every
        // state shares (the Robot's `Robot_`).
        let font = FontId::proportional(if box_size.x < 60.0 { 10.0 } else { 12.0 });
        let mut job = egui::text::LayoutJob::simple_singleline(
            sm.state_name(i)[shared_prefix..].to_string(),
            font,
            text_color,
        );
        job.wrap = egui::text::TextWrapping::truncate_at_width(r.width() - 6.0);
        let galley = painter.layout_job(job);
        painter.galley(r.center() - galley.size() / 2.0, galley, text_color);
        if response.clicked() {
            if let Some(p) = response.interact_pointer_pos() {
                if r.contains(p) {
                    clicked = Some(sm.state_name(i).to_string());
                }
            }
        }
    }
    response
        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Group, true, "State machine view"));
    match progress {
        Some((from, to, w)) => {
            let from = match from {
                Slot::State(s) => sm.state_name(s).to_string(),
                Slot::Snapshot => "(interrupted pose)".into(),
            };
            ui.label(format!(
                "Fading {from} -> {} ({:.0}%)",
                sm.state_name(to),
                w * 100.0
            ));
        }
        None => {
            ui.label(format!("In {}", sm.state_name(sm.current())));
        }
    }
    ui.horizontal_wrapped(|ui| {
        ui.weak("Go to:");
        for i in 0..n {
            if ui
                .small_button(sm.state_name(i))
                .on_hover_text("Cross-fade to this state (0.3 s)")
                .clicked()
            {
                clicked = Some(sm.state_name(i).to_string());
            }
        }
    });
    clicked
}

/// The 2D blend space: samples as dots, the Delaunay triangles (thin ones in orange), the
/// parameter as a draggable dot, the live weights as circles around the samples (like
/// Unity's). Returns true when the user moved the parameter.
pub fn blend_space_2d_ui(
    ui: &mut egui::Ui,
    space: &BlendSpace2D,
    query: Option<&BlendSpace2DQuery>,
    weights: &[f32],
    q: &mut glam::Vec2,
) -> bool {
    let size = ui.available_width().clamp(120.0, 260.0);
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), Sense::click_and_drag());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Group, true, "2D blend space"));
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let points = space.points();
    let (mut lo, mut hi) = (glam::Vec2::splat(f32::MAX), glam::Vec2::splat(f32::MIN));
    for p in points.iter().chain(std::iter::once(&*q)) {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let span = (hi - lo).max(glam::Vec2::splat(0.5));
    let lo = lo - span * 0.1;
    let span = span * 1.2;
    let to_screen = |p: glam::Vec2| -> Pos2 {
        let t = (p - lo) / span;
        Pos2::new(
            rect.left() + t.x * rect.width(),
            rect.bottom() - t.y * rect.height(),
        )
    };
    let from_screen = |s: Pos2| -> glam::Vec2 {
        let t = glam::Vec2::new(
            (s.x - rect.left()) / rect.width(),
            (rect.bottom() - s.y) / rect.height(),
        );
        lo + t * span
    };
    let thin = space.thin_triangles();
    for tri in space.triangles() {
        let color = if thin.contains(tri) {
            WARN
        } else {
            Color32::from_gray(110)
        };
        for k in 0..3 {
            painter.line_segment(
                [
                    to_screen(points[tri[k]]),
                    to_screen(points[tri[(k + 1) % 3]]),
                ],
                Stroke::new(1.0, color),
            );
        }
    }
    for (i, p) in points.iter().enumerate() {
        let s = to_screen(*p);
        let w = weights.get(i).copied().unwrap_or(0.0);
        if w > 0.0 {
            painter.circle_stroke(s, 4.0 + 18.0 * w, Stroke::new(1.5, ACTIVE));
        }
        painter.circle_filled(s, 3.5, Color32::WHITE);
    }
    if let Some(qr) = query {
        if !qr.inside {
            painter.circle_stroke(to_screen(qr.projected), 4.0, Stroke::new(1.0, WARN));
        }
    }
    painter.circle_filled(to_screen(*q), 5.0, Color32::from_rgb(255, 90, 90));
    let mut moved = false;
    if response.dragged() || response.clicked() {
        if let Some(pos) = response.interact_pointer_pos() {
            *q = from_screen(pos);
            moved = true;
        }
    }
    if !thin.is_empty() {
        ui.colored_label(
            WARN,
            format!(
                "{} thin triangle(s): weights there swing with small parameter changes",
                thin.len()
            ),
        );
    }
    moved
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

/// Sync mode picker.
fn sync_ui(ui: &mut egui::Ui, id: impl std::hash::Hash + std::fmt::Debug, sync: &mut SyncMode) {
    egui::ComboBox::from_id_salt(id)
        .selected_text(sync.label())
        .show_ui(ui, |ui| {
            for m in [SyncMode::Markers, SyncMode::Cycle, SyncMode::None] {
                ui.selectable_value(sync, m, m.label());
            }
        });
}

/// One node's editable parts: sync, and per blend input its phase offset (cycles).
fn node_edit_ui(ui: &mut egui::Ui, id: &str, node: &mut NodeDef) {
    match node {
        NodeDef::Clip { clip, rate } => {
            ui.horizontal_wrapped(|ui| {
                ui.label(clip.as_str());
                ui.add(
                    egui::DragValue::new(rate)
                        .range(-4.0..=4.0)
                        .speed(0.01)
                        .prefix("rate "),
                );
            });
        }
        NodeDef::Blend { inputs, sync } => {
            ui.horizontal_wrapped(|ui| {
                ui.label("sync");
                sync_ui(ui, (id, "sync"), sync);
            });
            for input in inputs.iter_mut() {
                ui.horizontal_wrapped(|ui| {
                    ui.label(input.clip.as_str());
                    ui.add(
                        egui::DragValue::new(&mut input.offset)
                            .range(-1.0..=1.0)
                            .speed(0.005)
                            .prefix("offset ")
                            .suffix(" cycle"),
                    )
                    .on_hover_text("phase offset: 0.5 starts this input half a cycle later");
                    if let Weight::Fixed(w) = &mut input.weight {
                        ui.add(
                            egui::DragValue::new(w)
                                .range(0.0..=1.0)
                                .speed(0.005)
                                .prefix("w "),
                        );
                    }
                });
            }
        }
        NodeDef::BlendSpace1D { samples, sync, .. } => {
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("1D space ({} samples), sync", samples.len()));
                sync_ui(ui, (id, "sync"), sync);
            });
        }
        NodeDef::BlendSpace2D { samples, sync, .. } => {
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("2D space ({} samples), sync", samples.len()));
                sync_ui(ui, (id, "sync"), sync);
            });
        }
        NodeDef::StateMachine { machine, sync } => {
            ui.horizontal_wrapped(|ui| {
                ui.label("cross-fade sync");
                sync_ui(ui, (id, "sm_sync"), sync);
            });
            for state in &mut machine.states {
                ui.label(egui::RichText::new(state.name.as_str()).strong());
                ui.indent((id, state.name.as_str()), |ui| {
                    node_edit_ui(ui, &format!("{id}/{}", state.name), &mut state.node)
                });
            }
            // Cross-fades: duration and curve of every transition.
            if !machine.transitions.is_empty() {
                ui.label(egui::RichText::new("Transitions").strong());
            }
            for (i, t) in machine.transitions.iter_mut().enumerate() {
                ui.horizontal_wrapped(|ui| {
                    ui.label(format!("{} -> {}", t.from, t.to));
                    ui.add(
                        egui::DragValue::new(&mut t.duration_secs)
                            .range(0.0..=5.0)
                            .speed(0.01)
                            .max_decimals(2)
                            .suffix(" s"),
                    )
                    .on_hover_text("cross-fade duration (0 switches at once)");
                    let label = match &t.ease {
                        Ease::Smoothstep => "smoothstep",
                        Ease::Linear => "linear",
                        Ease::Curve(_) => "custom curve",
                    };
                    egui::ComboBox::new((id, "ease", i), "curve")
                        .selected_text(label)
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut t.ease, Ease::Smoothstep, "smoothstep");
                            ui.selectable_value(&mut t.ease, Ease::Linear, "linear");
                            // Slow in, then fast: the incoming state takes over late.
                            let late = Ease::Curve(vec![(0.0, 0.0), (0.6, 0.25), (1.0, 1.0)]);
                            ui.selectable_value(&mut t.ease, late, "late (slow in)");
                            let early = Ease::Curve(vec![(0.0, 0.0), (0.4, 0.75), (1.0, 1.0)]);
                            ui.selectable_value(&mut t.ease, early, "early (fast in)");
                        });
                });
            }
        }
    }
}

/// "Blend two clips": pick A and B and start a blend held at any weight (the weight is
/// then a slider among the graph's parameters).
fn two_clip_blend_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let n = p.stage.main.model.clips.len();
    if n < 2 {
        return;
    }
    let id = egui::Id::unique("two_clip_pick");
    let (mut a, mut b): (usize, usize) = ui.data(|d| d.get_temp(id)).unwrap_or((
        p.stage.main.timeline.clip().unwrap_or(0),
        (p.stage.main.timeline.clip().unwrap_or(0) + 1) % n,
    ));
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
                    for (i, c) in p.stage.main.model.clips.iter().enumerate() {
                        ui.selectable_value(pick, i, c.name());
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
    let clips = &p.stage.main.model.clips;
    let n = clips.len();
    if n == 0 {
        return;
    }
    let base = p.stage.main.timeline.clip().unwrap_or(0).min(n - 1);
    let id = egui::Id::unique("additive_layer_pick");
    // By default a clip authored as additive (the demo's Wave), else the next one.
    let authored = (0..n).find(|&i| i != base && clips[i].is_additive());
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
        let l = authored.unwrap_or((base + 1) % n);
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
                for (i, c) in clips.iter().enumerate() {
                    ui.selectable_value(&mut layer, i, c.name());
                }
            });
        r.response.widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::ComboBox, true, "clip to add")
        });
        if layer != picked_before {
            frame = own_frame(layer);
        }
        ui.label(format!("over {}, relative to its frame", clips[base].name()));
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

/// The Edit section: phase offsets, sync modes, layer strength, mode and reference, with
/// undo (Ctrl+Z) and redo (Ctrl+Shift+Z). Each change rebuilds the graph from its
/// definition at the same time and parameters.
pub(super) fn graph_edit_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(session) = p.graph() else {
        return;
    };
    if p.source().is_drive_only() {
        return;
    }
    let (can_undo, can_redo) = (session.can_undo(), session.can_redo());
    let model = &p.stage.main.model;
    let mut def = session.graph.def().clone();
    let before = def.clone();
    let mut undo = false;
    let mut redo = false;
    egui::CollapsingHeader::new("Edit graph")
        .id_salt("graph_edit")
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                undo = ui
                    .add_enabled(can_undo, egui::Button::new("Undo"))
                    .on_hover_text("Ctrl+Z")
                    .clicked();
                redo = ui
                    .add_enabled(can_redo, egui::Button::new("Redo"))
                    .on_hover_text("Ctrl+Shift+Z")
                    .clicked();
            });
            node_edit_ui(ui, "base", &mut def.base);
            for layer in &mut def.layers {
                ui.separator();
                ui.label(
                    egui::RichText::new(format!("layer {} ({})", layer.name, layer.clip)).strong(),
                );
                ui.horizontal_wrapped(|ui| {
                    match &mut layer.weight {
                        Weight::Fixed(w) => {
                            ui.add(
                                egui::DragValue::new(w)
                                    .range(-1.0..=2.0)
                                    .speed(0.01)
                                    .prefix("strength "),
                            )
                            .on_hover_text("additive layers take -1..1 (and beyond)");
                        }
                        Weight::Param(name) => {
                            ui.weak(format!("strength: parameter '{name}'"));
                        }
                    }
                    egui::ComboBox::from_id_salt(("layer_mode", layer.name.as_str()))
                        .selected_text(match layer.mode {
                            LayerMode::Additive => "additive",
                            LayerMode::Override => "override",
                        })
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut layer.mode, LayerMode::Additive, "additive");
                            ui.selectable_value(&mut layer.mode, LayerMode::Override, "override");
                        });
                });
                if layer.mode == LayerMode::Additive {
                    reference_ui(ui, model, &layer.name, &mut layer.reference);
                }
                hold_ui(ui, model, &layer.clip, &mut layer.hold);
                super::mask::mask_edit_ui(ui, &layer.name, &model.skeleton, &mut layer.mask);
            }
        });
    if undo {
        p.undo_graph_edit();
    } else if redo {
        p.redo_graph_edit();
    } else if def != before {
        p.edit_graph(|d| *d = def);
    }
}

/// Plays the layer's clip with the graph, or holds it at one clip time (a pose clip).
fn hold_ui(ui: &mut egui::Ui, model: &crate::asset::Model, clip: &str, hold: &mut Option<f32>) {
    ui.horizontal_wrapped(|ui| {
        let mut held = hold.is_some();
        if ui
            .checkbox(&mut held, "hold at")
            .on_hover_text("show the layer's clip at one time instead of playing it (a pose clip)")
            .changed()
        {
            *hold = held.then_some(0.0);
        }
        if let Some(t) = hold {
            let duration = model
                .find_clip(clip)
                .map_or(0.0, |i| model.clips[i].duration_secs());
            ui.add(
                egui::DragValue::new(t)
                    .range(0.0..=duration)
                    .speed(0.01)
                    .suffix(" s"),
            )
            .on_hover_text("clip time the layer is held at");
        }
    });
}

/// The pose an additive layer's difference is taken from: its own first frame, the bind
/// pose, or any frame of any clip (picked by clip, then by time).
fn reference_ui(
    ui: &mut egui::Ui,
    model: &crate::asset::Model,
    layer: &str,
    reference: &mut ReferenceDef,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label("reference");
        let text = match &*reference {
            ReferenceDef::FirstFrame => "first frame".to_string(),
            ReferenceDef::BindPose => "bind pose".to_string(),
            ReferenceDef::ClipFrame { clip, .. } => format!("frame of {clip}"),
        };
        egui::ComboBox::from_id_salt(("layer_ref", layer))
            .selected_text(text)
            .show_ui(ui, |ui| {
                ui.selectable_value(reference, ReferenceDef::FirstFrame, "first frame");
                ui.selectable_value(reference, ReferenceDef::BindPose, "bind pose");
                for c in &model.clips {
                    let chosen =
                        matches!(&*reference, ReferenceDef::ClipFrame { clip, .. } if clip == c.name());
                    if ui
                        .selectable_label(chosen, format!("frame of {}", c.name()))
                        .clicked()
                        && !chosen
                    {
                        *reference = ReferenceDef::ClipFrame {
                            clip: c.name().to_string(),
                            time_secs: 0.0,
                        };
                    }
                }
            });
        if let ReferenceDef::ClipFrame { clip, time_secs } = reference {
            let duration = model
                .find_clip(clip)
                .map_or(0.0, |i| model.clips[i].duration_secs());
            ui.add(
                egui::DragValue::new(time_secs)
                    .range(0.0..=duration)
                    .speed(0.01)
                    .suffix(" s"),
            )
            .on_hover_text("clip time of the reference frame");
        }
    });
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
                super::locomotion::FOOT[i % super::locomotion::FOOT.len()],
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
                        .color(super::locomotion::FOOT[i % super::locomotion::FOOT.len()]),
                );
            }
            plot.line(
                Line::new("blend", points(&curves.blend))
                    .color(Color32::WHITE)
                    .width(2.0),
            );
        });
}
