//! Clip-library lint: every clip of every file checked for what breaks in a game or a
//! blend, ranked, with a machine-readable report (`stridescope lint`).
//!
//! Checks (ids as they appear in the report):
//! - `load`: the file does not import (the run goes on with the other files).
//! - `import`: the importer's non-fatal findings (renormalised weights, ignored extras...).
//! - `empty-clip`: a clip with no tracks, or whose tracks all hold one key (zero length):
//!   it cannot loop, sync or drive anything.
//! - `root-reversal`: over one cycle played across the wrap, frames in which the root moves
//!   against the clip's direction of travel: what a root track that snaps back at its
//!   last key looks like in a game.
//! - `loop-seam`: a channel whose value jumps at the wrap ([`crate::anim::seam::LoopSeamJob`]), ranked by how
//!   far it moves the end of its chain; `loop-seam-velocity`: the slope jumps (a hitch).
//! - `foot-slide` and `skating`: planted feet moving over the ground while the clip plays
//!   at its own speed (root motion, or the implied speed of an in-place clip), with the
//!   slide per cycle and the skating ratio of [`crate::anim::locomotion::FootSlideMeter`].
//! - `additive-travels`: a clip flagged additive that travels like a locomotion clip;
//!   `looks-additive`: a clip not flagged additive whose bones collapse to zero length
//!   (authored as deltas: played as a full pose it crumples the character).
//! - `markers-disagree`: file foot markers that the detected contacts do not confirm.
//! - `stride-count` and `duration-spread`: clips on one skeleton meant to blend (gait
//!   cycles) that hold different numbers of strides per cycle, or whose cycle lengths are
//!   far apart, so cycle sync pairs a step with a stride or plays one at a silly rate.
//!
//! - `long-clip`: a clip too long to play frame by frame (a key time in frames?).
//! - `internal`: checking the file hit a bug of stridescope's (reported, the run goes on).
//!
//! The report is deterministic: files sorted by path, findings ranked by severity and by
//! how far they are over their threshold, no timings; the same with any number of jobs.

mod checks;
mod feet;

pub mod command;
use crate::CliError;
use std::path::{Path, PathBuf};

use serde::Serialize;

use checks::lint_model;

/// Thresholds, for a human rig in metres (metre values are scaled by the rig's unit scale,
/// `mean leg length / 0.9 m`, so a 0.01-scaled export is judged like its full-size self).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LintSettings {
    /// A seam that moves the end of a chain by more than this (metres) is a pop. 1 cm is
    /// about what shows at 1080p on a full-body shot.
    pub seam_m: f32,
    /// A velocity jump at the end of a chain above this (m/s) is a hitch. A swing foot
    /// moves at 2-5 m/s, so 1 m/s across one frame reads as a stutter.
    pub seam_velocity_mps: f32,
    /// Planted-foot slide per cycle above this (metres) is foot sliding.
    pub slide_m_per_cycle: f32,
    /// Share of frames with a skating foot (over 0.5 m/s while planted) above this.
    pub skating_ratio: f32,
    /// A file foot marker farther than this fraction of the cycle from the detected one
    /// disagrees (the demo's are within 0.053 of a 1 s cycle).
    pub marker_tolerance: f32,
    /// Clips of one set whose cycle lengths differ by more than this ratio.
    pub duration_ratio: f32,
    /// How the files are read (`--units`, `--allow-truncated`, `--reduce-keys`).
    pub load: crate::asset::LoadOptions,
}

impl Default for LintSettings {
    fn default() -> Self {
        Self {
            seam_m: crate::anim::seam::DEFAULT_SEAM_M,
            seam_velocity_mps: 1.0,
            slide_m_per_cycle: 0.05,
            skating_ratio: 0.1,
            marker_tolerance: 0.1,
            duration_ratio: 2.0,
            load: crate::asset::LoadOptions::default(),
        }
    }
}

/// How bad a finding is (`error` or `warning` in the JSON); errors sort first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file or clip could not be checked: it does not load, its root motion cannot be
    /// extracted, or checking it hit a bug of stridescope's.
    Error,
    /// A problem in what was checked (a seam, sliding feet, a wrong flag, an import note...).
    Warning,
}

impl Severity {
    /// The lowercase name, `error` or `warning`, as the report writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// `error` or `warning`.
    pub severity: Severity,
    /// Check id (see the module docs).
    pub check: &'static str,
    /// The clip it concerns (`null` for file-level findings).
    pub clip: Option<String>,
    /// The joint it concerns, when one stands out.
    pub joint: Option<String>,
    /// What was found, in words, for a person.
    pub message: String,
    /// The measured value, in the check's unit (metres, m/s, ratio, seconds...).
    pub value: f64,
    /// The threshold it was compared with (already scaled to the rig).
    pub threshold: f64,
}

impl Finding {
    /// How far over its threshold the finding is: what ranks warnings.
    pub fn score(&self) -> f64 {
        if self.threshold > 0.0 {
            self.value / self.threshold
        } else {
            self.value
        }
    }
}

/// Orders findings: errors first, then by score (largest first), then by clip, check and
/// message so equal scores still sort the same way every run.
pub fn rank(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        a.severity
            .cmp(&b.severity)
            .then(b.score().total_cmp(&a.score()))
            .then(a.clip.cmp(&b.clip))
            .then(a.check.cmp(b.check))
            .then(a.message.cmp(&b.message))
    });
}

/// What lint found in one file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileReport {
    /// The path as found (under the folder given, or as given).
    pub path: String,
    /// Why the file could not be read (`null` when it loaded).
    pub error: Option<String>,
    /// Clip names, in file order.
    pub clips: Vec<String>,
    /// What lint found in the file, ranked (errors first, then by how far over the threshold).
    pub findings: Vec<Finding>,
    /// What the set checks need (not in the report).
    #[serde(skip)]
    pub(crate) gaits: Vec<checks::Gait>,
}

/// The counts over the whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Files checked.
    pub files: usize,
    /// Files with an `error`: they did not load, or checking them hit a bug.
    pub unreadable: usize,
    /// Clips over all the files.
    pub clips: usize,
    /// Findings of severity `error`, over all files.
    pub errors: usize,
    /// Findings of severity `warning`, over all files.
    pub warnings: usize,
}

/// The report of `stridescope lint` (what `--json` prints): one entry per file, sorted by
/// path, and the counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LintReport {
    /// One report per file, sorted by path.
    pub files: Vec<FileReport>,
    /// The counts over the whole run.
    pub summary: Summary,
}

impl LintReport {
    /// True when nothing was found (exit status 0).
    pub fn is_clean(&self) -> bool {
        self.summary.errors == 0 && self.summary.warnings == 0
    }
}

/// The files to lint: folders are walked recursively for `.gltf`, `.glb`, `.fbx` and
/// `.bvh` files (hidden entries skipped), files are taken as given whatever their
/// extension. Sorted and deduplicated. Errors name the path that cannot be read.
pub fn collect_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut out = Vec::new();
    let mut visited = std::collections::BTreeSet::new();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| CliError::file(input, "read", e))?;
        if meta.is_dir() {
            walk(input, &mut out, &mut visited)?;
        } else {
            out.push(input.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// `visited` holds the canonical folders seen, so a symlink back up the tree is walked
/// once, not until the OS gives up.
fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    visited: &mut std::collections::BTreeSet<PathBuf>,
) -> Result<(), CliError> {
    let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if !visited.insert(canonical) {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| CliError::file(dir, "list", e))?;
    for entry in entries {
        let entry = entry.map_err(|e| CliError::file(dir, "list", e))?;
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|e| CliError::file(&path, "read", e))?;
        // Follow symlinks to folders too (a library often links shared packs in).
        if kind.is_dir() || (kind.is_symlink() && path.is_dir()) {
            walk(&path, out, visited)?;
        } else if crate::asset::is_model_path(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Lints one file: loads it and checks every clip. Never fails: a file that does not
/// load is reported with its error, and so is a panic while checking it (a bug of ours,
/// which must not cost the user the rest of the report).
pub fn lint_file(path: &Path, settings: &LintSettings) -> FileReport {
    let shown = path.display().to_string();
    match std::panic::catch_unwind(|| lint_file_unguarded(path, settings)) {
        Ok(report) => report,
        Err(panic) => {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown".into());
            FileReport {
                path: shown,
                error: Some(format!("internal error while checking: {why}")),
                clips: Vec::new(),
                findings: vec![Finding {
                    severity: Severity::Error,
                    check: "internal",
                    clip: None,
                    joint: None,
                    message: format!("stridescope failed while checking this file: {why}"),
                    value: 1.0,
                    threshold: 0.0,
                }],
                gaits: Vec::new(),
            }
        }
    }
}

fn lint_file_unguarded(path: &Path, settings: &LintSettings) -> FileReport {
    let shown = path.display().to_string();
    match crate::asset::load_with(path, &settings.load) {
        Err(e) => FileReport {
            path: shown,
            error: Some(e.to_string()),
            clips: Vec::new(),
            findings: vec![Finding {
                severity: Severity::Error,
                check: "load",
                clip: None,
                joint: None,
                message: format!("cannot load: {e}"),
                value: 1.0,
                threshold: 0.0,
            }],
            gaits: Vec::new(),
        },
        Ok(model) => model_report(shown, &model, settings),
    }
}

/// The report of a loaded model shown as `path`.
fn model_report(path: String, model: &crate::asset::Model, settings: &LintSettings) -> FileReport {
    let (findings, gaits) = lint_model(model, settings);
    FileReport {
        path,
        error: None,
        clips: model.clips.iter().map(|c| c.name().to_string()).collect(),
        findings,
        gaits,
    }
}

/// Lints `files` on `jobs` threads (0: one per core) and adds the checks across files.
/// `progress` is called once per finished file (from worker threads).
pub fn lint_files(
    files: &[PathBuf],
    jobs: usize,
    settings: &LintSettings,
    progress: &(dyn Fn() + Sync),
) -> Result<LintReport, CliError> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CliError::usage(format!("cannot start {jobs} lint threads: {e}")))?;
    // An indexed parallel map keeps file order, so the report does not depend on which
    // thread finished first.
    let reports: Vec<FileReport> = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let r = lint_file(f, settings);
                progress();
                r
            })
            .collect()
    });
    Ok(finish(reports, settings))
}

/// Lints models already loaded (`(shown path, model)`), as [`lint_files`] does files:
/// for tools and tests that build or edit clips in memory.
pub fn lint_loaded(
    models: &[(String, crate::asset::Model)],
    settings: &LintSettings,
) -> LintReport {
    let reports = models
        .iter()
        .map(|(path, model)| model_report(path.clone(), model, settings))
        .collect();
    finish(reports, settings)
}

/// The checks across files, the ranking and the summary.
fn finish(mut reports: Vec<FileReport>, settings: &LintSettings) -> LintReport {
    checks::set_checks(&mut reports, settings);
    let mut summary = Summary {
        files: reports.len(),
        ..Summary::default()
    };
    for r in &mut reports {
        rank(&mut r.findings);
        summary.unreadable += usize::from(r.error.is_some());
        summary.clips += r.clips.len();
        for f in &r.findings {
            match f.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
            }
        }
    }
    LintReport {
        files: reports,
        summary,
    }
}

// Shared by the clip checks (`checks.rs`) and the foot checks (`feet.rs`), which do not
// use each other's helpers: one calls the other.

/// Frames per second the root and the feet are played at.
const PLAY_HZ: f64 = 60.0;
/// A foot planted for more than this share of the cycle stands (Idle): not a gait.
const STANDING_FRACTION: f32 = 0.95;

/// A warning about `clip` (and `joint`, when one is at fault) from the check `check`.
fn finding(
    check: &'static str,
    clip: &crate::anim::Clip,
    joint: Option<String>,
    message: String,
    value: f64,
    threshold: f64,
) -> Finding {
    Finding {
        severity: Severity::Warning,
        check,
        clip: Some(clip.name().to_string()),
        joint,
        message,
        value,
        threshold,
    }
}

/// The name of `joint` of `model`'s skeleton.
fn joint_name(model: &crate::asset::Model, joint: usize) -> String {
    model.skeleton.names()[joint].clone()
}
