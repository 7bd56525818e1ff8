//! Command-line interface: the window (`stridescope [FILE]`), and `inspect`, `trace`,
//! `render`, `lint` and `make-demo` (the scriptable face of the previewer, for tests and CI).

pub mod graph_trace;
pub mod lint;
pub mod locomotion_trace;
pub mod matching_trace;
pub mod render;
pub mod retarget;
pub mod snapshot;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use serde::Serialize;

use crate::anim::{ClipRootMotion, PlaybackClock, Skeleton};
use crate::asset::{self, Model};
use crate::stage::source::MotionSource;
use crate::stage::timeline::{RootMotionMode, Timeline};

/// stridescope: a glTF animation previewer with wrap-safe root motion.
#[derive(Debug, Parser)]
#[command(name = "stridescope", version, about)]
#[command(group(
    clap::ArgGroup::new("library_user")
        .multiple(true)
        .args(["motion_matching", "library_view"])
))]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// glTF/GLB, FBX or BVH file to open in the window (the built-in demo character when omitted).
    pub file: Option<PathBuf>,
    /// Write a PNG of the whole window, UI included, after `--after-frames` frames, then
    /// exit (for scripts and CI).
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    /// Frames to draw before `--screenshot` captures.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub after_frames: u32,
    /// Window size in logical pixels, e.g. 1280x800 (default: the last size used).
    #[arg(long, value_name = "WxH", value_parser = render::parse_size)]
    pub size: Option<(u32, u32)>,
    /// Clip to select at start (default: the first).
    #[arg(long, value_name = "NAME")]
    pub clip: Option<String>,
    /// Start playing.
    #[arg(long)]
    pub play: bool,
    /// Select a joint at start (outliner, highlight and curve view).
    #[arg(long, value_name = "JOINT")]
    pub select: Option<String>,
    /// Onion skin at start: N ghosts before and N after the playhead.
    #[arg(long, value_name = "N")]
    pub onion: Option<u32>,
    /// How onion-skin ghosts are drawn: skeletons (default), meshes (translucent, tinted)
    /// or both.
    #[arg(long, value_name = "STYLE", value_parser = parse_ghost_style)]
    pub ghosts: Option<crate::stage::inspect::GhostStyle>,
    /// Export one cycle of the clip as the window shows it (GIF, PNG = animated PNG, or
    /// MP4) after `--after-frames` frames, then exit: File > Export preview, scripted.
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// A/B compare at start: the selected clip (A) against this clip of the file (B).
    #[arg(long, value_name = "CLIP")]
    pub compare: Option<String>,
    /// With --compare: B beside A instead of over it.
    #[arg(long, requires = "compare")]
    pub side_by_side: bool,
    /// Retarget the clips of this file or folder (glTF, FBX, BVH) onto the character at
    /// start (File > Retarget onto this character): they join the clip list, the first
    /// is selected, and the source plays beside it on the same timeline.
    #[arg(long, value_name = "SOURCE")]
    pub retarget_from: Option<PathBuf>,
    /// Start in pose-graph mode with the file's default graph (the demo: Idle / Walk / Run
    /// by `speed`, Wave layer by `wave`).
    #[arg(long)]
    pub graph: bool,
    /// Set a graph parameter at start, `NAME=VALUE` (repeatable; implies --graph).
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_param)]
    pub param: Vec<(String, f32)>,
    /// Start driving: locomotion at --movement-speed (default: the clip's own speed).
    #[arg(long)]
    pub drive: bool,
    /// Movement speed for --drive, m/s (implies --drive).
    #[arg(long, value_name = "M/S")]
    pub movement_speed: Option<f32>,
    /// Movement direction for --drive, degrees counter-clockwise from the facing.
    #[arg(
        long,
        value_name = "DEG",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub direction: f32,
    /// Reduce keys of every file opened (channels within MM millimetres of one value
    /// become constant); the status bar names the measured error. Same as setting
    /// STRIDESCOPE_REDUCE_KEYS=MM.
    #[arg(long, value_name = "MM", value_parser = asset::parse_tolerance_mm)]
    pub reduce_keys: Option<f32>,
    /// Start in motion-matching mode: drive the character with WASD / arrows (Shift
    /// runs, Ctrl strafes). Without FILE: the demo character with its locomotion set.
    #[arg(long)]
    pub motion_matching: bool,
    /// With --motion-matching: match these clips instead of the character's own (files or
    /// folders of BVH, FBX, glTF; repeatable), retargeted onto FILE's character (the demo
    /// without FILE). With --library-view: show these clips in the grid.
    #[arg(long, value_name = "PATH", requires = "library_user")]
    pub library: Vec<PathBuf>,
    /// Open the library view: every clip at once in a grid, each labelled (hover to
    /// enlarge, click to open; G in the window). With --library: that library's clips on
    /// FILE's character.
    #[arg(long)]
    pub library_view: bool,
    /// With --library: every library clip also enters mirrored left/right.
    #[arg(long, requires = "library")]
    pub mirror: bool,
    /// With --motion-matching: the style every jump lands on, a tag of the set (e.g.
    /// `normal`, `active`, `elderly` from a capture library's file names), or `any`.
    /// Default: `normal` when the set has that tag, else any.
    #[arg(long, value_name = "TAG", requires = "motion_matching")]
    pub style: Option<String>,
    /// Keys held during a scripted run (--screenshot, --export) in motion-matching mode,
    /// e.g. `w`, `w+shift`, `a+ctrl`.
    #[arg(long, value_name = "KEYS", value_parser = parse_keys, requires = "motion_matching")]
    pub hold_keys: Option<crate::stage::matching::KeyInput>,
    /// Drop this file on the window halfway through a scripted run (--screenshot,
    /// --export), as dragging it from a file manager does; status messages go to stderr.
    #[arg(long, value_name = "FILE")]
    pub drop: Option<PathBuf>,
    /// Units of BVH files: cm, mm, m, in, ft, or metres per file unit (default: detected
    /// from the skeleton's height). Same as setting STRIDESCOPE_UNITS.
    #[arg(long, global = true, value_name = "UNITS", value_parser = asset::Units::parse)]
    pub units: Option<asset::Units>,
    /// Load the complete frames of a BVH file whose motion data stops early (with a
    /// warning) instead of refusing it. Same as STRIDESCOPE_ALLOW_TRUNCATED=1.
    #[arg(long, global = true)]
    pub allow_truncated: bool,
    #[command(flatten)]
    pub in_place: InPlaceArgs,
}

fn parse_keys(s: &str) -> Result<crate::stage::matching::KeyInput, String> {
    let mut k = crate::stage::matching::KeyInput::default();
    for part in s.split('+') {
        match part.trim().to_ascii_lowercase().as_str() {
            "w" | "up" => k.forward = true,
            "s" | "down" => k.back = true,
            "a" | "left" => k.left = true,
            "d" | "right" => k.right = true,
            "shift" => k.run = true,
            "ctrl" => k.strafe = true,
            other => {
                return Err(format!(
                "'{other}' is not a movement key (w, a, s, d, up, down, left, right, shift, ctrl)"
            ))
            }
        }
    }
    Ok(k)
}

fn parse_param(s: &str) -> Result<(String, f32), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not NAME=VALUE (e.g. speed=2.5)"))?;
    let v: f32 = value
        .trim()
        .parse()
        .map_err(|_| format!("'{value}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("'{value}' is not finite"));
    }
    Ok((name.trim().to_string(), v))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the skeleton, meshes and every clip's timing, channels and root motion.
    Inspect(InspectArgs),
    /// Play a clip deterministically and print per-frame time, phase and root motion.
    Trace(TraceArgs),
    /// Write the built-in demo character to a .glb file.
    MakeDemo(MakeDemoArgs),
    /// Check every clip of a clip library (folders and files): load errors, loop seams,
    /// foot slide, root reversal, additive flags, markers, sets that do not blend.
    /// Exit 0 when clean, 1 with findings, 2 on usage errors.
    Lint(lint::command::LintArgs),
    /// Render a frame (or a sequence) offscreen to PNG with the GPU renderer.
    Render(render::RenderArgs),
    /// Write the posed mesh at one clip time as Wavefront OBJ (skinned and morphed, every
    /// mesh, world space), e.g. to compare with another tool's export of that frame.
    Snapshot(snapshot::SnapshotArgs),
    /// Play a humanoid clip on another humanoid character: the bone mapping, each clip's
    /// quality (foot slide, contact agreement, speed and leg ratios), and with --out the
    /// target written with the retargeted clips added.
    Retarget(retarget::RetargetArgs),
}

/// The user's in-place choice on the command line (every clip of the file).
#[derive(Debug, Args, Clone, Copy, Default)]
pub struct InPlaceArgs {
    /// Treat every clip as in place: the root's travel is ignored and the planted feet
    /// give the speed (overrides the rule that compares the root's travel per cycle with
    /// the leg and the feet).
    #[arg(long, conflicts_with = "root_motion")]
    pub in_place: bool,
    /// Treat every clip as carrying root motion, however little its root travels.
    #[arg(long)]
    pub root_motion: bool,
}

impl InPlaceArgs {
    pub fn choice(&self) -> crate::anim::locomotion::InPlaceOverride {
        use crate::anim::locomotion::InPlaceOverride;
        match (self.in_place, self.root_motion) {
            (true, _) => InPlaceOverride::InPlace,
            (_, true) => InPlaceOverride::RootMotion,
            _ => InPlaceOverride::Auto,
        }
    }

    /// Sets the choice on every clip of `model`.
    pub fn apply(&self, model: &mut Model) {
        model.set_in_place_override_all(self.choice());
    }
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// glTF/GLB, FBX or BVH file (the built-in demo character when omitted).
    pub file: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Root-motion joint by name (default: auto-detected per clip).
    #[arg(long, value_name = "NAME")]
    pub root_joint: Option<String>,
    /// Reduce keys first (channels within MM millimetres of one value become constant)
    /// and report, per clip, the channels and keys kept and the measured error.
    #[arg(long, value_name = "MM", value_parser = asset::parse_tolerance_mm)]
    pub reduce_keys: Option<f32>,
    #[command(flatten)]
    pub in_place: InPlaceArgs,
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// glTF/GLB, FBX or BVH file (the built-in demo character when omitted).
    pub file: Option<PathBuf>,
    /// Clip name (default: the first clip that animates).
    #[arg(long)]
    pub clip: Option<String>,
    /// Frames per second of the simulated playback.
    #[arg(long, default_value_t = 60.0)]
    pub fps: f64,
    /// Seconds of wall time to play (default: two clip lengths at rate 1).
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Play rate; negative plays in reverse.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub rate: f64,
    /// Clamp at the clip ends instead of looping.
    #[arg(long)]
    pub no_loop: bool,
    /// Seek (move the playhead without root motion) to T seconds at frame N, written
    /// `T@N`; repeatable. A seek replaces that frame's advance.
    #[arg(long, value_name = "T@FRAME", value_parser = parse_seek, allow_negative_numbers = true)]
    pub seek: Vec<(f64, u64)>,
    /// Root-motion joint by name (default: auto-detected).
    #[arg(long, value_name = "NAME")]
    pub root_joint: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Blend clips through the pose graph, e.g. `--blend Walk,Run` (see --weight,
    /// --offset, --no-sync).
    #[arg(
        long,
        value_name = "A,B",
        value_delimiter = ',',
        conflicts_with = "scenario"
    )]
    pub blend: Option<Vec<String>>,
    /// Weight of the last --blend clip (0..1; the first gets 1 - W). Default 0.5.
    #[arg(long, value_name = "W", requires = "blend")]
    pub weight: Option<f32>,
    /// Phase offset of the second --blend clip, as a fraction of a cycle (0.5 = half).
    #[arg(
        long,
        value_name = "PHASE",
        requires = "blend",
        allow_negative_numbers = true
    )]
    pub offset: Option<f32>,
    /// Blend without phase sync (each input keeps its own clock).
    #[arg(long, requires = "blend")]
    pub no_sync: bool,
    /// Sync of a --blend: markers (default), cycle or none.
    #[arg(long, value_name = "MODE", value_parser = parse_sync, requires = "blend")]
    pub sync: Option<crate::graph::SyncMode>,
    /// Run a scenario file (RON): a graph, parameter changes and seeks over time.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Drive the character at this speed (m/s): speed matching sets the play rate within
    /// its clamp (0.75..1.25) and stride warping + foot IK cover the rest.
    #[arg(long, value_name = "M/S")]
    pub movement_speed: Option<f32>,
    /// Movement direction relative to the character's facing, degrees counter-clockwise
    /// seen from above (90 = left); orientation warping turns the body by half of it.
    #[arg(
        long,
        value_name = "DEG",
        default_value_t = 0.0,
        allow_negative_numbers = true,
        requires = "movement_speed"
    )]
    pub direction: f32,
    /// With --movement-speed: no stride warping (the feet slide by the speed mismatch).
    #[arg(long, requires = "movement_speed")]
    pub no_warp: bool,
    /// With --movement-speed: keep the play rate (stride warping covers everything).
    #[arg(long, requires = "movement_speed")]
    pub no_speed_match: bool,
    /// Where the stride scale takes the clip speed from: `cycle` (the clip's mean,
    /// default) or `frame` (this frame's root motion).
    #[arg(long, value_name = "SOURCE", requires = "movement_speed")]
    pub stride_source: Option<String>,
    /// With --movement-speed: pin planted feet where they came down (foot locking).
    #[arg(long, requires = "movement_speed")]
    pub foot_lock: bool,
    /// With --movement-speed: a manual stride scale instead of the graph-driven one
    /// (see --stride-direction).
    #[arg(long, value_name = "S", requires = "movement_speed")]
    pub stride_scale: Option<f32>,
    /// Manual stride direction, degrees counter-clockwise from the facing (with
    /// --stride-scale; default 0).
    #[arg(
        long,
        value_name = "DEG",
        requires = "stride_scale",
        allow_negative_numbers = true
    )]
    pub stride_direction: Option<f32>,
    /// Leg chain by joint names, `THIGH,CALF,FOOT`; repeat per leg (default: detected).
    #[arg(long, value_name = "THIGH,CALF,FOOT", value_parser = locomotion_trace::parse_leg)]
    pub leg: Vec<(String, String, String)>,
    /// Motion matching: drive the character with the --scenario's Move / Stand / Tags
    /// events (default: stand, walk, turn left, run, stop) and print per frame the chosen
    /// clip and time, the cost and its groups, jumps and the trajectory error. Without
    /// FILE: the demo character with its locomotion set.
    #[arg(long, conflicts_with_all = ["blend", "movement_speed", "clip"])]
    pub motion_matching: bool,
    /// With --motion-matching: search by brute force (the same result, slower).
    #[arg(long, requires = "motion_matching")]
    pub brute_force: bool,
    /// With --motion-matching: neither read nor write FILE's database cache (in the user's
    /// cache folder).
    #[arg(long, requires = "motion_matching")]
    pub no_cache: bool,
    /// With --motion-matching: match these clips instead of the character's own (files or
    /// folders of BVH, FBX, glTF; repeatable), retargeted onto FILE's character (the
    /// built-in demo without FILE) where their skeleton differs.
    #[arg(long, value_name = "PATH", requires = "motion_matching")]
    pub library: Vec<PathBuf>,
    /// With --library: every library clip also enters mirrored left/right (`NAME
    /// (mirrored)`), doubling the database.
    #[arg(long, requires = "library")]
    pub mirror: bool,
    /// With --motion-matching: the style every jump lands on, a tag of the set (e.g.
    /// `normal`, `active`, `elderly` from a capture library's file names), or `any`.
    /// Default: `normal` when the set has that tag, else any.
    #[arg(long, value_name = "TAG", requires = "motion_matching")]
    pub style: Option<String>,
    #[command(flatten)]
    pub in_place: InPlaceArgs,
}

fn parse_ghost_style(s: &str) -> Result<crate::stage::inspect::GhostStyle, String> {
    crate::stage::inspect::GhostStyle::ALL
        .into_iter()
        .find(|g| g.label().eq_ignore_ascii_case(s.trim()))
        .ok_or_else(|| format!("'{s}' is not a ghost style (skeletons, meshes, both)"))
}

fn parse_sync(s: &str) -> Result<crate::graph::SyncMode, String> {
    use crate::graph::SyncMode;
    match s.to_ascii_lowercase().as_str() {
        "markers" | "marker" => Ok(SyncMode::Markers),
        "cycle" => Ok(SyncMode::Cycle),
        "none" | "off" => Ok(SyncMode::None),
        _ => Err(format!("'{s}' is not a sync mode (markers, cycle, none)")),
    }
}

#[derive(Debug, Args)]
pub struct MakeDemoArgs {
    /// Output path.
    #[arg(long, default_value = asset::demo::DEMO_PATH)]
    pub out: PathBuf,
    /// Write the demo character with its motion-matching locomotion set instead (walk,
    /// run, turns, strafes, start and stop).
    #[arg(long)]
    pub locomotion_set: bool,
}

fn parse_seek(s: &str) -> Result<(f64, u64), String> {
    let (t, frame) = s
        .split_once('@')
        .ok_or_else(|| format!("'{s}' is not T@FRAME (e.g. 3.1@30)"))?;
    let t: f64 = t
        .trim()
        .parse()
        .map_err(|_| format!("'{t}' is not a time in seconds"))?;
    if !t.is_finite() {
        return Err(format!("seek time '{t}' is not finite"));
    }
    let frame: u64 = frame
        .trim()
        .parse()
        .map_err(|_| format!("'{frame}' is not a frame number"))?;
    Ok((t, frame))
}

/// Loads `file`, or the built-in demo character when `None` (see
/// [`asset::folder::load_with_progress`]: a folder shows a progress bar on a terminal).
pub fn load_model(file: Option<&Path>) -> Result<Model, String> {
    asset::folder::load_with_progress(file).map_err(String::from)
}

fn joint_by_name(skeleton: &Skeleton, name: Option<&str>) -> Result<Option<usize>, String> {
    match name {
        None => Ok(None),
        Some(n) => skeleton.find(n).map(Some).ok_or_else(|| {
            format!("no joint named '{n}' (see `stridescope inspect` for the tree)")
        }),
    }
}

/// Runs a command and returns what to print on stdout.
pub fn run(command: Command) -> Result<String, String> {
    match command {
        Command::Inspect(args) => inspect(&args),
        Command::Trace(args) => trace(&args),
        Command::Render(args) => render::run(&args),
        Command::Snapshot(args) => snapshot::run(&args),
        Command::Retarget(args) => retarget::run(&args),
        Command::Lint(args) => lint::command::run(&args).map(|(text, _)| text),
        Command::MakeDemo(args) => {
            let written = if args.locomotion_set {
                std::fs::write(&args.out, asset::demo::locomotion_set_glb())
            } else {
                asset::demo::write_demo(&args.out)
            };
            written.map_err(|e| format!("{}: cannot write: {e}", args.out.display()))?;
            Ok(format!("wrote {}\n", args.out.display()))
        }
    }
}

#[derive(Debug, Serialize)]
pub struct InspectReport {
    pub source: String,
    /// `gltf`, `bvh` or `fbx`.
    pub format: &'static str,
    /// Metres per unit of the source file (1 for glTF; detected or given for BVH).
    pub source_units_m: f64,
    /// How the units were decided, in words.
    pub source_units_reason: String,
    /// The source's up axis (`+Y`, `+Z`...).
    pub source_up_axis: String,
    /// The application that wrote the file, when it says (FBX `Creator`); `null` else.
    pub source_creator: Option<String>,
    pub joints: Vec<JointReport>,
    pub skins: Vec<SkinReport>,
    pub meshes: Vec<MeshReport>,
    pub vertex_count: usize,
    pub clips: Vec<ClipReport>,
    /// The clip the window, `render`, `snapshot` and `trace` open on without `--clip`: the
    /// first that animates (`null` without clips).
    pub default_clip: Option<String>,
    /// Legs found by name or shape (empty with `legs_error` when there are none).
    pub legs: Vec<LegReport>,
    pub legs_error: Option<String>,
    /// `mean leg length / 0.9 m`: what the metre thresholds of locomotion are scaled by.
    pub unit_scale: f32,
    /// The file's scenes and the one shown (the default scene, else scene 0).
    pub scenes: Vec<String>,
    pub scene: Option<usize>,
    pub warnings: Vec<String>,
    /// With `--reduce-keys`: one report per clip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_reduction: Option<Vec<crate::anim::reduce::ReductionReport>>,
}

#[derive(Debug, Serialize, Clone)]
pub struct LegReport {
    pub name: String,
    pub thigh: String,
    pub calf: String,
    pub foot: String,
    pub toe: Option<String>,
    /// Rest-pose thigh-to-knee-to-ankle length (model units, metres for glTF).
    pub length_m: f32,
}

/// What locomotion finds in one clip.
#[derive(Debug, Serialize)]
pub struct ClipLocomotionReport {
    /// Foot joint names of the legs used (the model's `legs`).
    pub legs: Vec<String>,
    /// In place (the feet, not the root, carry the motion): speed matching uses the
    /// implied speed. Decided by one rule for every feature (or the user's override).
    pub in_place: bool,
    /// Why: the root's travel per cycle against the leg and the feet, or the override.
    pub in_place_reason: String,
    /// Ground speed implied by the planted feet (units/s; `null` when no foot plants).
    pub implied_speed_mps: Option<f64>,
    /// Travel direction implied by the feet (model X, Z).
    pub implied_direction: Option<[f32; 2]>,
    /// Relative spread of the estimate over contact thresholds x0.5/x1/x2 (< 0.1: firm).
    pub implied_spread: Option<f32>,
    /// No foot ever rests: the speed is the feet's at their lowest points (rougher).
    pub implied_touch_and_go: bool,
    /// Share of the cycle each leg is planted (0..1).
    pub contact_fraction: Vec<f32>,
    /// Per leg, how sure the contact detection is (0..1; 1 for the file's markers).
    pub contact_certainty: Vec<f32>,
    /// The clip's pose at its end returns to its start (root motion removed).
    pub loops: bool,
}

#[derive(Debug, Serialize)]
pub struct JointReport {
    pub name: String,
    pub parent: Option<usize>,
    pub node: usize,
}

#[derive(Debug, Serialize)]
pub struct SkinReport {
    pub name: String,
    pub joint_count: usize,
}

#[derive(Debug, Serialize)]
pub struct MeshReport {
    pub name: String,
    pub skin: Option<usize>,
    pub primitives: usize,
    pub vertices: usize,
    pub triangles: usize,
    /// Morph target names (`extras.targetNames`, else `target N`), and their default
    /// weights; empty without morph targets.
    pub morph_targets: Vec<String>,
    pub morph_weights: Vec<f32>,
}

#[derive(Debug, Serialize)]
pub struct ClipReport {
    pub name: String,
    /// Why the clip shows no motion (`empty take: no animated channel`, `... 0 s long`);
    /// `null` when it animates. Empty clips are never opened by default and libraries,
    /// grids and quality figures leave them out.
    pub empty: Option<String>,
    pub duration_secs: f64,
    /// The source's frame rate when it has one (BVH, FBX); `null` for glTF.
    pub frame_rate_hz: Option<f64>,
    /// Where clip time 0 lies on the source's timeline, seconds (an FBX take's start in
    /// scene time; 0 for glTF and BVH).
    pub source_start_secs: f64,
    pub first_key_secs: f64,
    pub channels: usize,
    pub translation_channels: usize,
    pub rotation_channels: usize,
    pub scale_channels: usize,
    pub interpolations: Vec<&'static str>,
    pub additive: bool,
    /// Animated morph-weight channels (one per mesh node), and the weights they carry.
    pub morph_channels: usize,
    pub morph_weights: usize,
    pub root_motion: Option<RootMotionReport>,
    pub markers: Vec<MarkerReport>,
    /// The channels that jump most at the loop wrap, most visible first (at most
    /// [`SEAM_CHANNELS_SHOWN`]; empty for a zero-length clip).
    pub loop_seam: Vec<SeamReport>,
    /// Legs, in-place flag and implied speed (`null` without legs or for a zero-length clip).
    pub locomotion: Option<ClipLocomotionReport>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct RootMotionReport {
    pub joint: String,
    pub auto_detected: bool,
    /// Per-cycle displacement in the root's start frame: model X and Z, metres.
    pub cycle_x_m: f64,
    pub cycle_z_m: f64,
    pub cycle_distance_m: f64,
    pub cycle_yaw_deg: f64,
    /// Horizontal cycle distance / duration.
    pub average_speed_mps: f64,
}

/// Loop-seam channels `inspect` lists per clip.
pub const SEAM_CHANNELS_SHOWN: usize = 5;

/// One channel's jump at the loop wrap (see [`crate::anim::seam`]).
#[derive(Debug, Serialize)]
pub struct SeamReport {
    pub joint: String,
    /// `translation`, `rotation` or `scale`.
    pub channel: &'static str,
    /// End value against start value: metres (translation), degrees (rotation), scale
    /// factor (scale).
    pub jump: f32,
    /// Slope into the seam against slope out: m/s, deg/s or 1/s.
    pub velocity_jump: f32,
    /// How far the jump moves the end of the joint's chain (metres): the ranking.
    pub visible_m: f32,
    pub visible_velocity_mps: f32,
}

#[derive(Debug, Serialize)]
pub struct MarkerReport {
    pub name: String,
    pub time_secs: f64,
}

/// Builds the inspection report (shared by text and JSON output).
pub fn inspect_report(model: &Model, root_joint: Option<&str>) -> Result<InspectReport, String> {
    let skeleton = &model.skeleton;
    let override_joint = joint_by_name(skeleton, root_joint)?;
    let (legs, legs_error) = match model.legs() {
        Ok(l) => (l, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let mut clips = Vec::new();
    for (clip_index, clip) in model.clips.iter().enumerate() {
        let mut warnings = Vec::new();
        let mut interpolations = Vec::new();
        let (mut t, mut r, mut s) = (0, 0, 0);
        for tracks in clip.tracks() {
            let mut note = |interp: crate::anim::Interpolation| {
                if !interpolations.contains(&interp.as_str()) {
                    interpolations.push(interp.as_str());
                }
            };
            if let Some(k) = &tracks.translation {
                t += 1;
                note(k.interpolation());
            }
            if let Some(k) = &tracks.rotation {
                r += 1;
                note(k.interpolation());
            }
            if let Some(k) = &tracks.scale {
                s += 1;
                note(k.interpolation());
            }
        }
        for k in clip.morph_tracks() {
            let name = k.interpolation().as_str();
            if !interpolations.contains(&name) {
                interpolations.push(name);
            }
        }
        let root_motion_full = ClipRootMotion::for_clip(skeleton, clip, override_joint);
        let root_motion = match &root_motion_full {
            Ok(Some(rm)) => {
                let d = rm.motion.cycle_displacement();
                let dist = d.translation.length();
                Some(RootMotionReport {
                    joint: skeleton.names()[rm.source.joint].clone(),
                    auto_detected: override_joint.is_none(),
                    cycle_x_m: d.translation.x,
                    cycle_z_m: d.translation.y,
                    cycle_distance_m: dist,
                    cycle_yaw_deg: d.yaw_rad.to_degrees(),
                    average_speed_mps: dist / rm.motion.duration_secs(),
                })
            }
            Ok(None) => {
                if clip.duration_secs() <= 0.0 {
                    warnings.push("zero-length clip: no root motion, cannot loop".to_string());
                }
                None
            }
            Err(e) => {
                warnings.push(format!("root motion: {e}"));
                None
            }
        };
        let root_motion_full = root_motion_full.ok().flatten();
        let loop_seam = if clip.duration_secs() > 0.0 {
            let mut seams = Vec::new();
            let job = crate::anim::seam::LoopSeamJob {
                skeleton,
                clip,
                root_motion: root_motion_full.as_ref(),
            };
            match job.run(&mut seams) {
                Ok(()) => seams
                    .iter()
                    .take(SEAM_CHANNELS_SHOWN)
                    .map(|s| {
                        let deg = s.channel == crate::anim::seam::SeamChannel::Rotation;
                        let unit = if deg {
                            180.0 / std::f32::consts::PI
                        } else {
                            1.0
                        };
                        SeamReport {
                            joint: skeleton.names()[s.joint].clone(),
                            channel: s.channel.as_str(),
                            jump: s.position_jump * unit,
                            velocity_jump: s.velocity_jump * unit,
                            visible_m: s.visible_m,
                            visible_velocity_mps: s.visible_velocity_mps,
                        }
                    })
                    .collect(),
                Err(e) => {
                    warnings.push(format!("loop seam: {e}"));
                    Vec::new()
                }
            }
        } else {
            Vec::new()
        };
        clips.push(ClipReport {
            loop_seam,
            name: clip.name().to_string(),
            empty: clip.emptiness().map(|e| e.to_string()),
            duration_secs: clip.duration_secs() as f64,
            frame_rate_hz: clip.frame_rate_hz(),
            source_start_secs: clip.source_start_secs(),
            first_key_secs: clip.first_key_secs() as f64,
            morph_channels: clip.morph_tracks().len(),
            morph_weights: clip.morph_tracks().iter().map(|t| t.targets()).sum(),
            channels: clip.channel_count(),
            translation_channels: t,
            rotation_channels: r,
            scale_channels: s,
            interpolations,
            additive: clip.is_additive(),
            root_motion,
            markers: clip
                .markers()
                .iter()
                .map(|m| MarkerReport {
                    name: m.name.clone(),
                    time_secs: m.time_secs as f64,
                })
                .collect(),
            locomotion: if legs.is_empty() || clip.duration_secs() <= 0.0 {
                None
            } else {
                match model.clip_analysis(clip_index) {
                    Ok(c) => Some(ClipLocomotionReport {
                        legs: legs
                            .iter()
                            .map(|l| skeleton.names()[l.foot].clone())
                            .collect(),
                        in_place: c.in_place.in_place,
                        in_place_reason: c.in_place.reason.clone(),
                        implied_speed_mps: c.implied.as_ref().map(|i| f64::from(i.speed)),
                        implied_direction: c
                            .implied
                            .as_ref()
                            .map(|i| [i.direction.x, i.direction.z]),
                        implied_spread: c.implied.as_ref().map(|i| i.spread),
                        implied_touch_and_go: c.implied.as_ref().is_some_and(|i| i.touch_and_go),
                        contact_fraction: c
                            .contacts
                            .iter()
                            // `+ 0.0` turns a -0 into 0 for printing.
                            .map(|f| f.contact_fraction(clip.duration_secs()) + 0.0)
                            .collect(),
                        contact_certainty: c.contacts.iter().map(|f| f.certainty).collect(),
                        loops: c.loops,
                    }),
                    Err(e) => {
                        warnings.push(format!("locomotion: {e}"));
                        None
                    }
                }
            },
            warnings,
        });
    }
    let leg_reports = legs
        .iter()
        .map(|l| LegReport {
            name: l.name.clone(),
            thigh: skeleton.names()[l.thigh].clone(),
            calf: skeleton.names()[l.calf].clone(),
            foot: skeleton.names()[l.foot].clone(),
            toe: l.toe.map(|t| skeleton.names()[t].clone()),
            length_m: crate::anim::contacts::leg_length(skeleton, l),
        })
        .collect();
    Ok(InspectReport {
        source: model.source.clone(),
        format: model.format.as_str(),
        source_units_m: model.source_units_m,
        source_units_reason: model.source_units_reason.clone(),
        source_up_axis: model.source_up_axis.clone(),
        source_creator: model.source_creator.clone(),
        joints: (0..skeleton.joint_count())
            .map(|i| JointReport {
                name: skeleton.names()[i].clone(),
                parent: skeleton.parents()[i],
                node: model.node_of_joint[i],
            })
            .collect(),
        skins: model
            .skins
            .iter()
            .map(|s| SkinReport {
                name: s.name.clone(),
                joint_count: s.joints.len(),
            })
            .collect(),
        meshes: model
            .meshes
            .iter()
            .map(|m| MeshReport {
                name: m.name.clone(),
                skin: m.skin,
                primitives: m.primitives.len(),
                vertices: m.primitives.iter().map(|p| p.positions.len()).sum(),
                triangles: m.primitives.iter().map(|p| p.indices.len() / 3).sum(),
                morph_targets: m.target_names.clone(),
                morph_weights: m.morph_weights.clone(),
            })
            .collect(),
        vertex_count: model.vertex_count(),
        clips,
        default_clip: model
            .default_clip()
            .map(|c| model.clips[c].name().to_string()),
        unit_scale: crate::anim::locomotion::unit_scale(skeleton, &legs),
        legs: leg_reports,
        legs_error,
        scenes: model.scenes.clone(),
        scene: model.scene,
        warnings: model.warnings.clone(),
        key_reduction: None,
    })
}

fn inspect(args: &InspectArgs) -> Result<String, String> {
    let mut model = load_model(args.file.as_deref())?;
    args.in_place.apply(&mut model);
    let reduction = match args.reduce_keys {
        Some(tolerance_m) => Some(model.reduce_keys(tolerance_m)?),
        None => None,
    };
    let mut report = inspect_report(&model, args.root_joint.as_deref())?;
    report.key_reduction = reduction;
    if args.json {
        return Ok(serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n");
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
            "  {}: {:.6} s (keys from {:.6} s{}), {} channels ({} translation, {} rotation, {} scale), {}{}",
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
            c.interpolations.join("/"),
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
                _ => "the feet never plant or stand still: no implied speed".into(),
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

/// One row of `stridescope trace`.
#[derive(Debug, Serialize, PartialEq)]
pub struct TraceFrame {
    pub frame: u64,
    /// What happened this frame: "start", "play" or "seek".
    pub event: &'static str,
    /// Unwrapped clip seconds (cycle * duration + phase).
    pub time_secs: f64,
    pub cycle: i64,
    /// Phase in [0, 1).
    pub phase: f64,
    /// Root-motion delta of this frame in the root's frame at the frame start (metres,
    /// model X/Z) and its yaw (degrees).
    pub delta_x_m: f64,
    pub delta_z_m: f64,
    pub delta_yaw_deg: f64,
    /// Accumulated world placement of the root (metres, degrees).
    pub world_x_m: f64,
    pub world_z_m: f64,
    pub world_yaw_deg: f64,
}

#[derive(Debug, Serialize)]
pub struct TraceReport {
    pub source: String,
    pub clip: String,
    pub duration_secs: f64,
    pub fps: f64,
    pub rate: f64,
    pub root_joint: Option<String>,
    pub frames: Vec<TraceFrame>,
}

/// The clip named `name` (`None`: the first clip that animates, see
/// [`Model::default_clip`]); an unknown name lists the clips.
pub fn clip_index(model: &Model, name: Option<&str>) -> Result<usize, String> {
    match name {
        Some(name) => model.find_clip(name).ok_or_else(|| {
            let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
            format!("no clip named '{name}'; clips: {}", names.join(", "))
        }),
        None if model.clips.is_empty() => Err(format!("{}: has no animations", model.source)),
        None => Ok(model.default_clip().unwrap_or(0)),
    }
}

/// Plays a clip frame by frame (see [`TraceArgs`]).
pub fn trace_report(model: &Model, args: &TraceArgs) -> Result<TraceReport, String> {
    if !(args.fps.is_finite() && args.fps > 0.0) {
        return Err(format!("--fps must be a positive number, got {}", args.fps));
    }
    let clip_index = clip_index(model, args.clip.as_deref())?;
    let clip = &model.clips[clip_index];
    let duration = clip.duration_secs() as f64;
    let seconds = args.seconds.unwrap_or(2.0 * duration.max(1.0 / args.fps));
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(format!(
            "--seconds must be a non-negative number, got {seconds}"
        ));
    }
    let frame_count = (seconds * args.fps).round();
    const MAX_FRAMES: f64 = 10_000_000.0;
    if frame_count > MAX_FRAMES {
        return Err(format!(
            "{frame_count} frames requested; at most {MAX_FRAMES} per trace"
        ));
    }
    let override_joint = joint_by_name(&model.skeleton, args.root_joint.as_deref())?;
    let root = ClipRootMotion::for_clip(&model.skeleton, clip, override_joint)
        .map_err(|e| format!("clip '{}': {e}", clip.name()))?;
    let root_joint = root
        .as_ref()
        .map(|r| model.skeleton.names()[r.source.joint].clone());
    // The rate is checked here for its message; the timeline then plays at it.
    PlaybackClock::new(1.0)
        .map_err(|e| e.to_string())?
        .set_rate(args.rate)
        .map_err(|e| format!("--rate: {e}"))?;
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
                return Err(format!("--seek {t}@{frame}: {e}"));
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
                .map_err(|e| format!("frame {frame}: {e}"))?;
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

fn trace(args: &TraceArgs) -> Result<String, String> {
    if args.motion_matching {
        let report = matching_trace::report(args)?;
        if args.json {
            return Ok(serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n");
        }
        return Ok(matching_trace::text(&report));
    }
    let mut model = load_model(args.file.as_deref())?;
    args.in_place.apply(&mut model);
    if args.movement_speed.is_some() {
        let report = locomotion_trace::report(&model, args)?;
        if args.json {
            return Ok(serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n");
        }
        return Ok(locomotion_trace::text(&report));
    }
    if args.blend.is_some() || args.scenario.is_some() {
        let report = graph_trace::report(&model, args)?;
        if args.json {
            return Ok(serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n");
        }
        return Ok(graph_trace::text(&report));
    }
    let report = trace_report(&model, args)?;
    if args.json {
        return Ok(serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n");
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
