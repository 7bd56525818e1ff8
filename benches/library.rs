//! The library view's CPU cost (issue 23): one frame of the grid, every character posed
//! on its own clip (sampling through its one-clip graph, root motion taken out,
//! local-to-model, skinning palettes), for 10, 100 and 500 Robots, each playing its own
//! Bandai take retargeted onto the Robot (482 takes; the 500 case repeats the first 18).
//! Run on the calling thread alone (`ClipGrid::evaluate_sequential`: no pool, so no thread
//! is woken on another core, a cost that doubled the 10-Robot row when it ran on a pool of
//! one) and on a pool of two, to show the cost grows linearly with the count and what the
//! second core adds.
//!
//! The library build itself (reading and retargeting the takes, or reading them back from
//! the library cache) is the second group.
//!
//! `cargo bench --bench library`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use stridescope::asset::Model;
use stridescope::stage::library::ClipGrid;

const COUNTS: [usize; 3] = [10, 100, 500];

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

/// The Robot with the Bandai library on it, its clips repeated (renamed) up to `count`.
fn robot_with_clips(library: &Model, count: usize) -> Model {
    let mut model = library.clone();
    let all = library.clips.clone();
    model.clips = (0..count)
        .map(|i| {
            let c = all[i % all.len()].clone();
            if i < all.len() {
                c
            } else {
                let name = format!("{} (copy {})", c.name(), i / all.len());
                c.renamed(name)
            }
        })
        .collect();
    model.analysis = Default::default();
    model
}

fn library_frame(c: &mut Criterion) {
    let robot = shared("assets/Robot/robot.glb");
    let bandai = shared("mocap/bandai");
    let (library, files, _) =
        stridescope::stage::retarget::library_model(Some(&robot), &[bandai], false)
            .unwrap_or_else(|e| panic!("the Bandai library on the Robot: {e}"));
    eprintln!("{files} takes on the Robot, {} clips", library.clips.len());
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut group = c.benchmark_group("library_view_cpu_frame");
    for count in COUNTS {
        let model = robot_with_clips(&library, count);
        let mut grid = ClipGrid::new(&model).unwrap();
        // The first evaluation builds each character's one-clip graph; frames after it are
        // what the view costs while it plays.
        grid.evaluate(&model, 0.0);
        group.throughput(Throughput::Elements(count as u64));
        for threads in [1, 2] {
            let mut t = 0.0;
            group.bench_with_input(
                BenchmarkId::new(format!("robots_{threads}_thread"), count),
                &count,
                |b, _| {
                    b.iter(|| {
                        t += 1.0 / 60.0;
                        if threads == 1 {
                            grid.evaluate_sequential(&model, t);
                        } else {
                            two.install(|| grid.evaluate(&model, t));
                        }
                        black_box(grid.poses().len());
                    })
                },
            );
        }
        assert!(grid.failure().is_none(), "{:?}", grid.failure());
    }
    group.finish();
}

/// Building the library itself: the 482 Bandai takes read and retargeted onto the Robot,
/// without the library cache and read back from it (`stage::library_cache`).
fn library_build(c: &mut Criterion) {
    let robot = shared("assets/Robot/robot.glb");
    let bandai = vec![shared("mocap/bandai")];
    let options = stridescope::asset::LoadOptions::default();
    let build = |use_cache: bool| {
        stridescope::stage::retarget::library_model_using(
            Some(&robot),
            &bandai,
            false,
            &options,
            use_cache,
        )
        .unwrap()
        .0
        .clips
        .len()
    };
    // Writes the cache the cached row reads.
    assert_eq!(build(true), 482);
    let mut group = c.benchmark_group("library_build");
    group.sample_size(10);
    group.bench_function("bandai_on_robot_retargeted", |b| {
        b.iter(|| black_box(build(false)))
    });
    group.bench_function("bandai_on_robot_from_cache", |b| {
        b.iter(|| black_box(build(true)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = library_frame, library_build
}
criterion_main!(benches);
