//! `stridescope trace --movement-speed V [--direction DEG] [--no-warp] [--no-speed-match]`:
//! the pose graph (one clip, `--blend` or `--scenario`) followed by the locomotion stage.
//! Prints per frame the play rate, stride scale, pelvis offset, foot targets and foot
//! slide, and a summary.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::anim::contacts::{legs_from_override, LegOverride};
use crate::anim::locomotion::SpeedSource;
use crate::asset::Model;
use crate::stage::locomotion::LocomotionSettings;
use crate::stage::scenario::{FrameKind, ScenarioRun};
use crate::stage::session::GraphSession;
use crate::{CliError, Context as _};

use super::graph_trace;
use super::TraceArgs;

/// One leg at one frame of the locomotion trace: its IK target, contact and slide.
#[derive(Debug, Serialize)]
pub struct FootRow {
    /// Leg and foot joint, written `NAME (FOOT)`, e.g. `left (LeftFoot)`.
    pub leg: String,
    /// Final IK target (model space, metres).
    pub target: [f32; 3],
    /// The FK foot the target started from.
    pub origin: [f32; 3],
    /// The IK foot reached its target.
    pub reached: bool,
    /// The target was pulled back onto the FK leg length.
    pub clamped: bool,
    /// The foot is planted this frame (the blended inputs vote by weight).
    pub planted: bool,
    /// World-space horizontal speed while planted (m/s), `null` in the air.
    pub slide_mps: Option<f32>,
}

/// One row of the locomotion trace: the pose graph's frame after speed matching, stride
/// warping, orientation warping and foot IK.
#[derive(Debug, Serialize)]
pub struct LocomotionFrame {
    /// Frame number: 0 is the start row, then one per `1 / fps` seconds of wall time.
    pub frame: u64,
    /// What happened this frame: `start`, `play` or `seek`.
    pub event: &'static str,
    /// Wall seconds since the start.
    pub wall_secs: f64,
    /// Name of the leading clip (the base input with the highest weight).
    pub clip: String,
    /// Leader's clip seconds within its cycle.
    pub time_secs: f64,
    /// The graph's play rate this frame (speed matching sets it; negative plays in reverse).
    pub play_rate: f64,
    /// Stride scale applied this frame (after the clamp and the interpolation; 1 = the clip's
    /// own stride).
    pub stride_scale: f32,
    /// Stride scale before interpolation.
    pub stride_target_scale: f32,
    /// Root speed the stride scale divides by (m/s).
    pub root_speed_mps: f32,
    /// Unit stride direction, model space (after floor re-orientation).
    pub stride_direction: [f32; 3],
    /// Pelvis offset (model space, metres) and its length.
    pub pelvis_offset: [f32; 3],
    /// Length of `pelvis_offset`, metres.
    pub pelvis_offset_m: f32,
    /// Orientation warp: body yaw (degrees).
    pub body_yaw_deg: f32,
    /// One entry per leg, in the order of the summary's `legs`.
    pub feet: Vec<FootRow>,
    /// World X of the root's placement, moved by the drive, metres.
    pub world_x_m: f64,
    /// World Z of the root's placement, metres.
    pub world_z_m: f64,
    /// World yaw of the root's placement, degrees (unwrapped).
    pub world_yaw_deg: f64,
}

/// What the whole locomotion trace found: the settings, the final rate and stride, the clip
/// speed and the foot slide.
#[derive(Debug, Serialize)]
pub struct LocomotionSummary {
    /// Movement speed driven (`--movement-speed`), m/s.
    pub movement_speed_mps: f32,
    /// Movement direction relative to the character's facing (`--direction`), degrees
    /// counter-clockwise seen from above.
    pub direction_deg: f32,
    /// Speed matching on (off with `--no-speed-match`).
    pub speed_matching: bool,
    /// Stride warping on (off with `--no-warp`).
    pub stride_warping: bool,
    /// Where the stride scale takes the clip speed from: `cycle average` or `per frame`
    /// (`--stride-source`).
    pub stride_source: &'static str,
    /// `graph` or `manual` (--stride-scale).
    pub stride_mode: &'static str,
    /// Feet pinned where they came down (`--foot-lock`).
    pub foot_lock: bool,
    /// Final play rate.
    pub play_rate: f64,
    /// Mean stride scale over the last full cycle (over the run when shorter).
    pub stride_scale: f64,
    /// Weighted clip speed the rate and scale are computed from (m/s at rate 1).
    pub clip_speed_mps: f64,
    /// The leader is in place and its implied speed is used.
    pub in_place: bool,
    /// Why the leader counts as in place or not (the one rule, or the user's override).
    pub in_place_reason: String,
    /// Implied speed of the leading clip from its planted feet, in place or not (`null`
    /// when no foot plants).
    pub implied_speed_mps: Option<f64>,
    /// `(max - min) / median` of the implied speed over contact thresholds x0.5/x1/x2.
    pub implied_spread: Option<f64>,
    /// Mean over the feet and the played cycles of the slide distance (metres / cycle).
    pub slide_m_per_cycle: f64,
    /// Share of frames with a skating foot (planted and faster than 0.5 m/s x `unit_scale`),
    /// 0..1.
    pub skating_ratio: f64,
    /// Cycles of the leading clip played over the run (a new leader adds its own).
    pub cycles_played: f64,
    /// Distance the root travelled on the ground over the run (sum of the frames' world
    /// moves), metres.
    pub distance_m: f64,
    /// Foot joint names of the legs driven, in the order of each frame's `feet`.
    pub legs: Vec<String>,
    /// `leg length / 0.9 m`: multiplies the metre thresholds.
    pub unit_scale: f32,
    /// The drive's warnings at the last frame (e.g. no speed to match, a flipped warp).
    pub warnings: Vec<String>,
}

/// The report of `stridescope trace --movement-speed`: one row per frame and a summary;
/// `--json` prints it.
pub type LocomotionTraceReport = super::ScenarioTrace<(), LocomotionFrame, LocomotionSummary>;

/// Parses `--leg THIGH,CALF,FOOT`.
pub fn parse_leg(s: &str) -> Result<(String, String, String), String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    match parts.as_slice() {
        [t, c, f] if !t.is_empty() && !c.is_empty() && !f.is_empty() => {
            Ok((t.to_string(), c.to_string(), f.to_string()))
        }
        _ => Err(format!("'{s}' is not THIGH,CALF,FOOT (three joint names)")),
    }
}

/// The locomotion settings `args`' flags ask for (the legs are the model's: `--leg` set
/// them, see [`apply_legs`]).
pub fn locomotion_settings(args: &TraceArgs) -> Result<LocomotionSettings, CliError> {
    let speed = args.movement_speed.unwrap_or(0.0);
    if !(speed.is_finite() && speed >= 0.0) {
        return Err(format!("--movement-speed must be >= 0, got {speed}").into());
    }
    if !args.direction.is_finite() {
        return Err(format!("--direction must be finite, got {}", args.direction).into());
    }
    let mut settings = LocomotionSettings {
        movement_speed: speed,
        direction_deg: args.direction,
        speed_matching: !args.no_speed_match,
        stride_warping: !args.no_warp,
        ..LocomotionSettings::default()
    };
    if args.foot_lock && args.no_warp {
        return Err(
            "--foot-lock works through the foot IK of stride warping: drop --no-warp".into(),
        );
    }
    settings.foot_lock = args.foot_lock;
    if let Some(scale) = args.stride_scale {
        let dir = args.stride_direction.unwrap_or(0.0);
        if !(scale.is_finite() && scale >= 0.0 && dir.is_finite()) {
            return Err(format!(
                "--stride-scale must be >= 0 and --stride-direction finite, got {scale} and {dir}"
            )
            .into());
        }
        settings.manual_stride = Some(crate::stage::locomotion::ManualStride {
            direction_deg: dir,
            scale,
        });
    }
    if let Some(src) = &args.stride_source {
        settings.stride.speed_source = match src.as_str() {
            "cycle" | "average" => SpeedSource::CycleAverage,
            "frame" | "per-frame" => SpeedSource::PerFrame,
            other => {
                return Err(
                    format!("--stride-source '{other}': expected 'cycle' or 'frame'").into(),
                )
            }
        };
    }
    Ok(settings)
}

/// `--leg THIGH,CALF,FOOT` (repeated): the legs `model` uses from now on, for every
/// analysis and the drive (nothing when none is given).
pub fn apply_legs(model: &mut Model, args: &TraceArgs) -> Result<(), CliError> {
    if args.leg.is_empty() {
        return Ok(());
    }
    let overrides: Vec<LegOverride> = args
        .leg
        .iter()
        .map(|(t, c, f)| LegOverride {
            thigh: t,
            calf: c,
            foot: f,
        })
        .collect();
    let legs = legs_from_override(&model.skeleton, &overrides)?;
    model
        .set_leg_override(Some(legs))
        .with_context(|| "--leg".to_string())
}

fn v3(v: glam::Vec3) -> [f32; 3] {
    [v.x, v.y, v.z]
}

/// Runs the trace.
pub fn report(model: &Model, args: &TraceArgs) -> Result<LocomotionTraceReport, CliError> {
    if !(args.fps.is_finite() && args.fps > 0.0) {
        return Err(format!("--fps must be a positive number, got {}", args.fps).into());
    }
    let (scenario, text) = match graph_trace::scenario_from_args(args, 4.0)? {
        Some(st) => st,
        None => {
            let clip = super::clip_index(model, args.clip.as_deref())?;
            let seconds = args
                .seconds
                .unwrap_or(4.0 * f64::from(model.clips[clip].duration_secs()).max(0.25));
            (
                graph_trace::clip_scenario(model, clip, args.fps, seconds),
                String::new(),
            )
        }
    };
    let source_name = args
        .scenario
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "--movement-speed".into());
    let graph = graph_trace::build_graph(model, &scenario, Path::new(&source_name), &text)?;
    let mut session = GraphSession::driven(model, graph, locomotion_settings(args)?)?;
    let fps = scenario.fps;
    let mut run = ScenarioRun::new(scenario).with_context(|| source_name.to_string())?;
    let mut frames = Vec::with_capacity(run.frame_count() as usize + 1);
    // (leader cycles, stride scale) of played frames, for the last-cycle mean.
    let mut scales: Vec<(f64, f32)> = Vec::new();
    let loco = session.locomotion.as_ref().expect("driven");
    let leg_names: Vec<String> = loco
        .legs()
        .iter()
        .map(|l| model.skeleton.names()[l.foot].clone())
        .collect();
    // The window's driven graph source, moved by the scenario.
    for _ in 0..=run.frame_count() {
        let frame = run.frame();
        let kind = run.step(model, &mut session)?;
        let graph = &session.graph;
        let loco = session.locomotion.as_ref().expect("driven");
        let leader = graph.leader();
        if kind == FrameKind::Play {
            scales.push((leader.cycles(), loco.warp.scale));
        }
        let world = loco.world_from_root;
        let feet = loco
            .legs()
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let f = loco.warp.feet.get(i).copied().unwrap_or_default();
                FootRow {
                    leg: format!("{} ({})", l.name, model.skeleton.names()[l.foot]),
                    target: v3(f.target),
                    origin: v3(f.ik_origin),
                    reached: loco.reached.get(i).copied().unwrap_or(false),
                    clamped: f.clamped,
                    planted: loco.planted[i],
                    slide_mps: loco.slide.speeds().get(i).copied().flatten(),
                }
            })
            .collect();
        frames.push(LocomotionFrame {
            frame,
            event: kind.as_str(),
            wall_secs: run.time_of(frame),
            clip: model.clips[leader.clip].name().to_string(),
            time_secs: leader.clock.time().phase_secs,
            play_rate: graph.rate(),
            stride_scale: loco.warp.scale,
            stride_target_scale: loco.warp.target_scale,
            root_speed_mps: loco.warp.root_speed,
            stride_direction: v3(loco.warp.direction),
            pelvis_offset: v3(loco.warp.pelvis_offset),
            pelvis_offset_m: loco.warp.pelvis_offset.length(),
            body_yaw_deg: loco.orientation.body_yaw_rad.to_degrees(),
            feet,
            world_x_m: world.translation.x,
            world_z_m: world.translation.y,
            world_yaw_deg: world.yaw_rad.to_degrees(),
        });
    }
    let lead_clip = session.graph.leader().clip;
    let graph = &session.graph;
    let loco = session.locomotion.as_mut().expect("driven");
    let last_cycles = scales.last().map_or(0.0, |s| s.0);
    let window: Vec<f32> = scales
        .iter()
        .filter(|s| (last_cycles - s.0).abs() <= 1.0)
        .map(|s| s.1)
        .collect();
    let stride_scale = if window.is_empty() {
        f64::from(loco.warp.scale)
    } else {
        window.iter().map(|&s| f64::from(s)).sum::<f64>() / window.len() as f64
    };
    let distance_m = frames
        .windows(2)
        .map(|w| {
            let (a, b) = (&w[0], &w[1]);
            ((b.world_x_m - a.world_x_m).powi(2) + (b.world_z_m - a.world_z_m).powi(2)).sqrt()
        })
        .sum();
    let lead = loco.clip(model, lead_clip)?.clone();
    let in_place = lead.in_place();
    let summary = LocomotionSummary {
        movement_speed_mps: loco.settings.movement_speed,
        direction_deg: loco.settings.direction_deg,
        speed_matching: loco.settings.speed_matching,
        stride_warping: loco.settings.stride_warping,
        stride_source: loco.settings.stride.speed_source.as_str(),
        stride_mode: if loco.settings.manual_stride.is_some() {
            "manual"
        } else {
            "graph"
        },
        foot_lock: loco.settings.foot_lock,
        play_rate: graph.rate(),
        stride_scale,
        clip_speed_mps: loco.anim_speed,
        in_place,
        in_place_reason: lead.in_place.reason.clone(),
        implied_speed_mps: lead.implied.as_ref().map(|i| f64::from(i.speed)),
        implied_spread: lead.implied.as_ref().map(|i| f64::from(i.spread)),
        slide_m_per_cycle: loco.slide.slide_per_cycle(loco.cycles_played),
        skating_ratio: loco.slide.skating_ratio(),
        cycles_played: loco.cycles_played,
        distance_m,
        legs: leg_names,
        unit_scale: loco.unit_scale(),
        warnings: loco.warnings.clone(),
    };
    Ok(LocomotionTraceReport {
        source: model.source.clone(),
        setup: (),
        fps,
        frames,
        summary,
    })
}

/// Text output: a line per frame, then the summary.
pub fn text(report: &LocomotionTraceReport) -> String {
    let mut out = String::new();
    let s = &report.summary;
    let _ = writeln!(
        out,
        "# {} at {} fps: movement {:.3} m/s at {:.1} deg, speed matching {}, stride warping {} ({})",
        report.source,
        report.fps,
        s.movement_speed_mps,
        s.direction_deg,
        if s.speed_matching { "on" } else { "off" },
        if s.stride_warping { "on" } else { "off" },
        s.stride_source
    );
    let _ = writeln!(
        out,
        "{:>6} {:>5} {:>8} {:<10} {:>6} {:>6} {:>8} {:>8}  feet (slide m/s)",
        "frame", "event", "wall_s", "clip", "rate", "stride", "pelvis_m", "root_m/s"
    );
    for f in &report.frames {
        let feet: Vec<String> = f
            .feet
            .iter()
            .map(|ft| match ft.slide_mps {
                Some(v) => format!("{:.3}", v),
                None if ft.planted => "down".into(),
                None => "-".into(),
            })
            .collect();
        let _ = writeln!(
            out,
            "{:>6} {:>5} {:>8.4} {:<10} {:>6.3} {:>6.3} {:>8.4} {:>8.3}  {}",
            f.frame,
            f.event,
            f.wall_secs,
            f.clip,
            f.play_rate,
            f.stride_scale,
            f.pelvis_offset_m,
            f.root_speed_mps,
            feet.join(" ")
        );
    }
    let _ = writeln!(
        out,
        "summary: play rate {:.4}, stride scale {:.4} (last cycle), clip speed {:.4} m/s{}, slide {:.2} cm/cycle, skating {:.1}% of frames, {:.2} cycles, {:.3} m",
        s.play_rate,
        s.stride_scale,
        s.clip_speed_mps,
        match (s.implied_speed_mps, s.in_place) {
            (Some(v), true) => format!(" (in place, implied from the feet: {v:.4} m/s)"),
            (Some(v), false) => format!(" (root motion; the feet imply {v:.4} m/s)"),
            (None, _) => String::new(),
        },
        s.slide_m_per_cycle * 100.0,
        s.skating_ratio * 100.0,
        s.cycles_played,
        s.distance_m
    );
    let _ = writeln!(
        out,
        "{}: {}",
        if s.in_place {
            "in place"
        } else {
            "root motion"
        },
        s.in_place_reason
    );
    for w in &s.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}
