//! The model's per-clip analyses ([`crate::anim::analysis`]), computed on first use and
//! kept, with the user's overrides (in-place per clip) that they depend on.
//!
//! Keyed by the clip's identity ([`crate::anim::Clip::uid`]), so a clip replaced by its
//! key-reduced form is analysed anew, and by clip name for the overrides, so they survive
//! a reload of the same file.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::anim::analysis::{analyse_clip, ClipAnalysis};
use crate::anim::contacts::{detect_legs, ContactSettings, LegChain};
use crate::anim::locomotion::InPlaceOverride;

use super::{Model, ModelError};

/// One analysis per clip identity and in-place choice.
type AnalysisMap = HashMap<(u64, InPlaceOverride), Result<Arc<ClipAnalysis>, ModelError>>;

/// Cache of [`ClipAnalysis`] per clip (see the module docs).
#[derive(Default)]
pub struct ClipAnalyses {
    in_place: HashMap<String, InPlaceOverride>,
    /// The detected legs, or why there are none.
    legs: OnceLock<Result<Vec<LegChain>, crate::anim::contacts::LegError>>,
    clips: Mutex<AnalysisMap>,
}

impl Clone for ClipAnalyses {
    fn clone(&self) -> Self {
        Self {
            in_place: self.in_place.clone(),
            legs: self.legs.clone(),
            clips: Mutex::new(self.clips.lock().map(|g| g.clone()).unwrap_or_default()),
        }
    }
}

impl std::fmt::Debug for ClipAnalyses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClipAnalyses")
            .field("in_place", &self.in_place)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// The legs detected in the skeleton (cached); the error says what was looked for.
    pub fn legs(&self) -> Result<Vec<LegChain>, crate::anim::contacts::LegError> {
        self.analysis
            .legs
            .get_or_init(|| detect_legs(&self.skeleton))
            .clone()
    }

    /// The user's in-place choice for clip `clip` (`Auto` when none was made).
    pub fn in_place_override(&self, clip: usize) -> InPlaceOverride {
        self.clips
            .get(clip)
            .and_then(|c| self.analysis.in_place.get(c.name()).copied())
            .unwrap_or_default()
    }

    /// Sets the user's in-place choice for clip `clip` (by its name); the clip's analysis
    /// is recomputed on next use.
    pub fn set_in_place_override(&mut self, clip: usize, choice: InPlaceOverride) {
        if let Some(c) = self.clips.get(clip) {
            let name = c.name().to_string();
            if choice == InPlaceOverride::Auto {
                self.analysis.in_place.remove(&name);
            } else {
                self.analysis.in_place.insert(name, choice);
            }
        }
    }

    /// Sets one in-place choice for every clip (`--in-place` / `--root-motion`).
    pub fn set_in_place_override_all(&mut self, choice: InPlaceOverride) {
        for i in 0..self.clips.len() {
            self.set_in_place_override(i, choice);
        }
    }

    /// The analysis of clip `clip` with the detected legs and the default contact settings
    /// (computed on first use, a few milliseconds). A rig without legs is analysed without
    /// them (no contacts, no implied speed). The error names the clip.
    pub fn clip_analysis(&self, clip: usize) -> Result<Arc<ClipAnalysis>, ModelError> {
        let c = self.clips.get(clip).ok_or(ModelError::ClipOutOfRange {
            clip,
            clips: self.clips.len(),
        })?;
        let choice = self.in_place_override(clip);
        let key = (c.uid(), choice);
        if let Some(hit) = self
            .analysis
            .clips
            .lock()
            .ok()
            .and_then(|g| g.get(&key).cloned())
        {
            return hit;
        }
        let legs = self.legs().unwrap_or_default();
        let result = analyse_clip(
            &self.skeleton,
            c,
            &legs,
            &ContactSettings::default(),
            choice,
        )
        .map(Arc::new)
        .map_err(|e| ModelError::Analysis {
            clip: c.name().to_string(),
            source: e,
        });
        if let Ok(mut g) = self.analysis.clips.lock() {
            g.insert(key, result.clone());
        }
        result
    }
}
