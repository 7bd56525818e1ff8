//! The previewer's state, owned by a controller the UI only draws: the open character,
//! single-clip playback (the [`Timeline`]), the pose graph ([`GraphSession`]) or motion
//! matching ([`MatchingMode`], in `matching.rs`), the
//! evaluated pose, camera and view settings, the status message and the actions the window
//! must carry out. No egui here: `src/ui` draws this state and calls its methods; tests
//! drive it directly.

mod matching;

use std::path::{Path, PathBuf};

use glam::Vec3;

pub use matching::{MatchingMode, MatchingOverlays};

use crate::app::settings::{Settings, ViewToggles};
use crate::asset::Model;
use crate::graph::def::{GraphDef, NodeDef};
use crate::render::camera::OrbitCamera;
use crate::render::LocomotionOverlays;
use crate::stage::locomotion::LocomotionSettings;
use crate::stage::pose::{Pose, PoseRequest};
use crate::stage::session::GraphSession;
use crate::stage::timeline::{RootMotionMode, Timeline};

/// Something the window must do for the UI (things egui cannot do itself).
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Show the native open-file dialog.
    OpenDialog,
    /// Pick the file A/B compare takes clip B from.
    OpenCompareDialog,
    /// Pick a file or folder whose clips are retargeted onto the character.
    OpenRetargetDialog,
    /// Ask where to save a preview (GIF / APNG / MP4) of the clip as the viewport shows it.
    ExportPreview,
    /// Save that preview to this file (picked in the in-app browser).
    ExportPreviewTo(PathBuf),
    Quit,
}

/// Camera views relative to the character's facing (View > Camera, numpad keys as in
/// Blender: 1 front, 3 right, 7 top, Ctrl for the opposite side; Alt+1/3/7 without a
/// numpad; 9 behind, following).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraPreset {
    Front,
    Back,
    Right,
    Left,
    Top,
    /// Behind the character, slightly above, with the camera following it.
    Follow,
}

impl CameraPreset {
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
    pub text: String,
    pub is_error: bool,
}

/// Frame statistics and adapter, filled in by the window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub fps: f32,
    pub frame_ms: f32,
    /// e.g. "llvmpipe (LLVM 15) (Vulkan)".
    pub adapter: String,
}

/// The previewer's state: the open character, playback, pose, camera and view settings.
pub struct Previewer {
    pub(crate) model: Model,
    /// `None` for the built-in demo.
    pub(crate) path: Option<PathBuf>,
    /// Increments whenever `model` is replaced, so the window re-uploads GPU data.
    pub(crate) model_generation: u64,
    pub timeline: Timeline,
    /// The pose graph, when the previewer plays through it instead of one clip.
    pub graph: Option<GraphSession>,
    /// Motion matching, when it drives the character (replaces the graph and the
    /// timeline while on).
    pub matching: Option<MatchingMode>,
    pub pose: Pose,
    pub camera: OrbitCamera,
    pub toggles: ViewToggles,
    pub settings: Settings,
    pub stats: Stats,
    pub(crate) message: Option<Message>,
    /// Every status message so far, oldest first, the last [`MESSAGE_LOG_LEN`] kept, and
    /// how many were ever logged (the window prints new ones in scripted runs).
    pub(crate) message_log: std::collections::VecDeque<Message>,
    pub(crate) messages_logged: u64,
    /// The error toast and the UI time it first showed.
    toast: Option<(Message, Option<f64>)>,
    /// Whether the graph warned of phase cancellation last frame, and the last warning
    /// with the graph's clock when it last fired.
    phase_warning_on: bool,
    last_phase_warning: Option<(String, f64)>,
    /// View > Messages is open.
    pub show_messages: bool,
    pub(crate) actions: Vec<Action>,
    /// Viewport size in physical pixels, as laid out last frame.
    pub(crate) viewport_size_px: [u32; 2],
    /// Frame the character on the next viewport layout.
    pub(crate) frame_pending: bool,
    /// Camera target minus the root position while following.
    pub(crate) follow_offset: Option<Vec3>,
    /// Movement speed, direction and every locomotion setting (kept while drive is off).
    pub locomotion_settings: LocomotionSettings,
    /// Which locomotion debug overlays the viewport draws while driving.
    pub locomotion_overlays: LocomotionOverlays,
    /// The graph was made for driving one clip (drive off returns to the timeline).
    pub(crate) drive_graph: bool,
    /// The user set the movement speed; until then Drive starts at the clip's own speed
    /// (a rig at any scale starts unwarped).
    pub(crate) speed_chosen: bool,
    /// Legs chosen by the user (`None`: detected).
    pub leg_override: Option<Vec<crate::anim::contacts::LegChain>>,
    /// Outliner selection, curve view, onion skin and seam table.
    pub inspect: crate::stage::inspect::Inspection,
    /// Onion-skin ghosts of the last evaluation with their opacity (empty when off).
    pub ghosts: Vec<(Pose, f32)>,
    /// Each ghost's time from the playhead (seconds; negative = the past), parallel to
    /// `ghosts`: past and future are tinted differently.
    pub ghost_offsets_secs: Vec<f64>,
    /// A/B compare against another clip or file (`None`: off).
    pub compare: Option<crate::stage::inspect::AbCompare>,
    /// Counts the B files opened, so the window uploads each once.
    compare_files_opened: u64,
    /// Morphs panel: weights set by hand per mesh and target, applied over the animated
    /// ones while playback is paused (dropped when it resumes).
    pub morph_overrides: Vec<Vec<Option<f32>>>,
    /// The in-app file browser while it is open (File > Open where no desktop portal
    /// answers, or File > Open with the built-in browser).
    pub file_browser: Option<crate::app::file_browser::FileBrowser>,
    /// The folder the file browser showed last, where it opens next time (also after an
    /// open that failed there).
    pub(crate) browsed_dir: Option<PathBuf>,
    /// A folder of clips loading on a worker thread (the window keeps drawing the current
    /// character and a progress bar meanwhile).
    pending_load: Option<PendingLoad>,
}

/// A folder loading on a worker thread, and how far it got.
struct PendingLoad {
    path: PathBuf,
    /// Files parsed and files in all (the worker's progress callback writes them).
    progress: std::sync::Arc<(
        std::sync::atomic::AtomicUsize,
        std::sync::atomic::AtomicUsize,
    )>,
    handle: std::thread::JoinHandle<Result<Model, String>>,
    /// The folder changed again while loading: load it once more when done.
    again: bool,
}

impl Previewer {
    /// A previewer showing `model` (from `path`, `None` for the demo).
    pub fn new(model: Model, path: Option<PathBuf>, settings: Settings) -> Self {
        let mut timeline = Timeline::new(&model);
        if let Some(mode) = RootMotionMode::ALL
            .into_iter()
            .find(|m| m.label() == settings.root_motion_mode)
        {
            timeline.set_mode(mode);
        }
        let file = settings.file_state(path.as_deref());
        Self::apply_file_state(&mut timeline, &model, &file);
        let pose = Pose::new(&model);
        let mut settings = settings;
        if let Some(path) = &path {
            settings.push_recent(path);
            settings.last_file = Some(path.clone());
        }
        let joint_filter = file.joint_filter;
        let mut p = Self {
            model,
            path,
            model_generation: 0,
            timeline,
            graph: None,
            matching: None,
            pose,
            camera: OrbitCamera::default(),
            toggles: settings.toggles,
            settings,
            stats: Stats::default(),
            message: None,
            pending_load: None,
            message_log: std::collections::VecDeque::new(),
            messages_logged: 0,
            toast: None,
            phase_warning_on: false,
            last_phase_warning: None,
            show_messages: false,
            actions: Vec::new(),
            viewport_size_px: [1, 1],
            frame_pending: true,
            follow_offset: None,
            locomotion_settings: LocomotionSettings::default(),
            locomotion_overlays: LocomotionOverlays::all(),
            drive_graph: false,
            leg_override: None,
            speed_chosen: false,
            inspect: crate::stage::inspect::Inspection::new(),
            ghosts: Vec::new(),
            ghost_offsets_secs: Vec::new(),
            compare: None,
            compare_files_opened: 0,
            morph_overrides: Vec::new(),
            file_browser: None,
            browsed_dir: None,
        };
        p.inspect.filter = joint_filter;
        p.evaluate_pose();
        if let Some(w) = p.import_warning_summary() {
            p.set_message(w, false);
        }
        p
    }

    /// "N import warning(s): the first one" when the importer ignored or repaired
    /// something (unsupported extensions, morph targets...), for the status bar; the list
    /// is under Clips > Import warnings.
    pub fn import_warning_summary(&self) -> Option<String> {
        let first = self.model.warnings.first()?;
        Some(match self.model.warnings.len() {
            1 => format!("1 import warning: {first}"),
            n => format!("{n} import warnings (see Clips > Import warnings), first: {first}"),
        })
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The open file, `None` for the built-in demo.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn model_generation(&self) -> u64 {
        self.model_generation
    }

    pub fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    pub fn set_message(&mut self, text: impl Into<String>, is_error: bool) {
        let m = Message {
            text: text.into(),
            is_error,
        };
        self.log_message(m.clone());
        if is_error {
            // An error the user must read also pops up over the viewport.
            self.toast = Some((m.clone(), None));
        }
        self.message = Some(m);
    }

    /// Adds `m` to the message log (View > Messages) without showing it in the status bar.
    pub fn log_message(&mut self, m: Message) {
        if self.message_log.len() == MESSAGE_LOG_LEN {
            self.message_log.pop_front();
        }
        self.message_log.push_back(m);
        self.messages_logged += 1;
    }

    /// The logged messages, oldest first (the last [`MESSAGE_LOG_LEN`]).
    pub fn message_log(&self) -> impl DoubleEndedIterator<Item = &Message> + '_ {
        self.message_log.iter()
    }

    /// Empties the message log (View > Messages > Clear).
    pub fn clear_message_log(&mut self) {
        self.message_log.clear();
    }

    /// The error toast shown over the viewport, if any.
    pub fn toast(&self) -> Option<&Message> {
        self.toast.as_ref().map(|(m, _)| m)
    }

    /// Closes the error toast.
    pub fn dismiss_toast(&mut self) {
        self.toast = None;
    }

    /// Ages the toast: `now_secs` is the UI clock; the toast closes [`TOAST_SECS`] after it
    /// first showed. Returns the seconds it has left.
    pub fn age_toast(&mut self, now_secs: f64) -> Option<f64> {
        let (_, since) = self.toast.as_mut()?;
        let since = *since.get_or_insert(now_secs);
        let left = TOAST_SECS - (now_secs - since);
        if left <= 0.0 {
            self.toast = None;
            return None;
        }
        Some(left)
    }

    /// Notes a phase-cancellation warning of the graph after a frame: logged once when it
    /// fires, and remembered with the graph's clock so the Blend panel keeps it visible
    /// for [`WARNING_HOLD_SECS`] after a short cross-fade ends.
    fn note_phase_warning(&mut self) {
        let Some(g) = &self.graph else {
            self.phase_warning_on = false;
            return;
        };
        match g.phase_warning() {
            Some(text) => {
                let wall = g.wall_secs();
                if !self.phase_warning_on {
                    let inputs: Vec<String> = g
                        .graph
                        .status(&self.model)
                        .into_iter()
                        .filter(|s| !s.is_layer && s.weight > 0.0)
                        .map(|s| s.clip)
                        .collect();
                    self.log_message(Message {
                        text: format!("warning at {wall:.2} s ({}): {text}", inputs.join(" + ")),
                        is_error: false,
                    });
                }
                self.phase_warning_on = true;
                self.last_phase_warning = Some((text, wall));
            }
            None => self.phase_warning_on = false,
        }
    }

    /// The graph's phase warning while it is on, or for [`WARNING_HOLD_SECS`] after it
    /// stopped: its text and the seconds since it last fired (0 while on).
    pub fn recent_phase_warning(&self) -> Option<(&str, f64)> {
        let g = self.graph.as_ref()?;
        let (text, at) = self.last_phase_warning.as_ref()?;
        let ago = if self.phase_warning_on {
            0.0
        } else {
            g.wall_secs() - at
        };
        (0.0..=WARNING_HOLD_SECS)
            .contains(&ago)
            .then_some((text.as_str(), ago))
    }

    /// The status messages logged since `seen` of them were read (oldest first; those
    /// that fell out of the log are skipped), and the new total to pass next time.
    pub fn messages_since(&self, seen: u64) -> (impl Iterator<Item = &Message>, u64) {
        let new = self.messages_logged.saturating_sub(seen) as usize;
        let skip = self.message_log.len().saturating_sub(new);
        (self.message_log.iter().skip(skip), self.messages_logged)
    }

    /// Actions for the window, oldest first.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }

    /// Physical pixel size the viewport had at the last layout.
    pub fn viewport_size_px(&self) -> [u32; 2] {
        self.viewport_size_px
    }

    /// True while something animates, so the window keeps redrawing; when false the
    /// window sleeps until input arrives.
    pub fn is_animating(&self) -> bool {
        if self.pending_load.is_some() {
            // Keep polling the folder load and drawing its progress.
            return true;
        }
        if let Some(m) = &self.matching {
            return m.playing;
        }
        if let Some(g) = &self.graph {
            return g.playing && g.graph.rate() != 0.0;
        }
        self.timeline.is_advancing()
    }

    /// Loads `path` and shows it. On failure the error goes to the status bar and the
    /// current character stays (returns the error too).
    pub fn open_path(&mut self, path: &Path) -> Result<(), String> {
        // A reload of the open file keeps the scene the user picked.
        let scene = if self.path.as_deref() == Some(path) {
            self.model.scene.filter(|&s| s < self.model.scenes.len())
        } else {
            None
        };
        self.load_path(path, scene)
    }

    /// Opens the in-app file browser to open a character.
    pub fn open_file_browser(&mut self) {
        self.open_file_browser_for(crate::app::file_browser::Purpose::Open);
    }

    /// Opens the in-app file browser for `purpose` in the folder last browsed (else the
    /// open file's, else the most recent file's, else the working directory).
    pub fn open_file_browser_for(&mut self, purpose: crate::app::file_browser::Purpose) {
        let start = self
            .browsed_dir
            .clone()
            .filter(|d| d.is_dir())
            .or_else(|| {
                self.path
                    .as_deref()
                    .and_then(Path::parent)
                    .map(Path::to_path_buf)
            })
            .or_else(|| self.recent_folders().into_iter().next())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."));
        self.file_browser = Some(crate::app::file_browser::FileBrowser::for_purpose(
            &start, purpose,
        ));
    }

    /// Folders of the recent files that still exist, most recent first, each once.
    pub fn recent_folders(&self) -> Vec<PathBuf> {
        let mut folders: Vec<PathBuf> = Vec::new();
        for file in &self.settings.recent_files {
            if let Some(dir) = file.parent().filter(|d| d.is_dir()) {
                if !folders.iter().any(|f| f == dir) {
                    folders.push(dir.to_path_buf());
                }
            }
        }
        folders
    }

    /// Shows scene `scene` of the open file (Clips > Scene); the demo has one scene.
    pub fn show_scene(&mut self, scene: usize) -> Result<(), String> {
        let Some(path) = self.path.clone() else {
            return Err("the built-in demo has one scene".into());
        };
        self.load_path(&path, Some(scene))
    }

    fn load_path(&mut self, path: &Path, scene: Option<usize>) -> Result<(), String> {
        if path.is_dir() {
            self.start_folder_load(path);
            return Ok(());
        }
        match crate::asset::load_scene(path, scene) {
            Ok(model) => {
                self.replace_model(model, Some(path.to_path_buf()));
                let text = match self.import_warning_summary() {
                    Some(w) => format!("opened {}: {w}", path.display()),
                    None => format!("opened {}", path.display()),
                };
                self.set_message(text, false);
                Ok(())
            }
            Err(e) => {
                let text = e.to_string();
                self.set_message(format!("{text} (kept {})", self.model.source), true);
                Err(text)
            }
        }
    }

    /// Retargets every clip of `path` (a glTF, FBX or BVH file, or a folder of BVH/FBX)
    /// onto the character and adds them to its clip list (a name already taken gets
    /// " (retargeted)"), with foot IK; selects the first. The status bar gives the worst
    /// quality figures. On failure the character is unchanged and the error is shown.
    pub fn retarget_from(&mut self, path: &Path) -> Result<(), String> {
        let result = (|| -> Result<(Model, String), String> {
            let source = if path.is_dir() {
                let options = crate::asset::LoadOptions::from_env()?;
                crate::asset::folder::load_folder(path, &options, &|_, _| {})
                    .map_err(|e| e.to_string())?
            } else {
                crate::asset::load(path).map_err(|e| e.to_string())?
            };
            let (clips, report) = crate::stage::retarget::retarget_models(
                &source,
                &self.model,
                &[],
                &crate::anim::retarget::RetargetOptions::default(),
            )?;
            let mut model = self.model.clone();
            for clip in clips {
                let mut name = clip.name().to_string();
                if model.find_clip(&name).is_some() {
                    name = format!("{name} (retargeted)");
                }
                let mut k = 2;
                while model.find_clip(&name).is_some() {
                    name = format!("{} (retargeted {k})", clip.name());
                    k += 1;
                }
                model.clips.push(clip.renamed(name));
            }
            model.analysis = Default::default();
            let worst_slide = report
                .clips
                .iter()
                .map(|c| c.planted_foot_slide_mps)
                .fold(0.0f32, f32::max);
            let worst_agreement = report
                .clips
                .iter()
                .map(|c| c.contact_agreement)
                .fold(1.0f32, f32::min);
            let summary = format!(
                "retargeted {} clip(s) from {} ({} bones mapped): planted-foot slide up to {:.3} m/s, contact agreement from {:.2}",
                report.clips.len(),
                path.display(),
                report.mapping.len(),
                worst_slide,
                worst_agreement
            );
            Ok((model, summary))
        })();
        match result {
            Ok((model, summary)) => {
                let first_new = self.model.clips.len();
                let path = self.path.clone();
                // The same file with more clips: kept as a reload (mode, rate, selection).
                self.replace_model(model, path);
                if first_new < self.model.clips.len() {
                    self.select_clip(first_new);
                }
                self.set_message(summary, false);
                Ok(())
            }
            Err(e) => {
                self.set_message(format!("{e} (kept {})", self.model.source), true);
                Err(e)
            }
        }
    }

    /// Starts loading the BVH/FBX files of `dir` on a worker thread (a previous folder
    /// load still running is left to finish and dropped). [`Self::poll_pending_load`]
    /// shows the character when it is ready.
    fn start_folder_load(&mut self, dir: &Path) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        // The same folder already loading (files still being copied in): load it once more
        // when this load is done, instead of parsing it twice at once.
        if let Some(p) = self.pending_load.as_mut().filter(|p| p.path == dir) {
            p.again = true;
            return;
        }
        let progress = std::sync::Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
        let (worker_progress, worker_dir) = (progress.clone(), dir.to_path_buf());
        let spawned = std::thread::Builder::new()
            .name("folder load".into())
            .spawn(move || -> Result<Model, String> {
                let options = crate::asset::LoadOptions::from_env()
                    .map_err(|e| format!("{}: {e}", worker_dir.display()))?;
                let report = |done: usize, total: usize| {
                    worker_progress.1.store(total, Ordering::Relaxed);
                    worker_progress.0.store(done, Ordering::Relaxed);
                };
                let mut model = crate::asset::folder::load_folder(&worker_dir, &options, &report)
                    .map_err(|e| e.to_string())?;
                if let Some(tolerance_m) = crate::asset::reduce_keys_from_env()? {
                    model.reduce_keys(tolerance_m)?;
                }
                Ok(model)
            });
        match spawned {
            Ok(handle) => {
                self.pending_load = Some(PendingLoad {
                    path: dir.to_path_buf(),
                    progress,
                    handle,
                    again: false,
                });
                self.set_message(format!("loading {} ...", dir.display()), false);
            }
            Err(e) => self.set_message(
                format!(
                    "{}: cannot start loading: {e} (kept {})",
                    dir.display(),
                    self.model.source
                ),
                true,
            ),
        }
    }

    /// The folder loading in the background, with files done and files in all (0 until
    /// the worker has listed them), or `None`.
    pub fn loading_progress(&self) -> Option<(&Path, usize, usize)> {
        use std::sync::atomic::Ordering;
        self.pending_load.as_ref().map(|p| {
            (
                p.path.as_path(),
                p.progress.0.load(Ordering::Relaxed),
                p.progress.1.load(Ordering::Relaxed),
            )
        })
    }

    /// Shows the folder loaded in the background once it is ready (or its error, keeping
    /// the current character). Returns true when a load finished this call. Called once
    /// per frame by the window.
    pub fn poll_pending_load(&mut self) -> bool {
        if !self
            .pending_load
            .as_ref()
            .is_some_and(|p| p.handle.is_finished())
        {
            return false;
        }
        let Some(pending) = self.pending_load.take() else {
            return false;
        };
        let again = pending.again;
        let result = pending
            .handle
            .join()
            .unwrap_or_else(|_| Err(format!("{}: the loader stopped", pending.path.display())));
        match result {
            Ok(model) => {
                let verb = if self.path.as_deref() == Some(pending.path.as_path()) {
                    "reloaded"
                } else {
                    "opened"
                };
                self.replace_model(model, Some(pending.path.clone()));
                let text = match self.import_warning_summary() {
                    Some(w) => format!("{verb} {}: {w}", pending.path.display()),
                    None => format!("{verb} {}", pending.path.display()),
                };
                self.set_message(text, false);
            }
            Err(e) => {
                self.set_message(format!("{e} (kept {})", self.model.source), true);
            }
        }
        if again {
            self.start_folder_load(&pending.path);
        }
        true
    }

    /// Shows `model`: keeps mode, rate and looping, selects the clip of the same name when
    /// there is one (a reload), frames the camera for a new file.
    pub fn replace_model(&mut self, model: Model, path: Option<PathBuf>) {
        // A folder still loading would replace what the user opened after it: drop it,
        // and say so.
        if let Some(p) = self.pending_load.take() {
            self.set_message(
                format!(
                    "stopped loading {} (another character was opened)",
                    p.path.display()
                ),
                false,
            );
        }
        let reload = path.is_some() && path == self.path;
        let clip_name = self
            .timeline
            .clip()
            .and_then(|i| self.model.clips.get(i))
            .map(|c| c.name().to_string());
        let (mode, rate, looping, playing) = (
            self.timeline.mode(),
            self.timeline.clock().rate(),
            self.timeline.clock().looping(),
            self.timeline.is_playing(),
        );
        if !reload {
            // The file being left keeps its own rate, loop, clip and search for later.
            self.remember_file_state();
        }
        let time = self.timeline.clock().time();
        let world = self.timeline.world_from_root();
        let old_names = self.model.skeleton.names().to_vec();
        self.model = model;
        self.path = path.clone();
        self.model_generation += 1;
        self.pose = Pose::new(&self.model);
        self.morph_overrides.clear();
        // A reload of the same file keeps the selected and pinned joints that still
        // exist, found again by name (the joint order may have changed).
        let name_of = |j: usize| old_names.get(j).cloned();
        let selected = self.inspect.selected.and_then(name_of);
        let pinned: Vec<String> = self
            .inspect
            .pinned
            .iter()
            .filter_map(|&j| name_of(j))
            .collect();
        self.inspect.reset_for_model();
        if reload {
            let sk = &self.model.skeleton;
            self.inspect.selected = selected.and_then(|n| sk.find(&n));
            self.inspect.pinned = pinned.iter().filter_map(|n| sk.find(n)).collect();
        }
        // B's joints were matched against the old skeleton.
        self.compare = None;
        self.ghosts.clear();
        // The graph names clips of the old file: rebuild the new file's default graph (or
        // the drive graph of the selected clip) once the timeline is rebuilt.
        let had_graph = self.graph.is_some() && !self.drive_graph;
        if !reload {
            self.leg_override = None;
        }
        let driving = self.is_driving();
        self.graph = None;
        self.drive_graph = false;
        let had_matching = self.matching.take().is_some();
        let mut timeline = Timeline::new(&self.model);
        timeline.set_mode(mode);
        if reload {
            timeline.set_rate(rate);
            timeline.set_looping(looping);
        } else {
            // Another file: its own remembered state, or the defaults the first time.
            let file = self.settings.file_state(path.as_deref());
            Self::apply_file_state(&mut timeline, &self.model, &file);
            self.inspect.filter = file.joint_filter;
        }
        if reload {
            // A reload (file changed on disk): same clip, same cycle and phase, same
            // accumulated placement.
            if let Some(i) = clip_name.and_then(|n| self.model.find_clip(&n)) {
                timeline.select_clip(&self.model, i);
                timeline.seek(time);
            }
            timeline.set_world_from_root(world);
        }
        timeline.set_playing(playing);
        self.timeline = timeline;
        if !reload {
            self.frame_pending = true;
        }
        if let Some(p) = &path {
            self.settings.push_recent(p);
        }
        self.settings.last_file = path;
        if had_graph {
            self.set_graph_enabled(true);
        }
        if driving {
            self.set_drive(true);
        }
        if had_matching {
            self.set_matching_enabled(true);
        }
        self.evaluate_pose();
    }

    /// What hides the timeline's clip from the views that follow it (curve view, onion
    /// skin, A/B compare), as the step that brings it back: motion matching, Drive, or
    /// the pose graph the user turned on; `None` while the timeline's clip plays.
    pub fn timeline_hidden_by(&self) -> Option<&'static str> {
        if self.matching.is_some() {
            Some("turn motion matching off (M)")
        } else if self.is_driving() && self.drive_graph {
            Some("turn Drive off (D)")
        } else if self.is_driving() {
            Some("turn Drive (D) and the pose graph off")
        } else if self.graph.is_some() {
            Some("turn the pose graph off")
        } else {
            None
        }
    }

    /// How much each clip of the model shows now (0..1, one entry per clip), for the
    /// clip list: the timeline's clip; in pose-graph mode every input by its weight (a
    /// layer at its weight too); in motion matching the clip the matcher plays.
    pub fn clip_weights(&self) -> Vec<f32> {
        let mut w = vec![0.0f32; self.model.clips.len()];
        if let Some(m) = &self.matching {
            if let Some(f) = m.session.current() {
                if let Some(x) = w.get_mut(f.clip) {
                    *x = 1.0;
                }
            }
        } else if let Some(g) = &self.graph {
            for p in g.graph.players() {
                if let Some(x) = w.get_mut(p.clip) {
                    *x = (*x + p.weight.max(0.0)).min(1.0);
                }
            }
        } else if let Some(x) = self.timeline.clip().and_then(|i| w.get_mut(i)) {
            *x = 1.0;
        }
        w
    }

    /// Switches to clip `index` (a seek: the character does not move).
    pub fn select_clip(&mut self, index: usize) {
        // Picking a clip in the list plays that clip alone (driven, while driving).
        let driving = self.is_driving();
        self.matching = None;
        self.graph = None;
        self.drive_graph = false;
        self.timeline.select_clip(&self.model, index);
        if driving {
            self.set_drive(true);
        }
        self.evaluate_pose();
    }

    /// Sets the user's in-place choice for the timeline's clip (Locomotion panel,
    /// `--in-place` / `--root-motion`) and replays the clip with it: an in-place clip's
    /// root stays in the pose (it neither moves nor turns the character) and its feet give
    /// the speed. The pose graph and motion matching take it when next started.
    /// The same in-place choice for every clip of the model (the window's `--in-place` /
    /// `--root-motion`); the selected clip restarts with it.
    pub fn set_in_place_override_all(&mut self, choice: crate::anim::locomotion::InPlaceOverride) {
        self.model.set_in_place_override_all(choice);
        if let Some(clip) = self.timeline.clip() {
            self.select_clip(clip);
            self.evaluate_pose();
        }
    }

    pub fn set_in_place_override(&mut self, choice: crate::anim::locomotion::InPlaceOverride) {
        let Some(clip) = self.timeline.clip() else {
            return;
        };
        if self.model.in_place_override(clip) == choice {
            return;
        }
        self.model.set_in_place_override(clip, choice);
        let name = self.model.clips[clip].name().to_string();
        let graph_mode = (self.graph.is_some() && !self.drive_graph) || self.matching.is_some();
        if graph_mode {
            self.set_message(
                format!(
                    "'{name}': {} (applies when the graph or motion matching restarts)",
                    choice.as_str()
                ),
                false,
            );
            return;
        }
        let time = self.timeline.clock().time().phase_secs;
        self.select_clip(clip);
        self.timeline.seek_secs(time);
        self.evaluate_pose();
        let reason = self
            .model
            .clip_analysis(clip)
            .map(|a| a.in_place.reason.clone())
            .unwrap_or_else(|e| e);
        self.set_message(format!("'{name}': {reason}"), false);
    }

    /// True while the locomotion stage drives the character (movement speed and
    /// direction, speed matching, stride warping, foot IK).
    pub fn is_driving(&self) -> bool {
        self.graph.as_ref().is_some_and(|g| g.locomotion.is_some())
    }

    /// Turns "drive" on or off (D). On a single clip it plays that clip through a one-clip
    /// pose graph from the timeline's time; in graph mode it drives the graph (a blend
    /// space, the state machine). A rig without legs stays undriven with the reason in
    /// the status bar.
    pub fn set_drive(&mut self, on: bool) {
        if on {
            self.matching = None;
        }
        if !on {
            if let Some(g) = &mut self.graph {
                let _ = g.set_drive(&self.model, false, self.locomotion_settings, None);
            }
            if self.drive_graph {
                self.graph = None;
                self.drive_graph = false;
            }
            self.evaluate_pose();
            return;
        }
        if self.is_driving() {
            return;
        }
        if self.graph.is_none() {
            let Some(clip) = self.timeline.clip() else {
                self.set_message("drive: the file has no clip to drive", true);
                return;
            };
            let def = GraphDef {
                params: Vec::new(),
                base: NodeDef::Clip {
                    clip: self.model.clips[clip].name().to_string(),
                    rate: 1.0,
                },
                layers: Vec::new(),
            };
            match GraphSession::new(&self.model, &def) {
                Ok(mut g) => {
                    g.playing = self.timeline.is_playing();
                    let t = self.timeline.clock().time();
                    g.seek(
                        &self.model,
                        t.to_secs(self.model.clips[clip].duration_secs() as f64),
                    );
                    self.graph = Some(g);
                    self.drive_graph = true;
                }
                Err(e) => {
                    self.set_message(format!("drive: {e}"), true);
                    return;
                }
            }
        }
        let settings = self.locomotion_settings;
        let legs = self.leg_override.clone();
        if let Some(g) = &mut self.graph {
            if let Err(e) = g.set_drive(&self.model, true, settings, legs) {
                if self.drive_graph {
                    self.graph = None;
                    self.drive_graph = false;
                }
                self.set_message(format!("drive: {e}"), true);
            }
        }
        if !self.speed_chosen {
            let natural = self
                .graph
                .as_ref()
                .and_then(|g| g.locomotion.as_ref())
                .map(|l| l.anim_speed as f32)
                .filter(|v| *v > 0.0);
            if let Some(v) = natural {
                let mut s = self.locomotion_settings;
                s.movement_speed = v;
                self.locomotion_settings = s;
                if let Some(g) = &mut self.graph {
                    g.set_locomotion_settings(&self.model, s);
                }
            }
        }
        self.evaluate_pose();
    }

    /// Chooses the legs (`None`: detected) and re-drives with them. A bad choice keeps
    /// the previous legs, with the reason in the status bar.
    pub fn set_leg_override(&mut self, legs: Option<Vec<crate::anim::contacts::LegChain>>) {
        let previous = std::mem::replace(&mut self.leg_override, legs);
        if let Some(g) = &mut self.graph {
            if g.locomotion.is_some() {
                let settings = self.locomotion_settings;
                if let Err(e) = g.set_drive(&self.model, true, settings, self.leg_override.clone())
                {
                    self.leg_override = previous;
                    let _ = g.set_drive(&self.model, true, settings, self.leg_override.clone());
                    self.set_message(format!("legs: {e}"), true);
                }
            }
        }
        self.evaluate_pose();
    }

    /// Edits the pose graph's definition (Blend panel), undoably; a refused edit keeps the
    /// graph and shows why.
    pub fn edit_graph(&mut self, f: impl FnOnce(&mut crate::graph::GraphDef)) {
        if let Some(g) = &mut self.graph {
            if let Err(e) = g.edit(&self.model, f) {
                self.set_message(format!("graph edit: {e}"), true);
            }
        }
        self.evaluate_pose();
    }

    /// Ctrl+Z on the pose graph's edits.
    pub fn undo_graph_edit(&mut self) {
        let done = self.graph.as_mut().is_some_and(|g| g.undo(&self.model));
        if !done {
            self.set_message("nothing to undo", false);
        }
        self.evaluate_pose();
    }

    /// Ctrl+Shift+Z.
    pub fn redo_graph_edit(&mut self) {
        let done = self.graph.as_mut().is_some_and(|g| g.redo(&self.model));
        if !done {
            self.set_message("nothing to redo", false);
        }
        self.evaluate_pose();
    }

    /// Applies changed locomotion settings (the panel's controls).
    pub fn set_locomotion_settings(&mut self, settings: LocomotionSettings) {
        if settings.movement_speed != self.locomotion_settings.movement_speed {
            self.speed_chosen = true;
        }
        self.locomotion_settings = settings;
        if let Some(g) = &mut self.graph {
            g.set_locomotion_settings(&self.model, settings);
        }
        self.evaluate_pose();
    }

    /// Advances playback by `dt_secs` of wall time and re-evaluates the pose.
    pub fn advance(&mut self, dt_secs: f64) {
        if self.matching.is_some() {
            self.advance_matching(dt_secs);
            self.evaluate_pose();
            return;
        }
        match &mut self.graph {
            Some(g) => g.tick(&self.model, dt_secs),
            None => {
                self.timeline.tick(dt_secs);
            }
        }
        self.evaluate_pose();
        self.note_phase_warning();
    }

    /// Plays clips `a` and `b` blended through a one-dimensional blend space on the
    /// parameter `weight` (0 = all `a`, 1 = all `b`, held at `weight` until changed),
    /// synced on their foot markers: the two-clip blend slider of the Blend panel.
    pub fn blend_two_clips(&mut self, a: usize, b: usize, weight: f32) {
        use crate::graph::def::{Sample1DDef, SyncMode};
        let (Some(ca), Some(cb)) = (self.model.clips.get(a), self.model.clips.get(b)) else {
            return;
        };
        let def = GraphDef {
            params: vec![crate::graph::def::ParamDef::Float {
                name: TWO_CLIP_WEIGHT.to_string(),
                default: weight.clamp(0.0, 1.0),
                min: Some(0.0),
                max: Some(1.0),
            }],
            base: NodeDef::BlendSpace1D {
                param: TWO_CLIP_WEIGHT.to_string(),
                samples: vec![
                    Sample1DDef {
                        clip: ca.name().to_string(),
                        position: Some(0.0),
                    },
                    Sample1DDef {
                        clip: cb.name().to_string(),
                        position: Some(1.0),
                    },
                ],
                sync: SyncMode::Markers,
            },
            layers: Vec::new(),
        };
        self.matching = None;
        match GraphSession::new(&self.model, &def) {
            Ok(mut g) => {
                g.playing = self.timeline.is_playing();
                self.graph = Some(g);
                self.drive_graph = false;
                // The new session's clock starts at 0: an old warning's time means nothing.
                self.last_phase_warning = None;
                self.phase_warning_on = false;
                self.set_message(
                    format!(
                        "blending {} and {} (weight slider in the Blend panel)",
                        ca.name(),
                        cb.name()
                    ),
                    false,
                );
            }
            Err(e) => self.set_message(format!("blend: {e}"), true),
        }
        self.evaluate_pose();
    }

    /// Switches between the pose graph (the file's default graph) and single-clip
    /// playback. A graph that cannot be built leaves single-clip playback on, with the
    /// reason in the status bar.
    pub fn set_graph_enabled(&mut self, on: bool) {
        if on {
            self.matching = None;
        }
        let driving = self.is_driving();
        if self.drive_graph {
            // The one-clip drive graph gives way to the file's graph (and back).
            self.graph = None;
            self.drive_graph = false;
        }
        if !on {
            self.graph = None;
            if driving {
                self.set_drive(true);
            }
        } else if self.graph.is_none() {
            match GraphSession::default_for(&self.model) {
                Ok(mut g) => {
                    g.playing = self.timeline.is_playing();
                    self.graph = Some(g);
                    if driving {
                        self.set_drive(true);
                    }
                }
                Err(e) => self.set_message(format!("pose graph: {e}"), true),
            }
        }
        self.evaluate_pose();
    }

    /// Play / pause whatever plays (Space).
    pub fn toggle_play(&mut self) {
        if let Some(m) = &mut self.matching {
            m.playing = !m.playing;
            return;
        }
        match &mut self.graph {
            Some(g) => g.playing = !g.playing,
            None => self.timeline.toggle_play(),
        }
        if self.is_playing() {
            // Hand-set morph weights are a paused-preview tweak; playback shows the clip.
            self.morph_overrides.clear();
        }
    }

    /// Whether the timeline (or the pose graph) is playing.
    pub fn is_playing(&self) -> bool {
        if let Some(m) = &self.matching {
            return m.playing;
        }
        match &self.graph {
            Some(g) => g.playing,
            None => self.timeline.is_playing(),
        }
    }

    /// Sets (`Some`) or releases (`None`) the Morphs panel's weight for one target of one
    /// mesh; it shows while paused. Out-of-range indices are ignored.
    pub fn set_morph_override(&mut self, mesh: usize, target: usize, weight: Option<f32>) {
        let Some(count) = self.model.meshes.get(mesh).map(|m| m.morph_target_count()) else {
            return;
        };
        if target >= count || weight.is_some_and(|w| !w.is_finite()) {
            return;
        }
        if self.morph_overrides.len() < self.model.meshes.len() {
            self.morph_overrides
                .resize(self.model.meshes.len(), Vec::new());
        }
        let slot = &mut self.morph_overrides[mesh];
        slot.resize(count, None);
        slot[target] = weight;
        self.evaluate_pose();
    }

    /// Releases every hand-set morph weight.
    pub fn clear_morph_overrides(&mut self) {
        self.morph_overrides.clear();
        self.evaluate_pose();
    }

    fn apply_morph_overrides(&mut self) {
        if self.is_playing() {
            return;
        }
        for (weights, overrides) in self
            .pose
            .morph_weights
            .iter_mut()
            .zip(&self.morph_overrides)
        {
            for (w, o) in weights.iter_mut().zip(overrides) {
                if let Some(v) = o {
                    *w = *v;
                }
            }
        }
    }

    /// Ground positions of the root trail, oldest first.
    pub fn trail(&self) -> Box<dyn Iterator<Item = glam::DVec2> + '_> {
        if let Some(m) = &self.matching {
            let s = &m.session;
            let end = s.viewed().map(|i| i + 1).unwrap_or(s.frames().len());
            let start = end.saturating_sub(crate::stage::session::SESSION_HISTORY_LEN);
            return Box::new(
                s.frames()[start..end]
                    .iter()
                    .map(|f| f.world_from_root.translation),
            );
        }
        match &self.graph {
            Some(g) => Box::new(g.trail()),
            None => Box::new(self.timeline.trail()),
        }
    }

    /// Evaluates the current pose (after playback or any seek).
    pub fn evaluate_pose(&mut self) {
        let request = if self.toggles.bind_pose {
            PoseRequest {
                clip: None,
                time_secs: 0.0,
                remove_root_motion: None,
                model_from_root: self.timeline.model_from_root(),
            }
        } else {
            self.timeline.pose_request()
        };
        let result = match (&self.matching, &self.graph) {
            (Some(m), _) if !self.toggles.bind_pose => {
                let s = &m.session;
                self.pose
                    .evaluate_local(&self.model, s.pose(), s.world_from_root().to_mat4())
            }
            (_, Some(g)) if !self.toggles.bind_pose => {
                let r = self
                    .pose
                    .evaluate_local(&self.model, g.local_pose(), g.model_from_root());
                self.pose.set_morph_weights(g.morph_weights());
                r
            }
            _ => self.pose.evaluate(&self.model, &request),
        };
        self.apply_morph_overrides();
        self.evaluate_ghosts();
        self.evaluate_compare();
        if let Err(e) = result {
            // Per-frame errors are reported once, the viewer keeps running.
            let text = format!("pose evaluation: {e}");
            if self.message.as_ref().map(|m| &m.text) != Some(&text) {
                self.set_message(text, true);
            }
        }
        if self.toggles.follow {
            let root = self.root_position();
            match self.follow_offset {
                Some(offset) => self.camera.target = root + offset,
                None => self.follow_offset = Some(self.camera.target - root),
            }
        }
    }

    /// The onion-skin ghosts around the playhead (or at the clip's sync markers) of the
    /// timeline's clip. The pose graph blends several clocks, so it has no single clip
    /// to ghost: ghosts show in timeline playback only.
    fn evaluate_ghosts(&mut self) {
        let onion = self.inspect.onion;
        if !onion.enabled
            || self.graph.is_some()
            || self.matching.is_some()
            || self.toggles.bind_pose
        {
            self.ghosts.clear();
            self.ghost_offsets_secs.clear();
            return;
        }
        let offsets: Vec<(f64, f32)> = if onion.at_markers {
            let Some(clip) = self.timeline.clip().map(|c| &self.model.clips[c]) else {
                self.ghosts.clear();
                return;
            };
            let markers = if clip.markers().is_empty() {
                self.timeline.detected_markers()
            } else {
                clip.markers()
            };
            let phase = self.timeline.phase_secs();
            markers
                .iter()
                .map(|m| (f64::from(m.time_secs) - phase, onion.opacity))
                .collect()
        } else {
            onion.offsets(self.timeline.frame_rate_hz())
        };
        // Poses are reused from frame to frame; a ghost the clock cannot place (a
        // zero-length clip) is dropped rather than left showing an old frame.
        let mut used = 0;
        for (offset, alpha) in offsets {
            let Some(request) = self.timeline.ghost_request(offset) else {
                continue;
            };
            if used == self.ghosts.len() {
                self.ghosts.push((Pose::new(&self.model), alpha));
            }
            let ghost = &mut self.ghosts[used];
            ghost.1 = alpha;
            if ghost.0.evaluate(&self.model, &request).is_ok() {
                if used == self.ghost_offsets_secs.len() {
                    self.ghost_offsets_secs.push(offset);
                }
                self.ghost_offsets_secs[used] = offset;
                used += 1;
            }
        }
        self.ghosts.truncate(used);
        self.ghost_offsets_secs.truncate(used);
    }

    /// Starts comparing the timeline's clip (A) with clip `b_clip` of the open file.
    pub fn compare_with_clip(&mut self, b_clip: usize) {
        if b_clip >= self.model.clips.len() {
            return;
        }
        let keep = self.compare.take();
        let mut c = crate::stage::inspect::AbCompare::new(&self.model, b_clip);
        if let Some(k) = keep {
            (c.lock, c.offset, c.view) = (k.lock, k.offset, k.view);
        }
        self.compare = Some(c);
        self.evaluate_pose();
    }

    /// Starts comparing with the first clip of another file on the same skeleton (two
    /// versions of one walk). A file that does not load or does not match is reported and
    /// changes nothing.
    pub fn compare_with_file(&mut self, path: &Path) -> Result<(), String> {
        let b = match crate::asset::load(path) {
            Ok(b) => b,
            Err(e) => {
                let text = format!("compare: {e}");
                self.set_message(text.clone(), true);
                return Err(text);
            }
        };
        self.compare_files_opened += 1;
        match crate::stage::inspect::AbCompare::with_file(
            &self.model,
            path.to_path_buf(),
            b,
            self.compare_files_opened,
        ) {
            Ok(c) => {
                self.compare = Some(c);
                self.set_message(format!("comparing with {}", path.display()), false);
                self.evaluate_pose();
                Ok(())
            }
            Err(e) => {
                let text = format!("compare: {e}");
                self.set_message(text.clone(), true);
                Err(text)
            }
        }
    }

    pub fn stop_compare(&mut self) {
        self.compare = None;
    }

    /// B at A's phase, beside A for the side-by-side view (1.5 times A's width away).
    fn evaluate_compare(&mut self) {
        let hidden = self.timeline_hidden_by();
        let Some(c) = self.compare.as_mut() else {
            return;
        };
        if self.matching.is_some() {
            c.valid = false;
            c.note =
                Some("A/B compare follows the timeline's clip: turn motion matching off".into());
            return;
        }
        let (Some(a_clip), None) = (self.timeline.clip(), self.graph.as_ref()) else {
            c.valid = false;
            c.note = Some(format!(
                "A/B compare follows the timeline's clip: {}",
                hidden.unwrap_or("pick a clip")
            ));
            return;
        };
        let bounds = crate::render::bounds::joint_bounds(&self.pose);
        let size = if bounds.is_empty() {
            Vec3::ONE
        } else {
            bounds.max - bounds.min
        };
        let side = Vec3::X * (size.x.max(size.z).max(0.25 * size.y) * 1.5);
        c.evaluate(
            &self.model,
            a_clip,
            self.timeline.phase_secs(),
            self.timeline.model_from_root(),
            side,
        );
    }

    /// Selects the joint drawn nearest to `click_px` (viewport pixels), if any within
    /// 12 px; clears the selection otherwise.
    pub fn pick_joint(&mut self, click_px: glam::Vec2) {
        let [w, h] = self.viewport_size_px;
        let picked = crate::render::camera::pick_joint(
            &self.pose.model_from_joint,
            &self.camera,
            glam::Vec2::new(w as f32, h as f32),
            click_px,
            12.0,
        );
        self.select_joint(picked);
    }

    /// Selects `joint` (or clears the selection) and opens its ancestors in the outliner,
    /// so a joint picked in the viewport or the seam table shows there too.
    pub fn select_joint(&mut self, joint: Option<usize>) {
        self.inspect.select(joint);
        if let Some(j) = joint {
            self.inspect.reveal_in_outliner(&self.model.skeleton, j);
        }
    }

    /// World position of the displayed root on the ground (y = 0).
    pub fn root_position(&self) -> Vec3 {
        let p = match (&self.matching, &self.graph) {
            (Some(m), _) => m.session.world_from_root().translation,
            (_, Some(g)) => g.world_from_root().translation,
            (None, None) => self.timeline.root_world_position(),
        };
        Vec3::new(p.x as f32, 0.0, p.y as f32)
    }

    /// The screen rectangle (UI points, the viewport's top-left at `origin`) around the
    /// displayed character's joints, for overlays to keep clear of it; `None` when none
    /// projects in front of the camera.
    pub fn character_screen_rect(
        &self,
        pixels_per_point: f32,
        origin: egui::Pos2,
    ) -> Option<egui::Rect> {
        let [w, h] = self.viewport_size_px;
        let size = glam::Vec2::new(w as f32, h as f32);
        let clip_from_world = self.camera.clip_from_world(size.x / size.y.max(1.0));
        // The pose's matrices already include the world placement.
        let mut r = egui::Rect::NOTHING;
        for m in &self.pose.model_from_joint {
            let p = m.w_axis.truncate();
            if let Some(px) = crate::render::camera::world_to_pixel(&clip_from_world, p, size) {
                r.extend_with(origin + egui::vec2(px.x, px.y) / pixels_per_point.max(1e-3));
            }
        }
        r.is_positive().then_some(r)
    }

    /// Frames the character in the viewport (F).
    pub fn frame_character(&mut self) {
        self.frame_pending = true;
    }

    pub(crate) fn apply_pending_frame(&mut self) {
        if !self.frame_pending {
            return;
        }
        self.frame_pending = false;
        let mut bounds = match crate::render::bounds::pose_bounds(&self.model, &self.pose) {
            Ok(b) if !b.is_empty() => b,
            _ => return,
        };
        // Side by side, B stands beside A: frame both (B's skin when it has its own file).
        if let Some(c) = self
            .compare
            .as_ref()
            .filter(|c| c.valid && c.view == crate::stage::inspect::CompareView::SideBySide)
        {
            let b = crate::render::bounds::pose_bounds(c.b(&self.model), &c.b_pose)
                .ok()
                .filter(|b| !b.is_empty())
                .unwrap_or_else(|| crate::render::bounds::joint_bounds(&c.b_pose));
            if !b.is_empty() {
                bounds = bounds.union(&b);
            }
        }
        let [w, h] = self.viewport_size_px;
        self.camera
            .frame_to_fit(bounds.min, bounds.max, w.max(1) as f32 / h.max(1) as f32);
        self.follow_offset = self
            .toggles
            .follow
            .then(|| self.camera.target - self.root_position());
    }

    /// The displayed character's facing about +Y (radians; 0 = the rig's +Z, glTF's
    /// front), with the root motion applied so far.
    pub fn root_yaw_rad(&self) -> f32 {
        let yaw = match (&self.matching, &self.graph) {
            (Some(m), _) => m.session.world_from_root().yaw_rad,
            (_, Some(g)) => g.world_from_root().yaw_rad,
            (None, None) => self.timeline.world_from_root().yaw_rad,
        };
        yaw as f32
    }

    /// Looks at the character from a preset side (relative to its facing), framed.
    pub fn camera_preset(&mut self, preset: CameraPreset) {
        let facing = self.root_yaw_rad();
        let (yaw, pitch) = match preset {
            CameraPreset::Front => (facing, 0.0),
            CameraPreset::Back => (facing + std::f32::consts::PI, 0.0),
            // The character's right is -X when it faces +Z (glTF: +X is its left).
            CameraPreset::Right => (facing - std::f32::consts::FRAC_PI_2, 0.0),
            CameraPreset::Left => (facing + std::f32::consts::FRAC_PI_2, 0.0),
            CameraPreset::Top => (facing, crate::render::camera::MAX_PITCH_RAD),
            CameraPreset::Follow => (facing + std::f32::consts::PI, 15f32.to_radians()),
        };
        self.camera.yaw_rad = yaw.rem_euclid(std::f32::consts::TAU);
        self.camera.pitch_rad = pitch;
        if preset == CameraPreset::Follow {
            self.toggles.follow = true;
        }
        self.frame_pending = true;
    }

    /// Resets the camera to the default three-quarter view, framed.
    pub fn reset_view(&mut self) {
        self.camera = OrbitCamera::default();
        self.frame_pending = true;
    }

    /// Writes the current preferences into `settings` (the window saves them on exit).
    pub fn store_settings(&mut self) {
        self.settings.toggles = self.toggles;
        self.settings.root_motion_mode = self.timeline.mode().label().to_string();
        self.remember_file_state();
    }

    /// Remembers the open file's playback state (clip, rate, looping, outliner search)
    /// by its path, for when it is opened again.
    pub fn remember_file_state(&mut self) {
        let state = crate::app::settings::FileState {
            path: self.path.clone(),
            clip: self
                .timeline
                .clip()
                .and_then(|i| self.model.clips.get(i))
                .map(|c| c.name().to_string()),
            play_rate: self.timeline.chosen_rate(),
            looping: self.timeline.clock().looping(),
            joint_filter: self.inspect.filter.clone(),
        };
        self.settings.remember_file(state);
    }

    /// A file's remembered playback state on a fresh timeline of `model`.
    fn apply_file_state(
        timeline: &mut Timeline,
        model: &Model,
        file: &crate::app::settings::FileState,
    ) {
        if let Some(i) = file.clip.as_deref().and_then(|n| model.find_clip(n)) {
            timeline.select_clip(model, i);
        }
        timeline.set_rate(file.play_rate);
        timeline.set_looping(file.looping);
    }
}
