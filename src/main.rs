use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use stridescope::app::{self, AppOptions};
use stridescope::cli::{self, Cli};

fn main() -> ExitCode {
    let args = Cli::parse();
    if let Some(tolerance_m) = args.reduce_keys {
        // Every load of the window (open, reload on change, A/B files) reads it; set
        // before any thread starts.
        std::env::set_var(
            stridescope::asset::REDUCE_KEYS_ENV,
            format!("{}", tolerance_m * 1e3),
        );
    }
    // Read by every load (commands, the window, lint), like the key reduction above.
    if let Some(units) = args.units {
        std::env::set_var(stridescope::asset::UNITS_ENV, units.short_name());
    }
    if args.allow_truncated {
        std::env::set_var(stridescope::asset::ALLOW_TRUNCATED_ENV, "1");
    }
    let result = match args.command {
        // Lint has its own exit codes: 1 means "found problems", 2 a usage error.
        Some(cli::Command::Lint(args)) => return cli::lint::command::main(&args),
        Some(command) => cli::run(command).map(|text| {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (e.g. `| head`) is not an error worth a panic.
            let _ = stdout.write_all(text.as_bytes());
        }),
        None => app::run(window_options(&args)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

/// The window's start-up options from the command line (`stridescope [FILE] [flags]`):
/// here, where the commands and the window meet (neither layer uses the other).
fn window_options(args: &Cli) -> AppOptions {
    AppOptions {
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
