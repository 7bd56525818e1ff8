//! The pose graph at run time: one straight line per frame.
//!
//! ```text
//! advance(dt):  params ─► state machine / blend-space weights ─► sync (cycle or markers)
//!               ─► every input's clock moves, each emitting the wrap-safe root-motion
//!               delta of exactly the interval it played
//! evaluate():   sample each input with weight > 0 (root motion removed)
//!               ─► BlendingJob (flat, normalised weights; + the frozen snapshot of an
//!                  interrupted transition) ─► layers (additive / override, masked)
//!               ─► local pose + blended root-motion delta   (then local-to-model once)
//! ```
//!
//! Nested blends are flattened: every clip input ends up with the product of the weights
//! on its path and one N-way blend runs (as ozz's blend sample does), so a node never
//! blends a pose that another node already normalised. Zero-weight inputs keep their
//! clocks moving (so they stay in sync) but are never sampled.
//!
//! Root motion blends with the same weights as the pose: `delta = sum w_i * delta_i`
//! (translation and yaw), each `delta_i` being that input's own wrap-safe delta for the
//! interval its clock played. A seek moves every clock and emits no root motion.

/// Per-frame lists (inputs, weights, active states): on the stack for up to 8 entries, so
/// a steady blend allocates nothing per frame.
type Inline<T> = smallvec::SmallVec<[T; 8]>;

use glam::DVec2;

use crate::anim::blend::additive::AdditiveJob;
use crate::anim::blend::blending::{BlendLayer, BlendingJob};
use crate::anim::blend::mask::JointMask;
use crate::anim::blend::space::{BlendSpace1D, BlendSpace2D, BlendSpace2DQuery};
use crate::anim::contacts::{self, LegChain};
use crate::anim::phase::{self, PhaseInput, PhaseReport, SwingCurves};
use crate::anim::state_machine::{Ease, FiredEvent, Params, Slot, StateMachine};
use crate::anim::sync;
use crate::anim::{AnimError, GroundTransform, SamplingJob, Transform};
use crate::asset::Model;

use super::def::{GraphDef, LayerMode, NodeDef, ParamDef, ReferenceDef, SyncMode, Weight};
use super::player::ClipPlayer;

/// Samples per cycle used to measure phase cancellation (leg-swing range).
const PHASE_SAMPLES: usize = 48;

/// Runtime node: indices into the graph's players.
#[derive(Clone, Debug)]
enum Node {
    Clip {
        player: usize,
        rate: f64,
    },
    Blend {
        players: Vec<usize>,
        weights: Vec<Weight>,
        sync: SyncMode,
        /// Normalised weights of this frame.
        norm: Vec<f32>,
    },
    Space1D {
        players: Vec<usize>,
        space: BlendSpace1D,
        param: String,
        sync: SyncMode,
        norm: Vec<f32>,
    },
    Space2D {
        players: Vec<usize>,
        space: Box<BlendSpace2D>,
        params: (String, String),
        sync: SyncMode,
        norm: Vec<f32>,
        query: Option<BlendSpace2DQuery>,
    },
}

/// The state machine of the base node, with one node per state.
#[derive(Clone, Debug)]
struct Machine {
    sm: StateMachine,
    states: Vec<Node>,
    sync: SyncMode,
    /// `leader.cycles()` when each state was entered (for exit times).
    entered_cycles: Vec<f64>,
}

#[derive(Clone, Debug)]
enum Base {
    Node(Node),
    Machine(Box<Machine>),
}

#[derive(Clone, Debug)]
struct Layer {
    name: String,
    player: usize,
    mode: LayerMode,
    weight: Weight,
    mask: Option<JointMask>,
    reference: Vec<Transform>,
    /// Morph weights of the reference (per mesh), what an additive layer's weights are
    /// measured from.
    morph_reference: Vec<Vec<f32>>,
    /// Scratch per-joint weights (mask * weight, and 1 - that for the base).
    layer_weights: Vec<f32>,
    base_weights: Vec<f32>,
    current_weight: f32,
}

/// What the UI and `trace` show about one clip input.
#[derive(Clone, Debug, PartialEq)]
pub struct InputStatus {
    /// Index into [`PoseGraph::players`].
    pub player: usize,
    pub clip: String,
    /// Clip seconds within the cycle.
    pub time_secs: f64,
    /// Phase in [0, 1).
    pub phase: f64,
    /// Effective weight (0..1).
    pub weight: f32,
    /// The state it belongs to (state machines), or the layer name.
    pub owner: Option<String>,
    pub is_layer: bool,
    pub markers_detected: bool,
}

/// The graph: build once per model, advance and evaluate every frame.
#[derive(Clone, Debug)]
pub struct PoseGraph {
    def: GraphDef,
    params: Params,
    players: Vec<ClipPlayer>,
    base: Base,
    layers: Vec<Layer>,
    rate: f64,
    legs: Vec<LegChain>,
    /// Output: local pose (root motion removed) and this frame's blended root delta.
    local: Vec<Transform>,
    root_delta: GroundTransform,
    /// Pose and root velocity (per second) frozen when a transition was interrupted.
    snapshot: Vec<Transform>,
    snapshot_velocity: GroundTransform,
    snapshot_weight: f32,
    scratch: Vec<Transform>,
    /// Output morph weights per mesh, blended with the pose's weights (additive layers
    /// add theirs); the snapshot's, frozen with it; scratch for one mesh's sample.
    morph: Vec<Vec<f32>>,
    morph_snapshot: Vec<Vec<f32>>,
    morph_scratch: Vec<f32>,
    /// This frame's event names are `events[..events_len]`; the strings past it are kept
    /// for reuse, so firing a name seen before allocates nothing.
    events: Vec<String>,
    events_len: usize,
    phase: Option<PhaseReport>,
    phase_key: Vec<(usize, i32, i32)>,
    /// The first leg's swing over a cycle as the phase report measured it, and the clip
    /// of each curve input.
    swing: SwingCurves,
    swing_clips: Vec<usize>,
    /// How marker sync aligns each active follower with the leader, where it cannot pair
    /// every shared marker (measured with the phase report).
    sync_notes: Vec<String>,
    last_dt: f64,
    /// Inertialized transitions: the stage after the blend, and this evaluation's frame
    /// time and switch (set by `advance` around its `evaluate`).
    inertia: super::inertial::TransitionInertia,
    inertia_dt: f32,
    inertia_jump: Option<f32>,
}

fn weight_value(w: &Weight, params: &Params) -> f32 {
    match w {
        Weight::Fixed(v) => *v,
        Weight::Param(p) => params.get_float(p).unwrap_or(0.0),
    }
}

struct Builder<'a> {
    model: &'a Model,
    players: Vec<ClipPlayer>,
    legs: &'a [LegChain],
    params: &'a Params,
}

impl Builder<'_> {
    fn clip(&self, name: &str, context: &str) -> Result<usize, String> {
        self.model.find_clip(name).ok_or_else(|| {
            let names: Vec<&str> = self.model.clips.iter().map(|c| c.name()).collect();
            format!(
                "{context}: unknown clip '{name}' (clips: {})",
                names.join(", ")
            )
        })
    }

    fn player(&mut self, name: &str, context: &str) -> Result<usize, String> {
        let clip = self.clip(name, context)?;
        let c = &self.model.clips[clip];
        // The clip's analysis decides its root motion (none when in place) and, for a
        // synced graph, its markers (the file's, else detected from the feet).
        let (root, markers) = match self.model.clip_analysis(clip) {
            Ok(a) => {
                let markers = if self.legs.is_empty() {
                    (c.markers().to_vec(), false)
                } else {
                    (a.markers.clone(), a.markers_detected)
                };
                (a.root_motion().cloned(), markers)
            }
            // Analysis failed (e.g. a pose that is not finite at some time): the root
            // motion as extracted, or the error that says why it cannot be.
            Err(_) => (
                crate::anim::ClipRootMotion::for_clip(&self.model.skeleton, c, None)
                    .map_err(|e| format!("{context}: clip '{}': root motion: {e}", c.name()))?,
                (c.markers().to_vec(), false),
            ),
        };
        let p = ClipPlayer::new(&self.model.skeleton, &self.model.clips, clip, root, markers)
            .map_err(|e| format!("{context}: {e}"))?;
        self.players.push(p);
        Ok(self.players.len() - 1)
    }

    fn check_float(&self, name: &str, context: &str) -> Result<(), String> {
        if self.params.get_float(name).is_none() {
            return Err(format!(
                "{context}: unknown float parameter '{name}' (declare it in `params`)"
            ));
        }
        Ok(())
    }

    fn weight(&self, w: &Weight, context: &str) -> Result<(), String> {
        match w {
            Weight::Fixed(v) if !v.is_finite() || *v < 0.0 => {
                Err(format!("{context}: weight {v} must be finite and >= 0"))
            }
            Weight::Param(p) => self.check_float(p, context),
            _ => Ok(()),
        }
    }

    /// Root-motion velocity of a clip (sideways X, forward Z) in m/s: the default position
    /// of a blend-space sample. An in-place clip (no root motion to speak of) gets the
    /// velocity its planted feet imply (`anim::locomotion::implied_speed`), so spaces of
    /// in-place clips (Mixamo, the shared characters) need no hand-written positions.
    fn velocity(&self, player: usize) -> DVec2 {
        let p = &self.players[player];
        if p.duration_secs() <= 0.0 {
            return DVec2::ZERO;
        }
        match self.model.clip_analysis(p.clip) {
            Ok(a) => {
                let v = a.direction() * a.speed() as f32;
                DVec2::new(f64::from(v.x), f64::from(v.z))
            }
            Err(_) => match &p.root {
                Some(r) => r.motion.cycle_displacement().translation / p.duration_secs(),
                None => DVec2::ZERO,
            },
        }
    }

    fn node(&mut self, def: &NodeDef, context: &str) -> Result<Node, String> {
        Ok(match def {
            NodeDef::Clip { clip, rate } => {
                if !rate.is_finite() {
                    return Err(format!("{context}: rate must be finite"));
                }
                Node::Clip {
                    player: self.player(clip, context)?,
                    rate: *rate as f64,
                }
            }
            NodeDef::Blend { inputs, sync } => {
                if inputs.is_empty() {
                    return Err(format!("{context}: a blend needs at least one input"));
                }
                let mut players = Vec::new();
                for i in inputs {
                    self.weight(&i.weight, context)?;
                    if !i.offset.is_finite() {
                        return Err(format!("{context}: offset must be finite"));
                    }
                    let p = self.player(&i.clip, context)?;
                    self.players[p].offset = i.offset as f64;
                    players.push(p);
                }
                Node::Blend {
                    norm: vec![0.0; players.len()],
                    players,
                    weights: inputs.iter().map(|i| i.weight.clone()).collect(),
                    sync: *sync,
                }
            }
            NodeDef::BlendSpace1D {
                param,
                samples,
                sync,
            } => {
                self.check_float(param, context)?;
                let mut players = Vec::new();
                let mut positions = Vec::new();
                for s in samples {
                    let p = self.player(&s.clip, context)?;
                    positions.push(
                        s.position
                            .unwrap_or_else(|| self.velocity(p).length() as f32),
                    );
                    players.push(p);
                }
                let space = BlendSpace1D::new(&positions)
                    .map_err(|e| format!("{context}: blend space: {e}"))?;
                Node::Space1D {
                    norm: vec![0.0; players.len()],
                    players,
                    space,
                    param: param.clone(),
                    sync: *sync,
                }
            }
            NodeDef::BlendSpace2D {
                x,
                y,
                samples,
                sync,
            } => {
                self.check_float(x, context)?;
                self.check_float(y, context)?;
                let mut players = Vec::new();
                let mut points = Vec::new();
                for s in samples {
                    let p = self.player(&s.clip, context)?;
                    let v = self.velocity(p);
                    let (px, py) = s.position.unwrap_or((v.x as f32, v.y as f32));
                    points.push(glam::Vec2::new(px, py));
                    players.push(p);
                }
                let space = BlendSpace2D::new(&points)
                    .map_err(|e| format!("{context}: blend space: {e}"))?;
                Node::Space2D {
                    norm: vec![0.0; players.len()],
                    players,
                    space: Box::new(space),
                    params: (x.clone(), y.clone()),
                    sync: *sync,
                    query: None,
                }
            }
            NodeDef::StateMachine { .. } => {
                return Err(format!(
                    "{context}: state machines can only be the graph's base node"
                ))
            }
        })
    }
}

impl Node {
    fn players(&self) -> &[usize] {
        match self {
            Node::Clip { player, .. } => std::slice::from_ref(player),
            Node::Blend { players, .. }
            | Node::Space1D { players, .. }
            | Node::Space2D { players, .. } => players,
        }
    }

    /// Computes this frame's normalised input weights from the parameters.
    fn update_weights(&mut self, params: &Params) -> Result<(), AnimError> {
        match self {
            Node::Clip { .. } => {}
            Node::Blend { weights, norm, .. } => {
                let sum: f32 = weights
                    .iter()
                    .map(|w| weight_value(w, params).max(0.0))
                    .sum();
                for (n, w) in norm.iter_mut().zip(weights.iter()) {
                    *n = if sum > 0.0 {
                        weight_value(w, params).max(0.0) / sum
                    } else {
                        0.0
                    };
                }
                if sum <= 0.0 {
                    // All zero: the first input alone, rather than nothing.
                    norm[0] = 1.0;
                }
            }
            Node::Space1D {
                space, param, norm, ..
            } => {
                space.weights(params.get_float(param).unwrap_or(0.0), norm)?;
            }
            Node::Space2D {
                space,
                params: (x, y),
                norm,
                query,
                ..
            } => {
                let q = glam::Vec2::new(
                    params.get_float(x).unwrap_or(0.0),
                    params.get_float(y).unwrap_or(0.0),
                );
                *query = Some(space.weights(q, norm)?);
            }
        }
        Ok(())
    }

    fn norm(&self) -> &[f32] {
        match self {
            Node::Clip { .. } => &[1.0],
            Node::Blend { norm, .. } | Node::Space1D { norm, .. } | Node::Space2D { norm, .. } => {
                norm
            }
        }
    }

    fn sync(&self) -> SyncMode {
        match self {
            Node::Clip { .. } => SyncMode::None,
            Node::Blend { sync, .. } | Node::Space1D { sync, .. } | Node::Space2D { sync, .. } => {
                *sync
            }
        }
    }

    fn rate(&self) -> f64 {
        match self {
            Node::Clip { rate, .. } => *rate,
            _ => 1.0,
        }
    }

    /// Writes effective weights (`w` times the normalised input weight) into the players.
    fn assign(&self, w: f32, players: &mut [ClipPlayer]) {
        for (&p, &n) in self.players().iter().zip(self.norm()) {
            players[p].weight = w * n;
        }
    }

    /// The input with the highest weight (the first on a tie).
    fn leader(&self) -> usize {
        let mut best = 0;
        for (i, &n) in self.norm().iter().enumerate() {
            if n > self.norm()[best] {
                best = i;
            }
        }
        self.players()[best]
    }

    /// Plays `dt` seconds (times the global rate) with the node's sync.
    fn advance(&self, dt: f64, players: &mut [ClipPlayer]) -> Result<(), AnimError> {
        let dt = dt * self.rate();
        match self.sync() {
            SyncMode::None => {
                for &p in self.players() {
                    players[p].advance(dt)?;
                }
            }
            SyncMode::Cycle => {
                let durations: Inline<f64> = self
                    .players()
                    .iter()
                    .map(|&p| players[p].duration_secs())
                    .collect();
                let weights: Inline<f64> = self.norm().iter().map(|&w| w as f64).collect();
                let loop_secs = sync::cycle_sync_loop_secs(&durations, &weights)
                    .unwrap_or_else(|_| durations.iter().sum::<f64>() / durations.len() as f64);
                for (&p, d) in self.players().iter().zip(&durations) {
                    let step = if loop_secs > 0.0 {
                        dt * d / loop_secs
                    } else {
                        dt
                    };
                    players[p].advance(step)?;
                }
            }
            SyncMode::Markers => {
                let leader = self.leader();
                players[leader].advance(dt)?;
                for &p in self.players() {
                    if p != leader {
                        let u = marker_phase(players, leader, p);
                        players[p].advance_to_phase(u)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Follows an outside leader (the other state of a cross-fade): this node's leader
    /// takes the marker-synced phase, the rest follow it with the node's own sync.
    fn follow(
        &self,
        outside: usize,
        players: &mut [ClipPlayer],
        seek: bool,
    ) -> Result<(), AnimError> {
        let own = self.leader();
        let u = marker_phase(players, outside, own);
        let u_own = u - players[own].offset;
        for &p in self.players() {
            let target = match self.sync() {
                SyncMode::Markers if p != own => marker_phase(players, outside, p),
                _ => u_own + players[p].offset,
            };
            if seek {
                players[p].seek_phase(0, target)?;
            } else {
                players[p].advance_to_phase(target)?;
            }
        }
        Ok(())
    }

    /// Seeks every input to the normalised phase `u` (plus its offset).
    fn seek(&self, cycle: i64, u: f64, players: &mut [ClipPlayer]) -> Result<(), AnimError> {
        for &p in self.players() {
            let off = players[p].offset;
            players[p].seek_phase(cycle, u + off)?;
        }
        Ok(())
    }
}

/// Turn past which two clips count as captured facing different ways (45 degrees): a
/// walk and a run of one character start alike within a few degrees of toe-out.
const FACING_ALIGN_RAD: f64 = std::f64::consts::FRAC_PI_4;

/// Motion-capture takes start wherever the actor stood and face wherever the actor
/// walked (a Bandai walk heads -Z, its run +Z): blended in local space their hips turn
/// against each other and the swing cancels. Each clip with root motion whose start
/// faces more than [`FACING_ALIGN_RAD`] away from the graph's first such clip is moved
/// onto that clip's start ([`ClipPlayer::align`]). Facing: the feet's direction (ankle to
/// toe) at clip time 0; clips without toes keep their own.
fn align_facings(model: &Model, legs: &[contacts::LegChain], players: &mut [ClipPlayer]) {
    let frames: Vec<Option<GroundTransform>> = players
        .iter()
        .map(|p| start_frame(model, legs, p))
        .collect();
    let Some(reference) = frames.iter().flatten().next().copied() else {
        return;
    };
    for (p, f) in players.iter_mut().zip(&frames) {
        let Some(f) = f else { continue };
        let turn = (reference.yaw_rad - f.yaw_rad + std::f64::consts::PI)
            .rem_euclid(std::f64::consts::TAU)
            - std::f64::consts::PI;
        if turn.abs() > FACING_ALIGN_RAD {
            p.align = reference.compose(&f.inverse());
        }
    }
}

/// Where a clip with root motion starts on the ground (its root joint at time 0) and the
/// way its feet point then; `None` for layers, clips without root motion or toes.
fn start_frame(
    model: &Model,
    legs: &[contacts::LegChain],
    p: &ClipPlayer,
) -> Option<GroundTransform> {
    if p.is_layer {
        return None;
    }
    let root = p.root.as_ref()?;
    let sk = &model.skeleton;
    let mut local = sk.rest_pose().to_vec();
    crate::anim::SamplingJob {
        clip: &model.clips[p.clip],
        time_secs: 0.0,
        rest_pose: sk.rest_pose(),
    }
    .run(&mut local)
    .ok()?;
    let mut m = vec![glam::Mat4::IDENTITY; sk.joint_count()];
    crate::anim::LocalToModelJob {
        parents: sk.parents(),
        local: &local,
        model_from_root: glam::Mat4::IDENTITY,
    }
    .run(&mut m)
    .ok()?;
    let forward: glam::Vec3 = legs
        .iter()
        .filter_map(|l| {
            let toe = l.toe?;
            let d = m.get(toe)?.w_axis.truncate() - m.get(l.foot)?.w_axis.truncate();
            Some(glam::Vec3::new(d.x, 0.0, d.z))
        })
        .sum();
    if forward.length_squared() <= f32::EPSILON {
        return None;
    }
    let at = m.get(root.source.joint)?.w_axis;
    Some(GroundTransform::new(
        f64::from(forward.x.atan2(forward.z)),
        glam::DVec2::new(f64::from(at.x), f64::from(at.z)),
    ))
}

/// The follower's normalised phase that matches the leader's markers (plus the follower's
/// offset); the leader's normalised phase when they share no markers.
fn marker_phase(players: &[ClipPlayer], leader: usize, follower: usize) -> f64 {
    let (l, f) = (&players[leader], &players[follower]);
    // Takes of several steps sync per gait cycle (from where the follower is); loops
    // pair their markers.
    let base = sync::gait_sync_time(
        &l.sync_markers,
        l.duration_secs(),
        l.clock.time().phase_secs,
        &f.sync_markers,
        f.duration_secs(),
        f.clock.time().phase_secs,
    )
    .or_else(|| {
        sync::marker_sync_time(
            &l.sync_markers,
            l.duration_secs(),
            l.clock.time().phase_secs,
            &f.sync_markers,
            f.duration_secs(),
        )
    })
    .map(|t| {
        if f.duration_secs() > 0.0 {
            t / f.duration_secs()
        } else {
            0.0
        }
    })
    .unwrap_or_else(|| l.normalized() - l.offset);
    base + f.offset
}

impl PoseGraph {
    /// Builds the runtime graph; errors name the state or layer and the clip or parameter.
    pub fn new(model: &Model, def: &GraphDef) -> Result<Self, String> {
        Self::build(model, def, true)
    }

    /// `detect_legs`: find the legs (phase report, marker detection for sync, locomotion);
    /// a one-clip preview ([`PoseGraph::clip_preview`]) needs none of that.
    fn build(model: &Model, def: &GraphDef, detect_legs: bool) -> Result<Self, String> {
        let mut params = Params::new();
        for p in &def.params {
            match p {
                ParamDef::Float { name, default, .. } => params.declare_float(name, *default),
                ParamDef::Bool { name, default } => params.declare_bool(name, *default),
            }
        }
        let legs = if detect_legs {
            contacts::detect_legs(&model.skeleton).unwrap_or_default()
        } else {
            Vec::new()
        };
        let mut b = Builder {
            model,
            players: Vec::new(),
            legs: &legs,
            params: &params,
        };
        let base = match &def.base {
            NodeDef::StateMachine { machine, sync } => {
                let sm = StateMachine::new(machine, &params)?;
                let mut states = Vec::new();
                for s in &machine.states {
                    states.push(b.node(&s.node, &format!("state '{}'", s.name))?);
                }
                Base::Machine(Box::new(Machine {
                    entered_cycles: vec![0.0; states.len()],
                    sm,
                    states,
                    sync: *sync,
                }))
            }
            other => Base::Node(b.node(other, "base")?),
        };
        let mut layers = Vec::new();
        for l in &def.layers {
            let context = format!("layer '{}'", l.name);
            b.weight(&l.weight, &context)?;
            let player = b.player(&l.clip, &context)?;
            b.players[player].is_layer = true;
            let mask = match &l.mask {
                Some(m) => {
                    let subtrees: Vec<(&str, f32)> =
                        m.subtrees.iter().map(|(n, w)| (n.as_str(), *w)).collect();
                    let ramp: Vec<(&str, f32)> =
                        m.ramp.iter().map(|(n, w)| (n.as_str(), *w)).collect();
                    Some(
                        JointMask::from_names(&model.skeleton, &subtrees, &ramp)
                            .map_err(|e| format!("{context}: mask: {e}"))?,
                    )
                }
                None => None,
            };
            let reference = reference_pose(model, &l.reference, b.players[player].clip)
                .map_err(|e| format!("{context}: reference: {e}"))?;
            let morph_reference = reference_morph(model, &l.reference, b.players[player].clip)
                .map_err(|e| format!("{context}: reference: {e}"))?;
            let n = model.skeleton.joint_count();
            layers.push(Layer {
                name: l.name.clone(),
                player,
                mode: l.mode,
                weight: l.weight.clone(),
                mask,
                reference,
                morph_reference,
                layer_weights: vec![0.0; n],
                base_weights: vec![0.0; n],
                current_weight: 0.0,
            });
        }
        let mut players = b.players;
        align_facings(model, &legs, &mut players);
        let n = model.skeleton.joint_count();
        let inertialized = match &base {
            Base::Machine(m) => m.sm.has_inertialized_transitions(),
            Base::Node(_) => false,
        };
        let mut graph = Self {
            def: def.clone(),
            params,
            players,
            base,
            layers,
            rate: 1.0,
            legs,
            local: model.skeleton.rest_pose().to_vec(),
            root_delta: GroundTransform::IDENTITY,
            snapshot: model.skeleton.rest_pose().to_vec(),
            snapshot_velocity: GroundTransform::IDENTITY,
            snapshot_weight: 0.0,
            scratch: vec![Transform::IDENTITY; n],
            morph: model.default_morph_weights(),
            morph_snapshot: model.default_morph_weights(),
            morph_scratch: vec![
                0.0;
                model
                    .meshes
                    .iter()
                    .map(|m| m.morph_target_count())
                    .max()
                    .unwrap_or(0)
            ],
            events: Vec::new(),
            events_len: 0,
            phase: None,
            swing: SwingCurves::default(),
            swing_clips: Vec::new(),
            phase_key: Vec::new(),
            sync_notes: Vec::new(),
            last_dt: 0.0,
            inertia: super::inertial::TransitionInertia::new(inertialized),
            inertia_dt: 0.0,
            inertia_jump: None,
        };
        graph.seek(model, 0.0).map_err(|e| e.to_string())?;
        Ok(graph)
    }

    /// A graph playing one clip (what the timeline's clip list selects).
    pub fn single_clip(model: &Model, clip: usize) -> Result<Self, String> {
        Self::build(model, &Self::one_clip_def(model, clip)?, true)
    }

    /// The one-clip graph the timeline shows its clip through (the stage's `Pose` evaluates
    /// every clip request with one): [`PoseGraph::show_clip_time`] puts it at the
    /// timeline's time. Cheap to build: without sync there are no legs to find and no
    /// markers to detect (the clip's analysis, which decides its root motion, is the
    /// model's, computed once per clip).
    pub fn clip_preview(model: &Model, clip: usize) -> Result<Self, String> {
        Self::build(model, &Self::one_clip_def(model, clip)?, false)
    }

    fn one_clip_def(model: &Model, clip: usize) -> Result<GraphDef, String> {
        let name = model
            .clips
            .get(clip)
            .ok_or_else(|| format!("clip {clip} out of range"))?
            .name()
            .to_string();
        Ok(GraphDef {
            params: Vec::new(),
            base: NodeDef::Clip {
                clip: name,
                rate: 1.0,
            },
            layers: Vec::new(),
        })
    }

    /// Puts every input at clip time `clip_secs` exactly (clamped to the clip; its end
    /// included, as a clamped timeline shows it) and evaluates: a seek, no root motion
    /// or events. `keep_root_motion` leaves the clip's root motion in the pose (the
    /// timeline's *Loop and reset*), else it is removed as the graph always does.
    pub fn show_clip_time(
        &mut self,
        model: &Model,
        clip_secs: f64,
        keep_root_motion: bool,
    ) -> Result<(), AnimError> {
        if !clip_secs.is_finite() {
            return Err(AnimError::NonFinite {
                what: "clip time".into(),
            });
        }
        for p in &mut self.players {
            p.keep_root_motion = keep_root_motion;
            p.clock.set_looping(false);
            p.clock.seek(crate::anim::root_motion::ClipTime {
                cycle: 0,
                phase_secs: clip_secs,
            })?;
            p.delta = GroundTransform::IDENTITY;
            p.interval = None;
        }
        self.root_delta = GroundTransform::IDENTITY;
        self.events_len = 0;
        // A seek shows the clips as they are: no offset carries over.
        self.inertia.reset(&[]);
        self.evaluate(model)
    }

    pub fn def(&self) -> &GraphDef {
        &self.def
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    pub fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    /// Global play rate (negative = reverse).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    pub fn set_rate(&mut self, rate: f64) -> Result<(), AnimError> {
        if !rate.is_finite() {
            return Err(AnimError::NonFinite {
                what: "play rate".into(),
            });
        }
        self.rate = rate;
        Ok(())
    }

    /// Detected leg chains (empty when the rig has none).
    pub fn legs(&self) -> &[LegChain] {
        &self.legs
    }

    /// The output local pose of the last evaluation (root motion removed).
    pub fn local_pose(&self) -> &[Transform] {
        &self.local
    }

    /// The blended root-motion delta of the last `advance` (identity after a seek).
    pub fn root_delta(&self) -> GroundTransform {
        self.root_delta
    }

    /// Marker names crossed by the inputs during the last `advance`.
    pub fn events(&self) -> &[String] {
        &self.events[..self.events_len]
    }

    pub fn phase_report(&self) -> Option<&PhaseReport> {
        self.phase.as_ref()
    }

    /// The swing curves behind [`Self::phase_report`] (first leg, degrees, in the plane
    /// the feet swing in) and the clip index of each input curve; `None` without a report.
    pub fn swing_curves(&self) -> Option<(&SwingCurves, &[usize])> {
        self.phase
            .as_ref()
            .map(|_| (&self.swing, &self.swing_clips[..]))
    }

    /// Lines for the phase report on how marker sync aligns the active inputs with their
    /// leader, when it cannot pair every shared marker (e.g. `'Run' on 'Walk': sync: the
    /// shared markers appear a different number of times ...`); empty when every pair
    /// lines up, or the graph does not sync by markers. Updated with the phase report.
    pub fn sync_notes(&self) -> &[String] {
        &self.sync_notes
    }

    /// Whether any node (or the state machine's cross-fades) syncs by markers.
    fn uses_marker_sync(&self) -> bool {
        match &self.base {
            Base::Node(n) => n.sync() == SyncMode::Markers,
            Base::Machine(m) => {
                m.sync == SyncMode::Markers
                    || m.states.iter().any(|n| n.sync() == SyncMode::Markers)
            }
        }
    }

    pub fn players(&self) -> &[ClipPlayer] {
        &self.players
    }

    /// The state machine of the base node, if it has one.
    pub fn state_machine(&self) -> Option<&StateMachine> {
        match &self.base {
            Base::Machine(m) => Some(&m.sm),
            Base::Node(_) => None,
        }
    }

    /// The 2D blend space of the base node (or of the current state) with its last query.
    pub fn blend_space_2d(&self) -> Option<(&BlendSpace2D, Option<&BlendSpace2DQuery>, &[f32])> {
        let node = match &self.base {
            Base::Node(n) => n,
            Base::Machine(m) => &m.states[m.sm.current()],
        };
        match node {
            Node::Space2D {
                space, query, norm, ..
            } => Some((space, query.as_ref(), norm)),
            _ => None,
        }
    }

    /// The blend-space samples of the base node (or of the current state): clip name and
    /// position (1D spaces on x, y = 0), in m/s by default.
    pub fn blend_space_samples(&self, model: &Model) -> Vec<(String, glam::Vec2)> {
        let node = match &self.base {
            Base::Node(n) => n,
            Base::Machine(m) => &m.states[m.sm.current()],
        };
        let name = |p: usize| model.clips[self.players[p].clip].name().to_string();
        match node {
            Node::Space1D { players, space, .. } => players
                .iter()
                .zip(space.positions())
                .map(|(&p, &x)| (name(p), glam::Vec2::new(x, 0.0)))
                .collect(),
            Node::Space2D { players, space, .. } => players
                .iter()
                .zip(space.points())
                .map(|(&p, &q)| (name(p), q))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The base player that leads (highest weight): what the timeline shows.
    pub fn leader(&self) -> &ClipPlayer {
        &self.players[self.leader_index()]
    }

    fn leader_index(&self) -> usize {
        match &self.base {
            Base::Node(n) => n.leader(),
            Base::Machine(m) => {
                let mut best: Option<(usize, f32)> = None;
                for &(slot, w) in m.sm.weights() {
                    if let Slot::State(s) = slot {
                        if best.is_none_or(|b| w > b.1) {
                            best = Some((s, w));
                        }
                    }
                }
                m.states[best.map(|b| b.0).unwrap_or(m.sm.current())].leader()
            }
        }
    }

    fn assign_weights(&mut self) -> Result<(), AnimError> {
        for p in &mut self.players {
            p.weight = 0.0;
        }
        self.snapshot_weight = 0.0;
        match &mut self.base {
            Base::Node(n) => {
                n.update_weights(&self.params)?;
                n.assign(1.0, &mut self.players);
            }
            Base::Machine(m) => {
                for s in &mut m.states {
                    s.update_weights(&self.params)?;
                }
                for &(slot, w) in m.sm.weights() {
                    match slot {
                        Slot::State(s) => m.states[s].assign(w, &mut self.players),
                        Slot::Snapshot => self.snapshot_weight = w,
                    }
                }
            }
        }
        for l in &mut self.layers {
            l.current_weight = weight_value(&l.weight, &self.params).max(0.0);
            self.players[l.player].weight = l.current_weight;
        }
        Ok(())
    }

    /// Plays `dt_secs` of wall time (times the global rate): moves every clock with its
    /// sync, blends their root-motion deltas, runs the state machine, then evaluates the
    /// pose.
    pub fn advance(&mut self, model: &Model, dt_secs: f64) -> Result<(), AnimError> {
        if !dt_secs.is_finite() {
            return Err(AnimError::NonFinite {
                what: "frame time".into(),
            });
        }
        let dt = dt_secs * self.rate;
        self.assign_weights()?;
        match &mut self.base {
            Base::Node(n) => n.advance(dt, &mut self.players)?,
            Base::Machine(m) => {
                // The heavier active state leads; with marker sync the other follows it.
                let active: Inline<(usize, f32)> =
                    m.sm.weights()
                        .iter()
                        .filter_map(|&(s, w)| match s {
                            Slot::State(i) => Some((i, w)),
                            Slot::Snapshot => None,
                        })
                        .collect();
                let lead =
                    active
                        .iter()
                        .copied()
                        .fold(None, |b: Option<(usize, f32)>, x| match b {
                            Some(b) if b.1 >= x.1 => Some(b),
                            _ => Some(x),
                        });
                if let Some((lead_state, _)) = lead {
                    m.states[lead_state].advance(dt, &mut self.players)?;
                    let leader_player = m.states[lead_state].leader();
                    for &(s, _) in &active {
                        if s != lead_state {
                            if m.sync == SyncMode::Markers {
                                m.states[s].follow(leader_player, &mut self.players, false)?;
                            } else {
                                m.states[s].advance(dt, &mut self.players)?;
                            }
                        }
                    }
                }
            }
        }
        for l in &self.layers {
            self.players[l.player].advance(dt)?;
        }
        // Root motion: the weighted sum of each input's own delta.
        let mut translation = DVec2::ZERO;
        let mut yaw = 0.0;
        for p in &self.players {
            if p.weight > 0.0 && !p.is_layer {
                translation += p.delta.translation * p.weight as f64;
                yaw += p.delta.yaw_rad * p.weight as f64;
            }
        }
        if self.snapshot_weight > 0.0 {
            let w = self.snapshot_weight as f64 * dt_secs.abs();
            translation += self.snapshot_velocity.translation * w;
            yaw += self.snapshot_velocity.yaw_rad * w;
        }
        self.root_delta = GroundTransform::new(yaw, translation);
        if dt_secs.abs() > 0.0 {
            self.last_dt = dt_secs.abs();
        }
        // Events of this frame, tagged with their state; then the state machine.
        self.events_len = 0;
        if let Base::Machine(m) = &mut self.base {
            // Names are borrowed from the clips' markers (no allocation per event).
            let mut events: Inline<FiredEvent> = Inline::new();
            for &(slot, _) in m.sm.weights() {
                if let Slot::State(s) = slot {
                    for &p in m.states[s].players() {
                        self.players[p].for_each_crossed(|name| {
                            if !events.iter().any(|e| e.source_state == s && e.name == name) {
                                events.push(FiredEvent {
                                    name,
                                    source_state: s,
                                });
                            }
                        });
                    }
                }
            }
            for e in &events {
                push_event(&mut self.events, &mut self.events_len, e.name);
            }
            let players = &self.players;
            let states = &m.states;
            let entered = &m.entered_cycles;
            let normalized = |s: usize| -> f32 {
                let p = &players[states[s].leader()];
                (p.cycles() - entered[s]) as f32
            };
            let report =
                m.sm.update(dt_secs.abs() as f32, &self.params, &normalized, &events);
            // The events borrow the players' marker names.
            drop(events);
            self.apply_step(report.entered, report.snapshot)?;
            self.inertia_jump = report.inertialize;
        } else {
            for p in &self.players {
                p.for_each_crossed(|name| push_event(&mut self.events, &mut self.events_len, name));
            }
        }
        self.inertia_dt = dt_secs.abs() as f32;
        let result = self.evaluate(model);
        self.inertia_dt = 0.0;
        self.inertia_jump = None;
        result
    }

    /// Forces a cross-fade of the state machine to `state` (UI state buttons, scenarios).
    pub fn travel(&mut self, model: &Model, state: &str, duration_secs: f32) -> Result<(), String> {
        let Base::Machine(m) = &mut self.base else {
            return Err("the graph has no state machine".into());
        };
        let index = m.sm.state_index(state).ok_or_else(|| {
            let names: Vec<&str> = (0..m.sm.state_count())
                .map(|i| m.sm.state_name(i))
                .collect();
            format!("no state '{state}' (states: {})", names.join(", "))
        })?;
        let report = m.sm.travel(index, duration_secs, Ease::Smoothstep);
        self.apply_step(report.entered, report.snapshot)
            .map_err(|e| e.to_string())?;
        self.evaluate(model).map_err(|e| e.to_string())
    }

    /// Reacts to a state-machine step: an interrupted fade freezes the current output
    /// pose; an entered state starts at the phase that matches the state it fades from.
    fn apply_step(&mut self, entered: Option<usize>, snapshot: bool) -> Result<(), AnimError> {
        if snapshot {
            self.snapshot.copy_from_slice(&self.local);
            for (frozen, now) in self.morph_snapshot.iter_mut().zip(&self.morph) {
                frozen.copy_from_slice(now);
            }
            let dt = self.last_dt.max(1e-6);
            self.snapshot_velocity = GroundTransform::new(
                self.root_delta.yaw_rad / dt,
                self.root_delta.translation / dt,
            );
        }
        let Base::Machine(m) = &mut self.base else {
            return Ok(());
        };
        if let Some(s) = entered {
            // Weights of the new state (its leader) before positioning it.
            m.states[s].update_weights(&self.params)?;
            let from =
                m.sm.weights()
                    .iter()
                    .filter_map(|&(slot, w)| match slot {
                        Slot::State(i) if i != s => Some((i, w)),
                        _ => None,
                    })
                    .fold(None, |b: Option<(usize, f32)>, x| match b {
                        Some(b) if b.1 >= x.1 => Some(b),
                        _ => Some(x),
                    });
            match (from, m.sync) {
                (Some((f, _)), SyncMode::Markers) => {
                    let leader = m.states[f].leader();
                    m.states[s].follow(leader, &mut self.players, true)?;
                }
                _ => m.states[s].seek(0, 0.0, &mut self.players)?,
            }
            let p = m.states[s].leader();
            m.entered_cycles[s] = self.players[p].cycles();
        }
        Ok(())
    }

    /// Moves every clock to the leader's clip time `leader_secs` (unwrapped seconds; the
    /// others to the matching phase) without root motion, then evaluates. A seek.
    pub fn seek(&mut self, model: &Model, leader_secs: f64) -> Result<(), AnimError> {
        self.assign_weights()?;
        let leader = self.leader_index();
        let d = self.players[leader].duration_secs();
        let (cycle, u) = if d > 0.0 {
            let c = (leader_secs / d).floor();
            (c as i64, leader_secs / d - c)
        } else {
            (0, 0.0)
        };
        let u = u - self.players[leader].offset;
        match &self.base {
            Base::Node(n) => n.seek(cycle, u, &mut self.players)?,
            Base::Machine(m) => {
                for (i, s) in m.states.iter().enumerate() {
                    if m.sm.weights().iter().any(|&(sl, _)| sl == Slot::State(i)) {
                        s.seek(cycle, u, &mut self.players)?;
                    }
                }
            }
        }
        for l in &self.layers {
            self.players[l.player].seek_phase(cycle, u)?;
        }
        if let Base::Machine(m) = &mut self.base {
            for (i, s) in m.states.iter().enumerate() {
                m.entered_cycles[i] = self.players[s.leader()].cycles().min(m.entered_cycles[i]);
            }
        }
        self.root_delta = GroundTransform::IDENTITY;
        self.events_len = 0;
        // A seek shows the clips as they are: no offset carries over.
        self.inertia.reset(&[]);
        self.evaluate(model)
    }

    /// Samples the weighted inputs and blends them (then the layers) into the output pose.
    pub fn evaluate(&mut self, model: &Model) -> Result<(), AnimError> {
        self.assign_weights()?;
        let skeleton = &model.skeleton;
        for p in &mut self.players {
            if p.weight > 0.0 {
                p.sample(&model.clips, skeleton)?;
            }
        }
        {
            let mut inputs: Inline<BlendLayer> = self
                .players
                .iter()
                .filter(|p| p.weight > 0.0 && !p.is_layer)
                .map(|p| BlendLayer {
                    pose: &p.pose,
                    weight: p.weight,
                    joint_weights: None,
                })
                .collect();
            if self.snapshot_weight > 0.0 {
                inputs.push(BlendLayer {
                    pose: &self.snapshot,
                    weight: self.snapshot_weight,
                    joint_weights: None,
                });
            }
            BlendingJob {
                layers: &inputs,
                rest_pose: skeleton.rest_pose(),
                threshold: BlendingJob::DEFAULT_THRESHOLD,
            }
            .run(&mut self.local)?;
        }
        for l in &mut self.layers {
            if l.current_weight <= 0.0 {
                continue;
            }
            let pose = &self.players[l.player].pose;
            match l.mode {
                LayerMode::Additive => {
                    AdditiveJob {
                        base: &self.local,
                        additive: pose,
                        reference: &l.reference,
                        weight: l.current_weight,
                        joint_weights: l.mask.as_ref().map(|m| m.weights()),
                    }
                    .run(&mut self.scratch)?;
                }
                LayerMode::Override => {
                    let w = l.current_weight.min(1.0);
                    for j in 0..self.local.len() {
                        let m = l.mask.as_ref().map_or(1.0, |m| m.weights()[j]);
                        l.layer_weights[j] = m * w;
                        l.base_weights[j] = 1.0 - m * w;
                    }
                    let inputs = [
                        BlendLayer {
                            pose: &self.local,
                            weight: 1.0,
                            joint_weights: Some(&l.base_weights),
                        },
                        BlendLayer {
                            pose,
                            weight: 1.0,
                            joint_weights: Some(&l.layer_weights),
                        },
                    ];
                    BlendingJob {
                        layers: &inputs,
                        rest_pose: skeleton.rest_pose(),
                        threshold: BlendingJob::DEFAULT_THRESHOLD,
                    }
                    .run(&mut self.scratch)?;
                }
            }
            std::mem::swap(&mut self.local, &mut self.scratch);
        }
        self.inertia
            .process(&mut self.local, self.inertia_dt, self.inertia_jump)?;
        self.blend_morph(model);
        self.update_phase_report(model)?;
        Ok(())
    }

    /// Morph weights per mesh (index = mesh index), blended like the pose.
    pub fn morph_weights(&self) -> &[Vec<f32>] {
        &self.morph
    }

    /// Blends each mesh's morph weights with the pose's weights: the inputs' weights
    /// normalised (the snapshot included; below [`BlendingJob::DEFAULT_THRESHOLD`] the
    /// mesh defaults join, as the rest pose does for joints), then each layer at its
    /// weight times its mask's weight on the mesh's node: additive layers add their
    /// difference to the reference, override layers cross-fade to theirs.
    fn blend_morph(&mut self, model: &Model) {
        let threshold = BlendingJob::DEFAULT_THRESHOLD;
        for (m, mesh) in model.meshes.iter().enumerate() {
            let n = mesh.morph_target_count();
            if n == 0 || self.morph[m].len() != n {
                continue;
            }
            let out = &mut self.morph[m];
            let scratch = &mut self.morph_scratch[..n];
            out.fill(0.0);
            let mut total = 0.0f32;
            for p in self
                .players
                .iter()
                .filter(|p| p.weight > 0.0 && !p.is_layer)
            {
                model.mesh_morph_weights_at(
                    m,
                    Some(p.clip),
                    p.clock.time().phase_secs as f32,
                    scratch,
                );
                for (o, s) in out.iter_mut().zip(scratch.iter()) {
                    *o += p.weight * s;
                }
                total += p.weight;
            }
            if self.snapshot_weight > 0.0 {
                for (o, s) in out.iter_mut().zip(&self.morph_snapshot[m]) {
                    *o += self.snapshot_weight * s;
                }
                total += self.snapshot_weight;
            }
            if total < threshold {
                for (o, d) in out.iter_mut().zip(&mesh.morph_weights) {
                    *o += (threshold - total) * d;
                }
                total = threshold;
            }
            let inv = 1.0 / total;
            out.iter_mut().for_each(|o| *o *= inv);
            for l in &self.layers {
                let mask = l.mask.as_ref().map_or(1.0, |k| k.weights()[mesh.joint]);
                let w = l.current_weight * mask;
                if w <= 0.0 {
                    continue;
                }
                let p = &self.players[l.player];
                model.mesh_morph_weights_at(
                    m,
                    Some(p.clip),
                    p.clock.time().phase_secs as f32,
                    scratch,
                );
                match l.mode {
                    LayerMode::Additive => {
                        for ((o, s), r) in out
                            .iter_mut()
                            .zip(scratch.iter())
                            .zip(&l.morph_reference[m])
                        {
                            *o += w * (s - r);
                        }
                    }
                    LayerMode::Override => {
                        let w = w.min(1.0);
                        for (o, s) in out.iter_mut().zip(scratch.iter()) {
                            *o += (s - *o) * w;
                        }
                    }
                }
            }
        }
    }

    /// Re-measures phase cancellation when the set of active inputs, their weights (to
    /// 0.05) or their relative phases (to 0.01 cycle) changed.
    fn update_phase_report(&mut self, model: &Model) -> Result<(), AnimError> {
        let active: Inline<usize> = (0..self.players.len())
            .filter(|&i| self.players[i].weight > 0.0 && !self.players[i].is_layer)
            .collect();
        if active.len() < 2 || self.legs.is_empty() {
            self.phase = None;
            self.phase_key.clear();
            self.sync_notes.clear();
            return Ok(());
        }
        let lead = self.leader_index();
        let lead_u = self.players[lead].normalized();
        let key: Inline<(usize, i32, i32)> = active
            .iter()
            .map(|&i| {
                let p = &self.players[i];
                let off = (p.normalized() - lead_u).rem_euclid(1.0);
                (
                    p.clip,
                    (p.weight * 20.0).round() as i32,
                    ((off * 100.0).round() as i32) % 100,
                )
            })
            .collect();
        if key[..] == self.phase_key[..] && self.phase.is_some() {
            return Ok(());
        }
        let legs: Vec<(usize, usize)> = self.legs.iter().map(|l| (l.thigh, l.foot)).collect();
        // Takes of several steps synced per gait cycle: measure the gait cycles that play
        // now, at their relative gait phase (their whole clips are not one cycle each).
        let gait = |i: usize| -> Option<(f64, f64, f64)> {
            if !self.uses_marker_sync() {
                return None;
            }
            let (l, p) = (&self.players[lead], &self.players[i]);
            let name = sync::gait_marker(&l.sync_markers, &p.sync_markers)?;
            let now = p.clock.time().phase_secs;
            let (start, len) = sync::gait_cycle_at(&p.sync_markers, name, p.duration_secs(), now)?;
            let phase = ((now - start) / len).rem_euclid(1.0);
            Some((start, len, phase))
        };
        let lead_gait = gait(lead);
        // Clips turned onto another's start are measured as they blend.
        fn aligned(p: &ClipPlayer) -> Option<(&crate::anim::ClipRootMotion, GroundTransform)> {
            p.root
                .as_ref()
                .filter(|_| p.align != GroundTransform::IDENTITY)
                .map(|r| (r, p.align))
        }
        let inputs: Vec<PhaseInput> = active
            .iter()
            .map(|&i| {
                let p = &self.players[i];
                match (lead_gait, gait(i)) {
                    (Some((_, _, lg)), Some((start, len, g))) => PhaseInput {
                        clip: &model.clips[p.clip],
                        phase_offset: (g - lg).rem_euclid(1.0),
                        weight: p.weight,
                        window_secs: Some((start, len)),
                        aligned: aligned(p),
                    },
                    _ => PhaseInput {
                        clip: &model.clips[p.clip],
                        phase_offset: (p.normalized() - lead_u).rem_euclid(1.0),
                        weight: p.weight,
                        window_secs: None,
                        aligned: aligned(p),
                    },
                }
            })
            .collect();
        self.phase = Some(phase::measure_phase_cancellation_with_curves(
            &model.skeleton,
            &legs,
            &inputs,
            PHASE_SAMPLES,
            &mut self.swing,
        )?);
        self.swing_clips.clear();
        self.swing_clips
            .extend(active.iter().map(|&i| self.players[i].clip));
        self.phase_key = key.to_vec();
        self.sync_notes.clear();
        if self.uses_marker_sync() {
            let l = &self.players[lead];
            for &i in active.iter().filter(|&&i| i != lead) {
                let f = &self.players[i];
                let note = sync::marker_alignment(
                    &l.sync_markers,
                    l.duration_secs(),
                    &f.sync_markers,
                    f.duration_secs(),
                )
                .note();
                if let Some(note) = note {
                    self.sync_notes.push(format!(
                        "'{}' on '{}': {note}",
                        model.clips[f.clip].name(),
                        model.clips[l.clip].name()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Per-input status for the UI and `trace` (base inputs with weight > 0 first by
    /// weight, then layers).
    pub fn status(&self, model: &Model) -> Vec<InputStatus> {
        let mut out = Vec::new();
        let owner_of = |i: usize| -> Option<String> {
            if let Base::Machine(m) = &self.base {
                for (s, node) in m.states.iter().enumerate() {
                    if node.players().contains(&i) {
                        return Some(m.sm.state_name(s).to_string());
                    }
                }
            }
            None
        };
        for (i, p) in self.players.iter().enumerate() {
            let layer = self.layers.iter().find(|l| l.player == i);
            if p.weight <= 0.0 && layer.is_none() {
                continue;
            }
            out.push(InputStatus {
                player: i,
                clip: model.clips[p.clip].name().to_string(),
                time_secs: p.clock.time().phase_secs,
                phase: p.normalized(),
                weight: p.weight,
                owner: layer.map(|l| l.name.clone()).or_else(|| owner_of(i)),
                is_layer: layer.is_some(),
                markers_detected: p.markers_detected,
            });
        }
        out.sort_by(|a, b| {
            a.is_layer
                .cmp(&b.is_layer)
                .then(b.weight.total_cmp(&a.weight))
        });
        out
    }
}

/// The clip and time an additive layer's reference is sampled at (`None`: the bind pose).
fn reference_frame(
    model: &Model,
    def: &ReferenceDef,
    own_clip: usize,
) -> Result<Option<(usize, f32)>, String> {
    Ok(Some(match def {
        ReferenceDef::BindPose => return Ok(None),
        ReferenceDef::FirstFrame => (own_clip, model.clips[own_clip].first_key_secs()),
        ReferenceDef::ClipFrame { clip, time_secs } => {
            let c = model
                .find_clip(clip)
                .ok_or_else(|| format!("unknown clip '{clip}'"))?;
            (c, *time_secs)
        }
    }))
}

/// The reference morph weights of an additive layer (per mesh), sampled once like
/// [`reference_pose`].
fn reference_morph(
    model: &Model,
    def: &ReferenceDef,
    own_clip: usize,
) -> Result<Vec<Vec<f32>>, String> {
    let mut out = model.default_morph_weights();
    if let Some((clip, time)) = reference_frame(model, def, own_clip)? {
        model.morph_weights_at(Some(clip), time, &mut out);
    }
    Ok(out)
}

/// The reference pose of an additive layer, sampled once.
fn reference_pose(
    model: &Model,
    def: &ReferenceDef,
    own_clip: usize,
) -> Result<Vec<Transform>, String> {
    let skeleton = &model.skeleton;
    let mut pose = skeleton.rest_pose().to_vec();
    let Some((clip, time)) = reference_frame(model, def, own_clip)? else {
        return Ok(pose);
    };
    SamplingJob {
        clip: &model.clips[clip],
        time_secs: time,
        rest_pose: skeleton.rest_pose(),
    }
    .run(&mut pose)
    .map_err(|e| e.to_string())?;
    Ok(pose)
}

/// Appends `name` to the frame's events `events[..*len]` unless it is there, reusing the
/// string kept past the end (its capacity) when there is one.
fn push_event(events: &mut Vec<String>, len: &mut usize, name: &str) {
    if events[..*len].iter().any(|e| e == name) {
        return;
    }
    match events.get_mut(*len) {
        Some(slot) => {
            slot.clear();
            slot.push_str(name);
        }
        None => events.push(name.to_string()),
    }
    *len += 1;
}
