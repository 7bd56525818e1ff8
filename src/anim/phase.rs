//! Phase cancellation (seed 004, SPEC section 4): blending two gaits that are out of phase
//! averages a leg that swings forward with one that swings back, and the motion cancels.
//! Two copies of one sine swing `S sin(a)` and `S sin(a + phi)` blended 50/50 swing with
//! `S |cos(phi / 2)|`: 87 % of the swing survives at 60 degrees, half at 120, nothing at
//! 180 (the character stands still while its root keeps moving).
//!
//! [`measure_phase_cancellation`] measures that on a real skeleton: it sweeps one cycle of a
//! shared phase, samples every input at its own phase, blends the local poses with
//! [`BlendingJob`], accumulates them with [`LocalToModelJob`] and compares the leg swing of
//! the blend with the inputs'. Cross-fades should align phase first (sync markers or a
//! normalised gait phase); this is the check that tells when they did not.

use glam::{Mat4, Vec3};

use super::blend::blending::{BlendLayer, BlendingJob};
use super::model_pose::for_each_model_pose;
use super::{
    AnimError, Clip, ClipRootMotion, GroundTransform, LocalToModelJob, SamplingCache, SamplingJob,
    Skeleton, Transform,
};

/// Amplitude drop above which [`PhaseReport::warning`] is set.
///
/// A drop of 0.5 is what two equal-weight inputs 120 degrees out of phase give
/// (`|cos(60°)| = 0.5`). Well-aligned cross-fades of different gaits lose far less (two
/// inputs within 60 degrees keep 87 %), while beyond 120 degrees the legs visibly shuffle
/// in place: half the stride is gone and the feet slide.
pub const PHASE_WARNING_DROP: f64 = 0.5;

/// One input of [`measure_phase_cancellation`].
#[derive(Clone, Copy, Debug)]
pub struct PhaseInput<'a> {
    /// A cyclic clip (one gait cycle over its duration).
    pub clip: &'a Clip,
    /// Fraction of a cycle added to the shared phase (0.25 = a quarter cycle ahead); any
    /// finite value, wrapped into [0, 1).
    pub phase_offset: f64,
    /// Blend weight, finite and `>= 0`; the weights must not all be 0.
    pub weight: f32,
    /// `(start, length)` seconds: the gait cycle of a take of several steps to measure
    /// instead of the whole clip (shared phase `u` is then at `start + (u + offset) *
    /// length`, wrapped into the clip). `None`: the clip is one cycle.
    pub window_secs: Option<(f64, f64)>,
    /// A clip turned onto another's start before blending (motion-capture takes facing
    /// different ways, see `graph::player::ClipPlayer::align`): its root motion, removed,
    /// and the ground transform applied after. `None`: sampled as authored.
    pub aligned: Option<(&'a ClipRootMotion, GroundTransform)>,
}

/// What [`measure_phase_cancellation`] found. Angles in degrees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseReport {
    /// Weighted mean (by input weight) of the inputs' leg-swing ranges, each the mean over
    /// the legs of `max - min` swing angle over the cycle.
    pub input_amplitude_deg: f64,
    /// The same measure on the blended pose.
    pub blend_amplitude_deg: f64,
    /// `1 - blend / input`, clamped to [0, 1]; 0 when the inputs do not swing at all.
    pub amplitude_drop: f64,
    /// `amplitude_drop > PHASE_WARNING_DROP`.
    pub warning: bool,
}

/// The swing angle of the first leg over one cycle, per input and for the blend, as
/// [`measure_phase_cancellation_with_curves`] sampled it: what the Blend panel plots.
/// Degrees, in the plane of `forward` (model space) and down; sample `k` is shared phase
/// `k / samples`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwingCurves {
    /// The horizontal axis the feet swing along (model space, unit).
    pub forward: Vec3,
    /// Per input, in the order given.
    pub inputs: Vec<Vec<f32>>,
    /// The blended pose's curve, `samples` degrees like each input's.
    pub blend: Vec<f32>,
}

/// Measures how much of the leg swing survives blending `inputs` with their phase offsets.
///
/// `legs` are `(hip or thigh joint, foot joint)` pairs. A leg's swing angle is the angle of
/// the hip-to-foot vector in the character's sagittal plane, forward against down (model
/// -Y): `atan2(v . forward, -v.y)` of `v = foot - hip`, in model space. `forward` is the
/// horizontal axis the feet swing along, found from the heaviest input ([`swing_axis`]),
/// so a rig facing +X (or any way) is measured in its own plane; the sign of `forward`
/// does not change a range. Its range is taken over
/// `samples` evenly spaced shared phases `u = k / samples`; input `i` is sampled at clip
/// time `(u + phase_offset_i).rem_euclid(1) * duration_i`.
///
/// Buffers are allocated once per call.
pub fn measure_phase_cancellation(
    skeleton: &Skeleton,
    legs: &[(usize, usize)],
    inputs: &[PhaseInput],
    samples: usize,
) -> Result<PhaseReport, AnimError> {
    measure(skeleton, legs, inputs, samples, None)
}

/// [`measure_phase_cancellation`], also writing the first leg's swing curves into
/// `curves` (its vectors are cleared and refilled, keeping their allocations).
pub fn measure_phase_cancellation_with_curves(
    skeleton: &Skeleton,
    legs: &[(usize, usize)],
    inputs: &[PhaseInput],
    samples: usize,
    curves: &mut SwingCurves,
) -> Result<PhaseReport, AnimError> {
    measure(skeleton, legs, inputs, samples, Some(curves))
}

fn measure(
    skeleton: &Skeleton,
    legs: &[(usize, usize)],
    inputs: &[PhaseInput],
    samples: usize,
    mut curves: Option<&mut SwingCurves>,
) -> Result<PhaseReport, AnimError> {
    let n = skeleton.joint_count();
    if samples < 2 {
        return Err(AnimError::OutOfRange {
            what: "phase samples".into(),
            detail: format!("{samples}; need at least 2 per cycle"),
        });
    }
    if legs.is_empty() {
        return Err(AnimError::Empty {
            what: "phase legs".into(),
        });
    }
    for (k, &(hip, foot)) in legs.iter().enumerate() {
        for joint in [hip, foot] {
            if joint >= n {
                return Err(AnimError::JointOutOfRange {
                    what: format!("phase leg {k}"),
                    joint,
                    joint_count: n,
                });
            }
        }
    }
    if inputs.is_empty() {
        return Err(AnimError::Empty {
            what: "phase inputs".into(),
        });
    }
    let mut weight_sum = 0.0f64;
    for (i, input) in inputs.iter().enumerate() {
        if !input.phase_offset.is_finite() {
            return Err(AnimError::NonFinite {
                what: format!("phase input {i} offset"),
            });
        }
        if !input.weight.is_finite() || input.weight < 0.0 {
            return Err(AnimError::OutOfRange {
                what: format!("phase input {i} weight"),
                detail: format!("{} must be finite and >= 0", input.weight),
            });
        }
        weight_sum += f64::from(input.weight);
    }
    if weight_sum <= 0.0 {
        return Err(AnimError::OutOfRange {
            what: "phase input weights".into(),
            detail: "all weights are 0".into(),
        });
    }

    let rest = skeleton.rest_pose();
    let mut poses = vec![vec![Transform::IDENTITY; n]; inputs.len()];
    let mut caches = vec![SamplingCache::new(); inputs.len()];
    let mut blended = vec![Transform::IDENTITY; n];
    let mut model = vec![Mat4::IDENTITY; n];
    // The layer list borrows the pose buffers that the next sample overwrites, so it
    // cannot live across iterations; its allocation is handed back and forth instead.
    let mut spare_layers: Vec<BlendLayer<'static>> = Vec::with_capacity(inputs.len());
    // Per input and for the blend (last), per leg: (min, max) swing angle.
    let mut ranges = vec![vec![(f64::INFINITY, f64::NEG_INFINITY); legs.len()]; inputs.len() + 1];

    let heaviest = inputs
        .iter()
        .max_by(|a, b| a.weight.total_cmp(&b.weight))
        .map_or(inputs[0].clip, |i| i.clip);
    let forward = swing_axis(skeleton, legs, heaviest)?;
    if let Some(c) = curves.as_deref_mut() {
        c.forward = forward;
        c.inputs.resize_with(inputs.len(), Vec::new);
        for curve in c.inputs.iter_mut().chain(std::iter::once(&mut c.blend)) {
            curve.clear();
            curve.reserve(samples);
        }
    }
    // Records every leg's angle into `range`, and the first leg's into `curve`.
    let record = |model: &[Mat4], range: &mut [(f64, f64)], curve: Option<&mut Vec<f32>>| {
        for (r, &(hip, foot)) in range.iter_mut().zip(legs) {
            let angle = swing_deg(
                model[foot].w_axis.truncate() - model[hip].w_axis.truncate(),
                forward,
            );
            r.0 = r.0.min(angle);
            r.1 = r.1.max(angle);
        }
        if let Some(curve) = curve {
            let (hip, foot) = legs[0]; // legs is not empty (checked above)
            curve.push(swing_deg(
                model[foot].w_axis.truncate() - model[hip].w_axis.truncate(),
                forward,
            ) as f32);
        }
    };
    for k in 0..samples {
        let u = k as f64 / samples as f64;
        for (i, input) in inputs.iter().enumerate() {
            let d = f64::from(input.clip.duration_secs());
            let time = match input.window_secs {
                Some((start, len)) if len.is_finite() && len > 0.0 && start.is_finite() => {
                    (start + (u + input.phase_offset).rem_euclid(1.0) * len).rem_euclid(d.max(1e-9))
                }
                _ => (u + input.phase_offset).rem_euclid(1.0) * d,
            };
            SamplingJob {
                clip: input.clip,
                time_secs: time as f32,
                rest_pose: rest,
            }
            .run_with_cache(&mut caches[i], &mut poses[i])?;
            if let Some((root, align)) = &input.aligned {
                root.source.remove(&root.motion, time, &mut poses[i])?;
                root.source.place(align, &mut poses[i])?;
            }
            LocalToModelJob {
                parents: skeleton.parents(),
                local: &poses[i],
                model_from_root: Mat4::IDENTITY,
            }
            .run(&mut model)?;
            record(
                &model,
                &mut ranges[i],
                curves.as_deref_mut().map(|c| &mut c.inputs[i]),
            );
        }
        let mut layers = recycle(std::mem::take(&mut spare_layers));
        layers.extend(inputs.iter().zip(&poses).map(|(input, pose)| BlendLayer {
            pose,
            weight: input.weight,
            joint_weights: None,
        }));
        BlendingJob {
            layers: &layers,
            rest_pose: rest,
            threshold: BlendingJob::DEFAULT_THRESHOLD,
        }
        .run(&mut blended)?;
        spare_layers = recycle(layers);
        LocalToModelJob {
            parents: skeleton.parents(),
            local: &blended,
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut model)?;
        record(
            &model,
            &mut ranges[inputs.len()],
            curves.as_deref_mut().map(|c| &mut c.blend),
        );
    }

    let mean_range = |range: &[(f64, f64)]| -> f64 {
        range.iter().map(|&(lo, hi)| hi - lo).sum::<f64>() / range.len() as f64
    };
    let input_amplitude_deg = inputs
        .iter()
        .zip(&ranges)
        .map(|(input, range)| f64::from(input.weight) * mean_range(range))
        .sum::<f64>()
        / weight_sum;
    let blend_amplitude_deg = mean_range(&ranges[inputs.len()]);
    // Inputs that do not swing have nothing to cancel (and 0/0 is no answer).
    let amplitude_drop = if input_amplitude_deg > 1e-9 {
        (1.0 - blend_amplitude_deg / input_amplitude_deg).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Ok(PhaseReport {
        input_amplitude_deg,
        blend_amplitude_deg,
        amplitude_drop,
        warning: amplitude_drop > PHASE_WARNING_DROP,
    })
}

/// An empty vector with `v`'s allocation and a new lifetime: an in-place `collect` of an
/// iterator that yields nothing keeps the buffer (element type and size are unchanged).
// `filter` cannot change the element's lifetime; `filter_map` to `None` can.
#[allow(clippy::unnecessary_filter_map)]
fn recycle<'b>(mut v: Vec<BlendLayer<'_>>) -> Vec<BlendLayer<'b>> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// Swing angle in degrees of a hip-to-foot vector (model space): 0 straight down, positive
/// with the foot toward `forward` (a horizontal unit vector).
fn swing_deg(v: Vec3, forward: Vec3) -> f64 {
    f64::from(v.dot(forward))
        .atan2(-f64::from(v.y))
        .to_degrees()
}

/// Phases [`swing_axis`] samples.
const AXIS_SAMPLES: usize = 32;

/// The horizontal axis (model space, unit) the feet swing along in `clip`: the principal
/// axis of the horizontal hip-to-foot vectors over one cycle, all legs together. A gait
/// swings its feet far more along its facing than sideways, whatever axes the rig was
/// exported with. +Z when the feet do not move (or the clip has no length).
pub fn swing_axis(
    skeleton: &Skeleton,
    legs: &[(usize, usize)],
    clip: &Clip,
) -> Result<Vec3, AnimError> {
    let mut points: Vec<(f64, f64)> = Vec::with_capacity(AXIS_SAMPLES * legs.len());
    let times = (0..AXIS_SAMPLES).map(|k| clip.duration_secs() * k as f32 / AXIS_SAMPLES as f32);
    for_each_model_pose(skeleton, clip, None, times, |_, _, model| {
        for &(hip, foot) in legs {
            let v = model[foot].w_axis.truncate() - model[hip].w_axis.truncate();
            points.push((f64::from(v.x), f64::from(v.z)));
        }
        Ok(())
    })?;
    // Covariance per leg about that leg's own mean (legs sit side by side: their offset
    // is sideways and not swing), summed.
    let (mut xx, mut xz, mut zz) = (0.0f64, 0.0f64, 0.0f64);
    for leg in 0..legs.len() {
        let pts = points.iter().skip(leg).step_by(legs.len().max(1));
        let count = AXIS_SAMPLES as f64;
        let (mx, mz) = pts
            .clone()
            .fold((0.0, 0.0), |(a, b), &(x, z)| (a + x / count, b + z / count));
        for &(x, z) in pts {
            let (dx, dz) = (x - mx, z - mz);
            xx += dx * dx;
            xz += dx * dz;
            zz += dz * dz;
        }
    }
    if (xx + zz).is_nan() || xx + zz <= 1e-18 || !(xx + zz).is_finite() {
        return Ok(Vec3::Z);
    }
    // Principal eigenvector of [[xx, xz], [xz, zz]].
    let angle = 0.5 * (2.0 * xz).atan2(xx - zz);
    Ok(Vec3::new(angle.cos() as f32, 0.0, angle.sin() as f32))
}
