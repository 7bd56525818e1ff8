//! The in-app file browser window ([`crate::file_browser::FileBrowser`] on the
//! previewer): recent folders on the left, the folder's subfolders and glTF files on the
//! right, a path field (Enter goes there or opens the file), Up, Open and Cancel.
//! Double-click enters a folder or opens a file; Escape closes.

use super::Previewer;

pub(super) fn file_browser_ui(p: &mut Previewer, ctx: &egui::Context) {
    if p.file_browser.is_none() {
        return;
    }
    let recent = p.recent_folders();
    let mut open_file = None;
    let mut close = ctx.input(|i| i.key_pressed(egui::Key::Escape));
    let Some(b) = p.file_browser.as_mut() else {
        return;
    };
    egui::Window::new("Open a glTF character")
        .collapsible(false)
        .default_size([620.0, 420.0])
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                if ui.button("Up").on_hover_text("parent folder").clicked() {
                    b.up();
                }
                let field = ui.add(
                    egui::TextEdit::singleline(&mut b.typed)
                        .desired_width(ui.available_width() - 90.0),
                );
                let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if ui.button("Go").clicked() || entered {
                    open_file = b.submit_typed();
                }
            });
            if let Some(e) = &b.error {
                ui.colored_label(egui::Color32::from_rgb(255, 120, 100), e);
            }
            ui.separator();
            ui.horizontal_top(|ui| {
                if !recent.is_empty() {
                    ui.vertical(|ui| {
                        ui.set_width(150.0);
                        ui.label(egui::RichText::new("Recent folders").strong());
                        for folder in recent.iter().take(10) {
                            let name = folder
                                .file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_else(|| folder.display().to_string());
                            if ui
                                .selectable_label(b.dir == *folder, name)
                                .on_hover_text(folder.display().to_string())
                                .clicked()
                            {
                                b.go_to(folder);
                            }
                        }
                    });
                    ui.separator();
                }
                ui.vertical(|ui| {
                    let mut activated = None;
                    egui::ScrollArea::vertical()
                        .id_salt("browser_list")
                        .max_height(300.0)
                        .show(ui, |ui| {
                            if b.entries.is_empty() && b.error.is_none() {
                                ui.weak("No folders or .gltf / .glb files here.");
                            }
                            for (i, e) in b.entries.iter().enumerate() {
                                let text = if e.is_dir {
                                    format!("{}/", e.name)
                                } else {
                                    e.name.clone()
                                };
                                let row = ui.selectable_label(b.selected == Some(i), text);
                                if row.double_clicked() {
                                    activated = Some(i);
                                } else if row.clicked() {
                                    b.selected = Some(i);
                                }
                            }
                        });
                    if let Some(i) = activated {
                        open_file = b.activate(i);
                    }
                    ui.horizontal(|ui| {
                        let can_open = b.selected.is_some();
                        if ui
                            .add_enabled(can_open, egui::Button::new("Open"))
                            .clicked()
                        {
                            if let Some(i) = b.selected {
                                open_file = b.activate(i);
                            }
                        }
                        if ui.button("Cancel").clicked() {
                            close = true;
                        }
                        if ui.checkbox(&mut b.show_hidden, "hidden").changed() {
                            b.refresh();
                        }
                    });
                });
            });
        });
    if let Some(path) = open_file {
        p.file_browser = None;
        let _ = p.open_path(&path);
    } else if close {
        p.file_browser = None;
    }
}
