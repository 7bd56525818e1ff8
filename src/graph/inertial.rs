//! Inertialized state-machine transitions (`inertialize: HALF_LIFE` on a transition):
//! the graph switches to the destination at once and this stage keeps the output
//! continuous. At the switch frame it shows the pose that was showing, carried on one
//! frame by its velocity (the old state is no longer evaluated); on the next frame,
//! when the destination's own velocity is known (a backward difference over that
//! frame), the offset and its velocity start decaying through
//! [`crate::anim::inertialize::Inertializer`]. A seek drops any offset.

use crate::anim::inertialize::{Inertializer, JointVelocity};
use crate::anim::{AnimError, Transform};

#[derive(Clone, Debug)]
struct Pending {
    half_life_secs: f32,
    from: Vec<Transform>,
    from_velocity: Vec<JointVelocity>,
    /// The destination's pose at the switch, before any offset.
    to: Vec<Transform>,
}

/// The stage's state, kept by the pose graph.
#[derive(Clone, Debug, Default)]
pub(super) struct TransitionInertia {
    /// Off for graphs without inertialized transitions (nothing to track).
    enabled: bool,
    /// The output of the last played frame and its velocity.
    shown: Vec<Transform>,
    velocity: Vec<JointVelocity>,
    pending: Option<Pending>,
    active: Option<Inertializer>,
    raw: Vec<Transform>,
}

/// `t` carried on by `v` for `dt` seconds.
fn extrapolate(t: &Transform, v: &JointVelocity, dt: f32) -> Transform {
    Transform {
        translation: t.translation + v.linear * dt,
        rotation: (glam::Quat::from_scaled_axis(v.angular * dt) * t.rotation).normalize(),
        scale: t.scale,
    }
}

impl TransitionInertia {
    pub(super) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            ..Self::default()
        }
    }

    /// Whether an offset is being applied (or about to be).
    pub(super) fn is_active(&self) -> bool {
        self.pending.is_some() || self.active.is_some()
    }

    /// Forgets every offset and the velocity (a seek).
    pub(super) fn reset(&mut self, output: &[Transform]) {
        self.pending = None;
        self.active = None;
        self.shown.clear();
        self.shown.extend_from_slice(output);
        self.velocity.clear();
        self.velocity.resize(output.len(), JointVelocity::default());
    }

    /// Whether [`Self::process`] changes poses (the graph has inertialized transitions).
    pub(super) fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Post-processes the graph's freshly blended `pose` in place. `dt_secs` is the wall
    /// time of this frame (0 for a re-evaluation without playing), `jump` the half-life
    /// when an inertialized transition switched in this frame.
    pub(super) fn process(
        &mut self,
        pose: &mut [Transform],
        dt_secs: f32,
        jump: Option<f32>,
    ) -> Result<(), AnimError> {
        if !self.enabled {
            return Ok(());
        }
        let n = pose.len();
        if self.shown.len() != n {
            self.reset(pose);
        }
        self.raw.clear();
        self.raw.extend_from_slice(pose);
        if let Some(h) = jump {
            let from: Vec<Transform> = self
                .shown
                .iter()
                .zip(&self.velocity)
                .map(|(t, v)| extrapolate(t, v, dt_secs))
                .collect();
            self.pending = Some(Pending {
                half_life_secs: h,
                from_velocity: self.velocity.clone(),
                to: self.raw.clone(),
                from: from.clone(),
            });
            self.active = None;
            pose.copy_from_slice(&from);
        } else if let Some(p) = self.pending.as_ref() {
            if dt_secs > 0.0 {
                let to_velocity: Vec<JointVelocity> =
                    p.to.iter()
                        .zip(&self.raw)
                        .map(|(a, b)| JointVelocity::between(a, b, dt_secs))
                        .collect();
                let mut inert = Inertializer::new(n, p.half_life_secs)?;
                inert.transition(&p.from, &p.from_velocity, &p.to, &to_velocity)?;
                inert.update(dt_secs)?;
                inert.apply(&self.raw, pose)?;
                self.active = Some(inert);
                self.pending = None;
            } else {
                // Re-evaluated before the next frame (a parameter edit while paused):
                // start decaying now, without the velocity match, so the edit shows.
                let mut inert = Inertializer::new(n, p.half_life_secs)?;
                inert.transition(&p.from, &p.from_velocity, &p.to, &p.from_velocity)?;
                inert.apply(&self.raw, pose)?;
                self.active = Some(inert);
                self.pending = None;
            }
        } else if let Some(inert) = self.active.as_mut() {
            if dt_secs > 0.0 {
                inert.update(dt_secs)?;
            }
            inert.apply(&self.raw, pose)?;
            // Done once nothing visible is left (0.01 mm, 0.001°).
            let (t, r) = inert.remaining();
            if t < 1e-5 && r < 2e-5 {
                self.active = None;
            }
        }
        if dt_secs > 0.0 {
            for ((v, a), b) in self.velocity.iter_mut().zip(&self.shown).zip(pose.iter()) {
                *v = JointVelocity::between(a, b, dt_secs);
            }
            self.shown.copy_from_slice(pose);
        } else if !self.is_active() {
            self.shown.copy_from_slice(pose);
        }
        Ok(())
    }
}
