//! The frame's poses: the character's, the onion-skin ghosts, A/B compare's B, and
//! the Morphs panel's hand-set weights over them.

use super::*;
use crate::AppError;

impl Previewer {
    /// Sets (`Some`) or releases (`None`) the Morphs panel's weight for one target of one
    /// mesh; it shows while paused. Out-of-range indices are ignored.
    pub fn set_morph_override(&mut self, mesh: usize, target: usize, weight: Option<f32>) {
        let model = &self.stage.main.model;
        if self
            .inspect
            .morph_overrides
            .set(model, mesh, target, weight)
        {
            self.evaluate_pose();
        }
    }

    /// Releases every hand-set morph weight.
    pub fn clear_morph_overrides(&mut self) {
        self.inspect.morph_overrides.clear();
        self.evaluate_pose();
    }

    /// Lays the hand-set morph weights over the pose while paused.
    pub(super) fn apply_morph_overrides(&mut self) {
        if !self.is_playing() {
            self.inspect
                .morph_overrides
                .apply(&mut self.stage.main.pose);
        }
    }

    /// Evaluates the current pose (after playback or any seek).
    pub fn evaluate_pose(&mut self) {
        let result = self.stage.main.evaluate(self.view.toggles.bind_pose);
        self.apply_morph_overrides();
        self.evaluate_ghosts();
        self.evaluate_compare();
        if let Err(e) = result {
            // Per-frame errors are reported once, the viewer keeps running.
            let text = format!("pose evaluation: {e}");
            if self.message().map(|m| &m.text) != Some(&text) {
                self.set_message(text, true);
            }
        }
        if self.view.toggles.follow {
            let root = self.root_position();
            match self.view.follow_offset {
                Some(offset) => self.view.camera.target = root + offset,
                None => self.view.follow_offset = Some(self.view.camera.target - root),
            }
        }
    }

    /// The onion-skin ghosts around the playhead (or at the clip's sync markers) of the
    /// timeline's clip. The pose graph blends several clocks, so it has no single clip
    /// to ghost: ghosts show in timeline playback only.
    pub(super) fn evaluate_ghosts(&mut self) {
        let onion = self.inspect.onion;
        if !onion.enabled
            || !matches!(self.stage.main.source, MotionSource::Clip)
            || self.view.toggles.bind_pose
        {
            self.view.ghosts.poses.clear();
            self.view.ghosts.offsets_secs.clear();
            return;
        }
        let offsets: Vec<(f64, f32)> = if onion.at_markers {
            let Some(clip) = self
                .stage
                .main
                .timeline
                .clip()
                .map(|c| &self.stage.main.model.clips[c])
            else {
                self.view.ghosts.poses.clear();
                return;
            };
            let markers = if clip.markers().is_empty() {
                self.stage.main.timeline.detected_markers()
            } else {
                clip.markers()
            };
            let phase = self.stage.main.timeline.phase_secs();
            markers
                .iter()
                .map(|m| (f64::from(m.time_secs) - phase, onion.opacity))
                .collect()
        } else {
            onion.offsets(self.stage.main.timeline.frame_rate_hz())
        };
        // Poses are reused from frame to frame; a ghost the clock cannot place (a
        // zero-length clip) is dropped rather than left showing an old frame.
        let mut used = 0;
        for (offset, alpha) in offsets {
            let Some(request) = self.stage.main.timeline.ghost_request(offset) else {
                continue;
            };
            if used == self.view.ghosts.poses.len() {
                self.view
                    .ghosts
                    .poses
                    .push((Pose::new(&self.stage.main.model), alpha));
            }
            let ghost = &mut self.view.ghosts.poses[used];
            ghost.1 = alpha;
            if ghost.0.evaluate(&self.stage.main.model, &request).is_ok() {
                if used == self.view.ghosts.offsets_secs.len() {
                    self.view.ghosts.offsets_secs.push(offset);
                }
                self.view.ghosts.offsets_secs[used] = offset;
                used += 1;
            }
        }
        self.view.ghosts.poses.truncate(used);
        self.view.ghosts.offsets_secs.truncate(used);
    }

    /// Starts comparing the timeline's clip (A) with clip `b_clip` of the open file.
    pub fn compare_with_clip(&mut self, b_clip: usize) {
        if b_clip >= self.stage.main.model.clips.len() {
            return;
        }
        let keep = self.stage.compare.take();
        let mut c = crate::stage::inspect::AbCompare::new(&self.stage.main.model, b_clip);
        if let Some(k) = keep {
            (c.lock, c.offset, c.view) = (k.lock, k.offset, k.view);
        }
        self.stage.compare = Some(c);
        self.evaluate_pose();
    }

    /// Starts comparing with the first clip of another file on the same skeleton (two
    /// versions of one walk). A file that does not load or does not match is reported and
    /// changes nothing.
    pub fn compare_with_file(&mut self, path: &Path) -> Result<(), AppError> {
        let b = match crate::asset::load_with(path, &self.loads.options) {
            Ok(b) => b,
            Err(e) => {
                let e = AppError::from(e).context("compare");
                self.set_message(e.report(), true);
                return Err(e);
            }
        };
        self.loads.compare_files_opened += 1;
        match crate::stage::inspect::AbCompare::with_file(
            &self.stage.main.model,
            path.to_path_buf(),
            b,
            self.loads.compare_files_opened,
        ) {
            Ok(c) => {
                self.stage.compare = Some(c);
                self.set_message(format!("comparing with {}", path.display()), false);
                self.evaluate_pose();
                Ok(())
            }
            Err(e) => {
                let e = AppError::from(e).context("compare");
                self.set_message(e.report(), true);
                Err(e)
            }
        }
    }

    /// Ends A/B compare: B leaves the stage.
    pub fn stop_compare(&mut self) {
        self.stage.compare = None;
    }

    /// B at A's phase, beside A for the side-by-side view (1.5 times A's width away).
    pub(super) fn evaluate_compare(&mut self) {
        let hidden = self.timeline_hidden_by();
        let Some(c) = self.stage.compare.as_mut() else {
            return;
        };
        if self.stage.main.source.matching().is_some() {
            c.valid = false;
            c.note =
                Some("A/B compare follows the timeline's clip: turn motion matching off".into());
            return;
        }
        let (Some(a_clip), None) = (
            self.stage.main.timeline.clip(),
            self.stage.main.source.graph(),
        ) else {
            c.valid = false;
            c.note = Some(format!(
                "A/B compare follows the timeline's clip: {}",
                hidden.unwrap_or("pick a clip")
            ));
            return;
        };
        let bounds = crate::render::bounds::joint_bounds(&self.stage.main.pose);
        let size = if bounds.is_empty() {
            Vec3::ONE
        } else {
            bounds.max - bounds.min
        };
        let side = Vec3::X * (size.x.max(size.z).max(0.25 * size.y) * 1.5);
        c.evaluate(
            &self.stage.main.model,
            a_clip,
            self.stage.main.timeline.phase_secs(),
            self.stage.main.timeline.model_from_root(),
            side,
        );
    }
}
