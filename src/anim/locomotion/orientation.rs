//! Orientation warping (Unreal's sibling of stride warping): when the character moves in
//! a direction other than the one its clip travels in, turn the body toward the
//! movement by a share of the angle and counter-rotate the spine so the upper body keeps
//! facing forward; stride warping then scales the stride along the movement direction.
//!
//! Angles are yaw about +Y in radians, counter-clockwise seen from above (positive =
//! toward the character's left, +X, for a character facing +Z).

use glam::{Mat4, Quat, Vec3};

use super::stride_warp::rotate_joint_model;
use crate::{AnimError, LocalToModelJob, Skeleton, Transform};

/// Settings of [`OrientationWarp`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrientationWarpSettings {
    /// Turn the body toward the movement; off, nothing turns and stride warping takes
    /// the whole movement direction. Default on.
    pub enabled: bool,
    /// Share of the movement angle the body (root) turns; the spine turns it back.
    /// Default 0.5.
    pub body_share: f32,
    /// Interpolation speed of the angle (1/s, exponential like the stride scale's).
    /// Default 10.
    pub interp_speed: f32,
}

impl Default for OrientationWarpSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            body_share: 0.5,
            interp_speed: 10.0,
        }
    }
}

/// One frame's orientation warp.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct OrientationWarp {
    /// Movement direction relative to the clip's travel direction, after the flip.
    pub angle_rad: f32,
    /// The movement direction was more than 90° off the travel direction, so it was
    /// flipped by 180° (a forward clip driven backwards: pick a backward clip for that).
    pub flipped: bool,
    /// How far the body (root) turns.
    pub body_yaw_rad: f32,
    /// How far the spine turns back in total (`-body_yaw_rad`).
    pub spine_yaw_rad: f32,
    /// Movement direction relative to the turned body: stride warping's direction.
    pub stride_yaw_rad: f32,
}

/// Time-dependent angle of [`orientation_warp`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OrientationWarpState {
    angle: Option<f32>,
}

impl OrientationWarpState {
    /// Forgets the interpolated angle, so the next frame starts at its target (after a
    /// seek or a clip change).
    pub fn reset(&mut self) {
        self.angle = None;
    }
}

fn wrap_pi(a: f32) -> f32 {
    (a + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI
}

/// The warp for a movement direction `movement_yaw_rad` relative to the clip's travel
/// direction. `dt_secs` 0 (a seek) jumps to the target angle.
pub fn orientation_warp(
    movement_yaw_rad: f32,
    dt_secs: f32,
    settings: &OrientationWarpSettings,
    state: &mut OrientationWarpState,
) -> Result<OrientationWarp, AnimError> {
    for (what, v) in [
        ("movement direction", movement_yaw_rad),
        ("frame time", dt_secs),
        ("body share", settings.body_share),
        ("interpolation speed", settings.interp_speed),
    ] {
        if !v.is_finite() {
            return Err(AnimError::NonFinite {
                what: format!("orientation warping: {what}"),
            });
        }
    }
    if !settings.enabled {
        state.reset();
        return Ok(OrientationWarp {
            angle_rad: 0.0,
            flipped: false,
            body_yaw_rad: 0.0,
            spine_yaw_rad: 0.0,
            stride_yaw_rad: wrap_pi(movement_yaw_rad),
        });
    }
    let mut target = wrap_pi(movement_yaw_rad);
    let flipped = target.abs() > std::f32::consts::FRAC_PI_2 + 1e-6;
    if flipped {
        target = wrap_pi(target - std::f32::consts::PI.copysign(target));
    }
    let angle = match state.angle {
        Some(prev) if dt_secs > 0.0 && settings.interp_speed > 0.0 => {
            prev + wrap_pi(target - prev) * (dt_secs * settings.interp_speed).min(1.0)
        }
        _ => target,
    };
    state.angle = Some(angle);
    let body = angle * settings.body_share.clamp(0.0, 1.0);
    Ok(OrientationWarp {
        angle_rad: angle,
        flipped,
        body_yaw_rad: body,
        spine_yaw_rad: -body,
        stride_yaw_rad: angle - body,
    })
}

/// The spine between the pelvis and the head: the head's ancestors strictly below
/// `pelvis` and the head's parent chain up to it, pelvis side first. The head is the
/// first joint below the pelvis whose name contains "head" (case-insensitive); without
/// one the chain is empty (no counter-rotation).
pub fn spine_chain(skeleton: &Skeleton, pelvis: usize) -> Vec<usize> {
    let Some(head) = (0..skeleton.joint_count()).find(|&j| {
        j != pelvis
            && skeleton.is_ancestor_or_self(pelvis, j)
            && skeleton.names()[j].to_ascii_lowercase().contains("head")
    }) else {
        return Vec::new();
    };
    let mut chain = Vec::new();
    let mut j = skeleton.parents()[head];
    while let Some(p) = j {
        if p == pelvis {
            break;
        }
        chain.push(p);
        j = skeleton.parents()[p];
    }
    chain.reverse();
    chain
}

/// Turns the spine joints about +Y (model space) by `yaw_rad` in total, an equal share
/// each, so the joints above them turn by the whole angle. Updates `local` and the
/// model transforms below the first spine joint.
pub fn counter_rotate_spine(
    parents: &[Option<usize>],
    spine: &[usize],
    yaw_rad: f32,
    local: &mut [Transform],
    model_from_joint: &mut [Mat4],
) -> Result<(), AnimError> {
    if spine.is_empty() || yaw_rad == 0.0 {
        return Ok(());
    }
    if !yaw_rad.is_finite() {
        return Err(AnimError::NonFinite {
            what: "spine counter-rotation".into(),
        });
    }
    let share = Quat::from_axis_angle(Vec3::Y, yaw_rad / spine.len() as f32);
    for &j in spine {
        if j >= local.len() || j >= model_from_joint.len() {
            return Err(AnimError::JointOutOfRange {
                what: "spine joint".into(),
                joint: j,
                joint_count: local.len(),
            });
        }
        rotate_joint_model(local, model_from_joint, j, share);
        LocalToModelJob {
            parents,
            local,
            model_from_root: Mat4::IDENTITY,
        }
        .run_subtree(j, model_from_joint)?;
    }
    Ok(())
}
