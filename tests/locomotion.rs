//! Locomotion (SPEC 5): speed matching numbers, stride-warping invariants on rigs built in
//! code, the pelvis and the length clamp, the implied speed of in-place clips (the demo
//! walk stripped of its root motion, the same at 1/100 scale, the Robot and the Fox), and
//! foot slide on the demo walk driven at 1.5x and 0.6x its speed.

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use stridescope::anim::contacts::{detect_contacts, detect_legs, ContactSettings, LegChain};
use stridescope::anim::locomotion::{
    implied_speed, pelvis_of, speed_match, unit_scale, FootSlideMeter, LegIkJob, SlideSettings,
    SpeedMatchSettings, StrideMode, StrideWarpJob, StrideWarpOutput, StrideWarpSettings,
    StrideWarpState,
};
use stridescope::anim::{
    Clip, ClipRootMotion, LocalToModelJob, SamplingJob, Skeleton, Track, Transform,
};
use stridescope::asset::{self, Model};
use stridescope::graph::PoseGraph;
use stridescope::stage::locomotion::{Locomotion, LocomotionSettings};

mod common;
use common::scaled;

fn demo() -> Model {
    asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).expect("demo")
}

fn load(rel: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/assets")
        .join(rel);
    asset::load(&path).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ---------------------------------------------------------------- speed matching

#[test]
fn speed_matching_numbers() {
    let s = SpeedMatchSettings::default();
    let m = speed_match(3.0, 2.0, 1.0, &s).unwrap();
    assert!((m.play_rate - 1.25).abs() < 1e-12 && m.clamped);
    assert_eq!(m.unclamped_rate, Some(1.5));
    let m = speed_match(2.2, 2.0, 1.0, &s).unwrap();
    assert!((m.play_rate - 1.1).abs() < 1e-12 && !m.clamped);
    let m = speed_match(1.0, 2.0, 1.0, &s).unwrap();
    assert!((m.play_rate - 0.75).abs() < 1e-12 && m.clamped);
    let none = SpeedMatchSettings {
        min_rate: 0.0,
        max_rate: 0.0,
    };
    let m = speed_match(3.0, 2.0, 1.0, &none).unwrap();
    assert!((m.play_rate - 1.5).abs() < 1e-12 && !m.clamped);
    // min >= max: no clamp either.
    let inverted = SpeedMatchSettings {
        min_rate: 2.0,
        max_rate: 1.0,
    };
    let m = speed_match(3.0, 2.0, 1.0, &inverted).unwrap();
    assert!((m.play_rate - 1.5).abs() < 1e-12);
    // No root motion: the rate stays, with a warning.
    let m = speed_match(3.0, 0.0, 0.8, &s).unwrap();
    assert_eq!(m.play_rate, 0.8);
    assert!(m.warning.as_deref().unwrap().contains("no root motion"));
    assert!(speed_match(f64::NAN, 2.0, 1.0, &s).is_err());
    assert!(speed_match(-1.0, 2.0, 1.0, &s).is_err());
}

// ---------------------------------------------------------------- a rig built in code

/// Pelvis at 1 m; per side a thigh 0.1 m out, 0.45 m thigh, 0.45 m shin bent 20° at the
/// knee, the foot placed `stance` metres forward (left) or back (right) by rotating the
/// thigh; a toe 0.12 m forward.
fn biped(stance: f32) -> (Skeleton, Vec<LegChain>) {
    let mut names = vec!["pelvis".to_string()];
    let mut parents = vec![None];
    let mut rest = vec![Transform {
        translation: Vec3::new(0.0, 1.0, 0.0),
        ..Transform::IDENTITY
    }];
    let mut legs = Vec::new();
    for (side, x, z) in [("l", 0.1f32, stance), ("r", -0.1, -stance)] {
        let base = names.len();
        let swing = (z / 0.85).clamp(-0.9, 0.9).asin();
        let joints = [
            (
                format!("thigh_{side}"),
                Some(0),
                Vec3::new(x, 0.0, 0.0),
                Quat::from_rotation_x(-swing - 0.17),
            ),
            (
                format!("calf_{side}"),
                Some(base),
                Vec3::new(0.0, -0.45, 0.0),
                Quat::from_rotation_x(0.34),
            ),
            (
                format!("foot_{side}"),
                Some(base + 1),
                Vec3::new(0.0, -0.45, 0.0),
                Quat::from_rotation_x(swing - 0.17),
            ),
            (
                format!("toe_{side}"),
                Some(base + 2),
                Vec3::new(0.0, 0.0, 0.12),
                Quat::IDENTITY,
            ),
        ];
        for (n, p, t, r) in joints {
            names.push(n);
            parents.push(p);
            rest.push(Transform {
                translation: t,
                rotation: r,
                scale: Vec3::ONE,
            });
        }
        legs.push(LegChain {
            name: if side == "l" { "left" } else { "right" }.into(),
            thigh: base,
            calf: base + 1,
            foot: base + 2,
            toe: Some(base + 3),
        });
    }
    (Skeleton::new(names, parents, rest).unwrap(), legs)
}

fn fk(sk: &Skeleton, local: &[Transform]) -> Vec<Mat4> {
    let mut m = vec![Mat4::IDENTITY; local.len()];
    LocalToModelJob {
        parents: sk.parents(),
        local,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut m)
    .unwrap();
    m
}

fn pos(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

struct Warped {
    out: StrideWarpOutput,
    before: Vec<Mat4>,
    after: Vec<Mat4>,
    reached: Vec<bool>,
}

fn warp(
    sk: &Skeleton,
    legs: &[LegChain],
    settings: &StrideWarpSettings,
    mode: StrideMode,
    state: &mut StrideWarpState,
    floor_normal: Vec3,
) -> Warped {
    let mut local = sk.rest_pose().to_vec();
    let mut model = fk(sk, &local);
    let before = model.clone();
    let pelvis = pelvis_of(sk.parents(), legs).unwrap();
    let mut out = StrideWarpOutput::default();
    StrideWarpJob {
        settings,
        legs,
        pelvis,
        model_from_joint: &model,
        ik_feet: None,
        mode,
        root_delta: Vec3::new(0.0, 0.0, 0.02),
        dt_secs: 1.0 / 60.0,
        cycle_speed: Some(1.2),
        floor_normal,
        gravity: -Vec3::Y,
        unit_scale: 1.0,
    }
    .run(state, &mut out)
    .unwrap();
    let mut reached = Vec::new();
    LegIkJob {
        parents: sk.parents(),
        legs,
        pelvis,
        warp: &out,
        thigh_compensation: settings.thigh_compensation,
        soften: 1.0,
        model_from_root: Mat4::IDENTITY,
        forward: Vec3::Z,
    }
    .run(&mut local, &mut model, &mut reached)
    .unwrap();
    Warped {
        out,
        before,
        after: model,
        reached,
    }
}

fn manual(dir: Vec3, scale: f32) -> StrideMode {
    StrideMode::Manual {
        direction: dir,
        scale,
    }
}

#[test]
fn stride_scale_one_leaves_the_feet_untouched() {
    let (sk, legs) = biped(0.25);
    let s = StrideWarpSettings::default();
    let w = warp(
        &sk,
        &legs,
        &s,
        manual(Vec3::Z, 1.0),
        &mut StrideWarpState::default(),
        Vec3::Y,
    );
    for (leg, f) in legs.iter().zip(&w.out.feet) {
        assert_eq!(f.warped, f.ik_origin);
        for j in [leg.thigh, leg.calf, leg.foot, leg.toe.unwrap()] {
            assert!(
                pos(&w.before[j]).distance(pos(&w.after[j])) < 1e-5,
                "{}",
                sk.names()[j]
            );
        }
    }
    assert_eq!(w.out.pelvis_offset, Vec3::ZERO);
    assert!(w.reached.iter().all(|&r| r));
}

#[test]
fn warped_feet_move_only_along_the_stride_direction() {
    let (sk, legs) = biped(0.25);
    let s = StrideWarpSettings::default();
    for dir in [Vec3::Z, Vec3::new(1.0, 0.0, 1.0).normalize(), Vec3::X] {
        for scale in [0.6, 1.3] {
            let w = warp(
                &sk,
                &legs,
                &s,
                manual(dir, scale),
                &mut StrideWarpState::default(),
                Vec3::Y,
            );
            for (leg, f) in legs.iter().zip(&w.out.feet) {
                let moved = f.warped - f.ik_origin;
                assert!(
                    moved.cross(dir).length() < 1e-6,
                    "{dir} x{scale}: moved {moved}"
                );
                // Exactly (scale - 1) times the foot's offset from its plane origin
                // along the direction.
                let along = (f.ik_origin - f.plane_origin).dot(dir);
                assert!((moved.dot(dir) - (scale - 1.0) * along).abs() < 1e-6);
                // The real foot joint lands on the target (reachable here).
                assert!(pos(&w.after[leg.foot]).distance(f.target) < 1e-4);
            }
            // The foot keeps its model orientation.
            for leg in &legs {
                let a = Quat::from_mat4(&w.before[leg.foot]);
                let b = Quat::from_mat4(&w.after[leg.foot]);
                assert!(a.dot(b).abs() > 1.0 - 1e-6);
            }
        }
    }
}

#[test]
fn zero_root_motion_keeps_the_previous_direction() {
    let (sk, legs) = biped(0.2);
    let s = StrideWarpSettings::default();
    let pelvis = pelvis_of(sk.parents(), &legs).unwrap();
    let model = fk(&sk, sk.rest_pose());
    let mut state = StrideWarpState::default();
    let mut out = StrideWarpOutput::default();
    let run = |delta: Vec3, state: &mut StrideWarpState, out: &mut StrideWarpOutput| {
        StrideWarpJob {
            settings: &s,
            legs: &legs,
            pelvis,
            model_from_joint: &model,
            ik_feet: None,
            mode: StrideMode::Graph {
                locomotion_speed: 1.5,
                direction: None,
            },
            root_delta: delta,
            dt_secs: 1.0 / 60.0,
            cycle_speed: None,
            floor_normal: Vec3::Y,
            gravity: -Vec3::Y,
            unit_scale: 1.0,
        }
        .run(state, out)
        .unwrap();
    };
    run(Vec3::new(0.01, 0.0, 0.01), &mut state, &mut out);
    let d = Vec3::new(1.0, 0.0, 1.0).normalize();
    assert!(out.direction.distance(d) < 1e-6);
    // 0.85 m/s per frame speed: scale 1.5 / 0.8485 (cycle speed absent: per frame).
    assert!((out.target_scale - 1.5 / (0.01f32.hypot(0.01) * 60.0)).abs() < 1e-4);
    run(Vec3::ZERO, &mut state, &mut out);
    assert!(out.direction.distance(d) < 1e-6, "{}", out.direction);
    // Under the minimum root speed (0.1 m/s) the scale snaps to 1.
    assert_eq!(out.target_scale, 1.0);
    run(Vec3::new(0.0, 0.0, 0.001), &mut state, &mut out);
    assert_eq!(out.target_scale, 1.0);
    assert!(out.direction.distance(Vec3::Z) < 1e-6);
}

#[test]
fn floor_normal_reorients_the_stride_on_a_slope() {
    let (sk, legs) = biped(0.2);
    let s = StrideWarpSettings::default();
    // A 20° slope rising along +Z.
    let n = Vec3::new(0.0, 20f32.to_radians().cos(), -20f32.to_radians().sin());
    let w = warp(
        &sk,
        &legs,
        &s,
        manual(Vec3::Z, 1.2),
        &mut StrideWarpState::default(),
        n,
    );
    let expect = Vec3::new(0.0, 20f32.to_radians().sin(), 20f32.to_radians().cos());
    assert!(
        w.out.direction.distance(expect) < 1e-6,
        "{}",
        w.out.direction
    );
    assert!(w.out.direction.dot(n).abs() < 1e-6);
    let off = StrideWarpSettings {
        floor_normal_reorient: false,
        ..s
    };
    let w = warp(
        &sk,
        &legs,
        &off,
        manual(Vec3::Z, 1.2),
        &mut StrideWarpState::default(),
        n,
    );
    assert!(w.out.direction.distance(Vec3::Z) < 1e-6);
}

#[test]
fn pelvis_only_moves_down_within_its_clamp_and_ik_never_over_extends() {
    for stance in [0.05, 0.2, 0.35] {
        let (sk, legs) = biped(stance);
        let s = StrideWarpSettings {
            interpolate_scale: false,
            ..StrideWarpSettings::default()
        };
        for scale in [0.3f32, 0.8, 1.0, 1.3, 1.8, 2.5, 4.0] {
            let mut state = StrideWarpState::default();
            // Several frames, so the spring settles (and could overshoot).
            for _ in 0..30 {
                let w = warp(&sk, &legs, &s, manual(Vec3::Z, scale), &mut state, Vec3::Y);
                let off = w.out.pelvis_offset;
                assert!(off.x == 0.0 && off.z == 0.0, "{off}");
                assert!(off.y <= 0.0, "stance {stance} x{scale}: up {off}");
                assert!(off.y >= -0.1 - 1e-6, "stance {stance} x{scale}: {off}");
                for (leg, f) in legs.iter().zip(&w.out.feet) {
                    // IK length never exceeds the FK length.
                    let ik_len = f.target.distance(f.thigh_adjusted);
                    assert!(ik_len <= f.fk_length + 1e-5, "{ik_len} > {}", f.fk_length);
                    let real = pos(&w.after[leg.thigh]).distance(pos(&w.after[leg.foot]));
                    assert!(real <= f.fk_length + 1e-4);
                    assert!(pos(&w.after[leg.foot]).distance(f.target) < 1e-4);
                }
            }
        }
    }
    // A long stride needs the pelvis lower: 2x on a 0.35 m stance drops it, by at most
    // alpha (0.5) of the solved drop.
    let (sk, legs) = biped(0.35);
    let s = StrideWarpSettings {
        interpolate_scale: false,
        pelvis_halflife_secs: 0.0,
        ..StrideWarpSettings::default()
    };
    let w = warp(
        &sk,
        &legs,
        &s,
        manual(Vec3::Z, 2.0),
        &mut StrideWarpState::default(),
        Vec3::Y,
    );
    assert!(w.out.pelvis_offset.y < -0.01, "{}", w.out.pelvis_offset);
    let no_clamp = StrideWarpSettings {
        clamp_to_fk_length: false,
        ..s
    };
    let w2 = warp(
        &sk,
        &legs,
        &no_clamp,
        manual(Vec3::Z, 2.0),
        &mut StrideWarpState::default(),
        Vec3::Y,
    );
    // Without the clamp the targets are out of reach: the IK says so.
    assert!(w2
        .out
        .feet
        .iter()
        .any(|f| f.target.distance(f.thigh_adjusted) > f.fk_length));
    assert!(w2.reached.iter().any(|&r| !r));
}

#[test]
fn stride_warp_rejects_bad_input() {
    let (sk, legs) = biped(0.2);
    let model = fk(&sk, sk.rest_pose());
    let s = StrideWarpSettings::default();
    let job = StrideWarpJob {
        settings: &s,
        legs: &legs,
        pelvis: 0,
        model_from_joint: &model,
        ik_feet: None,
        mode: manual(Vec3::Z, 1.0),
        root_delta: Vec3::ZERO,
        dt_secs: 1.0 / 60.0,
        cycle_speed: None,
        floor_normal: Vec3::Y,
        gravity: -Vec3::Y,
        unit_scale: 1.0,
    };
    let mut st = StrideWarpState::default();
    let mut out = StrideWarpOutput::default();
    assert!(job.run(&mut st, &mut out).is_ok());
    for bad in [
        StrideWarpJob { pelvis: 99, ..job },
        StrideWarpJob {
            root_delta: Vec3::NAN,
            ..job
        },
        StrideWarpJob {
            floor_normal: Vec3::ZERO,
            ..job
        },
        StrideWarpJob {
            mode: manual(Vec3::Z, f32::INFINITY),
            ..job
        },
        StrideWarpJob {
            unit_scale: 0.0,
            ..job
        },
        StrideWarpJob { legs: &[], ..job },
    ] {
        assert!(bad.run(&mut st, &mut out).is_err());
    }
    let bad_settings = StrideWarpSettings {
        pelvis_alpha: 2.0,
        ..s
    };
    assert!(StrideWarpJob {
        settings: &bad_settings,
        ..job
    }
    .run(&mut st, &mut out)
    .is_err());
}

// ---------------------------------------------------------------- implied speed

/// The root joint's translation keys with the root motion taken out (its ground
/// position put back to where the track starts): what an in-place export looks like.
fn stripped(model: &Model, clip: &Clip) -> Clip {
    let root = ClipRootMotion::for_clip(&model.skeleton, clip, None)
        .unwrap()
        .expect("the demo walk has root motion");
    let joint = root.source.joint;
    let start = root.motion.start();
    let tracks = clip
        .tracks()
        .iter()
        .map(|t| {
            let mut s = t.clone();
            if t.joint == joint {
                let tr = t.translation.as_ref().expect("root translates");
                let values = tr
                    .times()
                    .iter()
                    .zip(tr.values())
                    .map(|(&time, &v)| {
                        let g = root.motion.sample(f64::from(time));
                        let d = g.translation - start.translation;
                        Vec3::new(v.x - d.x as f32, v.y, v.z - d.y as f32)
                    })
                    .collect();
                s.translation = Some(
                    Track::new(tr.interpolation(), tr.times().to_vec(), values, "stripped")
                        .unwrap(),
                );
            }
            s
        })
        .collect();
    Clip::new(
        format!("{} (in place)", clip.name()),
        tracks,
        clip.markers().to_vec(),
        model.skeleton.joint_count(),
    )
    .unwrap()
}

/// The demo walk covers 1.4 m in 1.1 s (src/asset/demo.rs).
const DEMO_WALK_SPEED: f32 = 1.4 / 1.1;

#[test]
fn implied_speed_of_the_stripped_demo_walk() {
    let d = demo();
    let legs = detect_legs(&d.skeleton).unwrap();
    let walk = &d.clips[d.find_clip("Walk").unwrap()];
    let flat = stripped(&d, walk);
    // Stripped: no root motion left.
    let left = ClipRootMotion::for_clip(&d.skeleton, &flat, None).unwrap();
    if let Some(r) = left {
        assert!(r.motion.cycle_displacement().translation.length() < 1e-4);
    }
    let s = ContactSettings::default();
    let est = implied_speed(&d.skeleton, &flat, &legs, None, &s)
        .unwrap()
        .expect("the demo walk plants its feet");
    let err = (est.speed - DEMO_WALK_SPEED).abs() / DEMO_WALK_SPEED;
    assert!(
        err < 0.05,
        "implied {} vs {DEMO_WALK_SPEED}: {err}",
        est.speed
    );
    assert!(est.direction.distance(Vec3::Z) < 0.05, "{}", est.direction);
    assert!(est.spread < 0.1, "spread {}", est.spread);

    // 1/100 scale: 1/100 of the speed, the same contacts.
    let (sk, small) = scaled(&d.skeleton, &flat, 0.01);
    let est_small = implied_speed(&sk, &small, &legs, None, &s)
        .unwrap()
        .unwrap();
    assert!(
        (est_small.speed / est.speed - 0.01).abs() < 1e-4,
        "{} vs {}",
        est_small.speed,
        est.speed
    );
    let a = detect_contacts(&d.skeleton, &flat, &legs, &s).unwrap();
    let b = detect_contacts(&sk, &small, &legs, &s).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.intervals.len(), y.intervals.len());
        for (i, j) in x.intervals.iter().zip(&y.intervals) {
            assert!((i.0 - j.0).abs() < 1e-3 && (i.1 - j.1).abs() < 1e-3);
        }
    }
    assert!((unit_scale(&sk, &legs) / unit_scale(&d.skeleton, &legs) - 0.01).abs() < 1e-6);

    // The warped pose at 1/100 scale is the full-size one times 1/100.
    let warped = |sk: &Skeleton, clip: &Clip, k: f32| -> Vec<Vec3> {
        let mut local = sk.rest_pose().to_vec();
        SamplingJob {
            clip,
            time_secs: 0.3,
            rest_pose: sk.rest_pose(),
        }
        .run(&mut local)
        .unwrap();
        let mut model = fk(sk, &local);
        let fk_model = model.clone();
        let pelvis = pelvis_of(sk.parents(), &legs).unwrap();
        let settings = StrideWarpSettings::default();
        let mut out = StrideWarpOutput::default();
        StrideWarpJob {
            settings: &settings,
            legs: &legs,
            pelvis,
            model_from_joint: &fk_model,
            ik_feet: None,
            mode: StrideMode::Graph {
                locomotion_speed: 1.9 * k,
                direction: None,
            },
            root_delta: Vec3::new(0.0, 0.0, 0.021 * k),
            dt_secs: 1.0 / 60.0,
            cycle_speed: Some(DEMO_WALK_SPEED * 1.25 * k),
            floor_normal: Vec3::Y,
            gravity: -Vec3::Y,
            unit_scale: unit_scale(sk, &legs),
        }
        .run(&mut StrideWarpState::default(), &mut out)
        .unwrap();
        assert!((out.scale - 1.9 / (DEMO_WALK_SPEED * 1.25)).abs() < 1e-4);
        LegIkJob {
            parents: sk.parents(),
            legs: &legs,
            pelvis,
            warp: &out,
            thigh_compensation: true,
            soften: 1.0,
            model_from_root: Mat4::IDENTITY,
            forward: Vec3::Z,
        }
        .run(&mut local, &mut model, &mut Vec::new())
        .unwrap();
        model.iter().map(pos).collect()
    };
    let big = warped(&d.skeleton, &flat, 1.0);
    let little = warped(&sk, &small, 0.01);
    for (i, (p, q)) in big.iter().zip(&little).enumerate() {
        assert!(
            (*p * 0.01).distance(*q) < 2e-6,
            "{}: {p} vs {q}",
            d.skeleton.names()[i]
        );
    }
}

#[test]
fn implied_speed_of_real_in_place_clips() {
    let robot = load("Robot/robot.glb");
    let legs = detect_legs(&robot.skeleton).unwrap();
    let s = ContactSettings::default();
    let walk = &robot.clips[robot.find_clip("Robot_Walking").unwrap()];
    let est = implied_speed(&robot.skeleton, walk, &legs, None, &s)
        .unwrap()
        .expect("the Robot's walk plants its feet");
    // The Robot (4.4 units tall, legs 1.54 units) walks at 4.46 units/s: about 2.9 leg
    // lengths per second, a brisk cartoon walk (a human walks at 1.4-1.7 leg lengths
    // per second). The planted foot travels 1.48 units in its 0.40 s stance (mean
    // 3.7 units/s); the median over the stance's middle is 4.46.
    let per_leg = est.speed / (unit_scale(&robot.skeleton, &legs) * 0.9);
    assert!(
        (2.0..=3.5).contains(&per_leg),
        "{} units/s = {per_leg} legs/s",
        est.speed
    );
    assert!(est.direction.z > 0.99, "travels +Z: {}", est.direction);
    assert!(est.spread < 0.1, "{}", est.spread);
    assert!(!est.touch_and_go);
    let walk_speed = est.speed;
    // The Robot's run never rests a foot (it touches down for one 24 Hz key): the speed
    // is taken at the feet's lowest points, 6.64 units/s, 1.5x its walk.
    let run = &robot.clips[robot.find_clip("Robot_Running").unwrap()];
    let est = implied_speed(&robot.skeleton, run, &legs, None, &s)
        .unwrap()
        .expect("touch-and-go estimate");
    assert!(est.touch_and_go);
    let ratio = est.speed / walk_speed;
    assert!(
        (1.2..=2.5).contains(&ratio),
        "run {} vs walk {walk_speed}",
        est.speed
    );
    assert!(est.direction.z > 0.99);

    // The Fox (a 0.2-scale hierarchy in centimetre units): its paws barely plant. With
    // toe and ankle both measured and the contacts' hysteresis, the estimate moves by
    // about 4% with the contact threshold (it moved by more than 5% with the ankle alone).
    let fox = load("Fox/Fox.glb");
    let legs = detect_legs(&fox.skeleton).unwrap();
    let walk = &fox.clips[fox.find_clip("Walk").unwrap()];
    let est = implied_speed(&fox.skeleton, walk, &legs, None, &s)
        .unwrap()
        .expect("the Fox's walk plants some paws");
    let per_leg = est.speed / (unit_scale(&fox.skeleton, &legs) * 0.9);
    assert!(
        (1.0..=4.0).contains(&per_leg),
        "{} units/s = {per_leg} legs/s",
        est.speed
    );
    assert!(est.spread > 0.01 && est.spread < 0.1, "{}", est.spread);
}

// ---------------------------------------------------------------- foot slide

#[test]
fn slide_meter_counts_planted_motion_only() {
    let mut m = FootSlideMeter::new(2);
    let s = SlideSettings::default();
    let dt = 0.05;
    // Foot 0 planted and moving 1 cm per frame (0.2 m/s); foot 1 in the air moving fast.
    for i in 0..=20 {
        let x = i as f32 * 0.01;
        m.update(
            &[
                (Vec3::new(0.0, 0.0, x), None),
                (Vec3::new(0.0, 0.5, x * 50.0), None),
            ],
            &[true, false],
            dt,
            &s,
            1.0,
        );
    }
    assert!((m.slide()[0] - 0.2).abs() < 1e-6, "{}", m.slide()[0]);
    assert_eq!(m.slide()[1], 0.0);
    assert_eq!(m.skating_ratio(), 0.0);
    // Mean over the two feet per cycle: 0.1 m over 1 cycle.
    assert!((m.slide_per_cycle(1.0) - 0.1).abs() < 1e-6);
    // Planted at 1 m/s: skating (over 0.5 m/s) in every frame that measures.
    let mut m = FootSlideMeter::new(1);
    for i in 0..10 {
        m.update(
            &[(Vec3::new(i as f32 * 0.05, 0.0, 0.0), None)],
            &[true],
            dt,
            &s,
            1.0,
        );
    }
    assert!((m.skating_ratio() - 0.9).abs() < 1e-9);
    // ... but not on a rig ten times the size (the threshold scales).
    let mut big = FootSlideMeter::new(1);
    for i in 0..10 {
        big.update(
            &[(Vec3::new(i as f32 * 0.05, 0.0, 0.0), None)],
            &[true],
            dt,
            &s,
            10.0,
        );
    }
    assert_eq!(big.skating_ratio(), 0.0);
    // A rolling foot: the ankle moves but the toe stays: no slide.
    let mut roll = FootSlideMeter::new(1);
    for i in 0..10 {
        let a = Vec3::new(0.0, 0.05 * i as f32, 0.03 * i as f32);
        roll.update(&[(a, Some(Vec3::new(0.0, 0.0, 0.2)))], &[true], dt, &s, 1.0);
    }
    assert_eq!(roll.slide()[0], 0.0);
}

/// Plays the demo walk for `cycles` cycles at `fps` with the locomotion stage.
fn drive(speed_factor: f32, speed_matching: bool, stride_warping: bool) -> (Locomotion, f64) {
    let d = demo();
    let clip = d.find_clip("Walk").unwrap();
    let mut graph = PoseGraph::single_clip(&d, clip).unwrap();
    let mut loco = Locomotion::new(
        &d,
        LocomotionSettings {
            movement_speed: DEMO_WALK_SPEED * speed_factor,
            speed_matching,
            stride_warping,
            ..LocomotionSettings::default()
        },
    )
    .unwrap();
    loco.evaluate_still(&d, &mut graph).unwrap();
    let dt = 1.0 / 60.0;
    for _ in 0..(60.0 * 4.4) as usize {
        loco.advance(&d, &mut graph, dt).unwrap();
    }
    let rate = graph.rate();
    (loco, rate)
}

/// Slide measured on the demo walk (60 fps, 4.4 s, contacts from the file's foot
/// markers): at its own speed it slides 2.7 cm per cycle (the foot rolls from heel to toe
/// inside the marked contact). Driven at 1.5x its speed, the play rate alone (clamped at
/// 1.25) leaves 18.4 cm/cycle and rate + stride warping 6.8 cm (the rest: the rear foot
/// at push-off is pulled back onto the FK leg length); at 0.6x: 8.9 cm vs 1.1 cm.
/// Bounds: a little over and under those, and warping at least halves the slide.
#[test]
fn stride_warping_reduces_foot_slide_on_the_demo_walk() {
    let (natural, rate) = drive(1.0, true, true);
    assert!((rate - 1.0).abs() < 1e-4);
    let base = natural.slide.slide_per_cycle(natural.cycles_played);
    assert!(base < 0.05, "natural speed slides {base} m/cycle");

    for (factor, rate_expected, scale_expected, rate_only_min, warped_max) in [
        (1.5f32, 1.25, 1.2f32, 0.16, 0.08),
        (0.6, 0.75, 0.8, 0.08, 0.02),
    ] {
        let (rate_only, r1) = drive(factor, true, false);
        let (warped, r2) = drive(factor, true, true);
        assert!((r1 - rate_expected).abs() < 1e-9 && (r2 - rate_expected).abs() < 1e-9);
        assert!(
            (warped.warp.scale - scale_expected).abs() < 1e-3,
            "{}",
            warped.warp.scale
        );
        let a = rate_only.slide.slide_per_cycle(rate_only.cycles_played);
        let b = warped.slide.slide_per_cycle(warped.cycles_played);
        assert!(
            a > rate_only_min,
            "x{factor}: rate alone slides only {a} m/cycle"
        );
        assert!(b < 0.5 * a, "x{factor}: warped {b} vs rate alone {a}");
        assert!(b < warped_max, "x{factor}: warped slides {b} m/cycle");
        // The character covers the movement speed either way.
        let w = warped.world_from_root.translation.length() / 4.4;
        let expect = f64::from(DEMO_WALK_SPEED * factor);
        assert!(
            (w - expect).abs() / expect < 0.03,
            "x{factor}: {w} m/s vs {expect}"
        );
    }
}

#[test]
fn no_legs_is_a_clear_error() {
    let m = load("SimpleSkin/SimpleSkin.gltf");
    let e = Locomotion::new(&m, LocomotionSettings::default()).unwrap_err();
    assert!(
        matches!(&e, stridescope::stage::StageError::Legs(_)),
        "{e:?}"
    );
    assert!(e.to_string().contains("no legs"), "{e}");
}

#[test]
fn zero_root_speed_and_zero_settings_do_not_make_nan() {
    let (sk, legs) = biped(0.2);
    let model = fk(&sk, sk.rest_pose());
    let s = StrideWarpSettings {
        min_root_speed_mps: 0.0,
        scale_interp_up: 0.0,
        scale_interp_down: 0.0,
        speed_source: stridescope::anim::locomotion::SpeedSource::PerFrame,
        ..StrideWarpSettings::default()
    };
    let mut st = StrideWarpState::default();
    let mut out = StrideWarpOutput::default();
    for delta in [Vec3::ZERO, Vec3::new(0.0, 0.0, 0.02), Vec3::ZERO] {
        StrideWarpJob {
            settings: &s,
            legs: &legs,
            pelvis: 0,
            model_from_joint: &model,
            ik_feet: None,
            mode: StrideMode::Graph {
                locomotion_speed: 1.5,
                direction: None,
            },
            root_delta: delta,
            dt_secs: 1.0 / 60.0,
            cycle_speed: None,
            floor_normal: Vec3::Y,
            gravity: -Vec3::Y,
            unit_scale: 1.0,
        }
        .run(&mut st, &mut out)
        .unwrap();
        assert!(out.scale.is_finite());
        // Interpolation speed 0 = no interpolation: the scale is the target at once.
        assert_eq!(out.scale, out.target_scale);
    }
    assert_eq!(out.scale, 1.0, "no root speed: scale 1");
}

#[test]
fn a_zero_length_clip_warns_instead_of_failing() {
    let mut d = demo();
    let walk = &d.clips[d.find_clip("Walk").unwrap()];
    // Every track cut to its first key: a pose, 0 s long.
    let tracks = walk
        .tracks()
        .iter()
        .map(|t| {
            let mut s = t.clone();
            let first = |tr: &Track<Vec3>| {
                Track::new(tr.interpolation(), vec![0.0], vec![tr.values()[0]], "pose").unwrap()
            };
            s.translation = t.translation.as_ref().map(first);
            s.scale = t.scale.as_ref().map(first);
            s.rotation = t.rotation.as_ref().map(|tr| {
                Track::new(tr.interpolation(), vec![0.0], vec![tr.values()[0]], "pose").unwrap()
            });
            s
        })
        .collect();
    let pose = Clip::new("Pose".into(), tracks, Vec::new(), d.skeleton.joint_count()).unwrap();
    assert_eq!(pose.duration_secs(), 0.0);
    d.clips.push(pose);
    let clip = d.clips.len() - 1;
    let mut graph = match PoseGraph::single_clip(&d, clip) {
        Ok(g) => g,
        Err(e) => panic!("a pose clip should play: {e}"),
    };
    let mut loco = Locomotion::new(&d, LocomotionSettings::default()).unwrap();
    loco.attach(&graph);
    loco.evaluate_still(&d, &mut graph).unwrap();
    for _ in 0..10 {
        loco.advance(&d, &mut graph, 1.0 / 60.0).unwrap();
    }
    assert_eq!(graph.rate(), 1.0);
    assert!(
        loco.warnings.iter().any(|w| w.contains("no root motion")),
        "{:?}",
        loco.warnings
    );
}

/// A blend space of in-place clips needs no positions: each sample sits at the speed its
/// planted feet imply (the Robot's walk 4.46, its run 6.64 units/s), and driving it at a
/// speed in between blends them.
#[test]
fn in_place_clips_in_a_blend_space_sit_at_their_implied_speeds() {
    use stridescope::graph::def::{parse_ron, GraphDef};
    let robot = load("Robot/robot.glb");
    let def: GraphDef = parse_ron(
        r#"(
            params: [Float(name: "speed", default: 5.0)],
            base: BlendSpace1D(param: "speed", samples: [(clip: "Robot_Walking"), (clip: "Robot_Running")]),
        )"#,
        Path::new("space.ron"),
    )
    .unwrap();
    let mut graph = PoseGraph::new(&robot, &def).expect("implied positions are distinct");
    let samples = graph.blend_space_samples(&robot);
    assert_eq!(samples.len(), 2);
    assert!((samples[0].1.x - 4.46).abs() < 0.01, "{samples:?}");
    assert!((samples[1].1.x - 6.64).abs() < 0.01, "{samples:?}");
    let mut loco = Locomotion::new(&robot, LocomotionSettings::default()).unwrap();
    loco.settings.movement_speed = 5.5;
    loco.attach(&graph);
    loco.evaluate_still(&robot, &mut graph).unwrap();
    for _ in 0..60 {
        loco.advance(&robot, &mut graph, 1.0 / 60.0).unwrap();
    }
    let weights: Vec<f32> = graph.players().iter().map(|p| p.weight).collect();
    assert!(
        weights.iter().all(|&w| w > 0.2),
        "both clips blend: {weights:?}"
    );
    assert!(loco.uses_implied);
}

// ---------------------------------------------------------------- pose clips and spins

/// The demo character with one extra clip that animates only the pelvis: `times` and
/// its model-space offsets from rest (`moves`) and turns about +Y in degrees (`turns`).
fn with_pelvis_clip(
    name: &str,
    times: &[f32],
    moves: &[Vec3],
    turns_deg: &[f32],
) -> (Model, usize) {
    use stridescope::anim::{Interpolation, JointTracks};
    let mut model = demo();
    let pelvis = model.skeleton.find("pelvis").unwrap();
    let rest = model.skeleton.rest_pose()[pelvis];
    let mut tracks = JointTracks::new(pelvis);
    tracks.translation = Some(
        Track::new(
            Interpolation::Linear,
            times.to_vec(),
            moves.iter().map(|m| rest.translation + *m).collect(),
            name,
        )
        .unwrap(),
    );
    tracks.rotation = Some(
        Track::new(
            Interpolation::Linear,
            times.to_vec(),
            turns_deg
                .iter()
                .map(|d| Quat::from_rotation_y(d.to_radians()) * rest.rotation)
                .collect(),
            name,
        )
        .unwrap(),
    );
    model
        .clips
        .push(Clip::new(name.into(), vec![tracks], vec![], 30).unwrap());
    let index = model.clips.len() - 1;
    (model, index)
}

/// A two-key pose (as three.js's additive `*_pose` clips are written: two keys one frame
/// apart) whose hips differ by 7.3 cm between its keys is a pose, not a walk at 2.2 m/s.
#[test]
fn a_two_key_pose_clip_is_in_place() {
    let (model, clip) = with_pelvis_clip(
        "crouch_pose",
        &[0.0, 1.0 / 30.0],
        &[Vec3::new(0.0, -0.2, 0.0), Vec3::new(0.0, -0.2, 0.073)],
        &[0.0, 0.0],
    );
    let a = model.clip_analysis(clip).unwrap();
    assert!(
        a.root_speed > 2.0,
        "the hips do move 2.2 m/s between the keys: {}",
        a.root_speed
    );
    assert!(a.in_place.in_place, "{}", a.in_place.reason);
    assert!(a.root_motion().is_none());
    assert_eq!(a.speed(), 0.0);
    assert!(a.in_place.reason.contains("pose"), "{}", a.in_place.reason);
}

/// A spin on the spot: the hips turn a full 360 degrees over the clip and end where they
/// began. Looped, it turns the same way each cycle and faces where it started, so it is
/// in place (the spin stays in the pose), not a turning clip.
#[test]
fn a_full_turn_on_the_spot_is_in_place() {
    let times: Vec<f32> = (0..=8).map(|k| k as f32 * 0.25).collect();
    let turns: Vec<f32> = (0..=8).map(|k| k as f32 * 45.0).collect();
    let (model, clip) = with_pelvis_clip("spin", &times, &[Vec3::ZERO; 9], &turns);
    let a = model.clip_analysis(clip).unwrap();
    let yaw = a
        .extracted_root
        .as_ref()
        .unwrap()
        .motion
        .cycle_displacement()
        .yaw_rad;
    assert!(
        (yaw.abs().to_degrees() - 360.0).abs() < 1.0,
        "the extracted root turns a full turn per cycle: {} degrees",
        yaw.to_degrees()
    );
    assert!(a.in_place.in_place, "{}", a.in_place.reason);
    assert!(
        a.in_place.reason.contains("full turn"),
        "{}",
        a.in_place.reason
    );

    // Three quarters of a turn is still a turning clip.
    let turns: Vec<f32> = (0..=8).map(|k| k as f32 * 33.75).collect();
    let (model, clip) = with_pelvis_clip("turn 270", &times, &[Vec3::ZERO; 9], &turns);
    let a = model.clip_analysis(clip).unwrap();
    assert!(!a.in_place.in_place, "{}", a.in_place.reason);
    assert!(
        a.in_place.reason.contains("turning clip"),
        "{}",
        a.in_place.reason
    );
}

/// The user's choice of legs is the model's (issue 40: it lived in the window only, so
/// analysis, lint and inspect never saw it): analyses, leg length and scale follow it,
/// and clearing it brings the detected legs back.
#[test]
fn the_legs_chosen_are_the_models_for_every_caller() {
    let mut m = demo();
    let walk = m.find_clip("Walk").unwrap();
    let detected = m.legs().unwrap();
    assert_eq!(detected.len(), 2);
    // The demo's rig puts hip, knee and ankle at 0.935, 0.505 and 0.085 m (straight
    // down): legs of 0.43 + 0.42 = 0.85 m, 0.85 / 0.9 of a reference leg.
    assert!((m.leg_length_m().unwrap() - 0.85).abs() < 1e-4);
    assert!((m.unit_scale() - 0.85 / 0.9).abs() < 1e-4);
    assert_eq!(m.clip_analysis(walk).unwrap().contacts.len(), 2);
    // One leg chosen: one leg's contacts everywhere.
    m.set_leg_override(Some(vec![detected[0].clone()])).unwrap();
    assert_eq!(m.legs().unwrap().len(), 1);
    assert_eq!(m.detected_legs().unwrap().len(), 2);
    assert_eq!(m.clip_analysis(walk).unwrap().contacts.len(), 1);
    // A "leg" from the pelvis down to the other hip's knee is another length.
    let sk = &m.skeleton;
    let odd = stridescope::anim::contacts::LegChain {
        thigh: sk.find("spine_01").unwrap(),
        calf: sk.find("spine_02").unwrap(),
        ..detected[0].clone()
    };
    m.set_leg_override(Some(vec![odd])).unwrap();
    assert!((m.leg_length_m().unwrap() - 0.85).abs() > 0.05);
    // Out of the skeleton: refused, the choice kept.
    let bad = stridescope::anim::contacts::LegChain {
        foot: 999,
        ..detected[0].clone()
    };
    assert!(m.set_leg_override(Some(vec![bad])).is_err());
    assert_eq!(m.legs().unwrap()[0].thigh, sk_find(&m, "spine_01"));
    m.set_leg_override(None).unwrap();
    assert_eq!(m.legs().unwrap(), detected);
    assert!((m.unit_scale() - 0.85 / 0.9).abs() < 1e-4);
}

fn sk_find(m: &Model, name: &str) -> usize {
    m.skeleton.find(name).unwrap()
}
