//! How the window starts: the options (made from the command line by `main.rs`), the
//! file it opens and the start-up state they set up.

use std::path::{Path, PathBuf};

use crate::asset::Model;
use crate::controller::{StageCommand, Transport};
use crate::ui::Previewer;
use crate::AppError;

/// How the window starts.
#[derive(Clone, Debug, Default)]
pub struct AppOptions {
    /// File to open; the built-in demo when `None`.
    pub file: Option<PathBuf>,
    /// Write a PNG of the whole window (UI included) after `after_frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    /// Frames to draw before `screenshot` or `export` acts (frames while a folder or library
    /// loads do not count); `drop` happens halfway.
    pub after_frames: u32,
    /// Inner size in logical pixels (overrides the saved size).
    pub size: Option<[u32; 2]>,
    /// Clip to select at start (default: the first).
    pub clip: Option<String>,
    /// Start playing (for scripted screenshots).
    pub play: bool,
    /// Joint to select at start.
    pub select: Option<String>,
    /// Onion skin with this many ghosts on each side.
    pub onion: Option<u32>,
    /// How the ghosts are drawn (`None`: the default, skeletons).
    pub ghosts: Option<crate::stage::inspect::GhostStyle>,
    /// Export a preview of the clip (like File > Export preview) after `after_frames`
    /// frames, then exit.
    pub export: Option<PathBuf>,
    /// A/B compare against this clip, over A or beside it.
    pub compare: Option<String>,
    /// With `compare`: B beside A instead of over it.
    pub side_by_side: bool,
    /// Retarget this file's or folder's clips onto the character at start, the source
    /// beside it.
    pub retarget_from: Option<PathBuf>,
    /// Start in pose-graph mode with the file's default graph.
    pub graph: bool,
    /// Graph parameters to set at start (imply `graph`).
    pub param: Vec<(String, f32)>,
    /// Start driving (locomotion) at `movement_speed` (default: the clip's own speed)
    /// toward `direction_deg`.
    pub drive: bool,
    /// Drive's movement speed (metres per second); `None`: the clip's own speed.
    pub movement_speed: Option<f32>,
    /// Drive's movement direction (degrees counter-clockwise from the facing).
    pub direction_deg: f32,
    /// In place / root motion for every clip of the file (`--in-place`,
    /// `--root-motion`); `Auto` lets the rule decide.
    pub in_place: crate::anim::locomotion::InPlaceOverride,
    /// Start in motion-matching mode (the demo's locomotion set without a file).
    pub motion_matching: bool,
    /// Motion matching on these clip files and folders instead of the character's own
    /// clips, retargeted onto it (and mirrored with `mirror`).
    pub library: Vec<PathBuf>,
    /// With `library`: every library clip also enters mirrored left/right.
    pub mirror: bool,
    /// Open the library view (every clip at once) at start, on the library when one is
    /// built.
    pub library_view: bool,
    /// The motion-matching style (`--style`; see
    /// [`crate::stage::matching::MatchingDef::style`]).
    pub style: Option<String>,
    /// Movement keys held throughout a scripted run (`--screenshot`, `--export`).
    pub hold_keys: Option<crate::stage::matching::KeyInput>,
    /// A file dropped on the window halfway through a scripted run (`--drop`).
    pub drop: Option<PathBuf>,
    /// How files are read (`--units`, `--allow-truncated`, `--reduce-keys`).
    pub load: crate::asset::LoadOptions,
}

/// The start-up options that set up what plays (after the file, or the library, is on
/// the character): in-place choice, clip, play, selection, compare, retarget source, onion
/// skin, pose graph and parameters, drive, motion matching (a library starts its own).
pub(super) fn apply_start_options(previewer: &mut Previewer, options: &AppOptions) {
    if options.in_place != crate::anim::locomotion::InPlaceOverride::Auto {
        previewer.set_in_place_override_all(options.in_place);
    }
    if let Some(name) = &options.clip {
        match previewer.model().find_clip(name) {
            Some(i) => previewer.select_clip(i),
            None => previewer.set_message(format!("no clip named '{name}'"), true),
        }
    }
    if options.play {
        previewer.transport(Transport::Play(true));
    }
    if let Some(name) = &options.select {
        match previewer.model().skeleton.find(name) {
            Some(j) => previewer.select_joint(Some(j)),
            None => previewer.set_message(format!("no joint named '{name}'"), true),
        }
    }
    if let Some(name) = &options.compare {
        match previewer.model().find_clip(name) {
            Some(i) => {
                previewer.compare_with_clip(i);
                if let Some(c) = &previewer.stage.compare {
                    let view = if options.side_by_side {
                        crate::stage::inspect::CompareView::SideBySide
                    } else {
                        crate::stage::inspect::CompareView::Overlay
                    };
                    let (lock, offset) = (c.lock, c.offset);
                    previewer.send(StageCommand::CompareLayout { lock, offset, view });
                }
            }
            None => previewer.set_message(format!("no clip named '{name}' to compare"), true),
        }
    }
    if let Some(path) = &options.retarget_from {
        // Errors are in the status bar; the character stays as it was.
        let _ = previewer.retarget_from(path);
    }
    if let Some(n) = options.onion {
        let onion = &mut previewer.inspect.onion;
        onion.enabled = n > 0;
        onion.before = n.min(crate::stage::inspect::MAX_GHOSTS);
        onion.after = onion.before;
        if let Some(style) = options.ghosts {
            onion.style = style;
        }
        previewer.evaluate_pose();
    }
    if options.graph || !options.param.is_empty() {
        previewer.set_graph_enabled(true);
        for (name, v) in &options.param {
            previewer.send(StageCommand::GraphFloat {
                name: name.clone(),
                value: *v,
            });
        }
        previewer.send(StageCommand::GraphPlaying(options.play));
    }
    if options.drive {
        let mut s = previewer.drive.settings;
        s.direction_deg = options.direction_deg;
        if let Some(v) = options.movement_speed {
            s.movement_speed = v;
            previewer.drive.speed_chosen = true;
        }
        previewer.drive.settings = s;
        previewer.set_drive(true);
        previewer.send(StageCommand::GraphPlaying(options.play));
    }
    if options.motion_matching && options.library.is_empty() {
        if options.file.is_none() {
            previewer.open_matching_demo();
        } else {
            previewer.set_matching_enabled(true);
        }
    }
    if let Some(style) = &options.style {
        // An unknown style is an error in the status bar; matching goes on as it was.
        previewer.edit_matching(|d| d.style = Some(style.clone()));
    }
    if options.library_view {
        previewer.open_library_view();
    }
}

/// Loads the requested file; a bad file falls back to the demo, with its error returned.
pub(super) fn initial_model(
    file: Option<&Path>,
    options: &crate::asset::LoadOptions,
) -> Result<(Model, Option<PathBuf>, Option<AppError>), AppError> {
    let demo = || crate::asset::load_or_demo_with(None, options);
    match file {
        Some(path) => match crate::asset::load_with(path, options) {
            Ok(m) => Ok((m, Some(path.to_path_buf()), None)),
            Err(e) => Ok((demo()?, None, Some(e.into()))),
        },
        None => Ok((demo()?, None, None)),
    }
}
