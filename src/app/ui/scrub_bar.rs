//! The scrub bar: frame ticks, the in/out range, foot-contact lanes, sync markers (dragged
//! to move them), the loop-seam mark and the playhead; Ctrl+wheel zooms it.

use super::Previewer;
use crate::controller::Transport;
use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};

/// A sync marker's colour: its leg's (see [`super::palette::leg_color`]), else the third
/// leg's for a marker that names none.
fn marker_color(name: &str) -> Color32 {
    super::palette::leg_color(name, 2)
}

/// The smallest of 1, 2, 5, 10, 20, 50... that is at least `min` (and at least 1).
fn nice_step(min: f64) -> f64 {
    if !min.is_finite() || min <= 1.0 {
        return 1.0;
    }
    super::plot::step_125(min)
}

pub(super) fn scrub_bar_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    // The loop-seam check's worst channel, when it pops (see the seam table).
    let pop_m = p.inspect.seam_pop_m(&p.stage.main.model);
    let k = p.stage.main.model.unit_scale();
    let clip_index = p.stage.main.timeline.clip();
    p.refresh_seams(clip_index);
    let seam = p
        .inspect
        .seams()
        .first()
        .filter(|s| s.visible_m > pop_m)
        .map(|s| {
            format!(
                "seam: {} {:.1} cm",
                p.stage.main.model.skeleton.names()[s.joint],
                s.visible_m / k * 100.0
            )
        });
    let width = ui.available_width();
    let (rect, response) = ui.allocate_exact_size(Vec2::new(width, 46.0), Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();
    painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);
    let Some(clip) = p
        .stage
        .main
        .timeline
        .clip()
        .and_then(|i| p.model().clips.get(i))
    else {
        return;
    };
    let duration = clip.duration_secs() as f64;
    if duration <= 0.0 {
        painter.text(
            rect.center(),
            Align2::CENTER_CENTER,
            "zero-length clip",
            FontId::proportional(12.0),
            Color32::GRAY,
        );
        return;
    }
    let track = rect.shrink2(Vec2::new(8.0, 0.0));
    // The part of the clip shown: Ctrl+wheel zooms around the pointer, Shift+wheel (or a
    // sideways scroll) and a middle drag pan, a double middle click shows it all again.
    let view_id = egui::Id::unique(("scrub_view", clip_index));
    let mut view: (f64, f64) = ui.data(|d| d.get_temp(view_id)).unwrap_or((0.0, duration));
    if response.hovered() {
        let (scroll, zoom, shift) =
            ui.input(|i| (i.smooth_scroll_delta, i.zoom_delta(), i.modifiers.shift));
        let span = view.1 - view.0;
        let pointer = response
            .hover_pos()
            .map(|p| view.0 + f64::from((p.x - track.left()) / track.width().max(1.0)) * span)
            .unwrap_or(view.0 + span / 2.0);
        if zoom != 1.0 {
            let k = 1.0 / f64::from(zoom);
            view = (
                pointer - (pointer - view.0) * k,
                pointer + (view.1 - pointer) * k,
            );
        }
        let pan_px = if shift { scroll.y + scroll.x } else { scroll.x };
        if pan_px != 0.0 {
            let dt = -f64::from(pan_px / track.width().max(1.0)) * span;
            view = (view.0 + dt, view.1 + dt);
        }
    }
    if response.dragged_by(egui::PointerButton::Middle) {
        let span = view.1 - view.0;
        let dt = -f64::from(response.drag_delta().x / track.width().max(1.0)) * span;
        view = (view.0 + dt, view.1 + dt);
    }
    if response.double_clicked_by(egui::PointerButton::Middle) {
        view = (0.0, duration);
    }
    let view = clamp_view(view, duration, p.stage.main.timeline.frame_rate_hz());
    ui.data_mut(|d| d.insert_temp(view_id, view));
    let (v0, span) = (view.0, view.1 - view.0);
    let x_of = |t: f64| track.left() + ((t - v0) / span) as f32 * track.width();
    // Frame ticks, thinned to a 1-2-5 step so they stay at least 4 px apart (computed in
    // f64 and bounded by the bar's width, whatever the clip's length); every 10th step is
    // taller and numbered where the number fits.
    let fps = p.stage.main.timeline.frame_rate_hz();
    let px_per_frame = track.width() as f64 / (span * fps).max(1e-9);
    let every = nice_step(4.0 / px_per_frame.max(1e-12));
    let tick = visuals.weak_text_color();
    let first = (v0 * fps / every).ceil().max(0.0) as u64;
    let last = ((view.1 * fps / every).floor() as u64).min(first + track.width() as u64 / 4 + 1);
    let mut number_end = f32::NEG_INFINITY;
    for i in first..=last {
        let f = i as f64 * every;
        let x = x_of(f / fps);
        let major = i % 10 == 0;
        let h = if major { 10.0 } else { 5.0 };
        painter.line_segment(
            [Pos2::new(x, rect.bottom() - h), Pos2::new(x, rect.bottom())],
            Stroke::new(1.0, tick),
        );
        if major {
            let galley = painter.layout_no_wrap(format!("{f:.0}"), FontId::proportional(9.0), tick);
            if x + 2.0 >= number_end + 6.0 && x + 2.0 + galley.size().x <= rect.right() {
                number_end = x + 2.0 + galley.size().x;
                painter.galley(Pos2::new(x + 2.0, rect.bottom() - 11.0), galley, tick);
            }
        }
    }
    // The in/out range: the parts outside it dimmed, its edges marked.
    if let Some((a, b)) = p.stage.main.timeline.range() {
        let dim = Color32::from_black_alpha(140);
        for (x0, x1) in [(rect.left(), x_of(a)), (x_of(b), rect.right())] {
            if x1 > x0 {
                painter.rect_filled(
                    Rect::from_min_max(Pos2::new(x0, rect.top()), Pos2::new(x1, rect.bottom())),
                    0.0,
                    dim,
                );
            }
        }
        let edge = Color32::from_rgb(240, 200, 90);
        for x in [x_of(a), x_of(b)] {
            painter.line_segment(
                [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
                Stroke::new(2.0, edge),
            );
        }
    }
    // Detected foot contacts: one lane per leg between the markers and the ticks, a bar
    // where the foot is down (an interval over the loop point is drawn at both ends).
    let analysis = clip_index.and_then(|i| p.model().clip_analysis(i).ok());
    let mut hover = vec![
        "Drag to scrub: a seek moves the playhead, not the character".to_string(),
        "Ctrl+wheel zooms around the pointer, Shift+wheel or a middle drag pans, a double middle click shows the whole clip".to_string(),
    ];
    // Zoomed in: say so where the bar ends (the ruler's numbers alone do not).
    if span < duration - 1e-9 {
        let text = format!(
            "{:.2}-{:.2} s of {duration:.2} (Ctrl+wheel)",
            view.0, view.1
        );
        let galley = painter.layout_no_wrap(text, FontId::proportional(10.0), visuals.text_color());
        let at = Pos2::new(rect.right() - galley.size().x - 6.0, rect.top() + 2.0);
        painter.rect_filled(
            Rect::from_min_size(
                at - Vec2::new(3.0, 1.0),
                galley.size() + Vec2::new(6.0, 2.0),
            ),
            2.0,
            visuals.extreme_bg_color,
        );
        painter.galley(at, galley, visuals.text_color());
    }
    if let Some(a) = analysis.as_ref().filter(|a| !a.contacts.is_empty()) {
        let lanes = a.contacts.len().min(4);
        let (top, bottom) = (rect.top() + 19.0, rect.bottom() - 11.0);
        let lane_h = ((bottom - top - (lanes as f32 - 1.0)) / lanes as f32).max(1.0);
        hover.push("Foot contacts (detected from the feet):".to_string());
        for (i, c) in a.contacts.iter().take(lanes).enumerate() {
            let y0 = top + i as f32 * (lane_h + 1.0);
            let color = super::palette::leg_color(&c.leg, i);
            for (t0, t1) in c.spans(a.duration_secs) {
                painter.rect_filled(
                    Rect::from_min_max(
                        Pos2::new(x_of(f64::from(t0)), y0),
                        Pos2::new(x_of(f64::from(t1)), y0 + lane_h),
                    ),
                    1.0,
                    color.gamma_multiply(0.8),
                );
            }
            hover.push(format!("  {}", c.describe()));
        }
    }
    // Sync markers: a triangle on the bar, and the name where it fits (all of them in the
    // hover text). File markers, else the ones detected from the feet. A marker is dragged
    // along the bar (to whole frames; Alt: anywhere), right-click one to delete it.
    let (markers, detected) = clip_index.map_or((&[][..], false), |c| p.shown_markers(c));
    if !markers.is_empty() {
        hover.push(format!(
            "Markers{} (drag one to move it, right-click to delete):",
            if detected {
                " (detected)"
            } else {
                " (from the file)"
            }
        ));
    }
    let drag_id = egui::Id::unique(("marker_drag", clip_index));
    let pointer = response.interact_pointer_pos().or(response.hover_pos());
    let time_at = |x: f32| v0 + f64::from((x - track.left()) / track.width().max(1.0)) * span;
    // The marker at a point: in the marker row, within 6 px.
    let marker_at = |pos: Pos2| {
        if pos.y > rect.top() + 18.0 {
            return None;
        }
        markers
            .iter()
            .enumerate()
            .map(|(i, m)| (i, (x_of(f64::from(m.time_secs)) - pos.x).abs()))
            .filter(|(_, d)| *d <= 6.0)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    };
    let under = pointer.and_then(marker_at);
    // A drag starts once the pointer moved a few points: where it was pressed decides.
    if response.drag_started_by(egui::PointerButton::Primary) {
        if let Some(i) = ui.input(|i| i.pointer.press_origin()).and_then(marker_at) {
            ui.data_mut(|d| d.insert_temp(drag_id, i));
        }
    }
    let dragging: Option<usize> = ui.data(|d| d.get_temp(drag_id));
    // Where the dragged marker is now: on a frame unless Alt is held.
    let alt = ui.input(|i| i.modifiers.alt);
    let fps = p.stage.main.timeline.frame_rate_hz();
    let dragged_to = dragging.zip(pointer).map(|(i, pos)| {
        let t = time_at(pos.x).clamp(0.0, duration);
        let t = if alt {
            t
        } else {
            ((t * fps).round() / fps).min(duration)
        };
        (i, t as f32)
    });
    if under.is_some() || dragging.is_some() {
        ui.ctx().set_cursor_icon(egui::CursorIcon::ResizeHorizontal);
    }
    let mut label_end = f32::NEG_INFINITY;
    for (i, m) in markers.iter().enumerate() {
        let time_secs = match dragged_to {
            Some((d, t)) if d == i => t,
            _ => m.time_secs,
        };
        let x = x_of(f64::from(time_secs));
        let color = marker_color(&m.name);
        let y = rect.top() + 14.0;
        let tri = vec![
            Pos2::new(x - 5.0, y - 6.0),
            Pos2::new(x + 5.0, y - 6.0),
            Pos2::new(x, y + 2.0),
        ];
        if m.name.contains("up") {
            painter.add(egui::Shape::convex_polygon(
                tri,
                Color32::TRANSPARENT,
                Stroke::new(1.5, color),
            ));
        } else {
            painter.add(egui::Shape::convex_polygon(tri, color, Stroke::NONE));
        }
        hover.push(format!("  {} at {:.3} s", m.name, m.time_secs));
        let name = match dragged_to {
            Some((d, t)) if d == i => format!("{} {t:.3} s", m.name),
            _ => m.name.clone(),
        };
        let galley = painter.layout_no_wrap(name, FontId::proportional(10.0), color);
        let at = x + 6.0;
        // Only where it neither overlaps the previous label nor runs off the bar (the
        // dragged one always).
        let is_dragged = dragged_to.is_some_and(|(d, _)| d == i);
        if is_dragged || (at >= label_end + 4.0 && at + galley.size().x <= rect.right()) {
            label_end = at + galley.size().x;
            painter.galley(Pos2::new(at, rect.top() + 1.0), galley, color);
        }
    }
    let marker_drag_ended = dragging.is_some() && !response.dragged();
    // Right-click on a marker: delete it (kept while the menu is open).
    let menu_id = egui::Id::unique(("marker_menu", clip_index));
    if response.secondary_clicked() {
        ui.data_mut(|d| d.insert_temp(menu_id, under));
    }
    let menu_marker: Option<usize> = ui.data(|d| d.get_temp(menu_id)).flatten();
    let menu_label = menu_marker
        .and_then(|i| markers.get(i))
        .map(|m| format!("Delete marker {} at {:.3} s", m.name, m.time_secs));
    // A loop that pops: both ends of the bar marked, the joint named at the right end.
    if let Some(text) = &seam {
        let warn = Color32::from_rgb(255, 170, 80);
        for x in [x_of(0.0), x_of(duration)] {
            painter.line_segment(
                [Pos2::new(x, rect.top() + 18.0), Pos2::new(x, rect.bottom())],
                Stroke::new(3.0, warn),
            );
        }
        painter.text(
            Pos2::new(x_of(duration) - 4.0, rect.bottom() - 12.0),
            Align2::RIGHT_BOTTOM,
            text,
            FontId::proportional(10.0),
            warn,
        );
    }
    // Playhead.
    let x = x_of(p.stage.main.timeline.phase_secs().clamp(0.0, duration));
    let head = Color32::from_rgb(240, 70, 70);
    painter.line_segment(
        [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
        Stroke::new(2.0, head),
    );
    painter.rect_filled(
        Rect::from_center_size(Pos2::new(x, rect.bottom() - 4.0), Vec2::new(8.0, 8.0)),
        2.0,
        head,
    );
    if marker_drag_ended {
        ui.data_mut(|d| d.remove::<usize>(drag_id));
        if let (Some(c), Some((i, t))) = (clip_index, dragged_to) {
            let moved = markers.get(i).is_some_and(|m| m.time_secs != t);
            if moved {
                if let Err(e) = p.move_marker(c, i, t) {
                    p.set_message(e.report(), true);
                }
            }
        }
    }
    if let (Some(c), Some(label)) = (clip_index, menu_label) {
        response.context_menu(|ui| {
            if ui.button(label).clicked() {
                if let Some(m) = menu_marker.and_then(|i| p.shown_markers(c).0.get(i).cloned()) {
                    if let Err(e) = p.remove_marker_near(c, m.time_secs, 0.0) {
                        p.set_message(e.report(), true);
                    }
                }
                ui.close();
            }
        });
    }
    // Scrubbing: a seek within the current cycle; playback pauses while the playhead is
    // held (not while a marker is dragged).
    let scrubbing = dragging.is_none() && !marker_drag_ended;
    if scrubbing && response.drag_started() {
        p.transport(Transport::Play(false));
    }
    if scrubbing
        && (response.dragged_by(egui::PointerButton::Primary) || response.clicked())
        && track.width() >= 1.0
    {
        if let Some(pos) = response.interact_pointer_pos() {
            let frac = (((pos.x - track.left()) / track.width()) as f64).clamp(0.0, 1.0);
            let phase = (v0 + frac * span).clamp(0.0, duration);
            let cycle = p.stage.main.timeline.clock().time().cycle as f64;
            // Stay inside this cycle: the right edge is the last instant before the wrap.
            let phase = if p.stage.main.timeline.clock().looping() {
                phase.min(duration * (1.0 - 1e-9))
            } else {
                phase
            };
            p.transport(Transport::Seek(cycle * duration + phase));
        }
    }
    if span < duration * 0.999 {
        hover.push(format!(
            "Showing {:.3}-{:.3} s of {duration:.3} s (Ctrl+wheel zooms, Shift+wheel or a middle drag pans, a middle double-click shows all)",
            view.0, view.1
        ));
    } else {
        hover.push("Ctrl+wheel zooms into the timeline".to_string());
    }
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, true, "Playhead"));
    response.on_hover_text(hover.join("\n"));
}

/// A timeline view `(start, end)` in seconds kept inside the clip, at least two frames
/// (or 1% of the clip) wide.
pub(super) fn clamp_view(view: (f64, f64), duration: f64, fps: f64) -> (f64, f64) {
    let min_span = (2.0 / fps.max(1e-9)).max(duration * 0.01).min(duration);
    let span = (view.1 - view.0).clamp(min_span, duration);
    let start = if view.0.is_finite() { view.0 } else { 0.0 };
    let start = start.clamp(0.0, duration - span);
    (start, start + span)
}
