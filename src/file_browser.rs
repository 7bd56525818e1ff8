//! The in-app file browser's state (no UI code; `ui::browser` draws it): one folder's
//! subfolders and .gltf / .glb files, navigation, and the file picked. File > Open uses
//! it where no XDG desktop portal answers (bare X11, many tiling window managers), and
//! File > Open with the built-in browser everywhere.

use std::path::{Path, PathBuf};

use crate::asset::is_gltf_path;

/// One row of the listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub path: PathBuf,
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
    pub show_hidden: bool,
}

impl FileBrowser {
    /// Lists `dir` (made absolute when it can be).
    pub fn new(dir: &Path) -> Self {
        let mut b = Self {
            dir: PathBuf::new(),
            entries: Vec::new(),
            error: None,
            typed: String::new(),
            selected: None,
            show_hidden: false,
        };
        b.go_to(dir);
        b
    }

    /// Lists another folder.
    pub fn go_to(&mut self, dir: &Path) {
        self.dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        self.typed = self.dir.display().to_string();
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
            if is_dir || is_gltf_path(&path) {
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
    /// entered (`None`), a file is returned to open.
    pub fn activate(&mut self, index: usize) -> Option<PathBuf> {
        let entry = self.entries.get(index)?.clone();
        if entry.is_dir {
            self.go_to(&entry.path);
            None
        } else {
            Some(entry.path)
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
}
