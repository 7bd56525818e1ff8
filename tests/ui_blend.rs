//! The Blend panel, the state-machine view and the 2D blend-space widget driven headless
//! with egui_kittest: turning the graph on, moving the speed slider through the state
//! machine, travelling to a state, and dragging the blend-space parameter.

mod common;

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use stridescope::anim::blend::space::BlendSpace2D;
use stridescope::app::settings::Settings;
use stridescope::app::ui::{blend_space_2d_ui, Previewer};

fn harness() -> Harness<'static, Previewer> {
    harness_sized(900.0)
}

fn harness_sized(height: f32) -> Harness<'static, Previewer> {
    let model = stridescope::asset::load_or_demo(None).unwrap();
    let previewer = Previewer::new(model, None, Settings::default());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, height))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h
}

#[test]
fn the_graph_walks_runs_and_waves_from_the_blend_panel() {
    let mut h = harness();
    assert!(h.state().graph().is_none());
    h.get_by_label("Play through the pose graph").click();
    h.run_steps(2);
    let g = h.state().graph().expect("graph on");
    let sm = g.graph.state_machine().unwrap();
    assert_eq!(sm.state_name(sm.current()), "Idle");
    // The parameters of the demo graph are sliders; set speed through the state.
    h.state_mut().graph_mut().unwrap().playing = true;
    let model = h.state().model().clone();
    h.state_mut()
        .graph_mut()
        .unwrap()
        .set_float(&model, "speed", 5.0);
    for _ in 0..60 {
        h.state_mut().advance(1.0 / 60.0);
    }
    h.run_steps(2);
    let g = h.state().graph().unwrap();
    let sm = g.graph.state_machine().unwrap();
    assert_eq!(sm.state_name(sm.current()), "Move");
    assert!(
        g.world_from_root().translation.y > 2.0,
        "{:?}",
        g.world_from_root()
    );
    // The state view says where the machine is.
    h.get_by_label("In Move");
    // The state view's buttons cross-fade: Go to Idle.
    h.get_by_label("Idle").click();
    h.run_steps(1);
    let g = h.state().graph().unwrap();
    let (_, to, _) = g
        .graph
        .state_machine()
        .unwrap()
        .transition_progress()
        .expect("a travel fade runs");
    assert_eq!(g.graph.state_machine().unwrap().state_name(to), "Idle");
    // Picking a clip in the list goes back to single-clip playback.
    h.get_by_label("Walk  (1.100 s)").click();
    h.run_steps(1);
    assert!(h.state().graph().is_none());
}

#[test]
fn blend_space_widget_drags_the_parameter_and_shows_weights() {
    let space = BlendSpace2D::new(&[
        glam::Vec2::new(0.0, 0.0),
        glam::Vec2::new(0.0, 1.4),
        glam::Vec2::new(-1.1, 0.0),
        glam::Vec2::new(1.1, 0.0),
        glam::Vec2::new(0.0, -1.0),
    ])
    .unwrap();
    struct State {
        space: BlendSpace2D,
        q: glam::Vec2,
        weights: Vec<f32>,
        moved: bool,
    }
    let state = State {
        space,
        q: glam::Vec2::ZERO,
        weights: vec![0.0; 5],
        moved: false,
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(300.0, 320.0))
        .build_ui_state(
            |ui, s: &mut State| {
                let query = s.space.weights(s.q, &mut s.weights).unwrap();
                s.moved |= blend_space_2d_ui(ui, &s.space, Some(&query), &s.weights, &mut s.q);
            },
            state,
        );
    h.run_steps(1);
    assert_eq!(h.state().weights[0], 1.0);
    // Click near the top of the widget: the forward sample (0, 1.4) gets the weight.
    let rect = h.get_by_label("2D blend space").rect();
    let at = egui::pos2(rect.center().x, rect.top() + 20.0);
    common::click_at(&mut h, at);
    let s = h.state();
    assert!(s.moved);
    assert!(s.q.y > 1.0, "{}", s.q);
    assert!(s.weights[1] > 0.7, "{:?}", s.weights);
    assert!((s.weights.iter().sum::<f32>() - 1.0).abs() < 1e-5);
}

/// The Edit graph section: Undo is off until an edit; Ctrl+Z undoes it; the Locomotion
/// panel's Drive checkbox turns driving on.
#[test]
fn edit_section_undo_and_drive_from_the_panels() {
    let mut h = harness();
    h.get_by_label("Play through the pose graph").click();
    h.run_steps(2);
    h.get_by_label("Edit graph").click();
    h.run_steps(2);
    assert!(!h.state().graph().unwrap().can_undo());
    h.state_mut()
        .edit_graph(|d| d.layers[0].mode = stridescope::graph::def::LayerMode::Override);
    h.run_steps(2);
    assert!(h.state().graph().unwrap().can_undo());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    let g = h.state().graph().unwrap();
    assert_eq!(
        g.graph.def().layers[0].mode,
        stridescope::graph::def::LayerMode::Additive
    );
    assert!(g.can_redo());
    h.get_by_label("Drive (D)").click();
    h.run_steps(2);
    assert!(h.state().is_driving());
    h.get_by_label("speed matching (play rate)");
}

/// The Edit section's mask picker: ticking "joint" on the pelvis row gives the pelvis its
/// own weight in the Wave layer's mask (as `ramp` in the graph file); Ctrl+Z takes it back.
/// The reference picker chooses a frame of another clip.
#[test]
fn mask_picker_and_reference_frame_edit_the_layer() {
    use stridescope::graph::def::ReferenceDef;
    // Tall enough for the Edit section to sit above the timeline.
    let mut h = harness_sized(1600.0);
    h.get_by_label("Play through the pose graph").click();
    h.run_steps(2);
    h.get_by_label("Edit graph").click();
    h.run_steps(2);
    let ramp_before = h.state().graph().unwrap().graph.def().layers[0]
        .mask
        .clone()
        .expect("the demo's Wave layer is masked")
        .ramp;
    assert!(!ramp_before.iter().any(|(n, _)| n == "pelvis"));
    // One "joint" checkbox per joint row, in skeleton order: root, then pelvis.
    let pelvis = h.query_all_by_label("joint").nth(1).expect("pelvis row");
    pelvis.click();
    h.run_steps(2);
    let mask = h.state().graph().unwrap().graph.def().layers[0]
        .mask
        .clone()
        .unwrap();
    assert!(
        mask.ramp.iter().any(|(n, w)| n == "pelvis" && *w == 1.0),
        "{mask:?}"
    );
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    let mask = h.state().graph().unwrap().graph.def().layers[0]
        .mask
        .clone()
        .unwrap();
    assert_eq!(mask.ramp, ramp_before);

    h.get_by_value("first frame").click();
    h.run_steps(2);
    h.get_by_label("frame of Walk").click();
    h.run_steps(2);
    assert_eq!(
        h.state().graph().unwrap().graph.def().layers[0].reference,
        ReferenceDef::ClipFrame {
            clip: "Walk".into(),
            time_secs: 0.0
        }
    );
}

/// The clip list shows what plays (issue 19, item 5): in pose-graph mode every input
/// with its weight (the highlight used to vanish), in motion matching the clip the
/// matcher plays (it stayed on Idle).
#[test]
fn the_clip_list_highlights_what_plays() {
    let mut h = harness();
    h.get_by_label("Play through the pose graph").click();
    h.run_steps(2);
    let model = h.state().model().clone();
    let g = h.state_mut().graph_mut().unwrap();
    g.playing = true;
    // Between the walk's and the run's speeds: both blend in Move.
    g.set_float(&model, "speed", 2.4);
    for _ in 0..90 {
        h.state_mut().advance(1.0 / 60.0);
    }
    h.run_steps(2);
    let w = h.state().clip_weights();
    let at = |name: &str| w[model.find_clip(name).unwrap()];
    assert!(at("Walk") > 0.05 && at("Run") > 0.05, "{w:?}");
    assert!((at("Walk") + at("Run") - 1.0).abs() < 1e-3, "{w:?}");
    assert_eq!(at("Idle"), 0.0);
    // Each row shows its weight beside the highlighted name.
    h.get_by_label(&format!("{:.0}%", at("Walk") * 100.0));
    h.get_by_label(&format!("{:.0}%", at("Run") * 100.0));
    // Motion matching: the clip being played, not Idle.
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Open the motion-matching demo").click();
    h.run_steps(2);
    h.key_down(egui::Key::W);
    for _ in 0..120 {
        h.run_steps(1);
        h.state_mut().advance(1.0 / 60.0);
    }
    h.run_steps(1);
    let p = h.state();
    let playing = p.matching().unwrap().session.current().unwrap().clip;
    let w = p.clip_weights();
    assert_eq!(w.iter().filter(|&&x| x > 0.0).count(), 1, "{w:?}");
    assert_eq!(w[playing], 1.0);
    assert_ne!(p.model().clips[playing].name(), "Idle");
}

/// Cross-fade controls (issue 19, item 16): a two-clip blend held at any weight from the
/// Blend panel, and each transition's duration and curve in Edit graph (undoable).
#[test]
fn two_clip_blend_and_transition_fades_from_the_panel() {
    use stridescope::anim::state_machine::Ease;
    // Tall enough for the Edit section to sit above the timeline.
    let mut h = harness_sized(1600.0);
    h.get_by_label("Blend").click();
    h.run_steps(3);
    let model = h.state().model().clone();
    let g = h.state().graph().expect("blending");
    // Held at 0.5 until the slider moves: both inputs weigh half.
    let w = h.state().clip_weights();
    let (a, b) = (
        model.find_clip("Idle").unwrap(),
        model.find_clip("Walk").unwrap(),
    );
    assert!(
        (w[a] - 0.5).abs() < 1e-3 && (w[b] - 0.5).abs() < 1e-3,
        "{w:?}"
    );
    assert_eq!(g.graph.params().get_float("weight"), Some(0.5));
    h.state_mut()
        .graph_mut()
        .unwrap()
        .set_float(&model, "weight", 0.8);
    for _ in 0..30 {
        h.state_mut().advance(1.0 / 60.0);
    }
    let w = h.state().clip_weights();
    assert!((w[b] - 0.8).abs() < 1e-3, "{w:?}");
    // The demo graph's transitions: duration and curve.
    h.state_mut().set_graph_enabled(false);
    h.state_mut().set_graph_enabled(true);
    h.run_steps(2);
    h.get_by_label("Edit graph").click();
    h.run_steps(2);
    h.get_by_label("Idle -> Move");
    let first = |h: &Harness<'static, Previewer>| match &h.state().graph().unwrap().graph.def().base
    {
        stridescope::graph::def::NodeDef::StateMachine { machine, .. } => (
            machine.transitions[0].duration_secs,
            machine.transitions[0].ease.clone(),
        ),
        _ => panic!("the demo graph is a state machine"),
    };
    assert_eq!(first(&h).1, Ease::Smoothstep);
    h.query_all_by_label("curve").next().unwrap().click();
    h.run_steps(2);
    h.get_by_label("linear").click();
    h.run_steps(2);
    assert_eq!(first(&h).1, Ease::Linear);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(first(&h).1, Ease::Smoothstep);
}

/// "Make additive relative to frame N" for any clip (issue 38): the Blend panel's
/// Additive row layers a clip over the playing one. The layer adds its difference from
/// its own frame N, so when it is at that frame the character shows the base clip alone,
/// and elsewhere the base plus the layer's change since frame N.
#[test]
fn any_clip_is_added_relative_to_one_of_its_frames() {
    use stridescope::anim::Transform;
    use stridescope::graph::def::{LayerMode, ReferenceDef};
    let mut h = harness_sized(1600.0);
    h.get_by_label("Add layer").click();
    h.run_steps(3);
    let model = h.state().model().clone();
    let g = h.state().graph().expect("the layer plays through a graph");
    let layer = g.graph.def().layers[0].clone();
    assert_eq!(layer.mode, LayerMode::Additive);
    assert!(
        matches!(&layer.reference, ReferenceDef::ClipFrame { clip, time_secs } if *clip == layer.clip && *time_secs == 0.0),
        "{:?}",
        layer.reference
    );
    // The Edit section offers what the layer can change.
    h.get_by_label("Edit graph").click();
    h.run_steps(2);
    h.get_by_value(&format!("frame of {}", layer.clip));

    // Idle (breathing, weight shift) over the Walk, relative to Idle's frame 6 (0.2 s).
    let (walk, idle) = (
        model.find_clip("Walk").unwrap(),
        model.find_clip("Idle").unwrap(),
    );
    h.state_mut().layer_additive(walk, idle, 6);
    let g = h.state().graph().unwrap();
    assert_eq!(
        g.graph.def().layers[0].reference,
        ReferenceDef::ClipFrame {
            clip: "Idle".into(),
            time_secs: 0.2
        }
    );
    let sample = |clip: usize, t: f32| -> Vec<Transform> {
        common::sampled(&model.skeleton, &model.clips[clip], t)
    };
    let root = model.skeleton.find("root").unwrap();
    let largest_difference = |a: &[Transform], b: &[Transform]| -> f32 {
        a.iter()
            .zip(b)
            .enumerate()
            .filter(|(j, _)| *j != root) // the root's travel is root motion, not pose
            .map(|(_, (x, y))| {
                // The turn between them from its sine (acos near 1 loses 7e-4 in f32).
                let q = x.rotation.inverse() * y.rotation;
                let turn = 2.0 * q.xyz().length().atan2(q.w.abs());
                (x.translation - y.translation).length().max(turn)
            })
            .fold(0.0, f32::max)
    };
    let at = |h: &mut Harness<'static, Previewer>, t: f64| -> Vec<Transform> {
        let model = h.state().model().clone();
        h.state_mut().graph_mut().unwrap().seek(&model, t);
        h.state().graph().unwrap().local_pose().to_vec()
    };
    // Layers follow the base's phase (the graph's rule): the Idle (2.0 s) is at 0.2 s, its
    // reference frame, when the Walk (1.1 s) is at 0.11 s. There: the Walk alone.
    let (d_walk, d_idle) = (
        model.clips[walk].duration_secs(),
        model.clips[idle].duration_secs(),
    );
    let walk_at = |idle_t: f32| idle_t * d_walk / d_idle;
    let shown = at(&mut h, f64::from(walk_at(0.2)));
    let d = largest_difference(&shown, &sample(walk, walk_at(0.2)));
    assert!(d < 1e-4, "the layer adds {d} at its reference frame");
    // When the Idle is at 0.8 s it has moved on from its frame 6: the Walk plus that change.
    let shown = at(&mut h, f64::from(walk_at(0.8)));
    let idle_change = largest_difference(&sample(idle, 0.8), &sample(idle, 0.2));
    assert!(
        idle_change > 1e-3,
        "Idle moves between 0.2 and 0.8 s: {idle_change}"
    );
    let d = largest_difference(&shown, &sample(walk, walk_at(0.8)));
    assert!(
        d > 0.5 * idle_change,
        "the layer adds {d}, Idle changes by {idle_change}"
    );
}

/// The state machine view's boxes never overlap nor leave the view (issue 39 item 11: a
/// 7-state machine drew them on top of each other), for 1 to 14 states in panels 100 to
/// 400 points wide, at the heights the view takes.
#[test]
fn state_boxes_never_overlap() {
    for n in 1..=14usize {
        let height = match n {
            0..=2 => 90.0,
            3..=6 => 170.0,
            _ => (170.0 + 22.0 * (n - 6) as f32).min(320.0),
        };
        for width in [100.0f32, 160.0, 220.0, 300.0, 400.0] {
            let rect = egui::Rect::from_min_size(egui::pos2(10.0, 20.0), egui::vec2(width, height));
            let boxes = stridescope::app::ui::state_boxes(rect, n);
            assert_eq!(boxes.len(), n);
            for (i, a) in boxes.iter().enumerate() {
                assert!(
                    rect.contains_rect(*a),
                    "{n} states in {width}: box {i} {a:?} outside"
                );
                for b in &boxes[i + 1..] {
                    assert!(
                        !a.intersects(*b),
                        "{n} states in {width}: {a:?} and {b:?} overlap"
                    );
                }
            }
        }
    }
}

/// State boxes drop the prefix every state shares, at a word boundary.
#[test]
fn state_names_lose_their_shared_prefix() {
    use stridescope::app::ui::common_word_prefix;
    assert_eq!(
        common_word_prefix(&["Robot_Dance", "Robot_Idle", "Robot_No"]),
        6
    );
    assert_eq!(common_word_prefix(&["mixamorig:Walk", "mixamorig:Run"]), 10);
    // No word boundary in common: nothing dropped.
    assert_eq!(common_word_prefix(&["Walk", "WalkTurnLeft"]), 0);
    // A name never loses all of itself.
    assert_eq!(common_word_prefix(&["A_", "A_B"]), 0);
    assert_eq!(common_word_prefix(&["Idle", "Move"]), 0);
}

/// The Blend panel's pickers offer the clip list's clips: a 3ds Max FBX's hidden empty
/// `(internal)` take is neither offered nor picked (it used to be the Additive picker's
/// and the second Two-clips pick). With it hidden one clip is left, so there is no pair
/// to blend; "Show hidden" brings it back to the pickers.
#[test]
fn the_pickers_leave_out_a_hidden_empty_take() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fbx/ufbx/max7_skin_5000_binary.fbx");
    let model = stridescope::asset::load(&path).unwrap();
    let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
    assert_eq!(names, ["max7_skin_5000_binary", "(internal)"]);
    let previewer = Previewer::new(model, Some(path), Settings::default());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 900.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h.get_by_label("Additive:");
    assert!(h.query_by_label("Two clips:").is_none());
    assert!(h.query_by_label_contains("(internal)").is_none());
    h.state_mut().set_show_hidden_clips(true);
    h.run_steps(2);
    h.get_by_label("Two clips:");
    assert!(h.query_by_label_contains("(internal)").is_some());
}
