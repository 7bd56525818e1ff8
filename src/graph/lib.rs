//! The pose graph: what the window, `trace`, `render`, the benches and the tests evaluate
//! every frame. Definitions ([`def`]) load from RON; the runtime ([`eval::PoseGraph`])
//! owns one [`player::ClipPlayer`] per clip input (its clock, root-motion cursor and
//! sampling cache) and produces a local pose plus the blended root-motion delta, which the
//! stages after it (local-to-model, later stride warping and IK) consume.

// Every public item says what it is, with its units, spaces and ranges.
#![warn(missing_docs)]

// The layers below, under their layer names: `crate::anim::Clip` reads the same here as in
// the `stridescope` facade, and the manifest is what allows each one.
use stridescope_anim as anim;
use stridescope_asset as asset;

pub mod def;
mod error;
pub mod eval;
mod inertial;
pub mod player;

pub use def::{GraphDef, NodeDef, SyncMode};
pub use error::GraphError;
pub use eval::{InputStatus, PoseGraph};
pub use player::ClipPlayer;
