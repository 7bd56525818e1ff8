//! Pose-graph and scenario definitions: plain data that loads from human-editable RON files
//! (serde), plus the default graphs (the demo's locomotion graph, and one state per clip
//! for any other file).
//!
//! A graph file looks like this (the demo's default, see [`demo_graph`]):
//!
//! ```ron
//! (
//!     params: [Float(name: "speed", default: 0.0, min: 0.0, max: 5.0), Float(name: "wave", default: 0.0, min: 0.0, max: 1.0)],
//!     base: StateMachine(sync: Markers, machine: (
//!         initial: "Idle",
//!         states: [
//!             (name: "Idle", node: Clip(clip: "Idle")),
//!             (name: "Move", node: BlendSpace1D(param: "speed", samples: [(clip: "Walk"), (clip: "Run")])),
//!         ],
//!         transitions: [
//!             (from: "Idle", to: "Move", conditions: [Greater(param: "speed", value: 0.3, band: 0.2)], duration_secs: 0.3),
//!             (from: "Move", to: "Idle", conditions: [Less(param: "speed", value: 0.3, band: 0.2)], duration_secs: 0.4),
//!         ],
//!     )),
//!     layers: [(name: "Wave", clip: "Wave", weight: Param("wave"), mask: (subtrees: [("spine_03", 1.0)], ramp: [("spine_01", 0.25), ("spine_02", 0.5)]))],
//! )
//! ```
//!
//! Errors name the file, the line and column for syntax and type errors (from ron), and the
//! state or layer for semantic ones (unknown clip, unknown parameter).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::anim::state_machine::{StateDef, StateMachineDef, TransitionDef};
use crate::GraphError;

/// A whole pose graph: parameters, the base node (full body, with root motion) and layers
/// applied on top of it in order.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct GraphDef {
    /// Parameters the graph reads (weights, blend-space axes, transition conditions), each
    /// shown as a UI control; none when omitted.
    #[serde(default)]
    pub params: Vec<ParamDef>,
    /// The full-body node: it produces the pose and the root motion that moves the character.
    pub base: NodeDef,
    /// Layers applied over the base in file order (each on top of the previous result); none
    /// when omitted.
    #[serde(default)]
    pub layers: Vec<LayerDef>,
}

/// A named graph parameter, set by the UI sliders and scenario files.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub enum ParamDef {
    /// A number; `min`/`max` only bound the UI slider (values outside still work).
    Float {
        /// The name weights, blend spaces and transition conditions use to read it.
        name: String,
        /// Value the graph starts with; 0 when omitted.
        #[serde(default)]
        default: f32,
        /// Lower end of the UI slider; 0 when omitted.
        #[serde(default)]
        min: Option<f32>,
        /// Upper end of the UI slider; 1 when omitted.
        #[serde(default)]
        max: Option<f32>,
    },
    /// A switch (a checkbox in the UI), read by `IsTrue` and `IsFalse` transition conditions.
    Bool {
        /// The name transition conditions use to read it.
        name: String,
        /// Value the graph starts with; `false` when omitted.
        #[serde(default)]
        default: bool,
    },
}

impl ParamDef {
    /// The parameter's name, whatever its type.
    pub fn name(&self) -> &str {
        match self {
            ParamDef::Float { name, .. } | ParamDef::Bool { name, .. } => name,
        }
    }
}

/// A weight: a fixed number or a float parameter read every frame.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub enum Weight {
    /// This weight every frame; must be finite and >= 0.
    Fixed(f32),
    /// Name of a float parameter (declared in the graph's `params`) whose current value is the
    /// weight; negative values count as 0.
    Param(String),
}

impl Default for Weight {
    fn default() -> Self {
        Weight::Fixed(1.0)
    }
}

/// How the inputs of a blend keep in step.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, Hash)]
pub enum SyncMode {
    /// Each input plays its own clock: out-of-phase inputs can cancel each other.
    None,
    /// Cycle sync (ozz's blend sample): the loop lasts `sum w_i * dur_i`, every input plays
    /// at `dur_i / loop`, so all advance one cycle per loop and keep their phase offsets.
    Cycle,
    /// Marker sync (Unreal's sync groups): the highest-weight input leads, the others take
    /// its relative position between the foot markers both share (file markers, else ones
    /// detected from the feet); falls back to the normalised phase without shared markers.
    #[default]
    Markers,
}

impl SyncMode {
    /// The mode's name in lower case (`none`, `cycle` or `markers`), as the UI and reports
    /// show it.
    pub fn label(self) -> &'static str {
        match self {
            SyncMode::None => "none",
            SyncMode::Cycle => "cycle",
            SyncMode::Markers => "markers",
        }
    }
}

fn one() -> f32 {
    1.0
}

/// One input of a [`NodeDef::Blend`].
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct BlendInputDef {
    /// Name of the clip to play, as the model lists it.
    pub clip: String,
    /// The input's weight before normalisation over the blend's inputs; 1 when omitted.
    #[serde(default)]
    pub weight: Weight,
    /// Phase offset as a fraction of a cycle (0.5 = half a cycle later).
    #[serde(default)]
    pub offset: f32,
}

/// A sample of a 1D blend space; `position` defaults to the clip's root-motion speed (m/s).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Sample1DDef {
    /// Name of the clip at this sample.
    pub clip: String,
    /// Position on the space's axis, in the parameter's units (written as a plain number, e.g.
    /// `position: 1.4`); omitted: the clip's root-motion speed in m/s.
    #[serde(default)]
    pub position: Option<f32>,
}

/// A sample of a 2D blend space; `position` (sideways, forward) defaults to the clip's
/// root-motion velocity (m/s).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Sample2DDef {
    /// Name of the clip at this sample.
    pub clip: String,
    /// Point in the plane of the `x` and `y` parameters, e.g. `position: (0.0, 1.4)`; omitted:
    /// the clip's root-motion velocity (sideways, forward) in m/s.
    #[serde(default)]
    pub position: Option<(f32, f32)>,
}

/// A node of the graph: what produces a pose and root motion.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub enum NodeDef {
    /// One clip at a rate (negative = reverse).
    Clip {
        /// Name of the clip to play.
        clip: String,
        /// Speed multiplier (1 = as authored, 2 = twice as fast, negative = reverse); must be
        /// finite; 1 when omitted.
        #[serde(default = "one")]
        rate: f32,
    },
    /// Weighted inputs (weights are normalised).
    Blend {
        /// The clips blended, each with its weight and phase offset; at least one. When every
        /// weight is 0 the first input plays alone.
        inputs: Vec<BlendInputDef>,
        /// How the inputs keep in step; `Markers` when omitted.
        #[serde(default)]
        sync: SyncMode,
    },
    /// Clips placed on one axis (e.g. speed): the float parameter `param` picks a point, and
    /// the two samples around it blend linearly (past either end, the end sample alone).
    BlendSpace1D {
        /// Name of the float parameter giving the position on the axis.
        param: String,
        /// The clips and their positions on the axis; at least one, no two at the same
        /// position.
        samples: Vec<Sample1DDef>,
        /// How the samples keep in step; `Cycle` when omitted.
        #[serde(default = "cycle")]
        sync: SyncMode,
    },
    /// Clips placed in a plane (e.g. sideways and forward speed): the point given by the `x`
    /// and `y` parameters blends the three samples of the triangle around it (barycentric
    /// weights over a Delaunay triangulation of the samples; outside their hull, the two
    /// samples of the nearest edge).
    BlendSpace2D {
        /// Name of the float parameter for the first axis (e.g. sideways speed in m/s).
        x: String,
        /// Name of the float parameter for the second axis (e.g. forward speed in m/s).
        y: String,
        /// The clips and their points in the plane; at least one, no two at the same point.
        samples: Vec<Sample2DDef>,
        /// How the samples keep in step; `Cycle` when omitted.
        #[serde(default = "cycle")]
        sync: SyncMode,
    },
    /// States are clips, blends or blend spaces (not nested state machines).
    StateMachine {
        /// The states (each with its node), the initial state, and the transitions with their
        /// conditions and cross-fade times.
        machine: StateMachineDef<NodeDef>,
        /// How an incoming state is aligned with the outgoing one during a cross-fade.
        #[serde(default)]
        sync: SyncMode,
    },
}

fn cycle() -> SyncMode {
    SyncMode::Cycle
}

impl NodeDef {
    /// Every clip name the node refers to, in order.
    pub fn clips(&self) -> Vec<&str> {
        match self {
            NodeDef::Clip { clip, .. } => vec![clip],
            NodeDef::Blend { inputs, .. } => inputs.iter().map(|i| i.clip.as_str()).collect(),
            NodeDef::BlendSpace1D { samples, .. } => {
                samples.iter().map(|s| s.clip.as_str()).collect()
            }
            NodeDef::BlendSpace2D { samples, .. } => {
                samples.iter().map(|s| s.clip.as_str()).collect()
            }
            NodeDef::StateMachine { machine, .. } => {
                machine.states.iter().flat_map(|s| s.node.clips()).collect()
            }
        }
    }
}

/// How a layer combines with the pose below it.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub enum LayerMode {
    /// Adds the clip's difference to its reference pose (SPEC 4: right-multiplied).
    #[default]
    Additive,
    /// Replaces the masked joints, cross-faded by the weight.
    Override,
}

/// The pose an additive clip's difference is measured from.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub enum ReferenceDef {
    /// The additive clip's own reference frame: its first key (the common authoring
    /// convention) unless a frame was chosen for it (`Clip::with_additive_reference`, a
    /// sidecar's `additive`).
    #[default]
    FirstFrame,
    /// The skeleton's bind (rest) pose.
    BindPose,
    /// A frame of another clip.
    ClipFrame {
        /// Name of the clip the reference frame is sampled from.
        clip: String,
        /// Clip time of the reference frame, seconds.
        time_secs: f32,
    },
}

/// Joints a layer affects: whole subtrees with a weight, then single joints with their own
/// weight (a ramp along the spine so the shoulder does not tear).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct MaskDef {
    /// `(joint name, weight)` pairs: the joint and all its descendants get the weight (0..1);
    /// a later entry overrides earlier ones. Joints in no entry get 0.
    #[serde(default)]
    pub subtrees: Vec<(String, f32)>,
    /// `(joint name, weight)` pairs for single joints (not their descendants), applied after
    /// `subtrees`; later entries win.
    #[serde(default)]
    pub ramp: Vec<(String, f32)>,
}

/// A layer on top of the base node. Layers carry no root motion.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct LayerDef {
    /// Shown in the UI and the input list, and in error messages (`layer 'NAME'`).
    pub name: String,
    /// Name of the clip the layer plays, as the model lists it.
    pub clip: String,
    /// Additive or override; `Additive` when omitted.
    #[serde(default)]
    pub mode: LayerMode,
    /// Layer strength, 1 when omitted: 0 turns it off; an override layer caps it at 1, an
    /// additive one may go past 1 to exaggerate.
    #[serde(default)]
    pub weight: Weight,
    /// `None` = every joint.
    #[serde(default)]
    pub mask: Option<MaskDef>,
    /// For an additive layer, the pose its clip's difference is measured from; `FirstFrame`
    /// when omitted.
    #[serde(default)]
    pub reference: ReferenceDef,
    /// Clip seconds at which the layer's clip is held instead of played (`None`: it plays
    /// with the graph). A pose clip (three.js's `*_pose` additive clips, an aim offset)
    /// is held at one frame; a time past the clip's end is its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold: Option<f32>,
}

/// A load error with the file and, where known, the line and column.
pub fn parse_ron<T: serde::de::DeserializeOwned>(text: &str, file: &Path) -> Result<T, GraphError> {
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(text)
        .map_err(|e| GraphError::Parse {
            file: file.to_path_buf(),
            line: e.span.start.line,
            column: e.span.start.col,
            error: e.code,
        })
}

/// Reads and parses a RON file.
pub fn load_ron<T: serde::de::DeserializeOwned>(file: &Path) -> Result<T, GraphError> {
    let text = std::fs::read_to_string(file).map_err(|e| GraphError::Read {
        file: file.to_path_buf(),
        kind: e.kind(),
        message: e.to_string(),
    })?;
    parse_ron(&text, file)
}

/// The 1-based line of the first `name: "NAME"` in `text`, to point semantic errors (which
/// ron cannot place) at the state or layer they are about.
pub fn line_of_name(text: &str, name: &str) -> Option<usize> {
    let needle = format!("\"{name}\"");
    text.lines()
        .position(|l| l.contains("name") && l.contains(&needle))
        .map(|i| i + 1)
}

/// The demo character's graph: Idle and a Walk/Run 1D blend space by `speed` in a state
/// machine (marker-synced cross-fades with hysteresis), and the additive Wave on the arms
/// and spine with a ramp from the pelvis.
pub fn demo_graph() -> GraphDef {
    let text = include_str!("demo_graph.ron");
    parse_ron(text, Path::new("demo_graph.ron")).expect("the built-in demo graph parses")
}

/// The default graph of a file: the demo's for a model with the demo's clips, otherwise a
/// state machine with one state per clip (switch with the state buttons or `Travel`), and
/// every additive clip as a layer at weight 0 (`<clip> weight` parameters).
pub fn default_graph(clip_names: &[&str], additive: &[bool]) -> Option<GraphDef> {
    let demo = demo_graph();
    let mut needed = demo.base.clips();
    needed.extend(demo.layers.iter().map(|l| l.clip.as_str()));
    if needed.iter().all(|c| clip_names.contains(c)) {
        return Some(demo);
    }
    let states: Vec<StateDef<NodeDef>> = clip_names
        .iter()
        .zip(additive)
        .filter(|(_, &a)| !a)
        .map(|(name, _)| StateDef {
            name: name.to_string(),
            node: NodeDef::Clip {
                clip: name.to_string(),
                rate: 1.0,
            },
        })
        .collect();
    let initial = states.first()?.name.clone();
    let mut params = Vec::new();
    let mut layers = Vec::new();
    for (name, _) in clip_names.iter().zip(additive).filter(|(_, &a)| a) {
        let param = format!("{name} weight");
        params.push(ParamDef::Float {
            name: param.clone(),
            default: 0.0,
            min: Some(0.0),
            max: Some(1.0),
        });
        layers.push(LayerDef {
            name: name.to_string(),
            clip: name.to_string(),
            mode: LayerMode::Additive,
            weight: Weight::Param(param),
            mask: None,
            reference: ReferenceDef::FirstFrame,
            hold: None,
        });
    }
    Some(GraphDef {
        params,
        base: NodeDef::StateMachine {
            machine: StateMachineDef {
                initial,
                states,
                transitions: Vec::<TransitionDef>::new(),
            },
            sync: SyncMode::Markers,
        },
        layers,
    })
}
