//! Editing the open file's clips: rename, trim to the in/out range, add, move and remove
//! sync markers, make a clip additive relative to one of its frames, hide, reorder and
//! choose the clip the file opens on; every edit undoable (Ctrl+Z); all of it saved beside
//! the file (`asset::clip_edits`), where every later load of the file picks it up. The
//! file itself is never written.

use std::path::PathBuf;

use super::Previewer;
use crate::anim::{Clip, SyncMarker};
use crate::asset::clip_edits::{self, AdditiveEdit, ClipArrangement, ClipEdits};
use crate::AppError;

/// Marker names the window offers (the foot contacts sync and retargeting read).
pub const MARKER_NAMES: [&str; 4] = [
    "left_foot_down",
    "left_foot_up",
    "right_foot_down",
    "right_foot_up",
];

/// Clip edits kept for undo (each a few clips' copies: bounded).
const UNDO_DEPTH: usize = 64;

/// The state of clip editing: the open file's edits (its sidecar as read, plus what
/// changed since), the file they belong to, and the undo and redo stacks.
#[derive(Default)]
pub struct ClipEditing {
    edits: ClipEdits,
    edits_for: Option<PathBuf>,
    /// Edits made since the last save.
    unsaved: bool,
    undo: Vec<EditSnapshot>,
    redo: Vec<EditSnapshot>,
    /// The clip list shows hidden clips too (greyed).
    pub show_hidden: bool,
    /// Which kind of edit was made last, clip or pose graph: Ctrl+Z undoes that kind
    /// first.
    pub(super) last_edit: Option<super::EditKind>,
}

/// What one edit changed, to put back: the edits, the clips it replaced and the
/// arrangement before it.
struct EditSnapshot {
    edits: ClipEdits,
    clips: Vec<(usize, Clip)>,
    arrangement: ClipArrangement,
    unsaved: bool,
    /// What the edit was, for the status line ("undid: rename ...").
    what: String,
}

impl Previewer {
    /// The open file's edits, read from its sidecar the first time after it opened.
    fn edits(&mut self) -> Result<&mut ClipEdits, AppError> {
        let Some(path) = self.stage.main.path.clone() else {
            return Err("the built-in demo has no file to keep clip edits beside".into());
        };
        let e = &mut self.clip_editing;
        if e.edits_for.as_ref() != Some(&path) {
            e.edits = clip_edits::read(&path)?.unwrap_or_default();
            e.edits_for = Some(path);
            e.unsaved = false;
            e.undo.clear();
            e.redo.clear();
        }
        Ok(&mut e.edits)
    }

    /// Clip edits made since the last save (File > Save clip edits shows a `*`).
    pub fn clip_edits_unsaved(&self) -> bool {
        self.clip_editing.unsaved
    }

    /// Whether the clip list shows hidden clips.
    pub fn show_hidden_clips(&self) -> bool {
        self.clip_editing.show_hidden
    }

    /// Shows or leaves out hidden clips in the clip list.
    pub fn set_show_hidden_clips(&mut self, show: bool) {
        self.clip_editing.show_hidden = show;
    }

    /// Whether Edit > Undo clip edit has something to do (a clip edit made).
    pub fn can_undo_clip_edit(&self) -> bool {
        !self.clip_editing.undo.is_empty()
    }

    /// Whether Edit > Redo clip edit has something to do (an undone clip edit).
    pub fn can_redo_clip_edit(&self) -> bool {
        !self.clip_editing.redo.is_empty()
    }

    /// Remembers the state before an edit of `clips` (`what` names it), for undo; a new
    /// edit forgets what was undone.
    fn before_edit(&mut self, clips: &[usize], what: String) -> Result<(), AppError> {
        self.edits()?;
        let snap = self.snapshot(clips, what);
        let e = &mut self.clip_editing;
        e.undo.push(snap);
        if e.undo.len() > UNDO_DEPTH {
            e.undo.remove(0);
        }
        e.redo.clear();
        self.clip_editing.last_edit = Some(super::EditKind::Clips);
        Ok(())
    }

    fn snapshot(&self, clips: &[usize], what: String) -> EditSnapshot {
        let model = &self.stage.main.model;
        EditSnapshot {
            edits: self.clip_editing.edits.clone(),
            clips: clips
                .iter()
                .filter_map(|&i| model.clips.get(i).map(|c| (i, c.clone())))
                .collect(),
            arrangement: model.arrangement.clone(),
            unsaved: self.clip_editing.unsaved,
            what,
        }
    }

    /// Undoes the last clip edit (Ctrl+Z when it was the last edit); false when there
    /// was none.
    pub fn undo_clip_edit(&mut self) -> bool {
        self.step_clip_history(true)
    }

    /// Redoes the last undone clip edit (Ctrl+Shift+Z).
    pub fn redo_clip_edit(&mut self) -> bool {
        self.step_clip_history(false)
    }

    pub(super) fn step_clip_history(&mut self, undo: bool) -> bool {
        let stack = if undo {
            &mut self.clip_editing.undo
        } else {
            &mut self.clip_editing.redo
        };
        let Some(snap) = stack.pop() else {
            return false;
        };
        let indices: Vec<usize> = snap.clips.iter().map(|(i, _)| *i).collect();
        let current = self.snapshot(&indices, snap.what.clone());
        if undo {
            self.clip_editing.redo.push(current);
        } else {
            self.clip_editing.undo.push(current);
        }
        let what = snap.what.clone();
        self.restore(snap);
        self.set_message(
            format!("{} {what}", if undo { "undid:" } else { "redid:" }),
            false,
        );
        true
    }

    fn restore(&mut self, snap: EditSnapshot) {
        self.clip_editing.edits = snap.edits;
        self.clip_editing.unsaved = snap.unsaved;
        self.stage.main.model.arrangement = snap.arrangement;
        let shown = self.stage.main.timeline.clip();
        let keep = self.stage.main.timeline.time_secs();
        let mut replaced_shown = false;
        for (i, clip) in snap.clips {
            if let Some(slot) = self.stage.main.model.clips.get_mut(i) {
                *slot = clip;
                replaced_shown |= shown == Some(i);
            }
        }
        if let (true, Some(i)) = (replaced_shown, shown) {
            self.select_clip(i);
            self.stage.main.timeline.seek_secs(keep);
        }
        self.evaluate_pose();
    }

    /// Replaces clip `clip` with `edited` and shows it (its analysis and the timeline
    /// start again from it).
    fn show_edited(&mut self, clip: usize, edited: Clip) {
        self.stage.main.model.clips[clip] = edited;
        self.clip_editing.unsaved = true;
        self.select_clip(clip);
    }

    fn clip_or_err(&self, clip: usize) -> Result<&Clip, AppError> {
        self.stage
            .main
            .model
            .clips
            .get(clip)
            .ok_or_else(|| AppError::refused(format!("no clip {clip}")))
    }

    /// The file's own name of the clip shown as `shown`.
    fn original_name(&mut self, shown: &str) -> Result<String, AppError> {
        Ok(self.edits()?.original_name(shown).to_string())
    }

    /// Renames clip `clip` (a name no other clip has; the file's own name again undoes
    /// the rename).
    pub fn rename_clip(&mut self, clip: usize, name: &str) -> Result<(), AppError> {
        let name = name.trim().to_string();
        let shown = self.clip_or_err(clip)?.name().to_string();
        if name.is_empty() {
            return Err("a clip needs a name".into());
        }
        if name == shown {
            return Ok(());
        }
        if self.stage.main.model.find_clip(&name).is_some() {
            return Err(format!("another clip is named '{name}'").into());
        }
        self.before_edit(&[clip], format!("rename '{shown}' to '{name}'"))?;
        let original = self.original_name(&shown)?;
        self.edits()?.entry(&original).rename = (name != original).then(|| name.clone());
        let mut edited = self.stage.main.model.clips[clip].clone();
        edited.set_name(name.clone());
        self.show_edited(clip, edited);
        self.set_message(
            format!("renamed '{shown}' to '{name}' (File > Save clip edits keeps it)"),
            false,
        );
        Ok(())
    }

    /// Trims clip `clip` to the timeline's in/out range (which is then cleared).
    pub fn trim_clip_to_range(&mut self, clip: usize) -> Result<(), AppError> {
        let Some((a, b)) = self.stage.main.timeline.range() else {
            return Err("set an in/out range first (I and O)".into());
        };
        let current = self.clip_or_err(clip)?.clone();
        let (a, b) = (a as f32, b as f32);
        let edited = current.trimmed(a, b, current.name().to_string())?;
        self.before_edit(
            &[clip],
            format!("trim '{}' to {a:.3}-{b:.3} s", current.name()),
        )?;
        let original = self.original_name(current.name())?;
        let entry = self.edits()?.entry(&original);
        // In the file's own seconds: an earlier trim moved time 0.
        let offset = entry.trim.map_or(0.0, |(start, _)| start);
        entry.trim = Some((offset + a, offset + b));
        if entry.markers.is_some() {
            entry.markers = Some(edited.markers().to_vec());
        }
        if let Some(AdditiveEdit::FromSecs(_)) = entry.additive {
            entry.additive = Some(AdditiveEdit::FromSecs(edited.additive_reference_secs()));
        }
        self.stage.main.timeline.set_range(None);
        self.show_edited(clip, edited);
        self.set_message(
            format!("trimmed '{}' to {a:.3}-{b:.3} s", current.name()),
            false,
        );
        Ok(())
    }

    /// Adds sync marker `name` to clip `clip` at clip time `time_secs`.
    pub fn add_marker(&mut self, clip: usize, name: &str, time_secs: f32) -> Result<(), AppError> {
        self.edits()?;
        let current = self.clip_or_err(clip)?.clone();
        let mut markers = self.editable_markers(clip);
        let time_secs = time_secs.clamp(0.0, current.duration_secs());
        markers.push(SyncMarker {
            name: name.to_string(),
            time_secs,
        });
        let what = format!("add marker {name} at {time_secs:.3} s");
        self.set_markers(clip, &current, markers, what)
    }

    /// The markers clip `clip` shows and an edit of it starts from: the file's or the
    /// edited ones, else (none, and never edited) the ones detected from the feet when
    /// `clip` is on the timeline; and whether they are the detected ones. Borrowed: the
    /// scrub bar asks every frame.
    pub fn shown_markers(&self, clip: usize) -> (&[SyncMarker], bool) {
        let Some(current) = self.stage.main.model.clips.get(clip) else {
            return (&[], false);
        };
        let e = &self.clip_editing;
        let edited = || {
            e.edits_for.is_some()
                && e.edits_for == self.stage.main.path
                && e.edits
                    .clips
                    .iter()
                    .any(|x| x.clip == e.edits.original_name(current.name()) && x.markers.is_some())
        };
        if current.markers().is_empty()
            && self.stage.main.timeline.clip() == Some(clip)
            && !edited()
        {
            (self.stage.main.timeline.detected_markers(), true)
        } else {
            (current.markers(), false)
        }
    }

    /// [`Previewer::shown_markers`] as a list to edit.
    fn editable_markers(&self, clip: usize) -> Vec<SyncMarker> {
        self.shown_markers(clip).0.to_vec()
    }

    /// Removes the marker of clip `clip` nearest to `time_secs` within `within_secs`.
    pub fn remove_marker_near(
        &mut self,
        clip: usize,
        time_secs: f32,
        within_secs: f32,
    ) -> Result<(), AppError> {
        self.edits()?;
        let current = self.clip_or_err(clip)?.clone();
        let mut markers = self.editable_markers(clip);
        let Some(i) = nearest_marker(&markers, time_secs, within_secs) else {
            return Err(format!("no marker within {within_secs:.3} s of the playhead").into());
        };
        let removed = markers.remove(i);
        let what = format!(
            "remove marker {} at {:.3} s",
            removed.name, removed.time_secs
        );
        self.set_markers(clip, &current, markers, what)
    }

    /// Moves marker `marker` (an index into [`Previewer::shown_markers`]) of clip `clip`
    /// to clip time `time_secs` (clamped into the clip): dragging it on the timeline.
    pub fn move_marker(
        &mut self,
        clip: usize,
        marker: usize,
        time_secs: f32,
    ) -> Result<(), AppError> {
        self.edits()?;
        let current = self.clip_or_err(clip)?.clone();
        let mut markers = self.editable_markers(clip);
        let Some(m) = markers.get_mut(marker) else {
            return Err(format!("clip '{}' has no marker {marker}", current.name()).into());
        };
        let from = m.time_secs;
        m.time_secs = time_secs.clamp(0.0, current.duration_secs());
        let what = format!(
            "move marker {} from {from:.3} s to {:.3} s",
            m.name, m.time_secs
        );
        self.set_markers(clip, &current, markers, what)
    }

    fn set_markers(
        &mut self,
        clip: usize,
        current: &Clip,
        markers: Vec<SyncMarker>,
        what: String,
    ) -> Result<(), AppError> {
        let edited = current.with_markers(markers)?;
        self.before_edit(&[clip], what.clone())?;
        let original = self.original_name(current.name())?;
        self.edits()?.entry(&original).markers = Some(edited.markers().to_vec());
        let keep = self.stage.main.timeline.time_secs();
        self.show_edited(clip, edited);
        self.stage.main.timeline.seek_secs(keep);
        self.evaluate_pose();
        self.set_message(what, false);
        Ok(())
    }

    /// Makes clip `clip` an additive clip relative to its own frame at `reference_secs`
    /// (`Some`), or a plain clip (`None`): the pose graph layers it that way, and the
    /// Blend panel's Additive row starts from that frame.
    pub fn set_clip_additive(
        &mut self,
        clip: usize,
        reference_secs: Option<f32>,
    ) -> Result<(), AppError> {
        let current = self.clip_or_err(clip)?.clone();
        let edited = match reference_secs {
            Some(t) => current.clone().with_additive_reference(t),
            None => current.clone().with_additive(false),
        };
        let what = match reference_secs {
            Some(_) => format!(
                "make '{}' additive relative to {:.3} s",
                current.name(),
                edited.additive_reference_secs()
            ),
            None => format!("make '{}' a plain clip", current.name()),
        };
        self.before_edit(&[clip], what.clone())?;
        let original = self.original_name(current.name())?;
        self.edits()?.entry(&original).additive = Some(match reference_secs {
            Some(_) => AdditiveEdit::FromSecs(edited.additive_reference_secs()),
            None => AdditiveEdit::Off,
        });
        self.stage.main.model.clips[clip] = edited;
        self.clip_editing.unsaved = true;
        self.set_message(what, false);
        Ok(())
    }

    /// Hides clip `clip` from the clip list and the library grid, or shows it again.
    pub fn set_clip_hidden(&mut self, clip: usize, hidden: bool) -> Result<(), AppError> {
        let name = self.clip_or_err(clip)?.name().to_string();
        let what = format!("{} '{name}'", if hidden { "hide" } else { "show" });
        self.before_edit(&[], what.clone())?;
        let original = self.original_name(&name)?;
        self.edits()?.entry(&original).hidden = hidden;
        let a = &mut self.stage.main.model.arrangement;
        a.hidden.retain(|&i| i != clip);
        if hidden {
            a.hidden.push(clip);
        }
        self.clip_editing.unsaved = true;
        self.set_message(
            if hidden {
                format!("hid '{name}' (Clips > Show hidden lists it again)")
            } else {
                what
            },
            false,
        );
        Ok(())
    }

    /// Moves clip `clip` `by` places in the clip list as shown (negative: up; hidden
    /// clips the list leaves out are stepped over).
    pub fn move_clip(&mut self, clip: usize, by: isize) -> Result<(), AppError> {
        let name = self.clip_or_err(clip)?.name().to_string();
        let model = &self.stage.main.model;
        let listed = model.listed_clips(self.clip_editing.show_hidden);
        let mut order = model.arrangement.listing_order(model.clips.len());
        let Some(at) = listed.iter().position(|&i| i == clip) else {
            return Err(format!("'{name}' is hidden: show it first").into());
        };
        let to = (at as isize + by).clamp(0, listed.len() as isize - 1) as usize;
        if to == at {
            return Ok(());
        }
        // Next to the clip it passes, in the order of all clips.
        let passed = listed[to];
        self.before_edit(&[], format!("move '{name}'"))?;
        order.retain(|&i| i != clip);
        let there = order.iter().position(|&i| i == passed).unwrap_or(0);
        order.insert(if to > at { there + 1 } else { there }, clip);
        let names: Vec<String> = order
            .iter()
            .map(|&i| self.stage.main.model.clips[i].name().to_string())
            .collect();
        let mut originals = Vec::with_capacity(names.len());
        for shown in &names {
            originals.push(self.original_name(shown)?);
        }
        self.edits()?.order = originals;
        self.stage.main.model.arrangement.order = order;
        self.clip_editing.unsaved = true;
        Ok(())
    }

    /// Makes clip `clip` the one the file opens on (`None`: the first that animates).
    pub fn set_default_clip(&mut self, clip: Option<usize>) -> Result<(), AppError> {
        let name = match clip {
            Some(c) => Some(self.clip_or_err(c)?.name().to_string()),
            None => None,
        };
        let what = match &name {
            Some(n) => format!("open the file on '{n}'"),
            None => "open the file on its first clip".to_string(),
        };
        self.before_edit(&[], what.clone())?;
        let original = match &name {
            Some(n) => Some(self.original_name(n)?),
            None => None,
        };
        self.edits()?.default_clip = original;
        self.stage.main.model.arrangement.default_clip = clip;
        self.clip_editing.unsaved = true;
        self.set_message(format!("{what} (saved with File > Save clip edits)"), false);
        Ok(())
    }

    /// Writes the edits beside the open file (File > Save clip edits, Ctrl+S).
    pub fn save_clip_edits(&mut self) -> Result<PathBuf, AppError> {
        let path = self
            .stage
            .main
            .path
            .clone()
            .ok_or("the built-in demo has no file to keep clip edits beside")?;
        let edits = self.edits()?.clone();
        let written = clip_edits::write(&path, &edits)?;
        self.clip_editing.unsaved = false;
        self.set_message(format!("saved clip edits to {}", written.display()), false);
        Ok(written)
    }
}

/// Index of the marker nearest `time_secs` within `within_secs`.
pub fn nearest_marker(markers: &[SyncMarker], time_secs: f32, within_secs: f32) -> Option<usize> {
    markers
        .iter()
        .enumerate()
        .map(|(i, m)| (i, (m.time_secs - time_secs).abs()))
        .filter(|(_, d)| *d <= within_secs)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}
