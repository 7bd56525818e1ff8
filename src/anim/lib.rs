//! The animation core: pure CPU code that depends on glam and std only.
//!
//! Data flow for one frame, each step a job that reads slices and writes caller-owned
//! slices (like ozz-animation's jobs):
//!
//! ```text
//! PlaybackClock ──► SamplingJob (clip -> local pose) ──► [blend / additive, later]
//!     │                                                     │
//!     └─► RootMotion::delta (wrap-safe, f64)                 ▼
//!                                   remove_root_motion ─► LocalToModelJob ─► skinning palette
//! ```
//!
//! Nothing in here may import wgpu, winit or egui; `tests/architecture.rs` guards that.

// Every public item says what it is, with its units, spaces and ranges.
#![warn(missing_docs)]

pub mod analysis;
pub mod blend;
pub mod clip;
pub mod clock;
pub mod compare;
pub mod contacts;
pub mod curves;
pub mod error;
pub mod ik;
pub mod inertialize;
pub mod local_to_model;
pub mod locomotion;
pub mod model_pose;
pub mod morph;
pub mod motion_matching;
pub mod phase;
pub mod reduce;
pub mod retarget;
pub mod root_motion;
pub mod seam;
pub mod skeleton;
pub mod skinning;
pub mod soa;
pub mod state_machine;
pub mod sync;
pub mod transform;

pub use clip::{
    Clip, ClipEmptiness, Interpolation, JointTracks, MorphTrack, SamplingCache, SamplingJob,
    SoaSamplingJob, SyncMarker, Track, TrackSampler,
};
pub use clock::{Interval, PlaybackClock, Player};
pub use error::{AnimError, ErrorChain};
pub use local_to_model::{LocalToModelJob, SoaLocalToModelJob};
pub use root_motion::{
    ClipRootMotion, ClipTime, GroundTransform, RootMotion, RootMotionSource, RootMotionTrack,
    MAX_ABS_CYCLE,
};
pub use skeleton::{Skeleton, Skin};
pub use skinning::{
    skinning_palette, skinning_palette_affine, PreparedSkin, PreparedSkinningJob, SkinningJob,
    MAX_INFLUENCES,
};
pub use transform::Transform;
