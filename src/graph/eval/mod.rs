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

mod build;
mod evaluate;
mod node;
mod step;

use evaluate::{reference_morph, reference_pose};
use step::start_frame;

/// Per-frame lists (inputs, weights, active states): on the stack for up to 8 entries, so
/// a steady blend allocates nothing per frame.
type Inline<T> = smallvec::SmallVec<[T; 8]>;

use glam::DVec2;

use crate::anim::blend::additive::AdditiveJob;
use crate::anim::blend::blending::{BlendLayer, BlendingJob};
use crate::anim::blend::mask::JointMask;
use crate::anim::blend::soa::{SoaBlendLayer, SoaBlendingJob};
use crate::anim::blend::space::{BlendSpace1D, BlendSpace2D, BlendSpace2DQuery};
use crate::anim::contacts::{self, LegChain};
use crate::anim::phase::{self, PhaseInput, PhaseReport, SwingCurves};
use crate::anim::soa::{soa_from_transforms, SoaPose, SoaTransform};
use crate::anim::state_machine::{Ease, FiredEvent, Params, Slot, StateMachine};
use crate::anim::sync;
use crate::anim::{AnimError, GroundTransform, SamplingJob, Transform};
use crate::asset::Model;

use crate::def::{GraphDef, LayerMode, NodeDef, ParamDef, ReferenceDef, SyncMode, Weight};
use crate::player::ClipPlayer;
use crate::GraphError;

/// Samples per cycle used to measure phase cancellation (leg-swing range).
const PHASE_SAMPLES: usize = 48;

/// Phase reports an unsynced blend keeps, by key (see `update_phase_report`): its inputs
/// drift through the 20 relative phases of a weight, so a few dozen cover a cross-fade;
/// past this many the cache starts again.
const PHASE_CACHE_LEN: usize = 64;

/// What a phase report was measured for: per active input, its clip, its weight in
/// twentieths and its phase relative to the leader in twentieths of a cycle.
type PhaseKey = Vec<(usize, i32, i32)>;

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
        /// The parameter value `norm` was computed for (weights are recomputed only when
        /// it changes; NaN: never computed).
        at: f32,
    },
    Space2D {
        players: Vec<usize>,
        space: Box<BlendSpace2D>,
        params: (String, String),
        sync: SyncMode,
        norm: Vec<f32>,
        query: Option<BlendSpace2DQuery>,
        /// The parameter values `norm` and `query` were computed for (see `Space1D`).
        at: glam::Vec2,
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
    /// Normalised phase the layer's clip is held at (`LayerDef::hold`), else `None`.
    hold_phase: Option<f64>,
}

/// What the UI and `trace` show about one clip input.
#[derive(Clone, Debug, PartialEq)]
pub struct InputStatus {
    /// Index into [`PoseGraph::players`].
    pub player: usize,
    /// Name of the clip the input plays.
    pub clip: String,
    /// Clip seconds within the cycle.
    pub time_secs: f64,
    /// Phase in [0, 1).
    pub phase: f64,
    /// Effective weight (0..1).
    pub weight: f32,
    /// The state it belongs to (state machines), or the layer name.
    pub owner: Option<String>,
    /// True for a layer's clip (it contributes no root motion).
    pub is_layer: bool,
    /// True when its sync markers were detected from the feet rather than read from the file.
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
    /// Output: the local pose (root motion removed), in blocks of four joints as the
    /// graph samples and blends it, per joint once a layer or the inertialization ran.
    local: SoaPose,
    root_delta: GroundTransform,
    /// Pose (in blocks) and root velocity (per second) frozen when a transition was
    /// interrupted.
    snapshot: Vec<SoaTransform>,
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
    phase_key: PhaseKey,
    /// Reports measured for an unsynced blend, by key, with their swing curves: the
    /// relative phase of clips of different lengths comes back round every few cycles,
    /// and is measured once (`PHASE_CACHE_LEN` at most).
    phase_cache: Vec<(PhaseKey, PhaseReport, SwingCurves)>,
    /// The first leg's swing over a cycle as the phase report measured it, and the clip
    /// of each curve input.
    swing: SwingCurves,
    /// The `phase_cache` entry whose curves stand for `swing` (a cache hit), if any.
    swing_hit: Option<usize>,
    swing_clips: Vec<usize>,
    /// How marker sync aligns each active follower with the leader, where it cannot pair
    /// every shared marker (measured with the phase report).
    sync_notes: Vec<String>,
    last_dt: f64,
    /// Inertialized transitions: the stage after the blend, and this evaluation's frame
    /// time and switch (set by `advance` around its `evaluate`).
    inertia: crate::inertial::TransitionInertia,
    inertia_dt: f32,
    inertia_jump: Option<f32>,
}

fn weight_value(w: &Weight, params: &Params) -> f32 {
    match w {
        Weight::Fixed(v) => *v,
        Weight::Param(p) => params.get_float(p).unwrap_or(0.0),
    }
}

impl PoseGraph {
    /// The definition the graph was built from.
    pub fn def(&self) -> &GraphDef {
        &self.def
    }

    /// The current parameter values (declared from the definition's `params`).
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The parameters, to set; new values take effect at the next `advance` or `evaluate`.
    pub fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    /// Global play rate (negative = reverse).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Sets the global play rate (1 = real time, negative = reverse); errors when it is not
    /// finite.
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
        self.local.joints()
    }

    /// The same pose in blocks of four joints, when the graph has it in that layout (no
    /// layer or inertialization changed it after the blend): every joint's lane is
    /// [`Self::local_pose`]'s transform bit for bit, with neither packing nor unpacking
    /// (the padding lanes past the last joint hold what the blend left there).
    pub fn local_pose_soa(&self) -> Option<&[SoaTransform]> {
        self.local.blocks()
    }

    /// The blended root-motion delta of the last `advance` (identity after a seek).
    pub fn root_delta(&self) -> GroundTransform {
        self.root_delta
    }

    /// Marker names crossed by the inputs during the last `advance`.
    pub fn events(&self) -> &[String] {
        &self.events[..self.events_len]
    }

    /// The leg-swing cancellation measured for the active base inputs; `None` when fewer than
    /// two are active or the rig has no legs.
    pub fn phase_report(&self) -> Option<&PhaseReport> {
        self.phase.as_ref()
    }

    /// The swing curves behind [`Self::phase_report`] (first leg, degrees, in the plane
    /// the feet swing in) and the clip index of each input curve; `None` without a report.
    pub fn swing_curves(&self) -> Option<(&SwingCurves, &[usize])> {
        let swing = match self.swing_hit {
            Some(i) => &self.phase_cache[i].2,
            None => &self.swing,
        };
        self.phase.as_ref().map(|_| (swing, &self.swing_clips[..]))
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

    /// Every clip input of the graph, base inputs and layers ([`InputStatus::player`] indexes
    /// it).
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
}
