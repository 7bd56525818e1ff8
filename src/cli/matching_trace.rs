//! `stridescope trace [FILE] --motion-matching [--scenario PATH.ron] [--json]`: drives a
//! motion-matching session headless with a scenario's `Move` / `Stand` / `Tags` events
//! and prints per frame the chosen clip and time, the cost and its groups, whether it
//! jumped and the trajectory error, then a summary. Deterministic: the same scenario
//! gives the same bytes, with the accelerated search or brute force (`--brute-force`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::anim::motion_matching::FEATURE_GROUPS;
use crate::asset::{self, Model};
use crate::stage::character::Character;
use crate::stage::matching::{MatchingDef, MatchingSession};
use crate::stage::scenario::{Action, Scenario, ScenarioEvent};
use crate::stage::source::{MatchingPlay, MotionSource};
use crate::CliError;

use super::matching_inputs::ScenarioInputs;
use super::TraceArgs;

/// One frame of the motion-matching trace: what plays, the search, the cost, and where the
/// character and the simulated point stand.
#[derive(Debug, Serialize)]
pub struct MatchingTraceFrame {
    /// Frame number of the run: 0 for the first.
    pub frame: u64,
    /// Seconds of the run so far, this frame's step included.
    pub time_secs: f64,
    /// Name of the clip playing after this frame's decision.
    pub clip: String,
    /// Clip time of the playing clip, seconds (wrapped for looping clips).
    pub clip_time_secs: f64,
    /// A search ran this frame.
    pub searched: bool,
    /// The character jumped to another database frame this frame (a search's winner, or the
    /// standing frame).
    pub jumped: bool,
    /// Cost of what plays against this frame's query (`null` without a search).
    pub cost: Option<f32>,
    /// Per feature group (weighted squared distances), with `cost`.
    pub cost_groups: Option<BTreeMap<&'static str, f32>>,
    /// Cost of continuing the playing clip (with the continuing bias); `null` without a
    /// search, at a clip's end, or when the input's tags rule the playing frame out.
    pub continue_cost: Option<f32>,
    /// Horizontal distance between the character and the simulated point (m).
    pub trajectory_error_m: f32,
    /// World X of the character's facing frame after this frame's motion, metres.
    pub world_x_m: f64,
    /// World Z of the character's facing frame, metres.
    pub world_z_m: f64,
    /// World yaw of the character's facing frame, degrees.
    pub world_yaw_deg: f64,
    /// World X of the simulated point the character follows (after the drift clamp), metres.
    pub sim_x_m: f32,
    /// World Z of the simulated point, metres.
    pub sim_z_m: f32,
    /// Yaw of the simulated point, degrees.
    pub sim_yaw_deg: f32,
    /// Speed the scenario's input asks for this frame (its `Move` speed; 0 standing), m/s.
    pub desired_speed_mps: f32,
    /// The rate the playing clip ran at (the simulation's speed over the clip's, within
    /// the play-rate range).
    pub play_rate: f32,
    /// Standing on the database's slowest frame: the input stands and no frame of the
    /// database does (a library without an idle).
    pub holding: bool,
    /// Largest inertialization offset left after this frame: translation (cm) and
    /// rotation (degrees).
    pub offset_cm: f32,
    /// Rotation part of the inertialization offset left (see `offset_cm`), degrees.
    pub offset_deg: f32,
    /// Per leg (the model's leg order): how fast the foot slides over the ground while
    /// the playing clip has it planted (m/s, world); `null` while it is in the air.
    pub slide_mps: Vec<Option<f32>>,
}

/// What the whole motion-matching run found: jumps, dwell, trajectory error, clip time, foot
/// slide.
#[derive(Debug, Serialize)]
pub struct MatchingSummary {
    /// Frames recorded (the scenario's frames, the first included).
    pub frames: usize,
    /// Frames on which the character jumped.
    pub jumps: usize,
    /// Mean seconds between the start, the jumps and the end.
    pub mean_dwell_secs: f64,
    /// Mean of the frames' `trajectory_error_m`, metres.
    pub mean_trajectory_error_m: f64,
    /// Largest `trajectory_error_m` of the run, metres.
    pub max_trajectory_error_m: f32,
    /// Seconds each clip played.
    pub clip_secs: BTreeMap<String, f64>,
    /// Mean distance a planted foot slides over the ground per gait cycle (metres at the
    /// rig's scale; a foot is planted where the playing clip's contacts say so; a cycle
    /// is one touch-down of each foot), as `trace --movement-speed` reports it for
    /// locomotion.
    pub slide_m_per_cycle: f64,
    /// Frames in which a planted foot moves faster than 0.5 m/s (scaled to the rig) over
    /// all frames.
    pub skating_ratio: f64,
}

/// The report of `stridescope trace --motion-matching`: the database, the settings, one row
/// per frame and a summary; `--json` prints it.
pub type MatchingTraceReport =
    super::ScenarioTrace<MatchingSetup, MatchingTraceFrame, MatchingSummary>;

/// What `trace --motion-matching` reports about its database and settings (in the
/// report's object, beside `source` and `fps`).
#[derive(Debug, Serialize)]
pub struct MatchingSetup {
    /// Names of the database's clips, in database order (with `--mirror`, the mirrored
    /// copies too).
    pub clips: Vec<String>,
    /// With `--library`: the clip files read (`null` without).
    pub library_files: Option<usize>,
    /// With `--library --mirror`: whether mirrored copies entered too.
    pub mirrored: bool,
    /// With `--library`: seconds spent reading, retargeting and building the database
    /// (`null` without, so that the same trace gives the same bytes).
    pub build_secs: Option<f64>,
    /// Frames in the database, over all clips.
    pub database_frames: usize,
    /// Length of one frame's feature vector (all feature groups together).
    pub feature_dims: usize,
    /// Bytes the database holds, and per frame (features raw and normalised, the
    /// search's blocks and boxes, frame information).
    pub database_bytes: usize,
    /// `database_bytes` per frame (0 for an empty database).
    pub database_bytes_per_frame: f64,
    /// The style jumps land on (`null`: any; see `--style`).
    pub style: Option<String>,
    /// The keyboard's walk and run speeds (m/s), also the default scenario's.
    pub walk_speed_mps: f32,
    /// Run speed (see `walk_speed_mps`), m/s.
    pub run_speed_mps: f32,
    /// How the search ran: `accelerated`, or `brute_force` (`--brute-force`, or the
    /// scenario's `motion_matching` settings).
    pub search: &'static str,
}

/// The scenario used without `--scenario`: stand, walk, turn left, run, stop, at the
/// set's walk and run speeds (m/s).
pub fn default_scenario(walk_mps: f32, run_mps: f32) -> Scenario {
    let mv = |at: f64, speed: f32, heading: f32| ScenarioEvent {
        at_secs: at,
        action: Action::Move {
            speed_mps: speed,
            heading_deg: heading,
            facing_deg: None,
        },
    };
    Scenario {
        graph: None,
        fps: 60.0,
        seconds: 12.0,
        events: vec![
            mv(0.5, walk_mps, 0.0),
            mv(4.0, walk_mps, 90.0),
            mv(7.0, run_mps, 90.0),
            ScenarioEvent {
                at_secs: 9.5,
                action: Action::Stand,
            },
        ],
        motion_matching: None,
    }
}

/// The model for `trace --motion-matching`: the file, or the demo's locomotion set.
pub fn load(file: Option<&Path>, options: &asset::LoadOptions) -> Result<Model, CliError> {
    Ok(match file {
        Some(f) => asset::load_with(f, options)?,
        None => asset::load_from_slice(
            &asset::demo::locomotion_set_glb(),
            Path::new(asset::demo::LOCOMOTION_SET_NAME),
        )?,
    })
}

pub use crate::stage::retarget::library_model;

/// Runs the trace.
pub fn report(
    args: &TraceArgs,
    options: &asset::LoadOptions,
) -> Result<MatchingTraceReport, CliError> {
    let started = std::time::Instant::now();
    let (mut model, library_files, sidecar_tags) = if args.library.is_empty() {
        (load(args.file.as_deref(), options)?, None, Vec::new())
    } else {
        let (m, n, tags) = crate::stage::retarget::library_model_using(
            args.file.as_deref(),
            &args.library,
            args.mirror,
            options,
            !args.no_cache,
        )?;
        (m, Some(n), tags)
    };
    args.in_place.apply(&mut model);
    let scenario = match &args.scenario {
        Some(p) => Some(super::graph_trace::load_scenario(p)?.0),
        None => None,
    };
    let mut def: MatchingDef = scenario
        .as_ref()
        .and_then(|s| s.motion_matching.clone())
        .unwrap_or_default();
    if args.brute_force {
        def.accelerated = false;
    }
    if let Some(style) = &args.style {
        def.style = Some(style.clone());
    }
    // The library's sidecar tags join the scenario's.
    def.tags.extend(sidecar_tags);
    // The cache is named after FILE and keyed by its clips; a library's (made in memory)
    // after its content key.
    let session = match (args.no_cache, library_files.is_some()) {
        (true, _) => MatchingSession::new(&model, def, None)?,
        (false, true) => MatchingSession::new_cached_by_content(&model, def)?,
        (false, false) => MatchingSession::new(&model, def, args.file.as_deref())?,
    };
    let build_secs = started.elapsed().as_secs_f64();
    let scenario =
        scenario.unwrap_or_else(|| default_scenario(session.walk_speed_mps, session.run_speed_mps));
    if !(scenario.fps.is_finite() && scenario.fps > 0.0 && scenario.fps <= 1000.0) {
        return Err(format!("scenario: fps must be in (0, 1000], got {}", scenario.fps).into());
    }
    if !(scenario.seconds.is_finite()
        && scenario.seconds >= 0.0
        && scenario.seconds * scenario.fps <= 1_000_000.0)
    {
        return Err(format!(
            "scenario: seconds must be >= 0 and give at most 1,000,000 frames, got {}",
            scenario.seconds
        )
        .into());
    }
    if let crate::stage::matching::cache::CacheOutcome::Skipped(why) = &session.cache {
        if args.file.is_some() && !args.no_cache {
            eprintln!("motion matching cache not used: {why}");
        }
    }
    let mut character = Character::new(model, args.file.clone());
    character.source = MotionSource::Matching(Box::new(MatchingPlay::new(session)));
    // MatchingPlay turns the debugger's list of dropped candidates on (the window shows
    // it); a trace does not print it.
    if let Some(m) = character.source.matching_mut() {
        m.session.set_explain(false);
    }
    let (frames, summary) = run_scenario(&mut character, &scenario)?;
    let model = &character.model;
    let session = &character
        .source
        .matching()
        .ok_or("motion matching stopped moving the character")?
        .session;
    Ok(MatchingTraceReport {
        source: model.source.clone(),
        setup: MatchingSetup {
            clips: session.db.clips().iter().map(|c| c.name.clone()).collect(),
            library_files,
            mirrored: library_files.is_some() && args.mirror,
            build_secs: library_files.map(|_| build_secs),
            database_frames: session.db.frame_count(),
            feature_dims: session.db.dims(),
            database_bytes: session.db.bytes(),
            database_bytes_per_frame: session.db.bytes_per_frame(),
            style: session.style.clone(),
            walk_speed_mps: session.walk_speed_mps,
            run_speed_mps: session.run_speed_mps,
            search: if session.def.accelerated {
                "accelerated"
            } else {
                "brute_force"
            },
        },
        fps: scenario.fps,
        frames,
        summary,
    })
}

/// The report as text: one line per frame, then the summary.
pub fn text(r: &MatchingTraceReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}: motion matching over {} clips ({} frames, {} features, {:.1} MB: {:.0} bytes a frame), {} fps",
        r.source,
        r.setup.clips.len(),
        r.setup.database_frames,
        r.setup.feature_dims,
        r.setup.database_bytes as f64 / 1e6,
        r.setup.database_bytes_per_frame,
        r.fps
    );
    let _ = writeln!(
        out,
        "{:>6} {:>9} {:<20} {:>9} {:>5} {:>9} {:>9} {:>9} {:>9} {:>8}",
        "frame",
        "time_s",
        "clip",
        "clip_t_s",
        "jump",
        "cost",
        "world_x",
        "world_z",
        "yaw_deg",
        "err_m"
    );
    for f in &r.frames {
        let _ = writeln!(
            out,
            "{:>6} {:>9.4} {:<20} {:>9.4} {:>5} {:>9} {:>9.4} {:>9.4} {:>9.2} {:>8.4}",
            f.frame,
            f.time_secs,
            f.clip,
            f.clip_time_secs,
            if f.jumped { "jump" } else { "" },
            f.cost.map(|c| format!("{c:.4}")).unwrap_or_default(),
            f.world_x_m,
            f.world_z_m,
            f.world_yaw_deg,
            f.trajectory_error_m
        );
    }
    let s = &r.summary;
    let _ = writeln!(
        out,
        "# {} frames, {} jumps, mean dwell {:.3} s, trajectory error mean {:.4} m, max {:.4} m",
        s.frames, s.jumps, s.mean_dwell_secs, s.mean_trajectory_error_m, s.max_trajectory_error_m
    );
    let _ = writeln!(
        out,
        "# planted feet slide {:.4} m per cycle, skating in {:.1}% of frames",
        s.slide_m_per_cycle,
        s.skating_ratio * 100.0
    );
    for (clip, secs) in &s.clip_secs {
        let _ = writeln!(out, "#   {clip}: {secs:.3} s");
    }
    out
}

/// Runs `scenario` on `character`, whose motion source must be motion matching, from
/// the start (its session reset: standing at the origin with an empty recording): every
/// frame's record and the summary. The character moves as in the window (its source's
/// `advance` by one frame of wall time, then `evaluate`), with the scenario's input in
/// place of the keys. `trace --motion-matching` prints them; the scenario suite runs
/// several on one database.
pub fn run_scenario(
    character: &mut Character,
    scenario: &Scenario,
) -> Result<(Vec<MatchingTraceFrame>, MatchingSummary), CliError> {
    let not_matching = format!(
        "{}: motion matching does not move this character",
        character.model.source
    );
    let Some(m) = character.source.matching_mut() else {
        return Err(not_matching.into());
    };
    let dt_secs = 1.0 / scenario.fps;
    m.session.reset(&character.model)?;
    m.session.dt_secs = dt_secs;
    m.playing = true;
    let tags = m.session.db.tag_names().to_vec();
    let mut inputs = ScenarioInputs::new(scenario.events.clone(), &tags)?;
    let model = &character.model;
    let names: Vec<String> = model.clips.iter().map(|c| c.name().to_string()).collect();
    let count = (scenario.seconds * scenario.fps).round() as u64;
    let mut frames = Vec::with_capacity(count as usize + 1);
    let mut slide = SlideProbe::new(model);
    // The scripted input is cleared whether the run ends or fails.
    let run = (|| -> Result<(), CliError> {
        for i in 0..=count {
            let t = i as f64 / scenario.fps;
            let input = inputs.at(t, &tags);
            if let Some(m) = character.source.matching_mut() {
                m.scripted = Some(input);
            }
            character.advance(dt_secs, 0.0)?;
            character.evaluate(false)?;
            let m = character
                .source
                .matching()
                .ok_or_else(|| not_matching.clone())?;
            let f = m
                .session
                .current()
                .ok_or_else(|| format!("motion matching: frame {i} was not played"))?;
            let groups = f.group_costs.map(|g| {
                FEATURE_GROUPS
                    .iter()
                    .zip(g)
                    .map(|(n, v)| (n.as_str(), v))
                    .collect::<BTreeMap<_, _>>()
            });
            slide.update(
                &character.model,
                (f.clip, f.clip_time_secs),
                &character.pose.model_from_joint,
                (i > 0).then_some(dt_secs),
            );
            frames.push(MatchingTraceFrame {
                frame: f.frame,
                time_secs: f.wall_secs,
                clip: names[f.clip].clone(),
                clip_time_secs: f.clip_time_secs,
                searched: f.searched,
                jumped: f.jumped,
                cost: f.cost,
                cost_groups: groups,
                continue_cost: f.continue_cost,
                trajectory_error_m: f.trajectory_error_m,
                world_x_m: f.world_from_root.translation.x,
                world_z_m: f.world_from_root.translation.y,
                world_yaw_deg: f.world_from_root.yaw_rad.to_degrees(),
                sim_x_m: f.sim.position.x,
                sim_z_m: f.sim.position.y,
                sim_yaw_deg: f.sim.yaw.to_degrees(),
                desired_speed_mps: input.desired_velocity.length(),
                play_rate: f.play_rate,
                holding: f.holding,
                offset_cm: f.offset_remaining.0 * 100.0,
                offset_deg: f.offset_remaining.1.to_degrees(),
                slide_mps: slide.meter.speeds().to_vec(),
            });
        }
        Ok(())
    })();
    if let Some(m) = character.source.matching_mut() {
        m.scripted = None;
    }
    run?;
    let jumps = frames.iter().filter(|f| f.jumped).count();
    let total = scenario.seconds;
    let mut clip_secs: BTreeMap<String, f64> = BTreeMap::new();
    for f in frames.iter().skip(1) {
        *clip_secs.entry(f.clip.clone()).or_default() += 1.0 / scenario.fps;
    }
    let errors: Vec<f64> = frames.iter().map(|f| f.trajectory_error_m as f64).collect();
    let summary = MatchingSummary {
        frames: frames.len(),
        jumps,
        mean_dwell_secs: total / (jumps as f64 + 1.0),
        mean_trajectory_error_m: errors.iter().sum::<f64>() / errors.len().max(1) as f64,
        max_trajectory_error_m: frames
            .iter()
            .map(|f| f.trajectory_error_m)
            .fold(0.0, f32::max),
        clip_secs,
        slide_m_per_cycle: slide.meter.slide_per_cycle(slide.cycles()),
        skating_ratio: slide.meter.skating_ratio(),
    };
    Ok((frames, summary))
}

/// Foot slide of a motion-matching run: each frame's feet in the world (the played pose
/// at the character's placement) and whether the playing clip has them down at its time.
struct SlideProbe {
    legs: Vec<crate::anim::contacts::LegChain>,
    unit_scale: f32,
    meter: crate::anim::locomotion::slide::FootSlideMeter,
    /// Touch-downs per foot (a planted frame after one that was not, or the first).
    touchdowns: Vec<u32>,
    /// Last frame's feet (ankle, toe) in the world and whether each was down; reused.
    feet: Vec<(glam::Vec3, Option<glam::Vec3>)>,
    planted: Vec<bool>,
}

impl SlideProbe {
    fn new(model: &crate::asset::Model) -> Self {
        let legs = model.legs().unwrap_or_default();
        let unit_scale = model.unit_scale();
        let n = legs.len();
        Self {
            meter: crate::anim::locomotion::slide::FootSlideMeter::new(n),
            legs,
            unit_scale,
            touchdowns: vec![0; n],
            feet: vec![(glam::Vec3::ZERO, None); n],
            planted: vec![false; n],
        }
    }

    /// One frame: the playing `(clip, clip seconds)` and the pose's joints in the world
    /// (`world_from_joint`); `dt_secs` `None` for the first frame.
    fn update(
        &mut self,
        model: &crate::asset::Model,
        (clip, clip_time_secs): (usize, f64),
        world_from_joint: &[glam::Mat4],
        dt_secs: Option<f64>,
    ) {
        if self.legs.is_empty() {
            return;
        }
        // A clip whose analysis fails counts as having no foot down (a measure must not
        // stop the run).
        let analysis = model.clip_analysis(clip).ok();
        let duration = analysis.as_ref().map_or(0.0, |a| a.duration_secs);
        let at = |j: usize| world_from_joint[j].w_axis.truncate();
        for (k, leg) in self.legs.iter().enumerate() {
            self.feet[k] = (at(leg.foot), leg.toe.map(at));
            let down = analysis
                .as_ref()
                .and_then(|a| a.contacts.get(k))
                .is_some_and(|c| c.is_down(clip_time_secs as f32, duration, 0.0));
            self.touchdowns[k] += (down && !self.planted[k]) as u32;
            self.planted[k] = down;
        }
        let dt = dt_secs.unwrap_or(0.0) as f32;
        self.meter.update(
            &self.feet,
            &self.planted,
            dt,
            &Default::default(),
            self.unit_scale,
        );
    }

    /// Gait cycles: the feet's mean touch-downs.
    fn cycles(&self) -> f64 {
        if self.touchdowns.is_empty() {
            return 0.0;
        }
        f64::from(self.touchdowns.iter().sum::<u32>()) / self.touchdowns.len() as f64
    }
}
