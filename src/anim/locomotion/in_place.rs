//! The one rule that decides whether a clip is "in place" (animated on a treadmill, its
//! travel implied by the feet) or carries root motion.
//!
//! Real in-place clips are not exactly in place: a Mixamo "in place" walk's hips miss the
//! loop by about a millimetre per cycle, mocap clips cut to a cycle drift a little, and a
//! fixed speed cut-off (1 mm/s) takes that seam mismatch for root motion. The rule here
//! compares the root's net travel per cycle with the character and with what its feet
//! imply, so it holds at any export scale:
//!
//! * no joint translates: in place;
//! * the clip is shorter than [`MIN_CYCLE_SECS`]: a pose (three.js's additive `*_pose`
//!   clips hold two keys one frame apart), in place: a few centimetres between its keys
//!   would otherwise read as metres per second;
//! * the root's heading changes by more than [`TURN_DEG_PER_CYCLE`] per cycle: root
//!   motion (a turn on the spot has to keep its turning). Whole turns do not count: a
//!   spin that ends facing where it began repeats the same way in place;
//! * the root travels less than [`LEG_FRACTION`] of a leg per cycle: in place (seam
//!   noise);
//! * the root travels less than [`IMPLIED_FRACTION`] of the travel its planted feet
//!   imply per cycle: in place;
//! * otherwise: root motion.
//!
//! The user's override ([`InPlaceOverride`]) wins over the rule and is reported as such.

/// Root travel per cycle under this share of the leg length is seam noise (2%: 1.8 cm on
/// a 0.9 m leg, while a walk cycle covers about 1.5 leg lengths).
pub const LEG_FRACTION: f64 = 0.02;

/// Root travel per cycle under this share of the travel the planted feet imply is not the
/// clip's motion (10%).
pub const IMPLIED_FRACTION: f64 = 0.10;

/// A root that turns more than this per cycle (degrees) is a turning clip, never in place.
/// Seam noise turns well under a degree.
pub const TURN_DEG_PER_CYCLE: f64 = 5.0;

/// A clip shorter than this (seconds) is a pose, never a cycle that carries motion (three
/// frames at 30 Hz; a sprint's step takes about 0.25 s).
pub const MIN_CYCLE_SECS: f64 = 0.1;

/// The user's choice for one clip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InPlaceOverride {
    /// Decided by the rule.
    #[default]
    Auto,
    /// Always in place (`--in-place`): the root's travel is ignored, the feet drive.
    InPlace,
    /// Always root motion (`--root-motion`).
    RootMotion,
}

impl InPlaceOverride {
    /// A short label for the UI and reports.
    pub fn as_str(&self) -> &'static str {
        match self {
            InPlaceOverride::Auto => "auto",
            InPlaceOverride::InPlace => "in place",
            InPlaceOverride::RootMotion => "root motion",
        }
    }
}

/// What the rule is given about one clip. Units: the skeleton's (metres for glTF).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InPlaceInputs {
    /// The clip's length, seconds.
    pub duration_secs: f64,
    /// Horizontal distance between the root's ground position at the start and at the end
    /// of one cycle (`None`: no joint translates).
    pub root_travel_per_cycle: Option<f64>,
    /// The root's turn over one cycle, radians (sign ignored).
    pub root_yaw_per_cycle_rad: f64,
    /// Rest-pose leg length (thigh to knee to ankle; 0 or `None` when the rig has no legs).
    pub leg_length: Option<f64>,
    /// Travel the planted feet imply over one cycle (implied speed times the duration),
    /// measured with the root motion removed; `None` without planted feet.
    pub implied_travel_per_cycle: Option<f64>,
}

/// The decision and why, in a sentence a user can read.
#[derive(Clone, Debug, PartialEq)]
pub struct InPlaceDecision {
    /// True: the clip plays in place (root travel ignored, the feet drive); false: it
    /// plays its root motion.
    pub in_place: bool,
    /// E.g. "root travels 0.0011 per cycle, 0.5% of a leg (under 2%): seam noise".
    pub reason: String,
    /// The user's override decided, not the rule.
    pub overridden: bool,
}

/// Applies the rule (see the module docs).
pub fn decide_in_place(inputs: &InPlaceInputs, choice: InPlaceOverride) -> InPlaceDecision {
    let travel = inputs.root_travel_per_cycle.filter(|t| t.is_finite());
    let turn_deg = inputs.root_yaw_per_cycle_rad.abs().to_degrees();
    // The heading change a loop repeats: whole turns removed, in [0, 180].
    let whole_turns = (turn_deg / 360.0).round();
    let yaw_deg = (turn_deg - 360.0 * whole_turns).abs();
    let leg = inputs.leg_length.filter(|l| *l > 0.0 && l.is_finite());
    let implied = inputs
        .implied_travel_per_cycle
        .filter(|t| *t > 0.0 && t.is_finite());
    let describe = |t: f64| {
        let mut s = format!("root travels {t:.4} per cycle");
        if let Some(l) = leg {
            s += &format!(", {:.1}% of a leg", 100.0 * t / l);
        }
        if let Some(i) = implied {
            s += &format!(", {:.0}% of what the feet imply", 100.0 * t / i);
        }
        s
    };
    match choice {
        InPlaceOverride::InPlace => {
            return InPlaceDecision {
                in_place: true,
                reason: "set in place by the user".into(),
                overridden: true,
            }
        }
        InPlaceOverride::RootMotion => {
            return InPlaceDecision {
                in_place: false,
                reason: "set to root motion by the user".into(),
                overridden: true,
            }
        }
        InPlaceOverride::Auto => {}
    }
    let spins = whole_turns >= 1.0;
    let decided = |in_place: bool, reason: String| InPlaceDecision {
        in_place,
        reason: if spins && in_place {
            format!(
                "{reason}; it turns {turn_deg:.0} degrees and ends facing where it began: a full turn on the spot"
            )
        } else {
            reason
        },
        overridden: false,
    };
    let Some(t) = travel else {
        return decided(true, "no joint translates: no root motion".into());
    };
    if inputs.duration_secs < MIN_CYCLE_SECS {
        return decided(
            true,
            format!(
                "{} over {:.3} s (under {MIN_CYCLE_SECS} s): a pose, not a cycle",
                describe(t),
                inputs.duration_secs
            ),
        );
    }
    if yaw_deg > TURN_DEG_PER_CYCLE {
        return decided(
            false,
            format!(
                "{}, and turns {yaw_deg:.1} degrees per cycle (over {TURN_DEG_PER_CYCLE}): a turning clip",
                describe(t)
            ),
        );
    }
    if let Some(l) = leg {
        if t < LEG_FRACTION * l {
            return decided(
                true,
                format!(
                    "{} (under {:.0}% of a leg): loop-seam noise, not root motion",
                    describe(t),
                    100.0 * LEG_FRACTION
                ),
            );
        }
    }
    if let Some(i) = implied {
        if t < IMPLIED_FRACTION * i {
            return decided(
                true,
                format!(
                    "{} (under {:.0}% of the feet's travel): the feet, not the root, carry the motion",
                    describe(t),
                    100.0 * IMPLIED_FRACTION
                ),
            );
        }
    }
    if leg.is_none() && implied.is_none() && t == 0.0 {
        return decided(true, "the root returns exactly to its start".into());
    }
    decided(false, format!("{}: root motion", describe(t)))
}
