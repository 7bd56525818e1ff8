//! Morph targets (blend shapes) on the CPU: the reference the GPU compute pass is tested
//! against (`tests/gpu_skinning.rs`), run before skinning as the GPU does.
//!
//! glTF's rule: each attribute is its base value plus the weighted sum of the targets'
//! deltas, `p = p0 + Σ w_k·Δp_k` (and likewise for normals and tangents), with any
//! weight value (negative and above 1 included). Normals and tangents are left
//! unnormalised here: skinning renormalises them after blending the joint matrices.

use glam::{Vec3, Vec4};

use super::AnimError;

/// The deltas of one morph target, one per vertex; an empty slice leaves that attribute
/// unchanged.
#[derive(Clone, Copy, Debug, Default)]
pub struct MorphDeltas<'a> {
    /// POSITION deltas (bind space, metres).
    pub positions: &'a [Vec3],
    /// NORMAL deltas (bind space; the result is left unnormalised).
    pub normals: &'a [Vec3],
    /// TANGENT deltas (xyz; the handedness w is never morphed).
    pub tangents: &'a [Vec3],
}

/// Applies weighted morph targets to one primitive's vertices.
#[derive(Clone, Copy, Debug)]
pub struct MorphJob<'a> {
    /// Base positions, bind space (metres).
    pub positions: &'a [Vec3],
    /// Base normals; may be empty (then `out_normals` must be too).
    pub normals: &'a [Vec3],
    /// Base tangents (w = handedness); may be empty (then `out_tangents` must be too).
    pub tangents: &'a [Vec4],
    /// The morph targets' deltas, each empty or one per vertex.
    pub targets: &'a [MorphDeltas<'a>],
    /// One finite weight per target. Targets of weight 0 cost nothing.
    pub weights: &'a [f32],
}

impl MorphJob<'_> {
    /// Writes base plus weighted deltas into the outputs, each as long as its base
    /// attribute. Errors: a weight count other than the target count, a non-finite
    /// weight, mismatched lengths.
    pub fn run(
        &self,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
        out_tangents: &mut [Vec4],
    ) -> Result<(), AnimError> {
        let n = self.positions.len();
        if self.weights.len() != self.targets.len() {
            return Err(AnimError::LengthMismatch {
                what: "morph weights",
                expected: self.targets.len(),
                actual: self.weights.len(),
            });
        }
        if let Some(k) = self.weights.iter().position(|w| !w.is_finite()) {
            return Err(AnimError::NonFinite {
                what: format!("morph weight {k}"),
            });
        }
        let checks = [
            ("morphed positions output", n, out_positions.len()),
            ("morph base normals", out_normals.len(), self.normals.len()),
            (
                "morph base tangents",
                out_tangents.len(),
                self.tangents.len(),
            ),
        ];
        for (what, expected, actual) in checks {
            if expected != actual {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected,
                    actual,
                });
            }
        }
        for (what, base, len) in [
            (
                "morph base normals",
                !self.normals.is_empty(),
                self.normals.len(),
            ),
            (
                "morph base tangents",
                !self.tangents.is_empty(),
                self.tangents.len(),
            ),
        ] {
            if base && len != n {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected: n,
                    actual: len,
                });
            }
        }
        for t in self.targets {
            for (what, len) in [
                ("morph target positions", t.positions.len()),
                ("morph target normals", t.normals.len()),
                ("morph target tangents", t.tangents.len()),
            ] {
                if len != 0 && len != n {
                    return Err(AnimError::LengthMismatch {
                        what,
                        expected: n,
                        actual: len,
                    });
                }
            }
        }
        out_positions.copy_from_slice(self.positions);
        out_normals.copy_from_slice(self.normals);
        out_tangents.copy_from_slice(self.tangents);
        for (t, &w) in self.targets.iter().zip(self.weights) {
            if w == 0.0 {
                continue;
            }
            for (o, d) in out_positions.iter_mut().zip(t.positions) {
                *o += *d * w;
            }
            if !out_normals.is_empty() {
                for (o, d) in out_normals.iter_mut().zip(t.normals) {
                    *o += *d * w;
                }
            }
            if !out_tangents.is_empty() {
                for (o, d) in out_tangents.iter_mut().zip(t.tangents) {
                    *o += (*d * w).extend(0.0);
                }
            }
        }
        Ok(())
    }
}
