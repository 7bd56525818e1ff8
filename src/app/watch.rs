//! Reload-on-change: watches the open file, or the open folder's clip files (no UI or GPU
//! code).

use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// Watches the open file and reports changes (editors often replace the file, so the
/// parent folder is watched and events are filtered by name).
pub struct FileWatcher {
    path: PathBuf,
    _watcher: notify::RecommendedWatcher,
    events: mpsc::Receiver<()>,
}

impl FileWatcher {
    /// Starts watching; `None` when the platform watcher cannot be set up (the app then
    /// simply does not auto-reload). `wake` runs on the watcher's thread after each
    /// change, so a sleeping event loop can be woken up (e.g. an `EventLoopProxy`).
    pub fn new(path: &Path, wake: impl Fn() + Send + 'static) -> Option<Self> {
        use notify::Watcher;
        let (tx, rx) = mpsc::channel();
        // A folder of clips: any BVH or FBX file in it that changes, appears or goes.
        let folder = path.is_dir();
        // A file is matched by its name (a folder such as `.` has none, and needs none).
        let name = if folder {
            std::ffi::OsString::new()
        } else {
            path.file_name()?.to_os_string()
        };
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if let Ok(event) = event {
                    let relevant = event.kind.is_modify()
                        || event.kind.is_create()
                        || (folder && event.kind.is_remove());
                    let ours = |p: &Path| {
                        if folder {
                            crate::asset::is_bvh_path(p) || crate::asset::is_fbx_path(p)
                        } else {
                            p.file_name() == Some(name.as_os_str())
                        }
                    };
                    if relevant && event.paths.iter().any(|p| ours(p)) {
                        let _ = tx.send(());
                        wake();
                    }
                }
            })
            .ok()?;
        let dir = if folder {
            path
        } else {
            path.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
        };
        watcher
            .watch(dir, notify::RecursiveMode::NonRecursive)
            .ok()?;
        Some(Self {
            path: path.to_path_buf(),
            _watcher: watcher,
            events: rx,
        })
    }

    /// The watched file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True when the file changed since the last call.
    pub fn changed(&self) -> bool {
        let mut any = false;
        while self.events.try_recv().is_ok() {
            any = true;
        }
        any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn reports_a_rewrite_of_the_watched_file_only() {
        let dir = std::env::temp_dir().join(format!("stridescope-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("model.gltf");
        let other = dir.join("other.gltf");
        std::fs::write(&file, b"1").unwrap();
        let wakes = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = wakes.clone();
        let watcher = FileWatcher::new(&file, move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        })
        .expect("watcher");
        assert!(!watcher.changed());
        std::fs::write(&other, b"x").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            !watcher.changed(),
            "another file in the folder is not the open file"
        );
        std::fs::write(&file, b"2").unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !watcher.changed() {
            assert!(Instant::now() < deadline, "no change reported");
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            wakes.load(std::sync::atomic::Ordering::SeqCst) > 0,
            "the waker ran"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_folder_reports_its_clip_files_only() {
        let dir =
            std::env::temp_dir().join(format!("stridescope-watch-folder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("walk.bvh"), b"1").unwrap();
        let watcher = FileWatcher::new(&dir, || {}).expect("watcher");
        std::fs::write(dir.join("notes.txt"), b"x").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(!watcher.changed(), "a text file is not a clip");
        for (name, what) in [("walk.bvh", "a rewritten take"), ("run.FBX", "a new take")] {
            std::fs::write(dir.join(name), b"2").unwrap();
            let deadline = Instant::now() + Duration::from_secs(10);
            while !watcher.changed() {
                assert!(Instant::now() < deadline, "{what} not reported");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        std::fs::remove_file(dir.join("walk.bvh")).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !watcher.changed() {
            assert!(Instant::now() < deadline, "a removed take not reported");
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
