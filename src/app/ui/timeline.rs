//! The timeline panel: transport buttons, rate, loop, root-motion mode, time readout and
//! the scrub bar with sync markers. Dragging the playhead is a seek (no root motion).

use crate::controller::Transport;
use egui::{Color32, Vec2};

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
    super::scrub_bar::scrub_bar_ui(p, ui);
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
