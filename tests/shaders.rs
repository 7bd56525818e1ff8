//! Every `shaders/*.wgsl` parses and validates with naga (no GPU needed), and the structs
//! the shaders share with Rust have the same size on both sides.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use stridescope::render::gpu_types::{
    FrameUniforms, MaterialUniforms, MorphDelta, SkinParams, SkinVertex, SkinnedVertex,
};
use stridescope::render::shader_source;

fn shader_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    files
}

/// Parses and validates the source the renderer compiles for `path` (render shaders get
/// the shared frame prelude in front).
fn parse_and_validate(path: &Path) -> naga::Module {
    let name = path.file_name().unwrap().to_string_lossy();
    let source = shader_source(&name).unwrap_or_else(|| {
        panic!(
            "{}: a shader file the renderer does not use",
            path.display()
        )
    });
    let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| {
        panic!(
            "{} does not parse:\n{}",
            path.display(),
            e.emit_to_string(&source)
        )
    });
    // No optional capabilities: what every WebGPU device accepts.
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| {
        panic!(
            "{} does not validate:\n{}",
            path.display(),
            e.emit_to_string(&source)
        )
    });
    module
}

/// Size of each named struct, as WGSL lays it out.
fn struct_sizes(module: &naga::Module) -> HashMap<String, u32> {
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    module
        .types
        .iter()
        .filter(|(_, ty)| matches!(ty.inner, naga::TypeInner::Struct { .. }))
        .filter_map(|(handle, ty)| Some((ty.name.clone()?, layouter[handle].size)))
        .collect()
}

#[test]
fn every_shader_parses_and_validates() {
    let files = shader_files();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for expected in [
        "skinning.wgsl",
        "mesh.wgsl",
        "lines.wgsl",
        "background.wgsl",
        "frame.wgsl",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "missing shaders/{expected}; found {names:?}"
        );
    }
    for file in &files {
        parse_and_validate(file);
    }
}

#[test]
fn shared_structs_match_their_rust_mirrors() {
    let expected: [(&str, usize); 6] = [
        ("SkinVertex", std::mem::size_of::<SkinVertex>()),
        ("MorphDelta", std::mem::size_of::<MorphDelta>()),
        ("SkinnedVertex", std::mem::size_of::<SkinnedVertex>()),
        ("SkinParams", std::mem::size_of::<SkinParams>()),
        ("FrameUniforms", std::mem::size_of::<FrameUniforms>()),
        ("MaterialUniforms", std::mem::size_of::<MaterialUniforms>()),
    ];
    let mut seen = HashMap::new();
    for file in shader_files() {
        let module = parse_and_validate(&file);
        for (name, size) in struct_sizes(&module) {
            if let Some(&(_, rust)) = expected.iter().find(|(n, _)| *n == name) {
                assert_eq!(
                    size as usize,
                    rust,
                    "{}: WGSL struct {name} is {size} bytes, its Rust mirror {rust}",
                    file.display()
                );
                *seen.entry(name).or_insert(0) += 1;
            }
        }
    }
    for (name, _) in expected {
        assert!(seen.contains_key(name), "no shader declares {name}");
    }
    // The mesh, lines and background shaders (and the prelude alone) see FrameUniforms...
    assert_eq!(seen["FrameUniforms"], 4);
    // ... declared once, in the prelude.
    let declaring: Vec<String> = shader_files()
        .into_iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .contains("struct FrameUniforms")
        })
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(declaring, vec!["frame.wgsl".to_string()]);
}
