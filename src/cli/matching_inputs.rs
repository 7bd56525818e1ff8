//! The keyboard a motion-matching scenario plays: its `Move` / `Stand` / `Tags` events
//! turned into the matcher's input at each frame (`trace --motion-matching`).

use glam::Vec2;

use crate::anim::motion_matching::MatcherInput;
use crate::stage::scenario::{Action, ScenarioEvent};
use crate::CliError;

/// Turns scenario events into per-frame matcher inputs.
pub struct ScenarioInputs {
    events: Vec<ScenarioEvent>,
    next: usize,
    velocity: Vec2,
    yaw: f32,
    require: u32,
    exclude: u32,
}

impl ScenarioInputs {
    /// Validates the events (finite times and numbers, known tags) and sorts them.
    pub fn new(mut events: Vec<ScenarioEvent>, tags: &[String]) -> Result<Self, CliError> {
        for (i, e) in events.iter().enumerate() {
            let at = e.at_secs;
            if !at.is_finite() {
                return Err(format!("scenario: event {i}: at_secs must be finite").into());
            }
            match &e.action {
                Action::Move {
                    speed_mps,
                    heading_deg,
                    facing_deg,
                } => {
                    let valid = speed_mps.is_finite()
                        && (0.0..=10_000.0).contains(speed_mps)
                        && heading_deg.is_finite()
                        && facing_deg.is_none_or(|f| f.is_finite());
                    if !valid {
                        return Err(format!(
                            "scenario: event {i} (at {at} s): Move needs a speed in [0, 10000] m/s (glTF units per second) and finite angles"
                        ).into());
                    }
                }
                Action::Tags { require, exclude } => {
                    for t in require.iter().chain(exclude) {
                        if !tags.contains(t) {
                            return Err(format!(
                                "scenario: event {i} (at {at} s): unknown tag '{t}' (the set has: {})",
                                tags.join(", ")
                            ).into());
                        }
                    }
                }
                Action::Stand => {}
                other => {
                    return Err(format!(
                        "scenario: event {i} (at {at} s): {other:?} is a pose-graph action; a motion-matching scenario takes Move, Stand and Tags"
                    ).into())
                }
            }
        }
        events.sort_by(|a, b| a.at_secs.total_cmp(&b.at_secs));
        Ok(Self {
            events,
            next: 0,
            velocity: Vec2::ZERO,
            yaw: 0.0,
            require: 0,
            exclude: 0,
        })
    }

    /// The input of the frame starting at `t` seconds (events at or before it applied).
    pub fn at(&mut self, t: f64, tags: &[String]) -> MatcherInput {
        let mask = |names: &[String]| {
            names
                .iter()
                .filter_map(|n| tags.iter().position(|t| t == n))
                .fold(0u32, |m, i| m | (1 << i))
        };
        while let Some(e) = self.events.get(self.next) {
            if e.at_secs > t + 1e-9 {
                break;
            }
            match &e.action {
                Action::Move {
                    speed_mps,
                    heading_deg,
                    facing_deg,
                } => {
                    let h = heading_deg.to_radians();
                    self.velocity = Vec2::new(h.sin(), h.cos()) * *speed_mps;
                    self.yaw = facing_deg.unwrap_or(*heading_deg).to_radians();
                }
                Action::Stand => self.velocity = Vec2::ZERO,
                Action::Tags { require, exclude } => {
                    self.require = mask(require);
                    self.exclude = mask(exclude);
                }
                _ => {}
            }
            self.next += 1;
        }
        MatcherInput {
            desired_velocity: self.velocity,
            desired_yaw: self.yaw,
            require_tags: self.require,
            exclude_tags: self.exclude,
        }
    }
}
