//! What moves a character: one motion source at a time. Every source answers the same
//! calls (advance by wall time, play/pause, where the root stands, its trail, the pose of
//! the frame), so the window, the commands and the tests ask the source instead of
//! checking which mode is on.
//!
//! The clip timeline is the character's and outlives the other sources: turning a graph,
//! Drive or motion matching off returns to the clip it showed, at its time.

use glam::{DVec2, Mat4};

use crate::anim::motion_matching::MatcherInput;
use crate::anim::{AnimError, GroundTransform};
use crate::asset::Model;

use super::matching::{KeyInput, MatchingSession};
use super::pose::{Pose, PoseRequest};
use super::session::{GraphSession, SESSION_HISTORY_LEN};
use super::timeline::Timeline;
use super::StageError;

/// Live motion-matching steps run per advance at most (a stalled window does not
/// fast-forward through seconds of simulation).
pub const MAX_MATCHING_STEPS_PER_ADVANCE: usize = 8;

/// What moves a character.
pub enum MotionSource {
    /// The timeline's clip (or, without clips, the rest pose).
    Clip,
    /// A pose graph: the file's graph or a two-clip blend; with locomotion while driven.
    /// `drive_only`: the one-clip graph Drive plays the timeline's clip through (turning
    /// Drive off returns to the clip).
    Graph {
        /// The graph being played, with its placement and locomotion stage.
        session: Box<GraphSession>,
        /// The graph is Drive's one-clip graph of the timeline's clip.
        drive_only: bool,
    },
    /// Motion matching, steered by held keys.
    Matching(Box<MatchingPlay>),
}

/// Motion matching as a motion source: the session, whether it plays, the keys held and
/// the tag constraints of jump targets.
pub struct MatchingPlay {
    /// The matching session: database, live matcher and recording.
    pub session: MatchingSession,
    /// Whether [`Self::advance`] steps the simulation (false = paused).
    pub playing: bool,
    /// Keys held this frame (the window sets them every frame).
    pub keys: KeyInput,
    /// Jump-target constraints: bit masks over the database's tags.
    pub require_tags: u32,
    /// Tags no jump target may carry (a bit mask over the database's tags, like
    /// `require_tags`).
    pub exclude_tags: u32,
    /// A scripted run's input (a `trace --motion-matching` scenario), used instead of the
    /// keys and the tag masks while set.
    pub scripted: Option<MatcherInput>,
    /// Wall seconds not yet simulated (the simulation steps a fixed `session.dt_secs`).
    accumulated_secs: f64,
}

impl MatchingPlay {
    /// Motion matching on `session`, playing; its searches say what they kept out (the
    /// debugger lists it).
    pub fn new(mut session: MatchingSession) -> Self {
        session.set_explain(true);
        Self {
            session,
            playing: true,
            keys: KeyInput::default(),
            require_tags: 0,
            exclude_tags: 0,
            scripted: None,
            accumulated_secs: 0.0,
        }
    }

    /// The input the held keys give, relative to `look_yaw_rad` (the direction the
    /// viewer looks, radians about +Y; 0 = towards +Z).
    pub fn input(&self, look_yaw_rad: f32) -> MatcherInput {
        if let Some(input) = self.scripted {
            return input;
        }
        let s = &self.session;
        // The live state's facing: after a scrub, play continues from the newest frame.
        let yaw = s.live().state().sim.yaw;
        let mut input = self
            .keys
            .to_input(look_yaw_rad, s.walk_speed_mps, s.run_speed_mps, yaw);
        input.require_tags = self.require_tags;
        input.exclude_tags = self.exclude_tags;
        input
    }

    /// Runs `steps` live frames with the held keys; an error pauses.
    pub fn step(
        &mut self,
        model: &Model,
        steps: usize,
        look_yaw_rad: f32,
    ) -> Result<(), StageError> {
        for _ in 0..steps {
            let input = self.input(look_yaw_rad);
            if let Err(e) = self.session.step(model, &input) {
                self.playing = false;
                return Err(e);
            }
        }
        Ok(())
    }

    /// Fixed steps for `dt_secs` of wall time, while playing (at most
    /// [`MAX_MATCHING_STEPS_PER_ADVANCE`]; a longer stall is dropped, not caught up).
    pub fn advance(
        &mut self,
        model: &Model,
        dt_secs: f64,
        look_yaw_rad: f32,
    ) -> Result<(), StageError> {
        if !self.playing {
            return Ok(());
        }
        self.accumulated_secs += dt_secs.max(0.0);
        let step = self.session.dt_secs;
        let mut n = 0;
        while self.accumulated_secs >= step - 1e-9 && n < MAX_MATCHING_STEPS_PER_ADVANCE {
            self.accumulated_secs -= step;
            n += 1;
        }
        if n == MAX_MATCHING_STEPS_PER_ADVANCE {
            self.accumulated_secs = 0.0;
        }
        self.step(model, n, look_yaw_rad)
    }
}

impl MotionSource {
    /// The graph session, when the source is a graph.
    pub fn graph(&self) -> Option<&GraphSession> {
        match self {
            Self::Graph { session, .. } => Some(session),
            _ => None,
        }
    }

    /// The graph session, mutable, when the source is a graph.
    pub fn graph_mut(&mut self) -> Option<&mut GraphSession> {
        match self {
            Self::Graph { session, .. } => Some(session),
            _ => None,
        }
    }

    /// Motion matching's state, when the source is motion matching.
    pub fn matching(&self) -> Option<&MatchingPlay> {
        match self {
            Self::Matching(m) => Some(m),
            _ => None,
        }
    }

    /// Motion matching's state, mutable, when the source is motion matching.
    pub fn matching_mut(&mut self) -> Option<&mut MatchingPlay> {
        match self {
            Self::Matching(m) => Some(m),
            _ => None,
        }
    }

    /// A graph source made for driving the timeline's clip alone.
    pub fn is_drive_only(&self) -> bool {
        matches!(
            self,
            Self::Graph {
                drive_only: true,
                ..
            }
        )
    }

    /// Whether the locomotion stage drives the character.
    pub fn is_driving(&self) -> bool {
        self.graph().is_some_and(|g| g.locomotion.is_some())
    }

    /// Whether the source plays (the timeline's clock for [`Self::Clip`]).
    pub fn is_playing(&self, timeline: &Timeline) -> bool {
        match self {
            Self::Clip => timeline.is_playing(),
            Self::Graph { session, .. } => session.playing,
            Self::Matching(m) => m.playing,
        }
    }

    /// Play / pause.
    pub fn toggle_play(&mut self, timeline: &mut Timeline) {
        match self {
            Self::Clip => timeline.toggle_play(),
            Self::Graph { session, .. } => session.playing = !session.playing,
            Self::Matching(m) => m.playing = !m.playing,
        }
    }

    /// Moves the source by `dt_secs` of wall time; the root motion of the interval goes
    /// into the source's placement and is returned (in the root's frame before the
    /// advance: `after = before ∘ delta`). `look_yaw_rad` steers motion matching's keys.
    /// A clip's playback error stops it and is returned (the timeline keeps it too, for
    /// the status bar).
    pub fn advance(
        &mut self,
        model: &Model,
        timeline: &mut Timeline,
        dt_secs: f64,
        look_yaw_rad: f32,
    ) -> Result<GroundTransform, StageError> {
        let before = self.world_from_root(timeline);
        match self {
            Self::Clip => {
                let before = timeline.error_count();
                let delta = timeline.tick(dt_secs);
                return match timeline.error() {
                    Some(e) if timeline.error_count() != before => Err(StageError::Playback {
                        message: e.to_owned(),
                    }),
                    _ => Ok(delta),
                };
            }
            Self::Graph { session, .. } => session.tick(model, dt_secs),
            Self::Matching(m) => m.advance(model, dt_secs, look_yaw_rad)?,
        }
        Ok(before.inverse().compose(&self.world_from_root(timeline)))
    }

    /// Where the character's root stands on the ground (metres, radians).
    pub fn world_from_root(&self, timeline: &Timeline) -> GroundTransform {
        match self {
            Self::Clip => timeline.world_from_root(),
            Self::Graph { session, .. } => session.world_from_root(),
            Self::Matching(m) => m.session.world_from_root(),
        }
    }

    /// Ground positions of the root trail, oldest first (motion matching: up to the
    /// shown frame of its recording).
    pub fn trail<'a>(&'a self, timeline: &'a Timeline) -> Box<dyn Iterator<Item = DVec2> + 'a> {
        match self {
            Self::Clip => Box::new(timeline.trail()),
            Self::Graph { session, .. } => Box::new(session.trail()),
            Self::Matching(m) => {
                let s = &m.session;
                let end = s.viewed().map(|i| i + 1).unwrap_or(s.frames().len());
                let start = end.saturating_sub(SESSION_HISTORY_LEN);
                Box::new(
                    s.frames()[start..end]
                        .iter()
                        .map(|f| f.world_from_root.translation),
                )
            }
        }
    }

    /// How much each clip of the model shows now (0..1, one entry per clip): the
    /// timeline's clip; every graph input by its weight; the clip motion matching plays.
    pub fn clip_weights(&self, model: &Model, timeline: &Timeline) -> Vec<f32> {
        let mut w = vec![0.0f32; model.clips.len()];
        match self {
            Self::Matching(m) => {
                if let Some(x) = m.session.current().and_then(|f| w.get_mut(f.clip)) {
                    *x = 1.0;
                }
            }
            Self::Graph { session, .. } => {
                for p in session.graph.players() {
                    if let Some(x) = w.get_mut(p.clip) {
                        *x = (*x + p.weight.max(0.0)).min(1.0);
                    }
                }
            }
            Self::Clip => {
                if let Some(x) = timeline.clip().and_then(|i| w.get_mut(i)) {
                    *x = 1.0;
                }
            }
        }
        w
    }

    /// Evaluates the frame's pose into `pose`, placed by the source's root motion and then
    /// by `world_from_stage` (where the character stands on the stage: identity for the
    /// open character, beside it for a compared one); `bind_pose` shows the rest pose at
    /// the timeline's placement instead.
    pub fn evaluate(
        &self,
        model: &Model,
        timeline: &Timeline,
        bind_pose: bool,
        world_from_stage: Mat4,
        pose: &mut Pose,
    ) -> Result<(), AnimError> {
        if bind_pose {
            let request = PoseRequest {
                clip: None,
                time_secs: 0.0,
                remove_root_motion: None,
                model_from_root: world_from_stage * timeline.model_from_root(),
            };
            return pose.evaluate(model, &request);
        }
        match self {
            Self::Clip => {
                let mut request = timeline.pose_request();
                request.model_from_root = world_from_stage * request.model_from_root;
                pose.evaluate(model, &request)
            }
            Self::Graph { session, .. } => session.evaluate_pose(model, world_from_stage, pose),
            Self::Matching(m) => {
                let s = &m.session;
                pose.evaluate_local(
                    model,
                    s.pose(),
                    world_from_stage * s.world_from_root().to_mat4(),
                )
            }
        }
    }
}
