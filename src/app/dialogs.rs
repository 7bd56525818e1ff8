//! The window's side of the UI's requests ([`Action`]): the system file dialogs (the
//! in-app browser where no desktop portal answers) and what each picked path is for.

use std::path::{Path, PathBuf};

use winit::event_loop::ActiveEventLoop;

use super::App;
use crate::app::file_browser::Purpose;
use crate::app::ui::Action;

impl App {
    /// Carries out what the UI asked for this frame; false when it was Quit (the window
    /// is closing).
    pub(super) fn carry_out_actions(&mut self, event_loop: &ActiveEventLoop) -> bool {
        for action in self.previewer.take_actions() {
            match action {
                Action::OpenDialog => {
                    let picked = self.pick_file(Purpose::Open, || {
                        rfd::FileDialog::new()
                            .add_filter("glTF 2.0, FBX and BVH", &["gltf", "glb", "fbx", "bvh"])
                            .set_title(Purpose::Open.title())
                            .pick_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.open_path(&path);
                    }
                }
                Action::ExportPreview => {
                    let picked = self.pick_file(Purpose::Export, || {
                        rfd::FileDialog::new()
                            .add_filter("GIF", &["gif"])
                            .add_filter("Animated PNG", &["png"])
                            .add_filter("MP4 (ffmpeg)", &["mp4"])
                            .set_file_name("preview.gif")
                            .set_title(Purpose::Export.title())
                            .save_file()
                    });
                    if let Some(path) = picked {
                        self.export_preview_to(&path);
                    }
                }
                Action::ExportPreviewTo(path) => self.export_preview_to(&path),
                Action::OpenCompareDialog => {
                    let picked = self.pick_file(Purpose::CompareB, || {
                        rfd::FileDialog::new()
                            .add_filter("glTF 2.0, FBX and BVH", &["gltf", "glb", "fbx", "bvh"])
                            .set_title(Purpose::CompareB.title())
                            .pick_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.compare_with_file(&path);
                    }
                }
                Action::OpenRetargetDialog => {
                    let picked = self.pick_file(Purpose::Retarget, || {
                        rfd::FileDialog::new()
                            .add_filter("glTF 2.0, FBX and BVH", &["gltf", "glb", "fbx", "bvh"])
                            .set_title(Purpose::Retarget.title())
                            .pick_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.retarget_from(&path);
                    }
                }
                Action::OpenLibraryDialog => {
                    let picked = self.pick_file(Purpose::Library, || {
                        rfd::FileDialog::new()
                            .set_title(Purpose::Library.title())
                            .pick_folder()
                    });
                    if let Some(path) = picked {
                        self.previewer.open_library_folder(&path);
                    }
                }
                Action::SaveRetargetMapDialog => {
                    let picked = self.pick_file(Purpose::SaveMap, || {
                        rfd::FileDialog::new()
                            .add_filter("RON map file", &["ron"])
                            .set_file_name("retarget-map.ron")
                            .set_title(Purpose::SaveMap.title())
                            .save_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.save_retarget_map(&path);
                    }
                }
                Action::SaveRetargetedDialog => {
                    let picked = self.pick_file(Purpose::SaveRetargeted, || {
                        rfd::FileDialog::new()
                            .add_filter("glTF binary", &["glb"])
                            .set_file_name("retargeted.glb")
                            .set_title(Purpose::SaveRetargeted.title())
                            .save_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.save_retargeted_clips(&path);
                    }
                }
                Action::LoadRetargetMapDialog => {
                    let picked = self.pick_file(Purpose::LoadMap, || {
                        rfd::FileDialog::new()
                            .add_filter("RON map file", &["ron"])
                            .set_title(Purpose::LoadMap.title())
                            .pick_file()
                    });
                    if let Some(path) = picked {
                        let _ = self.previewer.load_retarget_map(&path);
                    }
                }
                Action::Quit => {
                    self.exit(event_loop);
                    return false;
                }
            }
        }
        true
    }

    /// Asks the system file dialog (`dialog`) for a file, or opens the in-app browser
    /// for `purpose` where no XDG desktop portal answers: without a session bus there is
    /// none; with one but no portal, rfd returns at once (nobody cancels a dialog in
    /// 150 ms), and the in-app browser is used from then on. `None`: cancelled, or the
    /// browser took over (it acts on the file itself).
    fn pick_file(
        &mut self,
        purpose: Purpose,
        dialog: impl FnOnce() -> Option<PathBuf>,
    ) -> Option<PathBuf> {
        if !self.portal_answers || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
            self.previewer.open_file_browser_for(purpose);
            return None;
        }
        let asked = std::time::Instant::now();
        let picked = dialog();
        if picked.is_none() && asked.elapsed() < std::time::Duration::from_millis(150) {
            self.portal_answers = false;
            self.previewer.open_file_browser_for(purpose);
        }
        picked
    }

    /// File > Export preview to `path`, with the outcome in the status bar.
    fn export_preview_to(&mut self, path: &Path) {
        if let Some(gpu) = self.gpu.as_mut() {
            match gpu.export_preview(&mut self.previewer, path) {
                Ok(text) => self.previewer.set_message(text, false),
                Err(e) => self.previewer.set_message(format!("export: {e}"), true),
            }
        }
    }
}
