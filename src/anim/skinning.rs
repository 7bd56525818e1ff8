//! The skinning palette and the CPU reference skinning (the oracle the GPU compute
//! shader is tested against).

use glam::{Mat3, Mat4, Vec3, Vec3A};

use super::{AnimError, Skin};

/// Influences per vertex: glTF JOINTS_0/WEIGHTS_0 plus JOINTS_1/WEIGHTS_1.
pub const MAX_INFLUENCES: usize = 8;

/// Writes `palette[i] = model_from_joint[skin.joints[i]] * skin.inverse_bind[i]`, the
/// matrix that moves a bind-pose model-space vertex with skin joint `i`.
pub fn skinning_palette(
    model_from_joint: &[Mat4],
    skin: &Skin,
    palette: &mut [Mat4],
) -> Result<(), AnimError> {
    if palette.len() != skin.joints.len() {
        return Err(AnimError::LengthMismatch {
            what: "skinning palette",
            expected: skin.joints.len(),
            actual: palette.len(),
        });
    }
    for (i, (&joint, inverse_bind)) in skin.joints.iter().zip(&skin.inverse_bind).enumerate() {
        let Some(model) = model_from_joint.get(joint) else {
            return Err(AnimError::JointOutOfRange {
                what: format!("skin '{}' joint {i}", skin.name),
                joint,
                joint_count: model_from_joint.len(),
            });
        };
        palette[i] = *model * *inverse_bind;
    }
    Ok(())
}

/// Linear-blend skinning of positions and normals on the CPU.
///
/// Weights are normalised to sum 1 per vertex first (glTF convention); a vertex whose
/// weights are all zero keeps its bind-pose position. Normals use the cofactor of the
/// blended matrix (the inverse transpose up to scale), so non-uniform scale keeps them
/// perpendicular, and are renormalised.
pub struct SkinningJob<'a> {
    /// Skinning matrices, one per skin joint (see [`skinning_palette`]).
    pub palette: &'a [Mat4],
    /// Bind-pose positions, model space (metres).
    pub positions: &'a [Vec3],
    /// Bind-pose unit normals, model space; may be empty to skip normals.
    pub normals: &'a [Vec3],
    /// Skin-joint indices per vertex; entries with weight 0 are ignored.
    pub joints: &'a [[u16; MAX_INFLUENCES]],
    /// Weights per vertex, any non-negative scale (normalised here).
    pub weights: &'a [[f32; MAX_INFLUENCES]],
}

impl SkinningJob<'_> {
    /// Writes skinned positions (and normals when given) in model space.
    pub fn run(
        &self,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) -> Result<(), AnimError> {
        let n = self.positions.len();
        let checks = [
            ("skinning joints", self.joints.len()),
            ("skinning weights", self.weights.len()),
            ("skinned positions output", out_positions.len()),
        ];
        for (what, len) in checks {
            if len != n {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected: n,
                    actual: len,
                });
            }
        }
        let with_normals = !self.normals.is_empty();
        if with_normals {
            for (what, len) in [
                ("skinning normals", self.normals.len()),
                ("skinned normals output", out_normals.len()),
            ] {
                if len != n {
                    return Err(AnimError::LengthMismatch {
                        what,
                        expected: n,
                        actual: len,
                    });
                }
            }
        }
        for v in 0..n {
            let m = self.blended_matrix(v)?;
            let Some(m) = m else {
                out_positions[v] = self.positions[v];
                if with_normals {
                    out_normals[v] = self.normals[v];
                }
                continue;
            };
            out_positions[v] = m.transform_point3(self.positions[v]);
            if with_normals {
                out_normals[v] =
                    (cofactor(&Mat3::from_mat4(m)) * self.normals[v]).normalize_or_zero();
            }
        }
        Ok(())
    }

    fn blended_matrix(&self, v: usize) -> Result<Option<Mat4>, AnimError> {
        let w = &self.weights[v];
        let sum: f32 = w.iter().sum();
        if !sum.is_finite() || sum <= 0.0 {
            return Ok(None);
        }
        let inv = sum.recip();
        let mut m = Mat4::ZERO;
        for (k, (&weight, &joint)) in w.iter().zip(&self.joints[v]).enumerate() {
            if weight == 0.0 {
                continue;
            }
            let j = joint as usize;
            let Some(joint) = self.palette.get(j) else {
                return Err(AnimError::JointOutOfRange {
                    what: format!("vertex {v} influence {k}"),
                    joint: j,
                    joint_count: self.palette.len(),
                });
            };
            m += *joint * (weight * inv);
        }
        Ok(Some(m))
    }
}

/// Cofactor matrix: `det(m) * inverse(m)^T`, oriented so it never flips a normal when the
/// determinant is negative (mirrored joints).
pub fn cofactor(m: &Mat3) -> Mat3 {
    let c = Mat3::from_cols(
        m.y_axis.cross(m.z_axis),
        m.z_axis.cross(m.x_axis),
        m.x_axis.cross(m.y_axis),
    );
    if m.determinant() < 0.0 {
        -c
    } else {
        c
    }
}

/// A mesh's influences prepared once (at load, or once per mesh by a caller that skins
/// it many times): per vertex only its non-zero influences, in slot order, weights
/// already divided by their sum (the same division [`SkinningJob`] does per call, so
/// the blended matrices are the same bits), and the vertices in runs of the same
/// influence count, so each run is skinned by a loop of that fixed length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinInfluences {
    /// (influences per vertex 0..=8, first vertex, vertex count, first entry in
    /// `joints`/`weights`).
    runs: Vec<(u8, u32, u32, u32)>,
    joints: Vec<u16>,
    weights: Vec<f32>,
    vertex_count: usize,
    /// Largest joint index used (+1): the palette must be at least this long.
    palette_needed: usize,
}

impl SkinInfluences {
    /// Prepares `joints`/`weights` (one entry per vertex, glTF's 8 slots). Errors on
    /// different lengths; a vertex whose weights sum to nothing (or are not finite)
    /// keeps its bind pose, as in [`SkinningJob`].
    pub fn new(
        joints: &[[u16; MAX_INFLUENCES]],
        weights: &[[f32; MAX_INFLUENCES]],
    ) -> Result<Self, AnimError> {
        if joints.len() != weights.len() {
            return Err(AnimError::LengthMismatch {
                what: "skinning weights",
                expected: joints.len(),
                actual: weights.len(),
            });
        }
        let mut out = Self {
            vertex_count: joints.len(),
            ..Self::default()
        };
        for (v, (j, w)) in joints.iter().zip(weights).enumerate() {
            let sum: f32 = w.iter().sum();
            let count = if !sum.is_finite() || sum <= 0.0 {
                0
            } else {
                let inv = sum.recip();
                let mut n = 0u8;
                for (&weight, &joint) in w.iter().zip(j) {
                    if weight == 0.0 {
                        continue;
                    }
                    out.joints.push(joint);
                    out.weights.push(weight * inv);
                    out.palette_needed = out.palette_needed.max(joint as usize + 1);
                    n += 1;
                }
                n
            };
            match out.runs.last_mut() {
                Some(r) if r.0 == count => r.2 += 1,
                _ => {
                    let first = (out.joints.len() - count as usize) as u32;
                    out.runs.push((count, v as u32, 1, first));
                }
            }
        }
        Ok(out)
    }

    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Runs of vertices with the same influence count (for tests and statistics).
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.runs.capacity() * std::mem::size_of::<(u8, u32, u32, u32)>()
            + self.joints.capacity() * 2
            + self.weights.capacity() * 4
    }
}

/// [`SkinningJob`] on prepared influences: the same results (the blended matrix is the
/// same bits; positions and normals agree to float rounding), without per-vertex weight
/// sums, zero-weight slots or per-vertex checks. [`Self::run_parallel`] splits the
/// vertices over rayon's threads.
pub struct PreparedSkinningJob<'a> {
    pub palette: &'a [Mat4],
    /// Bind-pose positions, model space (metres).
    pub positions: &'a [Vec3],
    /// Bind-pose unit normals, model space; may be empty to skip normals.
    pub normals: &'a [Vec3],
    pub influences: &'a SkinInfluences,
}

impl PreparedSkinningJob<'_> {
    fn validate(&self, out_positions: &[Vec3], out_normals: &[Vec3]) -> Result<(), AnimError> {
        let n = self.influences.vertex_count;
        let mut checks = vec![
            ("skinning positions", self.positions.len()),
            ("skinned positions output", out_positions.len()),
        ];
        if !self.normals.is_empty() {
            checks.push(("skinning normals", self.normals.len()));
            checks.push(("skinned normals output", out_normals.len()));
        }
        for (what, len) in checks {
            if len != n {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected: n,
                    actual: len,
                });
            }
        }
        if self.influences.palette_needed > self.palette.len() {
            return Err(AnimError::JointOutOfRange {
                what: "skinning influences".into(),
                joint: self.influences.palette_needed - 1,
                joint_count: self.palette.len(),
            });
        }
        Ok(())
    }

    /// Writes skinned positions (and normals when given) in model space.
    pub fn run(
        &self,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) -> Result<(), AnimError> {
        self.validate(out_positions, out_normals)?;
        let cof = self.rigid_cofactors();
        for &run in &self.influences.runs {
            self.skin_run(&cof, run, 0, run.2 as usize, out_positions, out_normals);
        }
        Ok(())
    }

    /// [`Self::run`] over rayon's threads, in chunks of vertices (the same results).
    pub fn run_parallel(
        &self,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) -> Result<(), AnimError> {
        use rayon::prelude::*;
        self.validate(out_positions, out_normals)?;
        const CHUNK: usize = 2048;
        let with_normals = !self.normals.is_empty();
        // Work items: (run, offset within the run, length), at most CHUNK vertices each.
        let mut items = Vec::new();
        for &run in &self.influences.runs {
            let mut at = 0;
            while at < run.2 as usize {
                let len = CHUNK.min(run.2 as usize - at);
                items.push((run, at, len));
                at += len;
            }
        }
        // Each item writes only its own vertices: split the outputs into disjoint
        // slices in vertex order (items are in vertex order).
        let mut p_rest = out_positions;
        let mut n_rest = out_normals;
        let mut jobs = Vec::with_capacity(items.len());
        let mut cursor = 0usize;
        for (run, at, len) in items {
            let start = run.1 as usize + at;
            let (_, p) = std::mem::take(&mut p_rest).split_at_mut(start - cursor);
            let (p_mine, p_next) = p.split_at_mut(len);
            p_rest = p_next;
            let n_mine = if with_normals {
                let (_, n) = std::mem::take(&mut n_rest).split_at_mut(start - cursor);
                let (n_mine, n_next) = n.split_at_mut(len);
                n_rest = n_next;
                n_mine
            } else {
                &mut [][..]
            };
            cursor = start + len;
            jobs.push((run, at, len, p_mine, n_mine));
        }
        let cof = self.rigid_cofactors();
        jobs.into_par_iter().for_each(|(run, at, len, p, n)| {
            self.skin_run_into(&cof, run, at, len, p, n);
        });
        Ok(())
    }

    /// Vertices `at..at + len` of `run`, written at their own indices.
    fn skin_run(
        &self,
        cof: &[[Vec3A; 3]],
        run: (u8, u32, u32, u32),
        at: usize,
        len: usize,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) {
        let start = run.1 as usize + at;
        let with_normals = !self.normals.is_empty();
        let p = &mut out_positions[start..start + len];
        let n = if with_normals {
            &mut out_normals[start..start + len]
        } else {
            &mut [][..]
        };
        self.skin_run_into(cof, run, at, len, p, n);
    }

    /// Vertices `at..at + len` of `run` into `p`/`n` (their slices, index 0 = vertex
    /// `run start + at`).
    fn skin_run_into(
        &self,
        cof: &[[Vec3A; 3]],
        run: (u8, u32, u32, u32),
        at: usize,
        len: usize,
        p: &mut [Vec3],
        n: &mut [Vec3],
    ) {
        match run.0 {
            0 => {
                let start = run.1 as usize + at;
                p.copy_from_slice(&self.positions[start..start + len]);
                if !n.is_empty() {
                    n.copy_from_slice(&self.normals[start..start + len]);
                }
            }
            1 => self.skin_rigid(cof, run, at, p, n),
            2 => self.skin_fixed::<2>(run, at, p, n),
            3 => self.skin_fixed::<3>(run, at, p, n),
            4 => self.skin_fixed::<4>(run, at, p, n),
            5 => self.skin_fixed::<5>(run, at, p, n),
            6 => self.skin_fixed::<6>(run, at, p, n),
            7 => self.skin_fixed::<7>(run, at, p, n),
            _ => self.skin_fixed::<8>(run, at, p, n),
        }
    }

    /// The normal matrix ([`cofactor`], sign folded in) of every palette entry, for
    /// vertices with one influence (normalised, their weight is 1 to a rounding: the
    /// palette's matrix is used as it is); empty when the mesh has none.
    fn rigid_cofactors(&self) -> Vec<[Vec3A; 3]> {
        if !self.influences.runs.iter().any(|r| r.0 == 1) || self.normals.is_empty() {
            return Vec::new();
        }
        self.palette
            .iter()
            .map(|m| {
                let x = Vec3A::from_vec4(m.x_axis);
                let y = Vec3A::from_vec4(m.y_axis);
                let z = Vec3A::from_vec4(m.z_axis);
                let c = [y.cross(z), z.cross(x), x.cross(y)];
                if x.dot(c[0]) < 0.0 {
                    c.map(|v| -v)
                } else {
                    c
                }
            })
            .collect()
    }

    /// A run of vertices with one influence each: the palette matrix itself.
    #[inline(always)]
    fn skin_rigid(
        &self,
        cof: &[[Vec3A; 3]],
        run: (u8, u32, u32, u32),
        at: usize,
        p: &mut [Vec3],
        n: &mut [Vec3],
    ) {
        let start = run.1 as usize + at;
        let first = run.3 as usize + at;
        let count = p.len();
        let joints = &self.influences.joints[first..first + count];
        let positions = &self.positions[start..start + count];
        for (i, &j) in joints.iter().enumerate() {
            p[i] = self.palette[j as usize].transform_point3(positions[i]);
        }
        if !n.is_empty() {
            let normals = &self.normals[start..start + count];
            for (i, &j) in joints.iter().enumerate() {
                let [cx, cy, cz] = cof[j as usize];
                let v = normals[i];
                n[i] = normalized(cx * v.x + cy * v.y + cz * v.z);
            }
        }
    }

    /// A run of vertices with exactly `N` influences each.
    #[inline(always)]
    fn skin_fixed<const N: usize>(
        &self,
        run: (u8, u32, u32, u32),
        at: usize,
        p: &mut [Vec3],
        n: &mut [Vec3],
    ) {
        let start = run.1 as usize + at;
        let first = run.3 as usize + at * N;
        let count = p.len();
        let joints = &self.influences.joints[first..first + count * N];
        let weights = &self.influences.weights[first..first + count * N];
        let positions = &self.positions[start..start + count];
        let palette = self.palette;
        let with_normals = !n.is_empty();
        for (i, (js, ws)) in joints
            .chunks_exact(N)
            .zip(weights.chunks_exact(N))
            .enumerate()
        {
            // The same sum, in the same order, as SkinningJob's.
            let mut m = Mat4::ZERO;
            for k in 0..N {
                m += palette[js[k] as usize] * ws[k];
            }
            p[i] = m.transform_point3(positions[i]);
            if with_normals {
                n[i] = cofactor_times(&m, self.normals[start + i]);
            }
        }
    }
}

/// `cofactor(upper 3x3 of m) * v`, normalised: [`cofactor`] in SIMD lanes (`Vec3A`), with
/// the determinant taken from the first cofactor column. Equal to the scalar form up to
/// float rounding.
#[inline(always)]
fn cofactor_times(m: &Mat4, v: Vec3) -> Vec3 {
    let x = Vec3A::from_vec4(m.x_axis);
    let y = Vec3A::from_vec4(m.y_axis);
    let z = Vec3A::from_vec4(m.z_axis);
    let cx = y.cross(z);
    let cy = z.cross(x);
    let cz = x.cross(y);
    let r = cx * v.x + cy * v.y + cz * v.z;
    let r = if x.dot(cx) < 0.0 { -r } else { r };
    normalized(r)
}

/// `v` scaled to unit length (zero when it has none).
#[inline(always)]
fn normalized(v: Vec3A) -> Vec3 {
    let len2 = v.dot(v);
    if !(len2 > 0.0 && len2.is_finite()) {
        return Vec3::ZERO;
    }
    if len2 < f32::MIN_POSITIVE {
        // The SSE estimate reads a subnormal as zero (and would give infinity).
        return Vec3::from(v / len2.sqrt());
    }
    Vec3::from(v * inverse_sqrt(len2))
}

/// `1 / sqrt(x)` for a finite `x > 0`, to about 2e-7 relative: the SSE estimate (12 bits)
/// and one Newton step, about a third of the latency of a square root and a division,
/// which dominated the normals' cost.
#[inline(always)]
fn inverse_sqrt(x: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cvtss_f32, _mm_rsqrt_ss, _mm_set_ss};
        // SAFETY: SSE is part of the x86_64 baseline, so these SSE intrinsics are
        // always available; they read and write only registers.
        let y = unsafe { _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x))) };
        y * (1.5 - 0.5 * x * y * y)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        1.0 / x.sqrt()
    }
}
