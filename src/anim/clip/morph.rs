//! Animated morph weights: a glTF `weights` channel, one weight per morph target of the
//! mesh its node instantiates, per key.

use super::track::{check_key_times, hermite_weights, Interpolation, Segment};
use crate::AnimError;

/// The morph weights of one node's mesh over time.
///
/// `values` is key-major like glTF's sampler output: `targets` weights per key; for
/// CUBICSPLINE three groups of `targets` per key (in-tangents, values, out-tangents;
/// tangents in weight per second).
#[derive(Clone, Debug, PartialEq)]
pub struct MorphTrack {
    /// Skeleton joint (scene node) whose mesh the weights drive.
    pub joint: usize,
    targets: usize,
    interpolation: Interpolation,
    times: Vec<f32>,
    values: Vec<f32>,
}

impl MorphTrack {
    /// Validates and builds a track. `what` names it in errors.
    pub fn new(
        joint: usize,
        targets: usize,
        interpolation: Interpolation,
        times: Vec<f32>,
        values: Vec<f32>,
        what: &str,
    ) -> Result<Self, AnimError> {
        if targets == 0 {
            return Err(AnimError::Empty {
                what: format!("{what}: morph targets"),
            });
        }
        if times.is_empty() {
            return Err(AnimError::Empty { what: what.into() });
        }
        let per_key = if interpolation == Interpolation::CubicSpline {
            3 * targets
        } else {
            targets
        };
        if values.len() != times.len() * per_key {
            return Err(AnimError::LengthMismatch {
                what: "morph weight values",
                expected: times.len() * per_key,
                actual: values.len(),
            });
        }
        check_key_times(&times, what)?;
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(AnimError::NonFinite {
                what: format!("{what}: value {i}"),
            });
        }
        Ok(Self {
            joint,
            targets,
            interpolation,
            times,
            values,
        })
    }

    /// Morph targets of the mesh (weights per key).
    pub fn targets(&self) -> usize {
        self.targets
    }

    /// How weights between keys are computed.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Key times in clip seconds, strictly increasing.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// The weight of target `target` at key `key` (the value, not a tangent).
    pub fn key_weight(&self, key: usize, target: usize) -> f32 {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[(3 * key + 1) * self.targets + target],
            _ => self.values[key * self.targets + target],
        }
    }

    /// Writes the weights at clip time `t` (seconds; held at the end keys outside them)
    /// into `out`, one per target. Weights are not clamped: glTF allows any value, and
    /// a cubic spline may overshoot.
    pub fn sample(&self, t: f32, out: &mut [f32]) -> Result<(), AnimError> {
        if out.len() != self.targets {
            return Err(AnimError::LengthMismatch {
                what: "morph weights output",
                expected: self.targets,
                actual: out.len(),
            });
        }
        if !t.is_finite() {
            return Err(AnimError::NonFinite {
                what: "morph sampling time".into(),
            });
        }
        let seg = Segment::locate(&self.times, t);
        let n = self.targets;
        let row = |key: u32, entry: usize| {
            let per_key = if self.interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let start = (key as usize * per_key + entry) * n;
            &self.values[start..start + n]
        };
        match self.interpolation {
            Interpolation::Step => out.copy_from_slice(row(seg.i0, 0)),
            Interpolation::Linear => {
                let (a, b) = (row(seg.i0, 0), row(seg.i1, 0));
                for ((o, &a), &b) in out.iter_mut().zip(a).zip(b) {
                    *o = a + (b - a) * seg.s;
                }
            }
            Interpolation::CubicSpline => {
                let h = hermite_weights(seg);
                let (v0, m0) = (row(seg.i0, 1), row(seg.i0, 2));
                let (v1, m1) = (row(seg.i1, 1), row(seg.i1, 0));
                for (k, o) in out.iter_mut().enumerate() {
                    *o = v0[k] * h[0] + m0[k] * h[1] + v1[k] * h[2] + m1[k] * h[3];
                }
            }
        }
        Ok(())
    }
}
