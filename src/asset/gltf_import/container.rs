//! The container: a GLB's header and chunks (parsed here: the gltf crate panics on some
//! headers), or JSON text.

use super::*;

pub(super) const GLB_MAGIC: &[u8; 4] = b"glTF";

pub(super) const CHUNK_JSON: u32 = 0x4E4F_534A;

pub(super) const CHUNK_BIN: u32 = 0x004E_4942;

pub(super) fn read_u32_le(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Splits the file into JSON text and the optional GLB BIN chunk.
pub(super) fn split_container<'b>(
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
            let start = match guess_content(bytes) {
                Some(guess) => format!("{guess}, and starts with {:?}", text_start(bytes)),
                None => format!("it starts with {:02x?}", &bytes[..4]),
            };
            return Err(err(format!(
                "not a binary glTF file: {start} instead of the magic 'glTF'"
            )));
        }
        return Ok((bytes, None));
    }
    split_glb(bytes, path, warnings)
}

/// What a file named `.glb` that does not start with the GLB magic more likely is, in
/// words a user can act on; `None` for bytes that suggest nothing.
fn guess_content(bytes: &[u8]) -> Option<&'static str> {
    let trimmed = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .trim_ascii_start();
    let starts = |m: &[u8]| bytes.starts_with(m);
    Some(if trimmed.starts_with(b"{") {
        "it holds JSON text: a .gltf file named .glb? Rename it to .gltf (its .bin and images beside it)"
    } else if starts(b"Kaydara FBX Binary") || trimmed.starts_with(b"; FBX") {
        "it is an FBX file, which stridescope does not read yet: convert it to glTF (e.g. with FBX2glTF or Blender)"
    } else if trimmed.starts_with(b"HIERARCHY") {
        "it is BVH motion capture, which stridescope does not read yet"
    } else if starts(b"\x89PNG") || starts(b"\xFF\xD8\xFF") {
        "it is an image (PNG or JPEG), not a model"
    } else if starts(b"PK\x03\x04") {
        "it is a zip archive: unpack it and open the .glb or .gltf inside"
    } else if trimmed.starts_with(b"<") {
        "it holds HTML or XML text: a web page saved in place of the download?"
    } else if std::str::from_utf8(&bytes[..bytes.len().min(64)]).is_ok_and(|t| {
        t.chars()
            .all(|c| !c.is_control() || c.is_ascii_whitespace())
    }) {
        "it looks like text, not a binary file"
    } else {
        return None;
    })
}

/// The file's first characters (at most 24, control characters escaped), for messages.
fn text_start(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(24)]).into_owned()
}

pub(super) fn split_glb<'b>(
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

pub(super) fn byte_count(n: usize) -> String {
    if n == 1 {
        "1 byte".into()
    } else {
        format!("{n} bytes")
    }
}

pub(super) fn chunk_name(kind: u32) -> String {
    match kind {
        CHUNK_JSON => "JSON".into(),
        CHUNK_BIN => "BIN".into(),
        other => format!("0x{other:08x}"),
    }
}
