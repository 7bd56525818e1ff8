//! Optional, tolerance-bounded key reduction: channels that never move a joint (or any
//! point near it) by more than a tolerance become constant, so sampling copies them
//! instead of searching and interpolating keys.
//!
//! Exported clips are full of such channels: every joint of the Robot carries translation,
//! rotation and scale keys, but in `Robot_Running` only 17 of its 129 channels move
//! anything by more than 1 mm; the rest hold one value up to float noise (scales of
//! 0.99999994 against 1.0000001). ozz-animation's `AnimationOptimizer` removes such keys
//! (and more) with the same kind of hierarchical tolerance: 1 mm, measured 10 cm from the
//! joint by default. We only collapse whole channels: animated channels keep every key,
//! so their motion stays exact, and the clip keeps its shared timelines.
//!
//! **Error model** (model-space metres, in the rest pose):
//! - the *radius* of joint `j` is the farthest rest-pose distance from `j` to a joint
//!   below it (itself included), plus `distance_m`: skin reaches past the last joint, and
//!   the report measures points `distance_m` from every joint;
//! - a translation channel moves `j` and everything below it by `|Δt|` times the model
//!   scale of `j`'s parent;
//! - a rotation channel moves points within the radius by at most the chord
//!   `2·sin(θ/2)·radius`, `θ` the angle between key and value;
//! - a scale channel by `max|Δs| / min|c| · radius`.
//!
//! An additive clip keeps its first key as each constant (its reference frame), so what
//! the layer adds moves by at most the same bound.
//!
//! Errors of joints on one chain add up at its end, so a channel is made constant only if
//! the summed error of every constant channel above any joint of its subtree (itself
//! included) stays within the tolerance. Channels are taken smallest error first. Each
//! channel's error is evaluated at its keys and half-way between them (cubic splines can
//! overshoot between keys).
//!
//! The report measures the real result: both clips sampled at every key time and half-way
//! between (and at 60 Hz where keys are sparser), then the largest model-space distance
//! between original and reduced over every joint and the points `distance_m` along each
//! joint's axes. The window shows it in the status bar and under Clips > Import warnings;
//! `inspect --reduce-keys MM` prints it.

use glam::{Mat4, Quat, Vec3};

use super::clip::TrackValue;
use super::Interpolation;
use super::{AnimError, Clip, JointTracks, LocalToModelJob, Skeleton, Track, Transform};
use crate::model_pose::ModelPoseJob;

/// ozz-animation's default tolerance: 1 mm.
pub const DEFAULT_TOLERANCE_M: f32 = 1e-3;
/// ozz-animation's default measuring distance: 10 cm from the joint.
pub const DEFAULT_DISTANCE_M: f32 = 0.1;

/// Reduces one clip. See the module docs for the error model.
#[derive(Clone, Copy, Debug)]
pub struct KeyReductionJob<'a> {
    /// The clip to reduce (left unchanged; the reduced copy is the job's output).
    pub clip: &'a Clip,
    /// The clip's skeleton (its rest pose gives the radii and model scales).
    pub skeleton: &'a Skeleton,
    /// Largest allowed model-space displacement, metres; finite and `> 0`.
    pub tolerance_m: f32,
    /// How far past each joint skin is assumed to reach (errors are measured there too),
    /// metres; finite and `>= 0`.
    pub distance_m: f32,
}

/// What a reduction did, and the error it measured.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ReductionReport {
    /// Name of the reduced clip.
    pub clip: String,
    /// The tolerance the reduction ran with, metres (model space).
    pub tolerance_m: f32,
    /// Channels of the clip (translation, rotation and scale tracks).
    pub channels: usize,
    /// Channels that were not constant before / after.
    pub animated_before: usize,
    /// Channels that are not constant after the reduction.
    pub animated_after: usize,
    /// Keys over the animated channels before / after (a constant channel needs none).
    pub keys_before: usize,
    /// Keys over the animated channels after the reduction.
    pub keys_after: usize,
    /// The error model's bound over every joint (at most `tolerance_m`), metres.
    pub bound_m: f32,
    /// The largest displacement measured between the original and the reduced clip,
    /// metres, at `worst_joint` (its name) and `worst_time_secs`.
    pub measured_max_m: f32,
    /// Name of the joint where the largest displacement was measured; `None` when no
    /// displacement above 0 was found.
    pub worst_joint: Option<String>,
    /// Clip seconds at which the largest displacement was measured (0 when none was).
    pub worst_time_secs: f32,
}

impl ReductionReport {
    /// One line for the status bar and warnings.
    pub fn summary(&self) -> String {
        format!(
            "'{}': {} of {} channels animated after key reduction (was {}), keys {} -> {}, \
             measured error {:.3} mm (tolerance {:.3} mm)",
            self.clip,
            self.animated_after,
            self.channels,
            self.animated_before,
            self.keys_before,
            self.keys_after,
            self.measured_max_m * 1e3,
            self.tolerance_m * 1e3
        )
    }
}

/// One channel that might become constant.
struct Candidate {
    joint: usize,
    target: Target,
    error_m: f32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    Translation(Vec3),
    Rotation(Quat),
    Scale(Vec3),
}

impl KeyReductionJob<'_> {
    /// The reduced clip (same name, markers, duration and additive flag) and its report.
    pub fn run(&self) -> Result<(Clip, ReductionReport), AnimError> {
        if !(self.tolerance_m.is_finite() && self.tolerance_m > 0.0) {
            return Err(AnimError::OutOfRange {
                what: "key reduction tolerance".into(),
                detail: format!("{} m must be finite and > 0", self.tolerance_m),
            });
        }
        if !(self.distance_m.is_finite() && self.distance_m >= 0.0) {
            return Err(AnimError::OutOfRange {
                what: "key reduction distance".into(),
                detail: format!("{} m must be finite and >= 0", self.distance_m),
            });
        }
        let n = self.skeleton.joint_count();
        let parents = self.skeleton.parents();
        let mut rest_model = vec![Mat4::IDENTITY; n];
        LocalToModelJob {
            parents,
            local: self.skeleton.rest_pose(),
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut rest_model)?;
        let children = children_of(parents);
        let radius = radii(&rest_model, &children, parents, self.distance_m);
        let parent_scale = |j: usize| parents[j].map_or(1.0, |p| max_axis_scale(&rest_model[p]));

        // An additive clip is measured against its own first frame (its reference), so a
        // constant channel keeps that frame's value: its difference to the reference, the
        // part that is applied, then moves by at most the measured error.
        let additive = self.clip.is_additive();
        let mut candidates = Vec::new();
        let (mut channels, mut animated_before, mut keys_before) = (0, 0, 0);
        for tracks in self.clip.tracks() {
            let j = tracks.joint;
            if let Some(t) = &tracks.translation {
                channels += 1;
                if t.constant().is_none() {
                    animated_before += 1;
                    keys_before += t.times().len();
                    let c = if additive {
                        t.key_value(0)
                    } else {
                        vec3_center(t)
                    };
                    let e = max_over_samples(t, |v| (v - c).length()) * parent_scale(j);
                    candidates.push(Candidate {
                        joint: j,
                        target: Target::Translation(c),
                        error_m: e,
                    });
                }
            }
            if let Some(r) = &tracks.rotation {
                channels += 1;
                if r.constant().is_none() {
                    animated_before += 1;
                    keys_before += r.times().len();
                    let c = if additive {
                        r.key_value(0).normalize()
                    } else {
                        quat_mean(r)
                    };
                    let chord = max_over_samples(r, |q| rotation_chord(q, c));
                    candidates.push(Candidate {
                        joint: j,
                        target: Target::Rotation(c),
                        error_m: chord * radius[j],
                    });
                }
            }
            if let Some(s) = &tracks.scale {
                channels += 1;
                if s.constant().is_none() {
                    animated_before += 1;
                    keys_before += s.times().len();
                    let c = if additive {
                        s.key_value(0)
                    } else {
                        vec3_center(s)
                    };
                    let min_c = c.abs().min_element();
                    let e = if min_c > 1e-6 {
                        max_over_samples(s, |v| (v - c).abs().max_element()) / min_c * radius[j]
                    } else {
                        f32::INFINITY
                    };
                    candidates.push(Candidate {
                        joint: j,
                        target: Target::Scale(c),
                        error_m: e,
                    });
                }
            }
        }

        // Smallest error first; ties by joint for a deterministic result.
        candidates.sort_by(|a, b| a.error_m.total_cmp(&b.error_m).then(a.joint.cmp(&b.joint)));
        let mut path = vec![0.0f32; n];
        let mut accepted: Vec<&Candidate> = Vec::new();
        let mut subtree = Vec::new();
        for c in &candidates {
            if !c.error_m.is_finite() {
                continue;
            }
            subtree.clear();
            collect_subtree(c.joint, &children, &mut subtree);
            let worst = subtree.iter().map(|&d| path[d]).fold(0.0f32, f32::max);
            if worst + c.error_m <= self.tolerance_m {
                for &d in &subtree {
                    path[d] += c.error_m;
                }
                accepted.push(c);
            }
        }
        let bound_m = path.iter().copied().fold(0.0f32, f32::max);

        let mut tracks: Vec<JointTracks> = self.clip.tracks().to_vec();
        for c in &accepted {
            let slot = tracks
                .iter_mut()
                .find(|t| t.joint == c.joint)
                .expect("candidates come from the clip's tracks");
            match c.target {
                Target::Translation(v) => {
                    let t = slot.translation.as_ref().expect("candidate channel");
                    slot.translation = Some(constant_track(t, v)?);
                }
                Target::Rotation(q) => {
                    let t = slot.rotation.as_ref().expect("candidate channel");
                    slot.rotation = Some(constant_track(t, q)?);
                }
                Target::Scale(v) => {
                    let t = slot.scale.as_ref().expect("candidate channel");
                    slot.scale = Some(constant_track(t, v)?);
                }
            }
        }
        let reduced = Clip::with_morph(
            self.clip.name().to_string(),
            tracks,
            self.clip.morph_tracks().to_vec(),
            self.clip.markers().to_vec(),
            n,
        )?
        .with_additive(self.clip.is_additive())
        .with_reference_of(self.clip)
        .with_frame_rate(self.clip.frame_rate_hz());

        let (mut animated_after, mut keys_after) = (0, 0);
        for t in reduced.tracks() {
            let lens = [
                t.translation
                    .as_ref()
                    .and_then(|k| k.constant().is_none().then(|| k.times().len())),
                t.rotation
                    .as_ref()
                    .and_then(|k| k.constant().is_none().then(|| k.times().len())),
                t.scale
                    .as_ref()
                    .and_then(|k| k.constant().is_none().then(|| k.times().len())),
            ];
            for len in lens.into_iter().flatten() {
                animated_after += 1;
                keys_after += len;
            }
        }
        let (measured_max_m, worst_joint, worst_time_secs) =
            measure(self.clip, &reduced, self.skeleton, self.distance_m)?;
        let report = ReductionReport {
            clip: self.clip.name().to_string(),
            tolerance_m: self.tolerance_m,
            channels,
            animated_before,
            animated_after,
            keys_before,
            keys_after,
            bound_m,
            measured_max_m,
            worst_joint: worst_joint.map(|j| self.skeleton.names()[j].clone()),
            worst_time_secs,
        };
        Ok((reduced, report))
    }
}

/// A LINEAR track holding `value` at the original track's first and last key times, so
/// the clip keeps its duration and first key.
fn constant_track<T: TrackValue>(track: &Track<T>, value: T) -> Result<Track<T>, AnimError> {
    let times = track.times();
    let (first, last) = (times[0], times[times.len() - 1]);
    let (times, values) = if last > first {
        (vec![first, last], vec![value, value])
    } else {
        (vec![first], vec![value])
    };
    Track::new(Interpolation::Linear, times, values, "reduced channel")
}

/// `f` of the track's value at every key and half-way between neighbouring keys, largest.
fn max_over_samples<T: TrackValue>(track: &Track<T>, f: impl Fn(T) -> f32) -> f32 {
    let times = track.times();
    let mut worst = 0.0f32;
    for (i, &t) in times.iter().enumerate() {
        worst = worst.max(f(track.sample(t)));
        if let Some(&next) = times.get(i + 1) {
            worst = worst.max(f(track.sample(0.5 * (t + next))));
        }
    }
    worst
}

/// `2·sin(θ/2)` for the angle `θ` between two unit rotations: how far they move a point
/// 1 m from the pivot. From the 4D distance `d = |q - c|` (q in c's hemisphere), which is
/// `2·sin(θ/4)`: `2·sin(θ/2) = d·sqrt(4 - d²)`, without the cancellation of `1 - (q·c)²`
/// for small angles.
fn rotation_chord(q: Quat, c: Quat) -> f32 {
    let (q, c) = (glam::Vec4::from(q), glam::Vec4::from(c));
    let q = if q.dot(c) < 0.0 { -q } else { q };
    let d = (q - c).length();
    d * (4.0 - d * d).max(0.0).sqrt()
}

/// The centre of the keys' bounding box (it minimises the largest per-axis deviation).
fn vec3_center(track: &Track<Vec3>) -> Vec3 {
    let n = track.times().len();
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for i in 0..n {
        let v = track.key_value(i);
        lo = lo.min(v);
        hi = hi.max(v);
    }
    0.5 * (lo + hi)
}

/// The normalised sum of the keys, each flipped into the first key's hemisphere.
fn quat_mean(track: &Track<Quat>) -> Quat {
    let first = track.key_value(0);
    let mut sum = glam::Vec4::ZERO;
    for i in 0..track.times().len() {
        let q = glam::Vec4::from(track.key_value(i));
        sum += if q.dot(glam::Vec4::from(first)) < 0.0 {
            -q
        } else {
            q
        };
    }
    if sum.length_squared() > 0.0 {
        Quat::from_vec4(sum.normalize())
    } else {
        first.normalize()
    }
}

fn children_of(parents: &[Option<usize>]) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); parents.len()];
    for (j, p) in parents.iter().enumerate() {
        if let Some(p) = *p {
            children[p].push(j);
        }
    }
    children
}

/// `joint` and every joint below it.
fn collect_subtree(joint: usize, children: &[Vec<usize>], out: &mut Vec<usize>) {
    out.push(joint);
    let mut i = out.len() - 1;
    while i < out.len() {
        let j = out[i];
        out.extend_from_slice(&children[j]);
        i += 1;
    }
}

/// Per joint: the farthest rest-pose distance to a joint below it, plus `distance_m`.
fn radii(
    model: &[Mat4],
    children: &[Vec<usize>],
    parents: &[Option<usize>],
    distance_m: f32,
) -> Vec<f32> {
    let n = parents.len();
    let mut radius = vec![0.0f32; n];
    let mut subtree = Vec::new();
    for j in 0..n {
        subtree.clear();
        collect_subtree(j, children, &mut subtree);
        let p = model[j].w_axis.truncate();
        for &d in &subtree {
            radius[j] = radius[j].max((model[d].w_axis.truncate() - p).length());
        }
        radius[j] += distance_m;
    }
    radius
}

fn max_axis_scale(m: &Mat4) -> f32 {
    m.x_axis
        .truncate()
        .length()
        .max(m.y_axis.truncate().length())
        .max(m.z_axis.truncate().length())
}

/// Largest model-space distance between the two clips' joints and the points
/// `distance_m` along each joint's axes, with the joint and clip time where it occurs.
fn measure(
    original: &Clip,
    reduced: &Clip,
    skeleton: &Skeleton,
    distance_m: f32,
) -> Result<(f32, Option<usize>, f32), AnimError> {
    let n = skeleton.joint_count();
    let mut times: Vec<f32> = Vec::new();
    for t in original.tracks() {
        for keys in [
            t.translation.as_ref().map(|k| k.times()),
            t.rotation.as_ref().map(|k| k.times()),
            t.scale.as_ref().map(|k| k.times()),
        ]
        .into_iter()
        .flatten()
        {
            times.extend_from_slice(keys);
        }
    }
    times.sort_by(f32::total_cmp);
    times.dedup();
    let mut grid: Vec<f32> = Vec::with_capacity(times.len() * 2);
    for (i, &t) in times.iter().enumerate() {
        grid.push(t);
        if let Some(&next) = times.get(i + 1) {
            // Half-way, and 60 Hz steps across long gaps between keys (at most 64 per gap,
            // so a file with absurd key times cannot stall the load).
            let steps = (((next - t) * 60.0).ceil() as usize).clamp(2, 64);
            for k in 1..steps {
                grid.push(t + (next - t) * k as f32 / steps as f32);
            }
        }
    }
    let mut local = [vec![Transform::IDENTITY; n], vec![Transform::IDENTITY; n]];
    let mut model = [vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]];
    let (mut worst, mut worst_joint, mut worst_time) = (0.0f32, None, 0.0f32);
    for &t in &grid {
        for (k, clip) in [original, reduced].into_iter().enumerate() {
            ModelPoseJob {
                skeleton,
                clip,
                time_secs: t,
                in_place: None,
            }
            .run(&mut local[k], &mut model[k])?;
        }
        for (j, (ma, mb)) in model[0].iter().zip(&model[1]).enumerate() {
            let points = |m: &Mat4| {
                let p = m.w_axis.truncate();
                let axis = |c: glam::Vec4| p + c.truncate().normalize_or_zero() * distance_m;
                [p, axis(m.x_axis), axis(m.y_axis), axis(m.z_axis)]
            };
            let (a, b) = (points(ma), points(mb));
            for (a, b) in a.iter().zip(&b) {
                let d = (*a - *b).length();
                if d > worst {
                    (worst, worst_joint, worst_time) = (d, Some(j), t);
                }
            }
        }
    }
    Ok((worst, worst_joint, worst_time))
}
