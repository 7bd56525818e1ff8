//! The database as bytes, for the disk cache: little-endian, a magic and a version, the
//! key, the layout, the clips, the frames, the raw features and an FNV-1a checksum of
//! everything after the key (the normalisation and bounds are recomputed on load, so a
//! cache can never disagree with them). Reading checks the checksum, every length, that
//! each clip's frames are its own, in order and within its duration; a truncated,
//! damaged or inconsistent file is an error, never a panic.

use super::database::{Database, DatabaseSettings, DbClip, FrameInfo};
use crate::AnimError;

const MAGIC: &[u8; 8] = b"SSMMDB\0\x02";

/// FNV-1a, 64 bits, of `bytes`.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn corrupt(detail: impl Into<String>) -> AnimError {
    AnimError::OutOfRange {
        what: "motion matching cache".into(),
        detail: detail.into(),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], AnimError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| corrupt(format!("truncated at byte {}", self.at)))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, AnimError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or([0; 4]),
        ))
    }
    fn f32(&mut self) -> Result<f32, AnimError> {
        Ok(f32::from_bits(self.u32()?))
    }
    fn len(&mut self, max: usize, what: &str) -> Result<usize, AnimError> {
        let n = self.u32()? as usize;
        if n > max {
            return Err(corrupt(format!("{what} count {n} is over {max}")));
        }
        Ok(n)
    }
}

impl Database {
    /// The database as cache bytes; `key` (a content hash of what it was built from) is
    /// stored so a stale cache is recognised.
    pub fn to_bytes(&self, key: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.raw.len() * 4 + self.frames.len() * 13);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&key.to_le_bytes());
        let u = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
        u(&mut out, self.dims as u32);
        for r in &self.groups {
            u(&mut out, r.start as u32);
            u(&mut out, r.end as u32);
        }
        u(&mut out, self.clips.len() as u32);
        for c in &self.clips {
            u(&mut out, c.model_clip as u32);
            u(&mut out, c.name.len() as u32);
            out.extend_from_slice(c.name.as_bytes());
            u(&mut out, c.duration_secs.to_bits());
            u(&mut out, c.looping as u32);
            u(&mut out, c.first_frame as u32);
            u(&mut out, c.frame_count as u32);
        }
        u(&mut out, self.frames.len() as u32);
        for f in &self.frames {
            u(&mut out, f.source);
            u(&mut out, f.time_secs.to_bits());
            u(&mut out, f.tags);
            out.push(f.candidate as u8);
        }
        for v in &self.raw {
            u(&mut out, v.to_bits());
        }
        let sum = checksum(&out[16..]);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// The key stored in cache bytes, without reading the rest.
    pub fn cache_key(bytes: &[u8]) -> Option<u64> {
        if bytes.len() < 16 || &bytes[..8] != MAGIC {
            return None;
        }
        Some(u64::from_le_bytes(bytes[8..16].try_into().ok()?))
    }

    /// Reads cache bytes written by [`Database::to_bytes`] with `key` for the same
    /// `settings` (the key must cover them).
    pub fn from_bytes(
        bytes: &[u8],
        key: u64,
        settings: &DatabaseSettings,
    ) -> Result<Database, AnimError> {
        match Database::cache_key(bytes) {
            None => return Err(corrupt("not a stridescope motion matching cache")),
            Some(k) if k != key => return Err(corrupt("stale (built from other data)")),
            Some(_) => {}
        }
        if bytes.len() < 24 {
            return Err(corrupt("truncated"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if checksum(&body[16..]) != u64::from_le_bytes(sum.try_into().unwrap_or([0; 8])) {
            return Err(corrupt("checksum mismatch (damaged)"));
        }
        let bytes = body;
        let mut r = Reader { bytes, at: 16 };
        let dims = r.len(4096, "dimension")?;
        let mut groups: [std::ops::Range<usize>; 6] = Default::default();
        let mut prev = 0;
        for g in &mut groups {
            let (a, b) = (r.u32()? as usize, r.u32()? as usize);
            if a != prev || b < a || b > dims {
                return Err(corrupt("feature layout is inconsistent"));
            }
            prev = b;
            *g = a..b;
        }
        if prev != dims {
            return Err(corrupt("feature layout does not cover every dimension"));
        }
        let (nf, np) = (settings.future_secs.len(), settings.past_secs.len());
        if groups[0].len() != groups[1].len()
            || groups[0].is_empty()
            || !groups[0].len().is_multiple_of(3)
            || groups[2].len() != 3
            || groups[3].len() != 2 * nf
            || groups[4].len() != 2 * nf
            || groups[5].len() != 2 * np
        {
            return Err(corrupt("feature layout does not fit the settings"));
        }
        let n_clips = r.len(100_000, "clip")?;
        if n_clips == 0 {
            return Err(corrupt("no clips"));
        }
        let mut clips = Vec::with_capacity(n_clips);
        for _ in 0..n_clips {
            let model_clip = r.u32()? as usize;
            let name_len = r.len(1 << 16, "name byte")?;
            let name = String::from_utf8(r.take(name_len)?.to_vec())
                .map_err(|_| corrupt("a clip name is not UTF-8"))?;
            let c = DbClip {
                model_clip,
                name,
                duration_secs: r.f32()?,
                looping: r.u32()? != 0,
                first_frame: r.u32()? as usize,
                frame_count: r.u32()? as usize,
            };
            if !(c.duration_secs.is_finite() && c.duration_secs > 0.0) {
                return Err(corrupt(format!("clip '{}' has no duration", c.name)));
            }
            clips.push(c);
        }
        let n_frames = r.len(4_000_000, "frame")?;
        let mut frames = Vec::with_capacity(n_frames);
        for _ in 0..n_frames {
            let f = FrameInfo {
                source: r.u32()?,
                time_secs: r.f32()?,
                tags: r.u32()?,
                candidate: r.take(1)?[0] != 0,
            };
            if f.source as usize >= n_clips || !f.time_secs.is_finite() {
                return Err(corrupt("a frame names a clip that is not there"));
            }
            frames.push(f);
        }
        let mut next = 0;
        for (ci, c) in clips.iter().enumerate() {
            if c.first_frame != next || c.frame_count == 0 || next + c.frame_count > n_frames {
                return Err(corrupt("clip frame ranges are inconsistent"));
            }
            let own = &frames[next..next + c.frame_count];
            let mut prev = -1.0f32;
            for f in own {
                if f.source as usize != ci
                    || !(f.time_secs > prev && f.time_secs <= c.duration_secs + 1e-4)
                {
                    return Err(corrupt(format!(
                        "the frames of clip '{}' are not its own",
                        c.name
                    )));
                }
                prev = f.time_secs;
            }
            next += c.frame_count;
        }
        if next != n_frames {
            return Err(corrupt("clip frame ranges do not cover the frames"));
        }
        let raw_len = n_frames
            .checked_mul(dims)
            .ok_or_else(|| corrupt("too large"))?;
        let raw_bytes = r.take(raw_len.checked_mul(4).ok_or_else(|| corrupt("too large"))?)?;
        let raw: Vec<f32> = raw_bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if r.at != bytes.len() {
            return Err(corrupt("trailing bytes"));
        }
        Database::from_parts(settings.clone(), dims, groups, clips, frames, raw)
    }
}
