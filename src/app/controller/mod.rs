//! The previewer's state, owned by a controller the UI only draws: the open character,
//! single-clip playback (the [`Timeline`]) and what moves the character now (its
//! [`MotionSource`]: the clip, a pose graph, Drive or motion matching), the
//! evaluated pose, camera and view settings, the status message and the actions the window
//! must carry out. No egui here: `src/ui` draws this state and calls its methods; tests
//! drive it directly.

mod clip_edit;
mod command;
mod evaluate;
mod library;
mod loading;
mod matching;
mod messages;
mod playback;
mod retarget;
mod view;

use std::path::{Path, PathBuf};

use glam::Vec3;

pub use clip_edit::MARKER_NAMES;
pub use command::{StageCommand, ViewCommand};
pub use library::LibraryView;
pub use matching::MatchingOverlays;
pub use playback::Transport;
pub use retarget::{MapSide, RetargetSession};

use crate::asset::Model;
use crate::graph::def::{GraphDef, NodeDef};
use crate::render::camera::OrbitCamera;
use crate::render::LocomotionOverlays;
use crate::settings::{Settings, ViewToggles};
use crate::stage::character::Character;
use crate::stage::locomotion::LocomotionSettings;
use crate::stage::pose::Pose;
use crate::stage::session::GraphSession;
use crate::stage::source::{MatchingPlay, MotionSource};
use crate::stage::timeline::{RootMotionMode, Timeline};
use crate::stage::Stage;
use crate::AppError;

/// Something the window must do for the UI (things egui cannot do itself).
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Show the native open-file dialog.
    OpenDialog,
    /// Pick the file A/B compare takes clip B from.
    OpenCompareDialog,
    /// Pick a file or folder whose clips are retargeted onto the character.
    OpenRetargetDialog,
    /// Pick a folder of clips to show as a library (every clip at once).
    OpenLibraryDialog,
    /// Ask where to save the retarget bone map (RON).
    SaveRetargetMapDialog,
    /// File > Save retargeted clips: pick where the character's GLB with its retargeted
    /// clips goes.
    SaveRetargetedDialog,
    /// Pick a retarget bone map (RON) to load and apply.
    LoadRetargetMapDialog,
    /// Ask where to save a preview (GIF / APNG / MP4) of the clip as the viewport shows it.
    ExportPreview,
    /// Save that preview to this file (picked in the in-app browser).
    ExportPreviewTo(PathBuf),
    /// Save the settings and close the window (File > Quit, Ctrl+Q).
    Quit,
}

/// Camera views relative to the character's facing (View > Camera, numpad keys as in
/// Blender: 1 front, 3 right, 7 top, Ctrl for the opposite side; Alt+1/3/7 without a
/// numpad; 9 behind, following).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraPreset {
    /// Facing the character, level (Numpad 1).
    Front,
    /// Behind the character, level (Ctrl+Numpad 1).
    Back,
    /// From the character's right side (Numpad 3).
    Right,
    /// From the character's left side (Ctrl+Numpad 3).
    Left,
    /// From above, looking down (Numpad 7; the camera's pitch stops just short of 90°).
    Top,
    /// Behind the character, slightly above, with the camera following it.
    Follow,
}

impl CameraPreset {
    /// Every preset, in View > Camera's order.
    pub const ALL: [CameraPreset; 6] = [
        Self::Front,
        Self::Back,
        Self::Right,
        Self::Left,
        Self::Top,
        Self::Follow,
    ];

    /// Menu text with the shortcut.
    pub fn label(self) -> &'static str {
        match self {
            Self::Front => "Front  (Numpad 1, Alt+1)",
            Self::Back => "Back  (Ctrl+Numpad 1, Ctrl+Alt+1)",
            Self::Right => "Right side  (Numpad 3, Alt+3)",
            Self::Left => "Left side  (Ctrl+Numpad 3, Ctrl+Alt+3)",
            Self::Top => "Top  (Numpad 7, Alt+7)",
            Self::Follow => "Follow from behind  (Numpad 9, Alt+9)",
        }
    }

    /// The preset for a digit key (1, 3, 7, 9) with Ctrl for the opposite side.
    pub fn for_digit(digit: u8, ctrl: bool) -> Option<Self> {
        Some(match (digit, ctrl) {
            (1, false) => Self::Front,
            (1, true) => Self::Back,
            (3, false) => Self::Right,
            (3, true) => Self::Left,
            (7, _) => Self::Top,
            (9, _) => Self::Follow,
            _ => return None,
        })
    }
}

/// Drive's state kept by the window, whether or not drive is on.
pub struct DriveState {
    /// Movement speed, direction and every locomotion setting.
    pub settings: LocomotionSettings,
    /// Which locomotion debug overlays the viewport draws while driving.
    pub overlays: LocomotionOverlays,
    /// The user set the movement speed; until then Drive starts at the clip's own speed
    /// (a rig at any scale starts unwarped).
    pub(crate) speed_chosen: bool,
}

impl Default for DriveState {
    fn default() -> Self {
        Self {
            settings: LocomotionSettings::default(),
            overlays: LocomotionOverlays::all(),
            speed_chosen: false,
        }
    }
}

/// The two kinds of undoable edit: Ctrl+Z undoes the kind made last, then the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EditKind {
    /// A pose-graph edit (Blend panel > Edit graph).
    Graph,
    /// A clip edit (rename, trim, markers, additive, hide, order, default clip).
    Clips,
}

/// Status messages the previewer keeps for its log.
pub const MESSAGE_LOG_LEN: usize = 200;

/// The parameter of [`Previewer::blend_two_clips`]'s blend space.
pub const TWO_CLIP_WEIGHT: &str = "weight";

/// Seconds an error toast stays over the viewport.
pub const TOAST_SECS: f64 = 8.0;

/// Seconds of playback a phase warning stays visible after it stopped firing.
pub const WARNING_HOLD_SECS: f64 = 2.0;

/// A status-bar message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// What the message says (cut to the status bar's width there, whole in View >
    /// Messages).
    pub text: String,
    /// An error: drawn in red, and also shown as the toast over the viewport.
    pub is_error: bool,
}

/// Frame statistics and adapter, filled in by the window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Frames drawn per second, averaged over the last half second (0 until measured).
    pub fps: f32,
    /// CPU time the window spent building and submitting the previous frame (ms).
    pub frame_ms: f32,
    /// e.g. "llvmpipe (LLVM 15) (Vulkan)".
    pub adapter: String,
}

/// The previewer's state: the open character, playback, pose, camera and view settings.
pub struct Previewer {
    /// The characters on screen: `stage.main` is the open one (its model, clip timeline,
    /// motion source and pose; `path` `None` for the built-in demo; `generation` bumped
    /// whenever the model is replaced, so the window re-uploads GPU data).
    pub stage: Stage,
    /// Motion matching's tags from a library's sidecars and its debug overlays.
    pub matching: view::MatchingDisplay,
    /// The camera, what the viewport draws and its size.
    pub view: view::ViewState,
    /// Preferences and per-file state kept between runs; the window saves them on exit
    /// (see [`Self::store_settings`]).
    pub settings: Settings,
    /// The status message, its log, the error toast and the phase warning.
    messages: messages::Messages,
    pub(crate) actions: Vec<Action>,
    /// Drive's settings (speed, direction, every locomotion setting, kept while drive is
    /// off) and which of its debug overlays the viewport draws.
    pub drive: DriveState,
    /// Outliner selection, curve view, onion skin, seam table and the Morphs panel's
    /// hand-set weights (applied while paused, dropped when playback resumes).
    pub inspect: crate::stage::inspect::Inspection,
    /// The last File > Retarget (its map, figures and clips), for the mapping panel.
    pub retarget: Option<RetargetSession>,
    /// The open file's clip edits, their undo history and the clip list's "show hidden";
    /// see [`clip_edit`].
    clip_editing: clip_edit::ClipEditing,
    /// How files are read, loads running in the background, how the last library build
    /// ended, the library view, and where the file browser opens.
    loads: Loads,
}

/// What the window is loading in the background and what came of it.
#[derive(Default)]
struct Loads {
    /// How every file the window opens is read (units, truncated BVH, key reduction):
    /// the command line's flags, read once at start-up.
    options: crate::asset::LoadOptions,
    /// The library view (every clip at once in a grid) while it is open.
    library_view: Option<LibraryView>,
    /// Counts the B files opened, so the window uploads each once.
    compare_files_opened: u64,
    /// The folder the file browser showed last, where it opens next time (also after an
    /// open that failed there).
    browsed_dir: Option<PathBuf>,
    /// A folder of clips loading on a worker thread (the window keeps drawing the current
    /// character and a progress bar meanwhile).
    pending: Option<PendingLoad>,
    /// How the last library build ended, until the window takes it
    /// ([`Previewer::take_library_outcome`]).
    library_outcome: Option<Result<(), AppError>>,
    /// Open the library view when the library build running now is done (File > Open a
    /// folder as a library).
    library_view_pending: bool,
}

/// A folder (or a motion-matching library) loading on a worker thread, and how far it
/// got.
struct PendingLoad {
    path: PathBuf,
    /// A motion-matching library (else a folder of takes).
    library: bool,
    /// Report how the library build ended ([`Previewer::take_library_outcome`]): the
    /// start-up `--library`, whose other options wait for it; not File > Open a folder as
    /// a library.
    report_outcome: bool,
    progress: std::sync::Arc<LoadProgress>,
    handle: std::thread::JoinHandle<Result<Loaded, AppError>>,
    /// The folder changed again while loading: load it once more when done.
    again: bool,
}

/// What a worker reports: its step ([`LOAD_STEPS`]), items done and items in all (0
/// while unknown).
#[derive(Default)]
struct LoadProgress {
    step: std::sync::atomic::AtomicUsize,
    done: std::sync::atomic::AtomicUsize,
    total: std::sync::atomic::AtomicUsize,
}

/// The steps a worker goes through, as the status bar names them.
const LOAD_STEPS: [&str; 3] = [
    "reading files",
    "retargeting clips",
    "building the database",
];

/// What a worker made.
enum Loaded {
    /// A folder of takes: one character.
    Folder(Model),
    /// A motion-matching library on the character, and its database when motion matching
    /// starts at once.
    Library {
        model: Model,
        files: usize,
        mirror: bool,
        tags: Vec<crate::stage::matching::TagDef>,
        session: Option<Box<crate::stage::matching::MatchingSession>>,
    },
}

impl Previewer {
    /// A previewer showing `model` (from `path`, `None` for the demo).
    pub fn new(model: Model, path: Option<PathBuf>, settings: Settings) -> Self {
        let mut main = Character::new(model, path);
        let (timeline, model, path) = (&mut main.timeline, &main.model, &main.path);
        if let Some(mode) = RootMotionMode::ALL
            .into_iter()
            .find(|m| m.label() == settings.root_motion_mode)
        {
            timeline.set_mode(mode);
        }
        let file = settings.file_state(path.as_deref());
        Self::apply_file_state(timeline, model, &file);
        let mut settings = settings;
        if let Some(path) = path {
            settings.push_recent(path);
            settings.last_file = Some(path.clone());
        }
        let joint_filter = file.joint_filter;
        let mut p = Self {
            stage: Stage::new(main),
            matching: Default::default(),
            view: view::ViewState::new(settings.toggles),
            settings,
            messages: Default::default(),
            actions: Vec::new(),
            drive: DriveState::default(),
            inspect: crate::stage::inspect::Inspection::new(),
            clip_editing: Default::default(),
            retarget: None,
            loads: Loads::default(),
        };
        p.inspect.filter = joint_filter;
        p.evaluate_pose();
        if let Some(w) = p.import_warning_summary() {
            p.set_message(w, false);
        }
        p
    }

    /// The open character's model (the built-in demo's when no file is open).
    pub fn model(&self) -> &Model {
        &self.stage.main.model
    }

    /// The open file, `None` for the built-in demo.
    pub fn path(&self) -> Option<&Path> {
        self.stage.main.path.as_deref()
    }

    /// Bumped whenever the model is replaced (another file or scene, a reload, a library,
    /// a retarget), so the window uploads its GPU data again.
    pub fn model_generation(&self) -> u64 {
        self.stage.main.generation
    }

    /// Physical pixel size the viewport had at the last layout.
    pub fn viewport_size_px(&self) -> [u32; 2] {
        self.view.viewport_size_px
    }

    /// True while something animates, so the window keeps redrawing; when false the
    /// window sleeps until input arrives.
    pub fn is_animating(&self) -> bool {
        if self.loads.pending.is_some() {
            // Keep polling the folder load and drawing its progress.
            return true;
        }
        if let Some(v) = self.library_view() {
            return v.playing;
        }
        match &self.stage.main.source {
            MotionSource::Matching(m) => m.playing,
            MotionSource::Graph { session, .. } => session.playing && session.graph.rate() != 0.0,
            MotionSource::Clip => self.stage.main.timeline.is_advancing(),
        }
    }

    /// What moves the character now.
    pub fn source(&self) -> &MotionSource {
        &self.stage.main.source
    }

    /// The pose graph while one plays (the file's graph, a blend, Drive's one-clip graph).
    pub fn graph(&self) -> Option<&GraphSession> {
        self.stage.main.source.graph()
    }

    /// The playing pose graph, to change; `None` when no graph plays.
    pub fn graph_mut(&mut self) -> Option<&mut GraphSession> {
        self.stage.main.source.graph_mut()
    }

    /// Motion matching while it moves the character.
    pub fn matching(&self) -> Option<&MatchingPlay> {
        self.stage.main.source.matching()
    }

    /// Motion matching while it moves the character, to change; `None` while it is off.
    pub fn matching_mut(&mut self) -> Option<&mut MatchingPlay> {
        self.stage.main.source.matching_mut()
    }
}
