//! The document (the JSON root): parsed with gltf-json after repairs the spec allows (integral floats,
//! scenes without `nodes`, channels without a target node), the asset version, the
//! extensions, and the structural validation the typed wrappers rely on.

use super::*;

/// For each animation whose channels were renumbered while parsing, the original index
/// of each remaining channel (so errors name the channel as written in the file).
pub(super) type ChannelMap = HashMap<usize, Vec<usize>>;

pub(super) fn parse_json(
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

pub(super) fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Rewrites numbers like `1.0` or `1e0` as integers (valid JSON for a glTF integer).
pub(super) fn integral_floats_to_ints(value: &mut serde_json::Value) -> bool {
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
pub(super) fn default_scene_nodes(value: &mut serde_json::Value) -> bool {
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
pub(super) fn drop_nodeless_channels(
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
pub(super) fn original_channel(
    channel_map: &ChannelMap,
    animation: usize,
    channel: usize,
) -> usize {
    channel_map
        .get(&animation)
        .and_then(|m| m.get(channel).copied())
        .unwrap_or(channel)
}

pub(super) fn check_asset(root: &json::Root, path: &Path) -> Result<(), ImportError> {
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

pub(super) const EXT_MESHOPT_COMPRESSION: &str = "EXT_meshopt_compression";

pub(super) const KHR_MESH_QUANTIZATION: &str = "KHR_mesh_quantization";

/// Refuses required extensions we do not implement (naming them) and lists the used ones
/// we ignore. Returns whether `KHR_mesh_quantization` is in use.
pub(super) fn check_extensions(
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
pub(super) fn check_accessor_references(root: &json::Root, path: &Path) -> Result<(), ImportError> {
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
pub(super) fn validate_structure(
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
pub(super) fn element_of_json_path(p: &str, channel_map: &ChannelMap) -> (String, String) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
