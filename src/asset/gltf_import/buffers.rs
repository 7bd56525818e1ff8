//! Buffers: the GLB BIN chunk, data URIs and external files (read up to their declared
//! length), EXT_meshopt_compression views decoded once, and bounds-checked views.

use super::*;

/// `data:` URI body (after the scheme): returns the bytes and the media type.
pub(super) fn decode_data_uri(rest: &str) -> Result<(Vec<u8>, String), ImportProblem> {
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

pub(super) fn percent_decode(s: &[u8]) -> Option<Vec<u8>> {
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
pub(super) fn base64_decode(s: &[u8]) -> Option<Vec<u8>> {
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

impl Importer<'_> {
    pub(super) fn load_buffers(&mut self, mut bin: Option<&[u8]>, is_glb: bool) {
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
                    )
                    .into()),
                    (None, None) if is_glb => {
                        Err("has no URI and the GLB file has no BIN chunk".into())
                    }
                    (None, None) => {
                        Err("has no URI; only the first buffer of a .glb file may omit it".into())
                    }
                },
                gltf::buffer::Source::Uri(uri) => self.load_uri_buffer(&buffer, uri),
            };
            let declared = buffer.length();
            let result = result.and_then(|mut data| {
                if data.len() < declared {
                    return Err(format!(
                        "declares {declared} bytes but its data has only {}",
                        data.len()
                    )
                    .into());
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
    /// Notes which buffer views are `EXT_meshopt_compression`-compressed; each is decoded
    /// when an accessor first reads it ([`Self::view_bytes`]), so views nothing uses cost
    /// nothing.
    pub(super) fn decode_meshopt_views(&mut self) {
        let doc = self.doc;
        self.decoded_views = doc
            .views()
            .map(|view| {
                view.extension_value(EXT_MESHOPT_COMPRESSION)
                    .map(|_| std::cell::OnceCell::new())
            })
            .collect();
    }

    pub(super) fn decode_meshopt_view(
        &self,
        view: &gltf::buffer::View<'_>,
        ext: &serde_json::Value,
    ) -> Result<Vec<u8>, ImportProblem> {
        let m = crate::meshopt::parse(ext)?;
        let b = m.buffer;
        let data = match (self.buffers.get(b), self.buffer_errors.get(b)) {
            (_, Some(Some(e))) => return Err(format!("buffer {b} {e}").into()),
            (Some(data), _) => &data.0,
            _ => return Err(format!("buffer {b} does not exist").into()),
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
        let budget = crate::meshopt::MAX_TOTAL_DECODED_BYTES;
        let total = self.decoded_bytes.get().saturating_add(view.length());
        if total > budget {
            return Err(format!(
                "decoding it would bring the file's decoded views to {total} bytes, over the \
                 {budget}-byte limit"
            )
            .into());
        }
        if m.count.checked_mul(m.stride) != Some(view.length()) {
            return Err(format!(
                "count {} x byteStride {} is not the view's byteLength {}",
                m.count,
                m.stride,
                view.length()
            )
            .into());
        }
        let decoded = crate::meshopt::decode(&m, source)?;
        self.decoded_bytes.set(total);
        Ok(decoded)
    }

    pub(super) fn load_uri_buffer(
        &mut self,
        buffer: &gltf::Buffer<'_>,
        uri: &str,
    ) -> Result<Vec<u8>, ImportProblem> {
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
    pub(super) fn read_uri(
        &self,
        uri: &str,
        max_len: u64,
    ) -> Result<(Vec<u8>, Option<String>), ImportProblem> {
        if let Some(rest) = uri.strip_prefix("data:") {
            let (data, media) = decode_data_uri(rest)?;
            return Ok((data, Some(media)));
        }
        let path = self.resolve_relative_uri(uri)?;
        let meta = std::fs::metadata(&path)
            .map_err(|e| format!("cannot open '{}': {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!("'{}' is not a regular file", path.display()).into());
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

    pub(super) fn resolve_relative_uri(&self, uri: &str) -> Result<PathBuf, ImportProblem> {
        if uri.is_empty() {
            return Err("has an empty URI".into());
        }
        if let Some(colon) = uri.find(':') {
            return Err(format!(
                "URI scheme '{}:' is not supported (only relative file paths and data: URIs are)",
                &uri[..colon]
            )
            .into());
        }
        let decoded = percent_decode(uri.as_bytes())
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| format!("URI '{uri}' has invalid percent-encoding"))?;
        if decoded.starts_with('/') || decoded.starts_with('\\') {
            return Err(format!(
                "URI '{uri}' is an absolute path; only relative paths are supported"
            )
            .into());
        }
        Ok(self.base_dir.join(decoded))
    }

    pub(super) fn warn_unused_broken_buffers(&mut self) {
        let broken: Vec<(usize, ImportProblem)> = self
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
    pub(super) fn view_bytes(&self, view: &gltf::buffer::View<'_>) -> Result<&[u8], ImportProblem> {
        if let Some(cell) = self
            .decoded_views
            .get(view.index())
            .and_then(Option::as_ref)
        {
            let decoded =
                cell.get_or_init(|| match view.extension_value(EXT_MESHOPT_COMPRESSION) {
                    Some(ext) => self.decode_meshopt_view(view, ext),
                    None => Err("the extension is missing".into()),
                });
            return decoded.as_deref().map_err(|e| {
                e.clone().within(format_args!(
                    "buffer view {}: {EXT_MESHOPT_COMPRESSION}",
                    view.index()
                ))
            });
        }
        let b = view.buffer().index();
        if let Some(e) = &self.buffer_errors[b] {
            return Err(format!("buffer {b} {e}").into());
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
                .into()
            })
    }
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
}
