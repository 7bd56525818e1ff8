//! The built-in demo character: deterministic bytes, the committed copy, and its content
//! read back with the `gltf` crate (skeleton, skinned mesh, clips, root motion, foot
//! contacts).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use gltf::animation::util::ReadOutputs;
use stridescope::anim::RootMotionSource;
use stridescope::asset::demo::{demo_glb, write_demo, DEMO_PATH};

const JOINT_NAMES: [&str; 23] = [
    "root",
    "pelvis",
    "spine_01",
    "spine_02",
    "spine_03",
    "neck",
    "head",
    "clavicle_l",
    "upperarm_l",
    "lowerarm_l",
    "hand_l",
    "clavicle_r",
    "upperarm_r",
    "lowerarm_r",
    "hand_r",
    "thigh_l",
    "calf_l",
    "foot_l",
    "toe_l",
    "thigh_r",
    "calf_r",
    "foot_r",
    "toe_r",
];

/// (child, parent) pairs of the hierarchy the SPEC asks for.
const HIERARCHY: [(&str, &str); 22] = [
    ("pelvis", "root"),
    ("spine_01", "pelvis"),
    ("spine_02", "spine_01"),
    ("spine_03", "spine_02"),
    ("neck", "spine_03"),
    ("head", "neck"),
    ("clavicle_l", "spine_03"),
    ("upperarm_l", "clavicle_l"),
    ("lowerarm_l", "upperarm_l"),
    ("hand_l", "lowerarm_l"),
    ("clavicle_r", "spine_03"),
    ("upperarm_r", "clavicle_r"),
    ("lowerarm_r", "upperarm_r"),
    ("hand_r", "lowerarm_r"),
    ("thigh_l", "pelvis"),
    ("calf_l", "thigh_l"),
    ("foot_l", "calf_l"),
    ("toe_l", "foot_l"),
    ("thigh_r", "pelvis"),
    ("calf_r", "thigh_r"),
    ("foot_r", "calf_r"),
    ("toe_r", "foot_r"),
];

/// Clip names and durations (seconds).
const CLIPS: [(&str, f32); 5] = [
    ("Idle", 2.0),
    ("Walk", 1.1),
    ("Run", 0.7),
    ("TurnWalk", 1.1),
    ("Wave", 2.0),
];
const LOCOMOTION: [&str; 3] = ["Walk", "Run", "TurnWalk"];
const WALK_DISTANCE_M: f32 = 1.4;
const RUN_DISTANCE_M: f32 = 3.5;
const TURN_DEG: f32 = 30.0;
/// Ankle height of a flat foot.
const ANKLE_HEIGHT_M: f32 = 0.085;

fn committed_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO_PATH)
}

/// Regenerates the committed asset: `cargo test --test demo -- --ignored regenerate`
/// (the CLI's `make-demo` does the same). `STRIDESCOPE_DEMO_OUT` redirects the output.
#[test]
#[ignore]
fn regenerate_committed_demo() {
    let path = std::env::var_os("STRIDESCOPE_DEMO_OUT").map_or_else(committed_path, PathBuf::from);
    write_demo(&path).expect("write the demo");
}

// ---------------------------------------------------------------------------------------
// Reading the file back

struct Demo {
    doc: gltf::Document,
    buffers: Vec<gltf::buffer::Data>,
}

fn demo() -> Demo {
    let (doc, buffers, _images) =
        gltf::import_slice(demo_glb()).expect("the demo imports with the gltf crate");
    Demo { doc, buffers }
}

/// A clip's keys: times and per-node outputs.
struct Keys {
    times: Vec<f32>,
    translations: HashMap<usize, Vec<Vec3>>,
    rotations: HashMap<usize, Vec<Quat>>,
}

impl Demo {
    fn node(&self, name: &str) -> usize {
        self.doc
            .nodes()
            .find(|n| n.name() == Some(name))
            .unwrap_or_else(|| panic!("node {name}"))
            .index()
    }

    fn animation(&self, name: &str) -> gltf::Animation<'_> {
        self.doc
            .animations()
            .find(|a| a.name() == Some(name))
            .unwrap_or_else(|| panic!("animation {name}"))
    }

    fn keys(&self, clip: &str) -> Keys {
        let mut keys = Keys {
            times: Vec::new(),
            translations: HashMap::new(),
            rotations: HashMap::new(),
        };
        for channel in self.animation(clip).channels() {
            assert_eq!(
                channel.sampler().interpolation(),
                gltf::animation::Interpolation::Linear,
                "{clip}"
            );
            let reader = channel.reader(|b| Some(&self.buffers[b.index()]));
            let times: Vec<f32> = reader.read_inputs().expect("inputs").collect();
            if keys.times.is_empty() {
                keys.times = times.clone();
            }
            assert_eq!(
                times, keys.times,
                "{clip}: all channels share the key times"
            );
            let node = channel.target().node().index();
            match reader.read_outputs().expect("outputs") {
                ReadOutputs::Translations(t) => {
                    keys.translations.insert(node, t.map(Vec3::from).collect());
                }
                ReadOutputs::Rotations(r) => {
                    keys.rotations
                        .insert(node, r.into_f32().map(Quat::from_array).collect());
                }
                _ => panic!("{clip}: only translation and rotation channels are expected"),
            }
        }
        keys
    }

    fn extras(&self, clip: &str) -> Option<serde_json::Value> {
        self.animation(clip)
            .extras()
            .as_ref()
            .map(|raw| serde_json::from_str(raw.get()).expect("extras are JSON"))
    }

    fn parents(&self) -> Vec<Option<usize>> {
        let mut parents = vec![None; self.doc.nodes().len()];
        for node in self.doc.nodes() {
            for child in node.children() {
                parents[child.index()] = Some(node.index());
            }
        }
        parents
    }

    /// Model-space matrices of every node at key `k` of `keys` (rest TRS where a channel
    /// is missing); `None` gives the bind pose.
    fn model_matrices(&self, keys: Option<&Keys>, k: usize) -> Vec<Mat4> {
        let parents = self.parents();
        let local: Vec<Mat4> = self
            .doc
            .nodes()
            .map(|node| {
                let (t, r, s) = node.transform().decomposed();
                let i = node.index();
                let t = keys
                    .and_then(|c| c.translations.get(&i))
                    .map_or(Vec3::from(t), |v| v[k]);
                let r = keys
                    .and_then(|c| c.rotations.get(&i))
                    .map_or(Quat::from_array(r), |v| v[k]);
                Mat4::from_scale_rotation_translation(Vec3::from(s), r, t)
            })
            .collect();
        fn resolve(
            i: usize,
            parents: &[Option<usize>],
            local: &[Mat4],
            out: &mut Vec<Option<Mat4>>,
        ) -> Mat4 {
            if let Some(m) = out[i] {
                return m;
            }
            let m = match parents[i] {
                Some(p) => resolve(p, parents, local, out) * local[i],
                None => local[i],
            };
            out[i] = Some(m);
            m
        }
        let mut out = vec![None; local.len()];
        (0..local.len())
            .map(|i| resolve(i, &parents, &local, &mut out))
            .collect()
    }
}

fn yaw_of(q: Quat) -> f32 {
    let f = q * Vec3::Z;
    f.x.atan2(f.z)
}

fn duration_of(name: &str) -> f32 {
    CLIPS.iter().find(|c| c.0 == name).expect("clip").1
}

// ---------------------------------------------------------------------------------------
// Bytes

#[test]
fn bytes_are_deterministic_and_match_the_committed_asset() {
    let bytes = demo_glb();
    assert!(
        bytes == demo_glb(),
        "demo_glb() must return identical bytes on every call"
    );
    let committed = std::fs::read(committed_path()).unwrap_or_else(|e| {
        panic!("{DEMO_PATH} is missing ({e}): run `cargo run -- make-demo` to regenerate it")
    });
    assert!(
        committed == bytes,
        "{DEMO_PATH} ({} bytes) differs from demo_glb() ({} bytes): run `cargo run -- make-demo` to regenerate it",
        committed.len(),
        bytes.len()
    );
}

#[test]
fn glb_container_is_well_formed() {
    let bytes = demo_glb();
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
    assert_eq!(&bytes[0..4], b"glTF");
    assert_eq!(u32_at(4), 2, "version");
    assert_eq!(u32_at(8) as usize, bytes.len(), "total length");
    let json_len = u32_at(12) as usize;
    assert_eq!(&bytes[16..20], b"JSON");
    assert_eq!(json_len % 4, 0);
    let json = &bytes[20..20 + json_len];
    let bin_header = 20 + json_len;
    let bin_len = u32_at(bin_header) as usize;
    assert_eq!(&bytes[bin_header + 4..bin_header + 8], b"BIN\0");
    assert_eq!(bin_len % 4, 0);
    assert_eq!(bin_header + 8 + bin_len, bytes.len());
    // JSON padding is spaces.
    let text = std::str::from_utf8(json).expect("utf-8");
    let value: serde_json::Value =
        serde_json::from_str(text.trim_end_matches(' ')).expect("JSON chunk parses");
    assert_eq!(value["asset"]["generator"], "stridescope make-demo");
    assert_eq!(value["asset"]["version"], "2.0");
    assert_eq!(
        value["buffers"][0]["byteLength"].as_u64(),
        Some(bin_len as u64)
    );
    // Every buffer view starts 4-byte aligned; vertex and index data carry targets.
    for view in value["bufferViews"].as_array().expect("views") {
        assert_eq!(
            view["byteOffset"].as_u64().expect("offset") % 4,
            0,
            "{view}"
        );
    }
    let gltf = gltf::Gltf::from_slice(&bytes).expect("gltf crate parses the GLB");
    let prim = gltf
        .meshes()
        .next()
        .expect("mesh")
        .primitives()
        .next()
        .expect("primitive");
    for (_, accessor) in prim.attributes() {
        let view = accessor.view().expect("view");
        assert_eq!(view.target(), Some(gltf::buffer::Target::ArrayBuffer));
    }
    let indices = prim.indices().expect("indexed");
    assert_eq!(
        indices.view().expect("view").target(),
        Some(gltf::buffer::Target::ElementArrayBuffer)
    );
}

// ---------------------------------------------------------------------------------------
// Skeleton and mesh

#[test]
fn skeleton_has_the_named_joints_and_hierarchy() {
    let d = demo();
    let skins: Vec<_> = d.doc.skins().collect();
    assert_eq!(skins.len(), 1, "one skin");
    let skin = &skins[0];
    let names: Vec<&str> = skin
        .joints()
        .map(|j| j.name().expect("joint name"))
        .collect();
    assert_eq!(names, JOINT_NAMES);
    assert_eq!(skin.skeleton().map(|n| n.index()), Some(d.node("root")));
    let parents = d.parents();
    for (child, parent) in HIERARCHY {
        assert_eq!(
            parents[d.node(child)],
            Some(d.node(parent)),
            "{child}'s parent"
        );
    }
    // One scene: the skeleton root and a separate mesh node at identity.
    let scene = d.doc.default_scene().expect("default scene");
    let roots: Vec<_> = scene.nodes().collect();
    assert_eq!(roots.len(), 2);
    assert_eq!(roots[0].index(), d.node("root"));
    let body = &roots[1];
    assert!(
        body.mesh().is_some() && body.skin().is_some(),
        "the mesh node is skinned"
    );
    assert_eq!(body.transform().matrix(), Mat4::IDENTITY.to_cols_array_2d());
    // Proportions: pelvis ~0.95 m, head top ~1.8 m, left is +X, root on the ground.
    let bind = d.model_matrices(None, 0);
    let at = |name: &str| bind[d.node(name)].w_axis.truncate();
    assert_eq!(at("root"), Vec3::ZERO);
    assert!(
        (at("pelvis").y - 0.95).abs() < 0.03,
        "pelvis {}",
        at("pelvis")
    );
    assert!(at("upperarm_l").x > 0.1 && at("upperarm_r").x < -0.1);
    assert!(at("thigh_l").x > 0.0 && at("thigh_r").x < 0.0);
    assert!(at("toe_l").z > at("foot_l").z, "feet point along +Z");
}

#[test]
fn inverse_bind_matrices_invert_the_bind_pose() {
    let d = demo();
    let skin = d.doc.skins().next().expect("skin");
    let reader = skin.reader(|b| Some(&d.buffers[b.index()]));
    let ibms: Vec<Mat4> = reader
        .read_inverse_bind_matrices()
        .expect("inverse bind matrices")
        .map(|m| Mat4::from_cols_array_2d(&m))
        .collect();
    let bind = d.model_matrices(None, 0);
    for (joint, ibm) in skin.joints().zip(&ibms) {
        let product = bind[joint.index()] * *ibm;
        assert!(
            product.abs_diff_eq(Mat4::IDENTITY, 1e-6),
            "{}: bind * inverse bind = {product}",
            joint.name().unwrap_or("?")
        );
    }
}

#[test]
fn mesh_is_a_skinned_person_with_normalised_weights() {
    let d = demo();
    let meshes: Vec<_> = d.doc.meshes().collect();
    assert_eq!(meshes.len(), 1);
    let prims: Vec<_> = meshes[0].primitives().collect();
    assert_eq!(prims.len(), 1);
    let prim = &prims[0];
    assert_eq!(prim.mode(), gltf::mesh::Mode::Triangles);
    let reader = prim.reader(|b| Some(&d.buffers[b.index()]));
    let positions: Vec<Vec3> = reader
        .read_positions()
        .expect("positions")
        .map(Vec3::from)
        .collect();
    let normals: Vec<Vec3> = reader
        .read_normals()
        .expect("normals")
        .map(Vec3::from)
        .collect();
    let joints: Vec<[u16; 4]> = reader
        .read_joints(0)
        .expect("JOINTS_0")
        .into_u16()
        .collect();
    let weights: Vec<[f32; 4]> = reader
        .read_weights(0)
        .expect("WEIGHTS_0")
        .into_f32()
        .collect();
    let indices: Vec<u32> = reader.read_indices().expect("indices").into_u32().collect();
    let n = positions.len();
    assert!((2000..=6000).contains(&n), "{n} vertices");
    assert_eq!(normals.len(), n);
    assert_eq!(joints.len(), n);
    assert_eq!(weights.len(), n);
    assert_eq!(indices.len() % 3, 0);
    assert!(indices.iter().all(|&i| (i as usize) < n));

    let (min, max) = positions
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), &p| {
            (lo.min(p), hi.max(p))
        });
    assert!(min.y.abs() < 1e-3, "feet on the ground: min y {}", min.y);
    assert!((1.75..=1.85).contains(&max.y), "height {}", max.y);
    assert!(
        max.x - min.x < 0.7 && max.z - min.z < 0.5,
        "extent {min} .. {max}"
    );
    let bounds = prim.bounding_box();
    assert_eq!(Vec3::from(bounds.min), min, "POSITION min");
    assert_eq!(Vec3::from(bounds.max), max, "POSITION max");

    let joint_count = d.doc.skins().next().expect("skin").joints().count();
    let mut influences_per_joint = vec![0usize; joint_count];
    let mut multi = 0;
    for i in 0..n {
        assert!((normals[i].length() - 1.0).abs() < 1e-4, "normal {i}");
        let sum: f32 = weights[i].iter().sum();
        assert!(
            (sum - 1.0).abs() < 1e-3,
            "vertex {i}: weights {:?} sum {sum}",
            weights[i]
        );
        assert!(weights[i].iter().all(|&w| w >= 0.0));
        for (j, w) in joints[i].iter().zip(weights[i]) {
            assert!((*j as usize) < joint_count);
            if w > 0.0 {
                influences_per_joint[*j as usize] += 1;
            } else {
                assert_eq!(*j, 0, "unused influence slots point at joint 0");
            }
        }
        if weights[i].iter().filter(|&&w| w > 0.0).count() >= 2 {
            multi += 1;
        }
    }
    // Every joint except the root (and the pelvis-free toes are fine) drives vertices,
    // and joints blend: a good share of vertices has two or more influences.
    for (j, name) in JOINT_NAMES.iter().enumerate().skip(1) {
        assert!(influences_per_joint[j] > 0, "{name} drives no vertex");
    }
    assert!(multi > n / 5, "only {multi} of {n} vertices blend joints");

    // Normals point outwards: the nose (front of the head) faces +Z.
    let nose = positions
        .iter()
        .enumerate()
        .filter(|(_, p)| p.y > 1.6)
        .max_by(|a, b| a.1.z.total_cmp(&b.1.z))
        .expect("head vertices");
    assert!(normals[nose.0].z > 0.5, "nose normal {}", normals[nose.0]);

    let material = prim.material();
    let color = material.pbr_metallic_roughness().base_color_factor();
    assert!(
        color[..3].iter().all(|&c| c > 0.05 && c < 0.95) && color[3] == 1.0,
        "{color:?}"
    );
    assert_eq!(d.doc.materials().count(), 1);
}

// ---------------------------------------------------------------------------------------
// Clips

#[test]
fn clips_have_the_expected_names_durations_and_keys() {
    let d = demo();
    let names: Vec<&str> = d
        .doc
        .animations()
        .map(|a| a.name().expect("name"))
        .collect();
    assert_eq!(names, CLIPS.map(|c| c.0));
    for (name, duration) in CLIPS {
        let keys = d.keys(name);
        let last = *keys.times.last().expect("keys");
        assert!((last - duration).abs() < 1e-5, "{name}: duration {last}");
        for (i, &t) in keys.times.iter().enumerate() {
            assert!(
                (t - i as f32 / 30.0).abs() < 1e-6,
                "{name}: key {i} at {t} is not on the 30 Hz grid"
            );
        }
        for (node, rotations) in &keys.rotations {
            for (k, q) in rotations.iter().enumerate() {
                assert!(
                    (q.length() - 1.0).abs() < 1e-5,
                    "{name}: node {node} key {k} |q| = {}",
                    q.length()
                );
            }
        }
    }
}

#[test]
fn cyclic_clips_end_in_their_first_pose_except_for_root_motion() {
    let d = demo();
    let root = d.node("root");
    for name in ["Idle", "Walk", "Run", "TurnWalk"] {
        let keys = d.keys(name);
        let last = keys.times.len() - 1;
        assert!(
            keys.rotations.len() >= JOINT_NAMES.len() - 1,
            "{name}: the whole body is animated"
        );
        for (node, r) in &keys.rotations {
            if *node != root {
                assert!(
                    r[0].dot(r[last]).abs() > 1.0 - 1e-6,
                    "{name}: node {node} rotation does not close the cycle"
                );
            }
        }
        for (node, t) in &keys.translations {
            if *node != root {
                assert!(
                    t[0].abs_diff_eq(t[last], 1e-6),
                    "{name}: node {node} translation does not close the cycle"
                );
            }
        }
    }
    // Idle stays put.
    let idle = d.keys("Idle");
    assert!(
        idle.translations[&root].iter().all(|t| *t == Vec3::ZERO),
        "Idle root travels"
    );
    assert!(
        idle.rotations[&root]
            .iter()
            .all(|r| r.abs_diff_eq(Quat::IDENTITY, 0.0)),
        "Idle root turns"
    );
}

#[test]
fn walk_and_run_root_moves_forward_at_a_variable_speed() {
    let d = demo();
    let root = d.node("root");
    for (name, distance) in [("Walk", WALK_DISTANCE_M), ("Run", RUN_DISTANCE_M)] {
        let keys = d.keys(name);
        let track = &keys.translations[&root];
        let travel = *track.last().expect("keys") - track[0];
        assert!(
            travel.abs_diff_eq(Vec3::new(0.0, 0.0, distance), 1e-5),
            "{name}: root travels {travel} per cycle, expected {distance} m along +Z"
        );
        let mut speeds = Vec::new();
        for (k, w) in track.windows(2).enumerate() {
            assert!(w[1].z >= w[0].z, "{name}: root moves backwards at key {k}");
            assert!(
                w[1].x == 0.0 && w[1].y == 0.0,
                "{name}: root leaves the +Z line"
            );
            speeds.push((w[1].z - w[0].z) * 30.0);
        }
        for r in &keys.rotations[&root] {
            assert!(
                r.abs_diff_eq(Quat::IDENTITY, 1e-6),
                "{name}: the root does not turn"
            );
        }
        let (slow, fast) = speeds
            .iter()
            .fold((f32::MAX, 0.0f32), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        let mean = distance / duration_of(name);
        assert!(
            slow > 0.5 * mean && fast < 1.6 * mean,
            "{name}: speeds {slow}..{fast} m/s"
        );
        assert!(
            fast > 1.3 * slow,
            "{name}: root speed should vary visibly, got {slow}..{fast} m/s"
        );
    }
}

#[test]
fn turn_walk_root_yaws_thirty_degrees_per_cycle_along_an_arc() {
    let d = demo();
    let root = d.node("root");
    let keys = d.keys("TurnWalk");
    let (translations, rotations) = (&keys.translations[&root], &keys.rotations[&root]);
    let last = rotations.len() - 1;
    let turn = TURN_DEG.to_radians();
    let yaw = yaw_of(rotations[last]) - yaw_of(rotations[0]);
    assert!(
        (yaw - turn).abs() < 1e-4,
        "yaw per cycle {} deg",
        yaw.to_degrees()
    );
    // Pure yaw, turning monotonically.
    for (k, r) in rotations.iter().enumerate() {
        let axis = r.xyz();
        assert!(
            axis.x.abs() < 1e-6 && axis.z.abs() < 1e-6,
            "key {k} is not a pure yaw"
        );
        if k > 0 {
            assert!(
                yaw_of(*r) >= yaw_of(rotations[k - 1]),
                "yaw goes back at key {k}"
            );
        }
    }
    // The path is the arc of length 1.4 m that turns 30 degrees: every key lies on the
    // circle and heads along its tangent.
    let radius = WALK_DISTANCE_M / turn;
    let center = Vec3::new(radius, 0.0, 0.0);
    for (k, (p, r)) in translations.iter().zip(rotations).enumerate() {
        assert!(
            ((*p - center).length() - radius).abs() < 1e-4,
            "key {k} at {p} is off the arc"
        );
        let tangent = (*p - center).cross(Vec3::Y).normalize() * -1.0;
        let heading = *r * Vec3::Z;
        assert!(
            heading.dot(tangent) > 1.0 - 1e-5,
            "key {k}: heading {heading} vs path {tangent}"
        );
    }
    let end = translations[last] - translations[0];
    let expected = Vec3::new(radius * (1.0 - turn.cos()), 0.0, radius * turn.sin());
    assert!(
        end.abs_diff_eq(expected, 1e-4),
        "cycle displacement {end}, expected {expected}"
    );
}

#[test]
fn locomotion_markers_parse_and_wave_is_additive() {
    let d = demo();
    for name in LOCOMOTION {
        let extras = d
            .extras(name)
            .unwrap_or_else(|| panic!("{name} has extras"));
        let markers = extras["markers"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: markers array"));
        let duration = duration_of(name);
        let mut by_name = HashMap::new();
        let mut previous = 0.0f64;
        for m in markers {
            let marker_name = m["name"].as_str().expect("marker name");
            let time = m["time_secs"].as_f64().expect("marker time");
            assert!(
                (0.0..=duration as f64 + 1e-6).contains(&time),
                "{name}: {marker_name} at {time}"
            );
            assert!(time >= previous, "{name}: markers sorted by time");
            previous = time;
            by_name.insert(marker_name.to_string(), time);
        }
        let mut keys: Vec<&str> = by_name.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "left_foot_down",
                "left_foot_up",
                "right_foot_down",
                "right_foot_up"
            ],
            "{name}"
        );
        assert_eq!(
            by_name["left_foot_down"], 0.0,
            "{name}: left_foot_down is phase 0"
        );
        assert!(
            (by_name["right_foot_down"] - duration as f64 / 2.0).abs() < 1e-5,
            "{name}"
        );
    }
    assert!(d
        .extras("Idle")
        .and_then(|e| e.get("markers").cloned())
        .is_none());
    let wave = d.extras("Wave").expect("Wave extras");
    assert_eq!(wave["additive"], true);
    // Its reference pose (first key) is the rest pose, and it ends there too.
    let keys = d.keys("Wave");
    assert!(keys.translations.is_empty());
    for (node, r) in &keys.rotations {
        let rest = Quat::from_array(
            d.doc
                .nodes()
                .nth(*node)
                .expect("node")
                .transform()
                .decomposed()
                .1,
        );
        assert!(
            r[0].abs_diff_eq(rest, 1e-7) && r[r.len() - 1].abs_diff_eq(rest, 1e-7),
            "node {node}"
        );
    }
    // The waving arm really moves: the right hand rises above the head.
    let hand = d.node("hand_r");
    let head_top = 1.7;
    let highest = (0..keys.times.len())
        .map(|k| d.model_matrices(Some(&keys), k)[hand].w_axis.y)
        .fold(0.0f32, f32::max);
    assert!(highest > head_top, "right hand peaks at {highest} m");
}

/// Phase of a foot within its stance (0 at contact, 1 at lift-off), if it is down.
fn stance_progress(t: f32, down: f32, up: f32, duration: f32) -> Option<f32> {
    let stance = (up - down).rem_euclid(duration);
    let since = (t - down).rem_euclid(duration);
    (since < stance).then(|| since / stance)
}

#[test]
fn planted_feet_stay_put_and_stay_above_the_ground() {
    let d = demo();
    for name in LOCOMOTION {
        let keys = d.keys(name);
        let extras = d.extras(name).expect("extras");
        let marker = |m: &str| {
            extras["markers"]
                .as_array()
                .expect("markers")
                .iter()
                .find(|x| x["name"] == m)
                .and_then(|x| x["time_secs"].as_f64())
                .expect("marker") as f32
        };
        let duration = duration_of(name);
        let poses: Vec<Vec<Mat4>> = (0..keys.times.len())
            .map(|k| d.model_matrices(Some(&keys), k))
            .collect();
        for side in ["l", "r"] {
            let foot = d.node(&format!("foot_{side}"));
            let long = if side == "l" { "left" } else { "right" };
            let (down, up) = (
                marker(&format!("{long}_foot_down")),
                marker(&format!("{long}_foot_up")),
            );
            // Keys where the foot is flat on the ground: after the heel roll (the first
            // 10-15 % of the stance), before the heel rises (the last half).
            let flat: Vec<Vec3> = keys
                .times
                .iter()
                .enumerate()
                .filter(|(_, &t)| {
                    stance_progress(t, down, up, duration)
                        .is_some_and(|q| (0.12..=0.48).contains(&q))
                })
                .map(|(k, _)| poses[k][foot].w_axis.truncate())
                .collect();
            assert!(
                flat.len() >= 2,
                "{name} {side}: {} flat-foot keys",
                flat.len()
            );
            for p in &flat {
                assert!(
                    p.distance(flat[0]) < 2e-3,
                    "{name} {side}: planted foot slides from {} to {p}",
                    flat[0]
                );
                assert!(
                    (p.y - ANKLE_HEIGHT_M).abs() < 2e-3,
                    "{name} {side}: planted ankle at height {}",
                    p.y
                );
            }
            for (k, pose) in poses.iter().enumerate() {
                let ankle = pose[foot].w_axis.truncate();
                assert!(
                    ankle.y > ANKLE_HEIGHT_M - 2e-3,
                    "{name} {side}: ankle below the ground at key {k}: {ankle}"
                );
            }
        }
    }
}

#[test]
fn walk_swings_the_arms_against_the_legs() {
    let d = demo();
    let keys = d.keys("Walk");
    let root = d.node("root");
    let local_z = |k: usize, name: &str| {
        let m = d.model_matrices(Some(&keys), k);
        (m[root].inverse() * m[d.node(name)]).w_axis.z
    };
    let half = keys.times.len() / 2;
    // Phase 0: left heel strike, left foot forward, left hand back; half a cycle later the
    // other way round.
    assert!(local_z(0, "foot_l") > local_z(0, "foot_r") + 0.4);
    assert!(local_z(0, "hand_r") > local_z(0, "hand_l") + 0.15);
    assert!(local_z(half, "foot_r") > local_z(half, "foot_l") + 0.4);
    assert!(local_z(half, "hand_l") > local_z(half, "hand_r") + 0.15);
}

// ---------------------------------------------------------------------------------------
// The project's own importer

#[test]
fn imports_through_the_project_loader() {
    let model = stridescope::asset::load_from_slice(&demo_glb(), Path::new(DEMO_PATH))
        .expect("the demo imports");
    // Every scene node is a skeleton joint: the 23 skin joints and the mesh node.
    assert_eq!(model.skeleton.joint_count(), JOINT_NAMES.len() + 1);
    for name in JOINT_NAMES {
        assert!(model.skeleton.find(name).is_some(), "joint {name}");
    }
    assert_eq!(model.skins.len(), 1);
    assert_eq!(model.skins[0].joints.len(), JOINT_NAMES.len());
    assert_eq!(model.meshes.len(), 1);
    assert_eq!(model.meshes[0].skin, Some(0));
    assert!((2000..=6000).contains(&model.vertex_count()));
    assert!(model.warnings.is_empty(), "warnings: {:?}", model.warnings);

    let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
    assert_eq!(names, CLIPS.map(|c| c.0));
    for (name, duration) in CLIPS {
        let clip = &model.clips[model.find_clip(name).expect("clip")];
        assert!(
            (clip.duration_secs() - duration).abs() < 1e-5,
            "{name}: {}",
            clip.duration_secs()
        );
        assert_eq!(clip.is_additive(), name == "Wave", "{name}: additive flag");
        let markers: Vec<(&str, f32)> = clip
            .markers()
            .iter()
            .map(|m| (m.name.as_str(), m.time_secs))
            .collect();
        if LOCOMOTION.contains(&name) {
            assert_eq!(markers.len(), 4, "{name}: {markers:?}");
            assert_eq!(markers[0], ("left_foot_down", 0.0), "{name}");
            let right_down = markers
                .iter()
                .find(|m| m.0 == "right_foot_down")
                .expect("right_foot_down");
            assert!(
                (right_down.1 - duration / 2.0).abs() < 1e-5,
                "{name}: {markers:?}"
            );
        } else {
            assert!(markers.is_empty(), "{name}: {markers:?}");
        }
    }

    // The animation core finds the root joint and the per-cycle motion the clips carry.
    let root = model.skeleton.find("root").expect("root");
    for (name, distance, turn_deg) in [
        ("Idle", 0.0f32, 0.0f32),
        ("Walk", WALK_DISTANCE_M, 0.0),
        ("Run", RUN_DISTANCE_M, 0.0),
        ("TurnWalk", WALK_DISTANCE_M, TURN_DEG),
    ] {
        let clip = &model.clips[model.find_clip(name).expect("clip")];
        assert_eq!(
            RootMotionSource::detect(&model.skeleton, clip),
            Some(root),
            "{name}"
        );
        let motion = RootMotionSource::new(&model.skeleton, root)
            .and_then(|s| s.extract(clip, &model.skeleton.rest_pose()[root]))
            .expect("root motion");
        let cycle = motion.cycle_displacement();
        let turn = turn_deg.to_radians() as f64;
        assert!(
            (cycle.yaw_rad - turn).abs() < 1e-5,
            "{name}: yaw {}",
            cycle.yaw_rad.to_degrees()
        );
        // The chord of an arc of length `distance` that turns `turn`.
        let chord = if turn == 0.0 {
            distance as f64
        } else {
            2.0 * distance as f64 / turn * (turn / 2.0).sin()
        };
        assert!(
            (cycle.translation.length() - chord).abs() < 1e-5,
            "{name}: {}",
            cycle.translation
        );
    }
}
