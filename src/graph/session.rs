//! The previewer's pose-graph session: a [`PoseGraph`] plus playback state, the world
//! placement accumulated from its blended root motion, the trail and the speed history.
//! No UI code: the egui panels draw it and call its methods; tests drive it directly.

use std::collections::VecDeque;

use glam::{DVec2, Mat4};

use crate::anim::GroundTransform;
use crate::asset::Model;

use super::def::GraphDef;
use super::eval::PoseGraph;

/// Trail points and speed samples kept.
pub const SESSION_HISTORY_LEN: usize = 2048;

#[derive(Clone, Debug)]
pub struct GraphSession {
    pub graph: PoseGraph,
    pub playing: bool,
    /// Where the root is on the ground (the graph's deltas integrated).
    world_from_root: GroundTransform,
    trail: VecDeque<DVec2>,
    /// (wall seconds, horizontal root speed m/s) per played frame.
    speed: VecDeque<(f64, f64)>,
    wall_secs: f64,
    error: Option<String>,
}

impl GraphSession {
    pub fn new(model: &Model, def: &GraphDef) -> Result<Self, String> {
        let graph = PoseGraph::new(model, def)?;
        Ok(Self {
            graph,
            playing: false,
            world_from_root: GroundTransform::IDENTITY,
            trail: VecDeque::from([DVec2::ZERO]),
            speed: VecDeque::new(),
            wall_secs: 0.0,
            error: None,
        })
    }

    /// The file's default graph (the demo's locomotion graph, or one state per clip).
    pub fn default_for(model: &Model) -> Result<Self, String> {
        let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
        let additive: Vec<bool> = model.clips.iter().map(|c| c.is_additive()).collect();
        let def = super::def::default_graph(&names, &additive)
            .ok_or_else(|| format!("{}: has no animations", model.source))?;
        Self::new(model, &def)
    }

    /// Plays `dt_secs` when playing: clocks, state machine, root motion, pose.
    pub fn tick(&mut self, model: &Model, dt_secs: f64) {
        if !self.playing {
            return;
        }
        match self.graph.advance(model, dt_secs) {
            Ok(()) => {
                let delta = self.graph.root_delta();
                self.world_from_root = self.world_from_root.compose(&delta);
                self.wall_secs += dt_secs;
                if dt_secs > 0.0 {
                    push_bounded(
                        &mut self.speed,
                        (self.wall_secs, delta.translation.length() / dt_secs),
                    );
                }
                let p = self.world_from_root.translation;
                if self.trail.back() != Some(&p) {
                    push_bounded(&mut self.trail, p);
                }
            }
            Err(e) => {
                self.playing = false;
                self.error = Some(e.to_string());
            }
        }
    }

    /// Seeks every input to the leader's clip time (no root motion).
    pub fn seek(&mut self, model: &Model, leader_secs: f64) {
        if let Err(e) = self.graph.seek(model, leader_secs) {
            self.error = Some(e.to_string());
        }
    }

    /// Re-evaluates after a parameter change while paused.
    pub fn refresh(&mut self, model: &Model) {
        if let Err(e) = self.graph.evaluate(model) {
            self.error = Some(e.to_string());
        }
    }

    pub fn set_float(&mut self, model: &Model, name: &str, value: f32) {
        match self.graph.params_mut().set_float(name, value) {
            Ok(()) => self.refresh(model),
            Err(e) => self.error = Some(e),
        }
    }

    pub fn travel(&mut self, model: &Model, state: &str, duration_secs: f32) {
        if let Err(e) = self.graph.travel(model, state, duration_secs) {
            self.error = Some(e);
        }
    }

    /// Back to the origin and every clock to 0.
    pub fn restart(&mut self, model: &Model) {
        self.world_from_root = GroundTransform::IDENTITY;
        self.trail.clear();
        self.trail.push_back(DVec2::ZERO);
        self.speed.clear();
        self.wall_secs = 0.0;
        self.seek(model, 0.0);
    }

    pub fn world_from_root(&self) -> GroundTransform {
        self.world_from_root
    }

    pub fn model_from_root(&self) -> Mat4 {
        self.world_from_root.to_mat4()
    }

    pub fn trail(&self) -> impl ExactSizeIterator<Item = DVec2> + '_ {
        self.trail.iter().copied()
    }

    pub fn speed_history(&self) -> impl ExactSizeIterator<Item = (f64, f64)> + '_ {
        self.speed.iter().copied()
    }

    /// Horizontal root speed of the last played frame (m/s).
    pub fn last_speed(&self) -> Option<f64> {
        self.speed.back().map(|&(_, v)| v)
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The phase-cancellation warning text for the status bar, if any.
    pub fn phase_warning(&self) -> Option<String> {
        self.graph.phase_report().filter(|r| r.warning).map(|r| {
            format!(
                "phase cancellation: the blend loses {:.0}% of its leg swing ({:.1} deg of {:.1} deg): the inputs are out of phase",
                r.amplitude_drop * 100.0,
                r.blend_amplitude_deg,
                r.input_amplitude_deg
            )
        })
    }
}

fn push_bounded<T>(q: &mut VecDeque<T>, v: T) {
    q.push_back(v);
    if q.len() > SESSION_HISTORY_LEN {
        q.pop_front();
    }
}
