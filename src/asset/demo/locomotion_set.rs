//! The demo's motion-matching set: the same character with a small locomotion library
//! made by the same planner, so motion matching works out of the box
//! (`stridescope --motion-matching`, `trace --motion-matching`).
//!
//! | clip                 | length | motion                                          |
//! |----------------------|--------|-------------------------------------------------|
//! | `Idle`               | 2.0 s  | standing (the demo's Idle)                      |
//! | `Walk`, `Run`        | 1.1, 0.7 s | forward, as in the demo                      |
//! | `WalkTurnLeft`/`Right` | 1.1 s | ±30° per cycle (27°/s)                        |
//! | `WalkTurnLeftSharp`/`RightSharp` | 1.1 s | ±90° per cycle (82°/s)              |
//! | `RunTurnLeft`/`Right` | 0.7 s | ±45° per cycle (64°/s)                         |
//! | `StrafeLeft`/`Right` | 1.1 s  | 0.8 m per cycle sideways, facing forward        |
//! | `WalkStart`          | 1.37 s | standing to walking (ramp over 1 cycle of 1.25) |
//! | `WalkStop`           | 2.53 s | walking to standing (ramp over 1.25 cycles)     |
//!
//! Cyclic clips loop with the demo's conventions (last key = first pose, root one cycle
//! on); starts and stops do not loop. Like the demo, the bytes are deterministic.

use super::*;

const fn turn(name: &'static str, base: &Gait, turn_rad: f64) -> Gait {
    Gait {
        name,
        turn_rad,
        ..*base
    }
}

pub(super) const WALK_TURN_LEFT: Gait = turn("WalkTurnLeft", &WALK, PI / 6.0);
pub(super) const WALK_TURN_RIGHT: Gait = turn("WalkTurnRight", &WALK, -PI / 6.0);
pub(super) const WALK_TURN_LEFT_SHARP: Gait = turn("WalkTurnLeftSharp", &WALK, FRAC_PI_2);
pub(super) const WALK_TURN_RIGHT_SHARP: Gait = turn("WalkTurnRightSharp", &WALK, -FRAC_PI_2);
pub(super) const RUN_TURN_LEFT: Gait = turn("RunTurnLeft", &RUN, PI / 4.0);
pub(super) const RUN_TURN_RIGHT: Gait = turn("RunTurnRight", &RUN, -PI / 4.0);

/// Sideways walk: shorter steps, wider stance (the trailing foot closes up to the
/// leading one without crossing it: step width > a quarter of the cycle's travel).
const fn strafe(name: &'static str, strafe_rad: f64) -> Gait {
    Gait {
        name,
        distance_m: 0.8,
        // Even speed: a strafe has no heel-to-toe push.
        root_profile: &[(0.0, 0.0), (1.0, 1.0)],
        plant_ahead_m: 0.2,
        step_width_m: 0.26,
        swing_lift_m: 0.06,
        heel_strike_rad: 0.05,
        toe_off_rad: -0.2,
        pelvis_twist_rad: 0.02,
        arm_swing_rad: 0.08,
        lean_rad: 0.02,
        strafe_rad,
        ..WALK
    }
}

pub(super) const STRAFE_LEFT: Gait = strafe("StrafeLeft", FRAC_PI_2);
pub(super) const STRAFE_RIGHT: Gait = strafe("StrafeRight", -FRAC_PI_2);

pub(super) const WALK_START: Gait = Gait {
    name: "WalkStart",
    envelope: Envelope::Start { ramp: 1.0 },
    ..WALK
};
pub(super) const WALK_START_CYCLES: f64 = 1.25;

pub(super) const WALK_STOP: Gait = Gait {
    name: "WalkStop",
    envelope: Envelope::Stop { ramp: 1.25 },
    ..WALK
};
/// Two cycles to bring both feet together, then a short hold.
pub(super) const WALK_STOP_CYCLES: f64 = 2.3;

/// A non-cyclic clip over `cycles` cycles of a gait (keys at 30 Hz, end included).
pub(super) fn envelope_clip(rig: &Rig, g: &Gait, cycles: f64) -> ClipData {
    let keys = (cycles * g.frames as f64).round() as usize;
    let mut states: Vec<BodyState> = (0..=keys)
        .map(|i| g.state(i as f64 / g.frames as f64))
        .collect();
    fit_leg_reach_with(rig, &mut states, false);
    let poses: Vec<Pose> = states.iter().map(|s| solve(rig, s)).collect();
    full_body_clip(g.name, &poses, None)
}

pub(super) fn locomotion_set_clips(rig: &Rig) -> Vec<ClipData> {
    let mut clips = vec![idle_clip(rig), gait_clip(rig, &WALK), gait_clip(rig, &RUN)];
    for g in [
        &WALK_TURN_LEFT,
        &WALK_TURN_RIGHT,
        &WALK_TURN_LEFT_SHARP,
        &WALK_TURN_RIGHT_SHARP,
        &RUN_TURN_LEFT,
        &RUN_TURN_RIGHT,
        &STRAFE_LEFT,
        &STRAFE_RIGHT,
    ] {
        clips.push(gait_clip(rig, g));
    }
    clips.push(envelope_clip(rig, &WALK_START, WALK_START_CYCLES));
    clips.push(envelope_clip(rig, &WALK_STOP, WALK_STOP_CYCLES));
    clips
}
