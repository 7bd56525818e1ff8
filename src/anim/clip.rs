//! Keyframed clips and the sampling job (clip + time -> local pose).
//!
//! Times are clip seconds: a clip whose first key is at 0.041667 s (CesiumMan) is
//! sampled at that clip time, not shifted. Outside the key range every track holds its
//! end keys.

use glam::{Quat, Vec3};

use super::{AnimError, Transform};

/// glTF sampler interpolation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the previous key's value until the next key.
    Step,
    /// Lerp for translation/scale, shortest-arc slerp for rotation.
    Linear,
    /// Cubic Hermite with in/out tangents scaled by the key interval; rotations are
    /// normalised after interpolation.
    CubicSpline,
}

impl Interpolation {
    pub fn as_str(self) -> &'static str {
        match self {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        }
    }
}

/// A value type a [`Track`] can hold.
pub trait TrackValue: Copy + std::fmt::Debug {
    fn is_finite_value(&self) -> bool;
    /// Linear interpolation; for rotations, shortest-arc slerp.
    fn interpolate(a: Self, b: Self, s: f32) -> Self;
    /// Cubic Hermite with basis weights (h00, h10, h01, h11) applied componentwise.
    fn hermite(v0: Self, m0: Self, v1: Self, m1: Self, h: [f32; 4]) -> Self;
    /// Post-processing after interpolation (normalises rotations).
    fn finish(self) -> Self;
}

impl TrackValue for Vec3 {
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    #[inline]
    fn interpolate(a: Self, b: Self, s: f32) -> Self {
        a.lerp(b, s)
    }
    #[inline]
    fn hermite(v0: Self, m0: Self, v1: Self, m1: Self, h: [f32; 4]) -> Self {
        v0 * h[0] + m0 * h[1] + v1 * h[2] + m1 * h[3]
    }
    #[inline]
    fn finish(self) -> Self {
        self
    }
}

impl TrackValue for Quat {
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    #[inline]
    fn interpolate(a: Self, b: Self, s: f32) -> Self {
        // Shortest arc: flip b into a's hemisphere before interpolating.
        let b = if a.dot(b) < 0.0 { -b } else { b };
        a.slerp(b, s)
    }
    #[inline]
    fn hermite(v0: Self, m0: Self, v1: Self, m1: Self, h: [f32; 4]) -> Self {
        let v = glam::Vec4::from(v0) * h[0]
            + glam::Vec4::from(m0) * h[1]
            + glam::Vec4::from(v1) * h[2]
            + glam::Vec4::from(m1) * h[3];
        Quat::from_vec4(v)
    }
    #[inline]
    fn finish(self) -> Self {
        let len_sq = self.length_squared();
        if len_sq > 0.0 {
            self * len_sq.sqrt().recip()
        } else {
            Quat::IDENTITY
        }
    }
}

/// One animated channel: strictly increasing key times (clip seconds) and values.
///
/// For [`Interpolation::CubicSpline`] `values` holds three entries per key, in glTF
/// order: in-tangent, value, out-tangent (tangents in units per second).
#[derive(Clone, Debug, PartialEq)]
pub struct Track<T> {
    interpolation: Interpolation,
    times: Vec<f32>,
    values: Vec<T>,
}

impl<T: TrackValue> Track<T> {
    /// Validates and builds a track. `what` names the track in errors.
    pub fn new(
        interpolation: Interpolation,
        times: Vec<f32>,
        values: Vec<T>,
        what: &str,
    ) -> Result<Self, AnimError> {
        if times.is_empty() {
            return Err(AnimError::Empty { what: what.into() });
        }
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        if values.len() != times.len() * per_key {
            return Err(AnimError::LengthMismatch {
                what: "track values",
                expected: times.len() * per_key,
                actual: values.len(),
            });
        }
        if let Some(i) = times.iter().position(|t| !t.is_finite()) {
            return Err(AnimError::NonFinite {
                what: format!("{what}: key {i} time"),
            });
        }
        if times[0] < 0.0 {
            return Err(AnimError::OutOfRange {
                what: what.into(),
                detail: format!("key 0 time {} is negative", times[0]),
            });
        }
        if let Some(i) = times.windows(2).position(|w| w[1] <= w[0]) {
            return Err(AnimError::KeysNotIncreasing {
                what: what.into(),
                key: i + 1,
            });
        }
        if let Some(i) = values.iter().position(|v| !v.is_finite_value()) {
            return Err(AnimError::NonFinite {
                what: format!("{what}: value {i}"),
            });
        }
        Ok(Self {
            interpolation,
            times,
            values,
        })
    }

    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Key times in clip seconds, strictly increasing.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// Raw values (three per key for cubic splines).
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The value of key `i` (the middle entry for cubic splines).
    pub fn key_value(&self, i: usize) -> T {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[3 * i + 1],
            _ => self.values[i],
        }
    }

    /// Samples the track at clip time `t` (seconds). Clamps to the end keys outside
    /// the key range. `t` must be finite (the sampling job checks).
    pub fn sample(&self, t: f32) -> T {
        let times = &self.times;
        let last = times.len() - 1;
        if t <= times[0] {
            return self.key_value(0).finish();
        }
        if t >= times[last] {
            return self.key_value(last).finish();
        }
        // First key strictly after t; 1..=last because of the clamps above.
        let next = times.partition_point(|&k| k <= t);
        let prev = next - 1;
        let t0 = times[prev];
        let dt = times[next] - t0;
        let s = (t - t0) / dt;
        match self.interpolation {
            Interpolation::Step => self.values[prev].finish(),
            Interpolation::Linear => {
                T::interpolate(self.values[prev], self.values[next], s).finish()
            }
            Interpolation::CubicSpline => {
                let v = &self.values;
                let (s2, s3) = (s * s, s * s * s);
                let h = [
                    2.0 * s3 - 3.0 * s2 + 1.0,
                    (s3 - 2.0 * s2 + s) * dt,
                    -2.0 * s3 + 3.0 * s2,
                    (s3 - s2) * dt,
                ];
                // out-tangent of prev, in-tangent of next.
                T::hermite(
                    v[3 * prev + 1],
                    v[3 * prev + 2],
                    v[3 * next + 1],
                    v[3 * next],
                    h,
                )
                .finish()
            }
        }
    }
}

/// The tracks that animate one joint. A missing channel keeps the rest pose.
#[derive(Clone, Debug, PartialEq)]
pub struct JointTracks {
    /// Skeleton joint index.
    pub joint: usize,
    pub translation: Option<Track<Vec3>>,
    pub rotation: Option<Track<glam::Quat>>,
    pub scale: Option<Track<Vec3>>,
}

impl JointTracks {
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

/// A named point in clip time, e.g. a foot contact used to align phases when blending.
#[derive(Clone, Debug, PartialEq)]
pub struct SyncMarker {
    /// e.g. `"left_foot_down"`.
    pub name: String,
    /// Clip seconds, in `[0, duration_secs]`.
    pub time_secs: f32,
}

/// An immutable, validated animation clip.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    name: String,
    duration_secs: f32,
    tracks: Vec<JointTracks>,
    markers: Vec<SyncMarker>,
    additive: bool,
}

impl Clip {
    /// Builds a clip. Its duration is the last key time of any track (glTF convention;
    /// keys may start after 0). Tracks must target distinct joints below `joint_count`.
    /// Markers are sorted by time and must lie in `[0, duration]`.
    pub fn new(
        name: String,
        mut tracks: Vec<JointTracks>,
        mut markers: Vec<SyncMarker>,
        joint_count: usize,
    ) -> Result<Self, AnimError> {
        tracks.sort_by_key(|t| t.joint);
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
                    .map(|k| *k.times.last().unwrap_or(&0.0)),
                t.rotation.as_ref().map(|k| *k.times.last().unwrap_or(&0.0)),
                t.scale.as_ref().map(|k| *k.times.last().unwrap_or(&0.0)),
            ];
            for end in ends.into_iter().flatten() {
                duration_secs = duration_secs.max(end);
            }
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
        Ok(Self {
            name,
            duration_secs,
            tracks,
            markers,
            additive: false,
        })
    }

    /// Marks the clip as an additive layer whose reference pose is its first frame
    /// (sampled at clip time 0). Additive layering itself comes with blending.
    pub fn with_additive(mut self, additive: bool) -> Self {
        self.additive = additive;
        self
    }

    /// True for additive layers (reference pose = the clip's first frame).
    pub fn is_additive(&self) -> bool {
        self.additive
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Clip length in seconds: the last key time (0 for a clip with single keys only).
    pub fn duration_secs(&self) -> f32 {
        self.duration_secs
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

    /// Earliest key time of any track (seconds); 0 for a clip without tracks.
    pub fn first_key_secs(&self) -> f32 {
        let mut first = f32::INFINITY;
        for t in &self.tracks {
            for start in [
                t.translation.as_ref().map(|k| k.times[0]),
                t.rotation.as_ref().map(|k| k.times[0]),
                t.scale.as_ref().map(|k| k.times[0]),
            ]
            .into_iter()
            .flatten()
            {
                first = first.min(start);
            }
        }
        if first.is_finite() {
            first
        } else {
            0.0
        }
    }

    /// Total number of channels (translation, rotation and scale tracks).
    pub fn channel_count(&self) -> usize {
        self.tracks.iter().map(JointTracks::channel_count).sum()
    }
}

/// Samples a clip into a local pose.
///
/// Joints the clip does not animate (and channels it does not animate) take the rest
/// pose. The output must have one entry per skeleton joint.
pub struct SamplingJob<'a> {
    pub clip: &'a Clip,
    /// Clip time in seconds; clamped to the key range of each track.
    pub time_secs: f32,
    /// Rest pose, one transform per joint, in parent space.
    pub rest_pose: &'a [Transform],
}

impl SamplingJob<'_> {
    /// Writes the local pose into `output` (parent space, one per joint).
    pub fn run(&self, output: &mut [Transform]) -> Result<(), AnimError> {
        if output.len() != self.rest_pose.len() {
            return Err(AnimError::LengthMismatch {
                what: "sampling output",
                expected: self.rest_pose.len(),
                actual: output.len(),
            });
        }
        if !self.time_secs.is_finite() {
            return Err(AnimError::NonFinite {
                what: "sampling time".into(),
            });
        }
        if let Some(last) = self.clip.tracks.last() {
            if last.joint >= output.len() {
                return Err(AnimError::JointOutOfRange {
                    what: format!("clip '{}'", self.clip.name),
                    joint: last.joint,
                    joint_count: output.len(),
                });
            }
        }
        output.copy_from_slice(self.rest_pose);
        let t = self.time_secs;
        for tracks in &self.clip.tracks {
            let out = &mut output[tracks.joint];
            if let Some(track) = &tracks.translation {
                out.translation = track.sample(t);
            }
            if let Some(track) = &tracks.rotation {
                out.rotation = track.sample(t);
            }
            if let Some(track) = &tracks.scale {
                out.scale = track.sample(t);
            }
        }
        Ok(())
    }
}
