//! Locomotion per character: `cargo bench --bench locomotion`.
//!
//! - `two_bone_ik`: one `TwoBoneIkJob::run` on the left leg (the part ozz-animation's
//!   `IKTwoBoneJob` does), target 5 cm forward of the FK foot.
//! - `warp+pelvis+2ik`: `StrideWarpJob` (stride scale 1.2, pelvis solver, length clamp)
//!   then `LegIkJob` (pelvis offset, thigh compensation, two IK solves, feet orientation,
//!   local-to-model of the edited subtrees), from a copy of the FK pose each call.
//! - `frame`: the whole locomotion frame as the window and `trace` run it: speed matching,
//!   the one-clip pose graph's advance (clock, root motion, cached sample), FK
//!   local-to-model, orientation + stride warping, leg IK, world placement and foot slide,
//!   then a full local-to-model of the result (what the renderer's palette needs).
//!
//! Characters: the demo (`Walk`, 24 joints) and the Robot (`Robot_Walking`, 58 nodes,
//! in place: its implied speed is used; its feet hang from the root bone, not the calves).

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Mat4, Vec3};
use stridescope::anim::contacts::detect_legs;
use stridescope::anim::ik::{knee_axis, TwoBoneIkJob};
use stridescope::anim::locomotion::{
    pelvis_of, unit_scale, LegIkJob, StrideMode, StrideWarpJob, StrideWarpOutput,
    StrideWarpSettings, StrideWarpState,
};
use stridescope::anim::{LocalToModelJob, SamplingJob};
use stridescope::asset::{self, Model};
use stridescope::graph::PoseGraph;
use stridescope::stage::locomotion::{Locomotion, LocomotionSettings};

fn characters() -> Vec<(&'static str, Model, &'static str)> {
    let demo =
        asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).expect("demo");
    let robot_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb");
    let mut out = vec![("demo", demo, "Walk")];
    match asset::load(&robot_path) {
        Ok(m) => out.push(("Robot", m, "Robot_Walking")),
        Err(e) => eprintln!("skipping the Robot: {e}"),
    }
    out
}

fn locomotion(c: &mut Criterion) {
    for (name, model, clip_name) in characters() {
        let sk = &model.skeleton;
        let clip = model.find_clip(clip_name).expect("clip");
        let legs = detect_legs(sk).expect("legs");
        let pelvis = pelvis_of(sk.parents(), &legs).expect("pelvis");
        let k = unit_scale(sk, &legs);
        let mut local = sk.rest_pose().to_vec();
        SamplingJob {
            clip: &model.clips[clip],
            time_secs: 0.3,
            rest_pose: sk.rest_pose(),
        }
        .run(&mut local)
        .unwrap();
        let mut fk = vec![Mat4::IDENTITY; local.len()];
        LocalToModelJob {
            parents: sk.parents(),
            local: &local,
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut fk)
        .unwrap();

        let leg = &legs[0];
        let p = |j: usize| fk[j].w_axis.truncate();
        let ik = TwoBoneIkJob {
            target: p(leg.foot) + Vec3::Z * 0.05 * k,
            pole_vector: Vec3::Z,
            mid_axis: knee_axis(p(leg.thigh), &fk[leg.calf], p(leg.foot), -Vec3::X),
            start_joint: fk[leg.thigh],
            mid_joint: fk[leg.calf],
            end_joint: fk[leg.foot],
            ..TwoBoneIkJob::default()
        };
        c.bench_function(&format!("{name}/two_bone_ik"), |b| {
            b.iter(|| black_box(black_box(&ik).run().unwrap()))
        });

        let settings = StrideWarpSettings::default();
        let mut state = StrideWarpState::default();
        let mut out = StrideWarpOutput::default();
        let mut reached = Vec::with_capacity(legs.len());
        let mut work_local = local.clone();
        let mut work_model = fk.clone();
        c.bench_function(&format!("{name}/warp+pelvis+2ik"), |b| {
            b.iter(|| {
                work_local.copy_from_slice(&local);
                work_model.copy_from_slice(&fk);
                StrideWarpJob {
                    settings: &settings,
                    legs: &legs,
                    pelvis,
                    model_from_joint: &fk,
                    ik_feet: None,
                    mode: StrideMode::Manual {
                        direction: Vec3::Z,
                        scale: 1.2,
                    },
                    root_delta: Vec3::new(0.0, 0.0, 0.02 * k),
                    dt_secs: 1.0 / 60.0,
                    cycle_speed: None,
                    floor_normal: Vec3::Y,
                    gravity: -Vec3::Y,
                    unit_scale: k,
                }
                .run(&mut state, &mut out)
                .unwrap();
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
                .run(&mut work_local, &mut work_model, &mut reached)
                .unwrap();
                black_box(&work_model);
            })
        });

        let mut graph = PoseGraph::single_clip(&model, clip).unwrap();
        let mut loco = Locomotion::new(&model, LocomotionSettings::default()).unwrap();
        let natural = loco.clip(&model, clip).unwrap().speed() as f32;
        loco.settings.movement_speed = natural * 1.5;
        loco.attach(&graph);
        loco.evaluate_still(&model, &mut graph).unwrap();
        let mut final_model = fk.clone();
        c.bench_function(&format!("{name}/frame"), |b| {
            b.iter(|| {
                loco.advance(&model, &mut graph, 1.0 / 60.0).unwrap();
                LocalToModelJob {
                    parents: sk.parents(),
                    local: loco.local_pose(),
                    model_from_root: loco.model_from_root(),
                }
                .run(&mut final_model)
                .unwrap();
                black_box(&final_model);
            })
        });
    }
}

criterion_group!(benches, locomotion);
criterion_main!(benches);
