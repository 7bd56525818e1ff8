//! Morph targets end to end, on a small skinned file built here with the GLB writer:
//! import (deltas, default and node weights, target names, weight channels), STEP /
//! LINEAR / CUBICSPLINE weight sampling against hand-computed values, the CPU oracle
//! (morph then skin) against hand-computed vertices, the GPU pass against the oracle at
//! several weights, the pose graph blending weights with the pose's weights (an additive
//! layer adds its difference), and the Morphs panel's paused overrides.

mod common;

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use serde_json::{json, Value};
use stridescope::anim::Interpolation;
use stridescope::asset::glb_writer::{
    GlbBuilder, ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, UNSIGNED_SHORT,
};
use stridescope::asset::{load_from_slice, Model};
use stridescope::graph::def::{
    BlendInputDef, GraphDef, LayerDef, LayerMode, NodeDef, SyncMode, Weight,
};
use stridescope::graph::PoseGraph;
use stridescope::render::bounds::cpu_skin_primitive;
use stridescope::stage::pose::Pose;

/// Four vertices of a 1 x 2 m quad in the xy plane; the top two follow joint 1 by half.
/// Target 0 ("Smile") moves the top edge 0.5 m along +x and tilts v2's normal; target 1
/// ("Blink") moves v0 1 m along +z.
fn quad_glb(
    mesh_weights: Option<[f32; 2]>,
    node_weights: Option<Vec<f32>>,
    extra_target: bool,
) -> Vec<u8> {
    let mut bin = GlbBuilder::default();
    let positions = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2.0, 0.0];
    let normals = [0.0, 0.0, 1.0].repeat(4);
    let pos = bin.floats(&positions, 3, "VEC3", Some(ARRAY_BUFFER), true);
    let nrm = bin.floats(&normals, 3, "VEC3", Some(ARRAY_BUFFER), false);
    let joints: Vec<u8> = [[0u16, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]]
        .iter()
        .flatten()
        .flat_map(|j| j.to_le_bytes())
        .collect();
    let joints = bin.accessor(&joints, Some(ARRAY_BUFFER), UNSIGNED_SHORT, 4, "VEC4", None);
    let weights = [
        1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0,
    ];
    let weights = bin.floats(&weights, 4, "VEC4", Some(ARRAY_BUFFER), false);
    let index_bytes: Vec<u8> = [0u16, 1, 2, 2, 1, 3]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let indices = bin.accessor(
        &index_bytes,
        Some(ELEMENT_ARRAY_BUFFER),
        UNSIGNED_SHORT,
        6,
        "SCALAR",
        None,
    );
    let smile_p = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.5, 0.0, 0.0];
    let smile_n = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0];
    let blink_p = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let smile_p = bin.floats(&smile_p, 3, "VEC3", None, true);
    let smile_n = bin.floats(&smile_n, 3, "VEC3", None, false);
    let blink_p = bin.floats(&blink_p, 3, "VEC3", None, true);
    let mut targets = vec![
        json!({"POSITION": smile_p, "NORMAL": smile_n}),
        json!({"POSITION": blink_p}),
    ];
    if extra_target {
        targets.push(json!({"POSITION": blink_p}));
    }
    // Joint 1 sits 1 m up: its inverse bind matrix moves it back to the origin.
    let ibm: Vec<f32> = [Mat4::IDENTITY, Mat4::from_translation(-Vec3::Y)]
        .iter()
        .flat_map(|m| m.to_cols_array())
        .collect();
    let ibm = bin.floats(&ibm, 16, "MAT4", None, false);

    // Samplers 0..=2: LINEAR, STEP and CUBICSPLINE weights (2 per key); 3: a rotation.
    fn sampler(
        bin: &mut GlbBuilder,
        interp: &str,
        times: &[f32],
        values: &[f32],
        n: usize,
    ) -> Value {
        let input = bin.floats(times, 1, "SCALAR", None, true);
        let kind = if n == 4 { "VEC4" } else { "SCALAR" };
        let output = bin.floats(values, n, kind, None, false);
        json!({"input": input, "output": output, "interpolation": interp})
    }
    let bend = Quat::from_rotation_z(30f32.to_radians());
    let rotations: Vec<f32> = [Quat::IDENTITY, bend, Quat::IDENTITY]
        .iter()
        .flat_map(|q| q.to_array())
        .collect();
    let samplers_json = vec![
        sampler(
            &mut bin,
            "LINEAR",
            &[0.0, 1.0, 2.0],
            &[0.0, 0.0, 1.0, 0.5, 0.0, 1.0],
            1,
        ),
        sampler(&mut bin, "STEP", &[0.0, 1.0], &[0.2, 0.4, 0.8, 0.6], 1),
        // Per key: in-tangents (2), values (2), out-tangents (2).
        sampler(
            &mut bin,
            "CUBICSPLINE",
            &[0.0, 1.0],
            &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, -2.0, 1.0, 0.0, 0.0, 0.0],
            1,
        ),
        sampler(&mut bin, "LINEAR", &[0.0, 1.0, 2.0], &rotations, 4),
    ];
    let (linear, step, cubic) = (0, 1, 2);

    let channel = |sampler: usize, node: usize, path: &str| json!({"sampler": sampler, "target": {"node": node, "path": path}});
    let animation = |name: &str, weights: usize, with_rotation: bool| {
        let mut channels = vec![channel(weights, 2, "weights")];
        if with_rotation {
            channels.push(channel(3, 1, "rotation"));
        }
        json!({"name": name, "channels": channels, "samplers": samplers_json.clone()})
    };
    let mut mesh = json!({
        "name": "face",
        "primitives": [{
            "attributes": {"POSITION": pos, "NORMAL": nrm, "JOINTS_0": joints, "WEIGHTS_0": weights},
            "indices": indices,
            "targets": targets,
        }],
        "extras": {"targetNames": ["Smile", "Blink"]},
    });
    if let Some(w) = mesh_weights {
        mesh["weights"] = json!(w);
    }
    let mut face = json!({"name": "face", "mesh": 0, "skin": 0});
    if let Some(w) = node_weights {
        face["weights"] = json!(w);
    }
    let document = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 2]}],
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "arm", "translation": [0.0, 1.0, 0.0]},
            face,
        ],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": ibm}],
        "meshes": [mesh],
        "animations": [
            animation("Linear", linear, true),
            animation("Step", step, false),
            animation("Cubic", cubic, false),
        ],
    });
    bin.finish(document)
}

fn quad() -> Model {
    let bytes = quad_glb(Some([0.25, 0.0]), None, false);
    // To look at the file in the window: STRIDESCOPE_WRITE_MORPH_QUAD=/tmp/quad.glb.
    if let Some(path) = std::env::var_os("STRIDESCOPE_WRITE_MORPH_QUAD") {
        std::fs::write(path, &bytes).unwrap();
    }
    load_from_slice(&bytes, Path::new("quad.glb")).unwrap()
}

fn weights_at(model: &Model, clip: &str, t: f32) -> Vec<f32> {
    let mut out = model.default_morph_weights();
    model.morph_weights_at(model.find_clip(clip), t, &mut out);
    out[0].clone()
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-6, "{what}: {got:?} != {want:?}");
    }
}

#[test]
fn targets_names_weights_and_channels_import() {
    let model = quad();
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let mesh = &model.meshes[0];
    assert_eq!(mesh.target_names, ["Smile", "Blink"]);
    assert_eq!(mesh.morph_weights, [0.25, 0.0]);
    let t = &mesh.primitives[0].morph_targets;
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].positions[2], Vec3::new(0.5, 0.0, 0.0));
    assert_eq!(t[0].normals[2], Vec3::new(0.5, 0.0, 0.0));
    assert!(t[1].normals.is_empty());
    assert_eq!(t[1].positions[0], Vec3::Z);
    let linear = &model.clips[model.find_clip("Linear").unwrap()];
    assert_eq!(linear.duration_secs(), 2.0);
    let track = &linear.morph_tracks()[0];
    assert_eq!(track.joint, mesh.joint);
    assert_eq!(
        (track.targets(), track.interpolation()),
        (2, Interpolation::Linear)
    );
    // The Cubic clip animates only the weights: it is still a clip.
    let cubic = &model.clips[model.find_clip("Cubic").unwrap()];
    assert!(cubic.tracks().is_empty());
    assert_eq!(cubic.duration_secs(), 1.0);
    assert_eq!(
        cubic.morph_tracks()[0].interpolation(),
        Interpolation::CubicSpline
    );
}

#[test]
fn weight_channels_sample_to_hand_computed_values() {
    let model = quad();
    // LINEAR keys (0, 0) (1, 0.5) (0, 1) at 0, 1, 2 s.
    assert_close(
        &weights_at(&model, "Linear", 0.5),
        &[0.5, 0.25],
        "linear 0.5",
    );
    assert_close(
        &weights_at(&model, "Linear", 1.5),
        &[0.5, 0.75],
        "linear 1.5",
    );
    assert_close(
        &weights_at(&model, "Linear", 9.0),
        &[0.0, 1.0],
        "linear held",
    );
    // STEP keys (0.2, 0.4) (0.8, 0.6) at 0, 1 s.
    assert_close(
        &weights_at(&model, "Step", 0.999),
        &[0.2, 0.4],
        "step before",
    );
    assert_close(&weights_at(&model, "Step", 1.0), &[0.8, 0.6], "step at");
    // CUBICSPLINE at s = 0.5, dt = 1: Hermite weights (0.5, 0.125, 0.5, -0.125).
    // Target 0: v0 0, out-tangent 1, v1 1, in-tangent 0 -> 0.125 + 0.5 = 0.625.
    // Target 1: v0 1, out-tangent 0, v1 0, in-tangent -2 -> 0.5 + 0.25 = 0.75.
    assert_close(
        &weights_at(&model, "Cubic", 0.5),
        &[0.625, 0.75],
        "cubic 0.5",
    );
    assert_close(
        &weights_at(&model, "Cubic", 0.0),
        &[0.0, 1.0],
        "cubic key 0",
    );
    // No clip: the defaults.
    let mut out = model.default_morph_weights();
    model.morph_weights_at(None, 0.0, &mut out);
    assert_eq!(out[0], [0.25, 0.0]);
}

#[test]
fn node_weights_override_mesh_weights_and_bad_counts_are_named() {
    let m = load_from_slice(
        &quad_glb(Some([0.25, 0.0]), Some(vec![0.0, 0.75]), false),
        Path::new("q.glb"),
    )
    .unwrap();
    assert_eq!(m.meshes[0].morph_weights, [0.0, 0.75]);
    let m = load_from_slice(&quad_glb(None, None, false), Path::new("q.glb")).unwrap();
    assert_eq!(m.meshes[0].morph_weights, [0.0, 0.0]);
    let m = load_from_slice(
        &quad_glb(Some([0.25, 0.0]), Some(vec![1.0]), false),
        Path::new("q.glb"),
    )
    .unwrap();
    assert_eq!(m.meshes[0].morph_weights, [0.25, 0.0]);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("node 2") && w.contains("weights has 1 entries")),
        "{:?}",
        m.warnings
    );
    // Three targets: the weights channels carry 2 per key, which no longer matches.
    let err =
        load_from_slice(&quad_glb(Some([0.25, 0.0]), None, true), Path::new("q.glb")).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("q.glb") && text.contains("animation 0 channel 0"),
        "{text}"
    );
}

#[test]
fn the_cpu_oracle_morphs_before_skinning() {
    let model = quad();
    let mut pose = Pose::new(&model);
    // Bind pose, weights (1, 1): v2 = (0, 2, 0) + (0.5, 0, 0); v0 = (0, 0, 1).
    pose.morph_weights[0] = vec![1.0, 1.0];
    let (p, n) = cpu_skin_primitive(&model, &pose, 0, 0, true).unwrap();
    let want = [
        Vec3::Z,
        Vec3::X,
        Vec3::new(0.5, 2.0, 0.0),
        Vec3::new(1.5, 2.0, 0.0),
    ];
    for (g, w) in p.iter().zip(want) {
        assert!((*g - w).length() < 1e-6, "{p:?}");
    }
    // v2's normal (0, 0, 1) + (0.5, 0, 0), renormalised by skinning.
    assert!((n[2] - Vec3::new(0.5, 0.0, 1.0).normalize()).length() < 1e-6);
    // Linear at 1 s: weights (1, 0.5) and joint 1 bent 30 degrees about z; the top
    // vertices follow it by half (linear blend of the two joint matrices).
    let clip = model.find_clip("Linear");
    pose.evaluate(
        &model,
        &stridescope::stage::pose::PoseRequest {
            clip,
            time_secs: 1.0,
            remove_root_motion: None,
            model_from_root: Mat4::IDENTITY,
        },
    )
    .unwrap();
    assert_close(&pose.morph_weights[0], &[1.0, 0.5], "pose weights");
    let (p, _) = cpu_skin_primitive(&model, &pose, 0, 0, true).unwrap();
    let bent = Mat4::from_translation(Vec3::Y) * Mat4::from_rotation_z(30f32.to_radians());
    let skin = |v: Vec3| {
        let j1 = bent * Mat4::from_translation(-Vec3::Y);
        0.5 * v + 0.5 * j1.transform_point3(v)
    };
    assert!(
        (p[0] - Vec3::new(0.0, 0.0, 0.5)).length() < 1e-6,
        "{:?}",
        p[0]
    );
    assert!(
        (p[3] - skin(Vec3::new(1.5, 2.0, 0.0))).length() < 1e-5,
        "{:?}",
        p[3]
    );
}

#[test]
fn gpu_morph_and_skin_match_the_cpu_oracle() {
    let Some(ctx) = common::gpu() else { return };
    let model = quad();
    let renderer =
        stridescope::render::Renderer::new(&ctx, stridescope::render::OFFSCREEN_FORMAT).unwrap();
    let gpu_model = renderer.upload_model(&ctx, &model).unwrap();
    let clip = model.find_clip("Linear");
    let mut poses = Vec::new();
    for (t, weights) in [
        (0.0, None),
        (0.5, None),
        (1.0, None),
        (1.5, Some(vec![-0.5, 1.5])),
        (2.0, Some(vec![0.0, 0.0])),
    ] {
        let mut pose = Pose::new(&model);
        pose.evaluate(
            &model,
            &stridescope::stage::pose::PoseRequest {
                clip,
                time_secs: t,
                remove_root_motion: None,
                model_from_root: Mat4::IDENTITY,
            },
        )
        .unwrap();
        if let Some(w) = weights {
            pose.morph_weights[0] = w;
        }
        poses.push(pose);
    }
    let mut instances = renderer
        .create_instances(&ctx, &gpu_model, poses.len() as u32)
        .unwrap();
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
    for (i, pose) in poses.iter().enumerate() {
        let gpu = instances.read_back(&ctx, i as u32).unwrap();
        let (p, n) = cpu_skin_primitive(&model, pose, 0, 0, true).unwrap();
        for v in 0..4 {
            let dp = (Vec3::from(gpu[v].position) - p[v]).length();
            let dn = (Vec3::from(gpu[v].normal) - n[v]).length();
            assert!(
                dp < 1e-5 && dn < 1e-5,
                "instance {i} vertex {v}: GPU {:?} {:?} CPU {} {}",
                gpu[v].position,
                gpu[v].normal,
                p[v],
                n[v]
            );
        }
    }
    // The weights really act on the GPU: instance 3 (weights -0.5, 1.5) puts v0 at z = 1.5.
    let gpu = instances.read_back(&ctx, 3).unwrap();
    assert!(
        (gpu[0].position[2] - 1.5).abs() < 1e-5,
        "{:?}",
        gpu[0].position
    );
}

#[test]
fn the_pose_graph_blends_morph_weights_like_the_pose() {
    let model = quad();
    let def = GraphDef {
        params: Vec::new(),
        base: NodeDef::Blend {
            inputs: vec![
                BlendInputDef {
                    clip: "Linear".into(),
                    weight: Weight::Fixed(0.75),
                    offset: 0.0,
                },
                BlendInputDef {
                    clip: "Step".into(),
                    weight: Weight::Fixed(0.25),
                    offset: 0.0,
                },
            ],
            sync: SyncMode::None,
        },
        layers: Vec::new(),
    };
    let mut graph = PoseGraph::new(&model, &def).unwrap();
    // Phase 0: Linear (0, 0), Step (0.2, 0.4).
    assert_close(&graph.morph_weights()[0], &[0.05, 0.1], "phase 0");
    // Leader (Linear, 2 s) at 0.5 s = phase 0.25; Step at 0.25 s.
    graph.seek(&model, 0.5).unwrap();
    assert_close(&graph.morph_weights()[0], &[0.425, 0.2875], "phase 0.25");
    // An additive layer of the Cubic clip (reference: its first key (0, 1)) at phase 0.25
    // (0.25 s: Hermite weights 0.84375, 0.140625, 0.15625, -0.046875 give
    // (0.296875, 0.9375)) adds (0.296875, -0.0625).
    let mut with_layer = def.clone();
    with_layer.layers.push(LayerDef {
        name: "face".into(),
        clip: "Cubic".into(),
        mode: LayerMode::Additive,
        weight: Weight::Fixed(1.0),
        mask: None,
        reference: Default::default(),
        hold: None,
    });
    let mut graph = PoseGraph::new(&model, &with_layer).unwrap();
    graph.seek(&model, 0.5).unwrap();
    assert_close(
        &graph.morph_weights()[0],
        &[0.721875, 0.225],
        "with the layer",
    );
}

#[test]
fn paused_overrides_replace_the_animated_weights_until_playback_resumes() {
    let model = quad();
    let mut p = stridescope::app::controller::Previewer::new(model, None, Default::default());
    let clip = p.model().find_clip("Linear").unwrap();
    p.select_clip(clip);
    p.stage.main.timeline.seek_secs(0.5);
    p.evaluate_pose();
    assert_close(
        &p.stage.main.pose.morph_weights[0],
        &[0.5, 0.25],
        "animated",
    );
    p.set_morph_override(0, 1, Some(0.9));
    assert_close(
        &p.stage.main.pose.morph_weights[0],
        &[0.5, 0.9],
        "overridden",
    );
    // A target or mesh the model lacks, or a weight that is no number, changes nothing.
    p.set_morph_override(0, 2, Some(0.3));
    p.set_morph_override(1, 0, Some(0.3));
    p.set_morph_override(0, 0, Some(f32::NAN));
    assert_close(
        &p.stage.main.pose.morph_weights[0],
        &[0.5, 0.9],
        "after refused overrides",
    );
    assert_eq!(p.inspect.morph_overrides.get(0, 0), None);
    p.toggle_play();
    p.evaluate_pose();
    assert!(!p.inspect.morph_overrides.any());
    assert_close(
        &p.stage.main.pose.morph_weights[0],
        &[0.5, 0.25],
        "released",
    );
}

#[test]
fn the_morphs_panel_sets_a_weight_by_hand_and_releases_it() {
    use egui_kittest::kittest::Queryable;
    let previewer = stridescope::app::ui::Previewer::new(quad(), None, Default::default());
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1280.0, 900.0))
        .build_ui_state(
            |ui, p: &mut stridescope::app::ui::Previewer| p.ui(ui, None),
            previewer,
        );
    h.run_steps(2);
    // One slider per target, named after it; Blink is the second.
    let mut sliders: Vec<egui::Rect> = h
        .query_all_by_role(egui::accesskit::Role::Slider)
        .map(|n| n.rect())
        .filter(|r| r.min.x > 900.0)
        .collect();
    sliders.sort_by(|a, b| a.min.y.total_cmp(&b.min.y));
    assert_eq!(sliders.len(), 2, "{sliders:?}");
    let slider = sliders[1];
    let at = egui::pos2(
        slider.lerp_inside(egui::vec2(0.75, 0.5)).x,
        slider.center().y,
    );
    common::click_at(&mut h, at);
    let set = h
        .state()
        .inspect
        .morph_overrides
        .get(0, 1)
        .expect("Blink set by hand");
    assert!((set - 0.75).abs() < 0.12, "{set}");
    assert!((h.state().stage.main.pose.morph_weights[0][1] - set).abs() < 1e-6);
    h.get_by_label("Release all").click();
    h.run_steps(2);
    assert!(!h.state().inspect.morph_overrides.any());
    assert_eq!(h.state().stage.main.pose.morph_weights[0], [0.0, 0.0]);
}
