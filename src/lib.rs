//! stridescope: a glTF/FBX/BVH animation previewer with wrap-safe root motion.
//!
//! The top-level modules are layers, bottom to top; each uses only the ones above it in
//! this list (`tests/architecture.rs` checks it):
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

pub mod anim;
pub mod asset;
pub mod graph;
pub mod render;
pub mod stage;

pub mod app;
pub mod cli;
