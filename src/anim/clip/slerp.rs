//! The rotation kernel: shortest-arc slerp from key pairs prepared once, used by every
//! sampler (the SoA blocks, [`Track::sample`](super::Track::sample), the lanes the SoA form
//! samples one at a time), so a rotation is the same bits whichever path sampled it.
//!
//! With `a` and `b` the keys (`b` flipped into `a`'s hemisphere), `Ω = acos(a · b)` (half
//! the rotation angle between the keys, at most π/2 after the flip) and `c` the unit
//! quaternion orthogonal to `a` in the plane of `a` and `b`, slerp is
//! `a cos(sΩ) + c sin(sΩ)`. [`prepare`] computes `a`, `c` and `Ω` in f64 (keys
//! normalised there, so the result is unit length to f32 rounding even for slightly
//! non-unit keys); a clip stores them per key pair. Per sample, [`slerp_prepared`] then
//! costs two short polynomials and no acos, square root or division:
//! - `cos x` as its Taylor series in `x²` to the `x¹²` term (truncation below 7e-9 for
//!   `x ≤ π/2`);
//! - `sin x = x · sinc x`, `sinc` to the `x¹⁰` term (truncation below 6e-8).
//!
//! Both are below f32 rounding: `tests/sampling.rs` sweeps key angles up to 360° and
//! times in `[0, 1]` against exact (f64) slerp and bounds the deviation at 1e-6 rad.
//! [`Lane`] runs the same arithmetic on one value or four (one SIMD lane each), with
//! identical rounding per lane.

use glam::{DQuat, Quat, Vec4};

/// The slerp data of key pair (`a`, `b`) as `(a, c, Ω)` (see the module docs), computed
/// in f64. A zero-length key reads as the identity.
pub(super) fn prepare(a: Quat, b: Quat) -> ([f32; 4], [f32; 4], f32) {
    // The hemisphere is chosen by the f32 dot product of the keys as stored, so a tie at
    // 180 degrees is broken the same way wherever the pair is prepared.
    let dot32 = (a.x * b.x + a.y * b.y) + (a.z * b.z + a.w * b.w);
    let unit = |q: Quat| {
        let q = DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64);
        let len = q.length();
        if len > 0.0 {
            q * (1.0 / len)
        } else {
            DQuat::IDENTITY
        }
    };
    let a64 = unit(a);
    let mut b64 = unit(b);
    if dot32 < 0.0 {
        b64 = -b64;
    }
    let d = a64.dot(b64).clamp(-1.0, 1.0);
    let c = b64 - a64 * d;
    let len = c.length();
    let (c, omega) = if len > 1e-12 {
        (c * (1.0 / len), d.acos())
    } else {
        (DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0), 0.0)
    };
    let f = |q: DQuat| [q.x as f32, q.y as f32, q.z as f32, q.w as f32];
    (f(a64), f(c), omega as f32)
}

/// Shortest-arc slerp from `a` to `b` at `s` in `[0, 1]`: [`prepare`] then
/// [`slerp_prepared`], for a channel sampled on its own.
#[inline]
pub(super) fn slerp(a: Quat, b: Quat, s: f32) -> Quat {
    let (a, c, omega) = prepare(a, b);
    Quat::from_array(slerp_prepared(a, c, omega, s))
}

/// Arithmetic of the kernel on one value (`f32`) or four (`Vec4`, one channel per lane).
/// Each lane of a `Vec4` operation rounds exactly as the `f32` one does, so both
/// instantiations of [`slerp_prepared`] give identical bits.
pub(super) trait Lane:
    Copy + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self>
{
    fn splat(v: f32) -> Self;
}

impl Lane for f32 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        v
    }
}

impl Lane for Vec4 {
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Vec4::splat(v)
    }
}

/// `a cos(sΩ) + c sin(sΩ)` from a key pair's prepared data (see [`prepare`]).
#[inline(always)]
pub(super) fn slerp_prepared<L: Lane>(a: [L; 4], c: [L; 4], omega: L, s: L) -> [L; 4] {
    let theta = s * omega;
    let z = theta * theta;
    let sin = theta * sinc_of_square(z);
    let cos = cos_of_square(z);
    [
        a[0] * cos + c[0] * sin,
        a[1] * cos + c[1] * sin,
        a[2] * cos + c[2] * sin,
        a[3] * cos + c[3] * sin,
    ]
}

/// `sin(x) / x` given `z = x²`, `x` in `[0, π/2]`: Taylor series to `x¹⁰` (truncation
/// below 6e-8).
#[inline(always)]
fn sinc_of_square<L: Lane>(z: L) -> L {
    let c = L::splat;
    c(1.0)
        + z * (c(-1.0 / 6.0)
            + z * (c(1.0 / 120.0)
                + z * (c(-1.0 / 5_040.0) + z * (c(1.0 / 362_880.0) + z * c(-1.0 / 39_916_800.0)))))
}

/// `cos(x)` given `z = x²`, `x` in `[0, π/2]`: Taylor series to `x¹²` (truncation below
/// 7e-9).
#[inline(always)]
fn cos_of_square<L: Lane>(z: L) -> L {
    let c = L::splat;
    c(1.0)
        + z * (c(-0.5)
            + z * (c(1.0 / 24.0)
                + z * (c(-1.0 / 720.0)
                    + z * (c(1.0 / 40_320.0)
                        + z * (c(-1.0 / 3_628_800.0) + z * c(1.0 / 479_001_600.0))))))
}
