//! A small GLB writer: buffer views and accessors appended in code, packed with the JSON
//! document into a `.glb`. The demo character ([`super::demo`]) is written with it, and
//! tests build small files with it (morph targets, quantized attributes, broken files).

use serde_json::{json, Value};

use super::GlbError;

/// `bufferView.target` for vertex attributes.
pub const ARRAY_BUFFER: u32 = 34962;
/// `bufferView.target` for indices.
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;
/// `accessor.componentType` values.
pub const UNSIGNED_BYTE: u32 = 5121;
/// `accessor.componentType` for `u16` components.
pub const UNSIGNED_SHORT: u32 = 5123;
/// `accessor.componentType` for `f32` components.
pub const FLOAT: u32 = 5126;

/// A JSON array of `f32` values (each written as its exact `f64` value).
pub fn nums(xs: &[f32]) -> Value {
    Value::Array(xs.iter().map(|&x| Value::from(x as f64)).collect())
}

/// The binary chunk of a GLB with its buffer views and accessors, built in code.
#[derive(Default)]
pub struct GlbBuilder {
    data: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl GlbBuilder {
    /// Appends a 4-byte aligned buffer view and an accessor over all of it.
    pub fn accessor(
        &mut self,
        bytes: &[u8],
        target: Option<u32>,
        component: u32,
        count: usize,
        kind: &str,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> usize {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
        let mut view = json!({
            "buffer": 0,
            "byteOffset": self.data.len(),
            "byteLength": bytes.len(),
        });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.data.extend_from_slice(bytes);
        self.views.push(view);
        let mut accessor = json!({
            "bufferView": self.views.len() - 1,
            "componentType": component,
            "count": count,
            "type": kind,
        });
        if let Some((min, max)) = bounds {
            accessor["min"] = nums(&min);
            accessor["max"] = nums(&max);
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// Float accessor of `n`-component elements, with min/max when `bounded`.
    pub fn floats(
        &mut self,
        values: &[f32],
        n: usize,
        kind: &str,
        target: Option<u32>,
        bounded: bool,
    ) -> usize {
        let bounds = bounded.then(|| {
            let mut min = vec![f32::INFINITY; n];
            let mut max = vec![f32::NEG_INFINITY; n];
            for chunk in values.chunks(n) {
                for (k, &v) in chunk.iter().enumerate() {
                    min[k] = min[k].min(v);
                    max[k] = max[k].max(v);
                }
            }
            (min, max)
        });
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor(&bytes, target, FLOAT, values.len() / n, kind, bounds)
    }

    /// Appends 4-byte aligned bytes without a view; returns their offset in buffer 0.
    pub fn append_bytes(&mut self, bytes: &[u8]) -> usize {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
        let at = self.data.len();
        self.data.extend_from_slice(bytes);
        at
    }

    /// Adds a buffer view written by hand (extensions, other buffers); returns its index.
    pub fn push_view(&mut self, view: Value) -> usize {
        self.views.push(view);
        self.views.len() - 1
    }

    /// Adds an accessor written by hand; returns its index.
    pub fn push_accessor(&mut self, accessor: Value) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// The GLB: `document` (every top-level glTF property except `accessors`,
    /// `bufferViews` and buffer 0, which this fills in) written as compact JSON with
    /// sorted keys, then the binary chunk. Identical input gives identical bytes.
    pub fn finish(mut self, mut document: Value) -> Vec<u8> {
        // The binary chunk's length is a multiple of 4 (GLB rule).
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
        document["accessors"] = Value::Array(self.accessors);
        document["bufferViews"] = Value::Array(self.views);
        // Buffer 0 is the binary chunk; buffers the document lists after it are kept.
        let mut buffers = match document.get("buffers") {
            Some(Value::Array(list)) => list.clone(),
            _ => vec![json!({})],
        };
        if buffers.is_empty() {
            buffers.push(json!({}));
        }
        buffers[0] = json!({ "byteLength": self.data.len() });
        document["buffers"] = Value::Array(buffers);
        let bin = self.data;
        let mut text = String::new();
        write_json_sorted(&document, &mut text);
        let mut json_chunk = text.into_bytes();
        while !json_chunk.len().is_multiple_of(4) {
            json_chunk.push(b' ');
        }
        let total = 12 + 8 + json_chunk.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json_chunk.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json_chunk);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        out
    }
}

/// Compact JSON with object keys sorted, whatever map type serde_json was built with.
pub fn write_json_sorted(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_json_sorted(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_sorted(item, out);
            }
            out.push(']');
        }
        leaf => out.push_str(&leaf.to_string()),
    }
}

/// One animation channel to append to a GLB: the target node, `"translation"` or
/// `"rotation"`, key times (seconds, increasing) and values (3 or 4 floats per key).
pub struct NewChannel {
    /// Index of the animated node in the file's `nodes`.
    pub node: usize,
    /// The animated property: `"translation"` or `"rotation"`.
    pub path: &'static str,
    /// Key times in seconds, increasing (the sampler's input).
    pub times: Vec<f32>,
    /// Key values, flattened: x, y, z (metres) per translation key, or an x, y, z, w
    /// quaternion per rotation key.
    pub values: Vec<f32>,
}

/// `glb` (a binary glTF whose buffer 0 is its BIN chunk, or has none) with the animations
/// `animations` (name, channels; LINEAR) added after its own. Everything else is kept.
/// Animation names stay unique: a name already in the file (or given twice) gets ` (2)`,
/// ` (3)` ..., since other tools pick the first animation of a name.
///
/// Errors: not a GLB, a malformed header or JSON chunk, a BIN chunk that is not buffer 0,
/// channel values of the wrong length.
pub fn append_animations(
    glb: &[u8],
    animations: &[(String, Vec<NewChannel>)],
) -> Result<Vec<u8>, GlbError> {
    let u32_at = |at: usize| -> Result<u32, GlbError> {
        glb.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or(GlbError::Truncated)
    };
    if !glb.starts_with(b"glTF") {
        return Err(GlbError::NotGlb);
    }
    let json_len = u32_at(12)? as usize;
    if u32_at(16)? != 0x4E4F_534A {
        return Err(GlbError::FirstChunkNotJson);
    }
    let json_bytes = glb.get(20..20 + json_len).ok_or(GlbError::JsonPastEnd)?;
    let mut document: Value =
        serde_json::from_slice(json_bytes).map_err(|e| GlbError::Json(e.to_string()))?;
    let mut bin = Vec::new();
    let next = 20 + json_len;
    if glb.len() >= next + 8 {
        let bin_len = u32_at(next)? as usize;
        if u32_at(next + 4)? == 0x004E_4942 {
            bin = glb
                .get(next + 8..next + 8 + bin_len)
                .ok_or(GlbError::BinPastEnd)?
                .to_vec();
        }
    }
    if let Some(Value::Array(buffers)) = document.get("buffers") {
        if buffers.first().is_some_and(|b| b.get("uri").is_some()) {
            return Err(GlbError::ExternalBuffer);
        }
    }
    let take = |key: &str, document: &mut Value| -> Vec<Value> {
        match document.get_mut(key).map(Value::take) {
            Some(Value::Array(list)) => list,
            _ => Vec::new(),
        }
    };
    let views = take("bufferViews", &mut document);
    let accessors = take("accessors", &mut document);
    let mut builder = GlbBuilder {
        data: bin,
        views,
        accessors,
    };
    let mut list = take("animations", &mut document);
    let mut names: std::collections::HashSet<String> = list
        .iter()
        .filter_map(|a| a.get("name").and_then(Value::as_str).map(str::to_string))
        .collect();
    for (given, channels) in animations {
        let name = super::naming::unique_name(given, |n| names.contains(n));
        names.insert(name.clone());
        let mut samplers = Vec::new();
        let mut out_channels = Vec::new();
        for c in channels {
            let n = if c.path == "rotation" { 4 } else { 3 };
            if c.values.len() != c.times.len() * n {
                return Err(GlbError::ChannelLength {
                    animation: name.clone(),
                    node: c.node,
                    path: c.path,
                    values: c.values.len(),
                    keys: c.times.len(),
                });
            }
            let input = builder.floats(&c.times, 1, "SCALAR", None, true);
            let output = builder.floats(
                &c.values,
                n,
                if n == 4 { "VEC4" } else { "VEC3" },
                None,
                false,
            );
            out_channels.push(json!({
                "sampler": samplers.len(),
                "target": { "node": c.node, "path": c.path },
            }));
            samplers.push(json!({ "input": input, "output": output, "interpolation": "LINEAR" }));
        }
        list.push(json!({ "name": name, "channels": out_channels, "samplers": samplers }));
    }
    document["animations"] = Value::Array(list);
    Ok(builder.finish(document))
}
