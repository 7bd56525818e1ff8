//! The motion library's disk cache (issue 41): a folder's retargeted takes are read back
//! instead of retargeted again when nothing changed, equal bit for bit to a fresh build;
//! a changed take, or a corrupt or truncated cache, is rebuilt without an error.
//!
//! One test in its own process: it points `STRIDESCOPE_CACHE_DIR` at a folder of its own.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use stridescope::asset::{self, LoadOptions, Model};
use stridescope::stage::library_cache;
use stridescope::stage::retarget::{library_model_with, LibraryStep};

const TAKES: [&str; 3] = [
    "dataset-2_run_active_001.bvh",
    "dataset-2_run_active_003.bvh",
    "dataset-2_walk_normal_002.bvh",
];

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

/// The library built from `folder` onto `character`, and how many clips were retargeted
/// (0 when the cache served them).
fn build(character: &Model, folder: &Path) -> (Model, usize) {
    let retargeted = AtomicUsize::new(0);
    let progress = |step: LibraryStep| {
        if let LibraryStep::Retargeting { .. } = step {
            retargeted.fetch_add(1, Ordering::Relaxed);
        }
    };
    let (model, files, _) = library_model_with(
        character.clone(),
        &[folder.to_path_buf()],
        false,
        &LoadOptions::default(),
        &progress,
    )
    .unwrap();
    assert_eq!(files, TAKES.len());
    (model, retargeted.into_inner())
}

/// Every clip the same, key for key and bit for bit.
fn assert_same_clips(a: &Model, b: &Model) {
    assert_eq!(a.clips.len(), b.clips.len());
    for (x, y) in a.clips.iter().zip(&b.clips) {
        assert_eq!(x.name(), y.name());
        assert_eq!(x.duration_secs().to_bits(), y.duration_secs().to_bits());
        assert_eq!(x.frame_rate_hz(), y.frame_rate_hz());
        assert_eq!(x.markers(), y.markers(), "{}", x.name());
        assert_eq!(x.tracks().len(), y.tracks().len(), "{}", x.name());
        for (s, t) in x.tracks().iter().zip(y.tracks()) {
            assert_eq!(s.joint, t.joint);
            let bits3 = |v: &[glam::Vec3]| -> Vec<[u32; 3]> {
                v.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
            };
            match (&s.translation, &t.translation) {
                (Some(p), Some(q)) => {
                    assert_eq!(p.times(), q.times());
                    assert_eq!(bits3(p.values()), bits3(q.values()));
                }
                (p, q) => assert_eq!(p.is_some(), q.is_some()),
            }
            match (&s.rotation, &t.rotation) {
                (Some(p), Some(q)) => {
                    assert_eq!(p.times(), q.times());
                    let bits = |v: &[glam::Quat]| -> Vec<[u32; 4]> {
                        v.iter().map(|r| r.to_array().map(f32::to_bits)).collect()
                    };
                    assert_eq!(bits(p.values()), bits(q.values()));
                }
                (p, q) => assert_eq!(p.is_some(), q.is_some()),
            }
            assert_eq!(s.scale.is_some(), t.scale.is_some());
        }
    }
}

#[test]
fn a_library_is_retargeted_once_and_read_back_until_a_take_changes() {
    let root =
        std::env::temp_dir().join(format!("stridescope-library-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (folder, cache) = (root.join("takes"), root.join("cache"));
    std::fs::create_dir_all(&folder).unwrap();
    for take in TAKES {
        std::fs::copy(shared(&format!("mocap/bandai/{take}")), folder.join(take)).unwrap();
    }
    // SAFETY of the test: this file holds one test, so no other thread reads the
    // environment while it is set.
    std::env::set_var(stridescope::stage::matching::cache::CACHE_DIR_ENV, &cache);
    let robot = asset::load(&shared("assets/Robot/robot.glb")).unwrap();

    let (first, retargeted) = build(&robot, &folder);
    assert_eq!(
        retargeted,
        TAKES.len(),
        "the first build retargets every take"
    );
    let key = library_cache::key(&robot, &folder, &LoadOptions::default()).unwrap();
    let file = library_cache::path(&robot, &folder);
    assert!(file.starts_with(&cache), "{}", file.display());
    assert!(file.is_file(), "no cache at {}", file.display());

    let (second, retargeted) = build(&robot, &folder);
    assert_eq!(retargeted, 0, "an unchanged folder is read from the cache");
    assert_same_clips(&first, &second);

    // Another character is another library: its own key and its own file.
    let demo = asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).unwrap();
    assert_ne!(
        library_cache::key(&demo, &folder, &LoadOptions::default()),
        Some(key)
    );
    assert_ne!(library_cache::path(&demo, &folder), file);

    // A take edited (one more line at its end): retargeted again, under a new key, in the
    // same file (a changed folder leaves no stale cache behind).
    let edited = folder.join(TAKES[2]);
    let mut text = std::fs::read(&edited).unwrap();
    text.extend_from_slice(b"\n");
    std::fs::write(&edited, text).unwrap();
    let (_, retargeted) = build(&robot, &folder);
    assert_eq!(
        retargeted,
        TAKES.len(),
        "a changed take rebuilds the library"
    );
    assert_ne!(
        library_cache::key(&robot, &folder, &LoadOptions::default()),
        Some(key)
    );
    let files: Vec<_> = std::fs::read_dir(&cache).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "{files:?}");

    // A flipped byte or a cut file: rebuilt, no error, and the good cache written back.
    let good = std::fs::read(&file).unwrap();
    for broken in [
        {
            let mut b = good.clone();
            let mid = b.len() / 2;
            b[mid] ^= 0x40;
            b
        },
        good[..good.len() / 3].to_vec(),
        Vec::new(),
    ] {
        std::fs::write(&file, &broken).unwrap();
        let (again, retargeted) = build(&robot, &folder);
        assert_eq!(retargeted, TAKES.len(), "a broken cache is rebuilt");
        assert_eq!(
            std::fs::read(&file).unwrap(),
            good,
            "the cache is written again"
        );
        assert_same_clips(&first, &again);
    }
    let _ = std::fs::remove_dir_all(&root);
}
