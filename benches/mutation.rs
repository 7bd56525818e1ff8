//! The importer's mutation run at length: `cargo bench --bench mutation` (or
//! `STRIDESCOPE_MUTATIONS=100000 cargo bench --bench mutation`). Every shared character,
//! the Robot included, gets the same seeded mutations as `tests/mutation.rs`; the run
//! stops at the first panic or generic error, naming the file, the seed and the mutation.
//! Prints the counts and the slowest load.

#[path = "../tests/common/mutation.rs"]
mod mutation;

use std::path::Path;
use std::time::{Duration, Instant};

fn main() {
    let total: usize = std::env::var("STRIDESCOPE_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let files = [
        "Fox/Fox.glb",
        "Fox/Fox.gltf",
        "RiggedSimple/RiggedSimple.glb",
        "RiggedFigure/RiggedFigure.glb",
        "SimpleSkin/SimpleSkin.gltf",
        "CesiumMan/CesiumMan.glb",
        "CesiumMan/CesiumMan.gltf",
        "Robot/robot.glb",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets");
    let (mut loaded, mut refused) = (0usize, 0usize);
    let mut slowest = (Duration::ZERO, String::new());
    let started = Instant::now();
    for i in 0..total {
        let file = files[i % files.len()];
        let path = root.join(file);
        let Ok(original) = std::fs::read(&path) else {
            eprintln!("skipping {file}: not readable");
            continue;
        };
        let seed = 0xbe9c_0000_0000 + i as u64;
        let m = mutation::mutate(&original, &mut mutation::Rng::new(seed));
        let t0 = Instant::now();
        let result =
            std::panic::catch_unwind(|| stridescope::asset::load_from_slice(&m.bytes, &path));
        let took = t0.elapsed();
        if took > slowest.0 {
            slowest = (took, format!("{file} seed {seed:#x} ({})", m.what));
        }
        match result {
            Ok(Ok(_)) => loaded += 1,
            Ok(Err(e)) if !e.to_string().contains("could not handle") => refused += 1,
            Ok(Err(e)) => panic!("{file} seed {seed:#x} ({}): generic error: {e}", m.what),
            Err(_) => panic!("{file} seed {seed:#x} ({}): the importer panicked", m.what),
        }
    }
    println!(
        "{total} mutations in {:.1} s: {loaded} loaded, {refused} refused; slowest load {:?}: {}",
        started.elapsed().as_secs_f64(),
        slowest.0,
        slowest.1
    );
}
