//! Command-line interface: the window (`stridescope [FILE]`), and `inspect`, `trace`,
//! `render`, `lint` and `make-demo` (the scriptable face of the previewer, for tests and CI).

// Every public item says what it is, with its units, spaces and ranges.
#![warn(missing_docs)]

// The layers below, under their layer names: `crate::anim::Clip` reads the same here as in
// the `stridescope` facade, and the manifest is what allows each one.
use stridescope_anim as anim;
use stridescope_asset as asset;
use stridescope_graph as graph;
use stridescope_render as render;
use stridescope_stage as stage;

pub mod graph_trace;
pub mod lint;
pub mod locomotion_trace;
pub mod matching_inputs;
pub mod matching_trace;
pub mod render_command;
pub mod retarget;
pub mod snapshot;

mod args;
mod error;
mod inspect;
mod inspect_text;
mod trace;

use std::path::Path;

use crate::anim::Skeleton;
use crate::asset::Model;

pub use args::*;
pub use error::{CliError, Context};
pub use inspect::*;
pub use trace::*;

/// Loads `file`, or the built-in demo character when `None`, with the default options
/// (see [`load_model_with`]).
pub fn load_model(file: Option<&Path>) -> Result<Model, CliError> {
    load_model_with(file, &asset::LoadOptions::default())
}

/// Loads `file`, or the built-in demo character when `None`, reading it as `options` say
/// (see [`asset::folder::load_with_progress`]: a folder shows a progress bar on a
/// terminal).
pub fn load_model_with(
    file: Option<&Path>,
    options: &asset::LoadOptions,
) -> Result<Model, CliError> {
    Ok(asset::folder::load_with_progress(file, options)?)
}

fn joint_by_name(skeleton: &Skeleton, name: Option<&str>) -> Result<Option<usize>, CliError> {
    match name {
        None => Ok(None),
        Some(n) => skeleton.find(n).map(Some).ok_or_else(|| {
            CliError::usage(format!(
                "no joint named '{n}' (see `stridescope inspect` for the tree)"
            ))
        }),
    }
}

/// Runs a command and returns what to print on stdout; every file it reads is read as
/// `load` says (`--units`, `--allow-truncated`, `--reduce-keys`).
pub fn run(command: Command, load: &asset::LoadOptions) -> Result<String, CliError> {
    match command {
        Command::Inspect(args) => inspect_text::run(&args, load),
        Command::Trace(args) => trace::run(&args, load),
        Command::Render(args) => render_command::run(&args, load),
        Command::Snapshot(args) => snapshot::run(&args, load),
        Command::Retarget(args) => retarget::run(&args, load),
        Command::Lint(args) => lint::command::run(&args, load).map(|(text, _)| text),
        Command::MakeDemo(args) => {
            let written = if args.locomotion_set {
                std::fs::write(&args.out, asset::demo::locomotion_set_glb())
            } else {
                asset::demo::write_demo(&args.out)
            };
            written.map_err(|e| CliError::file(&args.out, "write", e))?;
            Ok(format!("wrote {}\n", args.out.display()))
        }
    }
}
