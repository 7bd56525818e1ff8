//! What a user changed about a file's clips, kept beside the file: `<file>.clips.ron`
//! (`walk.fbx` -> `walk.fbx.clips.ron`). Loading the file applies it, so a renamed take,
//! a clip trimmed to its in/out range and edited sync markers come back the way they
//! were saved, in the window and in every command. The file itself is never written.
//!
//! ```ron
//! (clips: [
//!     (clip: "mixamo.com", rename: Some("Samba"), trim: Some((0.5, 2.25)),
//!      markers: Some([(name: "left_foot_down", time_secs: 0.1)])),
//! ])
//! ```
//!
//! Each entry names a clip as the file's import names it (stable across runs); `trim` is
//! in that clip's seconds, `markers` in the trimmed clip's. Unknown clips are warnings,
//! not errors (the file may have changed); a malformed sidecar is an error naming it and
//! the line.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ImportError, Model, WriteError};
use crate::anim::SyncMarker;

/// Every edit of one file's clips.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClipEdits {
    pub clips: Vec<ClipEdit>,
}

/// The edits of one clip.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClipEdit {
    /// The clip's name as the file's import gives it.
    pub clip: String,
    /// The name to show instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rename: Option<String>,
    /// The part kept, seconds of the clip as imported: `(start, end)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<(f32, f32)>,
    /// The sync markers (foot contacts and events) instead of the file's, seconds of the
    /// trimmed clip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markers: Option<Vec<SyncMarker>>,
}

impl ClipEdits {
    /// The entry for the clip the file names `clip`, made when missing.
    pub fn entry(&mut self, clip: &str) -> &mut ClipEdit {
        if let Some(i) = self.clips.iter().position(|e| e.clip == clip) {
            return &mut self.clips[i];
        }
        self.clips.push(ClipEdit {
            clip: clip.to_string(),
            ..Default::default()
        });
        self.clips.last_mut().expect("just pushed")
    }

    /// The name the file gives the clip now shown as `shown` (itself when not renamed).
    pub fn original_name<'a>(&'a self, shown: &'a str) -> &'a str {
        self.clips
            .iter()
            .find(|e| e.rename.as_deref() == Some(shown))
            .map_or(shown, |e| e.clip.as_str())
    }
}

/// Where the edits of `file` are kept: `<file>.clips.ron` beside it.
pub fn sidecar_path(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".clips.ron");
    file.with_file_name(name)
}

/// Reads `file`'s sidecar; `None` when it has none.
pub fn read(file: &Path) -> Result<Option<ClipEdits>, ImportError> {
    let path = sidecar_path(file);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ImportError::new(&path, "", format!("cannot read: {e}"))),
    };
    ron::from_str(&text).map(Some).map_err(|e| {
        ImportError::new(
            &path,
            "",
            format!(
                "line {}, column {}: {}",
                e.span.start.line, e.span.start.col, e.code
            ),
        )
    })
}

/// Writes `edits` as `file`'s sidecar (removes it when there is nothing to keep).
pub fn write(file: &Path, edits: &ClipEdits) -> Result<PathBuf, WriteError> {
    let path = sidecar_path(file);
    let fail = |message: String| WriteError {
        file: path.clone(),
        message,
    };
    if edits.clips.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(fail(e.to_string())),
            _ => Ok(path),
        };
    }
    let text = ron::ser::to_string_pretty(edits, ron::ser::PrettyConfig::default())
        .map_err(|e| fail(e.to_string()))?;
    std::fs::write(&path, text).map_err(|e| fail(e.to_string()))?;
    Ok(path)
}

/// Applies `edits` (read from `sidecar`) to `model`'s clips: trim, then markers, then
/// the name. A clip the file no longer has is a warning on the model.
pub fn apply(model: &mut Model, edits: &ClipEdits, sidecar: &Path) -> Result<(), ImportError> {
    for e in &edits.clips {
        let Some(i) = model.clips.iter().position(|c| c.name() == e.clip) else {
            model.warnings.push(format!(
                "clip edits ({}): the file has no clip '{}'; its edits are not applied",
                sidecar.display(),
                e.clip
            ));
            continue;
        };
        let element = format!("clip '{}'", e.clip);
        let err = |detail: String| ImportError::new(sidecar, &element, detail);
        let mut clip = model.clips[i].clone();
        if let Some((a, b)) = e.trim {
            clip = clip
                .trimmed(a, b, clip.name().to_string())
                .map_err(|x| err(x.to_string()))?;
        }
        if let Some(markers) = &e.markers {
            clip = clip
                .with_markers(markers.clone())
                .map_err(|x| err(x.to_string()))?;
        }
        if let Some(name) = &e.rename {
            let name = name.trim();
            if name.is_empty() {
                return Err(err("an empty new name".into()));
            }
            clip.set_name(name.to_string());
        }
        model.clips[i] = clip;
    }
    Ok(())
}

/// Loads `file`'s sidecar, if any, onto `model` (what every load of a file does).
pub(super) fn apply_sidecar(model: &mut Model, file: &Path) -> Result<(), ImportError> {
    if let Some(edits) = read(file)? {
        apply(model, &edits, &sidecar_path(file))?;
    }
    Ok(())
}
