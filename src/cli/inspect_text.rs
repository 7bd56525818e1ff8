//! `stridescope inspect`'s output: the report ([`super::inspect::inspect_report`]) as
//! JSON, or as text for a person (the joint tree, skins, meshes, clips with their root
//! motion, locomotion, loop seam and markers, warnings).

use std::fmt::Write as _;

use super::args::InspectArgs;
use super::inspect::*;
use crate::asset;
use crate::CliError;

/// Runs `inspect` and returns what to print.
pub(super) fn run(args: &InspectArgs, load: &asset::LoadOptions) -> Result<String, CliError> {
    let mut model = super::load_model_with(args.file.as_deref(), load)?;
    args.in_place.apply(&mut model);
    let reduction = match args.reduce_keys {
        Some(tolerance_m) => Some(model.reduce_keys(tolerance_m)?),
        None => None,
    };
    let mut report = inspect_report(&model, args.root_joint.as_deref())?;
    report.key_reduction = reduction;
    if args.json {
        return Ok(serde_json::to_string_pretty(&report)? + "\n");
    }
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "{}", report.source);
    if report.format != asset::SourceFormat::Gltf.as_str() {
        let _ = writeln!(
            w,
            "format: {}; units: {}; up {}{}",
            report.format,
            report.source_units_reason,
            report.source_up_axis,
            report
                .source_creator
                .as_deref()
                .map(|c| format!("; written by {c}"))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(
        w,
        "skeleton: {} joints; skins: {}; meshes: {} ({} vertices)",
        report.joints.len(),
        report
            .skins
            .iter()
            .map(|s| format!("'{}' ({} joints)", s.name, s.joint_count))
            .collect::<Vec<_>>()
            .join(", "),
        report.meshes.len(),
        report.vertex_count
    );
    let _ = writeln!(w, "\njoint tree:");
    let children = |p: Option<usize>| -> Vec<usize> {
        (0..report.joints.len())
            .filter(|&j| report.joints[j].parent == p)
            .collect()
    };
    let mut stack: Vec<(usize, usize)> = children(None).into_iter().rev().map(|j| (j, 0)).collect();
    while let Some((j, depth)) = stack.pop() {
        let _ = writeln!(
            w,
            "  {}{} [{}]",
            "  ".repeat(depth),
            report.joints[j].name,
            j
        );
        for c in children(Some(j)).into_iter().rev() {
            stack.push((c, depth + 1));
        }
    }
    if report.scenes.len() > 1 {
        let shown = report.scene.unwrap_or(0);
        let _ = writeln!(
            w,
            "scene: {shown} '{}' of {} ({})",
            report.scenes[shown],
            report.scenes.len(),
            report.scenes.join(", ")
        );
    }
    let _ = writeln!(w, "\nmeshes:");
    for m in &report.meshes {
        let skin = m
            .skin
            .map(|s| format!("skin {s}"))
            .unwrap_or_else(|| "unskinned".into());
        let _ = writeln!(
            w,
            "  {}: {} primitive(s), {} vertices, {} triangles, {skin}{}",
            m.name,
            m.primitives,
            m.vertices,
            m.triangles,
            if m.morph_targets.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} morph targets ({})",
                    m.morph_targets.len(),
                    m.morph_targets.join(", ")
                )
            }
        );
    }
    let _ = writeln!(w, "\nlegs (thresholds scale x{:.4}):", report.unit_scale);
    match &report.legs_error {
        Some(e) => {
            let _ = writeln!(w, "  none: {e}");
        }
        None => {
            for l in &report.legs {
                let _ = writeln!(
                    w,
                    "  {}: {} / {} / {}{} ({:.4} m)",
                    l.name,
                    l.thigh,
                    l.calf,
                    l.foot,
                    l.toe
                        .as_ref()
                        .map(|t| format!(" / {t}"))
                        .unwrap_or_default(),
                    l.length_m
                );
            }
        }
    }
    let _ = writeln!(
        w,
        "\nclips: (opens on {})",
        report.default_clip.as_deref().unwrap_or("the rest pose")
    );
    for c in &report.clips {
        let _ = writeln!(
            w,
            "  {}: {:.6} s (keys from {:.6} s{}), {} channels ({} translation, {} rotation, {} scale){}{}",
            c.name,
            c.duration_secs,
            c.first_key_secs,
            c.frame_rate_hz
                .map(|hz| format!(", {hz:.4} frames/s"))
                .unwrap_or_default(),
            c.channels,
            c.translation_channels,
            c.rotation_channels,
            c.scale_channels,
            // No channel, no interpolation: no trailing ", ".
            if c.interpolations.is_empty() {
                String::new()
            } else {
                format!(", {}", c.interpolations.join("/"))
            },
            if c.additive { ", additive" } else { "" }
        );
        if let Some(why) = &c.empty {
            // A file whose takes are all empty still opens on its first (the rest pose).
            let opened = report.default_clip.as_deref() == Some(c.name.as_str());
            let _ = writeln!(
                w,
                "    {why}: {}left out of libraries and quality figures",
                if opened {
                    ""
                } else {
                    "not opened by default, "
                }
            );
        }
        if c.morph_channels > 0 {
            let _ = writeln!(
                w,
                "    morph weights: {} channel(s), {} weights",
                c.morph_channels, c.morph_weights
            );
        }
        match &c.root_motion {
            Some(rm) => {
                let _ = writeln!(
                    w,
                    "    root motion: joint '{}' ({}), per cycle {:.4} m (x {:.4}, z {:.4}), yaw {:.2} deg, average speed {:.4} m/s",
                    rm.joint,
                    if rm.auto_detected { "auto" } else { "chosen" },
                    rm.cycle_distance_m,
                    rm.cycle_x_m,
                    rm.cycle_z_m,
                    rm.cycle_yaw_deg,
                    rm.average_speed_mps
                );
            }
            None => {
                let _ = writeln!(w, "    root motion: none (no joint translation animated)");
            }
        }
        if let Some(l) = &c.locomotion {
            let contacts: Vec<String> = report
                .legs
                .iter()
                .zip(l.contact_fraction.iter().zip(&l.contact_certainty))
                .map(|(leg, (f, c))| {
                    format!("{} {:.0}% (sure {:.0}%)", leg.name, f * 100.0, c * 100.0)
                })
                .collect();
            let implied = match (l.implied_speed_mps, l.implied_direction, l.implied_spread) {
                (Some(v), Some(d), Some(sp)) => format!(
                    "implied speed {v:.4} m/s toward ({:.2}, {:.2}), spread {sp:.2}{}",
                    d[0],
                    d[1],
                    if l.implied_touch_and_go {
                        " (the feet never rest: taken at their lowest points)"
                    } else {
                        ""
                    }
                ),
                _ => {
                    "no implied speed (no foot is planted, or the planted feet stand still)".into()
                }
            };
            let _ = writeln!(
                w,
                "    locomotion: {} ({}), {implied}; planted {}",
                if l.in_place {
                    "in place"
                } else {
                    "root motion"
                },
                l.in_place_reason,
                contacts.join(", ")
            );
        }
        if let Some(worst) = c.loop_seam.first() {
            let unit = match worst.channel {
                "rotation" => "deg",
                "translation" => "m",
                _ => "",
            };
            let _ = writeln!(
                w,
                "    loop seam: worst {} {} jumps {:.4} {unit} ({:.2} cm at the chain end), velocity {:.4} m/s at the chain end",
                worst.joint,
                worst.channel,
                worst.jump,
                worst.visible_m * 100.0,
                worst.visible_velocity_mps
            );
        }
        if !c.markers.is_empty() {
            let marks: Vec<String> = c
                .markers
                .iter()
                .map(|m| format!("{} @ {:.4} s", m.name, m.time_secs))
                .collect();
            let _ = writeln!(w, "    markers: {}", marks.join(", "));
        }
        for warning in &c.warnings {
            let _ = writeln!(w, "    warning: {warning}");
        }
    }
    if let Some(reports) = &report.key_reduction {
        let _ = writeln!(w, "\nkey reduction:");
        for r in reports {
            let _ = writeln!(w, "  {}", r.summary());
        }
    }
    if !report.warnings.is_empty() {
        let _ = writeln!(w, "\nwarnings:");
        for warning in &report.warnings {
            let _ = writeln!(w, "  {warning}");
        }
    }
    Ok(out)
}
