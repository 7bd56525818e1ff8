//! `stridescope trace` through the pose graph: `--blend A,B --weight W [--offset PHASE]
//! [--no-sync | --sync MODE]` and `--scenario FILE`. Prints per frame every input's clip
//! time and weight, the state machine, root motion and the phase-cancellation measure,
//! and ends with a summary object.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::anim::state_machine::Slot;
use crate::asset::Model;
use crate::graph::def::{self, BlendInputDef, GraphDef, NodeDef, SyncMode, Weight};
use crate::graph::PoseGraph;
use crate::stage::scenario::Scenario;
use crate::stage::scenario::ScenarioRun;
use crate::stage::session::GraphSession;
use crate::{CliError, Context as _};

use super::TraceArgs;

/// One input of the pose graph at one frame: a clip being played, with its weight.
#[derive(Debug, Serialize)]
pub struct InputRow {
    /// Name of the clip the input plays.
    pub clip: String,
    /// State (state machines) or layer name.
    pub owner: Option<String>,
    /// `true` for a layer's clip (it adds no root motion).
    pub layer: bool,
    /// Clip seconds within the input's cycle.
    pub time_secs: f64,
    /// Phase within the cycle, in [0, 1).
    pub phase: f64,
    /// Effective weight (0..1).
    pub weight: f32,
}

/// One row of the graph trace: the frame's inputs, state machine, root motion and placement.
#[derive(Debug, Serialize)]
pub struct GraphFrame {
    /// Frame number: 0 is the start row, then one per `1 / fps` seconds of wall time.
    pub frame: u64,
    /// What happened this frame: `start`, `play` or `seek`.
    pub event: &'static str,
    /// Wall seconds since the start.
    pub wall_secs: f64,
    /// Name of the leading clip: the base input with the highest weight.
    pub leader: String,
    /// Leader's clip seconds within its cycle.
    pub time_secs: f64,
    /// Current state of the base state machine; `null` without a state machine.
    pub state: Option<String>,
    /// `(from, to, weight of to)` while a cross-fade runs.
    pub transition: Option<(String, String, f32)>,
    /// Every input with weight > 0, heaviest first, then the layers.
    pub inputs: Vec<InputRow>,
    /// This frame's blended root-motion delta in the root's frame at the frame start: model X,
    /// metres (0 on `start` and `seek` rows).
    pub delta_x_m: f64,
    /// Model Z of the frame's root-motion delta, metres.
    pub delta_z_m: f64,
    /// Turn of the frame's root-motion delta about +Y, degrees (counter-clockwise seen from
    /// above).
    pub delta_yaw_deg: f64,
    /// Horizontal root speed of this frame (m/s).
    pub speed_mps: f64,
    /// World X of the root's accumulated placement, metres.
    pub world_x_m: f64,
    /// World Z of the root's accumulated placement, metres.
    pub world_z_m: f64,
    /// World yaw of the root's accumulated placement, degrees (unwrapped).
    pub world_yaw_deg: f64,
    /// Markers crossed this frame (foot contacts...).
    pub events: Vec<String>,
    /// Phase-cancellation measure when two or more inputs blend.
    pub amplitude_drop: Option<f64>,
}

/// One input of the graph at the last frame, for the summary.
#[derive(Debug, Serialize)]
pub struct LayerSummary {
    /// Name of the clip the input plays.
    pub clip: String,
    /// State (state machines) or layer name; `null` for a plain blend input.
    pub owner: Option<String>,
    /// Clip seconds within the input's cycle.
    pub time_secs: f64,
    /// Effective weight (0..1).
    pub weight: f32,
}

/// What the whole graph trace found: phase cancellation, sync, final state, distance.
#[derive(Debug, Serialize)]
pub struct GraphSummary {
    /// True when any frame's blend lost at least `PHASE_WARNING_DROP` of its leg swing.
    pub phase_warning: bool,
    /// Largest amplitude drop (0..1) seen over the run (0 with a single input).
    pub amplitude_drop: f64,
    /// Leg-swing range of the inputs (weighted mean of each input's `max - min` swing angle,
    /// degrees) in the last frame with a phase measure (two or more inputs); `null` when none
    /// had one.
    pub input_amplitude_deg: Option<f64>,
    /// Leg-swing range of the blended pose in that frame, degrees; `null` when no frame
    /// blended.
    pub blend_amplitude_deg: Option<f64>,
    /// How marker sync aligned followers that could not pair every shared marker with
    /// their leader (each distinct line once, in order of appearance).
    pub sync_notes: Vec<String>,
    /// State of the base state machine at the last frame; `null` without a state machine.
    pub final_state: Option<String>,
    /// Distance the root travelled on the ground over the run (sum of the frames' world
    /// moves), metres.
    pub distance_m: f64,
    /// Every input at the last frame (clip time and weight), layers included.
    pub layers: Vec<LayerSummary>,
}

/// The report of `stridescope trace --blend` or `--scenario`: one row per frame and a summary;
/// `--json` prints it.
pub type GraphTraceReport = super::ScenarioTrace<(), GraphFrame, GraphSummary>;

/// The graph for `--blend A,B --weight W --offset PHASE`.
pub fn blend_graph(args: &TraceArgs, blend: &[String]) -> Result<GraphDef, CliError> {
    if blend.len() < 2 {
        return Err(format!(
            "--blend needs at least two clips separated by commas, got '{}'",
            blend.join(",")
        )
        .into());
    }
    let w = args.weight.unwrap_or(0.5);
    if !(w.is_finite() && (0.0..=1.0).contains(&w)) {
        return Err(format!("--weight must be in 0..1, got {w}").into());
    }
    let offset = args.offset.unwrap_or(0.0);
    if !offset.is_finite() {
        return Err(format!("--offset must be finite, got {offset}").into());
    }
    let n = blend.len();
    // Two clips: A gets 1 - W, B gets W. More: the last gets W, the others share 1 - W.
    let inputs = blend
        .iter()
        .enumerate()
        .map(|(i, clip)| BlendInputDef {
            clip: clip.trim().to_string(),
            weight: Weight::Fixed(if i == n - 1 {
                w
            } else {
                (1.0 - w) / (n - 1) as f32
            }),
            offset: if i == 0 { 0.0 } else { offset },
        })
        .collect();
    let sync = if args.no_sync {
        SyncMode::None
    } else {
        args.sync.unwrap_or(SyncMode::Markers)
    };
    Ok(GraphDef {
        params: Vec::new(),
        base: NodeDef::Blend { inputs, sync },
        layers: Vec::new(),
    })
}

/// A scenario with no events that plays clip `clip` alone (a one-clip graph).
pub fn clip_scenario(model: &Model, clip: usize, fps: f64, seconds: f64) -> Scenario {
    Scenario {
        graph: Some(GraphDef {
            params: Vec::new(),
            base: NodeDef::Clip {
                clip: model.clips[clip].name().to_string(),
                rate: 1.0,
            },
            layers: Vec::new(),
        }),
        fps,
        seconds,
        events: Vec::new(),
        motion_matching: None,
    }
}

/// Loads a scenario file (RON); also returns its text, to place later errors on a line.
pub fn load_scenario(path: &Path) -> Result<(Scenario, String), CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::file(path, "read", e))?;
    Ok((def::parse_ron(&text, path)?, text))
}

/// Builds the scenario's graph; a semantic error (unknown clip, parameter or state) names
/// the file and the line of the state or layer it is about.
pub fn build_graph(
    model: &Model,
    scenario: &Scenario,
    path: &Path,
    text: &str,
) -> Result<PoseGraph, CliError> {
    let graph_def = scenario_graph(model, scenario)?;
    PoseGraph::new(model, &graph_def).map_err(|e| {
        let said = e.to_string();
        let line = ["state '", "layer '"].iter().find_map(|prefix| {
            let start = said.find(prefix)? + prefix.len();
            let name = &said[start..start + said[start..].find('\'')?];
            def::line_of_name(text, name)
        });
        match line {
            Some(l) => CliError::from(e).context(format!("{}:{l}", path.display())),
            None => CliError::from(e).context(path.display().to_string()),
        }
    })
}

/// The graph a scenario runs: its own, or the model's default.
pub fn scenario_graph(model: &Model, scenario: &Scenario) -> Result<GraphDef, CliError> {
    match &scenario.graph {
        Some(g) => Ok(g.clone()),
        None => {
            let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
            let additive: Vec<bool> = model.clips.iter().map(|c| c.is_additive()).collect();
            def::default_graph(&names, &additive)
                .ok_or_else(|| CliError::usage(format!("{}: has no animations", model.source)))
        }
    }
}

/// The scenario `trace` runs for `--scenario FILE` (with the file's text, to place later
/// errors on a line) or `--blend A,B` (`blend_secs` long unless `--seconds` says);
/// `None` for neither. `--seconds` overrides a file's length too.
pub fn scenario_from_args(
    args: &TraceArgs,
    blend_secs: f64,
) -> Result<Option<(Scenario, String)>, CliError> {
    match (&args.scenario, &args.blend) {
        (Some(path), _) => {
            let (mut s, text) = load_scenario(path)?;
            if let Some(sec) = args.seconds {
                s.seconds = sec;
            }
            Ok(Some((s, text)))
        }
        (None, Some(blend)) => {
            if !(args.fps.is_finite() && args.fps > 0.0) {
                return Err(format!("--fps must be a positive number, got {}", args.fps).into());
            }
            let scenario = Scenario {
                graph: Some(blend_graph(args, blend)?),
                fps: args.fps,
                seconds: args.seconds.unwrap_or(blend_secs),
                events: Vec::new(),
                motion_matching: None,
            };
            Ok(Some((scenario, String::new())))
        }
        (None, None) => Ok(None),
    }
}

/// Runs the graph trace.
pub fn report(model: &Model, args: &TraceArgs) -> Result<GraphTraceReport, CliError> {
    let (scenario, text) = scenario_from_args(args, 2.0)?
        .ok_or_else(|| "graph trace needs --blend or --scenario".to_string())?;
    let source_name = args
        .scenario
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "--blend".into());
    let mut graph = build_graph(model, &scenario, Path::new(&source_name), &text)?;
    if args.rate != 1.0 {
        graph
            .set_rate(args.rate)
            .with_context(|| "--rate".to_string())?;
    }
    let fps = scenario.fps;
    let mut run = ScenarioRun::new(scenario).with_context(|| source_name.to_string())?;
    let mut frames = Vec::with_capacity(run.frame_count() as usize + 1);
    let mut max_drop: f64 = 0.0;
    let mut warning = false;
    let mut amplitudes = None;
    let mut sync_notes: Vec<String> = Vec::new();
    let dt = run.dt_secs();
    // The window's graph source, driven by the scenario.
    let mut session = GraphSession::from_graph(graph);
    for _ in 0..=run.frame_count() {
        let frame = run.frame();
        let kind = run.step(model, &mut session)?;
        let graph = &session.graph;
        let drop = graph.phase_report().map(|r| {
            max_drop = max_drop.max(r.amplitude_drop);
            warning |= r.warning;
            amplitudes = Some((r.input_amplitude_deg, r.blend_amplitude_deg));
            r.amplitude_drop
        });
        for note in graph.sync_notes() {
            if !sync_notes.contains(note) {
                sync_notes.push(note.clone());
            }
        }
        let delta = if kind == crate::stage::scenario::FrameKind::Play {
            graph.root_delta()
        } else {
            crate::anim::GroundTransform::IDENTITY
        };
        let world = run.world_from_root;
        let leader = graph.leader();
        let sm = graph.state_machine();
        frames.push(GraphFrame {
            frame,
            event: kind.as_str(),
            wall_secs: run.time_of(frame),
            leader: model.clips[leader.clip].name().to_string(),
            time_secs: leader.clock.time().phase_secs,
            state: sm.map(|m| m.state_name(m.current()).to_string()),
            transition: sm.and_then(|m| {
                m.transition_progress().map(|(from, to, w)| {
                    let from = match from {
                        Slot::State(s) => m.state_name(s).to_string(),
                        Slot::Snapshot => "(snapshot)".to_string(),
                    };
                    (from, m.state_name(to).to_string(), w)
                })
            }),
            inputs: graph
                .status(model)
                .into_iter()
                .map(|s| InputRow {
                    clip: s.clip,
                    owner: s.owner,
                    layer: s.is_layer,
                    time_secs: s.time_secs,
                    phase: s.phase,
                    weight: s.weight,
                })
                .collect(),
            delta_x_m: delta.translation.x,
            delta_z_m: delta.translation.y,
            delta_yaw_deg: delta.yaw_rad.to_degrees(),
            speed_mps: delta.translation.length() / dt,
            world_x_m: world.translation.x,
            world_z_m: world.translation.y,
            world_yaw_deg: world.yaw_rad.to_degrees(),
            events: graph.events().to_vec(),
            amplitude_drop: drop,
        });
    }
    let graph = &session.graph;
    let sm = graph.state_machine();
    let distance_m = frames
        .windows(2)
        .map(|w| {
            let (a, b) = (&w[0], &w[1]);
            ((b.world_x_m - a.world_x_m).powi(2) + (b.world_z_m - a.world_z_m).powi(2)).sqrt()
        })
        .sum();
    let summary = GraphSummary {
        phase_warning: warning,
        amplitude_drop: max_drop,
        input_amplitude_deg: amplitudes.map(|a| a.0),
        blend_amplitude_deg: amplitudes.map(|a| a.1),
        sync_notes,
        final_state: sm.map(|m| m.state_name(m.current()).to_string()),
        distance_m,
        layers: graph
            .status(model)
            .into_iter()
            .map(|s| LayerSummary {
                clip: s.clip,
                owner: s.owner,
                time_secs: s.time_secs,
                weight: s.weight,
            })
            .collect(),
    };
    Ok(GraphTraceReport {
        source: model.source.clone(),
        setup: (),
        fps,
        frames,
        summary,
    })
}

/// Text output: one line per frame, then the summary.
pub fn text(report: &GraphTraceReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} at {} fps (pose graph)",
        report.source, report.fps
    );
    for f in &report.frames {
        let inputs: Vec<String> = f
            .inputs
            .iter()
            .map(|i| format!("{}@{:.3}s x{:.3}", i.clip, i.time_secs, i.weight))
            .collect();
        let _ = writeln!(
            out,
            "{:>6} {:>5} {:>8.4}s {:<10} speed {:>7.4} m/s world ({:>9.4}, {:>9.4}) {}{}",
            f.frame,
            f.event,
            f.wall_secs,
            f.state.as_deref().unwrap_or("-"),
            f.speed_mps,
            f.world_x_m,
            f.world_z_m,
            inputs.join(" "),
            f.amplitude_drop
                .map(|d| format!(" drop {:.0}%", d * 100.0))
                .unwrap_or_default()
        );
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "summary: phase warning {} (amplitude drop {:.1}%), distance {:.4} m, final state {}",
        if s.phase_warning { "YES" } else { "no" },
        s.amplitude_drop * 100.0,
        s.distance_m,
        s.final_state.as_deref().unwrap_or("-")
    );
    if s.phase_warning {
        let _ = writeln!(
            out,
            "warning: the blended inputs are out of phase: the leg swing drops by {:.0}% (turn sync on or fix the phase offset)",
            s.amplitude_drop * 100.0
        );
    }
    for note in &s.sync_notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}
