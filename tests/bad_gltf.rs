//! The Khronos glTF-Validator corpus in ../shared/bad-gltf: every file loads or fails
//! with an error that names the file and the element, without panicking or hanging; and
//! the defects that would break sampling or skinning are errors naming the right element.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use stridescope::asset::{self, ImportError, Model};

const TIMEOUT: Duration = Duration::from_secs(10);

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bad-gltf")
}

fn corpus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            corpus_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "gltf" || e == "glb") {
            out.push(path);
        }
    }
}

/// Loads on a separate thread: a hang fails the test after `TIMEOUT`, a panic fails it too.
fn load_guarded(path: &Path) -> Result<Model, ImportError> {
    let (tx, rx) = mpsc::channel();
    let p = path.to_path_buf();
    let handle = std::thread::spawn(move || {
        let _ = tx.send(asset::load(&p));
    });
    match rx.recv_timeout(TIMEOUT) {
        Ok(result) => {
            handle.join().expect("loader thread");
            result
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{}: load did not finish within {TIMEOUT:?}", path.display())
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{}: the loader panicked", path.display())
        }
    }
}

fn rel(path: &Path) -> String {
    path.strip_prefix(corpus_dir())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn every_corpus_file_loads_or_fails_cleanly() {
    let mut files = Vec::new();
    corpus_files(&corpus_dir(), &mut files);
    assert!(files.len() >= 130, "corpus has {} files", files.len());
    let (mut ok, mut err) = (0, 0);
    let mut table = String::new();
    for path in &files {
        let started = Instant::now();
        let result = load_guarded(path);
        let elapsed = started.elapsed();
        let line = match &result {
            Ok(model) => {
                ok += 1;
                let warnings = if model.warnings.is_empty() {
                    String::new()
                } else {
                    format!(" | warnings: {}", model.warnings.join("; "))
                };
                format!("OK   {}{warnings}", rel(path))
            }
            Err(e) => {
                err += 1;
                let text = e.to_string();
                let file = path.display().to_string();
                assert!(
                    text.starts_with(&file),
                    "error does not start with the file path: {text}"
                );
                assert!(
                    text.len() > file.len() + 2 && !e.message.trim().is_empty(),
                    "empty error for {file}: {text}"
                );
                assert_eq!(e.file, *path);
                assert!(
                    !e.element.is_empty(),
                    "{file}: the error names no element: {text}"
                );
                assert!(
                    !text.contains("could not handle"),
                    "{file}: the generic fallback, not a named error: {text}"
                );
                let element = if e.element.is_empty() {
                    "-"
                } else {
                    &e.element
                };
                format!("ERR  {} | {element} | {}", rel(path), e.message)
            }
        };
        assert!(elapsed < TIMEOUT, "{}: took {elapsed:?}", rel(path));
        table.push_str(&line);
        table.push('\n');
    }
    eprintln!("{table}{} files: {ok} Ok, {err} Err", files.len());
    assert!(ok > 0 && err > 0);
}

/// Loads a corpus file and returns its error (the file must fail).
fn expect_err(file: &str) -> ImportError {
    let path = corpus_dir().join(file);
    match load_guarded(&path) {
        Ok(model) => panic!(
            "{file} loaded, expected an error (warnings: {:?})",
            model.warnings
        ),
        Err(e) => e,
    }
}

fn expect_ok(file: &str) -> Model {
    let path = corpus_dir().join(file);
    load_guarded(&path).unwrap_or_else(|e| panic!("{file} should load: {e}"))
}

fn assert_err(file: &str, element: &str, message_contains: &str) {
    let e = expect_err(file);
    assert_eq!(e.element, element, "{file}: wrong element in '{e}'");
    assert!(
        e.message.contains(message_contains),
        "{file}: message '{}' lacks '{message_contains}'",
        e.message
    );
}

#[test]
fn skin_defects_name_the_skin() {
    assert_err(
        "skin/no_common_root.gltf",
        "skin 0",
        "joint 1 (node 1) has no common root",
    );
    assert_err(
        "skin/ibm_invalid_count.gltf",
        "skin 2",
        "3 joints but only 2 inverse bind",
    );
    assert_err(
        "skin/ibm_invalid_format.gltf",
        "skin 0",
        "MAT3 FLOAT; expected MAT4 FLOAT",
    );
    assert_err(
        "skin_data/invalid_ibm.gltf",
        "skin 0",
        "inverse bind matrix 1 is not an affine",
    );
    assert_err(
        "skin/no_joints_in_scene.gltf",
        "skin 0",
        "joint 0 (node 0) is not in the scene",
    );
    assert_err(
        "skin/unresolved_joint.gltf",
        "skin 0",
        "joints[0] refers to an element",
    );
    assert_err(
        "skin/unresolved_ibm.gltf",
        "skin 0",
        "inverseBindMatrices refers to",
    );
    // Harmless for a runtime: a wrong `skeleton` hint, and transforms glTF says to ignore.
    let m = expect_ok("skin/skeleton_invalid.gltf");
    assert!(m
        .warnings
        .iter()
        .any(|w| w.contains("skin 0: its skeleton node 2")));
    expect_ok("skin/ignored_local_transform.gltf");
    // Valid structure, but the inverse bind matrices have no buffer view: all-zero matrices
    // would collapse every skinned vertex.
    assert_err(
        "skin/valid.gltf",
        "skin 0",
        "inverse bind matrix 0 is not an affine transform",
    );
}

#[test]
fn node_hierarchy_defects_name_the_node() {
    assert_err("node/node_loop.gltf", "node 0", "is part of a cycle");
    assert_err(
        "node/node_parent_override.gltf",
        "node 2",
        "has two parents (nodes 0 and 1)",
    );
    assert_err(
        "node/node_loop_scene.gltf",
        "node 4",
        "has two parents (nodes 3 and 5)",
    );
    assert_err(
        "scene/non_root_node.gltf",
        "scene 0",
        "lists node 1 as a root node",
    );
    assert_err("node/infinite_transform.gltf", "JSON", "");
    assert_err(
        "node/matrix_indecomposable.gltf",
        "node 0",
        "not an affine transform",
    );
    assert_err(
        "node/unresolved_child_node.gltf",
        "node 0",
        "children[0] refers to",
    );
    // Normalised with a note: a rotation that is merely not unit length.
    let m = expect_ok("node/rotation_non_unit.gltf");
    assert!(m
        .warnings
        .iter()
        .any(|w| w.starts_with("node 0: rotation is not unit length")));
    let q = m.skeleton.rest_pose()[0].rotation;
    assert!((q.length() - 1.0).abs() < 1e-6);
    assert!((q.x - 0.5).abs() < 1e-6 && (q.w - 0.5).abs() < 1e-6);
    let m = expect_ok("node/matrix_trs.gltf");
    assert!(m.warnings.iter().any(|w| w.contains("the matrix is used")));
    assert_eq!(
        m.skeleton.rest_pose()[0].scale,
        glam::Vec3::new(2.0, 1.0, 1.0)
    );
}

#[test]
fn animation_defects_name_the_channel() {
    assert_err(
        "animation_data/invalid_input_values.gltf",
        "animation 0 channel 0",
        "key time 0 is negative",
    );
    assert_err(
        "animation/sampler_too_few_cubic_frames.gltf",
        "animation 0 channel 0",
        "CUBICSPLINE interpolation with 1 key(s)",
    );
    assert_err(
        "animation/channel_duplicate_targets.gltf",
        "animation 0 channel 1",
        "channel 0 already animates",
    );
    assert_err(
        "animation/sampler_output_count_invalid.gltf",
        "animation 0 channel 0",
        "output values",
    );
    assert_err(
        "animation/sampler_output_format_invalid.gltf",
        "animation 0 channel 0",
        "VEC4 FLOAT; expected VEC3 FLOAT",
    );
    assert_err(
        "animation/sampler_input_format_invalid.gltf",
        "animation 0 channel 0",
        "SCALAR UNSIGNED_INT; expected SCALAR FLOAT",
    );
    assert_err(
        "animation/unresolved_channel_sampler.gltf",
        "animation 0 channel 0",
        "sampler refers to",
    );
    // The gltf crate does not validate channel targets (its wrapper would panic).
    assert_err(
        "animation/unresolved_channel_target.gltf",
        "animation 0 channel 0",
        "target.node 0 refers to a node that does not exist",
    );
    // Zero-filled key times (no buffer view): not increasing.
    assert_err(
        "animation_data/quaternion_non_unit_values.gltf",
        "animation 0 channel 0",
        "key times not increasing at key 1",
    );
    // Structurally valid for the validator, but its key times come from an accessor without
    // a buffer view, i.e. all zeros: a clip cannot be sampled from [0, 0].
    assert_err(
        "animation/valid.gltf",
        "animation 0 channel 0",
        "key times not increasing at key 1",
    );
    // Harmless for a runtime: TRS channels on a node that has a matrix, missing bounds,
    // custom properties, morph-weight channels (skipped with a warning).
    let m = expect_ok("animation/channel_node_matrix.gltf");
    assert_eq!(m.clips.len(), 1);
    expect_ok("animation/sampler_input_no_bounds.gltf");
    expect_ok("animation/custom_property.gltf");
    let m = expect_ok("animation/channel_node_no_morphs.gltf");
    assert!(m
        .warnings
        .iter()
        .any(|w| w.contains("morph-weight channel")));
}

#[test]
fn container_defects_name_the_glb() {
    assert_err(
        "glb/invalid_magic.glb",
        "GLB",
        "instead of the magic 'glTF'",
    );
    assert_err(
        "glb/invalid_version.glb",
        "GLB",
        "version 0 is not supported",
    );
    assert_err(
        "glb/truncated_chunk_data.glb",
        "GLB",
        "the file is truncated",
    );
    assert_err(
        "glb/chunk_too_big.glb",
        "GLB",
        "chunk header at byte 12 is truncated",
    );
    assert_err("glb/truncated_chunk_header.glb", "GLB", "is truncated");
    assert_err("glb/length_mismatch.glb", "GLB", "the file is truncated");
    assert_err("glb/only_header.glb", "GLB", "leaves no room");
    assert_err("glb/zero_length.glb", "GLB", "leaves no room");
    assert_err("glb/empty_file.glb", "GLB", "too short for a GLB header");
    assert_err("glb/empty_json_chunk.glb", "GLB", "JSON chunk is empty");
    assert_err(
        "glb/only_bin_chunk.glb",
        "GLB",
        "first chunk must be the JSON chunk",
    );
    assert_err("glb/json_and_two_buffers.glb", "GLB", "second BIN chunk");
    assert_err("glb/two_valid_json_chunks.glb", "GLB", "second JSON chunk");
    assert_err(
        "glb/misplaced_bin_chunk.glb",
        "GLB",
        "must directly follow the JSON chunk",
    );
    assert_err("glb/bom.glb", "JSON", "byte-order mark");
    assert_err("json/bom.gltf", "JSON", "byte-order mark");
    assert_err("json/invalid_syntax.gltf", "JSON", "line");
    assert_err(
        "json/invalid_object.gltf",
        "JSON",
        "top level of a glTF file must be a JSON object",
    );
    expect_ok("glb/valid.glb");
    expect_ok("glb/two_images.glb");
    let m = expect_ok("glb/extra_data.glb");
    assert!(m
        .warnings
        .iter()
        .any(|w| w.contains("after the declared end")));
}

#[test]
fn spec_valid_json_the_gltf_crate_rejects_still_loads() {
    // Integers written as `1.0` / `1e0` are valid glTF JSON.
    let m = expect_ok("json/integer_written_as_float.gltf");
    assert_eq!(m.skeleton.joint_count(), 5);
    assert_eq!(m.node_of_joint, vec![0, 1, 2, 3, 4]);
    // `scene.nodes` is optional in glTF.
    expect_ok("scene/custom_property.gltf");
}

#[test]
fn extensions_required_is_an_error_and_used_is_a_warning() {
    assert_err(
        "root/undefined_used_extensions.gltf",
        "extensionsRequired",
        "requires extension 'KHR_extension'",
    );
    let json = br#"{"asset": {"version": "2.0"}, "extensionsUsed": ["KHR_materials_sheen"]}"#;
    let m = asset::load_from_slice(json, Path::new("mem.gltf")).unwrap();
    assert!(m
        .warnings
        .iter()
        .any(|w| w.contains("'KHR_materials_sheen' is not supported")));
}

/// A minimal skinned triangle + one animation, written in code, to check the data-level
/// validation that the corpus does not cover.
fn skinned_triangle(
    joints: [u16; 4],
    weights: [f32; 4],
    times: [f32; 2],
    rotation: [f32; 4],
) -> Vec<u8> {
    let mut bin: Vec<u8> = Vec::new();
    let positions = [[0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    for p in positions {
        for c in p {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    // 36: JOINTS_0 (u16 x4 x3)
    for _ in 0..3 {
        for j in joints {
            bin.extend_from_slice(&j.to_le_bytes());
        }
    }
    // 60: WEIGHTS_0 (f32 x4 x3)
    for _ in 0..3 {
        for w in weights {
            bin.extend_from_slice(&w.to_le_bytes());
        }
    }
    // 108: times (2), 116: rotations (2 x vec4)
    for t in times {
        bin.extend_from_slice(&t.to_le_bytes());
    }
    for _ in 0..2 {
        for c in rotation {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    let uri = format!("data:application/octet-stream;base64,{}", base64(&bin));
    let json = format!(
        r#"{{
      "asset": {{"version": "2.0"}},
      "scene": 0,
      "scenes": [{{"nodes": [0, 1]}}],
      "nodes": [
        {{"name": "mesh", "mesh": 0, "skin": 0}},
        {{"name": "hip", "children": [2]}},
        {{"name": "knee"}}
      ],
      "skins": [{{"joints": [1, 2]}}],
      "meshes": [{{"primitives": [{{"attributes":
        {{"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}}}]}}],
      "buffers": [{{"byteLength": {len}, "uri": "{uri}"}}],
      "bufferViews": [{{"buffer": 0, "byteLength": {len}}}],
      "accessors": [
        {{"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": 3, "type": "VEC3",
          "min": [0, 0, 0], "max": [1, 1, 0]}},
        {{"bufferView": 0, "byteOffset": 36, "componentType": 5123, "count": 3, "type": "VEC4"}},
        {{"bufferView": 0, "byteOffset": 60, "componentType": 5126, "count": 3, "type": "VEC4"}},
        {{"bufferView": 0, "byteOffset": 108, "componentType": 5126, "count": 2, "type": "SCALAR"}},
        {{"bufferView": 0, "byteOffset": 116, "componentType": 5126, "count": 2, "type": "VEC4"}}
      ],
      "animations": [{{"samplers": [{{"input": 3, "output": 4}}],
        "channels": [{{"sampler": 0, "target": {{"node": 2, "path": "rotation"}}}}]}}]
    }}"#,
        len = bin.len()
    );
    json.into_bytes()
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn load_mem(bytes: &[u8]) -> Result<Model, ImportError> {
    asset::load_from_slice(bytes, Path::new("mem/triangle.gltf"))
}

#[test]
fn crafted_skinned_triangle_loads_and_data_errors_name_the_element() {
    let unit = [0.0, 0.0, 0.0, 1.0];
    let good = load_mem(&skinned_triangle(
        [0, 1, 0, 0],
        [0.5, 0.5, 0.0, 0.0],
        [0.0, 1.0],
        unit,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(good.skeleton.names(), ["mesh", "hip", "knee"]);
    assert_eq!(good.node_of_joint, vec![0, 1, 2]);
    assert_eq!(good.skins[0].joints, vec![1, 2]);
    assert_eq!(good.meshes[0].skin, Some(0));
    assert_eq!(good.meshes[0].primitives[0].indices, vec![0, 1, 2]);
    assert_eq!(good.meshes[0].primitives[0].weights[0][..2], [0.5, 0.5]);
    // Generated normals face +Z for a counter-clockwise triangle in the XY plane.
    assert_eq!(good.meshes[0].primitives[0].normals[0], glam::Vec3::Z);
    assert_eq!(good.clips[0].tracks()[0].joint, 2);

    let e = load_mem(&skinned_triangle(
        [0, 5, 0, 0],
        [0.5, 0.5, 0.0, 0.0],
        [0.0, 1.0],
        unit,
    ))
    .unwrap_err();
    assert_eq!(e.element, "mesh 0 primitive 0");
    assert!(
        e.message
            .contains("vertex 0: JOINTS_0 component 1 is joint 5"),
        "{e}"
    );
    // An out-of-range joint with zero weight is an unused slot, not an error.
    load_mem(&skinned_triangle(
        [0, 5, 0, 0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0],
        unit,
    ))
    .unwrap();

    let e = load_mem(&skinned_triangle(
        [0, 1, 0, 0],
        [0.5, -0.5, 0.0, 0.0],
        [0.0, 1.0],
        unit,
    ))
    .unwrap_err();
    assert_eq!(e.element, "mesh 0 primitive 0");
    assert!(
        e.message
            .contains("weights must be finite and non-negative"),
        "{e}"
    );

    let e = load_mem(&skinned_triangle(
        [0, 1, 0, 0],
        [0.5, 0.5, 0.0, 0.0],
        [1.0, 1.0],
        unit,
    ))
    .unwrap_err();
    assert_eq!(e.to_string(), "mem/triangle.gltf: animation 0 channel 0: key times not increasing at key 1 (1 s after 1 s) (sampler 0, accessor 3)");

    let e = load_mem(&skinned_triangle(
        [0, 1, 0, 0],
        [0.5, 0.5, 0.0, 0.0],
        [0.0, f32::NAN],
        unit,
    ))
    .unwrap_err();
    assert!(
        e.message.contains("key time 1 is not a finite number"),
        "{e}"
    );

    let e = load_mem(&skinned_triangle(
        [0, 1, 0, 0],
        [0.5, 0.5, 0.0, 0.0],
        [0.0, 1.0],
        [0.0; 4],
    ))
    .unwrap_err();
    assert_eq!(e.element, "animation 0 channel 0");
    assert!(
        e.message.contains("rotation key 0 is a zero quaternion"),
        "{e}"
    );

    // Clearly non-unit keys load normalised, with a warning.
    let m = load_mem(&skinned_triangle(
        [0, 1, 0, 0],
        [0.5, 0.5, 0.0, 0.0],
        [0.0, 1.0],
        [0.0, 0.0, 0.0, 2.0],
    ))
    .unwrap();
    assert!(m
        .warnings
        .iter()
        .any(|w| w.starts_with("animation 0 channel 0: 2 of 2 rotation keys")));
    let q = m.clips[0].tracks()[0].rotation.as_ref().unwrap().values()[0];
    assert_eq!(q, glam::Quat::IDENTITY);
}

#[test]
fn truncated_and_oversized_data_is_rejected_without_allocating() {
    // A buffer view past the end of its buffer.
    let json = br#"{"asset": {"version": "2.0"},
      "nodes": [{"mesh": 0}],
      "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
      "buffers": [{"byteLength": 4, "uri": "data:application/octet-stream;base64,AAAAAA=="}],
      "bufferViews": [{"buffer": 0, "byteLength": 4000000000}],
      "accessors": [{"bufferView": 0, "componentType": 5126, "count": 300000000, "type": "VEC3"}]}"#;
    let e = load_mem(json).unwrap_err();
    assert_eq!(e.element, "mesh 0 primitive 0");
    assert!(e.message.contains("lies outside buffer 0"), "{e}");
    // A zero-filled accessor declaring billions of elements.
    let json = br#"{"asset": {"version": "2.0"},
      "nodes": [{"mesh": 0}],
      "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
      "accessors": [{"componentType": 5126, "count": 4000000000, "type": "VEC3"}]}"#;
    let e = load_mem(json).unwrap_err();
    assert!(e.message.contains("more than this importer accepts"), "{e}");
    // Declared buffer longer than its data.
    let json = br#"{"asset": {"version": "2.0"},
      "nodes": [{"mesh": 0}],
      "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
      "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,AAAAAA=="}],
      "bufferViews": [{"buffer": 0, "byteLength": 36}],
      "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}]}"#;
    let e = load_mem(json).unwrap_err();
    assert!(
        e.message
            .contains("declares 36 bytes but its data has only 4"),
        "{e}"
    );
}

#[test]
fn undecodable_image_is_a_warning_and_the_material_keeps_no_texture() {
    let json = br#"{"asset": {"version": "2.0"},
      "scenes": [{"nodes": [0]}],
      "nodes": [{"mesh": 0}],
      "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
      "materials": [{"name": "skin", "pbrMetallicRoughness": {
        "baseColorFactor": [1, 0.5, 0.25, 1], "baseColorTexture": {"index": 0}}}],
      "textures": [{"source": 0}],
      "images": [{"uri": "data:image/png;base64,iVBORw0KGgoAAAAA"}],
      "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3"}]}"#;
    let m = load_mem(json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.materials.len(), 1);
    assert_eq!(m.materials[0].name, "skin");
    assert_eq!(
        m.materials[0].base_color_factor,
        glam::Vec4::new(1.0, 0.5, 0.25, 1.0)
    );
    assert_eq!(m.materials[0].base_color_image, None);
    assert!(m.images.is_empty());
    assert!(
        m.warnings
            .iter()
            .any(|w| w.starts_with("image 0: cannot be decoded")),
        "{:?}",
        m.warnings
    );
    assert_eq!(m.meshes[0].primitives[0].material, Some(0));
}

#[test]
fn channels_without_a_target_node_are_skipped_and_errors_keep_file_numbering() {
    // Channel 0 has no target node (allowed for extension targets): skipped with a note.
    // Channel 1 is broken: the error must still call it channel 1.
    let json = br#"{"asset": {"version": "2.0"},
      "nodes": [{}],
      "accessors": [
        {"componentType": 5126, "count": 1, "type": "SCALAR"},
        {"componentType": 5126, "count": 3, "type": "VEC3"}],
      "animations": [{"samplers": [{"input": 0, "output": 1, "interpolation": "CUBICSPLINE"}],
        "channels": [
          {"sampler": 0, "target": {"path": "scale"}},
          {"sampler": 0, "target": {"node": 0, "path": "scale"}}]}]}"#;
    let e = load_mem(json).unwrap_err();
    assert_eq!(e.element, "animation 0 channel 1", "{e}");
    assert!(e.message.contains("at least 2 are needed"), "{e}");
    // With a valid sampler the file loads and notes the skipped channel.
    let fixed = String::from_utf8_lossy(json).replace(r#", "interpolation": "CUBICSPLINE""#, "");
    let fixed = fixed.replace(
        r#""count": 3, "type": "VEC3""#,
        r#""count": 1, "type": "VEC3""#,
    );
    let m = load_mem(fixed.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.clips.len(), 1);
    assert_eq!(m.clips[0].channel_count(), 1);
    assert!(m
        .warnings
        .iter()
        .any(|w| w.starts_with("animation 0 channel 0: has no target node")));
}

/// A file named `.glb` that is something else says what it more likely is (issue 19,
/// item 14: a text file was reported as bytes `[31, 32, 37, 2e]`).
#[test]
fn a_glb_that_is_something_else_says_what_it_looks_like() {
    let dir = std::env::temp_dir().join(format!("stridescope-not-glb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&[u8], &str); 8] = [
        (b"127.0.0.1 localhost and more text", "it looks like text"),
        (
            b"  {\"asset\": {\"version\": \"2.0\"}}",
            "Rename it to .gltf",
        ),
        (
            b"Kaydara FBX Binary  \x00\x1a\x00\xe8\x1c\x00\x00",
            "an FBX file",
        ),
        (b"; FBX 7.4.0 project file\n", "an FBX file"),
        (b"HIERARCHY\nROOT Hips\n{\n", "BVH motion capture"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "an image"),
        (b"<!DOCTYPE html><html><body>", "HTML or XML"),
        (
            b"PK\x03\x04\x14\x00\x00\x00\x08\x00\x21\x00\x5a",
            "a zip archive",
        ),
    ];
    for (k, (bytes, expected)) in cases.iter().enumerate() {
        let path = dir.join(format!("case{k}.glb"));
        std::fs::write(&path, bytes).unwrap();
        let e = load_guarded(&path).unwrap_err();
        let text = e.to_string();
        assert!(text.contains(expected), "case {k}: {text}");
        assert!(
            text.contains("instead of the magic 'glTF'"),
            "case {k}: {text}"
        );
        assert!(
            text.contains(&format!("case{k}.glb")),
            "names the file: {text}"
        );
    }
    // Binary bytes that suggest nothing keep the byte dump.
    let path = dir.join("noise.glb");
    std::fs::write(&path, [0x01u8, 0x9c, 0xff, 0x00, 7, 7, 7, 7, 0, 0, 0, 0, 1]).unwrap();
    let text = load_guarded(&path).unwrap_err().to_string();
    assert!(text.contains("[01, 9c, ff, 00]"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}
