//! Two-bone IK (thigh → knee → ankle), with the semantics of ozz-animation's
//! `IKTwoBoneJob`: a target, a pole vector, the mid joint's hinge axis, a soften ratio, a
//! weight and a twist angle in; two local-space rotation corrections and a `reached` flag
//! out. The job reads model-space matrices and writes nothing: the caller multiplies the
//! corrections into the local rotations (`local.rotation = local.rotation * correction`)
//! and recomputes the model transforms below the start joint
//! ([`LocalToModelJob::run_subtree`](super::LocalToModelJob::run_subtree)).
//!
//! The solve, in model space:
//! 1. The knee turns about its hinge axis until the start-to-end distance equals the
//!    (softened, reach-clamped) start-to-target distance. The angle comes from solving
//!    `|a - b - R(φ)(c - b)| = d` exactly (`A cos φ + B sin φ = C`), so it is right even
//!    when the hinge axis is not perpendicular to the bend plane; of the two solutions the
//!    smaller rotation wins (a straight leg, where both are equal, closes by the axis
//!    convention below).
//! 2. The start joint turns along the shortest arc that points the end at the target.
//! 3. It then turns about the start-to-target axis so the knee lies on the pole vector's
//!    side, plus `twist_angle`.
//!
//! Units: positions in the skeleton's model units (metres for glTF), angles in radians.

use glam::{Mat3, Mat4, Quat, Vec3};

use super::AnimError;

/// Inputs of one solve. Every vector is in model space except `mid_axis`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneIkJob {
    /// Where the end joint should go (model space).
    pub target: Vec3,
    /// Direction the knee should point to (model space; need not be normalised). Only
    /// its part perpendicular to the start-to-target axis matters; a zero part keeps the
    /// knee plane as it is.
    pub pole_vector: Vec3,
    /// The knee's hinge axis in the mid joint's *local* space: a positive rotation about
    /// it opens the knee (straightens the leg). Need not be normalised; must not be zero.
    pub mid_axis: Vec3,
    /// 0 keeps the FK pose, 1 solves fully; clamped to [0, 1].
    pub weight: f32,
    /// In [0, 1]: the share of the chain's full length from which the reach is softened
    /// (1 = no softening: the chain snaps straight at full reach; 0.97 starts slowing
    /// the last 3 %). Softening approaches full reach exponentially, so a leg never
    /// locks straight with a visible pop.
    pub soften: f32,
    /// Extra rotation (radians) of the whole chain about the start-to-target axis.
    pub twist_angle: f32,
    /// Model transforms of the three joints (only the rotation of start and mid and the
    /// positions are used).
    pub start_joint: Mat4,
    /// Model transform of the mid joint (the knee).
    pub mid_joint: Mat4,
    /// Model transform of the end joint (the ankle); only its position is used.
    pub end_joint: Mat4,
}

/// Result of [`TwoBoneIkJob::run`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneIkResult {
    /// Multiply into the start joint's local rotation (right side).
    pub start_correction: Quat,
    /// Multiply into the mid joint's local rotation (right side).
    pub mid_correction: Quat,
    /// Model-space position of the end joint after the corrections.
    pub end_position: Vec3,
    /// The end lies on the target (within [`REACHED_TOLERANCE`] of the chain length)
    /// with full weight: false when the target was out of reach, softened or weighted.
    pub reached: bool,
}

/// Relative tolerance of [`TwoBoneIkResult::reached`]: 1e-4 of the chain length (0.09 mm
/// on a 0.9 m leg).
pub const REACHED_TOLERANCE: f32 = 1e-4;

impl Default for TwoBoneIkJob {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            pole_vector: Vec3::Y,
            mid_axis: Vec3::Z,
            weight: 1.0,
            soften: 1.0,
            twist_angle: 0.0,
            start_joint: Mat4::IDENTITY,
            mid_joint: Mat4::IDENTITY,
            end_joint: Mat4::IDENTITY,
        }
    }
}

/// The rotation of a model matrix, scale removed (a scaled armature still gives a unit
/// quaternion).
pub(crate) fn rotation_of(m: &Mat4) -> Quat {
    // Scale removed column by column so a scaled armature still gives a unit quaternion.
    let r = Mat3::from_mat4(*m);
    let cols = [r.x_axis, r.y_axis, r.z_axis].map(|c| c.normalize_or_zero());
    Quat::from_mat3(&Mat3::from_cols(cols[0], cols[1], cols[2])).normalize()
}

/// Shortest-arc rotation taking direction `from` onto `to` (both non-zero).
fn arc(from: Vec3, to: Vec3) -> Quat {
    let (f, t) = (from.normalize(), to.normalize());
    let d = f.dot(t);
    if d < -0.999_999 {
        // Opposite: any perpendicular axis.
        let axis = f.any_orthonormal_vector();
        return Quat::from_axis_angle(axis, std::f32::consts::PI);
    }
    Quat::from_rotation_arc(f, t)
}

impl TwoBoneIkJob {
    fn validate(&self) -> Result<(), AnimError> {
        let vectors = [
            ("target", self.target),
            ("pole vector", self.pole_vector),
            ("mid axis", self.mid_axis),
        ];
        for (what, v) in vectors {
            if !v.is_finite() {
                return Err(AnimError::NonFinite {
                    what: format!("two-bone IK {what}"),
                });
            }
        }
        for (what, m) in [
            ("start joint", self.start_joint),
            ("mid joint", self.mid_joint),
            ("end joint", self.end_joint),
        ] {
            if !m.is_finite() {
                return Err(AnimError::NonFinite {
                    what: format!("two-bone IK {what}"),
                });
            }
        }
        for (what, v) in [
            ("weight", self.weight),
            ("soften", self.soften),
            ("twist angle", self.twist_angle),
        ] {
            if !v.is_finite() {
                return Err(AnimError::NonFinite {
                    what: format!("two-bone IK {what}"),
                });
            }
        }
        if self.mid_axis.length_squared() < 1e-12 {
            return Err(AnimError::OutOfRange {
                what: "two-bone IK mid axis".into(),
                detail: "is zero; it must be the knee's hinge axis".into(),
            });
        }
        Ok(())
    }

    /// Solves. Errors: a non-finite input, a zero mid axis, or a bone of zero length.
    pub fn run(&self) -> Result<TwoBoneIkResult, AnimError> {
        self.validate()?;
        let a = self.start_joint.w_axis.truncate();
        let b = self.mid_joint.w_axis.truncate();
        let c = self.end_joint.w_axis.truncate();
        let (l1, l2) = (a.distance(b), b.distance(c));
        let chain = l1 + l2;
        if !(l1 > 1e-9 * chain.max(1e-30) && l2 > 1e-9 * chain.max(1e-30)) || chain <= 0.0 {
            return Err(AnimError::OutOfRange {
                what: "two-bone IK chain".into(),
                detail: format!("bone lengths {l1} and {l2}; both must be > 0"),
            });
        }
        let weight = self.weight.clamp(0.0, 1.0);
        let identity = TwoBoneIkResult {
            start_correction: Quat::IDENTITY,
            mid_correction: Quat::IDENTITY,
            end_position: c,
            reached: false,
        };
        if weight <= 0.0 {
            return Ok(TwoBoneIkResult {
                reached: c.distance(self.target) <= REACHED_TOLERANCE * chain,
                ..identity
            });
        }
        let to_target = self.target - a;
        let wanted = to_target.length();
        if wanted < 1e-9 * chain {
            // The target sits on the start joint: no direction to aim at.
            return Ok(identity);
        }
        // Softened and reach-clamped distance.
        let soften = self.soften.clamp(0.0, 1.0);
        let da = chain * soften;
        let ds = chain - da;
        let mut d = wanted;
        if ds > 0.0 && d > da {
            d = da + ds * (1.0 - (-(d - da) / ds).exp());
        }
        let d = d.clamp((l1 - l2).abs(), chain);

        // 1. Knee about its hinge axis (model space).
        let mid_rot = rotation_of(&self.mid_joint);
        let k = (mid_rot * self.mid_axis).normalize();
        let ab = b - a; // start to mid
        let u = c - b; // mid to end
        let u_par = k * u.dot(k);
        let u_perp = u - u_par;
        let coef_a = ab.dot(u_perp);
        let coef_b = ab.dot(k.cross(u_perp));
        let coef_c = 0.5 * (d * d - ab.length_squared() - u.length_squared()) - ab.dot(u_par);
        let r = (coef_a * coef_a + coef_b * coef_b).sqrt();
        // φ = base ± spread with cos/sin(base) = (A, B)/r and cos(spread) = C/r. The
        // smaller rotation has the larger cos φ; a tie (straight leg) closes (sin φ < 0).
        // Built from cos/sin directly: no atan2, acos or sin/cos calls.
        let knee = if r > 1e-12 * chain * chain {
            let (cb, sb) = (coef_a / r, coef_b / r);
            let cs = (coef_c / r).clamp(-1.0, 1.0);
            let ss = (1.0 - cs * cs).max(0.0).sqrt();
            // base + spread and base - spread.
            let (c1, s1) = (cb * cs - sb * ss, sb * cs + cb * ss);
            let (c2, s2) = (cb * cs + sb * ss, sb * cs - cb * ss);
            let (cphi, sphi) = if (c1 - c2).abs() < 1e-6 {
                if s1 <= s2 {
                    (c1, s1)
                } else {
                    (c2, s2)
                }
            } else if c1 > c2 {
                (c1, s1)
            } else {
                (c2, s2)
            };
            // Half angle from tan(φ/2) = sin φ / (1 + cos φ): q ∝ (k sin φ, 1 + cos φ),
            // precise for small angles (a half-angle square root would not be).
            if 1.0 + cphi > 1e-6 {
                Quat::from_xyzw(k.x * sphi, k.y * sphi, k.z * sphi, 1.0 + cphi).normalize()
            } else {
                let s = if sphi < 0.0 { -1.0 } else { 1.0 };
                Quat::from_xyzw(k.x * s, k.y * s, k.z * s, 0.0)
            }
        } else {
            Quat::IDENTITY
        };
        let c1 = b + knee * u;

        // 2. Start joint: point the end at the target.
        let aim = arc(c1 - a, to_target);
        // 3. Knee plane toward the pole vector, plus twist.
        let axis = to_target / wanted;
        let b1 = a + aim * ab;
        let knee_dir = (b1 - a) - axis * (b1 - a).dot(axis);
        let pole = self.pole_vector - axis * self.pole_vector.dot(axis);
        let mut twist =
            if knee_dir.length_squared() > 1e-12 * chain * chain && pole.length_squared() > 1e-12 {
                // Both are perpendicular to `axis`, so the shortest arc turns about ±axis.
                arc(knee_dir, pole)
            } else {
                Quat::IDENTITY
            };
        if self.twist_angle != 0.0 {
            twist = Quat::from_axis_angle(axis, self.twist_angle) * twist;
        }
        let start_model = (twist * aim).normalize();

        // Model-space rotations about the joints → local-space corrections.
        let start_rot = rotation_of(&self.start_joint);
        let mut start_correction = (start_rot.inverse() * start_model * start_rot).normalize();
        let mut mid_correction = (mid_rot.inverse() * knee * mid_rot).normalize();
        let end_position = if weight < 1.0 {
            start_correction = Quat::IDENTITY.slerp(start_correction, weight);
            mid_correction = Quat::IDENTITY.slerp(mid_correction, weight);
            let start_w = start_rot * start_correction * start_rot.inverse();
            let mid_w = mid_rot * mid_correction * mid_rot.inverse();
            a + start_w * (ab + mid_w * u)
        } else {
            a + start_model * (ab + knee * u)
        };
        Ok(TwoBoneIkResult {
            start_correction,
            mid_correction,
            end_position,
            reached: weight >= 1.0
                && end_position.distance(self.target) <= REACHED_TOLERANCE * chain,
        })
    }
}

/// The knee's opening axis in the mid joint's local space, from a bent model-space pose
/// (`(start - mid) × (end - mid)`: rotating the end about it moves it away from the start).
/// `fallback` (model space) is used when the leg is straight (bend under ~1°): for a
/// glTF character facing +Z whose knees bend forward that is `-X`.
pub fn knee_axis(start: Vec3, mid: &Mat4, end: Vec3, fallback: Vec3) -> Vec3 {
    let b = mid.w_axis.truncate();
    let (v, u) = (start - b, end - b);
    let n = v.cross(u);
    let model_axis = if n.length_squared() > (0.017 * v.length() * u.length()).powi(2) {
        n.normalize()
    } else {
        fallback.normalize_or_zero()
    };
    rotation_of(mid).inverse() * model_axis
}
