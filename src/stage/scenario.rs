//! Drives a [`crate::graph::PoseGraph`] through a [`Scenario`]: fixed-step frames, parameter changes,
//! ramps, seeks, state travels and rate changes at given times. Deterministic: the same
//! scenario gives the same frames. Shared by `trace --scenario` and `render --scenario`.

use crate::anim::GroundTransform;
use crate::asset::Model;

use serde::{Deserialize, Serialize};

use super::session::GraphSession;
use super::StageError;
use crate::graph::def::GraphDef;

/// A headless run: a graph (or the file's default), parameter changes over time and seeks
/// (`stridescope trace --scenario FILE`, `stridescope render --scenario FILE --time T`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Scenario {
    /// `None` = the file's default graph ([`default_graph`](crate::graph::def::default_graph)).
    #[serde(default)]
    pub graph: Option<GraphDef>,
    /// Simulated frames per second.
    #[serde(default = "sixty")]
    pub fps: f64,
    /// Seconds to run.
    pub seconds: f64,
    /// Actions at given times, applied before the frame that starts at or after `at_secs`.
    #[serde(default)]
    pub events: Vec<ScenarioEvent>,
    /// Settings for `trace --motion-matching` (`None` = the defaults).
    #[serde(default)]
    pub motion_matching: Option<crate::matching::MatchingDef>,
}

fn sixty() -> f64 {
    60.0
}

/// One of a scenario's events: an action and when it happens.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct ScenarioEvent {
    /// Scenario seconds it is due at: applied before the first frame that starts at or
    /// after it (at or before 0 = on the start frame).
    pub at_secs: f64,
    /// What it does.
    pub action: Action,
}

/// What a scenario can do.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub enum Action {
    /// Sets a float parameter.
    Set(String, f32),
    /// Sets a bool parameter.
    SetBool(String, bool),
    /// Moves a float parameter linearly to `to` over `secs` seconds.
    Ramp {
        /// Name of the float parameter.
        param: String,
        /// The value it ends at.
        to: f32,
        /// Seconds the ramp takes (0 or less = at once).
        secs: f64,
    },
    /// Seeks the base leader to this clip time in seconds (no root motion).
    Seek(f64),
    /// Forces a cross-fade of the state machine to a state.
    Travel {
        /// Name of the state to travel to.
        state: String,
        /// Cross-fade length, seconds; `None` = 0.25 s.
        #[serde(default)]
        duration_secs: Option<f32>,
    },
    /// Global play rate (negative = reverse).
    Rate(f64),
    /// Motion matching: move at `speed_mps` towards `heading_deg` (degrees from +Z
    /// towards +X, i.e. counter-clockwise seen from above; 90 = the starting character's
    /// left), facing `facing_deg` (default: the heading; give it to strafe).
    Move {
        /// Ground speed, m/s.
        speed_mps: f32,
        /// Direction of travel, degrees from +Z towards +X.
        heading_deg: f32,
        /// Direction to face, degrees from +Z towards +X; `None` = `heading_deg`.
        #[serde(default)]
        facing_deg: Option<f32>,
    },
    /// Motion matching: stand still, keeping the facing.
    Stand,
    /// Motion matching: jump targets must have every `require` tag and no `exclude` tag.
    Tags {
        /// Tags every jump target must carry (names from the database's tags).
        #[serde(default)]
        require: Vec<String>,
        /// Tags no jump target may carry.
        #[serde(default)]
        exclude: Vec<String>,
    },
}

impl Action {
    /// Whether the action drives motion matching (and nothing else).
    pub fn is_motion_matching(&self) -> bool {
        matches!(
            self,
            Action::Move { .. } | Action::Stand | Action::Tags { .. }
        )
    }
}

/// What happened in a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// Frame 0: the events due at or before 0 s applied and the pose evaluated, no time
    /// played.
    Start,
    /// One step of `dt_secs` played.
    Play,
    /// An event sought the base leader to a clip time.
    Seek,
}

impl FrameKind {
    /// The kind's lowercase name (`start`, `play`, `seek`), as traces print it.
    pub fn as_str(self) -> &'static str {
        match self {
            FrameKind::Start => "start",
            FrameKind::Play => "play",
            FrameKind::Seek => "seek",
        }
    }
}

struct Ramp {
    param: String,
    from: f32,
    to: f32,
    start_secs: f64,
    secs: f64,
}

/// A running scenario.
pub struct ScenarioRun {
    scenario: Scenario,
    next_event: usize,
    ramps: Vec<Ramp>,
    frame: u64,
    /// Accumulated root placement (world from root, ground plane).
    pub world_from_root: GroundTransform,
}

impl ScenarioRun {
    /// Validates the scenario (finite, sorted event times; positive fps).
    pub fn new(mut scenario: Scenario) -> Result<Self, StageError> {
        if !(scenario.fps.is_finite() && scenario.fps > 0.0) {
            return Err(StageError::ScenarioFps { fps: scenario.fps });
        }
        if !(scenario.seconds.is_finite() && scenario.seconds >= 0.0) {
            return Err(StageError::ScenarioSeconds {
                seconds: scenario.seconds,
            });
        }
        if scenario.seconds * scenario.fps > 10_000_000.0 {
            return Err(StageError::ScenarioTooLong);
        }
        for (i, e) in scenario.events.iter().enumerate() {
            if !e.at_secs.is_finite() {
                return Err(StageError::ScenarioEventTime { event: i });
            }
        }
        // Stable: events at the same time keep their file order.
        scenario
            .events
            .sort_by(|a, b| a.at_secs.total_cmp(&b.at_secs));
        Ok(Self {
            scenario,
            next_event: 0,
            ramps: Vec::new(),
            frame: 0,
            world_from_root: GroundTransform::IDENTITY,
        })
    }

    /// The scenario being run, its events sorted by time.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Seconds per frame (1 / fps).
    pub fn dt_secs(&self) -> f64 {
        1.0 / self.scenario.fps
    }

    /// Frames after the start frame.
    pub fn frame_count(&self) -> u64 {
        (self.scenario.seconds * self.scenario.fps).round() as u64
    }

    /// The frame index that `step` will produce next.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Wall seconds of frame `frame`.
    pub fn time_of(&self, frame: u64) -> f64 {
        frame as f64 / self.scenario.fps
    }

    /// Produces the next frame of `session` (the window's graph source; with locomotion
    /// when it has it): frame 0 applies the events at time <= 0 and evaluates; later
    /// frames apply due events and ramps, then seek (when an event seeks) or play one
    /// step (`GraphSession::tick`: the locomotion stage's speed matching before the
    /// advance and warping after it, the root motion into the session's placement). The
    /// run's placement is the session's.
    pub fn step(
        &mut self,
        model: &Model,
        session: &mut GraphSession,
    ) -> Result<FrameKind, StageError> {
        let frame = self.frame;
        let t = self.time_of(frame);
        let mut seek = None;
        let graph = &mut session.graph;
        while let Some(e) = self.scenario.events.get(self.next_event) {
            // Events are due at the first frame that starts at or after their time.
            if e.at_secs > t + 1e-9 {
                break;
            }
            let at = e.at_secs;
            match e.action.clone() {
                Action::Set(p, v) => graph
                    .params_mut()
                    .set_float(&p, v)
                    .map_err(|e| StageError::from(e).at_scenario_time(at))?,
                Action::SetBool(p, v) => graph
                    .params_mut()
                    .set_bool(&p, v)
                    .map_err(|e| StageError::from(e).at_scenario_time(at))?,
                Action::Ramp { param, to, secs } => {
                    let from = graph.params().get_float(&param).ok_or_else(|| {
                        StageError::UnknownFloatParameter {
                            param: param.clone(),
                        }
                        .at_scenario_time(at)
                    })?;
                    self.ramps.retain(|r| r.param != param);
                    self.ramps.push(Ramp {
                        param,
                        from,
                        to,
                        start_secs: at,
                        secs: secs.max(0.0),
                    });
                }
                Action::Seek(s) => seek = Some(s),
                Action::Travel {
                    state,
                    duration_secs,
                } => graph
                    .travel(model, &state, duration_secs.unwrap_or(0.25))
                    .map_err(|e| StageError::from(e).at_scenario_time(at))?,
                Action::Rate(r) => graph
                    .set_rate(r)
                    .map_err(|e| StageError::from(e).at_scenario_time(at))?,
                a @ (Action::Move { .. } | Action::Stand | Action::Tags { .. }) => {
                    return Err(StageError::MatchingAction {
                        at_secs: at,
                        action: format!("{a:?}"),
                    })
                }
            }
            self.next_event += 1;
        }
        for r in &self.ramps {
            let k = if r.secs > 0.0 {
                ((t - r.start_secs) / r.secs).clamp(0.0, 1.0)
            } else {
                1.0
            };
            let v = r.from + (r.to - r.from) * k as f32;
            graph
                .params_mut()
                .set_float(&r.param, v)
                .map_err(StageError::ScenarioRamp)?;
        }
        self.ramps.retain(|r| t < r.start_secs + r.secs);
        self.frame += 1;
        let kind = if let Some(s) = seek {
            session.seek(model, s);
            FrameKind::Seek
        } else if frame == 0 {
            session.evaluate_still(model);
            FrameKind::Start
        } else {
            session.playing = true;
            session.tick(model, self.dt_secs());
            FrameKind::Play
        };
        if let Some(e) = session.take_error() {
            return Err(StageError::Frame { frame, message: e });
        }
        self.world_from_root = session.world_from_root();
        Ok(kind)
    }
}
