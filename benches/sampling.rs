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
use glam::{Mat4, Quat, Vec3};
use stridescope::anim::{
    Clip, Interpolation, JointTracks, LocalToModelJob, SamplingCache, SamplingJob, Skeleton, Track,
    Transform,
};

/// A 67-joint humanoid-like tree (spine, two 4-joint legs, two arms with 15 finger
/// joints each) with a 1 s clip, every joint animated in T, R and S.
///
/// `per_channel_keys == false`: 31 keys per channel, all channels on the same key times
/// (what glTF exporters write). `true`: every channel has its own key times (11 to 41
/// keys, as after per-channel key reduction), so each of the 201 channels is searched.
fn synthetic_67(per_channel_keys: bool) -> (Skeleton, Clip) {
    let mut parents: Vec<Option<usize>> = vec![None];
    let chain = |parent: usize, len: usize, parents: &mut Vec<Option<usize>>| -> usize {
        let mut p = parent;
        for _ in 0..len {
            parents.push(Some(p));
            p = parents.len() - 1;
        }
        p
    };
    let spine_top = chain(0, 6, &mut parents); // spine + neck + head
    for _ in 0..2 {
        chain(0, 4, &mut parents); // legs
    }
    for _ in 0..2 {
        let hand = chain(spine_top, 4, &mut parents); // clavicle, upper, lower, hand
        for _ in 0..5 {
            chain(hand, 3, &mut parents); // fingers
        }
    }
    parents.truncate(67);
    while parents.len() < 67 {
        parents.push(Some(0));
    }
    let n = parents.len();
    let names = (0..n).map(|i| format!("joint_{i}")).collect();
    let rest = vec![
        Transform {
            translation: Vec3::Y * 0.1,
            ..Transform::IDENTITY
        };
        n
    ];
    let skeleton = Skeleton::new(names, parents, rest).unwrap();
    let tracks = (0..n)
        .map(|j| {
            let phase = j as f32 * 0.37;
            let times = |channel: usize| -> Vec<f32> {
                if !per_channel_keys {
                    return (0..31).map(|i| i as f32 / 30.0).collect();
                }
                // 11..=41 keys, interior keys jittered by up to 0.4 of an interval.
                let id = (3 * j + channel) as f32;
                let keys = 11 + (3 * j + channel) * 7 % 31;
                (0..keys)
                    .map(|i| {
                        let jitter = if i == 0 || i == keys - 1 {
                            0.0
                        } else {
                            0.4 * (1.7 * i as f32 + id).sin()
                        };
                        (i as f32 + jitter) / (keys - 1) as f32
                    })
                    .collect()
            };
            let mut t = JointTracks::new(j);
            let times_t = times(0);
            t.translation = Some(
                Track::new(
                    Interpolation::Linear,
                    times_t.clone(),
                    times_t
                        .iter()
                        .map(|&s| Vec3::new((s * 6.0 + phase).sin() * 0.01, 0.1, 0.0))
                        .collect(),
                    "t",
                )
                .unwrap(),
            );
            let times_r = times(1);
            t.rotation = Some(
                Track::new(
                    Interpolation::Linear,
                    times_r.clone(),
                    times_r
                        .iter()
                        .map(|&s| {
                            Quat::from_euler(
                                glam::EulerRot::XYZ,
                                (s * 6.0 + phase).sin() * 0.5,
                                s,
                                0.2,
                            )
                        })
                        .collect(),
                    "r",
                )
                .unwrap(),
            );
            let times_s = times(2);
            let keys_s = times_s.len();
            t.scale = Some(
                Track::new(Interpolation::Linear, times_s, vec![Vec3::ONE; keys_s], "s").unwrap(),
            );
            t
        })
        .collect();
    let clip = Clip::new("synthetic".into(), tracks, vec![], n).unwrap();
    (skeleton, clip)
}

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
