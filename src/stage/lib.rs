//! The stage: what is on screen and how it moves. A character is a model, a placement on
//! the ground and one motion source; this layer turns sources (a clip's timeline, a pose
//! graph session, locomotion drive, motion matching, a retargeted model) into poses.
//! Built on [`crate::anim`], [`crate::asset`] and [`crate::graph`]; the window
//! (`stridescope-app`) and every CLI command (`stridescope-cli`) drive it.

// Every public item says what it is, with its units, spaces and ranges.
#![warn(missing_docs)]

// The layers below, under their layer names: `crate::anim::Clip` reads the same here as in
// the `stridescope` facade, and the manifest is what allows each one.
use stridescope_anim as anim;
use stridescope_asset as asset;
use stridescope_graph as graph;

pub mod character;
mod error;
pub mod inspect;
pub mod library;
pub mod library_cache;
pub mod locomotion;
pub mod matching;
pub mod morph_overrides;
pub mod on_screen;
pub mod pose;
pub mod retarget;
pub mod ron_file;
pub mod scenario;
pub mod session;
pub mod source;
pub mod timeline;

pub use error::StageError;
pub use on_screen::Stage;
