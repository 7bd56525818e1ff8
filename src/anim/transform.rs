//! Local joint transforms (translation, rotation, scale) and the small operations the
//! blending jobs are built from: shortest-arc slerp, lerp, compose, inverse, and the
//! additive delta with its weighted re-application.

use glam::{Mat4, Quat, Vec3};

/// A joint transform relative to its parent (or to model space for a root joint).
///
/// Units: metres for `translation`, a unit quaternion for `rotation`, unitless `scale`.
/// The matrix it stands for is `T * R * S` (glTF order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Offset from the parent, metres, in the parent's space.
    pub translation: Vec3,
    /// Unit quaternion, relative to the parent.
    pub rotation: Quat,
    /// Per-axis scale factors (1 = unscaled).
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Transform = Transform {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// The matrix `T * R * S`.
    #[inline]
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes an affine matrix without shear into TRS. The rotation is normalised.
    pub fn from_mat4(m: &Mat4) -> Transform {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Transform {
            translation,
            rotation: rotation.normalize(),
            scale,
        }
    }

    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

impl Transform {
    /// Interpolates from `self` (t = 0) to `other` (t = 1): translation and scale
    /// linearly, rotation along the shortest arc ([`slerp_shortest`]). `t` outside [0, 1]
    /// extrapolates.
    #[inline]
    pub fn lerp(&self, other: &Transform, t: f32) -> Transform {
        Transform {
            translation: self.translation.lerp(other.translation, t),
            rotation: slerp_shortest(self.rotation, other.rotation, t),
            scale: self.scale.lerp(other.scale, t),
        }
    }

    /// `self * child` as matrices: `child` expressed in `self`'s parent space (e.g.
    /// `model_from_parent.compose(&parent_from_joint)`).
    ///
    /// Exact when `self`'s scale is uniform. With a non-uniform parent scale and a rotated
    /// child the true product has shear, which TRS cannot hold; the result then keeps the
    /// translation exact and multiplies scales component-wise (the usual game-engine
    /// approximation). Use [`Transform::to_mat4`] where shear matters.
    #[inline]
    pub fn compose(&self, child: &Transform) -> Transform {
        Transform {
            translation: self.translation + self.rotation * (self.scale * child.translation),
            rotation: (self.rotation * child.rotation).normalize(),
            scale: self.scale * child.scale,
        }
    }

    /// The transform that undoes `self`: `self.compose(&self.inverse())` is the identity.
    ///
    /// Exact for uniform scale (same caveat as [`Transform::compose`] otherwise). A zero
    /// scale component has no inverse; it inverts to 0 so the result stays finite.
    #[inline]
    pub fn inverse(&self) -> Transform {
        let inv_scale = recip_or_zero(self.scale);
        let inv_rotation = self.rotation.conjugate();
        Transform {
            translation: inv_scale * (inv_rotation * -self.translation),
            rotation: inv_rotation,
            scale: inv_scale,
        }
    }

    /// The local additive difference that takes `from` to `to`, in `from`'s joint frame:
    /// translation `to - from`, rotation `from⁻¹ * to`, scale `to / from` per component
    /// (a zero `from` component gives 1: no scale change can be recovered from it).
    ///
    /// [`Transform::apply_delta`] with weight 1 re-applies it.
    #[inline]
    pub fn delta(from: &Transform, to: &Transform) -> Transform {
        let ratio = |t: f32, f: f32| if f == 0.0 { 1.0 } else { t / f };
        Transform {
            translation: to.translation - from.translation,
            rotation: (from.rotation.conjugate() * to.rotation).normalize(),
            scale: Vec3::new(
                ratio(to.scale.x, from.scale.x),
                ratio(to.scale.y, from.scale.y),
                ratio(to.scale.z, from.scale.z),
            ),
        }
    }

    /// Adds a [`Transform::delta`] to `self` with `weight` (any finite value; 1 = the whole
    /// difference, 0.5 half of it, -1 the opposite):
    ///
    /// - translation `self + weight * delta`,
    /// - rotation `self * delta^weight`, right-multiplied so the offset acts in the joint's
    ///   own frame (left-multiplying would turn it about the parent's axes instead); the
    ///   power is a shortest-arc slerp from identity,
    /// - scale `self * delta^weight` per component: scales compose by multiplication, so a
    ///   "twice as big" layer doubles any base, and weight 0 gives factor 1 for every
    ///   delta. A negative delta component (mirroring) keeps its sign:
    ///   `-(|d|^weight)`.
    ///
    /// Weight 0 returns `self` unchanged (bit-exact).
    #[inline]
    pub fn apply_delta(&self, delta: &Transform, weight: f32) -> Transform {
        if weight == 0.0 {
            return *self;
        }
        let scale_pow = |d: f32| {
            if d == 1.0 || weight == 1.0 {
                d
            } else if d < 0.0 {
                -(-d).powf(weight)
            } else {
                d.powf(weight)
            }
        };
        Transform {
            translation: self.translation + delta.translation * weight,
            rotation: (self.rotation * quat_pow(delta.rotation, weight)).normalize(),
            scale: self.scale
                * Vec3::new(
                    scale_pow(delta.scale.x),
                    scale_pow(delta.scale.y),
                    scale_pow(delta.scale.z),
                ),
        }
    }
}

/// `1 / v` per component, 0 where the component is 0.
#[inline]
fn recip_or_zero(v: Vec3) -> Vec3 {
    let r = |x: f32| if x == 0.0 { 0.0 } else { 1.0 / x };
    Vec3::new(r(v.x), r(v.y), r(v.z))
}

/// `q^w`: the rotation by `w` times `q`'s shortest-arc angle about the same axis. Any
/// finite `w` (negative and above 1 included); `w == 1` gives `q` to rounding (flipped
/// into the `w >= 0` hemisphere), `w == 0` the identity.
#[inline]
pub fn quat_pow(q: Quat, w: f32) -> Quat {
    slerp_shortest(Quat::IDENTITY, q, w)
}

/// Spherical interpolation from `a` (t = 0) to `b` (t = 1) along the shortest arc: `b` is
/// first flipped into `a`'s hemisphere (q and -q are the same rotation). `t` outside
/// [0, 1] extrapolates along the same great circle. The result is normalised.
///
/// The angle between the two comes from `2 atan2(|a - b|, |a + b|)`, which stays accurate
/// for nearly equal inputs (unlike `acos` of the dot product), so small angles and
/// extrapolated weights keep f32 precision.
pub fn slerp_shortest(a: Quat, b: Quat, t: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let half_angle = 2.0 * (a - b).length().atan2((a + b).length());
    let sin = half_angle.sin();
    // Below ~1e-6 rad sin(x) == x in f32 and the two inputs are the same key in practice:
    // a normalised lerp is exact to rounding there and avoids dividing by ~0.
    if sin < 1e-6 {
        return (a * (1.0 - t) + b * t).normalize();
    }
    let wa = ((1.0 - t) * half_angle).sin() / sin;
    let wb = (t * half_angle).sin() / sin;
    (a * wa + b * wb).normalize()
}
