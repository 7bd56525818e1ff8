//! Scripted runs (`--screenshot`, `--export`, `--drop`): a fixed step per frame, a file
//! dropped halfway, the status messages printed, and the picture or preview written after
//! `--after-frames` frames.

use std::path::{Path, PathBuf};

use winit::event_loop::ActiveEventLoop;

use super::gpu::save_screenshot;
use super::App;
use crate::render::PendingReadback;
use crate::AppError;

/// A file `--drop` hands to egui as a drag and drop would.
#[derive(Debug)]
pub(super) struct ScriptedDrop(pub(super) PathBuf);

impl egui::DroppedFile for ScriptedDrop {
    fn path(&self) -> &Path {
        &self.0
    }

    // egui's trait: its error is text.
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| format!("{}: {e}", self.0.display()))
    }
}

impl App {
    /// The end of a scripted frame: prints the new status messages; after
    /// `--after-frames` frames writes the export or the screenshot (`readback`, this
    /// frame's) and closes the window. True when the window is closing.
    pub(super) fn finish_scripted_frame(
        &mut self,
        event_loop: &ActiveEventLoop,
        readback: Option<PendingReadback>,
    ) -> bool {
        // Scripts and tests read what the status bar said, in order.
        let (new, seen) = self.previewer.messages_since(self.messages_printed);
        for m in new {
            let kind = if m.is_error { "error" } else { "status" };
            eprintln!("stridescope: {kind}: {}", m.text);
        }
        self.messages_printed = seen;
        let Some(gpu) = self.gpu.as_mut() else {
            return false;
        };

        if let Some(path) = self.options.export.clone() {
            if self.frame_count >= self.options.after_frames.max(1) {
                match gpu.export_preview(&mut self.previewer, &path) {
                    Ok(text) => eprintln!("stridescope: {text}"),
                    Err(e) => self.fatal = Some(e.context(format!("export {}", path.display()))),
                }
                self.exit(event_loop);
                return true;
            }
        }
        if let (Some(readback), Some(path)) = (readback, self.options.screenshot.clone()) {
            let format = gpu.config.format;
            let result = readback
                .finish(&gpu.ctx)
                .map_err(AppError::from)
                .and_then(|image| save_screenshot(image, format, &path));
            match result {
                Ok(()) => {
                    let [w, h] = self.previewer.viewport_size_px();
                    eprintln!("stridescope: viewport {w}x{h} px");
                    eprintln!("stridescope: wrote {}", path.display());
                }
                Err(e) => self.fatal = Some(e.context(format!("screenshot {}", path.display()))),
            }
            self.exit(event_loop);
            return true;
        }
        false
    }
}
