//! Animation curves of one joint for a graph-editor view: each channel's value over the
//! clip (translation x/y/z, rotation as continuous Euler angles or as quaternion
//! components, scale x/y/z) and its key times.
//!
//! Euler angles are made continuous the way Blender's Euler filter does it: each sample
//! is turned into the equivalent triplet (every Tait-Bryan triplet `(a, b, c)` has a twin
//! `(a + 180, 180 - b, c + 180)`) and each angle into the full turn (`+- 360 k`) closest to
//! the previous sample, so a clip that spins three times draws a ramp to 1080 degrees
//! instead of a saw-tooth, and a pass near gimbal lock does not flip by 180.
//! Quaternions are sign-aligned to the previous sample for the same reason.

use glam::{EulerRot, Quat, Vec3};

use super::{AnimError, Clip, Transform};

/// The order Euler angles are read in (intrinsic rotations, first letter first), the
/// conventions animation packages offer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EulerOrder {
    /// About X, then Y, then Z (the default).
    #[default]
    Xyz,
    /// About X, then Z, then Y.
    Xzy,
    /// About Y, then X, then Z.
    Yxz,
    /// About Y, then Z, then X.
    Yzx,
    /// About Z, then X, then Y.
    Zxy,
    /// About Z, then Y, then X.
    Zyx,
}

impl EulerOrder {
    /// All six orders, `Xyz` first.
    pub const ALL: [EulerOrder; 6] = [
        EulerOrder::Xyz,
        EulerOrder::Xzy,
        EulerOrder::Yxz,
        EulerOrder::Yzx,
        EulerOrder::Zxy,
        EulerOrder::Zyx,
    ];

    /// The order's name in capitals (`"XYZ"`), for the UI.
    pub fn label(self) -> &'static str {
        match self {
            EulerOrder::Xyz => "XYZ",
            EulerOrder::Xzy => "XZY",
            EulerOrder::Yxz => "YXZ",
            EulerOrder::Yzx => "YZX",
            EulerOrder::Zxy => "ZXY",
            EulerOrder::Zyx => "ZYX",
        }
    }

    fn glam(self) -> EulerRot {
        match self {
            EulerOrder::Xyz => EulerRot::XYZ,
            EulerOrder::Xzy => EulerRot::XZY,
            EulerOrder::Yxz => EulerRot::YXZ,
            EulerOrder::Yzx => EulerRot::YZX,
            EulerOrder::Zxy => EulerRot::ZXY,
            EulerOrder::Zyx => EulerRot::ZYX,
        }
    }

    /// Which axis (0 = x, 1 = y, 2 = z) each of the three angles turns about.
    pub fn axes(self) -> [usize; 3] {
        match self {
            EulerOrder::Xyz => [0, 1, 2],
            EulerOrder::Xzy => [0, 2, 1],
            EulerOrder::Yxz => [1, 0, 2],
            EulerOrder::Yzx => [1, 2, 0],
            EulerOrder::Zxy => [2, 0, 1],
            EulerOrder::Zyx => [2, 1, 0],
        }
    }

    /// The three angles of `q` in degrees, in this order's sequence.
    pub fn angles_deg(self, q: Quat) -> [f32; 3] {
        let (a, b, c) = q.to_euler(self.glam());
        [a.to_degrees(), b.to_degrees(), c.to_degrees()]
    }

    /// The rotation the angles stand for.
    pub fn quat(self, angles_deg: [f32; 3]) -> Quat {
        Quat::from_euler(
            self.glam(),
            angles_deg[0].to_radians(),
            angles_deg[1].to_radians(),
            angles_deg[2].to_radians(),
        )
    }
}

/// `a` moved by whole turns to within 180 degrees of `reference`.
fn nearest_turn(a: f32, reference: f32) -> f32 {
    a - 360.0 * ((a - reference) / 360.0).round()
}

/// The triplet for `angles` (same rotation) that is closest to `previous`: of the two
/// equivalent Tait-Bryan triplets, each angle moved by whole turns towards `previous`.
pub fn continue_euler(previous: [f32; 3], angles: [f32; 3]) -> [f32; 3] {
    let [a, b, c] = angles;
    let twin = [a + 180.0, 180.0 - b, c + 180.0];
    let near = |t: [f32; 3]| -> ([f32; 3], f32) {
        let v = [
            nearest_turn(t[0], previous[0]),
            nearest_turn(t[1], previous[1]),
            nearest_turn(t[2], previous[2]),
        ];
        let d = (0..3).map(|i| (v[i] - previous[i]).abs()).sum();
        (v, d)
    };
    let (first, d1) = near(angles);
    let (second, d2) = near(twin);
    if d2 < d1 {
        second
    } else {
        first
    }
}

/// The curves of one joint, sampled evenly over the clip plus at every key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointCurves {
    /// Sample times in clip seconds, ascending (`[0, duration]`, keys included).
    pub times: Vec<f32>,
    /// Local translation x, y, z (parent-space units, metres in glTF) per sample.
    pub translation: [Vec<f32>; 3],
    /// Continuous Euler angles in degrees per sample, in the order's sequence.
    pub euler_deg: [Vec<f32>; 3],
    /// Quaternion x, y, z, w per sample, sign-continuous.
    pub quaternion: [Vec<f32>; 4],
    /// Scale x, y, z per sample.
    pub scale: [Vec<f32>; 3],
    /// Key times of each animated channel (`None`: not animated, the rest value).
    pub translation_keys: Option<Vec<f32>>,
    /// Key times of the rotation channel, clip seconds (`None`: not animated).
    pub rotation_keys: Option<Vec<f32>>,
    /// Key times of the scale channel, clip seconds (`None`: not animated).
    pub scale_keys: Option<Vec<f32>>,
}

impl JointCurves {
    /// Samples joint `joint` of `clip` (`rest` is its rest transform, used for channels
    /// the clip does not animate) at `samples` even steps over the clip and at every key.
    pub fn sample(
        clip: &Clip,
        joint: usize,
        rest: &Transform,
        order: EulerOrder,
        samples: usize,
    ) -> Result<JointCurves, AnimError> {
        if samples < 2 {
            return Err(AnimError::OutOfRange {
                what: "curve samples".into(),
                detail: format!("{samples}: need at least 2"),
            });
        }
        let tracks = clip.joint_tracks(joint);
        let duration = clip.duration_secs();
        let mut times: Vec<f32> = (0..samples)
            .map(|i| duration * i as f32 / (samples - 1) as f32)
            .collect();
        let translation_keys =
            tracks.and_then(|t| t.translation.as_ref().map(|k| k.times().to_vec()));
        let rotation_keys = tracks.and_then(|t| t.rotation.as_ref().map(|k| k.times().to_vec()));
        let scale_keys = tracks.and_then(|t| t.scale.as_ref().map(|k| k.times().to_vec()));
        for keys in [&translation_keys, &rotation_keys, &scale_keys]
            .into_iter()
            .flatten()
        {
            times.extend(keys.iter().copied().filter(|t| *t <= duration));
        }
        times.sort_by(f32::total_cmp);
        times.dedup();
        let mut out = JointCurves {
            translation_keys,
            rotation_keys,
            scale_keys,
            ..JointCurves::default()
        };
        let mut prev_euler: Option<[f32; 3]> = None;
        let mut prev_q: Option<Quat> = None;
        for &t in &times {
            let (tr, mut q, s): (Vec3, Quat, Vec3) = match tracks {
                Some(k) => (
                    k.translation
                        .as_ref()
                        .map_or(rest.translation, |x| x.sample(t)),
                    k.rotation.as_ref().map_or(rest.rotation, |x| x.sample(t)),
                    k.scale.as_ref().map_or(rest.scale, |x| x.sample(t)),
                ),
                None => (rest.translation, rest.rotation, rest.scale),
            };
            if prev_q.is_some_and(|p| p.dot(q) < 0.0) {
                q = -q;
            }
            prev_q = Some(q);
            let raw = order.angles_deg(q);
            let e = match prev_euler {
                None => raw,
                Some(p) => continue_euler(p, raw),
            };
            prev_euler = Some(e);
            for i in 0..3 {
                out.translation[i].push(tr[i]);
                out.euler_deg[i].push(e[i]);
                out.scale[i].push(s[i]);
            }
            for (i, v) in q.to_array().into_iter().enumerate() {
                out.quaternion[i].push(v);
            }
        }
        out.times = times;
        Ok(out)
    }
}
