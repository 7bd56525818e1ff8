//! GPU benchmarks: compute-skinning throughput for 1, 10, 100 and 500 Robots (7,218
//! vertices, 43 joints each), the CPU skinning (prepared job) on the same data, a full
//! offscreen 1280x720 frame (skin + background + lit mesh + grid + skeleton, MSAA), and
//! the library view's frame for 10, 100 and 500 Robots in a grid, each on its own clip
//! (CPU poses in parallel, one skinning dispatch, the lit grid).
//!
//! `cargo bench --bench gpu`. The adapter is printed first: figures from a software
//! rasteriser (lavapipe) say nothing about a real GPU. Without an adapter the benchmarks
//! print "skipping: no GPU adapter" (the CPU figures still run).

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::{Mat4, Vec3};
use stridescope::anim::{PreparedSkin, PreparedSkinningJob};
use stridescope::asset::{self, Model};
use stridescope::render::bounds::{pose_bounds, primitive_influences};
use stridescope::render::PoseMatrices;
use stridescope::render::{
    framed_camera, render_to_image, Background, CharacterDraw, GpuContext, Grid, OffscreenTarget,
    OverlayBatch, Renderer, SceneView, SkeletonStyle, OFFSCREEN_FORMAT,
};
use stridescope::stage::pose::pose_at;
use stridescope::stage::pose::Pose;

const INSTANCE_COUNTS: [u32; 4] = [1, 10, 100, 500];

fn robot() -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb");
    asset::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One pose per instance, spread over the Running clip.
fn poses(model: &Model, count: u32) -> Vec<Pose> {
    let clip = model.find_clip("Robot_Running").expect("Robot_Running");
    let duration = model.clips[clip].duration_secs();
    (0..count)
        .map(|i| pose_at(model, Some(clip), duration * i as f32 / count as f32).unwrap())
        .collect()
}

fn context() -> Option<GpuContext> {
    match GpuContext::headless() {
        Ok(ctx) => {
            eprintln!("adapter: {}", ctx.adapter_label());
            Some(ctx)
        }
        Err(e) => {
            eprintln!("skipping: no GPU adapter ({e})");
            None
        }
    }
}

fn gpu_skinning(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    let model = robot();
    let renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let gpu_model = renderer.upload_model(&ctx, &model).unwrap();
    let mut group = c.benchmark_group("gpu_skinning_robot");
    for count in INSTANCE_COUNTS {
        let poses = poses(&model, count);
        let refs: Vec<&Pose> = poses.iter().collect();
        let mut instances = renderer.create_instances(&ctx, &gpu_model, count).unwrap();
        eprintln!(
            "{count} instances: {} dispatch(es)",
            instances.dispatch_count()
        );
        group.throughput(Throughput::Elements(
            model.vertex_count() as u64 * count as u64,
        ));
        // Per frame: upload every palette, dispatch, wait for the GPU.
        group.bench_with_input(BenchmarkId::new("instances", count), &count, |b, _| {
            b.iter(|| {
                instances
                    .write_poses(&ctx.queue, &gpu_model, &refs)
                    .unwrap();
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                {
                    let mut pass = encoder.begin_compute_pass(&Default::default());
                    instances.encode(&mut pass);
                }
                ctx.queue.submit([encoder.finish()]);
                ctx.wait_idle().unwrap();
            })
        });
    }
    group.finish();
    ctx.check().unwrap();
}

fn cpu_skinning(c: &mut Criterion) {
    let model = robot();
    // Inputs prepared once, as the GPU path does at upload.
    struct Prim {
        mesh: usize,
        vertices: usize,
        skin: PreparedSkin,
    }
    let prims: Vec<Prim> = model
        .meshes
        .iter()
        .enumerate()
        .flat_map(|(m, mesh)| {
            let model = &model;
            mesh.primitives.iter().enumerate().map(move |(p, prim)| {
                let (joints, weights) = primitive_influences(model, m, p);
                Prim {
                    mesh: m,
                    vertices: prim.positions.len(),
                    skin: PreparedSkin::new(&joints, &weights, &prim.positions, &prim.normals)
                        .unwrap(),
                }
            })
        })
        .collect();
    let mut out_p = vec![Vec3::ZERO; model.vertex_count()];
    let mut out_n = vec![Vec3::ZERO; model.vertex_count()];
    let mut group = c.benchmark_group("cpu_skinning_robot");
    for count in INSTANCE_COUNTS {
        let poses = poses(&model, count);
        let palettes: Vec<Vec<Vec<Mat4>>> = poses
            .iter()
            .map(|pose| {
                (0..model.meshes.len())
                    .map(|m| pose.mesh_palette(&model, m).into_owned())
                    .collect()
            })
            .collect();
        group.throughput(Throughput::Elements(
            model.vertex_count() as u64 * count as u64,
        ));
        group.bench_with_input(BenchmarkId::new("instances", count), &count, |b, _| {
            b.iter(|| {
                for palette in &palettes {
                    let mut at = 0;
                    for prim in &prims {
                        let n = prim.vertices;
                        PreparedSkinningJob {
                            palette: &palette[prim.mesh],
                            skin: &prim.skin,
                        }
                        .run(&mut out_p[at..at + n], &mut out_n[at..at + n])
                        .unwrap();
                        at += n;
                    }
                }
                black_box((&out_p, &out_n));
            })
        });
    }
    group.finish();
}

fn offscreen_frame(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    let (width, height) = (1280u32, 720u32);
    let model = robot();
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let gpu_model = renderer.upload_model(&ctx, &model).unwrap();
    let mut instances = renderer.create_instances(&ctx, &gpu_model, 1).unwrap();
    let pose = poses(&model, 1).remove(0);
    let bounds = pose_bounds(&model, &pose).unwrap();
    let mut overlay = OverlayBatch::new();
    overlay.skeleton(&model, &pose, &SkeletonStyle::default());
    let target = OffscreenTarget::new(&ctx.device, width, height, OFFSCREEN_FORMAT).unwrap();
    eprintln!("MSAA x{}", renderer.sample_count());
    let mut group = c.benchmark_group("offscreen_frame_1280x720");
    // GPU frame: palette upload, skinning, render pass; waits for the GPU.
    group.bench_function("robot_grid_skeleton", |b| {
        b.iter(|| {
            instances
                .write_poses(&ctx.queue, &gpu_model, &[&pose])
                .unwrap();
            let characters = [CharacterDraw {
                model: &gpu_model,
                instances: &instances,
                ghost: None,
            }];
            let scene = SceneView {
                camera: framed_camera(&bounds, width as f32 / height as f32),
                characters: &characters,
                grid: Some(Grid::for_bounds(bounds.min, bounds.max)),
                overlay: Some(&overlay),
                background: Background::default(),
            };
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            renderer
                .render(&ctx, &mut encoder, &target.view, [width, height], &scene)
                .unwrap();
            ctx.queue.submit([encoder.finish()]);
            ctx.wait_idle().unwrap();
        })
    });
    // The same plus reading the image back to the CPU (what `stridescope render` does per
    // frame, minus PNG encoding).
    group.bench_function("robot_grid_skeleton_with_readback", |b| {
        b.iter(|| {
            let characters = [CharacterDraw {
                model: &gpu_model,
                instances: &instances,
                ghost: None,
            }];
            let scene = SceneView {
                camera: framed_camera(&bounds, width as f32 / height as f32),
                characters: &characters,
                grid: Some(Grid::for_bounds(bounds.min, bounds.max)),
                overlay: Some(&overlay),
                background: Background::default(),
            };
            black_box(render_to_image(&ctx, &mut renderer, width, height, &scene).unwrap());
        })
    });
    group.finish();
    ctx.check().unwrap();
}

/// The library view's whole frame for `count` Robots: the grid's poses (CPU, rayon), the
/// palettes uploaded, one skinning dispatch, the render pass at 1280x720; waits for the
/// GPU. The Robot's clips are repeated (renamed) so every character has its own.
fn library_view_frame(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    let (width, height) = (1280u32, 720u32);
    let robot = robot();
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let gpu_model = renderer.upload_model(&ctx, &robot).unwrap();
    let target = OffscreenTarget::new(&ctx.device, width, height, OFFSCREEN_FORMAT).unwrap();
    let mut group = c.benchmark_group("library_view_frame_1280x720");
    for count in [10usize, 100, 500] {
        let mut model = robot.clone();
        model.clips = (0..count)
            .map(|i| {
                let clip = robot.clips[i % robot.clips.len()].clone();
                let name = format!("{} {i}", clip.name());
                clip.renamed(name)
            })
            .collect();
        model.analysis = Default::default();
        let mut grid = stridescope::stage::library::ClipGrid::new(&model).unwrap();
        let mut instances = renderer
            .create_instances(&ctx, &gpu_model, count as u32)
            .unwrap();
        let (lo, hi) = grid.bounds();
        let bounds = stridescope::render::Aabb { min: lo, max: hi };
        let camera = framed_camera(&bounds, width as f32 / height as f32);
        let mut t = 0.0;
        group.throughput(Throughput::Elements(count as u64));
        group.bench_with_input(BenchmarkId::new("robots", count), &count, |b, _| {
            b.iter(|| {
                t += 1.0 / 60.0;
                grid.evaluate(&model, t);
                let poses: Vec<&Pose> = grid.poses().collect();
                instances
                    .write_poses(&ctx.queue, &gpu_model, &poses)
                    .unwrap();
                let characters = [CharacterDraw {
                    model: &gpu_model,
                    instances: &instances,
                    ghost: None,
                }];
                let scene = SceneView {
                    camera,
                    characters: &characters,
                    grid: Some(Grid::for_bounds(lo, hi)),
                    overlay: None,
                    background: Background::default(),
                };
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                renderer
                    .render(&ctx, &mut encoder, &target.view, [width, height], &scene)
                    .unwrap();
                ctx.queue.submit([encoder.finish()]);
                ctx.wait_idle().unwrap();
            })
        });
    }
    group.finish();
    ctx.check().unwrap();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = gpu_skinning, cpu_skinning, offscreen_frame, library_view_frame
}
criterion_main!(benches);
