//! The demo's motion: the foot planner and two-bone leg IK, the gaits (Walk, Run,
//! TurnWalk) and the Idle and Wave clips, as keyed poses.

use super::*;

/// Where a foot should be, in model space.
#[derive(Clone, Copy, Debug)]
pub(super) struct FootTarget {
    /// Ankle (foot joint) position.
    pub(super) ankle: DVec3,
    /// Model-space rotation of the foot joint.
    pub(super) rot: DQuat,
    /// Local rotation of the toe joint.
    pub(super) toe: DQuat,
}

/// A whole-body pose description; [`solve`] turns it into local joint transforms.
#[derive(Clone, Copy, Debug)]
pub(super) struct BodyState {
    pub(super) root_pos: DVec3,
    pub(super) root_rot: DQuat,
    /// Pelvis local transform (in the root's frame).
    pub(super) pelvis_t: DVec3,
    pub(super) pelvis_r: DQuat,
    /// Local rotations of spine_01..03.
    pub(super) spine: [DQuat; 3],
    /// Model-space head rotation (the neck takes half of the way there).
    pub(super) head: DQuat,
    /// Local rotations of (clavicle, upper arm, lower arm, hand), left then right.
    pub(super) arms: [[DQuat; 4]; 2],
    pub(super) feet: [FootTarget; 2],
}

impl BodyState {
    pub(super) fn pelvis_model(&self) -> (DVec3, DQuat) {
        (
            self.root_pos + self.root_rot * self.pelvis_t,
            self.root_rot * self.pelvis_r,
        )
    }
}

/// Legs reach at most this fraction of their length (the knee never locks).
pub(super) const MAX_LEG_EXTENSION: f64 = 0.997;

/// Rotation whose frame has +Y along `-bone` and +Z towards `pole`.
pub(super) fn frame_bone_pole(bone: DVec3, pole: DVec3) -> DQuat {
    let y = -bone.normalize();
    let z = (pole - y * pole.dot(y)).normalize();
    let x = y.cross(z);
    DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize()
}

/// Rotation whose frame has +Y along `-bone` and +X towards `x_hint`.
pub(super) fn frame_bone_x(bone: DVec3, x_hint: DVec3) -> DQuat {
    let y = -bone.normalize();
    let x = (x_hint - y * x_hint.dot(y)).normalize();
    let z = x.cross(y);
    DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize()
}

/// Two-bone IK: model-space rotations of thigh and calf that put the ankle on target,
/// with the knee bending forward (towards the mean of pelvis and foot facing).
pub(super) fn leg_ik(
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
pub(super) fn solve(rig: &Rig, s: &BodyState) -> Pose {
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
pub(super) fn reach_drop(rig: &Rig, s: &BodyState) -> f64 {
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
pub(super) fn fit_leg_reach(rig: &Rig, states: &mut [BodyState]) {
    fit_leg_reach_with(rig, states, true)
}

/// [`fit_leg_reach`]; `cyclic: false` clamps the filters at the sequence's ends instead
/// of wrapping (starts and stops).
pub(super) fn fit_leg_reach_with(rig: &Rig, states: &mut [BodyState], cyclic: bool) {
    const RADIUS: isize = 2;
    let n = states.len() as isize;
    let need: Vec<f64> = states.iter().map(|s| reach_drop(rig, s).max(0.0)).collect();
    let at = |v: &[f64], i: isize| {
        if cyclic {
            v[i.rem_euclid(n) as usize]
        } else {
            v[i.clamp(0, n - 1) as usize]
        }
    };
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

/// Parameters of one cyclic gait; the cycle starts at the left heel strike.
pub(super) struct Gait {
    pub(super) name: &'static str,
    pub(super) frames: usize,
    /// Root arc length per cycle, metres.
    pub(super) distance_m: f64,
    /// Root yaw per cycle (positive turns left); the path is then a circular arc.
    pub(super) turn_rad: f64,
    /// Root arc length as a fraction of the cycle's, at cycle phases (piecewise linear,
    /// increasing, from (0, 0) to (1, 1)).
    pub(super) root_profile: &'static [(f64, f64)],
    /// Fraction of the cycle a foot is on the ground.
    pub(super) duty: f64,
    /// Foot pitch at heel strike (toes up) and at toe-off (heel up, negative).
    pub(super) heel_strike_rad: f64,
    pub(super) toe_off_rad: f64,
    /// Stance progress at which the foot is flat, and at which the heel starts to rise.
    pub(super) heel_roll_end: f64,
    pub(super) heel_rise_start: f64,
    /// Flat-foot ankle position ahead of the root at touchdown, along the path.
    pub(super) plant_ahead_m: f64,
    /// Ankle distance from the path's centre line.
    pub(super) step_width_m: f64,
    pub(super) swing_lift_m: f64,
    pub(super) swing_lift_peak: f64,
    /// 0: the swing foot eases from rest to rest in world space; 1: it eases in the
    /// root's frame (leaving and landing at the root's speed). Fast gaits need some
    /// follow or the foot trails far behind the hip after toe-off.
    pub(super) swing_follow: f64,
    pub(super) pelvis_height_m: f64,
    pub(super) bob_m: f64,
    /// Cycle phase of the lowest pelvis (it is lowest twice per cycle).
    pub(super) bob_low_phase: f64,
    pub(super) sway_m: f64,
    pub(super) pelvis_twist_rad: f64,
    pub(super) pelvis_roll_rad: f64,
    pub(super) pelvis_tilt_rad: f64,
    pub(super) lean_rad: f64,
    /// Shoulder yaw as a fraction of the pelvis yaw, opposite way.
    pub(super) shoulder_counter: f64,
    pub(super) arm_swing_rad: f64,
    pub(super) arm_forward_rad: f64,
    pub(super) elbow_rad: f64,
    pub(super) elbow_swing_rad: f64,
    pub(super) arm_out_rad: f64,
    pub(super) head_pitch_rad: f64,
    /// Direction of travel relative to the facing (positive = towards the left, +X):
    /// 0 walks forward, ±π/2 strafes.
    pub(super) strafe_rad: f64,
    /// Cyclic, or a start or stop that is not.
    pub(super) envelope: Envelope,
}

/// How the gait's amplitude (root speed, stride, sway, arm swing) changes over the
/// clip: a cycle keeps it at 1; a start ramps it up from standing, a stop down to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Envelope {
    Cyclic,
    /// From standing at phase 0 to the full gait at `ramp` cycles.
    Start {
        ramp: f64,
    },
    /// From the full gait at phase 0 to standing at `ramp` cycles.
    Stop {
        ramp: f64,
    },
}

impl Envelope {
    /// Amplitude at (unwrapped) cycle phase `u`, in [0, 1].
    pub(super) fn at(self, u: f64) -> f64 {
        match self {
            Envelope::Cyclic => 1.0,
            Envelope::Start { ramp } => smooth01((u / ramp).clamp(0.0, 1.0)),
            Envelope::Stop { ramp } => 1.0 - smooth01((u / ramp).clamp(0.0, 1.0)),
        }
    }
}

pub(super) const WALK: Gait = Gait {
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
    strafe_rad: 0.0,
    envelope: Envelope::Cyclic,
};

pub(super) const RUN: Gait = Gait {
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
    strafe_rad: 0.0,
    envelope: Envelope::Cyclic,
};

pub(super) const TURN_WALK: Gait = Gait {
    name: "TurnWalk",
    turn_rad: PI / 6.0,
    ..WALK
};

impl Gait {
    pub(super) fn duration_secs(&self) -> f64 {
        self.frames as f64 / FPS
    }

    /// Root arc length at (unwrapped) cycle phase `u`.
    pub(super) fn root_arc(&self, u: f64) -> f64 {
        if self.envelope == Envelope::Cyclic {
            return self.cycle_arc(u);
        }
        // The cyclic speed profile times the envelope, integrated (midpoint rule over
        // 1/512 of a cycle, plain f64 arithmetic: deterministic).
        const STEPS_PER_CYCLE: f64 = 512.0;
        if u <= 0.0 {
            return 0.0;
        }
        let n = (u * STEPS_PER_CYCLE).ceil() as usize;
        let du = u / n as f64;
        let mut s = 0.0;
        for i in 0..n {
            let (a, b) = (i as f64 * du, (i + 1) as f64 * du);
            s += self.envelope.at(0.5 * (a + b)) * (self.cycle_arc(b) - self.cycle_arc(a));
        }
        s
    }

    /// Root arc length of the cyclic gait at (unwrapped) cycle phase `u`.
    fn cycle_arc(&self, u: f64) -> f64 {
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
    pub(super) fn path(&self, s: f64) -> (DVec3, f64) {
        if self.strafe_rad != 0.0 {
            // Sideways (or diagonally) while facing +Z; strafes do not turn.
            let (sn, cs) = sin_cos(self.strafe_rad);
            return (DVec3::new(sn * s, 0.0, cs * s), 0.0);
        }
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
    ///
    /// The heel-strike and toe-off pitches are scaled by `strike_amp` and `toe_amp` (1
    /// for cyclic gaits; a start or stop rolls its feet less when its steps are short).
    pub(super) fn stance_foot_scaled(
        &self,
        q: f64,
        strike_amp: f64,
        toe_amp: f64,
    ) -> (f64, f64, f64, f64) {
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
            let pitch =
                self.heel_strike_rad * strike_amp * (1.0 - smooth01(q / self.heel_roll_end));
            let (f, y) = pivot(HEEL_F, pitch);
            (f, y, pitch, 0.0)
        } else if q < self.heel_rise_start {
            (0.0, ankle_h, 0.0, 0.0)
        } else {
            let pitch = self.toe_off_rad
                * toe_amp
                * smooth01((q - self.heel_rise_start) / (1.0 - self.heel_rise_start));
            let (f, y) = pivot(BALL_F, pitch);
            (f, y, pitch, pitch)
        }
    }

    /// Ground point and yaw of a foot's `n`-th plant (flat-foot ankle projection).
    pub(super) fn plant(&self, side: usize, n: f64) -> (DVec3, f64) {
        let phase = 0.5 * side as f64 + n;
        let s = self.root_arc(phase) + self.plant_ahead_m * self.envelope.at(phase);
        let (p, yaw) = self.path(s);
        let (sn, cs) = sin_cos(yaw);
        let left = DVec3::new(cs, 0.0, -sn);
        (p + left * (SIDE_SIGN[side] * self.step_width_m), yaw)
    }

    pub(super) fn foot(&self, side: usize, u: f64) -> FootTarget {
        let place =
            |(base, yaw): (DVec3, f64), f: f64, y: f64| base + rot_y(yaw) * DVec3::new(0.0, y, f);
        let v = u - 0.5 * side as f64;
        let n = v.floor();
        let p = v - n;
        // Starts and stops roll the feet in proportion to the steps around the stance.
        let step_amp = |from: f64, to: f64| {
            if self.envelope == Envelope::Cyclic {
                1.0
            } else {
                let (a, b) = (self.plant(side, from).0, self.plant(side, to).0);
                ((a - b).length() / self.distance_m).clamp(0.0, 1.0)
            }
        };
        if p < self.duty {
            let (strike, toe) = (step_amp(n - 1.0, n), step_amp(n, n + 1.0));
            let (f, y, pitch, toe) = self.stance_foot_scaled(p / self.duty, strike, toe);
            let plant = self.plant(side, n);
            FootTarget {
                ankle: place(plant, f, y),
                rot: rot_y(plant.1) * rot_x(-pitch),
                toe: rot_x(toe),
            }
        } else {
            let q = (p - self.duty) / (1.0 - self.duty);
            let (lift_off, touch_down) = (self.plant(side, n), self.plant(side, n + 1.0));
            let amp = step_amp(n, n + 1.0);
            let (f0, y0, _, _) = self.stance_foot_scaled(1.0, amp, amp);
            let (f1, y1, _, _) = self.stance_foot_scaled(0.0, amp, amp);
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
                + DVec3::Y * (self.swing_lift_m * amp * hump(q, self.swing_lift_peak));
            let yaw = lift_off.1 + (touch_down.1 - lift_off.1) * e;
            let (toe_off, strike) = (self.toe_off_rad * amp, self.heel_strike_rad * amp);
            let pitch = toe_off + (strike - toe_off) * smoothstep(0.0, 0.6, q);
            let toe = toe_off * (1.0 - smoothstep(0.0, 0.4, q));
            FootTarget {
                ankle,
                rot: rot_y(yaw) * rot_x(-pitch),
                toe: rot_x(toe),
            }
        }
    }

    /// The body at cycle phase `u` (0 = left heel strike).
    pub(super) fn state(&self, u: f64) -> BodyState {
        let (root_pos, yaw) = self.path(self.root_arc(u));
        let w = TAU * u;
        // The body's oscillations follow the envelope (1 for cyclic gaits).
        let k = self.envelope.at(u);
        // +1 at the middle of the left stance, -1 at the middle of the right one.
        let stance_side = k * cos(TAU * (u - 0.5 * self.duty));
        let twist = -self.pelvis_twist_rad * k * cos(w);
        let roll = self.pelvis_roll_rad * stance_side;
        let height =
            self.pelvis_height_m - self.bob_m * k * cos(2.0 * TAU * (u - self.bob_low_phase));
        let spine_yaw = -(1.0 + self.shoulder_counter) * twist / 3.0;
        let spine = rot_y(spine_yaw)
            * rot_z(-0.8 * roll / 3.0)
            * rot_x((self.lean_rad * k - self.pelvis_tilt_rad) / 3.0);
        let mut arms = [[DQuat::IDENTITY; 4]; 2];
        for (side, arm) in arms.iter_mut().enumerate() {
            let sign = SIDE_SIGN[side];
            // The left arm is forward when the right leg is (phase 0.5).
            let forward = -sign * k * cos(w);
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
    pub(super) fn markers(&self) -> Value {
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

/// One clip as written: keys at 30 Hz from 0, per-joint translation and rotation tracks.
pub(super) struct ClipData {
    pub(super) name: &'static str,
    pub(super) key_count: usize,
    pub(super) translations: Vec<(usize, Vec<DVec3>)>,
    pub(super) rotations: Vec<(usize, Vec<DQuat>)>,
    pub(super) extras: Option<Value>,
}

impl ClipData {
    pub(super) fn from_poses(
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

pub(super) fn build_clips(rig: &Rig) -> Vec<ClipData> {
    vec![
        idle_clip(rig),
        gait_clip(rig, &WALK),
        gait_clip(rig, &RUN),
        gait_clip(rig, &TURN_WALK),
        wave_clip(rig),
    ]
}

/// Every joint is rotated; root and pelvis are also translated.
pub(super) fn full_body_clip(
    name: &'static str,
    poses: &[Pose],
    extras: Option<Value>,
) -> ClipData {
    let all: Vec<usize> = (0..JOINT_COUNT).collect();
    ClipData::from_poses(name, poses, &[ROOT, PELVIS], &all, extras)
}

/// Solves a cycle of states and appends the closing key: the first pose again, with
/// the root one cycle on (`end_root`).
pub(super) fn cyclic_poses(
    rig: &Rig,
    mut states: Vec<BodyState>,
    end_root: (DVec3, DQuat),
) -> Vec<Pose> {
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

pub(super) fn gait_clip(rig: &Rig, g: &Gait) -> ClipData {
    let n = g.frames;
    let states: Vec<BodyState> = (0..n).map(|i| g.state(i as f64 / n as f64)).collect();
    let end = g.state(1.0);
    let poses = cyclic_poses(rig, states, (end.root_pos, end.root_rot));
    full_body_clip(g.name, &poses, Some(g.markers()))
}

pub(super) const IDLE_FRAMES: usize = 60;

pub(super) fn idle_clip(rig: &Rig) -> ClipData {
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

pub(super) const WAVE_FRAMES: usize = 60;

/// Additive layer: the right arm rises, waves three times and comes back down. Its
/// first (and last) key is the rest pose, which is its reference pose.
pub(super) fn wave_clip(rig: &Rig) -> ClipData {
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
