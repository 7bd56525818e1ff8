//! Foot locking for motion matching: a foot the playing clip has planted stays where it
//! came down, held there by two-bone IK, until the clip lifts it or the free foot has
//! moved too far from the pin (then it lets go and blends back).
//!
//! Why: a jump blends the old pose into the new one (inertialization), the adjustment
//! moves the character towards the simulation, steering turns it, and the play rate
//! changes its speed; each moves planted feet over the ground. Pinning them is what
//! motion-matching runtimes do after the search (the reference demo's contact IK).
//!
//! Spaces: pins are world positions (metres; y follows the animation, only x and z are
//! held); the pose is local (root motion removed) and placed by `world_from_root`.

use glam::{Mat4, Vec3};

use super::super::contacts::LegChain;
use super::super::locomotion::stride_warp::{FootWarp, LegIkJob, StrideWarpOutput};
use crate::{AnimError, GroundTransform, LocalToModelJob, Skeleton, Transform};

/// How feet are locked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootLockSettings {
    /// A pin further than this from the free foot (horizontal, model units) is let go:
    /// a foot is not dragged across a jump to a very different pose.
    pub unlock_radius: f32,
    /// Seconds over which a released foot blends from its pin back to the animation.
    pub release_secs: f32,
}

impl Default for FootLockSettings {
    fn default() -> Self {
        Self {
            unlock_radius: 0.2,
            release_secs: 0.15,
        }
    }
}

impl FootLockSettings {
    /// Checks that both fields are finite and > 0; the error names the field.
    pub fn validate(&self) -> Result<(), AnimError> {
        for (what, v) in [
            ("unlock_radius", self.unlock_radius),
            ("release_secs", self.release_secs),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(AnimError::OutOfRange {
                    what: format!("motion matching foot lock {what}"),
                    detail: format!("{v} must be > 0"),
                });
            }
        }
        Ok(())
    }
}

/// One leg's pin.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Pin {
    /// Where the planted foot is held (world), while it is.
    at: Option<Vec3>,
    /// Where the foot was shown when its pin was released, blended out from.
    from: Vec3,
    /// 1 at release, down to 0 over `release_secs`.
    fade: f32,
    /// Where the foot was shown last frame (world).
    shown: Vec3,
}

/// Foot-lock state and scratch of one character.
#[derive(Clone, Debug)]
pub struct FootLocker {
    legs: Vec<LegChain>,
    /// The joint the IK job's (unused) pelvis offset would move: the hips.
    pelvis: usize,
    pins: Vec<Pin>,
    model: Vec<Mat4>,
    warp: StrideWarpOutput,
    reached: Vec<bool>,
}

impl FootLocker {
    /// A locker for `legs` of `skeleton`; errors when a joint is out of range.
    pub fn new(skeleton: &Skeleton, legs: Vec<LegChain>, pelvis: usize) -> Result<Self, AnimError> {
        let n = skeleton.joint_count();
        for leg in &legs {
            for j in [leg.thigh, leg.calf, leg.foot].into_iter().chain(leg.toe) {
                if j >= n {
                    return Err(AnimError::JointOutOfRange {
                        what: format!("foot lock: leg '{}'", leg.name),
                        joint: j,
                        joint_count: n,
                    });
                }
            }
        }
        if pelvis >= n {
            return Err(AnimError::JointOutOfRange {
                what: "foot lock: hips".into(),
                joint: pelvis,
                joint_count: n,
            });
        }
        Ok(Self {
            pins: vec![Pin::default(); legs.len()],
            warp: StrideWarpOutput {
                feet: vec![FootWarp::default(); legs.len()],
                ..Default::default()
            },
            legs,
            pelvis,
            model: vec![Mat4::IDENTITY; n],
            reached: Vec::new(),
        })
    }

    /// The locked legs, in the order planted flags are given to [`FootLocker::apply`].
    pub fn legs(&self) -> &[LegChain] {
        &self.legs
    }

    /// Drops every pin (a reset, or a replay that starts over).
    pub fn clear(&mut self) {
        self.pins.fill(Pin::default());
    }

    /// Bytes held (for the recording's budget).
    pub fn retained_bytes(&self) -> usize {
        self.legs.capacity() * std::mem::size_of::<LegChain>()
            + self.legs.iter().map(|l| l.name.capacity()).sum::<usize>()
            + self.pins.capacity() * std::mem::size_of::<Pin>()
            + self.model.capacity() * std::mem::size_of::<Mat4>()
            + self.warp.feet.capacity() * std::mem::size_of::<FootWarp>()
            + self.reached.capacity()
    }

    /// One frame: `planted[i]` says whether the playing clip has leg `i` down now;
    /// `local` (root motion removed, placed by `world_from_root`) is edited in place.
    pub fn apply(
        &mut self,
        skeleton: &Skeleton,
        world_from_root: &GroundTransform,
        planted: &[bool],
        dt_secs: f32,
        settings: &FootLockSettings,
        local: &mut [Transform],
    ) -> Result<(), AnimError> {
        if planted.len() != self.legs.len() {
            return Err(AnimError::LengthMismatch {
                what: "foot lock: planted flags",
                expected: self.legs.len(),
                actual: planted.len(),
            });
        }
        if self.legs.is_empty() {
            return Ok(());
        }
        LocalToModelJob {
            parents: skeleton.parents(),
            local,
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut self.model)?;
        let world = world_from_root.to_mat4();
        let root_from_world = world.inverse();
        let mut moved = false;
        for (i, leg) in self.legs.iter().enumerate() {
            let free_model = self.model[leg.foot].w_axis.truncate();
            let free = world.transform_point3(free_model);
            let pin = &mut self.pins[i];
            let held = |at: Vec3| Vec3::new(at.x, free.y, at.z);
            let flat = |a: Vec3, b: Vec3| Vec3::new(a.x - b.x, 0.0, a.z - b.z).length();
            // What the foot is held to: its pin while planted (re-pinned where it is
            // when the pin is too far), the animation otherwise ...
            let base = if planted[i] {
                let at = *pin.at.get_or_insert(free);
                if flat(at, free) > settings.unlock_radius {
                    pin.from = pin.shown;
                    pin.fade = 1.0;
                    pin.at = Some(free);
                    held(free)
                } else {
                    held(at)
                }
            } else {
                if pin.at.take().is_some() {
                    pin.from = pin.shown;
                    pin.fade = 1.0;
                }
                free
            };
            // ... and after a release, blended in from where it was shown.
            pin.fade = (pin.fade - dt_secs / settings.release_secs).max(0.0);
            let want = if pin.fade > 0.0 {
                base.lerp(held(pin.from), pin.fade)
            } else {
                base
            };
            pin.shown = want;
            let target = root_from_world.transform_point3(want);
            moved |= target.distance_squared(free_model) > 1e-12;
            self.warp.feet[i] = FootWarp {
                fk_foot: free_model,
                target,
                ..FootWarp::default()
            };
        }
        if !moved {
            return Ok(());
        }
        LegIkJob {
            parents: skeleton.parents(),
            legs: &self.legs,
            pelvis: self.pelvis,
            warp: &self.warp,
            thigh_compensation: false,
            soften: 1.0,
            model_from_root: Mat4::IDENTITY,
            forward: Vec3::Z,
        }
        .run(local, &mut self.model, &mut self.reached)
    }
}
