//! Speed matching: the play rate that makes a clip cover the movement speed.
//!
//! `anim_speed = |horizontal root motion over the whole clip| / clip length` (SPEC 5);
//! `play_rate = movement_speed / anim_speed`, clamped to `[min_rate, max_rate]`. What the
//! clamp leaves uncovered is stride warping's share (`stride_scale = movement_speed /
//! (play_rate * anim_speed)`).

use crate::{AnimError, RootMotion};

/// Clamp of the play rate. A clamp of `(0, 0)`, or `min_rate >= max_rate`, means no clamp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeedMatchSettings {
    /// Slowest play rate (default 0.75): slower looks like slow motion.
    pub min_rate: f64,
    /// Fastest play rate (default 1.25): faster looks like fast-forward.
    pub max_rate: f64,
}

impl Default for SpeedMatchSettings {
    fn default() -> Self {
        Self {
            min_rate: 0.75,
            max_rate: 1.25,
        }
    }
}

impl SpeedMatchSettings {
    /// Whether the clamp is on (`min_rate < max_rate` and not `(0, 0)`).
    pub fn clamps(&self) -> bool {
        self.min_rate < self.max_rate && !(self.min_rate == 0.0 && self.max_rate == 0.0)
    }
}

/// Result of [`speed_match`].
#[derive(Clone, Debug, PartialEq)]
pub struct SpeedMatch {
    /// Play rate to use (the current rate when the clip has no speed).
    pub play_rate: f64,
    /// `movement_speed / anim_speed` before the clamp (`None` without a clip speed).
    pub unclamped_rate: Option<f64>,
    /// The clamp changed the rate.
    pub clamped: bool,
    /// Why the rate was left alone.
    pub warning: Option<String>,
}

/// Horizontal root-motion speed over one whole cycle (units per second): the straight
/// distance from the first to the last frame over the clip length. 0 for a zero-length
/// clip.
pub fn clip_root_speed(motion: &RootMotion) -> f64 {
    let d = motion.duration_secs();
    if !(d > 0.0 && d.is_finite()) {
        return 0.0;
    }
    motion.cycle_displacement().translation.length() / d
}

/// Speed below which a clip counts as having no root motion: 1 mm/s.
pub const MIN_ANIM_SPEED: f64 = 1e-3;

/// The play rate for `movement_speed` (units/s, >= 0) on a clip whose own speed is
/// `anim_speed` (units/s, e.g. [`clip_root_speed`] or an implied speed). `current_rate`
/// is kept, with a warning, when `anim_speed` is (nearly) zero.
pub fn speed_match(
    movement_speed: f64,
    anim_speed: f64,
    current_rate: f64,
    settings: &SpeedMatchSettings,
) -> Result<SpeedMatch, AnimError> {
    for (what, v) in [
        ("movement speed", movement_speed),
        ("clip speed", anim_speed),
        ("current play rate", current_rate),
        ("minimum play rate", settings.min_rate),
        ("maximum play rate", settings.max_rate),
    ] {
        if !v.is_finite() {
            return Err(AnimError::NonFinite {
                what: format!("speed matching: {what}"),
            });
        }
    }
    if movement_speed < 0.0 {
        return Err(AnimError::OutOfRange {
            what: "speed matching: movement speed".into(),
            detail: format!("{movement_speed} is negative; give a direction instead"),
        });
    }
    if anim_speed.abs() < MIN_ANIM_SPEED {
        return Ok(SpeedMatch {
            play_rate: current_rate,
            unclamped_rate: None,
            clamped: false,
            warning: Some(format!(
                "the clip has no root motion ({anim_speed:.4} units/s over its length): play rate left at {current_rate}"
            )),
        });
    }
    let raw = movement_speed / anim_speed.abs();
    let rate = if settings.clamps() {
        raw.clamp(settings.min_rate, settings.max_rate)
    } else {
        raw
    };
    Ok(SpeedMatch {
        play_rate: rate,
        unclamped_rate: Some(raw),
        clamped: rate != raw,
        warning: None,
    })
}
