//! The built-in demo character, generated entirely by this module (no external asset).
//!
//! A ~1.8 m humanoid in glTF 2.0 binary form (`.glb`): Y up, metres, facing +Z, left is
//! +X, feet on y = 0. One skin of 23 joints (`root` at the ground carries the root motion,
//! `pelvis` 0.96 m up at rest, spine, neck, head, arms and legs with toes), one skinned mesh
//! built from tapered capsules and ellipsoids with smooth normals and blended weights at
//! the joints, one material, and five clips keyed at 30 Hz with LINEAR interpolation:
//!
//! | clip       | length | root motion per cycle                            | extras          |
//! |------------|--------|--------------------------------------------------|-----------------|
//! | `Idle`     | 2.0 s  | none (breathing, weight shift)                   | —               |
//! | `Walk`     | 1.1 s  | 1.4 m along +Z; speed 0.6 / 1.2 / 1.0 x mean     | foot markers    |
//! | `Run`      | 0.7 s  | 3.5 m along +Z; speed 0.92 / 0.79 / 1.37 x mean  | foot markers    |
//! | `TurnWalk` | 1.1 s  | 1.4 m along an arc turning +30° (left)           | foot markers    |
//! | `Wave`     | 2.0 s  | none; right-arm wave layer, reference = key 0    | `additive: true`|
//!
//! The root speed changes within each cycle (piecewise linear, never backwards) and the
//! pelvis rides on the root, so the variation shows in the body too; the Run has a
//! flight phase and a pelvis bob of ~5 cm.
//!
//! Locomotion clips are cyclic: the last key's pose equals the first key's except for the
//! root, which has moved one cycle on. Feet are placed by a planner (heel strike, flat
//! foot, heel rise, swing) and the legs reach them with an analytic two-bone IK, so a
//! planted foot stays still in world space while the root moves over it. Foot contacts
//! are sync markers in each locomotion animation's `extras.markers`
//! (`left_foot_down` at phase 0).
//!
//! The bytes are fully deterministic on every platform: the maths uses only IEEE
//! arithmetic and `sqrt` (sine and cosine come from a local polynomial, never the system
//! libm), all geometry is computed in `f64` scalar code, and the JSON is written with
//! sorted keys and `ryu` number formatting.

use std::f64::consts::{FRAC_PI_2, PI, TAU};
use std::io;
use std::path::Path;

use glam::{DMat3, DQuat, DVec3};
use serde_json::{json, Value};

/// Where the demo character lives, relative to the repository root.
pub const DEMO_PATH: &str = "assets/demo.glb";

/// `asset.generator` of the demo file.
pub const GENERATOR: &str = "stridescope make-demo";

/// Key rate of every clip.
const FPS: f64 = 30.0;

/// The demo character as `.glb` bytes; identical bytes on every call and platform.
pub fn demo_glb() -> Vec<u8> {
    let rig = Rig::new();
    let mesh = build_mesh(&rig);
    let clips = build_clips(&rig);
    write_glb(&rig, &mesh, &clips)
}

/// Writes [`demo_glb`] to `path`, creating missing parent directories.
pub fn write_demo(path: &Path) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        if !parent.as_os_str().is_empty() {
            std::fs::create_dir_all(parent)?;
        }
    }
    std::fs::write(path, demo_glb())
}

// ---------------------------------------------------------------------------------------
// Skeleton

const ROOT: usize = 0;
const PELVIS: usize = 1;
const SPINE_01: usize = 2;
const SPINE_02: usize = 3;
const SPINE_03: usize = 4;
const NECK: usize = 5;
const HEAD: usize = 6;
const CLAVICLE_L: usize = 7;
const UPPERARM_L: usize = 8;
const LOWERARM_L: usize = 9;
const HAND_L: usize = 10;
const CLAVICLE_R: usize = 11;
const UPPERARM_R: usize = 12;
const LOWERARM_R: usize = 13;
const HAND_R: usize = 14;
const THIGH_L: usize = 15;
const CALF_L: usize = 16;
const FOOT_L: usize = 17;
const TOE_L: usize = 18;
const THIGH_R: usize = 19;
const CALF_R: usize = 20;
const FOOT_R: usize = 21;
const TOE_R: usize = 22;
const JOINT_COUNT: usize = 23;

/// Arm chains (clavicle, upper arm, lower arm, hand): left, then right.
const ARMS: [[usize; 4]; 2] = [
    [CLAVICLE_L, UPPERARM_L, LOWERARM_L, HAND_L],
    [CLAVICLE_R, UPPERARM_R, LOWERARM_R, HAND_R],
];
/// Leg chains (thigh, calf, foot, toe): left, then right.
const LEGS: [[usize; 4]; 2] = [
    [THIGH_L, CALF_L, FOOT_L, TOE_L],
    [THIGH_R, CALF_R, FOOT_R, TOE_R],
];
/// +1 on the left (+X), -1 on the right.
const SIDE_SIGN: [f64; 2] = [1.0, -1.0];

struct JointDef {
    name: &'static str,
    parent: Option<usize>,
    /// Model-space bind position, metres. Every bind rotation is the identity, so joint
    /// frames are aligned with the model axes at bind time.
    bind: [f64; 3],
}

const fn joint(name: &'static str, parent: Option<usize>, bind: [f64; 3]) -> JointDef {
    JointDef { name, parent, bind }
}

/// Parent-before-child; glTF node i is joint i.
const JOINTS: [JointDef; JOINT_COUNT] = [
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
struct Rig {
    /// Node translations (parent space), rounded to `f32` as written.
    offsets: [DVec3; JOINT_COUNT],
    /// Model-space bind positions accumulated from `offsets`.
    bind: [DVec3; JOINT_COUNT],
}

impl Rig {
    fn new() -> Self {
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

// ---------------------------------------------------------------------------------------
// Deterministic maths

/// Sine and cosine from a Cody–Waite range reduction and Taylor polynomials on
/// [-π/4, π/4] (error below 1e-15): the same bits on every platform, unlike libm.
fn sin_cos(x: f64) -> (f64, f64) {
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

fn sin(x: f64) -> f64 {
    sin_cos(x).0
}

fn cos(x: f64) -> f64 {
    sin_cos(x).1
}

fn rot_x(angle: f64) -> DQuat {
    let (s, c) = sin_cos(0.5 * angle);
    DQuat::from_xyzw(s, 0.0, 0.0, c)
}

fn rot_y(angle: f64) -> DQuat {
    let (s, c) = sin_cos(0.5 * angle);
    DQuat::from_xyzw(0.0, s, 0.0, c)
}

fn rot_z(angle: f64) -> DQuat {
    let (s, c) = sin_cos(0.5 * angle);
    DQuat::from_xyzw(0.0, 0.0, s, c)
}

/// Normalised lerp on the shortest arc.
fn nlerp(a: DQuat, b: DQuat, t: f64) -> DQuat {
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
fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    smooth01((x - e0) / (e1 - e0))
}

fn smooth01(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Minimum-jerk ease 0 -> 1 (zero velocity and acceleration at both ends).
fn min_jerk(q: f64) -> f64 {
    let q = q.clamp(0.0, 1.0);
    q * q * q * (10.0 + q * (-15.0 + 6.0 * q))
}

/// A smooth bump, 0 at q = 0 and 1, peak 1 at `peak`.
fn hump(q: f64, peak: f64) -> f64 {
    if q < peak {
        smooth01(q / peak)
    } else {
        smooth01((1.0 - q) / (1.0 - peak))
    }
}

// ---------------------------------------------------------------------------------------
// Poses

/// One joint's local transform (scale is always 1).
#[derive(Clone, Copy, Debug)]
struct Local {
    t: DVec3,
    r: DQuat,
}

type Pose = [Local; JOINT_COUNT];

fn rest_pose(rig: &Rig) -> Pose {
    let mut pose = [Local {
        t: DVec3::ZERO,
        r: DQuat::IDENTITY,
    }; JOINT_COUNT];
    for (l, &t) in pose.iter_mut().zip(&rig.offsets) {
        l.t = t;
    }
    pose
}

/// Where a foot should be, in model space.
#[derive(Clone, Copy, Debug)]
struct FootTarget {
    /// Ankle (foot joint) position.
    ankle: DVec3,
    /// Model-space rotation of the foot joint.
    rot: DQuat,
    /// Local rotation of the toe joint.
    toe: DQuat,
}

/// A whole-body pose description; [`solve`] turns it into local joint transforms.
#[derive(Clone, Copy, Debug)]
struct BodyState {
    root_pos: DVec3,
    root_rot: DQuat,
    /// Pelvis local transform (in the root's frame).
    pelvis_t: DVec3,
    pelvis_r: DQuat,
    /// Local rotations of spine_01..03.
    spine: [DQuat; 3],
    /// Model-space head rotation (the neck takes half of the way there).
    head: DQuat,
    /// Local rotations of (clavicle, upper arm, lower arm, hand), left then right.
    arms: [[DQuat; 4]; 2],
    feet: [FootTarget; 2],
}

impl BodyState {
    fn pelvis_model(&self) -> (DVec3, DQuat) {
        (
            self.root_pos + self.root_rot * self.pelvis_t,
            self.root_rot * self.pelvis_r,
        )
    }
}

/// Legs reach at most this fraction of their length (the knee never locks).
const MAX_LEG_EXTENSION: f64 = 0.997;

/// Rotation whose frame has +Y along `-bone` and +Z towards `pole`.
fn frame_bone_pole(bone: DVec3, pole: DVec3) -> DQuat {
    let y = -bone.normalize();
    let z = (pole - y * pole.dot(y)).normalize();
    let x = y.cross(z);
    DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize()
}

/// Rotation whose frame has +Y along `-bone` and +X towards `x_hint`.
fn frame_bone_x(bone: DVec3, x_hint: DVec3) -> DQuat {
    let y = -bone.normalize();
    let x = (x_hint - y * x_hint.dot(y)).normalize();
    let z = x.cross(y);
    DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize()
}

/// Two-bone IK: model-space rotations of thigh and calf that put the ankle on target,
/// with the knee bending forward (towards the mean of pelvis and foot facing).
fn leg_ik(
    rig: &Rig,
    pelvis_pos: DVec3,
    pelvis_rot: DQuat,
    leg: [usize; 4],
    foot: &FootTarget,
) -> (DQuat, DQuat) {
    let [thigh, calf, ankle, _] = leg;
    let (knee_off, ankle_off) = (rig.offsets[calf], rig.offsets[ankle]);
    let (l1, l2) = (knee_off.length(), ankle_off.length());
    let hip = pelvis_pos + pelvis_rot * rig.offsets[thigh];
    let to = foot.ankle - hip;
    let d = to
        .length()
        .clamp((l1 - l2).abs() + 1e-6, (l1 + l2) * (1.0 - 1e-9));
    let dir = to.normalize();
    let facing = |q: DQuat| (q * DVec3::Z).with_y(0.0).normalize();
    let pole = facing(pelvis_rot) + facing(foot.rot);
    let perp = (pole - dir * pole.dot(dir)).normalize();
    let cos_a = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
    let sin_a = (1.0 - cos_a * cos_a).max(0.0).sqrt();
    let knee = hip + (dir * cos_a + perp * sin_a) * l1;
    let ankle_pos = hip + dir * d;
    let thigh_frame = frame_bone_pole(knee - hip, pole);
    let thigh_rot = thigh_frame * frame_bone_pole(knee_off, DVec3::Z).inverse();
    let calf_frame = frame_bone_x(ankle_pos - knee, thigh_frame * DVec3::X);
    let calf_rot = calf_frame * frame_bone_x(ankle_off, DVec3::X).inverse();
    (thigh_rot.normalize(), calf_rot.normalize())
}

/// Local transforms for a body state.
fn solve(rig: &Rig, s: &BodyState) -> Pose {
    let mut pose = rest_pose(rig);
    pose[ROOT] = Local {
        t: s.root_pos,
        r: s.root_rot,
    };
    pose[PELVIS] = Local {
        t: s.pelvis_t,
        r: s.pelvis_r,
    };
    let (pelvis_pos, pelvis_rot) = s.pelvis_model();
    for (k, j) in [SPINE_01, SPINE_02, SPINE_03].into_iter().enumerate() {
        pose[j].r = s.spine[k];
    }
    let spine_top = pelvis_rot * s.spine[0] * s.spine[1] * s.spine[2];
    let neck = nlerp(spine_top, s.head, 0.5);
    pose[NECK].r = spine_top.inverse() * neck;
    pose[HEAD].r = neck.inverse() * s.head;
    for side in 0..2 {
        for (k, &j) in ARMS[side].iter().enumerate() {
            pose[j].r = s.arms[side][k];
        }
        let foot = &s.feet[side];
        let (thigh, calf) = leg_ik(rig, pelvis_pos, pelvis_rot, LEGS[side], foot);
        let [j_thigh, j_calf, j_foot, j_toe] = LEGS[side];
        pose[j_thigh].r = pelvis_rot.inverse() * thigh;
        pose[j_calf].r = thigh.inverse() * calf;
        pose[j_foot].r = calf.inverse() * foot.rot;
        pose[j_toe].r = foot.toe;
    }
    for l in pose.iter_mut() {
        l.r = l.r.normalize();
    }
    pose
}

/// How far the pelvis must come down so both legs reach their targets.
fn reach_drop(rig: &Rig, s: &BodyState) -> f64 {
    let (pelvis_pos, pelvis_rot) = s.pelvis_model();
    let mut drop = 0.0f64;
    for ([thigh, calf, foot, _], target) in LEGS.iter().zip(&s.feet) {
        let reach = (rig.offsets[*calf].length() + rig.offsets[*foot].length()) * MAX_LEG_EXTENSION;
        let hip = pelvis_pos + pelvis_rot * rig.offsets[*thigh];
        let to = target.ankle - hip;
        let horizontal = to.with_y(0.0).length();
        let allowed = (reach * reach - horizontal * horizontal).max(0.0).sqrt();
        drop = drop.max(-to.y - allowed);
    }
    drop
}

/// Lowers the pelvis of a cyclic sequence of states wherever a leg would over-extend,
/// smoothed over neighbouring frames (a max filter, then a box blur of the same radius,
/// so every frame is lowered at least as much as it needs).
fn fit_leg_reach(rig: &Rig, states: &mut [BodyState]) {
    const RADIUS: isize = 2;
    let n = states.len() as isize;
    let need: Vec<f64> = states.iter().map(|s| reach_drop(rig, s).max(0.0)).collect();
    let at = |v: &[f64], i: isize| v[i.rem_euclid(n) as usize];
    let widened: Vec<f64> = (0..n)
        .map(|i| {
            (-RADIUS..=RADIUS)
                .map(|k| at(&need, i + k))
                .fold(0.0, f64::max)
        })
        .collect();
    for i in 0..n {
        let drop =
            (-RADIUS..=RADIUS).map(|k| at(&widened, i + k)).sum::<f64>() / (2 * RADIUS + 1) as f64;
        states[i as usize].pelvis_t.y -= drop;
    }
}

// ---------------------------------------------------------------------------------------
// Locomotion

/// Parameters of one cyclic gait; the cycle starts at the left heel strike.
struct Gait {
    name: &'static str,
    frames: usize,
    /// Root arc length per cycle, metres.
    distance_m: f64,
    /// Root yaw per cycle (positive turns left); the path is then a circular arc.
    turn_rad: f64,
    /// Root arc length as a fraction of the cycle's, at cycle phases (piecewise linear,
    /// increasing, from (0, 0) to (1, 1)).
    root_profile: &'static [(f64, f64)],
    /// Fraction of the cycle a foot is on the ground.
    duty: f64,
    /// Foot pitch at heel strike (toes up) and at toe-off (heel up, negative).
    heel_strike_rad: f64,
    toe_off_rad: f64,
    /// Stance progress at which the foot is flat, and at which the heel starts to rise.
    heel_roll_end: f64,
    heel_rise_start: f64,
    /// Flat-foot ankle position ahead of the root at touchdown, along the path.
    plant_ahead_m: f64,
    /// Ankle distance from the path's centre line.
    step_width_m: f64,
    swing_lift_m: f64,
    swing_lift_peak: f64,
    /// 0: the swing foot eases from rest to rest in world space; 1: it eases in the
    /// root's frame (leaving and landing at the root's speed). Fast gaits need some
    /// follow or the foot trails far behind the hip after toe-off.
    swing_follow: f64,
    pelvis_height_m: f64,
    bob_m: f64,
    /// Cycle phase of the lowest pelvis (it is lowest twice per cycle).
    bob_low_phase: f64,
    sway_m: f64,
    pelvis_twist_rad: f64,
    pelvis_roll_rad: f64,
    pelvis_tilt_rad: f64,
    lean_rad: f64,
    /// Shoulder yaw as a fraction of the pelvis yaw, opposite way.
    shoulder_counter: f64,
    arm_swing_rad: f64,
    arm_forward_rad: f64,
    elbow_rad: f64,
    elbow_swing_rad: f64,
    arm_out_rad: f64,
    head_pitch_rad: f64,
}

const WALK: Gait = Gait {
    name: "Walk",
    frames: 33,
    distance_m: 1.4,
    turn_rad: 0.0,
    // Slow, fast, medium: 0.6, 1.2 and 1.0 times the mean speed of 1.27 m/s.
    root_profile: &[(0.0, 0.0), (0.25, 0.15), (0.75, 0.75), (1.0, 1.0)],
    duty: 0.6,
    heel_strike_rad: 0.25,
    toe_off_rad: -0.6,
    heel_roll_end: 0.15,
    heel_rise_start: 0.5,
    plant_ahead_m: 0.34,
    step_width_m: 0.085,
    swing_lift_m: 0.05,
    swing_lift_peak: 0.4,
    swing_follow: 0.0,
    pelvis_height_m: 0.945,
    bob_m: 0.02,
    bob_low_phase: 0.05,
    sway_m: 0.025,
    pelvis_twist_rad: 0.09,
    pelvis_roll_rad: 0.05,
    pelvis_tilt_rad: 0.04,
    lean_rad: 0.05,
    shoulder_counter: 0.6,
    arm_swing_rad: 0.32,
    arm_forward_rad: 0.04,
    elbow_rad: 0.25,
    elbow_swing_rad: 0.25,
    arm_out_rad: 0.06,
    head_pitch_rad: 0.0,
};

const RUN: Gait = Gait {
    name: "Run",
    frames: 21,
    distance_m: 3.5,
    turn_rad: 0.0,
    // Medium, slow, fast: 0.92, 0.79 and 1.37 times the mean speed of 5 m/s, chosen so
    // that both feet see about the same root travel during their stance.
    root_profile: &[(0.0, 0.0), (0.3, 0.275), (0.7, 0.59), (1.0, 1.0)],
    duty: 0.26,
    heel_strike_rad: 0.08,
    toe_off_rad: -0.85,
    heel_roll_end: 0.1,
    heel_rise_start: 0.5,
    plant_ahead_m: 0.32,
    step_width_m: 0.05,
    swing_lift_m: 0.32,
    swing_lift_peak: 0.4,
    swing_follow: 0.9,
    pelvis_height_m: 0.91,
    bob_m: 0.03,
    bob_low_phase: 0.15,
    sway_m: 0.012,
    pelvis_twist_rad: 0.12,
    pelvis_roll_rad: 0.035,
    pelvis_tilt_rad: 0.08,
    lean_rad: 0.14,
    shoulder_counter: 0.8,
    arm_swing_rad: 0.55,
    arm_forward_rad: 0.1,
    elbow_rad: 1.45,
    elbow_swing_rad: 0.25,
    arm_out_rad: 0.1,
    head_pitch_rad: 0.05,
};

const TURN_WALK: Gait = Gait {
    name: "TurnWalk",
    turn_rad: PI / 6.0,
    ..WALK
};

impl Gait {
    fn duration_secs(&self) -> f64 {
        self.frames as f64 / FPS
    }

    /// Root arc length at (unwrapped) cycle phase `u`.
    fn root_arc(&self, u: f64) -> f64 {
        let cycle = u.floor();
        let f = u - cycle;
        let mut frac = 1.0;
        for w in self.root_profile.windows(2) {
            if f <= w[1].0 {
                frac = w[0].1 + (w[1].1 - w[0].1) * (f - w[0].0) / (w[1].0 - w[0].0);
                break;
            }
        }
        self.distance_m * (cycle + frac)
    }

    /// Point and heading (yaw) of the path at arc length `s`: the +Z axis, or a circle
    /// tangent to it at the origin that turns `turn_rad` every `distance_m`.
    fn path(&self, s: f64) -> (DVec3, f64) {
        if self.turn_rad.abs() < 1e-12 {
            return (DVec3::new(0.0, 0.0, s), 0.0);
        }
        let curvature = self.turn_rad / self.distance_m;
        let yaw = curvature * s;
        let (sn, cs) = sin_cos(yaw);
        (DVec3::new((1.0 - cs) / curvature, 0.0, sn / curvature), yaw)
    }

    /// The ankle offset (forward, up) from the flat foot's ankle, the foot pitch (toes up
    /// positive) and the toe bend at stance progress `q` in [0, 1].
    fn stance_foot(&self, q: f64) -> (f64, f64, f64, f64) {
        /// Heel and ball contact points, forward of the ankle.
        const HEEL_F: f64 = -0.06;
        const BALL_F: f64 = 0.135;
        let ankle_h = JOINTS[FOOT_L].bind[1];
        let pivot = |pivot_f: f64, pitch: f64| {
            let (s, c) = sin_cos(pitch);
            let (x, y) = (-pivot_f, ankle_h);
            (pivot_f + x * c - y * s, x * s + y * c)
        };
        if q < self.heel_roll_end {
            let pitch = self.heel_strike_rad * (1.0 - smooth01(q / self.heel_roll_end));
            let (f, y) = pivot(HEEL_F, pitch);
            (f, y, pitch, 0.0)
        } else if q < self.heel_rise_start {
            (0.0, ankle_h, 0.0, 0.0)
        } else {
            let pitch = self.toe_off_rad
                * smooth01((q - self.heel_rise_start) / (1.0 - self.heel_rise_start));
            let (f, y) = pivot(BALL_F, pitch);
            (f, y, pitch, pitch)
        }
    }

    /// Ground point and yaw of a foot's `n`-th plant (flat-foot ankle projection).
    fn plant(&self, side: usize, n: f64) -> (DVec3, f64) {
        let s = self.root_arc(0.5 * side as f64 + n) + self.plant_ahead_m;
        let (p, yaw) = self.path(s);
        let (sn, cs) = sin_cos(yaw);
        let left = DVec3::new(cs, 0.0, -sn);
        (p + left * (SIDE_SIGN[side] * self.step_width_m), yaw)
    }

    fn foot(&self, side: usize, u: f64) -> FootTarget {
        let place =
            |(base, yaw): (DVec3, f64), f: f64, y: f64| base + rot_y(yaw) * DVec3::new(0.0, y, f);
        let v = u - 0.5 * side as f64;
        let n = v.floor();
        let p = v - n;
        if p < self.duty {
            let (f, y, pitch, toe) = self.stance_foot(p / self.duty);
            let plant = self.plant(side, n);
            FootTarget {
                ankle: place(plant, f, y),
                rot: rot_y(plant.1) * rot_x(-pitch),
                toe: rot_x(toe),
            }
        } else {
            let q = (p - self.duty) / (1.0 - self.duty);
            let (lift_off, touch_down) = (self.plant(side, n), self.plant(side, n + 1.0));
            let (f0, y0, _, _) = self.stance_foot(1.0);
            let (f1, y1, _, _) = self.stance_foot(0.0);
            let (a0, a1) = (place(lift_off, f0, y0), place(touch_down, f1, y1));
            let e = min_jerk(q);
            // The same ease in the root's frame: from where the foot left, relative to the
            // root at lift-off, to where it lands, relative to the root at touchdown.
            let root_frame = |u: f64| {
                let (p, yaw) = self.path(self.root_arc(u));
                (p, rot_y(yaw))
            };
            let phase0 = 0.5 * side as f64 + n;
            let (p0, r0) = root_frame(phase0 + self.duty);
            let (p1, r1) = root_frame(phase0 + 1.0);
            let (p, r) = root_frame(u);
            let relative = (r0.inverse() * (a0 - p0)).lerp(r1.inverse() * (a1 - p1), e);
            let ankle = a0.lerp(a1, e).lerp(p + r * relative, self.swing_follow)
                + DVec3::Y * (self.swing_lift_m * hump(q, self.swing_lift_peak));
            let yaw = lift_off.1 + (touch_down.1 - lift_off.1) * e;
            let pitch = self.toe_off_rad
                + (self.heel_strike_rad - self.toe_off_rad) * smoothstep(0.0, 0.6, q);
            let toe = self.toe_off_rad * (1.0 - smoothstep(0.0, 0.4, q));
            FootTarget {
                ankle,
                rot: rot_y(yaw) * rot_x(-pitch),
                toe: rot_x(toe),
            }
        }
    }

    /// The body at cycle phase `u` (0 = left heel strike).
    fn state(&self, u: f64) -> BodyState {
        let (root_pos, yaw) = self.path(self.root_arc(u));
        let w = TAU * u;
        // +1 at the middle of the left stance, -1 at the middle of the right one.
        let stance_side = cos(TAU * (u - 0.5 * self.duty));
        let twist = -self.pelvis_twist_rad * cos(w);
        let roll = self.pelvis_roll_rad * stance_side;
        let height = self.pelvis_height_m - self.bob_m * cos(2.0 * TAU * (u - self.bob_low_phase));
        let spine_yaw = -(1.0 + self.shoulder_counter) * twist / 3.0;
        let spine = rot_y(spine_yaw)
            * rot_z(-0.8 * roll / 3.0)
            * rot_x((self.lean_rad - self.pelvis_tilt_rad) / 3.0);
        let mut arms = [[DQuat::IDENTITY; 4]; 2];
        for (side, arm) in arms.iter_mut().enumerate() {
            let sign = SIDE_SIGN[side];
            // The left arm is forward when the right leg is (phase 0.5).
            let forward = -sign * cos(w);
            let swing = self.arm_forward_rad + self.arm_swing_rad * forward;
            let elbow = self.elbow_rad + self.elbow_swing_rad * 0.5 * (1.0 + forward);
            *arm = [
                DQuat::IDENTITY,
                rot_x(-swing) * rot_z(sign * self.arm_out_rad),
                rot_x(-elbow),
                rot_x(-0.1),
            ];
        }
        BodyState {
            root_pos,
            root_rot: rot_y(yaw),
            pelvis_t: DVec3::new(self.sway_m * stance_side, height, 0.0),
            pelvis_r: rot_y(twist) * rot_z(roll) * rot_x(self.pelvis_tilt_rad),
            spine: [spine; 3],
            head: rot_y(yaw) * rot_x(self.head_pitch_rad),
            arms,
            feet: [self.foot(0, u), self.foot(1, u)],
        }
    }

    /// Foot-contact sync markers, sorted by time.
    fn markers(&self) -> Value {
        let t = self.duration_secs();
        let mut events = [
            ("left_foot_down", 0.0),
            ("left_foot_up", self.duty),
            ("right_foot_down", 0.5),
            ("right_foot_up", (0.5 + self.duty).fract()),
        ];
        events.sort_by(|a, b| a.1.total_cmp(&b.1));
        let list: Vec<Value> = events
            .iter()
            .map(|&(name, phase)| json!({"name": name, "time_secs": num(phase * t)}))
            .collect();
        json!({ "markers": list })
    }
}

// ---------------------------------------------------------------------------------------
// Clips

/// One clip as written: keys at 30 Hz from 0, per-joint translation and rotation tracks.
struct ClipData {
    name: &'static str,
    key_count: usize,
    translations: Vec<(usize, Vec<DVec3>)>,
    rotations: Vec<(usize, Vec<DQuat>)>,
    extras: Option<Value>,
}

impl ClipData {
    fn from_poses(
        name: &'static str,
        poses: &[Pose],
        translated: &[usize],
        rotated: &[usize],
        extras: Option<Value>,
    ) -> Self {
        let translations = translated
            .iter()
            .map(|&j| (j, poses.iter().map(|p| p[j].t).collect()))
            .collect();
        let rotations = rotated
            .iter()
            .map(|&j| {
                let mut keys: Vec<DQuat> = poses.iter().map(|p| p[j].r.normalize()).collect();
                // One hemisphere: w >= 0 first, then each key on the side of the previous.
                for i in 0..keys.len() {
                    let reference = if i == 0 { DQuat::IDENTITY } else { keys[i - 1] };
                    if keys[i].dot(reference) < 0.0 {
                        keys[i] = -keys[i];
                    }
                }
                (j, keys)
            })
            .collect();
        Self {
            name,
            key_count: poses.len(),
            translations,
            rotations,
            extras,
        }
    }
}

fn build_clips(rig: &Rig) -> Vec<ClipData> {
    vec![
        idle_clip(rig),
        gait_clip(rig, &WALK),
        gait_clip(rig, &RUN),
        gait_clip(rig, &TURN_WALK),
        wave_clip(rig),
    ]
}

/// Every joint is rotated; root and pelvis are also translated.
fn full_body_clip(name: &'static str, poses: &[Pose], extras: Option<Value>) -> ClipData {
    let all: Vec<usize> = (0..JOINT_COUNT).collect();
    ClipData::from_poses(name, poses, &[ROOT, PELVIS], &all, extras)
}

/// Solves a cycle of states and appends the closing key: the first pose again, with
/// the root one cycle on (`end_root`).
fn cyclic_poses(rig: &Rig, mut states: Vec<BodyState>, end_root: (DVec3, DQuat)) -> Vec<Pose> {
    fit_leg_reach(rig, &mut states);
    let mut poses: Vec<Pose> = states.iter().map(|s| solve(rig, s)).collect();
    let mut last = poses[0];
    last[ROOT] = Local {
        t: end_root.0,
        r: end_root.1,
    };
    poses.push(last);
    poses
}

fn gait_clip(rig: &Rig, g: &Gait) -> ClipData {
    let n = g.frames;
    let states: Vec<BodyState> = (0..n).map(|i| g.state(i as f64 / n as f64)).collect();
    let end = g.state(1.0);
    let poses = cyclic_poses(rig, states, (end.root_pos, end.root_rot));
    full_body_clip(g.name, &poses, Some(g.markers()))
}

const IDLE_FRAMES: usize = 60;

fn idle_clip(rig: &Rig) -> ClipData {
    let states: Vec<BodyState> = (0..IDLE_FRAMES)
        .map(|i| {
            let w = TAU * i as f64 / IDLE_FRAMES as f64;
            let breath = sin(w);
            let roll = 0.025 * sin(w);
            let mut arms = [[DQuat::IDENTITY; 4]; 2];
            for (side, arm) in arms.iter_mut().enumerate() {
                let sign = SIDE_SIGN[side];
                *arm = [
                    rot_z(sign * (0.02 + 0.012 * breath)),
                    rot_x(-(0.04 + 0.02 * sin(w + sign * 0.6))) * rot_z(sign * 0.05),
                    rot_x(-(0.2 + 0.03 * sin(w + 1.0))),
                    rot_x(-0.12),
                ];
            }
            let feet = [0, 1].map(|side| FootTarget {
                ankle: rig.bind[LEGS[side][2]],
                rot: DQuat::IDENTITY,
                toe: DQuat::IDENTITY,
            });
            BodyState {
                root_pos: DVec3::ZERO,
                root_rot: DQuat::IDENTITY,
                pelvis_t: DVec3::new(0.015 * sin(w), 0.95 + 0.002 * cos(2.0 * w), 0.0),
                pelvis_r: rot_y(0.02 * sin(w)) * rot_z(roll),
                spine: [
                    rot_z(-0.5 * roll),
                    rot_z(-0.3 * roll) * rot_x(-0.012 * breath),
                    rot_x(-0.018 * breath),
                ],
                head: rot_y(0.06 * sin(w + 0.7)) * rot_x(0.02 * sin(2.0 * w)),
                arms,
                feet,
            }
        })
        .collect();
    let poses = cyclic_poses(rig, states, (DVec3::ZERO, DQuat::IDENTITY));
    full_body_clip("Idle", &poses, None)
}

const WAVE_FRAMES: usize = 60;

/// Additive layer: the right arm rises, waves three times and comes back down. Its
/// first (and last) key is the rest pose, which is its reference pose.
fn wave_clip(rig: &Rig) -> ClipData {
    let [clavicle, upper, lower, hand] = ARMS[1];
    let poses: Vec<Pose> = (0..=WAVE_FRAMES)
        .map(|i| {
            let t = i as f64 / FPS;
            let raise = smoothstep(0.0, 0.5, t) * (1.0 - smoothstep(1.5, 2.0, t));
            let envelope = smoothstep(0.4, 0.65, t) * (1.0 - smoothstep(1.3, 1.55, t));
            let wave = envelope * sin(TAU * (t - 0.4) / 0.4);
            let mut pose = rest_pose(rig);
            pose[clavicle].r = rot_z(-0.2 * raise);
            pose[upper].r = rot_x(-0.3 * raise) * rot_z(-2.0 * raise);
            pose[lower].r = rot_z(-(1.15 * raise + 0.35 * wave));
            pose[hand].r = rot_y(-FRAC_PI_2 * raise) * rot_x(0.25 * wave);
            pose
        })
        .collect();
    ClipData::from_poses(
        "Wave",
        &poses,
        &[],
        &[clavicle, upper, lower, hand],
        Some(json!({ "additive": true })),
    )
}

// ---------------------------------------------------------------------------------------
// Mesh

/// Skinned triangle mesh in bind-pose model space.
#[derive(Default)]
struct MeshData {
    positions: Vec<DVec3>,
    normals: Vec<DVec3>,
    joints: Vec<[u8; 4]>,
    weights: Vec<[f32; 4]>,
    indices: Vec<u32>,
}

/// A cross-section of a loft: an ellipse `center + u cos φ + w sin φ`, or a single
/// point (a pole) when `u` and `w` are zero. `u × w` points along the loft.
#[derive(Clone, Copy)]
struct Ring {
    center: DVec3,
    u: DVec3,
    w: DVec3,
}

impl Ring {
    fn is_pole(&self) -> bool {
        self.u == DVec3::ZERO && self.w == DVec3::ZERO
    }
}

/// Bone weights of a point, any scale.
type Influences = Vec<(usize, f64)>;

impl MeshData {
    /// Adds a closed lofted surface with smooth normals. `floor` clamps it to y >= 0
    /// (a flat sole).
    fn loft(
        &mut self,
        rings: &[Ring],
        segments: usize,
        floor: bool,
        weights: &dyn Fn(DVec3) -> Influences,
    ) {
        let base = self.positions.len();
        let mut ring_start = Vec::with_capacity(rings.len());
        for ring in rings {
            ring_start.push(self.positions.len() - base);
            let count = if ring.is_pole() { 1 } else { segments };
            for j in 0..count {
                let (s, c) = sin_cos(TAU * j as f64 / segments as f64);
                let mut p = ring.center + ring.u * c + ring.w * s;
                if floor {
                    p.y = p.y.max(0.0);
                }
                self.positions.push(p);
            }
        }
        let mut tris: Vec<[usize; 3]> = Vec::new();
        for i in 0..rings.len() - 1 {
            let (a, b) = (ring_start[i], ring_start[i + 1]);
            for j in 0..segments {
                let j1 = (j + 1) % segments;
                match (rings[i].is_pole(), rings[i + 1].is_pole()) {
                    (true, false) => tris.push([a, b + j1, b + j]),
                    (false, true) => tris.push([a + j, a + j1, b]),
                    (false, false) => {
                        tris.push([a + j, a + j1, b + j]);
                        tris.push([a + j1, b + j1, b + j]);
                    }
                    (true, true) => {}
                }
            }
        }
        let count = self.positions.len() - base;
        let mut normals = vec![DVec3::ZERO; count];
        for t in &tris {
            let p = t.map(|k| self.positions[base + k]);
            let n = (p[1] - p[0]).cross(p[2] - p[0]);
            for &k in t {
                normals[k] += n;
            }
        }
        self.normals
            .extend(normals.iter().map(|n| n.normalize_or(DVec3::Y)));
        for k in 0..count {
            let (joints, w) = pack_influences(weights(self.positions[base + k]));
            self.joints.push(joints);
            self.weights.push(w);
        }
        self.indices
            .extend(tris.iter().flatten().map(|&k| (base + k) as u32));
    }
}

/// The four largest influences, normalised so the stored `f32` weights sum to 1; unused
/// slots are joint 0 with weight 0.
fn pack_influences(mut list: Influences) -> ([u8; 4], [f32; 4]) {
    list.retain(|&(_, w)| w > 0.0);
    list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut merged: Influences = Vec::new();
    for (j, w) in list {
        match merged.iter_mut().find(|m| m.0 == j) {
            Some(m) => m.1 += w,
            None => merged.push((j, w)),
        }
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    merged.truncate(4);
    let total: f64 = merged.iter().map(|m| m.1).sum();
    merged.retain(|m| m.1 / total >= 0.01);
    let total: f64 = merged.iter().map(|m| m.1).sum();
    let mut joints = [0u8; 4];
    let mut weights = [0f32; 4];
    for (k, &(j, w)) in merged.iter().enumerate() {
        joints[k] = j as u8;
        weights[k] = (w / total) as f32;
    }
    weights[0] = 1.0 - (weights[1] + weights[2] + weights[3]);
    (joints, weights)
}

/// Vertical blend along a chain of bones: `bones[k]` owns the band between boundary
/// `k - 1` and boundary `k` (heights with half-widths of the blend zone).
fn chain_weights(y: f64, bones: &[usize], bounds: &[(f64, f64)]) -> Influences {
    let s: Vec<f64> = bounds
        .iter()
        .map(|&(b, d)| smoothstep(b - d, b + d, y))
        .collect();
    let mut out = Vec::with_capacity(bones.len());
    for (k, &bone) in bones.iter().enumerate() {
        let below = if k == 0 { 1.0 } else { s[k - 1] };
        let above = if k < s.len() { s[k] } else { 0.0 };
        out.push((bone, (below - above).max(0.0)));
    }
    out
}

/// Torso chain weights (pelvis up to head).
fn spine_weights(p: DVec3) -> Influences {
    chain_weights(
        p.y,
        &[PELVIS, SPINE_01, SPINE_02, SPINE_03, NECK, HEAD],
        &[
            (1.06, 0.05),
            (1.19, 0.05),
            (1.33, 0.06),
            (1.49, 0.04),
            (1.6, 0.03),
        ],
    )
}

/// Weights along the bone `bone` from `a` to `b`, blending into `prev` around `a` and
/// into `next` around `b` (each with the half-width of its blend zone).
fn limb_weights(
    p: DVec3,
    a: DVec3,
    b: DVec3,
    bone: usize,
    prev: Option<(usize, f64)>,
    next: Option<(usize, f64)>,
) -> Influences {
    let len = (b - a).length();
    let x = (p - a).dot((b - a) / len);
    let sa = prev.map_or(1.0, |(_, d)| smoothstep(-d, d, x));
    let sb = next.map_or(0.0, |(_, d)| smoothstep(-d, d, x - len));
    let mut out = vec![(bone, sa * (1.0 - sb))];
    if let Some((j, _)) = prev {
        out.push((j, 1.0 - sa));
    }
    if let Some((j, _)) = next {
        out.push((j, sa * sb));
    }
    out
}

/// Rings of a tapered capsule from `a` to `b` (hemispherical caps, radius `ra` to `rb`
/// plus a muscle `bulge` peaking at fraction `bulge_at`), cross-section scaled by
/// `squash` (along `u_hint`, across).
#[allow(clippy::too_many_arguments)]
fn capsule(
    a: DVec3,
    b: DVec3,
    ra: f64,
    rb: f64,
    bulge: (f64, f64),
    squash: (f64, f64),
    u_hint: DVec3,
    rings: (usize, usize),
) -> Vec<Ring> {
    let (body_rings, cap_rings) = rings;
    let len = (b - a).length();
    let axis = (b - a) / len;
    let u = (u_hint - axis * axis.dot(u_hint)).normalize() * squash.0;
    let w = axis.cross(u.normalize()) * squash.1;
    let ring = |z: f64, r: f64| Ring {
        center: a + axis * z,
        u: u * r,
        w: w * r,
    };
    let mut out = Vec::new();
    for k in 0..cap_rings {
        let (s, c) = sin_cos(FRAC_PI_2 * k as f64 / cap_rings as f64);
        out.push(ring(-ra * c, ra * s));
    }
    for k in 0..=body_rings {
        let t = k as f64 / body_rings as f64;
        out.push(ring(
            t * len,
            ra + (rb - ra) * t + bulge.0 * hump(t, bulge.1),
        ));
    }
    for k in 1..=cap_rings {
        let (s, c) = sin_cos(FRAC_PI_2 * k as f64 / cap_rings as f64);
        out.push(ring(len + rb * s, rb * c));
    }
    // Exact poles (no round-off radius).
    if let Some(first) = out.first_mut() {
        first.u = DVec3::ZERO;
        first.w = DVec3::ZERO;
    }
    if let Some(last) = out.last_mut() {
        last.u = DVec3::ZERO;
        last.w = DVec3::ZERO;
    }
    out
}

/// Rings of an axis-aligned ellipsoid, bottom to top.
fn ellipsoid(center: DVec3, radii: DVec3, rings: usize) -> Vec<Ring> {
    (0..=rings)
        .map(|k| {
            let (s, c) = sin_cos(PI * k as f64 / rings as f64);
            let s = if k == 0 || k == rings { 0.0 } else { s };
            Ring {
                center: center + DVec3::Y * (-radii.y * c),
                u: DVec3::X * (radii.x * s),
                w: DVec3::NEG_Z * (radii.z * s),
            }
        })
        .collect()
}

fn build_mesh(rig: &Rig) -> MeshData {
    let b = |j: usize| rig.bind[j];
    let mut mesh = MeshData::default();
    let spine = |p: DVec3| spine_weights(p);

    // Head with a nose (it shows which way the character faces), neck, torso.
    mesh.loft(
        &ellipsoid(
            DVec3::new(0.0, 1.70, 0.012),
            DVec3::new(0.092, 0.115, 0.104),
            16,
        ),
        22,
        false,
        &spine,
    );
    mesh.loft(
        &ellipsoid(
            DVec3::new(0.0, 1.685, 0.108),
            DVec3::new(0.016, 0.026, 0.022),
            6,
        ),
        8,
        false,
        &|_| vec![(HEAD, 1.0)],
    );
    mesh.loft(
        &capsule(
            DVec3::new(0.0, 1.46, -0.005),
            DVec3::new(0.0, 1.63, 0.01),
            0.052,
            0.046,
            (0.0, 0.5),
            (1.0, 1.0),
            DVec3::X,
            (4, 3),
        ),
        16,
        false,
        &spine,
    );
    // Chest: shoulders follow the clavicles.
    mesh.loft(
        &ellipsoid(
            DVec3::new(0.0, 1.355, -0.005),
            DVec3::new(0.168, 0.165, 0.106),
            14,
        ),
        26,
        false,
        &|p| {
            let mut w = spine_weights(p);
            let side = if p.x >= 0.0 { 0 } else { 1 };
            let clavicle = 0.7 * smoothstep(0.09, 0.16, p.x.abs()) * smoothstep(1.30, 1.42, p.y);
            for e in &mut w {
                e.1 *= 1.0 - clavicle;
            }
            w.push((ARMS[side][0], clavicle));
            w
        },
    );
    mesh.loft(
        &ellipsoid(DVec3::new(0.0, 1.17, 0.0), DVec3::new(0.15, 0.15, 0.1), 12),
        26,
        false,
        &spine,
    );
    // Hips: the lower sides follow the thighs.
    mesh.loft(
        &ellipsoid(
            DVec3::new(0.0, 0.955, -0.008),
            DVec3::new(0.168, 0.135, 0.112),
            12,
        ),
        26,
        false,
        &|p| {
            let mut w = spine_weights(p);
            let side = if p.x >= 0.0 { 0 } else { 1 };
            let thigh = 0.6 * smoothstep(0.04, 0.12, p.x.abs()) * smoothstep(0.97, 0.85, p.y);
            for e in &mut w {
                e.1 *= 1.0 - thigh;
            }
            w.push((LEGS[side][0], thigh));
            w
        },
    );

    for side in 0..2 {
        let sign = SIDE_SIGN[side];
        let [clavicle, upper, lower, hand] = ARMS[side];
        let [thigh, calf, foot, toe] = LEGS[side];
        // Shoulder cap over the clavicle.
        let (ca, cb) = (
            DVec3::new(sign * 0.09, 1.44, -0.005),
            DVec3::new(sign * 0.19, 1.43, -0.01),
        );
        mesh.loft(
            &capsule(
                ca,
                cb,
                0.05,
                0.056,
                (0.0, 0.5),
                (1.0, 1.0),
                DVec3::Y,
                (3, 4),
            ),
            14,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(clavicle),
                    b(upper),
                    clavicle,
                    Some((SPINE_03, 0.03)),
                    Some((upper, 0.04)),
                )
            },
        );
        mesh.loft(
            &capsule(
                b(upper),
                b(lower),
                0.05,
                0.04,
                (0.006, 0.35),
                (1.0, 1.0),
                DVec3::X,
                (8, 4),
            ),
            14,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(upper),
                    b(lower),
                    upper,
                    Some((clavicle, 0.05)),
                    Some((lower, 0.04)),
                )
            },
        );
        mesh.loft(
            &capsule(
                b(lower),
                b(hand),
                0.041,
                0.03,
                (0.007, 0.25),
                (1.0, 1.0),
                DVec3::X,
                (8, 4),
            ),
            12,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(lower),
                    b(hand),
                    lower,
                    Some((upper, 0.04)),
                    Some((hand, 0.03)),
                )
            },
        );
        let hand_dir = (b(hand) - b(lower)).normalize();
        mesh.loft(
            &capsule(
                b(hand),
                b(hand) + hand_dir * 0.15,
                0.042,
                0.036,
                (0.004, 0.3),
                (0.5, 1.0),
                DVec3::X,
                (5, 3),
            ),
            12,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(hand),
                    b(hand) + hand_dir * 0.15,
                    hand,
                    Some((lower, 0.025)),
                    None,
                )
            },
        );
        mesh.loft(
            &capsule(
                b(thigh),
                b(calf),
                0.088,
                0.058,
                (0.012, 0.3),
                (1.0, 1.0),
                DVec3::X,
                (10, 4),
            ),
            18,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(thigh),
                    b(calf),
                    thigh,
                    Some((PELVIS, 0.06)),
                    Some((calf, 0.05)),
                )
            },
        );
        mesh.loft(
            &capsule(
                b(calf),
                b(foot),
                0.056,
                0.036,
                (0.014, 0.3),
                (1.0, 1.0),
                DVec3::X,
                (10, 4),
            ),
            16,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(calf),
                    b(foot),
                    calf,
                    Some((thigh, 0.05)),
                    Some((foot, 0.035)),
                )
            },
        );
        // Foot, heel to toe tip, with a flat sole; bends at the ball (toe joint).
        let x = b(foot).x;
        let section = |z: f64, cy: f64, half_width: f64, half_height: f64| Ring {
            center: DVec3::new(x, cy, z),
            u: DVec3::X * half_width,
            w: DVec3::Y * half_height,
        };
        let pole = |z: f64, cy: f64| section(z, cy, 0.0, 0.0);
        let foot_rings = [
            pole(-0.095, 0.045),
            section(-0.088, 0.045, 0.022, 0.03),
            section(-0.075, 0.047, 0.035, 0.045),
            section(-0.05, 0.052, 0.042, 0.055),
            section(-0.015, 0.056, 0.045, 0.064),
            section(0.03, 0.05, 0.047, 0.058),
            section(0.075, 0.042, 0.049, 0.048),
            section(0.115, 0.036, 0.05, 0.04),
            section(0.15, 0.03, 0.049, 0.033),
            section(0.185, 0.025, 0.045, 0.026),
            section(0.215, 0.021, 0.036, 0.02),
            section(0.232, 0.019, 0.02, 0.012),
            pole(0.238, 0.019),
        ];
        let ball_z = b(toe).z;
        mesh.loft(&foot_rings, 16, true, &|p| {
            let mut w = chain_weights(p.z, &[foot, toe], &[(ball_z, 0.03)]);
            let shin = 0.5 * smoothstep(0.095, 0.135, p.y) * smoothstep(0.04, -0.02, p.z);
            for e in &mut w {
                e.1 *= 1.0 - shin;
            }
            w.push((calf, shin));
            w
        });
    }
    mesh
}

// ---------------------------------------------------------------------------------------
// glTF binary

use super::glb_writer::{
    nums, GlbBuilder, ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, UNSIGNED_BYTE, UNSIGNED_SHORT,
};

/// A JSON number from an `f32` (formatted by `ryu` from the exact `f64` value).
fn num(x: f64) -> Value {
    Value::from(x as f32 as f64)
}

fn vec3s(v: &[DVec3]) -> Vec<f32> {
    v.iter().flat_map(|p| p.as_vec3().to_array()).collect()
}

fn write_glb(rig: &Rig, mesh: &MeshData, clips: &[ClipData]) -> Vec<u8> {
    let mut bin = GlbBuilder::default();

    // Mesh.
    let position = bin.floats(&vec3s(&mesh.positions), 3, "VEC3", Some(ARRAY_BUFFER), true);
    let normal = bin.floats(&vec3s(&mesh.normals), 3, "VEC3", Some(ARRAY_BUFFER), false);
    let joint_bytes: Vec<u8> = mesh.joints.iter().flatten().copied().collect();
    let joints = bin.accessor(
        &joint_bytes,
        Some(ARRAY_BUFFER),
        UNSIGNED_BYTE,
        mesh.joints.len(),
        "VEC4",
        None,
    );
    let weight_values: Vec<f32> = mesh.weights.iter().flatten().copied().collect();
    let weights = bin.floats(&weight_values, 4, "VEC4", Some(ARRAY_BUFFER), false);
    let index_bytes: Vec<u8> = mesh
        .indices
        .iter()
        .flat_map(|&i| (i as u16).to_le_bytes())
        .collect();
    let indices = bin.accessor(
        &index_bytes,
        Some(ELEMENT_ARRAY_BUFFER),
        UNSIGNED_SHORT,
        mesh.indices.len(),
        "SCALAR",
        None,
    );

    // Skin: bind rotations are identities, so each inverse bind matrix is a translation.
    let ibm: Vec<f32> = rig
        .bind
        .iter()
        .flat_map(|p| {
            let t = (-*p).as_vec3();
            [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t.x, t.y, t.z, 1.0,
            ]
        })
        .collect();
    let inverse_bind = bin.floats(&ibm, 16, "MAT4", None, false);

    // Nodes: the joints, then the mesh node (a scene root at identity).
    let mut nodes: Vec<Value> = JOINTS
        .iter()
        .enumerate()
        .map(|(j, def)| {
            let mut node = json!({ "name": def.name });
            let children: Vec<usize> = (0..JOINT_COUNT)
                .filter(|&c| JOINTS[c].parent == Some(j))
                .collect();
            if !children.is_empty() {
                node["children"] = json!(children);
            }
            if rig.offsets[j] != DVec3::ZERO {
                node["translation"] = nums(&rig.offsets[j].as_vec3().to_array());
            }
            node
        })
        .collect();
    let body_node = nodes.len();
    nodes.push(json!({ "name": "body", "mesh": 0, "skin": 0 }));

    // Animations: one input accessor per clip, one output accessor per channel.
    let animations: Vec<Value> = clips
        .iter()
        .map(|clip| {
            let times: Vec<f32> = (0..clip.key_count).map(|i| i as f32 / FPS as f32).collect();
            let input = bin.floats(&times, 1, "SCALAR", None, true);
            let mut samplers = Vec::new();
            let mut channels = Vec::new();
            let mut add = |node: usize, path: &str, output: usize| {
                channels.push(json!({
                    "sampler": samplers.len(),
                    "target": { "node": node, "path": path },
                }));
                samplers
                    .push(json!({ "input": input, "output": output, "interpolation": "LINEAR" }));
            };
            for j in 0..JOINT_COUNT {
                if let Some((_, keys)) = clip.translations.iter().find(|(k, _)| *k == j) {
                    let output = bin.floats(&vec3s(keys), 3, "VEC3", None, false);
                    add(j, "translation", output);
                }
                if let Some((_, keys)) = clip.rotations.iter().find(|(k, _)| *k == j) {
                    let values: Vec<f32> =
                        keys.iter().flat_map(|q| q.as_quat().to_array()).collect();
                    let output = bin.floats(&values, 4, "VEC4", None, false);
                    add(j, "rotation", output);
                }
            }
            let mut animation =
                json!({ "name": clip.name, "channels": channels, "samplers": samplers });
            if let Some(extras) = &clip.extras {
                animation["extras"] = extras.clone();
            }
            animation
        })
        .collect();

    let document = json!({
        "asset": { "version": "2.0", "generator": GENERATOR },
        "scene": 0,
        "scenes": [{ "name": "demo", "nodes": [ROOT, body_node] }],
        "nodes": nodes,
        "skins": [{
            "name": "demo_skin",
            "joints": (0..JOINT_COUNT).collect::<Vec<_>>(),
            "inverseBindMatrices": inverse_bind,
            "skeleton": ROOT,
        }],
        "meshes": [{
            "name": "body",
            "primitives": [{
                "attributes": { "POSITION": position, "NORMAL": normal, "JOINTS_0": joints, "WEIGHTS_0": weights },
                "indices": indices,
                "material": 0,
                "mode": 4,
            }],
        }],
        "materials": [{
            "name": "clay",
            "pbrMetallicRoughness": {
                "baseColorFactor": nums(&[0.62, 0.42, 0.3, 1.0]),
                "metallicFactor": 0.0,
                "roughnessFactor": 0.65,
            },
        }],
        "animations": animations,
    });

    bin.finish(document)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sin_cos_matches_std_closely() {
        let mut x = -20.0;
        while x < 20.0 {
            let (s, c) = sin_cos(x);
            assert!((s - x.sin()).abs() < 1e-14, "sin({x})");
            assert!((c - x.cos()).abs() < 1e-14, "cos({x})");
            x += 0.0137;
        }
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
    }

    #[test]
    fn legs_stay_within_reach_after_fitting() {
        let rig = Rig::new();
        for g in [&WALK, &RUN, &TURN_WALK] {
            let mut states: Vec<BodyState> = (0..g.frames)
                .map(|i| g.state(i as f64 / g.frames as f64))
                .collect();
            fit_leg_reach(&rig, &mut states);
            for s in &states {
                assert!(reach_drop(&rig, s) <= 1e-9, "{}", g.name);
            }
        }
    }
}
