//! `EXT_meshopt_compression`: buffer views stored compressed by meshoptimizer (gltfpack's
//! `-c` / `-cc` output), decoded with the `meshopt` crate's decoder before any accessor
//! reads them.
//!
//! A compressed view names its source bytes in the extension (`buffer`, `byteOffset`,
//! `byteLength`) and what they decode to (`count` elements of `byteStride` bytes, by
//! `mode` ATTRIBUTES / TRIANGLES / INDICES, then a `filter` NONE / OCTAHEDRAL /
//! QUATERNION / EXPONENTIAL). The view's own `buffer` is usually a *fallback* buffer with
//! no data (`"EXT_meshopt_compression": {"fallback": true}`), which is never read.
//!
//! The decoder is safe on untrusted input (it may produce garbage, never read or write out
//! of bounds); the decoded size is checked against the view and capped before allocating.

use serde_json::Value;

use super::ImportProblem;

/// Decoded bytes allowed per view (a GLB's length fields can claim anything).
pub(crate) const MAX_DECODED_BYTES: usize = 1 << 29;
/// Decoded bytes allowed over all the views of one file (many views may name the same
/// compressed bytes).
pub(crate) const MAX_TOTAL_DECODED_BYTES: usize = 1 << 29;

/// How the source bytes were encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Attributes,
    Triangles,
    Indices,
}

/// What is applied to decoded attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
}

/// One compressed buffer view, as its extension object says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MeshoptView {
    pub buffer: usize,
    pub offset: usize,
    pub length: usize,
    pub stride: usize,
    pub count: usize,
    pub mode: Mode,
    pub filter: Filter,
}

fn index(ext: &Value, key: &str, default: Option<usize>) -> Result<usize, ImportProblem> {
    match ext.get(key) {
        None => default.ok_or_else(|| format!("'{key}' is missing").into()),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("'{key}' is {v}, not a non-negative integer").into()),
    }
}

/// Reads the extension object of a buffer view.
pub(crate) fn parse(ext: &Value) -> Result<MeshoptView, ImportProblem> {
    let mode = match ext.get("mode").and_then(Value::as_str) {
        Some("ATTRIBUTES") => Mode::Attributes,
        Some("TRIANGLES") => Mode::Triangles,
        Some("INDICES") => Mode::Indices,
        other => {
            return Err(format!("'mode' is {other:?}, not ATTRIBUTES, TRIANGLES or INDICES").into())
        }
    };
    let filter = match ext.get("filter").and_then(Value::as_str) {
        None | Some("NONE") => Filter::None,
        Some("OCTAHEDRAL") => Filter::Octahedral,
        Some("QUATERNION") => Filter::Quaternion,
        Some("EXPONENTIAL") => Filter::Exponential,
        Some(other) => return Err(format!("'filter' {other} is not a meshopt filter").into()),
    };
    Ok(MeshoptView {
        buffer: index(ext, "buffer", None)?,
        offset: index(ext, "byteOffset", Some(0))?,
        length: index(ext, "byteLength", None)?,
        stride: index(ext, "byteStride", None)?,
        count: index(ext, "count", None)?,
        mode,
        filter,
    })
}

/// Decodes `source` (the extension's `byteLength` bytes) into `count * byteStride` bytes.
pub(crate) fn decode(view: &MeshoptView, source: &[u8]) -> Result<Vec<u8>, ImportProblem> {
    let MeshoptView {
        stride,
        count,
        mode,
        filter,
        ..
    } = *view;
    let size = count
        .checked_mul(stride)
        .filter(|&s| s <= MAX_DECODED_BYTES)
        .ok_or_else(|| {
            format!("{count} x {stride} bytes decoded is more than {MAX_DECODED_BYTES} bytes")
        })?;
    match mode {
        Mode::Attributes if stride == 0 || stride % 4 != 0 || stride > 256 => {
            return Err(
                format!("ATTRIBUTES byteStride {stride} is not a multiple of 4 in 4..=256").into(),
            )
        }
        Mode::Triangles | Mode::Indices if stride != 2 && stride != 4 => {
            return Err(format!("{mode:?} byteStride {stride} is not 2 or 4").into())
        }
        Mode::Triangles if count % 3 != 0 => {
            return Err(format!("TRIANGLES count {count} is not a multiple of 3").into())
        }
        _ => {}
    }
    let filter_stride_ok = match filter {
        Filter::None => true,
        _ if mode != Mode::Attributes => false,
        Filter::Octahedral => stride == 4 || stride == 8,
        Filter::Quaternion => stride == 8,
        Filter::Exponential => stride % 4 == 0,
    };
    if !filter_stride_ok {
        return Err(format!(
            "filter {filter:?} does not apply to {mode:?} data with byteStride {stride}"
        )
        .into());
    }
    let mut out = vec![0u8; size];
    if count == 0 {
        return Ok(out);
    }
    // SAFETY: every pointer/length pair describes a live slice: `out` holds exactly
    // `count * stride` bytes, `source` its own length. meshoptimizer's decoders never
    // write past `count * stride` bytes of the destination nor read past `buffer_size`
    // bytes of the source, and validate the encoded stream (returning non-zero on a
    // malformed one). The filters rewrite `count * stride` bytes in place.
    let code = unsafe {
        let dst = out.as_mut_ptr().cast();
        match mode {
            Mode::Attributes => meshopt::ffi::meshopt_decodeVertexBuffer(
                dst,
                count,
                stride,
                source.as_ptr(),
                source.len(),
            ),
            Mode::Triangles => meshopt::ffi::meshopt_decodeIndexBuffer(
                dst,
                count,
                stride,
                source.as_ptr(),
                source.len(),
            ),
            Mode::Indices => meshopt::ffi::meshopt_decodeIndexSequence(
                dst,
                count,
                stride,
                source.as_ptr(),
                source.len(),
            ),
        }
    };
    if code != 0 {
        return Err(
            format!("the {mode:?} data does not decode (meshoptimizer error {code})").into(),
        );
    }
    // SAFETY: as above; the filter strides were checked against meshoptimizer's rules.
    unsafe {
        let dst = out.as_mut_ptr().cast();
        match filter {
            Filter::None => {}
            Filter::Octahedral => meshopt::ffi::meshopt_decodeFilterOct(dst, count, stride),
            Filter::Quaternion => meshopt::ffi::meshopt_decodeFilterQuat(dst, count, stride),
            Filter::Exponential => meshopt::ffi::meshopt_decodeFilterExp(dst, count, stride),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_round_trip_through_the_encoder() {
        // 5 vertices of 8 bytes: encode with meshopt, decode here.
        let vertices: Vec<[u16; 4]> = (0..5u16).map(|i| [i, 2 * i, 300 + i, 7]).collect();
        let encoded = meshopt::encoding::encode_vertex_buffer(&vertices).unwrap();
        let view = MeshoptView {
            buffer: 0,
            offset: 0,
            length: encoded.len(),
            stride: 8,
            count: 5,
            mode: Mode::Attributes,
            filter: Filter::None,
        };
        let decoded = decode(&view, &encoded).unwrap();
        let expected: Vec<u8> = vertices
            .iter()
            .flatten()
            .flat_map(|c| c.to_le_bytes())
            .collect();
        assert_eq!(decoded, expected);
        // Truncated input is an error, not garbage or a crash.
        assert!(decode(&view, &encoded[..encoded.len() / 2]).is_err());
    }

    #[test]
    fn triangles_round_trip_and_bad_parameters_are_named() {
        let indices: Vec<u32> = vec![0, 1, 2, 2, 1, 3, 3, 1, 4];
        let encoded = meshopt::encoding::encode_index_buffer(&indices, 5).unwrap();
        let ext = serde_json::json!({
            "buffer": 1, "byteLength": encoded.len(), "byteStride": 4, "count": 9,
            "mode": "TRIANGLES",
        });
        let view = parse(&ext).unwrap();
        assert_eq!((view.buffer, view.offset), (1, 0));
        let decoded = decode(&view, &encoded).unwrap();
        let got: Vec<u32> = decoded
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(got, indices);
        let bad = serde_json::json!({"buffer": 0, "byteLength": 4, "byteStride": 4, "count": 1, "mode": "STRIPS"});
        assert!(parse(&bad).unwrap_err().message.contains("'mode'"));
        let huge = MeshoptView {
            count: usize::MAX / 2,
            ..view.clone()
        };
        assert!(decode(&huge, &encoded)
            .unwrap_err()
            .message
            .contains("more than"));
        let odd = MeshoptView { count: 8, ..view };
        assert!(decode(&odd, &encoded)
            .unwrap_err()
            .message
            .contains("multiple of 3"));
    }
}
