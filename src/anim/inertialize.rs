//! Inertialization: a pose jump (a motion-matching switch, an instant transition) without a
//! pop. At the jump, the difference between the pose that was showing and the new one,
//! with its velocity, becomes an offset; the offset is added to every following pose and
//! decays to zero like a critically damped spring with a chosen half-life. The output is
//! continuous in position and velocity at the jump, and converges to the new motion.
//!
//! Per joint, in the joint's parent space: translation offsets are vectors; rotation
//! offsets are rotations, decayed as scaled axis-angle vectors (`log`), applied on the
//! left (`offset * input`). Scale is not offset (it passes through).
//!
//! The spring: for an offset `x` with velocity `v`, `y = 2 ln 2 / half_life`,
//! `j = v + y x`, after `dt`: `x' = e^{-y dt} (x + j dt)`, `v' = e^{-y dt} (v - j y dt)`
//! (exact, so any frame rate gives the same curve). Released from rest (`v = 0`) an offset
//! follows `(1 + y t) e^{-y t}` of its start: 60% after one half-life, 0.77% after five.
//! (`half_life` names the spring's exponential, `e^{-y t}` squared halving each half-life,
//! as in the usual game-animation formulation; the polynomial factor makes the offset
//! itself lag behind it.)
//!
//! Velocities are the caller's (finite differences of the poses it shows), in units per
//! second; rotation velocities as angular velocity vectors (rad/s, parent space).

use glam::{Quat, Vec3};

use super::{AnimError, Transform};

/// Per-joint velocity of a local pose: translation (units/s) and angular velocity (rad/s,
/// parent space).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointVelocity {
    /// Translation velocity, units (metres) per second, parent space.
    pub linear: Vec3,
    /// Angular velocity vector (axis times rad/s), parent space.
    pub angular: Vec3,
}

impl JointVelocity {
    /// Finite-difference velocity from `prev` to `next` over `dt_secs` (> 0).
    pub fn between(prev: &Transform, next: &Transform, dt_secs: f32) -> Self {
        let dq = shortest(next.rotation * prev.rotation.inverse());
        Self {
            linear: (next.translation - prev.translation) / dt_secs,
            angular: dq.to_scaled_axis() / dt_secs,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Offset {
    translation: Vec3,
    linear: Vec3,
    /// Scaled axis-angle of the rotation offset.
    rotation: Vec3,
    angular: Vec3,
}

/// The decaying offsets of one character.
#[derive(Clone, Debug)]
pub struct Inertializer {
    offsets: Vec<Offset>,
    half_life_secs: f32,
}

fn shortest(q: Quat) -> Quat {
    if q.w < 0.0 {
        -q
    } else {
        q
    }
}

fn check_len(what: &'static str, expected: usize, actual: usize) -> Result<(), AnimError> {
    if expected == actual {
        Ok(())
    } else {
        Err(AnimError::LengthMismatch {
            what,
            expected,
            actual,
        })
    }
}

impl Inertializer {
    /// Heap bytes of the per-joint offsets (their capacity).
    pub fn retained_bytes(&self) -> usize {
        self.offsets.capacity() * std::mem::size_of::<Offset>()
    }

    /// No offset yet, for `joint_count` joints; `half_life_secs` finite and `> 0`.
    pub fn new(joint_count: usize, half_life_secs: f32) -> Result<Self, AnimError> {
        if !(half_life_secs.is_finite() && half_life_secs > 0.0) {
            return Err(AnimError::OutOfRange {
                what: "inertialization half-life".into(),
                detail: format!("{half_life_secs} s must be finite and > 0"),
            });
        }
        Ok(Self {
            offsets: vec![Offset::default(); joint_count],
            half_life_secs,
        })
    }

    /// Half-life of the offsets' decay, seconds (> 0).
    pub fn half_life_secs(&self) -> f32 {
        self.half_life_secs
    }

    /// Changes the half-life (finite, `> 0`); offsets and their velocities carry on.
    pub fn set_half_life_secs(&mut self, half_life_secs: f32) -> Result<(), AnimError> {
        if !(half_life_secs.is_finite() && half_life_secs > 0.0) {
            return Err(AnimError::OutOfRange {
                what: "inertialization half-life".into(),
                detail: format!("{half_life_secs} s must be finite and > 0"),
            });
        }
        self.half_life_secs = half_life_secs;
        Ok(())
    }

    /// A jump from the pose that was showing (`from`, its input before the offset, with
    /// its velocity) to the new motion (`to`, with its velocity): the offsets become
    /// what makes the output continue exactly from where it was. Offsets still decaying
    /// from an earlier jump are carried over (an interrupted blend never pops either).
    pub fn transition(
        &mut self,
        from: &[Transform],
        from_velocity: &[JointVelocity],
        to: &[Transform],
        to_velocity: &[JointVelocity],
    ) -> Result<(), AnimError> {
        let n = self.offsets.len();
        check_len("inertialization source pose", n, from.len())?;
        check_len("inertialization source velocity", n, from_velocity.len())?;
        check_len("inertialization target pose", n, to.len())?;
        check_len("inertialization target velocity", n, to_velocity.len())?;
        if from.iter().chain(to).any(|t| !t.is_finite()) {
            return Err(AnimError::NonFinite {
                what: "inertialization pose".into(),
            });
        }
        for (j, o) in self.offsets.iter_mut().enumerate() {
            let (a, b) = (&from[j], &to[j]);
            let (va, vb) = (from_velocity[j], to_velocity[j]);
            o.translation = (a.translation + o.translation) - b.translation;
            o.linear = (va.linear + o.linear) - vb.linear;
            let shown = Quat::from_scaled_axis(o.rotation) * a.rotation;
            o.rotation = shortest(shown * b.rotation.inverse()).to_scaled_axis();
            o.angular = (va.angular + o.angular) - vb.angular;
        }
        Ok(())
    }

    /// Decays every offset by `dt_secs` (>= 0) of the spring.
    pub fn update(&mut self, dt_secs: f32) -> Result<(), AnimError> {
        if !(dt_secs.is_finite() && dt_secs >= 0.0) {
            return Err(AnimError::OutOfRange {
                what: "inertialization time step".into(),
                detail: format!("{dt_secs} s must be finite and >= 0"),
            });
        }
        let y = 2.0 * std::f32::consts::LN_2 / self.half_life_secs;
        let e = (-y * dt_secs).exp();
        let decay = |x: &mut Vec3, v: &mut Vec3| {
            let j = *v + *x * y;
            *x = e * (*x + j * dt_secs);
            *v = e * (*v - j * (y * dt_secs));
        };
        for o in &mut self.offsets {
            decay(&mut o.translation, &mut o.linear);
            decay(&mut o.rotation, &mut o.angular);
        }
        Ok(())
    }

    /// `output = offset + input` per joint (translation added, rotation offset applied on
    /// the left, scale passed through).
    pub fn apply(&self, input: &[Transform], output: &mut [Transform]) -> Result<(), AnimError> {
        let n = self.offsets.len();
        check_len("inertialization input pose", n, input.len())?;
        check_len("inertialization output pose", n, output.len())?;
        for ((o, t), out) in self.offsets.iter().zip(input).zip(output) {
            *out = Transform {
                translation: t.translation + o.translation,
                rotation: (Quat::from_scaled_axis(o.rotation) * t.rotation).normalize(),
                scale: t.scale,
            };
        }
        Ok(())
    }

    /// The largest remaining offset: translation (units) and rotation (radians).
    pub fn remaining(&self) -> (f32, f32) {
        self.offsets.iter().fold((0.0f32, 0.0f32), |(t, r), o| {
            (t.max(o.translation.length()), r.max(o.rotation.length()))
        })
    }
}
