//! Four vertices in SIMD lanes for [`super::PreparedSkinningJob`]: 3-vectors and affine
//! matrices by lanes, cofactors, renormalisation, and the stores back to the mesh's
//! vertex order.

use glam::{Mat3, Mat4, Vec3, Vec4};

// `scatter` writes three packed floats per vertex through raw pointers.
const _: () = assert!(std::mem::size_of::<Vec3>() == 12);

#[cfg(doc)]
use super::cofactor;

/// A 3x3 matrix per lane, by columns (a cofactor, or the orthonormal matrix a rigid joint
/// turns unit normals by).
#[derive(Clone, Copy)]
pub(super) struct Mat3x4 {
    pub(super) cols: [Vec3x4; 3],
}

impl Mat3x4 {
    /// `m` in every lane.
    #[inline(always)]
    pub(super) fn splat(m: &Mat3) -> Self {
        Self {
            cols: [
                Vec3x4::splat(m.x_axis),
                Vec3x4::splat(m.y_axis),
                Vec3x4::splat(m.z_axis),
            ],
        }
    }

    /// The matrices times `n`, lane by lane (`Mat3 * Vec3`'s order).
    #[inline(always)]
    pub(super) fn times(&self, n: Vec3x4) -> Vec3x4 {
        let [c0, c1, c2] = &self.cols;
        Vec3x4 {
            x: c0.x * n.x + c1.x * n.y + c2.x * n.z,
            y: c0.y * n.x + c1.y * n.y + c2.y * n.z,
            z: c0.z * n.x + c1.z * n.y + c2.z * n.z,
        }
    }
}

/// Four 3-vectors, one per SIMD lane.
#[derive(Clone, Copy)]
pub(super) struct Vec3x4 {
    pub(super) x: Vec4,
    pub(super) y: Vec4,
    pub(super) z: Vec4,
}

impl Vec3x4 {
    #[inline(always)]
    pub(super) fn splat(v: Vec3) -> Self {
        Self {
            x: Vec4::splat(v.x),
            y: Vec4::splat(v.y),
            z: Vec4::splat(v.z),
        }
    }

    /// Lane 0 from `a`'s first three components, lane 1 from `b`'s, 2 from `c`'s, 3 from
    /// `d`'s (a transpose).
    #[inline(always)]
    pub(super) fn from_rows(a: Vec4, b: Vec4, c: Vec4, d: Vec4) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            let (a, b, c, d) = (
                __m128::from(a),
                __m128::from(b),
                __m128::from(c),
                __m128::from(d),
            );
            // SAFETY: SSE is part of the x86_64 baseline; register-only intrinsics.
            unsafe {
                let ab_lo = _mm_unpacklo_ps(a, b); // a0 b0 a1 b1
                let cd_lo = _mm_unpacklo_ps(c, d); // c0 d0 c1 d1
                let ab_hi = _mm_unpackhi_ps(a, b); // a2 b2 a3 b3
                let cd_hi = _mm_unpackhi_ps(c, d); // c2 d2 c3 d3
                Self {
                    x: _mm_movelh_ps(ab_lo, cd_lo).into(),
                    y: _mm_movehl_ps(cd_lo, ab_lo).into(),
                    z: _mm_movelh_ps(ab_hi, cd_hi).into(),
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Self {
                x: Vec4::new(a.x, b.x, c.x, d.x),
                y: Vec4::new(a.y, b.y, c.y, d.y),
                z: Vec4::new(a.z, b.z, c.z, d.z),
            }
        }
    }

    #[inline(always)]
    pub(super) fn cross(&self, o: &Self) -> Self {
        Self {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    #[inline(always)]
    pub(super) fn dot(&self, o: &Self) -> Vec4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
}

/// Lane `i` of `q` to `out[v[i] - base]`.
#[inline(always)]
pub(super) fn scatter(out: &mut [Vec3], base: usize, v: &[usize; 4], q: Vec3x4) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let lo = v[0].min(v[1]).min(v[2]).min(v[3]);
        let hi = v[0].max(v[1]).max(v[2]).max(v[3]);
        assert!(lo >= base && hi - base < out.len(), "skinning output index");
        let at = out.as_mut_ptr() as *mut f32;
        let (x, y, z) = (__m128::from(q.x), __m128::from(q.y), __m128::from(q.z));
        if v[1] == v[0] + 1 && v[2] == v[0] + 2 && v[3] == v[0] + 3 {
            // Four consecutive vertices: 12 floats, three 16-byte stores.
            // SAFETY: SSE is baseline; v[0]..=v[3] are inside `out` (checked above).
            unsafe {
                let xy01 = _mm_unpacklo_ps(x, y); // x0 y0 x1 y1
                let xy23 = _mm_unpackhi_ps(x, y); // x2 y2 x3 y3
                let z0x1 = _mm_shuffle_ps::<0b10_10_00_00>(z, xy01); // z0 z0 x1 x1
                let a = _mm_shuffle_ps::<0b10_00_01_00>(xy01, z0x1); // x0 y0 z0 x1
                let y1z1 = _mm_shuffle_ps::<0b01_01_11_11>(xy01, z); // y1 y1 z1 z1
                let b = _mm_shuffle_ps::<0b01_00_10_00>(y1z1, xy23); // y1 z1 x2 y2
                let t = _mm_shuffle_ps::<0b11_10_11_10>(xy23, z); // x3 y3 z2 z3
                let c = _mm_shuffle_ps::<0b11_01_00_10>(t, t); // z2 x3 y3 z3
                let e = at.add(3 * (v[0] - base));
                _mm_storeu_ps(e, a);
                _mm_storeu_ps(e.add(4), b);
                _mm_storeu_ps(e.add(8), c);
            }
            return;
        }
        // SAFETY: SSE is baseline; every vertex written is inside `out` (checked above):
        // 8 bytes at its x (unaligned), 4 at its z.
        unsafe {
            let xy01 = _mm_castps_pd(_mm_unpacklo_ps(x, y)); // x0 y0 x1 y1
            let xy23 = _mm_castps_pd(_mm_unpackhi_ps(x, y)); // x2 y2 x3 y3
            let put = |i: usize, xy: __m128d, z: __m128| {
                let e = at.add(3 * (v[i] - base));
                std::ptr::write_unaligned(e as *mut f64, _mm_cvtsd_f64(xy));
                _mm_store_ss(e.add(2), z);
            };
            put(0, xy01, z);
            put(1, _mm_unpackhi_pd(xy01, xy01), _mm_shuffle_ps::<0x55>(z, z));
            put(2, xy23, _mm_movehl_ps(z, z));
            put(3, _mm_unpackhi_pd(xy23, xy23), _mm_shuffle_ps::<0xff>(z, z));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (x, y, z) = (q.x.to_array(), q.y.to_array(), q.z.to_array());
        for i in 0..4 {
            out[v[i] - base] = Vec3::new(x[i], y[i], z[i]);
        }
    }
}

/// The upper three rows of four affine matrices, one per lane: `cols[c]` is column `c`
/// (the fourth, the translation).
#[derive(Clone, Copy)]
pub(super) struct Affine3x4 {
    pub(super) cols: [Vec3x4; 4],
}

impl Affine3x4 {
    /// `m` in every lane.
    #[inline(always)]
    pub(super) fn splat(m: &Mat4) -> Self {
        Self {
            cols: [
                Vec3x4::splat(m.x_axis.truncate()),
                Vec3x4::splat(m.y_axis.truncate()),
                Vec3x4::splat(m.z_axis.truncate()),
                Vec3x4::splat(m.w_axis.truncate()),
            ],
        }
    }

    /// `m[i]` in lane `i`.
    #[inline(always)]
    pub(super) fn from_mats(m: &[Mat4; 4]) -> Self {
        let col = |c: usize| Vec3x4::from_rows(m[0].col(c), m[1].col(c), m[2].col(c), m[3].col(c));
        Self {
            cols: [col(0), col(1), col(2), col(3)],
        }
    }

    /// Every element times the lane's weight.
    #[inline(always)]
    pub(super) fn weighted(&self, w: Vec4) -> Self {
        let f = |c: &Vec3x4| Vec3x4 {
            x: c.x * w,
            y: c.y * w,
            z: c.z * w,
        };
        Self {
            cols: [
                f(&self.cols[0]),
                f(&self.cols[1]),
                f(&self.cols[2]),
                f(&self.cols[3]),
            ],
        }
    }

    /// `self + m * w`, element by element.
    #[inline(always)]
    pub(super) fn add_weighted(&self, m: &Self, w: Vec4) -> Self {
        let f = |a: &Vec3x4, b: &Vec3x4| Vec3x4 {
            x: a.x + b.x * w,
            y: a.y + b.y * w,
            z: a.z + b.z * w,
        };
        Self {
            cols: [
                f(&self.cols[0], &m.cols[0]),
                f(&self.cols[1], &m.cols[1]),
                f(&self.cols[2], &m.cols[2]),
                f(&self.cols[3], &m.cols[3]),
            ],
        }
    }

    /// The matrices times the points `p`, lane by lane (`transform_point3`'s order).
    #[inline(always)]
    pub(super) fn transform_point(&self, p: Vec3x4) -> Vec3x4 {
        let [c0, c1, c2, c3] = &self.cols;
        Vec3x4 {
            x: c0.x * p.x + c1.x * p.y + c2.x * p.z + c3.x,
            y: c0.y * p.x + c1.y * p.y + c2.y * p.z + c3.y,
            z: c0.z * p.x + c1.z * p.y + c2.z * p.z + c3.z,
        }
    }

    /// The 3x3 parts' cofactors (`y × z`, `z × x`, `x × y`) and the lanes whose
    /// determinant is negative.
    #[inline(always)]
    pub(super) fn cofactor(&self) -> Cofactor4 {
        let [x, y, z, _] = &self.cols;
        let cols = [y.cross(z), z.cross(x), x.cross(y)];
        let det = x.dot(&cols[0]);
        Cofactor4 {
            m: Mat3x4 { cols },
            flip: Some(det.cmplt(Vec4::ZERO)),
        }
    }
}

/// Four cofactor matrices ([`cofactor`]) by columns, and the lanes whose determinant is
/// negative (their normals are turned back so a mirrored joint does not flip them; `None`
/// where the cofactor is already oriented, as a rigid run's).
#[derive(Clone, Copy)]
pub(super) struct Cofactor4 {
    pub(super) m: Mat3x4,
    pub(super) flip: Option<glam::BVec4A>,
}

impl Cofactor4 {
    /// `normalize_or_zero(cofactor * n)`, lane by lane: [`normalized_soa`] of the product.
    #[inline(always)]
    pub(super) fn normal(&self, n: Vec3x4) -> Vec3x4 {
        let Vec3x4 { x, y, z } = self.m.times(n);
        let r = [x, y, z];
        // Negating is exact: the same bits as negating the cofactor first.
        let r = match self.flip {
            Some(flip) => r.map(|e| Vec4::select(flip, -e, e)),
            None => r,
        };
        let [x, y, z] = normalized_soa(r);
        Vec3x4 { x, y, z }
    }
}

/// Four vectors given by components (one per lane) scaled to unit length, zero where
/// there is no direction (zero or non-finite length): `normalize_or_zero` lane by lane.
#[inline(always)]
fn normalized_soa(v: [Vec4; 3]) -> [Vec4; 3] {
    let len2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    // Normal, finite lengths take the estimate. A block with any other (zero, subnormal,
    // which the estimate reads as zero, or not finite) goes lane by lane, as the oracle.
    let normal = len2.cmpge(Vec4::splat(f32::MIN_POSITIVE)) & len2.cmplt(Vec4::INFINITY);
    if normal.all() {
        let inv = inverse_sqrt4(len2);
        return [v[0] * inv, v[1] * inv, v[2] * inv];
    }
    let mut out = [Vec4::ZERO; 3];
    for lane in 0..4 {
        let one = Vec3::new(v[0][lane], v[1][lane], v[2][lane]).normalize_or_zero();
        for (c, x) in out.iter_mut().zip(one.to_array()) {
            c[lane] = x;
        }
    }
    out
}

/// `1 / sqrt(x)` on four lanes (each lane finite and `> 0`, normal), to about 2e-7
/// relative: the SSE estimate (12 bits) and one Newton step, about a third of the latency
/// of a square root and a division.
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
