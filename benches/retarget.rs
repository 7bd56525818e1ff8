//! Retargeting speed (issue 21): one frame of a Bandai take (27 joints) onto the Robot
//! (65 nodes) and onto the demo, the pose alone and a whole clip with and without foot IK;
//! and Bandai takes retargeted onto the demo and written as GLB, files per second.
//!
//! `cargo bench --bench retarget`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use stridescope::anim::retarget::{automap, RetargetOptions, Retargeter};
use stridescope::anim::{SamplingJob, Transform};
use stridescope::asset::{self, Model};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

fn never(_: usize, _: f32) -> bool {
    false
}

fn frame(c: &mut Criterion) {
    let source = asset::load(&shared("mocap/bandai/dataset-2_walk_normal_002.bvh")).unwrap();
    let demo = asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).unwrap();
    let robot = asset::load(&shared("assets/Robot/robot.glb")).unwrap();
    let mut group = c.benchmark_group("retarget");
    group.measurement_time(Duration::from_secs(3));
    for (label, target) in [("robot", &robot), ("demo", &demo)] {
        let r = Retargeter::new(
            &source.skeleton,
            &automap(&source.skeleton).unwrap(),
            &target.skeleton,
            &automap(&target.skeleton).unwrap(),
        )
        .unwrap();
        let clip = &source.clips[0];
        let mut local = source.skeleton.rest_pose().to_vec();
        SamplingJob {
            clip,
            time_secs: 2.0,
            rest_pose: source.skeleton.rest_pose(),
        }
        .run(&mut local)
        .unwrap();
        let mut out = vec![Transform::IDENTITY; target.skeleton.joint_count()];
        group.bench_function(format!("pose_onto_{label}"), |b| {
            b.iter(|| {
                r.retarget_pose(black_box(&local), false, &mut out).unwrap();
                black_box(&out);
            })
        });
        // A whole 8.8 s take (265 frames at 30 fps), without and with foot IK (planted
        // half the time).
        for ik in [false, true] {
            let options = RetargetOptions {
                foot_ik: ik,
                ..Default::default()
            };
            let planted = |leg: usize, t: f32| ((t * 2.0) as usize + leg).is_multiple_of(2);
            group.bench_function(
                format!("clip_onto_{label}_{}", if ik { "ik" } else { "fk" }),
                |b| {
                    b.iter(|| {
                        let p: &dyn Fn(usize, f32) -> bool = if ik { &planted } else { &never };
                        black_box(r.retarget_clip(clip, "take", &options, p).unwrap())
                    })
                },
            );
        }
    }
    group.finish();
}

fn files(c: &mut Criterion) {
    let dir = shared("mocap/bandai");
    let mut paths = asset::folder::bvh_files(&dir).unwrap();
    paths.truncate(20);
    let sources: Vec<Model> = paths.iter().map(|p| asset::load(p).unwrap()).collect();
    let demo_glb = asset::demo::demo_glb();
    let demo = asset::load_from_slice(&demo_glb, Path::new("demo.glb")).unwrap();
    let mut group = c.benchmark_group("retarget_files");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(sources.len() as u64));
    group.bench_function(format!("bandai_{}_onto_demo_written", sources.len()), |b| {
        b.iter(|| {
            for s in &sources {
                let (clips, _) = stridescope::cli::retarget::retarget_models(
                    s,
                    &demo,
                    &[],
                    &RetargetOptions::default(),
                )
                .unwrap();
                let bytes =
                    stridescope::cli::retarget::glb_with_clips(&demo_glb, &demo, &clips).unwrap();
                black_box(bytes.len());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, frame, files);
criterion_main!(benches);
