//! Local joint transforms (translation, rotation, scale).

use glam::{Mat4, Quat, Vec3};

/// A joint transform relative to its parent (or to model space for a root joint).
///
/// Units: metres for `translation`, a unit quaternion for `rotation`, unitless `scale`.
/// The matrix it stands for is `T * R * S` (glTF order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
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
