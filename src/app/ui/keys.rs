//! The window's keyboard shortcuts (each matched with the modifiers held when its key
//! went down) and files dropped on the window.

use std::path::PathBuf;

use egui::Key;

use super::*;
use crate::controller::{StageCommand, Transport, ViewCommand};
use crate::stage::timeline::RootMotionMode;

impl Previewer {
    pub(super) fn keyboard(&mut self, ui: &egui::Ui) {
        // A dialog owns the keyboard while it is open (its fields, Enter and Escape):
        // nothing typed into it may toggle the window behind it.
        if ui.ctx().egui_wants_keyboard_input() || self.view.windows.file_browser.is_some() {
            if self.matching().is_some() {
                self.send(StageCommand::MatchingKeys(Default::default()));
            }
            return;
        }
        use egui::Modifiers;
        if library::library_keys(self, ui) {
            return;
        }
        if ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::M)) {
            let on = self.matching().is_none();
            self.set_matching_enabled(on);
        }
        if let Some(m) = self.matching() {
            // Motion matching owns the movement keys while it is on: held WASD / arrows
            // steer; paused, Left/Right step through the recording.
            let paused = !m.playing;
            self.send(StageCommand::MatchingKeys(matching::read_keys(ui)));
            let step = ui.input_mut(|i| {
                let back = i.consume_key(Modifiers::NONE, Key::ArrowLeft);
                let fwd = i.consume_key(Modifiers::NONE, Key::ArrowRight);
                i.consume_key(Modifiers::NONE, Key::D);
                fwd as i64 - back as i64
            });
            if paused && step != 0 {
                self.step_matching_view(step);
            }
        }
        // Each shortcut is matched with the modifiers held when its key went down (a
        // quick Ctrl+Q can release Ctrl before the frame runs).
        let shortcuts: [(Modifiers, Key); 29] = [
            (Modifiers::NONE, Key::F1),
            // The playing clip up or down the clip list.
            (Modifiers::ALT, Key::ArrowUp),
            (Modifiers::ALT, Key::ArrowDown),
            // The range: Alt+I clears it (before plain I, which would also match).
            (Modifiers::ALT, Key::I),
            (Modifiers::NONE, Key::I),
            (Modifiers::NONE, Key::O),
            (Modifiers::NONE, Key::P),
            // Camera views on Alt+digits (for keyboards without a numpad) before the plain
            // digits, which would also match them.
            (Modifiers::COMMAND | Modifiers::ALT, Key::Num1),
            (Modifiers::COMMAND | Modifiers::ALT, Key::Num3),
            (Modifiers::ALT, Key::Num1),
            (Modifiers::ALT, Key::Num3),
            (Modifiers::ALT, Key::Num7),
            (Modifiers::ALT, Key::Num9),
            // Redo before undo: Ctrl+Shift+Z would also match a plain Ctrl+Z.
            (Modifiers::COMMAND | Modifiers::SHIFT, Key::Z),
            (Modifiers::COMMAND, Key::Z),
            (Modifiers::COMMAND, Key::O),
            (Modifiers::COMMAND, Key::S),
            (Modifiers::COMMAND, Key::Q),
            (Modifiers::NONE, Key::Space),
            (Modifiers::NONE, Key::ArrowLeft),
            (Modifiers::NONE, Key::ArrowRight),
            (Modifiers::NONE, Key::Home),
            (Modifiers::NONE, Key::End),
            (Modifiers::NONE, Key::L),
            (Modifiers::NONE, Key::F),
            (Modifiers::NONE, Key::D),
            (Modifiers::NONE, Key::Num1),
            (Modifiers::NONE, Key::Num2),
            (Modifiers::NONE, Key::Num3),
        ];
        let pressed: Vec<(Modifiers, Key)> = ui.input_mut(|i| {
            shortcuts
                .into_iter()
                .filter(|(m, k)| i.consume_key(*m, *k))
                .collect()
        });
        if pressed.is_empty() {
            return;
        }
        for (modifiers, key) in pressed {
            match (key, modifiers.alt) {
                (Key::I, true) => {
                    self.transport(Transport::Range(None));
                    continue;
                }
                (Key::I, false) => {
                    self.transport(Transport::InAtPlayhead);
                    continue;
                }
                (Key::O, _) => {
                    self.transport(Transport::OutAtPlayhead);
                    continue;
                }
                (Key::ArrowUp | Key::ArrowDown, true) => {
                    if let Some(clip) = self.stage.main.timeline.clip() {
                        let by = if key == Key::ArrowUp { -1 } else { 1 };
                        if let Err(e) = self.move_clip(clip, by) {
                            self.set_message(e.report(), true);
                        }
                    }
                    continue;
                }
                (Key::P, _) => {
                    let on = !self.stage.main.timeline.ping_pong();
                    self.transport(Transport::PingPong(on));
                    continue;
                }
                _ => {}
            }
            if modifiers.alt {
                let digit = match key {
                    Key::Num1 => 1,
                    Key::Num3 => 3,
                    Key::Num7 => 7,
                    _ => 9,
                };
                if let Some(preset) = CameraPreset::for_digit(digit, modifiers.command) {
                    self.camera_preset(preset);
                }
                continue;
            }
            match key {
                Key::Z if modifiers.command && modifiers.shift => self.redo_edit(),
                Key::Z if modifiers.command => self.undo_edit(),
                Key::O if modifiers.command => self.request(Action::OpenDialog),
                Key::F1 => self.set_view(ViewCommand::ShowShortcuts(!self.view.windows.shortcuts)),
                Key::S if modifiers.command => {
                    if let Err(e) = self.save_clip_edits() {
                        self.set_message(format!("save clip edits: {}", e.report()), true);
                    }
                }
                Key::Q if modifiers.command => self.request(Action::Quit),
                Key::Space => self.toggle_play(),
                Key::ArrowLeft => self.transport(Transport::Step(-1)),
                Key::ArrowRight => self.transport(Transport::Step(1)),
                Key::Home => self.transport(Transport::ToStart),
                Key::End => self.transport(Transport::ToEnd),
                Key::L => {
                    let looping = !self.stage.main.timeline.clock().looping();
                    self.transport(Transport::Looping(looping));
                }
                Key::F => self.frame_character(),
                Key::D => {
                    let on = !self.is_driving();
                    self.set_drive(on);
                }
                Key::Num1 => self.transport(Transport::Mode(RootMotionMode::InPlace)),
                Key::Num2 => self.transport(Transport::Mode(RootMotionMode::Accumulate)),
                Key::Num3 => self.transport(Transport::Mode(RootMotionMode::LoopAndReset)),
                _ => {}
            }
        }
        self.evaluate_pose();
    }

    pub(super) fn dropped_files(&mut self, ui: &egui::Ui) {
        let dropped: Vec<PathBuf> = ui.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if let Some(path) = dropped.last() {
            let _ = self.open_path(path);
        }
    }
}
