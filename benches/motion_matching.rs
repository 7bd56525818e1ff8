//! Motion matching: `cargo bench --bench motion_matching`.
//!
//! - `mm_search/{reference,brute_force,accelerated,accelerated_top1}/N`: one search of a database
//!   of about N frames (the demo's locomotion set, 473 frames, repeated), for a query
//!   that is a database frame plus noise (as at run time: near the data). Top 8
//!   candidates (what the debugger lists) unless `_top1`. Queries cycle through 256.
//!   Exact copies tie with each other, which no bound can prune; `_jittered` moves every
//!   copy by up to 5% of a standard deviation, like the distinct frames of a real
//!   library. `reference` scores one frame at a time (the oracle), `brute_force` eight
//!   frames per step, `accelerated` skips boxes and stops a block's sums early; all three
//!   return the same list. `runtime_*`: the queries a session really searched with (30 s of walking,
//!   running, turning and stopping), instead of noisy frames.
//! - `mm_build/*`: building the database (sampling every clip at 30 Hz, features,
//!   normalisation, bounds), in parallel on this machine's cores.
//! - `mm_frame/*`: one whole motion-matching frame (spring controller, clip advance and
//!   root motion, a search every 0.1 s or every frame, inertialization, the sampled pose),
//!   walking a square path.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use glam::Vec2;
use stridescope::anim::motion_matching::{
    search_accelerated, search_brute_force, search_reference, Candidate, Database, MatcherInput,
    SearchParams,
};
use stridescope::asset::{self, demo, Model};
use stridescope::stage::matching::{ClipSet, MatchingDef, MatchingSession};

fn set_model() -> Model {
    asset::load_from_slice(
        &demo::locomotion_set_glb(),
        Path::new(demo::LOCOMOTION_SET_NAME),
    )
    .expect("locomotion set")
}

fn build(model: &Model) -> (ClipSet, Database) {
    let set = ClipSet::new(model, &MatchingDef::default()).unwrap();
    let db = Database::build(
        &model.skeleton,
        &set.joints,
        &set.sources(model),
        &set.settings,
    )
    .unwrap();
    (set, db)
}

/// Deterministic queries near the data: frame features plus uniform noise of ±0.3.
fn queries(db: &Database, n: usize) -> Vec<Vec<f32>> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|_| {
            let f = (next() % db.frame_count() as u64) as usize;
            db.frame_features(f)
                .iter()
                .map(|v| v + ((next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.6)
                .collect()
        })
        .collect()
}

/// The raw queries a session actually searched with, walking and running a square
/// path with turns and stops for 30 s.
fn runtime_queries(model: &Model) -> Vec<Vec<f32>> {
    let mut s = MatchingSession::new(model, MatchingDef::default(), None).unwrap();
    let (walk, run) = (s.walk_speed_mps, s.run_speed_mps);
    let mut out = Vec::new();
    for i in 0..1800u64 {
        let k = i / 150;
        let h = (k % 4) as f32 * std::f32::consts::FRAC_PI_2;
        let speed = [walk, run, walk, 0.0][(k % 4) as usize];
        let input = MatcherInput {
            desired_velocity: Vec2::new(h.sin(), h.cos()) * speed,
            desired_yaw: h,
            ..Default::default()
        };
        let f = s.step(model, &input).unwrap();
        if f.searched {
            out.push(f.query_raw.clone());
        }
    }
    out
}

fn search(c: &mut Criterion) {
    let model = set_model();
    let (_, base) = build(&model);
    let recorded = runtime_queries(&model);
    let mut g = c.benchmark_group("mm_search");
    for (target, jitter) in [
        (1_000usize, 0.0f32),
        (10_000, 0.0),
        (100_000, 0.0),
        (10_000, 0.05),
        (100_000, 0.05),
    ] {
        let db = base.repeated(target.div_ceil(base.frame_count()), jitter);
        let noisy = queries(&db, 256);
        let runtime: Vec<Vec<f32>> = recorded
            .iter()
            .map(|raw| {
                let mut q = vec![0.0; db.dims()];
                db.normalize_into(raw, &mut q);
                q
            })
            .collect();
        let label = format!(
            "{}k_frames{}",
            (db.frame_count() as f64 / 1000.0).round(),
            if jitter > 0.0 { "_jittered" } else { "" }
        );
        type Search = fn(&Database, &SearchParams<'_>) -> Vec<Candidate>;
        let (reference, brute, fast): (Search, Search, Search) =
            (search_reference, search_brute_force, search_accelerated);
        for (name, top_n, search, qs) in [
            ("reference", 8, reference, &noisy),
            ("brute_force", 8, brute, &noisy),
            ("accelerated", 8, fast, &noisy),
            ("accelerated_top1", 1, fast, &noisy),
            ("runtime_brute_force", 8, brute, &runtime),
            ("runtime_accelerated", 8, fast, &runtime),
        ] {
            let mut i = 0;
            g.bench_function(BenchmarkId::new(name, &label), |b| {
                b.iter(|| {
                    i = (i + 1) % qs.len();
                    black_box(search(&db, &SearchParams::plain(&qs[i], top_n)))
                })
            });
        }
    }
    g.finish();
}

fn build_time(c: &mut Criterion) {
    let mut g = c.benchmark_group("mm_build");
    g.sample_size(20);
    let model = set_model();
    let set = ClipSet::new(&model, &MatchingDef::default()).unwrap();
    g.bench_function("demo_set_473_frames", |b| {
        b.iter(|| {
            black_box(
                Database::build(
                    &model.skeleton,
                    &set.joints,
                    &set.sources(&model),
                    &set.settings,
                )
                .unwrap(),
            )
        })
    });
    let robot_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb");
    if let Ok(robot) = asset::load(&robot_path) {
        let set = ClipSet::new(&robot, &MatchingDef::default()).unwrap();
        g.bench_function("robot_4_clips", |b| {
            b.iter(|| {
                black_box(
                    Database::build(
                        &robot.skeleton,
                        &set.joints,
                        &set.sources(&robot),
                        &set.settings,
                    )
                    .unwrap(),
                )
            })
        });
    }
    g.finish();
}

fn frame(c: &mut Criterion) {
    let mut g = c.benchmark_group("mm_frame");
    let model = set_model();
    for (name, interval) in [("search_every_0.1s", 0.1f32), ("search_every_frame", 0.0)] {
        let def = MatchingDef {
            search_interval_secs: interval,
            ..MatchingDef::default()
        };
        let mut s = MatchingSession::new(&model, def, None).unwrap();
        let walk = s.walk_speed_mps;
        let mut i = 0u64;
        g.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                // A square: a quarter turn every 2 s; the recording restarts every
                // 10,000 frames so memory stays flat.
                if i.is_multiple_of(10_000) {
                    s.reset(&model).unwrap();
                }
                let h = ((i / 120) % 4) as f32 * std::f32::consts::FRAC_PI_2;
                let input = MatcherInput {
                    desired_velocity: Vec2::new(h.sin(), h.cos()) * walk,
                    desired_yaw: h,
                    ..Default::default()
                };
                black_box(s.step(&model, &input).unwrap().cost)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, search, build_time, frame);
criterion_main!(benches);
