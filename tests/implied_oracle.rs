//! The implied ground speed of the demo's and the shared characters' clips (issue 40: these
//! were pinned "as inspect reported them"), checked against three.js's own playback of the
//! same files (`tests/oracle/three_joints.mjs`, 241 times per clip) and against first
//! principles, never against stridescope's own numbers:
//!
//! - The demo's clips travel (root motion) and their feet stand still on the ground: a foot
//!   planted in the world moves, relative to the root, at the root's ground speed. The
//!   implied speed (a median over planted feet) lies between the slowest and the fastest
//!   root speed at the times three.js shows a foot standing (ground speed under 5% of the
//!   root's).
//! - The Robot's `Robot_Walking` plants its feet: the rule of `anim::locomotion::implied`
//!   (contact while within 5% of a leg of the foot's lowest height and slower vertically
//!   than 0.25 legs/s, lifted past 1.25 times either, contacts under 0.05 s dropped, 20%
//!   cut off each end; the median of the feet's ground velocities projected on minus their
//!   mean), written out here on three.js's positions, agrees within 1%.
//! - `Robot_Running` never rests a foot (touch and go): the feet's mean ground speed at
//!   their lowest sample, from three.js, agrees within 3% (the sample grid: the lowest
//!   point falls between samples).
//! - The Fox and CesiumMan plant their feet briefly or roll them (the Fox's paws; the
//!   simple rule above reads the Fox's walk at 40 units/s where the full detector, with
//!   its graze and gap rules, finds 94), so only first-principles bounds hold: a foot
//!   sliding back at the ground speed `v` over its fore-aft range `E` takes `E / v`, which
//!   cannot exceed the clip's duration `T`, so `v >= E / T` for every foot; and a planted
//!   foot is never faster than that foot's fastest moment in the cycle.

mod common;

use std::path::Path;

use common::three::{three, vec3};
use glam::{Vec2, Vec3};
use serde_json::Value;
use stridescope::asset::{self, Model};

fn shared(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/assets")
        .join(rel)
}

/// One clip as three.js plays it: `n` samples over one cycle (the report's last sample,
/// at the clip's end, repeats the first and is dropped), `dt` seconds apart.
struct Played<'a> {
    clip: &'a Value,
    n: usize,
    dt: f32,
    duration: f32,
}

impl<'a> Played<'a> {
    fn new(report: &'a Value, name: &str) -> Self {
        let clip = report["clips"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("three.js has no clip '{name}'"));
        let n = clip["times"].as_array().unwrap().len() - 1;
        let duration = clip["duration"].as_f64().unwrap() as f32;
        Self {
            clip,
            n,
            dt: duration / n as f32,
            duration,
        }
    }

    /// World positions of `joint` (three.js's sanitized name) at the `n` samples.
    fn track(&self, joint: &str) -> Vec<Vec3> {
        self.clip["joints"][joint]
            .as_array()
            .unwrap_or_else(|| panic!("three.js has no joint '{joint}'"))
            .iter()
            .take(self.n)
            .map(|v| vec3(v).unwrap())
            .collect()
    }

    /// Velocity of `p` at sample `k` by central differences over the cycle.
    fn velocity(&self, p: &[Vec3], k: usize) -> Vec3 {
        (p[(k + 1) % self.n] - p[(k + self.n - 1) % self.n]) / (2.0 * self.dt)
    }
}

fn ground(v: Vec3) -> Vec2 {
    Vec2::new(v.x, v.z)
}

/// The rest-pose length thigh -> calf -> foot in three.js's report.
fn leg_length(report: &Value, [thigh, calf, foot]: [&str; 3]) -> f32 {
    let p = |j: &str| vec3(&report["rest"][j]).unwrap();
    p(thigh).distance(p(calf)) + p(calf).distance(p(foot))
}

/// The implied-speed rule (see the module docs) on three.js's tracks: `legs` lists each
/// leg's foot joints (ankle, then toe if any) and its length.
fn stance_speed(played: &Played, legs: &[(&[&str], f32)]) -> f32 {
    let mut velocities: Vec<Vec2> = Vec::new();
    for &(joints, length) in legs {
        let tracks: Vec<Vec<Vec3>> = joints.iter().map(|j| played.track(j)).collect();
        let margin: Vec<f32> = (0..played.n)
            .map(|k| {
                tracks
                    .iter()
                    .map(|p| {
                        let lowest = p.iter().map(|v| v.y).fold(f32::INFINITY, f32::min);
                        let height = (p[k].y - lowest) / (0.05 * length);
                        let rise = played.velocity(p, k).y.abs() / (0.25 * length);
                        height.max(rise)
                    })
                    .fold(f32::INFINITY, f32::min)
            })
            .collect();
        // Walk the cycle from its highest-margin sample (surely lifted), with hysteresis.
        let start = (0..played.n)
            .max_by(|&a, &b| margin[a].total_cmp(&margin[b]))
            .unwrap();
        let mut contacts: Vec<Vec<usize>> = Vec::new();
        let mut down = false;
        for i in 1..=played.n {
            let k = (start + i) % played.n;
            if !down && margin[k] < 1.0 {
                down = true;
                contacts.push(Vec::new());
            } else if down && margin[k] > 1.25 {
                down = false;
            }
            if down {
                contacts.last_mut().unwrap().push(k);
            }
        }
        for c in contacts
            .iter()
            .filter(|c| c.len() as f32 * played.dt >= 0.05)
        {
            let cut = (0.2 * c.len() as f32).round() as usize;
            for &k in &c[cut..c.len() - cut] {
                for p in &tracks {
                    velocities.push(ground(played.velocity(p, k)));
                }
            }
        }
    }
    assert!(!velocities.is_empty(), "no planted foot");
    let direction = -(velocities.iter().sum::<Vec2>()).normalize();
    let mut along: Vec<f32> = velocities.iter().map(|v| -v.dot(direction)).collect();
    along.sort_by(f32::total_cmp);
    let m = along.len();
    if m % 2 == 1 {
        along[m / 2]
    } else {
        0.5 * (along[m / 2 - 1] + along[m / 2])
    }
}

/// First-principles bounds of a cyclic in-place clip's ground speed (see the module
/// docs): the largest fore-aft range over the duration, and the fastest foot.
fn bounds(played: &Played, feet: &[&str]) -> (f32, f32) {
    let (mut lower, mut upper) = (0.0f32, 0.0f32);
    for foot in feet {
        let p = played.track(foot);
        // The fore-aft range: the widest projection over the horizontal directions.
        let range = (0..180)
            .map(|a| {
                let d = Vec2::from_angle((a as f32).to_radians());
                let along = p.iter().map(|v| ground(*v).dot(d));
                along.clone().fold(f32::NEG_INFINITY, f32::max)
                    - along.fold(f32::INFINITY, f32::min)
            })
            .fold(0.0, f32::max);
        lower = lower.max(range / played.duration);
        for k in 0..played.n {
            upper = upper.max(ground(played.velocity(&p, k)).length());
        }
    }
    (lower, upper)
}

fn implied(model: &Model, clip: &str) -> Option<f32> {
    let i = model.find_clip(clip).unwrap();
    model
        .clip_analysis(i)
        .unwrap()
        .implied
        .as_ref()
        .map(|s| s.speed)
}

#[test]
fn the_demo_s_implied_speeds_are_its_root_speed_over_planted_feet() {
    let file = std::env::temp_dir().join(format!("stridescope-implied-{}.glb", std::process::id()));
    asset::demo::write_demo(&file).unwrap();
    let report = three(&file, "241");
    let model = asset::load(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    let Some(report) = report else { return };
    for name in ["Idle", "Wave"] {
        assert_eq!(implied(&model, name), None, "{name} stands");
    }
    for name in ["Walk", "Run", "TurnWalk"] {
        let played = Played::new(&report, name);
        let root = played.track("root");
        let feet: Vec<Vec<Vec3>> = ["foot_l", "foot_r", "toe_l", "toe_r"]
            .iter()
            .map(|j| played.track(j))
            .collect();
        let standing: Vec<f32> = (0..played.n)
            .filter_map(|k| {
                let root_speed = ground(played.velocity(&root, k)).length();
                feet.iter()
                    .any(|p| ground(played.velocity(p, k)).length() < 0.05 * root_speed)
                    .then_some(root_speed)
            })
            .collect();
        assert!(standing.len() > played.n / 5, "{name}: feet rarely stand");
        let lo = standing.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = standing.iter().copied().fold(0.0, f32::max);
        let v = implied(&model, name).unwrap_or_else(|| panic!("{name}: no implied speed"));
        assert!(
            (lo..=hi).contains(&v),
            "{name}: implied {v} m/s outside the root's {lo}..{hi} m/s over standing feet"
        );
    }
}

#[test]
fn the_robot_s_implied_speeds_agree_with_its_feet_in_three_js() {
    let file = shared("Robot/robot.glb");
    let Some(report) = three(&file, "241") else {
        return;
    };
    let model = asset::load(&file).unwrap();
    let length = |side: &str| {
        leg_length(
            &report,
            [
                &format!("UpperLeg{side}"),
                &format!("LowerLeg{side}"),
                &format!("Foot{side}"),
            ],
        )
    };
    let walking = Played::new(&report, "Robot_Walking");
    let want = stance_speed(
        &walking,
        &[(&["FootL"], length("L")), (&["FootR"], length("R"))],
    );
    let got = implied(&model, "Robot_Walking").unwrap();
    assert!(
        (got - want).abs() <= 0.01 * want,
        "Robot_Walking: {got} vs three.js {want}"
    );

    let running = Played::new(&report, "Robot_Running");
    let at_lowest = ["FootL", "FootR"].map(|foot| {
        let p = running.track(foot);
        let k = (0..running.n)
            .min_by(|&a, &b| p[a].y.total_cmp(&p[b].y))
            .unwrap();
        ground(running.velocity(&p, k)).length()
    });
    let want = 0.5 * (at_lowest[0] + at_lowest[1]);
    let i = model.find_clip("Robot_Running").unwrap();
    let analysis = model.clip_analysis(i).unwrap();
    let speed = analysis.implied.as_ref().unwrap();
    assert!(speed.touch_and_go, "Robot_Running never rests a foot");
    assert!(
        (speed.speed - want).abs() <= 0.03 * want,
        "Robot_Running: {} vs three.js {want}",
        speed.speed
    );
}

#[test]
fn the_fox_and_cesium_man_s_implied_speeds_are_within_first_principles_bounds() {
    let cases: [(&str, &[&str], &[&str]); 2] = [
        (
            "Fox/Fox.glb",
            &["Walk", "Run"],
            &[
                "b_LeftFoot01_017",
                "b_RightFoot01_021",
                "b_LeftHand_011",
                "b_RightHand_08",
            ],
        ),
        (
            "CesiumMan/CesiumMan.glb",
            &["animation 0"],
            &["leg_joint_L_3", "leg_joint_R_3"],
        ),
    ];
    for (file, clips, feet) in cases {
        let file = shared(file);
        let Some(report) = three(&file, "241") else {
            return;
        };
        let model = asset::load(&file).unwrap();
        for clip in clips {
            // three.js names the clip as the file does, spaces turned to underscores.
            let played = Played::new(&report, &clip.replace(' ', "_"));
            let (lower, upper) = bounds(&played, feet);
            let v = implied(&model, clip).unwrap();
            assert!(
                lower <= v && v <= upper,
                "{} {clip}: implied {v} outside {lower}..{upper} units/s",
                file.display()
            );
        }
    }
}
