//! Additive layers (SPEC section 4): a layer stores how a pose differs from a reference
//! pose (a lean, a breathing cycle, a recoil), and that difference is added to any base.
//!
//! Per joint, with `w = weight * joint_weight`:
//!
//! - translation: `base + w * (add - ref)`,
//! - rotation: `q_base * (q_ref⁻¹ * q_add)^w`, right-multiplied so the offset turns about
//!   the joint's own (local) axes whatever the base's orientation; left-multiplying would
//!   turn it about the parent's axes, changing the axis on a rotated base. The power is a
//!   shortest-arc slerp from identity, so the offset angle is linear in `w`, also outside
//!   [0, 1] (a 35 degree layer: 0 / 17.5 / 35 / 52.5 degrees at w = 0 / 0.5 / 1 / 1.5),
//! - scale: multiplicative, `base * (add / ref)^w` per component. Scales compose by
//!   multiplication, so "10 % bigger than the reference" stays 10 % bigger on a base of
//!   any size, and `w = 0` is factor 1 for every layer (a difference of scales would let
//!   large weights push a scale through 0 to a mirror). A zero reference component gives
//!   factor 1 (see [`Transform::delta`]).
//!
//! `w == 0` copies the base bit-exactly (a branch, not a multiplication by 0).
//!
//! The reference is usually the layer clip's first frame ([`crate::Clip::is_additive`]);
//! the wrong reference pose shows as a constant offset on every base.

use crate::{AnimError, Transform};

/// Adds `weight * (additive - reference)` to `base`, all local poses (parent space).
#[derive(Clone, Copy, Debug)]
pub struct AdditiveJob<'a> {
    /// The pose the layer is added to, one transform per joint.
    pub base: &'a [Transform],
    /// The additive clip's pose at this time.
    pub additive: &'a [Transform],
    /// The pose the additive clip was authored against (same length).
    pub reference: &'a [Transform],
    /// Layer weight, any finite value: 1 = the authored offset, negative subtracts it,
    /// above 1 exaggerates it.
    pub weight: f32,
    /// Optional per-joint weights (e.g. a [`super::mask::JointMask`]), finite and `>= 0`,
    /// multiplied into `weight`.
    pub joint_weights: Option<&'a [f32]>,
}

impl AdditiveJob<'_> {
    /// Writes the layered pose into `output` (a slice separate from the inputs). Validates
    /// everything before writing; never allocates.
    pub fn run(&self, output: &mut [Transform]) -> Result<(), AnimError> {
        let n = self.base.len();
        for (what, len) in [
            ("additive pose", self.additive.len()),
            ("additive reference pose", self.reference.len()),
            ("additive output", output.len()),
        ] {
            if len != n {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected: n,
                    actual: len,
                });
            }
        }
        if !self.weight.is_finite() {
            return Err(AnimError::NonFinite {
                what: "additive weight".into(),
            });
        }
        if let Some(weights) = self.joint_weights {
            if weights.len() != n {
                return Err(AnimError::LengthMismatch {
                    what: "additive joint weights",
                    expected: n,
                    actual: weights.len(),
                });
            }
            for (j, &w) in weights.iter().enumerate() {
                if !w.is_finite() {
                    return Err(AnimError::NonFinite {
                        what: format!("additive joint weight {j}"),
                    });
                }
                if w < 0.0 {
                    return Err(AnimError::OutOfRange {
                        what: format!("additive joint weight {j}"),
                        detail: format!("{w} is negative; joint weights must be >= 0"),
                    });
                }
            }
        }
        for (what, pose) in [
            ("additive base pose", self.base),
            ("additive pose", self.additive),
            ("additive reference pose", self.reference),
        ] {
            if let Some(j) = pose.iter().position(|t| !t.is_finite()) {
                return Err(AnimError::NonFinite {
                    what: format!("{what}, joint {j}"),
                });
            }
        }
        for (j, out) in output.iter_mut().enumerate() {
            let w = match self.joint_weights {
                Some(jw) => self.weight * jw[j],
                None => self.weight,
            };
            *out = if w == 0.0 {
                self.base[j]
            } else {
                let delta = Transform::delta(&self.reference[j], &self.additive[j]);
                self.base[j].apply_delta(&delta, w)
            };
        }
        Ok(())
    }
}

/// Writes the per-joint difference `Transform::delta(reference, additive)` into `out`
/// (e.g. to store a layer once as deltas; re-apply with [`Transform::apply_delta`]).
pub fn additive_delta(
    additive: &[Transform],
    reference: &[Transform],
    out: &mut [Transform],
) -> Result<(), AnimError> {
    let n = additive.len();
    for (what, len) in [
        ("additive reference pose", reference.len()),
        ("additive delta output", out.len()),
    ] {
        if len != n {
            return Err(AnimError::LengthMismatch {
                what,
                expected: n,
                actual: len,
            });
        }
    }
    for (what, pose) in [
        ("additive pose", additive),
        ("additive reference pose", reference),
    ] {
        if let Some(j) = pose.iter().position(|t| !t.is_finite()) {
            return Err(AnimError::NonFinite {
                what: format!("{what}, joint {j}"),
            });
        }
    }
    for ((o, a), r) in out.iter_mut().zip(additive).zip(reference) {
        *o = Transform::delta(r, a);
    }
    Ok(())
}
