//! The command line: the window's flags and the commands' arguments (clap), and the
//! window's start-up options made from them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::{lint, locomotion_trace, render_command, retarget, snapshot};
use crate::asset::{self, Model};

/// stridescope: a glTF animation previewer with wrap-safe root motion.
#[derive(Debug, Parser)]
// The about line is the application's, not this crate's manifest description.
#[command(
    name = "stridescope",
    version,
    about = "GPU animation previewer for glTF, FBX and BVH characters: playback, wrap-safe root motion, stride warping"
)]
#[command(group(
    clap::ArgGroup::new("library_user")
        .multiple(true)
        .args(["motion_matching", "library_view"])
))]
pub struct Cli {
    /// The command to run; `None` opens the window.
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
    #[arg(long, value_name = "WxH", value_parser = render_command::parse_size)]
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
    /// `--in-place` / `--root-motion`: the in-place choice for every clip opened.
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

/// The commands (`stridescope inspect`, `trace`, ...); without one, the window opens.
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
    Render(render_command::RenderArgs),
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
    /// The choice the flags make: `--in-place` wins over `--root-motion`; neither leaves it to
    /// the rule (`Auto`).
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

/// The arguments of `stridescope inspect`.
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
    /// `--in-place` / `--root-motion`: the in-place choice for every clip of the file.
    #[command(flatten)]
    pub in_place: InPlaceArgs,
}

/// The arguments of `stridescope trace`: plain playback, a `--blend` or `--scenario` through
/// the pose graph, a `--movement-speed` drive, or `--motion-matching`.
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
    /// With --motion-matching: neither read nor write FILE's database cache, nor the
    /// library's retargeted takes (both in the user's cache folder).
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
    /// `--in-place` / `--root-motion`: the in-place choice for every clip of the file.
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

/// The arguments of `stridescope make-demo`.
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
