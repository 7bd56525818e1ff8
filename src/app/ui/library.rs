//! The library view's UI: labels over the grid's characters, hover to enlarge, click to
//! open a clip, and a bar in place of the timeline (play/pause, time, leave).

use egui::{Color32, Key, Modifiers};
use glam::Vec2;

use crate::controller::{Action, Previewer};

/// Labels narrower than this (points) are not drawn, except the hovered one: hundreds of
/// clips seen from afar would be a blur of text.
const MIN_LABEL_CELL_PT: f32 = 46.0;

/// The library view's keys: Space pauses, F frames the grid, Esc or G leaves (Esc goes
/// to the file browser or an open menu first), Ctrl+O and Ctrl+Q still open and quit.
/// Returns true when the view is open (the character's own shortcuts then do nothing).
pub(super) fn library_keys(p: &mut Previewer, ui: &egui::Ui) -> bool {
    if p.library_view().is_none() {
        if ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::G)) {
            p.open_library_view();
            return p.library_view().is_some();
        }
        return false;
    }
    let esc_is_ours = p.view.windows.file_browser.is_none() && !ui.ctx().any_popup_open();
    let (space, frame, leave, open, quit) = ui.input_mut(|i| {
        (
            i.consume_key(Modifiers::NONE, Key::Space),
            i.consume_key(Modifiers::NONE, Key::F),
            (esc_is_ours && i.consume_key(Modifiers::NONE, Key::Escape))
                | i.consume_key(Modifiers::NONE, Key::G),
            i.consume_key(Modifiers::COMMAND, Key::O),
            i.consume_key(Modifiers::COMMAND, Key::Q),
        )
    });
    if space {
        p.toggle_library_play();
    }
    if frame {
        p.frame_library();
    }
    if leave {
        p.close_library_view();
    }
    if open {
        p.request(Action::OpenDialog);
    }
    if quit {
        p.request(Action::Quit);
    }
    true
}

/// Over the viewport (`rect`, points) while the library view is open: each cell's label
/// above its character, the hovered cell enlarged with its label highlighted, a click
/// opening its clip. Returns true when the view is open (camera input still applies).
pub(super) fn library_viewport_ui(
    p: &mut Previewer,
    ui: &egui::Ui,
    rect: egui::Rect,
    response: &egui::Response,
) -> bool {
    if p.library_view().is_none() {
        return false;
    }
    let ppp = ui.ctx().pixels_per_point();
    let to_local = |pos: egui::Pos2| {
        let local = (pos - rect.min) * ppp;
        Vec2::new(local.x, local.y)
    };
    let hovered = response
        .hover_pos()
        .filter(|_| !response.dragged())
        .and_then(|pos| p.library_cell_at(to_local(pos)));
    p.hover_library_cell(hovered);
    if response.clicked() {
        if let Some(cell) = response
            .interact_pointer_pos()
            .and_then(|pos| p.library_cell_at(to_local(pos)))
        {
            p.open_library_cell(cell);
            return true;
        }
    }
    let Some(v) = p.library_view() else {
        return true;
    };
    let [w, h] = p.viewport_size_px();
    let size = Vec2::new(w as f32, h as f32);
    let clip_from_world = p.view.camera.clip_from_world(size.x / size.y.max(1.0));
    let to_points = |world: glam::Vec3| {
        crate::render::camera::world_to_pixel(&clip_from_world, world, size)
            .map(|px| rect.min + egui::vec2(px.x, px.y) / ppp)
    };
    // How wide a cell looks here, from the grid's middle: labels show when it is wide
    // enough to hold a few words.
    let right = p.view.camera.right_up().0 * v.grid.spacing_m();
    let cell_pt = v
        .grid
        .center(v.grid.len() / 2)
        .and_then(|c| Some((to_points(c)?, to_points(c + right)?)))
        .map_or(0.0, |(a, b)| (b - a).length());
    let painter = ui.painter().with_clip_rect(rect);
    let font = egui::FontId::proportional((cell_pt / 9.0).clamp(9.0, 13.0));
    // As many characters as fit a cell with a gap to the next label (measured in this
    // font: neighbouring labels must not run into each other).
    let char_pt = painter
        .layout_no_wrap("dataset_run_0123".into(), font.clone(), Color32::WHITE)
        .size()
        .x
        / 16.0;
    let chars = (((cell_pt - 8.0) / char_pt.max(1.0)) as usize).max(6);
    let mut hovered_label = None;
    for cell in 0..v.grid.len() {
        let is_hovered = hovered == Some(cell);
        if cell_pt < MIN_LABEL_CELL_PT && !is_hovered {
            continue;
        }
        let Some(at) = v.grid.label_anchor(cell).and_then(to_points) else {
            continue;
        };
        if !rect.contains(at) {
            continue;
        }
        let label = v.grid.label(cell);
        // Cut in the middle: a session's takes differ only at the end (`..._002`).
        let text = if is_hovered {
            label.to_string()
        } else {
            crate::asset::naming::elide_keeping_end(label, chars)
        };
        if is_hovered {
            // Drawn after every other label, over them.
            hovered_label = Some((at, text));
        } else {
            painter.text(
                at,
                egui::Align2::CENTER_BOTTOM,
                text,
                font.clone(),
                Color32::from_gray(225),
            );
        }
    }
    if let Some((at, text)) = hovered_label {
        let galley = painter.layout_no_wrap(
            text,
            egui::FontId::proportional(14.0),
            Color32::from_rgb(255, 220, 120),
        );
        let r = egui::Align2::CENTER_BOTTOM
            .anchor_size(at, galley.size())
            .expand(3.0);
        painter.rect_filled(r, 3.0, Color32::from_black_alpha(170));
        painter.galley(r.min + egui::vec2(3.0, 3.0), galley, Color32::WHITE);
    }
    true
}

/// The bar in place of the timeline while the library view is open.
pub(super) fn library_bar_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(v) = p.library_view() else {
        return;
    };
    let (playing, time, n) = (v.playing, v.time_secs, v.grid.len());
    let columns = v.grid.columns();
    let mut filter = v.filter.clone();
    let all = p.library_clips("").len();
    ui.horizontal_wrapped(|ui| {
        let label = if playing { "Pause" } else { "Play" };
        if ui
            .button(label)
            .on_hover_text("every clip at once (Space)")
            .clicked()
        {
            p.toggle_library_play();
        }
        ui.label(format!("{time:.2} s"));
        ui.separator();
        let field = ui.add(
            egui::TextEdit::singleline(&mut filter)
                .hint_text("filter by name")
                .desired_width(140.0),
        );
        field.widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::TextInput, true, "filter by name")
        });
        if field.changed() {
            p.set_library_filter(&filter);
        }
        let shown = if n == all {
            format!("{n} clips")
        } else {
            format!("{n} of {all} clips")
        };
        ui.label(format!(
            "{shown} in {} rows of {columns}",
            n.div_ceil(columns)
        ))
        .on_hover_text("hover a character to enlarge it, click to open its clip");
        ui.separator();
        if ui.button("Frame all  (F)").clicked() {
            p.frame_library();
        }
        if ui
            .button("Open a folder…")
            .on_hover_text("another folder of clips as the library, on this character")
            .clicked()
        {
            p.request(Action::OpenLibraryDialog);
        }
        if ui
            .button("Close the grid  (Esc)")
            .on_hover_text("back to the single-clip view of this character, its camera as it was")
            .clicked()
        {
            p.close_library_view();
        }
    });
}
