//! The model's per-clip analyses ([`crate::anim::analysis`]), computed on first use and
//! kept, with the user's overrides (in-place per clip, the legs) that they depend on; and
//! the one place the model's legs, leg length and unit scale come from (every analysis,
//! drive, lint, report and panel asks the model).
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
    /// The user's choice of legs (the window's leg pickers, `trace --leg`).
    leg_override: Option<Vec<LegChain>>,
    /// Mean leg length of [`Model::legs`] (metres; `None`: no legs), computed once.
    leg_length_m: OnceLock<Option<f32>>,
    clips: Mutex<AnalysisMap>,
}

impl Clone for ClipAnalyses {
    fn clone(&self) -> Self {
        Self {
            in_place: self.in_place.clone(),
            legs: self.legs.clone(),
            leg_override: self.leg_override.clone(),
            leg_length_m: self.leg_length_m.clone(),
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
    /// The legs everything uses: the user's choice when one was made
    /// ([`Model::set_leg_override`]), else the ones detected in the skeleton (cached); the
    /// error says what was looked for.
    pub fn legs(&self) -> Result<Vec<LegChain>, crate::anim::contacts::LegError> {
        match &self.analysis.leg_override {
            Some(legs) => Ok(legs.clone()),
            None => self.detected_legs(),
        }
    }

    /// The legs detected in the skeleton, whatever the user chose (cached).
    pub fn detected_legs(&self) -> Result<Vec<LegChain>, crate::anim::contacts::LegError> {
        self.analysis
            .legs
            .get_or_init(|| detect_legs(&self.skeleton))
            .clone()
    }

    /// The user's choice of legs, if one was made.
    pub fn leg_override(&self) -> Option<&[LegChain]> {
        self.analysis.leg_override.as_deref()
    }

    /// Chooses the legs everything uses (`None`: the detected ones again): analyses, leg
    /// length and scale are computed anew from them.
    ///
    /// Errors: no leg, or a joint of a leg outside the skeleton (named by leg and role).
    pub fn set_leg_override(
        &mut self,
        legs: Option<Vec<LegChain>>,
    ) -> Result<(), crate::anim::AnimError> {
        if let Some(l) = &legs {
            if l.is_empty() {
                return Err(crate::anim::AnimError::Empty {
                    what: "the chosen legs".into(),
                });
            }
            crate::anim::contacts::check_legs(&self.skeleton, l)?;
        }
        if legs == self.analysis.leg_override {
            return Ok(());
        }
        self.analysis.leg_override = legs;
        self.analysis.leg_length_m = OnceLock::new();
        if let Ok(mut g) = self.analysis.clips.lock() {
            g.clear();
        }
        Ok(())
    }

    /// The rest length of each of [`Model::legs`] (thigh to knee to ankle, model space,
    /// metres; 0 for a leg whose joints are out of range); empty without legs.
    pub fn leg_lengths_m(&self) -> Vec<f32> {
        self.legs()
            .unwrap_or_default()
            .iter()
            .map(|l| crate::anim::contacts::leg_length(&self.skeleton, l))
            .collect()
    }

    /// Mean rest length of [`Model::legs`] (metres, computed once); `None` without legs.
    pub fn leg_length_m(&self) -> Option<f32> {
        *self.analysis.leg_length_m.get_or_init(|| {
            let lengths: Vec<f32> = self
                .leg_lengths_m()
                .into_iter()
                .filter(|l| *l > 0.0 && l.is_finite())
                .collect();
            (!lengths.is_empty()).then(|| lengths.iter().sum::<f32>() / lengths.len() as f32)
        })
    }

    /// How much larger than a human the rig is: [`Model::leg_length_m`] over the
    /// reference leg (0.9 m); every metre threshold is multiplied by it. 1 without legs.
    pub fn unit_scale(&self) -> f32 {
        self.leg_length_m()
            .map_or(1.0, |l| l / crate::anim::locomotion::REFERENCE_LEG_LENGTH_M)
    }

    /// The leg length thresholds are scaled to: [`Model::leg_length_m`], else the
    /// reference leg (0.9 m) for a rig without legs.
    pub fn leg_length_or_reference_m(&self) -> f32 {
        self.leg_length_m()
            .unwrap_or(crate::anim::locomotion::REFERENCE_LEG_LENGTH_M)
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

    /// The analysis of clip `clip` with the model's legs and the default contact settings
    /// (computed on first use, a few milliseconds). A rig without legs is analysed without
    /// them (no contacts, no implied speed). The error names the clip.
    pub fn clip_analysis(&self, clip: usize) -> Result<Arc<ClipAnalysis>, ModelError> {
        let c = self.clip(clip).map_err(ModelError::Clip)?;
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
