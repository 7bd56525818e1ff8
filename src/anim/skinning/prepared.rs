//! [`PreparedSkinningJob`]: linear-blend skinning of a mesh prepared once
//! ([`PreparedSkin`]), four vertices at a time in SIMD lanes, with the oracle's results.

use glam::{Mat3, Mat4, Vec3, Vec4};

use super::lanes::{scatter, Affine3x4, Cofactor4, Mat3x4, Vec3x4};
use super::{cofactor, same_lengths, AnimError, MAX_INFLUENCES};
#[cfg(doc)]
use super::{skinning_palette, SkinningJob};

/// Vertices per window of [`PreparedSkin`]: within a window the vertices are sorted by
/// influence count; windows are also the units [`PreparedSkinningJob::run_parallel`]
/// hands to threads (each writes only its own window of the outputs).
const WINDOW: usize = 2048;

/// Vertices skinned together, one per SIMD lane: the unit of [`PreparedSkin`]'s blocks.
const LANES: usize = 4;

/// Squared length range (of a bind normal as given) within which the normal is stored
/// normalised: the oracle's `normalize(cofactor * n)` is then `normalize(cofactor * n̂)`
/// to float rounding, as long as `cofactor * n` neither overflows nor underflows in f32,
/// which holds for joint scales from about 1e-9 to 1e8 (characters' are near 1, or 0.01
/// and 100 for centimetre rigs). Outside the range (zero, tiny, huge, non-finite) the
/// normal is kept as given and skinned by the oracle's arithmetic.
const UNIT_RANGE: std::ops::RangeInclusive<f64> = 1e-6..=1e6;

/// How far a rigid joint's normal matrix (the cofactor divided by its first column's
/// length) may be from orthonormal, entry by entry of `RᵀR - I`, for its run's unit
/// normals to be turned without renormalising: the lengths then stay within 3e-6 of 1
/// (1.5 times the tolerance in the worst case; the oracle's, renormalised, within 1e-5).
const ORTHONORMAL_TOLERANCE: f32 = 2e-6;

/// What the vertices of one run share: influence count, the joints of one or two
/// influences, and whether a bind normal was kept as given (not unit).
type RunKey = (u8, [u16; 2], bool);

/// A run of vertices with the same influence count (and for one and two influences, the
/// same joints), inside one window, stored as blocks of [`LANES`] vertices.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    /// Influences per vertex, 0..=8.
    count: u8,
    /// The joints every vertex of a run of one or two influences shares.
    joints: [u16; 2],
    /// Every bind normal of the run was stored normalised (see [`UNIT_RANGE`]).
    unit_normals: bool,
    /// First vertex of the run's window.
    window_start: u32,
    /// The run's blocks are `block..block + blocks` (of `order` and `bind`).
    block: u32,
    blocks: u32,
    /// First entry of the run in `weights` (two influences: per block, the four lanes'
    /// first weights then their second; three or more: `count` per lane, lane by lane) and
    /// in `joints` (three or more: `count` per lane).
    weight_entry: u32,
    joint_entry: u32,
}

/// A skinned mesh prepared once (at load, or once per mesh by a caller that skins it many
/// times), for [`PreparedSkinningJob`]. Per vertex only its non-zero influences, weights
/// already divided by their sum (the same division [`SkinningJob`] does per call). Window
/// by window (`WINDOW` vertices) the vertices are sorted by influence count, and runs of
/// one and two influences by joints, so each run is skinned by a loop of its own (meshes
/// whose neighbouring vertices alternate between one and two influences would otherwise
/// make runs of a few vertices). The bind pose is stored in that order, `LANES`
/// vertices to a block, one per lane, so a block is read with aligned loads; the outputs
/// are written back in the mesh's vertex order. Memory: 28 bytes a lane (bind pose and
/// order; a run's last block pads up to three lanes, and a skin without normals keeps
/// their lanes at zero) plus the influences (see [`Self::bytes`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PreparedSkin {
    runs: Vec<Run>,
    /// Per block, the output vertex of each lane (a run's last vertex repeated past its
    /// end: the same value written again).
    order: Vec<u32>,
    /// Per block: bind positions x, y, z, then bind normals x, y, z (model space), one
    /// vertex per lane.
    bind: Vec<Vec4>,
    joints: Vec<u16>,
    weights: Vec<f32>,
    vertex_count: usize,
    with_normals: bool,
    /// Largest joint index used (+1): the palette must be at least this long.
    palette_needed: usize,
}

impl PreparedSkin {
    /// Prepares a mesh: `joints`/`weights` (glTF's 8 slots per vertex), bind-pose
    /// `positions` (model space, metres) and `normals` (model space; empty to skin
    /// positions only). Errors on different lengths; a vertex whose weights sum to nothing
    /// (or are not finite) keeps its bind pose, as in [`SkinningJob`].
    pub fn new(
        joints: &[[u16; MAX_INFLUENCES]],
        weights: &[[f32; MAX_INFLUENCES]],
        positions: &[Vec3],
        normals: &[Vec3],
    ) -> Result<Self, AnimError> {
        let n = joints.len();
        same_lengths(
            n,
            &[
                ("skinning weights", weights.len()),
                ("skinning positions", positions.len()),
            ],
        )?;
        if !normals.is_empty() {
            same_lengths(n, &[("skinning normals", normals.len())])?;
        }
        let with_normals = !normals.is_empty();
        let mut out = Self {
            vertex_count: n,
            with_normals,
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
        // Whether a vertex's bind normal is stored normalised: where that changes no result
        // (see UNIT_RANGE); vertices that keep their bind pose copy theirs as given.
        let unit = |v: usize, count: u8| -> bool {
            let given = normals[v];
            count > 0
                && given.is_finite()
                && UNIT_RANGE.contains(&given.as_dvec3().length_squared())
        };
        // The stored normal (zero for a skin without normals).
        let normal_of = |v: usize, unit: bool| -> Vec3 {
            match (with_normals, unit) {
                (false, _) => Vec3::ZERO,
                (true, true) => normals[v].as_dvec3().normalize().as_vec3(),
                (true, false) => normals[v],
            }
        };
        // Runs of one and two influences are split by joints (their matrices are read once
        // per run); every run by whether its normals are unit.
        let key_of = |v: usize| -> RunKey {
            let count = count_of(&weights[v]);
            let mut key = [0u16; 2];
            if (1..=2).contains(&count) {
                let used = joints[v].iter().zip(&weights[v]).filter(|(_, &w)| w != 0.0);
                for (k, (&j, _)) in used.enumerate() {
                    key[k] = j;
                }
            }
            (count, key, with_normals && !unit(v, count))
        };
        for window_start in (0..n).step_by(WINDOW) {
            let window = window_start..(window_start + WINDOW).min(n);
            let mut vertices: Vec<(u32, RunKey)> = window.map(|v| (v as u32, key_of(v))).collect();
            // Stable: within a run the vertices keep their order.
            vertices.sort_by_key(|&(_, key)| key);
            for group in vertices.chunk_by(|a, b| a.1 == b.1) {
                let (count, shared, irregular) = group[0].1;
                let run = Run {
                    count,
                    joints: shared,
                    unit_normals: !irregular,
                    window_start: window_start as u32,
                    block: (out.order.len() / LANES) as u32,
                    blocks: group.len().div_ceil(LANES) as u32,
                    weight_entry: out.weights.len() as u32,
                    joint_entry: out.joints.len() as u32,
                };
                out.runs.push(run);
                for block in group.chunks(LANES) {
                    let lane = |i: usize| block[i.min(block.len() - 1)].0 as usize;
                    let v: [usize; LANES] = [lane(0), lane(1), lane(2), lane(3)];
                    out.order.extend(v.map(|v| v as u32));
                    let p = v.map(|v| positions[v]);
                    let nn = v.map(|v| normal_of(v, !irregular));
                    out.bind.extend([
                        Vec4::new(p[0].x, p[1].x, p[2].x, p[3].x),
                        Vec4::new(p[0].y, p[1].y, p[2].y, p[3].y),
                        Vec4::new(p[0].z, p[1].z, p[2].z, p[3].z),
                        Vec4::new(nn[0].x, nn[1].x, nn[2].x, nn[3].x),
                        Vec4::new(nn[0].y, nn[1].y, nn[2].y, nn[3].y),
                        Vec4::new(nn[0].z, nn[1].z, nn[2].z, nn[3].z),
                    ]);
                    if count == 0 {
                        continue;
                    }
                    // Each lane's used influences, weights divided by their sum.
                    let used = v.map(|v| {
                        let inv = weights[v].iter().sum::<f32>().recip();
                        let mut list = [(0u16, 0f32); MAX_INFLUENCES];
                        let pairs = joints[v].iter().zip(&weights[v]).filter(|(_, &w)| w != 0.0);
                        for (k, (&j, &w)) in pairs.enumerate() {
                            list[k] = (j, w * inv);
                        }
                        list
                    });
                    for list in &used {
                        for &(j, _) in &list[..count as usize] {
                            out.palette_needed = out.palette_needed.max(j as usize + 1);
                        }
                    }
                    match count {
                        1 => {}
                        2 => {
                            for k in 0..2 {
                                out.weights.extend(used.iter().map(|list| list[k].1));
                            }
                        }
                        _ => {
                            for list in &used {
                                for &(j, w) in &list[..count as usize] {
                                    out.joints.push(j);
                                    out.weights.push(w);
                                }
                            }
                        }
                    }
                }
            }
        }
        out.runs.shrink_to_fit();
        out.order.shrink_to_fit();
        out.bind.shrink_to_fit();
        out.joints.shrink_to_fit();
        out.weights.shrink_to_fit();
        Ok(out)
    }

    /// Number of mesh vertices; the outputs hold one entry per vertex.
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Runs of vertices skinned by one loop (for tests and statistics).
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.runs.capacity() * std::mem::size_of::<Run>()
            + self.order.capacity() * 4
            + self.bind.capacity() * std::mem::size_of::<Vec4>()
            + self.joints.capacity() * 2
            + self.weights.capacity() * 4
    }
}

/// [`SkinningJob`] on a [`PreparedSkin`]: the oracle's blended matrices (the same bits but
/// for the sign of a zero; one influence uses the palette matrix itself, where the oracle
/// multiplies it by `w * (1 / w)`, which can be one rounding off 1), so its positions to
/// float rounding, and its unit normals to float rounding where they are renormalised and
/// within 3e-6 where a rigid joint turns them (tested: within 1e-5 of the mesh's size and
/// of unit length), without per-vertex weight sums, zero-weight slots or per-vertex
/// checks. [`Self::run_parallel`] splits the vertices over rayon's threads. (A vertex whose
/// only weight is subnormal is the one input where they part: its `1 / w` is infinite and
/// the oracle writes NaN.)
pub struct PreparedSkinningJob<'a> {
    /// Skinning matrices, one per skin joint (see [`skinning_palette`]).
    pub palette: &'a [Mat4],
    /// The mesh's bind pose and influences, prepared once ([`PreparedSkin::new`]).
    pub skin: &'a PreparedSkin,
}

impl PreparedSkinningJob<'_> {
    fn validate(&self, out_positions: &[Vec3], out_normals: &[Vec3]) -> Result<(), AnimError> {
        let n = self.skin.vertex_count;
        same_lengths(n, &[("skinned positions output", out_positions.len())])?;
        if self.skin.with_normals {
            same_lengths(n, &[("skinned normals output", out_normals.len())])?;
        }
        if self.skin.palette_needed > self.palette.len() {
            return Err(AnimError::JointOutOfRange {
                what: "skinning influences".into(),
                joint: self.skin.palette_needed - 1,
                joint_count: self.palette.len(),
            });
        }
        Ok(())
    }

    /// Writes skinned positions (and normals when the skin has them) in model space.
    pub fn run(
        &self,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) -> Result<(), AnimError> {
        self.validate(out_positions, out_normals)?;
        for run in &self.skin.runs {
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
        let runs = &self.skin.runs[..];
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
        match run.count {
            0 => self.skin_bind(run, base, p, n),
            1 => self.skin_rigid(run, base, p, n),
            2 => self.skin_pair(run, base, p, n),
            3 => self.skin_fixed::<3>(run, base, p, n),
            4 => self.skin_fixed::<4>(run, base, p, n),
            5 => self.skin_fixed::<5>(run, base, p, n),
            6 => self.skin_fixed::<6>(run, base, p, n),
            7 => self.skin_fixed::<7>(run, base, p, n),
            _ => self.skin_fixed::<8>(run, base, p, n),
        }
    }

    /// Block `b` of the skin: each lane's output vertex, bind positions and bind normals.
    #[inline(always)]
    fn block(&self, b: usize) -> ([usize; LANES], Vec3x4, Vec3x4) {
        let o = &self.skin.order[b * LANES..][..LANES];
        let q = &self.skin.bind[b * 6..][..6];
        (
            [o[0] as usize, o[1] as usize, o[2] as usize, o[3] as usize],
            Vec3x4 {
                x: q[0],
                y: q[1],
                z: q[2],
            },
            Vec3x4 {
                x: q[3],
                y: q[4],
                z: q[5],
            },
        )
    }

    /// Vertices without influences keep their bind pose (normals as given).
    #[inline(always)]
    fn skin_bind(&self, run: &Run, base: usize, p: &mut [Vec3], n: &mut [Vec3]) {
        for b in run.block as usize..(run.block + run.blocks) as usize {
            let (v, bp, bn) = self.block(b);
            scatter(p, base, &v, bp);
            if self.skin.with_normals {
                scatter(n, base, &v, bn);
            }
        }
    }

    /// One influence: the palette matrix itself (its normalised weight is 1 to a
    /// rounding), and its cofactor once for the run. Where that is a rotation (or, for a
    /// mirrored joint, a reflection) times a uniform scale (to [`ORTHONORMAL_TOLERANCE`])
    /// and the run's normals are unit, the normals are turned by that orthonormal matrix
    /// alone, with no renormalisation.
    #[inline(always)]
    fn skin_rigid(&self, run: &Run, base: usize, p: &mut [Vec3], n: &mut [Vec3]) {
        let joint = &self.palette[run.joints[0] as usize];
        let m = Affine3x4::splat(joint);
        let cof = cofactor(&Mat3::from_mat4(*joint));
        let rotation = (run.unit_normals && self.skin.with_normals)
            .then(|| rotation_of(&cof))
            .flatten();
        let cof = Cofactor4 {
            m: Mat3x4::splat(&cof),
            flip: None,
        };
        for b in run.block as usize..(run.block + run.blocks) as usize {
            let (v, bp, bn) = self.block(b);
            scatter(p, base, &v, m.transform_point(bp));
            if let Some(r) = &rotation {
                scatter(n, base, &v, r.times(bn));
            } else if self.skin.with_normals {
                scatter(n, base, &v, cof.normal(bn));
            }
        }
    }

    /// Two influences on the run's two joints: their matrices read once, the four lanes'
    /// blended matrices summed as [`SkinningJob`] sums them.
    #[inline(always)]
    fn skin_pair(&self, run: &Run, base: usize, p: &mut [Vec3], n: &mut [Vec3]) {
        let m0 = Affine3x4::splat(&self.palette[run.joints[0] as usize]);
        let m1 = Affine3x4::splat(&self.palette[run.joints[1] as usize]);
        let weights = &self.skin.weights[run.weight_entry as usize..][..run.blocks as usize * 8];
        for (i, w) in weights.chunks_exact(8).enumerate() {
            let (v, bp, bn) = self.block(run.block as usize + i);
            let m = m0
                .weighted(Vec4::from_slice(&w[..4]))
                .add_weighted(&m1, Vec4::from_slice(&w[4..]));
            scatter(p, base, &v, m.transform_point(bp));
            if self.skin.with_normals {
                scatter(n, base, &v, m.cofactor().normal(bn));
            }
        }
    }

    /// `N` influences per vertex (three or more): each lane's matrix blended on its own
    /// (as [`SkinningJob`] sums it), then the four turned into lanes.
    #[inline(always)]
    fn skin_fixed<const N: usize>(&self, run: &Run, base: usize, p: &mut [Vec3], n: &mut [Vec3]) {
        let len = run.blocks as usize * LANES * N;
        let joints = &self.skin.joints[run.joint_entry as usize..][..len];
        let weights = &self.skin.weights[run.weight_entry as usize..][..len];
        let palette = self.palette;
        let per_block = joints
            .chunks_exact(LANES * N)
            .zip(weights.chunks_exact(LANES * N));
        for (i, (js, ws)) in per_block.enumerate() {
            let (v, bp, bn) = self.block(run.block as usize + i);
            let m = Affine3x4::from_mats(&[
                blend::<N>(palette, &js[..N], &ws[..N]),
                blend::<N>(palette, &js[N..2 * N], &ws[N..2 * N]),
                blend::<N>(palette, &js[2 * N..3 * N], &ws[2 * N..3 * N]),
                blend::<N>(palette, &js[3 * N..], &ws[3 * N..]),
            ]);
            scatter(p, base, &v, m.transform_point(bp));
            if self.skin.with_normals {
                scatter(n, base, &v, m.cofactor().normal(bn));
            }
        }
    }
}

/// `Σ palette[js[k]] * ws[k]`, summed in [`SkinningJob`]'s order. That job adds the first
/// product to a zero matrix, which can change only the sign of a zero.
#[inline(always)]
fn blend<const N: usize>(palette: &[Mat4], js: &[u16], ws: &[f32]) -> Mat4 {
    let mut m = palette[js[0] as usize] * ws[0];
    for k in 1..N {
        m += palette[js[k] as usize] * ws[k];
    }
    m
}

/// The orthonormal part of a similarity's (rotation or reflection times a uniform scale)
/// oriented cofactor `cof`, which is `s² R`: `cof / |cof.x|`, when it is orthonormal to
/// [`ORTHONORMAL_TOLERANCE`].
fn rotation_of(cof: &Mat3) -> Option<Mat3x4> {
    let r = *cof * cof.x_axis.length().recip();
    let gram = r.transpose() * r;
    let off = (gram - Mat3::IDENTITY).to_cols_array();
    // A NaN fails too.
    off.iter()
        .all(|x| x.abs() <= ORTHONORMAL_TOLERANCE)
        .then(|| Mat3x4::splat(&r))
}
