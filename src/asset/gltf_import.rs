//! glTF 2.0 import: `.gltf` (external or data-URI buffers) and `.glb` files into the
//! animation core's types.
//!
//! The import is a straight line of steps, each of which either succeeds or returns an
//! [`ImportError`] naming the file and the glTF element at fault:
//!
//! ```text
//! bytes ─► container (GLB chunks / JSON text) ─► JSON root (gltf-json) ─► structural
//!   validation (indices, enums) ─► buffers ─► node hierarchy (cycles, two parents)
//!   ─► Skeleton (scene nodes, parent-before-child) ─► skins ─► materials + images
//!   ─► meshes ─► clips (key times, counts, formats, quaternions, markers)
//! ```
//!
//! Defects that would make sampling, skinning or drawing wrong are errors; harmless ones
//! (unused broken buffers, morph targets, unsupported optional extensions, slightly
//! non-unit quaternions, custom properties) become [`Model::warnings`].
//!
//! Robustness: the GLB container is parsed here (the `gltf` crate panics on some headers),
//! every accessor read is bounds-checked against its buffer view before any allocation,
//! accessors without a buffer view and the totals of imported vertices, indices and keys
//! are capped, external files are read only up to their declared length, and the whole
//! import runs under `catch_unwind` as a last resort.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::{Interpolation as GltfInterpolation, Property};
use gltf::json;
use gltf::mesh::{Mode, Semantic};

use super::{
    display_name, AlphaMode, Image, ImportError, Material, Mesh, Model, MorphTarget, Primitive,
};
use crate::anim::{
    Clip, Interpolation, JointTracks, MorphTrack, Skeleton, Skin, SyncMarker, Track, Transform,
    MAX_INFLUENCES,
};

/// An accessor without a buffer view is zero-filled; this caps what such a declaration may
/// make us allocate.
const MAX_ZERO_FILLED_BYTES: usize = 64 << 20;
/// Caps on the imported totals, so a small file cannot instance one large mesh or one
/// large key accessor thousands of times.
const MAX_TOTAL_VERTICES: usize = 1 << 23;
const MAX_TOTAL_INDICES: usize = 1 << 25;
const MAX_TOTAL_KEYS: usize = 1 << 24;
/// Decoded base-colour images, in RGBA8 bytes, over the whole file.
const MAX_TOTAL_IMAGE_BYTES: usize = 1 << 30;
/// External image files larger than this are not read.
const MAX_EXTERNAL_IMAGE_BYTES: u64 = 256 << 20;
/// A quaternion whose norm differs from 1 by more than this is reported when normalised.
const QUAT_NORM_TOLERANCE: f32 = 1e-3;

/// Animation output components (translations, rotations, scales, spline tangents) whose
/// magnitude is below this are read as exactly 0.
///
/// Exporters leave float noise in keys meant to be 0: the Fox's rotation keys hold 212
/// components between 3.6e-25 and 1e-18. Those are normal f32s, but sampling multiplies
/// them with each other (quaternion dot products, blending), and products such as 1e-42
/// are subnormal, which the FPU handles on a slow path: sampling the Fox was measured
/// 2-3x slower. Flushing only true subnormals (below `f32::MIN_POSITIVE`) would not help, as
/// the inputs are not subnormal; their products are. 1e-15 is far below anything that can
/// show: a unit quaternion's components resolve to f32 epsilon (6e-8), so a 1e-15 term
/// turns it by under 1e-15 rad; translations and scales are as negligible at any
/// plausible asset scale (a 0.01-scaled armature still moves in steps of 1e-4 and more).
/// After flushing, a product of two nonzero components is at least 1e-30, a normal f32.
const FLUSH_TO_ZERO_BELOW: f32 = 1e-15;

/// Sets components with magnitude below [`FLUSH_TO_ZERO_BELOW`] to +0.
fn flush_tiny(values: &mut [f32]) {
    for v in values {
        if v.abs() < FLUSH_TO_ZERO_BELOW {
            *v = 0.0;
        }
    }
}

/// Loads a `.gltf` (external or embedded buffers) or `.glb` file.
pub fn load(path: &Path) -> Result<Model, ImportError> {
    load_scene(path, None)
}

/// [`load`] with the scene to show: `None` is the file's default scene, else scene 0.
pub fn load_scene(path: &Path, scene: Option<usize>) -> Result<Model, ImportError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ImportError::new(path, "", format!("cannot read file: {e}")))?;
    load_scene_from_slice(&bytes, path, scene)
}

/// Loads from bytes; `path` names the file in errors and resolves relative URIs.
pub fn load_from_slice(bytes: &[u8], path: &Path) -> Result<Model, ImportError> {
    load_scene_from_slice(bytes, path, None)
}

/// [`load_from_slice`] with the scene to show (see [`load_scene`]).
pub fn load_scene_from_slice(
    bytes: &[u8],
    path: &Path,
    scene: Option<usize>,
) -> Result<Model, ImportError> {
    install_quiet_panic_hook();
    let _quiet = QuietPanics::enter();
    match panic::catch_unwind(AssertUnwindSafe(|| import(bytes, path, scene))) {
        Ok(Ok(mut model)) => {
            let reduce =
                super::reduce_keys_from_env().map_err(|e| ImportError::new(path, "", e))?;
            if let Some(tolerance_m) = reduce {
                model
                    .reduce_keys(tolerance_m)
                    .map_err(|e| ImportError::new(path, "animations", e))?;
            }
            Ok(model)
        }
        Ok(Err(e)) => Err(e),
        Err(payload) => Err(ImportError::new(
            path,
            "",
            format!(
                "the file is malformed in a way the glTF parser could not handle ({})",
                panic_message(payload.as_ref())
            ),
        )),
    }
}

// ---------------------------------------------------------------------------------------
// Panic containment
// ---------------------------------------------------------------------------------------

thread_local! {
    /// Depth of imports running on this thread; panics are not printed while > 0.
    static QUIET_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Installs (once per process) a panic hook that defers to the previous hook unless the
/// panicking thread is inside an import. Other threads and other code see no change.
fn install_quiet_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET_DEPTH.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

struct QuietPanics;

impl QuietPanics {
    fn enter() -> Self {
        QUIET_DEPTH.with(|d| d.set(d.get() + 1));
        QuietPanics
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        QUIET_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

// ---------------------------------------------------------------------------------------
// Top level
// ---------------------------------------------------------------------------------------

fn import(bytes: &[u8], path: &Path, scene: Option<usize>) -> Result<Model, ImportError> {
    let mut warnings = Vec::new();
    let (json_bytes, bin) = split_container(bytes, path, &mut warnings)?;
    let is_glb = bytes.starts_with(GLB_MAGIC);
    let (root, channel_map) = parse_json(json_bytes, path, &mut warnings)?;
    check_asset(&root, path)?;
    let quantized = check_extensions(&root, path, &mut warnings)?;
    validate_structure(&root, path, &channel_map)?;
    let doc = gltf::Document::from_json_without_validation(root);

    let mut imp = Importer {
        file: path,
        base_dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        doc: &doc,
        buffers: Vec::new(),
        buffer_errors: Vec::new(),
        fallback_buffers: Vec::new(),
        decoded_views: Vec::new(),
        channel_map,
        warnings,
        quantized,
        requested_scene: scene,
        shown_scene: None,
        uv_transforms: Vec::new(),
        total_vertices: 0,
        total_indices: 0,
        total_keys: 0,
        total_image_bytes: 0,
    };
    imp.load_buffers(bin, is_glb);
    imp.decode_meshopt_views();
    let hierarchy = imp.hierarchy()?;
    let skeleton = imp.skeleton(&hierarchy)?;
    let skins = imp.skins(&hierarchy, &skeleton)?;
    let (materials, images) = imp.materials();
    let meshes = imp.meshes(&hierarchy, &skins)?;
    let clips = imp.clips(&hierarchy, skeleton.joint_count())?;
    imp.warn_unused_broken_buffers();

    let Importer { warnings, .. } = imp;
    let imp_scene = imp.shown_scene;
    let scenes = doc
        .scenes()
        .map(|s| {
            s.name()
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| format!("scene {}", s.index()))
        })
        .collect();
    Ok(Model {
        source: display_name(path),
        scenes,
        scene: imp_scene,
        skeleton,
        node_of_joint: hierarchy.order.clone(),
        skins: skins.skins,
        meshes,
        materials,
        images,
        clips,
        warnings,
    })
}

// ---------------------------------------------------------------------------------------
// Container: GLB chunks or JSON text
// ---------------------------------------------------------------------------------------

const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

fn read_u32_le(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Splits the file into JSON text and the optional GLB BIN chunk.
fn split_container<'b>(
    bytes: &'b [u8],
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<(&'b [u8], Option<&'b [u8]>), ImportError> {
    let is_glb_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if !bytes.starts_with(GLB_MAGIC) {
        if is_glb_name {
            let err = |m: String| ImportError::new(path, "GLB", m);
            if bytes.len() < 12 {
                return Err(err(format!(
                    "the file is {}, too short for a GLB header (12 bytes)",
                    byte_count(bytes.len())
                )));
            }
            return Err(err(format!(
                "not a binary glTF file: it starts with {:02x?} instead of the magic 'glTF'",
                &bytes[..4]
            )));
        }
        return Ok((bytes, None));
    }
    split_glb(bytes, path, warnings)
}

fn split_glb<'b>(
    bytes: &'b [u8],
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<(&'b [u8], Option<&'b [u8]>), ImportError> {
    let err = |m: String| ImportError::new(path, "GLB", m);
    let (Some(version), Some(declared)) = (read_u32_le(bytes, 4), read_u32_le(bytes, 8)) else {
        return Err(err(format!(
            "the file is {}, too short for a GLB header (12 bytes)",
            byte_count(bytes.len())
        )));
    };
    if version != 2 {
        return Err(err(format!(
            "GLB container version {version} is not supported (expected 2)"
        )));
    }
    let declared = declared as usize;
    if declared <= 12 {
        return Err(err(format!(
            "the header declares a total length of {declared} bytes, which leaves no room for \
             the JSON chunk"
        )));
    }
    if declared > bytes.len() {
        return Err(err(format!(
            "the file is truncated: the header declares {declared} bytes but the file has {}",
            bytes.len()
        )));
    }
    if declared < bytes.len() {
        warnings.push(format!(
            "GLB: {} after the declared end of the file ignored",
            byte_count(bytes.len() - declared)
        ));
    }
    let data = &bytes[..declared];
    let mut pos = 12;
    let mut json: Option<&[u8]> = None;
    let mut bin: Option<&[u8]> = None;
    let mut chunk = 0usize;
    while pos < data.len() {
        let (Some(len), Some(kind)) = (read_u32_le(data, pos), read_u32_le(data, pos + 4)) else {
            return Err(err(format!(
                "chunk {chunk}: the chunk header at byte {pos} is truncated (the file ends at \
                 byte {})",
                data.len()
            )));
        };
        let len = len as usize;
        let start = pos + 8;
        let Some(end) = start.checked_add(len).filter(|&e| e <= data.len()) else {
            return Err(err(format!(
                "chunk {chunk} ({}): its {len} bytes of data run past the end of the file \
                 ({} bytes)",
                chunk_name(kind),
                data.len()
            )));
        };
        if !len.is_multiple_of(4) {
            warnings.push(format!(
                "GLB: chunk {chunk} ({}) length {len} is not a multiple of 4",
                chunk_name(kind)
            ));
        }
        let body = &data[start..end];
        match kind {
            CHUNK_JSON if chunk == 0 => {
                if body.is_empty() {
                    return Err(err("the JSON chunk is empty".into()));
                }
                json = Some(body);
            }
            CHUNK_JSON => {
                return Err(err(format!(
                    "chunk {chunk} is a second JSON chunk; a GLB file has exactly one"
                )));
            }
            _ if chunk == 0 => {
                return Err(err(format!(
                    "the first chunk must be the JSON chunk, found {}",
                    chunk_name(kind)
                )));
            }
            CHUNK_BIN if bin.is_some() => {
                return Err(err(format!(
                    "chunk {chunk} is a second BIN chunk; a GLB file has at most one"
                )));
            }
            CHUNK_BIN if chunk != 1 => {
                return Err(err(format!(
                    "the BIN chunk must directly follow the JSON chunk, found it as chunk {chunk}"
                )));
            }
            CHUNK_BIN => bin = Some(body),
            _ => warnings.push(format!(
                "GLB: chunk {chunk} has unknown type {}; skipped",
                chunk_name(kind)
            )),
        }
        pos = end;
        chunk += 1;
    }
    match json {
        Some(json) => Ok((json, bin)),
        None => Err(err("the file has no JSON chunk".into())),
    }
}

fn byte_count(n: usize) -> String {
    if n == 1 {
        "1 byte".into()
    } else {
        format!("{n} bytes")
    }
}

fn chunk_name(kind: u32) -> String {
    match kind {
        CHUNK_JSON => "JSON".into(),
        CHUNK_BIN => "BIN".into(),
        other => format!("0x{other:08x}"),
    }
}

// ---------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------

/// For each animation whose channels were renumbered while parsing, the original index
/// of each remaining channel (so errors name the channel as written in the file).
type ChannelMap = HashMap<usize, Vec<usize>>;

fn parse_json(
    json_bytes: &[u8],
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<(json::Root, ChannelMap), ImportError> {
    let err = |m: String| ImportError::new(path, "JSON", m);
    if json_bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(err(
            "the JSON text starts with a UTF-8 byte-order mark, which glTF does not allow".into(),
        ));
    }
    let first = match json::Root::from_slice(json_bytes) {
        Ok(root) => return Ok((root, ChannelMap::new())),
        Err(e) => e,
    };
    // The gltf crate is stricter than the glTF specification in two places: integers
    // written as floats (`1.0`) and channels without a target node. Normalise those and
    // retry; otherwise report the original error with its line and column.
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(json_bytes) else {
        return Err(err(first.to_string()));
    };
    if !value.is_object() {
        return Err(err(
            "the top level of a glTF file must be a JSON object".into()
        ));
    }
    let mut channel_map = ChannelMap::new();
    let mut notes = Vec::new();
    let mut changed = integral_floats_to_ints(&mut value);
    changed |= default_scene_nodes(&mut value);
    changed |= drop_nodeless_channels(&mut value, &mut channel_map, &mut notes);
    if !changed {
        return Err(err(first.to_string()));
    }
    let text = serde_json::to_vec(&value).map_err(|e| err(e.to_string()))?;
    match json::Root::from_slice(&text) {
        Ok(root) => {
            warnings.extend(notes);
            Ok((root, channel_map))
        }
        // Positions refer to the re-serialised text; drop them.
        Err(e) => Err(err(strip_position(&e.to_string()))),
    }
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Rewrites numbers like `1.0` or `1e0` as integers (valid JSON for a glTF integer).
fn integral_floats_to_ints(value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    let mut changed = false;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) if n.is_f64() => {
                if let Some(f) = n.as_f64() {
                    if f.fract() == 0.0 && f.abs() < 9.0e15 {
                        *v = if f >= 0.0 {
                            Value::from(f as u64)
                        } else {
                            Value::from(f as i64)
                        };
                        changed = true;
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
    changed
}

/// `scene.nodes` is optional in glTF; the gltf crate requires it.
fn default_scene_nodes(value: &mut serde_json::Value) -> bool {
    let Some(scenes) = value.get_mut("scenes").and_then(|s| s.as_array_mut()) else {
        return false;
    };
    let mut changed = false;
    for scene in scenes.iter_mut().filter_map(|s| s.as_object_mut()) {
        if !scene.contains_key("nodes") {
            scene.insert("nodes".into(), serde_json::Value::Array(Vec::new()));
            changed = true;
        }
    }
    changed
}

/// Removes animation channels whose target has no `node` (allowed by glTF for extension
/// targets, rejected by the gltf crate), remembering the original channel numbers.
fn drop_nodeless_channels(
    value: &mut serde_json::Value,
    channel_map: &mut ChannelMap,
    notes: &mut Vec<String>,
) -> bool {
    let Some(animations) = value.get_mut("animations").and_then(|a| a.as_array_mut()) else {
        return false;
    };
    let mut changed = false;
    for (a, animation) in animations.iter_mut().enumerate() {
        let Some(channels) = animation.get_mut("channels").and_then(|c| c.as_array_mut()) else {
            continue;
        };
        let has_node = |c: &serde_json::Value| {
            c.get("target")
                .and_then(|t| t.as_object())
                .is_none_or(|t| t.contains_key("node"))
        };
        if channels.iter().all(has_node) {
            continue;
        }
        let mut kept = Vec::new();
        let mut original = Vec::new();
        for (c, channel) in channels.drain(..).enumerate() {
            if has_node(&channel) {
                kept.push(channel);
                original.push(c);
            } else {
                notes.push(format!(
                    "animation {a} channel {c}: has no target node (an extension target?); \
                     skipped"
                ));
            }
        }
        *channels = kept;
        channel_map.insert(a, original);
        changed = true;
    }
    changed
}

/// The channel number as written in the file (see [`ChannelMap`]).
fn original_channel(channel_map: &ChannelMap, animation: usize, channel: usize) -> usize {
    channel_map
        .get(&animation)
        .and_then(|m| m.get(channel).copied())
        .unwrap_or(channel)
}

fn check_asset(root: &json::Root, path: &Path) -> Result<(), ImportError> {
    let major = |v: &str| v.split('.').next().map(str::trim).map(str::to_string);
    let version = &root.asset.version;
    if major(version).as_deref() != Some("2") {
        return Err(ImportError::new(
            path,
            "asset",
            format!("glTF version '{version}' is not supported (this importer reads glTF 2.x)"),
        ));
    }
    if let Some(min) = &root.asset.min_version {
        if min.trim() != "2.0" {
            return Err(ImportError::new(
                path,
                "asset",
                format!("the file needs a glTF {min} reader (this importer reads glTF 2.0)"),
            ));
        }
    }
    Ok(())
}

/// Extensions this importer implements: required or used, they are no warning.
/// `KHR_mesh_quantization` (gltfpack's default output) only widens the vertex attribute
/// formats; the dequantizing scale and offset are ordinary node transforms (or folded
/// into the inverse bind matrices of skinned meshes), which every path already applies.
/// `KHR_texture_transform` on the base colour texture is baked into the primitives' UVs
/// (the only texture drawn), which is also how gltfpack's quantized UVs are restored.
pub(crate) const SUPPORTED_EXTENSIONS: &[&str] = &[
    KHR_MESH_QUANTIZATION,
    "KHR_texture_transform",
    EXT_MESHOPT_COMPRESSION,
];
const EXT_MESHOPT_COMPRESSION: &str = "EXT_meshopt_compression";
const KHR_MESH_QUANTIZATION: &str = "KHR_mesh_quantization";

/// Refuses required extensions we do not implement (naming them) and lists the used ones
/// we ignore. Returns whether `KHR_mesh_quantization` is in use.
fn check_extensions(
    root: &json::Root,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<bool, ImportError> {
    if let Some(ext) = root
        .extensions_required
        .iter()
        .find(|e| !SUPPORTED_EXTENSIONS.contains(&e.as_str()))
    {
        let hint = if ext == "KHR_draco_mesh_compression" {
            ": its meshes are Draco-compressed. Decompress them first (re-export without \
             Draco, e.g. Blender's glTF exporter with Compression off), or recompress with \
             EXT_meshopt_compression (gltfpack -cc), which stridescope reads"
        } else {
            ""
        };
        return Err(ImportError::new(
            path,
            "extensionsRequired",
            format!(
                "the file requires extension '{ext}', which this importer does not support{hint}"
            ),
        ));
    }
    let mut seen = HashSet::new();
    for ext in &root.extensions_used {
        if SUPPORTED_EXTENSIONS.contains(&ext.as_str()) {
            continue;
        }
        if seen.insert(ext.as_str()) {
            warnings.push(format!(
                "extensionsUsed: extension '{ext}' is not supported; its data is ignored"
            ));
        }
    }
    let in_use = |list: &[String]| list.iter().any(|e| e == KHR_MESH_QUANTIZATION);
    Ok(in_use(&root.extensions_used) || in_use(&root.extensions_required))
}

/// Every accessor reference (mesh attributes, indices and morph targets, inverse bind
/// matrices, animation samplers) names an accessor that exists. The gltf crate's
/// validation misses some of these and its wrappers then index out of bounds.
fn check_accessor_references(root: &json::Root, path: &Path) -> Result<(), ImportError> {
    let count = root.accessors.len();
    let missing = |element: String, what: String, index: usize| {
        ImportError::new(
            path,
            element,
            format!("{what} refers to accessor {index}, but the file has {count} accessor(s)"),
        )
    };
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let element = || format!("mesh {m} primitive {p}");
            for (semantic, index) in &prim.attributes {
                if index.value() >= count {
                    let name = match semantic {
                        json::validation::Checked::Valid(s) => s.to_string(),
                        json::validation::Checked::Invalid => "an attribute".into(),
                    };
                    return Err(missing(element(), name, index.value()));
                }
            }
            if let Some(index) = &prim.indices {
                if index.value() >= count {
                    return Err(missing(element(), "indices".into(), index.value()));
                }
            }
            for (t, target) in prim.targets.iter().flatten().enumerate() {
                for (what, index) in [
                    ("POSITION", &target.positions),
                    ("NORMAL", &target.normals),
                    ("TANGENT", &target.tangents),
                ] {
                    if let Some(index) = index {
                        if index.value() >= count {
                            let what = format!("morph target {t} {what}");
                            return Err(missing(element(), what, index.value()));
                        }
                    }
                }
            }
        }
    }
    for (k, skin) in root.skins.iter().enumerate() {
        if let Some(index) = &skin.inverse_bind_matrices {
            if index.value() >= count {
                let what = "inverseBindMatrices".to_string();
                return Err(missing(format!("skin {k}"), what, index.value()));
            }
        }
    }
    for (a, animation) in root.animations.iter().enumerate() {
        for (s, sampler) in animation.samplers.iter().enumerate() {
            for (what, index) in [("input", &sampler.input), ("output", &sampler.output)] {
                if index.value() >= count {
                    let what = format!("sampler {s} {what}");
                    return Err(missing(format!("animation {a}"), what, index.value()));
                }
            }
        }
    }
    Ok(())
}

/// Runs the gltf crate's structural validation (index ranges, enum values), which its
/// typed wrappers rely on to not panic.
fn validate_structure(
    root: &json::Root,
    path: &Path,
    channel_map: &ChannelMap,
) -> Result<(), ImportError> {
    use json::validation::{Error, Validate};
    check_accessor_references(root, path)?;
    let mut errors: Vec<(String, Error)> = Vec::new();
    root.validate(root, json::Path::new, &mut |p, e| errors.push((p().0, e)));
    for (p, e) in errors {
        // glTF allows accessors without a buffer view (zero-filled); the reader handles them.
        if e == Error::Missing && p.starts_with("accessors[") && p.ends_with("].bufferView") {
            continue;
        }
        // A primitive may lack POSITION (the spec allows it; an extension may supply the
        // geometry): the mesh reader skips it with a warning.
        if e == Error::Missing
            && p.starts_with("meshes[")
            && p.ends_with(".attributes[\"POSITION\"]")
        {
            continue;
        }
        // Required extensions were reported by `check_extensions`.
        if e == Error::Unsupported {
            continue;
        }
        // Accessor bounds are optional for a runtime (and required only by the spec).
        if e == Error::Missing && (p.ends_with(".min") || p.ends_with(".max")) {
            continue;
        }
        // A texture whose image comes from an extension: the material gets no texture.
        if e == Error::Missing && p.starts_with("textures[") && p.ends_with("].source") {
            continue;
        }
        let (element, rest) = element_of_json_path(&p, channel_map);
        let what = match e {
            Error::IndexOutOfBounds => "refers to an element that does not exist",
            Error::Invalid => "has an invalid value",
            Error::Missing => "is missing",
            Error::Oversize => "is too large",
            Error::Unsupported => "is not supported",
        };
        let message = if rest.is_empty() {
            what.to_string()
        } else {
            format!("{rest} {what}")
        };
        return Err(ImportError::new(path, element, message));
    }
    // The gltf crate does not validate channel targets, and its wrappers unwrap them.
    for (a, animation) in root.animations.iter().enumerate() {
        for (c, channel) in animation.channels.iter().enumerate() {
            let element = format!(
                "animation {a} channel {}",
                original_channel(channel_map, a, c)
            );
            let node = channel.target.node.value();
            if node >= root.nodes.len() {
                return Err(ImportError::new(
                    path,
                    element,
                    format!("target.node {node} refers to a node that does not exist"),
                ));
            }
            if let json::validation::Checked::Invalid = channel.target.path {
                return Err(ImportError::new(
                    path,
                    element,
                    "target.path is not translation, rotation, scale or weights",
                ));
            }
        }
    }
    Ok(())
}

/// `animations[2].channels[5].target.node` -> (`animation 2 channel 5`, `target.node`).
fn element_of_json_path(p: &str, channel_map: &ChannelMap) -> (String, String) {
    fn split_index(s: &str) -> Option<(&str, usize, &str)> {
        let open = s.find('[')?;
        let close = s[open..].find(']')? + open;
        let index = s[open + 1..close].parse().ok()?;
        Some((&s[..open], index, &s[close + 1..]))
    }
    let singular = |name: &str| -> String {
        match name {
            "accessors" => "accessor",
            "animations" => "animation",
            "buffers" => "buffer",
            "bufferViews" => "buffer view",
            "cameras" => "camera",
            "images" => "image",
            "materials" => "material",
            "meshes" => "mesh",
            "nodes" => "node",
            "samplers" => "sampler",
            "scenes" => "scene",
            "skins" => "skin",
            "textures" => "texture",
            "channels" => "channel",
            "primitives" => "primitive",
            "targets" => "morph target",
            other => other,
        }
        .to_string()
    };
    let Some((name, index, rest)) = split_index(p).filter(|(n, _, _)| !n.contains('.')) else {
        return (p.to_string(), String::new());
    };
    let mut element = format!("{} {index}", singular(name));
    let mut rest = rest.trim_start_matches('.');
    if let Some((sub, sub_index, sub_rest)) = split_index(rest) {
        if matches!(sub, "channels" | "samplers" | "primitives") {
            let sub_index = if name == "animations" && sub == "channels" {
                original_channel(channel_map, index, sub_index)
            } else {
                sub_index
            };
            element = format!("{element} {} {sub_index}", singular(sub));
            rest = sub_rest.trim_start_matches('.');
        }
    }
    (element, rest.to_string())
}

// ---------------------------------------------------------------------------------------
// Importer state, buffers and accessors
// ---------------------------------------------------------------------------------------

struct Importer<'a> {
    file: &'a Path,
    base_dir: PathBuf,
    doc: &'a gltf::Document,
    /// Buffer bytes, exactly `byteLength` long; empty where loading failed.
    buffers: Vec<gltf::buffer::Data>,
    /// Why a buffer could not be loaded; reported when something reads from it.
    buffer_errors: Vec<Option<String>>,
    /// `EXT_meshopt_compression` fallback buffers (no data of their own; never warned
    /// about).
    fallback_buffers: Vec<bool>,
    /// Per buffer view: its decoded bytes when it is `EXT_meshopt_compression`-compressed
    /// (or why they could not be decoded); `None` for plain views.
    decoded_views: Vec<Option<Result<Vec<u8>, String>>>,
    channel_map: ChannelMap,
    warnings: Vec<String>,
    /// `KHR_mesh_quantization` is in use: vertex attributes may be 8/16-bit integers.
    quantized: bool,
    /// The scene the caller asked for (`None`: the default, else scene 0), and the one
    /// shown.
    requested_scene: Option<usize>,
    shown_scene: Option<usize>,
    /// Per material: its base colour texture's `KHR_texture_transform`, applied to the
    /// UVs of the primitives that use it.
    uv_transforms: Vec<Option<glam::Affine2>>,
    total_vertices: usize,
    total_indices: usize,
    total_keys: usize,
    total_image_bytes: usize,
}

/// Accessor contents, tightly packed little-endian components.
struct AccessorData {
    data_type: DataType,
    normalized: bool,
    bytes: Vec<u8>,
}

impl AccessorData {
    fn component_count(&self) -> usize {
        self.bytes.len() / self.data_type.size()
    }

    /// Components as f32; normalised integers are mapped to [0, 1] / [-1, 1] (glTF rules).
    fn to_f32(&self) -> Vec<f32> {
        let b = &self.bytes;
        let n = self.normalized;
        match self.data_type {
            DataType::F32 => b
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            DataType::I8 => b
                .iter()
                .map(|&c| {
                    let v = c as i8 as f32;
                    if n {
                        (v / 127.0).max(-1.0)
                    } else {
                        v
                    }
                })
                .collect(),
            DataType::U8 => b
                .iter()
                .map(|&c| if n { c as f32 / 255.0 } else { c as f32 })
                .collect(),
            DataType::I16 => b
                .chunks_exact(2)
                .map(|c| {
                    let v = i16::from_le_bytes([c[0], c[1]]) as f32;
                    if n {
                        (v / 32767.0).max(-1.0)
                    } else {
                        v
                    }
                })
                .collect(),
            DataType::U16 => b
                .chunks_exact(2)
                .map(|c| {
                    let v = u16::from_le_bytes([c[0], c[1]]) as f32;
                    if n {
                        v / 65535.0
                    } else {
                        v
                    }
                })
                .collect(),
            DataType::U32 => b
                .chunks_exact(4)
                .map(|c| {
                    let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64;
                    if n {
                        (v / u32::MAX as f64) as f32
                    } else {
                        v as f32
                    }
                })
                .collect(),
        }
    }

    /// Unsigned integer components (the caller has checked the type is U8/U16/U32).
    fn to_u32(&self) -> Vec<u32> {
        let b = &self.bytes;
        match self.data_type {
            DataType::U8 => b.iter().map(|&c| c as u32).collect(),
            DataType::U16 => b
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32)
                .collect(),
            DataType::U32 => b
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            _ => Vec::new(),
        }
    }
}

fn type_name(t: DataType) -> &'static str {
    match t {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    }
}

fn dims_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

fn format_name(acc: &gltf::Accessor<'_>) -> String {
    format!(
        "{} {}{}",
        dims_name(acc.dimensions()),
        type_name(acc.data_type()),
        if acc.normalized() { " normalized" } else { "" }
    )
}

/// Allowed component types for an accessor role: (type, normalized).
type Formats<'f> = &'f [(DataType, bool)];
const FLOAT_ONLY: Formats<'static> = &[(DataType::F32, false)];
/// Rotation and morph-weight sampler outputs: float, or normalized 8/16-bit integers
/// (glTF core).
const ANIMATION_OUTPUT_FORMATS: Formats<'static> = &[
    (DataType::F32, false),
    (DataType::I8, true),
    (DataType::U8, true),
    (DataType::I16, true),
    (DataType::U16, true),
];
/// KHR_mesh_quantization's POSITION: float, or 8/16-bit integers, normalized or not.
const QUANTIZED_POSITION: Formats<'static> = &[
    (DataType::F32, false),
    (DataType::I8, false),
    (DataType::I8, true),
    (DataType::U8, false),
    (DataType::U8, true),
    (DataType::I16, false),
    (DataType::I16, true),
    (DataType::U16, false),
    (DataType::U16, true),
];
/// KHR_mesh_quantization's NORMAL and TANGENT: float or normalized signed 8/16-bit.
const QUANTIZED_DIRECTION: Formats<'static> = &[
    (DataType::F32, false),
    (DataType::I8, true),
    (DataType::I16, true),
];
/// Core glTF's TEXCOORD formats.
const CORE_TEXCOORD: Formats<'static> = &[
    (DataType::F32, false),
    (DataType::U8, true),
    (DataType::U16, true),
];
/// KHR_mesh_quantization's TEXCOORD: any 8/16-bit integer, normalized or not.
const QUANTIZED_TEXCOORD: Formats<'static> = QUANTIZED_POSITION;

impl Importer<'_> {
    fn err(&self, element: impl Into<String>, message: impl Into<String>) -> ImportError {
        ImportError::new(self.file, element, message)
    }

    fn warn(&mut self, element: &str, message: impl AsRef<str>) {
        self.warnings
            .push(format!("{element}: {}", message.as_ref()));
    }

    // ---- buffers ----

    fn load_buffers(&mut self, mut bin: Option<&[u8]>, is_glb: bool) {
        let doc = self.doc;
        let mut bin_user = None;
        for buffer in doc.buffers() {
            let fallback = buffer
                .extension_value(EXT_MESHOPT_COMPRESSION)
                .and_then(|e| e.get("fallback"))
                .and_then(|f| f.as_bool())
                .unwrap_or(false);
            self.fallback_buffers.push(fallback);
            if fallback && matches!(buffer.source(), gltf::buffer::Source::Bin) {
                // Only compressed views point into it, and they read their own data.
                self.buffers.push(gltf::buffer::Data(Vec::new()));
                self.buffer_errors.push(Some(
                    "is an EXT_meshopt_compression fallback buffer without data".into(),
                ));
                continue;
            }
            let result = match buffer.source() {
                gltf::buffer::Source::Bin => match (bin.take(), bin_user) {
                    (Some(chunk), _) => {
                        bin_user = Some(buffer.index());
                        Ok(chunk.to_vec())
                    }
                    (None, Some(k)) => Err(format!(
                        "has no URI, and the GLB BIN chunk already supplies buffer {k}"
                    )),
                    (None, None) if is_glb => {
                        Err("has no URI and the GLB file has no BIN chunk".to_string())
                    }
                    (None, None) => Err(
                        "has no URI; only the first buffer of a .glb file may omit it".to_string(),
                    ),
                },
                gltf::buffer::Source::Uri(uri) => self.load_uri_buffer(&buffer, uri),
            };
            let declared = buffer.length();
            let result = result.and_then(|mut data| {
                if data.len() < declared {
                    return Err(format!(
                        "declares {declared} bytes but its data has only {}",
                        data.len()
                    ));
                }
                data.truncate(declared);
                Ok(data)
            });
            match result {
                Ok(data) => {
                    self.buffers.push(gltf::buffer::Data(data));
                    self.buffer_errors.push(None);
                }
                Err(e) => {
                    self.buffers.push(gltf::buffer::Data(Vec::new()));
                    self.buffer_errors.push(Some(e));
                }
            }
        }
    }

    /// Decodes every `EXT_meshopt_compression` buffer view once, before accessors read them.
    fn decode_meshopt_views(&mut self) {
        let doc = self.doc;
        let decoded: Vec<Option<Result<Vec<u8>, String>>> = doc
            .views()
            .map(|view| {
                let ext = view.extension_value(EXT_MESHOPT_COMPRESSION)?;
                Some(self.decode_meshopt_view(&view, ext))
            })
            .collect();
        self.decoded_views = decoded;
    }

    fn decode_meshopt_view(
        &self,
        view: &gltf::buffer::View<'_>,
        ext: &serde_json::Value,
    ) -> Result<Vec<u8>, String> {
        let m = super::meshopt::parse(ext)?;
        let b = m.buffer;
        let data = match (self.buffers.get(b), self.buffer_errors.get(b)) {
            (_, Some(Some(e))) => return Err(format!("buffer {b} {e}")),
            (Some(data), _) => &data.0,
            _ => return Err(format!("buffer {b} does not exist")),
        };
        let source = m
            .offset
            .checked_add(m.length)
            .and_then(|end| data.get(m.offset..end))
            .ok_or_else(|| {
                format!(
                    "bytes {}..{} lie outside buffer {b} ({} bytes)",
                    m.offset,
                    m.offset.saturating_add(m.length),
                    data.len()
                )
            })?;
        if m.count.checked_mul(m.stride) != Some(view.length()) {
            return Err(format!(
                "count {} x byteStride {} is not the view's byteLength {}",
                m.count,
                m.stride,
                view.length()
            ));
        }
        super::meshopt::decode(&m, source)
    }

    fn load_uri_buffer(&mut self, buffer: &gltf::Buffer<'_>, uri: &str) -> Result<Vec<u8>, String> {
        let (data, media) = self.read_uri(uri, buffer.length() as u64)?;
        if let Some(media) = media {
            if !matches!(
                media.as_str(),
                "" | "application/octet-stream" | "application/gltf-buffer"
            ) {
                let element = format!("buffer {}", buffer.index());
                self.warn(
                    &element,
                    format!("data URI has unexpected media type '{media}'"),
                );
            }
        }
        Ok(data)
    }

    /// Reads a data URI or a relative file path, at most `max_len` bytes. Returns the bytes
    /// and, for data URIs, the media type.
    fn read_uri(&self, uri: &str, max_len: u64) -> Result<(Vec<u8>, Option<String>), String> {
        if let Some(rest) = uri.strip_prefix("data:") {
            let (data, media) = decode_data_uri(rest)?;
            return Ok((data, Some(media)));
        }
        let path = self.resolve_relative_uri(uri)?;
        let meta = std::fs::metadata(&path)
            .map_err(|e| format!("cannot open '{}': {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!("'{}' is not a regular file", path.display()));
        }
        let file = std::fs::File::open(&path)
            .map_err(|e| format!("cannot open '{}': {e}", path.display()))?;
        let capacity = meta.len().min(max_len) as usize;
        let mut data = Vec::with_capacity(capacity);
        file.take(max_len)
            .read_to_end(&mut data)
            .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        Ok((data, None))
    }

    fn resolve_relative_uri(&self, uri: &str) -> Result<PathBuf, String> {
        if uri.is_empty() {
            return Err("has an empty URI".into());
        }
        if let Some(colon) = uri.find(':') {
            return Err(format!(
                "URI scheme '{}:' is not supported (only relative file paths and data: URIs are)",
                &uri[..colon]
            ));
        }
        let decoded = percent_decode(uri.as_bytes())
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| format!("URI '{uri}' has invalid percent-encoding"))?;
        if decoded.starts_with('/') || decoded.starts_with('\\') {
            return Err(format!(
                "URI '{uri}' is an absolute path; only relative paths are supported"
            ));
        }
        Ok(self.base_dir.join(decoded))
    }

    fn warn_unused_broken_buffers(&mut self) {
        let broken: Vec<(usize, String)> = self
            .buffer_errors
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.fallback_buffers.get(*i).copied().unwrap_or(false))
            .filter_map(|(i, e)| e.clone().map(|e| (i, e)))
            .collect();
        for (i, e) in broken {
            self.warn(
                &format!("buffer {i}"),
                format!("{e} (not used by anything imported)"),
            );
        }
    }

    /// The bytes of a buffer view, bounds-checked.
    fn view_bytes(&self, view: &gltf::buffer::View<'_>) -> Result<&[u8], String> {
        if let Some(decoded) = self
            .decoded_views
            .get(view.index())
            .and_then(Option::as_ref)
        {
            return decoded.as_deref().map_err(|e| {
                format!(
                    "buffer view {}: {EXT_MESHOPT_COMPRESSION}: {e}",
                    view.index()
                )
            });
        }
        let b = view.buffer().index();
        if let Some(e) = &self.buffer_errors[b] {
            return Err(format!("buffer {b} {e}"));
        }
        let data = &self.buffers[b].0;
        let start = view.offset();
        let len = view.length();
        start
            .checked_add(len)
            .and_then(|end| data.get(start..end))
            .ok_or_else(|| {
                format!(
                    "buffer view {} (bytes {start}..{}) lies outside buffer {b} ({} bytes)",
                    view.index(),
                    start.saturating_add(len),
                    data.len()
                )
            })
    }

    /// Reads an accessor (dense data, zero fill and sparse substitution), bounds-checked.
    fn read_accessor(&self, acc: &gltf::Accessor<'_>) -> Result<AccessorData, String> {
        let data_type = acc.data_type();
        let comp_size = data_type.size();
        let dims = acc.dimensions();
        if matches!(dims, Dimensions::Mat2 | Dimensions::Mat3 | Dimensions::Mat4) && comp_size < 4 {
            return Err("matrices with 8- or 16-bit components are not supported".into());
        }
        let elem = comp_size * dims.multiplicity();
        let count = acc.count();
        let total = count
            .checked_mul(elem)
            .ok_or_else(|| format!("count {count} is too large"))?;
        let mut bytes = match acc.view() {
            Some(view) => {
                let data = self.view_bytes(&view)?;
                let stride = view.stride().unwrap_or(elem);
                if stride < elem {
                    return Err(format!(
                        "buffer view {} has byte stride {stride}, smaller than one element \
                         ({elem} bytes)",
                        view.index()
                    ));
                }
                let offset = acc.offset();
                let end = match count {
                    0 => Some(offset),
                    _ => (count - 1)
                        .checked_mul(stride)
                        .and_then(|x| x.checked_add(offset))
                        .and_then(|x| x.checked_add(elem)),
                };
                let fits = end.is_some_and(|end| end <= data.len());
                if !fits {
                    return Err(format!(
                        "{count} elements of {elem} bytes at offset {offset} (stride {stride}) \
                         do not fit in buffer view {} ({} bytes)",
                        view.index(),
                        data.len()
                    ));
                }
                if stride == elem {
                    data[offset..offset + total].to_vec()
                } else {
                    let mut out = Vec::with_capacity(total);
                    for i in 0..count {
                        let s = offset + i * stride;
                        out.extend_from_slice(&data[s..s + elem]);
                    }
                    out
                }
            }
            None => {
                if total > MAX_ZERO_FILLED_BYTES {
                    return Err(format!(
                        "has no buffer view and declares {count} elements ({total} bytes of \
                         zeros), more than this importer accepts"
                    ));
                }
                vec![0; total]
            }
        };
        if let Some(sparse) = acc.sparse() {
            self.apply_sparse(&sparse, count, elem, &mut bytes)?;
        }
        Ok(AccessorData {
            data_type,
            normalized: acc.normalized(),
            bytes,
        })
    }

    fn apply_sparse(
        &self,
        sparse: &gltf::accessor::sparse::Sparse<'_>,
        count: usize,
        elem: usize,
        bytes: &mut [u8],
    ) -> Result<(), String> {
        let n = sparse.count();
        if n > count {
            return Err(format!(
                "sparse substitution count {n} exceeds the accessor count {count}"
            ));
        }
        let indices = sparse.indices();
        let index_size = indices.index_type().size();
        let index_data = self.view_bytes(&indices.view())?;
        let index_bytes = n
            .checked_mul(index_size)
            .and_then(|len| indices.offset().checked_add(len))
            .and_then(|end| index_data.get(indices.offset()..end))
            .ok_or("sparse indices do not fit in their buffer view")?;
        let values = sparse.values();
        let value_data = self.view_bytes(&values.view())?;
        let value_bytes = n
            .checked_mul(elem)
            .and_then(|len| values.offset().checked_add(len))
            .and_then(|end| value_data.get(values.offset()..end))
            .ok_or("sparse values do not fit in their buffer view")?;
        let mut previous: Option<usize> = None;
        for k in 0..n {
            let raw = &index_bytes[k * index_size..(k + 1) * index_size];
            let i = match index_size {
                1 => raw[0] as usize,
                2 => u16::from_le_bytes([raw[0], raw[1]]) as usize,
                _ => u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]) as usize,
            };
            if i >= count {
                return Err(format!(
                    "sparse index {k} is {i}, outside the accessor's {count} elements"
                ));
            }
            if previous.is_some_and(|p| p >= i) {
                return Err(format!(
                    "sparse indices are not strictly increasing at index {k}"
                ));
            }
            previous = Some(i);
            bytes[i * elem..(i + 1) * elem].copy_from_slice(&value_bytes[k * elem..(k + 1) * elem]);
        }
        Ok(())
    }

    /// Reads float data after checking the accessor's shape and component type.
    fn read_f32s(
        &self,
        acc: &gltf::Accessor<'_>,
        element: &str,
        role: &str,
        dims: Dimensions,
        formats: Formats<'_>,
    ) -> Result<Vec<f32>, ImportError> {
        self.check_format(acc, element, role, dims, formats)?;
        let data = self
            .read_accessor(acc)
            .map_err(|e| self.err(element, format!("{role} (accessor {}): {e}", acc.index())))?;
        debug_assert_eq!(data.component_count(), acc.count() * dims.multiplicity());
        Ok(data.to_f32())
    }

    /// Checks an accessor's shape and component type against what a role allows.
    fn check_format(
        &self,
        acc: &gltf::Accessor<'_>,
        element: &str,
        role: &str,
        dims: Dimensions,
        formats: Formats<'_>,
    ) -> Result<(), ImportError> {
        let normalized_ok = formats
            .iter()
            .any(|&(t, n)| t == acc.data_type() && (n == acc.normalized() || t == DataType::F32));
        if acc.dimensions() != dims || !normalized_ok {
            let allowed: Vec<String> = formats
                .iter()
                .map(|&(t, n)| {
                    format!(
                        "{} {}{}",
                        dims_name(dims),
                        type_name(t),
                        if n { " normalized" } else { "" }
                    )
                })
                .collect();
            return Err(self.err(
                element,
                format!(
                    "{role} (accessor {}) is {}; expected {}",
                    acc.index(),
                    format_name(acc),
                    allowed.join(" or ")
                ),
            ));
        }
        Ok(())
    }

    /// Reads unsigned integer data after checking the accessor's shape and type.
    fn read_u32s(
        &self,
        acc: &gltf::Accessor<'_>,
        element: &str,
        role: &str,
        dims: Dimensions,
        types: &[DataType],
    ) -> Result<Vec<u32>, ImportError> {
        if acc.dimensions() != dims || !types.contains(&acc.data_type()) || acc.normalized() {
            let allowed: Vec<String> = types
                .iter()
                .map(|&t| format!("{} {}", dims_name(dims), type_name(t)))
                .collect();
            return Err(self.err(
                element,
                format!(
                    "{role} (accessor {}) is {}; expected {}",
                    acc.index(),
                    format_name(acc),
                    allowed.join(" or ")
                ),
            ));
        }
        let data = self
            .read_accessor(acc)
            .map_err(|e| self.err(element, format!("{role} (accessor {}): {e}", acc.index())))?;
        Ok(data.to_u32())
    }

    // ---- node hierarchy and skeleton ----

    fn hierarchy(&mut self) -> Result<Hierarchy, ImportError> {
        let doc = self.doc;
        let n = doc.nodes().len();
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for node in doc.nodes() {
            let p = node.index();
            for child in node.children() {
                let c = child.index();
                match parent[c] {
                    Some(q) if q == p => {
                        return Err(self.err(
                            format!("node {c}"),
                            format!("is listed twice among the children of node {p}"),
                        ));
                    }
                    Some(q) => {
                        return Err(self.err(
                            format!("node {c}"),
                            format!("has two parents (nodes {q} and {p})"),
                        ));
                    }
                    None => parent[c] = Some(p),
                }
            }
        }
        // Every node has at most one parent now; a cycle is a loop of parent links.
        let mut state = vec![0u8; n]; // 0 unvisited, 1 on the current walk, 2 done
        for start in 0..n {
            let mut walk = Vec::new();
            let mut cur = Some(start);
            while let Some(c) = cur {
                match state[c] {
                    0 => {
                        state[c] = 1;
                        walk.push(c);
                        cur = parent[c];
                    }
                    1 => {
                        let from = walk.iter().position(|&x| x == c).unwrap_or(0);
                        let mut cycle: Vec<usize> = walk[from..].to_vec();
                        cycle.reverse(); // parent -> child order
                        let first = cycle.iter().copied().min().unwrap_or(c);
                        let rot = cycle.iter().position(|&x| x == first).unwrap_or(0);
                        cycle.rotate_left(rot);
                        let mut text: Vec<String> = cycle.iter().map(usize::to_string).collect();
                        text.push(first.to_string());
                        return Err(self.err(
                            format!("node {first}"),
                            format!(
                                "is part of a cycle in the node hierarchy (parent -> child: {})",
                                text.join(" -> ")
                            ),
                        ));
                    }
                    _ => break,
                }
            }
            for w in walk {
                state[w] = 2;
            }
        }

        // Roots: the requested scene, else the default one, else scene 0 (glTF: without
        // a default scene the choice is the application's; stacking every scene would
        // draw alternatives on top of each other), else every parentless node.
        let mut roots: Vec<usize> = Vec::new();
        let mut root_scene: Vec<usize> = Vec::new();
        let scene_count = doc.scenes().len();
        let chosen = match self.requested_scene {
            Some(s) if s >= scene_count => {
                return Err(self.err(
                    "scenes",
                    format!("scene {s} was asked for, but the file has {scene_count} scene(s)"),
                ));
            }
            Some(s) => Some(s),
            None => match doc.default_scene() {
                Some(scene) => Some(scene.index()),
                None if scene_count > 0 => {
                    if scene_count > 1 {
                        self.warn(
                            "scenes",
                            format!(
                                "no default scene: scene 0 of {scene_count} is shown (pick \
                                 another under Clips > Scene)"
                            ),
                        );
                    }
                    Some(0)
                }
                None => None,
            },
        };
        self.shown_scene = chosen;
        match chosen.and_then(|s| doc.scenes().nth(s)) {
            Some(scene) => {
                for node in scene.nodes() {
                    roots.push(node.index());
                    root_scene.push(scene.index());
                }
            }
            None => roots = (0..n).filter(|&i| parent[i].is_none()).collect(),
        }
        for (k, &r) in roots.iter().enumerate() {
            if let Some(p) = parent[r] {
                let scene = root_scene.get(k).copied().unwrap_or(0);
                return Err(self.err(
                    format!("scene {scene}"),
                    format!("lists node {r} as a root node, but it is a child of node {p}"),
                ));
            }
        }

        // Depth-first, parent before child, children in file order.
        let mut order = Vec::new();
        let mut joint_of_node: Vec<Option<usize>> = vec![None; n];
        let nodes: Vec<gltf::Node<'_>> = doc.nodes().collect();
        for &r in &roots {
            if joint_of_node[r].is_some() {
                continue; // listed twice
            }
            let mut stack = vec![r];
            while let Some(i) = stack.pop() {
                if joint_of_node[i].is_some() {
                    continue;
                }
                joint_of_node[i] = Some(order.len());
                order.push(i);
                let children: Vec<usize> = nodes[i].children().map(|c| c.index()).collect();
                stack.extend(children.into_iter().rev());
            }
        }
        Ok(Hierarchy {
            parent,
            order,
            joint_of_node,
        })
    }

    fn skeleton(&mut self, h: &Hierarchy) -> Result<Skeleton, ImportError> {
        let nodes: Vec<gltf::Node<'_>> = self.doc.nodes().collect();
        let mut names = Vec::with_capacity(h.order.len());
        let mut parents = Vec::with_capacity(h.order.len());
        let mut rest = Vec::with_capacity(h.order.len());
        for &i in &h.order {
            let node = &nodes[i];
            names.push(
                node.name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("node {i}")),
            );
            parents.push(h.parent[i].and_then(|p| h.joint_of_node[p]));
            rest.push(self.rest_pose(node)?);
        }
        Skeleton::new(names, parents, rest).map_err(|e| self.err("nodes", e.to_string()))
    }

    fn rest_pose(&mut self, node: &gltf::Node<'_>) -> Result<Transform, ImportError> {
        let element = format!("node {}", node.index());
        let json_node = &self.doc.as_json().nodes[node.index()];
        match node.transform() {
            gltf::scene::Transform::Matrix { matrix } => {
                if json_node.translation.is_some()
                    || json_node.rotation.is_some()
                    || json_node.scale.is_some()
                {
                    self.warn(
                        &element,
                        "has both a matrix and translation/rotation/scale; the matrix is used",
                    );
                }
                let m = Mat4::from_cols_array_2d(&matrix);
                if !m.is_finite() {
                    return Err(self.err(&element, "matrix has a value that is not finite"));
                }
                let row3 = m.row(3);
                if (row3 - Vec4::W).abs().max_element() > 1e-5 {
                    return Err(self.err(
                        &element,
                        format!(
                            "matrix is not an affine transform (last row is {} {} {} {}, \
                             expected 0 0 0 1)",
                            row3.x, row3.y, row3.z, row3.w
                        ),
                    ));
                }
                let det = m.determinant();
                if det.abs() < 1e-12 {
                    return Err(self.err(
                        &element,
                        "matrix is singular (a zero scale), so it cannot be decomposed into \
                         translation/rotation/scale",
                    ));
                }
                let t = Transform::from_mat4(&m);
                let back = t.to_mat4();
                let scale = m
                    .abs()
                    .to_cols_array()
                    .iter()
                    .fold(1.0f32, |a, &b| a.max(b));
                let diff = (back - m)
                    .abs()
                    .to_cols_array()
                    .iter()
                    .fold(0.0f32, |a, &b| a.max(b));
                if !t.is_finite() {
                    return Err(self.err(&element, "matrix cannot be decomposed into TRS"));
                }
                if diff > 1e-3 * scale {
                    self.warn(
                        &element,
                        "matrix has shear, which a joint transform cannot represent; \
                         approximated by translation/rotation/scale",
                    );
                }
                Ok(t)
            }
            gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } => {
                let translation = Vec3::from(translation);
                let scale = Vec3::from(scale);
                if !translation.is_finite() {
                    return Err(self.err(&element, "translation is not finite"));
                }
                if !scale.is_finite() {
                    return Err(self.err(&element, "scale is not finite"));
                }
                let q = Quat::from_array(rotation);
                if !q.is_finite() {
                    return Err(self.err(&element, "rotation is not finite"));
                }
                let len = q.length();
                if len == 0.0 {
                    return Err(self.err(&element, "rotation is a zero quaternion"));
                }
                if (len - 1.0).abs() > QUAT_NORM_TOLERANCE {
                    self.warn(
                        &element,
                        format!("rotation is not unit length (norm {len}); normalised"),
                    );
                }
                Ok(Transform {
                    translation,
                    rotation: q / len,
                    scale,
                })
            }
        }
    }

    // ---- skins ----

    fn skins(&mut self, h: &Hierarchy, skeleton: &Skeleton) -> Result<Skins, ImportError> {
        let doc = self.doc;
        // Skins used by a mesh node of the scene.
        let mut used = vec![false; doc.skins().len()];
        for &i in &h.order {
            let node = &doc.as_json().nodes[i];
            if let (Some(skin), Some(_)) = (node.skin, node.mesh) {
                used[skin.value()] = true;
            }
        }
        // Pass 1: structure of every skin (joints, hierarchy, accessor shape); pass 2: data.
        let mut kept: Vec<(gltf::Skin<'_>, Vec<usize>)> = Vec::new();
        for skin in doc.skins() {
            let s = skin.index();
            let element = format!("skin {s}");
            let joint_nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
            if joint_nodes.is_empty() {
                self.warn(&element, "has no joints");
            }
            if joint_nodes.len() > u16::MAX as usize + 1 {
                return Err(self.err(
                    &element,
                    format!(
                        "has {} joints; at most {} are supported",
                        joint_nodes.len(),
                        u16::MAX as usize + 1
                    ),
                ));
            }
            // All joints must hang below one common root node.
            if let Some(&first) = joint_nodes.first() {
                let root0 = h.top_root(first);
                for (j, &node) in joint_nodes.iter().enumerate().skip(1) {
                    if h.top_root(node) != root0 {
                        return Err(self.err(
                            &element,
                            format!(
                                "joint {j} (node {node}) has no common root with joint 0 \
                                 (node {first}): they belong to separate node hierarchies"
                            ),
                        ));
                    }
                }
            }
            if let Some(sk) = skin.skeleton() {
                let k = sk.index();
                if !joint_nodes.iter().all(|&j| h.is_ancestor_or_self(k, j)) {
                    self.warn(
                        &element,
                        format!(
                            "its skeleton node {k} is not a common root of its joints; ignored"
                        ),
                    );
                }
            }
            if let Some(acc) = skin.inverse_bind_matrices() {
                if acc.count() < joint_nodes.len() {
                    return Err(self.err(
                        &element,
                        format!(
                            "has {} joints but only {} inverse bind matrices (accessor {})",
                            joint_nodes.len(),
                            acc.count(),
                            acc.index()
                        ),
                    ));
                }
                self.check_format(
                    &acc,
                    &element,
                    "inverse bind matrices",
                    Dimensions::Mat4,
                    FLOAT_ONLY,
                )?;
            }
            let missing = joint_nodes
                .iter()
                .enumerate()
                .find(|&(_, &node)| h.joint_of_node[node].is_none());
            if let Some((j, &node)) = missing {
                if used[s] {
                    return Err(self.err(
                        &element,
                        format!(
                            "joint {j} (node {node}) is not in the scene, but a mesh in the \
                             scene is skinned to it"
                        ),
                    ));
                }
                self.warn(
                    &element,
                    format!(
                        "joint {j} (node {node}) is not in the scene and no mesh in the scene \
                         uses the skin; skipped"
                    ),
                );
                continue;
            }
            let joints = joint_nodes
                .iter()
                .filter_map(|&node| h.joint_of_node[node])
                .collect();
            kept.push((skin, joints));
        }
        let mut out = Skins {
            skins: Vec::new(),
            model_index: vec![None; doc.skins().len()],
        };
        for (skin, joints) in kept {
            let s = skin.index();
            let element = format!("skin {s}");
            let inverse_bind = self.inverse_bind_matrices(&skin, &element, joints.len())?;
            let name = skin
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| element.clone());
            let skin = Skin::new(name, joints, inverse_bind, skeleton)
                .map_err(|e| self.err(&element, e.to_string()))?;
            out.model_index[s] = Some(out.skins.len());
            out.skins.push(skin);
        }
        Ok(out)
    }

    fn inverse_bind_matrices(
        &mut self,
        skin: &gltf::Skin<'_>,
        element: &str,
        joint_count: usize,
    ) -> Result<Vec<Mat4>, ImportError> {
        let Some(acc) = skin.inverse_bind_matrices() else {
            return Ok(vec![Mat4::IDENTITY; joint_count]);
        };
        let values = self.read_f32s(
            &acc,
            element,
            "inverse bind matrices",
            Dimensions::Mat4,
            FLOAT_ONLY,
        )?;
        let mut out = Vec::with_capacity(joint_count);
        for (i, cols) in values.chunks_exact(16).take(joint_count).enumerate() {
            let m = Mat4::from_cols_slice(cols);
            if !m.is_finite() {
                return Err(self.err(
                    element,
                    format!("inverse bind matrix {i} has a value that is not finite"),
                ));
            }
            let row3 = m.row(3);
            if (row3 - Vec4::W).abs().max_element() > 1e-5 {
                return Err(self.err(
                    element,
                    format!(
                        "inverse bind matrix {i} is not an affine transform (last row is {} {} \
                         {} {}, expected 0 0 0 1)",
                        row3.x, row3.y, row3.z, row3.w
                    ),
                ));
            }
            out.push(m);
        }
        Ok(out)
    }

    // ---- materials and images ----

    /// The decoded image of a texture (decoded once per glTF image, cached in
    /// `image_of`), or `None` with a warning when it cannot be read; `role` names the slot.
    fn texture_image(
        &mut self,
        texture: &gltf::Texture<'_>,
        tex_coord: u32,
        role: &str,
        element: &str,
        images: &mut Vec<Image>,
        image_of: &mut HashMap<usize, Option<usize>>,
    ) -> Option<usize> {
        let doc = self.doc;
        if tex_coord != 0 {
            self.warn(
                element,
                format!("{role} texture uses TEXCOORD_{tex_coord}; only TEXCOORD_0 is imported"),
            );
        }
        let t = texture.index();
        let source = doc.as_json().textures[t].source.value();
        if source >= doc.images().len() {
            self.warn(
                element,
                format!("{role} texture {t} has no image this importer can read; drawn without it"),
            );
            return None;
        }
        let image = texture.source();
        let gi = image.index();
        if let Some(&cached) = image_of.get(&gi) {
            return cached;
        }
        // A decoder panic on a corrupt image costs the texture, not the file.
        let result = panic::catch_unwind(AssertUnwindSafe(|| self.decode_image(&image)))
            .unwrap_or_else(|p| Err(format!("the decoder failed: {}", panic_message(p.as_ref()))));
        let decoded = match result {
            Ok(img) => {
                self.total_image_bytes += img.rgba8.len();
                if self.total_image_bytes > MAX_TOTAL_IMAGE_BYTES {
                    self.warn(
                        &format!("image {gi}"),
                        "skipped: the file's images exceed the size limit",
                    );
                    None
                } else {
                    images.push(img);
                    Some(images.len() - 1)
                }
            }
            Err(e) => {
                self.warn(
                    &format!("image {gi}"),
                    format!(
                        "cannot be decoded ({e}); {element} is drawn without its {role} texture"
                    ),
                );
                None
            }
        };
        image_of.insert(gi, decoded);
        decoded
    }

    fn materials(&mut self) -> (Vec<Material>, Vec<Image>) {
        let doc = self.doc;
        let mut images = Vec::new();
        let mut image_of: HashMap<usize, Option<usize>> = HashMap::new();
        let mut materials = Vec::new();
        for material in doc.materials() {
            let m = material.index().unwrap_or(materials.len());
            let element = format!("material {m}");
            let pbr = material.pbr_metallic_roughness();
            let mut factor = Vec4::from(pbr.base_color_factor());
            if !factor.is_finite() {
                self.warn(&element, "base colour factor is not finite; white is used");
                factor = Vec4::ONE;
            }
            let mut base_color_image = None;
            let transform = pbr
                .base_color_texture()
                .and_then(|info| info.texture_transform());
            let uv = match &transform {
                Some(t) => {
                    if t.tex_coord().is_some_and(|c| c != 0) {
                        self.warn(
                            &element,
                            "texture transform selects another TEXCOORD; only TEXCOORD_0 is \
                             imported",
                        );
                    }
                    let m = uv_transform(t.offset(), t.rotation(), t.scale());
                    if m.is_some_and(|m| !m.is_finite()) {
                        self.warn(&element, "texture transform is not finite; ignored");
                        None
                    } else {
                        m
                    }
                }
                None => None,
            };
            self.uv_transforms.push(uv);
            if let Some(info) = pbr.base_color_texture() {
                base_color_image = self.texture_image(
                    &info.texture(),
                    info.tex_coord(),
                    "base colour",
                    &element,
                    &mut images,
                    &mut image_of,
                );
            }
            let mut emissive_factor = Vec3::from(material.emissive_factor());
            if !emissive_factor.is_finite() {
                self.warn(
                    &element,
                    "emissive factor is not finite; no emission is used",
                );
                emissive_factor = Vec3::ZERO;
            }
            let emissive_image = match material.emissive_texture() {
                Some(info) => self.texture_image(
                    &info.texture(),
                    info.tex_coord(),
                    "emissive",
                    &element,
                    &mut images,
                    &mut image_of,
                ),
                None => None,
            };
            let alpha_mode = match material.alpha_mode() {
                gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                gltf::material::AlphaMode::Mask => {
                    let cutoff = material.alpha_cutoff().unwrap_or(0.5);
                    if cutoff.is_finite() && cutoff >= 0.0 {
                        AlphaMode::Mask(cutoff)
                    } else {
                        self.warn(
                            &element,
                            format!("alphaCutoff {cutoff} is invalid; 0.5 is used"),
                        );
                        AlphaMode::Mask(0.5)
                    }
                }
                gltf::material::AlphaMode::Blend => AlphaMode::Blend,
            };
            materials.push(Material {
                name: material
                    .name()
                    .map(str::to_string)
                    .unwrap_or_else(|| element.clone()),
                base_color_factor: factor,
                base_color_image,
                alpha_mode,
                double_sided: material.double_sided(),
                emissive_factor,
                emissive_image,
            });
        }
        (materials, images)
    }

    fn decode_image(&self, image: &gltf::Image<'_>) -> Result<Image, String> {
        match image.source() {
            gltf::image::Source::View { view, .. } => {
                // Check the range here: the gltf crate slices without checking.
                self.view_bytes(&view)?;
            }
            gltf::image::Source::Uri { uri, .. } => {
                if !uri.starts_with("data:") {
                    let path = self.resolve_relative_uri(uri)?;
                    let meta = std::fs::metadata(&path)
                        .map_err(|e| format!("cannot open '{}': {e}", path.display()))?;
                    if !meta.is_file() {
                        return Err(format!("'{}' is not a regular file", path.display()));
                    }
                    if meta.len() > MAX_EXTERNAL_IMAGE_BYTES {
                        return Err(format!(
                            "'{}' is {} bytes, larger than this importer reads",
                            path.display(),
                            meta.len()
                        ));
                    }
                }
            }
        }
        let data =
            gltf::image::Data::from_source(image.source(), Some(&self.base_dir), &self.buffers)
                .map_err(|e| e.to_string())?;
        to_rgba8(&data)
    }

    // ---- meshes ----

    fn meshes(&mut self, h: &Hierarchy, skins: &Skins) -> Result<Vec<Mesh>, ImportError> {
        let doc = self.doc;
        let nodes: Vec<gltf::Node<'_>> = doc.nodes().collect();
        let mut meshes = Vec::new();
        let mut cache: HashMap<(usize, Option<usize>), Vec<Primitive>> = HashMap::new();
        for (joint, &i) in h.order.iter().enumerate() {
            let node = &nodes[i];
            let node_el = format!("node {i}");
            let Some(mesh) = node.mesh() else {
                if node.skin().is_some() {
                    self.warn(
                        &node_el,
                        "has a skin but no mesh; the skin is ignored there",
                    );
                }
                continue;
            };
            let m = mesh.index();
            let has_joints = mesh
                .primitives()
                .any(|p| p.get(&Semantic::Joints(0)).is_some());
            let mut skin = node.skin().and_then(|s| skins.model_index[s.index()]);
            if skin.is_some() && !has_joints {
                self.warn(
                    &node_el,
                    format!("has a skin but mesh {m} has no JOINTS_0/WEIGHTS_0; drawn unskinned"),
                );
                skin = None;
            } else if node.skin().is_none() && has_joints {
                self.warn(
                    &node_el,
                    format!(
                        "mesh {m} has skinning attributes but the node has no skin; drawn \
                         unskinned"
                    ),
                );
            }
            let primitives = match cache.get(&(m, skin)) {
                Some(p) => {
                    let count: usize = p.iter().map(|p| p.positions.len()).sum();
                    self.count_vertices(&format!("mesh {m}"), count)?;
                    p.clone()
                }
                None => {
                    let skin_info = skin.map(|s| (s, skins.skins[s].joints.len()));
                    let mut prims = Vec::new();
                    for prim in mesh.primitives() {
                        let element = format!("mesh {m} primitive {}", prim.index());
                        if let Some(p) = self.primitive(&prim, &element, skin_info)? {
                            prims.push(p);
                        }
                    }
                    cache.insert((m, skin), prims.clone());
                    prims
                }
            };
            let (morph_weights, target_names) =
                self.morph_defaults(&mesh, node, &node_el, &primitives)?;
            meshes.push(Mesh {
                name: mesh
                    .name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("mesh {m}")),
                joint,
                skin,
                primitives,
                morph_weights,
                target_names,
            });
        }
        Ok(meshes)
    }

    /// The default morph weights of a mesh instance (node weights, else mesh weights,
    /// else 0) and its target names (`extras.targetNames`, else `target N`). Every
    /// primitive must have the same number of targets, and the weights one per target.
    fn morph_defaults(
        &mut self,
        mesh: &gltf::Mesh<'_>,
        node: &gltf::Node<'_>,
        node_el: &str,
        primitives: &[Primitive],
    ) -> Result<(Vec<f32>, Vec<String>), ImportError> {
        let m = mesh.index();
        let counts: Vec<usize> = mesh.primitives().map(|p| p.morph_targets().len()).collect();
        let targets = counts.first().copied().unwrap_or(0);
        if let Some(k) = counts.iter().position(|&c| c != targets) {
            return Err(self.err(
                format!("mesh {m}"),
                format!(
                    "primitive {k} has {} morph targets but primitive 0 has {targets}; every \
                     primitive of a mesh must have the same number",
                    counts[k]
                ),
            ));
        }
        debug_assert!(primitives.iter().all(|p| p.morph_targets.len() == targets));
        let mut weights = vec![0.0f32; targets];
        for (what, element, given) in [
            ("mesh", format!("mesh {m}"), mesh.weights()),
            ("node", node_el.to_string(), node.weights()),
        ] {
            let Some(given) = given else { continue };
            if given.len() != targets {
                self.warn(
                    &element,
                    format!(
                        "{what} weights has {} entries but the mesh has {targets} morph \
                         targets; ignored",
                        given.len()
                    ),
                );
                continue;
            }
            if let Some(k) = given.iter().position(|w| !w.is_finite()) {
                return Err(self.err(&element, format!("{what} weight {k} is not finite")));
            }
            weights.copy_from_slice(given);
        }
        let mut names: Vec<String> = (0..targets).map(|k| format!("target {k}")).collect();
        if let Some(raw) = mesh.extras().as_ref() {
            let list = serde_json::from_str::<serde_json::Value>(raw.get())
                .ok()
                .and_then(|v| v.get("targetNames").cloned());
            match list.as_ref().and_then(|l| l.as_array()) {
                Some(list) if list.len() == targets => {
                    for (name, v) in names.iter_mut().zip(list) {
                        if let Some(text) = v.as_str() {
                            *name = text.to_string();
                        }
                    }
                }
                Some(list) => self.warn(
                    &format!("mesh {m}"),
                    format!(
                        "extras.targetNames has {} names for {targets} morph targets; ignored",
                        list.len()
                    ),
                ),
                None => {}
            }
        }
        Ok((weights, names))
    }

    fn count_vertices(&mut self, element: &str, n: usize) -> Result<(), ImportError> {
        self.total_vertices += n;
        if self.total_vertices > MAX_TOTAL_VERTICES {
            return Err(self.err(
                element,
                format!("the file has more than {MAX_TOTAL_VERTICES} vertices in all; too large to import"),
            ));
        }
        Ok(())
    }

    /// Reads one primitive; `None` when it is skipped (not a triangle list).
    fn primitive(
        &mut self,
        prim: &gltf::Primitive<'_>,
        element: &str,
        skin: Option<(usize, usize)>,
    ) -> Result<Option<Primitive>, ImportError> {
        if prim.mode() != Mode::Triangles {
            self.warn(
                element,
                format!(
                    "uses mode {:?}; only triangle lists are drawn, skipped",
                    prim.mode()
                ),
            );
            return Ok(None);
        }
        let Some(pos_acc) = prim.get(&Semantic::Positions) else {
            // Valid glTF (an extension may supply the geometry); nothing to draw here.
            self.warn(element, "has no POSITION attribute; skipped");
            return Ok(None);
        };
        let position_formats = if self.quantized {
            QUANTIZED_POSITION
        } else {
            if pos_acc.data_type() != DataType::F32 {
                return Err(self.err(
                    element,
                    format!(
                        "POSITION (accessor {}) is {}: integer vertex attributes need the \
                         KHR_mesh_quantization extension, which the file does not declare",
                        pos_acc.index(),
                        format_name(&pos_acc)
                    ),
                ));
            }
            FLOAT_ONLY
        };
        let positions = self.read_vec3s_as(&pos_acc, element, "POSITION", position_formats)?;
        if let Some(v) = positions.iter().position(|p| !p.is_finite()) {
            return Err(self.err(element, format!("POSITION of vertex {v} is not finite")));
        }
        let n = positions.len();
        self.count_vertices(element, n)?;
        let check_len = |this: &Self, role: &str, len: usize| {
            if len == n {
                Ok(())
            } else {
                Err(this.err(
                    element,
                    format!("{role} has {len} elements but POSITION has {n}"),
                ))
            }
        };

        // Indices.
        let indices = match prim.indices() {
            Some(acc) => {
                let mut idx = self.read_u32s(
                    &acc,
                    element,
                    "indices",
                    Dimensions::Scalar,
                    &[DataType::U8, DataType::U16, DataType::U32],
                )?;
                if let Some(k) = idx.iter().position(|&i| i as usize >= n) {
                    return Err(self.err(
                        element,
                        format!(
                            "index {k} refers to vertex {}, but the primitive has only {n} \
                             vertices",
                            idx[k]
                        ),
                    ));
                }
                if idx.len() % 3 != 0 {
                    self.warn(
                        element,
                        format!(
                            "{} indices is not a multiple of 3; the last partial triangle is \
                             dropped",
                            idx.len()
                        ),
                    );
                    idx.truncate(idx.len() / 3 * 3);
                }
                idx
            }
            None => {
                if n % 3 != 0 {
                    self.warn(
                        element,
                        format!(
                            "{n} vertices without indices is not a multiple of 3; the last \
                             partial triangle is dropped"
                        ),
                    );
                }
                (0..(n / 3 * 3) as u32).collect()
            }
        };
        self.total_indices += indices.len();
        if self.total_indices > MAX_TOTAL_INDICES {
            return Err(self.err(
                element,
                format!("the file has more than {MAX_TOTAL_INDICES} indices in all; too large to import"),
            ));
        }

        // Normals (generated when absent), tangents, texture coordinates.
        let normals = match prim.get(&Semantic::Normals) {
            Some(acc) => {
                let normals =
                    self.read_vec3s_as(&acc, element, "NORMAL", self.direction_formats())?;
                check_len(self, "NORMAL", normals.len())?;
                if let Some(v) = normals.iter().position(|p| !p.is_finite()) {
                    return Err(self.err(element, format!("NORMAL of vertex {v} is not finite")));
                }
                normals
                    .into_iter()
                    .map(|v| v.normalize_or(Vec3::Z))
                    .collect()
            }
            // Flat normals come last (see `flat_normals`), once every attribute is read.
            None => Vec::new(),
        };
        let tangents = match prim.get(&Semantic::Tangents) {
            Some(acc) => {
                let t = self.read_f32s(
                    &acc,
                    element,
                    "TANGENT",
                    Dimensions::Vec4,
                    self.direction_formats(),
                )?;
                let t: Vec<Vec4> = t.chunks_exact(4).map(Vec4::from_slice).collect();
                check_len(self, "TANGENT", t.len())?;
                if t.iter().any(|v| !v.is_finite()) {
                    return Err(self.err(element, "TANGENT has values that are not finite"));
                }
                t
            }
            None => Vec::new(),
        };
        let uvs = match prim.get(&Semantic::TexCoords(0)) {
            Some(acc) => {
                let uv = self.read_f32s(
                    &acc,
                    element,
                    "TEXCOORD_0",
                    Dimensions::Vec2,
                    if self.quantized {
                        QUANTIZED_TEXCOORD
                    } else {
                        CORE_TEXCOORD
                    },
                )?;
                let mut uv: Vec<Vec2> = uv.chunks_exact(2).map(Vec2::from_slice).collect();
                let transform = prim
                    .material()
                    .index()
                    .and_then(|m| self.uv_transforms.get(m).copied().flatten());
                if let Some(t) = transform {
                    for p in &mut uv {
                        *p = t.transform_point2(*p);
                    }
                }
                check_len(self, "TEXCOORD_0", uv.len())?;
                if uv.iter().any(|v| !v.is_finite()) {
                    return Err(self.err(element, "TEXCOORD_0 has values that are not finite"));
                }
                uv
            }
            None => Vec::new(),
        };

        let colors = match prim.get(&Semantic::Colors(0)) {
            Some(acc) => {
                let rgba = acc.dimensions() == Dimensions::Vec4;
                let dims = if rgba {
                    Dimensions::Vec4
                } else {
                    Dimensions::Vec3
                };
                let raw = self.read_f32s(
                    &acc,
                    element,
                    "COLOR_0",
                    dims,
                    &[
                        (DataType::F32, false),
                        (DataType::U8, true),
                        (DataType::U16, true),
                    ],
                )?;
                let colors: Vec<Vec4> = if rgba {
                    raw.chunks_exact(4).map(Vec4::from_slice).collect()
                } else {
                    raw.chunks_exact(3)
                        .map(|c| Vec3::from_slice(c).extend(1.0))
                        .collect()
                };
                check_len(self, "COLOR_0", colors.len())?;
                if colors.iter().any(|c| !c.is_finite()) {
                    return Err(self.err(element, "COLOR_0 has values that are not finite"));
                }
                colors
            }
            None => Vec::new(),
        };

        // Skinning attributes.
        let mut joints = vec![[0u16; MAX_INFLUENCES]; n];
        let mut weights = vec![[0f32; MAX_INFLUENCES]; n];
        if skin.is_none() {
            // Unskinned: every vertex follows palette entry 0, which the pose evaluation
            // sets to the mesh node's model transform (`PoseMatrices::mesh_palette`).
            for w in &mut weights {
                w[0] = 1.0;
            }
        }
        if let Some((skin_index, joint_count)) = skin {
            for set in 0..2u32 {
                let j_acc = prim.get(&Semantic::Joints(set));
                let w_acc = prim.get(&Semantic::Weights(set));
                let (j_acc, w_acc) = match (j_acc, w_acc) {
                    (Some(j), Some(w)) => (j, w),
                    (None, None) => continue,
                    (Some(_), None) => {
                        return Err(
                            self.err(element, format!("has JOINTS_{set} but no WEIGHTS_{set}"))
                        );
                    }
                    (None, Some(_)) => {
                        return Err(
                            self.err(element, format!("has WEIGHTS_{set} but no JOINTS_{set}"))
                        );
                    }
                };
                let js = self.read_u32s(
                    &j_acc,
                    element,
                    &format!("JOINTS_{set}"),
                    Dimensions::Vec4,
                    &[DataType::U8, DataType::U16],
                )?;
                let ws = self.read_f32s(
                    &w_acc,
                    element,
                    &format!("WEIGHTS_{set}"),
                    Dimensions::Vec4,
                    &[
                        (DataType::F32, false),
                        (DataType::U8, true),
                        (DataType::U16, true),
                    ],
                )?;
                check_len(self, &format!("JOINTS_{set}"), js.len() / 4)?;
                check_len(self, &format!("WEIGHTS_{set}"), ws.len() / 4)?;
                let base = set as usize * 4;
                for v in 0..n {
                    for k in 0..4 {
                        let w = ws[v * 4 + k];
                        let j = js[v * 4 + k] as usize;
                        if !w.is_finite() || w < 0.0 {
                            return Err(self.err(
                                element,
                                format!(
                                    "vertex {v}: WEIGHTS_{set} component {k} is {w}; weights \
                                     must be finite and non-negative"
                                ),
                            ));
                        }
                        if j >= joint_count {
                            if w > 0.0 {
                                return Err(self.err(
                                    element,
                                    format!(
                                        "vertex {v}: JOINTS_{set} component {k} is joint {j}, \
                                         but skin {skin_index} has only {joint_count} joints"
                                    ),
                                ));
                            }
                            continue; // zero weight: unused slot, keep joint 0
                        }
                        joints[v][base + k] = j as u16;
                        weights[v][base + k] = w;
                    }
                }
            }
            if prim.get(&Semantic::Joints(2)).is_some() {
                self.warn(
                    element,
                    "has more than 8 influences per vertex (JOINTS_2...); only the first 8 are used",
                );
            }
        }

        let morph_targets = self.morph_targets(prim, element, n)?;
        let mut primitive = Primitive {
            positions,
            normals,
            tangents,
            uvs,
            colors,
            indices,
            joints,
            weights,
            material: prim.material().index(),
            morph_targets,
        };
        if primitive.normals.is_empty() {
            flat_normals(&mut primitive);
        }
        Ok(Some(primitive))
    }

    /// The primitive's morph targets: POSITION, NORMAL and TANGENT deltas (sparse
    /// accessors included; with KHR_mesh_quantization also normalized integers), each
    /// with one value per vertex.
    fn morph_targets(
        &mut self,
        prim: &gltf::Primitive<'_>,
        element: &str,
        n: usize,
    ) -> Result<Vec<MorphTarget>, ImportError> {
        let mut targets = Vec::new();
        for (k, target) in prim.morph_targets().enumerate() {
            let position_formats = if self.quantized {
                QUANTIZED_POSITION
            } else {
                FLOAT_ONLY
            };
            let mut out = MorphTarget::default();
            for (role, acc, formats, slot) in [
                (
                    "POSITION",
                    target.positions(),
                    position_formats,
                    &mut out.positions,
                ),
                (
                    "NORMAL",
                    target.normals(),
                    self.direction_formats(),
                    &mut out.normals,
                ),
                (
                    "TANGENT",
                    target.tangents(),
                    self.direction_formats(),
                    &mut out.tangents,
                ),
            ] {
                let Some(acc) = acc else { continue };
                let what = format!("morph target {k} {role}");
                let v = self.read_vec3s_as(&acc, element, &what, formats)?;
                if v.len() != n {
                    return Err(self.err(
                        element,
                        format!("{what} has {} elements but POSITION has {n}", v.len()),
                    ));
                }
                if let Some(i) = v.iter().position(|d| !d.is_finite()) {
                    return Err(self.err(element, format!("{what} of vertex {i} is not finite")));
                }
                *slot = v;
            }
            targets.push(out);
        }
        Ok(targets)
    }

    fn read_vec3s_as(
        &self,
        acc: &gltf::Accessor<'_>,
        element: &str,
        role: &str,
        formats: Formats<'_>,
    ) -> Result<Vec<Vec3>, ImportError> {
        let v = self.read_f32s(acc, element, role, Dimensions::Vec3, formats)?;
        Ok(v.chunks_exact(3).map(Vec3::from_slice).collect())
    }

    /// NORMAL / TANGENT formats: float, or with KHR_mesh_quantization normalized 8/16-bit.
    fn direction_formats(&self) -> Formats<'static> {
        if self.quantized {
            QUANTIZED_DIRECTION
        } else {
            FLOAT_ONLY
        }
    }

    // ---- animations ----

    fn clips(&mut self, h: &Hierarchy, joint_count: usize) -> Result<Vec<Clip>, ImportError> {
        let doc = self.doc;
        let mut clips = Vec::new();
        let mut names: HashSet<String> = HashSet::new();
        for animation in doc.animations() {
            if let Some(clip) = self.clip(&animation, h, joint_count, &mut names)? {
                clips.push(clip);
            }
        }
        Ok(clips)
    }

    fn clip(
        &mut self,
        animation: &gltf::Animation<'_>,
        h: &Hierarchy,
        joint_count: usize,
        names: &mut HashSet<String>,
    ) -> Result<Option<Clip>, ImportError> {
        let a = animation.index();
        let anim_el = format!("animation {a}");
        let mut tracks: BTreeMap<usize, JointTracks> = BTreeMap::new();
        let mut targets: HashMap<(usize, u8), usize> = HashMap::new();
        let mut outside_scene = Vec::new();
        let mut skipped_morph = Vec::new();
        let mut morph: Vec<MorphTrack> = Vec::new();
        for (k, channel) in animation.channels().enumerate() {
            let c = original_channel(&self.channel_map, a, k);
            let element = format!("animation {a} channel {c}");
            let target = channel.target();
            let node = target.node().index();
            let property = target.property();
            let (code, path_name) = match property {
                Property::Translation => (0u8, "translation"),
                Property::Rotation => (1, "rotation"),
                Property::Scale => (2, "scale"),
                Property::MorphTargetWeights => (3, "morph weights"),
            };
            if let Some(previous) = targets.insert((node, code), c) {
                return Err(self.err(
                    &element,
                    format!(
                        "animates the {path_name} of node {node}, which channel {previous} \
                         already animates (duplicate channel target)"
                    ),
                ));
            }
            // Weights per key: one per morph target of the node's mesh.
            let morph_targets = if property == Property::MorphTargetWeights {
                let targets = target
                    .node()
                    .mesh()
                    .and_then(|m| m.primitives().next())
                    .map_or(0, |p| p.morph_targets().len());
                if targets == 0 {
                    skipped_morph.push(c);
                    continue;
                }
                targets
            } else {
                1
            };
            let Some(joint) = h.joint_of_node[node] else {
                outside_scene.push(c);
                continue;
            };
            let sampler = channel.sampler();
            let s = sampler.index();
            let interpolation = match sampler.interpolation() {
                GltfInterpolation::Step => Interpolation::Step,
                GltfInterpolation::Linear => Interpolation::Linear,
                GltfInterpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let input = sampler.input();
            let times = self.read_f32s(
                &input,
                &element,
                &format!("sampler {s} input (key times)"),
                Dimensions::Scalar,
                FLOAT_ONLY,
            )?;
            if let Err(m) = check_key_times(&times) {
                return Err(self.err(
                    &element,
                    format!("{m} (sampler {s}, accessor {})", input.index()),
                ));
            }
            self.total_keys += times.len();
            if self.total_keys > MAX_TOTAL_KEYS {
                return Err(self.err(
                    &element,
                    format!(
                        "the file has more than {MAX_TOTAL_KEYS} keys in all; too large to import"
                    ),
                ));
            }
            let per_key = if interpolation == Interpolation::CubicSpline {
                if times.len() < 2 {
                    return Err(self.err(
                        &element,
                        format!(
                            "sampler {s} uses CUBICSPLINE interpolation with {} key(s); at least \
                             2 are needed",
                            times.len()
                        ),
                    ));
                }
                3
            } else {
                1
            };
            let output = sampler.output();
            let expected = times.len() * per_key * morph_targets;
            if output.count() != expected {
                return Err(self.err(
                    &element,
                    format!(
                        "sampler {s} has {} key times but {} output values (accessor {}); \
                         expected {expected}{}",
                        times.len(),
                        output.count(),
                        output.index(),
                        match (per_key, morph_targets) {
                            (3, 1) => " (in-tangent, value, out-tangent per key)".to_string(),
                            (1, 1) => String::new(),
                            (_, t) => format!(
                                " ({per_key} x {t} per key: one weight per morph target{})",
                                if per_key == 3 {
                                    ", in-tangent, value, out-tangent"
                                } else {
                                    ""
                                }
                            ),
                        }
                    ),
                ));
            }
            let role = format!("sampler {s} output ({path_name})");
            if property == Property::MorphTargetWeights {
                let values = self.read_f32s(
                    &output,
                    &element,
                    &role,
                    Dimensions::Scalar,
                    ANIMATION_OUTPUT_FORMATS,
                )?;
                let track = MorphTrack::new(
                    joint,
                    morph_targets,
                    interpolation,
                    times,
                    values,
                    "morph weights",
                )
                .map_err(|e| self.err(&element, e.to_string()))?;
                morph.push(track);
                continue;
            }
            let entry = tracks
                .entry(joint)
                .or_insert_with(|| JointTracks::new(joint));
            match property {
                Property::Translation | Property::Scale => {
                    let mut raw =
                        self.read_f32s(&output, &element, &role, Dimensions::Vec3, FLOAT_ONLY)?;
                    flush_tiny(&mut raw);
                    let values: Vec<Vec3> = raw.chunks_exact(3).map(Vec3::from_slice).collect();
                    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                        return Err(
                            self.err(&element, format!("{path_name} value {i} is not finite"))
                        );
                    }
                    let track = Track::new(interpolation, times, values, "track")
                        .map_err(|e| self.err(&element, e.to_string()))?;
                    if property == Property::Translation {
                        entry.translation = Some(track);
                    } else {
                        entry.scale = Some(track);
                    }
                }
                Property::Rotation => {
                    let mut raw = self.read_f32s(
                        &output,
                        &element,
                        &role,
                        Dimensions::Vec4,
                        ANIMATION_OUTPUT_FORMATS,
                    )?;
                    flush_tiny(&mut raw);
                    let mut values: Vec<Quat> = raw.chunks_exact(4).map(Quat::from_slice).collect();
                    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                        return Err(self.err(&element, format!("rotation value {i} is not finite")));
                    }
                    let mut off_unit = 0usize;
                    let mut worst = 1.0f32;
                    for key in 0..times.len() {
                        // Cubic splines: only the value is a rotation; tangents are not.
                        let i = key * per_key + per_key / 2;
                        let len = values[i].length();
                        if len == 0.0 {
                            return Err(self.err(
                                &element,
                                format!("rotation key {key} is a zero quaternion"),
                            ));
                        }
                        if (len - 1.0).abs() > QUAT_NORM_TOLERANCE {
                            off_unit += 1;
                            if (len - 1.0).abs() > (worst - 1.0).abs() {
                                worst = len;
                            }
                        }
                        values[i] /= len;
                    }
                    if off_unit > 0 {
                        self.warn(
                            &element,
                            format!(
                                "{off_unit} of {} rotation keys are not unit length (worst norm \
                                 {worst}); normalised",
                                times.len()
                            ),
                        );
                    }
                    let track = Track::new(interpolation, times, values, "track")
                        .map_err(|e| self.err(&element, e.to_string()))?;
                    entry.rotation = Some(track);
                }
                Property::MorphTargetWeights => {}
            }
        }
        if !outside_scene.is_empty() {
            let list: Vec<String> = outside_scene.iter().map(usize::to_string).collect();
            self.warn(
                &anim_el,
                format!(
                    "channel(s) {} target nodes that are not in the scene; skipped",
                    list.join(", ")
                ),
            );
        }
        if !skipped_morph.is_empty() {
            let list: Vec<String> = skipped_morph.iter().map(usize::to_string).collect();
            self.warn(
                &anim_el,
                format!(
                    "morph-weight channel(s) {} target nodes without morph targets; skipped",
                    list.join(", ")
                ),
            );
        }
        let base_name = animation
            .name()
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| anim_el.clone());
        if tracks.is_empty() && morph.is_empty() {
            self.warn(
                &anim_el,
                format!("'{base_name}' animates no joint of the scene; no clip is made"),
            );
            return Ok(None);
        }
        let mut name = base_name.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base_name} ({n})");
            n += 1;
        }
        names.insert(name.clone());

        let tracks: Vec<JointTracks> = tracks.into_values().collect();
        let duration = tracks
            .iter()
            .flat_map(|t| {
                [
                    t.translation.as_ref().map(|k| k.times()),
                    t.rotation.as_ref().map(|k| k.times()),
                    t.scale.as_ref().map(|k| k.times()),
                ]
            })
            .flatten()
            .chain(morph.iter().map(|t| t.times()))
            .filter_map(|times| times.last().copied())
            .fold(0.0f32, f32::max);
        let (markers, additive) = self.clip_extras(animation, &anim_el, duration);
        let clip = Clip::with_morph(name, tracks, morph, markers, joint_count)
            .map_err(|e| self.err(&anim_el, e.to_string()))?;
        Ok(Some(clip.with_additive(additive)))
    }

    /// `{"markers": [{"name": "left_foot_down", "time_secs": 0.0}], "additive": true}`.
    fn clip_extras(
        &mut self,
        animation: &gltf::Animation<'_>,
        element: &str,
        duration: f32,
    ) -> (Vec<SyncMarker>, bool) {
        let mut markers = Vec::new();
        let mut additive = false;
        let Some(raw) = animation.extras().as_ref() else {
            return (markers, additive);
        };
        let value: serde_json::Value = match serde_json::from_str(raw.get()) {
            Ok(v) => v,
            Err(e) => {
                self.warn(element, format!("extras are not valid JSON ({e}); ignored"));
                return (markers, additive);
            }
        };
        let Some(obj) = value.as_object() else {
            return (markers, additive);
        };
        match obj.get("additive") {
            None => {}
            Some(serde_json::Value::Bool(b)) => additive = *b,
            Some(other) => self.warn(
                element,
                format!("extras.additive should be true or false, found {other}; ignored"),
            ),
        }
        match obj.get("markers") {
            None => {}
            Some(serde_json::Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let name = item.get("name").and_then(|n| n.as_str());
                    let time = item.get("time_secs").and_then(|t| t.as_f64());
                    match (name, time) {
                        (Some(name), Some(t))
                            if t.is_finite() && t >= 0.0 && (t as f32) <= duration =>
                        {
                            markers.push(SyncMarker {
                                name: name.to_string(),
                                time_secs: t as f32,
                            });
                        }
                        (Some(name), Some(t)) => self.warn(
                            element,
                            format!(
                                "marker {i} '{name}' at {t} s lies outside the clip \
                                 [0, {duration}] s; ignored"
                            ),
                        ),
                        _ => self.warn(
                            element,
                            format!(
                                "extras.markers[{i}] needs a string 'name' and a number \
                                 'time_secs'; ignored"
                            ),
                        ),
                    }
                }
            }
            Some(_) => self.warn(element, "extras.markers should be an array; ignored"),
        }
        (markers, additive)
    }
}

/// Finite, non-negative, strictly increasing key times.
fn check_key_times(times: &[f32]) -> Result<(), String> {
    if times.is_empty() {
        return Err("the sampler has no keys".into());
    }
    for (i, &t) in times.iter().enumerate() {
        if !t.is_finite() {
            return Err(format!("key time {i} is not a finite number"));
        }
        if t < 0.0 {
            return Err(format!("key time {i} is negative ({t} s)"));
        }
        if i > 0 && t <= times[i - 1] {
            return Err(format!(
                "key times not increasing at key {i} ({t} s after {} s)",
                times[i - 1]
            ));
        }
    }
    Ok(())
}

/// Flat normals for a primitive without NORMAL, as the glTF spec requires ("client
/// implementations MUST calculate flat normals"): each triangle's face normal on its
/// three corners. A vertex shared by several triangles is first split into one per
/// corner (every attribute, skin influence and morph delta copied); primitives whose
/// triangles share no vertex (the Fox) keep their vertices. TANGENTs are dropped with the
/// normals (glTF: tangents are ignored where normals are not given). Morph targets have
/// no normal deltas then, so a morphed face keeps its rest orientation's normal.
fn flat_normals(p: &mut Primitive) {
    let n = p.positions.len();
    let mut uses = vec![0u8; n];
    let mut shared = false;
    for &i in &p.indices {
        let u = &mut uses[i as usize];
        shared |= *u > 0;
        *u = u.saturating_add(1);
    }
    p.tangents.clear();
    if shared {
        fn expand<T: Copy>(v: &mut Vec<T>, indices: &[u32]) {
            if !v.is_empty() {
                *v = indices.iter().map(|&i| v[i as usize]).collect();
            }
        }
        let indices = std::mem::take(&mut p.indices);
        expand(&mut p.positions, &indices);
        expand(&mut p.uvs, &indices);
        expand(&mut p.colors, &indices);
        expand(&mut p.joints, &indices);
        expand(&mut p.weights, &indices);
        for t in &mut p.morph_targets {
            expand(&mut t.positions, &indices);
            expand(&mut t.normals, &indices);
            expand(&mut t.tangents, &indices);
        }
        p.indices = (0..indices.len() as u32).collect();
    }
    let mut normals = vec![Vec3::Z; p.positions.len()];
    for tri in p.indices.chunks_exact(3) {
        let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let (pa, pb, pc) = (p.positions[a], p.positions[b], p.positions[c]);
        let face = (pb - pa).cross(pc - pa).normalize_or(Vec3::Z);
        for v in [a, b, c] {
            normals[v] = face;
        }
    }
    p.normals = normals;
}

fn to_rgba8(data: &gltf::image::Data) -> Result<Image, String> {
    use gltf::image::Format;
    let px = (data.width as usize)
        .checked_mul(data.height as usize)
        .ok_or("image is too large")?;
    let p = &data.pixels;
    let u16_at = |i: usize| u16::from_ne_bytes([p[2 * i], p[2 * i + 1]]);
    let f32_at =
        |i: usize| f32::from_ne_bytes([p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]]);
    let (channels, bytes_per_channel) = match data.format {
        Format::R8 => (1, 1),
        Format::R8G8 => (2, 1),
        Format::R8G8B8 => (3, 1),
        Format::R8G8B8A8 => (4, 1),
        Format::R16 => (1, 2),
        Format::R16G16 => (2, 2),
        Format::R16G16B16 => (3, 2),
        Format::R16G16B16A16 => (4, 2),
        Format::R32G32B32FLOAT => (3, 4),
        Format::R32G32B32A32FLOAT => (4, 4),
    };
    if p.len() < px * channels * bytes_per_channel {
        return Err("decoded image has fewer bytes than its size".into());
    }
    let channel = |i: usize| -> u8 {
        match bytes_per_channel {
            1 => p[i],
            2 => (u16_at(i) >> 8) as u8,
            _ => (f32_at(i).clamp(0.0, 1.0) * 255.0 + 0.5) as u8,
        }
    };
    let mut rgba8 = Vec::with_capacity(px * 4);
    for i in 0..px {
        let base = i * channels;
        let texel = match channels {
            1 => {
                let l = channel(base);
                [l, l, l, 255]
            }
            2 => {
                let l = channel(base);
                [l, l, l, channel(base + 1)]
            }
            3 => [channel(base), channel(base + 1), channel(base + 2), 255],
            _ => [
                channel(base),
                channel(base + 1),
                channel(base + 2),
                channel(base + 3),
            ],
        };
        rgba8.extend_from_slice(&texel);
    }
    Ok(Image {
        width: data.width,
        height: data.height,
        rgba8,
    })
}

/// `data:` URI body (after the scheme): returns the bytes and the media type.
fn decode_data_uri(rest: &str) -> Result<(Vec<u8>, String), String> {
    let Some(comma) = rest.find(',') else {
        return Err("has a malformed data URI (no ',' before the data)".into());
    };
    let header = &rest[..comma];
    let payload = &rest[comma + 1..];
    let lower = header.to_ascii_lowercase();
    if let Some(media) = lower.strip_suffix(";base64") {
        let data = base64_decode(payload.as_bytes())
            .ok_or("has a data URI whose base64 payload is malformed")?;
        Ok((data, media.to_string()))
    } else {
        let data = percent_decode(payload.as_bytes())
            .ok_or("has a data URI with invalid percent-encoding")?;
        Ok((data, lower))
    }
}

fn percent_decode(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            let hi = (hex[0] as char).to_digit(16)?;
            let lo = (hex[1] as char).to_digit(16)?;
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Standard base64 (RFC 4648), padding optional.
fn base64_decode(s: &[u8]) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let trimmed = match s {
        [rest @ .., b'=', b'='] => rest,
        [rest @ .., b'='] => rest,
        _ => s,
    };
    if trimmed.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(trimmed.len() / 4 * 3 + 2);
    for chunk in trimmed.chunks(4) {
        let mut acc = 0u32;
        for &c in chunk {
            acc = (acc << 6) | sextet(c)?;
        }
        match chunk.len() {
            4 => out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]),
            3 => {
                acc <<= 6;
                out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8]);
            }
            2 => {
                acc <<= 12;
                out.push((acc >> 16) as u8);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The node graph of the whole file and the scene's nodes in skeleton order.
struct Hierarchy {
    /// Parent of every glTF node (acyclic, at most one parent each).
    parent: Vec<Option<usize>>,
    /// glTF node index of each skeleton joint (parent before child).
    order: Vec<usize>,
    /// Skeleton joint of each glTF node, `None` outside the scene.
    joint_of_node: Vec<Option<usize>>,
}

impl Hierarchy {
    fn top_root(&self, mut node: usize) -> usize {
        while let Some(p) = self.parent[node] {
            node = p;
        }
        node
    }

    fn is_ancestor_or_self(&self, ancestor: usize, node: usize) -> bool {
        let mut cur = Some(node);
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.parent[c];
        }
        false
    }
}

struct Skins {
    skins: Vec<Skin>,
    /// Model skin index of each glTF skin (`None` for skipped skins).
    model_index: Vec<Option<usize>>,
}

/// `KHR_texture_transform` as one affine map of UVs: `T(offset) * R(rotation) * S(scale)`,
/// with the extension's rotation (counter-clockwise in UV space:
/// `u' = cos r u + sin r v`, `v' = -sin r u + cos r v`). `None` for the identity.
pub(crate) fn uv_transform(
    offset: [f32; 2],
    rotation: f32,
    scale: [f32; 2],
) -> Option<glam::Affine2> {
    if offset == [0.0, 0.0] && rotation == 0.0 && scale == [1.0, 1.0] {
        return None;
    }
    let (s, c) = rotation.sin_cos();
    let r = glam::Mat2::from_cols(Vec2::new(c, -s), Vec2::new(s, c));
    Some(
        glam::Affine2::from_translation(Vec2::from(offset))
            * glam::Affine2::from_mat2(r)
            * glam::Affine2::from_scale(Vec2::from(scale)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_known_values() {
        assert_eq!(base64_decode(b"AA==").unwrap(), vec![0]);
        assert_eq!(base64_decode(b"TWFu").unwrap(), b"Man".to_vec());
        assert_eq!(base64_decode(b"TWE=").unwrap(), b"Ma".to_vec());
        assert_eq!(base64_decode(b"TWE").unwrap(), b"Ma".to_vec());
        assert!(base64_decode(b"T").is_none());
        assert!(base64_decode(b"T*==").is_none());
    }

    #[test]
    fn json_paths_name_elements() {
        assert_eq!(
            element_of_json_path("animations[2].channels[5].target.node", &ChannelMap::new()),
            (
                "animation 2 channel 5".to_string(),
                "target.node".to_string()
            )
        );
        assert_eq!(
            element_of_json_path("skins[0].joints[1]", &ChannelMap::new()),
            ("skin 0".to_string(), "joints[1]".to_string())
        );
        assert_eq!(
            element_of_json_path("scene", &ChannelMap::new()),
            ("scene".to_string(), String::new())
        );
    }
}
