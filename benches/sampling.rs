//! Sampling and sampling + local-to-model per character.
//!
//! `cargo bench --bench sampling`. `sample` binary-searches the keys on every call,
//! `sample_cached` and `sample+local_to_model` keep key cursors in a `SamplingCache`
//! between calls (playback at 0.0137 s per call). Characters: the Robot (43 skin joints, 58 nodes),
//! the built-in demo, and a synthetic 67-joint skeleton with T/R/S tracks on every
//! joint at 30 keys per second (the size ozz-animation's figures are quoted for).

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Mat4;
use stridescope::anim::{Clip, LocalToModelJob, SamplingCache, SamplingJob, Skeleton, Transform};

mod common;
use common::synthetic_67;

fn bench_character(c: &mut Criterion, label: &str, skeleton: &Skeleton, clip: &Clip) {
    let rest = skeleton.rest_pose();
    let mut local = vec![Transform::IDENTITY; skeleton.joint_count()];
    let mut model = vec![Mat4::IDENTITY; skeleton.joint_count()];
    let duration = clip.duration_secs().max(1e-3);
    // Advance by an irrational-ish step so each iteration samples a different time.
    let mut t = 0.0f32;
    let mut cache = SamplingCache::new();
    let mut group = c.benchmark_group(label);
    // Binary search of every timeline on each call.
    group.bench_function("sample", |b| {
        b.iter(|| {
            t = (t + 0.0137) % duration;
            SamplingJob {
                clip,
                time_secs: black_box(t),
                rest_pose: rest,
            }
            .run(&mut local)
            .unwrap();
            black_box(&local);
        })
    });
    // Playback: key cursors kept between calls (what scene::Pose does every frame).
    group.bench_function("sample_cached", |b| {
        b.iter(|| {
            t = (t + 0.0137) % duration;
            SamplingJob {
                clip,
                time_secs: black_box(t),
                rest_pose: rest,
            }
            .run_with_cache(&mut cache, &mut local)
            .unwrap();
            black_box(&local);
        })
    });
    group.bench_function("sample+local_to_model", |b| {
        b.iter(|| {
            t = (t + 0.0137) % duration;
            SamplingJob {
                clip,
                time_secs: black_box(t),
                rest_pose: rest,
            }
            .run_with_cache(&mut cache, &mut local)
            .unwrap();
            LocalToModelJob {
                parents: skeleton.parents(),
                local: &local,
                model_from_root: Mat4::IDENTITY,
            }
            .run(&mut model)
            .unwrap();
            black_box(&model);
        })
    });
    group.bench_function("local_to_model", |b| {
        b.iter(|| {
            LocalToModelJob {
                parents: skeleton.parents(),
                local: black_box(&local),
                model_from_root: Mat4::IDENTITY,
            }
            .run(&mut model)
            .unwrap();
            black_box(&model);
        })
    });
    group.finish();
}

fn sampling(c: &mut Criterion) {
    let (skeleton, clip) = synthetic_67(false);
    bench_character(
        c,
        &format!("synthetic_{}_joints", skeleton.joint_count()),
        &skeleton,
        &clip,
    );
    let (skeleton, clip) = synthetic_67(true);
    bench_character(
        c,
        &format!(
            "synthetic_{}_joints_per_channel_keys",
            skeleton.joint_count()
        ),
        &skeleton,
        &clip,
    );
    let robot_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb");
    match stridescope::asset::load(&robot_path) {
        Ok(robot) => {
            let clip = &robot.clips[robot.find_clip("Robot_Running").unwrap_or(0)];
            bench_character(c, "robot_running", &robot.skeleton, clip);
        }
        Err(e) => eprintln!("skipping the Robot: {e}"),
    }
    let demo = stridescope::asset::load_from_slice(
        &stridescope::asset::demo::demo_glb(),
        Path::new("demo.glb"),
    )
    .unwrap();
    let clip = &demo.clips[demo.find_clip("Walk").unwrap_or(0)];
    bench_character(c, "demo_walk", &demo.skeleton, clip);
}

criterion_group!(benches, sampling);
criterion_main!(benches);
