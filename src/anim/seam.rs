//! Loop-seam check: how much each animated channel jumps where a looping clip wraps from
//! its last key back to its first.
//!
//! Two separate measures per channel, because SPEC 2 keeps them apart: the **position**
//! jump (the value at the end against the value at the start: a pop anyone sees) and the
//! **velocity** jump (the slope just before the end against the slope just after the
//! start: a hitch; the SPEC's reference root track runs 1.2 m/s into the seam and 0.8 m/s
//! out of it, with continuous position, and that is the asset's business, not a bug).
//!
//! The root-motion joint is compared after its travel is taken out: the end of the cycle
//! is moved back by the cycle's displacement (the correction `R(0) R(T)^-1` that
//! [`crate::RootMotionSource::remove`] applies at the end), so a walk that covers 1.4 m per cycle
//! has no 1.4 m "pop", while its travel speed into and out of the seam is still compared.
//!
//! Ranking is by what shows: a rotation moves the end of the chain it carries, so its
//! jump counts as `angle x chain length` metres (a finger counts less than a hip); a
//! translation counts its own metres in model space; a scale jump counts
//! `|ds| x chain length`.

use glam::{Mat4, Quat, Vec3};

use super::root_motion::{ClipRootMotion, GroundTransform};
use super::{AnimError, Clip, LocalToModelJob, SamplingJob, Skeleton, Transform};

/// Which channel of a joint a seam belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SeamChannel {
    /// Local translation (compared in model space, metres).
    Translation,
    /// Local rotation (radians).
    Rotation,
    /// Local scale (unitless factors).
    Scale,
}

impl SeamChannel {
    /// The channel's name in lower case, for reports and the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            SeamChannel::Translation => "translation",
            SeamChannel::Rotation => "rotation",
            SeamChannel::Scale => "scale",
        }
    }
}

/// The wrap of one animated channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelSeam {
    /// Skeleton joint index.
    pub joint: usize,
    /// Which of the joint's channels.
    pub channel: SeamChannel,
    /// End value against start value: metres in model space (translation), radians
    /// (rotation, shortest arc), or the largest per-axis difference of the scale factors.
    pub position_jump: f32,
    /// Slope into the seam against slope out of it: m/s (translation, model space),
    /// rad/s (angular velocity vectors), 1/s (scale).
    pub velocity_jump: f32,
    /// Length of the chain the joint carries in the rest pose (metres, model space): the
    /// longest path through its descendants, or its own bone for a leaf.
    pub chain_length_m: f32,
    /// How far the position jump moves the end of the chain (metres): what ranks seams.
    /// For a rotation the chord `2 L sin(angle / 2)`, never more than twice the chain
    /// (the arc `angle * L` put 3.5 m on the end of a 1.28 m chain).
    pub visible_m: f32,
    /// The velocity jump at the end of the chain (m/s).
    pub visible_velocity_mps: f32,
    /// The largest velocity jump at the channel's own inner keys (same unit as
    /// `velocity_jump`): linear keys change slope at every key, so a seam hitch is one
    /// that stands out from these.
    pub inner_velocity_jump: f32,
}

impl ChannelSeam {
    /// The seam's velocity jump over the largest one at an inner key (infinite when the
    /// channel is otherwise smooth and the seam is not): above 2 the seam stands out.
    pub fn hitch_ratio(&self) -> f32 {
        if self.inner_velocity_jump > 0.0 {
            self.velocity_jump / self.inner_velocity_jump
        } else if self.velocity_jump > 0.0 {
            f32::INFINITY
        } else {
            0.0
        }
    }
}

/// Measures every animated channel of `clip` at its wrap.
///
/// Output is sorted by [`ChannelSeam::visible_m`] (largest first), then by the visible
/// velocity jump, then by joint and channel, so the order is the same on every run.
pub struct LoopSeamJob<'a> {
    /// The skeleton the clip animates (its rest pose gives the chain lengths).
    pub skeleton: &'a Skeleton,
    /// The looping clip to check (duration > 0).
    pub clip: &'a Clip,
    /// The clip's root motion, when it has any: its joint is compared without the travel.
    pub root_motion: Option<&'a ClipRootMotion>,
}

/// The seam size (metres at the clip's unit scale) above which a seam is worth showing:
/// the lint's default and the window's seam readout.
pub const DEFAULT_SEAM_M: f32 = 0.01;

/// Seconds between the samples a velocity is measured from: small enough to stay inside
/// the last and the first key interval of 30, 60 or 120 fps clips (a linear segment's
/// slope is then exact), large enough for f32 clip times.
pub const VELOCITY_STEP_SECS: f32 = 1.0 / 240.0;

impl LoopSeamJob<'_> {
    /// Clears `out` and fills it with one entry per animated channel, sorted as
    /// described on [`LoopSeamJob`]. Errors on a zero-length clip or a track whose joint
    /// is out of range.
    pub fn run(&self, out: &mut Vec<ChannelSeam>) -> Result<(), AnimError> {
        out.clear();
        let duration = self.clip.duration_secs();
        if duration <= 0.0 || !duration.is_finite() {
            return Err(AnimError::OutOfRange {
                what: format!("clip '{}'", self.clip.name()),
                detail: "a zero-length clip has no loop seam".into(),
            });
        }
        let sk = self.skeleton;
        let n = sk.joint_count();
        if let Some(t) = self.clip.tracks().iter().find(|t| t.joint >= n) {
            return Err(AnimError::JointOutOfRange {
                what: format!("clip '{}' track", self.clip.name()),
                joint: t.joint,
                joint_count: n,
            });
        }
        let h = VELOCITY_STEP_SECS.min(duration / 8.0);
        // Poses just before the seam (T - h, T) and just after it (0, h).
        let mut before = [vec![Transform::IDENTITY; n], vec![Transform::IDENTITY; n]];
        let mut after = [vec![Transform::IDENTITY; n], vec![Transform::IDENTITY; n]];
        for (pose, t) in before
            .iter_mut()
            .zip([duration - h, duration])
            .chain(after.iter_mut().zip([0.0, h]))
        {
            SamplingJob {
                clip: self.clip,
                time_secs: t,
                rest_pose: sk.rest_pose(),
            }
            .run(pose)?;
        }
        if let Some(rm) = self.root_motion {
            // Move the end of the cycle back onto its start; the start stays as sampled.
            let motion = &rm.motion;
            let to_start: GroundTransform = motion
                .start()
                .compose(&motion.sample(motion.duration_secs()).inverse());
            for pose in &mut before {
                rm.source.place(&to_start, pose)?;
            }
        }

        let rest_model = rest_model_from_joint(sk)?;
        let chains = chain_lengths(sk, &rest_model);
        for tracks in self.clip.tracks() {
            let j = tracks.joint;
            // Translations are in the parent's space: its rest scale turns them into
            // model-space metres (Mixamo armatures put a 0.01 scale above centimetres).
            let parent_scale = match sk.parents()[j] {
                Some(p) => mean_scale(&rest_model[p]),
                None => 1.0,
            };
            let (b0, b1) = (&before[0][j], &before[1][j]);
            let (a0, a1) = (&after[0][j], &after[1][j]);
            let chain = chains[j];
            if tracks.translation.is_some() {
                let jump = (b1.translation - a0.translation).length() * parent_scale;
                let v_in = (b1.translation - b0.translation) / h;
                let v_out = (a1.translation - a0.translation) / h;
                let vjump = (v_in - v_out).length() * parent_scale;
                let inner = tracks.translation.as_ref().map_or(0.0, |k| {
                    let mut k_at = k.sampler();
                    inner_jumps(k.times(), h, |t| {
                        let (a, b, c) = (k_at.sample(t - h), k_at.sample(t), k_at.sample(t + h));
                        ((c - b) / h - (b - a) / h).length()
                    })
                });
                out.push(ChannelSeam {
                    joint: j,
                    channel: SeamChannel::Translation,
                    position_jump: jump,
                    velocity_jump: vjump,
                    chain_length_m: chain,
                    visible_m: jump,
                    visible_velocity_mps: vjump,
                    inner_velocity_jump: inner * parent_scale,
                });
            }
            if let Some(k) = &tracks.rotation {
                let jump = rotation_angle(b1.rotation, a0.rotation);
                let w_in = angular_velocity(b0.rotation, b1.rotation, h);
                let w_out = angular_velocity(a0.rotation, a1.rotation, h);
                let vjump = (w_in - w_out).length();
                let mut k_at = k.sampler();
                let inner = inner_jumps(k.times(), h, |t| {
                    let (a, b, c) = (k_at.sample(t - h), k_at.sample(t), k_at.sample(t + h));
                    (angular_velocity(b, c, h) - angular_velocity(a, b, h)).length()
                });
                out.push(ChannelSeam {
                    joint: j,
                    channel: SeamChannel::Rotation,
                    position_jump: jump,
                    velocity_jump: vjump,
                    chain_length_m: chain,
                    visible_m: 2.0 * chain * (0.5 * jump).sin(),
                    visible_velocity_mps: vjump * chain,
                    inner_velocity_jump: inner,
                });
            }
            if let Some(k) = &tracks.scale {
                let jump = (b1.scale - a0.scale).abs().max_element();
                let v_in = (b1.scale - b0.scale) / h;
                let v_out = (a1.scale - a0.scale) / h;
                let vjump = (v_in - v_out).abs().max_element();
                let mut k_at = k.sampler();
                let inner = inner_jumps(k.times(), h, |t| {
                    let (a, b, c) = (k_at.sample(t - h), k_at.sample(t), k_at.sample(t + h));
                    ((c - b) / h - (b - a) / h).abs().max_element()
                });
                out.push(ChannelSeam {
                    joint: j,
                    channel: SeamChannel::Scale,
                    position_jump: jump,
                    velocity_jump: vjump,
                    chain_length_m: chain,
                    visible_m: jump * chain,
                    visible_velocity_mps: vjump * chain,
                    inner_velocity_jump: inner,
                });
            }
        }
        out.sort_by(|a, b| {
            b.visible_m
                .total_cmp(&a.visible_m)
                .then(b.visible_velocity_mps.total_cmp(&a.visible_velocity_mps))
                .then(a.joint.cmp(&b.joint))
                .then(a.channel.cmp(&b.channel))
        });
        Ok(())
    }
}

/// The largest of `jump_at(t)` over the inner keys (not the first or the last) whose
/// neighbours are more than `h` away, so the samples around each stay on its two segments.
fn inner_jumps(times: &[f32], h: f32, mut jump_at: impl FnMut(f32) -> f32) -> f32 {
    let mut worst = 0.0f32;
    for w in times.windows(3) {
        if w[1] - w[0] > h && w[2] - w[1] > h {
            worst = worst.max(jump_at(w[1]));
        }
    }
    worst
}

/// The angle of the rotation taking unit quaternion `from` to `to` (radians, `[0, π]`),
/// from the half-angle's sine and cosine. `2 acos |from · to|` cannot tell two rotations
/// apart closer than the f32 step of the dot product below 1: every seamless channel read
/// 0.0396 degrees, and a pop under that read as that.
fn rotation_angle(from: Quat, to: Quat) -> f32 {
    let d = from.conjugate() * to;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

/// Angular velocity (axis x rad/s, parent space) taking `from` to `to` in `dt` seconds,
/// along the shorter way round.
fn angular_velocity(from: Quat, to: Quat, dt: f32) -> Vec3 {
    let mut d = to * from.inverse();
    if d.w < 0.0 {
        d = -d;
    }
    let (axis, angle) = d.normalize().to_axis_angle();
    if !angle.is_finite() || angle == 0.0 {
        return Vec3::ZERO;
    }
    axis * (angle / dt)
}

fn rest_model_from_joint(sk: &Skeleton) -> Result<Vec<Mat4>, AnimError> {
    let mut model = vec![Mat4::IDENTITY; sk.joint_count()];
    LocalToModelJob {
        parents: sk.parents(),
        local: sk.rest_pose(),
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut model)?;
    Ok(model)
}

/// Mean length of a matrix's basis vectors: its scale when it is (near) uniform.
fn mean_scale(m: &Mat4) -> f32 {
    (m.x_axis.truncate().length() + m.y_axis.truncate().length() + m.z_axis.truncate().length())
        / 3.0
}

/// Per joint: the longest rest-pose path (metres, model space) from the joint through its
/// descendants; a leaf gets its own bone (the distance to its parent), since the mesh it
/// carries is about that size, and a lone root gets 0.
pub fn chain_lengths(sk: &Skeleton, rest_model: &[Mat4]) -> Vec<f32> {
    let n = sk.joint_count();
    let pos: Vec<Vec3> = rest_model.iter().map(|m| m.w_axis.truncate()).collect();
    let mut down = vec![0.0f32; n];
    let mut has_child = vec![false; n];
    // Parents come before children, so one backward pass sees every child first.
    for j in (0..n).rev() {
        if let Some(p) = sk.parents()[j] {
            has_child[p] = true;
            down[p] = down[p].max(down[j] + (pos[j] - pos[p]).length());
        }
    }
    (0..n)
        .map(|j| match (has_child[j], sk.parents()[j]) {
            (true, _) => down[j],
            (false, Some(p)) => (pos[j] - pos[p]).length(),
            (false, None) => 0.0,
        })
        .collect()
}
