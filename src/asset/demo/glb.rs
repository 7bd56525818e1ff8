//! Writing the demo as GLB bytes with [`super::super::glb_writer`]: nodes, skin, mesh,
//! material and animations with sorted keys.

use super::*;

// glTF binary

use crate::glb_writer::{
    nums, GlbBuilder, ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, UNSIGNED_BYTE, UNSIGNED_SHORT,
};

/// A JSON number from an `f32` (formatted by `ryu` from the exact `f64` value).
pub(super) fn num(x: f64) -> Value {
    Value::from(x as f32 as f64)
}

pub(super) fn vec3s(v: &[DVec3]) -> Vec<f32> {
    v.iter().flat_map(|p| p.as_vec3().to_array()).collect()
}

pub(super) fn write_glb(rig: &Rig, mesh: &MeshData, clips: &[ClipData]) -> Vec<u8> {
    let mut bin = GlbBuilder::default();

    // Mesh.
    let position = bin.floats(&vec3s(&mesh.positions), 3, "VEC3", Some(ARRAY_BUFFER), true);
    let normal = bin.floats(&vec3s(&mesh.normals), 3, "VEC3", Some(ARRAY_BUFFER), false);
    let joint_bytes: Vec<u8> = mesh.joints.iter().flatten().copied().collect();
    let joints = bin.accessor(
        &joint_bytes,
        Some(ARRAY_BUFFER),
        UNSIGNED_BYTE,
        mesh.joints.len(),
        "VEC4",
        None,
    );
    let weight_values: Vec<f32> = mesh.weights.iter().flatten().copied().collect();
    let weights = bin.floats(&weight_values, 4, "VEC4", Some(ARRAY_BUFFER), false);
    let index_bytes: Vec<u8> = mesh
        .indices
        .iter()
        .flat_map(|&i| (i as u16).to_le_bytes())
        .collect();
    let indices = bin.accessor(
        &index_bytes,
        Some(ELEMENT_ARRAY_BUFFER),
        UNSIGNED_SHORT,
        mesh.indices.len(),
        "SCALAR",
        None,
    );

    // Skin: bind rotations are identities, so each inverse bind matrix is a translation.
    let ibm: Vec<f32> = rig
        .bind
        .iter()
        .flat_map(|p| {
            let t = (-*p).as_vec3();
            [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t.x, t.y, t.z, 1.0,
            ]
        })
        .collect();
    let inverse_bind = bin.floats(&ibm, 16, "MAT4", None, false);

    // Nodes: the joints, then the mesh node (a scene root at identity).
    let mut nodes: Vec<Value> = JOINTS
        .iter()
        .enumerate()
        .map(|(j, def)| {
            let mut node = json!({ "name": def.name });
            let children: Vec<usize> = (0..JOINT_COUNT)
                .filter(|&c| JOINTS[c].parent == Some(j))
                .collect();
            if !children.is_empty() {
                node["children"] = json!(children);
            }
            if rig.offsets[j] != DVec3::ZERO {
                node["translation"] = nums(&rig.offsets[j].as_vec3().to_array());
            }
            node
        })
        .collect();
    let body_node = nodes.len();
    nodes.push(json!({ "name": "body", "mesh": 0, "skin": 0 }));

    // Animations: one input accessor per clip, one output accessor per channel.
    let animations: Vec<Value> = clips
        .iter()
        .map(|clip| {
            let times: Vec<f32> = (0..clip.key_count).map(|i| i as f32 / FPS as f32).collect();
            let input = bin.floats(&times, 1, "SCALAR", None, true);
            let mut samplers = Vec::new();
            let mut channels = Vec::new();
            let mut add = |node: usize, path: &str, output: usize| {
                channels.push(json!({
                    "sampler": samplers.len(),
                    "target": { "node": node, "path": path },
                }));
                samplers
                    .push(json!({ "input": input, "output": output, "interpolation": "LINEAR" }));
            };
            for j in 0..JOINT_COUNT {
                if let Some((_, keys)) = clip.translations.iter().find(|(k, _)| *k == j) {
                    let output = bin.floats(&vec3s(keys), 3, "VEC3", None, false);
                    add(j, "translation", output);
                }
                if let Some((_, keys)) = clip.rotations.iter().find(|(k, _)| *k == j) {
                    let values: Vec<f32> =
                        keys.iter().flat_map(|q| q.as_quat().to_array()).collect();
                    let output = bin.floats(&values, 4, "VEC4", None, false);
                    add(j, "rotation", output);
                }
            }
            let mut animation =
                json!({ "name": clip.name, "channels": channels, "samplers": samplers });
            if let Some(extras) = &clip.extras {
                animation["extras"] = extras.clone();
            }
            animation
        })
        .collect();

    let document = json!({
        "asset": { "version": "2.0", "generator": GENERATOR },
        "scene": 0,
        "scenes": [{ "name": "demo", "nodes": [ROOT, body_node] }],
        "nodes": nodes,
        "skins": [{
            "name": "demo_skin",
            "joints": (0..JOINT_COUNT).collect::<Vec<_>>(),
            "inverseBindMatrices": inverse_bind,
            "skeleton": ROOT,
        }],
        "meshes": [{
            "name": "body",
            "primitives": [{
                "attributes": { "POSITION": position, "NORMAL": normal, "JOINTS_0": joints, "WEIGHTS_0": weights },
                "indices": indices,
                "material": 0,
                "mode": 4,
            }],
        }],
        "materials": [{
            "name": "clay",
            "pbrMetallicRoughness": {
                "baseColorFactor": nums(&[0.62, 0.42, 0.3, 1.0]),
                "metallicFactor": 0.0,
                "roughnessFactor": 0.65,
            },
        }],
        "animations": animations,
    });

    bin.finish(document)
}
