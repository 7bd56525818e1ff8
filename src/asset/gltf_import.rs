//! glTF 2.0 import (stub: being written).
use std::path::Path;

use super::{ImportError, Model};

/// Loads a `.gltf` (external or embedded buffers) or `.glb` file.
pub fn load(path: &Path) -> Result<Model, ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::new(path, "", format!("cannot read file: {e}")))?;
    load_from_slice(&bytes, path)
}

/// Loads from bytes; `path` names the file in errors and resolves relative URIs.
pub fn load_from_slice(_bytes: &[u8], path: &Path) -> Result<Model, ImportError> {
    Err(ImportError::new(path, "", "not implemented yet"))
}
