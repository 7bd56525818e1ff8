//! [`BlendingJob`](super::blending::BlendingJob) on structure-of-arrays poses
//! ([`SoaTransform`] blocks of four joints): the same rule per joint (see
//! [`super::blending`]'s table), computed four joints at a time with vertical SIMD
//! operations. On finite inputs every joint is what `BlendingJob` gives for it, bit for bit
//! (the same operations in the same order), so a pose graph may blend in either layout.
//!
//! Values are checked where they reach the output, not in separate passes over every
//! input: a running sum of the written vectors stays finite unless a non-finite value was
//! blended in (a NaN or an infinity survives the weighted sums; overflow of the sum alone
//! is told apart by an exact re-check). On that error the output is reset to the rest
//! pose and the error names the first non-finite input joint. Unlike `BlendingJob`, a
//! non-finite rest-pose joint that no joint falls back to is not an error.

use glam::{BVec4A, Vec4};

use super::blending::{check_weight, SUM_START};
use crate::soa::SoaTransform;
use crate::AnimError;

/// Contributing layers of one run, on the stack (no allocation per frame).
type Inline<T> = smallvec::SmallVec<[T; 8]>;

/// One input of a [`SoaBlendingJob`].
#[derive(Clone, Copy, Debug)]
pub struct SoaBlendLayer<'a> {
    /// Local pose (parent space), one block per four joints.
    pub pose: &'a [SoaTransform],
    /// Layer weight, finite and `>= 0`. Weights need not sum to 1: the job normalises.
    pub weight: f32,
    /// Optional per-joint weights, four joints per vector (lane `j % 4` of entry `j / 4`,
    /// see [`soa_joint_weights`]), finite and `>= 0`, multiplied into `weight`; `None`
    /// means 1 for every joint.
    pub joint_weights: Option<&'a [Vec4]>,
}

/// Per-joint weights (one per joint, e.g. [`super::mask::JointMask::weights`]) packed four
/// to a vector for [`SoaBlendLayer::joint_weights`]; padding lanes weigh 0.
pub fn soa_joint_weights(weights: &[f32]) -> Vec<Vec4> {
    weights
        .chunks(4)
        .map(|c| Vec4::from_array(std::array::from_fn(|i| c.get(i).copied().unwrap_or(0.0))))
        .collect()
}

/// Blends SoA local poses into one. See [`super::blending`] for the rule per joint.
#[derive(Clone, Copy, Debug)]
pub struct SoaBlendingJob<'a> {
    /// The inputs, in any order (the first contributing one decides the rotation
    /// hemisphere). May be empty: the output is then the rest pose.
    pub layers: &'a [SoaBlendLayer<'a>],
    /// Rest pose in blocks: used where the summed weight is below `threshold`.
    pub rest_pose: &'a [SoaTransform],
    /// Summed weight below which the rest pose is blended in; finite and `>= 0`.
    pub threshold: f32,
}

/// Running sum of the written vectors (see the module docs).
#[derive(Clone, Copy)]
struct Guard(Vec4);

impl Guard {
    #[inline(always)]
    fn add(&mut self, t: &SoaTransform) {
        let [a, b, c] = t.translation;
        let [d, e, f, g] = t.rotation;
        let [h, i, k] = t.scale;
        self.0 += ((a + b) + (c + d)) + ((e + f) + (g + h)) + (i + k);
    }
}

/// `q / |q|` lane by lane, summing `(x² + z²) + (y² + w²)` as the per-joint job does,
/// or `fallback` where `|q| <= 1e-12`. A NaN length is not small: its lane stays NaN, so
/// a non-finite rotation in any contributing input reaches the output's check (a test for
/// `|q| > 1e-12` would hand such a lane the finite fallback).
#[inline(always)]
fn normalize_or(q: [Vec4; 4], fallback: [Vec4; 4]) -> [Vec4; 4] {
    let len = ((q[0] * q[0] + q[2] * q[2]) + (q[1] * q[1] + q[3] * q[3])).sqrt();
    let small = len.cmple(Vec4::splat(1e-12));
    // One division and four products instead of four divisions, as the per-joint job.
    let inv = Vec4::ONE / len;
    std::array::from_fn(|c| Vec4::select(small, fallback[c], q[c] * inv))
}

/// `a · b` lane by lane, summed as the per-joint job sums it.
#[inline(always)]
fn dot(a: &[Vec4; 4], b: &[Vec4; 4]) -> Vec4 {
    (a[0] * b[0] + a[2] * b[2]) + (a[1] * b[1] + a[3] * b[3])
}

/// Weighted sums of a block's components.
struct Sum {
    translation: [Vec4; 3],
    rotation: [Vec4; 4],
    scale: [Vec4; 3],
}

impl Sum {
    /// Every sum at [`SUM_START`].
    #[inline(always)]
    fn new() -> Self {
        let start = Vec4::splat(SUM_START);
        Self {
            translation: [start; 3],
            rotation: [start; 4],
            scale: [start; 3],
        }
    }

    /// The blended block: the rotation sum normalised (`first` where it vanishes).
    #[inline(always)]
    fn finish(self, first: [Vec4; 4]) -> SoaTransform {
        SoaTransform {
            translation: self.translation,
            rotation: normalize_or(self.rotation, first),
            scale: self.scale,
        }
    }
}

/// Adds `t * w` to `sum`, each rotation flipped into `first`'s hemisphere (as the per-joint
/// job: `-q * w` is `-(q * w)` exactly).
#[inline(always)]
fn accumulate(sum: &mut Sum, t: &SoaTransform, w: Vec4, first: &[Vec4; 4]) {
    accumulate_where(sum, t, w, first, BVec4A::splat(true));
}

/// [`accumulate`] in the lanes of `contributes`; the other lanes add `-|v * 0|`: -0 (the
/// sum unchanged, as the per-joint job skipping them) for finite `v`, NaN otherwise (so a
/// non-finite input still reaches the output's check).
#[inline(always)]
fn accumulate_where(
    sum: &mut Sum,
    t: &SoaTransform,
    w: Vec4,
    first: &[Vec4; 4],
    contributes: BVec4A,
) {
    let sign = Vec4::select(
        dot(first, &t.rotation).cmplt(Vec4::ZERO),
        Vec4::NEG_ONE,
        Vec4::ONE,
    );
    let term = |v: Vec4| Vec4::select(contributes, v * w, -(v * Vec4::ZERO).abs());
    for c in 0..3 {
        sum.translation[c] += term(t.translation[c]);
        sum.scale[c] += term(t.scale[c]);
    }
    for (r, q) in sum.rotation.iter_mut().zip(&t.rotation) {
        *r += term(*q * sign);
    }
}

#[inline(always)]
fn select(mask: BVec4A, a: &SoaTransform, b: &SoaTransform) -> SoaTransform {
    SoaTransform {
        translation: std::array::from_fn(|c| {
            Vec4::select(mask, a.translation[c], b.translation[c])
        }),
        rotation: std::array::from_fn(|c| Vec4::select(mask, a.rotation[c], b.rotation[c])),
        scale: std::array::from_fn(|c| Vec4::select(mask, a.scale[c], b.scale[c])),
    }
}

impl SoaBlendingJob<'_> {
    /// ozz-animation's default, as [`super::blending::BlendingJob::DEFAULT_THRESHOLD`].
    pub const DEFAULT_THRESHOLD: f32 = 0.1;

    /// Writes the blended local pose into `output` (as many blocks as `rest_pose`). Lengths
    /// and weights are validated before anything is written; values as described in the
    /// module docs. Never allocates.
    pub fn run(&self, output: &mut [SoaTransform]) -> Result<(), AnimError> {
        self.validate(output)?;
        let guard = if self.layers.iter().all(|l| l.joint_weights.is_none()) {
            self.run_uniform(output)
        } else {
            self.run_general(output)
        };
        match guard {
            Some(g) if g.0.is_finite() => Ok(()),
            _ => self.check_output(output),
        }
    }

    /// No per-joint weights: the case of the rule is the same for every joint, decided
    /// once. `None` when the output is the exact copy of an input (nothing to check).
    fn run_uniform(&self, output: &mut [SoaTransform]) -> Option<Guard> {
        // The first two contributors are kept as found: the common cross-fade needs no
        // list (collecting into the inline vector cost about 100 instructions a call,
        // a fifth of the Fox's blend).
        let mut total = 0.0f32;
        let mut count = 0usize;
        let mut two: [(&[SoaTransform], f32); 2] = [(&[], 0.0); 2];
        for layer in self.layers {
            if layer.weight > 0.0 {
                total += layer.weight;
                if let Some(slot) = two.get_mut(count) {
                    *slot = (layer.pose, layer.weight);
                }
                count += 1;
            }
        }
        match count {
            0 => {
                output.copy_from_slice(self.rest_pose);
                return Some(Guard(Vec4::ZERO));
            }
            _ if total < self.threshold => return self.run_general(output),
            1 => {
                output.copy_from_slice(two[0].0);
                return Some(Guard(Vec4::ZERO));
            }
            2 => {}
            _ => return Some(self.run_many(output, total)),
        }
        let inv_total = 1.0 / total;
        let [(a, wa), (b, wb)] = two;
        let (wa, wb) = (Vec4::splat(wa * inv_total), Vec4::splat(wb * inv_total));
        let mut guard = Guard(Vec4::ZERO);
        for ((out, x), y) in output.iter_mut().zip(a).zip(b) {
            // The hemisphere flip folded into b's weight: y * (-wb) is -(y * wb) exactly.
            let flip = dot(&x.rotation, &y.rotation).cmplt(Vec4::ZERO);
            let wb_signed = Vec4::select(flip, -wb, wb);
            let rotation: [Vec4; 4] = std::array::from_fn(|c| {
                Vec4::splat(SUM_START) + x.rotation[c] * wa + y.rotation[c] * wb_signed
            });
            *out = SoaTransform {
                translation: std::array::from_fn(|c| {
                    Vec4::splat(SUM_START) + x.translation[c] * wa + y.translation[c] * wb
                }),
                rotation: normalize_or(rotation, x.rotation),
                scale: std::array::from_fn(|c| {
                    Vec4::splat(SUM_START) + x.scale[c] * wa + y.scale[c] * wb
                }),
            };
            guard.add(out);
        }
        Some(guard)
    }

    /// Three or more contributors, weights summing to `total` (at least the threshold).
    fn run_many(&self, output: &mut [SoaTransform], total: f32) -> Guard {
        let inv_total = 1.0 / total;
        let contributors: Inline<(&[SoaTransform], f32)> = self
            .layers
            .iter()
            .filter(|l| l.weight > 0.0)
            .map(|l| (l.pose, l.weight * inv_total))
            .collect();
        let mut guard = Guard(Vec4::ZERO);
        for (b, out) in output.iter_mut().enumerate() {
            let first = contributors[0].0[b].rotation;
            let mut sum = Sum::new();
            for &(pose, w) in &contributors {
                let t = &pose[b];
                let w = Vec4::splat(w);
                accumulate(&mut sum, t, w, &first);
            }
            *out = sum.finish(first);
            guard.add(out);
        }
        guard
    }

    /// The rule decided lane by lane (per-joint weights, or a total below the threshold).
    fn run_general(&self, output: &mut [SoaTransform]) -> Option<Guard> {
        let threshold = Vec4::splat(self.threshold);
        let mut guard = Guard(Vec4::ZERO);
        for (b, out) in output.iter_mut().enumerate() {
            let rest = &self.rest_pose[b];
            let weight = |layer: &SoaBlendLayer| match layer.joint_weights {
                Some(w) => Vec4::splat(layer.weight) * w[b],
                None => Vec4::splat(layer.weight),
            };
            let mut total = Vec4::ZERO;
            let mut count = Vec4::ZERO;
            // The value of the last contributing layer (the only one where count is 1).
            let mut single = *rest;
            for layer in self.layers {
                let e = weight(layer);
                let contributes = e.cmpgt(Vec4::ZERO);
                total += e;
                count += Vec4::select(contributes, Vec4::ONE, Vec4::ZERO);
                single = select(contributes, &layer.pose[b], &single);
            }
            let below = total.cmplt(threshold);
            let rest_weight = Vec4::select(below, threshold - total, Vec4::ZERO);
            let inv_total = Vec4::ONE / (total + rest_weight);
            let mut sum = Sum::new();
            let mut first = [Vec4::ZERO; 4];
            let mut have_first = BVec4A::splat(false);
            let mut add = |t: &SoaTransform, e: Vec4| {
                let contributes = e.cmpgt(Vec4::ZERO);
                let is_first = contributes & !have_first;
                first = std::array::from_fn(|c| Vec4::select(is_first, t.rotation[c], first[c]));
                have_first |= contributes;
                let w = e * inv_total;
                accumulate_where(&mut sum, t, w, &first, contributes);
            };
            for layer in self.layers {
                add(&layer.pose[b], weight(layer));
            }
            if below.any() {
                add(rest, rest_weight);
            }
            let blended = sum.finish(first);
            let none = count.cmpeq(Vec4::ZERO);
            let copy = count.cmpeq(Vec4::ONE) & !below;
            *out = select(none, rest, &select(copy, &single, &blended));
            guard.add(out);
        }
        Some(guard)
    }

    /// The running sum was not finite: find whether a value really is, and where it came
    /// from. On error the output becomes the rest pose.
    #[cold]
    fn check_output(&self, output: &mut [SoaTransform]) -> Result<(), AnimError> {
        let bad = |pose: &[SoaTransform]| -> Option<usize> {
            pose.iter()
                .enumerate()
                .find_map(|(b, t)| (0..4).find(|&l| !t.lane(l).is_finite()).map(|l| 4 * b + l))
        };
        let Some(joint) = bad(output) else {
            return Ok(());
        };
        output.copy_from_slice(self.rest_pose);
        let what = self
            .layers
            .iter()
            .enumerate()
            .find_map(|(i, l)| bad(l.pose).map(|j| format!("blend layer {i} pose, joint {j}")))
            .or_else(|| bad(self.rest_pose).map(|j| format!("blend rest pose, joint {j}")))
            .unwrap_or_else(|| format!("blend output, joint {joint}"));
        Err(AnimError::NonFinite { what })
    }

    fn validate(&self, output: &[SoaTransform]) -> Result<(), AnimError> {
        let n = self.rest_pose.len();
        if output.len() != n {
            return Err(AnimError::LengthMismatch {
                what: "SoA blend output",
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
        for (i, layer) in self.layers.iter().enumerate() {
            if layer.pose.len() != n {
                return Err(AnimError::LengthMismatch {
                    what: "SoA blend layer pose",
                    expected: n,
                    actual: layer.pose.len(),
                });
            }
            check_weight(layer.weight, || format!("blend layer {i} weight"))?;
            if let Some(weights) = layer.joint_weights {
                if weights.len() != n {
                    return Err(AnimError::LengthMismatch {
                        what: "SoA blend layer joint weights",
                        expected: n,
                        actual: weights.len(),
                    });
                }
                for (b, w) in weights.iter().enumerate() {
                    for (l, &w) in w.to_array().iter().enumerate() {
                        check_weight(w, || format!("blend layer {i} joint weight {}", 4 * b + l))?;
                    }
                }
            }
        }
        Ok(())
    }
}
