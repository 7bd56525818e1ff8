//! Import speed (issue 20): the shared FBX characters through stridescope (ufbx's parse,
//! then our conversion: joints, meshes, skins, blend shapes, baked takes) against ufbx's
//! parse alone with the same options, so the difference is the overhead of our
//! conversion; and the 482 Bandai Namco BVH files as one folder (parallel parse; bytes
//! per second over the folder's size).
//!
//! `cargo bench --bench import`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use stridescope::asset::{self, LoadOptions};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

/// ufbx's load with the options stridescope passes it (glTF conventions).
fn ufbx_only(bytes: &[u8]) -> usize {
    let opts = ufbx::LoadOpts {
        generate_missing_normals: true,
        clean_skin_weights: true,
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
        ..Default::default()
    };
    let scene = ufbx::load_memory(bytes, opts).unwrap();
    scene.nodes.len()
}

fn fbx(c: &mut Criterion) {
    let mut group = c.benchmark_group("fbx_load");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4));
    for name in [
        "blender_293_barbarian_7400_binary.fbx",
        "maya_human_ik_7400_binary.fbx",
        "maya_character_7500_binary.fbx",
    ] {
        let path = shared().join("fbx/ufbx").join(name);
        let bytes = std::fs::read(&path).unwrap();
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("{name}/ufbx_only"), |b| {
            b.iter(|| black_box(ufbx_only(black_box(&bytes))))
        });
        group.bench_function(format!("{name}/stridescope"), |b| {
            b.iter(|| {
                let model = asset::load_from_slice(black_box(&bytes), &path).unwrap();
                black_box(model.skeleton.joint_count())
            })
        });
    }
    group.finish();
}

fn bvh_folder(c: &mut Criterion) {
    let dir = shared().join("mocap/bandai");
    let files = asset::folder::bvh_files(&dir).unwrap();
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum();
    let mut group = c.benchmark_group("bvh_folder");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function(format!("bandai_{}_files", files.len()), |b| {
        b.iter(|| {
            let model =
                asset::folder::load_folder(&dir, &LoadOptions::default(), &|_, _| {}).unwrap();
            black_box(model.clips.len())
        })
    });
    group.finish();
}

criterion_group!(benches, fbx, bvh_folder);
criterion_main!(benches);
