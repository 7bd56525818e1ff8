//! RON files of the stage (bone maps, motion-matching tag sidecars, scenarios' parts): one
//! parser whose errors name the file, the line and the column.

use std::path::Path;

use crate::StageError;

/// `text` (read from `path`) as RON; the error names the file, the line and the column
/// (map files and motion-matching tag sidecars).
pub fn parse_ron_at<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<T, StageError> {
    ron::from_str(text).map_err(|e| StageError::Ron {
        path: path.to_path_buf(),
        line: e.span.start.line,
        column: e.span.start.col,
        error: e.code,
    })
}
