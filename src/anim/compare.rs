//! A/B comparison of two clips on one skeleton (two clips of a file, or two versions of a
//! clip in two files): both are sampled at the same normalised phase (B optionally
//! offset), the root put on the origin (its ground position and heading taken out, so
//! travel does not swamp the pose), and every joint's model-space position compared in
//! metres.
//!
//! The phase lock is what makes a comparison fair: a walk re-exported starting on the
//! other foot is the same walk half a cycle later. [`marker_phase_offset`] finds the
//! offset from the first foot marker both clips share, like marker sync does for blends.

use glam::{Mat4, Vec3};

use super::{AnimError, Clip, ClipRootMotion, Skeleton, Transform};
use crate::model_pose::ModelPoseJob;

/// One side of a comparison.
pub struct CompareSide<'a> {
    /// The skeleton this side's clip animates.
    pub skeleton: &'a Skeleton,
    /// The clip, sampled at a normalised phase of its duration.
    pub clip: &'a Clip,
    /// The clip's root motion, removed before comparing (`None`: compared as authored).
    pub root_motion: Option<&'a ClipRootMotion>,
}

/// Per-joint differences of A against B at one phase.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PoseDifference {
    /// Model-space distance (metres) per joint of A; 0 for joints B does not have.
    pub per_joint_m: Vec<f32>,
    /// Largest and mean distance over the compared joints (metres).
    pub max_m: f32,
    /// Mean distance over the compared joints (those with a match in B), metres.
    pub mean_m: f32,
    /// The joint of A with the largest distance.
    pub worst_joint: Option<usize>,
}

/// Compares A with B. `joint_map[a]` is B's joint for A's joint `a` (by name when the
/// skeletons come from two files; see [`joint_map_by_name`]).
pub struct CompareJob<'a> {
    /// Side A: its joints are the ones reported.
    pub a: CompareSide<'a>,
    /// Side B, compared against A.
    pub b: CompareSide<'a>,
    /// B's joint for each of A's joints (one entry per joint of A; `None`: not compared).
    pub joint_map: &'a [Option<usize>],
}

/// Scratch buffers of a [`CompareJob`], reused from frame to frame.
#[derive(Clone, Debug, Default)]
pub struct CompareScratch {
    local_a: Vec<Transform>,
    local_b: Vec<Transform>,
    model_a: Vec<Mat4>,
    model_b: Vec<Mat4>,
}

/// B's joints for each of A's, matched by name (`None` where B has no joint of that
/// name). Two exports of one rig match fully.
pub fn joint_map_by_name(a: &Skeleton, b: &Skeleton) -> Vec<Option<usize>> {
    a.names().iter().map(|n| b.find(n)).collect()
}

/// The phase offset (fraction of a cycle, in `[0, 1)`) to add to A's normalised phase to
/// reach the same foot event in B: from the first marker of A whose name B also has.
/// `None` when they share no marker name.
pub fn marker_phase_offset(a: &Clip, b: &Clip) -> Option<f32> {
    let (da, db) = (a.duration_secs(), b.duration_secs());
    if da <= 0.0 || db <= 0.0 {
        return None;
    }
    let mut markers: Vec<_> = a.markers().iter().collect();
    markers.sort_by(|x, y| x.time_secs.total_cmp(&y.time_secs));
    markers.into_iter().find_map(|m| {
        let other = b.markers().iter().find(|n| n.name == m.name)?;
        Some((other.time_secs / db - m.time_secs / da).rem_euclid(1.0))
    })
}

impl CompareJob<'_> {
    /// The difference at A's normalised phase `phase` (0..1 of its cycle), B at
    /// `phase + b_offset` (wrapped) of its own cycle.
    pub fn run(
        &self,
        phase: f32,
        b_offset: f32,
        scratch: &mut CompareScratch,
        out: &mut PoseDifference,
    ) -> Result<(), AnimError> {
        let na = self.a.skeleton.joint_count();
        if self.joint_map.len() != na {
            return Err(AnimError::LengthMismatch {
                what: "compare joint map",
                expected: na,
                actual: self.joint_map.len(),
            });
        }
        let nb = self.b.skeleton.joint_count();
        if let Some(&Some(j)) = self.joint_map.iter().find(|j| j.is_some_and(|j| j >= nb)) {
            return Err(AnimError::JointOutOfRange {
                what: "compare joint map".into(),
                joint: j,
                joint_count: nb,
            });
        }
        if !(phase.is_finite() && b_offset.is_finite()) {
            return Err(AnimError::NonFinite {
                what: "compare phase".into(),
            });
        }
        pose_of(&self.a, phase, &mut scratch.local_a, &mut scratch.model_a)?;
        pose_of(
            &self.b,
            (phase + b_offset).rem_euclid(1.0),
            &mut scratch.local_b,
            &mut scratch.model_b,
        )?;
        out.per_joint_m.clear();
        out.per_joint_m.resize(na, 0.0);
        let (mut max, mut sum, mut count, mut worst) = (0.0f32, 0.0f32, 0usize, None);
        for (a, b) in self.joint_map.iter().enumerate() {
            let Some(b) = *b else { continue };
            let pa: Vec3 = scratch.model_a[a].w_axis.truncate();
            let pb: Vec3 = scratch.model_b[b].w_axis.truncate();
            let d = pa.distance(pb);
            out.per_joint_m[a] = d;
            sum += d;
            count += 1;
            if d > max || worst.is_none() {
                max = max.max(d);
                worst = Some(a);
            }
        }
        out.max_m = max;
        out.mean_m = if count > 0 { sum / count as f32 } else { 0.0 };
        out.worst_joint = worst.filter(|_| max > 0.0);
        Ok(())
    }

    /// `(phase, max_m, mean_m)` at `samples` even phases over A's cycle: the difference
    /// curve of the compare panel.
    pub fn curve(&self, b_offset: f32, samples: usize) -> Result<Vec<[f32; 3]>, AnimError> {
        let mut scratch = CompareScratch::default();
        let mut d = PoseDifference::default();
        (0..samples.max(2))
            .map(|i| {
                let u = i as f32 / (samples.max(2) - 1) as f32;
                // The last sample is the end of the cycle, not the start of the next.
                let u = u.min(1.0 - 1e-6);
                self.run(u, b_offset, &mut scratch, &mut d)
                    .map(|()| [u, d.max_m, d.mean_m])
            })
            .collect()
    }
}

/// Samples `side` at normalised phase `phase`, accumulates the hierarchy, and (with root
/// motion) puts the root-motion joint on the origin facing forward.
fn pose_of(
    side: &CompareSide,
    phase: f32,
    local: &mut Vec<Transform>,
    model: &mut Vec<Mat4>,
) -> Result<(), AnimError> {
    let sk = side.skeleton;
    local.clear();
    local.extend_from_slice(sk.rest_pose());
    model.clear();
    model.resize(sk.joint_count(), Mat4::IDENTITY);
    let t = phase * side.clip.duration_secs();
    ModelPoseJob {
        skeleton: sk,
        clip: side.clip,
        time_secs: t,
        in_place: None,
    }
    .run(local, model)?;
    if let Some(rm) = side.root_motion {
        face_forward(model, sk.parents(), rm.source.joint);
    }
    Ok(())
}

/// Turns the whole pose about +Y so the root joint's heading (the twist of its model
/// rotation about +Y) is 0, and moves its ground position to the origin: the travel and
/// the turn of the cycle are gone, whatever heading each clip starts with. Removing root
/// motion the usual way (back to the track's start `R(0)`) would not do: a copy that
/// starts later in a turning cycle (or mocap whose hips twist) starts facing another way.
/// `2 atan2(y, w)` adds exactly under a pre-multiplied turn about +Y, so two clips of the
/// same pose facing different ways end up identical.
///
/// Only the root and its descendants move: nodes beside or above it (a mesh node, a
/// `Z_UP` parent) stay where the clip leaves them, as they do when root motion is removed.
fn face_forward(model: &mut [Mat4], parents: &[Option<usize>], root: usize) {
    let Some(m) = model.get(root) else {
        return;
    };
    let (_, q, t) = m.to_scale_rotation_translation();
    let yaw = 2.0 * q.y.atan2(q.w);
    if !yaw.is_finite() {
        return;
    }
    let fix = Mat4::from_rotation_y(-yaw) * Mat4::from_translation(Vec3::new(-t.x, 0.0, -t.z));
    for (j, m) in model.iter_mut().enumerate() {
        if j != root && !super::local_to_model::is_below(parents, root, j) {
            continue;
        }
        *m = fix * *m;
    }
}
