//! Locomotion: fit a clip (or the pose graph's blend) to a movement speed and direction.
//!
//! Per frame, after the pose graph (SPEC 5):
//!
//! ```text
//! movement speed ─► speed_match (play rate, clamped) ─► graph advances at that rate
//! graph pose (FK, model space) + root delta ─► orientation_warp (body yaw, spine back)
//!     ─► StrideWarpJob (stride direction and scale, warped feet, pelvis drop, clamp)
//!     ─► LegIkJob (pelvis offset, thigh compensation, two-bone IK, foot orientation)
//! world feet + contacts ─► FootSlideMeter
//! ```
//!
//! In-place clips get their speed from [`implied::implied_speed`]. Every metre threshold
//! is for a human rig and is multiplied by [`unit_scale`].

pub mod implied;
pub mod in_place;
pub mod orientation;
pub mod slide;
pub mod speed_match;
pub mod stride_warp;

pub use implied::{implied_speed, ImpliedSpeed};
pub use in_place::{decide_in_place, InPlaceDecision, InPlaceInputs, InPlaceOverride};
pub use orientation::{
    counter_rotate_spine, orientation_warp, spine_chain, OrientationWarp, OrientationWarpSettings,
    OrientationWarpState,
};
pub use slide::{FootSlideMeter, SlideSettings};
pub use speed_match::{clip_root_speed, speed_match, SpeedMatch, SpeedMatchSettings};
pub use stride_warp::{
    pelvis_of, FootWarp, LegIkJob, SpeedSource, StrideMode, StrideWarpJob, StrideWarpOutput,
    StrideWarpSettings, StrideWarpState, REFERENCE_LEG_LENGTH_M,
};

use super::contacts::{leg_length, LegChain};
use super::Skeleton;

/// `mean leg length / REFERENCE_LEG_LENGTH_M`: 1 for a human-sized rig in metres, 0.2
/// for a 0.2-scaled one. Multiplies every metre threshold. 1 without legs.
pub fn unit_scale(skeleton: &Skeleton, legs: &[LegChain]) -> f32 {
    let lengths: Vec<f32> = legs
        .iter()
        .map(|l| leg_length(skeleton, l))
        .filter(|l| *l > 0.0 && l.is_finite())
        .collect();
    if lengths.is_empty() {
        return 1.0;
    }
    lengths.iter().sum::<f32>() / lengths.len() as f32 / REFERENCE_LEG_LENGTH_M
}
