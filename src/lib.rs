//! stridescope: a glTF animation previewer with wrap-safe root motion.
//!
//! - [`anim`]: the pure-CPU animation core (sampling, hierarchy, skinning oracle, root
//!   motion, playback clock).

pub mod anim;
pub mod app;
pub mod asset;
pub mod cli;
pub mod controller;
pub mod file_browser;
pub mod graph;
pub mod inspect;
pub mod lint;
pub mod matching;
pub mod render;
pub mod retargeting;
pub mod scene;
pub mod settings;
pub mod timeline;
pub mod ui;
pub mod watch;
