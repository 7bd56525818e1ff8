//! The previewer's "drive" (locomotion in the window), through its controller: on a single
//! clip, through the demo's state machine and blend space, paused and scrubbing (a seek
//! re-evaluates the warp without motion), switching clips while driving, and a rig
//! without legs.

use std::path::Path;

use stridescope::app::controller::Previewer;
use stridescope::app::settings::Settings;
use stridescope::asset;

fn demo() -> Previewer {
    let model =
        asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).expect("demo");
    Previewer::new(model, None, Settings::default())
}

const WALK: f32 = 1.4 / 1.1;

#[test]
fn drive_a_single_clip_paused_scrubbed_and_played() {
    let mut p = demo();
    let walk = p.model().find_clip("Walk").unwrap();
    p.select_clip(walk);
    let mut s = p.drive.settings;
    s.movement_speed = WALK * 1.5;
    p.set_locomotion_settings(s);
    p.set_drive(true);
    assert!(p.is_driving());
    // Paused: the warp is evaluated at once (rate 1.25, stride 1.2).
    {
        let g = p.graph().unwrap();
        let l = g.locomotion.as_ref().unwrap();
        assert!((g.graph.rate() - 1.25).abs() < 1e-9);
        assert!((l.warp.scale - 1.2).abs() < 1e-4, "{}", l.warp.scale);
        assert_eq!(l.warp.feet.len(), 2);
    }
    // Scrubbing: a seek re-evaluates the overlays for that time, the same each time, and
    // the character does not move.
    let feet_at = |p: &mut Previewer, t: f64| {
        let model = p.model().clone();
        let g = p.graph_mut().unwrap();
        g.seek(&model, t);
        let l = g.locomotion.as_ref().unwrap();
        (
            l.warp.feet.iter().map(|f| f.target).collect::<Vec<_>>(),
            l.world_from_root.translation,
        )
    };
    let (a, wa) = feet_at(&mut p, 0.2);
    let (b, _) = feet_at(&mut p, 0.7);
    let (c, wc) = feet_at(&mut p, 0.2);
    assert!(a[0].distance(b[0]) > 0.05, "targets follow the playhead");
    assert!(a.iter().zip(&c).all(|(x, y)| x.distance(*y) < 1e-6));
    assert_eq!(wa, wc);
    // Playing one second moves the character 1.909 m.
    p.graph_mut().unwrap().playing = true;
    let start = p.root_position();
    for _ in 0..60 {
        p.advance(1.0 / 60.0);
    }
    let moved = p.root_position().distance(start);
    assert!((moved - WALK * 1.5).abs() < 0.06, "moved {moved} m in 1 s");
    let g = p.graph().unwrap();
    assert_eq!(g.locomotion_history().len(), 60);
    // Changing the speed while playing takes effect: 0.6x gives rate 0.75, stride 0.8.
    let mut s = p.drive.settings;
    s.movement_speed = WALK * 0.6;
    p.set_locomotion_settings(s);
    // (The scale eases at 10/s: after 1 s it is within 2e-5 of its target.)
    for _ in 0..60 {
        p.advance(1.0 / 60.0);
    }
    let g = p.graph().unwrap();
    assert!((g.graph.rate() - 0.75).abs() < 1e-9);
    assert!((g.locomotion.as_ref().unwrap().warp.scale - 0.8).abs() < 1e-3);

    // Another clip while driving: still driving, now the Run.
    let run = p.model().find_clip("Run").unwrap();
    p.select_clip(run);
    assert!(p.is_driving());
    let g = p.graph().unwrap();
    assert_eq!(g.graph.leader().clip, run);
    // Drive off: back to the timeline.
    p.set_drive(false);
    assert!(!p.is_driving());
    assert!(p.graph().is_none());
    assert_eq!(p.stage.main.timeline.clip(), Some(run));
}

#[test]
fn drive_the_demo_state_machine_by_movement_speed() {
    let mut p = demo();
    p.set_graph_enabled(true);
    let mut s = p.drive.settings;
    s.movement_speed = 3.0;
    p.set_locomotion_settings(s);
    p.set_drive(true);
    assert!(p.is_driving());
    p.graph_mut().unwrap().playing = true;
    for _ in 0..120 {
        p.advance(1.0 / 60.0);
    }
    let g = p.graph().unwrap();
    // The movement speed drives the graph's `speed`: Move state, Walk and Run blended at
    // weights 0.536 / 0.464. Cycle-synced, that blend covers (0.536 x 1.4 + 0.464 x 3.5) m
    // per (0.536 x 1.1 + 0.464 x 0.7) s = 2.597 m/s, not 3: speed matching makes up the
    // rest (rate 3 / 2.597 = 1.155, inside the clamp) and the stride stays at 1.
    assert_eq!(g.graph.params().get_float("speed"), Some(3.0));
    let sm = g.graph.state_machine().unwrap();
    assert_eq!(sm.state_name(sm.current()), "Move");
    let l = g.locomotion.as_ref().unwrap();
    assert!(
        (l.anim_speed - 2.597).abs() < 0.01,
        "blend speed {}",
        l.anim_speed
    );
    assert!(
        (g.graph.rate() - 3.0 / 2.597).abs() < 0.01,
        "rate {}",
        g.graph.rate()
    );
    assert!((l.warp.scale - 1.0).abs() < 0.01, "stride {}", l.warp.scale);
    // Turning graph mode off keeps driving, on the selected clip.
    p.set_graph_enabled(false);
    assert!(p.is_driving());
}

#[test]
fn a_rig_without_legs_cannot_drive() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/SimpleSkin/SimpleSkin.gltf");
    let model = asset::load(&path).unwrap();
    let mut p = Previewer::new(model, Some(path), Settings::default());
    p.set_drive(true);
    assert!(!p.is_driving());
    let m = p.message().expect("a message");
    assert!(m.is_error && m.text.contains("no legs"), "{}", m.text);
    assert!(p.graph().is_none());
}

#[test]
fn legs_can_be_chosen_and_a_bad_choice_is_refused() {
    use stridescope::anim::contacts::{legs_from_override, LegOverride};
    let mut p = demo();
    p.set_drive(true);
    let sk = p.model().skeleton.clone();
    let one = legs_from_override(
        &sk,
        &[LegOverride {
            thigh: "thigh_l",
            calf: "calf_l",
            foot: "foot_l",
        }],
    )
    .unwrap();
    p.set_leg_override(Some(one));
    let legs = |p: &Previewer| p.graph().unwrap().locomotion.as_ref().unwrap().legs().len();
    assert_eq!(legs(&p), 1);
    // The calf above the thigh: refused, the one leg stays, the reason is shown.
    let bad = legs_from_override(
        &sk,
        &[LegOverride {
            thigh: "calf_l",
            calf: "thigh_l",
            foot: "foot_l",
        }],
    )
    .unwrap();
    p.set_leg_override(Some(bad));
    assert_eq!(legs(&p), 1);
    assert!(
        p.message().unwrap().text.contains("not below"),
        "{:?}",
        p.message()
    );
    p.set_leg_override(None);
    assert_eq!(legs(&p), 2);
}

/// A rig with a dedicated IK-foot bone: the warp starts there instead of at the FK foot.
/// (The demo has none; its `hand_l` is renamed `ik_foot_l` to stand in for one.)
#[test]
fn ik_foot_bones_are_used_when_the_rig_has_them() {
    use stridescope::anim::contacts::detect_legs;
    use stridescope::anim::Skeleton;
    use stridescope::graph::PoseGraph;
    use stridescope::stage::locomotion::{ik_foot_bones, Locomotion, LocomotionSettings};
    let mut model =
        asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).expect("demo");
    let legs = detect_legs(&model.skeleton).unwrap();
    assert_eq!(ik_foot_bones(&model.skeleton, &legs), vec![None, None]);
    let sk = &model.skeleton;
    let hand = sk.find("hand_l").unwrap();
    let mut names = sk.names().to_vec();
    names[hand] = "Armature|IK_Foot_L".into();
    model.skeleton = Skeleton::new(names, sk.parents().to_vec(), sk.rest_pose().to_vec()).unwrap();
    assert_eq!(
        ik_foot_bones(&model.skeleton, &legs),
        vec![Some(hand), None]
    );
    let walk = model.find_clip("Walk").unwrap();
    let mut graph = PoseGraph::single_clip(&model, walk).unwrap();
    let mut loco = Locomotion::new(&model, LocomotionSettings::default()).unwrap();
    loco.attach(&graph);
    loco.evaluate_still(&model, &mut graph).unwrap();
    let fk = &loco.fk_model_from_joint;
    let f = &loco.warp.feet;
    assert!(f[0].ik_origin.distance(fk[hand].w_axis.truncate()) < 1e-6);
    let foot_r = legs[1].foot;
    assert!(f[1].ik_origin.distance(fk[foot_r].w_axis.truncate()) < 1e-6);
}

/// Graph edits from the Blend panel: a phase offset and a sync mode change rebuild the
/// graph at the same time and parameters; undo and redo walk the edits; a refused edit
/// keeps the graph and says why.
#[test]
fn graph_edits_apply_and_undo() {
    use stridescope::graph::def::{NodeDef, SyncMode};
    let mut p = demo();
    p.set_graph_enabled(true);
    let model = p.model().clone();
    p.graph_mut().unwrap().set_float(&model, "speed", 3.0);
    p.graph_mut().unwrap().seek(&model, 0.4);
    let sync_of = |p: &Previewer| match &p.graph().unwrap().graph.def().base {
        NodeDef::StateMachine { machine, .. } => match &machine.states[1].node {
            NodeDef::BlendSpace1D { sync, .. } => *sync,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    assert_eq!(sync_of(&p), SyncMode::Cycle);
    let time = |p: &Previewer| p.graph().unwrap().graph.leader().clock.time().phase_secs;
    let t0 = time(&p);
    p.edit_graph(|d| {
        if let NodeDef::StateMachine { machine, .. } = &mut d.base {
            if let NodeDef::BlendSpace1D { sync, .. } = &mut machine.states[1].node {
                *sync = SyncMode::None;
            }
        }
    });
    assert_eq!(sync_of(&p), SyncMode::None);
    let g = p.graph().unwrap();
    assert_eq!(g.graph.params().get_float("speed"), Some(3.0));
    assert!(
        (time(&p) - t0).abs() < 1e-9,
        "same leader time after the rebuild"
    );
    assert!(g.can_undo() && !g.can_redo());
    p.undo_graph_edit();
    assert_eq!(sync_of(&p), SyncMode::Cycle);
    p.redo_graph_edit();
    assert_eq!(sync_of(&p), SyncMode::None);
    // A clip that does not exist: refused, graph unchanged, reason shown.
    p.edit_graph(|d| d.layers[0].clip = "NoSuchClip".into());
    assert_eq!(p.graph().unwrap().graph.def().layers[0].clip, "Wave");
    assert!(
        p.message().unwrap().text.contains("NoSuchClip"),
        "{:?}",
        p.message()
    );
    p.undo_graph_edit();
    p.undo_graph_edit();
    assert!(p.message().unwrap().text.contains("nothing to undo"));
}

/// Stage commands (what the panels and keys send): a graph parameter moves the graph and
/// re-evaluates the pose, an unknown one is refused with its name in the status bar, and
/// commands for what does not play now change nothing.
#[test]
fn stage_commands_change_the_graph_and_name_what_they_refuse() {
    use stridescope::app::controller::StageCommand;
    let mut p = demo();
    // No graph, no matching, no compare: ignored, no error.
    p.send(StageCommand::GraphFloat {
        name: "speed".into(),
        value: 3.0,
    });
    p.send(StageCommand::MatchingTags {
        require: 1,
        exclude: 0,
    });
    p.send(StageCommand::CompareClip(0));
    assert!(p.message().is_none_or(|m| !m.is_error));
    p.set_graph_enabled(true);
    p.send(StageCommand::GraphFloat {
        name: "speed".into(),
        value: 3.0,
    });
    let g = p.graph().unwrap();
    assert_eq!(g.graph.params().get_float("speed"), Some(3.0));
    p.send(StageCommand::GraphBool {
        name: "no_such_flag".into(),
        value: true,
    });
    let m = p.message().expect("an error");
    assert!(m.is_error && m.text.contains("no_such_flag"), "{}", m.text);
    p.send(StageCommand::GraphPlaying(true));
    assert!(p.graph().unwrap().playing);
    p.send(StageCommand::GraphRate(-0.5));
    assert_eq!(p.graph().unwrap().graph.rate(), -0.5);
    p.send(StageCommand::GraphRate(f64::NAN));
    let m = p.message().expect("an error");
    assert!(m.is_error, "{}", m.text);
    assert_eq!(p.graph().unwrap().graph.rate(), -0.5);
}
