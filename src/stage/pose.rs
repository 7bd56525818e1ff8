//! Pose evaluation for a loaded model: the per-frame CPU pipeline shared by the window,
//! the headless renderer and the tests. Every local pose comes out of a pose graph: the
//! window's graph mode hands its output to [`Pose::evaluate_local`], and a request for one
//! clip at a time (the timeline, `render`, onion ghosts, A/B compare) goes through a
//! one-clip graph ([`PoseGraph::clip_preview`]) kept per clip, so whatever the graph
//! evaluates (morph weights today, more later) reaches single-clip playback too. Then
//! local-to-model and the skinning palettes.

use glam::Mat4;

use crate::anim::locomotion::InPlaceOverride;
use crate::anim::soa::{soa_len, SoaPose, SoaTransform};
use crate::anim::{
    skinning_palette, skinning_palette_affine, AnimError, ClipRootMotion, SamplingJob,
    SoaLocalToModelJob, Transform,
};
use crate::asset::Model;
use crate::graph::PoseGraph;
use crate::StageError;

/// Caller-owned buffers for one character's pose, reused every frame.
#[derive(Clone, Debug)]
pub struct Pose {
    /// Local transforms (parent space), one per skeleton joint: per joint or in blocks
    /// (a graph's), which local-to-model reads ([`Self::local`] unpacks them on demand).
    local: SoaPose,
    /// `model_from_joint`, one per skeleton joint.
    pub model_from_joint: Vec<Mat4>,
    /// One palette per skin: `model_from_joint[skin.joints[i]] * inverse_bind[i]`.
    pub skin_palettes: Vec<Vec<Mat4>>,
    /// Morph weights per mesh (index = mesh index), one per morph target: the clip's
    /// morph-weight tracks, or the graph's blend of them, else the mesh defaults.
    pub morph_weights: Vec<Vec<f32>>,
    /// The one-clip graph of the clip evaluated last, with what it was built for: that
    /// clip's identity ([`crate::anim::Clip::uid`]) and the user's in-place choice (which
    /// decides the player's root motion). It keeps the key cursors, so playback and
    /// scrubbing step from the previous keys instead of searching every frame.
    preview: Option<((u64, InPlaceOverride), PoseGraph)>,
    /// Per skin, whether its inverse binds are affine (checked once here, so the palettes
    /// skip the check every frame).
    affine_skins: Vec<bool>,
}

/// What to evaluate.
#[derive(Clone, Copy, Debug)]
pub struct PoseRequest<'a> {
    /// Clip index into `Model::clips`; `None` for the rest (bind-time node) pose.
    pub clip: Option<usize>,
    /// Clip time in seconds (the clock's phase).
    pub time_secs: f32,
    /// When set, the clip's root motion is removed from the pose (in-place display); the
    /// caller places the character with the accumulated root transform instead.
    pub remove_root_motion: Option<&'a ClipRootMotion>,
    /// Applied to root joints, e.g. `world_from_root` of the accumulated root motion.
    pub model_from_root: Mat4,
}

impl Pose {
    /// Buffers sized for `model`, holding its rest pose.
    pub fn new(model: &Model) -> Self {
        let n = model.skeleton.joint_count();
        let mut pose = Self {
            local: SoaPose::new(model.skeleton.rest_pose()),
            model_from_joint: vec![Mat4::IDENTITY; n],
            skin_palettes: model
                .skins
                .iter()
                .map(|s| vec![Mat4::IDENTITY; s.joints.len()])
                .collect(),
            morph_weights: model.default_morph_weights(),
            preview: None,
            affine_skins: model
                .skins
                .iter()
                .map(|s| s.inverse_binds_are_affine())
                .collect(),
        };
        // The rest pose of a validated model always evaluates.
        let _ = pose.evaluate(
            model,
            &PoseRequest {
                clip: None,
                time_secs: 0.0,
                remove_root_motion: None,
                model_from_root: Mat4::IDENTITY,
            },
        );
        pose
    }

    /// Local transforms (parent space), one per skeleton joint, of the last evaluation.
    pub fn local(&self) -> &[Transform] {
        self.local.joints()
    }

    /// Evaluates the request into the buffers.
    pub fn evaluate(&mut self, model: &Model, request: &PoseRequest) -> Result<(), AnimError> {
        match request.clip {
            Some(index) => {
                let clip = model
                    .clips
                    .get(index)
                    .ok_or_else(|| AnimError::OutOfRange {
                        what: "clip index".into(),
                        detail: format!("{index} (the model has {} clips)", model.clips.len()),
                    })?;
                let key = (clip.uid(), model.in_place_override(index));
                if self.preview.as_ref().map(|(k, _)| *k) != Some(key) {
                    // A clip whose root motion cannot be extracted (a degenerate root
                    // track) has no graph player; it is still shown, sampled directly,
                    // as the timeline shows it with root motion unavailable.
                    self.preview = PoseGraph::clip_preview(model, index).ok().map(|g| (key, g));
                }
                let Some((_, graph)) = self.preview.as_mut().filter(|(k, _)| *k == key) else {
                    SamplingJob {
                        clip,
                        time_secs: request.time_secs,
                        rest_pose: model.skeleton.rest_pose(),
                    }
                    .run(self.local.joints_mut())?;
                    if let Some(root) = request.remove_root_motion {
                        root.source.remove(
                            &root.motion,
                            request.time_secs as f64,
                            self.local.joints_mut(),
                        )?;
                    }
                    model.morph_weights_at(
                        request.clip,
                        request.time_secs,
                        &mut self.morph_weights,
                    );
                    return self.local_to_model(model, request.model_from_root);
                };
                // The graph removes the clip's own root motion (the same extraction the
                // timeline uses); a request that keeps it shows the clip as authored.
                graph.show_clip_time(
                    model,
                    request.time_secs as f64,
                    request.remove_root_motion.is_none(),
                )?;
                for (out, w) in self.morph_weights.iter_mut().zip(graph.morph_weights()) {
                    if out.len() == w.len() {
                        out.copy_from_slice(w);
                    }
                }
                let same = request
                    .remove_root_motion
                    .is_none_or(|root| same_source(root, graph));
                if let Some(soa) = graph.local_pose_soa().filter(|_| same) {
                    // The graph's blocks, as they are: unpacked only if asked for.
                    if soa.len() == soa_len(self.local.len()) {
                        self.local.blocks_mut().copy_from_slice(soa);
                        return self.local_to_model(model, request.model_from_root);
                    }
                }
                self.local.joints_mut().copy_from_slice(graph.local_pose());
                if let Some(root) = request.remove_root_motion.filter(|_| !same) {
                    // A caller's own extraction (another root joint): redo it.
                    SamplingJob {
                        clip,
                        time_secs: request.time_secs,
                        rest_pose: model.skeleton.rest_pose(),
                    }
                    .run(self.local.joints_mut())?;
                    root.source.remove(
                        &root.motion,
                        request.time_secs as f64,
                        self.local.joints_mut(),
                    )?;
                }
            }
            None => {
                self.local
                    .joints_mut()
                    .copy_from_slice(model.skeleton.rest_pose());
                model.morph_weights_at(None, 0.0, &mut self.morph_weights);
            }
        }
        self.local_to_model(model, request.model_from_root)
    }

    /// Local-to-model of the pose in blocks (packed first when it is held per joint: bit
    /// for bit the per-joint job's matrices, tests/soa_pipeline.rs), then the skinning
    /// palettes.
    fn local_to_model(&mut self, model: &Model, model_from_root: Mat4) -> Result<(), AnimError> {
        SoaLocalToModelJob {
            parents: model.skeleton.parents(),
            local: self.local.packed(),
            model_from_root,
        }
        .run(&mut self.model_from_joint)?;
        let skins = model.skins.iter().zip(&self.affine_skins);
        for ((skin, &affine), palette) in skins.zip(&mut self.skin_palettes) {
            if affine {
                skinning_palette_affine(&self.model_from_joint, skin, palette)?;
            } else {
                skinning_palette(&self.model_from_joint, skin, palette)?;
            }
        }
        Ok(())
    }

    /// Evaluates a local pose produced elsewhere (the pose graph): local-to-model once,
    /// then the skinning palettes. `model_from_root` places the skeleton's roots.
    pub fn evaluate_local(
        &mut self,
        model: &Model,
        local: &[Transform],
        model_from_root: Mat4,
    ) -> Result<(), AnimError> {
        if local.len() != self.local.len() {
            return Err(AnimError::LengthMismatch {
                what: "graph pose",
                expected: self.local.len(),
                actual: local.len(),
            });
        }
        self.local.joints_mut().copy_from_slice(local);
        self.local_to_model(model, model_from_root)
    }

    /// Evaluates a local pose in blocks of four joints produced elsewhere (the pose
    /// graph's [`PoseGraph::local_pose_soa`]): local-to-model reads the blocks as they
    /// are, and [`Self::local`] unpacks them only when asked.
    pub fn evaluate_local_soa(
        &mut self,
        model: &Model,
        local_soa: &[SoaTransform],
        model_from_root: Mat4,
    ) -> Result<(), AnimError> {
        let blocks = soa_len(self.local.len());
        if local_soa.len() != blocks {
            return Err(AnimError::LengthMismatch {
                what: "graph pose blocks",
                expected: blocks,
                actual: local_soa.len(),
            });
        }
        self.local.blocks_mut().copy_from_slice(local_soa);
        self.local_to_model(model, model_from_root)
    }
}

impl crate::asset::PoseMatrices for Pose {
    fn model_from_joint(&self) -> &[Mat4] {
        &self.model_from_joint
    }
    fn skin_palettes(&self) -> &[Vec<Mat4>] {
        &self.skin_palettes
    }
    fn morph_weights(&self) -> &[Vec<f32>] {
        &self.morph_weights
    }
}

/// Whether `root` is the extraction the preview graph's player uses (the clip's
/// auto-detected root-motion joint).
fn same_source(root: &ClipRootMotion, graph: &PoseGraph) -> bool {
    graph
        .players()
        .first()
        .and_then(|p| p.root.as_ref())
        .is_some_and(|r| r.source.joint == root.source.joint)
}

impl Pose {
    /// Takes morph weights produced elsewhere (the pose graph's blend, or the Morphs
    /// panel's overrides), mesh by mesh; entries whose length does not match the mesh's
    /// targets are left as they are. Allocates nothing.
    pub fn set_morph_weights(&mut self, weights: &[Vec<f32>]) {
        for (out, w) in self.morph_weights.iter_mut().zip(weights) {
            // Most meshes have no morph targets: no `memcpy` call for nothing.
            if out.len() == w.len() && !w.is_empty() {
                out.copy_from_slice(w);
            }
        }
    }
}

/// Evaluates `model` at `time_secs` of clip `clip` (`None`: the rest pose), in place
/// (root motion kept, as authored). The error names the file.
pub fn pose_at(model: &Model, clip: Option<usize>, time_secs: f32) -> Result<Pose, StageError> {
    let mut pose = Pose::new(model);
    pose.evaluate(
        model,
        &PoseRequest {
            clip,
            time_secs,
            remove_root_motion: None,
            model_from_root: Mat4::IDENTITY,
        },
    )
    .map_err(|e| StageError::Pose {
        model: model.source.clone(),
        source: e,
    })?;
    Ok(pose)
}
