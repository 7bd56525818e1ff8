//! An independent oracle (issue 38): three.js's own loaders (GLTFLoader, FBXLoader,
//! BVHLoader) and AnimationMixer, run in Node by `tests/oracle/three_joints.mjs`, give
//! every joint's world position per clip and time; stridescope's joints must agree on
//! every shared glTF character, on Bandai motion capture takes, and on FBX takes at their
//! keys (three.js's FBXLoader interpolates keys linearly whatever their tangents, so it
//! is an oracle only where every curve moving a joint has a key). Retargeted clips, written by
//! `stridescope retarget --out` and played by three.js, point every mapped bone where the
//! source's bone points in three.js.
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
use stridescope::asset::{self, Model};

use common::model_positions;
use common::three::{sanitize, three, three_many, vec3};

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

fn positions(model: &Model, clip: usize, t: f32) -> Vec<Vec3> {
    let local = common::sampled(&model.skeleton, &model.clips[clip], t);
    model_positions(&model.skeleton, &local)
}

/// Which joint (by name) to compare at which time (seconds on three.js's clip timeline).
type Keep<'a> = &'a dyn Fn(f64, &str) -> bool;

/// Compares `file`'s joints with three.js's at `samples` times of every clip three.js
/// plays; returns how many (clip, time, joint) positions were compared. `relative_to`:
/// compare each joint's offset from that joint instead (BVH, see the module docs).
/// `keep`: only those (time, joint) pairs (default: all).
fn agree(file: &Path, samples: &str, relative_to: Option<&str>, keep: Option<Keep>) -> usize {
    let Some(report) = three(file, samples) else {
        return 0;
    };
    agree_with(file, &report, relative_to, keep)
}

/// [`agree`] against a report three.js already made.
fn agree_with(
    file: &Path,
    report: &serde_json::Value,
    relative_to: Option<&str>,
    keep: Option<Keep>,
) -> usize {
    let model = asset::load(file).unwrap_or_else(|e| panic!("{e}"));
    // three.js keeps the file's units and axes (stridescope turns +Z up into +Y up).
    let scale = model.source_units_m as f32;
    let z_up = model.source_up_axis.starts_with("+Z");
    let vec3 = |v: &serde_json::Value| -> Option<Vec3> {
        let p = vec3(v)?;
        Some(if z_up { Vec3::new(p.x, p.z, -p.y) } else { p })
    };
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
            let scene_t = t.as_f64().unwrap();
            let t = scene_t as f32 - start;
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
                if keep.is_some_and(|k| !k(scene_t, &model.skeleton.names()[j])) {
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
    let mut total = agree(&demo, "9", None, None);
    let _ = std::fs::remove_file(&demo);
    for file in [
        "assets/Fox/Fox.glb",
        "assets/CesiumMan/CesiumMan.glb",
        "assets/Robot/robot.glb",
        "assets/RiggedSimple/RiggedSimple.glb",
        "assets/RiggedFigure/RiggedFigure.glb",
    ] {
        total += agree(&shared(file), "9", None, None);
    }
    if three(&shared("assets/Fox/Fox.glb"), "2").is_some() {
        assert!(total > 5000, "only {total} positions compared");
    }
}

/// Every one of the 482 Bandai takes (one Node run), at 5 times each, Hips and the 20
/// joints below it.
#[test]
fn every_bandai_take_agrees_with_three_js() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(shared("mocap/bandai"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 482);
    let Some(reports) = three_many(&files, "5") else {
        return;
    };
    assert_eq!(reports.len(), files.len());
    let total: usize = files
        .iter()
        .zip(&reports)
        .map(|(f, r)| agree_with(f, r, Some("Hips"), None))
        .sum();
    assert_eq!(total, 482 * 5 * 21, "positions compared");
}

#[test]
fn bvh_takes_agree_with_three_js() {
    let mut total = 0;
    for file in [
        "mocap/bandai/dataset-2_walk_normal_002.bvh",
        "mocap/bandai/dataset-2_run_active_001.bvh",
        "mocap/bandai/dataset-2_walk-turn-left_feminine_001.bvh",
    ] {
        total += agree(&shared(file), "25", Some("Hips"), None);
    }
    if three(&shared("mocap/bandai/dataset-2_walk_normal_002.bvh"), "2").is_some() {
        // Every time of every take, for Hips and the 20 joints below it.
        assert_eq!(total, 3 * 25 * 21, "positions compared");
    }
}

/// The (parent, child) bones whose direction a retarget must keep, by VRM name.
const RETARGET_BONES: [(&str, &str); 11] = [
    ("hips", "spine"),
    ("spine", "chest"),
    ("neck", "head"),
    ("leftUpperArm", "leftLowerArm"),
    ("leftLowerArm", "leftHand"),
    ("rightUpperArm", "rightLowerArm"),
    ("rightLowerArm", "rightHand"),
    ("leftUpperLeg", "leftLowerLeg"),
    ("leftLowerLeg", "leftFoot"),
    ("rightUpperLeg", "rightLowerLeg"),
    ("rightLowerLeg", "rightFoot"),
];

/// What three.js shows of one retarget (see [`retarget_in_three`]).
struct RetargetInThree {
    /// Per compared bone, the largest angle (degrees) between the target's bone and the
    /// source's, after one yaw that turns the source's facing into the target's.
    worst_angle_deg: Vec<(&'static str, f32)>,
    /// `source_foot_deviation` (SPEC 8) recomputed from three.js's joints: mean, max.
    deviation: (f32, f32),
    /// The same figure as `stridescope retarget --json` reports it.
    reported: (f32, f32),
}

/// `source` (a BVH) retargeted onto `target` by `stridescope retarget --out`, both played
/// by three.js at every `step`-th frame. The yaw between the characters' facings is
/// fitted (least squares about +Y, over all frames) on the bones foot IK leaves alone.
/// `None` without three.js.
fn retarget_in_three(
    source: &Path,
    target: &Path,
    ik: bool,
    step: usize,
) -> Option<RetargetInThree> {
    let out = std::env::temp_dir().join(format!(
        "stridescope-oracle-retarget-{}-{ik}.glb",
        std::process::id()
    ));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stridescope"));
    cmd.arg("retarget")
        .arg(source)
        .arg("--onto")
        .arg(target)
        .arg("--json")
        .arg("--out")
        .arg(&out);
    if !ik {
        cmd.arg("--no-ik");
    }
    let run = cmd.output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let map = |bone: &str, side: &str| -> String {
        let entry = report["mapping"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["bone"] == bone)
            .unwrap_or_else(|| panic!("{bone} not mapped"));
        sanitize(entry[side].as_str().unwrap())
    };
    let clip = &report["clips"][0];
    let figure = |k: &str| clip["source_foot_deviation"][k].as_f64().unwrap() as f32;
    let reported = (figure("mean_legs"), figure("max_legs"));
    // Key times only: between keys three.js interpolates each joint's local rotation,
    // which does not commute with a change of skeleton.
    let model = asset::load(source).unwrap();
    let source_units = model.source_units_m as f32;
    let frames = (model.clips[0].duration_secs() as f64 * model.clips[0].frame_rate_hz().unwrap())
        .round() as usize;
    assert_eq!(frames % step, 0, "{frames} frames");
    let samples = frames / step + 1;
    let theirs_source = three(source, &samples.to_string())?;
    let theirs_target = three(&out, &samples.to_string())?;
    let _ = std::fs::remove_file(&out);
    let clips = theirs_target["clips"].as_array().unwrap();
    let played = clips
        .iter()
        .find(|c| c["name"] == clip["name"])
        .expect("the retargeted clip in the written file");
    let (src, dst) = (&theirs_source["clips"][0]["joints"], &played["joints"]);
    // Source positions in metres (three.js keeps the BVH's units); the GLB is in metres.
    let at = |joints: &serde_json::Value, name: &str, i: usize, scale: f32| -> Vec3 {
        vec3(&joints[name][i]).unwrap_or_else(|| panic!("{name} at {i}")) * scale
    };
    let direction = |joints: &serde_json::Value, a: &str, b: &str, i: usize| -> Vec3 {
        (at(joints, b, i, 1.0) - at(joints, a, i, 1.0)).normalize()
    };
    let pairs: Vec<(Vec3, Vec3, usize)> = (0..samples)
        .flat_map(|i| (0..RETARGET_BONES.len()).map(move |k| (i, k)))
        .map(|(i, k)| {
            let (a, b) = RETARGET_BONES[k];
            (
                direction(src, &map(a, "source"), &map(b, "source"), i),
                direction(dst, &map(a, "target"), &map(b, "target"), i),
                k,
            )
        })
        .collect();
    let is_leg = |k: usize| RETARGET_BONES[k].0.contains("Leg");
    let (mut c, mut s) = (0.0f32, 0.0f32);
    for (u, v, _) in pairs.iter().filter(|(_, _, k)| !is_leg(*k)) {
        c += u.x * v.x + u.z * v.z;
        s += u.z * v.x - u.x * v.z;
    }
    let turn = glam::Quat::from_rotation_y(s.atan2(c));
    let mut worst = vec![0.0f32; RETARGET_BONES.len()];
    for (u, v, k) in &pairs {
        // atan2 of sine and cosine: acos loses small angles in f32.
        let u = turn * *u;
        let angle = u.cross(*v).length().atan2(u.dot(*v)).to_degrees();
        worst[*k] = worst[*k].max(angle);
    }

    // SPEC 8's deviation: each target ankle against the source's, relative to the hips,
    // turned by the facing yaw, scaled by the leg ratio, placed at the target's hips; in
    // target legs. Leg lengths from three.js's rest poses (thigh-knee-ankle, both legs).
    let leg = |rest: &serde_json::Value, side: &str, scale: f32| -> f32 {
        let p = |bone: &str| vec3(&rest[map(bone, side)]).unwrap() * scale;
        ["left", "right"]
            .iter()
            .map(|s| {
                let (hip, knee, ankle) = (
                    p(&format!("{s}UpperLeg")),
                    p(&format!("{s}LowerLeg")),
                    p(&format!("{s}Foot")),
                );
                hip.distance(knee) + knee.distance(ankle)
            })
            .sum::<f32>()
            / 2.0
    };
    let target_leg = leg(&theirs_target["rest"], "target", 1.0);
    let ratio = target_leg / leg(&theirs_source["rest"], "source", source_units);
    let reported_ratio = clip["leg_ratio"].as_f64().unwrap() as f32;
    assert!(
        (ratio / reported_ratio - 1.0).abs() < 1e-3,
        "leg ratio {ratio} in three.js, {reported_ratio} reported"
    );
    let (mut sum, mut count, mut max) = (0.0f32, 0usize, 0.0f32);
    for i in 0..samples {
        for side in ["left", "right"] {
            let foot = format!("{side}Foot");
            let s = at(src, &map(&foot, "source"), i, source_units)
                - at(src, &map("hips", "source"), i, source_units);
            let t =
                at(dst, &map(&foot, "target"), i, 1.0) - at(dst, &map("hips", "target"), i, 1.0);
            let d = (t - turn * s * ratio).length() / target_leg;
            sum += d;
            count += 1;
            max = max.max(d);
        }
    }
    Some(RetargetInThree {
        worst_angle_deg: RETARGET_BONES
            .iter()
            .zip(worst)
            .map(|((a, _), w)| (*a, w))
            .collect(),
        deviation: (sum / count as f32, max),
        reported,
    })
}

#[test]
fn retargeted_bones_point_where_the_source_s_do_in_three_js() {
    // A Bandai walk onto CesiumMan and a run onto the Robot, written as GLB by the CLI and
    // played by three.js's GLTFLoader, against the BVH played by three.js's BVHLoader, at
    // every key:
    // - without IK every compared bone points the source's way (one constant yaw apart,
    //   the characters' facings); with foot IK the arms and spine still do and the legs
    //   turn by at most 15 degrees (measured 2.0 on the walk, 10.5 on the run onto the
    //   Robot, whose thighs are short and hips wide);
    // - the feet's deviation from the scaled source (SPEC 8) recomputed from three.js's
    //   joints is the figure `retarget --json` reports, and foot IK does not raise it.
    for (source, target, step) in [
        (
            "mocap/bandai/dataset-2_walk_normal_002.bvh",
            "assets/CesiumMan/CesiumMan.glb",
            1,
        ),
        (
            "mocap/bandai/dataset-2_run_active_001.bvh",
            "assets/Robot/robot.glb",
            1,
        ),
    ] {
        let mut deviation_without_ik = f32::NAN;
        for ik in [false, true] {
            let Some(r) = retarget_in_three(&shared(source), &shared(target), ik, step) else {
                return;
            };
            for (bone, worst) in &r.worst_angle_deg {
                let limit = if ik && bone.contains("Leg") {
                    15.0
                } else {
                    0.01
                };
                assert!(
                    *worst <= limit,
                    "{source} onto {target} (IK {ik}): {bone} is {worst} degrees from the \
                     source's (limit {limit})"
                );
            }
            let ((mean, max), (reported_mean, reported_max)) = (r.deviation, r.reported);
            assert!(
                (mean - reported_mean).abs() < 0.005 && (max - reported_max).abs() < 0.01,
                "{source} onto {target} (IK {ik}): deviation {mean}/{max} legs in three.js, \
                 {reported_mean}/{reported_max} reported"
            );
            if ik {
                assert!(
                    mean <= deviation_without_ik + 0.005,
                    "{source} onto {target}: IK raises the deviation {deviation_without_ik} -> {mean}"
                );
            }
            deviation_without_ik = mean;
        }
    }
}

/// Where three.js's FBXLoader, which interpolates every curve linearly whatever its
/// tangents, is an oracle for take `take` of `path`: per node, the key times of each curve
/// on it or on a node above it (a node is compared at a time every one of them has a
/// key), and every key time of the take.
struct FbxKeys {
    times: Vec<f64>,
    per_node: std::collections::HashMap<String, Vec<Vec<f64>>>,
}

impl FbxKeys {
    fn read(path: &Path, take: usize) -> FbxKeys {
        let scene = ufbx::load_file(path.to_str().unwrap(), ufbx::LoadOpts::default()).unwrap();
        let mut own: std::collections::HashMap<u32, Vec<Vec<f64>>> = Default::default();
        let mut times: Vec<f64> = Vec::new();
        for layer in &scene.anim_stacks[take].layers {
            for prop in &layer.anim_props {
                for curve in prop.anim_value.curves.iter().flatten() {
                    let keys: Vec<f64> = curve.keyframes.iter().map(|k| k.time).collect();
                    times.extend(&keys);
                    own.entry(prop.element.element_id).or_default().push(keys);
                }
            }
        }
        times.sort_by(f64::total_cmp);
        times.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
        let mut per_node = std::collections::HashMap::new();
        for node in &scene.nodes {
            let mut lists = Vec::new();
            let mut at: Option<&ufbx::Node> = Some(node);
            while let Some(n) = at {
                lists.extend(own.get(&n.element.element_id).cloned().unwrap_or_default());
                at = n.parent.as_deref();
            }
            per_node.insert(node.element.name.to_string(), lists);
        }
        FbxKeys { times, per_node }
    }

    fn keeps(&self, t: f64, node: &str) -> bool {
        self.per_node.get(node).is_some_and(|lists| {
            lists
                .iter()
                .all(|keys| keys.iter().any(|k| (k - t).abs() < 1e-6))
        })
    }
}

#[test]
fn fbx_takes_agree_with_three_js_at_their_keys() {
    // three.js's FBXLoader interpolates every curve linearly, so it is an oracle at the
    // times where every curve of a take has a key. Compared: a Mixamo-style take
    // (tests/common/mixamo.rs: `mixamorig:` names, pre-rotations, centimetres, a key per
    // frame) and every shared FBX file FBXLoader plays as its authors meant. Not compared,
    // and why:
    // - 3ds Max 7's files: FBX 5000, which FBXLoader refuses;
    // - Blender's barbarian: its embedded textures need a browser (`window`) in FBXLoader;
    // - the Maya pivot files (child/null pivots, pivot offset): FBXLoader ignores rotation
    //   and scaling pivots and offsets (ours agree with ufbx and with the meshes Maya
    //   exported: tests/fbx.rs);
    // - the Maya animation-layer files: FBXLoader does not blend layers (weights,
    //   additive and override modes; ours agree with the mesh Maya exported: tests/fbx.rs);
    // - the Maya sausage's "deform" take: it scales joints whose children compensate
    //   (Maya's segment scale compensation), which three.js's scene graph cannot express
    //   while animating (ours agree with ufbx and with the meshes Maya exported);
    // - the Maya character and HumanIK files: no animated take.
    let dir =
        std::env::temp_dir().join(format!("stridescope-mixamo-oracle-{}", std::process::id()));
    let take = common::mixamo::write_take(
        &dir,
        &shared("mocap/bandai/dataset-2_walk_normal_002.bvh"),
        "walk.fbx",
        "mixamo.com",
    );
    let mut files = vec![take.path.clone()];
    for f in [
        "blender440_shape_weight_anim_7400_binary.fbx",
        "blender_279_sausage_7400_binary.fbx",
        "max_transformed_skin_7500_binary.fbx",
        "maya_blend_inbetween_7500_binary.fbx",
        "maya_game_sausage_7500_binary_spin.fbx",
        "maya_game_sausage_7500_binary_wiggle.fbx",
    ] {
        files.push(shared(&format!("fbx/ufbx/{f}")));
    }
    let mut total = 0;
    for file in &files {
        let keys = FbxKeys::read(file, 0);
        let spec = format!(
            "at:{}",
            keys.times
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let n = agree(file, &spec, None, Some(&|t, node| keys.keeps(t, node)));
        eprintln!(
            "{}: {} key times, {n} joint positions",
            file.display(),
            keys.times.len()
        );
        total += n;
    }
    if three(&files[0], "2").is_some() {
        assert!(total > 7000, "only {total} positions compared");
    }
    drop(take);
}
