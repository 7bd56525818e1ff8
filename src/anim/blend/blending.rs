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

use crate::{AnimError, Transform};

/// Contributing layers of one run, on the stack (no allocation per frame).
type Inline<T> = smallvec::SmallVec<[T; 8]>;

/// Where every weighted sum starts: -0, the exact identity of IEEE addition (`-0 + x` is
/// `x` for every `x`, -0 included; `+0 + -0` is `+0`). A sum is then the first
/// contribution and the ones after it, as ozz-animation's blend (which sets its
/// accumulators from the first layer) computes it, and the compiler drops the start:
/// about 10 fewer additions per block of four joints in the SoA job, which must give
/// the same bits ([`super::soa`]).
pub(crate) const SUM_START: f32 = -0.0;

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
        if self.layers.iter().all(|l| l.joint_weights.is_none()) {
            return self.run_uniform(output);
        }
        for (j, out) in output.iter_mut().enumerate() {
            *out = self.blend_joint(j);
        }
        Ok(())
    }

    /// Every layer weighs the same on every joint (no per-joint weights), so the cases of
    /// the module table are the same for all joints: they are decided once, and the
    /// normalised weights computed once. The arithmetic per joint is that of
    /// [`Self::blend_joint`], in the same order, so both paths give identical bits.
    fn run_uniform(&self, output: &mut [Transform]) -> Result<(), AnimError> {
        let mut contributors: Inline<(&[Transform], f32)> = Inline::new();
        let mut total = 0.0f32;
        for layer in self.layers {
            if layer.weight > 0.0 {
                total += layer.weight;
                contributors.push((layer.pose, layer.weight));
            }
        }
        match contributors.len() {
            0 => {
                output.copy_from_slice(self.rest_pose);
                return Ok(());
            }
            // Below the threshold the rest pose joins per joint: the general path.
            _ if total < self.threshold => {
                for (j, out) in output.iter_mut().enumerate() {
                    *out = self.blend_joint(j);
                }
                return Ok(());
            }
            1 => {
                output.copy_from_slice(contributors[0].0);
                return Ok(());
            }
            _ => {}
        }
        let inv_total = 1.0 / total;
        for c in &mut contributors {
            c.1 *= inv_total;
        }
        if let [(a, wa), (b, wb)] = contributors[..] {
            // The common cross-fade, without the inner loop over layers.
            for (j, out) in output.iter_mut().enumerate() {
                let (x, y) = (&a[j], &b[j]);
                let qa = Vec4::from(x.rotation);
                let qb = Vec4::from(y.rotation);
                let qb = if dot4(qa, qb) < 0.0 { -qb } else { qb };
                // `-0 + x` is `x` exactly: no addition is compiled (see `SUM_START`).
                let rotation = Vec4::splat(SUM_START) + qa * wa + qb * wb;
                *out = Transform {
                    translation: Vec3::splat(SUM_START) + x.translation * wa + y.translation * wb,
                    rotation: normalize_or(rotation, qa),
                    scale: Vec3::splat(SUM_START) + x.scale * wa + y.scale * wb,
                };
            }
            return Ok(());
        }
        for (j, out) in output.iter_mut().enumerate() {
            let first = Vec4::from(contributors[0].0[j].rotation);
            let mut translation = Vec3::splat(SUM_START);
            let mut scale = Vec3::splat(SUM_START);
            let mut rotation = Vec4::splat(SUM_START);
            for &(pose, w) in &contributors {
                let t = &pose[j];
                translation += t.translation * w;
                scale += t.scale * w;
                let q = Vec4::from(t.rotation);
                rotation += if dot4(first, q) < 0.0 { -q } else { q } * w;
            }
            *out = Transform {
                translation,
                rotation: normalize_or(rotation, first),
                scale,
            };
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
        if !all_finite(self.rest_pose) {
            let j = self
                .rest_pose
                .iter()
                .position(|t| !t.is_finite())
                .unwrap_or(0);
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
            if !all_finite(layer.pose) {
                let j = layer.pose.iter().position(|t| !t.is_finite()).unwrap_or(0);
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
        let mut translation = Vec3::splat(SUM_START);
        let mut scale = Vec3::splat(SUM_START);
        let mut rotation = Vec4::splat(SUM_START);
        let mut hemisphere: Option<Vec4> = None;
        let mut add = |t: &Transform, w: f32| {
            let w = w * inv_total;
            translation += t.translation * w;
            scale += t.scale * w;
            let q = Vec4::from(t.rotation);
            let first = *hemisphere.get_or_insert(q);
            rotation += if dot4(first, q) < 0.0 { -q } else { q } * w;
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
        let rotation = match hemisphere {
            Some(first) => normalize_or(rotation, first),
            None => rest.rotation,
        };
        Transform {
            translation,
            rotation,
            scale,
        }
    }
}

/// `a · b` summed as `(x·x' + z·z') + (y·y' + w·w')` on every platform: glam's `Vec4::dot`
/// groups the sum differently on NEON and without SIMD, and the SoA job (which must give
/// the same bits) sums its lanes in this order.
#[inline(always)]
fn dot4(a: Vec4, b: Vec4) -> f32 {
    let p = a * b;
    (p.x + p.z) + (p.y + p.w)
}

/// `q / |q|` (as `q * (1 / |q|)`, the arithmetic of the SoA job, so both give the same
/// bits), or `fallback` where `|q|` is (almost) 0: the sum of hemisphere-aligned unit
/// quaternions with positive weights only vanishes when two exactly opposite rotations
/// (180 degrees apart) cancel, and the first input's rotation beats a NaN there.
#[inline(always)]
fn normalize_or(q: Vec4, fallback: Vec4) -> Quat {
    let len = dot4(q, q).sqrt();
    if len > 1e-12 {
        Quat::from_vec4(q * (1.0 / len))
    } else {
        Quat::from_vec4(fallback)
    }
}

/// Whether every component of every transform is finite, in one branch-free pass (`x * 0`
/// is ±0 for finite `x` and NaN for infinities and NaN, and NaN survives the sum), so the
/// per-run check costs little next to the blend itself.
fn all_finite(pose: &[Transform]) -> bool {
    let mut acc = Vec4::ZERO;
    for t in pose {
        let r = Vec4::from(t.rotation);
        let ts = Vec4::new(t.translation.x, t.translation.y, t.translation.z, t.scale.x);
        let s = Vec4::new(t.scale.y, t.scale.z, 0.0, 0.0);
        acc += r * 0.0 + ts * 0.0 + s * 0.0;
    }
    acc == Vec4::ZERO
}

/// A blend weight must be finite and `>= 0`; `what` names it in the error.
#[inline]
pub(crate) fn check_weight(w: f32, what: impl Fn() -> String) -> Result<(), AnimError> {
    // Checked every frame for every layer: the test inline, the message out of line.
    if w.is_finite() && w >= 0.0 {
        Ok(())
    } else {
        Err(weight_error(w, what()))
    }
}

#[cold]
fn weight_error(w: f32, what: String) -> AnimError {
    if !w.is_finite() {
        AnimError::NonFinite { what }
    } else {
        AnimError::OutOfRange {
            what,
            detail: format!("{w} is negative; blend weights must be >= 0"),
        }
    }
}
