//! `stridescope render`: draws a model offscreen to PNG with the window's renderer.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::asset::Model;
use crate::render::{
    self, bounds, Aabb, CharacterDraw, GpuContext, Grid, OverlayBatch, Renderer, SceneView,
    SkeletonStyle, OFFSCREEN_FORMAT,
};

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// glTF/GLB file (the built-in demo character when omitted).
    pub file: Option<PathBuf>,
    /// Clip name (default: the first clip; the rest pose when the file has none).
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
    /// Render N frames starting at --time into --out-dir (frame_0000.png, ...); times past
    /// the clip's end wrap around (looping playback).
    #[arg(long, value_name = "N", requires = "out_dir")]
    pub frames: Option<u32>,
    /// Frames per second of a --frames sequence.
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Folder for a --frames sequence (created when missing).
    #[arg(long, value_name = "DIR", requires = "frames")]
    pub out_dir: Option<PathBuf>,
    /// Run a scenario file (RON) through the pose graph and draw the frame at --time
    /// (wall seconds into the scenario; with --frames, one image per frame from there).
    #[arg(long, value_name = "FILE", conflicts_with = "clip")]
    pub scenario: Option<PathBuf>,
}

/// Poses of a scenario at wall times `times` (ascending), placed by its root motion.
fn scenario_poses(
    model: &Model,
    path: &Path,
    times: &[f32],
) -> Result<Vec<crate::scene::Pose>, String> {
    use crate::graph::scenario::ScenarioRun;
    let (mut scenario, text) = super::graph_trace::load_scenario(path)?;
    let last = times.iter().copied().fold(0.0f32, f32::max) as f64;
    scenario.seconds = scenario.seconds.max(last);
    let mut graph = super::graph_trace::build_graph(model, &scenario, path, &text)?;
    let mut run = ScenarioRun::new(scenario).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut poses = Vec::with_capacity(times.len());
    let mut pose = crate::scene::Pose::new(model);
    for &t in times {
        while run.time_of(run.frame()) <= t as f64 + 1e-9 {
            run.step(model, &mut graph)?;
        }
        pose.evaluate_local(model, graph.local_pose(), run.world_from_root.to_mat4())
            .map_err(|e| e.to_string())?;
        poses.push(pose.clone());
    }
    Ok(poses)
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

/// The clip index to render: by name, else the first clip, else none (rest pose).
fn choose_clip(model: &Model, name: Option<&str>) -> Result<Option<usize>, String> {
    match name {
        Some(name) => model.find_clip(name).map(Some).ok_or_else(|| {
            let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
            format!("no clip named '{name}'; clips: {}", names.join(", "))
        }),
        None => Ok(if model.clips.is_empty() {
            None
        } else {
            Some(0)
        }),
    }
}

/// Runs `stridescope render` and returns the summary printed on stdout.
pub fn run(args: &RenderArgs) -> Result<String, String> {
    if !args.time.is_finite() {
        return Err(format!("--time must be finite, got {}", args.time));
    }
    if !(args.fps.is_finite() && args.fps > 0.0) {
        return Err(format!("--fps must be a positive number, got {}", args.fps));
    }
    if args.frames == Some(0) {
        return Err("--frames must be at least 1".into());
    }
    let model = super::load_model(args.file.as_deref())?;
    let clip = match args.scenario {
        Some(_) => None,
        None => choose_clip(&model, args.clip.as_deref())?,
    };
    let duration = clip.map(|c| model.clips[c].duration_secs()).unwrap_or(0.0);
    if args.scenario.is_some() && args.time < 0.0 {
        return Err(format!(
            "--time must be >= 0 with --scenario, got {}",
            args.time
        ));
    }
    let times: Vec<f32> = match args.frames {
        None => vec![args.time],
        Some(n) if args.scenario.is_some() => {
            (0..n).map(|i| args.time + i as f32 / args.fps).collect()
        }
        Some(n) => (0..n)
            .map(|i| {
                let t = args.time + i as f32 / args.fps;
                if duration > 0.0 && t > duration {
                    t.rem_euclid(duration)
                } else {
                    t
                }
            })
            .collect(),
    };
    let (width, height) = args.size;
    let poses = match &args.scenario {
        Some(path) => scenario_poses(&model, path, &times)?,
        None => times
            .iter()
            .map(|&t| render::pose_at(&model, clip, t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?,
    };
    // One camera for the whole sequence: framed to fit every frame.
    let mut all = Aabb::EMPTY;
    for pose in &poses {
        all = all.union(&bounds::pose_bounds(&model, pose).map_err(|e| e.to_string())?);
    }
    let camera = render::framed_camera(&all, width as f32 / height as f32);
    let grid = (!args.no_grid && !all.is_empty()).then(|| Grid::for_bounds(all.min, all.max));

    let ctx = GpuContext::headless().map_err(|e| e.to_string())?;
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).map_err(|e| e.to_string())?;
    let gpu_model = renderer
        .upload_model(&ctx, &model)
        .map_err(|e| e.to_string())?;
    let mut instances = renderer
        .create_instances(&ctx, &gpu_model, 1)
        .map_err(|e| e.to_string())?;

    let mut outputs = Vec::with_capacity(times.len());
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    }
    let mut overlay = OverlayBatch::new();
    for (i, pose) in poses.iter().enumerate() {
        instances
            .write_poses(&ctx.queue, &gpu_model, &[pose])
            .map_err(|e| e.to_string())?;
        overlay.clear();
        if args.skeleton {
            overlay.skeleton(&model, pose, &SkeletonStyle::default());
        }
        let characters = [CharacterDraw {
            model: &gpu_model,
            instances: &instances,
        }];
        let scene = SceneView {
            camera,
            characters: &characters,
            grid,
            overlay: Some(&overlay),
            background: Default::default(),
        };
        let image = render::render_to_image(&ctx, &mut renderer, width, height, &scene)
            .map_err(|e| e.to_string())?;
        let path = match &args.out_dir {
            Some(dir) => dir.join(format!("frame_{i:04}.png")),
            None => args.out.clone(),
        };
        image.save_png(&path)?;
        outputs.push(path);
    }
    Ok(summary(
        &model,
        clip,
        &times,
        &outputs,
        (width, height),
        &ctx,
    ))
}

fn summary(
    model: &Model,
    clip: Option<usize>,
    times: &[f32],
    outputs: &[PathBuf],
    (width, height): (u32, u32),
    ctx: &GpuContext,
) -> String {
    let clip_text = match clip {
        Some(c) => format!("clip '{}'", model.clips[c].name()),
        None => "rest pose".to_string(),
    };
    let mut out = String::new();
    let first = outputs
        .first()
        .map(PathBuf::as_path)
        .unwrap_or(Path::new(""));
    if outputs.len() == 1 {
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
            outputs.len(),
            first.display(),
            outputs.last().map(|p| p.display().to_string()).unwrap_or_default(),
            model.source,
            times[0],
            times.last().copied().unwrap_or(0.0),
            ctx.adapter_label()
        );
    }
    out
}
