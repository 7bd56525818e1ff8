//! The timeline panel: transport buttons, rate, loop, root-motion mode, time readout and
//! the scrub bar with sync markers. Dragging the playhead is a seek (no root motion).

use crate::app::controller::Transport;
use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};

use super::Previewer;
use crate::stage::timeline::RootMotionMode;

/// Play rates offered as one-click presets (negative = reverse).
const RATE_PRESETS: [f64; 5] = [-1.0, 0.25, 0.5, 1.0, 2.0];

pub(super) fn timeline_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let state = |p: &Previewer| {
        let t = &p.stage.main.timeline;
        (t.clip(), t.clock().time(), t.mode(), t.world_from_root())
    };
    let before = state(p);
    ui.add_space(4.0);
    // Wraps on a narrow window so the readout at its end stays whole.
    ui.horizontal_wrapped(|ui| transport_ui(p, ui));
    ui.add_space(2.0);
    scrub_bar_ui(p, ui);
    super::morph::morph_rows_ui(p, ui);
    ui.add_space(4.0);
    // Re-evaluate only when a control changed what is shown (idle hovers stay cheap).
    if state(p) != before {
        p.evaluate_pose();
    }
}

/// The transport icons, painted (egui's default fonts have no media-control glyphs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Icon {
    /// |<<
    Start,
    /// <|
    Back,
    /// >
    Play,
    /// ||
    Pause,
    /// |>
    Forward,
    /// >>|
    End,
}

/// A transport button: a painted icon, its name for screen readers and tests, and a
/// tooltip with what it does and its shortcut.
pub(super) fn icon_button(
    ui: &mut egui::Ui,
    icon: Icon,
    name: &str,
    what: &str,
    shortcut: &str,
) -> egui::Response {
    let enabled = ui.is_enabled();
    let r = ui
        .add(egui::Button::new("").min_size(Vec2::new(30.0, 20.0)))
        .on_hover_text(format!("{what}  ({shortcut})"));
    let name = name.to_string();
    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, &name));
    let color = ui.style().interact(&r).fg_stroke.color;
    paint_icon(
        ui.painter(),
        r.rect.shrink2(Vec2::new(9.0, 5.0)),
        icon,
        color,
    );
    r
}

fn paint_icon(painter: &egui::Painter, rect: egui::Rect, icon: Icon, color: Color32) {
    let (l, r, t, b) = (rect.left(), rect.right(), rect.top(), rect.bottom());
    let mid = rect.center().y;
    let tri = |x0: f32, x1: f32| {
        // Pointing from x0 to x1.
        vec![egui::pos2(x0, t), egui::pos2(x1, mid), egui::pos2(x0, b)]
    };
    let fill = |pts: Vec<egui::Pos2>| {
        painter.add(egui::Shape::convex_polygon(pts, color, egui::Stroke::NONE));
    };
    let bar = |x: f32| {
        painter.rect_filled(
            egui::Rect::from_min_max(egui::pos2(x, t), egui::pos2(x + 2.0, b)),
            0.0,
            color,
        );
    };
    let w = r - l;
    match icon {
        Icon::Start => {
            bar(l);
            fill(tri(l + 2.0 + w * 0.45, l + 2.0));
            fill(tri(r, l + 2.0 + w * 0.45));
        }
        Icon::Back => {
            fill(tri(r - 3.0, l));
            bar(r - 2.0);
        }
        Icon::Play => fill(tri(l + w * 0.15, r - w * 0.15)),
        Icon::Pause => {
            painter.rect_filled(
                egui::Rect::from_min_max(egui::pos2(l + w * 0.2, t), egui::pos2(l + w * 0.4, b)),
                0.0,
                color,
            );
            painter.rect_filled(
                egui::Rect::from_min_max(egui::pos2(r - w * 0.4, t), egui::pos2(r - w * 0.2, b)),
                0.0,
                color,
            );
        }
        Icon::Forward => {
            bar(l);
            fill(tri(l + 3.0, r));
        }
        Icon::End => {
            fill(tri(l, r - 2.0 - w * 0.45));
            fill(tri(r - 2.0 - w * 0.45, r - 2.0));
            bar(r - 2.0);
        }
    }
}

fn transport_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let has_clip = p.stage.main.timeline.clip().is_some();
    ui.add_enabled_ui(has_clip, |ui| {
        if icon_button(ui, Icon::Start, "Start", "Jump to the start", "Home").clicked() {
            p.transport(Transport::ToStart);
        }
        if icon_button(ui, Icon::Back, "Back", "Step one frame back", "Left").clicked() {
            p.transport(Transport::Step(-1));
        }
        let (icon, name) = if p.stage.main.timeline.is_playing() {
            (Icon::Pause, "Pause")
        } else {
            (Icon::Play, "Play")
        };
        if icon_button(ui, icon, name, "Play / pause", "Space").clicked() {
            p.transport(Transport::TogglePlay);
        }
        if icon_button(
            ui,
            Icon::Forward,
            "Forward",
            "Step one frame forward",
            "Right",
        )
        .clicked()
        {
            p.transport(Transport::Step(1));
        }
        if icon_button(ui, Icon::End, "End", "Jump to the end", "End").clicked() {
            p.transport(Transport::ToEnd);
        }
        ui.separator();
        let mut looping = p.stage.main.timeline.clock().looping();
        if ui
            .checkbox(&mut looping, "Loop")
            .on_hover_text("Loop the clip (L)")
            .changed()
        {
            p.transport(Transport::Looping(looping));
        }
        let mut ping = p.stage.main.timeline.ping_pong();
        if ui
            .checkbox(&mut ping, "Ping-pong")
            .on_hover_text("Turn round at the ends (of the in/out range, else of the clip) instead of looping (P)")
            .changed()
        {
            p.transport(Transport::PingPong(ping));
        }
        if ui
            .button("In")
            .on_hover_text("Set the in point of the playback range at the playhead (I)")
            .clicked()
        {
            p.transport(Transport::InAtPlayhead);
        }
        if ui
            .button("Out")
            .on_hover_text("Set the out point of the playback range at the playhead (O)")
            .clicked()
        {
            p.transport(Transport::OutAtPlayhead);
        }
        // Always there (greyed without a range): setting In must not push the row's
        // other buttons to the next line.
        // A narrow "×" beside In and Out (named "Clear range" for screen readers): the
        // row keeps its width at 960 px.
        let range = p.stage.main.timeline.range();
        let clear = ui.add_enabled(range.is_some(), egui::Button::new("×"));
        clear.widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::Button, range.is_some(), "Clear range")
        });
        let clear = clear
            .on_hover_text(match range {
                Some((a, b)) => {
                    format!("Playing {a:.3}-{b:.3} s only; play the whole clip again (Alt+I)")
                }
                None => "No in/out range is set (I and O set one)".to_string(),
            })
            .on_disabled_hover_text("No in/out range is set (I and O set one)");
        if clear.clicked() {
            p.transport(Transport::Range(None));
        }
        ui.separator();
        // No "Rate" caption: the × on every value says what it is, and the row must fit
        // a 960 px window.
        let mut rate = p.stage.main.timeline.clock().rate();
        let drag = egui::DragValue::new(&mut rate)
            .speed(0.01)
            .range(-8.0..=8.0)
            .suffix("×");
        if ui
            .add(drag)
            .on_hover_text("Play rate (× the clip's speed); negative plays in reverse")
            .changed()
        {
            p.transport(Transport::Rate(rate));
        }
        for preset in RATE_PRESETS {
            let selected = (p.stage.main.timeline.clock().rate() - preset).abs() < 1e-9;
            if ui
                .selectable_label(selected, format!("{preset}×"))
                .clicked()
            {
                p.transport(Transport::Rate(preset));
            }
        }
        ui.separator();
        let mut mode = p.stage.main.timeline.mode();
        egui::ComboBox::from_id_salt("root_motion_mode")
            .selected_text(mode.label())
            .show_ui(ui, |ui| {
                for (i, m) in RootMotionMode::ALL.into_iter().enumerate() {
                    ui.selectable_value(&mut mode, m, format!("{}  ({})", m.label(), i + 1));
                }
            })
            .response
            .on_hover_text("Root motion: in place, accumulate into the world, or loop and reset");
        if mode != p.stage.main.timeline.mode() {
            p.transport(Transport::Mode(mode));
        }
        if ui
            .button("Restart")
            .on_hover_text("Back to time 0 and the origin")
            .clicked()
        {
            p.transport(Transport::Restart);
        }
    });
    ui.separator();
    // Whole or on the next row, never broken inside (the wrapped row would split it).
    let text = time_readout(p);
    let width = ui
        .painter()
        .layout_no_wrap(
            text.clone(),
            egui::TextStyle::Monospace.resolve(ui.style()),
            Color32::WHITE,
        )
        .size()
        .x;
    if ui.available_width() < width + 150.0 {
        ui.end_row();
    }
    ui.add(egui::Label::new(egui::RichText::new(text).monospace()).extend());
    let mut fps = p.stage.main.timeline.frame_rate_hz();
    let r = ui
        .add(
            egui::DragValue::new(&mut fps)
                .range(1.0..=1000.0)
                .speed(0.5)
                .max_decimals(3)
                .suffix(" fps"),
        )
        .on_hover_text("Frame rate for stepping, the ruler and the readout (the clip's key rate by default; picking the clip again restores it)");
    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::SpinButton, true, "frame rate"));
    if r.changed() {
        p.transport(Transport::FrameRate(fps));
    }
    goto_ui(p, ui);
}

/// "go to": a frame number (`12`) or a time (`0.4s`, `0.4 s`) within the cycle; Enter
/// seeks there (a seek: the character does not move).
fn goto_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let id = egui::Id::unique("goto_text");
    let mut text: String = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    let field = ui.add(
        egui::TextEdit::singleline(&mut text)
            .desired_width(64.0)
            .hint_text("go to"),
    );
    let field = field.on_hover_text("Type a frame (12) or a time (0.4s) and press Enter");
    field.widget_info(|| egui::WidgetInfo::labeled(egui::Role::TextInput, true, "go to"));
    if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
        let duration = p
            .stage
            .main
            .timeline
            .clip()
            .and_then(|i| p.model().clips.get(i))
            .map_or(0.0, |c| f64::from(c.duration_secs()));
        match parse_goto(&text, p.stage.main.timeline.frame_rate_hz(), duration) {
            Ok(phase) => {
                let cycle_start =
                    p.stage.main.timeline.time_secs() - p.stage.main.timeline.phase_secs();
                p.transport(Transport::Play(false));
                p.transport(Transport::Seek(cycle_start + phase));
                text.clear();
            }
            Err(e) => p.set_message(e, true),
        }
    }
    ui.data_mut(|d| d.insert_temp(id, text));
}

/// Clip seconds for "go to" text: a frame number at `fps` (`12`, `12.5`), or seconds with
/// an `s` suffix (`0.4s`, `0.4 s`); within `0..=duration_secs`.
pub fn parse_goto(text: &str, fps: f64, duration_secs: f64) -> Result<f64, String> {
    let t = text.trim();
    let (number, seconds) = match t.strip_suffix('s') {
        Some(n) => (n.trim(), true),
        None => (t, false),
    };
    let v: f64 = number
        .parse()
        .map_err(|_| format!("go to: '{t}' is not a frame (12) or a time (0.4s)"))?;
    let secs = if seconds { v } else { v / fps.max(1e-9) };
    if !secs.is_finite() || secs < 0.0 || secs > duration_secs + 1e-9 {
        return Err(format!(
            "go to: '{t}' is outside the clip (0-{:.0} frames, 0-{duration_secs:.3} s)",
            (duration_secs * fps).round()
        ));
    }
    Ok(secs.min(duration_secs))
}

/// A frame rate as people write it: `30`, `29.97`, `23.976` (at most 3 decimals).
pub fn fps_text(fps: f64) -> String {
    let s = format!("{fps:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// "0.533 s / 1.100 s  frame 16 of 0-32 @ 30 fps  cycle 2": the frame and the range
/// Home and End reach (a looping clip's last frame is the one before the wrap, since the
/// frame at the clip's duration is frame 0 again; a clip that does not loop ends on it).
pub fn time_readout(p: &Previewer) -> String {
    let Some(clip) = p
        .stage
        .main
        .timeline
        .clip()
        .and_then(|i| p.model().clips.get(i))
    else {
        return "no clip".to_string();
    };
    let fps = p.stage.main.timeline.frame_rate_hz();
    let duration = clip.duration_secs() as f64;
    let last = p.stage.main.timeline.last_frame();
    // Padded to the widest value each field takes in this clip (the cycle to three
    // places): the readout keeps its width while it plays, so the row does not reflow.
    let secs_width = format!("{duration:.3}").len();
    let frame_width = format!("{last:.0}").len();
    format!(
        "{:>sw$.3} s / {:.3} s  frame {:>fw$.0} of 0-{:.0} @ {} fps  cycle {:>3}",
        p.stage.main.timeline.phase_secs(),
        duration,
        p.stage.main.timeline.frame_index().floor().min(last),
        last,
        fps_text(fps),
        p.stage.main.timeline.clock().time().cycle,
        sw = secs_width,
        fw = frame_width,
    )
}

fn marker_color(name: &str) -> Color32 {
    let lower = name.to_ascii_lowercase();
    if lower.contains("left") {
        Color32::from_rgb(90, 170, 255)
    } else if lower.contains("right") {
        Color32::from_rgb(255, 160, 60)
    } else {
        Color32::from_rgb(200, 200, 120)
    }
}

/// The smallest of 1, 2, 5, 10, 20, 50... that is at least `min` (and at least 1).
fn nice_step(min: f64) -> f64 {
    if !min.is_finite() || min <= 1.0 {
        return 1.0;
    }
    let decade = 10f64.powf(min.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|s| *s >= min)
        .unwrap_or(10.0 * decade)
}

fn scrub_bar_ui(p: &mut Previewer, ui: &mut egui::Ui) {
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
            let color = super::locomotion::FOOT[i % super::locomotion::FOOT.len()];
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
    let (markers, detected) = clip_index.map(|c| p.shown_markers(c)).unwrap_or_default();
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
                    p.set_message(e, true);
                }
            }
        }
    }
    if let (Some(c), Some(label)) = (clip_index, menu_label) {
        response.context_menu(|ui| {
            if ui.button(label).clicked() {
                if let Some(m) = menu_marker.and_then(|i| p.shown_markers(c).0.get(i).cloned()) {
                    if let Err(e) = p.remove_marker_near(c, m.time_secs, 0.0) {
                        p.set_message(e, true);
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
