//! Test material that looks like real files, made from the shared samples at test time
//! (never stored in the repository): a GLB's JSON and BIN chunks are edited and written to
//! a temporary file.
//!
//! * [`add_drift`]: an in-place clip whose root misses the loop by a given amount per
//!   cycle (a Mixamo "in place" download's hips drift about 1 mm a cycle: a loop-seam
//!   mismatch, not root motion);
//! * [`wrap_scale`]: the whole scene under one node scaled by `k` (an export at another
//!   unit scale, e.g. 0.0012);
//! * [`pin_in_place`], [`strip_markers`]: a clip exported in place, without markers;
//! * [`reparent`]: a mesh piece parented to the bone it follows.

#![allow(dead_code)] // Each test file uses the part it needs.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A GLB split into its JSON document and its BIN chunk.
pub struct Glb {
    pub json: Value,
    pub bin: Vec<u8>,
}

pub fn read_glb(path: &Path) -> Glb {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json: Value = serde_json::from_slice(&b[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin_len = u32_at(bin_at);
    Glb {
        json,
        bin: b[bin_at + 8..bin_at + 8 + bin_len].to_vec(),
    }
}

pub fn write_glb(glb: &Glb, path: &Path) {
    let mut text = serde_json::to_vec(&glb.json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut bin = glb.bin.clone();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + 8 + text.len() + 8 + bin.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    std::fs::write(path, out).unwrap();
}

/// Byte offset and count of a tightly packed float accessor (no sparse data).
fn float_accessor(glb: &Glb, accessor: usize, components: usize) -> (usize, usize) {
    let a = &glb.json["accessors"][accessor];
    assert_eq!(a["componentType"], 5126, "float accessor");
    assert!(a.get("sparse").is_none());
    let view = &glb.json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    if let Some(stride) = view.get("byteStride") {
        assert_eq!(stride.as_u64().unwrap() as usize, 4 * components);
    }
    let offset = view["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0);
    (offset as usize, a["count"].as_u64().unwrap() as usize)
}

fn f32_at(bin: &[u8], o: usize) -> f32 {
    f32::from_le_bytes(bin[o..o + 4].try_into().unwrap())
}

/// Adds `per_cycle * t / duration` (the node's parent space, units of the file) to the
/// translation keys of `node` in animation `animation`: at the loop point the node is
/// `per_cycle` from where the cycle started. The keys get their own copy of the data
/// (other channels may share the accessor).
pub fn add_drift(glb: &mut Glb, animation: &str, node: usize, per_cycle: [f32; 3]) {
    edit_translation(glb, animation, node, |t, duration, _, v| {
        let mut out = v;
        for c in 0..3 {
            out[c] += per_cycle[c] * t / duration;
        }
        out
    });
}

/// Pins the node's horizontal (X, Z of its parent space) translation to its first key:
/// a clip exported "in place", as Mixamo does on request.
pub fn pin_in_place(glb: &mut Glb, animation: &str, node: usize) {
    edit_translation(glb, animation, node, |_, _, first, v| {
        [first[0], v[1], first[2]]
    });
}

/// Removes every animation's `extras` (where the sync markers live): clips whose
/// markers must be detected from the feet.
pub fn strip_markers(glb: &mut Glb) {
    for a in glb.json["animations"].as_array_mut().unwrap() {
        if let Some(o) = a.as_object_mut() {
            o.remove("extras");
        }
    }
}

/// Rewrites the translation keys of `node` in `animation` with
/// `f(time, duration, first key, key)`, into a fresh accessor and sampler.
fn edit_translation(
    glb: &mut Glb,
    animation: &str,
    node: usize,
    f: impl Fn(f32, f32, [f32; 3], [f32; 3]) -> [f32; 3],
) {
    let anims = glb.json["animations"].as_array().unwrap().clone();
    let (ai, anim) = anims
        .iter()
        .enumerate()
        .find(|(_, a)| a["name"] == animation)
        .unwrap_or_else(|| panic!("no animation '{animation}'"));
    let channel = anim["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"] == node && c["target"]["path"] == "translation")
        .unwrap_or_else(|| panic!("'{animation}' does not translate node {node}"));
    let sampler = &anim["samplers"][channel["sampler"].as_u64().unwrap() as usize];
    assert_ne!(sampler["interpolation"], "CUBICSPLINE");
    let (t_at, count) = float_accessor(glb, sampler["input"].as_u64().unwrap() as usize, 1);
    let (v_at, v_count) = float_accessor(glb, sampler["output"].as_u64().unwrap() as usize, 3);
    assert_eq!(count, v_count);
    let times: Vec<f32> = (0..count).map(|i| f32_at(&glb.bin, t_at + 4 * i)).collect();
    // The channel's last key: the loop point when (as in the shared files) every
    // channel of the clip ends together.
    let duration = times.iter().copied().fold(0.0f32, f32::max);
    let key = |i: usize| -> [f32; 3] { [0, 1, 2].map(|c| f32_at(&glb.bin, v_at + 12 * i + 4 * c)) };
    let first = key(0);
    let mut values: Vec<u8> = Vec::with_capacity(12 * count);
    for (i, &t) in times.iter().enumerate() {
        for v in f(t, duration, first, key(i)) {
            values.extend_from_slice(&v.to_le_bytes());
        }
    }
    while !glb.bin.len().is_multiple_of(4) {
        glb.bin.push(0);
    }
    let offset = glb.bin.len();
    glb.bin.extend_from_slice(&values);
    let views = glb.json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": values.len()}));
    let view = views.len() - 1;
    let old = glb.json["accessors"][sampler["output"].as_u64().unwrap() as usize].clone();
    let accessors = glb.json["accessors"].as_array_mut().unwrap();
    let mut copy = old;
    copy["bufferView"] = json!(view);
    copy["byteOffset"] = json!(0);
    if let Some(o) = copy.as_object_mut() {
        o.remove("min");
        o.remove("max");
    }
    accessors.push(copy);
    let accessor = accessors.len() - 1;
    let s = channel["sampler"].as_u64().unwrap() as usize;
    // A fresh sampler, so that channels sharing the old one keep their keys.
    let samplers = glb.json["animations"][ai]["samplers"]
        .as_array_mut()
        .unwrap();
    let mut fresh = samplers[s].clone();
    fresh["output"] = json!(accessor);
    samplers.push(fresh);
    let new_sampler = samplers.len() - 1;
    for c in glb.json["animations"][ai]["channels"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
    {
        if c["target"]["node"] == node && c["target"]["path"] == "translation" {
            c["sampler"] = json!(new_sampler);
        }
    }
    glb.json["buffers"][0]["byteLength"] = json!(glb.bin.len());
}

/// Puts the default scene's root nodes under a new node scaled by `k`.
pub fn wrap_scale(glb: &mut Glb, k: f32) {
    let scene = glb.json["scene"].as_u64().unwrap_or(0) as usize;
    let roots = glb.json["scenes"][scene]["nodes"].clone();
    let nodes = glb.json["nodes"].as_array_mut().unwrap();
    nodes.push(json!({"name": "export_scale", "scale": [k, k, k], "children": roots}));
    let wrapper = nodes.len() - 1;
    glb.json["scenes"][scene]["nodes"] = json!([wrapper]);
}

/// A fresh temporary folder for one test's files.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stridescope-messy-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Index of the node named `name` that has (`with_mesh`) or lacks a mesh.
pub fn node_named(glb: &Glb, name: &str, with_mesh: bool) -> usize {
    glb.json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == name && n.get("mesh").is_some() == with_mesh)
        .unwrap_or_else(|| panic!("no node '{name}' (mesh: {with_mesh})"))
}

/// Moves `node` from its parent's children to `new_parent`'s, keeping its local
/// transform (a mesh piece exported as a child of the bone it follows).
pub fn reparent(glb: &mut Glb, node: usize, new_parent: usize) {
    for n in glb.json["nodes"].as_array_mut().unwrap() {
        if let Some(children) = n.get_mut("children").and_then(Value::as_array_mut) {
            children.retain(|c| c.as_u64() != Some(node as u64));
        }
    }
    let scene = glb.json["scene"].as_u64().unwrap_or(0) as usize;
    if let Some(roots) = glb.json["scenes"][scene]["nodes"].as_array_mut() {
        roots.retain(|c| c.as_u64() != Some(node as u64));
    }
    let parent = &mut glb.json["nodes"][new_parent];
    match parent.get_mut("children").and_then(Value::as_array_mut) {
        Some(children) => children.push(json!(node)),
        None => parent["children"] = json!([node]),
    }
}
