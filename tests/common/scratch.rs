//! Scratch folders for tests: each is new and removed with everything in it when it is
//! dropped, also when the test panics, so a test run leaves nothing in the temp folder.

// Each test file that includes it uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A folder `<temp>/stridescope-<name>-<process>-<n>`: `n` counts the folders this test
/// binary made, so tests running at the same time never share one.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("stridescope-{name}-{}-{n}", std::process::id()));
        // A crashed run with the same process id may have left one behind.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
        Scratch { dir }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// A path inside the folder.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.dir.join(rel)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
