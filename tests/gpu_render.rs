//! Rendered images: golden snapshots with a tolerance, silhouettes where the CPU says the
//! model is, determinism, and GPU failures reported as errors.
//!
//! Snapshots live in `tests/snapshots/<name>.png`. On a mismatch the test writes
//! `<name>.actual.png` and `<name>.diff.png` (differing pixels in red over the dimmed
//! reference) next to the reference. To accept new references after an intended visual
//! change, run:
//!
//! ```text
//! STRIDESCOPE_UPDATE_SNAPSHOTS=1 cargo test --test gpu_render
//! ```
//!
//! and look at the PNGs before committing them.
//!
//! Runs on any wgpu adapter (CI: Mesa lavapipe). Without an adapter the tests print
//! "SKIPPED ...: no GPU adapter" and pass — unless `CI` is set or
//! `STRIDESCOPE_REQUIRE_GPU=1`, then they fail.

mod common;
use common::gpu;
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Vec2, Vec3};
use stridescope::asset::{self, Model};
use stridescope::render::bounds::{cpu_skin_primitive, pose_bounds};
use stridescope::render::camera::world_to_pixel;
use stridescope::render::{
    framed_camera, render_to_image, Background, CharacterDraw, DepthTest, GhostTint, GpuContext,
    Grid, OffscreenTarget, OrbitCamera, OverlayBatch, RenderError, Renderer, Rgba8, RgbaImage,
    SceneView, SkeletonStyle, OFFSCREEN_FORMAT,
};
use stridescope::stage::pose::pose_at;
use stridescope::stage::pose::Pose;

/// A pixel differs when any channel differs by more than this (0..255).
const PIXEL_THRESHOLD: u8 = 40;
/// A snapshot fails when more than this fraction of its pixels differ.
const MAX_DIFFERING_FRACTION: f64 = 0.01;
/// Silhouette bounding box vs CPU-projected vertex bounds, pixels.
const SILHOUETTE_TOLERANCE_PX: f32 = 2.0;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn load(relative: Option<&str>) -> Model {
    match relative {
        Some(r) => {
            let path = manifest().join("../shared/assets").join(r);
            asset::load(&path).unwrap_or_else(|e| panic!("{r}: {e}"))
        }
        None => asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).unwrap(),
    }
}

struct Shot<'a> {
    asset: Option<&'a str>,
    clip: Option<&'a str>,
    time_secs: f32,
    grid: bool,
    skeleton: bool,
}

/// Renders one posed model the way `stridescope render` does; returns the image, the
/// pose and the camera.
fn render_shot(
    ctx: &GpuContext,
    renderer: &mut Renderer,
    model: &Model,
    shot: &Shot,
    size: (u32, u32),
) -> (RgbaImage, Pose, OrbitCamera) {
    let clip = match shot.clip {
        Some(name) => Some(
            model
                .find_clip(name)
                .unwrap_or_else(|| panic!("no clip {name}")),
        ),
        None => (!model.clips.is_empty()).then_some(0),
    };
    let pose = pose_at(model, clip, shot.time_secs).unwrap();
    let bounds = pose_bounds(model, &pose).unwrap();
    let camera = framed_camera(&bounds, size.0 as f32 / size.1 as f32);
    let gpu_model = renderer.upload_model(ctx, model).unwrap();
    let mut instances = renderer.create_instances(ctx, &gpu_model, 1).unwrap();
    instances
        .write_poses(&ctx.queue, &gpu_model, &[&pose])
        .unwrap();
    let mut overlay = OverlayBatch::new();
    if shot.skeleton {
        overlay.skeleton(model, &pose, &SkeletonStyle::default());
    }
    let characters = [CharacterDraw {
        model: &gpu_model,
        instances: &instances,
        ghost: None,
    }];
    let scene = SceneView {
        camera,
        characters: &characters,
        grid: shot.grid.then(|| Grid::for_bounds(bounds.min, bounds.max)),
        overlay: Some(&overlay),
        background: Background::default(),
    };
    let image = render_to_image(ctx, renderer, size.0, size.1, &scene).unwrap();
    (image, pose, camera)
}

fn snapshot_path(name: &str, suffix: &str) -> PathBuf {
    manifest()
        .join("tests/snapshots")
        .join(format!("{name}{suffix}.png"))
}

/// Compares with `tests/snapshots/<name>.png` (see the module docs).
fn assert_snapshot(name: &str, image: &RgbaImage) {
    let reference_path = snapshot_path(name, "");
    let actual_path = snapshot_path(name, ".actual");
    let diff_path = snapshot_path(name, ".diff");
    if std::env::var("STRIDESCOPE_UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(reference_path.parent().unwrap()).unwrap();
        image.save_png(&reference_path).unwrap();
        let _ = std::fs::remove_file(&actual_path);
        let _ = std::fs::remove_file(&diff_path);
        eprintln!("updated {}", reference_path.display());
        return;
    }
    let reference = match RgbaImage::load_png(&reference_path) {
        Ok(r) => r,
        Err(e) => {
            image.save_png(&actual_path).unwrap();
            panic!(
                "no reference snapshot ({e}); wrote {}. Run with STRIDESCOPE_UPDATE_SNAPSHOTS=1 to accept it",
                actual_path.display()
            );
        }
    };
    assert_eq!(
        (reference.width, reference.height),
        (image.width, image.height),
        "{name}: size changed; regenerate with STRIDESCOPE_UPDATE_SNAPSHOTS=1"
    );
    let mut diff = RgbaImage {
        width: image.width,
        height: image.height,
        pixels: Vec::with_capacity(image.pixels.len()),
    };
    let mut differing = 0usize;
    let mut max_delta = 0u8;
    for (a, b) in image
        .pixels
        .chunks_exact(4)
        .zip(reference.pixels.chunks_exact(4))
    {
        let delta = (0..4).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0);
        max_delta = max_delta.max(delta);
        if delta > PIXEL_THRESHOLD {
            differing += 1;
            diff.pixels.extend_from_slice(&[255, 0, 0, 255]);
        } else {
            let grey = ((b[0] as u32 + b[1] as u32 + b[2] as u32) / 9) as u8;
            diff.pixels.extend_from_slice(&[grey, grey, grey, 255]);
        }
    }
    let fraction = differing as f64 / (image.width as f64 * image.height as f64);
    if fraction > MAX_DIFFERING_FRACTION {
        image.save_png(&actual_path).unwrap();
        diff.save_png(&diff_path).unwrap();
        panic!(
            "{name}: {differing} pixels ({:.2}%) differ by more than {PIXEL_THRESHOLD} (max {MAX_DIFFERING_FRACTION:.0e}); \
             wrote {} and {}. If the change is intended: STRIDESCOPE_UPDATE_SNAPSHOTS=1",
            fraction * 100.0,
            actual_path.display(),
            diff_path.display()
        );
    }
    let _ = std::fs::remove_file(&actual_path);
    let _ = std::fs::remove_file(&diff_path);
    eprintln!("{name}: {differing} pixels over threshold, max channel delta {max_delta}");
}

const SNAPSHOT_SIZE: (u32, u32) = (160, 120);

#[test]
fn golden_images() {
    let Some(ctx) = gpu() else { return };
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    eprintln!(
        "adapter: {}, MSAA x{}",
        ctx.adapter_label(),
        renderer.sample_count()
    );
    let shots = [
        (
            "demo_walk_skeleton",
            Shot {
                asset: None,
                clip: Some("Walk"),
                time_secs: 0.4,
                grid: true,
                skeleton: true,
            },
        ),
        (
            "fox_walk",
            Shot {
                asset: Some("Fox/Fox.glb"),
                clip: Some("Walk"),
                time_secs: 0.3,
                grid: true,
                skeleton: false,
            },
        ),
        (
            "cesium_man",
            Shot {
                asset: Some("CesiumMan/CesiumMan.glb"),
                clip: None,
                time_secs: 0.5,
                grid: true,
                skeleton: false,
            },
        ),
        (
            "robot_running_skeleton",
            Shot {
                asset: Some("Robot/robot.glb"),
                clip: Some("Robot_Running"),
                time_secs: 0.3,
                grid: true,
                skeleton: true,
            },
        ),
    ];
    for (name, shot) in &shots {
        let model = load(shot.asset);
        let (image, _, _) = render_shot(&ctx, &mut renderer, &model, shot, SNAPSHOT_SIZE);
        assert_snapshot(name, &image);
    }
    ctx.check().unwrap();
}

#[test]
fn overlay_lines_points_and_arrows() {
    let Some(ctx) = gpu() else { return };
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let model = load(None);
    let pose = pose_at(&model, None, 0.0).unwrap();
    let gpu_model = renderer.upload_model(&ctx, &model).unwrap();
    let mut instances = renderer.create_instances(&ctx, &gpu_model, 1).unwrap();
    instances
        .write_poses(&ctx.queue, &gpu_model, &[&pose])
        .unwrap();
    let mut overlay = OverlayBatch::new();
    // Behind the character (-Z) a depth-tested red line is hidden where the body covers
    // it, an on-top green one is not.
    overlay.line(
        Vec3::new(-1.0, 1.0, -0.5),
        Vec3::new(1.0, 1.0, -0.5),
        Rgba8::RED,
        DepthTest::Tested,
    );
    overlay.line(
        Vec3::new(-1.0, 1.3, -0.5),
        Vec3::new(1.0, 1.3, -0.5),
        Rgba8::GREEN,
        DepthTest::OnTop,
    );
    overlay.arrow(
        Vec3::new(0.0, 0.02, 0.2),
        Vec3::new(0.0, 0.02, 1.0),
        0.2,
        Rgba8::YELLOW,
        DepthTest::OnTop,
    );
    overlay.point(
        Vec3::new(0.3, 0.0, 0.4),
        8.0,
        Rgba8::BLUE,
        DepthTest::Tested,
    );
    overlay.point(
        Vec3::new(0.0, 1.0, -0.5),
        8.0,
        Rgba8::CYAN,
        DepthTest::OnTop,
    );
    overlay.polyline(
        &[
            Vec3::new(-0.8, 0.01, -0.8),
            Vec3::new(-0.4, 0.01, 0.0),
            Vec3::new(-0.8, 0.01, 0.8),
        ],
        Rgba8::ORANGE,
        DepthTest::Tested,
    );
    let camera = OrbitCamera {
        target: Vec3::new(0.0, 0.9, 0.0),
        distance: 4.0,
        ..OrbitCamera::default()
    };
    let characters = [CharacterDraw {
        model: &gpu_model,
        instances: &instances,
        ghost: None,
    }];
    let scene = SceneView {
        camera,
        characters: &characters,
        grid: Some(Grid::for_bounds(Vec3::splat(-1.0), Vec3::splat(1.0))),
        overlay: Some(&overlay),
        background: Background::default(),
    };
    let image = render_to_image(
        &ctx,
        &mut renderer,
        SNAPSHOT_SIZE.0,
        SNAPSHOT_SIZE.1,
        &scene,
    )
    .unwrap();
    assert_snapshot("overlay", &image);
    // The on-top cyan point at the character's chest is visible: its centre pixel is cyan.
    let size = Vec2::new(SNAPSHOT_SIZE.0 as f32, SNAPSHOT_SIZE.1 as f32);
    let p = world_to_pixel(
        &camera.clip_from_world(size.x / size.y),
        Vec3::new(0.0, 1.0, -0.5),
        size,
    )
    .unwrap();
    let px = image.pixel(p.x as u32, p.y as u32);
    assert!(
        px[2] > 150 && px[1] > 150 && px[0] < 150,
        "cyan point covered: {px:?}"
    );
}

#[test]
fn linear_targets_get_shader_encoded_srgb() {
    // The window renders into an Rgba8Unorm texture (what egui-wgpu samples); the
    // shaders then encode sRGB themselves. The result must match the sRGB-target image
    // up to MSAA edge blending (resolved in a different space).
    let Some(ctx) = gpu() else { return };
    let model = load(Some("Fox/Fox.glb"));
    let shot = Shot {
        asset: Some("Fox/Fox.glb"),
        clip: Some("Walk"),
        time_secs: 0.3,
        grid: true,
        skeleton: true,
    };
    let mut srgb = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let mut linear = Renderer::new(&ctx, wgpu::TextureFormat::Rgba8Unorm).unwrap();
    let (a, _, _) = render_shot(&ctx, &mut srgb, &model, &shot, SNAPSHOT_SIZE);
    let (b, _, _) = render_shot(&ctx, &mut linear, &model, &shot, SNAPSHOT_SIZE);
    let differing = a
        .pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .filter(|(p, q)| (0..4).any(|c| p[c].abs_diff(q[c]) > PIXEL_THRESHOLD))
        .count();
    let fraction = differing as f64 / (a.width * a.height) as f64;
    assert!(
        fraction <= MAX_DIFFERING_FRACTION,
        "{differing} pixels differ"
    );
    // Flat areas are identical within rounding: the background corner.
    let (p, q) = (a.pixel(0, 0), b.pixel(0, 0));
    assert!((0..3).all(|c| p[c].abs_diff(q[c]) <= 1), "{p:?} vs {q:?}");
}

/// Pixels that differ from a render of the empty scene.
fn silhouette(image: &RgbaImage, empty: &RgbaImage) -> Option<(Vec2, Vec2, usize)> {
    let mut min = Vec2::splat(f32::MAX);
    let mut max = Vec2::splat(f32::MIN);
    let mut count = 0;
    for y in 0..image.height {
        for x in 0..image.width {
            if image.pixel(x, y) != empty.pixel(x, y) {
                count += 1;
                min = min.min(Vec2::new(x as f32, y as f32));
                max = max.max(Vec2::new(x as f32, y as f32));
            }
        }
    }
    (count > 0).then_some((min, max, count))
}

#[test]
fn every_model_renders_where_the_cpu_says() {
    let Some(ctx) = gpu() else { return };
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let size = (320u32, 240u32);
    let assets = [
        (Some("Fox/Fox.glb"), Some("Survey"), 1.0),
        (Some("CesiumMan/CesiumMan.glb"), None, 1.0),
        (Some("Robot/robot.glb"), Some("Robot_Dance"), 1.2),
        (Some("RiggedFigure/RiggedFigure.glb"), None, 0.6),
        (Some("RiggedSimple/RiggedSimple.glb"), None, 1.0),
        (Some("SimpleSkin/SimpleSkin.gltf"), None, 2.0),
        (None, Some("Run"), 0.2),
    ];
    for (asset, clip, time_secs) in assets {
        let label = asset.unwrap_or("demo");
        let model = load(asset);
        let shot = Shot {
            asset,
            clip,
            time_secs,
            grid: false,
            skeleton: false,
        };
        let (image, pose, camera) = render_shot(&ctx, &mut renderer, &model, &shot, size);
        let empty_scene = SceneView {
            camera,
            characters: &[],
            grid: None,
            overlay: None,
            background: Background::default(),
        };
        let empty = render_to_image(&ctx, &mut renderer, size.0, size.1, &empty_scene).unwrap();
        let (min, max, count) =
            silhouette(&image, &empty).unwrap_or_else(|| panic!("{label}: blank render"));
        let fraction = count as f32 / (size.0 * size.1) as f32;
        assert!(fraction > 0.02, "{label}: only {count} pixels drawn");

        // Every CPU-skinned vertex, projected with the same camera.
        let clip_from_world = camera.clip_from_world(size.0 as f32 / size.1 as f32);
        let px = Vec2::new(size.0 as f32, size.1 as f32);
        let mut cpu_min = Vec2::splat(f32::MAX);
        let mut cpu_max = Vec2::splat(f32::MIN);
        for (m, mesh) in model.meshes.iter().enumerate() {
            for p in 0..mesh.primitives.len() {
                if mesh.primitives[p].indices.is_empty() {
                    continue;
                }
                let (positions, _) = cpu_skin_primitive(&model, &pose, m, p, false).unwrap();
                for v in positions {
                    let q = world_to_pixel(&clip_from_world, v, px).unwrap();
                    cpu_min = cpu_min.min(q);
                    cpu_max = cpu_max.max(q);
                }
            }
        }
        // Pixel index bounds of the projected extent, clipped to the image.
        let expected_min = cpu_min.floor().max(Vec2::ZERO);
        let expected_max = (cpu_max.ceil() - Vec2::ONE).min(px - Vec2::ONE);
        eprintln!(
            "{label}: silhouette {min:?}..{max:?} ({:.1}% of the image), CPU-projected {expected_min:?}..{expected_max:?}",
            fraction * 100.0
        );
        for (got, want, what) in [(min, expected_min, "min"), (max, expected_max, "max")] {
            assert!(
                (got - want).abs().max_element() <= SILHOUETTE_TOLERANCE_PX,
                "{label}: silhouette {what} {got:?}, CPU-projected {want:?}"
            );
        }
        // Framed to fit: the whole model is inside the image with a margin.
        assert!(
            cpu_min.min_element() >= 0.0 && cpu_max.x <= px.x && cpu_max.y <= px.y,
            "{label}: not framed"
        );
    }
    ctx.check().unwrap();
}

#[test]
fn rendering_is_deterministic_and_mistakes_are_errors() {
    let Some(ctx) = gpu() else { return };
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let model = load(Some("Fox/Fox.glb"));
    let shot = Shot {
        asset: Some("Fox/Fox.glb"),
        clip: Some("Run"),
        time_secs: 0.5,
        grid: true,
        skeleton: true,
    };
    let (a, _, camera) = render_shot(&ctx, &mut renderer, &model, &shot, (200, 150));
    let (b, _, _) = render_shot(&ctx, &mut renderer, &model, &shot, (200, 150));
    assert_eq!(a, b, "same frame, different pixels");
    assert_eq!(a.to_png().unwrap(), b.to_png().unwrap());

    // A target whose format does not match the renderer: a validation error captured by
    // the error scope, returned as a RenderError (no panic).
    let result = ctx.scoped(|| {
        let target = OffscreenTarget::new(&ctx.device, 64, 64, wgpu::TextureFormat::Rgba16Float)?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        let scene = SceneView {
            camera,
            characters: &[],
            grid: None,
            overlay: None,
            background: Background::default(),
        };
        renderer.render(&ctx, &mut encoder, &target.view, [64, 64], &scene)?;
        ctx.queue.submit([encoder.finish()]);
        Ok(())
    });
    assert!(
        matches!(result, Err(RenderError::Validation(_))),
        "{result:?}"
    );
    // Zero-sized targets are rejected up front.
    let empty_scene = SceneView {
        camera,
        characters: &[],
        grid: None,
        overlay: None,
        background: Background::default(),
    };
    let err = render_to_image(&ctx, &mut renderer, 0, 10, &empty_scene).unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput(_)), "{err}");
    // The renderer still works afterwards.
    render_to_image(&ctx, &mut renderer, 32, 32, &empty_scene).unwrap();
    ctx.check().unwrap();
}

#[test]
fn a_lost_device_is_reported_not_panicked() {
    let Some(ctx) = gpu() else { return };
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    ctx.device.destroy();
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    assert!(ctx.is_lost());
    assert!(matches!(ctx.check(), Err(RenderError::DeviceLost(_))));
    let scene = SceneView {
        camera: OrbitCamera::default(),
        characters: &[],
        grid: None,
        overlay: None,
        background: Background::default(),
    };
    let err = render_to_image(&ctx, &mut renderer, 16, 16, &scene).unwrap_err();
    assert!(matches!(err, RenderError::DeviceLost(_)), "{err}");
    // Recovery = a new context and renderer.
    let ctx = GpuContext::headless().unwrap();
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    render_to_image(&ctx, &mut renderer, 16, 16, &scene).unwrap();
}

#[test]
fn cli_render_writes_identical_pngs_and_fails_cleanly() {
    if gpu().is_none() {
        return;
    }
    let exe = env!("CARGO_BIN_EXE_stridescope");
    let dir = std::env::temp_dir().join(format!("stridescope-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str]| Command::new(exe).arg("render").args(args).output().unwrap();
    let (a, b) = (dir.join("a.png"), dir.join("b.png"));
    for out in [&a, &b] {
        let o = run(&[
            "--clip",
            "Walk",
            "--time",
            "0.25",
            "--size",
            "96x64",
            "--skeleton",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains("96x64"));
    }
    assert_eq!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&b).unwrap(),
        "same command, different bytes"
    );
    let img = RgbaImage::load_png(&a).unwrap();
    assert_eq!((img.width, img.height), (96, 64));

    let seq = dir.join("seq");
    let o = run(&[
        "--frames",
        "3",
        "--fps",
        "10",
        "--size",
        "48x32",
        "--out-dir",
        seq.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for i in 0..3 {
        assert!(seq.join(format!("frame_{i:04}.png")).is_file());
    }

    let o = run(&[
        "--clip",
        "NoSuchClip",
        "--out",
        dir.join("c.png").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("no clip named 'NoSuchClip'") && stderr.contains("Walk"),
        "{stderr}"
    );
    let o = run(&["--size", "0x10"]);
    assert!(!o.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Pixels of `img` within 30 per channel of `c`.
fn count_color(img: &RgbaImage, c: Rgba8) -> usize {
    img.pixels
        .chunks_exact(4)
        .filter(|p| (0..3).all(|k| p[k].abs_diff(c.0[k]) <= 30))
        .count()
}

/// `render --overlays all` on the demo walk driven at 1.5x its speed (1.909 m/s) and 30
/// degrees off its heading: a golden image, and each overlay colour present where the
/// plain render has none of it.
#[test]
fn locomotion_overlays_golden() {
    use stridescope::render::locomotion_overlay::{
        FINAL_BLUE, ORIENTATION_MAGENTA, ORIGIN_RED, SCALE_YELLOW, STRIDE_ORANGE, WARPED_GREEN,
    };
    if gpu().is_none() {
        return;
    }
    let exe = env!("CARGO_BIN_EXE_stridescope");
    let dir = std::env::temp_dir().join(format!("stridescope-overlays-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let render = |name: &str, extra: &[&str]| -> (RgbaImage, String) {
        let out = dir.join(name);
        let o = Command::new(exe)
            .args([
                "render",
                "--clip",
                "Walk",
                "--movement-speed",
                "1.909",
                "--direction",
                "30",
                "--time",
                "1.0",
                "--size",
                "320x240",
                "--camera-yaw",
                "75",
                "--camera-pitch",
                "20",
                "--out",
                out.to_str().unwrap(),
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            RgbaImage::load_png(&out).unwrap(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let (with, text) = render("with.png", &["--overlays", "all"]);
    let (without, _) = render("without.png", &[]);
    assert!(text.contains("stride scale 1.200"), "{text}");
    assert!(text.contains("play rate 1.250"), "{text}");
    for (name, c) in [
        ("IK origin red", ORIGIN_RED),
        ("scale origin yellow", SCALE_YELLOW),
        ("warped green", WARPED_GREEN),
        ("final blue", FINAL_BLUE),
        ("stride orange", STRIDE_ORANGE),
        ("orientation magenta", ORIENTATION_MAGENTA),
    ] {
        let (a, b) = (count_color(&with, c), count_color(&without, c));
        assert!(a >= b + 8, "{name}: {a} pixels with overlays, {b} without");
    }
    assert_snapshot("demo_walk_overlays", &with);
    let o = Command::new(exe)
        .args(["render", "--overlays", "feet,bogus"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("bogus"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Five quads facing +z, built here: an opaque blue back panel; an orange MASK quad whose
/// COLOR_0 alpha runs 0 -> 1 from left to right (cutoff 0.5: its left half is cut away);
/// a red BLEND quad at alpha 0.5 over the blue (purple where they overlap); a black quad
/// with a green emissive factor (green, unlit); and a white single-sided quad wound the
/// other way (facing away, so culled: it must not show).
fn materials_model() -> Model {
    use serde_json::json;
    use stridescope::asset::glb_writer::{GlbBuilder, ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER};
    let mut bin = GlbBuilder::default();
    let quads: [([f32; 4], f32, bool); 5] = [
        ([-1.0, 1.0, 0.0, 2.0], 0.0, false),
        ([-0.9, -0.1, 0.2, 1.8], 0.1, false),
        ([0.1, 0.9, 0.2, 1.8], 0.1, false),
        ([-0.4, 0.4, 2.05, 2.4], 0.0, false),
        ([-1.0, 1.0, 1.0, 1.2], 0.3, true),
    ];
    let mut primitives = Vec::new();
    for (k, (r, z, flip)) in quads.iter().enumerate() {
        let p = [
            r[0], r[2], *z, r[1], r[2], *z, r[0], r[3], *z, r[1], r[3], *z,
        ];
        let n = [0.0, 0.0, 1.0].repeat(4);
        let c = [
            1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0,
        ];
        let idx: [u32; 6] = if *flip {
            [0, 2, 1, 2, 3, 1]
        } else {
            [0, 1, 2, 2, 1, 3]
        };
        let position = bin.floats(&p, 3, "VEC3", Some(ARRAY_BUFFER), true);
        let normal = bin.floats(&n, 3, "VEC3", Some(ARRAY_BUFFER), false);
        let color = bin.floats(&c, 4, "VEC4", Some(ARRAY_BUFFER), false);
        let bytes: Vec<u8> = idx.iter().flat_map(|i| i.to_le_bytes()).collect();
        let indices = bin.accessor(&bytes, Some(ELEMENT_ARRAY_BUFFER), 5125, 6, "SCALAR", None);
        let mut attributes = json!({"POSITION": position, "NORMAL": normal});
        if k == 1 {
            attributes["COLOR_0"] = json!(color);
        }
        primitives.push(json!({"attributes": attributes, "indices": indices, "material": k}));
    }
    let pbr = |rgba: [f32; 4]| json!({"baseColorFactor": rgba, "metallicFactor": 0.0});
    let document = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": primitives}],
        "materials": [
            {"name": "back", "pbrMetallicRoughness": pbr([0.1, 0.2, 0.9, 1.0])},
            {"name": "mask", "pbrMetallicRoughness": pbr([0.9, 0.6, 0.1, 1.0]), "alphaMode": "MASK", "alphaCutoff": 0.5},
            {"name": "blend", "pbrMetallicRoughness": pbr([1.0, 0.0, 0.0, 0.5]), "alphaMode": "BLEND"},
            {"name": "glow", "pbrMetallicRoughness": pbr([0.0, 0.0, 0.0, 1.0]), "emissiveFactor": [0.0, 1.0, 0.0]},
            {"name": "culled", "pbrMetallicRoughness": pbr([1.0, 1.0, 1.0, 1.0])},
        ],
    });
    stridescope::asset::load_from_slice(&bin.finish(document), Path::new("materials.glb")).unwrap()
}

#[test]
fn alpha_modes_emission_and_culling_golden() {
    let Some(ctx) = gpu() else { return };
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let model = materials_model();
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let m = &model.materials;
    assert_eq!(m[1].alpha_mode, stridescope::asset::AlphaMode::Mask(0.5));
    assert_eq!(m[2].alpha_mode, stridescope::asset::AlphaMode::Blend);
    assert_eq!(m[3].emissive_factor, Vec3::Y);
    assert!(!m[4].double_sided);
    let colors = &model.meshes[0].primitives[1].colors;
    assert_eq!(colors[0], glam::Vec4::new(1.0, 1.0, 1.0, 0.0));
    assert_eq!(colors[1], glam::Vec4::ONE);
    let shot = Shot {
        asset: None,
        clip: None,
        time_secs: 0.0,
        grid: false,
        skeleton: false,
    };
    let (image, _, camera) = render_shot(&ctx, &mut renderer, &model, &shot, SNAPSHOT_SIZE);
    assert_snapshot("materials", &image);
    // Beyond the snapshot, the rules themselves, read at points projected from the model.
    let (w, h) = (image.width as f32, image.height as f32);
    let at = |p: Vec3| {
        let c = camera.clip_from_world(w / h) * p.extend(1.0);
        let (x, y) = (c.x / c.w, c.y / c.w);
        let px = image.pixel(((x * 0.5 + 0.5) * w) as u32, ((0.5 - y * 0.5) * h) as u32);
        (px[0] as i32, px[1] as i32, px[2] as i32)
    };
    // MASK: the left quarter of the orange quad is cut (blue shows), the right is orange.
    let (r, _, b) = at(Vec3::new(-0.8, 1.0, 0.1));
    assert!(
        b > r,
        "masked-out part shows the blue panel: {:?}",
        at(Vec3::new(-0.8, 1.0, 0.1))
    );
    let (r, g, b) = at(Vec3::new(-0.2, 1.0, 0.1));
    assert!(r > b && g > b, "kept part is orange: {r} {g} {b}");
    // BLEND: red at alpha 0.5 over blue gives both.
    let (r, _, b) = at(Vec3::new(0.5, 1.5, 0.1));
    assert!(r > 60 && b > 60, "blended: {r} {b}");
    // Emission: a black base colour shows green.
    let (r, g, b) = at(Vec3::new(0.0, 2.2, 0.0));
    assert!(g > 150 && r < 80 && b < 80, "emissive: {r} {g} {b}");
    // The back-facing single-sided quad is culled: the blue panel shows through it.
    let (r, g, b) = at(Vec3::new(-0.95, 1.1, 0.3));
    assert!(b > r && b > g, "culled: {r} {g} {b}");
}

/// A quad with a 4x4 checker (red / white, one blue corner cell) whose base colour
/// texture has KHR_texture_transform offset (0.25, 0), rotation 0.3 rad and scale 2: the
/// checker shows twice per side, turned and shifted.
fn texture_transform_model() -> Model {
    use serde_json::json;
    use stridescope::asset::glb_writer::{GlbBuilder, ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER};
    // 64 x 64 texels, 16 per cell, so filtering blurs only the cell edges.
    let mut rgba = Vec::new();
    for ty in 0..64u32 {
        for tx in 0..64u32 {
            let (x, y) = (tx / 16, ty / 16);
            let c: [u8; 4] = match (x, y) {
                (0, 0) => [30, 60, 230, 255],
                _ if (x + y) % 2 == 0 => [220, 40, 40, 255],
                _ => [240, 240, 240, 255],
            };
            rgba.extend_from_slice(&c);
        }
    }
    let mut png_bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut png_bytes, 64, 64);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&rgba).unwrap();
    }
    let mut bin = GlbBuilder::default();
    let p = [-1.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 2.0, 0.0, 1.0, 2.0, 0.0];
    let uv = [0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
    let position = bin.floats(&p, 3, "VEC3", Some(ARRAY_BUFFER), true);
    let normal = bin.floats(
        &[0.0, 0.0, 1.0].repeat(4),
        3,
        "VEC3",
        Some(ARRAY_BUFFER),
        false,
    );
    let texcoord = bin.floats(&uv, 2, "VEC2", Some(ARRAY_BUFFER), false);
    let bytes: Vec<u8> = [0u32, 1, 2, 2, 1, 3]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let indices = bin.accessor(&bytes, Some(ELEMENT_ARRAY_BUFFER), 5125, 6, "SCALAR", None);
    let at = bin.append_bytes(&png_bytes);
    let image_view =
        bin.push_view(json!({"buffer": 0, "byteOffset": at, "byteLength": png_bytes.len()}));
    let document = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_texture_transform"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": position, "NORMAL": normal, "TEXCOORD_0": texcoord},
            "indices": indices, "material": 0,
        }]}],
        "materials": [{"name": "checker", "pbrMetallicRoughness": {
            "metallicFactor": 0.0,
            "baseColorTexture": {"index": 0, "extensions": {"KHR_texture_transform": {
                "offset": [0.25, 0.0], "rotation": 0.3, "scale": [2.0, 2.0],
            }}},
        }}],
        "textures": [{"source": 0}],
        "images": [{"bufferView": image_view, "mimeType": "image/png"}],
    });
    stridescope::asset::load_from_slice(&bin.finish(document), Path::new("checker.glb")).unwrap()
}

#[test]
fn texture_transform_golden() {
    let Some(ctx) = gpu() else { return };
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let model = texture_transform_model();
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let shot = Shot {
        asset: None,
        clip: None,
        time_secs: 0.0,
        grid: false,
        skeleton: false,
    };
    let (image, _, _) = render_shot(&ctx, &mut renderer, &model, &shot, (320, 240));
    assert_snapshot("texture_transform", &image);
}

fn srgb_to_linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    255.0
        * if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
}

/// Onion-skin mesh ghosts: a ghost blends its surface over what is behind it by tint x
/// opacity per channel, in linear space. Checked on a cube (convex, so one ghost layer per
/// pixel) against three renders: the background alone, the ghost at full strength (its
/// own colour `g`), and the tinted, translucent ghost, which must equal
/// `g k + background (1 - k)` with `k = opacity x tint` per channel at every pixel.
#[test]
fn a_mesh_ghost_blends_its_surface_by_tint_and_opacity() {
    let Some(ctx) = gpu() else { return };
    let mut renderer = Renderer::new(&ctx, OFFSCREEN_FORMAT).unwrap();
    let path = manifest().join("../shared/fbx/ufbx/maya_null_pivots_7700_binary.fbx");
    let model = asset::load(&path).unwrap();
    let pose = pose_at(&model, None, 0.0).unwrap();
    let bounds = pose_bounds(&model, &pose).unwrap();
    let size = (160u32, 120u32);
    let camera = framed_camera(&bounds, size.0 as f32 / size.1 as f32);
    let gpu_model = renderer.upload_model(&ctx, &model).unwrap();
    let mut instances = renderer.create_instances(&ctx, &gpu_model, 1).unwrap();
    instances
        .write_poses(&ctx.queue, &gpu_model, &[&pose])
        .unwrap();
    let mut shoot = |ghost: Option<GhostTint>| {
        let characters: Vec<CharacterDraw> = ghost
            .map(|g| CharacterDraw {
                model: &gpu_model,
                instances: &instances,
                ghost: Some(g),
            })
            .into_iter()
            .collect();
        let scene = SceneView {
            camera,
            characters: &characters,
            grid: None,
            overlay: None,
            background: Background::default(),
        };
        render_to_image(&ctx, &mut renderer, size.0, size.1, &scene).unwrap()
    };
    let background = shoot(None);
    let full = shoot(Some(GhostTint {
        tint: [1.0; 3],
        opacity: 1.0,
    }));
    let tint = [1.0, 0.55, 0.3];
    let opacity = 0.6;
    let ghost = shoot(Some(GhostTint { tint, opacity }));
    let (mut covered, mut worst) = (0, (0.0f32, 0u32, 0u32));
    for y in 0..size.1 {
        for x in 0..size.0 {
            let (b, g, out) = (background.pixel(x, y), full.pixel(x, y), ghost.pixel(x, y));
            if b != g {
                covered += 1;
            }
            for c in 0..3 {
                let k = opacity * tint[c];
                let expected =
                    linear_to_srgb(srgb_to_linear(g[c]) * k + srgb_to_linear(b[c]) * (1.0 - k));
                let d = (expected - out[c] as f32).abs();
                if d > worst.0 {
                    worst = (d, x, y);
                }
            }
        }
    }
    assert!(covered > 1000, "the cube covers {covered} pixels");
    assert!(
        worst.0 <= 3.0,
        "pixel ({}, {}) is {:.1} levels from the blend",
        worst.1,
        worst.2,
        worst.0
    );
    // The tint shows: the ghost is warmer (more red than blue) than its untinted self
    // wherever it covers the background.
    let (cx, cy) = (size.0 / 2, size.1 / 2);
    let p = ghost.pixel(cx, cy);
    assert!(full.pixel(cx, cy) != background.pixel(cx, cy));
    assert!(p[0] > p[2] + 10, "{p:?}");
}

/// The "movement speed" line `render --overlays text` prints, in m/s.
fn printed_movement_speed(stdout: &str) -> f32 {
    let line = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("movement speed "))
        .unwrap_or_else(|| panic!("no movement speed in {stdout}"));
    line.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn the_window_render_and_trace_start_a_drive_at_the_same_speed() {
    // One driven-session setup (`GraphSession::driven` + `drive_at_natural_speed`) serves
    // all three: Drive in the window, `render --overlays` and `trace --movement-speed`
    // start from the clip's own speed. The demo walk covers 1.4 m per 1.1 s cycle by
    // construction; the Robot runs in place, so its speed comes from its planted feet.
    if gpu().is_none() {
        return;
    }
    let exe = env!("CARGO_BIN_EXE_stridescope");
    let robot = manifest().join("../shared/assets/Robot/robot.glb");
    let cases = [
        (None, "Walk", Some(1.4f32 / 1.1)),
        (Some(robot.as_path()), "Robot_Running", None),
    ];
    for (file, clip, known) in cases {
        let model = match file {
            Some(f) => asset::load(f).unwrap(),
            None => {
                asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).unwrap()
            }
        };
        let mut p = stridescope::app::controller::Previewer::new(model, None, Default::default());
        p.select_clip(p.model().find_clip(clip).unwrap());
        p.set_drive(true);
        assert!(p.is_driving(), "{clip}");
        let window = p.drive.settings.movement_speed;
        let out =
            std::env::temp_dir().join(format!("stridescope-drive-{}.png", std::process::id()));
        let mut args = vec!["render".to_string()];
        args.extend(file.map(|f| f.display().to_string()));
        args.extend(
            [
                "--clip",
                clip,
                "--overlays",
                "text",
                "--size",
                "64x48",
                "--out",
            ]
            .map(String::from),
        );
        args.push(out.display().to_string());
        let o = Command::new(exe).args(&args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let rendered = printed_movement_speed(&String::from_utf8_lossy(&o.stdout));
        // The line prints 3 decimals.
        assert!(
            (rendered - window).abs() <= 0.0005,
            "{clip}: window {window}, render {rendered}"
        );
        let mut args = vec!["trace".to_string()];
        args.extend(file.map(|f| f.display().to_string()));
        args.extend(
            [
                "--clip",
                clip,
                "--movement-speed",
                "1",
                "--seconds",
                "0.5",
                "--json",
            ]
            .map(String::from),
        );
        let o = Command::new(exe).args(&args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let traced = v["summary"]["clip_speed_mps"].as_f64().unwrap() as f32;
        assert!(
            (traced - window).abs() < 1e-4,
            "{clip}: window {window}, trace {traced}"
        );
        if let Some(known) = known {
            assert!((window - known).abs() < 1e-3, "{clip}: {window} vs {known}");
        } else {
            assert!(window > 1.0, "{clip} runs: {window}");
        }
        let _ = std::fs::remove_file(&out);
    }
}
