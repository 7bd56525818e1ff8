use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use stridescope::cli::{self, Cli, Command, InspectArgs};

fn main() -> ExitCode {
    let args = Cli::parse();
    let command = match args.command {
        Some(command) => command,
        None => {
            // The window arrives with the desktop previewer; until then, opening a file
            // (or the demo) prints what the previewer would show.
            eprintln!(
                "stridescope: the desktop window is not built yet; showing the inspection instead."
            );
            Command::Inspect(InspectArgs {
                file: args.file,
                json: false,
                root_joint: None,
            })
        }
    };
    match cli::run(command) {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (e.g. `| head`) is not an error worth a panic.
            let _ = stdout.write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}
