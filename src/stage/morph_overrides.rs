//! Morph weights set by hand (the Morphs panel), laid over the animated ones.
//!
//! An animator drags a blend-shape slider while paused to see a target; the clip's own
//! weights come back when playback resumes, so the overrides never edit the clip.

use crate::asset::Model;
use crate::pose::Pose;

/// Hand-set weights per mesh and morph target: `None` leaves the animated weight.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphOverrides {
    /// `by_mesh[mesh][target]`; shorter than the model's lists where nothing was set.
    by_mesh: Vec<Vec<Option<f32>>>,
}

impl MorphOverrides {
    /// Sets (`Some`, any finite weight) or releases (`None`) target `target` of mesh
    /// `mesh` of `model`. Returns false, changing nothing, for an index `model` does not
    /// have or a weight that is not finite.
    pub fn set(&mut self, model: &Model, mesh: usize, target: usize, weight: Option<f32>) -> bool {
        let Some(count) = model.meshes.get(mesh).map(|m| m.morph_target_count()) else {
            return false;
        };
        if target >= count || weight.is_some_and(|w| !w.is_finite()) {
            return false;
        }
        if self.by_mesh.len() <= mesh {
            self.by_mesh.resize(model.meshes.len(), Vec::new());
        }
        let slot = &mut self.by_mesh[mesh];
        slot.resize(count, None);
        slot[target] = weight;
        true
    }

    /// The weight set for target `target` of mesh `mesh`, if any.
    pub fn get(&self, mesh: usize, target: usize) -> Option<f32> {
        self.by_mesh.get(mesh)?.get(target).copied().flatten()
    }

    /// Whether any weight is set.
    pub fn any(&self) -> bool {
        self.by_mesh.iter().flatten().any(Option::is_some)
    }

    /// Releases every weight (a new file, playback resumed, the panel's Reset).
    pub fn clear(&mut self) {
        self.by_mesh.clear();
    }

    /// Writes the set weights over `pose`'s animated ones.
    pub fn apply(&self, pose: &mut Pose) {
        for (weights, overrides) in pose.morph_weights.iter_mut().zip(&self.by_mesh) {
            for (w, o) in weights.iter_mut().zip(overrides) {
                if let Some(v) = o {
                    *w = *v;
                }
            }
        }
    }
}
