//! The pose graph drawn: the state machine as boxes and arrows (states, transitions, the
//! active one and its progress) and the 2D blend space with its samples and the query.

use egui::{Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};

use super::palette::WARN;
use crate::anim::blend::space::{BlendSpace2D, BlendSpace2DQuery};
use crate::anim::state_machine::{Slot, StateMachine};
use crate::graph::def::NodeDef;
use crate::stage::session::GraphSession;

const ACTIVE: Color32 = Color32::from_rgb(90, 170, 255);

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
pub(super) fn state_machine_ui(session: &GraphSession, ui: &mut egui::Ui) -> Option<String> {
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
