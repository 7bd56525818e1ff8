//! The animation state machine: which states play, and with what weights.
//!
//! This module is pure logic. It never samples a clip or touches a pose: the pose graph
//! evaluates each state's node (clip, blend space, ...) and blends the results with the
//! weights reported by [`StateMachine::weights`]. Definitions are plain serde data
//! ([`StateMachineDef`]), usually loaded from RON; [`StateMachine::new`] validates one
//! against the declared [`Params`] and builds the runtime machine.
//!
//! # One frame
//!
//! ```text
//! graph: normalised time of each state, events its clips fired this frame
//!        │
//!        ▼
//! StateMachine::update(dt, params, normalized_time, events) ──► StepReport
//!        │   1. pick at most ONE transition (rules below); if one fires, start it
//!        │      at elapsed 0 (this update does not advance it);
//!        │   2. otherwise advance the active fade by dt; at progress 1 drop its source.
//!        ▼
//! StateMachine::weights() ──► [(Slot, weight)]  ──► graph blends those slots
//! ```
//!
//! Because a fade that starts this update starts at weight 0 of its destination, the
//! blended output of the update in which it starts equals the output of the update before:
//! starting (or interrupting) a transition never makes the pose jump.
//!
//! # Choosing a transition
//!
//! - At most one transition starts per update.
//! - With no active fade, the candidates are the transitions from the current state and
//!   from `"*"` (any state), taken in one list sorted by `priority` (higher first), ties
//!   in file order. The first whose conditions all hold (and whose exit time has passed)
//!   fires.
//! - A transition to the state that is already current (the destination of the active
//!   fade, if any) is always skipped, whether it comes from a real state or from `"*"`.
//!   A `"*"` transition would otherwise re-fire every update while its condition holds.
//! - Exit time: the source state's normalised time must be `>= exit_time`, checked each
//!   update. For `"*"` the source is the current state. `normalized_time(state)` must be
//!   the time since the state was entered divided by its cycle duration, NOT wrapped, so
//!   that `exit_time: Some(2.5)` means "after two and a half loops"; the graph resets a
//!   state's clock whenever [`StepReport::entered`] names it.
//! - Hysteresis: `Greater { value, band }` holds when `param > value + band / 2`,
//!   `Less { value, band }` when `param < value - band / 2`. A Walk -> Run (`speed > 2`,
//!   band 0.4) / Run -> Walk (`speed < 2`, band 0.4) pair fires at 2.2 and 1.8 and never
//!   flip-flops for a speed oscillating inside 1.8..2.2.
//! - Events: an `Event(name)` condition only accepts a [`FiredEvent`] whose `source_state`
//!   is the current (destination) state, and, for a transition from a real state, also
//!   that state. Events fired by a fading-out clip (the source of the active fade, or any
//!   state that is not current) never trigger anything, so a clip that keeps playing while
//!   it fades out cannot re-trigger the switch that is fading it out. A consequence: an
//!   event transition from the source of an active fade (reachable through
//!   [`Interruption::Source`]) cannot fire until its state is current again.
//!
//! # Interruption
//!
//! While a fade is active, the `interruption` of the transition that started it decides
//! which transitions may interrupt it (like Unity's interruption source). "Source" is the
//! state that was current when the fade started, "destination" is the current state:
//!
//! | `interruption`          | candidates while the fade is active                       |
//! |-------------------------|-----------------------------------------------------------|
//! | `None`                  | none                                                      |
//! | `Source`                | transitions from the source state                         |
//! | `Destination`           | transitions from the destination state and from `"*"`     |
//! | `SourceThenDestination` | the source's first, then the destination's and `"*"`'s   |
//! | `DestinationThenSource` | the destination's and `"*"`'s first, then the source's   |
//!
//! Within each group the order is priority then file order. `"*"` counts as "from the
//! current state" everywhere, so it belongs to the destination group.
//!
//! When a transition interrupts an active fade, the report says `snapshot: true`: the graph
//! must freeze its CURRENT output pose (the one it produced in the previous update, before
//! this update's weights) into the snapshot slot. The new fade then runs from
//! [`Slot::Snapshot`] to the new destination, starting at weight 0 of the destination. A
//! later interruption replaces the snapshot again (capture the output before overwriting
//! the old snapshot: the output may be a blend that includes it). This is what keeps
//! flip-flops safe: the pose never jumps, and every fade completes to a full state at
//! weight 1 unless it is interrupted again, with its progress moving every update.
//! An interrupting transition with duration 0 switches at once and needs no snapshot
//! (`snapshot: false`).
//!
//! # Fades
//!
//! Progress = `clamp01(elapsed / duration)`, shaped by the [`Ease`]; the destination's
//! weight is the eased value `w`, the source slot's `1 - w`. Duration 0 switches at once
//! (no fade; `entered` and `finished` are both reported). When progress reaches 1 the
//! source is dropped and the current state plays alone at weight 1.
//!
//! # Manual control
//!
//! [`StateMachine::travel`] forces a cross-fade (the UI's state buttons, scenario files).
//! It interrupts any active fade the same way a transition does (snapshot), and its own
//! fade cannot be interrupted by automatic transitions (`Interruption::None`); once it
//! completes, the transitions of the new state are evaluated as usual.
//! [`StateMachine::reset`] goes back to the initial state with no fade (a seek).

use serde::{Deserialize, Serialize};

/// The `from` of a transition that applies to every state.
pub const ANY_STATE: &str = "*";

/// A whole state machine as written in a definition file.
///
/// `N` is the pose graph's node definition (clip, blend space, ...); this module never
/// looks inside it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StateMachineDef<N> {
    /// Name of the state that plays first (and after [`StateMachine::reset`]).
    pub initial: String,
    /// The states, in index order: state `i` of the runtime machine is `states[i]`.
    pub states: Vec<StateDef<N>>,
    /// The transitions; their index (file order) breaks priority ties and is what
    /// [`StepReport::started`] reports.
    #[serde(default)]
    pub transitions: Vec<TransitionDef>,
}

/// One state: a unique name and the node that produces its pose.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StateDef<N> {
    /// Unique state name (not `"*"`); transitions and `initial` refer to it.
    pub name: String,
    /// The pose graph node that produces this state's pose.
    pub node: N,
}

fn default_duration_secs() -> f32 {
    0.25
}

/// One transition between states.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TransitionDef {
    /// A state name, or `"*"` ([`ANY_STATE`]) for any state.
    pub from: String,
    /// A state name (`"*"` is not allowed here).
    pub to: String,
    /// All must hold for the transition to fire.
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Normalised time of the source state (0..1 within the first cycle, above 1 for
    /// "after N loops") at or after which the transition may fire. With no conditions it
    /// fires on exit time alone. A transition needs conditions, an exit time or both.
    #[serde(default)]
    pub exit_time: Option<f32>,
    /// Fade duration in seconds, `>= 0`; 0 switches at once. Default 0.25.
    #[serde(default = "default_duration_secs")]
    pub duration_secs: f32,
    /// Shape of the fade.
    #[serde(default)]
    pub ease: Ease,
    /// Higher is evaluated first; ties go by file order.
    #[serde(default)]
    pub priority: i32,
    /// Which transitions may interrupt the fade this transition starts.
    #[serde(default)]
    pub interruption: Interruption,
    /// Inertialize instead of cross-fading: switch to the destination at once and let
    /// the difference from the pose that was showing (and its velocity) decay with this
    /// half-life in seconds (> 0; `duration_secs` and `ease` are then unused). One pose
    /// is evaluated per frame instead of two.
    #[serde(default)]
    pub inertialize: Option<f32>,
}

impl TransitionDef {
    /// A transition `from -> to` with the file defaults (no conditions, no exit time,
    /// 0.25 s smoothstep fade, priority 0, not interruptible). Add conditions or an exit
    /// time before use: [`StateMachine::new`] rejects a transition with neither.
    pub fn new(from: impl Into<String>, to: impl Into<String>) -> TransitionDef {
        TransitionDef {
            from: from.into(),
            to: to.into(),
            conditions: Vec::new(),
            exit_time: None,
            duration_secs: default_duration_secs(),
            ease: Ease::default(),
            priority: 0,
            interruption: Interruption::default(),
            inertialize: None,
        }
    }
}

/// A condition on the parameters or the events of this frame.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub enum Condition {
    /// Float parameter `param > value + band / 2` (`band >= 0`, hysteresis width).
    Greater {
        /// Name of a declared float parameter.
        param: String,
        /// Threshold, finite.
        value: f32,
        /// Hysteresis width, `>= 0`, in the parameter's units; default 0.
        #[serde(default)]
        band: f32,
    },
    /// Float parameter `param < value - band / 2` (`band >= 0`, hysteresis width).
    Less {
        /// Name of a declared float parameter.
        param: String,
        /// Threshold, finite.
        value: f32,
        /// Hysteresis width, `>= 0`, in the parameter's units; default 0.
        #[serde(default)]
        band: f32,
    },
    /// Bool parameter is true.
    IsTrue(String),
    /// Bool parameter is false.
    IsFalse(String),
    /// An event of this name was fired this frame by the right state's clip (see the
    /// module docs: events of fading-out states never count).
    Event(String),
}

/// Shape of a fade: maps progress (0..1) to the destination's weight (0..1).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub enum Ease {
    /// `p * p * (3 - 2p)`: zero slope at both ends.
    #[default]
    Smoothstep,
    /// `p`.
    Linear,
    /// `(progress, weight)` points, piecewise linear: at least two, progress strictly
    /// increasing from exactly (0, 0) to exactly (1, 1), every weight in 0..=1.
    Curve(Vec<(f32, f32)>),
}

impl Ease {
    /// The weight for `progress` (clamped to 0..=1; NaN counts as 0). The result is
    /// always in 0..=1, even for a curve that [`Ease::validate`] would reject, so a bad
    /// curve can never produce weights outside a convex blend.
    pub fn eval(&self, progress: f32) -> f32 {
        // NaN is tested explicitly: `clamp` would pass it through.
        let p = if progress.is_nan() || progress <= 0.0 {
            0.0
        } else if progress >= 1.0 {
            1.0
        } else {
            progress
        };
        let w = match self {
            Ease::Smoothstep => p * p * (3.0 - 2.0 * p),
            Ease::Linear => p,
            Ease::Curve(points) => eval_curve(points, p),
        };
        if w.is_nan() || w <= 0.0 {
            0.0
        } else if w >= 1.0 {
            1.0
        } else {
            w
        }
    }

    /// Checks a curve's points (see [`Ease::Curve`]); the other eases are always valid.
    pub fn validate(&self) -> Result<(), EaseError> {
        let Ease::Curve(points) = self else {
            return Ok(());
        };
        if points.len() < 2 {
            return Err(EaseError::TooFewPoints(points.len()));
        }
        for (index, &point) in points.iter().enumerate() {
            let (p, w) = point;
            if !p.is_finite() || !w.is_finite() {
                return Err(EaseError::NotFinite { index, point });
            }
            if !(0.0..=1.0).contains(&w) {
                return Err(EaseError::WeightOutOfRange { index, point });
            }
            if index > 0 && p <= points[index - 1].0 {
                return Err(EaseError::NotIncreasing {
                    index,
                    point,
                    previous: points[index - 1].0,
                });
            }
        }
        let first = points[0];
        let last = points[points.len() - 1];
        if first != (0.0, 0.0) {
            return Err(EaseError::BadStart(first));
        }
        if last != (1.0, 1.0) {
            return Err(EaseError::BadEnd(last));
        }
        Ok(())
    }
}

/// Piecewise-linear interpolation; tolerant of unvalidated points (holds the end values
/// outside the covered range, falls back to linear with fewer than two points).
fn eval_curve(points: &[(f32, f32)], p: f32) -> f32 {
    if points.len() < 2 {
        return p;
    }
    // First point whose progress exceeds p; the segment is [i - 1, i].
    let i = points.partition_point(|&(x, _)| x <= p);
    if i == 0 {
        return points[0].1;
    }
    if i == points.len() {
        return points[points.len() - 1].1;
    }
    let (x0, y0) = points[i - 1];
    let (x1, y1) = points[i];
    let span = x1 - x0;
    if span.is_nan() || span <= 0.0 {
        return y1;
    }
    y0 + (y1 - y0) * ((p - x0) / span)
}

/// Which transitions may interrupt an active fade (see the table in the module docs).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub enum Interruption {
    /// The fade always completes.
    #[default]
    None,
    /// Transitions from the fade's source state.
    Source,
    /// Transitions from the fade's destination state (and from `"*"`).
    Destination,
    /// Source's first, then destination's.
    SourceThenDestination,
    /// Destination's first, then source's.
    DestinationThenSource,
}

/// The value of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamValue {
    /// A float parameter's value (always finite once stored in [`Params`]).
    Float(f32),
    /// A bool parameter's value.
    Bool(bool),
}

impl ParamValue {
    /// `"float"` or `"bool"`, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            ParamValue::Float(_) => "float",
            ParamValue::Bool(_) => "bool",
        }
    }
}

/// Named parameters the conditions read, in declaration order (the UI lists them so).
///
/// Lookups are linear: a state machine has a handful of parameters, where a scan over a
/// small vector beats hashing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    entries: Vec<(String, ParamValue)>,
}

impl Params {
    /// No parameters.
    pub fn new() -> Params {
        Params::default()
    }

    /// Declares a float parameter with its default value. Declaring a name again replaces
    /// the earlier declaration (type and value) in place. A non-finite default is stored
    /// as 0.0, because conditions on NaN would silently never hold.
    pub fn declare_float(&mut self, name: impl Into<String>, default: f32) {
        let v = if default.is_finite() { default } else { 0.0 };
        self.declare(name.into(), ParamValue::Float(v));
    }

    /// Declares a bool parameter with its default value (replacing any earlier one).
    pub fn declare_bool(&mut self, name: impl Into<String>, default: bool) {
        self.declare(name.into(), ParamValue::Bool(default));
    }

    fn declare(&mut self, name: String, value: ParamValue) {
        match self.entries.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((name, value)),
        }
    }

    /// Sets a declared float parameter. Errors: unknown name, a bool parameter, a
    /// non-finite value (the old value is kept).
    pub fn set_float(&mut self, name: &str, value: f32) -> Result<(), ParamError> {
        if !value.is_finite() {
            return Err(ParamError::NotFinite {
                name: name.to_string(),
                value,
            });
        }
        self.set(name, ParamValue::Float(value))
    }

    /// Sets a declared bool parameter. Errors: unknown name, a float parameter.
    pub fn set_bool(&mut self, name: &str, value: bool) -> Result<(), ParamError> {
        self.set(name, ParamValue::Bool(value))
    }

    /// Sets a declared parameter to a value of its own type (what the UI's widgets send).
    pub fn set(&mut self, name: &str, value: ParamValue) -> Result<(), ParamError> {
        if let ParamValue::Float(v) = value {
            if !v.is_finite() {
                return Err(ParamError::NotFinite {
                    name: name.to_string(),
                    value: v,
                });
            }
        }
        let Some(entry) = self.entries.iter_mut().find(|(n, _)| n == name) else {
            return Err(ParamError::Unknown(name.to_string()));
        };
        if std::mem::discriminant(&entry.1) != std::mem::discriminant(&value) {
            return Err(ParamError::WrongType {
                name: name.to_string(),
                is: entry.1.type_name(),
                wanted: value.type_name(),
                needs: None,
            });
        }
        entry.1 = value;
        Ok(())
    }

    /// The value of a parameter, if declared.
    pub fn get(&self, name: &str) -> Option<ParamValue> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, v)| v)
    }

    /// A float parameter's value; `None` if undeclared or a bool.
    pub fn get_float(&self, name: &str) -> Option<f32> {
        match self.get(name) {
            Some(ParamValue::Float(v)) => Some(v),
            _ => None,
        }
    }

    /// A bool parameter's value; `None` if undeclared or a float.
    pub fn get_bool(&self, name: &str) -> Option<bool> {
        match self.get(name) {
            Some(ParamValue::Bool(v)) => Some(v),
            _ => None,
        }
    }

    /// Parameter names in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().map(|(n, _)| n.as_str())
    }

    /// `(name, value)` in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, ParamValue)> + '_ {
        self.entries.iter().map(|(n, v)| (n.as_str(), *v))
    }

    /// Number of declared parameters.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no parameter is declared.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Where a weighted pose comes from: a state's node, or the frozen snapshot of the
/// blended pose taken when a fade was interrupted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    /// The pose of state `i` (index into [`StateMachineDef::states`]).
    State(usize),
    /// The blended output pose frozen when a fade was interrupted
    /// ([`StepReport::snapshot`]).
    Snapshot,
}

/// An event fired this frame by a clip of a state (a foot-contact marker, an authored
/// event), tagged with the state whose clip fired it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FiredEvent<'a> {
    /// Event name, matched against [`Condition::Event`].
    pub name: &'a str,
    /// Index of the state whose clip fired it (index into [`StateMachineDef::states`]).
    pub source_state: usize,
}

/// What changed in one [`StateMachine::update`] or [`StateMachine::travel`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Index (file order) of the transition that started; `None` for none or a travel.
    pub started: Option<usize>,
    /// State that began playing: the graph resets its clocks (time 0, normalised time 0).
    pub entered: Option<usize>,
    /// An active fade was interrupted: freeze the CURRENT output pose (from before this
    /// update) into the snapshot slot before evaluating this update's weights.
    pub snapshot: bool,
    /// State whose fade-in completed (it now plays alone at weight 1).
    pub finished: Option<usize>,
    /// The transition that started switches at once and asks for inertialization with
    /// this half-life (seconds).
    pub inertialize: Option<f32>,
}

/// `from` of a validated transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TransitionFrom {
    Any,
    State(usize),
}

/// A validated condition; thresholds already include the hysteresis half band.
#[derive(Clone, Debug)]
enum Check {
    Greater { param: String, threshold: f32 },
    Less { param: String, threshold: f32 },
    IsTrue(String),
    IsFalse(String),
    Event(String),
}

#[derive(Clone, Debug)]
struct Transition {
    from: TransitionFrom,
    to: usize,
    checks: Vec<Check>,
    exit_time: Option<f32>,
    duration_secs: f32,
    ease: Ease,
    interruption: Interruption,
    inertialize: Option<f32>,
}

/// The active fade.
#[derive(Clone, Debug)]
struct Fade {
    from: Slot,
    /// State that was current when the fade started (the "source" of interruption rules).
    source_state: usize,
    to: usize,
    /// f64: frame times accumulate over many updates without drifting short of the
    /// duration.
    elapsed_secs: f64,
    duration_secs: f32,
    interruption: Interruption,
    /// The transition that started it (its ease is used), or `None` for a travel (the
    /// ease is `StateMachine::travel_ease`). Referencing instead of cloning the ease keeps
    /// starting a transition free of allocation.
    transition: Option<usize>,
}

/// Candidate groups for one evaluation pass.
#[derive(Clone, Copy)]
enum Group {
    /// From the current state or from `"*"`.
    Current,
    /// From this (fading-out) state only.
    Source(usize),
}

/// The runtime state machine built from a validated [`StateMachineDef`].
#[derive(Clone, Debug)]
pub struct StateMachine {
    names: Vec<String>,
    initial: usize,
    transitions: Vec<Transition>,
    /// Transition indices by priority (desc), then file order.
    order: Vec<usize>,
    current: usize,
    fade: Option<Fade>,
    travel_ease: Ease,
    weights: [(Slot, f32); 2],
    weight_count: usize,
}

/// Why an ease curve was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum EaseError {
    /// The curve has fewer than two points; holds how many it has.
    TooFewPoints(usize),
    /// Point `index` `(progress, weight)` is not finite.
    NotFinite {
        /// Index of the point in the curve, from 0.
        index: usize,
        /// The point as written, `(progress, weight)`.
        point: (f32, f32),
    },
    /// Point `index`'s weight is outside 0..=1.
    WeightOutOfRange {
        /// Index of the point in the curve, from 0.
        index: usize,
        /// The point as written, `(progress, weight)`.
        point: (f32, f32),
    },
    /// Point `index`'s progress is not above the previous point's.
    NotIncreasing {
        /// Index of the point in the curve, from 0.
        index: usize,
        /// The point as written, `(progress, weight)`.
        point: (f32, f32),
        /// The progress of point `index - 1`.
        previous: f32,
    },
    /// The first point is not (0, 0).
    BadStart((f32, f32)),
    /// The last point is not (1, 1).
    BadEnd((f32, f32)),
}

impl std::fmt::Display for EaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooFewPoints(n) => write!(f, "ease curve needs at least 2 points, has {n}"),
            Self::NotFinite { index, point: (p, w) } => {
                write!(f, "ease curve point {index} ({p}, {w}) is not finite")
            }
            Self::WeightOutOfRange { index, point: (p, w) } => write!(
                f,
                "ease curve point {index} ({p}, {w}): weight must be in 0..=1"
            ),
            Self::NotIncreasing {
                index,
                point: (p, w),
                previous,
            } => write!(
                f,
                "ease curve point {index} ({p}, {w}): progress must increase (previous is {previous})"
            ),
            Self::BadStart((p, w)) => {
                write!(f, "ease curve must start at (0, 0), starts at ({p}, {w})")
            }
            Self::BadEnd((p, w)) => write!(f, "ease curve must end at (1, 1), ends at ({p}, {w})"),
        }
    }
}

/// Why a parameter change or a transition condition was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamError {
    /// A parameter name that is not declared in the [`Params`]; holds the name as given.
    Unknown(String),
    /// A parameter of one type used as the other (`needs` says by what, when known).
    WrongType {
        /// The parameter's name.
        name: String,
        /// Its declared type, `"float"` or `"bool"`.
        is: &'static str,
        /// The type the change or condition needs, `"float"` or `"bool"`.
        wanted: &'static str,
        /// The condition that needs it (`"Greater"`, `"IsTrue"`, ...); `None` for a set.
        needs: Option<&'static str>,
    },
    /// A float parameter set to NaN or an infinity; the old value is kept.
    NotFinite {
        /// The parameter's name.
        name: String,
        /// The refused value.
        value: f32,
    },
    /// A condition's threshold is not finite.
    ThresholdNotFinite {
        /// The float parameter the condition compares.
        name: String,
        /// The threshold as written (`value` of `Greater` or `Less`).
        value: f32,
    },
    /// A condition's band is negative or not finite.
    BadBand {
        /// The float parameter the condition compares.
        name: String,
        /// The hysteresis width as written, in the parameter's units.
        band: f32,
    },
    /// An `Event` condition without a name.
    EventWithoutName,
}

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unknown(name) => write!(f, "unknown parameter '{name}'"),
            Self::WrongType {
                name,
                is,
                wanted,
                needs: None,
            } => write!(f, "parameter '{name}' is a {is}, not a {wanted}"),
            Self::WrongType {
                name,
                is,
                wanted,
                needs: Some(what),
            } => write!(f, "parameter '{name}' is a {is}, {what} needs a {wanted}"),
            Self::NotFinite { name, value } => {
                write!(f, "parameter '{name}': value {value} is not finite")
            }
            Self::ThresholdNotFinite { name, value } => {
                write!(f, "'{name}': value {value} is not finite")
            }
            Self::BadBand { name, band } => {
                write!(f, "'{name}': band {band} must be finite and >= 0")
            }
            Self::EventWithoutName => write!(f, "Event needs a name"),
        }
    }
}

/// What is wrong with one transition of a definition.
#[derive(Clone, Debug, PartialEq)]
pub enum TransitionProblem {
    /// Its `from` or `to` names no state; holds the name as written.
    UnknownState(String),
    /// Its `to` is `"*"`, which can only be a `from`.
    AnyAsDestination,
    /// Its `duration_secs` (held, in seconds) is negative or not finite.
    BadDuration(f32),
    /// Its `exit_time` (held, in normalised time of the source state) is negative or not
    /// finite.
    BadExitTime(f32),
    /// Neither conditions nor an exit time: it would fire at once, every time.
    NeverWaits,
    /// Its `ease` is a curve that [`Ease::validate`] refuses.
    Ease(EaseError),
    /// Its `inertialize` half-life (held, in seconds) is not finite and above 0.
    BadHalfLife(f32),
    /// Condition `index` is wrong.
    Condition {
        /// Index of the condition in the transition's `conditions`, from 0.
        index: usize,
        /// What is wrong with it.
        error: ParamError,
    },
}

/// Why a state machine definition was refused; the text names the state and transition.
#[derive(Clone, Debug, PartialEq)]
pub enum StateMachineError {
    /// The definition has no states.
    NoStates,
    /// A state is named `"*"`, the name of 'any state' transitions.
    ReservedStateName,
    /// Two states have the same name; holds it.
    DuplicateState(String),
    /// `initial` names no state; holds the name as written.
    UnknownInitial(String),
    /// `label` names the transition as the messages do (`state 'Run': transition 'Run -> Jump'`).
    Transition {
        /// `state 'FROM': transition 'FROM -> TO'`, or `any state: transition '* -> TO'`.
        label: String,
        /// What is wrong with it (the first problem found).
        problem: TransitionProblem,
    },
}

impl std::fmt::Display for StateMachineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoStates => write!(f, "state machine has no states"),
            Self::ReservedStateName => write!(
                f,
                "state '{ANY_STATE}': the name is reserved for 'any state' transitions"
            ),
            Self::DuplicateState(name) => write!(f, "state '{name}': duplicate state name"),
            Self::UnknownInitial(name) => write!(f, "initial state '{name}' is not a state"),
            Self::Transition { label, problem } => {
                write!(f, "{label}: ")?;
                match problem {
                    TransitionProblem::UnknownState(name) => write!(f, "unknown state '{name}'"),
                    TransitionProblem::AnyAsDestination => {
                        write!(f, "'{ANY_STATE}' can only be a source, not a destination")
                    }
                    TransitionProblem::BadDuration(d) => {
                        write!(f, "duration_secs {d} must be finite and >= 0")
                    }
                    TransitionProblem::BadExitTime(e) => {
                        write!(f, "exit_time {e} must be finite and >= 0")
                    }
                    TransitionProblem::NeverWaits => write!(
                        f,
                        "no conditions and no exit_time (it would fire at once, every time)"
                    ),
                    TransitionProblem::Ease(e) => write!(f, "{e}"),
                    TransitionProblem::BadHalfLife(h) => {
                        write!(f, "inertialize half-life {h} must be finite and > 0")
                    }
                    TransitionProblem::Condition { index, error } => {
                        write!(f, "condition {index}: {error}")
                    }
                }
            }
        }
    }
}

impl std::error::Error for EaseError {}
impl std::error::Error for ParamError {}
impl std::error::Error for StateMachineError {}

// Callers above the core that report in words take these with `?`.

fn transition_label(t: &TransitionDef) -> String {
    if t.from == ANY_STATE {
        format!("any state: transition '{} -> {}'", t.from, t.to)
    } else {
        format!("state '{}': transition '{} -> {}'", t.from, t.from, t.to)
    }
}

impl StateMachine {
    /// Validates `def` against the declared `params` and builds the machine, starting in
    /// the initial state with no fade.
    ///
    /// Errors (the first found) name the state and the transition as `from -> to`, e.g.
    /// `state 'Run': transition 'Run -> Jump': unknown state 'Jump'`: no states, duplicate
    /// or reserved (`"*"`) state names, unknown `initial`, unknown state names in
    /// transitions, `"*"` as a destination, unknown parameters or parameters of the wrong
    /// type in conditions, non-finite values, negative bands, durations or exit times, bad
    /// ease curves, and transitions with neither conditions nor an exit time (they would
    /// fire at once, every time).
    pub fn new<N>(
        def: &StateMachineDef<N>,
        params: &Params,
    ) -> Result<StateMachine, StateMachineError> {
        if def.states.is_empty() {
            return Err(StateMachineError::NoStates);
        }
        let mut names: Vec<String> = Vec::with_capacity(def.states.len());
        for s in &def.states {
            if s.name == ANY_STATE {
                return Err(StateMachineError::ReservedStateName);
            }
            if names.contains(&s.name) {
                return Err(StateMachineError::DuplicateState(s.name.clone()));
            }
            names.push(s.name.clone());
        }
        let index = |name: &str| names.iter().position(|n| n == name);
        let initial = index(&def.initial)
            .ok_or_else(|| StateMachineError::UnknownInitial(def.initial.clone()))?;

        let mut transitions = Vec::with_capacity(def.transitions.len());
        for t in &def.transitions {
            let label = transition_label(t);
            let fail = |problem| StateMachineError::Transition {
                label: label.clone(),
                problem,
            };
            let from = if t.from == ANY_STATE {
                TransitionFrom::Any
            } else {
                TransitionFrom::State(
                    index(&t.from)
                        .ok_or_else(|| fail(TransitionProblem::UnknownState(t.from.clone())))?,
                )
            };
            if t.to == ANY_STATE {
                return Err(fail(TransitionProblem::AnyAsDestination));
            }
            let to =
                index(&t.to).ok_or_else(|| fail(TransitionProblem::UnknownState(t.to.clone())))?;
            if !t.duration_secs.is_finite() || t.duration_secs < 0.0 {
                return Err(fail(TransitionProblem::BadDuration(t.duration_secs)));
            }
            if let Some(e) = t.exit_time {
                if !e.is_finite() || e < 0.0 {
                    return Err(fail(TransitionProblem::BadExitTime(e)));
                }
            }
            if t.conditions.is_empty() && t.exit_time.is_none() {
                return Err(fail(TransitionProblem::NeverWaits));
            }
            t.ease
                .validate()
                .map_err(|e| fail(TransitionProblem::Ease(e)))?;
            if let Some(h) = t.inertialize {
                if !(h.is_finite() && h > 0.0) {
                    return Err(fail(TransitionProblem::BadHalfLife(h)));
                }
            }
            let mut checks = Vec::with_capacity(t.conditions.len());
            for (index, c) in t.conditions.iter().enumerate() {
                checks.push(
                    compile_condition(c, params)
                        .map_err(|error| fail(TransitionProblem::Condition { index, error }))?,
                );
            }
            transitions.push(Transition {
                from,
                to,
                checks,
                exit_time: t.exit_time,
                duration_secs: t.duration_secs,
                ease: t.ease.clone(),
                interruption: t.interruption,
                inertialize: t.inertialize,
            });
        }
        let mut order: Vec<usize> = (0..transitions.len()).collect();
        // Stable sort: equal priorities keep file order.
        order.sort_by_key(|&i| std::cmp::Reverse(def.transitions[i].priority));

        let mut machine = StateMachine {
            names,
            initial,
            transitions,
            order,
            current: initial,
            fade: None,
            travel_ease: Ease::default(),
            weights: [(Slot::State(initial), 1.0), (Slot::State(initial), 0.0)],
            weight_count: 1,
        };
        machine.refresh_weights();
        Ok(machine)
    }

    /// Number of states.
    pub fn state_count(&self) -> usize {
        self.names.len()
    }

    /// Name of state `i`; `""` when out of range.
    pub fn state_name(&self, i: usize) -> &str {
        self.names.get(i).map_or("", String::as_str)
    }

    /// Index of the state called `name`.
    pub fn state_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The current state: the destination of the active fade, or the only state playing.
    pub fn current(&self) -> usize {
        self.current
    }

    /// The initial state.
    pub fn initial(&self) -> usize {
        self.initial
    }

    /// Index of the transition driving the active fade; `None` with no fade or for a
    /// fade started by [`StateMachine::travel`].
    pub fn active_transition(&self) -> Option<usize> {
        self.fade.as_ref().and_then(|f| f.transition)
    }

    /// Advances the machine by `dt_secs` (seconds, `>= 0`; negative or non-finite counts
    /// as 0): starts at most one transition, otherwise advances the active fade.
    ///
    /// `normalized_time(state)` is the state's time since it was entered divided by its
    /// cycle duration (not wrapped); it is asked only for states whose transitions have
    /// an exit time. `events` are the events the clips fired this frame.
    pub fn update(
        &mut self,
        dt_secs: f32,
        params: &Params,
        normalized_time: &dyn Fn(usize) -> f32,
        events: &[FiredEvent],
    ) -> StepReport {
        let mut report = StepReport::default();
        if let Some(t) = self.pick(params, normalized_time, events) {
            let tr = &self.transitions[t];
            let (to, duration, interruption) = (tr.to, tr.duration_secs, tr.interruption);
            report.started = Some(t);
            report.inertialize = tr.inertialize;
            let duration = if tr.inertialize.is_some() {
                0.0
            } else {
                duration
            };
            self.begin(to, duration, Some(t), interruption, &mut report);
        } else if let Some(fade) = &mut self.fade {
            let dt = if dt_secs.is_finite() && dt_secs > 0.0 {
                dt_secs
            } else {
                0.0
            };
            fade.elapsed_secs += f64::from(dt);
            // A relative epsilon so that e.g. 25 updates of 0.01 s complete a 0.25 s fade:
            // 0.01_f32 is a hair under 0.01, and without it the fade would need a 26th
            // update for its last ~1e-8 s. 1e-6 of a fade is far below one frame.
            if fade.elapsed_secs >= f64::from(fade.duration_secs) * (1.0 - 1e-6) {
                report.finished = Some(fade.to);
                self.fade = None;
            }
        }
        self.refresh_weights();
        report
    }

    /// Forces a cross-fade to `state` over `duration_secs` (negative or non-finite counts
    /// as 0 = instant switch) with `ease` (an invalid curve is used as is; its weights are
    /// still kept in 0..=1). Interrupts an active fade like a transition does (snapshot).
    /// The new fade cannot be interrupted by automatic transitions.
    ///
    /// `state` out of range: nothing happens. `state` already current: nothing happens,
    /// except that duration 0 completes a running fade into it at once.
    pub fn travel(&mut self, state: usize, duration_secs: f32, ease: Ease) -> StepReport {
        let mut report = StepReport::default();
        if state >= self.names.len() {
            return report;
        }
        let duration = if duration_secs.is_finite() && duration_secs > 0.0 {
            duration_secs
        } else {
            0.0
        };
        if state == self.current {
            if duration == 0.0 && self.fade.is_some() {
                self.fade = None;
                report.finished = Some(state);
                self.refresh_weights();
            }
            return report;
        }
        self.travel_ease = ease;
        self.begin(state, duration, None, Interruption::None, &mut report);
        self.refresh_weights();
        report
    }

    /// The active slots and their weights, summing to 1: the current state alone at 1
    /// with no fade; during a fade, the source slot (a state or the snapshot) at `1 - w`
    /// then the destination state at `w`. No allocation.
    pub fn weights(&self) -> &[(Slot, f32)] {
        &self.weights[..self.weight_count]
    }

    /// Whether any transition inertializes instead of cross-fading.
    pub fn has_inertialized_transitions(&self) -> bool {
        self.transitions.iter().any(|t| t.inertialize.is_some())
    }

    /// `(from, to, eased weight of to)` of the active fade, for the UI.
    pub fn transition_progress(&self) -> Option<(Slot, usize, f32)> {
        self.fade
            .as_ref()
            .map(|f| (f.from, f.to, self.fade_weight(f)))
    }

    /// Back to the initial state with no fade (a seek). The graph should reset the
    /// initial state's clocks.
    pub fn reset(&mut self) {
        self.current = self.initial;
        self.fade = None;
        self.refresh_weights();
    }

    fn fade_weight(&self, f: &Fade) -> f32 {
        let progress = if f.duration_secs > 0.0 {
            (f.elapsed_secs / f64::from(f.duration_secs)) as f32
        } else {
            1.0
        };
        let ease = match f.transition {
            Some(t) => &self.transitions[t].ease,
            None => &self.travel_ease,
        };
        ease.eval(progress)
    }

    fn refresh_weights(&mut self) {
        match &self.fade {
            None => {
                self.weights[0] = (Slot::State(self.current), 1.0);
                self.weight_count = 1;
            }
            Some(f) => {
                let w = self.fade_weight(f);
                self.weights = [(f.from, 1.0 - w), (Slot::State(f.to), w)];
                self.weight_count = 2;
            }
        }
    }

    /// Switches the current state to `to`, starting a fade (or switching at once for
    /// duration 0) from whatever plays now.
    fn begin(
        &mut self,
        to: usize,
        duration_secs: f32,
        transition: Option<usize>,
        interruption: Interruption,
        report: &mut StepReport,
    ) {
        let source_state = self.current;
        let interrupting = self.fade.is_some();
        self.current = to;
        report.entered = Some(to);
        if duration_secs.is_nan() || duration_secs <= 0.0 {
            self.fade = None;
            report.finished = Some(to);
            return;
        }
        let from = if interrupting {
            // The blended pose of two (or more, through an older snapshot) inputs cannot
            // be re-expressed as one state: freeze it.
            report.snapshot = true;
            Slot::Snapshot
        } else {
            Slot::State(source_state)
        };
        self.fade = Some(Fade {
            from,
            source_state,
            to,
            elapsed_secs: 0.0,
            duration_secs,
            interruption,
            transition,
        });
    }

    fn pick(
        &self,
        params: &Params,
        normalized_time: &dyn Fn(usize) -> f32,
        events: &[FiredEvent],
    ) -> Option<usize> {
        let first = |g: Group| self.first_in(g, params, normalized_time, events);
        let Some(fade) = &self.fade else {
            return first(Group::Current);
        };
        let src = Group::Source(fade.source_state);
        match fade.interruption {
            Interruption::None => None,
            Interruption::Source => first(src),
            Interruption::Destination => first(Group::Current),
            Interruption::SourceThenDestination => first(src).or_else(|| first(Group::Current)),
            Interruption::DestinationThenSource => first(Group::Current).or_else(|| first(src)),
        }
    }

    fn first_in(
        &self,
        group: Group,
        params: &Params,
        normalized_time: &dyn Fn(usize) -> f32,
        events: &[FiredEvent],
    ) -> Option<usize> {
        self.order.iter().copied().find(|&i| {
            let t = &self.transitions[i];
            let from_state = match (group, t.from) {
                (Group::Current, TransitionFrom::Any) => self.current,
                (Group::Current, TransitionFrom::State(s)) if s == self.current => s,
                (Group::Source(src), TransitionFrom::State(s)) if s == src => s,
                _ => return false,
            };
            if t.to == self.current {
                return false;
            }
            if let Some(exit) = t.exit_time {
                let n = normalized_time(from_state);
                // A NaN time never passes.
                if n.is_nan() || n < exit {
                    return false;
                }
            }
            t.checks
                .iter()
                .all(|c| self.check(c, from_state, params, events))
        })
    }

    fn check(&self, c: &Check, from_state: usize, params: &Params, events: &[FiredEvent]) -> bool {
        match c {
            Check::Greater { param, threshold } => {
                params.get_float(param).is_some_and(|v| v > *threshold)
            }
            Check::Less { param, threshold } => {
                params.get_float(param).is_some_and(|v| v < *threshold)
            }
            Check::IsTrue(param) => params.get_bool(param) == Some(true),
            Check::IsFalse(param) => params.get_bool(param) == Some(false),
            Check::Event(name) => {
                // Only the current state's clips may trigger; a transition from a
                // fading-out state therefore never fires on an event.
                from_state == self.current
                    && events
                        .iter()
                        .any(|e| e.source_state == self.current && e.name == name)
            }
        }
    }
}

fn compile_condition(c: &Condition, params: &Params) -> Result<Check, ParamError> {
    let typed = |param: &str, what: &'static str, float: bool| -> Result<(), ParamError> {
        match params.get(param) {
            None => Err(ParamError::Unknown(param.to_string())),
            Some(v @ ParamValue::Bool(_)) if float => Err(ParamError::WrongType {
                name: param.to_string(),
                is: v.type_name(),
                wanted: "float",
                needs: Some(what),
            }),
            Some(v @ ParamValue::Float(_)) if !float => Err(ParamError::WrongType {
                name: param.to_string(),
                is: v.type_name(),
                wanted: "bool",
                needs: Some(what),
            }),
            Some(_) => Ok(()),
        }
    };
    let float_param = |param: &str, what: &'static str| typed(param, what, true);
    let bool_param = |param: &str, what: &'static str| typed(param, what, false);
    let threshold = |param: &str, value: f32, band: f32| -> Result<(), ParamError> {
        if !value.is_finite() {
            return Err(ParamError::ThresholdNotFinite {
                name: param.to_string(),
                value,
            });
        }
        if !band.is_finite() || band < 0.0 {
            return Err(ParamError::BadBand {
                name: param.to_string(),
                band,
            });
        }
        Ok(())
    };
    Ok(match c {
        Condition::Greater { param, value, band } => {
            float_param(param, "Greater")?;
            threshold(param, *value, *band)?;
            Check::Greater {
                param: param.clone(),
                threshold: value + band * 0.5,
            }
        }
        Condition::Less { param, value, band } => {
            float_param(param, "Less")?;
            threshold(param, *value, *band)?;
            Check::Less {
                param: param.clone(),
                threshold: value - band * 0.5,
            }
        }
        Condition::IsTrue(param) => {
            bool_param(param, "IsTrue")?;
            Check::IsTrue(param.clone())
        }
        Condition::IsFalse(param) => {
            bool_param(param, "IsFalse")?;
            Check::IsFalse(param.clone())
        }
        Condition::Event(name) => {
            if name.is_empty() {
                return Err(ParamError::EventWithoutName);
            }
            Check::Event(name.clone())
        }
    })
}
