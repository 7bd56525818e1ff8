//! The skinning palette and the CPU reference skinning (the oracle the GPU compute
//! shader is tested against).

use glam::{Mat3, Mat4, Vec3, Vec3A, Vec4};

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

/// Vertices per window of [`SkinInfluences`]: within a window the vertices are sorted by
/// influence count; windows are also the units [`PreparedSkinningJob::run_parallel`]
/// hands to threads (each writes only its own window of the outputs).
const WINDOW: usize = 2048;

/// A run of vertices with the same influence count, inside one window.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    /// Influences per vertex, 0..=8.
    count: u8,
    /// First vertex of the run's window.
    window_start: u32,
    /// The run's vertices are `order[first..first + len]`.
    first: u32,
    len: u32,
    /// First entry of the run in `joints`/`weights` (`count` per vertex).
    entry: u32,
    /// The run's vertices are consecutive (`order[first]`, `order[first] + 1`, ...): its
    /// loops read and write plain slices.
    contiguous: bool,
}

/// A mesh's influences prepared once (at load, or once per mesh by a caller that skins
/// it many times): per vertex only its non-zero influences, in slot order, weights
/// already divided by their sum (the same division [`SkinningJob`] does per call, so
/// the blended matrices are the same bits), and, window by window ([`WINDOW`] vertices),
/// the vertices sorted by influence count (and, for one and two influences, by joints),
/// so each run is skinned by a loop of that fixed length (meshes whose neighbouring
/// vertices alternate between one and two influences would otherwise make runs of a few
/// vertices), runs sharing their joints four vertices at a time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinInfluences {
    runs: Vec<Run>,
    /// Vertex indices, run by run.
    order: Vec<u32>,
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
        // Influence count of each vertex (0: bind pose).
        let count_of = |w: &[f32; MAX_INFLUENCES]| -> u8 {
            let sum: f32 = w.iter().sum();
            if !sum.is_finite() || sum <= 0.0 {
                0
            } else {
                w.iter().filter(|&&x| x != 0.0).count() as u8
            }
        };
        // Runs of one and two influences are split by joints (they are skinned four
        // vertices at a time with the joints' matrices read once); more influences by
        // count only.
        let key_of = |v: usize| -> (u8, [u16; 2]) {
            let count = count_of(&weights[v]);
            let mut key = [0u16; 2];
            if count <= 2 {
                let used = joints[v].iter().zip(&weights[v]).filter(|(_, &w)| w != 0.0);
                for (k, (&j, _)) in used.enumerate() {
                    key[k] = j;
                }
            }
            (count, key)
        };
        for window_start in (0..joints.len()).step_by(WINDOW) {
            let window = window_start..(window_start + WINDOW).min(joints.len());
            let mut vertices: Vec<u32> = window.map(|v| v as u32).collect();
            // Stable: within a run the vertices keep their order.
            vertices.sort_by_key(|&v| key_of(v as usize));
            let mut last_key = None;
            for v in vertices {
                let (j, w) = (&joints[v as usize], &weights[v as usize]);
                let key = key_of(v as usize);
                let count = key.0;
                if count > 0 {
                    let inv = w.iter().sum::<f32>().recip();
                    for (&weight, &joint) in w.iter().zip(j) {
                        if weight != 0.0 {
                            out.joints.push(joint);
                            out.weights.push(weight * inv);
                            out.palette_needed = out.palette_needed.max(joint as usize + 1);
                        }
                    }
                }
                match out.runs.last_mut() {
                    Some(r) if last_key == Some(key) && r.window_start == window_start as u32 => {
                        r.contiguous &= out.order.last() == Some(&(v - 1));
                        r.len += 1
                    }
                    _ => out.runs.push(Run {
                        count,
                        window_start: window_start as u32,
                        first: out.order.len() as u32,
                        len: 1,
                        entry: (out.joints.len() - count as usize) as u32,
                        contiguous: true,
                    }),
                }
                last_key = Some(key);
                out.order.push(v);
            }
        }
        Ok(out)
    }

    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Runs of vertices with the same influence count (for tests and statistics): at most
    /// one per count and window.
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.runs.capacity() * std::mem::size_of::<Run>()
            + self.order.capacity() * 4
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
        for run in &self.influences.runs {
            // The whole output is the window: indices stay absolute.
            self.skin_run(run, 0, out_positions, out_normals);
        }
        Ok(())
    }

    /// [`Self::run`] over rayon's threads, one window of vertices per task (the same
    /// results).
    pub fn run_parallel(
        &self,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) -> Result<(), AnimError> {
        use rayon::prelude::*;
        self.validate(out_positions, out_normals)?;
        let runs = &self.influences.runs[..];
        // Each window's outputs are a disjoint slice; its runs are contiguous in `runs`.
        let mut n_windows: Vec<&mut [Vec3]> = out_normals.chunks_mut(WINDOW).collect();
        n_windows.resize_with(out_positions.len().div_ceil(WINDOW), || &mut [][..]);
        out_positions
            .par_chunks_mut(WINDOW)
            .zip(n_windows.into_par_iter())
            .enumerate()
            .for_each(|(w, (p, n))| {
                let window_start = w * WINDOW;
                let from = runs.partition_point(|r| (r.window_start as usize) < window_start);
                let to = runs.partition_point(|r| (r.window_start as usize) <= window_start);
                for run in &runs[from..to] {
                    self.skin_run(run, window_start, p, n);
                }
            });
        Ok(())
    }

    /// The vertices of `run` into `p`/`n`, which start at vertex `base` (0 for the whole
    /// output, the window's first vertex for a window's slice).
    #[inline]
    fn skin_run(&self, run: &Run, base: usize, p: &mut [Vec3], n: &mut [Vec3]) {
        // Without input normals the normals output is not written (and may be empty).
        let n = if self.normals.is_empty() {
            &mut [][..]
        } else {
            n
        };
        match run.count {
            0 => {
                let with_normals = !n.is_empty();
                for &v in self.vertices(run) {
                    let v = v as usize;
                    p[v - base] = self.positions[v];
                    if with_normals {
                        n[v - base] = self.normals[v];
                    }
                }
            }
            // Runs of one and two influences are split by joints: all share theirs.
            1 => self.skin_uniform::<1>(run, base, p, n),
            2 => self.skin_uniform::<2>(run, base, p, n),
            3 => self.skin_fixed::<3>(run, base, p, n),
            4 => self.skin_fixed::<4>(run, base, p, n),
            5 => self.skin_fixed::<5>(run, base, p, n),
            6 => self.skin_fixed::<6>(run, base, p, n),
            7 => self.skin_fixed::<7>(run, base, p, n),
            _ => self.skin_fixed::<8>(run, base, p, n),
        }
    }

    #[inline(always)]
    fn vertices(&self, run: &Run) -> &[u32] {
        &self.influences.order[run.first as usize..][..run.len as usize]
    }

    /// A run of vertices that share their `N` joints (1 or 2, in the same order): the
    /// joints' matrices are read once, and four vertices are skinned at a time, one per
    /// SIMD lane, in the arithmetic of the per-vertex loops (blended matrix summed as
    /// [`SkinningJob`] sums it, `transform_point3`'s order; the normal through the blended
    /// matrix's cofactor, renormalised). A last group of fewer than four repeats its last
    /// vertex in the spare lanes (the same value written twice).
    #[inline(always)]
    fn skin_uniform<const N: usize>(&self, run: &Run, base: usize, p: &mut [Vec3], n: &mut [Vec3]) {
        let entry = run.entry as usize;
        let len = run.len as usize;
        let joints = &self.influences.joints[entry..entry + N];
        let weights = &self.influences.weights[entry..entry + len * N];
        // Matrix elements `[column][row]`, splatted across the lanes.
        let splat = |m: &Mat4| -> [[Vec4; 3]; 4] {
            std::array::from_fn(|c| {
                let col = m.col(c);
                [Vec4::splat(col.x), Vec4::splat(col.y), Vec4::splat(col.z)]
            })
        };
        let mats: [[[Vec4; 3]; 4]; N] =
            std::array::from_fn(|k| splat(&self.palette[joints[k] as usize]));
        // One influence: the palette matrix itself (its normalised weight is 1 to a
        // rounding), and its cofactor once for the run.
        let rigid_cof = (N == 1).then(|| cofactor_soa(&mats[0]));
        let vertices = self.vertices(run);
        let with_normals = !n.is_empty();
        let mut at = 0;
        while at < len {
            let lane = |i: usize| (at + i).min(len - 1);
            let v: [usize; 4] = std::array::from_fn(|i| vertices[lane(i)] as usize);
            let m = if N == 1 {
                mats[0]
            } else {
                let w: [Vec4; N] = std::array::from_fn(|k| {
                    Vec4::from_array(std::array::from_fn(|i| weights[lane(i) * N + k]))
                });
                std::array::from_fn(|c| {
                    std::array::from_fn(|r| {
                        let mut e = Vec4::ZERO;
                        for k in 0..N {
                            e += mats[k][c][r] * w[k];
                        }
                        e
                    })
                })
            };
            let gather = |of: &[Vec3]| -> [Vec4; 3] {
                let q: [Vec3; 4] = std::array::from_fn(|i| of[v[i]]);
                [
                    Vec4::new(q[0].x, q[1].x, q[2].x, q[3].x),
                    Vec4::new(q[0].y, q[1].y, q[2].y, q[3].y),
                    Vec4::new(q[0].z, q[1].z, q[2].z, q[3].z),
                ]
            };
            let [px, py, pz] = gather(self.positions);
            let out: [Vec4; 3] =
                std::array::from_fn(|r| m[0][r] * px + m[1][r] * py + m[2][r] * pz + m[3][r]);
            scatter(&out, &v, base, p);
            if with_normals {
                let cof = rigid_cof.unwrap_or_else(|| cofactor_soa(&m));
                let [nx, ny, nz] = gather(self.normals);
                let r: [Vec4; 3] =
                    std::array::from_fn(|i| cof[0][i] * nx + cof[1][i] * ny + cof[2][i] * nz);
                let out = normalized_soa(r);
                scatter(&out, &v, base, n);
            }
            at += 4;
        }
    }

    /// A run of vertices with exactly `N` influences each.
    #[inline(always)]
    fn skin_fixed<const N: usize>(&self, run: &Run, base: usize, p: &mut [Vec3], n: &mut [Vec3]) {
        let len = run.len as usize;
        let first = run.entry as usize;
        let joints = &self.influences.joints[first..first + len * N];
        let weights = &self.influences.weights[first..first + len * N];
        let palette = self.palette;
        // The same sum, in the same order, as SkinningJob's.
        let blend = |js: &[u16], ws: &[f32]| {
            let mut m = Mat4::ZERO;
            for k in 0..N {
                m += palette[js[k] as usize] * ws[k];
            }
            m
        };
        let influences = joints.chunks_exact(N).zip(weights.chunks_exact(N));
        if run.contiguous {
            let start = self.influences.order[run.first as usize] as usize;
            let positions = &self.positions[start..start + len];
            let p = &mut p[start - base..][..len];
            if n.is_empty() {
                for ((out, (js, ws)), &x) in p.iter_mut().zip(influences).zip(positions) {
                    *out = blend(js, ws).transform_point3(x);
                }
            } else {
                let normals = &self.normals[start..start + len];
                let n = &mut n[start - base..][..len];
                for (((out, out_n), (js, ws)), (&x, &nx)) in p
                    .iter_mut()
                    .zip(n)
                    .zip(influences)
                    .zip(positions.iter().zip(normals))
                {
                    let m = blend(js, ws);
                    *out = m.transform_point3(x);
                    *out_n = cofactor_times(&m, nx);
                }
            }
            return;
        }
        let with_normals = !n.is_empty();
        for (&v, (js, ws)) in self.vertices(run).iter().zip(influences) {
            let v = v as usize;
            let m = blend(js, ws);
            p[v - base] = m.transform_point3(self.positions[v]);
            if with_normals {
                n[v - base] = cofactor_times(&m, self.normals[v]);
            }
        }
    }
}

/// Writes lane `i` of `xyz` to `out[v[i] - base]`.
#[inline(always)]
fn scatter(xyz: &[Vec4; 3], v: &[usize; 4], base: usize, out: &mut [Vec3]) {
    let [x, y, z] = xyz.map(|c| c.to_array());
    for i in 0..4 {
        out[v[i] - base] = Vec3::new(x[i], y[i], z[i]);
    }
}

/// The cofactor columns (`y × z`, `z × x`, `x × y`, rows per lane) of four 3x3 matrices
/// given as `[column][row]`, oriented so a negative determinant does not flip normals.
#[inline(always)]
fn cofactor_soa(m: &[[Vec4; 3]; 4]) -> [[Vec4; 3]; 3] {
    let cross = |a: &[Vec4; 3], b: &[Vec4; 3]| -> [Vec4; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let (x, y, z) = (&m[0], &m[1], &m[2]);
    let c = [cross(y, z), cross(z, x), cross(x, y)];
    let det = x[0] * c[0][0] + x[1] * c[0][1] + x[2] * c[0][2];
    let sign = Vec4::select(det.cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE);
    c.map(|col| col.map(|e| e * sign))
}

/// [`normalized`] on four vectors given by components (one per lane).
#[inline(always)]
fn normalized_soa(v: [Vec4; 3]) -> [Vec4; 3] {
    let len2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    // Normal, finite lengths take the estimate; zero and non-finite give zero; subnormal
    // ones (which the estimate reads as zero) the exact path, lane by lane.
    let normal = len2.cmpge(Vec4::splat(f32::MIN_POSITIVE)) & len2.cmplt(Vec4::INFINITY);
    let inv = inverse_sqrt4(Vec4::select(normal, len2, Vec4::ONE));
    // A select, not a product with 0: a NaN or infinite component times 0 is NaN.
    let mut out = v.map(|c| Vec4::select(normal, c * inv, Vec4::ZERO));
    let tiny = len2.cmpgt(Vec4::ZERO) & len2.cmplt(Vec4::splat(f32::MIN_POSITIVE));
    if tiny.any() {
        let bits = tiny.bitmask();
        for lane in (0..4).filter(|l| bits & (1 << l) != 0) {
            let one = normalized(Vec3A::new(v[0][lane], v[1][lane], v[2][lane]));
            for (c, x) in out.iter_mut().zip(one.to_array()) {
                c[lane] = x;
            }
        }
    }
    out
}

/// [`inverse_sqrt`] on four lanes (each lane finite and `> 0`, normal).
#[inline(always)]
fn inverse_sqrt4(x: Vec4) -> Vec4 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128, _mm_rsqrt_ps};
        // SAFETY: SSE is part of the x86_64 baseline; register-only intrinsic.
        let y = Vec4::from(unsafe { _mm_rsqrt_ps(__m128::from(x)) });
        y * (Vec4::splat(1.5) - Vec4::splat(0.5) * x * y * y)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec4::ONE / x.sqrt()
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
