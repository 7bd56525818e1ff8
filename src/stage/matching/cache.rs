//! The database's disk cache, in the user's cache folder ([`cache_dir`]:
//! `$XDG_CACHE_HOME/stridescope/mm`, not beside the user's files: a folder they consider
//! theirs, or one that is read-only), one file per opened file, keyed by a content hash (FNV-1a, 64 bits) of what the features are computed from: the skeleton
//! (names, parents, rest pose), every key of every clip in the set as decoded (so a
//! `.gltf` whose external `.bin` changed counts as changed), the clip set and the
//! database settings. Re-opening an unchanged file reads the features instead of
//! sampling every clip again; any change (the animation, a weight, a tag) rebuilds them.
//! The payload carries its own checksum, and what is read must describe the same clips
//! as the set, else it is rebuilt.
//!
//! The cache is an optimisation only: an unreadable, stale or corrupt cache is rebuilt,
//! and a folder that cannot be written to just means no cache (the reason is reported).

use std::path::{Path, PathBuf};

use crate::anim::motion_matching::Database;
use crate::anim::Track;
use crate::asset::Model;
use crate::StageError;

use super::ClipSet;

/// Bumped whenever the features or the byte format change.
const FORMAT: u32 = 3;

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
    /// Feeds `bytes` into the hash.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// The hash of everything written so far.
    pub fn finish(self) -> u64 {
        self.0
    }
}

/// Environment variable: the folder caches are written to (instead of the user's cache
/// folder).
pub const CACHE_DIR_ENV: &str = "STRIDESCOPE_CACHE_DIR";

/// The folder motion-matching caches go to: [`CACHE_DIR_ENV`], else
/// `$XDG_CACHE_HOME/stridescope/mm`, else `$HOME/.cache/stridescope/mm`, else the system's
/// temporary folder.
pub fn cache_dir() -> PathBuf {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = var(CACHE_DIR_ENV) {
        return d;
    }
    let base = var("XDG_CACHE_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("stridescope").join("mm")
}

/// Where the cache of `file` lives: in [`cache_dir`], named by a hash of the file's full
/// path and its name (`3f2a...-robot.glb.stridescope-mm`). What it holds is checked against
/// the content key when read.
pub fn cache_path(file: &Path) -> PathBuf {
    let full = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut h = Fnv1a::default();
    h.write(full.to_string_lossy().as_bytes());
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    cache_dir().join(format!("{:016x}-{name}.stridescope-mm", h.finish()))
}

fn hash_track<T: crate::anim::clip::TrackValue>(
    h: &mut Fnv1a,
    track: &Option<Track<T>>,
    floats: impl Fn(T) -> Vec<f32>,
) {
    let Some(t) = track else {
        h.write(&[0]);
        return;
    };
    h.write(&[1, t.interpolation() as u8]);
    h.write(&(t.times().len() as u64).to_le_bytes());
    for x in t.times() {
        h.write(&x.to_bits().to_le_bytes());
    }
    for &v in t.values() {
        for x in floats(v) {
            h.write(&x.to_bits().to_le_bytes());
        }
    }
}

/// The content hash of the database `set` builds from `model`.
pub fn content_key(model: &Model, set: &ClipSet) -> u64 {
    let mut h = Fnv1a::default();
    h.write(&FORMAT.to_le_bytes());
    let sk = &model.skeleton;
    for (j, name) in sk.names().iter().enumerate() {
        h.write(name.as_bytes());
        h.write(&sk.parents()[j].map_or(u64::MAX, |p| p as u64).to_le_bytes());
        let r = &sk.rest_pose()[j];
        let rest = [r.translation.to_array(), r.scale.to_array()];
        for x in rest.iter().flatten().chain(&r.rotation.to_array()) {
            h.write(&x.to_bits().to_le_bytes());
        }
    }
    for c in &set.clips {
        let clip = &model.clips[c.model_clip];
        h.write(clip.name().as_bytes());
        h.write(&clip.duration_secs().to_bits().to_le_bytes());
        for t in clip.tracks() {
            h.write(&(t.joint as u64).to_le_bytes());
            hash_track(&mut h, &t.translation, |v| v.to_array().to_vec());
            hash_track(&mut h, &t.rotation, |v| v.to_array().to_vec());
            hash_track(&mut h, &t.scale, |v| v.to_array().to_vec());
        }
    }
    // Debug output of the settings and clip descriptions: every field, floats printed
    // exactly (shortest round-trip), stable for a given build of the program.
    h.write(format!("{:?}", set.settings).as_bytes());
    h.write(format!("{:?}", set.joints).as_bytes());
    for c in &set.clips {
        h.write(
            format!(
                "{}|{}|{}|{:?}|{:?}|{}",
                c.model_clip,
                c.looping,
                c.root.is_some(),
                c.implied_velocity,
                c.tags,
                c.facing_yaw_rad
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

/// Where the cache of a model made in memory (a motion-matching library on a character)
/// lives: in [`cache_dir`], named by its content key (`content-3f2a....stridescope-mm`).
pub fn content_cache_path(key: u64) -> PathBuf {
    cache_dir().join(format!("content-{key:016x}.stridescope-mm"))
}

/// Reads the database from `file`'s cache when its key matches, else builds it with
/// `build` and writes the cache.
pub fn load_or_build(
    file: &Path,
    model: &Model,
    set: &ClipSet,
    build: impl FnOnce() -> Result<Database, StageError>,
) -> Result<(Database, CacheOutcome), StageError> {
    load_or_build_at(|_| cache_path(file), model, set, build)
}

/// [`load_or_build`] for a model with no file: the cache is named after the content key
/// ([`content_cache_path`]), so the same library on the same character finds it again.
pub fn load_or_build_by_content(
    model: &Model,
    set: &ClipSet,
    build: impl FnOnce() -> Result<Database, StageError>,
) -> Result<(Database, CacheOutcome), StageError> {
    load_or_build_at(content_cache_path, model, set, build)
}

fn load_or_build_at(
    path_of: impl FnOnce(u64) -> PathBuf,
    model: &Model,
    set: &ClipSet,
    build: impl FnOnce() -> Result<Database, StageError>,
) -> Result<(Database, CacheOutcome), StageError> {
    let key = content_key(model, set);
    let path = path_of(key);
    let mut stale = None;
    if let Ok(cached) = std::fs::read(&path) {
        match Database::from_bytes(&cached, key, &set.settings) {
            Ok(db) if describes(&db, model, set) => return Ok((db, CacheOutcome::Loaded(path))),
            Ok(_) => stale = Some("it describes other clips".to_string()),
            Err(e) => stale = Some(e.to_string()),
        }
    }
    let db = build()?;
    // Written to a temporary name first, so a crash never leaves half a cache.
    let tmp = path.with_extension("stridescope-mm.tmp");
    let folder = path.parent().map_or(Ok(()), std::fs::create_dir_all);
    let outcome = match folder
        .and_then(|_| std::fs::write(&tmp, db.to_bytes(key)))
        .and_then(|_| std::fs::rename(&tmp, &path))
    {
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

/// Whether a database read from a cache is about the set's clips (a hash collision or
/// a hand-edited file would otherwise reach the matcher).
fn describes(db: &Database, model: &Model, set: &ClipSet) -> bool {
    db.clips().len() == set.clips.len()
        && db.clips().iter().zip(&set.clips).all(|(d, c)| {
            d.model_clip == c.model_clip
                && d.looping == c.looping
                && model
                    .clips
                    .get(c.model_clip)
                    .is_some_and(|m| m.name() == d.name && m.duration_secs() == d.duration_secs)
        })
}
