//! The previewer's pose-graph session: a [`PoseGraph`] plus playback state, the world
//! placement accumulated from its blended root motion, the trail and the speed history.
//! No UI code: the egui panels draw it and call its methods; tests drive it directly.

use std::collections::VecDeque;

use glam::{DVec2, Mat4};

use crate::anim::GroundTransform;
use crate::asset::Model;

use super::locomotion::{Locomotion, LocomotionSettings};
use super::StageError;
use crate::graph::def::GraphDef;
use crate::graph::eval::PoseGraph;

/// One played frame of the locomotion stage, for the plots under the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct LocomotionSample {
    /// Session seconds at the end of the frame (wall clock, rate not applied).
    pub wall_secs: f64,
    /// The graph's play rate that frame (speed matching's choice when on).
    pub play_rate: f64,
    /// Stride warping's scale that frame (1 = the clip's own stride).
    pub stride_scale: f32,
    /// Per leg (the first `MAX_LEGS`): world horizontal speed while planted (m/s),
    /// `None` in the air or for missing legs.
    pub slide_mps: [Option<f32>; crate::anim::locomotion::stride_warp::MAX_LEGS],
}

/// Trail points and speed samples kept.
pub const SESSION_HISTORY_LEN: usize = 2048;

/// A pose graph being played in the window or a scripted run, with its placement,
/// history and undo stack.
#[derive(Clone, Debug)]
pub struct GraphSession {
    /// The graph being played.
    pub graph: PoseGraph,
    /// Whether [`Self::tick`] advances the graph (false = paused).
    pub playing: bool,
    /// Where the root is on the ground (the graph's deltas integrated).
    world_from_root: GroundTransform,
    trail: VecDeque<DVec2>,
    /// (wall seconds, horizontal root speed m/s) per played frame.
    speed: VecDeque<(f64, f64)>,
    wall_secs: f64,
    error: Option<String>,
    /// The locomotion stage after the graph, while "drive" is on.
    pub locomotion: Option<Locomotion>,
    loco_history: VecDeque<LocomotionSample>,
    /// Graph definitions before each edit (undo) and after each undo (redo).
    undo: Vec<GraphDef>,
    redo: Vec<GraphDef>,
}

/// Edits kept for undo.
pub const UNDO_DEPTH: usize = 64;

impl GraphSession {
    /// A session playing a new graph built from `def`, at the origin, paused.
    pub fn new(model: &Model, def: &GraphDef) -> Result<Self, StageError> {
        Ok(Self::from_graph(PoseGraph::new(model, def)?))
    }

    /// The pose of the frame into `pose`: the graph's (after the locomotion stage when
    /// driven), placed by the session's root motion and then by `world_from_stage`, with
    /// the graph's morph weights. The window and `render` pose a graph through this.
    pub fn evaluate_pose(
        &self,
        model: &Model,
        world_from_stage: Mat4,
        pose: &mut super::pose::Pose,
    ) -> Result<(), crate::anim::AnimError> {
        let model_from_root = world_from_stage * self.model_from_root();
        // The graph's own blocks unless the locomotion stage changed the pose after it.
        let soa = match &self.locomotion {
            Some(_) => None,
            None => self.graph.local_pose_soa(),
        };
        let r = match soa {
            Some(soa) => pose.evaluate_local_soa(model, soa, model_from_root),
            None => pose.evaluate_local(model, self.local_pose(), model_from_root),
        };
        pose.set_morph_weights(self.morph_weights());
        r
    }

    /// A session playing `graph` (built elsewhere: a scenario's graph, a one-clip graph),
    /// at the origin, paused.
    pub fn from_graph(graph: PoseGraph) -> Self {
        Self {
            graph,
            playing: false,
            world_from_root: GroundTransform::IDENTITY,
            trail: VecDeque::from([DVec2::ZERO]),
            speed: VecDeque::new(),
            wall_secs: 0.0,
            error: None,
            locomotion: None,
            loco_history: VecDeque::new(),
            undo: Vec::new(),
            redo: Vec::new(),
        }
    }

    /// Evaluates the pose where the graph stands, without motion (the first frame of a
    /// run, a pose after a parameter change): the graph, then the locomotion stage.
    pub fn evaluate_still(&mut self, model: &Model) {
        if let Err(e) = self.graph.evaluate(model) {
            self.error = Some(e.to_string());
            return;
        }
        self.after_still(model);
    }

    /// The last error of a tick, seek or evaluation, cleared (a scripted run stops at it;
    /// the window shows [`Self::error`] instead).
    pub fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }

    /// Edits the graph definition (Blend panel: phase offsets, sync, layer weights and
    /// references) and rebuilds the graph from it, keeping the parameter values, the
    /// leader's clip time, the play rate and the placement. A definition the graph
    /// refuses leaves the old graph playing and returns the reason. Undoable.
    pub fn edit(&mut self, model: &Model, f: impl FnOnce(&mut GraphDef)) -> Result<(), StageError> {
        let old = self.graph.def().clone();
        let mut new = old.clone();
        f(&mut new);
        if new == old {
            return Ok(());
        }
        self.replace_def(model, new)?;
        self.undo.push(old);
        if self.undo.len() > UNDO_DEPTH {
            self.undo.remove(0);
        }
        self.redo.clear();
        Ok(())
    }

    /// Undoes the last edit (Ctrl+Z). False when there is none.
    pub fn undo(&mut self, model: &Model) -> bool {
        let Some(def) = self.undo.pop() else {
            return false;
        };
        let current = self.graph.def().clone();
        match self.replace_def(model, def) {
            Ok(()) => {
                self.redo.push(current);
                true
            }
            Err(e) => {
                self.error = Some(e.to_string());
                false
            }
        }
    }

    /// Redoes the last undone edit (Ctrl+Shift+Z). False when there is none.
    pub fn redo(&mut self, model: &Model) -> bool {
        let Some(def) = self.redo.pop() else {
            return false;
        };
        let current = self.graph.def().clone();
        match self.replace_def(model, def) {
            Ok(()) => {
                self.undo.push(current);
                true
            }
            Err(e) => {
                self.error = Some(e.to_string());
                false
            }
        }
    }

    /// Whether there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Whether there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    fn replace_def(&mut self, model: &Model, def: GraphDef) -> Result<(), StageError> {
        let mut graph = PoseGraph::new(model, &def)?;
        // Same parameter values, rate and leader time (a seek: no root motion).
        for p in &def.params {
            let name = p.name();
            if let Some(v) = self.graph.params().get_float(name) {
                let _ = graph.params_mut().set_float(name, v);
            }
            if let Some(v) = self.graph.params().get_bool(name) {
                let _ = graph.params_mut().set_bool(name, v);
            }
        }
        graph.set_rate(self.graph.rate())?;
        let leader = self.graph.leader();
        let t = leader.clock.time().to_secs(leader.duration_secs());
        graph.seek(model, t)?;
        self.graph = graph;
        if let Some(l) = &mut self.locomotion {
            l.attach(&self.graph);
        }
        self.after_still(model);
        Ok(())
    }

    /// Turns the locomotion stage on (with `settings`) or off. Errors (a rig without
    /// legs) leave it off.
    pub fn set_drive(
        &mut self,
        model: &Model,
        on: bool,
        settings: LocomotionSettings,
    ) -> Result<(), StageError> {
        self.loco_history.clear();
        if !on {
            self.locomotion = None;
            self.refresh(model);
            return Ok(());
        }
        // The model's legs: the user's choice when made (`Model::set_leg_override`).
        let mut loco = Locomotion::new(model, settings)?;
        loco.attach(&self.graph);
        loco.prepare(model)?;
        loco.world_from_root = self.world_from_root;
        loco.evaluate_still(model, &mut self.graph)?;
        self.locomotion = Some(loco);
        Ok(())
    }

    /// A session of `graph` driven by the locomotion stage with `settings`: the one way
    /// the window's Drive, `render` and `trace` set up a driven character (the model's
    /// legs, the clips' speeds prepared, the still frame evaluated). Follow it with
    /// [`Self::drive_at_natural_speed`] when the user gave no movement speed.
    pub fn driven(
        model: &Model,
        graph: PoseGraph,
        settings: LocomotionSettings,
    ) -> Result<Self, StageError> {
        let mut session = Self::from_graph(graph);
        session.set_drive(model, true, settings)?;
        Ok(session)
    }

    /// The speed the driven inputs cover at play rate 1 as last evaluated (units/s: the
    /// weighted speed of what the graph plays, implied by the feet for in-place clips);
    /// `None` when not driving or when it is zero (nothing to match).
    pub fn natural_speed(&self) -> Option<f32> {
        self.locomotion
            .as_ref()
            .map(|l| l.anim_speed as f32)
            .filter(|v| *v > 0.0)
    }

    /// Sets the movement speed to [`Self::natural_speed`] (play rate 1, stride 1: the
    /// clip as authored), what Drive starts at until the user picks a speed. Returns the
    /// speed, `None` (nothing changed) when there is none.
    pub fn drive_at_natural_speed(&mut self, model: &Model) -> Option<f32> {
        let speed = self.natural_speed()?;
        let mut settings = self.locomotion.as_ref()?.settings;
        settings.movement_speed = speed;
        self.set_locomotion_settings(model, settings);
        Some(speed)
    }

    /// Changes the locomotion settings (speed, direction, toggles...) in place.
    pub fn set_locomotion_settings(&mut self, model: &Model, settings: LocomotionSettings) {
        if let Some(l) = &mut self.locomotion {
            l.settings = settings;
            if !self.playing {
                if let Err(e) = l.evaluate_still(model, &mut self.graph) {
                    self.error = Some(e.to_string());
                }
            }
        }
    }

    /// The pose to draw: the locomotion stage's when driving, else the graph's.
    pub fn local_pose(&self) -> &[crate::anim::Transform] {
        match &self.locomotion {
            Some(l) => l.local_pose(),
            None => self.graph.local_pose(),
        }
    }

    /// Morph weights per mesh, blended by the graph like the pose.
    pub fn morph_weights(&self) -> &[Vec<f32>] {
        self.graph.morph_weights()
    }

    /// Play-rate / stride-scale / slide history of the drive.
    pub fn locomotion_history(&self) -> impl ExactSizeIterator<Item = &LocomotionSample> + '_ {
        self.loco_history.iter()
    }

    fn after_still(&mut self, model: &Model) {
        if let Some(l) = &mut self.locomotion {
            if let Err(e) = l.evaluate_still(model, &mut self.graph) {
                self.error = Some(e.to_string());
            }
        }
    }

    /// The file's default graph (the demo's locomotion graph, or one state per clip).
    pub fn default_for(model: &Model) -> Result<Self, StageError> {
        let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
        let additive: Vec<bool> = model.clips.iter().map(|c| c.is_additive()).collect();
        let def = crate::graph::def::default_graph(&names, &additive).ok_or_else(|| {
            StageError::NoAnimations {
                model: model.source.clone(),
            }
        })?;
        Self::new(model, &def)
    }

    /// Plays `dt_secs` when playing: clocks, state machine, root motion, pose.
    pub fn tick(&mut self, model: &Model, dt_secs: f64) {
        if !self.playing {
            return;
        }
        let result = match &mut self.locomotion {
            Some(l) => l.advance(model, &mut self.graph, dt_secs),
            None => self.graph.advance(model, dt_secs).map_err(StageError::from),
        };
        match result {
            Ok(()) => {
                let delta = self.graph.root_delta();
                let before = self.world_from_root;
                match &self.locomotion {
                    Some(l) => {
                        self.world_from_root = l.world_from_root;
                        push_bounded(
                            &mut self.loco_history,
                            LocomotionSample {
                                wall_secs: self.wall_secs + dt_secs,
                                play_rate: self.graph.rate(),
                                stride_scale: l.warp.scale,
                                slide_mps: {
                                    let mut a =
                                        [None; crate::anim::locomotion::stride_warp::MAX_LEGS];
                                    for (x, v) in a.iter_mut().zip(l.slide.speeds()) {
                                        *x = *v;
                                    }
                                    a
                                },
                            },
                        );
                    }
                    None => self.world_from_root = self.world_from_root.compose(&delta),
                }
                let moved = (self.world_from_root.translation - before.translation).length();
                self.wall_secs += dt_secs;
                if dt_secs > 0.0 {
                    push_bounded(&mut self.speed, (self.wall_secs, moved / dt_secs));
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
            return;
        }
        self.after_still(model);
    }

    /// Re-evaluates after a parameter change while paused.
    pub fn refresh(&mut self, model: &Model) {
        if let Err(e) = self.graph.evaluate(model) {
            self.error = Some(e.to_string());
        }
        self.after_still(model);
    }

    /// Sets float parameter `name` and re-evaluates the pose; a refused value becomes the
    /// session's error.
    pub fn set_float(&mut self, model: &Model, name: &str, value: f32) {
        match self.graph.params_mut().set_float(name, value) {
            Ok(()) => self.refresh(model),
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Forces the state machine's cross-fade to `state` over `duration_secs` seconds; a
    /// refusal becomes the session's error.
    pub fn travel(&mut self, model: &Model, state: &str, duration_secs: f32) {
        if let Err(e) = self.graph.travel(model, state, duration_secs) {
            self.error = Some(e.to_string());
        }
        self.after_still(model);
    }

    /// Back to the origin and every clock to 0.
    pub fn restart(&mut self, model: &Model) {
        self.world_from_root = GroundTransform::IDENTITY;
        self.trail.clear();
        self.trail.push_back(DVec2::ZERO);
        self.speed.clear();
        self.loco_history.clear();
        self.wall_secs = 0.0;
        if let Some(l) = &mut self.locomotion {
            l.restart();
        }
        self.seek(model, 0.0);
    }

    /// Where the root stands on the ground (world space), the root motion played
    /// so far integrated.
    pub fn world_from_root(&self) -> GroundTransform {
        self.world_from_root
    }

    /// World from the skeleton's roots: the placement, and the body turn of orientation
    /// warping while driving.
    pub fn model_from_root(&self) -> Mat4 {
        match &self.locomotion {
            Some(l) => l.model_from_root(),
            None => self.world_from_root.to_mat4(),
        }
    }

    /// Ground positions (x, z, metres) the root has passed through, oldest first (at
    /// most [`SESSION_HISTORY_LEN`]).
    pub fn trail(&self) -> impl ExactSizeIterator<Item = DVec2> + '_ {
        self.trail.iter().copied()
    }

    /// `(wall seconds, horizontal root speed m/s)` per played frame, oldest first
    /// (at most [`SESSION_HISTORY_LEN`]).
    pub fn speed_history(&self) -> impl ExactSizeIterator<Item = (f64, f64)> + '_ {
        self.speed.iter().copied()
    }

    /// Horizontal root speed of the last played frame (m/s).
    pub fn last_speed(&self) -> Option<f64> {
        self.speed.back().map(|&(_, v)| v)
    }

    /// Seconds the session has played (wall clock, rate not applied).
    pub fn wall_secs(&self) -> f64 {
        self.wall_secs
    }

    /// The last error of a tick, seek, undo, redo or evaluation (kept until
    /// [`Self::take_error`] takes it).
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
