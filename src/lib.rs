//! stridescope: a glTF/FBX/BVH animation previewer with wrap-safe root motion.
//!
//! The top-level modules are layers, bottom to top, each its own crate under `src/<layer>`
//! (`stridescope-anim`, ...). A layer's manifest names the only layers it may use, the ones
//! above it in this list, so a wrong import does not build; this crate re-exports them so
//! tests, benches and the binary write `stridescope::anim::Clip`:
//! - [`anim`]: the pure-CPU animation core (sampling, blending, root motion, contacts,
//!   IK, stride warping, retargeting, motion matching): glam and std only.
//! - [`asset`]: one importer per format (glTF, FBX, BVH, the built-in demo), all
//!   producing the same [`asset::Model`].
//! - [`graph`]: the pose graph: RON definitions and their evaluation.
//! - [`render`]: wgpu only; draws matrices, morph weights and overlay data into a view.
//! - [`stage`]: the characters on screen, each a model, a placement and one motion source
//!   (clip timeline, pose graph, drive, motion matching, retargeted), advanced by one call.
//! - [`app`]: the window: event loop, controller, egui UI, file browser, settings.
//! - [`cli`]: the commands (inspect, trace, render, lint, snapshot, retarget).

pub use stridescope_anim as anim;
pub use stridescope_asset as asset;
pub use stridescope_graph as graph;
pub use stridescope_render as render;
pub use stridescope_stage as stage;

pub use stridescope_app as app;
pub use stridescope_cli as cli;
