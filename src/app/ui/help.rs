//! The Help menu's windows: the keyboard shortcuts (searchable, F1) and what the panels'
//! figures mean, with where the README says more. The shortcut list is the README's
//! table (a test keeps the two the same).

use super::Previewer;
use crate::controller::ViewCommand;

/// Every window shortcut: keys, what they do.
pub const SHORTCUTS: &[(&str, &str)] = &[
    (
        "Left drag / middle or Shift+left drag / wheel",
        "orbit / pan / zoom the camera",
    ),
    ("F, double-click", "frame the character"),
    (
        "Numpad 1 / 3 / 7 (Alt+1 / 3 / 7)",
        "camera from the front / right side / top; with Ctrl the back / left side",
    ),
    (
        "Click a joint",
        "select it (outliner, highlight, curve view); click empty space to clear",
    ),
    ("Space", "play / pause"),
    ("Left / Right", "step one frame"),
    ("Home / End", "jump to the start / end of the cycle"),
    ("L", "loop on / off"),
    (
        "I / O",
        "set the in / out point of the playback range at the playhead",
    ),
    ("Alt+I", "clear the in/out range"),
    ("P", "ping-pong (turn round at the ends) on / off"),
    ("D", "drive on / off (locomotion at a movement speed)"),
    (
        "M",
        "motion matching on / off; WASD or arrows move, Shift runs, Ctrl strafes",
    ),
    (
        "1 / 2 / 3",
        "root motion: In place / Accumulate / Loop and reset",
    ),
    ("G", "library view on / off (every clip at once in a grid)"),
    (
        "Ctrl+wheel over the timeline",
        "zoom the timeline (Shift+wheel pans)",
    ),
    ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo the last clip edit or pose-graph edit"),
    ("Alt+Up / Alt+Down", "move the playing clip up / down the clip list"),
    (
        "Ctrl+S",
        "save the clip edits beside the file (right-click a clip: rename, trim, markers, additive, hide, order, opening clip)",
    ),
    ("Ctrl+O, Ctrl+Q", "open, quit"),
    ("F1", "this list"),
];

/// What the panels' figures mean: figure, meaning.
pub const FIGURES: &[(&str, &str)] = &[
    ("slide (m/s)", "Retarget: mean speed of the feet while the source's are planted and still (0 = planted); an in-place source is measured against its treadmill"),
    ("contact", "Retarget: overlap of the target's planted times with the source's, 0..1"),
    ("speed ×, leg ×", "Retarget: root speed and leg length against the source's; an in-place walk's speed ratio is its leg ratio"),
    ("feet off % (max %)", "Retarget: distance of the feet from the source's feet scaled by the leg ratio, in leg lengths; orange over 10%"),
    ("Loop seam: ... pops N cm", "How far the end of a joint's chain jumps at the loop, on a human-sized character; orange over the lint's threshold"),
    ("Root speed along travel (m/s)", "Each frame's root displacement along the travel direction per second; red where it moves backwards; an in-place clip shows the speed its feet imply"),
    ("in place / root motion", "Whether a clip carries its travel in its root or on a treadmill (the reason is shown); override beside Drive"),
    ("Trajectory error (m)", "Motion matching: distance between the character and the simulated point it follows"),
    ("Inertialization (cm, °)", "Motion matching: the largest blend offset left after a jump, decaying to 0"),
    ("planted feet's world speed (m/s)", "Drive: how fast a planted foot slides over the ground; skating over the threshold shown"),
];

/// The README section on the window (on disk beside the sources when they are there).
/// This crate's manifest is `src/app/Cargo.toml`; the README is two folders up.
fn readme() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")
}

/// Draws the Help windows the user opened.
pub(super) fn help_windows_ui(p: &mut Previewer, ctx: &egui::Context) {
    if p.view.windows.shortcuts {
        let mut open = true;
        egui::Window::new("Keyboard shortcuts")
            .open(&mut open)
            .default_size([520.0, 420.0])
            .show(ctx, |ui| {
                let id = egui::Id::unique("shortcut_filter");
                let mut filter: String = ui.data(|d| d.get_temp(id)).unwrap_or_default();
                ui.horizontal(|ui| {
                    ui.label("find");
                    let field =
                        ui.add(egui::TextEdit::singleline(&mut filter).desired_width(200.0));
                    field.widget_info(|| {
                        egui::WidgetInfo::labeled(egui::Role::SearchInput, true, "find a shortcut")
                    });
                });
                ui.data_mut(|d| d.insert_temp(id, filter.clone()));
                let needle = filter.to_lowercase();
                egui::ScrollArea::vertical().show(ui, |ui| {
                    egui::Grid::new("shortcuts")
                        .striped(true)
                        .num_columns(2)
                        .show(ui, |ui| {
                            for (keys, action) in SHORTCUTS {
                                let hit = needle.is_empty()
                                    || keys.to_lowercase().contains(&needle)
                                    || action.to_lowercase().contains(&needle);
                                if hit {
                                    ui.monospace(*keys);
                                    ui.add(egui::Label::new(*action).wrap());
                                    ui.end_row();
                                }
                            }
                        });
                });
            });
        if !open {
            p.set_view(ViewCommand::ShowShortcuts(false));
        }
    }
    if p.view.windows.figures {
        let mut open = true;
        egui::Window::new("What the figures mean")
            .open(&mut open)
            .default_size([560.0, 440.0])
            .show(ctx, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    for (figure, meaning) in FIGURES {
                        ui.strong(*figure);
                        ui.add(egui::Label::new(*meaning).wrap());
                        ui.add_space(4.0);
                    }
                    ui.separator();
                    let path = readme();
                    if path.is_file() {
                        ui.hyperlink_to(
                            "More: README.md, \"The previewer window\"",
                            format!("file://{}", path.display()),
                        );
                    } else {
                        ui.label("More: README.md, \"The previewer window\", in the sources");
                    }
                });
            });
        if !open {
            p.set_view(ViewCommand::ShowFigures(false));
        }
    }
}
