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

mod glb;
mod locomotion_set;
mod mesh;
mod motion;
mod rig;

use glb::*;
use locomotion_set::*;
use mesh::*;
use motion::*;
use rig::*;

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

/// Display name of the motion-matching demo (it is built in memory, not read from disk).
pub const LOCOMOTION_SET_NAME: &str = "demo-locomotion.glb";

/// The demo character with its locomotion set (module `locomotion_set`) as `.glb`
/// bytes; deterministic like [`demo_glb`].
pub fn locomotion_set_glb() -> Vec<u8> {
    let rig = Rig::new();
    let mesh = build_mesh(&rig);
    let clips = locomotion_set_clips(&rig);
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
