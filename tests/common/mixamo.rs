#![allow(dead_code)] // Not every test file that includes `common` uses every helper.

//! A Mixamo-style FBX take written for the tests: ../shared has no Mixamo download, so the
//! tests make one the way Mixamo's files are made. A Y Bot-proportioned skeleton (joint
//! names with the `mixamorig:` prefix, centimetres, a T pose, every joint's axes turned
//! so +Y runs along its bone, end joints `HeadTop_End` and `LeftToe_End`) is written as
//! an ASCII FBX 7.4 file, a Bandai walk is retargeted onto it, and the result is written
//! with one key per frame at 30 fps. The hips, spine and legs carry their rest
//! orientation as a Maya-style `PreRotation` (joint orient) with the keyed rotation
//! relative to it; the neck, head and arms carry it in their keys: both conventions occur
//! in files users download.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use glam::{EulerRot, Quat, Vec3};
use stridescope::anim::{SamplingJob, Transform};
use stridescope::asset;
use stridescope::cli::retarget::retarget_models;

/// FBX time units per second.
const KTIME_PER_SEC: f64 = 46_186_158_000.0;
/// Frames per second of the written take.
pub const FPS: f64 = 30.0;

/// A joint of the written skeleton: name (without the prefix), parent, world position in
/// metres (Y up, facing +Z, the character's left towards +X).
struct Bone {
    name: String,
    parent: Option<usize>,
    at_m: Vec3,
}

/// The Y Bot-like skeleton, parents before children.
fn bones() -> Vec<Bone> {
    let mut b: Vec<Bone> = Vec::new();
    let mut add = |name: &str, parent: Option<usize>, at: [f32; 3]| {
        b.push(Bone {
            name: name.to_string(),
            parent,
            at_m: Vec3::from(at),
        });
        b.len() - 1
    };
    let hips = add("Hips", None, [0.0, 1.0, 0.0]);
    let spine = add("Spine", Some(hips), [0.0, 1.10, 0.012]);
    let spine1 = add("Spine1", Some(spine), [0.0, 1.22, 0.014]);
    let spine2 = add("Spine2", Some(spine1), [0.0, 1.36, 0.012]);
    let neck = add("Neck", Some(spine2), [0.0, 1.52, 0.0]);
    let head = add("Head", Some(neck), [0.0, 1.62, 0.02]);
    add("HeadTop_End", Some(head), [0.0, 1.80, 0.02]);
    for (side, s) in [("Left", 1.0f32), ("Right", -1.0)] {
        let shoulder = add(
            &format!("{side}Shoulder"),
            Some(spine2),
            [0.06 * s, 1.46, 0.0],
        );
        let arm = add(
            &format!("{side}Arm"),
            Some(shoulder),
            [0.17 * s, 1.45, -0.01],
        );
        let fore = add(
            &format!("{side}ForeArm"),
            Some(arm),
            [0.44 * s, 1.45, -0.01],
        );
        let hand = add(&format!("{side}Hand"), Some(fore), [0.70 * s, 1.45, 0.0]);
        add(
            &format!("{side}HandMiddle1"),
            Some(hand),
            [0.80 * s, 1.45, 0.0],
        );
    }
    for (side, s) in [("Left", 1.0f32), ("Right", -1.0)] {
        let up = add(&format!("{side}UpLeg"), Some(hips), [0.09 * s, 0.95, 0.0]);
        let leg = add(&format!("{side}Leg"), Some(up), [0.09 * s, 0.53, 0.005]);
        let foot = add(&format!("{side}Foot"), Some(leg), [0.09 * s, 0.09, -0.02]);
        let toe = add(
            &format!("{side}ToeBase"),
            Some(foot),
            [0.09 * s, 0.02, 0.11],
        );
        add(&format!("{side}Toe_End"), Some(toe), [0.09 * s, 0.02, 0.19]);
    }
    b
}

/// Whether a joint keeps its rest orientation in a `PreRotation` (legs and spine).
fn has_pre_rotation(name: &str) -> bool {
    ["Hips", "Spine", "Leg", "Foot", "Toe"]
        .iter()
        .any(|k| name.contains(k))
}

/// Every joint's world rest rotation: +Y along the bone to its first child (end joints
/// keep their parent's).
fn world_rest(b: &[Bone]) -> Vec<Quat> {
    let mut out: Vec<Quat> = Vec::with_capacity(b.len());
    for (j, bone) in b.iter().enumerate() {
        let child = b.iter().position(|c| c.parent == Some(j));
        let q = match child {
            Some(c) => Quat::from_rotation_arc(Vec3::Y, (b[c].at_m - bone.at_m).normalize()),
            None => bone.parent.map_or(Quat::IDENTITY, |p| out[p]),
        };
        out.push(q);
    }
    out
}

/// The rest pose as local transforms (metres).
fn rest_local(b: &[Bone]) -> Vec<Transform> {
    let world = world_rest(b);
    b.iter()
        .enumerate()
        .map(|(j, bone)| {
            let (wq, wp) = bone
                .parent
                .map_or((Quat::IDENTITY, Vec3::ZERO), |p| (world[p], b[p].at_m));
            Transform {
                translation: wq.inverse() * (bone.at_m - wp),
                rotation: (wq.inverse() * world[j]).normalize(),
                scale: Vec3::ONE,
            }
        })
        .collect()
}

/// FBX's default rotation order (eEulerXYZ: X applied first), in degrees.
fn euler_deg(q: Quat) -> Vec3 {
    let (z, y, x) = q.to_euler(EulerRot::ZYX);
    Vec3::new(x, y, z) * (180.0 / std::f32::consts::PI)
}

fn from_euler_deg(d: Vec3) -> Quat {
    let r = d * (std::f32::consts::PI / 180.0);
    Quat::from_euler(EulerRot::ZYX, r.z, r.y, r.x)
}

/// Each component of `d` moved by whole turns to lie nearest `prev` (no flips between
/// keys that interpolation would spin through).
fn unwrap_deg(prev: Vec3, d: Vec3) -> Vec3 {
    let f = |p: f32, v: f32| v + 360.0 * ((p - v) / 360.0).round();
    Vec3::new(f(prev.x, d.x), f(prev.y, d.y), f(prev.z, d.z))
}

/// The ASCII FBX text of `b` with `frames` (per frame, per joint local transforms in
/// metres; empty for a file without a take).
fn fbx_text(
    b: &[Bone],
    rest: &[Transform],
    frames: &[Vec<Transform>],
    take: &str,
    empty_take_first: bool,
) -> String {
    let cm = 100.0f32;
    let mut s = String::new();
    let mut id = 1000u64;
    let mut next = || {
        id += 1;
        id
    };
    // Rounded as the key times are: the take stops on its last key.
    let stop = ((frames.len().max(1) - 1) as f64 / FPS * KTIME_PER_SEC).round() as i64;
    s.push_str("; FBX 7.4.0 project file\n");
    s.push_str("FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n");
    s.push_str(
        "\tCreator: \"FBX SDK/FBX Plugins version 2013.3 (stridescope test, Mixamo-style)\"\n}\n",
    );
    s.push_str("GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n");
    for (k, v) in [
        ("UpAxis", 1),
        ("UpAxisSign", 1),
        ("FrontAxis", 2),
        ("FrontAxisSign", 1),
        ("CoordAxis", 0),
        ("CoordAxisSign", 1),
    ] {
        let _ = writeln!(s, "\t\tP: \"{k}\", \"int\", \"Integer\", \"\",{v}");
    }
    s.push_str("\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n");
    s.push_str("\t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n");
    let _ = writeln!(s, "\t\tP: \"TimeSpanStart\", \"KTime\", \"Time\", \"\",0");
    let _ = writeln!(
        s,
        "\t\tP: \"TimeSpanStop\", \"KTime\", \"Time\", \"\",{stop}"
    );
    s.push_str("\t}\n}\n");
    s.push_str("Objects:  {\n");
    let mut connections = String::new();
    let model_ids: Vec<u64> = b.iter().map(|_| next()).collect();
    for (j, bone) in b.iter().enumerate() {
        let attr = next();
        let _ = writeln!(
            s,
            "\tNodeAttribute: {attr}, \"NodeAttribute::\", \"LimbNode\" {{\n\t\tTypeFlags: \"Skeleton\"\n\t}}"
        );
        let _ = writeln!(connections, "\tC: \"OO\",{attr},{}", model_ids[j]);
        let t = rest[j].translation * cm;
        let pre = if has_pre_rotation(&bone.name) {
            euler_deg(rest[j].rotation)
        } else {
            Vec3::ZERO
        };
        let lcl = euler_deg(from_euler_deg(pre).inverse() * rest[j].rotation);
        let _ = writeln!(
            s,
            "\tModel: {}, \"Model::mixamorig:{}\", \"LimbNode\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{",
            model_ids[j], bone.name
        );
        let _ = writeln!(
            s,
            "\t\t\tP: \"PreRotation\", \"Vector3D\", \"Vector\", \"\",{},{},{}",
            pre.x, pre.y, pre.z
        );
        s.push_str("\t\t\tP: \"RotationActive\", \"bool\", \"\", \"\",1\n");
        s.push_str("\t\t\tP: \"InheritType\", \"enum\", \"\", \"\",1\n");
        let _ = writeln!(
            s,
            "\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",{},{},{}",
            t.x, t.y, t.z
        );
        let _ = writeln!(
            s,
            "\t\t\tP: \"Lcl Rotation\", \"Lcl Rotation\", \"\", \"A\",{},{},{}",
            lcl.x, lcl.y, lcl.z
        );
        s.push_str("\t\t}\n\t}\n");
        let parent = bone.parent.map_or(0, |p| model_ids[p]);
        let _ = writeln!(connections, "\tC: \"OO\",{},{parent}", model_ids[j]);
    }
    if empty_take_first {
        // What a Mixamo "with skin" download holds before its real take: a take with a
        // layer, no curve and no length.
        let stack = next();
        let layer = next();
        let _ = writeln!(
            s,
            "\tAnimationStack: {stack}, \"AnimStack::Take 001\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",0\n\t\t}}\n\t}}"
        );
        let _ = writeln!(
            s,
            "\tAnimationLayer: {layer}, \"AnimLayer::BaseLayer\", \"\" {{\n\t}}"
        );
        let _ = writeln!(connections, "\tC: \"OO\",{layer},{stack}");
    }
    if !frames.is_empty() {
        let stack = next();
        let layer = next();
        let _ = writeln!(
            s,
            "\tAnimationStack: {stack}, \"AnimStack::{take}\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",{stop}\n\t\t}}\n\t}}"
        );
        let _ = writeln!(
            s,
            "\tAnimationLayer: {layer}, \"AnimLayer::BaseLayer\", \"\" {{\n\t}}"
        );
        let _ = writeln!(connections, "\tC: \"OO\",{layer},{stack}");
        let times: Vec<String> = (0..frames.len())
            .map(|i| ((i as f64 / FPS) * KTIME_PER_SEC).round().to_string())
            .collect();
        let times = times.join(",");
        for (j, bone) in b.iter().enumerate() {
            let pre = if has_pre_rotation(&bone.name) {
                from_euler_deg(euler_deg(rest[j].rotation))
            } else {
                Quat::IDENTITY
            };
            // Mixamo keys the hips' translation and every joint's rotation.
            let mut channels: Vec<(&str, &str, Vec<Vec3>)> = Vec::new();
            if bone.parent.is_none() {
                let t = frames.iter().map(|f| f[j].translation * cm).collect();
                channels.push(("T", "Lcl Translation", t));
            }
            let mut prev = Vec3::ZERO;
            let r = frames
                .iter()
                .map(|f| {
                    let d = unwrap_deg(prev, euler_deg(pre.inverse() * f[j].rotation));
                    prev = d;
                    d
                })
                .collect();
            channels.push(("R", "Lcl Rotation", r));
            for (short, property, values) in channels {
                let node = next();
                let v0 = values[0];
                let _ = writeln!(
                    s,
                    "\tAnimationCurveNode: {node}, \"AnimCurveNode::{short}\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"d|X\", \"Number\", \"\", \"A\",{}\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",{}\n\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\",{}\n\t\t}}\n\t}}",
                    v0.x, v0.y, v0.z
                );
                let _ = writeln!(connections, "\tC: \"OO\",{node},{layer}");
                let _ = writeln!(
                    connections,
                    "\tC: \"OP\",{node},{},\"{property}\"",
                    model_ids[j]
                );
                for (axis, pick) in [("X", 0usize), ("Y", 1), ("Z", 2)] {
                    let curve = next();
                    let vals: Vec<String> = values.iter().map(|v| v[pick].to_string()).collect();
                    let n = values.len();
                    let _ = writeln!(
                        s,
                        "\tAnimationCurve: {curve}, \"AnimCurve::\", \"\" {{\n\t\tDefault: 0\n\t\tKeyVer: 4009\n\t\tKeyTime: *{n} {{\n\t\t\ta: {times}\n\t\t}}\n\t\tKeyValueFloat: *{n} {{\n\t\t\ta: {}\n\t\t}}\n\t\tKeyAttrFlags: *1 {{\n\t\t\ta: 4\n\t\t}}\n\t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 0,0,218434821,0\n\t\t}}\n\t\tKeyAttrRefCount: *1 {{\n\t\t\ta: {n}\n\t\t}}\n\t}}",
                        vals.join(",")
                    );
                    let _ = writeln!(connections, "\tC: \"OP\",{curve},{node},\"d|{axis}\"");
                }
            }
        }
    }
    s.push_str("}\nConnections:  {\n");
    s.push_str(&connections);
    s.push_str("}\n");
    s
}

/// Writes the Mixamo-style skeleton of another body, without a take, to `<dir>/<file_name>`:
/// legs `legs` times as long (hips height and every joint below it), the torso, neck and
/// head `torso` times, everything `width` times as wide. Same names, same hierarchy: what
/// a second Mixamo character is.
pub fn write_body(dir: &Path, file_name: &str, legs: f32, torso: f32, width: f32) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let mut b = bones();
    let hips_y = b[0].at_m.y;
    for bone in &mut b {
        let p = bone.at_m;
        let y = if p.y <= hips_y {
            p.y * legs
        } else {
            hips_y * legs + (p.y - hips_y) * torso
        };
        bone.at_m = Vec3::new(p.x * width, y, p.z);
    }
    let rest = rest_local(&b);
    let path = dir.join(file_name);
    std::fs::write(&path, fbx_text(&b, &rest, &[], "Take 001", false)).unwrap();
    path
}

/// The prefixed joint names of the written skeleton, in file order.
pub fn joint_names() -> Vec<String> {
    bones()
        .iter()
        .map(|b| format!("mixamorig:{}", b.name))
        .collect()
}

/// The world rest position (metres) of the joint named `name` (without the prefix).
pub fn rest_position_m(name: &str) -> Vec3 {
    bones().iter().find(|b| b.name == name).unwrap().at_m
}

/// The parent of each joint of [`joint_names`] (same order).
pub fn parents() -> Vec<Option<usize>> {
    bones().iter().map(|b| b.parent).collect()
}

/// A written take: the file, and what it holds per frame (local transforms in metres, in
/// [`joint_names`] order, one per 1/[`FPS`] s).
pub struct Take {
    pub path: PathBuf,
    pub frames: Vec<Vec<Transform>>,
}

impl Drop for Take {
    /// The take's folder is the test's own: removed with it.
    fn drop(&mut self) {
        // Only a folder the tests made for it (never one a caller named otherwise).
        let ours = |d: &Path| {
            d.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("stridescope-mixamo-"))
        };
        if let Some(dir) = self.path.parent().filter(|d| ours(d)) {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Writes the Mixamo-style skeleton without a take (`<dir>/ybot_rest.fbx`) and with
/// `source`'s first take retargeted onto it (`<dir>/<file_name>`), returning the latter.
/// `source` is a BVH (or any file stridescope reads) with a humanoid skeleton.
pub fn write_take(dir: &Path, source: &Path, file_name: &str, take: &str) -> Take {
    write_take_with(dir, source, file_name, take, false)
}

/// [`write_take`] as a Mixamo "with skin" download is: an empty `Take 001` (no curve,
/// 0 s) before the take.
pub fn write_take_after_empty(dir: &Path, source: &Path, file_name: &str, take: &str) -> Take {
    write_take_with(dir, source, file_name, take, true)
}

fn write_take_with(
    dir: &Path,
    source: &Path,
    file_name: &str,
    take: &str,
    empty_take_first: bool,
) -> Take {
    std::fs::create_dir_all(dir).unwrap();
    let b = bones();
    let rest = rest_local(&b);
    let rest_path = dir.join("ybot_rest.fbx");
    std::fs::write(&rest_path, fbx_text(&b, &rest, &[], take, false)).unwrap();
    let target = asset::load(&rest_path).unwrap();
    let source = asset::load(source).unwrap();
    let (clips, _) = retarget_models(&source, &target, &[], &Default::default()).unwrap();
    let clip = &clips[0];
    // The loaded skeleton's joint for each written bone (same names, maybe other order).
    let index: Vec<usize> = joint_names()
        .iter()
        .map(|n| {
            target
                .skeleton
                .find(n)
                .unwrap_or_else(|| panic!("{n} not loaded"))
        })
        .collect();
    let count = (clip.duration_secs() as f64 * FPS).floor() as usize + 1;
    let frames: Vec<Vec<Transform>> = (0..count)
        .map(|i| {
            let mut local = target.skeleton.rest_pose().to_vec();
            SamplingJob {
                clip,
                time_secs: (i as f64 / FPS) as f32,
                rest_pose: target.skeleton.rest_pose(),
            }
            .run(&mut local)
            .unwrap();
            index.iter().map(|&j| local[j]).collect()
        })
        .collect();
    let path = dir.join(file_name);
    std::fs::write(&path, fbx_text(&b, &rest, &frames, take, empty_take_first)).unwrap();
    Take { path, frames }
}
