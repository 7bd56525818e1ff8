//! Settings that persist between runs: window size, last file, recent files, view toggles
//! and the root-motion mode (global preferences), and per file what the user set while it
//! was open (clip, play rate, looping, the outliner's search), remembered by path so one
//! file's quarter speed never opens the next one slowly. Stored as JSON in the user's
//! config folder.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::AppError;

/// Most recent files remembered.
pub const MAX_RECENT: usize = 10;

/// Files whose playback state is remembered (most recently used first).
pub const MAX_FILE_STATES: usize = 64;

/// What the window remembers of one file while another is open.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FileState {
    /// The file (absolute, resolved); `None` for the built-in demo character.
    pub path: Option<PathBuf>,
    /// The clip shown last, by name.
    pub clip: Option<String>,
    /// Play rate (1 = real time, negative = reverse).
    pub play_rate: f64,
    /// The clip loops (the timeline's Loop, L).
    pub looping: bool,
    /// The joint outliner's search text.
    pub joint_filter: String,
}

impl Default for FileState {
    fn default() -> Self {
        Self {
            path: None,
            clip: None,
            play_rate: 1.0,
            looping: true,
            joint_filter: String::new(),
        }
    }
}

/// What the viewport draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ViewToggles {
    /// Draw the skinned mesh.
    pub mesh: bool,
    /// Draw the skeleton's joints and bones.
    pub skeleton: bool,
    /// Draw the ground grid (kept under the character as root motion carries it away).
    pub grid: bool,
    /// Show the bind (rest) pose instead of the animation.
    pub bind_pose: bool,
    /// Draw the root-motion trail.
    pub trail: bool,
    /// Keep the camera centred on the character as root motion moves it.
    pub follow: bool,
}

impl Default for ViewToggles {
    fn default() -> Self {
        Self {
            mesh: true,
            skeleton: false,
            grid: true,
            bind_pose: false,
            trail: true,
            follow: true,
        }
    }
}

/// Everything persisted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Inner window size in logical pixels.
    pub window_size: [u32; 2],
    /// The file the window had open last; `None` when that was the built-in demo.
    pub last_file: Option<PathBuf>,
    /// Most recent first.
    pub recent_files: Vec<PathBuf>,
    /// What the viewport draws (View menu).
    pub toggles: ViewToggles,
    /// Root-motion mode label (see `RootMotionMode::label`).
    pub root_motion_mode: String,
    /// Per file, most recently used first.
    pub files: Vec<FileState>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            window_size: [1280, 800],
            last_file: None,
            recent_files: Vec::new(),
            toggles: ViewToggles::default(),
            root_motion_mode: String::new(),
            files: Vec::new(),
        }
    }
}

impl Settings {
    /// `$STRIDESCOPE_CONFIG_DIR/settings.json`, else `$XDG_CONFIG_HOME/stridescope/…`,
    /// else `$HOME/.config/stridescope/…`; `None` when none of these is set.
    pub fn default_path() -> Option<PathBuf> {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let dir = env("STRIDESCOPE_CONFIG_DIR")
            .or_else(|| env("XDG_CONFIG_HOME").map(|d| d.join("stridescope")))
            .or_else(|| env("HOME").map(|d| d.join(".config/stridescope")))?;
        Some(dir.join("settings.json"))
    }

    /// Reads settings; a missing or unreadable file gives the defaults (and the reason,
    /// for the status bar, when the file exists but is broken).
    pub fn load(path: &Path) -> (Settings, Option<String>) {
        match std::fs::read(path) {
            Err(_) => (Settings::default(), None),
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(s) => (s, None),
                Err(e) => (
                    Settings::default(),
                    Some(format!("{}: ignored ({e}); using defaults", path.display())),
                ),
            },
        }
    }

    /// Writes the settings to `path` as JSON, creating its folder; through a temporary
    /// file renamed over it, so a crash never leaves half a file.
    pub fn save(&self, path: &Path) -> Result<(), AppError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| AppError::file(dir, "create", e))?;
        }
        let json = serde_json::to_vec_pretty(self)?;
        // Write then rename, so a crash never leaves half a file.
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, json).map_err(|e| AppError::file(&tmp, "write", e))?;
        std::fs::rename(&tmp, path).map_err(|e| AppError::file(path, "write", e))
    }

    /// Moves `path` to the front of the recent files, as an absolute path (resolved when
    /// the file exists), so that one file opened as `robot.glb` and as
    /// `/home/me/robot.glb` is one entry (entries from older settings are compared the
    /// same way).
    pub fn push_recent(&mut self, path: &Path) {
        let path = normalized(path);
        self.recent_files.retain(|p| normalized(p) != path);
        self.recent_files.insert(0, path);
        self.recent_files.truncate(MAX_RECENT);
    }
}

impl Settings {
    /// What was remembered of the file at `path` (`None`: the demo), else the defaults
    /// for a file opened the first time.
    pub fn file_state(&self, path: Option<&Path>) -> FileState {
        let key = path.map(normalized);
        self.files
            .iter()
            .find(|f| f.path.as_deref().map(normalized) == key)
            .cloned()
            .unwrap_or_else(|| FileState {
                path: key,
                ..FileState::default()
            })
    }

    /// Remembers `state` for its file, first in the list.
    pub fn remember_file(&mut self, mut state: FileState) {
        state.path = state.path.as_deref().map(normalized);
        self.files
            .retain(|f| f.path.as_deref().map(normalized) != state.path);
        self.files.insert(0, state);
        self.files.truncate(MAX_FILE_STATES);
    }
}

/// `path` made absolute against the working folder, with symbolic links and `..`
/// resolved when it exists.
fn normalized(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
