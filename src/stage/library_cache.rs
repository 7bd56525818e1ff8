//! The disk cache of a motion library's retargeted takes (issue 41): building a library
//! reads every take of a folder and retargets it onto the character (1.2 s for the 482
//! Bandai takes on the Robot), so the clips of each folder are kept in the user's cache
//! folder ([`cache_dir`], beside the motion-matching caches) and read back when nothing
//! they came from changed.
//!
//! The key (FNV-1a, 64 bits) covers what the clips are made from: the character's
//! skeleton (names, parents, rest pose) and its legs (chosen or found), the folder's path,
//! every take's name, size and modification time, the load options and [`FORMAT`],
//! which is bumped whenever the retargeting or the byte format changes. The payload
//! carries the key and its own checksum; every clip read back is validated by
//! [`Clip::new`] like any import. Anything unreadable, stale or corrupt is rebuilt and
//! written again; a folder that cannot be written only means no cache.

use std::path::{Path, PathBuf};

use glam::{Quat, Vec3};

use crate::anim::{Clip, Interpolation, JointTracks, SyncMarker, Track};
use crate::asset::Model;
use crate::matching::cache::{cache_dir, Fnv1a};

/// Bumped whenever the retargeting or the byte format changes.
pub const FORMAT: u32 = 1;

const MAGIC: &[u8; 8] = b"SSLIBRT1";

/// The content key of `folder`'s takes retargeted onto `character` (see the module docs);
/// `None` when the folder cannot be listed.
pub fn key(character: &Model, folder: &Path, options: &crate::asset::LoadOptions) -> Option<u64> {
    let mut h = Fnv1a::default();
    h.write(&FORMAT.to_le_bytes());
    h.write(env!("CARGO_PKG_VERSION").as_bytes());
    let sk = &character.skeleton;
    for (j, name) in sk.names().iter().enumerate() {
        h.write(name.as_bytes());
        h.write(&sk.parents()[j].map_or(u64::MAX, |p| p as u64).to_le_bytes());
        let r = &sk.rest_pose()[j];
        for x in r
            .translation
            .to_array()
            .iter()
            .chain(&r.rotation.to_array())
            .chain(&r.scale.to_array())
        {
            h.write(&x.to_bits().to_le_bytes());
        }
    }
    // The legs the retargeting plants (the user's choice, else found from the skeleton
    // and the skin): the same skeleton with another mesh may have other legs.
    h.write(format!("{:?}", character.legs()).as_bytes());
    h.write(format!("{options:?}").as_bytes());
    let full = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    h.write(full.to_string_lossy().as_bytes());
    // A folder's takes load without clip-edit sidecars (`asset::folder`), so the take
    // files are all there is to watch.
    for file in crate::asset::folder::bvh_files(folder).ok()? {
        h.write(file.file_name()?.to_string_lossy().as_bytes());
        match std::fs::metadata(&file) {
            Ok(m) => {
                h.write(&m.len().to_le_bytes());
                let since = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .unwrap_or_default();
                h.write(&since.as_nanos().to_le_bytes());
            }
            Err(_) => h.write(&[0xff]),
        }
    }
    Some(h.finish())
}

/// Where the cache of `folder`'s takes on `character` lives: one file per folder and
/// skeleton (named by a hash of the folder's full path and the skeleton's joint names and
/// the folder's name), so a changed take replaces the cache instead of adding one; what it
/// holds is checked against the content key when read.
pub fn path(character: &Model, folder: &Path) -> PathBuf {
    let full = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    let mut h = Fnv1a::default();
    h.write(full.to_string_lossy().as_bytes());
    for name in character.skeleton.names() {
        h.write(name.as_bytes());
        h.write(&[0]);
    }
    let name = folder.file_name().unwrap_or_default().to_string_lossy();
    cache_dir().join(format!("{:016x}-{name}.stridescope-library", h.finish()))
}

/// The clips cached at `file` under `key` for a character of `joint_count` joints, or
/// `None` when there is no such cache or it does not read back whole.
pub fn read(file: &Path, key: u64, joint_count: usize) -> Option<Vec<Clip>> {
    let bytes = std::fs::read(file).ok()?;
    decode(&bytes, key, joint_count)
}

/// Writes `clips` under `key` at `file` (through a temporary file, so a reader never sees
/// half a cache). Clips the byte format does not hold (additive ones, morph weights) are
/// not cached: `Ok(false)`.
pub fn write(file: &Path, key: u64, clips: &[Clip]) -> std::io::Result<bool> {
    let Some(bytes) = encode(key, clips) else {
        return Ok(false);
    };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let partial = file.with_extension(format!("partial-{}", std::process::id()));
    std::fs::write(&partial, bytes)?;
    std::fs::rename(&partial, file)?;
    Ok(true)
}

fn put_u32(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&(v as u32).to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_track<T: crate::anim::clip::TrackValue>(
    out: &mut Vec<u8>,
    track: &Option<Track<T>>,
    floats: impl Fn(T) -> Vec<f32>,
) {
    let Some(t) = track else {
        out.push(0);
        return;
    };
    out.push(1);
    out.push(match t.interpolation() {
        Interpolation::Step => 0,
        Interpolation::Linear => 1,
        Interpolation::CubicSpline => 2,
    });
    put_u32(out, t.times().len());
    for x in t.times() {
        out.extend_from_slice(&x.to_le_bytes());
    }
    put_u32(out, t.values().len());
    for &v in t.values() {
        for x in floats(v) {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
}

fn encode(key: u64, clips: &[Clip]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&key.to_le_bytes());
    put_u32(&mut out, clips.len());
    for c in clips {
        if c.is_additive() || c.has_additive_reference() || !c.morph_tracks().is_empty() {
            return None;
        }
        put_str(&mut out, c.name());
        out.extend_from_slice(&c.frame_rate_hz().unwrap_or(f64::NAN).to_le_bytes());
        out.extend_from_slice(&c.source_start_secs().to_le_bytes());
        put_u32(&mut out, c.markers().len());
        for m in c.markers() {
            put_str(&mut out, &m.name);
            out.extend_from_slice(&m.time_secs.to_le_bytes());
        }
        put_u32(&mut out, c.tracks().len());
        for t in c.tracks() {
            put_u32(&mut out, t.joint);
            put_track(&mut out, &t.translation, |v: Vec3| v.to_array().to_vec());
            put_track(&mut out, &t.rotation, |v: Quat| v.to_array().to_vec());
            put_track(&mut out, &t.scale, |v: Vec3| v.to_array().to_vec());
        }
    }
    let mut h = Fnv1a::default();
    h.write(&out);
    out.extend_from_slice(&h.finish().to_le_bytes());
    Some(out)
}

/// Reads what [`encode`] wrote; `None` at the first thing out of place.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(slice)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<usize> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize)
    }
    fn f32(&mut self) -> Option<f32> {
        Some(f32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn str(&mut self) -> Option<String> {
        let n = self.u32()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
    /// `n` floats, refusing a count the rest of the bytes cannot hold.
    fn floats(&mut self, n: usize) -> Option<Vec<f32>> {
        let raw = self.take(n.checked_mul(4)?)?;
        Some(
            raw.chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        )
    }
    fn track<T: crate::anim::clip::TrackValue>(
        &mut self,
        width: usize,
        value: impl Fn(&[f32]) -> T,
    ) -> Option<Option<Track<T>>> {
        if self.u8()? == 0 {
            return Some(None);
        }
        let interpolation = match self.u8()? {
            0 => Interpolation::Step,
            1 => Interpolation::Linear,
            2 => Interpolation::CubicSpline,
            _ => return None,
        };
        let n = self.u32()?;
        let times = self.floats(n)?;
        let m = self.u32()?;
        let values = self.floats(m.checked_mul(width)?)?;
        let values = values.chunks_exact(width).map(value).collect();
        Some(Some(
            Track::new(interpolation, times, values, "cached track").ok()?,
        ))
    }
}

fn decode(bytes: &[u8], key: u64, joint_count: usize) -> Option<Vec<Clip>> {
    let (body, sum) = bytes.split_at(bytes.len().checked_sub(8)?);
    let mut h = Fnv1a::default();
    h.write(body);
    if h.finish().to_le_bytes() != sum {
        return None;
    }
    let mut r = Reader { bytes: body, at: 0 };
    if r.take(MAGIC.len())? != MAGIC || r.take(8)? != key.to_le_bytes() {
        return None;
    }
    let count = r.u32()?;
    let mut clips = Vec::new();
    for _ in 0..count {
        let name = r.str()?;
        let rate = r.f64()?;
        let start = r.f64()?;
        let mut markers = Vec::new();
        for _ in 0..r.u32()? {
            let name = r.str()?;
            markers.push(SyncMarker {
                name,
                time_secs: r.f32()?,
            });
        }
        let mut tracks = Vec::new();
        for _ in 0..r.u32()? {
            let mut t = JointTracks::new(r.u32()?);
            t.translation = r.track(3, |v| Vec3::from_slice(v))?;
            t.rotation = r.track(4, |v| Quat::from_slice(v))?;
            t.scale = r.track(3, |v| Vec3::from_slice(v))?;
            tracks.push(t);
        }
        let clip = Clip::new(name, tracks, markers, joint_count)
            .ok()?
            .with_frame_rate((!rate.is_nan()).then_some(rate))
            .with_source_start(start);
        clips.push(clip);
    }
    (r.at == body.len()).then_some(clips)
}
