//! Weighted N-way blending of local poses (SPEC section 4), like ozz-animation's
//! `BlendingJob`.
//!
//! For every joint `j` each layer `i` has the effective weight
//! `e_i = layer.weight * joint_weights[j]` (joint weight 1 when the layer has none), and
//! `total = Σ e_i`. Then, in this order:
//!
//! | case                                   | output for joint `j`                          |
//! |----------------------------------------|-----------------------------------------------|
//! | `total == 0`                           | the rest pose, copied                         |
//! | `total < threshold`                    | blend of the layers and the rest pose, the rest weighted `threshold - total` (so the pose fades into rest continuously instead of jumping) |
//! | exactly one `e_i > 0`                  | that layer's transform, copied (bit-exact)    |
//! | otherwise                              | normalised blend, weights `e_i / total`       |
//!
//! The copy branches are what make SPEC 4's exact cases exact: `w = 0` gives A and `w = 1`
//! gives B bit for bit, and a joint a mask zeroes on every layer but the base takes the
//! base directly (masked difference exactly 0.0), not through a weighted sum.
//!
//! Blend per channel: translation and scale are weighted sums; rotation is the weighted sum
//! of quaternions, each flipped into the hemisphere of the first contributing one (q and
//! -q are the same rotation; without the flip two nearly equal rotations stored with
//! opposite signs would cancel), then normalised. For two rotations that is exactly the
//! angle bisector at 50/50. Two layers at 0.5/0.5 give translation `(A + B) / 2` exactly:
//! the normalised weights are exact powers of two and scaling by 0.5 commutes with
//! rounding.

use glam::{Quat, Vec3, Vec4};

use crate::anim::{AnimError, Transform};

/// One input of a [`BlendingJob`].
#[derive(Clone, Copy, Debug)]
pub struct BlendLayer<'a> {
    /// Local pose (parent space), one transform per joint.
    pub pose: &'a [Transform],
    /// Layer weight, finite and `>= 0`. Weights need not sum to 1: the job normalises.
    pub weight: f32,
    /// Optional per-joint weights (e.g. [`super::mask::JointMask::weights`]), finite and
    /// `>= 0`, multiplied into `weight`; `None` means 1 for every joint.
    pub joint_weights: Option<&'a [f32]>,
}

/// Blends local poses into one local pose. See the module docs for the rule per joint.
#[derive(Clone, Copy, Debug)]
pub struct BlendingJob<'a> {
    /// The inputs, in any order (the first contributing one decides the rotation
    /// hemisphere). May be empty: the output is then the rest pose.
    pub layers: &'a [BlendLayer<'a>],
    /// Rest pose (parent space), one per joint: used where the summed weight is below
    /// `threshold`.
    pub rest_pose: &'a [Transform],
    /// Summed weight below which the rest pose is blended in; finite and `>= 0` (0 turns
    /// the rest fallback off except where every weight is 0).
    pub threshold: f32,
}

impl BlendingJob<'_> {
    /// ozz-animation's default: a joint whose layers sum to less than 0.1 fades into rest.
    pub const DEFAULT_THRESHOLD: f32 = 0.1;

    /// Writes the blended local pose into `output` (one transform per joint of
    /// `rest_pose`). Validates everything before writing anything; never allocates.
    pub fn run(&self, output: &mut [Transform]) -> Result<(), AnimError> {
        self.validate(output)?;
        for (j, out) in output.iter_mut().enumerate() {
            *out = self.blend_joint(j);
        }
        Ok(())
    }

    fn validate(&self, output: &[Transform]) -> Result<(), AnimError> {
        let n = self.rest_pose.len();
        if output.len() != n {
            return Err(AnimError::LengthMismatch {
                what: "blend output",
                expected: n,
                actual: output.len(),
            });
        }
        if !self.threshold.is_finite() || self.threshold < 0.0 {
            return Err(AnimError::OutOfRange {
                what: "blend threshold".into(),
                detail: format!("{} must be finite and >= 0", self.threshold),
            });
        }
        if let Some(j) = self.rest_pose.iter().position(|t| !t.is_finite()) {
            return Err(AnimError::NonFinite {
                what: format!("blend rest pose, joint {j}"),
            });
        }
        for (i, layer) in self.layers.iter().enumerate() {
            if layer.pose.len() != n {
                return Err(AnimError::LengthMismatch {
                    what: "blend layer pose",
                    expected: n,
                    actual: layer.pose.len(),
                });
            }
            check_weight(layer.weight, || format!("blend layer {i} weight"))?;
            if let Some(weights) = layer.joint_weights {
                if weights.len() != n {
                    return Err(AnimError::LengthMismatch {
                        what: "blend layer joint weights",
                        expected: n,
                        actual: weights.len(),
                    });
                }
                for (j, &w) in weights.iter().enumerate() {
                    check_weight(w, || format!("blend layer {i} joint weight {j}"))?;
                }
            }
            if let Some(j) = layer.pose.iter().position(|t| !t.is_finite()) {
                return Err(AnimError::NonFinite {
                    what: format!("blend layer {i} pose, joint {j}"),
                });
            }
        }
        Ok(())
    }

    #[inline]
    fn effective_weight(layer: &BlendLayer, j: usize) -> f32 {
        match layer.joint_weights {
            Some(w) => layer.weight * w[j],
            None => layer.weight,
        }
    }

    /// The rule of the module docs for joint `j` (inputs already validated).
    #[inline]
    fn blend_joint(&self, j: usize) -> Transform {
        let mut total = 0.0f32;
        let mut contributors = 0usize;
        let mut single = 0usize;
        for (i, layer) in self.layers.iter().enumerate() {
            let w = Self::effective_weight(layer, j);
            if w > 0.0 {
                total += w;
                contributors += 1;
                single = i;
            }
        }
        let rest = &self.rest_pose[j];
        if contributors == 0 {
            return *rest;
        }
        let below_threshold = total < self.threshold;
        if contributors == 1 && !below_threshold {
            return self.layers[single].pose[j];
        }
        // Below the threshold the rest pose joins with the missing weight, so the weights
        // sum to `threshold`.
        let rest_weight = if below_threshold {
            self.threshold - total
        } else {
            0.0
        };
        let inv_total = 1.0 / (total + rest_weight);
        let mut translation = Vec3::ZERO;
        let mut scale = Vec3::ZERO;
        let mut rotation = Vec4::ZERO;
        let mut hemisphere: Option<Vec4> = None;
        let mut add = |t: &Transform, w: f32| {
            let w = w * inv_total;
            translation += t.translation * w;
            scale += t.scale * w;
            let q = Vec4::from(t.rotation);
            let first = *hemisphere.get_or_insert(q);
            rotation += if first.dot(q) < 0.0 { -q } else { q } * w;
        };
        for layer in self.layers {
            let w = Self::effective_weight(layer, j);
            if w > 0.0 {
                add(&layer.pose[j], w);
            }
        }
        if rest_weight > 0.0 {
            add(rest, rest_weight);
        }
        // The sum of hemisphere-aligned unit quaternions with positive weights has length
        // > 0 unless two exactly opposite rotations (180 degrees apart) cancel; fall back
        // to the first input's rotation there rather than emitting NaN.
        let len = rotation.length();
        let rotation = if len > 1e-12 {
            Quat::from_vec4(rotation / len)
        } else {
            hemisphere.map_or(rest.rotation, Quat::from_vec4)
        };
        Transform {
            translation,
            rotation,
            scale,
        }
    }
}

fn check_weight(w: f32, what: impl Fn() -> String) -> Result<(), AnimError> {
    if !w.is_finite() {
        return Err(AnimError::NonFinite { what: what() });
    }
    if w < 0.0 {
        return Err(AnimError::OutOfRange {
            what: what(),
            detail: format!("{w} is negative; blend weights must be >= 0"),
        });
    }
    Ok(())
}
