//! The rotation kernel: shortest-arc slerp with polynomial weights, on one quaternion pair
//! ([`slerp_normalized`]) or four at once, one per SIMD lane ([`slerp_four`]).

use glam::{Mat4, Quat, Vec4};

/// Shortest-arc slerp from `a` to `b` at `s` in `[0, 1]`, normalised.
///
/// This is slerp, not nlerp: with `Ω = acos(|a·b|)` (half the rotation angle between the
/// keys, at most π/2 after the hemisphere flip) slerp is
/// `(sin((1-s)Ω)·a + sin(sΩ)·b) / sin Ω`, and since the result is normalised anyway the
/// weights only need the right ratio: `w0 = (1-s)·sinc((1-s)Ω)`, `w1 = s·sinc(sΩ)`
/// (`sinc x = sin x / x`). Both are evaluated with polynomials, without acos, sin or a
/// division by `sin Ω`:
/// - `acos d = sqrt(1-d)·P(d)` on `[0, 1]` (Abramowitz & Stegun 4.4.46, absolute error
///   ≤ 2e-8), so `Ω² = (1-d)·P(d)²` needs no square root;
/// - `sinc` as its Taylor series in `x²` to the `x¹⁰` term (truncation error ≤ 3.6e-8 for
///   `x ≤ π/2`, relative error ≤ 6e-8).
///
/// Both errors are below f32 rounding, so the result matches exact (f64) slerp to f32
/// precision: `tests/sampling.rs` sweeps key angles up to 360° and times in `[0, 1]` and
/// bounds the rotation-angle deviation at 1e-6 rad (measured 2.8e-7 rad there; on a
/// denser sweep 3.2e-7 rad, where glam's f32 `Quat::slerp` measures 3.6e-7 rad and nlerp
/// 0.14 rad). Near `Ω = 0` the weights tend to `(1-s, s)` (nlerp, exact in the limit)
/// without a branch.
///
/// [`SamplingJob`] runs the same arithmetic on four channels at once (one per SIMD lane,
/// see [`Lane`]), so its rotations are bit-identical to [`Track::sample`]'s.
///
/// [`SamplingJob`]: super::SamplingJob
/// [`Track::sample`]: super::Track::sample
#[inline]
pub(super) fn slerp_normalized(a: Quat, b: Quat, s: f32) -> Quat {
    let [x, y, z, w] = slerp_lanes(a.to_array(), b.to_array(), s);
    Quat::from_xyzw(x, y, z, w)
}

/// Arithmetic of the rotation kernel, on one value (`f32`) or four (`Vec4`, one channel per
/// lane). Each lane of a `Vec4` operation rounds exactly as the `f32` one does, so both
/// instantiations of [`slerp_lanes`] give identical bits.
trait Lane:
    Copy + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self>
{
    fn splat(v: f32) -> Self;
    fn abs(self) -> Self;
    fn max(self, other: Self) -> Self;
    fn min(self, other: Self) -> Self;
    /// -1 where `self < 0`, else 1.
    fn sign(self) -> Self;
    /// `1 / sqrt(self)` where `self > 0`, else 0.
    fn inv_sqrt_or_zero(self) -> Self;
    /// 1 where `self > 0`, else 0.
    fn positive(self) -> Self;
}

impl Lane for f32 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        if self > other {
            self
        } else {
            other
        }
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        if self < other {
            self
        } else {
            other
        }
    }
    #[inline(always)]
    fn sign(self) -> Self {
        if self < 0.0 {
            -1.0
        } else {
            1.0
        }
    }
    #[inline(always)]
    fn inv_sqrt_or_zero(self) -> Self {
        if self > 0.0 {
            1.0 / self.sqrt()
        } else {
            0.0
        }
    }
    #[inline(always)]
    fn positive(self) -> Self {
        if self > 0.0 {
            1.0
        } else {
            0.0
        }
    }
}

impl Lane for Vec4 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Vec4::splat(v)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Vec4::abs(self)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        Vec4::select(self.cmpgt(other), self, other)
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        Vec4::select(self.cmplt(other), self, other)
    }
    #[inline(always)]
    fn sign(self) -> Self {
        Vec4::select(self.cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE)
    }
    #[inline(always)]
    fn inv_sqrt_or_zero(self) -> Self {
        Vec4::select(self.cmpgt(Vec4::ZERO), Vec4::ONE / self.sqrt(), Vec4::ZERO)
    }
    #[inline(always)]
    fn positive(self) -> Self {
        Vec4::select(self.cmpgt(Vec4::ZERO), Vec4::ONE, Vec4::ZERO)
    }
}

/// The rotation kernel (see [`slerp_normalized`]) on quaternions given as `[x, y, z, w]`
/// components, each component a [`Lane`]. A zero-length result becomes the identity.
#[inline(always)]
fn slerp_lanes<L: Lane>(a: [L; 4], b: [L; 4], s: L) -> [L; 4] {
    let dot = (a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3]);
    // Shortest arc: b is flipped into a's hemisphere by folding the sign into its weight.
    let sign = dot.sign();
    let d = dot.abs();
    let one = L::splat(1.0);
    // Slightly non-unit keys can give d > 1: treat as coincident (Ω = 0).
    let one_minus_d = (one - d).max(L::splat(0.0));
    let p = acos_sqrt_factor(d.min(one));
    let omega_sq = one_minus_d * p * p;
    let u = one - s;
    let w0 = u * sinc_of_square(u * u * omega_sq);
    let w1 = s * sinc_of_square(s * s * omega_sq) * sign;
    let q = [
        a[0] * w0 + b[0] * w1,
        a[1] * w0 + b[1] * w1,
        a[2] * w0 + b[2] * w1,
        a[3] * w0 + b[3] * w1,
    ];
    let len_sq = (q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]);
    let inv = len_sq.inv_sqrt_or_zero();
    // Identity (0, 0, 0, 1) when the length is zero: w gets 1 - positive = 1.
    [
        q[0] * inv,
        q[1] * inv,
        q[2] * inv,
        q[3] * inv + (one - len_sq.positive()),
    ]
}

/// `P(d)` with `acos d = sqrt(1-d)·P(d)` for `d` in `[0, 1]` (Abramowitz & Stegun 4.4.46;
/// the same polynomial as glam's `acos_approx`). Coefficients as published; rounding them
/// to f32 is intended.
#[allow(clippy::excessive_precision)]
#[inline(always)]
fn acos_sqrt_factor<L: Lane>(d: L) -> L {
    let c = L::splat;
    ((((((c(-0.001_262_491_1) * d + c(0.006_670_090_1)) * d - c(0.017_088_125_6)) * d
        + c(0.030_891_881))
        * d
        - c(0.050_174_304_6))
        * d
        + c(0.088_978_987_4))
        * d
        - c(0.214_598_801_6))
        * d
        + c(1.570_796_305)
}

/// `sin(x) / x` given `z = x²`, for `x` in `[0, π/2]`: Taylor series to the `x¹⁰` term.
#[inline(always)]
fn sinc_of_square<L: Lane>(z: L) -> L {
    let c = L::splat;
    c(1.0)
        + z * (c(-1.0 / 6.0)
            + z * (c(1.0 / 120.0)
                + z * (c(-1.0 / 5_040.0) + z * (c(1.0 / 362_880.0) + z * c(-1.0 / 39_916_800.0)))))
}

/// Runs the slerp kernel on four quaternion pairs at once (lane `i` = pair `i`).
#[inline(always)]
pub(super) fn slerp_four(a: [Quat; 4], b: [Quat; 4], s: Vec4) -> [Quat; 4] {
    let a = Mat4::from_cols(a[0].into(), a[1].into(), a[2].into(), a[3].into()).transpose();
    let b = Mat4::from_cols(b[0].into(), b[1].into(), b[2].into(), b[3].into()).transpose();
    let q = slerp_lanes(
        [a.x_axis, a.y_axis, a.z_axis, a.w_axis],
        [b.x_axis, b.y_axis, b.z_axis, b.w_axis],
        s,
    );
    let q = Mat4::from_cols(q[0], q[1], q[2], q[3]).transpose();
    [
        Quat::from_vec4(q.x_axis),
        Quat::from_vec4(q.y_axis),
        Quat::from_vec4(q.z_axis),
        Quat::from_vec4(q.w_axis),
    ]
}
