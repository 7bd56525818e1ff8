//! The database's disk cache: `FILE.stridescope-mm` next to the glTF file, keyed by a
//! content hash (FNV-1a, 64 bits) of the file's bytes, the clip set and the database
//! settings, so re-opening an unchanged file reads the features instead of sampling
//! every clip again, and any change (the file, a weight, a tag) rebuilds them.
//!
//! The cache is an optimisation only: an unreadable, stale or corrupt cache is rebuilt,
//! and a folder that cannot be written to just means no cache (the reason is reported).

use std::path::{Path, PathBuf};

use crate::anim::motion_matching::Database;

use super::ClipSet;

/// Bumped whenever the features or the byte format change.
const FORMAT: u32 = 1;

/// FNV-1a, 64 bits: tiny, stable across platforms and Rust versions (unlike
/// `DefaultHasher`), plenty for telling caches apart.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn finish(self) -> u64 {
        self.0
    }
}

/// Where the cache of `file` lives.
pub fn cache_path(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".stridescope-mm");
    file.with_file_name(name)
}

/// The content hash of a database built from `file_bytes` with `set`.
pub fn content_key(file_bytes: &[u8], set: &ClipSet) -> u64 {
    let mut h = Fnv1a::default();
    h.write(&FORMAT.to_le_bytes());
    h.write(&(file_bytes.len() as u64).to_le_bytes());
    h.write(file_bytes);
    // Debug output of the settings and clip descriptions: every field, floats printed
    // exactly (shortest round-trip), stable for a given build of the program.
    h.write(format!("{:?}", set.settings).as_bytes());
    h.write(format!("{:?}", set.joints).as_bytes());
    for c in &set.clips {
        h.write(
            format!(
                "{}|{}|{}|{:?}|{:?}",
                c.model_clip,
                c.looping,
                c.root.is_some(),
                c.implied_velocity,
                c.tags
            )
            .as_bytes(),
        );
    }
    h.finish()
}

/// What happened to the cache.
#[derive(Clone, Debug, PartialEq)]
pub enum CacheOutcome {
    /// Read from the cache file.
    Loaded(PathBuf),
    /// Built, and written to the cache file.
    Written(PathBuf),
    /// Built; the cache could not be used (the reason).
    Skipped(String),
}

/// Reads the database from `file`'s cache when its key matches, else builds it with
/// `build` and writes the cache.
pub fn load_or_build(
    file: &Path,
    set: &ClipSet,
    build: impl FnOnce() -> Result<Database, String>,
) -> Result<(Database, CacheOutcome), String> {
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            let db = build()?;
            return Ok((
                db,
                CacheOutcome::Skipped(format!("{}: {e}", file.display())),
            ));
        }
    };
    let key = content_key(&bytes, set);
    let path = cache_path(file);
    let mut stale = None;
    if let Ok(cached) = std::fs::read(&path) {
        match Database::from_bytes(&cached, key, &set.settings) {
            Ok(db) => return Ok((db, CacheOutcome::Loaded(path))),
            Err(e) => stale = Some(e.to_string()),
        }
    }
    let db = build()?;
    // Written to a temporary name first, so a crash never leaves half a cache.
    let tmp = path.with_extension("stridescope-mm.tmp");
    let outcome =
        match std::fs::write(&tmp, db.to_bytes(key)).and_then(|_| std::fs::rename(&tmp, &path)) {
            Ok(()) => CacheOutcome::Written(path),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                CacheOutcome::Skipped(format!(
                    "{}: cannot write the cache: {e}{}",
                    path.display(),
                    stale
                        .map(|s| format!(" (old cache: {s})"))
                        .unwrap_or_default()
                ))
            }
        };
    Ok((db, outcome))
}
