//! The Rust half of the motion-matching search comparison with orangeduck/Motion-Matching
//! (`benches/mm_reference/run.sh`): every Bandai take of `../shared/mocap/bandai` and its
//! mirror retargeted onto the demo character, sampled into stridescope's database (about
//! 149,000 frames); the C++ side searches the same normalised features.
//!
//! - `mm_bench --export DIR` builds the database and writes `DIR/input.bin` for the C++
//!   side (little-endian: i32 frames, i32 dims, frames x dims f32 features, i32 ranges,
//!   ranges x i32 starts, ranges x i32 stops, i32 queries per set, then the random and the
//!   steady queries, dims f32 each). The ranges are the runs of frames a jump may land on
//!   (a non-looping take's last 0.2 s are not), so both sides search the same frames.
//! - `mm_bench DIR` builds the database again (deterministically), reads the queries and
//!   times, per set, stridescope's brute force (eight frames per step) and its box search
//!   with early exit, top 1, no playing clip: median ns per query over batches, written
//!   like the C++ side's lines (`NAME SET NS_PER_QUERY CHECKSUM`), every answer to
//!   `DIR/answers_<name>.txt`, and how many frames the box search scores per query
//!   (`visited SET FRAMES OF`).

use std::hint::black_box;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use stridescope::anim::motion_matching::{
    search_accelerated, search_accelerated_counted, search_brute_force, Candidate, Database,
    SearchParams,
};
use stridescope::stage::matching::{MatchingDef, MatchingSession};

/// Queries per set.
const QUERIES: usize = 1000;
/// Timed batches (each runs every query of a set once); the median is reported.
const BATCHES: usize = 5;

fn database() -> Result<Database, String> {
    let bandai = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mocap/bandai");
    let (model, files, _) = stridescope::stage::retarget::library_model(None, &[bandai], true)
        .map_err(|e| e.to_string())?;
    eprintln!("stridescope: {files} files");
    let session =
        MatchingSession::new(&model, MatchingDef::default(), None).map_err(|e| e.to_string())?;
    Ok(session.db)
}

/// Random queries (a frame's features plus uniform noise of +-0.3, as after a change of
/// input) and steady ones (consecutive frames of the library with +-0.05, as during
/// playback), deterministic.
fn queries(db: &Database) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    let n = db.frame_count();
    let mut noisy = |f: usize, amount: f32| -> Vec<f32> {
        db.frame_features(f)
            .iter()
            .map(|v| v + amount * next())
            .collect()
    };
    let random = (0..QUERIES)
        .map(|i| noisy((i * 7919 + 13) % n, 0.3))
        .collect();
    let steady = (0..QUERIES).map(|i| noisy((n / 3 + i) % n, 0.05)).collect();
    (random, steady)
}

/// Runs of frames a jump may land on, as `(start, stop)`.
fn ranges(db: &Database) -> Vec<(i32, i32)> {
    let mut out: Vec<(i32, i32)> = Vec::new();
    let mut open: Option<(usize, u32)> = None;
    for (f, info) in db.frames().iter().enumerate() {
        match open {
            Some((_, source)) if info.candidate && info.source == source => {}
            _ => {
                if let Some((start, _)) = open.take() {
                    out.push((start as i32, f as i32));
                }
                if info.candidate {
                    open = Some((f, info.source));
                }
            }
        }
    }
    if let Some((start, _)) = open {
        out.push((start as i32, db.frame_count() as i32));
    }
    out
}

fn export(dir: &Path) -> Result<(), String> {
    let db = database()?;
    let (random, steady) = queries(&db);
    let mut bytes = Vec::new();
    let i32s = |b: &mut Vec<u8>, v: i32| b.extend_from_slice(&v.to_le_bytes());
    i32s(&mut bytes, db.frame_count() as i32);
    i32s(&mut bytes, db.dims() as i32);
    for f in 0..db.frame_count() {
        for v in db.frame_features(f) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    let r = ranges(&db);
    i32s(&mut bytes, r.len() as i32);
    for (start, _) in &r {
        i32s(&mut bytes, *start);
    }
    for (_, stop) in &r {
        i32s(&mut bytes, *stop);
    }
    i32s(&mut bytes, QUERIES as i32);
    for q in random.iter().chain(&steady) {
        for v in q {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let path = dir.join("input.bin");
    std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!(
        "stridescope: wrote {} ({} frames, {} dims, {} ranges)",
        path.display(),
        db.frame_count(),
        db.dims(),
        r.len()
    );
    Ok(())
}

/// The benchmark's search: the best frame, no playing clip, no tags.
fn top1(query: &[f32]) -> SearchParams<'_> {
    SearchParams::plain(query, 1)
}

fn time(
    db: &Database,
    queries: &[Vec<f32>],
    search: fn(&Database, &SearchParams<'_>) -> Vec<Candidate>,
) -> (f64, Vec<usize>) {
    let run = |q: &[f32]| search(db, &top1(q)).first().map_or(usize::MAX, |c| c.frame);
    let answers: Vec<usize> = queries.iter().map(|q| run(q)).collect();
    let mut per_query = Vec::new();
    for _ in 0..BATCHES {
        let started = Instant::now();
        for q in queries {
            black_box(run(black_box(q)));
        }
        per_query.push(started.elapsed().as_nanos() as f64 / queries.len() as f64);
    }
    per_query.sort_by(f64::total_cmp);
    (per_query[BATCHES / 2], answers)
}

fn run(dir: &Path) -> Result<(), String> {
    let db = database()?;
    let (random, steady) = queries(&db);
    // How many frames the box search scores per query (the rest are pruned).
    for (set, qs) in [("random", &random), ("steady", &steady)] {
        let visited: usize = qs
            .iter()
            .map(|q| search_accelerated_counted(&db, &top1(q)).1)
            .sum();
        println!("visited {set} {} {}", visited / qs.len(), db.frame_count());
    }
    type Search = fn(&Database, &SearchParams<'_>) -> Vec<Candidate>;
    let searches: [(&str, Search); 2] = [
        ("stridescope_brute", search_brute_force),
        ("stridescope_box", search_accelerated),
    ];
    for (name, search) in searches {
        let mut file = std::fs::File::create(dir.join(format!("answers_{name}.txt")))
            .map_err(|e| e.to_string())?;
        for (set, qs) in [("random", &random), ("steady", &steady)] {
            let (ns, answers) = time(&db, qs, search);
            let checksum: u64 = answers.iter().map(|&a| a as u64).sum();
            println!("{name} {set} {ns:.0} {checksum}");
            for a in answers {
                writeln!(file, "{set} {a}").map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [flag, dir] if flag == "--export" => export(&PathBuf::from(dir)),
        [dir] => run(&PathBuf::from(dir)),
        _ => Err("usage: mm_bench --export DIR | mm_bench DIR".into()),
    };
    if let Err(e) = result {
        eprintln!("mm_bench: {e}");
        std::process::exit(1);
    }
}
