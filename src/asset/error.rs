use std::fmt;
use std::path::PathBuf;

/// A file that could not be imported. Displays as `FILE: ELEMENT: MESSAGE`, e.g.
/// `Fox.gltf: animation 2 channel 5: key times not increasing at key 3`.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportError {
    pub file: PathBuf,
    /// The glTF element at fault (`skin 0`, `animation 1 sampler 3`, `accessor 7`...), or
    /// empty when the whole file is at fault (I/O, not glTF at all).
    pub element: String,
    pub message: String,
}

impl ImportError {
    pub fn new(
        file: impl Into<PathBuf>,
        element: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            file: file.into(),
            element: element.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.element.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}: {}: {}",
                self.file.display(),
                self.element,
                self.message
            )
        }
    }
}

impl std::error::Error for ImportError {}
