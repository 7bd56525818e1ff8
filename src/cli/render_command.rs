//! `stridescope render`: draws a model offscreen to PNG with the window's renderer.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::asset::Model;
use crate::render::frames::{ExportFormat, FrameWriter};
use crate::render::scene::OnGpu;
use crate::render::{
    self, bounds, Aabb, Frame, GpuContext, Grid, LocomotionDraw, LocomotionOverlays, Renderer,
    SceneBuilder, OFFSCREEN_FORMAT,
};
use crate::stage::locomotion::LocomotionSettings;
use crate::stage::pose::Pose;
use crate::stage::scenario::ScenarioRun;
use crate::stage::session::GraphSession;
use crate::stage::source::MotionSource;
use crate::stage::timeline::{RootMotionMode, Timeline};
use crate::{CliError, Context as _};

/// The arguments of `stridescope render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// glTF/GLB, FBX or BVH file (the built-in demo character when omitted).
    pub file: Option<PathBuf>,
    /// Clip name (default: the first clip that animates; the rest pose when the file has
    /// none).
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time in seconds.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub time: f32,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "960x540", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Output PNG (single frame).
    #[arg(long, default_value = "frame.png")]
    pub out: PathBuf,
    /// Draw the skeleton (bones and joints) over the mesh.
    #[arg(long)]
    pub skeleton: bool,
    /// Hide the ground grid.
    #[arg(long)]
    pub no_grid: bool,
    /// Render N frames starting at --time into --out-dir (frame_0000.png, ...) or into
    /// --gif / --apng / --mp4; times past the clip's end wrap around (looping playback).
    /// Default with --gif, --apng or --mp4: one cycle of the clip at --fps.
    #[arg(long, value_name = "N")]
    pub frames: Option<u32>,
    /// Frames per second of a --frames sequence.
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Folder for a --frames sequence (created when missing).
    #[arg(long, value_name = "DIR", requires = "frames")]
    pub out_dir: Option<PathBuf>,
    /// Write the frames as a looping animated GIF (256 colours a frame).
    #[arg(long, value_name = "FILE")]
    pub gif: Option<PathBuf>,
    /// Write the frames as a looping animated PNG (lossless).
    #[arg(long, value_name = "FILE")]
    pub apng: Option<PathBuf>,
    /// Write the frames as an H.264 MP4 through ffmpeg (must be on PATH).
    #[arg(long, value_name = "FILE")]
    pub mp4: Option<PathBuf>,
    /// Run a scenario file (RON) through the pose graph and draw the frame at --time
    /// (wall seconds into the scenario; with --frames, one image per frame from there).
    #[arg(long, value_name = "FILE", conflicts_with = "clip")]
    pub scenario: Option<PathBuf>,
    /// Draw the locomotion debug overlays: `all` or a list of floor, targets, pelvis,
    /// stride, thighs, orientation, text (text is printed). Turns locomotion on (at
    /// the clip's own speed unless --movement-speed says otherwise).
    #[arg(long, value_name = "LIST", value_parser = LocomotionOverlays::parse)]
    pub overlays: Option<LocomotionOverlays>,
    /// Drive the character at this speed (m/s) with speed matching and stride warping;
    /// --time is then seconds of driven playback from the start.
    #[arg(long, value_name = "M/S")]
    pub movement_speed: Option<f32>,
    /// Movement direction relative to the facing, degrees counter-clockwise from above.
    #[arg(
        long,
        value_name = "DEG",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub direction: f32,
    /// No stride warping (speed matching only).
    #[arg(long)]
    pub no_warp: bool,
    /// No speed matching (stride warping only).
    #[arg(long)]
    pub no_speed_match: bool,
    /// Camera yaw about +Y in degrees (default 35: front-right; 75 with --overlays, a
    /// side view where strides read best).
    #[arg(long, value_name = "DEG", allow_negative_numbers = true)]
    pub camera_yaw: Option<f32>,
    /// Camera elevation in degrees (default 15, or 20 with --overlays).
    #[arg(long, value_name = "DEG", allow_negative_numbers = true)]
    pub camera_pitch: Option<f32>,
}

/// Frames an export without --frames renders at most (one loop of a long clip at 30 fps
/// is already a big GIF).
const MAX_DEFAULT_FRAMES: u32 = 600;

/// The frames of one `render` run, produced one at a time at ascending times into one
/// reused pose, so that memory does not grow with `--frames` (issue 17: every pose was
/// kept, about 25 kB a frame on the Robot). `run` makes two: one to frame the camera on
/// every pose, one to draw; both play the same deterministic steps.
struct FrameSource {
    /// What poses the character, as in the window: the timeline's clip (seeked to each
    /// time; times past the end were wrapped, the root's motion stays in the pose, as the
    /// window's Loop and reset shows it) or a pose graph (a scenario, placed by its root
    /// motion; driven, with its locomotion stage, under `--movement-speed` / `--overlays`).
    source: MotionSource,
    /// The clip and its Loop-and-reset placement (the rest pose without clips).
    timeline: Timeline,
    /// The scenario that steps the graph at its own fixed rate (graph sources only).
    run: Option<Box<ScenarioRun>>,
    pose: crate::stage::pose::Pose,
    /// Leg length in model units (1 unless driven).
    leg_length: f32,
}

impl FrameSource {
    /// A source for `times` (ascending; the last one bounds how long a scenario runs).
    fn new(
        model: &Model,
        args: &RenderArgs,
        clip: Option<usize>,
        times: &[f32],
        driving: bool,
    ) -> Result<Self, CliError> {
        let last = times.iter().copied().fold(0.0f32, f32::max) as f64;
        let mut timeline = Timeline::new(model);
        timeline.set_mode(RootMotionMode::LoopAndReset);
        // The times come wrapped: a time at the clip's end is its last frame.
        timeline.set_looping(false);
        if let Some(c) = clip {
            timeline.select_clip(model, c);
        }
        let graph_source = |session: GraphSession, run: ScenarioRun, leg_length: f32| Self {
            source: MotionSource::Graph {
                session: Box::new(session),
                drive_only: false,
            },
            timeline: Timeline::new(model),
            run: Some(Box::new(run)),
            pose: Pose::new(model),
            leg_length,
        };
        if !driving {
            let Some(path) = &args.scenario else {
                return Ok(Self {
                    source: MotionSource::Clip,
                    timeline,
                    run: None,
                    pose: Pose::new(model),
                    leg_length: 1.0,
                });
            };
            let (mut scenario, text) = super::graph_trace::load_scenario(path)?;
            scenario.seconds = scenario.seconds.max(last);
            let graph = super::graph_trace::build_graph(model, &scenario, path, &text)?;
            let run = ScenarioRun::new(scenario).with_context(|| format!("{}", path.display()))?;
            return Ok(graph_source(GraphSession::from_graph(graph), run, 1.0));
        }
        let (mut scenario, text, path) = match &args.scenario {
            Some(path) => {
                let (s, t) = super::graph_trace::load_scenario(path)?;
                (s, t, path.clone())
            }
            None => {
                let clip =
                    clip.ok_or_else(|| format!("{}: has no animations to drive", model.source))?;
                (
                    super::graph_trace::clip_scenario(model, clip, f64::from(args.fps), last),
                    String::new(),
                    PathBuf::from("--movement-speed"),
                )
            }
        };
        scenario.seconds = scenario.seconds.max(last);
        let graph = super::graph_trace::build_graph(model, &scenario, &path, &text)?;
        if !args.direction.is_finite() {
            return Err(format!("--direction must be finite, got {}", args.direction).into());
        }
        let settings = LocomotionSettings {
            direction_deg: args.direction,
            speed_matching: !args.no_speed_match,
            stride_warping: !args.no_warp,
            ..LocomotionSettings::default()
        };
        let mut session = GraphSession::driven(model, graph, settings)?;
        let chosen = match args.movement_speed {
            Some(v) if v.is_finite() && v >= 0.0 => Some(v),
            Some(v) => return Err(format!("--movement-speed must be >= 0, got {v}").into()),
            // The clip's own speed, as Drive starts in the window; with none to match (a
            // graph standing still) the character stands: `render` has no remembered
            // drive settings to fall back on.
            None => session
                .drive_at_natural_speed(model)
                .is_none()
                .then_some(0.0),
        };
        if let Some(movement_speed) = chosen {
            let settings = LocomotionSettings {
                movement_speed,
                ..settings
            };
            session.set_locomotion_settings(model, settings);
        }
        let leg_length = model.leg_length_or_reference_m();
        let run = ScenarioRun::new(scenario).with_context(|| format!("{}", path.display()))?;
        Ok(graph_source(session, run, leg_length))
    }

    /// Poses the character at `t` seconds (not before the previous call's time) and
    /// returns the time the pose is of: `t` for a clip; for a scenario, which steps at its
    /// own fixed rate, its last frame at or before `t` (0.3333 s for 0.35 s at 60 Hz).
    fn advance(&mut self, model: &Model, t: f32) -> Result<f64, CliError> {
        let shown = match (&mut self.run, self.source.graph_mut()) {
            (Some(run), Some(session)) => {
                while run.time_of(run.frame()) <= t as f64 + 1e-9 {
                    run.step(model, session)?;
                }
                run.time_of(run.frame().saturating_sub(1))
            }
            _ => {
                self.timeline.seek_secs(f64::from(t));
                f64::from(t)
            }
        };
        // The window's pose of the source, at the stage's origin.
        self.source
            .evaluate(
                model,
                &self.timeline,
                false,
                glam::Mat4::IDENTITY,
                &mut self.pose,
            )
            .with_context(|| model.source.to_string())?;
        Ok(shown)
    }

    /// What the locomotion overlays draw for the current frame (driven runs only),
    /// borrowed from the locomotion stage.
    fn locomotion_draw(&self) -> Option<LocomotionDraw<'_>> {
        let loco = self.source.graph()?.locomotion.as_ref()?;
        Some(LocomotionDraw {
            warp: &loco.warp,
            world_from_model: loco.model_from_root(),
            leg_length: self.leg_length,
            body_yaw_rad: loco.orientation.body_yaw_rad,
            movement_yaw_rad: loco.orientation.angle_rad,
            travel: loco.travel(),
        })
    }

    /// The overlay text of the current frame (driven runs only), for the summary.
    fn locomotion_text(&self) -> Option<Vec<String>> {
        let session = self.source.graph()?;
        let loco = session.locomotion.as_ref()?;
        Some(loco.readout(session.graph.rate()))
    }
}

pub(crate) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not WIDTHxHEIGHT (e.g. 960x540)"))?;
    let parse = |v: &str| -> Result<u32, String> {
        let n: u32 = v
            .trim()
            .parse()
            .map_err(|_| format!("'{v}' is not a pixel count"))?;
        if n == 0 || n > 16384 {
            return Err(format!("{n} pixels: each side must be 1..=16384"));
        }
        Ok(n)
    };
    Ok((parse(w)?, parse(h)?))
}

/// The clip index to render: by name, else the first clip that animates, else none (rest
/// pose).
fn choose_clip(model: &Model, name: Option<&str>) -> Result<Option<usize>, CliError> {
    match name {
        Some(name) => model.find_clip(name).map(Some).ok_or_else(|| {
            let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
            CliError::usage(format!(
                "no clip named '{name}'; clips: {}",
                names.join(", ")
            ))
        }),
        None => Ok(model.default_clip()),
    }
}

/// Runs `stridescope render` and returns the summary printed on stdout.
pub fn run(args: &RenderArgs, load: &crate::asset::LoadOptions) -> Result<String, CliError> {
    if !args.time.is_finite() {
        return Err(format!("--time must be finite, got {}", args.time).into());
    }
    if !(args.fps.is_finite() && (0.01..=1000.0).contains(&args.fps)) {
        return Err(format!("--fps must be between 0.01 and 1000, got {}", args.fps).into());
    }
    if args.frames == Some(0) {
        return Err("--frames must be at least 1".into());
    }
    let exporting = args.gif.is_some() || args.apng.is_some() || args.mp4.is_some();
    if args.frames.is_some() && args.out_dir.is_none() && !exporting {
        return Err("--frames needs --out-dir, --gif, --apng or --mp4 to write them to".into());
    }
    // Fail before rendering anything rather than after.
    if args.mp4.is_some() && !crate::render::frames::ffmpeg_available() {
        return Err(crate::render::frames::NO_FFMPEG.into());
    }
    let model = super::load_model_with(args.file.as_deref(), load)?;
    let clip = match args.scenario {
        Some(_) => None,
        None => choose_clip(&model, args.clip.as_deref())?,
    };
    let duration = clip.map(|c| model.clips[c].duration_secs()).unwrap_or(0.0);
    let driving = args.overlays.is_some() || args.movement_speed.is_some();
    if (args.scenario.is_some() || driving) && args.time < 0.0 {
        return Err(format!(
            "--time must be >= 0 with --scenario, --overlays or --movement-speed, got {}",
            args.time
        )
        .into());
    }
    // Scenarios and driven runs play from the start: their times are wall seconds, never
    // wrapped; a clip alone wraps past its end (looping playback).
    let wall = args.scenario.is_some() || driving;
    // An export without --frames is one loop of the clip (one frame for a pose).
    let frames = args.frames.or_else(|| {
        exporting.then(|| ((duration * args.fps).round() as u32).clamp(1, MAX_DEFAULT_FRAMES))
    });
    let times: Vec<f32> = match frames {
        None => vec![args.time],
        Some(n) if wall => (0..n).map(|i| args.time + i as f32 / args.fps).collect(),
        // The playback clock's own split into cycle and phase (floor, not truncation),
        // as the window plays it; a time inside the first cycle stays as given, so
        // `--time` equal to the clip's length shows its last key.
        Some(n) => (0..n)
            .map(|i| {
                let t = args.time + i as f32 / args.fps;
                match crate::anim::ClipTime::from_secs(f64::from(t), f64::from(duration)) {
                    Ok(c) if duration > 0.0 && t > duration => c.phase_secs as f32,
                    _ => t,
                }
            })
            .collect(),
    };
    let (width, height) = args.size;
    // One camera for the whole sequence: framed to fit every frame (a first pass that
    // keeps only the bounds).
    let mut all = Aabb::EMPTY;
    let mut source = FrameSource::new(&model, args, clip, &times, driving)?;
    for &t in &times {
        source.advance(&model, t)?;
        all = all.union(&bounds::pose_bounds(&model, &source.pose)?);
    }
    let mut source = FrameSource::new(&model, args, clip, &times, driving)?;
    let mut camera = render::OrbitCamera::default();
    let side = args.overlays.is_some();
    for (v, what) in [
        (args.camera_yaw, "--camera-yaw"),
        (args.camera_pitch, "--camera-pitch"),
    ] {
        if v.is_some_and(|v| !v.is_finite()) {
            return Err(format!("{what} must be finite").into());
        }
    }
    camera.yaw_rad = args.camera_yaw.map(f32::to_radians).unwrap_or(if side {
        75f32.to_radians()
    } else {
        camera.yaw_rad
    });
    camera.pitch_rad = args
        .camera_pitch
        .map(|p| {
            p.to_radians().clamp(
                -render::camera::MAX_PITCH_RAD,
                render::camera::MAX_PITCH_RAD,
            )
        })
        .unwrap_or(if side {
            20f32.to_radians()
        } else {
            camera.pitch_rad
        });
    if !all.is_empty() {
        camera.frame_to_fit(all.min, all.max, width as f32 / height as f32);
    }
    let grid = (!args.no_grid && !all.is_empty()).then(|| Grid::for_bounds(all.min, all.max));

    let ctx = GpuContext::headless()?;
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT)?;
    let gpu_model = renderer.upload_model(&ctx, &model)?;
    let mut instances = renderer.create_instances(&ctx, &gpu_model, 1)?;

    // Written PNGs: how many, the first and the last (for the summary).
    let mut outputs: (usize, Option<PathBuf>, Option<PathBuf>) = (0, None, None);
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir).map_err(|e| CliError::file(dir, "create", e))?;
    }
    // Exports are written as frames are drawn: one image in memory at a time.
    let frame_count = times.len() as u32;
    let mut writers = Vec::new();
    for (path, format) in [
        (&args.gif, ExportFormat::Gif),
        (&args.apng, ExportFormat::Apng),
        (&args.mp4, ExportFormat::Mp4),
    ] {
        if let Some(path) = path {
            writers.push(FrameWriter::create(
                path,
                format,
                (width, height),
                frame_count,
                args.fps,
            )?);
        }
    }
    let mut builder = SceneBuilder::new();
    // The times the drawn poses are of (a scenario steps at its own rate).
    let mut drawn = Vec::with_capacity(times.len());
    for (i, &t) in times.iter().enumerate() {
        drawn.push(source.advance(&model, t)?);
        // The window's scene builder: the character, its skeleton, the locomotion
        // overlays of a driven run.
        let mut frame = Frame::new(camera, &model, &source.pose);
        frame.grid = grid;
        frame.gpu = Some(OnGpu {
            model: &gpu_model,
            instances: &mut instances,
            upload: 0,
        });
        frame.skeleton = args.skeleton;
        if let (Some(flags), Some(draw)) = (args.overlays, source.locomotion_draw()) {
            frame.locomotion = Some((draw, flags));
        }
        let image = builder.draw(&ctx, &mut renderer, frame, |renderer, scene| {
            render::render_to_image(&ctx, renderer, width, height, scene)
        })?;
        let path = match &args.out_dir {
            Some(dir) => Some(dir.join(format!("frame_{i:04}.png"))),
            None if exporting => None,
            None => Some(args.out.clone()),
        };
        if let Some(path) = path {
            image.save_png(&path)?;
            outputs.0 += 1;
            if outputs.1.is_none() {
                outputs.1 = Some(path.clone());
            }
            outputs.2 = Some(path);
        }
        for w in &mut writers {
            w.push(&image)?;
        }
    }
    let mut exported = Vec::new();
    for (w, path) in writers
        .into_iter()
        .zip([&args.gif, &args.apng, &args.mp4].into_iter().flatten())
    {
        w.finish()?;
        exported.push(path.clone());
    }
    let mut text = summary(&model, args, clip, &drawn, &outputs, (width, height), &ctx);
    if let Some((asked, got)) = times
        .iter()
        .zip(&drawn)
        .find(|(&asked, &got)| (f64::from(asked) - got).abs() > 1e-6)
    {
        let _ = writeln!(
            text,
            "the scenario steps at its own frame rate: --time {asked} s shows its frame at \
             {got:.4} s (times above are the frames drawn)"
        );
    }
    for path in exported {
        let _ = writeln!(
            text,
            "wrote {} ({} frames at {} fps, {width}x{height})",
            path.display(),
            frame_count,
            args.fps
        );
    }
    if args.overlays.is_some_and(|o| o.text) {
        if let Some(lines) = source.locomotion_text() {
            for line in &lines {
                let _ = writeln!(text, "  {line}");
            }
        }
    }
    Ok(text)
}

fn summary(
    model: &Model,
    args: &RenderArgs,
    clip: Option<usize>,
    times: &[f64],
    (written, first, last): &(usize, Option<PathBuf>, Option<PathBuf>),
    (width, height): (u32, u32),
    ctx: &GpuContext,
) -> String {
    let clip_text = match (&args.scenario, clip) {
        (Some(path), _) => format!("scenario {}", path.display()),
        (None, Some(c)) => format!("clip '{}'", model.clips[c].name()),
        (None, None) => "rest pose".to_string(),
    };
    let mut out = String::new();
    let first = first.as_deref().unwrap_or(Path::new(""));
    if *written == 0 {
        let _ = writeln!(
            out,
            "rendered {} frames ({width}x{height}, {} {clip_text}, {:.4} s .. {:.4} s) on {}",
            times.len(),
            model.source,
            times[0],
            times.last().copied().unwrap_or(0.0),
            ctx.adapter_label()
        );
    } else if *written == 1 {
        let _ = writeln!(
            out,
            "wrote {} ({width}x{height}, {} {clip_text} at {:.4} s) on {}",
            first.display(),
            model.source,
            times[0],
            ctx.adapter_label()
        );
    } else {
        let _ =
            writeln!(
            out,
            "wrote {} frames {} .. {} ({width}x{height}, {} {clip_text}, {:.4} s .. {:.4} s) on {}",
            written,
            first.display(),
            last.as_deref().map(|p| p.display().to_string()).unwrap_or_default(),
            model.source,
            times[0],
            times.last().copied().unwrap_or(0.0),
            ctx.adapter_label()
        );
    }
    out
}
