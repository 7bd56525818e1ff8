//! What a user changed about a file's clips, kept beside the file: `<file>.clips.ron`
//! (`walk.fbx` -> `walk.fbx.clips.ron`). Loading the file applies it, so a renamed take,
//! a clip trimmed to its in/out range and edited sync markers come back the way they
//! were saved, in the window and in every command. The file itself is never written.
//!
//! ```ron
//! (clips: [
//!     (clip: "mixamo.com", rename: Some("Samba"), trim: Some((0.5, 2.25)),
//!      markers: Some([(name: "left_foot_down", time_secs: 0.1)])),
//!     (clip: "Take 002", hidden: true),
//!     (clip: "Wave", additive: Some(FromSecs(0.5))),
//! ], order: ["mixamo.com", "Wave"], default_clip: Some("Wave"))
//! ```
//!
//! Each entry names a clip as the file's import names it (stable across runs); `trim` is
//! in that clip's seconds, `markers` and `additive` in the trimmed clip's. `order` lists
//! clips first in the window's list (the rest follow in the file's order), `default_clip`
//! is the clip the file opens on, `hidden` leaves a clip out of lists and grids. Unknown
//! clips are warnings, not errors (the file may have changed); a malformed sidecar is an
//! error naming it and the line.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ImportError, Model, WriteError};
use crate::anim::SyncMarker;

/// Every edit of one file's clips.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClipEdits {
    /// One entry per edited clip, named as the file's import names it.
    pub clips: Vec<ClipEdit>,
    /// Clips listed first, in this order (the file's names); the others follow in the
    /// file's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order: Vec<String>,
    /// The clip the file opens on (the file's name for it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_clip: Option<String>,
}

/// A clip made additive, or an authored additive clip made a plain one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum AdditiveEdit {
    /// Not additive.
    Off,
    /// Additive relative to its own frame at this time, seconds of the trimmed clip.
    FromSecs(f32),
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
    /// Left out of the clip list and the library grid (shown with "Show hidden").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    /// Additive relative to one of its frames, or not additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additive: Option<AdditiveEdit>,
}

impl ClipEdit {
    /// True when the entry changes nothing (it can be dropped).
    pub fn is_empty(&self) -> bool {
        self.rename.is_none()
            && self.trim.is_none()
            && self.markers.is_none()
            && !self.hidden
            && self.additive.is_none()
    }
}

/// How the user arranged a file's clips: the order they are listed in, the ones hidden
/// and the one the file opens on (clip indices of the model; from its sidecar).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipArrangement {
    /// Clip indices listed first, in this order; the others follow in index order.
    pub order: Vec<usize>,
    /// Clips the user hid.
    pub hidden: Vec<usize>,
    /// The clip the file opens on.
    pub default_clip: Option<usize>,
}

impl ClipArrangement {
    /// All of `clip_count` clips in listing order.
    pub fn listing_order(&self, clip_count: usize) -> Vec<usize> {
        let mut listed = vec![false; clip_count];
        let mut out: Vec<usize> = Vec::with_capacity(clip_count);
        for i in self.order.iter().copied().chain(0..clip_count) {
            if i < clip_count && !listed[i] {
                listed[i] = true;
                out.push(i);
            }
        }
        out
    }

    /// Forgets clips `first..` (a retarget replacing the clips it added): new clips at
    /// those indices start listed, in order, not the default.
    pub fn forget_clips_from(&mut self, first: usize) {
        self.order.retain(|&i| i < first);
        self.hidden.retain(|&i| i < first);
        self.default_clip = self.default_clip.filter(|&i| i < first);
    }
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

    /// Drops entries that change nothing (an undone rename, an unhidden clip).
    pub fn prune(&mut self) {
        self.clips.retain(|e| !e.is_empty());
    }

    /// True when nothing is edited (the sidecar is removed on save).
    pub fn is_empty(&self) -> bool {
        self.clips.iter().all(ClipEdit::is_empty)
            && self.order.is_empty()
            && self.default_clip.is_none()
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
        Err(e) => return Err(ImportError::doing(&path, "", "cannot read", e)),
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
    let mut edits = edits.clone();
    edits.prune();
    if edits.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(fail(e.to_string())),
            _ => Ok(path),
        };
    }
    let text = ron::ser::to_string_pretty(&edits, ron::ser::PrettyConfig::default())
        .map_err(|e| fail(e.to_string()))?;
    std::fs::write(&path, text).map_err(|e| fail(e.to_string()))?;
    Ok(path)
}

/// Applies `edits` (read from `sidecar`) to `model`: the arrangement (order, hidden,
/// default), then per clip trim, markers, additive and the name. A clip the file no
/// longer has is a warning on the model.
pub fn apply(model: &mut Model, edits: &ClipEdits, sidecar: &Path) -> Result<(), ImportError> {
    // Names are the file's: resolved before any rename.
    let names: Vec<String> = model.clips.iter().map(|c| c.name().to_string()).collect();
    let mut missing = Vec::new();
    let mut find = |name: &str| {
        let found = names.iter().position(|n| n == name);
        if found.is_none() && !missing.iter().any(|m| m == name) {
            missing.push(name.to_string());
        }
        found
    };
    let mut arrangement = ClipArrangement {
        order: edits.order.iter().filter_map(|n| find(n)).collect(),
        hidden: Vec::new(),
        default_clip: edits.default_clip.as_deref().and_then(&mut find),
    };
    let mut found = Vec::with_capacity(edits.clips.len());
    for e in &edits.clips {
        let i = find(&e.clip);
        if let (Some(i), true) = (i, e.hidden) {
            arrangement.hidden.push(i);
        }
        found.push(i);
    }
    for name in missing {
        model.warnings.push(format!(
            "clip edits ({}): the file has no clip '{name}'; its edits are not applied",
            sidecar.display(),
        ));
    }
    model.arrangement = arrangement;
    for (e, i) in edits.clips.iter().zip(found) {
        let Some(i) = i else { continue };
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
        match e.additive {
            Some(AdditiveEdit::Off) => clip = clip.with_additive(false),
            Some(AdditiveEdit::FromSecs(t)) => {
                if !t.is_finite() || t < 0.0 || t > clip.duration_secs() {
                    return Err(err(format!(
                        "additive reference {t} s is outside the clip [0, {}] s",
                        clip.duration_secs()
                    )));
                }
                clip = clip.with_additive_reference(t);
            }
            None => {}
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
