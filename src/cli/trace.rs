//! `stridescope trace`: a clip played frame by frame (root motion, placement, the
//! clock) as text or JSON.

use std::fmt::Write as _;

use serde::Serialize;

use super::args::TraceArgs;
use super::joint_by_name;
use super::{graph_trace, locomotion_trace, matching_trace};
use crate::anim::{ClipRootMotion, PlaybackClock};
use crate::asset::Model;
use crate::stage::source::MotionSource;
use crate::stage::timeline::{RootMotionMode, Timeline};
use crate::{CliError, Context as _};

/// One row of `stridescope trace`.
#[derive(Debug, Serialize, PartialEq)]
pub struct TraceFrame {
    /// Frame number: 0 is the start row, then one per `1 / fps` seconds of wall time.
    pub frame: u64,
    /// What happened this frame: "start", "play" or "seek".
    pub event: &'static str,
    /// Unwrapped clip seconds (cycle * duration + phase).
    pub time_secs: f64,
    /// Whole cycles played since clip time 0 (negative before it, e.g. playing in reverse).
    pub cycle: i64,
    /// Phase in [0, 1).
    pub phase: f64,
    /// Root-motion delta of this frame in the root's frame at the frame start (metres,
    /// model X/Z) and its yaw (degrees).
    pub delta_x_m: f64,
    /// Model Z of this frame's root-motion delta, metres (see `delta_x_m`).
    pub delta_z_m: f64,
    /// Turn of this frame's root-motion delta about +Y, degrees (counter-clockwise seen from
    /// above).
    pub delta_yaw_deg: f64,
    /// Accumulated world placement of the root (metres, degrees).
    pub world_x_m: f64,
    /// World Z of the root's accumulated placement, metres.
    pub world_z_m: f64,
    /// World yaw of the root's accumulated placement, degrees (unwrapped).
    pub world_yaw_deg: f64,
}

/// The report of every scenario trace (`trace --blend` / `--scenario`, `--movement-speed`,
/// `--motion-matching`): the file, what is particular to that trace's setup (`setup`,
/// written into the same JSON object: nothing for the graph and locomotion traces, the
/// database for motion matching), the run's rate, one row per frame and a summary.
/// `--json` prints it; the text form is each trace's own.
#[derive(Debug, Serialize)]
pub struct ScenarioTrace<Setup, Frame, Summary> {
    /// Display name of the file (its file name, or `demo`).
    pub source: String,
    /// What this trace reports about its setup, flattened into the report's object.
    #[serde(flatten)]
    pub setup: Setup,
    /// Frames per second of the run: `--fps` without a scenario, else the scenario
    /// file's `fps` (default 60).
    pub fps: f64,
    /// Row 0 (`start`), then one row per frame played or seeked.
    pub frames: Vec<Frame>,
    /// The whole run at a glance.
    pub summary: Summary,
}

/// The report of `stridescope trace` (plain playback): the clip, the settings and one row per
/// frame; `trace --json` prints it.
#[derive(Debug, Serialize)]
pub struct TraceReport {
    /// Display name of the file (its file name, or `demo`).
    pub source: String,
    /// Name of the clip played.
    pub clip: String,
    /// Clip length, seconds.
    pub duration_secs: f64,
    /// Frames per second of the simulated playback (`--fps`).
    pub fps: f64,
    /// Play rate (`--rate`; negative plays in reverse).
    pub rate: f64,
    /// The joint root motion is taken from; `null` when the clip has no root motion.
    pub root_joint: Option<String>,
    /// Row 0 (`start`), then one row per frame played or seeked.
    pub frames: Vec<TraceFrame>,
}

/// The clip named `name` (`None`: the first clip that animates, see
/// [`Model::default_clip`]); an unknown name lists the clips.
pub fn clip_index(model: &Model, name: Option<&str>) -> Result<usize, CliError> {
    match name {
        Some(name) => model.find_clip(name).ok_or_else(|| {
            let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
            CliError::usage(format!(
                "no clip named '{name}'; clips: {}",
                names.join(", ")
            ))
        }),
        None if model.clips.is_empty() => {
            Err(format!("{}: has no animations", model.source).into())
        }
        None => Ok(model.default_clip().unwrap_or(0)),
    }
}

/// Plays a clip frame by frame (see [`TraceArgs`]).
pub fn trace_report(model: &Model, args: &TraceArgs) -> Result<TraceReport, CliError> {
    if !(args.fps.is_finite() && args.fps > 0.0) {
        return Err(format!("--fps must be a positive number, got {}", args.fps).into());
    }
    let clip_index = clip_index(model, args.clip.as_deref())?;
    let clip = &model.clips[clip_index];
    let duration = clip.duration_secs() as f64;
    let seconds = args.seconds.unwrap_or(2.0 * duration.max(1.0 / args.fps));
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(format!("--seconds must be a non-negative number, got {seconds}").into());
    }
    let frame_count = (seconds * args.fps).round();
    const MAX_FRAMES: f64 = 10_000_000.0;
    if frame_count > MAX_FRAMES {
        return Err(
            format!("{frame_count} frames requested; at most {MAX_FRAMES} per trace").into(),
        );
    }
    let override_joint = joint_by_name(&model.skeleton, args.root_joint.as_deref())?;
    let root = ClipRootMotion::for_clip(&model.skeleton, clip, override_joint)
        .with_context(|| format!("clip '{}'", clip.name()))?;
    let root_joint = root
        .as_ref()
        .map(|r| model.skeleton.names()[r.source.joint].clone());
    // The rate is checked here for its message; the timeline then plays at it.
    PlaybackClock::new(1.0)?
        .set_rate(args.rate)
        .with_context(|| "--rate".to_string())?;
    // The window's path: the clip's timeline moved by the clip source, with the root
    // motion chosen here (the file's root track, or `--root-joint`'s).
    let mut timeline = Timeline::new(model);
    timeline.select_clip_with_root(model, clip_index, root.clone());
    timeline.set_mode(RootMotionMode::Accumulate);
    timeline.set_rate(args.rate);
    timeline.set_looping(!args.no_loop);
    timeline.resume();
    let mut source = MotionSource::Clip;
    let dt = 1.0 / args.fps;
    let mut frames = Vec::with_capacity(frame_count as usize + 1);
    let row = |frame: u64,
               event: &'static str,
               timeline: &Timeline,
               delta: crate::anim::GroundTransform| {
        let t = timeline.clock().time();
        let world = timeline.world_from_root();
        TraceFrame {
            frame,
            event,
            time_secs: t.to_secs(duration),
            cycle: t.cycle,
            phase: if duration > 0.0 {
                t.phase_secs / duration
            } else {
                0.0
            },
            delta_x_m: delta.translation.x,
            delta_z_m: delta.translation.y,
            delta_yaw_deg: delta.yaw_rad.to_degrees(),
            world_x_m: world.translation.x,
            world_z_m: world.translation.y,
            world_yaw_deg: world.yaw_rad.to_degrees(),
        }
    };
    let identity = crate::anim::GroundTransform::IDENTITY;
    frames.push(row(0, "start", &timeline, identity));
    for frame in 1..=frame_count as u64 {
        if let Some(&(t, _)) = args.seek.iter().rev().find(|s| s.1 == frame) {
            let before = timeline.error_count();
            timeline.seek_secs(t);
            if let Some(e) = timeline
                .error()
                .filter(|_| timeline.error_count() != before)
            {
                return Err(format!("--seek {t}@{frame}: {e}").into());
            }
            frames.push(row(frame, "seek", &timeline, identity));
            // Play on from there (a clip that does not loop rests where the seek put it).
            timeline.resume();
        } else {
            // A clip that does not loop rests at its end: no time passes, no motion.
            if !timeline.is_playing() {
                timeline.resume();
            }
            let delta = source
                .advance(model, &mut timeline, dt, 0.0)
                .with_context(|| format!("frame {frame}"))?;
            frames.push(row(frame, "play", &timeline, delta));
        }
    }
    Ok(TraceReport {
        source: model.source.clone(),
        clip: clip.name().to_string(),
        duration_secs: duration,
        fps: args.fps,
        rate: args.rate,
        root_joint,
        frames,
    })
}

pub(super) fn run(args: &TraceArgs, load: &crate::asset::LoadOptions) -> Result<String, CliError> {
    if args.motion_matching {
        let report = matching_trace::report(args, load)?;
        if args.json {
            return Ok(serde_json::to_string_pretty(&report)? + "\n");
        }
        return Ok(matching_trace::text(&report));
    }
    let mut model = super::load_model_with(args.file.as_deref(), load)?;
    args.in_place.apply(&mut model);
    locomotion_trace::apply_legs(&mut model, args)?;
    if args.movement_speed.is_some() {
        let report = locomotion_trace::report(&model, args)?;
        if args.json {
            return Ok(serde_json::to_string_pretty(&report)? + "\n");
        }
        return Ok(locomotion_trace::text(&report));
    }
    if args.blend.is_some() || args.scenario.is_some() {
        let report = graph_trace::report(&model, args)?;
        if args.json {
            return Ok(serde_json::to_string_pretty(&report)? + "\n");
        }
        return Ok(graph_trace::text(&report));
    }
    let report = trace_report(&model, args)?;
    if args.json {
        return Ok(serde_json::to_string_pretty(&report)? + "\n");
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} clip '{}' ({:.6} s) at {} fps, rate {}, root joint {}",
        report.source,
        report.clip,
        report.duration_secs,
        report.fps,
        report.rate,
        report.root_joint.as_deref().unwrap_or("none")
    );
    let _ = writeln!(
        out,
        "{:>6} {:>5} {:>12} {:>6} {:>8} {:>10} {:>10} {:>9} {:>12} {:>12} {:>10}",
        "frame",
        "event",
        "time_s",
        "cycle",
        "phase",
        "dx_m",
        "dz_m",
        "dyaw_deg",
        "world_x_m",
        "world_z_m",
        "yaw_deg"
    );
    for f in &report.frames {
        let _ = writeln!(
            out,
            "{:>6} {:>5} {:>12.6} {:>6} {:>8.5} {:>10.6} {:>10.6} {:>9.4} {:>12.6} {:>12.6} {:>10.4}",
            f.frame,
            f.event,
            f.time_secs,
            f.cycle,
            f.phase,
            f.delta_x_m,
            f.delta_z_m,
            f.delta_yaw_deg,
            f.world_x_m,
            f.world_z_m,
            f.world_yaw_deg
        );
    }
    Ok(out)
}
