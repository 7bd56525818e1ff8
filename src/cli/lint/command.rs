//! `stridescope lint`: checks a clip library (see [`crate::lint`]) and exits 0 when it is
//! clean, 1 when it found problems, 2 on usage errors, so CI jobs can gate on it.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::lint::{self, LintReport, LintSettings};
use crate::CliError;

/// The arguments of `stridescope lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Folders (searched recursively for .gltf, .glb, .fbx and .bvh files) and files.
    #[arg(required = true, value_name = "DIR_OR_FILE")]
    pub paths: Vec<PathBuf>,
    /// Print the report as JSON (every file, the unreadable ones with their error).
    #[arg(long)]
    pub json: bool,
    /// Files checked at once (0: one per core).
    #[arg(short = 'j', long = "jobs", value_name = "N", default_value_t = 0)]
    pub jobs: usize,
    /// A loop seam that moves the end of a chain more than this is a pop (metres, for a
    /// 0.9 m leg; scaled to the rig).
    #[arg(long, value_name = "M", default_value_t = LintSettings::default().seam_m)]
    pub seam_m: f32,
    /// Planted-foot slide per cycle above this is reported (metres, scaled to the rig).
    #[arg(long, value_name = "M", default_value_t = LintSettings::default().slide_m_per_cycle)]
    pub slide_m: f32,
}

/// Usage errors exit with this (as clap's own do).
const USAGE: u8 = 2;

/// Runs the command: prints the report on stdout, errors on stderr; returns the exit code.
pub fn main(args: &LintArgs, load: &crate::asset::LoadOptions) -> ExitCode {
    match run(args, load) {
        Ok((text, report)) => {
            use std::io::Write;
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            ExitCode::from(if report.is_clean() { 0 } else { 1 })
        }
        Err(e) => {
            // The error and every cause it does not already say (a folder's OS reason).
            eprintln!("error: {}", e.report());
            ExitCode::from(USAGE)
        }
    }
}

/// The report and its rendering (JSON or ranked text). `Err` for usage errors only:
/// files that do not load are findings.
pub fn run(
    args: &LintArgs,
    load: &crate::asset::LoadOptions,
) -> Result<(String, LintReport), CliError> {
    for (what, v) in [("--seam-m", args.seam_m), ("--slide-m", args.slide_m)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(format!("{what} must be a positive number of metres, got {v}").into());
        }
    }
    let settings = LintSettings {
        seam_m: args.seam_m,
        slide_m_per_cycle: args.slide_m,
        load: *load,
        ..LintSettings::default()
    };
    let files = lint::collect_files(&args.paths)?;
    if files.is_empty() {
        return Err(format!(
            "no .gltf or .glb files in {}",
            args.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
        .into());
    }
    // indicatif draws nothing when stderr is not a terminal (pipes, CI logs).
    let bar = indicatif::ProgressBar::new(files.len() as u64);
    if files.len() < 4 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template("linting {bar:30} {pos}/{len} files")
            .map_err(|e| CliError::usage(format!("progress bar: {e}")))?,
    );
    let report = lint::lint_files(&files, args.jobs, &settings, &|| bar.inc(1))?;
    bar.finish_and_clear();
    let text = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        text_report(&report)
    };
    Ok((text, report))
}

/// Ranked findings over all files (errors first, then by how far over the threshold),
/// then a summary line.
pub fn text_report(report: &LintReport) -> String {
    let mut all: Vec<(&str, &lint::Finding)> = report
        .files
        .iter()
        .flat_map(|f| f.findings.iter().map(move |x| (f.path.as_str(), x)))
        .collect();
    all.sort_by(|a, b| {
        a.1.severity
            .cmp(&b.1.severity)
            .then(b.1.score().total_cmp(&a.1.score()))
            .then(a.0.cmp(b.0))
            .then(a.1.clip.cmp(&b.1.clip))
            .then(a.1.check.cmp(b.1.check))
    });
    let mut out = String::new();
    for (path, f) in all {
        let clip = f
            .clip
            .as_ref()
            .map(|c| format!(" '{c}'"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{:<7} {path}{clip} [{}] {}",
            f.severity.as_str(),
            f.check,
            f.message
        );
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "{} file(s), {} unreadable, {} clip(s): {} error(s), {} warning(s){}",
        s.files,
        s.unreadable,
        s.clips,
        s.errors,
        s.warnings,
        if report.is_clean() { " - clean" } else { "" }
    );
    out
}
