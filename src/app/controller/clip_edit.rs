//! Editing the open file's clips: rename, trim to the in/out range, add and remove sync
//! markers, and save it all beside the file (`asset::clip_edits`), where every later load
//! of the file picks it up. The file itself is never written.

use std::path::PathBuf;

use super::Previewer;
use crate::anim::SyncMarker;
use crate::asset::clip_edits::{self, ClipEdits};

/// Marker names the window offers (the foot contacts sync and retargeting read).
pub const MARKER_NAMES: [&str; 4] = [
    "left_foot_down",
    "left_foot_up",
    "right_foot_down",
    "right_foot_up",
];

impl Previewer {
    /// The open file's edits, read from its sidecar the first time after it opened.
    fn edits(&mut self) -> Result<&mut ClipEdits, String> {
        let Some(path) = self.stage.main.path.clone() else {
            return Err("the built-in demo has no file to keep clip edits beside".into());
        };
        if self.clip_edits_for.as_ref() != Some(&path) {
            self.clip_edits = clip_edits::read(&path)
                .map_err(|e| e.to_string())?
                .unwrap_or_default();
            self.clip_edits_for = Some(path);
            self.clip_edits_unsaved = false;
        }
        Ok(&mut self.clip_edits)
    }

    /// Replaces clip `clip` with `edited` and shows it (its analysis and the timeline
    /// start again from it).
    fn show_edited(&mut self, clip: usize, edited: crate::anim::Clip) {
        self.stage.main.model.clips[clip] = edited;
        self.clip_edits_unsaved = true;
        self.select_clip(clip);
    }

    fn clip_or_err(&self, clip: usize) -> Result<&crate::anim::Clip, String> {
        self.stage
            .main
            .model
            .clips
            .get(clip)
            .ok_or_else(|| format!("no clip {clip}"))
    }

    /// Renames clip `clip` (a name no other clip has; the file's own name again undoes
    /// the rename).
    pub fn rename_clip(&mut self, clip: usize, name: &str) -> Result<(), String> {
        let name = name.trim().to_string();
        let shown = self.clip_or_err(clip)?.name().to_string();
        if name.is_empty() {
            return Err("a clip needs a name".into());
        }
        if name == shown {
            return Ok(());
        }
        if self.stage.main.model.find_clip(&name).is_some() {
            return Err(format!("another clip is named '{name}'"));
        }
        let edits = self.edits()?;
        let original = edits.original_name(&shown).to_string();
        edits.entry(&original).rename = (name != original).then(|| name.clone());
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
    pub fn trim_clip_to_range(&mut self, clip: usize) -> Result<(), String> {
        let Some((a, b)) = self.stage.main.timeline.range() else {
            return Err("set an in/out range first (I and O)".into());
        };
        let current = self.clip_or_err(clip)?.clone();
        let (a, b) = (a as f32, b as f32);
        let edited = current
            .trimmed(a, b, current.name().to_string())
            .map_err(|e| e.to_string())?;
        let edits = self.edits()?;
        let original = edits.original_name(current.name()).to_string();
        let entry = edits.entry(&original);
        // In the file's own seconds: an earlier trim moved time 0.
        let offset = entry.trim.map_or(0.0, |(start, _)| start);
        entry.trim = Some((offset + a, offset + b));
        if entry.markers.is_some() {
            entry.markers = Some(edited.markers().to_vec());
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
    pub fn add_marker(&mut self, clip: usize, name: &str, time_secs: f32) -> Result<(), String> {
        let current = self.clip_or_err(clip)?.clone();
        let mut markers = current.markers().to_vec();
        markers.push(SyncMarker {
            name: name.to_string(),
            time_secs: time_secs.clamp(0.0, current.duration_secs()),
        });
        self.set_markers(clip, &current, markers)
    }

    /// Removes the marker of clip `clip` nearest to `time_secs` within `within_secs`.
    pub fn remove_marker_near(
        &mut self,
        clip: usize,
        time_secs: f32,
        within_secs: f32,
    ) -> Result<(), String> {
        let current = self.clip_or_err(clip)?.clone();
        let nearest = current
            .markers()
            .iter()
            .enumerate()
            .map(|(i, m)| (i, (m.time_secs - time_secs).abs()))
            .filter(|(_, d)| *d <= within_secs)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((i, _)) = nearest else {
            return Err(format!(
                "no marker within {within_secs:.3} s of the playhead"
            ));
        };
        let mut markers = current.markers().to_vec();
        markers.remove(i);
        self.set_markers(clip, &current, markers)
    }

    fn set_markers(
        &mut self,
        clip: usize,
        current: &crate::anim::Clip,
        markers: Vec<SyncMarker>,
    ) -> Result<(), String> {
        let edited = current.with_markers(markers).map_err(|e| e.to_string())?;
        let edits = self.edits()?;
        let original = edits.original_name(current.name()).to_string();
        edits.entry(&original).markers = Some(edited.markers().to_vec());
        let keep = self.stage.main.timeline.time_secs();
        self.show_edited(clip, edited);
        self.stage.main.timeline.seek_secs(keep);
        self.evaluate_pose();
        Ok(())
    }

    /// Writes the edits beside the open file (File > Save clip edits, Ctrl+S).
    pub fn save_clip_edits(&mut self) -> Result<PathBuf, String> {
        let path = self
            .stage
            .main
            .path
            .clone()
            .ok_or("the built-in demo has no file to keep clip edits beside")?;
        let edits = self.edits()?.clone();
        let written = clip_edits::write(&path, &edits).map_err(|e| e.to_string())?;
        self.clip_edits_unsaved = false;
        self.set_message(format!("saved clip edits to {}", written.display()), false);
        Ok(written)
    }
}
