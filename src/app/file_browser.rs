//! The in-app file browser's state (no UI code; `ui::browser` draws it): one folder's
//! subfolders and the files its purpose takes, navigation, and the file picked. File >
//! Open, A/B compare's *B from file* and File > Export preview use it where no XDG desktop
//! portal answers (bare X11, many tiling window managers), and File > Open with the
//! built-in browser everywhere. Export picks a folder, a file name and a format.

use std::path::{Path, PathBuf};

use crate::asset::is_model_path;
use crate::render::frames::ExportFormat;
use crate::AppError;

/// What the picked file is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Purpose {
    /// Open a character (glTF and BVH files listed).
    #[default]
    Open,
    /// Take A/B compare's clip B from a file (glTF and BVH files listed).
    CompareB,
    /// Save a preview of the clip (previews listed; a name field and a format choice).
    Export,
    /// Retarget the clips of a file or folder onto the character.
    Retarget,
    /// Save the retarget bone map (RON map files listed; a name field).
    SaveMap,
    /// Load a retarget bone map (RON map files listed).
    LoadMap,
    /// Save the character with its retargeted clips as a GLB (GLB files listed; a name
    /// field).
    SaveRetargeted,
    /// Show a folder (or a file) of clips as a library: every clip at once, on this
    /// character.
    Library,
}

impl Purpose {
    /// The browser window's title.
    pub fn title(self) -> &'static str {
        match self {
            Self::Open => "Open a character or a clip (glTF, FBX, BVH)",
            Self::CompareB => "Compare with a clip of another file",
            Self::Export => "Export a preview of the clip",
            Self::Retarget => "Retarget clips onto this character (glTF, FBX, BVH, or a folder)",
            Self::SaveMap => "Save the bone map (RON)",
            Self::LoadMap => "Load a bone map (RON)",
            Self::SaveRetargeted => "Save the character with its retargeted clips (GLB)",
            Self::Library => "Show a folder of clips as a library (glTF, FBX, BVH)",
        }
    }

    /// Whether the browser saves a new file (a name field and Save) rather than opens one.
    pub fn saves(self) -> bool {
        matches!(self, Self::Export | Self::SaveMap | Self::SaveRetargeted)
    }

    /// Whether a file shows in the listing.
    fn lists(self, path: &Path) -> bool {
        match self {
            Self::Open | Self::CompareB | Self::Retarget | Self::Library => is_model_path(path),
            Self::Export => ExportFormat::from_path(path).is_ok(),
            Self::SaveMap | Self::LoadMap => path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("ron")),
            Self::SaveRetargeted => path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("glb")),
        }
    }
}

/// The name and extension a format is saved with.
pub fn export_extension(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Gif => "gif",
        ExportFormat::Apng => "png",
        ExportFormat::Mp4 => "mp4",
    }
}

/// One row of the listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The file or folder name, as listed.
    pub name: String,
    /// The full path: the listed folder joined with `name`.
    pub path: PathBuf,
    /// A folder (symbolic links followed): listed first, entered when activated.
    pub is_dir: bool,
}

/// A folder being browsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileBrowser {
    /// The folder listed.
    pub dir: PathBuf,
    /// Subfolders first, then glTF files, each sorted by name (case-insensitive); hidden
    /// entries (a leading dot) only with `show_hidden`.
    pub entries: Vec<Entry>,
    /// Why the folder could not be read (the listing is then empty).
    pub error: Option<String>,
    /// The path text field (a folder to go to, or a file to open).
    pub typed: String,
    /// Index into `entries` of the highlighted row.
    pub selected: Option<usize>,
    /// List entries whose names start with a dot (the *hidden* check box).
    pub show_hidden: bool,
    /// What the picked file is for: which files are listed, the title, open or save.
    pub purpose: Purpose,
    /// Export: the file name to save in `dir`.
    pub file_name: String,
    /// Export: the format; its extension is kept on `file_name`.
    pub format: ExportFormat,
    /// The text field a user types into first takes the keyboard on the next frame (set
    /// when the browser opens, so no keystroke reaches the window behind it).
    pub focus_pending: bool,
}

impl FileBrowser {
    /// Lists `dir` (made absolute when it can be) to open a character.
    pub fn new(dir: &Path) -> Self {
        Self::for_purpose(dir, Purpose::Open)
    }

    /// Lists `dir` for `purpose`; an export starts as `preview.gif`.
    pub fn for_purpose(dir: &Path, purpose: Purpose) -> Self {
        let mut b = Self {
            dir: PathBuf::new(),
            entries: Vec::new(),
            error: None,
            typed: String::new(),
            selected: None,
            show_hidden: false,
            purpose,
            file_name: match purpose {
                Purpose::SaveMap => "retarget-map.ron".into(),
                Purpose::SaveRetargeted => "retargeted.glb".into(),
                _ => "preview.gif".into(),
            },
            format: ExportFormat::Gif,
            focus_pending: true,
        };
        b.go_to(dir);
        b
    }

    /// Export: switches the format and the file name's extension with it.
    pub fn set_format(&mut self, format: ExportFormat) {
        self.format = format;
        let stem = Path::new(self.file_name.trim())
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "preview".into());
        self.file_name = format!("{stem}.{}", export_extension(format));
    }

    /// Export: where to save, `dir` joined with the file name (the format's extension
    /// added when the name has none of the export formats'); an error for an empty name,
    /// a name with a folder in it, or a folder that is not there.
    pub fn save_path(&self) -> Result<PathBuf, AppError> {
        let name = self.file_name.trim();
        if name.is_empty() {
            return Err("type a file name".into());
        }
        if name.contains('/') || name.contains(std::path::MAIN_SEPARATOR) {
            return Err(format!(
                "'{name}' is a path: pick the folder in the list, type the name only"
            )
            .into());
        }
        if !self.dir.is_dir() {
            return Err(format!("{}: no such folder", self.dir.display()).into());
        }
        let path = self.dir.join(name);
        // A map is a .ron file, a character with its clips a .glb: the extension is
        // added when the typed name lacks it.
        let fixed = match self.purpose {
            Purpose::SaveMap => Some("ron"),
            Purpose::SaveRetargeted => Some("glb"),
            _ => None,
        };
        if let Some(ext) = fixed {
            let has = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(ext));
            return Ok(if has {
                path
            } else {
                self.dir.join(format!("{name}.{ext}"))
            });
        }
        Ok(match ExportFormat::from_path(&path) {
            Ok(_) => path,
            Err(_) => self
                .dir
                .join(format!("{name}.{}", export_extension(self.format))),
        })
    }

    /// Lists another folder.
    pub fn go_to(&mut self, dir: &Path) {
        self.dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        // With its separator: a name typed after it goes into the folder, not onto the
        // folder's own name.
        self.typed = self.dir.display().to_string();
        if !self.typed.ends_with(std::path::MAIN_SEPARATOR) {
            self.typed.push(std::path::MAIN_SEPARATOR);
        }
        self.refresh();
    }

    /// The parent folder, if any.
    pub fn up(&mut self) {
        if let Some(parent) = self.dir.parent().map(Path::to_path_buf) {
            self.go_to(&parent);
        }
    }

    /// Re-reads the folder.
    pub fn refresh(&mut self) {
        self.selected = None;
        self.entries.clear();
        self.error = None;
        let read = match std::fs::read_dir(&self.dir) {
            Ok(r) => r,
            Err(e) => {
                self.error = Some(format!("{}: {e}", self.dir.display()));
                return;
            }
        };
        for item in read.flatten() {
            let path = item.path();
            let name = item.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && !self.show_hidden {
                continue;
            }
            // Follows symlinks: a linked folder browses like a folder.
            let is_dir = path.is_dir();
            if is_dir || self.purpose.lists(&path) {
                self.entries.push(Entry { name, path, is_dir });
            }
        }
        self.entries.sort_by(|a, b| {
            b.is_dir
                .cmp(&a.is_dir)
                .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
        });
    }

    /// Acts on row `index` (a double-click, or Open on the selection): a folder is
    /// entered (`None`), a file is returned to open (export: to overwrite).
    pub fn activate(&mut self, index: usize) -> Option<PathBuf> {
        let entry = self.entries.get(index)?.clone();
        if entry.is_dir {
            self.go_to(&entry.path);
            None
        } else {
            Some(entry.path)
        }
    }

    /// Highlights row `index`; for an export a file's name becomes the name to save.
    pub fn select(&mut self, index: usize) {
        self.selected = Some(index);
        if let (true, Some(e)) = (self.purpose.saves(), self.entries.get(index)) {
            if !e.is_dir {
                self.file_name = e.name.clone();
                if let Ok(f) = ExportFormat::from_path(&e.path) {
                    self.format = f;
                }
            }
        }
    }

    /// Acts on the typed path: a folder is listed (`None`), a file is returned to open;
    /// anything else sets `error`.
    pub fn submit_typed(&mut self) -> Option<PathBuf> {
        let path = PathBuf::from(self.typed.trim());
        if path.is_dir() {
            self.go_to(&path);
            None
        } else if path.is_file() {
            Some(path)
        } else {
            self.error = Some(format!("{}: no such file or folder", path.display()));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_folders_then_gltf_files_and_navigates() {
        let dir = std::env::temp_dir().join(format!("ss-fb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("Zeta")).unwrap();
        std::fs::create_dir_all(dir.join("alpha")).unwrap();
        std::fs::create_dir_all(dir.join(".hidden")).unwrap();
        for f in ["b.GLB", "a.gltf", "notes.txt", "c.bin"] {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        let mut b = FileBrowser::new(&dir);
        let names: Vec<&str> = b.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["alpha", "Zeta", "a.gltf", "b.GLB"]);
        assert_eq!(b.activate(2), Some(b.dir.join("a.gltf")));
        assert_eq!(b.activate(0), None);
        assert!(b.dir.ends_with("alpha") && b.entries.is_empty());
        b.up();
        assert_eq!(b.entries.len(), 4);
        b.typed = dir.join("missing").display().to_string();
        assert_eq!(b.submit_typed(), None);
        assert!(b.error.as_deref().unwrap().contains("no such file"));
        b.show_hidden = true;
        b.refresh();
        assert_eq!(b.entries[0].name, ".hidden");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn export_lists_previews_and_builds_the_save_path() {
        let dir = std::env::temp_dir().join(format!("ss-fb-export-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("shots")).unwrap();
        for f in ["walk.gif", "run.MP4", "a.glb", "notes.txt"] {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        let mut b = FileBrowser::for_purpose(&dir, Purpose::Export);
        let names: Vec<&str> = b.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["shots", "run.MP4", "walk.gif"]);
        assert_eq!(b.save_path().unwrap(), b.dir.join("preview.gif"));
        b.set_format(ExportFormat::Mp4);
        assert_eq!(b.file_name, "preview.mp4");
        b.file_name = "turn".into();
        assert_eq!(b.save_path().unwrap(), b.dir.join("turn.mp4"));
        // Picking a listed file takes its name and format (to overwrite it).
        b.select(2);
        assert_eq!(
            (b.file_name.as_str(), b.format),
            ("walk.gif", ExportFormat::Gif)
        );
        b.file_name = "shots/x.gif".into();
        assert!(b
            .save_path()
            .unwrap_err()
            .to_string()
            .contains("type the name only"));
        b.file_name = " ".into();
        assert!(b.save_path().is_err());
        b.go_to(&dir.join("shots"));
        b.file_name = "x.png".into();
        assert_eq!(b.save_path().unwrap(), b.dir.join("x.png"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_bone_map_saves_as_ron_and_loads_from_ron_files() {
        let dir = std::env::temp_dir().join(format!("ss-fb-map-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("maps")).unwrap();
        for f in ["robot.ron", "walk.bvh", "notes.txt"] {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        for purpose in [Purpose::SaveMap, Purpose::LoadMap] {
            let b = FileBrowser::for_purpose(&dir, purpose);
            let names: Vec<&str> = b.entries.iter().map(|e| e.name.as_str()).collect();
            assert_eq!(names, ["maps", "robot.ron"], "{purpose:?}");
        }
        assert!(Purpose::SaveMap.saves() && !Purpose::LoadMap.saves());
        let mut b = FileBrowser::for_purpose(&dir, Purpose::SaveMap);
        assert_eq!(b.save_path().unwrap(), b.dir.join("retarget-map.ron"));
        b.file_name = "cesium".into();
        assert_eq!(b.save_path().unwrap(), b.dir.join("cesium.ron"));
        // Picking a listed map takes its name (to overwrite it).
        b.select(1);
        assert_eq!(b.save_path().unwrap(), b.dir.join("robot.ron"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
