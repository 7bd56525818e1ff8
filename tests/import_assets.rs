//! Every real character in ../shared/assets imports with the numbers its README lists
//! (skin joints, vertices, clips with names, durations and channel counts).

use std::path::{Path, PathBuf};

use stridescope::anim::{SamplingJob, Transform};
use stridescope::asset::{self, Model};

const DURATION_TOL: f32 = 1e-5;

fn asset_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/assets")
        .join(rel)
}

fn load(rel: &str) -> Model {
    let path = asset_path(rel);
    match asset::load(&path) {
        Ok(model) => model,
        Err(e) => panic!("{rel} failed to import: {e}"),
    }
}

/// (name, duration s, channels)
type ClipSpec<'a> = (&'a str, f32, usize);

fn check_model(
    rel: &str,
    model: &Model,
    skin_joints: usize,
    vertices: usize,
    clips: &[ClipSpec<'_>],
) {
    assert_eq!(model.skins.len(), 1, "{rel}: skin count");
    assert_eq!(
        model.skins[0].joints.len(),
        skin_joints,
        "{rel}: skin joints"
    );
    assert_eq!(
        model.skins[0].inverse_bind.len(),
        skin_joints,
        "{rel}: inverse binds"
    );
    assert_eq!(model.vertex_count(), vertices, "{rel}: vertex count");
    assert_eq!(model.clips.len(), clips.len(), "{rel}: clip count");
    for (clip, &(name, duration, channels)) in model.clips.iter().zip(clips) {
        assert_eq!(clip.name(), name, "{rel}: clip name");
        assert!(
            (clip.duration_secs() - duration).abs() <= DURATION_TOL,
            "{rel}: clip '{name}' lasts {} s, expected {duration} s",
            clip.duration_secs()
        );
        assert_eq!(
            clip.channel_count(),
            channels,
            "{rel}: clip '{name}' channels"
        );
        assert_eq!(
            model.find_clip(name),
            Some(model.clips.iter().position(|c| c.name() == name).unwrap())
        );
    }
    check_consistency(rel, model);
}

/// Structural invariants every imported model must satisfy.
fn check_consistency(rel: &str, model: &Model) {
    let skeleton = &model.skeleton;
    assert_eq!(model.node_of_joint.len(), skeleton.joint_count(), "{rel}");
    for (j, parent) in skeleton.parents().iter().enumerate() {
        if let Some(p) = parent {
            assert!(*p < j, "{rel}: joint {j} has parent {p} after it");
        }
    }
    for t in skeleton.rest_pose() {
        assert!(t.is_finite(), "{rel}: rest pose not finite");
        assert!(
            (t.rotation.length() - 1.0).abs() < 1e-4,
            "{rel}: rest rotation not unit"
        );
    }
    let mut nodes = model.node_of_joint.clone();
    nodes.sort_unstable();
    nodes.dedup();
    assert_eq!(
        nodes.len(),
        model.node_of_joint.len(),
        "{rel}: a node appears twice"
    );
    for skin in &model.skins {
        for &j in &skin.joints {
            assert!(j < skeleton.joint_count(), "{rel}: skin joint out of range");
        }
        for m in &skin.inverse_bind {
            assert!(m.is_finite());
            assert_eq!(
                m.row(3),
                glam::Vec4::W,
                "{rel}: inverse bind matrix not affine"
            );
        }
    }
    for mesh in &model.meshes {
        assert!(
            mesh.joint < skeleton.joint_count(),
            "{rel}: mesh joint out of range"
        );
        let skin_joints = mesh.skin.map(|s| model.skins[s].joints.len());
        for prim in &mesh.primitives {
            let n = prim.positions.len();
            assert!(n > 0, "{rel}: empty primitive");
            assert_eq!(prim.normals.len(), n, "{rel}: normals");
            assert_eq!(prim.joints.len(), n, "{rel}: joints");
            assert_eq!(prim.weights.len(), n, "{rel}: weights");
            assert!(prim.tangents.is_empty() || prim.tangents.len() == n);
            assert!(prim.uvs.is_empty() || prim.uvs.len() == n);
            assert_eq!(prim.indices.len() % 3, 0, "{rel}: indices not triangles");
            assert!(
                prim.indices.iter().all(|&i| (i as usize) < n),
                "{rel}: index range"
            );
            for normal in &prim.normals {
                assert!(
                    (normal.length() - 1.0).abs() < 1e-3,
                    "{rel}: normal not unit"
                );
            }
            if let Some(material) = prim.material {
                assert!(material < model.materials.len(), "{rel}: material index");
            }
            if let Some(jc) = skin_joints {
                for (v, (js, ws)) in prim.joints.iter().zip(&prim.weights).enumerate() {
                    let sum: f32 = ws.iter().sum();
                    assert!(sum > 0.5 && sum < 1.5, "{rel}: vertex {v} weight sum {sum}");
                    for (j, w) in js.iter().zip(ws) {
                        assert!(*w >= 0.0);
                        assert!(
                            *w == 0.0 || (*j as usize) < jc,
                            "{rel}: vertex {v} joint {j}"
                        );
                    }
                }
            }
        }
    }
    for material in &model.materials {
        if let Some(i) = material.base_color_image {
            assert!(i < model.images.len(), "{rel}: image index");
        }
    }
    for image in &model.images {
        assert_eq!(
            image.rgba8.len(),
            image.width as usize * image.height as usize * 4
        );
    }
    // Every clip samples to finite transforms with unit rotations at a few times.
    let mut pose = vec![Transform::IDENTITY; skeleton.joint_count()];
    for clip in &model.clips {
        for k in 0..=8 {
            let t = clip.duration_secs() * k as f32 / 8.0;
            SamplingJob {
                clip,
                time_secs: t,
                rest_pose: skeleton.rest_pose(),
            }
            .run(&mut pose)
            .unwrap();
            for p in &pose {
                assert!(p.is_finite(), "{rel}: clip '{}' t={t}", clip.name());
                assert!((p.rotation.length() - 1.0).abs() < 1e-4);
            }
        }
    }
}

fn base_color_image(model: &Model) -> &asset::Image {
    let index = model
        .materials
        .iter()
        .find_map(|m| m.base_color_image)
        .expect("a material with a base-colour image");
    &model.images[index]
}

const FOX_CLIPS: [ClipSpec<'static>; 3] = [
    ("Survey", 3.416667, 21),
    ("Walk", 0.708333, 21),
    ("Run", 1.158333, 21),
];

#[test]
fn fox_glb_and_gltf() {
    let glb = load("Fox/Fox.glb");
    let gltf = load("Fox/Fox.gltf");
    for (rel, model) in [("Fox.glb", &glb), ("Fox.gltf", &gltf)] {
        check_model(rel, model, 24, 1728, &FOX_CLIPS);
        assert_eq!(model.skeleton.joint_count(), 26, "{rel}: scene nodes");
        assert_eq!(model.meshes.len(), 1);
        assert_eq!(model.meshes[0].primitives.len(), 1);
        assert_eq!(model.meshes[0].skin, Some(0));
        for clip in &model.clips {
            assert_eq!(clip.first_key_secs(), 0.0);
            // 20 rotation + 1 translation channels on 20 joints.
            assert_eq!(
                clip.tracks().len(),
                20,
                "{rel}: '{}' animated joints",
                clip.name()
            );
            let rotations = clip
                .tracks()
                .iter()
                .filter(|t| t.rotation.is_some())
                .count();
            let translations = clip
                .tracks()
                .iter()
                .filter(|t| t.translation.is_some())
                .count();
            assert_eq!((rotations, translations), (20, 1));
        }
        let image = base_color_image(model);
        assert_eq!(
            (image.width, image.height),
            (1024, 1024),
            "{rel}: texture size"
        );
        assert!(
            image.rgba8.iter().any(|&b| b != 0),
            "{rel}: texture is blank"
        );
        assert!(model.warnings.is_empty(), "{rel}: {:?}", model.warnings);
    }
    assert_eq!(glb.source, "Fox.glb");
    // Same nodes, accessors and animations: the two files import identically.
    assert_eq!(glb.skeleton, gltf.skeleton);
    assert_eq!(glb.node_of_joint, gltf.node_of_joint);
    assert_eq!(glb.skins, gltf.skins);
    assert_eq!(glb.clips, gltf.clips);
    assert_eq!(
        glb.meshes[0].primitives[0].positions,
        gltf.meshes[0].primitives[0].positions
    );
    assert_eq!(glb.images, gltf.images);
    // The three clips animate the same joints.
    let joints = |i: usize| {
        glb.clips[i]
            .tracks()
            .iter()
            .map(|t| t.joint)
            .collect::<Vec<_>>()
    };
    assert_eq!(joints(0), joints(1));
    assert_eq!(joints(1), joints(2));
}

#[test]
fn cesium_man_glb_and_gltf() {
    let glb = load("CesiumMan/CesiumMan.glb");
    let gltf = load("CesiumMan/CesiumMan.gltf");
    for (rel, model) in [("CesiumMan.glb", &glb), ("CesiumMan.gltf", &gltf)] {
        check_model(rel, model, 19, 3273, &[("animation 0", 2.0, 57)]);
        assert_eq!(model.skeleton.joint_count(), 22, "{rel}: scene nodes");
        let clip = &model.clips[0];
        assert!(
            (clip.first_key_secs() - 0.041667).abs() <= DURATION_TOL,
            "{rel}: first key at {} s",
            clip.first_key_secs()
        );
        // 19 joints x T/R/S, 48 keys per sampler.
        assert_eq!(clip.tracks().len(), 19);
        for t in clip.tracks() {
            assert_eq!(t.channel_count(), 3);
            assert_eq!(t.rotation.as_ref().unwrap().times().len(), 48);
        }
        // The root `Z_UP` node has a matrix: a -90 degree turn about X.
        let root = model.skeleton.rest_pose()[0];
        assert_eq!(model.skeleton.parents()[0], None);
        let angle = root.rotation.angle_between(glam::Quat::IDENTITY);
        assert!(
            (angle - std::f32::consts::FRAC_PI_2).abs() < 1e-4,
            "{rel}: root angle {angle}"
        );
        let image = base_color_image(model);
        assert_eq!(
            (image.width, image.height),
            (1024, 1024),
            "{rel}: texture size"
        );
        assert!(image.rgba8.iter().any(|&b| b != 0));
    }
    assert_eq!(glb.skeleton, gltf.skeleton);
    assert_eq!(glb.clips, gltf.clips);
    assert_eq!(glb.skins, gltf.skins);
}

#[test]
fn rigged_simple() {
    let model = load("RiggedSimple/RiggedSimple.glb");
    check_model(
        "RiggedSimple",
        &model,
        2,
        160,
        &[("animation 0", 2.083333, 3)],
    );
    assert_eq!(model.skeleton.joint_count(), 5);
    let clip = &model.clips[0];
    assert!((clip.first_key_secs() - 0.041667).abs() <= DURATION_TOL);
    assert_eq!(clip.tracks().len(), 1);
    assert_eq!(
        clip.tracks()[0].rotation.as_ref().unwrap().times().len(),
        50
    );
}

#[test]
fn rigged_figure() {
    let model = load("RiggedFigure/RiggedFigure.glb");
    check_model(
        "RiggedFigure",
        &model,
        19,
        370,
        &[("animation 0", 1.25, 57)],
    );
    assert_eq!(model.skeleton.joint_count(), 22);
    assert!(model.skeleton.find("torso_joint_1").is_some());
    for t in model.clips[0].tracks() {
        assert_eq!(t.scale.as_ref().unwrap().times(), &[0.0, 1.25]);
    }
}

#[test]
fn simple_skin_quaternions_are_normalised_silently() {
    let model = load("SimpleSkin/SimpleSkin.gltf");
    // 10 vertices in the file; without NORMAL they are split per triangle corner for flat
    // normals (8 triangles).
    check_model("SimpleSkin", &model, 2, 24, &[("animation 0", 5.5, 1)]);
    let p = &model.meshes[0].primitives[0];
    for tri in p.indices.chunks_exact(3) {
        let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let face = (p.positions[b] - p.positions[a])
            .cross(p.positions[c] - p.positions[a])
            .normalize();
        for v in [a, b, c] {
            assert!((p.normals[v] - face).length() < 1e-6, "vertex {v}");
        }
    }
    assert_eq!(model.skeleton.joint_count(), 3);
    assert!(
        !model.warnings.iter().any(|w| w.contains("unit length")),
        "norms 0.9998..1.0002 must load silently: {:?}",
        model.warnings
    );
    let clip = &model.clips[0];
    let track = clip.tracks()[0].rotation.as_ref().unwrap();
    assert_eq!(track.times().len(), 12);
    for q in track.values() {
        assert!((q.length() - 1.0).abs() < 1e-6, "stored key {q} not unit");
    }
    // Sampled rotations are unit length everywhere, including between keys.
    let mut pose = vec![Transform::IDENTITY; model.skeleton.joint_count()];
    let joint = clip.tracks()[0].joint;
    for k in 0..=110 {
        let t = k as f32 * 0.05;
        SamplingJob {
            clip,
            time_secs: t,
            rest_pose: model.skeleton.rest_pose(),
        }
        .run(&mut pose)
        .unwrap();
        let len = pose[joint].rotation.length();
        assert!((len - 1.0).abs() < 1e-5, "t={t}: |q| = {len}");
    }
    // The mesh node and the joint root are both scene roots; the mesh has no material.
    assert_eq!(model.meshes.len(), 1);
    assert_eq!(model.meshes[0].primitives[0].material, None);
    assert_eq!(model.meshes[0].primitives[0].indices.len() % 3, 0);
}

#[test]
fn robot_shares_one_skin_over_fourteen_meshes() {
    let model = load("Robot/robot.glb");
    let names = [
        ("Robot_Dance", 3.333333),
        ("Robot_Death", 0.958333),
        ("Robot_Idle", 3.333333),
        ("Robot_Jump", 0.708333),
        ("Robot_No", 1.666667),
        ("Robot_Punch", 0.833333),
        ("Robot_Running", 0.958333),
        ("Robot_Sitting", 0.416667),
        ("Robot_Standing", 0.416667),
        ("Robot_ThumbsUp", 1.583333),
        ("Robot_Walking", 0.958333),
        ("Robot_WalkJump", 0.833333),
        ("Robot_Wave", 1.833333),
        ("Robot_Yes", 1.666667),
    ];
    let clips: Vec<ClipSpec<'_>> = names.iter().map(|&(n, d)| (n, d, 129)).collect();
    check_model("robot.glb", &model, 43, 7218, &clips);
    assert_eq!(model.skeleton.joint_count(), 58);
    assert_eq!(model.meshes.len(), 14);
    assert!(model.meshes.iter().all(|m| m.skin == Some(0)));
    let prims: usize = model.meshes.iter().map(|m| m.primitives.len()).sum();
    assert_eq!(prims, 19);
    assert_eq!(model.materials.len(), 3);
    assert!(model.images.is_empty());
    // All 14 clips animate the same 43 joints with T/R/S.
    let walk = &model.clips[model.find_clip("Robot_Walking").unwrap()];
    let run = &model.clips[model.find_clip("Robot_Running").unwrap()];
    assert_eq!(walk.tracks().len(), 43);
    let joints =
        |c: &stridescope::anim::Clip| c.tracks().iter().map(|t| t.joint).collect::<Vec<_>>();
    assert_eq!(joints(walk), joints(run));
    let mut skin_joints = model.skins[0].joints.clone();
    skin_joints.sort_unstable();
    assert_eq!(joints(walk), skin_joints);
}

/// The built-in demo writes sync markers and the additive flag into animation extras.
#[test]
fn animation_extras_become_markers_and_additive_flag() {
    let channel = r#"[{"sampler": 0, "target": {"node": 0, "path": "scale"}}]"#;
    let json = r#"{
      "asset": {"version": "2.0"},
      "scene": 0,
      "scenes": [{"nodes": [0]}],
      "nodes": [{"name": "root"}],
      "buffers": [{"byteLength": 12,
        "uri": "data:application/octet-stream;base64,AAAAAAAAAD8AAIA/"}],
      "bufferViews": [{"buffer": 0, "byteLength": 12}],
      "accessors": [
        {"bufferView": 0, "componentType": 5126, "count": 3, "type": "SCALAR",
         "min": [0], "max": [1]},
        {"componentType": 5126, "count": 3, "type": "VEC3"}
      ],
      "animations": [
        {"name": "walk",
         "samplers": [{"input": 0, "output": 1, "interpolation": "STEP"}],
         "channels": CHANNEL,
         "extras": {"markers": [{"name": "right_foot_down", "time_secs": 0.5},
                                {"name": "left_foot_down", "time_secs": 0.0},
                                {"name": "late", "time_secs": 7.0},
                                {"time_secs": 0.1}],
                    "additive": true}},
        {"name": "walk", "samplers": [{"input": 0, "output": 1}], "channels": CHANNEL,
         "extras": "not an object"},
        {"samplers": [{"input": 0, "output": 1}], "channels": CHANNEL,
         "extras": {"additive": "yes", "markers": 3}}
      ]
    }"#
    .replace("CHANNEL", channel);
    let model = asset::load_from_slice(json.as_bytes(), Path::new("extras.gltf"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(model.clips.len(), 3);
    let walk = &model.clips[0];
    assert_eq!(walk.name(), "walk");
    assert!(walk.is_additive());
    assert_eq!((walk.first_key_secs(), walk.duration_secs()), (0.0, 1.0));
    let markers: Vec<(&str, f32)> = walk
        .markers()
        .iter()
        .map(|m| (m.name.as_str(), m.time_secs))
        .collect();
    assert_eq!(
        markers,
        vec![("left_foot_down", 0.0), ("right_foot_down", 0.5)]
    );
    // Duplicate names get a stable suffix; unnamed clips are "animation N".
    assert_eq!(model.clips[1].name(), "walk (2)");
    assert!(!model.clips[1].is_additive());
    assert_eq!(model.clips[2].name(), "animation 2");
    assert!(!model.clips[2].is_additive());
    assert!(model.clips[2].markers().is_empty());
    // Malformed extras are warnings naming the animation.
    let warned = |needle: &str| model.warnings.iter().any(|w| w.contains(needle));
    assert!(
        warned("animation 0: marker 2 'late'"),
        "{:?}",
        model.warnings
    );
    assert!(
        warned("animation 0: extras.markers[3]"),
        "{:?}",
        model.warnings
    );
    assert!(
        warned("animation 2: extras.additive"),
        "{:?}",
        model.warnings
    );
    assert!(
        warned("animation 2: extras.markers should be an array"),
        "{:?}",
        model.warnings
    );
}
