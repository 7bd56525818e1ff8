//! One keyframe track: interpolation modes, the value types a track holds, and finding
//! and interpolating the keys around a time ([`Segment`]).

use glam::{Quat, Vec3};

use super::slerp::{prepare, slerp, slerp_prepared};
use crate::AnimError;

/// glTF sampler interpolation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the previous key's value until the next key.
    Step,
    /// Lerp for translation/scale, shortest-arc slerp for rotation, evaluated with
    /// polynomials from key pairs prepared in f64 (see `src/anim/clip/slerp.rs`); the
    /// result stays within 1e-6 rad of exact slerp
    /// (`tests/sampling.rs` sweeps key angles up to 360°).
    Linear,
    /// Cubic Hermite with in/out tangents scaled by the key interval; rotations are
    /// normalised after interpolation.
    CubicSpline,
}

impl Interpolation {
    /// The glTF name (`"STEP"`, `"LINEAR"`, `"CUBICSPLINE"`).
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
    /// Every component is finite (no NaN, no infinity).
    fn is_finite_value(&self) -> bool;
    /// Linear interpolation; for rotations, shortest-arc slerp, normalised (the result is
    /// final: [`TrackValue::finish`] is not applied to it).
    fn interpolate(a: Self, b: Self, s: f32) -> Self;
    /// What [`TrackValue::interpolate_prepared`] needs of a key pair for any `s`: the two
    /// keys for a lerp, the slerp data for a rotation (see `src/anim/clip/slerp.rs`).
    type Prepared: Copy + std::fmt::Debug;
    /// The data of the key pair of a LINEAR channel's segment (`values` one per key, `i1`
    /// is `i0 + 1` inside the keys and `i0` where the time is clamped to an end key).
    fn prepare_keys(values: &[Self], i0: usize, i1: usize) -> Self::Prepared;
    /// The segment's value at `s` in `[0, 1]` from its prepared key pair.
    fn interpolate_prepared(pair: &Self::Prepared, s: f32) -> Self;
    /// Cubic Hermite with basis weights (h00, h10, h01, h11) applied componentwise.
    fn hermite(v0: Self, m0: Self, v1: Self, m1: Self, h: [f32; 4]) -> Self;
    /// Post-processing after interpolation (normalises rotations).
    fn finish(self) -> Self;
    /// Bit-for-bit equality (so -0.0 and 0.0 differ, and a NaN equals itself).
    fn same_bits(&self, other: &Self) -> bool;
    /// Every component is +0.0 or -0.0 (a flat cubic tangent).
    fn is_zero(&self) -> bool;
}

impl TrackValue for Vec3 {
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    #[inline]
    fn interpolate(a: Self, b: Self, s: f32) -> Self {
        a.lerp(b, s)
    }
    type Prepared = (Vec3, Vec3);
    #[inline]
    fn prepare_keys(values: &[Self], i0: usize, i1: usize) -> Self::Prepared {
        (values[i0], values[i1])
    }
    #[inline]
    fn interpolate_prepared(&(a, b): &Self::Prepared, s: f32) -> Self {
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
    fn same_bits(&self, other: &Self) -> bool {
        self.to_array().map(f32::to_bits) == other.to_array().map(f32::to_bits)
    }
    fn is_zero(&self) -> bool {
        self.to_array().iter().all(|&c| c == 0.0)
    }
}

impl TrackValue for Quat {
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    /// Shortest-arc slerp, normalised (see [`Interpolation::Linear`] for its accuracy).
    #[inline]
    fn interpolate(a: Self, b: Self, s: f32) -> Self {
        slerp(a, b, s)
    }
    /// `(a, c, Ω)` in f32, as `src/anim/clip/slerp.rs` describes.
    type Prepared = ([f32; 4], [f32; 4], f32);
    /// Before the first key (`i0 = i1 = 0`, interpolated at `s = 0`) prepares the pair
    /// (key 0, key 1), the pair the clip's SoA form stores for key 0, so both give the
    /// same bits there too (`a + c · 0` keeps the sign of a zero in `a` as that pair's `c` decides).
    /// `values` may run past the channel's keys (the SoA form's loose lanes), so only
    /// that case looks past `i1`.
    #[inline]
    fn prepare_keys(values: &[Self], i0: usize, i1: usize) -> Self::Prepared {
        let b = if i0 == 0 && i1 == 0 {
            1.min(values.len() - 1)
        } else {
            i1
        };
        prepare(values[i0], values[b])
    }
    #[inline]
    fn interpolate_prepared(&(a, c, omega): &Self::Prepared, s: f32) -> Self {
        Quat::from_array(slerp_prepared(a, c, omega, s))
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
    fn same_bits(&self, other: &Self) -> bool {
        self.to_array().map(f32::to_bits) == other.to_array().map(f32::to_bits)
    }
    fn is_zero(&self) -> bool {
        self.to_array().iter().all(|&c| c == 0.0)
    }
}

/// The value of a LINEAR channel's segment (indices as for [`TrackValue::prepare_keys`],
/// `s = 0` where the time is clamped): [`Track::sample`] and [`TrackSampler`] both take
/// it from the prepared pair, so they give the same bits, the sampler from a kept pair.
#[inline]
fn interpolate_keys<T: TrackValue>(values: &[T], i0: usize, i1: usize, s: f32) -> T {
    T::interpolate_prepared(&T::prepare_keys(values, i0, i1), s)
}

/// Where a time falls in a key array: interpolate keys `i0` and `i1` at `s` in `[0, 1)`;
/// `dt` is the key interval (for cubic tangents). Outside the key range both indices are
/// the end key and `s = 0`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Segment {
    pub(super) i0: u32,
    pub(super) i1: u32,
    pub(super) s: f32,
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
    pub(super) fn locate(times: &[f32], t: f32) -> Self {
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
    pub(super) fn locate_from(times: &[f32], t: f32, cursor: &mut u32) -> Self {
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
    pub(super) fn sample<T: TrackValue>(self, interpolation: Interpolation, values: &[T]) -> T {
        let (i0, i1, s) = (self.i0 as usize, self.i1 as usize, self.s);
        match interpolation {
            Interpolation::Step => values[i0].finish(),
            Interpolation::Linear => interpolate_keys(values, i0, i1, s),
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

/// Cubic Hermite basis weights `(h00, h10·dt, h01, h11·dt)` at the segment's `s`.
#[inline]
pub(super) fn hermite_weights(seg: Segment) -> [f32; 4] {
    let (s, dt) = (seg.s, seg.dt);
    let (s2, s3) = (s * s, s * s * s);
    [
        2.0 * s3 - 3.0 * s2 + 1.0,
        (s3 - 2.0 * s2 + s) * dt,
        -2.0 * s3 + 3.0 * s2,
        (s3 - s2) * dt,
    ]
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
    /// The track's value at every time when it never changes (see [`Track::constant`]).
    constant: Option<T>,
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
        check_key_times(&times, what)?;
        if let Some(i) = values.iter().position(|v| !v.is_finite_value()) {
            return Err(AnimError::NonFinite {
                what: format!("{what}: value {i}"),
            });
        }
        let constant = constant_value(interpolation, &values);
        Ok(Self {
            interpolation,
            times,
            values,
            constant,
        })
    }

    /// `Some(value)` when the track holds one value at every time: one key, or every key
    /// the same bits (for cubic splines also every tangent zero). Sampling such a track is
    /// a copy of that value ([`TrackValue::finish`]ed, so rotations are unit length), with
    /// no key search; key reduction ([`crate::reduce`]) produces such tracks.
    pub fn constant(&self) -> Option<T> {
        self.constant
    }

    /// How values between keys are computed.
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
        if let Some(c) = self.constant {
            return c;
        }
        Segment::locate(&self.times, t).sample(self.interpolation, &self.values)
    }

    /// A sampler for many samples of this track at nearby times (see [`TrackSampler`]).
    pub fn sampler(&self) -> TrackSampler<'_, T> {
        TrackSampler {
            track: self,
            cursor: 0,
            pair: None,
        }
    }
}

/// Samples one track as [`Track::sample`] does (the same bits), for a caller that samples
/// it many times at nearby times, such as a velocity measured on both sides of every key.
/// It keeps the key interval found last (searched from there, as the sampling cache does)
/// and, for LINEAR tracks, the prepared data of the last key pair: consecutive samples
/// between the same two keys normalise a rotation's pair and find its angle once instead
/// of once per sample (a sample in another interval prepares that one in its place).
#[derive(Clone, Debug)]
pub struct TrackSampler<'a, T: TrackValue> {
    track: &'a Track<T>,
    /// Key index of the interval found last (see `Segment::locate_from`).
    cursor: u32,
    /// The segment's key indices `(i0, i1)` and their prepared data, for the last LINEAR
    /// sample.
    pair: Option<((u32, u32), T::Prepared)>,
}

impl<T: TrackValue> TrackSampler<'_, T> {
    /// The track's value at clip time `t` (seconds, finite), as [`Track::sample`]: clamped
    /// to the end keys outside the key range.
    pub fn sample(&mut self, t: f32) -> T {
        let track = self.track;
        if let Some(c) = track.constant {
            return c;
        }
        let seg = Segment::locate_from(&track.times, t, &mut self.cursor);
        if track.interpolation != Interpolation::Linear {
            return seg.sample(track.interpolation, &track.values);
        }
        let at = (seg.i0, seg.i1);
        let prepared = match &self.pair {
            Some((pair, prepared)) if *pair == at => prepared,
            _ => {
                let prepared = T::prepare_keys(&track.values, at.0 as usize, at.1 as usize);
                &self.pair.insert((at, prepared)).1
            }
        };
        T::interpolate_prepared(prepared, seg.s)
    }
}

/// See [`Track::constant`].
fn constant_value<T: TrackValue>(interpolation: Interpolation, values: &[T]) -> Option<T> {
    let value = match interpolation {
        Interpolation::CubicSpline => {
            let first = values.get(1)?;
            let flat = values.len() == 3
                || values
                    .chunks_exact(3)
                    .all(|k| k[0].is_zero() && k[2].is_zero() && k[1].same_bits(first));
            flat.then_some(*first)?
        }
        _ => {
            let first = values.first()?;
            values
                .iter()
                .all(|v| v.same_bits(first))
                .then_some(*first)?
        }
    };
    Some(value.finish())
}

/// Key times are finite, start at or after 0 and strictly increase; `what` names the
/// track in the error.
pub(super) fn check_key_times(times: &[f32], what: &str) -> Result<(), AnimError> {
    if let Some(i) = times.iter().position(|t| !t.is_finite()) {
        return Err(AnimError::NonFinite {
            what: format!("{what}: key {i} time"),
        });
    }
    if let Some(&first) = times.first() {
        if first < 0.0 {
            return Err(AnimError::OutOfRange {
                what: what.into(),
                detail: format!("key 0 time {first} is negative"),
            });
        }
    }
    if let Some(i) = times.windows(2).position(|w| w[1] <= w[0]) {
        return Err(AnimError::KeysNotIncreasing {
            what: what.into(),
            key: i + 1,
        });
    }
    Ok(())
}
