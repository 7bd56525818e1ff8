//! The `stridescope` binary: with no command it opens the previewer window on FILE (the
//! built-in demo character without one); with a command (`inspect`, `render`, `lint`, ...)
//! it runs that command, prints its output and exits.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use stridescope::anim::ErrorChain;
use stridescope::app::{self, AppOptions};
use stridescope::asset::{LoadOptions, OptionError};
use stridescope::cli::{self, Cli};

fn main() -> ExitCode {
    let args = Cli::parse();
    // How every file is read, once: the flags, else the environment variables they
    // stand for (STRIDESCOPE_UNITS, STRIDESCOPE_ALLOW_TRUNCATED, STRIDESCOPE_REDUCE_KEYS),
    // handed down as a value.
    let load = match load_options(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {}", ErrorChain(&e));
            return ExitCode::from(2);
        }
    };
    let result = match args.command {
        // Lint has its own exit codes: 1 means "found problems", 2 a usage error.
        Some(cli::Command::Lint(args)) => return cli::lint::command::main(&args, &load),
        Some(command) => cli::run(command, &load)
            .map(|text| {
                let mut stdout = std::io::stdout().lock();
                // A closed pipe (e.g. `| head`) is not an error worth a panic.
                let _ = stdout.write_all(text.as_bytes());
            })
            .map_err(|e| e.report()),
        None => app::run(window_options(&args, load)).map_err(|e| e.report()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(report) => {
            // The error and every cause under it it does not already say.
            eprintln!("error: {report}");
            ExitCode::from(1)
        }
    }
}

/// The window's start-up options from the command line (`stridescope [FILE] [flags]`):
/// here, where the commands and the window meet (neither layer uses the other).
fn window_options(args: &Cli, load: LoadOptions) -> AppOptions {
    AppOptions {
        load,
        file: args.file.clone(),
        screenshot: args.screenshot.clone(),
        after_frames: args.after_frames,
        size: args.size.map(|(w, h)| [w, h]),
        clip: args.clip.clone(),
        play: args.play,
        select: args.select.clone(),
        onion: args.onion,
        ghosts: args.ghosts,
        compare: args.compare.clone(),
        retarget_from: args.retarget_from.clone(),
        export: args.export.clone(),
        side_by_side: args.side_by_side,
        graph: args.graph,
        param: args.param.clone(),
        // A movement speed means driving.
        drive: args.drive || args.movement_speed.is_some(),
        movement_speed: args.movement_speed,
        direction_deg: args.direction,
        motion_matching: args.motion_matching,
        library: args.library.clone(),
        library_view: args.library_view,
        mirror: args.mirror,
        style: args.style.clone(),
        hold_keys: args.hold_keys,
        drop: args.drop.clone(),
        in_place: args.in_place.choice(),
    }
}

/// The load options of the flags, over those of the environment; `Err` names a bad
/// environment value.
fn load_options(args: &Cli) -> Result<LoadOptions, OptionError> {
    let mut load = LoadOptions::from_env()?;
    if let Some(units) = args.units {
        load.units = Some(units);
    }
    if args.allow_truncated {
        load.allow_truncated = true;
    }
    if let Some(tolerance_m) = args.reduce_keys {
        load.reduce_keys_m = Some(tolerance_m);
    }
    Ok(load)
}
