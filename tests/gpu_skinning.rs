//! The compute-skinning shader against the CPU oracle (`anim::SkinningJob`): GPU-skinned
//! positions and normals read back from the vertex buffer the mesh pass draws equal the CPU
//! result within 1e-4 of the model's bounding-box diagonal, for the shared real assets and
//! the demo, at several clip times, with several instances (different palettes) skinned
//! in the same dispatch, and with the work split into many small chunks.
//!
//! Runs on any wgpu adapter (CI: Mesa lavapipe). Without an adapter the tests print
//! "SKIPPED ...: no GPU adapter" and pass — unless `CI` is set or
//! `STRIDESCOPE_REQUIRE_GPU=1`, then they fail.

mod common;
use common::gpu;
use std::path::{Path, PathBuf};

use glam::Vec3;
use stridescope::asset::{self, Model};
use stridescope::render::bounds::{cpu_skin_primitive, pose_bounds};
use stridescope::render::{
    GpuContext, RenderError, Renderer, SkinnedInstances, SkinningLimits, OFFSCREEN_FORMAT,
};
use stridescope::stage::pose::pose_at;
use stridescope::stage::pose::Pose;

/// Positions: relative to the posed model's bounding-box diagonal.
const POSITION_TOLERANCE: f32 = 1e-4;
/// Normals are unit vectors: absolute.
const NORMAL_TOLERANCE: f32 = 1e-4;

fn asset_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/assets")
        .join(relative)
}

fn load(relative: Option<&str>) -> Model {
    match relative {
        Some(r) => asset::load(&asset_path(r)).unwrap_or_else(|e| panic!("{r}: {e}")),
        None => asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).unwrap(),
    }
}

/// Clip times to check: the first key, inside, and the end.
fn times(model: &Model, clip: usize) -> Vec<f32> {
    let c = &model.clips[clip];
    let (t0, t1) = (c.first_key_secs(), c.duration_secs());
    vec![
        t0,
        t0 + (t1 - t0) * 0.27,
        t0 + (t1 - t0) * 0.5,
        t0 + (t1 - t0) * 0.81,
        t1,
    ]
}

struct Worst {
    position: f32,
    normal: f32,
}

/// Compares every vertex of every instance with the CPU oracle; returns the worst errors
/// (position relative to the diagonal).
fn compare(
    ctx: &GpuContext,
    model: &Model,
    gpu_model: &stridescope::render::GpuModel,
    instances: &SkinnedInstances,
    poses: &[Pose],
    label: &str,
) -> Worst {
    let mut worst = Worst {
        position: 0.0,
        normal: 0.0,
    };
    for (i, pose) in poses.iter().enumerate() {
        let skinned = instances.read_back(ctx, i as u32).unwrap();
        assert_eq!(skinned.len(), model.vertex_count(), "{label}");
        let diagonal = pose_bounds(model, pose).unwrap().diagonal();
        assert!(diagonal > 0.0, "{label}: empty bounds");
        for (m, mesh) in model.meshes.iter().enumerate() {
            for p in 0..mesh.primitives.len() {
                let (positions, normals) = cpu_skin_primitive(model, pose, m, p, true).unwrap();
                let range = gpu_model.vertex_range(m, p).unwrap();
                for (k, v) in range.enumerate() {
                    let gpu = &skinned[v as usize];
                    let dp = (Vec3::from(gpu.position) - positions[k]).length() / diagonal;
                    let dn = (Vec3::from(gpu.normal) - normals[k]).length();
                    assert!(
                        dp <= POSITION_TOLERANCE,
                        "{label} instance {i} mesh '{}' primitive {p} vertex {k}: GPU {:?} CPU {:?} ({dp:e} of the diagonal)",
                        mesh.name,
                        gpu.position,
                        positions[k]
                    );
                    assert!(
                        dn <= NORMAL_TOLERANCE,
                        "{label} instance {i} mesh '{}' primitive {p} vertex {k}: normal GPU {:?} CPU {:?} (off by {dn:e})",
                        mesh.name,
                        gpu.normal,
                        normals[k]
                    );
                    worst.position = worst.position.max(dp);
                    worst.normal = worst.normal.max(dn);
                }
            }
        }
    }
    worst
}

/// One instance group per model, one instance per clip time (each with its own palette),
/// all skinned by the same dispatch(es).
fn check_model(
    ctx: &GpuContext,
    renderer: &Renderer,
    relative: Option<&str>,
    clip_name: Option<&str>,
) {
    let model = load(relative);
    let label = relative.unwrap_or("demo");
    let clip = match clip_name {
        Some(name) => model
            .find_clip(name)
            .unwrap_or_else(|| panic!("{label}: no clip {name}")),
        None => 0,
    };
    let poses: Vec<Pose> = times(&model, clip)
        .into_iter()
        .map(|t| pose_at(&model, Some(clip), t).unwrap())
        .collect();
    let gpu_model = renderer.upload_model(ctx, &model).unwrap();
    let mut instances = renderer
        .create_instances(ctx, &gpu_model, poses.len() as u32)
        .unwrap();
    assert_eq!(
        instances.dispatch_count(),
        1,
        "{label}: every primitive and instance in one dispatch"
    );
    let refs: Vec<&Pose> = poses.iter().collect();
    instances
        .write_poses(&ctx.queue, &gpu_model, &refs)
        .unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        instances.encode(&mut pass);
    }
    ctx.queue.submit([encoder.finish()]);
    let worst = compare(ctx, &model, &gpu_model, &instances, &poses, label);
    eprintln!(
        "{label}: {} vertices x {} instances, worst position error {:.2e} of the diagonal, worst normal error {:.2e}",
        model.vertex_count(),
        poses.len(),
        worst.position,
        worst.normal
    );
    // The instances really differ (different palettes produce different vertices).
    let all: Vec<_> = (0..poses.len() as u32)
        .map(|i| instances.read_back(ctx, i).unwrap())
        .collect();
    assert!(
        all.iter().any(|v| *v != all[0]),
        "{label}: every instance came out the same; were the palettes uploaded per instance?"
    );
}

#[test]
fn gpu_skinning_matches_cpu_oracle_on_real_assets_and_demo() {
    let Some(ctx) = gpu() else { return };
    eprintln!("adapter: {}", ctx.adapter_label());
    let renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    check_model(&ctx, &renderer, Some("Fox/Fox.glb"), Some("Walk"));
    check_model(&ctx, &renderer, Some("Fox/Fox.glb"), Some("Run"));
    check_model(&ctx, &renderer, Some("CesiumMan/CesiumMan.glb"), None);
    check_model(
        &ctx,
        &renderer,
        Some("Robot/robot.glb"),
        Some("Robot_Walking"),
    );
    check_model(
        &ctx,
        &renderer,
        Some("Robot/robot.glb"),
        Some("Robot_Running"),
    );
    check_model(&ctx, &renderer, Some("RiggedFigure/RiggedFigure.glb"), None);
    check_model(&ctx, &renderer, Some("RiggedSimple/RiggedSimple.glb"), None);
    check_model(&ctx, &renderer, Some("SimpleSkin/SimpleSkin.gltf"), None);
    check_model(&ctx, &renderer, None, Some("Walk"));
    check_model(&ctx, &renderer, None, Some("Run"));
    ctx.check().unwrap();
}

#[test]
fn chunked_dispatches_give_the_same_vertices() {
    let Some(ctx) = gpu() else { return };
    let renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let model = load(Some("Robot/robot.glb"));
    let clip = model.find_clip("Robot_Running").unwrap();
    let poses: Vec<Pose> = [0.1, 0.4, 0.7]
        .into_iter()
        .map(|t| pose_at(&model, Some(clip), t).unwrap())
        .collect();
    let refs: Vec<&Pose> = poses.iter().collect();
    let gpu_model = renderer.upload_model(&ctx, &model).unwrap();
    // An 8 KiB storage-binding limit and ~900 kB buffers: 7,218 vertices (808 kB of
    // input) need dozens of chunks, and the three instances (347 kB of skinned vertices
    // each) two output buffers.
    let tiny = SkinningLimits {
        max_storage_binding: 8 << 10,
        max_buffer: 900_000,
        max_workgroups_per_dimension: 65535,
    };
    let mut chunked =
        SkinnedInstances::with_limits(&ctx, renderer.skinning(), &gpu_model, 3, Some(tiny))
            .unwrap();
    assert!(
        chunked.dispatch_count() > 50,
        "{} dispatches",
        chunked.dispatch_count()
    );
    assert!(chunked.plan().buffers.len() > 1);
    let mut whole = renderer.create_instances(&ctx, &gpu_model, 3).unwrap();
    chunked.write_poses(&ctx.queue, &gpu_model, &refs).unwrap();
    whole.write_poses(&ctx.queue, &gpu_model, &refs).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        chunked.encode(&mut pass);
        whole.encode(&mut pass);
    }
    ctx.queue.submit([encoder.finish()]);
    for i in 0..3 {
        assert_eq!(
            chunked.read_back(&ctx, i).unwrap(),
            whole.read_back(&ctx, i).unwrap(),
            "instance {i}"
        );
    }
    compare(&ctx, &model, &gpu_model, &chunked, &poses, "robot chunked");

    // A limit too small for even one chunk is a clear error, not a wgpu panic.
    let impossible = SkinningLimits {
        max_storage_binding: 1024,
        ..tiny
    };
    let err =
        SkinnedInstances::with_limits(&ctx, renderer.skinning(), &gpu_model, 1, Some(impossible))
            .unwrap_err();
    assert!(matches!(err, RenderError::TooLarge { .. }), "{err}");
    eprintln!("{err}");
    ctx.check().unwrap();
}

#[test]
fn unskinned_vertices_follow_their_node_and_bad_input_is_rejected() {
    let Some(ctx) = gpu() else { return };
    let renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let mut model = load(Some("RiggedSimple/RiggedSimple.glb"));
    // Treat the mesh as unskinned: it must then move rigidly with its node (palette
    // entry 0, weight 1), exactly like the CPU oracle does with `PoseMatrices::mesh_palette`.
    model.meshes[0].skin = None;
    let clip = Some(0);
    let poses = vec![
        pose_at(&model, clip, 0.5).unwrap(),
        pose_at(&model, clip, 1.5).unwrap(),
    ];
    let gpu_model = renderer.upload_model(&ctx, &model).unwrap();
    let mut instances = renderer.create_instances(&ctx, &gpu_model, 2).unwrap();
    instances
        .write_poses(&ctx.queue, &gpu_model, &[&poses[0], &poses[1]])
        .unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        instances.encode(&mut pass);
    }
    ctx.queue.submit([encoder.finish()]);
    compare(
        &ctx,
        &model,
        &gpu_model,
        &instances,
        &poses,
        "RiggedSimple as unskinned",
    );

    // A joint index past the skin is rejected at upload.
    let mut bad = load(Some("RiggedSimple/RiggedSimple.glb"));
    bad.meshes[0].primitives[0].joints[3][0] = 40;
    bad.meshes[0].primitives[0].weights[3][0] = 1.0;
    let err = renderer.upload_model(&ctx, &bad).unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput(_)), "{err}");
    // A palette of the wrong length is rejected.
    let err = instances.write_palette(&ctx.queue, 0, &[]).unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput(_)), "{err}");
    ctx.check().unwrap();
}
