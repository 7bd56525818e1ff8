//! The playback clock and the player that turns clock movement into root motion
//! (SPEC section 3).
//!
//! The clock is the "consumed up to" cursor: [`PlaybackClock::advance`] moves it and
//! reports the interval that was played, so the caller emits root motion for exactly
//! that interval; [`PlaybackClock::seek`] moves it without reporting anything, which is
//! what dragging the playhead, switching clips or restarting must do.

use super::root_motion::{check_duration, cycle_range_error, MAX_ABS_CYCLE};
use super::{AnimError, ClipTime, GroundTransform, RootMotion};

/// The span of clip time one `advance` played, in playback order (`to` is before `from`
/// when playing in reverse).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Clock time before the advance.
    pub from: ClipTime,
    /// Clock time after the advance (the new consumed-up-to time).
    pub to: ClipTime,
}

/// An unwrapped playback clock: whole cycles plus a bounded phase, so hours of looping
/// keep full phase precision and any number of wraps per step is counted.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaybackClock {
    duration_secs: f64,
    time: ClipTime,
    rate: f64,
    looping: bool,
}

impl PlaybackClock {
    /// A clock at time 0, rate 1, looping. `duration_secs` must be finite and >= 0; a
    /// zero-length clip (a single pose) never moves.
    pub fn new(duration_secs: f64) -> Result<Self, AnimError> {
        if !(duration_secs.is_finite() && duration_secs >= 0.0) {
            return Err(AnimError::OutOfRange {
                what: "clip duration".into(),
                detail: format!("{duration_secs} s must be finite and >= 0"),
            });
        }
        Ok(Self {
            duration_secs,
            time: ClipTime::ZERO,
            rate: 1.0,
            looping: true,
        })
    }

    /// Length of one cycle of the clip, seconds (>= 0).
    pub fn duration_secs(&self) -> f64 {
        self.duration_secs
    }

    /// The current (consumed-up-to) time.
    pub fn time(&self) -> ClipTime {
        self.time
    }

    /// Play rate: 1 = real time, negative = reverse, 0 = frozen.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Sets the play rate (1 = real time, negative = reverse, 0 = frozen); a non-finite
    /// rate is refused and the old one kept.
    pub fn set_rate(&mut self, rate: f64) -> Result<(), AnimError> {
        if !rate.is_finite() {
            return Err(AnimError::NonFinite {
                what: "play rate".into(),
            });
        }
        self.rate = rate;
        Ok(())
    }

    /// Whether the clock wraps at the clip's ends (otherwise it clamps to them).
    pub fn looping(&self) -> bool {
        self.looping
    }

    /// Turning looping off keeps the current phase (within the current cycle).
    pub fn set_looping(&mut self, looping: bool) {
        self.looping = looping;
    }

    /// Plays `dt_secs` of wall time at the play rate and returns the clip interval played.
    /// Looping clocks wrap any number of times; non-looping clocks clamp to
    /// `[0, duration]` of the current cycle and never wrap.
    pub fn advance(&mut self, dt_secs: f64) -> Result<Interval, AnimError> {
        if !dt_secs.is_finite() {
            return Err(AnimError::NonFinite {
                what: "frame time".into(),
            });
        }
        let from = self.time;
        let step = dt_secs * self.rate;
        let t = self.duration_secs;
        if t == 0.0 {
            return Ok(Interval { from, to: from });
        }
        if !step.is_finite() {
            return Err(AnimError::NonFinite {
                what: "frame time times play rate".into(),
            });
        }
        let to = if self.looping {
            let total = from.phase_secs + step;
            if total > 0.0 && total < t && from.cycle.unsigned_abs() <= MAX_ABS_CYCLE as u64 {
                // Within the cycle (nearly every frame): what the general case gives
                // (`total / t` is below 1 for `total < t`, so the carry is 0), without a
                // division and a libm `floor` call. A zero phase (which the general case
                // turns from -0 into +0) and a cycle past the limit (an error there) take
                // the general case.
                ClipTime {
                    cycle: from.cycle,
                    phase_secs: total,
                }
            } else {
                let carry = (total / t).floor();
                let cycle = from.cycle as f64 + carry;
                if cycle.abs() > MAX_ABS_CYCLE as f64 {
                    return Err(cycle_range_error(from.to_secs(t) + step));
                }
                ClipTime::normalized(cycle as i64, total - carry * t, t)
            }
        } else {
            ClipTime {
                cycle: from.cycle,
                phase_secs: (from.phase_secs + step).clamp(0.0, t),
            }
        };
        self.time = to;
        Ok(Interval { from, to })
    }

    /// Jumps to unwrapped time `t_secs` without playing (no root motion). Non-looping
    /// clocks clamp the time to `[0, duration]` of cycle 0.
    pub fn seek_secs(&mut self, t_secs: f64) -> Result<(), AnimError> {
        if self.duration_secs == 0.0 || !self.looping {
            if !t_secs.is_finite() {
                return Err(AnimError::NonFinite {
                    what: "seek time".into(),
                });
            }
            self.time = ClipTime {
                cycle: 0,
                phase_secs: t_secs.clamp(0.0, self.duration_secs),
            };
            return Ok(());
        }
        self.time = ClipTime::from_secs(t_secs, self.duration_secs)?;
        Ok(())
    }

    /// Jumps to a cycle and phase without playing (no root motion).
    pub fn seek(&mut self, time: ClipTime) -> Result<(), AnimError> {
        if !time.phase_secs.is_finite() {
            return Err(AnimError::NonFinite {
                what: "seek phase".into(),
            });
        }
        if time.cycle.abs() > MAX_ABS_CYCLE {
            return Err(cycle_range_error(time.to_secs(self.duration_secs)));
        }
        if self.duration_secs > 0.0 {
            check_duration(self.duration_secs)?;
        }
        let phase = time.phase_secs.clamp(0.0, self.duration_secs);
        self.time = if self.looping && self.duration_secs > 0.0 {
            ClipTime::normalized(time.cycle, phase, self.duration_secs)
        } else {
            ClipTime {
                cycle: time.cycle,
                phase_secs: phase,
            }
        };
        Ok(())
    }
}

/// A clock plus the clip's root motion and the accumulated world placement of the root.
///
/// `advance` integrates root motion into `world_from_root`; `seek` only resets the clock
/// (the character stays where it is).
#[derive(Clone, Debug)]
pub struct Player {
    /// The playback clock; moving it directly plays no root motion.
    pub clock: PlaybackClock,
    root_motion: Option<RootMotion>,
    world_from_root: GroundTransform,
}

impl Player {
    /// A player for `clock`, with the root placed at the world origin (identity);
    /// `root_motion` is `None` for a clip without root motion.
    pub fn new(clock: PlaybackClock, root_motion: Option<RootMotion>) -> Self {
        Self {
            clock,
            root_motion,
            world_from_root: GroundTransform::IDENTITY,
        }
    }

    /// The clip's root motion, if it has any.
    pub fn root_motion(&self) -> Option<&RootMotion> {
        self.root_motion.as_ref()
    }

    /// Where the root-motion track origin is in the world (ground plane).
    pub fn world_from_root(&self) -> GroundTransform {
        self.world_from_root
    }

    /// Places the character without playing (teleport); the clock is unchanged.
    pub fn set_world_from_root(&mut self, world_from_root: GroundTransform) {
        self.world_from_root = world_from_root;
    }

    /// Plays `dt_secs` and returns the root-motion delta of the played interval (in the
    /// root's frame at the interval start); identity when the clip has no root motion.
    pub fn advance(&mut self, dt_secs: f64) -> Result<GroundTransform, AnimError> {
        let interval = self.clock.advance(dt_secs)?;
        let delta = match &self.root_motion {
            Some(rm) => rm.delta(interval.from, interval.to),
            None => GroundTransform::IDENTITY,
        };
        self.world_from_root = self.world_from_root.compose(&delta);
        Ok(delta)
    }

    /// Moves the playhead without root motion.
    pub fn seek_secs(&mut self, t_secs: f64) -> Result<(), AnimError> {
        self.clock.seek_secs(t_secs)
    }
}
