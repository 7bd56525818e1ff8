//! The window's side of the UI's requests ([`Action`]): the system file dialogs (the
//! in-app browser where no desktop portal answers) and what each picked path is for.

use std::path::{Path, PathBuf};

use winit::event_loop::ActiveEventLoop;

use super::App;
use crate::file_browser::Purpose;
use crate::ui::Action;

/// A system file dialog: what it picks, with its filters (name, extensions).
enum Ask {
    /// An existing file.
    Open(&'static [(&'static str, &'static [&'static str])]),
    /// Where to save, with the name proposed.
    Save(
        &'static [(&'static str, &'static [&'static str])],
        &'static str,
    ),
    /// A folder.
    Folder,
}

/// Every format the window opens.
const MODELS: &[(&str, &[&str])] = &[("glTF 2.0, FBX and BVH", &["gltf", "glb", "fbx", "bvh"])];
const MAPS: &[(&str, &[&str])] = &[("RON map file", &["ron"])];

impl Ask {
    /// Shows the dialog titled for `purpose`; `None` when cancelled.
    fn show(&self, purpose: Purpose) -> Option<PathBuf> {
        let filters = match self {
            Ask::Open(f) | Ask::Save(f, _) => *f,
            Ask::Folder => &[],
        };
        let mut dialog = rfd::FileDialog::new().set_title(purpose.title());
        for (name, extensions) in filters {
            dialog = dialog.add_filter(*name, extensions);
        }
        match self {
            Ask::Open(_) => dialog.pick_file(),
            Ask::Save(_, name) => dialog.set_file_name(*name).save_file(),
            Ask::Folder => dialog.pick_folder(),
        }
    }
}

impl App {
    /// Carries out what the UI asked for this frame; false when it was Quit (the window
    /// is closing).
    pub(super) fn carry_out_actions(&mut self, event_loop: &ActiveEventLoop) -> bool {
        for action in self.previewer.take_actions() {
            let (purpose, ask) = match action {
                Action::OpenDialog => (Purpose::Open, Ask::Open(MODELS)),
                Action::OpenCompareDialog => (Purpose::CompareB, Ask::Open(MODELS)),
                Action::OpenRetargetDialog => (Purpose::Retarget, Ask::Open(MODELS)),
                Action::OpenLibraryDialog => (Purpose::Library, Ask::Folder),
                Action::LoadRetargetMapDialog => (Purpose::LoadMap, Ask::Open(MAPS)),
                Action::SaveRetargetMapDialog => {
                    (Purpose::SaveMap, Ask::Save(MAPS, "retarget-map.ron"))
                }
                Action::SaveRetargetedDialog => (
                    Purpose::SaveRetargeted,
                    Ask::Save(&[("glTF binary", &["glb"])], "retargeted.glb"),
                ),
                Action::ExportPreview => (
                    Purpose::Export,
                    Ask::Save(
                        &[
                            ("GIF", &["gif"]),
                            ("Animated PNG", &["png"]),
                            ("MP4 (ffmpeg)", &["mp4"]),
                        ],
                        "preview.gif",
                    ),
                ),
                Action::ExportPreviewTo(path) => {
                    self.export_preview_to(&path);
                    continue;
                }
                Action::Quit => {
                    self.exit(event_loop);
                    return false;
                }
            };
            let Some(path) = self.pick_file(purpose, || ask.show(purpose)) else {
                continue;
            };
            // Each reports its outcome in the status bar.
            let _ = match purpose {
                Purpose::Open => self.previewer.open_path(&path),
                Purpose::CompareB => self.previewer.compare_with_file(&path),
                Purpose::Retarget => self.previewer.retarget_from(&path),
                Purpose::LoadMap => self.previewer.load_retarget_map(&path),
                Purpose::SaveMap => self.previewer.save_retarget_map(&path),
                Purpose::SaveRetargeted => self.previewer.save_retargeted_clips(&path).map(|_| ()),
                Purpose::Library => {
                    self.previewer.open_library_folder(&path);
                    Ok(())
                }
                Purpose::Export => {
                    self.export_preview_to(&path);
                    Ok(())
                }
            };
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
                Err(e) => self
                    .previewer
                    .set_message(format!("export: {}", e.report()), true),
            }
        }
    }
}
