//! stridescope: a glTF animation previewer with wrap-safe root motion.
//!
//! - [`anim`]: the pure-CPU animation core (sampling, hierarchy, skinning oracle, root
//!   motion, playback clock).
//! - [`asset`]: glTF import with validation, and the built-in demo character.
//! - [`scene`]: per-frame pose evaluation of a loaded model.
//! - [`timeline`]: playback state with play-vs-seek root-motion semantics.
//! - [`cli`]: the command line.

pub mod anim;
pub mod asset;
pub mod cli;
pub mod scene;
pub mod timeline;
