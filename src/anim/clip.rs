//! Keyframed clips and the sampling job (clip + time -> local pose).
//!
//! Times are clip seconds: a clip whose first key is at 0.041667 s (CesiumMan) is
//! sampled at that clip time, not shifted. Outside the key range every track holds its
//! end keys.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Mat4, Quat, Vec3, Vec4};

use super::{AnimError, Transform};

/// glTF sampler interpolation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the previous key's value until the next key.
    Step,
    /// Lerp for translation/scale, shortest-arc slerp for rotation. The slerp weights are
    /// evaluated with polynomials instead of acos/sin (see `slerp_normalized` in
    /// `src/anim/clip.rs`); the result stays within 1e-6 rad of exact slerp
    /// (`tests/sampling.rs` sweeps key angles up to 360°).
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
    /// Linear interpolation; for rotations, shortest-arc slerp, normalised (the result is
    /// final: [`TrackValue::finish`] is not applied to it).
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
    /// Shortest-arc slerp, normalised (see [`Interpolation::Linear`] for its accuracy).
    #[inline]
    fn interpolate(a: Self, b: Self, s: f32) -> Self {
        slerp_normalized(a, b, s)
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

/// Shortest-arc slerp from `a` to `b` at `s` in `[0, 1]`, normalised.
///
/// This is slerp, not nlerp: with `Ω = acos(|a·b|)` (half the rotation angle between the
/// keys, at most π/2 after the hemisphere flip) slerp is
/// `(sin((1-s)Ω)·a + sin(sΩ)·b) / sin Ω`, and since the result is normalised anyway the
/// weights only need the right ratio: `w0 = (1-s)·sinc((1-s)Ω)`, `w1 = s·sinc(sΩ)`
/// (`sinc x = sin x / x`). Both are evaluated with polynomials, without acos, sin or a
/// division by `sin Ω`:
/// - `acos d = sqrt(1-d)·P(d)` on `[0, 1]` (Abramowitz & Stegun 4.4.46, absolute error
///   ≤ 2e-8), so `Ω² = (1-d)·P(d)²` needs no square root;
/// - `sinc` as its Taylor series in `x²` to the `x¹⁰` term (truncation error ≤ 3.6e-8 for
///   `x ≤ π/2`, relative error ≤ 6e-8).
///
/// Both errors are below f32 rounding, so the result matches exact (f64) slerp to f32
/// precision: `tests/sampling.rs` sweeps key angles up to 360° and times in `[0, 1]` and
/// bounds the rotation-angle deviation at 1e-6 rad (measured 2.8e-7 rad there; on a
/// denser sweep 3.2e-7 rad, where glam's f32 `Quat::slerp` measures 3.6e-7 rad and nlerp
/// 0.14 rad). Near `Ω = 0` the weights tend to `(1-s, s)` (nlerp, exact in the limit)
/// without a branch.
///
/// [`SamplingJob`] runs the same arithmetic on four channels at once (one per SIMD lane,
/// see [`Lane`]), so its rotations are bit-identical to [`Track::sample`]'s.
#[inline]
fn slerp_normalized(a: Quat, b: Quat, s: f32) -> Quat {
    let [x, y, z, w] = slerp_lanes(a.to_array(), b.to_array(), s);
    Quat::from_xyzw(x, y, z, w)
}

/// Arithmetic of the rotation kernel, on one value (`f32`) or four (`Vec4`, one channel per
/// lane). Each lane of a `Vec4` operation rounds exactly as the `f32` one does, so both
/// instantiations of [`slerp_lanes`] give identical bits.
trait Lane:
    Copy + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self>
{
    fn splat(v: f32) -> Self;
    fn abs(self) -> Self;
    fn max(self, other: Self) -> Self;
    fn min(self, other: Self) -> Self;
    /// -1 where `self < 0`, else 1.
    fn sign(self) -> Self;
    /// `1 / sqrt(self)` where `self > 0`, else 0.
    fn inv_sqrt_or_zero(self) -> Self;
    /// 1 where `self > 0`, else 0.
    fn positive(self) -> Self;
}

impl Lane for f32 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        if self > other {
            self
        } else {
            other
        }
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        if self < other {
            self
        } else {
            other
        }
    }
    #[inline(always)]
    fn sign(self) -> Self {
        if self < 0.0 {
            -1.0
        } else {
            1.0
        }
    }
    #[inline(always)]
    fn inv_sqrt_or_zero(self) -> Self {
        if self > 0.0 {
            1.0 / self.sqrt()
        } else {
            0.0
        }
    }
    #[inline(always)]
    fn positive(self) -> Self {
        if self > 0.0 {
            1.0
        } else {
            0.0
        }
    }
}

impl Lane for Vec4 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Vec4::splat(v)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Vec4::abs(self)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        Vec4::select(self.cmpgt(other), self, other)
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        Vec4::select(self.cmplt(other), self, other)
    }
    #[inline(always)]
    fn sign(self) -> Self {
        Vec4::select(self.cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE)
    }
    #[inline(always)]
    fn inv_sqrt_or_zero(self) -> Self {
        Vec4::select(self.cmpgt(Vec4::ZERO), Vec4::ONE / self.sqrt(), Vec4::ZERO)
    }
    #[inline(always)]
    fn positive(self) -> Self {
        Vec4::select(self.cmpgt(Vec4::ZERO), Vec4::ONE, Vec4::ZERO)
    }
}

/// The rotation kernel (see [`slerp_normalized`]) on quaternions given as `[x, y, z, w]`
/// components, each component a [`Lane`]. A zero-length result becomes the identity.
#[inline(always)]
fn slerp_lanes<L: Lane>(a: [L; 4], b: [L; 4], s: L) -> [L; 4] {
    let dot = (a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3]);
    // Shortest arc: b is flipped into a's hemisphere by folding the sign into its weight.
    let sign = dot.sign();
    let d = dot.abs();
    let one = L::splat(1.0);
    // Slightly non-unit keys can give d > 1: treat as coincident (Ω = 0).
    let one_minus_d = (one - d).max(L::splat(0.0));
    let p = acos_sqrt_factor(d.min(one));
    let omega_sq = one_minus_d * p * p;
    let u = one - s;
    let w0 = u * sinc_of_square(u * u * omega_sq);
    let w1 = s * sinc_of_square(s * s * omega_sq) * sign;
    let q = [
        a[0] * w0 + b[0] * w1,
        a[1] * w0 + b[1] * w1,
        a[2] * w0 + b[2] * w1,
        a[3] * w0 + b[3] * w1,
    ];
    let len_sq = (q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]);
    let inv = len_sq.inv_sqrt_or_zero();
    // Identity (0, 0, 0, 1) when the length is zero: w gets 1 - positive = 1.
    [
        q[0] * inv,
        q[1] * inv,
        q[2] * inv,
        q[3] * inv + (one - len_sq.positive()),
    ]
}

/// `P(d)` with `acos d = sqrt(1-d)·P(d)` for `d` in `[0, 1]` (Abramowitz & Stegun 4.4.46;
/// the same polynomial as glam's `acos_approx`). Coefficients as published; rounding them
/// to f32 is intended.
#[allow(clippy::excessive_precision)]
#[inline(always)]
fn acos_sqrt_factor<L: Lane>(d: L) -> L {
    let c = L::splat;
    ((((((c(-0.001_262_491_1) * d + c(0.006_670_090_1)) * d - c(0.017_088_125_6)) * d
        + c(0.030_891_881))
        * d
        - c(0.050_174_304_6))
        * d
        + c(0.088_978_987_4))
        * d
        - c(0.214_598_801_6))
        * d
        + c(1.570_796_305)
}

/// `sin(x) / x` given `z = x²`, for `x` in `[0, π/2]`: Taylor series to the `x¹⁰` term.
#[inline(always)]
fn sinc_of_square<L: Lane>(z: L) -> L {
    let c = L::splat;
    c(1.0)
        + z * (c(-1.0 / 6.0)
            + z * (c(1.0 / 120.0)
                + z * (c(-1.0 / 5_040.0) + z * (c(1.0 / 362_880.0) + z * c(-1.0 / 39_916_800.0)))))
}

/// Where a time falls in a key array: interpolate keys `i0` and `i1` at `s` in `[0, 1)`;
/// `dt` is the key interval (for cubic tangents). Outside the key range both indices are
/// the end key and `s = 0`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Segment {
    i0: u32,
    i1: u32,
    s: f32,
    dt: f32,
}

impl Segment {
    #[inline]
    fn clamped(key: usize) -> Self {
        Segment {
            i0: key as u32,
            i1: key as u32,
            s: 0.0,
            dt: 0.0,
        }
    }

    /// `times[k] <= t < times[k + 1]`.
    #[inline]
    fn interior(times: &[f32], t: f32, k: usize) -> Self {
        let t0 = times[k];
        let dt = times[k + 1] - t0;
        Segment {
            i0: k as u32,
            i1: k as u32 + 1,
            s: (t - t0) / dt,
            dt,
        }
    }

    /// Binary search (no cursor). `times` is non-empty and strictly increasing.
    #[inline]
    fn locate(times: &[f32], t: f32) -> Self {
        let last = times.len() - 1;
        if t <= times[0] {
            return Self::clamped(0);
        }
        if t >= times[last] {
            return Self::clamped(last);
        }
        // First key strictly after t; 1..=last because of the clamps above.
        let k = times.partition_point(|&x| x <= t) - 1;
        Self::interior(times, t, k)
    }

    /// Same result as [`Segment::locate`], searching from `cursor` (the key index found
    /// last time, any value accepted) and updating it: a few linear steps forward, else
    /// a binary search of the keys after (or, when time went backwards, before) it.
    #[inline]
    fn locate_from(times: &[f32], t: f32, cursor: &mut u32) -> Self {
        let last = times.len() - 1;
        if t <= times[0] {
            *cursor = 0;
            return Self::clamped(0);
        }
        if t >= times[last] {
            *cursor = last as u32;
            return Self::clamped(last);
        }
        // Here last >= 1 and times[0] < t < times[last].
        let mut k = (*cursor as usize).min(last - 1);
        if times[k] <= t {
            const LINEAR_STEPS: usize = 3;
            let mut steps = 0;
            while times[k + 1] <= t {
                if steps == LINEAR_STEPS {
                    // times[k + 1] <= t < times[last]: largest j in k+1..last with
                    // times[j] <= t.
                    k += times[k + 1..last].partition_point(|&x| x <= t);
                    break;
                }
                k += 1;
                steps += 1;
            }
        } else {
            // t < times[k], and times[0] < t, so k >= 1 and the search finds >= 1 key.
            k = times[..k].partition_point(|&x| x <= t) - 1;
        }
        *cursor = k as u32;
        Self::interior(times, t, k)
    }

    /// The track value for this segment; `values` holds the keys of one channel (three
    /// entries per key for cubic splines).
    #[inline]
    fn sample<T: TrackValue>(self, interpolation: Interpolation, values: &[T]) -> T {
        let (i0, i1, s) = (self.i0 as usize, self.i1 as usize, self.s);
        match interpolation {
            Interpolation::Step => values[i0].finish(),
            Interpolation::Linear => T::interpolate(values[i0], values[i1], s),
            Interpolation::CubicSpline => {
                let h = hermite_weights(self);
                // out-tangent of i0, in-tangent of i1.
                T::hermite(
                    values[3 * i0 + 1],
                    values[3 * i0 + 2],
                    values[3 * i1 + 1],
                    values[3 * i1],
                    h,
                )
                .finish()
            }
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
        Segment::locate(&self.times, t).sample(self.interpolation, &self.values)
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
///
/// It keeps the per-joint [`Track`]s it was built from (what [`Clip::tracks`] returns) and
/// a flat runtime copy that [`SamplingJob`] reads: all key times and values in a few
/// contiguous arrays, with channels that share their key times (glTF exporters write the
/// same times for every channel of a clip) sharing one timeline, so each distinct
/// timeline is searched once per sample rather than once per channel.
#[derive(Clone, Debug)]
pub struct Clip {
    name: String,
    duration_secs: f32,
    tracks: Vec<JointTracks>,
    markers: Vec<SyncMarker>,
    additive: bool,
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
            && self.additive == other.additive
    }
}

static NEXT_CLIP_UID: AtomicU64 = AtomicU64::new(1);

/// A run of keys in [`Runtime::times`].
#[derive(Clone, Copy, Debug)]
struct Timeline {
    start: u32,
    len: u32,
}

/// Channels of one target (translation, rotation or scale) that share a timeline and an
/// interpolation, sampled together.
///
/// Values are stored key-major: key `k` (entry `e` of 3 for cubic splines) of the
/// group's channel `c` is at `values + (k * per_key + e) * count + c`, so the keys around
/// a time are two contiguous rows and the loop over the group's channels has no
/// per-channel indirection.
#[derive(Clone, Copy, Debug)]
struct Group {
    timeline: u32,
    interpolation: Interpolation,
    /// Offset of the group's channels in [`Runtime::joints`].
    first: u32,
    count: u32,
    /// Offset of the group's first value in its value array.
    values: u32,
}

impl Group {
    /// The `count` values of key `key`, entry `entry` (0 for STEP/LINEAR; 0 in-tangent,
    /// 1 value, 2 out-tangent for CUBICSPLINE).
    #[inline]
    fn row<'v, T>(&self, values: &'v [T], key: u32, entry: u32) -> &'v [T] {
        let per_key = if self.interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let start = self.values as usize + (key * per_key + entry) as usize * self.count as usize;
        &values[start..start + self.count as usize]
    }
}

/// A channel outside any [`Group`] (fewer than [`GROUP_MIN`] channels share its
/// timeline and interpolation); its values are contiguous, as in its [`Track`].
#[derive(Clone, Copy, Debug)]
struct Channel {
    joint: u32,
    timeline: u32,
    /// Offset of the channel's first value in its value array.
    values: u32,
    interpolation: Interpolation,
}

/// Smallest group worth its per-group setup (and a full SIMD batch of rotations).
const GROUP_MIN: usize = 4;

/// The channels of one target (translation, rotation or scale).
#[derive(Clone, Debug, Default)]
struct Target {
    groups: Vec<Group>,
    /// Ungrouped LINEAR channels, batched across timelines.
    linear: Vec<Channel>,
    /// Ungrouped STEP and CUBICSPLINE channels.
    other: Vec<Channel>,
}

/// The flat runtime form of a clip's tracks (see [`Clip`]).
#[derive(Clone, Debug, Default)]
struct Runtime {
    timelines: Vec<Timeline>,
    times: Vec<f32>,
    vec3_values: Vec<Vec3>,
    quat_values: Vec<Quat>,
    /// Joint of each channel, group by group.
    joints: Vec<u32>,
    translations: Target,
    rotations: Target,
    scales: Target,
    /// Joints below `animated_end` that keep at least one rest channel, as ranges
    /// `[start, end)`; joints from `animated_end` on are never animated.
    rest_ranges: Vec<(u32, u32)>,
    animated_end: u32,
}

/// Sorts one target's tracks into groups (values key-major) and loose channels (values
/// as in the track).
fn build_target<'t, T: TrackValue + 't>(
    tracks: impl Iterator<Item = (usize, &'t Track<T>)>,
    timeline_of: &mut impl FnMut(&[f32]) -> u32,
    joints: &mut Vec<u32>,
    values: &mut Vec<T>,
) -> Target {
    // (timeline, interpolation) -> channels (joint, track), in joint order.
    type Channels<'a, T> = Vec<(usize, &'a Track<T>)>;
    let mut keyed: Vec<((u32, Interpolation), Channels<T>)> = Vec::new();
    for (joint, track) in tracks {
        let key = (timeline_of(track.times()), track.interpolation());
        match keyed.iter_mut().find(|(k, _)| *k == key) {
            Some((_, channels)) => channels.push((joint, track)),
            None => keyed.push((key, vec![(joint, track)])),
        }
    }
    let mut target = Target::default();
    for ((timeline, interpolation), channels) in keyed {
        if channels.len() < GROUP_MIN {
            for (joint, track) in channels {
                let channel = Channel {
                    joint: joint as u32,
                    timeline,
                    values: values.len() as u32,
                    interpolation,
                };
                values.extend_from_slice(track.values());
                match interpolation {
                    Interpolation::Linear => target.linear.push(channel),
                    _ => target.other.push(channel),
                }
            }
            continue;
        }
        target.groups.push(Group {
            timeline,
            interpolation,
            first: joints.len() as u32,
            count: channels.len() as u32,
            values: values.len() as u32,
        });
        joints.extend(channels.iter().map(|&(joint, _)| joint as u32));
        // Every channel of the group has the same number of values.
        let rows = channels[0].1.values().len();
        for row in 0..rows {
            values.extend(channels.iter().map(|(_, track)| track.values()[row]));
        }
    }
    // Loose channels in joint order, for output locality.
    target.linear.sort_by_key(|c| c.joint);
    target.other.sort_by_key(|c| c.joint);
    target
}

impl Runtime {
    fn new(tracks: &[JointTracks]) -> Self {
        let mut rt = Runtime::default();
        let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
        let (timelines, times) = (&mut rt.timelines, &mut rt.times);
        let mut timeline_of = |keys: &[f32]| -> u32 {
            let bits: Vec<u32> = keys.iter().map(|t| t.to_bits()).collect();
            *index.entry(bits).or_insert_with(|| {
                timelines.push(Timeline {
                    start: times.len() as u32,
                    len: keys.len() as u32,
                });
                times.extend_from_slice(keys);
                timelines.len() as u32 - 1
            })
        };
        rt.translations = build_target(
            tracks
                .iter()
                .filter_map(|t| Some((t.joint, t.translation.as_ref()?))),
            &mut timeline_of,
            &mut rt.joints,
            &mut rt.vec3_values,
        );
        rt.rotations = build_target(
            tracks
                .iter()
                .filter_map(|t| Some((t.joint, t.rotation.as_ref()?))),
            &mut timeline_of,
            &mut rt.joints,
            &mut rt.quat_values,
        );
        rt.scales = build_target(
            tracks
                .iter()
                .filter_map(|t| Some((t.joint, t.scale.as_ref()?))),
            &mut timeline_of,
            &mut rt.joints,
            &mut rt.vec3_values,
        );
        let mut next_joint = 0usize;
        for tracks in tracks {
            // Joints skipped since the previous animated joint keep their rest pose, and
            // so does this one unless all three channels are animated.
            let rest_end = if tracks.channel_count() == 3 {
                tracks.joint
            } else {
                tracks.joint + 1
            };
            if rest_end > next_joint {
                match rt.rest_ranges.last_mut() {
                    Some(last) if last.1 as usize == next_joint => last.1 = rest_end as u32,
                    _ => rt.rest_ranges.push((next_joint as u32, rest_end as u32)),
                }
            }
            next_joint = tracks.joint + 1;
        }
        rt.animated_end = next_joint as u32;
        rt
    }

    /// Finds every timeline's segment at `t`, by binary search or, with `cursors`, from
    /// the cached key indices.
    #[inline]
    fn locate(&self, t: f32, cursors: Option<&mut [u32]>, segments: &mut [Segment]) {
        match cursors {
            Some(cursors) => {
                for ((tl, seg), cursor) in self.timelines.iter().zip(segments).zip(cursors) {
                    let times = &self.times[tl.start as usize..(tl.start + tl.len) as usize];
                    *seg = Segment::locate_from(times, t, cursor);
                }
            }
            None => {
                for (tl, seg) in self.timelines.iter().zip(segments) {
                    let times = &self.times[tl.start as usize..(tl.start + tl.len) as usize];
                    *seg = Segment::locate(times, t);
                }
            }
        }
    }

    /// Writes the rest pose where the clip leaves channels unanimated, then every
    /// channel. `output` and `rest_pose` have the same length, above every joint index.
    #[inline]
    fn write(&self, segments: &[Segment], rest_pose: &[Transform], output: &mut [Transform]) {
        for &(start, end) in &self.rest_ranges {
            let range = start as usize..end as usize;
            output[range.clone()].copy_from_slice(&rest_pose[range]);
        }
        let tail = self.animated_end as usize;
        output[tail..].copy_from_slice(&rest_pose[tail..]);
        let (vec3, quat) = (&self.vec3_values[..], &self.quat_values[..]);
        for group in &self.translations.groups {
            let joints = &self.joints[group.first as usize..][..group.count as usize];
            let seg = segments[group.timeline as usize];
            sample_vec3_group(group, seg, vec3, joints, |j, v| output[j].translation = v);
        }
        for group in &self.rotations.groups {
            let joints = &self.joints[group.first as usize..][..group.count as usize];
            let seg = segments[group.timeline as usize];
            sample_quat_group(group, seg, quat, joints, output);
        }
        for group in &self.scales.groups {
            let joints = &self.joints[group.first as usize..][..group.count as usize];
            let seg = segments[group.timeline as usize];
            sample_vec3_group(group, seg, vec3, joints, |j, v| output[j].scale = v);
        }
        for ch in &self.translations.linear {
            let seg = segments[ch.timeline as usize];
            let v = &vec3[ch.values as usize..];
            output[ch.joint as usize].translation =
                v[seg.i0 as usize].lerp(v[seg.i1 as usize], seg.s);
        }
        sample_loose_rotations(&self.rotations.linear, segments, quat, output);
        for ch in &self.scales.linear {
            let seg = segments[ch.timeline as usize];
            let v = &vec3[ch.values as usize..];
            output[ch.joint as usize].scale = v[seg.i0 as usize].lerp(v[seg.i1 as usize], seg.s);
        }
        for ch in &self.translations.other {
            let seg = segments[ch.timeline as usize];
            output[ch.joint as usize].translation =
                seg.sample(ch.interpolation, &vec3[ch.values as usize..]);
        }
        for ch in &self.rotations.other {
            let seg = segments[ch.timeline as usize];
            output[ch.joint as usize].rotation =
                seg.sample(ch.interpolation, &quat[ch.values as usize..]);
        }
        for ch in &self.scales.other {
            let seg = segments[ch.timeline as usize];
            output[ch.joint as usize].scale =
                seg.sample(ch.interpolation, &vec3[ch.values as usize..]);
        }
    }
}

/// Runs the slerp kernel on four quaternion pairs at once (lane `i` = pair `i`).
#[inline(always)]
fn slerp_four(a: [Quat; 4], b: [Quat; 4], s: Vec4) -> [Quat; 4] {
    let a = Mat4::from_cols(a[0].into(), a[1].into(), a[2].into(), a[3].into()).transpose();
    let b = Mat4::from_cols(b[0].into(), b[1].into(), b[2].into(), b[3].into()).transpose();
    let q = slerp_lanes(
        [a.x_axis, a.y_axis, a.z_axis, a.w_axis],
        [b.x_axis, b.y_axis, b.z_axis, b.w_axis],
        s,
    );
    let q = Mat4::from_cols(q[0], q[1], q[2], q[3]).transpose();
    [
        Quat::from_vec4(q.x_axis),
        Quat::from_vec4(q.y_axis),
        Quat::from_vec4(q.z_axis),
        Quat::from_vec4(q.w_axis),
    ]
}

/// Ungrouped LINEAR rotations, gathered four at a time across timelines for the SIMD
/// kernel.
#[inline]
fn sample_loose_rotations(
    channels: &[Channel],
    segments: &[Segment],
    values: &[Quat],
    output: &mut [Transform],
) {
    let mut fours = channels.chunks_exact(4);
    for four in &mut fours {
        let mut a = [Quat::IDENTITY; 4];
        let mut b = [Quat::IDENTITY; 4];
        let mut s = [0.0f32; 4];
        for (lane, ch) in four.iter().enumerate() {
            let seg = segments[ch.timeline as usize];
            let v = &values[ch.values as usize..];
            a[lane] = v[seg.i0 as usize];
            b[lane] = v[seg.i1 as usize];
            s[lane] = seg.s;
        }
        let q = slerp_four(a, b, Vec4::from_array(s));
        for (ch, q) in four.iter().zip(q) {
            output[ch.joint as usize].rotation = q;
        }
    }
    for ch in fours.remainder() {
        let seg = segments[ch.timeline as usize];
        let v = &values[ch.values as usize..];
        output[ch.joint as usize].rotation =
            slerp_normalized(v[seg.i0 as usize], v[seg.i1 as usize], seg.s);
    }
}

/// Cubic Hermite basis weights `(h00, h10·dt, h01, h11·dt)` at the segment's `s`.
#[inline]
fn hermite_weights(seg: Segment) -> [f32; 4] {
    let (s, dt) = (seg.s, seg.dt);
    let (s2, s3) = (s * s, s * s * s);
    [
        2.0 * s3 - 3.0 * s2 + 1.0,
        (s3 - 2.0 * s2 + s) * dt,
        -2.0 * s3 + 3.0 * s2,
        (s3 - s2) * dt,
    ]
}

/// Samples a translation or scale group; `store(joint, value)` writes each channel.
#[inline]
fn sample_vec3_group(
    group: &Group,
    seg: Segment,
    values: &[Vec3],
    joints: &[u32],
    mut store: impl FnMut(usize, Vec3),
) {
    match group.interpolation {
        Interpolation::Step => {
            let a = group.row(values, seg.i0, 0);
            for (&j, &a) in joints.iter().zip(a) {
                store(j as usize, a);
            }
        }
        Interpolation::Linear => {
            let a = group.row(values, seg.i0, 0);
            let b = group.row(values, seg.i1, 0);
            for ((&j, &a), &b) in joints.iter().zip(a).zip(b) {
                store(j as usize, a.lerp(b, seg.s));
            }
        }
        Interpolation::CubicSpline => {
            let h = hermite_weights(seg);
            let v0 = group.row(values, seg.i0, 1);
            let m0 = group.row(values, seg.i0, 2);
            let v1 = group.row(values, seg.i1, 1);
            let m1 = group.row(values, seg.i1, 0);
            for (c, &j) in joints.iter().enumerate() {
                store(j as usize, Vec3::hermite(v0[c], m0[c], v1[c], m1[c], h));
            }
        }
    }
}

/// Samples a rotation group into `output`. LINEAR groups run the slerp kernel on four
/// channels at once, one per SIMD lane.
#[inline]
fn sample_quat_group(
    group: &Group,
    seg: Segment,
    values: &[Quat],
    joints: &[u32],
    output: &mut [Transform],
) {
    match group.interpolation {
        Interpolation::Step => {
            let a = group.row(values, seg.i0, 0);
            for (&j, &a) in joints.iter().zip(a) {
                output[j as usize].rotation = a.finish();
            }
        }
        Interpolation::Linear => {
            let a = group.row(values, seg.i0, 0);
            let b = group.row(values, seg.i1, 0);
            let mut a4 = a.chunks_exact(4);
            let mut b4 = b.chunks_exact(4);
            let mut j4 = joints.chunks_exact(4);
            let s = Vec4::splat(seg.s);
            for ((a, b), j) in (&mut a4).zip(&mut b4).zip(&mut j4) {
                let q = slerp_four([a[0], a[1], a[2], a[3]], [b[0], b[1], b[2], b[3]], s);
                for (&j, q) in j.iter().zip(q) {
                    output[j as usize].rotation = q;
                }
            }
            let rest = a4.remainder().iter().zip(b4.remainder());
            for ((&a, &b), &j) in rest.zip(j4.remainder()) {
                output[j as usize].rotation = slerp_normalized(a, b, seg.s);
            }
        }
        Interpolation::CubicSpline => {
            let h = hermite_weights(seg);
            let v0 = group.row(values, seg.i0, 1);
            let m0 = group.row(values, seg.i0, 2);
            let v1 = group.row(values, seg.i1, 1);
            let m1 = group.row(values, seg.i1, 0);
            for (c, &j) in joints.iter().enumerate() {
                output[j as usize].rotation = Quat::hermite(v0[c], m0[c], v1[c], m1[c], h).finish();
            }
        }
    }
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
        let runtime = Runtime::new(&tracks);
        Ok(Self {
            name,
            duration_secs,
            tracks,
            markers,
            additive: false,
            uid: NEXT_CLIP_UID.fetch_add(1, Ordering::Relaxed),
            runtime,
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

/// Samples a clip into a local pose.
///
/// Joints the clip does not animate (and channels it does not animate) take the rest
/// pose. The output must have one entry per skeleton joint.
///
/// [`SamplingJob::run`] binary-searches the keys of every timeline on each call;
/// [`SamplingJob::run_with_cache`] starts from the keys found last time (kept in a
/// caller-owned [`SamplingCache`], like ozz-animation's `SamplingJob::Context`), which
/// is what playback and scrubbing want. Both give bit-identical poses.
pub struct SamplingJob<'a> {
    pub clip: &'a Clip,
    /// Clip time in seconds; clamped to the key range of each track.
    pub time_secs: f32,
    /// Rest pose, one transform per joint, in parent space.
    pub rest_pose: &'a [Transform],
}

/// Per-character sampling state for [`SamplingJob::run_with_cache`]: the key index each
/// timeline of the last sampled clip was at, and scratch space.
///
/// Keep one per sampled clip instance (e.g. per character and blend layer) and reuse it
/// every frame. It resets itself when given a different clip. The cursors are only a
/// starting point: each one is checked against the keys around the new time, a time that
/// moved forward by a few keys is found by stepping, a larger jump forward or any jump
/// backwards by a binary search on the keys after or before the cursor. A stale cache
/// therefore never changes a result, only how long it takes.
#[derive(Clone, Debug, Default)]
pub struct SamplingCache {
    /// [`Clip`] uid the cursors belong to; 0 = none.
    clip_uid: u64,
    /// Key index per timeline of the clip.
    cursors: Vec<u32>,
    /// Scratch: the segment of each timeline at the time being sampled.
    segments: Vec<Segment>,
}

impl SamplingCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the cursors; the next run starts with binary searches.
    pub fn invalidate(&mut self) {
        self.clip_uid = 0;
    }

    /// Ready for `clip`: cursors reset unless they belong to it.
    fn prepare(&mut self, clip: &Clip) {
        let n = clip.runtime.timelines.len();
        if self.clip_uid != clip.uid || self.cursors.len() != n {
            self.clip_uid = clip.uid;
            self.cursors.clear();
            self.cursors.resize(n, 0);
            self.segments.clear();
            self.segments.resize(n, Segment::default());
        }
    }
}

/// Timelines whose segments [`SamplingJob::run`] keeps on the stack.
const STACK_TIMELINES: usize = 32;

impl SamplingJob<'_> {
    /// Writes the local pose into `output` (parent space, one per joint).
    pub fn run(&self, output: &mut [Transform]) -> Result<(), AnimError> {
        self.validate(output)?;
        let rt = &self.clip.runtime;
        let n = rt.timelines.len();
        let mut stack = [Segment::default(); STACK_TIMELINES];
        let mut heap = Vec::new();
        let segments = if n <= STACK_TIMELINES {
            &mut stack[..n]
        } else {
            heap.resize(n, Segment::default());
            &mut heap[..]
        };
        rt.locate(self.time_secs, None, segments);
        rt.write(segments, self.rest_pose, output);
        Ok(())
    }

    /// As [`SamplingJob::run`], searching keys from where `cache` found them last time
    /// (see [`SamplingCache`]); the pose is bit-identical to `run`'s.
    pub fn run_with_cache(
        &self,
        cache: &mut SamplingCache,
        output: &mut [Transform],
    ) -> Result<(), AnimError> {
        self.validate(output)?;
        cache.prepare(self.clip);
        let rt = &self.clip.runtime;
        rt.locate(
            self.time_secs,
            Some(&mut cache.cursors[..]),
            &mut cache.segments,
        );
        rt.write(&cache.segments, self.rest_pose, output);
        Ok(())
    }

    fn validate(&self, output: &[Transform]) -> Result<(), AnimError> {
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
        Ok(())
    }
}
