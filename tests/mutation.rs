//! Seeded mutations of the shared characters through the importer (issue 9): thousands of
//! byte flips, truncations, hostile GLB length fields and JSON edits load or fail with an
//! error naming the file (never the importer's generic last-resort message), never
//! panic, never hang, and never allocate more than a bound
//! while loading (a GLB's length fields can claim gigabytes). `cargo bench --bench
//! mutation` runs the same for longer. Seeds are fixed: a failure names the file, the seed
//! and the mutation, and reproduces.

#[path = "common/mutation.rs"]
mod mutation;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Counts live heap bytes and their peak (this binary has one test, so one thread loads).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Heap growth allowed while loading one file: a fixed allowance for decoded images and
/// the model, plus a multiple of the input's size.
fn allowance(input: usize) -> usize {
    (96 << 20) + 40 * input
}

const FILES: [(&str, usize); 6] = [
    ("Fox/Fox.glb", 500),
    ("Fox/Fox.gltf", 300),
    ("RiggedSimple/RiggedSimple.glb", 500),
    ("RiggedFigure/RiggedFigure.glb", 400),
    ("SimpleSkin/SimpleSkin.gltf", 400),
    ("CesiumMan/CesiumMan.glb", 150),
];

#[test]
fn mutated_shared_files_never_panic_hang_or_over_allocate() {
    let scale: f64 = std::env::var("STRIDESCOPE_MUTATIONS_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.0);
    let (mut loaded, mut refused, mut worst_peak) = (0usize, 0usize, 0usize);
    let mut fallback = Vec::new();
    for (k, (file, count)) in FILES.iter().enumerate() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/assets")
            .join(file);
        let original = std::fs::read(&path).unwrap();
        let count = ((*count as f64) * scale).ceil() as usize;
        for i in 0..count {
            let seed = 0x5eed_0000 + (k as u64) * 1_000_000 + i as u64;
            let m = mutation::mutate(&original, &mut mutation::Rng::new(seed));
            let before = LIVE.load(Ordering::Relaxed);
            PEAK.store(before, Ordering::Relaxed);
            let started = Instant::now();
            let result = stridescope::asset::load_from_slice(&m.bytes, &path);
            let elapsed = started.elapsed();
            let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
            worst_peak = worst_peak.max(peak);
            let label = format!("{file} seed {seed:#x} ({})", m.what);
            assert!(
                elapsed < Duration::from_secs(10),
                "{label}: took {elapsed:?}"
            );
            assert!(
                peak <= allowance(m.bytes.len()),
                "{label}: allocated {peak} bytes while loading {} bytes",
                m.bytes.len()
            );
            match result {
                Ok(_) => loaded += 1,
                Err(e) => {
                    refused += 1;
                    let text = e.to_string();
                    assert!(
                        text.starts_with(&path.display().to_string()),
                        "{label}: {text}"
                    );
                    assert!(!e.message.trim().is_empty(), "{label}: empty message");
                    if text.contains("could not handle") {
                        fallback.push(format!("{label}: {text}"));
                    }
                }
            }
        }
    }
    eprintln!(
        "{} mutations: {loaded} loaded, {refused} refused; largest growth while loading \
         {:.1} MiB",
        loaded + refused,
        worst_peak as f64 / (1 << 20) as f64
    );
    // Every refusal names what is wrong: none through the importer's last-resort
    // "could not handle" message (a panic inside the glTF parser, caught).
    assert!(
        fallback.is_empty(),
        "generic errors:\n{}",
        fallback.join("\n")
    );
    assert!(loaded > 0 && refused > 0);
}
