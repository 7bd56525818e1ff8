//! The animation core stays pure CPU: no GPU, windowing or UI crates in src/anim.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn animation_core_imports_no_gpu_window_or_ui_crate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/anim");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(
        files.len() >= 8,
        "expected the core's modules under {}",
        dir.display()
    );
    let forbidden = [
        "wgpu",
        "winit",
        "egui",
        "crate::render",
        "crate::ui",
        "crate::app",
        "crate::asset",
        "gltf",
    ];
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in forbidden {
                assert!(
                    !code.contains(word),
                    "{}:{}: the animation core must not use `{word}`: {line}",
                    file.display(),
                    n + 1
                );
            }
        }
    }
}
