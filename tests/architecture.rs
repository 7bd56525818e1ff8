//! Layering: the animation core stays pure CPU, the renderer stays free of windowing and
//! UI crates, the UI stays free of GPU and windowing crates.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Fails when any `.rs` file under `src/<module>` mentions one of `forbidden` outside a
/// comment.
fn assert_module_avoids(module: &str, min_files: usize, forbidden: &[&str]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(module);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(
        files.len() >= min_files,
        "expected at least {min_files} modules under {}",
        dir.display()
    );
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in forbidden {
                assert!(
                    !code.contains(word),
                    "{}:{}: src/{module} must not use `{word}`: {line}",
                    file.display(),
                    n + 1
                );
            }
        }
    }
}

#[test]
fn animation_core_imports_no_gpu_window_or_ui_crate() {
    assert_module_avoids(
        "anim",
        8,
        &[
            "wgpu",
            "winit",
            "egui",
            "crate::render",
            "crate::ui",
            "crate::app",
            "crate::asset",
            "gltf",
        ],
    );
}

#[test]
fn renderer_imports_no_window_or_ui_crate() {
    // Nor the pose pipeline: it draws matrices (`PoseMatrices`), it evaluates nothing.
    assert_module_avoids(
        "render",
        8,
        &[
            "winit",
            "egui",
            "crate::ui",
            "crate::app",
            "crate::scene",
            "crate::timeline",
            "crate::graph",
        ],
    );
}
