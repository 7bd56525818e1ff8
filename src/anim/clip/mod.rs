//! Keyframed clips and the sampling job (clip + time -> local pose).
//!
//! Times are clip seconds: a clip whose first key is at 0.041667 s (CesiumMan) is
//! sampled at that clip time, not shifted. Outside the key range every track holds its
//! end keys.
//!
//! - `track`: one keyframe track ([`Track`], [`Interpolation`], [`TrackValue`]);
//! - `slerp`: the polynomial slerp kernel, scalar and four-wide;
//! - `runtime`, `soa`: the clip's timelines and its tracks in blocks of four joints, which
//!   both sampling jobs read (the per-joint job unpacks the blocks);
//! - `sampling`: [`SamplingJob`] and [`SamplingCache`].

mod morph;
mod runtime;
mod sampling;
mod slerp;
mod soa;
mod track;

use std::sync::atomic::{AtomicU64, Ordering};

use glam::Vec3;

use crate::AnimError;
use runtime::Runtime;

pub use morph::MorphTrack;
pub use sampling::{SamplingCache, SamplingJob, SoaSamplingJob};
pub use track::{Interpolation, Track, TrackSampler, TrackValue};

/// The tracks that animate one joint. A missing channel keeps the rest pose.
#[derive(Clone, Debug, PartialEq)]
pub struct JointTracks {
    /// Skeleton joint index.
    pub joint: usize,
    /// Local translation keys (parent space, metres); `None` keeps the rest value.
    pub translation: Option<Track<Vec3>>,
    /// Local rotation keys (unit quaternions, parent space); `None` keeps the rest value.
    pub rotation: Option<Track<glam::Quat>>,
    /// Local scale keys (per-axis factors); `None` keeps the rest value.
    pub scale: Option<Track<Vec3>>,
}

impl JointTracks {
    /// Tracks for skeleton joint `joint` with no channel yet (all rest pose).
    pub fn new(joint: usize) -> Self {
        Self {
            joint,
            translation: None,
            rotation: None,
            scale: None,
        }
    }

    /// Number of channels present (0..=3).
    pub fn channel_count(&self) -> usize {
        self.translation.is_some() as usize
            + self.rotation.is_some() as usize
            + self.scale.is_some() as usize
    }
}

/// Why a clip shows no motion ([`Clip::emptiness`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClipEmptiness {
    /// No joint or morph-weight channel.
    NoChannels,
    /// Channels, but every one a single key: 0 seconds long.
    ZeroLength,
}

impl std::fmt::Display for ClipEmptiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::NoChannels => "empty take: no animated channel",
            Self::ZeroLength => "empty take: 0 s long (single keys only)",
        })
    }
}

/// A named point in clip time, e.g. a foot contact used to align phases when blending.
/// Serialised as `(name: "left_foot_down", time_secs: 0.1)` in clip-edit sidecars.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SyncMarker {
    /// e.g. `"left_foot_down"`.
    pub name: String,
    /// Clip seconds, in `[0, duration_secs]`.
    pub time_secs: f32,
}

/// An immutable, validated animation clip.
///
/// It keeps the per-joint [`Track`]s it was built from (what [`Clip::tracks`] returns) and
/// a runtime copy that both sampling jobs read: the keys in blocks of four joints, in a
/// few contiguous arrays, with channels that share their key times (glTF exporters write
/// the same times for every channel of a clip) sharing one timeline, so each distinct
/// timeline is searched once per sample rather than once per channel.
#[derive(Clone, Debug)]
pub struct Clip {
    name: String,
    duration_secs: f32,
    tracks: Vec<JointTracks>,
    markers: Vec<SyncMarker>,
    /// Animated morph weights, at most one track per joint, sorted by joint.
    morph: Vec<MorphTrack>,
    additive: bool,
    /// Clip time an additive clip's reference pose is sampled at when set ("make additive
    /// relative to frame N"); `None`: its first key.
    additive_reference_secs: Option<f32>,
    /// Frames per second of the source when it has one (a BVH file's `Frame Time`).
    frame_rate_hz: Option<f64>,
    /// Where clip time 0 lies on the source's own timeline, seconds (an FBX take that
    /// runs from 20/24 s to 40/24 s of the scene: 20/24); 0 when the source has none.
    source_start_secs: f64,
    /// Identifies the clip to a [`SamplingCache`]; clones share it (same data).
    uid: u64,
    runtime: Runtime,
}

/// Clips are equal when their data is: the cache identity and the runtime copy (derived
/// from the tracks) are not compared.
impl PartialEq for Clip {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.duration_secs == other.duration_secs
            && self.tracks == other.tracks
            && self.markers == other.markers
            && self.morph == other.morph
            && self.additive == other.additive
            && self.additive_reference_secs == other.additive_reference_secs
            && self.frame_rate_hz == other.frame_rate_hz
            && self.source_start_secs == other.source_start_secs
    }
}

static NEXT_CLIP_UID: AtomicU64 = AtomicU64::new(1);

/// The key times a trim to `start..end` keeps (see [`Clip::trimmed`]): both ends and the
/// keys between them; a cubic spline's range sampled at 60 Hz instead.
fn trim_times(keys: &[f32], interpolation: Interpolation, start: f32, end: f32) -> Vec<f32> {
    let mut t = vec![start];
    if interpolation == Interpolation::CubicSpline {
        let n = (((end - start) * 60.0).ceil() as usize).max(1);
        t.extend((1..n).map(|i| start + (end - start) * i as f32 / n as f32));
    } else {
        t.extend(keys.iter().copied().filter(|&k| start < k && k < end));
    }
    t.push(end);
    t
}

/// A trimmed cubic spline is played linearly (its tangents do not survive the cut).
fn linear_for_cubic(i: Interpolation) -> Interpolation {
    if i == Interpolation::CubicSpline {
        Interpolation::Linear
    } else {
        i
    }
}

/// `track` from `start` to `end` with time 0 at `start` (see [`Clip::trimmed`]).
fn trim_track<T: TrackValue>(
    track: &Track<T>,
    start: f32,
    end: f32,
    what: &str,
) -> Result<Track<T>, AnimError> {
    let at = trim_times(track.times(), track.interpolation(), start, end);
    Track::new(
        linear_for_cubic(track.interpolation()),
        at.iter().map(|t| t - start).collect(),
        at.iter().map(|&t| track.sample(t)).collect(),
        what,
    )
}

impl Clip {
    /// The part of this clip from `start_secs` to `end_secs` as a clip of its own (time 0 =
    /// `start_secs`), named `name`: "trim to the in/out range". Each track keeps its keys
    /// inside the range and gains keys at both ends sampled from the clip, so the trimmed
    /// clip shows the same pose at every time of the range; cubic-spline tracks are
    /// resampled linearly at 60 Hz (a cut spline keeps no tangents). Markers inside the
    /// range move with it. Frame rate and additive flag carry over.
    ///
    /// Errors: a range that is not finite, not increasing or not inside `[0, duration]`.
    pub fn trimmed(&self, start_secs: f32, end_secs: f32, name: String) -> Result<Clip, AnimError> {
        let d = self.duration_secs();
        if !(start_secs.is_finite()
            && end_secs.is_finite()
            && 0.0 <= start_secs
            && start_secs < end_secs
            && end_secs <= d + 1e-6)
        {
            return Err(AnimError::OutOfRange {
                what: format!("trim of clip '{}'", self.name),
                detail: format!("{start_secs}-{end_secs} s of a {d} s clip"),
            });
        }
        let end_secs = end_secs.min(d);
        let what = format!("trim of clip '{}'", self.name);
        let mut tracks = Vec::with_capacity(self.tracks.len());
        for t in &self.tracks {
            let mut out = JointTracks::new(t.joint);
            let cut = |tr| trim_track(tr, start_secs, end_secs, &what);
            out.translation = t.translation.as_ref().map(cut).transpose()?;
            out.rotation = t
                .rotation
                .as_ref()
                .map(|tr| trim_track(tr, start_secs, end_secs, &what))
                .transpose()?;
            out.scale = t.scale.as_ref().map(cut).transpose()?;
            tracks.push(out);
        }
        let mut morph = Vec::with_capacity(self.morph.len());
        for m in &self.morph {
            let at = trim_times(m.times(), m.interpolation(), start_secs, end_secs);
            let mut values = vec![0.0; at.len() * m.targets()];
            for (k, &t) in at.iter().enumerate() {
                m.sample(t, &mut values[k * m.targets()..(k + 1) * m.targets()])?;
            }
            morph.push(MorphTrack::new(
                m.joint,
                m.targets(),
                linear_for_cubic(m.interpolation()),
                at.iter().map(|t| t - start_secs).collect(),
                values,
                &what,
            )?);
        }
        let markers = self
            .markers
            .iter()
            .filter(|m| start_secs <= m.time_secs && m.time_secs <= end_secs)
            .map(|m| SyncMarker {
                name: m.name.clone(),
                time_secs: m.time_secs - start_secs,
            })
            .collect();
        let joint_count = self.joint_bound();
        let mut out = Clip::with_morph(name, tracks, morph, markers, joint_count)?
            .with_frame_rate(self.frame_rate_hz())
            .with_additive(self.is_additive())
            .with_source_start(self.source_start_secs + f64::from(start_secs));
        // The reference frame stays the same pose: in the trimmed clip's seconds, inside it.
        out.additive_reference_secs = self
            .additive_reference_secs
            .map(|t| (t - start_secs).clamp(0.0, out.duration_secs));
        Ok(out)
    }

    /// One past the highest joint a track of this clip animates: the joint count a clip
    /// rebuilt from its tracks is checked against (they were checked against the
    /// skeleton when this clip was built).
    fn joint_bound(&self) -> usize {
        self.tracks
            .iter()
            .map(|t| t.joint + 1)
            .chain(self.morph.iter().map(|m| m.joint + 1))
            .max()
            .unwrap_or(0)
    }

    /// This clip with `markers` instead of its own (a new clip: caches keyed by the old
    /// one do not apply). Errors: a marker outside `[0, duration]` or not finite.
    pub fn with_markers(&self, markers: Vec<SyncMarker>) -> Result<Clip, AnimError> {
        let joint_count = self.joint_bound();
        Ok(Clip::with_morph(
            self.name.clone(),
            self.tracks.clone(),
            self.morph.clone(),
            markers,
            joint_count,
        )?
        .with_frame_rate(self.frame_rate_hz())
        .with_additive(self.is_additive())
        .with_source_start(self.source_start_secs)
        .with_reference_of(self))
    }

    /// This clip with `other`'s additive reference time (clips rebuilt from `other`).
    pub(crate) fn with_reference_of(mut self, other: &Clip) -> Self {
        self.additive_reference_secs = other.additive_reference_secs;
        self
    }

    /// Builds a clip. Its duration is the last key time of any track (glTF convention;
    /// keys may start after 0). Tracks must target distinct joints below `joint_count`.
    /// Markers are sorted by time and must lie in `[0, duration]`.
    pub fn new(
        name: String,
        tracks: Vec<JointTracks>,
        markers: Vec<SyncMarker>,
        joint_count: usize,
    ) -> Result<Self, AnimError> {
        Self::with_morph(name, tracks, Vec::new(), markers, joint_count)
    }

    /// [`Clip::new`] with animated morph weights (glTF `weights` channels), at most one
    /// track per joint; they count towards the duration like the joint tracks.
    pub fn with_morph(
        name: String,
        mut tracks: Vec<JointTracks>,
        mut morph: Vec<MorphTrack>,
        mut markers: Vec<SyncMarker>,
        joint_count: usize,
    ) -> Result<Self, AnimError> {
        tracks.sort_by_key(|t| t.joint);
        morph.sort_by_key(|t| t.joint);
        for pair in morph.windows(2) {
            if pair[0].joint == pair[1].joint {
                return Err(AnimError::OutOfRange {
                    what: format!("clip '{name}'"),
                    detail: format!("joint {} has two morph-weight tracks", pair[0].joint),
                });
            }
        }
        if let Some(t) = morph.iter().find(|t| t.joint >= joint_count) {
            return Err(AnimError::JointOutOfRange {
                what: format!("clip '{name}' morph-weight track"),
                joint: t.joint,
                joint_count,
            });
        }
        for pair in tracks.windows(2) {
            if pair[0].joint == pair[1].joint {
                return Err(AnimError::OutOfRange {
                    what: format!("clip '{name}'"),
                    detail: format!("joint {} has two sets of tracks", pair[0].joint),
                });
            }
        }
        let mut duration_secs = 0.0f32;
        for t in &tracks {
            if t.joint >= joint_count {
                return Err(AnimError::JointOutOfRange {
                    what: format!("clip '{name}' track"),
                    joint: t.joint,
                    joint_count,
                });
            }
            let ends = [
                t.translation
                    .as_ref()
                    .map(|k| *k.times().last().unwrap_or(&0.0)),
                t.rotation
                    .as_ref()
                    .map(|k| *k.times().last().unwrap_or(&0.0)),
                t.scale.as_ref().map(|k| *k.times().last().unwrap_or(&0.0)),
            ];
            for end in ends.into_iter().flatten() {
                duration_secs = duration_secs.max(end);
            }
        }
        for t in &morph {
            duration_secs = duration_secs.max(*t.times().last().unwrap_or(&0.0));
        }
        for m in &markers {
            if !m.time_secs.is_finite() || m.time_secs < 0.0 || m.time_secs > duration_secs {
                return Err(AnimError::OutOfRange {
                    what: format!("clip '{name}' marker '{}'", m.name),
                    detail: format!(
                        "time {} s is outside the clip [0, {duration_secs}] s",
                        m.time_secs
                    ),
                });
            }
        }
        markers.sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
        let runtime = Runtime::new(&tracks);
        Ok(Self {
            name,
            duration_secs,
            tracks,
            markers,
            morph,
            additive: false,
            additive_reference_secs: None,
            frame_rate_hz: None,
            source_start_secs: 0.0,
            uid: NEXT_CLIP_UID.fetch_add(1, Ordering::Relaxed),
            runtime,
        })
    }

    /// Marks the clip as an additive layer whose reference pose is its first frame
    /// (sampled at clip time 0). Additive layering itself comes with blending.
    pub fn with_additive(mut self, additive: bool) -> Self {
        self.additive = additive;
        if !additive {
            self.additive_reference_secs = None;
        }
        self
    }

    /// Marks the clip as an additive layer whose reference pose is its own frame at clip
    /// time `reference_secs` (clamped into `[0, duration]`; not finite: its first key):
    /// "make additive relative to frame N".
    pub fn with_additive_reference(mut self, reference_secs: f32) -> Self {
        self.additive = true;
        self.additive_reference_secs = reference_secs
            .is_finite()
            .then(|| reference_secs.clamp(0.0, self.duration_secs));
        self
    }

    /// Clip time, seconds, an additive clip's own reference pose is sampled at: the time
    /// set by [`Clip::with_additive_reference`], else its first key.
    pub fn additive_reference_secs(&self) -> f32 {
        self.additive_reference_secs
            .unwrap_or_else(|| self.first_key_secs())
    }

    /// True when the reference time was set ([`Clip::with_additive_reference`]).
    pub fn has_additive_reference(&self) -> bool {
        self.additive_reference_secs.is_some()
    }

    /// The same clip under another name (the data, and so the cache identity, are shared).
    pub fn renamed(mut self, name: String) -> Self {
        self.name = name;
        self
    }

    /// Gives the clip another name (in place: see [`Self::renamed`]).
    pub fn set_name(&mut self, name: String) {
        self.name = name;
    }

    /// Sets the source's frame rate (Hz), e.g. a BVH file's `1 / Frame Time`; `None`, a
    /// non-finite or non-positive rate: the source has none (glTF).
    pub fn with_frame_rate(mut self, hz: Option<f64>) -> Self {
        self.frame_rate_hz = hz.filter(|h| h.is_finite() && *h > 0.0);
        self
    }

    /// The source's frame rate in Hz when it has one (BVH; `None` for glTF, whose key
    /// times need not be regular).
    pub fn frame_rate_hz(&self) -> Option<f64> {
        self.frame_rate_hz
    }

    /// Sets where clip time 0 lies on the source's timeline (seconds; a non-finite value
    /// is taken as 0).
    pub fn with_source_start(mut self, secs: f64) -> Self {
        self.source_start_secs = if secs.is_finite() { secs } else { 0.0 };
        self
    }

    /// Where clip time 0 lies on the source's own timeline, seconds: an FBX take's start
    /// in scene time; 0 for glTF and BVH. Scene time = this + clip time.
    pub fn source_start_secs(&self) -> f64 {
        self.source_start_secs
    }

    /// Identity of this clip's data: unique per [`Clip::new`], shared by clones (what
    /// caches of derived data key on).
    pub fn uid(&self) -> u64 {
        self.uid
    }

    /// True for additive layers (reference pose = the clip's first frame).
    pub fn is_additive(&self) -> bool {
        self.additive
    }

    /// The clip's name, for the UI and messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Clip length in seconds: the last key time (0 for a clip with single keys only).
    pub fn duration_secs(&self) -> f32 {
        self.duration_secs
    }

    /// Why the clip shows no motion, if it shows none: it has no channel at all (the empty
    /// `Take 001` a Mixamo download carries before its real take), or every channel holds
    /// one key so its length is 0 s. `None` for a clip that animates. Such a clip is
    /// listed but never chosen by default, and libraries, grids and quality figures skip it.
    pub fn emptiness(&self) -> Option<ClipEmptiness> {
        if self.tracks.iter().all(|t| t.channel_count() == 0) && self.morph.is_empty() {
            Some(ClipEmptiness::NoChannels)
        } else if self.duration_secs <= 0.0 {
            Some(ClipEmptiness::ZeroLength)
        } else {
            None
        }
    }

    /// True when the clip shows motion ([`Clip::emptiness`] is `None`).
    pub fn animates(&self) -> bool {
        self.emptiness().is_none()
    }

    /// Per-joint tracks, sorted by joint index.
    pub fn tracks(&self) -> &[JointTracks] {
        &self.tracks
    }

    /// Tracks of one joint, if animated.
    pub fn joint_tracks(&self, joint: usize) -> Option<&JointTracks> {
        self.tracks
            .binary_search_by_key(&joint, |t| t.joint)
            .ok()
            .map(|i| &self.tracks[i])
    }

    /// Sync markers sorted by time.
    pub fn markers(&self) -> &[SyncMarker] {
        &self.markers
    }

    /// Animated morph weights, sorted by joint.
    pub fn morph_tracks(&self) -> &[MorphTrack] {
        &self.morph
    }

    /// The morph-weight track of `joint`'s mesh, if the clip animates it.
    pub fn morph_track(&self, joint: usize) -> Option<&MorphTrack> {
        self.morph
            .binary_search_by_key(&joint, |t| t.joint)
            .ok()
            .map(|i| &self.morph[i])
    }

    /// Earliest key time of any track (seconds); 0 for a clip without tracks.
    pub fn first_key_secs(&self) -> f32 {
        let mut first = f32::INFINITY;
        for t in &self.tracks {
            for start in [
                t.translation.as_ref().map(|k| k.times()[0]),
                t.rotation.as_ref().map(|k| k.times()[0]),
                t.scale.as_ref().map(|k| k.times()[0]),
            ]
            .into_iter()
            .flatten()
            {
                first = first.min(start);
            }
        }
        for t in &self.morph {
            first = first.min(t.times()[0]);
        }
        if first.is_finite() {
            first
        } else {
            0.0
        }
    }

    /// Number of distinct key-time arrays among the clip's channels: channels with equal
    /// key times share one, and sampling searches each once.
    pub fn timeline_count(&self) -> usize {
        self.runtime.timelines.len()
    }

    /// Total number of channels (translation, rotation and scale tracks).
    pub fn channel_count(&self) -> usize {
        self.tracks.iter().map(JointTracks::channel_count).sum()
    }
}
