//! The Fox's rotation keys carry float noise (212 components between 3.6e-25 and 1e-18,
//! counted from Fox.gltf's accessors); the importer reads values below 1e-15 as 0 so
//! that sampling never multiplies them into subnormals.

use std::path::Path;

use stridescope::anim::{SamplingJob, Transform};
use stridescope::asset;

/// The importer's documented threshold (`FLUSH_TO_ZERO_BELOW` in gltf_import.rs).
const THRESHOLD: f32 = 1e-15;

#[test]
fn fox_keys_hold_no_tiny_values_and_still_sample() {
    for file in ["Fox/Fox.glb", "Fox/Fox.gltf"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/assets")
            .join(file);
        let model = asset::load(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(model.clips.len(), 3, "{file}");
        let mut components = 0usize;
        let mut zeros = 0usize;
        for clip in &model.clips {
            for t in clip.tracks() {
                let mut check = |v: f32, what: &str| {
                    components += 1;
                    zeros += (v == 0.0) as usize;
                    assert!(
                        v == 0.0 || v.abs() >= THRESHOLD,
                        "{file} '{}' joint {} {what}: {v:e} survived the flush",
                        clip.name(),
                        t.joint
                    );
                    assert!(!v.is_subnormal(), "{file}: subnormal {v:e}");
                };
                if let Some(r) = &t.rotation {
                    r.values()
                        .iter()
                        .for_each(|q| q.to_array().into_iter().for_each(|c| check(c, "rotation")));
                }
                for tr in [&t.translation, &t.scale].into_iter().flatten() {
                    tr.values()
                        .iter()
                        .for_each(|v| v.to_array().into_iter().for_each(|c| check(c, "vec3")));
                }
            }
            // Still samples to finite unit rotations over the whole clip.
            let rest = model.skeleton.rest_pose();
            let mut pose = vec![Transform::default(); rest.len()];
            for k in 0..=16 {
                let time_secs = clip.duration_secs() * k as f32 / 16.0;
                SamplingJob {
                    clip,
                    time_secs,
                    rest_pose: rest,
                }
                .run(&mut pose)
                .unwrap();
                for (j, p) in pose.iter().enumerate() {
                    assert!(
                        p.is_finite(),
                        "{file} '{}' joint {j} at {time_secs}",
                        clip.name()
                    );
                    assert!((p.rotation.length() - 1.0).abs() < 1e-4);
                }
            }
        }
        // 10458 float components in the Fox's animation outputs (all rotations); the
        // 212 flushed ones are now among the exact zeros.
        assert_eq!(components, 10458, "{file}");
        assert!(zeros >= 212, "{file}: {zeros} zeros");
    }
}
