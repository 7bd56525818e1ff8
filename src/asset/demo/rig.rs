//! The demo's rig: joint indices and bind offsets, the rest pose, and the local maths
//! (a polynomial sine and cosine, easing curves) that keep the bytes identical everywhere.

use super::*;

pub(super) const ROOT: usize = 0;
pub(super) const PELVIS: usize = 1;
pub(super) const SPINE_01: usize = 2;
pub(super) const SPINE_02: usize = 3;
pub(super) const SPINE_03: usize = 4;
pub(super) const NECK: usize = 5;
pub(super) const HEAD: usize = 6;
pub(super) const CLAVICLE_L: usize = 7;
pub(super) const UPPERARM_L: usize = 8;
pub(super) const LOWERARM_L: usize = 9;
pub(super) const HAND_L: usize = 10;
pub(super) const CLAVICLE_R: usize = 11;
pub(super) const UPPERARM_R: usize = 12;
pub(super) const LOWERARM_R: usize = 13;
pub(super) const HAND_R: usize = 14;
pub(super) const THIGH_L: usize = 15;
pub(super) const CALF_L: usize = 16;
pub(super) const FOOT_L: usize = 17;
pub(super) const TOE_L: usize = 18;
pub(super) const THIGH_R: usize = 19;
pub(super) const CALF_R: usize = 20;
pub(super) const FOOT_R: usize = 21;
pub(super) const TOE_R: usize = 22;
pub(super) const JOINT_COUNT: usize = 23;

/// Arm chains (clavicle, upper arm, lower arm, hand): left, then right.
pub(super) const ARMS: [[usize; 4]; 2] = [
    [CLAVICLE_L, UPPERARM_L, LOWERARM_L, HAND_L],
    [CLAVICLE_R, UPPERARM_R, LOWERARM_R, HAND_R],
];
/// Leg chains (thigh, calf, foot, toe): left, then right.
pub(super) const LEGS: [[usize; 4]; 2] = [
    [THIGH_L, CALF_L, FOOT_L, TOE_L],
    [THIGH_R, CALF_R, FOOT_R, TOE_R],
];
/// +1 on the left (+X), -1 on the right.
pub(super) const SIDE_SIGN: [f64; 2] = [1.0, -1.0];

pub(super) struct JointDef {
    pub(super) name: &'static str,
    pub(super) parent: Option<usize>,
    /// Model-space bind position, metres. Every bind rotation is the identity, so joint
    /// frames are aligned with the model axes at bind time.
    pub(super) bind: [f64; 3],
}

pub(super) const fn joint(name: &'static str, parent: Option<usize>, bind: [f64; 3]) -> JointDef {
    JointDef { name, parent, bind }
}

/// Parent-before-child; glTF node i is joint i.
pub(super) const JOINTS: [JointDef; JOINT_COUNT] = [
    joint("root", None, [0.0, 0.0, 0.0]),
    joint("pelvis", Some(ROOT), [0.0, 0.96, 0.0]),
    joint("spine_01", Some(PELVIS), [0.0, 1.06, 0.0]),
    joint("spine_02", Some(SPINE_01), [0.0, 1.19, -0.005]),
    joint("spine_03", Some(SPINE_02), [0.0, 1.33, -0.01]),
    joint("neck", Some(SPINE_03), [0.0, 1.50, 0.0]),
    joint("head", Some(NECK), [0.0, 1.59, 0.015]),
    joint("clavicle_l", Some(SPINE_03), [0.03, 1.45, 0.0]),
    joint("upperarm_l", Some(CLAVICLE_L), [0.185, 1.435, -0.01]),
    joint("lowerarm_l", Some(UPPERARM_L), [0.215, 1.13, -0.02]),
    joint("hand_l", Some(LOWERARM_L), [0.235, 0.85, 0.0]),
    joint("clavicle_r", Some(SPINE_03), [-0.03, 1.45, 0.0]),
    joint("upperarm_r", Some(CLAVICLE_R), [-0.185, 1.435, -0.01]),
    joint("lowerarm_r", Some(UPPERARM_R), [-0.215, 1.13, -0.02]),
    joint("hand_r", Some(LOWERARM_R), [-0.235, 0.85, 0.0]),
    joint("thigh_l", Some(PELVIS), [0.095, 0.935, 0.0]),
    joint("calf_l", Some(THIGH_L), [0.095, 0.505, 0.0]),
    joint("foot_l", Some(CALF_L), [0.095, 0.085, 0.0]),
    joint("toe_l", Some(FOOT_L), [0.095, 0.025, 0.135]),
    joint("thigh_r", Some(PELVIS), [-0.095, 0.935, 0.0]),
    joint("calf_r", Some(THIGH_R), [-0.095, 0.505, 0.0]),
    joint("foot_r", Some(CALF_R), [-0.095, 0.085, 0.0]),
    joint("toe_r", Some(FOOT_R), [-0.095, 0.025, 0.135]),
];

/// The bind skeleton as stored in the file.
pub(super) struct Rig {
    /// Node translations (parent space), rounded to `f32` as written.
    pub(super) offsets: [DVec3; JOINT_COUNT],
    /// Model-space bind positions accumulated from `offsets`.
    pub(super) bind: [DVec3; JOINT_COUNT],
}

impl Rig {
    pub(super) fn new() -> Self {
        let mut offsets = [DVec3::ZERO; JOINT_COUNT];
        let mut bind = [DVec3::ZERO; JOINT_COUNT];
        for (j, def) in JOINTS.iter().enumerate() {
            let parent_bind = def
                .parent
                .map_or(DVec3::ZERO, |p| DVec3::from_array(JOINTS[p].bind));
            offsets[j] = (DVec3::from_array(def.bind) - parent_bind)
                .as_vec3()
                .as_dvec3();
            bind[j] = def.parent.map_or(DVec3::ZERO, |p| bind[p]) + offsets[j];
        }
        Self { offsets, bind }
    }
}

/// Sine and cosine from a Cody–Waite range reduction and Taylor polynomials on
/// [-π/4, π/4] (error below 1e-15): the same bits on every platform, unlike libm.
pub(super) fn sin_cos(x: f64) -> (f64, f64) {
    const PIO2_LO: f64 = 6.123_233_995_736_766e-17;
    let k = (x / FRAC_PI_2).round();
    let r = (x - k * FRAC_PI_2) - k * PIO2_LO;
    let r2 = r * r;
    let s = r
        * (1.0
            + r2 * (-1.0 / 6.0
                + r2 * (1.0 / 120.0
                    + r2 * (-1.0 / 5_040.0
                        + r2 * (1.0 / 362_880.0
                            + r2 * (-1.0 / 39_916_800.0
                                + r2 * (1.0 / 6_227_020_800.0
                                    + r2 * (-1.0 / 1_307_674_368_000.0
                                        + r2 / 355_687_428_096_000.0))))))));
    let c = 1.0
        + r2 * (-0.5
            + r2 * (1.0 / 24.0
                + r2 * (-1.0 / 720.0
                    + r2 * (1.0 / 40_320.0
                        + r2 * (-1.0 / 3_628_800.0
                            + r2 * (1.0 / 479_001_600.0
                                + r2 * (-1.0 / 87_178_291_200.0 + r2 / 20_922_789_888_000.0)))))));
    match (k as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

pub(super) fn sin(x: f64) -> f64 {
    sin_cos(x).0
}

pub(super) fn cos(x: f64) -> f64 {
    sin_cos(x).1
}

pub(super) fn rot_x(angle: f64) -> DQuat {
    let (s, c) = sin_cos(0.5 * angle);
    DQuat::from_xyzw(s, 0.0, 0.0, c)
}

pub(super) fn rot_y(angle: f64) -> DQuat {
    let (s, c) = sin_cos(0.5 * angle);
    DQuat::from_xyzw(0.0, s, 0.0, c)
}

pub(super) fn rot_z(angle: f64) -> DQuat {
    let (s, c) = sin_cos(0.5 * angle);
    DQuat::from_xyzw(0.0, 0.0, s, c)
}

/// Normalised lerp on the shortest arc.
pub(super) fn nlerp(a: DQuat, b: DQuat, t: f64) -> DQuat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    DQuat::from_xyzw(
        a.x + (b.x - a.x) * t,
        a.y + (b.y - a.y) * t,
        a.z + (b.z - a.z) * t,
        a.w + (b.w - a.w) * t,
    )
    .normalize()
}

/// Hermite smoothstep from `e0` to `e1` (either order).
pub(super) fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    smooth01((x - e0) / (e1 - e0))
}

pub(super) fn smooth01(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Minimum-jerk ease 0 -> 1 (zero velocity and acceleration at both ends).
pub(super) fn min_jerk(q: f64) -> f64 {
    let q = q.clamp(0.0, 1.0);
    q * q * q * (10.0 + q * (-15.0 + 6.0 * q))
}

/// A smooth bump, 0 at q = 0 and 1, peak 1 at `peak`.
pub(super) fn hump(q: f64, peak: f64) -> f64 {
    if q < peak {
        smooth01(q / peak)
    } else {
        smooth01((1.0 - q) / (1.0 - peak))
    }
}

/// One joint's local transform (scale is always 1).
#[derive(Clone, Copy, Debug)]
pub(super) struct Local {
    pub(super) t: DVec3,
    pub(super) r: DQuat,
}

pub(super) type Pose = [Local; JOINT_COUNT];

pub(super) fn rest_pose(rig: &Rig) -> Pose {
    let mut pose = [Local {
        t: DVec3::ZERO,
        r: DQuat::IDENTITY,
    }; JOINT_COUNT];
    for (l, &t) in pose.iter_mut().zip(&rig.offsets) {
        l.t = t;
    }
    pose
}
