//! `stridescope retarget SOURCE --onto TARGET`: plays SOURCE's clips on TARGET's skeleton,
//! reports the mapping and each clip's quality, and with `--out` writes TARGET with the
//! retargeted clips added.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::anim::retarget::RetargetOptions;
use crate::asset;
pub use crate::stage::retarget::{
    glb_with_clips, retarget_models, retarget_models_with, ClipQualityReport, MapFile,
    MappingReport, RetargetReport,
};
use crate::{CliError, Context as _};
use clap::Args;

/// The arguments of `stridescope retarget`.
#[derive(Debug, Args)]
pub struct RetargetArgs {
    /// The clips' file (glTF/GLB, FBX, BVH) or a folder of BVH/FBX clips.
    pub source: PathBuf,
    /// The character to play them on (glTF/GLB, FBX, BVH).
    #[arg(long, value_name = "TARGET")]
    pub onto: PathBuf,
    /// A source clip to retarget (repeatable; default: every clip).
    #[arg(long, value_name = "NAME")]
    pub clip: Vec<String>,
    /// A RON map that overrides the automatic one, bone by bone:
    /// `(source: {"hips": "Hips", ...}, target: {"leftHand": "Palm2.L", ...})` with VRM's
    /// bone names and the skeletons' joint names.
    #[arg(long, value_name = "MAP.ron")]
    pub map: Option<PathBuf>,
    /// Keep the target over the origin (drop the source hips' ground travel).
    #[arg(long)]
    pub in_place: bool,
    /// No foot IK: the target's feet follow the retargeted legs even where they slide.
    #[arg(long)]
    pub no_ik: bool,
    /// Write TARGET (a .glb) with the retargeted clips added, named after the source
    /// clips.
    #[arg(long, value_name = "OUT.glb")]
    pub out: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `retarget`: the report as text or JSON.
pub fn run(args: &RetargetArgs, load: &asset::LoadOptions) -> Result<String, CliError> {
    let source = super::load_model_with(Some(&args.source), load)?;
    let target = asset::load_with(&args.onto, load)?;
    let options = RetargetOptions {
        in_place: args.in_place,
        foot_ik: !args.no_ik,
        ..Default::default()
    };
    let given = match &args.map {
        Some(path) => MapFile::read(path)?,
        None => MapFile::default(),
    };
    let (clips, mut report) = retarget_models_with(&source, &target, &args.clip, &options, &given)?;
    if let Some(out) = &args.out {
        let bytes = std::fs::read(&args.onto).map_err(|e| CliError::file(&args.onto, "read", e))?;
        let written = glb_with_clips(&bytes, &target, &clips)
            .with_context(|| args.onto.display().to_string())?;
        write(out, &written)?;
        report.out = Some(out.display().to_string());
    }
    if args.json {
        return Ok(serde_json::to_string_pretty(&report)? + "\n");
    }
    let mut text = String::new();
    let w = &mut text;
    let _ = writeln!(w, "{} onto {}", report.source, report.target);
    let _ = writeln!(w, "mapping ({} bones):", report.mapping.len());
    for m in &report.mapping {
        let _ = writeln!(
            w,
            "  {:14} {:28} -> {:28} ({})",
            m.bone, m.source, m.target, m.how
        );
    }
    if !report.unmapped.is_empty() {
        let _ = writeln!(w, "unmapped: {}", report.unmapped.join(", "));
    }
    let _ = writeln!(
        w,
        "clips (foot IK {}{}):",
        if report.foot_ik { "on" } else { "off" },
        if report.in_place { ", in place" } else { "" }
    );
    for c in &report.clips {
        let _ = writeln!(
            w,
            "  {}: {:.3} s{}, planted-foot slide {:.3} m/s, contact agreement {:.2}, speed ratio {:.3}, leg ratio {:.3}, feet from the source's {:.3} legs (max {:.3})",
            c.name,
            c.duration_secs,
            if c.source_in_place { " (in place)" } else { "" },
            c.planted_foot_slide_mps,
            c.contact_agreement,
            c.speed_ratio,
            c.leg_ratio,
            c.source_foot_deviation.mean_legs,
            c.source_foot_deviation.max_legs
        );
    }
    if let Some(out) = &report.out {
        let _ = writeln!(w, "wrote {out}");
    }
    Ok(text)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    std::fs::write(path, bytes).map_err(|e| CliError::file(path, "write", e))
}
