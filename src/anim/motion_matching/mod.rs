//! Motion matching: a database of clip frames described by pose and trajectory features,
//! a search for the frame that best continues the current pose towards a desired
//! trajectory, and the runtime that jumps there with inertialization.
//!
//! ```text
//! clips ──► Database::build (features per frame, normalised per group, weighted)
//!                 │
//! controller ─► Query (current pose features + desired trajectory, root space)
//!                 │
//!                 ▼
//!           search (brute force, or bounding boxes over frame groups: same result)
//!                 │  continuity: current-clip bias, minimum dwell, exclusion window
//!                 ▼
//!           Matcher: jump + Inertializer, root motion moves the character
//! ```
//!
//! Spaces: features are in the character's *facing frame*: the ground frame of the root
//! at the frame's time with the gait's sway averaged out and turned to where the body
//! faces (origin on the ground under the character, +Z its facing, Y up; see
//! [`facing_offset`]), metres and seconds. The matcher plays poses in the same frame and
//! places it in the world (`MatcherState::world_from_root`), so a jump between takes
//! that walked different ways keeps the character where and how it stands. After the
//! search: adjustment towards the simulation, a play rate matched to the asked speed,
//! and foot locking ([`FootLocker`]). Pure CPU: glam, std and rayon (the parallel build).

mod bytes;
mod controller;
mod database;
mod foot_lock;
mod matcher;
mod search;

pub use controller::{SpringCharacter, SpringSettings, TrajectoryPoint};
pub use database::{
    facing_offset, ClipSource, Database, DatabaseSettings, DbClip, FeatureGroup, FeatureJoints,
    FrameInfo, TagRange, FEATURE_GROUPS,
};
pub use foot_lock::{FootLockSettings, FootLocker};
pub use matcher::{
    MatchCandidate, MatchDropped, MatchFrame, Matcher, MatcherInput, MatcherSettings, MatcherState,
};
pub use search::{
    dropped_candidates, frame_cost, group_costs, search_accelerated, search_accelerated_counted,
    search_brute_force, search_reference, Candidate, DropReason, Playing, SearchParams,
};
