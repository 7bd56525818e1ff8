//! An independent oracle (issue 38): three.js's own loaders (GLTFLoader, FBXLoader,
//! BVHLoader) and AnimationMixer, run in Node by `tests/oracle/three_joints.mjs`, give
//! every joint's world position per clip and time; stridescope's joints must agree on
//! every shared glTF character and on Bandai motion capture takes. (FBX: three.js's
//! FBXLoader interpolates keys linearly whatever their tangents, so it is an oracle only
//! at key times; that comparison is still to be written.)
//!
//! `.ci/setup` installs three (npm) into `target/tools`. Without Node or three a local run
//! says it skips; under `CI=true` (or `STRIDESCOPE_REQUIRE_GPU=1`, which asks for every
//! external tool) it fails instead.
//!
//! Two conventions differ and are compared accordingly:
//! - Units: three.js keeps a BVH's or FBX's own units; stridescope converts to metres
//!   (`Model::source_units_m`), so three.js's positions are scaled by it.
//! - Position channels on a non-root BVH joint (Bandai's `Hips`, below `joint_Root`):
//!   three.js adds them to the OFFSET, stridescope lets them replace it (the hips would
//!   otherwise float an OFFSET above the floor). The difference is one constant vector,
//!   so BVH joints are compared relative to the hips.
//! - FBX clip time: three.js plays a take on the scene's timeline, stridescope from the
//!   take's start (`Clip::source_start_secs`); `agree` shifts by it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Vec3;
use stridescope::anim::SamplingJob;
use stridescope::asset::{self, Model};

use common::model_positions;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

fn tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools")
}

fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("STRIDESCOPE_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// three.js's report for `file` with `samples` times per clip, or `None` (said) when Node
/// or three is missing outside CI.
fn three(file: &Path, samples: usize) -> Option<serde_json::Value> {
    let have_three = tools().join("node_modules/three/package.json").exists();
    let node = Command::new("node").arg("--version").output();
    if !have_three || node.is_err() {
        let why = "node or npm's three is missing (bash .ci/setup installs them)";
        assert!(!required(), "{why}");
        eprintln!("skipping the three.js oracle: {why}");
        return None;
    }
    let out = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/three_joints.mjs"))
        .arg(tools())
        .arg(file)
        .arg(samples.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "three.js on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// three.js's `PropertyBinding.sanitizeNodeName`: whitespace to `_`, `[ ] . : /` removed.
fn sanitize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '[' | ']' | '.' | ':' | '/'))
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

fn positions(model: &Model, clip: usize, t: f32) -> Vec<Vec3> {
    let mut local = model.skeleton.rest_pose().to_vec();
    SamplingJob {
        clip: &model.clips[clip],
        time_secs: t,
        rest_pose: model.skeleton.rest_pose(),
    }
    .run(&mut local)
    .unwrap();
    model_positions(&model.skeleton, &local)
}

fn vec3(v: &serde_json::Value) -> Option<Vec3> {
    let a = v.as_array()?;
    Some(Vec3::new(
        a.first()?.as_f64()? as f32,
        a.get(1)?.as_f64()? as f32,
        a.get(2)?.as_f64()? as f32,
    ))
}

/// Compares `file`'s joints with three.js's at `samples` times of every clip three.js
/// plays; returns how many (clip, time, joint) positions were compared. `relative_to`:
/// compare each joint's offset from that joint instead (BVH, see the module docs).
fn agree(file: &Path, samples: usize, relative_to: Option<&str>) -> usize {
    let Some(report) = three(file, samples) else {
        return 0;
    };
    let model = asset::load(file).unwrap_or_else(|e| panic!("{e}"));
    // three.js keeps the file's units.
    let scale = model.source_units_m as f32;
    let names: Vec<String> = model.skeleton.names().iter().map(|n| sanitize(n)).collect();
    let unique = |n: &str| names.iter().filter(|m| *m == n).count() == 1;
    let rest = model_positions(&model.skeleton, model.skeleton.rest_pose());
    let (lo, hi) = rest.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let size = (hi - lo).length().max(1e-3);
    let tolerance = 1e-4 * size;
    let animated = model.animated_clips();
    // With `relative_to`, only that joint's subtree: above it the conventions differ by
    // the joint's OFFSET (see the module docs).
    let anchor = relative_to.and_then(|n| model.skeleton.find(n));
    let parents = model.skeleton.parents();
    let below = |mut j: usize| -> bool {
        let Some(a) = anchor else { return true };
        loop {
            if j == a {
                return true;
            }
            match parents[j] {
                Some(p) => j = p,
                None => return false,
            }
        }
    };
    let mut compared = 0;
    for (k, theirs) in report["clips"].as_array().unwrap().iter().enumerate() {
        let name = theirs["name"].as_str().unwrap();
        // By name where stridescope kept it, else the k-th clip that animates (a take
        // named after the file).
        let Some(c) = model.find_clip(name).or_else(|| animated.get(k).copied()) else {
            panic!("{}: no clip for three.js's '{name}'", file.display());
        };
        let clip = &model.clips[c];
        let start = clip.source_start_secs() as f32;
        for (i, t) in theirs["times"].as_array().unwrap().iter().enumerate() {
            let t = t.as_f64().unwrap() as f32 - start;
            if !(0.0..=clip.duration_secs() + 1e-6).contains(&t) {
                continue;
            }
            let ours = positions(&model, c, t.min(clip.duration_secs()));
            let origin = |p: &[Vec3], theirs: &serde_json::Value| -> Option<(Vec3, Vec3)> {
                let j = relative_to?;
                let ours = model.skeleton.find(j)?;
                Some((p[ours], vec3(&theirs[j][i])? * scale))
            };
            let (o_ours, o_theirs) =
                origin(&ours, &theirs["joints"]).unwrap_or((Vec3::ZERO, Vec3::ZERO));
            for (j, n) in names.iter().enumerate() {
                if !unique(n) || !below(j) {
                    continue;
                }
                let Some(at) = theirs["joints"].get(n).and_then(|v| vec3(&v[i])) else {
                    continue;
                };
                let d = ((ours[j] - o_ours) - (at * scale - o_theirs)).length();
                assert!(
                    d <= tolerance,
                    "{} clip '{}' at {t} s: joint '{}' is {d} m from three.js's \
                     (tolerance {tolerance} m): ours {:?}, three.js {:?}",
                    file.display(),
                    clip.name(),
                    model.skeleton.names()[j],
                    ours[j] - o_ours,
                    at * scale - o_theirs
                );
                compared += 1;
            }
        }
    }
    compared
}

#[test]
fn gltf_characters_agree_with_three_js() {
    let demo = std::env::temp_dir().join(format!("stridescope-oracle-{}.glb", std::process::id()));
    asset::demo::write_demo(&demo).unwrap();
    let mut total = agree(&demo, 9, None);
    let _ = std::fs::remove_file(&demo);
    for file in [
        "assets/Fox/Fox.glb",
        "assets/CesiumMan/CesiumMan.glb",
        "assets/Robot/robot.glb",
        "assets/RiggedSimple/RiggedSimple.glb",
        "assets/RiggedFigure/RiggedFigure.glb",
    ] {
        total += agree(&shared(file), 9, None);
    }
    if three(&shared("assets/Fox/Fox.glb"), 2).is_some() {
        assert!(total > 5000, "only {total} positions compared");
    }
}

#[test]
fn bvh_takes_agree_with_three_js() {
    let mut total = 0;
    for file in [
        "mocap/bandai/dataset-2_walk_normal_002.bvh",
        "mocap/bandai/dataset-2_run_active_001.bvh",
        "mocap/bandai/dataset-2_walk-turn-left_feminine_001.bvh",
    ] {
        total += agree(&shared(file), 25, Some("Hips"));
    }
    if three(&shared("mocap/bandai/dataset-2_walk_normal_002.bvh"), 2).is_some() {
        // Every time of every take, for Hips and the 20 joints below it.
        assert_eq!(total, 3 * 25 * 21, "positions compared");
    }
}
