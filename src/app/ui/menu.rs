//! The menu bar (File, View, Help) and the viewport toggles.

use super::*;
use crate::controller::ViewCommand;
use crate::AppError;

impl Previewer {
    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open…  (Ctrl+O)").clicked() {
                    self.request(Action::OpenDialog);
                    ui.close();
                }
                if ui
                    .button("Open the motion-matching demo")
                    .on_hover_text(
                        "the demo character with a locomotion set (walk, run, turns, strafes, \
                         start, stop), driven with WASD",
                    )
                    .clicked()
                {
                    self.open_matching_demo();
                    ui.close();
                }
                if ui
                    .button("Open with the built-in browser…")
                    .on_hover_text("a file browser inside the window, with recent folders")
                    .clicked()
                {
                    self.open_file_browser();
                    ui.close();
                }
                if ui
                    .button("Retarget onto this character…")
                    .on_hover_text(
                        "play the clips of another humanoid (glTF, FBX, BVH, or a folder) on this one: they join the clip list",
                    )
                    .clicked()
                {
                    self.request(Action::OpenRetargetDialog);
                    ui.close();
                }
                if ui
                    .add_enabled(
                        self.retarget.is_some(),
                        egui::Button::new("Save retargeted clips…"),
                    )
                    .on_hover_text(
                        "the character's GLB with the clips the last retarget added, as \
                         `stridescope retarget --out` writes it",
                    )
                    .clicked()
                {
                    self.request(Action::SaveRetargetedDialog);
                    ui.close();
                }
                if ui
                    .button("Open a folder as a library…")
                    .on_hover_text(
                        "every clip of a folder (glTF, FBX, BVH) at once in a grid, on this \
                         character (retargeted when the skeletons differ)",
                    )
                    .clicked()
                {
                    self.request(Action::OpenLibraryDialog);
                    ui.close();
                }
                let can_save = self.stage.main.path.is_some();
                if ui
                    .add_enabled(
                        can_save,
                        egui::Button::new(if self.clip_edits_unsaved() {
                            "Save clip edits  (Ctrl+S) *"
                        } else {
                            "Save clip edits  (Ctrl+S)"
                        }),
                    )
                    .on_hover_text(
                        "keep renamed, trimmed and re-marked clips beside the file \
                         (<file>.clips.ron): opening the file again shows them so",
                    )
                    .clicked()
                {
                    if let Err(e) = self.save_clip_edits() {
                        self.set_message(format!("save clip edits: {}", e.report()), true);
                    }
                    ui.close();
                }
                if ui
                    .button("Export preview…")
                    .on_hover_text(
                        "one cycle of the clip as the viewport shows it: GIF, animated PNG or MP4",
                    )
                    .clicked()
                {
                    self.request(Action::ExportPreview);
                    ui.close();
                }
                if ui.button("Open the demo character").clicked() {
                    match crate::asset::load_or_demo_with(None, &self.load_options()) {
                        Ok(m) => self.replace_model(m, None),
                        Err(e) => self.set_message(AppError::from(e).report(), true),
                    }
                    ui.close();
                }
                ui.separator();
                ui.label("Recent files");
                let recent = self.settings.recent_files.clone();
                if recent.is_empty() {
                    ui.weak("(none yet)");
                }
                for path in recent {
                    if ui.button(path.display().to_string()).clicked() {
                        let _ = self.open_path(&path);
                        ui.close();
                    }
                }
                ui.separator();
                if ui.button("Quit  (Ctrl+Q)").clicked() {
                    self.request(Action::Quit);
                }
            });
            ui.menu_button("View", |ui| {
                self.toggles_ui(ui);
                ui.separator();
                let open = self.library_view().is_some();
                if ui
                    .selectable_label(open, "Library view: every clip at once  (G)")
                    .on_hover_text("the open character's clips in a grid, all playing")
                    .clicked()
                {
                    if open {
                        self.close_library_view();
                    } else {
                        self.open_library_view();
                    }
                    ui.close();
                }
                ui.separator();
                if ui
                    .button("Messages…")
                    .on_hover_text("every status message, error and warning of this session")
                    .clicked()
                {
                    self.set_view(ViewCommand::ShowMessages(true));
                    ui.close();
                }
            });
            ui.menu_button("Help", |ui| {
                if ui.button("Keyboard shortcuts…  (F1)").clicked() {
                    self.set_view(ViewCommand::ShowShortcuts(true));
                    ui.close();
                }
                if ui
                    .button("What the figures mean…")
                    .on_hover_text("the retarget, seam, root-motion, drive and motion-matching figures, with units and thresholds")
                    .clicked()
                {
                    self.set_view(ViewCommand::ShowFigures(true));
                    ui.close();
                }
            });
            ui.separator();
            ui.label(match &self.stage.main.path {
                Some(p) => p.display().to_string(),
                // Not from one file: the demo, or a character built in memory (a motion
                // matching library on it).
                None if self.stage.main.model.source == "demo.glb" || self.stage.main.model.source == "demo" => {
                    "built-in demo character".to_string()
                }
                None => self.stage.main.model.source.clone(),
            });
        });
    }

    /// Viewport toggles (also in the View menu).
    pub fn toggles_ui(&mut self, ui: &mut egui::Ui) {
        let mut t = self.view.toggles;
        ui.checkbox(&mut t.mesh, "Mesh");
        ui.checkbox(&mut t.skeleton, "Skeleton");
        ui.checkbox(&mut t.grid, "Grid");
        ui.checkbox(&mut t.bind_pose, "Bind pose");
        ui.checkbox(&mut t.trail, "Root-motion trail");
        ui.checkbox(&mut t.follow, "Camera follows character");
        if t != self.view.toggles {
            self.set_view(ViewCommand::Toggles(t));
        }
        let mut curves = self.inspect.show_curves;
        if ui
            .checkbox(&mut curves, "Curve view (selected joint)")
            .changed()
        {
            self.set_view(ViewCommand::ShowCurves(curves));
        }
        inspect::onion_ui(self, ui);
        if ui.button("Frame character  (F)").clicked() {
            self.frame_character();
        }
        if ui.button("Reset view").clicked() {
            self.reset_view();
        }
        ui.menu_button("Camera", |ui| {
            for preset in CameraPreset::ALL {
                if ui.button(preset.label()).clicked() {
                    self.camera_preset(preset);
                    ui.close();
                }
            }
        });
    }
}
