//! glTF extensions of real-world files (issue 9), on a triangle built here with values
//! known in advance: KHR_mesh_quantization (8/16-bit vertex attributes with the
//! dequantizing scale on the node, as gltfpack writes them) and KHR_texture_transform on
//! the base colour texture (baked into the UVs).

use std::path::Path;

use stridescope::asset::load_from_slice;
use stridescope::render::bounds::pose_bounds;
use stridescope::stage::pose::pose_at;

/// Base64 (standard alphabet, padded) for a data URI.
fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One triangle: POSITION u16 (stride 8), NORMAL i8 normalized (stride 4), TEXCOORD_0 u8
/// (stride 4), u16 indices; the node scales by 0.001. `extensions` goes in as written.
fn triangle(extensions: &str) -> Vec<u8> {
    triangle_with(extensions, "")
}

/// The triangle with `material` JSON (a `"materials": [...], "textures": ..., ` block
/// ending in a comma) and the primitive using material 0 when it is not empty.
fn triangle_with(extensions: &str, material: &str) -> Vec<u8> {
    let mut bin = Vec::new();
    for p in [[0u16, 0, 0], [1000, 0, 0], [0, 2000, 500]] {
        for c in p {
            bin.extend_from_slice(&c.to_le_bytes());
        }
        bin.extend_from_slice(&[0, 0]);
    }
    for n in [[0i8, 0, 127], [0, 127, 0], [-127, 0, 0]] {
        bin.extend(n.iter().map(|&c| c as u8));
        bin.push(0);
    }
    for uv in [[0u8, 0], [255, 0], [10, 20]] {
        bin.extend_from_slice(&uv);
        bin.extend_from_slice(&[0, 0]);
    }
    for i in [0u16, 1, 2] {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    bin.extend_from_slice(&[0, 0]);
    assert_eq!(bin.len(), 24 + 12 + 12 + 8);
    format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  {extensions}
  "buffers": [{{"byteLength": {len}, "uri": "data:application/octet-stream;base64,{data}"}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 24, "byteStride": 8, "target": 34962}},
    {{"buffer": 0, "byteOffset": 24, "byteLength": 12, "byteStride": 4, "target": 34962}},
    {{"buffer": 0, "byteOffset": 36, "byteLength": 12, "byteStride": 4, "target": 34962}},
    {{"buffer": 0, "byteOffset": 48, "byteLength": 6, "target": 34963}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5123, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1000, 2000, 500]}},
    {{"bufferView": 1, "componentType": 5120, "normalized": true, "count": 3, "type": "VEC3"}},
    {{"bufferView": 2, "componentType": 5121, "count": 3, "type": "VEC2"}},
    {{"bufferView": 3, "componentType": 5123, "count": 3, "type": "SCALAR"}}
  ],
  {material}
  "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}}, "indices": 3{uses}}}]}}],
  "nodes": [{{"mesh": 0, "scale": [0.001, 0.001, 0.001]}}],
  "scenes": [{{"nodes": [0]}}],
  "scene": 0
}}"#,
        len = bin.len(),
        data = base64(&bin),
        uses = if material.is_empty() { "" } else { r#", "material": 0"# },
    )
    .into_bytes()
}

const QUANTIZED: &str = r#""extensionsUsed": ["KHR_mesh_quantization"], "extensionsRequired": ["KHR_mesh_quantization"],"#;

#[test]
fn quantized_attributes_load_and_the_node_dequantizes_them() {
    let model = load_from_slice(&triangle(QUANTIZED), Path::new("tri.gltf")).unwrap();
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let p = &model.meshes[0].primitives[0];
    let positions: Vec<[f32; 3]> = p.positions.iter().map(|v| v.to_array()).collect();
    assert_eq!(
        positions,
        vec![[0.0, 0.0, 0.0], [1000.0, 0.0, 0.0], [0.0, 2000.0, 500.0]]
    );
    // i8 normalized: 127 -> 1, -127 -> -1.
    let normals: Vec<[f32; 3]> = p.normals.iter().map(|v| v.to_array()).collect();
    assert_eq!(
        normals,
        vec![[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]
    );
    let uvs: Vec<[f32; 2]> = p.uvs.iter().map(|v| v.to_array()).collect();
    assert_eq!(uvs, vec![[0.0, 0.0], [255.0, 0.0], [10.0, 20.0]]);
    // The node's 0.001 scale turns the integers into metres.
    let pose = pose_at(&model, None, 0.0).unwrap();
    let b = pose_bounds(&model, &pose).unwrap();
    for (got, want) in [(b.min, [0.0, 0.0, 0.0]), (b.max, [1.0, 2.0, 0.5])] {
        for k in 0..3 {
            assert!((got[k] - want[k]).abs() < 1e-6, "{b:?}");
        }
    }
}

#[test]
fn integer_positions_without_the_extension_are_refused_with_the_reason() {
    let err = load_from_slice(&triangle(""), Path::new("tri.gltf"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("POSITION"), "{err}");
    assert!(err.contains("KHR_mesh_quantization"), "{err}");
    assert!(err.contains("mesh 0 primitive 0"), "{err}");
}

#[test]
fn other_required_extensions_are_still_refused_by_name() {
    let ext = r#""extensionsUsed": ["KHR_mesh_quantization", "EXT_texture_webp"], "extensionsRequired": ["KHR_mesh_quantization", "EXT_texture_webp"],"#;
    let err = load_from_slice(&triangle(ext), Path::new("tri.gltf"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("EXT_texture_webp"), "{err}");
    assert!(!err.contains("'KHR_mesh_quantization'"), "{err}");
}

/// A 1x1 white PNG as a data URI.
fn white_png() -> String {
    let mut png = Vec::new();
    image::RgbaImage::from_pixel(1, 1, image::Rgba([255, 255, 255, 255]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    format!("data:image/png;base64,{}", base64(&png))
}

#[test]
fn texture_transform_is_baked_into_the_uvs() {
    // Offset (0.5, 0.25), a quarter turn, scale (2, 3), in the extension's order (scale,
    // rotate, offset): u' = 2u cos + 3v sin + 0.5, v' = 3v cos - 2u sin + 0.25. The
    // triangle's UVs (0, 0), (255, 0), (10, 20) go to (0.5, 0.25), (0.5, -509.75) and
    // (60.5, -19.75).
    let material = format!(
        r#""images": [{{"uri": "{png}"}}],
  "textures": [{{"source": 0}}],
  "materials": [{{"pbrMetallicRoughness": {{"baseColorTexture": {{"index": 0,
    "extensions": {{"KHR_texture_transform": {{"offset": [0.5, 0.25], "rotation": {r}, "scale": [2, 3]}}}}}}}}}}],"#,
        png = white_png(),
        r = std::f32::consts::FRAC_PI_2
    );
    let ext = r#""extensionsUsed": ["KHR_mesh_quantization", "KHR_texture_transform"], "extensionsRequired": ["KHR_mesh_quantization"],"#;
    let moved = load_from_slice(&triangle_with(ext, &material), Path::new("b.gltf")).unwrap();
    assert!(moved.warnings.is_empty(), "{:?}", moved.warnings);
    let want = [[0.5, 0.25], [0.5, -509.75], [60.5, -19.75]];
    for (got, want) in moved.meshes[0].primitives[0].uvs.iter().zip(want) {
        assert!(
            (got.x - want[0]).abs() < 1e-3 && (got.y - want[1]).abs() < 1e-3,
            "{got} vs {want:?}"
        );
    }
    // Without the transform the same file keeps its UVs.
    let plain = load_from_slice(&triangle(QUANTIZED), Path::new("a.gltf")).unwrap();
    assert_eq!(
        plain.meshes[0].primitives[0].uvs[1].to_array(),
        [255.0, 0.0]
    );
}

/// A primitive without POSITION is valid glTF (the validator says so): the file loads,
/// the primitive is skipped with a warning that names it.
#[test]
fn a_primitive_without_positions_is_skipped_with_a_warning() {
    let json = r#"{
  "asset": {"version": "2.0"},
  "meshes": [{"primitives": [{"attributes": {}}]}],
  "nodes": [{"mesh": 0}],
  "scenes": [{"nodes": [0]}],
  "scene": 0
}"#;
    let model = load_from_slice(json.as_bytes(), Path::new("empty.gltf")).unwrap();
    assert!(model.meshes.iter().all(|m| m.primitives.is_empty()));
    assert!(
        model
            .warnings
            .iter()
            .any(|w| w.contains("mesh 0 primitive 0") && w.contains("no POSITION")),
        "{:?}",
        model.warnings
    );
}

/// A triangle whose POSITION view is EXT_meshopt_compression-compressed into buffer 0,
/// the view itself pointing at an empty fallback buffer 1; `damage` shortens the
/// compressed byte range the extension names.
fn meshopt_triangle(damage: usize) -> Vec<u8> {
    use serde_json::json;
    use stridescope::asset::glb_writer::GlbBuilder;
    let positions: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.5]];
    let encoded = meshopt::encoding::encode_vertex_buffer(&positions).unwrap();
    let mut bin = GlbBuilder::default();
    let at = bin.append_bytes(&encoded);
    let view = bin.push_view(json!({
        "buffer": 1, "byteLength": 36, "byteStride": 12, "target": 34962,
        "extensions": {"EXT_meshopt_compression": {
            "buffer": 0, "byteOffset": at, "byteLength": encoded.len() - damage,
            "byteStride": 12, "count": 3, "mode": "ATTRIBUTES",
        }},
    }));
    let accessor = bin.push_accessor(json!({
        "bufferView": view, "componentType": 5126, "count": 3, "type": "VEC3",
        "min": [0.0, 0.0, 0.0], "max": [1.0, 2.0, 0.5],
    }));
    bin.finish(json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_meshopt_compression"],
        "extensionsRequired": ["EXT_meshopt_compression"],
        "buffers": [{}, {"byteLength": 36, "extensions": {"EXT_meshopt_compression": {"fallback": true}}}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": accessor}}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
    }))
}

#[test]
fn meshopt_compressed_views_decode_and_a_broken_one_is_named() {
    let model = load_from_slice(&meshopt_triangle(0), Path::new("mo.glb")).unwrap();
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let p: Vec<[f32; 3]> = model.meshes[0].primitives[0]
        .positions
        .iter()
        .map(|v| v.to_array())
        .collect();
    assert_eq!(p, vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.5]]);
    let err = load_from_slice(&meshopt_triangle(4), Path::new("mo.glb"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("mo.glb")
            && err.contains("buffer view 0: EXT_meshopt_compression")
            && err.contains("does not decode"),
        "{err}"
    );
}

#[test]
fn draco_files_are_refused_with_a_way_out() {
    let text = r#"{"asset": {"version": "2.0"}, "extensionsUsed": ["KHR_draco_mesh_compression"],
        "extensionsRequired": ["KHR_draco_mesh_compression"]}"#;
    let err = load_from_slice(text.as_bytes(), Path::new("d.gltf"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("KHR_draco_mesh_compression") && err.contains("EXT_meshopt_compression"),
        "{err}"
    );
}

/// Two scenes, each with one node carrying a triangle mesh; `default` sets `scene`.
fn two_scenes(default: Option<usize>) -> Vec<u8> {
    use serde_json::json;
    use stridescope::asset::glb_writer::{GlbBuilder, ARRAY_BUFFER};
    let mut bin = GlbBuilder::default();
    let p = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let position = bin.floats(&p, 3, "VEC3", Some(ARRAY_BUFFER), true);
    let mut document = json!({
        "asset": {"version": "2.0"},
        "scenes": [{"name": "first", "nodes": [0]}, {"nodes": [1]}],
        "nodes": [{"name": "a", "mesh": 0}, {"name": "b", "mesh": 0, "translation": [5.0, 0.0, 0.0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": position}}]}],
    });
    if let Some(s) = default {
        document["scene"] = json!(s);
    }
    bin.finish(document)
}

#[test]
fn without_a_default_scene_scene_0_shows_and_another_can_be_picked() {
    use stridescope::asset::load_scene_from_slice;
    let m = load_from_slice(&two_scenes(None), Path::new("s.glb")).unwrap();
    assert_eq!(m.scenes, ["first", "scene 1"]);
    assert_eq!(m.scene, Some(0));
    assert_eq!(m.skeleton.names(), ["a"]);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("no default scene: scene 0 of 2")),
        "{:?}",
        m.warnings
    );
    let m = load_scene_from_slice(&two_scenes(None), Path::new("s.glb"), Some(1)).unwrap();
    assert_eq!(
        (m.scene, m.skeleton.names()),
        (Some(1), &["b".to_string()][..])
    );
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    let m = load_from_slice(&two_scenes(Some(1)), Path::new("s.glb")).unwrap();
    assert_eq!(m.scene, Some(1));
    let err = load_scene_from_slice(&two_scenes(None), Path::new("s.glb"), Some(5))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("s.glb") && err.contains("scene 5") && err.contains("2 scene"),
        "{err}"
    );

    // The window: Clips > Scene shows another scene, and a reload keeps it.
    let dir = std::env::temp_dir().join(format!("stridescope-scenes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("two.glb");
    std::fs::write(&path, two_scenes(None)).unwrap();
    let demo = stridescope::asset::load_or_demo(None).unwrap();
    let mut p = stridescope::app::ui::Previewer::new(demo, None, Default::default());
    p.open_path(&path).unwrap();
    assert_eq!(p.model().scene, Some(0));
    p.show_scene(1).unwrap();
    assert_eq!(p.model().skeleton.names(), ["b"]);
    p.open_path(&path).unwrap();
    assert_eq!(p.model().scene, Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}
