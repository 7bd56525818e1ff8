//! Root motion that stays correct across loop wraps (SPEC section 2).
//!
//! All maths here is in `f64`: a drift of 1e-9 m must be measurable after millions of
//! cycles, and `f32` key values (0.2 m is not representable) would already be off by 3e-9.
//!
//! ## Model
//! The root-motion joint's horizontal pose at clip time `τ` is a rigid transform on the
//! ground plane `R(τ)` (yaw about +Y and a translation in model X/Z). One cycle moves the
//! character by `D = R(0)⁻¹ · R(T)`. At unwrapped time `t` (cycle `k = floor(t/T)`, phase
//! `u`), the root relative to where the track starts is
//!
//! ```text
//! W(t) = D^k · R(0)⁻¹ · R(u·T)
//! ```
//!
//! and the motion between two times is `Δ(t0, t1) = W(t0)⁻¹ · W(t1)`, expressed in the
//! root's ground frame at `t0`. `D^k` is built by composition (binary powering), so a clip
//! that turns every cycle walks a rotated path, never `k` times one vector. Without yaw
//! this reduces to `F(t) = k·D + p(u) − p(0)`.

use glam::{DMat4, DQuat, DVec2, DVec3, Mat4};

use super::soa::SoaTransform;
use super::{AnimError, Clip, Interpolation, LocalToModelJob, Skeleton, Transform};

/// Largest |cycle| a clock may reach (about 1.1e12 cycles); beyond it `f64` phase
/// arithmetic and cycle composition stop being exact, so such times are rejected.
pub const MAX_ABS_CYCLE: i64 = 1 << 40;

/// A rigid transform on the ground plane: yaw about +Y (radians, counter-clockwise seen
/// from above, unwrapped: it may exceed ±π) then a translation in metres.
/// `translation.x` is model X, `translation.y` is model Z.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundTransform {
    /// Yaw about +Y, radians, unwrapped; applied before the translation.
    pub yaw_rad: f64,
    /// Ground translation in metres: `x` is model X, `y` is model Z.
    pub translation: DVec2,
}

impl Default for GroundTransform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl GroundTransform {
    /// No yaw and no translation.
    pub const IDENTITY: GroundTransform = GroundTransform {
        yaw_rad: 0.0,
        translation: DVec2::ZERO,
    };

    /// A yaw of `yaw_rad` (radians about +Y) followed by `translation` (metres, model
    /// X and Z).
    pub fn new(yaw_rad: f64, translation: DVec2) -> Self {
        Self {
            yaw_rad,
            translation,
        }
    }

    /// Rotates a ground vector (x, z) by `yaw` about +Y, matching
    /// `DQuat::from_rotation_y(yaw) * DVec3::new(x, 0, z)`.
    #[inline]
    pub fn rotate(yaw_rad: f64, v: DVec2) -> DVec2 {
        let (s, c) = yaw_rad.sin_cos();
        DVec2::new(c * v.x + s * v.y, -s * v.x + c * v.y)
    }

    /// `self ∘ other`: apply `other` first, then `self`.
    #[inline]
    pub fn compose(&self, other: &GroundTransform) -> GroundTransform {
        GroundTransform {
            yaw_rad: self.yaw_rad + other.yaw_rad,
            translation: self.translation + Self::rotate(self.yaw_rad, other.translation),
        }
    }

    /// The transform that undoes this one: `self.compose(&self.inverse())` is the
    /// identity (up to rounding).
    pub fn inverse(&self) -> GroundTransform {
        GroundTransform {
            yaw_rad: -self.yaw_rad,
            translation: -Self::rotate(-self.yaw_rad, self.translation),
        }
    }

    /// `self^k` by repeated squaring (negative `k` powers the inverse).
    pub fn pow(&self, k: i64) -> GroundTransform {
        let mut base = if k < 0 { self.inverse() } else { *self };
        let mut e = k.unsigned_abs();
        let mut acc = GroundTransform::IDENTITY;
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.compose(&base);
            }
            e >>= 1;
            if e > 0 {
                base = base.compose(&base);
            }
        }
        acc
    }

    /// Applies the transform to a ground point (x, z).
    pub fn transform_point(&self, p: DVec2) -> DVec2 {
        self.translation + Self::rotate(self.yaw_rad, p)
    }

    /// The same transform as a 3D matrix (rotation about +Y, translation in X/Z).
    pub fn to_dmat4(&self) -> DMat4 {
        DMat4::from_rotation_translation(
            DQuat::from_rotation_y(self.yaw_rad),
            DVec3::new(self.translation.x, 0.0, self.translation.y),
        )
    }

    /// `f32` matrix for rendering.
    pub fn to_mat4(&self) -> Mat4 {
        self.to_dmat4().as_mat4()
    }

    /// True when the yaw and both translation components are finite.
    pub fn is_finite(&self) -> bool {
        self.yaw_rad.is_finite() && self.translation.is_finite()
    }
}

/// A point on an unwrapped looping timeline: whole cycles plus a bounded phase.
///
/// `phase_secs` is in `[0, duration)` for looping clocks (`[0, duration]` when a
/// non-looping clock rests on its end).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipTime {
    /// Whole cycles since time 0 (negative before it); clocks keep it within
    /// [`MAX_ABS_CYCLE`].
    pub cycle: i64,
    /// Seconds into the cycle, in `[0, duration)`; `duration` itself only when a
    /// non-looping clock rests on its end.
    pub phase_secs: f64,
}

impl ClipTime {
    /// Cycle 0, phase 0: the start of the clip.
    pub const ZERO: ClipTime = ClipTime {
        cycle: 0,
        phase_secs: 0.0,
    };

    /// Splits unwrapped seconds `t` into `k = floor(t / T)` and phase `t − k·T` (floor,
    /// not truncation: `t = −0.1`, `T = 1` gives `k = −1`, phase 0.9).
    pub fn from_secs(t: f64, duration_secs: f64) -> Result<ClipTime, AnimError> {
        if !t.is_finite() {
            return Err(AnimError::NonFinite {
                what: "clip time".into(),
            });
        }
        check_duration(duration_secs)?;
        let k = (t / duration_secs).floor();
        if k.abs() > MAX_ABS_CYCLE as f64 {
            return Err(cycle_range_error(t));
        }
        Ok(ClipTime::normalized(
            k as i64,
            t - k * duration_secs,
            duration_secs,
        ))
    }

    /// Brings a phase that rounding pushed just outside `[0, T)` back inside.
    pub(crate) fn normalized(mut cycle: i64, mut phase: f64, duration_secs: f64) -> ClipTime {
        if phase >= duration_secs {
            cycle += 1;
            phase -= duration_secs;
        }
        if phase < 0.0 {
            // Only reachable through rounding of a value a few ulps below 0.
            phase = 0.0;
        }
        ClipTime {
            cycle,
            phase_secs: phase,
        }
    }

    /// Unwrapped seconds `k·T + phase`. Loses phase precision for huge cycle counts;
    /// for display only.
    pub fn to_secs(&self, duration_secs: f64) -> f64 {
        self.cycle as f64 * duration_secs + self.phase_secs
    }
}

pub(crate) fn check_duration(duration_secs: f64) -> Result<(), AnimError> {
    if !(duration_secs.is_finite() && duration_secs > 0.0) {
        return Err(AnimError::OutOfRange {
            what: "clip duration".into(),
            detail: format!("{duration_secs} s; root motion and looping need a duration > 0"),
        });
    }
    Ok(())
}

pub(crate) fn cycle_range_error(t: f64) -> AnimError {
    AnimError::OutOfRange {
        what: "clip time".into(),
        detail: format!("{t} s is beyond the supported range of ±{MAX_ABS_CYCLE} cycles"),
    }
}

/// The root's ground transform over one cycle, piecewise linear between keys.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMotionTrack {
    duration_secs: f64,
    times: Vec<f64>,
    positions: Vec<DVec2>,
    yaws: Vec<f64>,
}

impl RootMotionTrack {
    /// Builds a track from keys `(clip seconds, ground position (x, z) in metres, yaw in
    /// radians, unwrapped)`. Times must be finite, strictly increasing and inside
    /// `[0, duration]`; outside the keys the track holds its end values.
    pub fn new(duration_secs: f64, keys: &[(f64, DVec2, f64)]) -> Result<Self, AnimError> {
        check_duration(duration_secs)?;
        if keys.is_empty() {
            return Err(AnimError::Empty {
                what: "root motion track".into(),
            });
        }
        for (i, (t, p, yaw)) in keys.iter().enumerate() {
            if !(t.is_finite() && p.is_finite() && yaw.is_finite()) {
                return Err(AnimError::NonFinite {
                    what: format!("root motion key {i}"),
                });
            }
            if *t < 0.0 || *t > duration_secs {
                return Err(AnimError::OutOfRange {
                    what: format!("root motion key {i}"),
                    detail: format!("time {t} s is outside [0, {duration_secs}] s"),
                });
            }
            if i > 0 && *t <= keys[i - 1].0 {
                return Err(AnimError::KeysNotIncreasing {
                    what: "root motion track".into(),
                    key: i,
                });
            }
        }
        Ok(Self {
            duration_secs,
            times: keys.iter().map(|k| k.0).collect(),
            positions: keys.iter().map(|k| k.1).collect(),
            yaws: keys.iter().map(|k| k.2).collect(),
        })
    }

    /// Length of one cycle, seconds (> 0).
    pub fn duration_secs(&self) -> f64 {
        self.duration_secs
    }

    /// Key times, clip seconds, strictly increasing within `[0, duration]`.
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// `R(τ)`: the root's ground transform at clip time `τ` (seconds, clamped to keys).
    pub fn sample(&self, tau: f64) -> GroundTransform {
        let last = self.times.len() - 1;
        if tau <= self.times[0] {
            return GroundTransform::new(self.yaws[0], self.positions[0]);
        }
        if tau >= self.times[last] {
            return GroundTransform::new(self.yaws[last], self.positions[last]);
        }
        let next = self.times.partition_point(|&k| k <= tau);
        let prev = next - 1;
        let s = (tau - self.times[prev]) / (self.times[next] - self.times[prev]);
        GroundTransform::new(
            self.yaws[prev] + (self.yaws[next] - self.yaws[prev]) * s,
            self.positions[prev].lerp(self.positions[next], s),
        )
    }
}

/// Wrap-safe root motion of one looping clip.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMotion {
    track: RootMotionTrack,
    start: GroundTransform,
    start_inv: GroundTransform,
    cycle: GroundTransform,
}

impl RootMotion {
    /// Wraps a track, precomputing its start `R(0)` and its cycle displacement `D`.
    pub fn new(track: RootMotionTrack) -> Self {
        let start = track.sample(0.0);
        let start_inv = start.inverse();
        let cycle = start_inv.compose(&track.sample(track.duration_secs));
        Self {
            track,
            start,
            start_inv,
            cycle,
        }
    }

    /// The keys of one cycle (`R(τ)`, model space).
    pub fn track(&self) -> &RootMotionTrack {
        &self.track
    }

    /// Length of one cycle, seconds (the track's duration).
    pub fn duration_secs(&self) -> f64 {
        self.track.duration_secs
    }

    /// `D`: the motion of one whole cycle, in the root's frame at the cycle start.
    pub fn cycle_displacement(&self) -> GroundTransform {
        self.cycle
    }

    /// `R(0)`: where the track starts, in model space.
    pub fn start(&self) -> GroundTransform {
        self.start
    }

    /// `R(τ)` in model space.
    pub fn sample(&self, tau_secs: f64) -> GroundTransform {
        self.track.sample(tau_secs)
    }

    /// `W(t) = D^k · R(0)⁻¹ · R(u)`: the root relative to the track origin.
    pub fn transform_at(&self, time: ClipTime) -> GroundTransform {
        self.cycle
            .pow(time.cycle)
            .compose(&self.start_inv.compose(&self.track.sample(time.phase_secs)))
    }

    /// `Δ(from, to) = W(from)⁻¹ · W(to)`, in the root's ground frame at `from`. Works for
    /// any order (reverse playback gives the inverse motion) and any number of wraps.
    pub fn delta(&self, from: ClipTime, to: ClipTime) -> GroundTransform {
        // W(a)⁻¹ W(b) = R(ua)⁻¹ R0 D^(kb-ka) R0⁻¹ R(ub): only the cycle difference
        // matters, so absolute cycle counts never lose precision.
        let cycles = to.cycle.saturating_sub(from.cycle);
        let a = self
            .track
            .sample(from.phase_secs)
            .inverse()
            .compose(&self.start);
        let b = self.start_inv.compose(&self.track.sample(to.phase_secs));
        a.compose(&self.cycle.pow(cycles)).compose(&b)
    }

    /// [`Self::delta`] for unwrapped seconds; rejects non-finite or out-of-range times.
    pub fn delta_secs(&self, t0: f64, t1: f64) -> Result<GroundTransform, AnimError> {
        let d = self.track.duration_secs;
        Ok(self.delta(ClipTime::from_secs(t0, d)?, ClipTime::from_secs(t1, d)?))
    }

    /// `W(t)` for unwrapped seconds (`F(t)` when the clip does not turn).
    pub fn transform_at_secs(&self, t: f64) -> Result<GroundTransform, AnimError> {
        Ok(self.transform_at(ClipTime::from_secs(t, self.track.duration_secs)?))
    }
}

/// Where root motion comes from in a skeleton: one joint, measured in model space.
///
/// The joint's parents are taken at their rest pose (root-motion joints are top-level
/// joints such as a hips/root bone under static correction nodes like `Z_UP`).
#[derive(Clone, Debug, PartialEq)]
pub struct RootMotionSource {
    /// The root-motion joint (index into the skeleton's joints).
    pub joint: usize,
    /// `model_from_parent` of the joint at rest (identity for a root joint).
    model_from_parent: DMat4,
    parent_from_model: DMat4,
}

/// Samples between keys used to linearise non-linear (STEP, CUBICSPLINE) root tracks.
const SUBSAMPLES_PER_KEY: usize = 8;

impl RootMotionSource {
    /// Picks the root-motion joint of `clip`: the shallowest joint (fewest ancestors) that
    /// has a translation track; among equally shallow ones, the one whose horizontal
    /// model-space travel between first and last key is largest (first in joint order on
    /// a tie). Returns `None` when no joint's translation is animated.
    ///
    /// When the skeleton has legs ([`detect_legs`](super::contacts::detect_legs)), only
    /// joints that carry every leg (ancestors of all thighs: the hips and above) are
    /// candidates, so that an IK foot target or a pole target parented to the armature,
    /// shallower than the hips, is never taken for the root; without such a candidate
    /// the rule above applies to every translated joint.
    pub fn detect(skeleton: &Skeleton, clip: &Clip) -> Option<usize> {
        let thighs: Vec<usize> = super::contacts::detect_legs(skeleton)
            .map(|legs| legs.iter().map(|l| l.thigh).collect())
            .unwrap_or_default();
        let carries_legs = |j: usize| thighs.iter().all(|&t| skeleton.is_ancestor_or_self(j, t));
        let any_carrier = clip.tracks().iter().any(|t| {
            t.translation.is_some() && t.joint < skeleton.joint_count() && carries_legs(t.joint)
        });
        let mut best: Option<(usize, f64, usize)> = None; // (depth, -travel, joint)
        for tracks in clip.tracks() {
            let Some(translation) = &tracks.translation else {
                continue;
            };
            if tracks.joint >= skeleton.joint_count()
                || (any_carrier && !carries_legs(tracks.joint))
            {
                continue;
            }
            let depth = skeleton.depth(tracks.joint);
            let first = translation.key_value(0);
            let last = translation.key_value(translation.times().len() - 1);
            let source = RootMotionSource::new(skeleton, tracks.joint).ok()?;
            let to_model = |p: glam::Vec3| source.model_from_parent.transform_point3(p.as_dvec3());
            let travel = (to_model(last) - to_model(first)).with_y(0.0).length();
            let better = match best {
                None => true,
                Some((d, t, _)) => depth < d || (depth == d && travel > t),
            };
            if better {
                best = Some((depth, travel, tracks.joint));
            }
        }
        best.map(|b| b.2)
    }

    /// Root motion of `joint`; fails if the joint is out of range.
    pub fn new(skeleton: &Skeleton, joint: usize) -> Result<Self, AnimError> {
        if joint >= skeleton.joint_count() {
            return Err(AnimError::JointOutOfRange {
                what: "root motion joint".into(),
                joint,
                joint_count: skeleton.joint_count(),
            });
        }
        let mut model = vec![Mat4::IDENTITY; skeleton.joint_count()];
        LocalToModelJob {
            parents: skeleton.parents(),
            local: skeleton.rest_pose(),
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut model)?;
        let model_from_parent = match skeleton.parents()[joint] {
            Some(p) => model[p].as_dmat4(),
            None => DMat4::IDENTITY,
        };
        Ok(Self {
            joint,
            model_from_parent,
            parent_from_model: model_from_parent.inverse(),
        })
    }

    /// The joint's model-space matrix for a local transform.
    fn model_from_joint(&self, local: &Transform) -> DMat4 {
        self.model_from_parent * local.to_mat4().as_dmat4()
    }

    /// Extracts the clip's root motion: the joint's horizontal model-space position and
    /// its yaw relative to clip time 0, sampled at every key (and between keys for
    /// non-linear tracks), with yaw unwrapped so it stays continuous.
    pub fn extract(&self, clip: &Clip, rest: &Transform) -> Result<RootMotion, AnimError> {
        let duration = clip.duration_secs() as f64;
        check_duration(duration)?;
        let tracks = clip.joint_tracks(self.joint);
        let mut times: Vec<f64> = vec![0.0, duration];
        let mut nonlinear = false;
        if let Some(tracks) = tracks {
            let mut add = |keys: &[f32], interp: Interpolation| {
                times.extend(keys.iter().map(|&t| t as f64));
                if interp != Interpolation::Linear {
                    nonlinear = true;
                }
            };
            if let Some(t) = &tracks.translation {
                add(t.times(), t.interpolation());
            }
            if let Some(t) = &tracks.rotation {
                add(t.times(), t.interpolation());
            }
        }
        times.sort_by(f64::total_cmp);
        times.dedup();
        if nonlinear {
            let mut dense = Vec::with_capacity(times.len() * SUBSAMPLES_PER_KEY);
            for w in times.windows(2) {
                for i in 0..SUBSAMPLES_PER_KEY {
                    dense.push(w[0] + (w[1] - w[0]) * i as f64 / SUBSAMPLES_PER_KEY as f64);
                }
            }
            dense.push(duration);
            times = dense;
        }
        let local_at = |tau: f64| -> Transform {
            let mut local = *rest;
            if let Some(tracks) = tracks {
                let t = tau as f32;
                if let Some(k) = &tracks.translation {
                    local.translation = k.sample(t);
                }
                if let Some(k) = &tracks.rotation {
                    local.rotation = k.sample(t);
                }
            }
            local
        };
        let rotation_of = |m: &DMat4| DQuat::from_mat4(&orthonormalize(m));
        let q0 = rotation_of(&self.model_from_joint(&local_at(0.0)));
        let mut keys = Vec::with_capacity(times.len());
        let mut prev_yaw: Option<f64> = None;
        for &tau in &times {
            let m = self.model_from_joint(&local_at(tau));
            let raw = yaw_of(rotation_of(&m) * q0.inverse()).unwrap_or(prev_yaw.unwrap_or(0.0));
            let yaw = match prev_yaw {
                None => raw,
                Some(prev) => prev + wrap_pi(raw - prev),
            };
            prev_yaw = Some(yaw);
            let p = m.w_axis;
            keys.push((tau, DVec2::new(p.x, p.z), yaw));
        }
        Ok(RootMotion::new(RootMotionTrack::new(duration, &keys)?))
    }

    /// Removes root motion from a sampled local pose in place: the joint keeps its
    /// height, tilt and in-cycle animation, but its ground position and yaw are put back
    /// to where the track starts (`R(0)`), so the character animates on the spot.
    /// `phase_secs` is the clip time the pose was sampled at.
    pub fn remove(
        &self,
        motion: &RootMotion,
        phase_secs: f64,
        pose: &mut [Transform],
    ) -> Result<(), AnimError> {
        self.place(&removal(motion, phase_secs), pose)
    }

    /// Moves the joint of a sampled local pose over the ground by `correction` (a model
    /// space ground transform applied before the joint's model matrix): what
    /// [`Self::remove`] does with `R(0) R(t)^-1`, and what the loop-seam check does to the
    /// end of a cycle.
    pub fn place(
        &self,
        correction: &GroundTransform,
        pose: &mut [Transform],
    ) -> Result<(), AnimError> {
        let Some(local) = pose.get_mut(self.joint) else {
            return Err(AnimError::JointOutOfRange {
                what: "root motion joint".into(),
                joint: self.joint,
                joint_count: pose.len(),
            });
        };
        *local = self.placed(correction, local);
        Ok(())
    }

    /// [`Self::remove`] on a pose in blocks of four joints (the joint is lane
    /// `joint % 4` of block `joint / 4`); the same bits as on the per-joint pose.
    pub fn remove_soa(
        &self,
        motion: &RootMotion,
        phase_secs: f64,
        pose: &mut [SoaTransform],
    ) -> Result<(), AnimError> {
        self.place_soa(&removal(motion, phase_secs), pose)
    }

    /// [`Self::place`] on a pose in blocks of four joints.
    pub fn place_soa(
        &self,
        correction: &GroundTransform,
        pose: &mut [SoaTransform],
    ) -> Result<(), AnimError> {
        let (b, lane) = (self.joint / 4, self.joint % 4);
        let Some(block) = pose.get_mut(b) else {
            return Err(AnimError::JointOutOfRange {
                what: "root motion joint".into(),
                joint: self.joint,
                joint_count: 4 * pose.len(),
            });
        };
        let local = self.placed(correction, &block.lane(lane));
        block.set_lane(lane, &local);
        Ok(())
    }

    /// The joint's local transform moved over the ground by `correction` (see
    /// [`Self::place`]).
    fn placed(&self, correction: &GroundTransform, local: &Transform) -> Transform {
        let model = correction.to_dmat4() * self.model_from_joint(local);
        let new_local = (self.parent_from_model * model).as_mat4();
        Transform::from_mat4(&new_local)
    }
}

/// The ground correction that puts a pose sampled at `phase_secs` back where the track
/// starts: `R(0) R(t)^-1`.
fn removal(motion: &RootMotion, phase_secs: f64) -> GroundTransform {
    motion.start().compose(&motion.sample(phase_secs).inverse())
}

/// Removes scale from the rotation part so a quaternion can be read from it.
fn orthonormalize(m: &DMat4) -> DMat4 {
    let x = m.x_axis.truncate().normalize_or_zero();
    let y = m.y_axis.truncate().normalize_or_zero();
    let z = m.z_axis.truncate().normalize_or_zero();
    DMat4::from_cols(
        x.extend(0.0),
        y.extend(0.0),
        z.extend(0.0),
        DVec3::ZERO.extend(1.0),
    )
}

/// Angle of the twist of `q` about +Y (swing-twist decomposition); `None` when the twist
/// is undefined (a half-turn swing).
fn yaw_of(q: DQuat) -> Option<f64> {
    if q.y.abs() < 1e-12 && q.w.abs() < 1e-12 {
        None
    } else {
        Some(2.0 * q.y.atan2(q.w))
    }
}

/// Wraps an angle into `(-π, π]`.
fn wrap_pi(a: f64) -> f64 {
    let two_pi = std::f64::consts::TAU;
    let mut r = a.rem_euclid(two_pi);
    if r > std::f64::consts::PI {
        r -= two_pi;
    }
    r
}

/// A clip's root motion together with the joint it was extracted from.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipRootMotion {
    /// The joint the motion was extracted from, and how to remove it from a pose.
    pub source: RootMotionSource,
    /// The extracted root motion (model space ground transforms over the clip).
    pub motion: RootMotion,
}

impl ClipRootMotion {
    /// Root motion of `clip` from `joint`, or from the auto-detected joint (see
    /// [`RootMotionSource::detect`]) when `joint` is `None`. `Ok(None)` when there is no
    /// root motion to extract: no joint translates, or the clip has zero length.
    pub fn for_clip(
        skeleton: &Skeleton,
        clip: &Clip,
        joint: Option<usize>,
    ) -> Result<Option<Self>, AnimError> {
        let Some(joint) = joint.or_else(|| RootMotionSource::detect(skeleton, clip)) else {
            return Ok(None);
        };
        if clip.duration_secs() <= 0.0 {
            return Ok(None);
        }
        let source = RootMotionSource::new(skeleton, joint)?;
        let motion = source.extract(clip, &skeleton.rest_pose()[joint])?;
        Ok(Some(Self { source, motion }))
    }
}
