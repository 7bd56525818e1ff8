//! The in-app file browser window ([`crate::file_browser::FileBrowser`] on the
//! previewer): recent folders on the left, the folder's subfolders and files on the
//! right, a path field (Enter goes there or opens the file), Up, Open (or Save, with a
//! file name and a format, for an export) and Cancel. Double-click enters a folder or
//! picks a file; Escape closes. A file that fails to open leaves the browser open on its
//! folder with the error.

use super::Previewer;
use crate::controller::Action;
use crate::file_browser::Purpose;
use crate::render::frames::ExportFormat;

pub(super) fn file_browser_ui(p: &mut Previewer, ctx: &egui::Context) {
    let Some(mut browser) = p.take_file_browser() else {
        return;
    };
    let b = &mut browser;
    let recent = p.recent_folders();
    let mut open_file = None;
    let mut save = false;
    let mut close = ctx.input(|i| i.key_pressed(egui::Key::Escape));
    let purpose = b.purpose;
    egui::Window::new(purpose.title())
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
                if b.focus_pending && !purpose.saves() {
                    field.request_focus();
                    b.focus_pending = false;
                }
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
                    let (mut activated, mut clicked) = (None, None);
                    egui::ScrollArea::vertical()
                        .id_salt("browser_list")
                        .max_height(300.0)
                        .show(ui, |ui| {
                            if b.entries.is_empty() && b.error.is_none() {
                                ui.weak(match purpose {
                                    Purpose::Export => "No folders or previews here.",
                                    Purpose::SaveMap | Purpose::LoadMap => {
                                        "No folders or .ron map files here."
                                    }
                                    Purpose::SaveRetargeted => "No folders or .glb files here.",
                                    _ => "No folders or .gltf / .glb / .fbx / .bvh files here.",
                                });
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
                                    clicked = Some(i);
                                }
                            }
                        });
                    if let Some(i) = clicked {
                        b.select(i);
                    }
                    if let Some(i) = activated {
                        open_file = b.activate(i);
                    }
                    if purpose.saves() {
                        ui.horizontal(|ui| {
                            ui.label("file name");
                            let field = ui.add(
                                egui::TextEdit::singleline(&mut b.file_name).desired_width(200.0),
                            );
                            if b.focus_pending {
                                field.request_focus();
                                b.focus_pending = false;
                            }
                            let mut format = b.format;
                            if purpose == Purpose::Export {
                            egui::ComboBox::new("export_format", "format")
                                .selected_text(format_label(format))
                                .show_ui(ui, |ui| {
                                    for f in
                                        [ExportFormat::Gif, ExportFormat::Apng, ExportFormat::Mp4]
                                    {
                                        ui.selectable_value(&mut format, f, format_label(f));
                                    }
                                });
                            }
                            if format != b.format {
                                b.set_format(format);
                            }
                            if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                                save = true;
                            }
                        });
                    }
                    ui.horizontal(|ui| {
                        if purpose.saves() {
                            if ui.button("Save").clicked() {
                                save = true;
                            }
                        } else {
                            // A folder of motion capture opens as one character.
                            let has_bvh = b
                                .entries
                                .iter()
                                .any(|e| {
                                    !e.is_dir
                                        && (crate::asset::is_bvh_path(&e.path)
                                            || crate::asset::is_fbx_path(&e.path))
                                });
                            let folder_label = match purpose {
                                Purpose::Retarget => "Retarget this folder",
                                Purpose::Library => "Show this folder as a library",
                                _ => "Open this folder",
                            };
                            // A library takes glTF files too (each on its own skeleton).
                            let has_clips = has_bvh
                                || (purpose == Purpose::Library
                                    && b.entries.iter().any(|e| {
                                        !e.is_dir && crate::asset::is_gltf_path(&e.path)
                                    }));
                            if matches!(purpose, Purpose::Open | Purpose::Retarget | Purpose::Library)
                                && has_clips
                                && ui
                                    .button(folder_label)
                                    .on_hover_text(if purpose == Purpose::Library {
                                        "every clip of this folder's files, all at once, on this character"
                                    } else {
                                        "every BVH and FBX file of this folder as the clips of one character"
                                    })
                                    .clicked()
                            {
                                open_file = Some(b.dir.clone());
                            }
                            let can_open = b.selected.is_some();
                            if ui
                                .add_enabled(can_open, egui::Button::new("Open"))
                                .clicked()
                            {
                                if let Some(i) = b.selected {
                                    open_file = b.activate(i);
                                }
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
    if save {
        match b.save_path() {
            Ok(path) => open_file = Some(path),
            Err(e) => b.error = Some(e.report()),
        }
    }
    if let Some(path) = open_file {
        let done = match purpose {
            Purpose::Open => p.open_path(&path),
            Purpose::CompareB => p.compare_with_file(&path),
            Purpose::Retarget => p.retarget_from(&path),
            Purpose::Library => {
                p.open_library_folder(&path);
                Ok(())
            }
            Purpose::Export => {
                p.request(Action::ExportPreviewTo(path));
                Ok(())
            }
            Purpose::SaveMap => p.save_retarget_map(&path),
            Purpose::SaveRetargeted => p.save_retargeted_clips(&path),
            Purpose::LoadMap => p.load_retarget_map(&path),
        };
        match done {
            Ok(()) => p.close_file_browser(browser),
            // Stay on the folder being browsed, with the reason.
            Err(e) => {
                browser.error = Some(e.report());
                p.keep_file_browser(browser);
            }
        }
    } else if close {
        p.close_file_browser(browser);
    } else {
        p.keep_file_browser(browser);
    }
}

fn format_label(f: ExportFormat) -> &'static str {
    match f {
        ExportFormat::Gif => "GIF",
        ExportFormat::Apng => "animated PNG",
        ExportFormat::Mp4 => "MP4 (ffmpeg)",
    }
}
