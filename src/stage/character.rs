//! A character on the stage: a model, its clip timeline, what moves it (one
//! [`MotionSource`]) and the pose of the frame. The window, the commands and the tests
//! move a character through the same calls: [`Character::advance`] by wall time or a seek
//! on its timeline, then [`Character::evaluate`].

use std::path::{Path, PathBuf};

use glam::{DVec2, Mat4};

use crate::anim::{AnimError, GroundTransform};
use crate::asset::Model;

use super::pose::Pose;
use super::source::MotionSource;
use super::timeline::Timeline;
use super::StageError;

/// One character: a model, placement and motion.
pub struct Character {
    /// The character's model: skeleton, meshes, skins and clips.
    pub model: Model,
    /// Where the model came from (`None`: built in, or made in memory).
    pub path: Option<PathBuf>,
    /// Bumped whenever `model` is replaced, so GPU copies are made again.
    pub generation: u64,
    /// The clip timeline: the selected clip, its clock and root-motion placement. It
    /// outlives the other sources (turning them off returns to it).
    pub timeline: Timeline,
    /// What moves the character now.
    pub source: MotionSource,
    /// The frame's pose (world placement included), after [`Self::evaluate`].
    pub pose: Pose,
    /// Where the character stands on the stage, applied after its root motion
    /// (identity for the open character; beside it for a compared one).
    pub world_from_stage: Mat4,
}

impl Character {
    /// `model` on its default clip's timeline, at rest at the origin.
    pub fn new(model: Model, path: Option<PathBuf>) -> Self {
        let timeline = Timeline::new(&model);
        let pose = Pose::new(&model);
        Self {
            model,
            path,
            generation: 0,
            timeline,
            source: MotionSource::Clip,
            pose,
            world_from_stage: Mat4::IDENTITY,
        }
    }

    /// The file the model came from (`None`: built in, or made in memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Moves the character by `dt_secs` of wall time (its source's clock, root motion
    /// into its placement). `look_yaw_rad` steers motion matching's keys.
    pub fn advance(
        &mut self,
        dt_secs: f64,
        look_yaw_rad: f32,
    ) -> Result<GroundTransform, StageError> {
        self.source
            .advance(&self.model, &mut self.timeline, dt_secs, look_yaw_rad)
    }

    /// Poses the character for the frame (`bind_pose`: its rest pose where it stands).
    pub fn evaluate(&mut self, bind_pose: bool) -> Result<(), AnimError> {
        self.source.evaluate(
            &self.model,
            &self.timeline,
            bind_pose,
            self.world_from_stage,
            &mut self.pose,
        )
    }

    /// Whether its motion source plays (the timeline's clock for a clip).
    pub fn is_playing(&self) -> bool {
        self.source.is_playing(&self.timeline)
    }

    /// Play / pause of its motion source.
    pub fn toggle_play(&mut self) {
        self.source.toggle_play(&mut self.timeline);
    }

    /// Where the root stands on the ground.
    pub fn world_from_root(&self) -> GroundTransform {
        self.source.world_from_root(&self.timeline)
    }

    /// Ground positions of the root trail, oldest first.
    pub fn trail(&self) -> Box<dyn Iterator<Item = DVec2> + '_> {
        self.source.trail(&self.timeline)
    }

    /// How much each clip shows now (0..1, one per clip).
    pub fn clip_weights(&self) -> Vec<f32> {
        self.source.clip_weights(&self.model, &self.timeline)
    }

    /// Replaces the model (a reload or another file): a fresh timeline and pose, the
    /// clip source, and a new generation.
    pub fn replace_model(&mut self, model: Model, path: Option<PathBuf>) {
        self.timeline = Timeline::new(&model);
        self.pose = Pose::new(&model);
        self.source = MotionSource::Clip;
        self.model = model;
        self.path = path;
        self.generation += 1;
    }
}
