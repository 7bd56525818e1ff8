//! Blending per character.
//!
//! `cargo bench --bench blending`. `blend_N+local_to_model`: N pre-sampled local poses
//! blended with `BlendingJob` (equal weights, no masks), then `LocalToModelJob`.
//! `pipeline`: one character's frame as the pose graph runs it for a cross-fade: two
//! cached samples of two clips, a 70/30 blend, local-to-model. Characters: the Robot
//! (58 nodes; also with its keys reduced at 1 mm, `anim::reduce`), the Fox (26 nodes,
//! Walk / Run) and a synthetic 67-joint skeleton (the size ozz-animation's figures are quoted
//! for; `common::synthetic_67(false)`, the same clip as benches/sampling.rs samples).

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Mat4;
use stridescope::anim::blend::blending::{BlendLayer, BlendingJob};
use stridescope::anim::{Clip, LocalToModelJob, SamplingCache, SamplingJob, Skeleton, Transform};

mod common;
use common::synthetic_67;

fn sample(clip: &Clip, skeleton: &Skeleton, t: f32) -> Vec<Transform> {
    let mut pose = vec![Transform::IDENTITY; skeleton.joint_count()];
    SamplingJob {
        clip,
        time_secs: t,
        rest_pose: skeleton.rest_pose(),
    }
    .run(&mut pose)
    .unwrap();
    pose
}

/// `blend_N+local_to_model` for N = 2, 4, 8, and `pipeline` with clips `a` and `b`.
fn bench_character(c: &mut Criterion, label: &str, skeleton: &Skeleton, a: &Clip, b: &Clip) {
    let n = skeleton.joint_count();
    let rest = skeleton.rest_pose();
    let mut local = vec![Transform::IDENTITY; n];
    let mut model = vec![Mat4::IDENTITY; n];
    // Eight different poses of the clip (spread over its duration).
    let duration = a.duration_secs().max(1e-3);
    let poses: Vec<Vec<Transform>> = (0..8)
        .map(|i| sample(a, skeleton, duration * i as f32 / 8.0))
        .collect();
    let mut group = c.benchmark_group(label);
    for count in [2usize, 4, 8] {
        let layers: Vec<BlendLayer> = poses[..count]
            .iter()
            .map(|pose| BlendLayer {
                pose,
                weight: 1.0,
                joint_weights: None,
            })
            .collect();
        group.bench_function(format!("blend_{count}+local_to_model"), |bench| {
            bench.iter(|| {
                BlendingJob {
                    layers: black_box(&layers),
                    rest_pose: rest,
                    threshold: BlendingJob::DEFAULT_THRESHOLD,
                }
                .run(&mut local)
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
    }
    // A cross-fade frame: sample both clips (cached cursors, advancing time), blend, FK.
    let mut pose_a = vec![Transform::IDENTITY; n];
    let mut pose_b = vec![Transform::IDENTITY; n];
    let (mut cache_a, mut cache_b) = (SamplingCache::new(), SamplingCache::new());
    let (dur_a, dur_b) = (a.duration_secs().max(1e-3), b.duration_secs().max(1e-3));
    let mut u = 0.0f32;
    group.bench_function("pipeline(2 samples+blend+local_to_model)", |bench| {
        bench.iter(|| {
            // Shared normalised phase, each clip at its own time for it.
            u = (u + 0.0137) % 1.0;
            for (clip, dur, cache, pose) in [
                (a, dur_a, &mut cache_a, &mut pose_a),
                (b, dur_b, &mut cache_b, &mut pose_b),
            ] {
                SamplingJob {
                    clip,
                    time_secs: black_box(u * dur),
                    rest_pose: rest,
                }
                .run_with_cache(cache, pose)
                .unwrap();
            }
            let layers = [
                BlendLayer {
                    pose: &pose_a,
                    weight: 0.7,
                    joint_weights: None,
                },
                BlendLayer {
                    pose: &pose_b,
                    weight: 0.3,
                    joint_weights: None,
                },
            ];
            BlendingJob {
                layers: &layers,
                rest_pose: rest,
                threshold: BlendingJob::DEFAULT_THRESHOLD,
            }
            .run(&mut local)
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
    group.finish();
}

fn blending(c: &mut Criterion) {
    let robot_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb");
    match stridescope::asset::load(&robot_path) {
        Ok(robot) => {
            let a = robot.find_clip("Robot_Running").unwrap_or(0);
            let b = robot
                .find_clip("Robot_Walking")
                .unwrap_or((a + 1) % robot.clips.len());
            bench_character(
                c,
                &format!("robot_{}_joints", robot.skeleton.joint_count()),
                &robot.skeleton,
                &robot.clips[a],
                &robot.clips[b],
            );
            // The same with keys reduced at ozz-animation's default tolerance (1 mm; the
            // measured error is printed).
            let mut reduced = robot.clone();
            match reduced.reduce_keys(1e-3) {
                Ok(reports) => {
                    for r in reports
                        .iter()
                        .filter(|r| [a, b].iter().any(|&i| robot.clips[i].name() == r.clip))
                    {
                        eprintln!("{}", r.summary());
                    }
                    bench_character(
                        c,
                        &format!(
                            "robot_{}_joints_keys_reduced_1mm",
                            robot.skeleton.joint_count()
                        ),
                        &reduced.skeleton,
                        &reduced.clips[a],
                        &reduced.clips[b],
                    );
                }
                Err(e) => eprintln!("skipping the reduced Robot: {e}"),
            }
        }
        Err(e) => eprintln!("skipping the Robot: {e}"),
    }
    // The Fox: 24 joints, rotation keys flushed of subnormals at import.
    let fox_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Fox/Fox.glb");
    match stridescope::asset::load(&fox_path) {
        Ok(fox) => match (fox.find_clip("Walk"), fox.find_clip("Run")) {
            (Some(a), Some(b)) => bench_character(
                c,
                &format!("fox_{}_joints", fox.skeleton.joint_count()),
                &fox.skeleton,
                &fox.clips[a],
                &fox.clips[b],
            ),
            _ => eprintln!("skipping the Fox: no Walk / Run clips"),
        },
        Err(e) => eprintln!("skipping the Fox: {e}"),
    }
    // 31 keys per channel on shared key times (what glTF exporters write).
    let (skeleton, clip) = synthetic_67(false);
    bench_character(
        c,
        &format!("synthetic_{}_joints", skeleton.joint_count()),
        &skeleton,
        &clip,
        &clip,
    );
}

criterion_group!(benches, blending);
criterion_main!(benches);
