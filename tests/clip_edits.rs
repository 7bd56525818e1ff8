//! Clips an animator can manage and save (issue 39, items 13-15 and its "done when"):
//! a clip trimmed to a range shows the same poses as the original over that range;
//! edits kept beside the file (`<file>.clips.ron`) come back on every load; in the
//! window a take is renamed, trimmed with In/Out, marked, saved with Ctrl+S and found
//! that way when the file is opened again.

mod common;

use std::path::{Path, PathBuf};

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use stridescope::anim::{SyncMarker, Transform};
use stridescope::app::settings::Settings;
use stridescope::app::ui::Previewer;
use stridescope::asset;
use stridescope::asset::clip_edits::{sidecar_path, ClipEdit, ClipEdits};
use stridescope::graph::{GraphDef, NodeDef, PoseGraph};

/// A copy of the built-in demo as a file in a fresh folder.
fn demo_file(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "stridescope-clip-edits-{test}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("demo.glb");
    asset::demo::write_demo(&path).unwrap();
    path
}

fn largest_difference(
    a: &[stridescope::anim::Transform],
    b: &[stridescope::anim::Transform],
) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let q = x.rotation.inverse() * y.rotation;
            let turn = 2.0 * q.xyz().length().atan2(q.w.abs());
            (x.translation - y.translation).length().max(turn)
        })
        .fold(0.0, f32::max)
}

#[test]
fn a_trimmed_clip_shows_the_original_over_its_range() {
    let model = asset::load_or_demo(None).unwrap();
    let walk = &model.clips[model.find_clip("Walk").unwrap()];
    let cut = walk.trimmed(0.2, 0.8, "Walk cut".into()).unwrap();
    assert_eq!(cut.name(), "Walk cut");
    assert!(
        (cut.duration_secs() - 0.6).abs() < 1e-6,
        "{}",
        cut.duration_secs()
    );
    assert_eq!(cut.frame_rate_hz(), walk.frame_rate_hz());
    // Between keys too (0.2 and 0.8 are keys at 30 Hz; 0.217 is not).
    for t in [0.0f32, 0.017, 0.1, 0.33, 0.45, 0.6] {
        let a = common::sampled(&model.skeleton, walk, 0.2 + t);
        let b = common::sampled(&model.skeleton, &cut, t);
        let d = largest_difference(&a, &b);
        assert!(d < 1e-5, "at {t} s the cut differs by {d}");
    }
    // Markers inside the range move with it; the others are gone.
    for m in cut.markers() {
        let original = walk
            .markers()
            .iter()
            .find(|o| o.name == m.name && (o.time_secs - 0.2 - m.time_secs).abs() < 1e-6);
        assert!(original.is_some(), "{m:?}");
    }
    let inside = walk
        .markers()
        .iter()
        .filter(|m| (0.2..=0.8).contains(&m.time_secs))
        .count();
    assert_eq!(cut.markers().len(), inside);
    // A range outside the clip is refused, naming it.
    let e = walk.trimmed(0.5, 2.0, "x".into()).unwrap_err().to_string();
    assert!(e.contains("Walk"), "{e}");
}

#[test]
fn saved_edits_come_back_on_every_load() {
    let path = demo_file("sidecar");
    let edits = ClipEdits {
        clips: vec![
            ClipEdit {
                clip: "Walk".into(),
                rename: Some("Stroll".into()),
                trim: Some((0.2, 0.8)),
                markers: Some(vec![
                    SyncMarker {
                        name: "left_foot_down".into(),
                        time_secs: 0.1,
                    },
                    SyncMarker {
                        name: "right_foot_down".into(),
                        time_secs: 0.4,
                    },
                ]),
                ..Default::default()
            },
            ClipEdit {
                clip: "Gone".into(),
                rename: Some("Nothing".into()),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    stridescope::asset::clip_edits::write(&path, &edits).unwrap();
    assert!(sidecar_path(&path).ends_with("demo.glb.clips.ron"));
    let model = asset::load(&path).unwrap();
    let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
    assert_eq!(names, ["Idle", "Stroll", "Run", "TurnWalk", "Wave"]);
    let stroll = &model.clips[1];
    assert!((stroll.duration_secs() - 0.6).abs() < 1e-6);
    assert_eq!(
        stroll.markers(),
        [
            SyncMarker {
                name: "left_foot_down".into(),
                time_secs: 0.1
            },
            SyncMarker {
                name: "right_foot_down".into(),
                time_secs: 0.4
            }
        ]
    );
    assert!(
        model.warnings.iter().any(|w| w.contains("no clip 'Gone'")),
        "{:?}",
        model.warnings
    );
    // A broken sidecar is an error naming it and the line; the file itself is fine.
    std::fs::write(
        sidecar_path(&path),
        "(clips: [(clip: \"Walk\", trim: Some((0.2,)))])",
    )
    .unwrap();
    let e = asset::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("demo.glb.clips.ron") && e.contains("line 1"),
        "{e}"
    );
    // A marker past the trimmed clip's end is refused, naming the clip.
    std::fs::write(
        sidecar_path(&path),
        "(clips: [(clip: \"Walk\", trim: Some((0.2, 0.8)), markers: Some([(name: \"x\", time_secs: 0.7)]))])",
    )
    .unwrap();
    let e = asset::load(&path).unwrap_err().to_string();
    assert!(e.contains("clip 'Walk'"), "{e}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

fn harness_on(path: &Path) -> Harness<'static, Previewer> {
    let model = asset::load(path).unwrap();
    let previewer = Previewer::new(model, Some(path.to_path_buf()), Settings::default());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 860.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h
}

#[test]
fn rename_trim_mark_save_and_find_it_again() {
    let path = demo_file("window");
    let mut h = harness_on(&path);
    let walk = h.state().model().find_clip("Walk").unwrap();
    h.state_mut().select_clip(walk);
    h.run_steps(1);
    // Rename, from the clip's context menu (right-click in the clip list).
    h.get_by_label("Walk  (1.100 s)").click_secondary();
    h.run_steps(2);
    h.get_by_label("new name").focus();
    h.run_steps(1);
    for _ in 0.."Walk".len() {
        h.key_press(egui::Key::Backspace);
    }
    h.run_steps(1);
    h.get_by_label("new name").type_text("Stroll");
    h.run_steps(1);
    h.get_by_label("Rename").click();
    h.run_steps(2);
    assert_eq!(h.state().model().clips[walk].name(), "Stroll");
    assert_eq!(
        h.state_mut()
            .rename_clip(walk, "Run")
            .unwrap_err()
            .to_string(),
        "another clip is named 'Run'"
    );
    // Trim with In and Out (the keys, as an animator does).
    h.state_mut().stage.main.timeline.seek_secs(0.3);
    h.key_press(egui::Key::I);
    h.run_steps(1);
    h.state_mut().stage.main.timeline.seek_secs(0.9);
    h.key_press(egui::Key::O);
    h.run_steps(1);
    h.state_mut().trim_clip_to_range(walk).unwrap();
    assert_eq!(h.state().stage.main.timeline.range(), None);
    let cut = h.state().model().clips[walk].clone();
    assert!(
        (cut.duration_secs() - 0.6).abs() < 1e-5,
        "{}",
        cut.duration_secs()
    );
    // Mark the contacts: clear what the trim kept, add two, remove one again.
    for m in cut.markers().to_vec() {
        h.state_mut()
            .remove_marker_near(walk, m.time_secs, 1e-4)
            .unwrap();
    }
    assert!(h.state().model().clips[walk].markers().is_empty());
    h.state_mut()
        .add_marker(walk, "left_foot_down", 0.05)
        .unwrap();
    h.state_mut()
        .add_marker(walk, "right_foot_down", 0.35)
        .unwrap();
    h.state_mut().add_marker(walk, "left_foot_up", 0.5).unwrap();
    h.state_mut()
        .remove_marker_near(walk, 0.49, 1.0 / 30.0)
        .unwrap();
    assert!(h.state().clip_edits_unsaved());
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Save clip edits  (Ctrl+S) *");
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    // Ctrl+S saves beside the file.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(2);
    assert!(!h.state().clip_edits_unsaved());
    assert!(sidecar_path(&path).is_file());

    // Opened again (a new window, as tomorrow): the take as it was left.
    let h = harness_on(&path);
    let m = h.state().model();
    let i = m.find_clip("Stroll").expect("the renamed take");
    assert!(m.find_clip("Walk").is_none());
    let again = &m.clips[i];
    assert!((again.duration_secs() - 0.6).abs() < 1e-5);
    let marks: Vec<(&str, f32)> = again
        .markers()
        .iter()
        .map(|m| (m.name.as_str(), m.time_secs))
        .collect();
    assert_eq!(marks, [("left_foot_down", 0.05), ("right_foot_down", 0.35)]);
    // The same poses as the saved cut.
    for t in [0.0f32, 0.25, 0.6] {
        let a = common::sampled(&m.skeleton, &cut, t);
        let b = common::sampled(&m.skeleton, again, t);
        assert!(largest_difference(&a, &b) < 1e-6);
    }
    h.get_by_label_contains("Stroll");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// The additive layer `layer` over `base`, its reference its own (default) frame, both
/// advanced `t` seconds from 0: the local pose.
fn additive_pose_at(model: &asset::Model, base: &str, layer: &str, t: f64) -> Vec<Transform> {
    use stridescope::graph::def::{LayerDef, LayerMode, ReferenceDef, Weight};
    let def = GraphDef {
        params: Vec::new(),
        base: NodeDef::Clip {
            clip: base.into(),
            rate: 1.0,
        },
        layers: vec![LayerDef {
            name: "add".into(),
            clip: layer.into(),
            mode: LayerMode::Additive,
            weight: Weight::Fixed(1.0),
            mask: None,
            reference: ReferenceDef::FirstFrame,
            hold: None,
        }],
    };
    let mut g = PoseGraph::new(model, &def).unwrap();
    g.advance(model, t).unwrap();
    g.local_pose().to_vec()
}

#[test]
fn order_hidden_default_and_additive_come_back_from_the_sidecar() {
    let path = demo_file("arrangement");
    std::fs::write(
        sidecar_path(&path),
        "(clips: [(clip: \"Idle\", hidden: true), (clip: \"Walk\", additive: Some(FromSecs(0.5)))], \
         order: [\"Run\", \"Wave\"], default_clip: Some(\"TurnWalk\"))",
    )
    .unwrap();
    let model = asset::load(&path).unwrap();
    let name = |i: usize| model.clips[i].name();
    let listed: Vec<&str> = model.listed_clips(false).into_iter().map(name).collect();
    assert_eq!(listed, ["Run", "Wave", "Walk", "TurnWalk"]);
    let all: Vec<&str> = model.listed_clips(true).into_iter().map(name).collect();
    assert_eq!(all, ["Run", "Wave", "Idle", "Walk", "TurnWalk"]);
    let idle = model.find_clip("Idle").unwrap();
    assert_eq!(model.clip_hidden(idle).as_deref(), Some("hidden by you"));
    // The file opens on the clip chosen, not on the first (Idle, hidden anyway).
    assert_eq!(model.default_clip(), model.find_clip("TurnWalk"));
    // Walk is additive relative to its frame at 0.5 s: layered over itself at 0.5 s it
    // adds nothing (the difference from that frame is zero there).
    let walk = model.find_clip("Walk").unwrap();
    assert!(model.clips[walk].is_additive());
    assert_eq!(model.clips[walk].additive_reference_secs(), 0.5);
    let alone = common::sampled(&model.skeleton, &model.clips[walk], 0.5);
    let layered = additive_pose_at(&model, "Walk", "Walk", 0.5);
    // (Joint 0, the root, carries the root motion the graph takes out of the pose.)
    assert!(largest_difference(&alone[1..], &layered[1..]) < 1e-5);
    // Without the sidecar the reference is the first frame: the same layering doubles
    // the motion since frame 0 (the check above can fail).
    std::fs::remove_file(sidecar_path(&path)).unwrap();
    let plain = asset::load(&path).unwrap();
    assert!(!plain.clips[walk].is_additive());
    assert_eq!(plain.default_clip(), plain.find_clip("Idle"));
    let doubled = additive_pose_at(&plain, "Walk", "Walk", 0.5);
    assert!(largest_difference(&alone[1..], &doubled[1..]) > 0.05);
    // A hidden default is passed over; a reference outside the clip names it.
    std::fs::write(
        sidecar_path(&path),
        "(clips: [(clip: \"TurnWalk\", hidden: true)], default_clip: Some(\"TurnWalk\"))",
    )
    .unwrap();
    let m = asset::load(&path).unwrap();
    assert_eq!(m.default_clip(), m.find_clip("Idle"));
    std::fs::write(
        sidecar_path(&path),
        "(clips: [(clip: \"Run\", additive: Some(FromSecs(3.0)))])",
    )
    .unwrap();
    let e = asset::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("clip 'Run'") && e.contains("outside the clip"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn hide_reorder_choose_default_undo_and_save() {
    let path = demo_file("arrange-window");
    let mut h = harness_on(&path);
    let p = h.state_mut();
    let (idle, walk, run) = (
        p.model().find_clip("Idle").unwrap(),
        p.model().find_clip("Walk").unwrap(),
        p.model().find_clip("Run").unwrap(),
    );
    p.move_clip(run, -2).unwrap();
    p.set_clip_hidden(idle, true).unwrap();
    p.set_default_clip(Some(walk)).unwrap();
    let names = |p: &Previewer| -> Vec<String> {
        p.model()
            .listed_clips(false)
            .into_iter()
            .map(|i| p.model().clips[i].name().to_string())
            .collect()
    };
    assert_eq!(names(p), ["Run", "Walk", "TurnWalk", "Wave"]);
    // Undo takes back the last edit only (the default), redo puts it back.
    assert!(p.undo_clip_edit());
    assert_eq!(p.model().default_clip(), Some(run));
    assert!(p.redo_clip_edit());
    assert_eq!(p.model().default_clip(), Some(walk));
    h.run_steps(2);
    // The list shows what the model lists; Idle comes back with "Show hidden".
    assert!(h.query_by_label_contains("Idle  (2.000 s)").is_none());
    h.get_by_label("Show hidden (1)").click();
    h.run_steps(2);
    h.get_by_label_contains("Idle  (2.000 s)");
    h.get_by_label("Show hidden (1)").click();
    h.run_steps(2);
    // Alt+Down moves the playing clip down the list (past the next clip shown).
    h.state_mut().select_clip(run);
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::ArrowDown);
    h.run_steps(1);
    assert_eq!(names(h.state()), ["Walk", "Run", "TurnWalk", "Wave"]);
    h.state_mut().save_clip_edits().unwrap();
    // Opened again: the same list, on the clip chosen.
    let h = harness_on(&path);
    assert_eq!(names(h.state()), ["Walk", "Run", "TurnWalk", "Wave"]);
    assert_eq!(h.state().stage.main.timeline.clip(), Some(walk));
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn markers_start_from_the_detected_ones_and_move_with_undo() {
    // A mocap take (BVH has no markers) copied to a fresh folder: edits stay there.
    let dir = std::env::temp_dir().join(format!(
        "stridescope-clip-edits-markers-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("walk.bvh");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/mocap/bandai/dataset-2_walk-turn-left_active_002.bvh"),
        &path,
    )
    .unwrap();
    let mut h = harness_on(&path);
    let turn = 0;
    h.state_mut().select_clip(turn);
    h.run_steps(1);
    let p = h.state_mut();
    // TurnWalk has no markers in the file: the timeline shows the detected contacts.
    let (detected, is_detected) = p.shown_markers(turn);
    let detected = detected.to_vec();
    assert!(is_detected && detected.len() >= 2, "{detected:?}");
    // Moving one keeps all the others (the detected ones are the starting point).
    p.move_marker(turn, 1, 0.3).unwrap();
    let (now, is_detected) = p.shown_markers(turn);
    let now = now.to_vec();
    assert!(!is_detected);
    assert_eq!(now.len(), detected.len());
    assert!(now
        .iter()
        .any(|m| m.name == detected[1].name && m.time_secs == 0.3));
    // Removing every marker leaves none (not the detected ones again).
    for m in now.clone() {
        p.remove_marker_near(turn, m.time_secs, 1e-4).unwrap();
    }
    assert!(p.shown_markers(turn).0.is_empty());
    // Ctrl+Z, once per edit, back to the file's (none: detected shown again).
    for _ in 0..=now.len() {
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
        h.run_steps(1);
    }
    let (back, is_detected) = h.state().shown_markers(turn);
    let back = back.to_vec();
    assert!(is_detected);
    assert_eq!(back, detected);
    assert!(h.state().model().clips[turn].markers().is_empty());

    // Dragged on the timeline with the mouse: the second marker, 60 px to the right,
    // lands on a whole frame there; the playhead does not move.
    h.state_mut()
        .transport(stridescope::app::controller::Transport::Play(false));
    h.state_mut().stage.main.timeline.seek_secs(0.0);
    h.run_steps(2);
    let bar = h.get_by_label("Playhead").rect();
    let track = bar.shrink2(egui::vec2(8.0, 0.0));
    let duration = h.state().model().clips[turn].duration_secs();
    let x_of = |t: f32| track.left() + t / duration * track.width();
    let from = egui::pos2(x_of(detected[1].time_secs), bar.top() + 10.0);
    let to = from + egui::vec2(60.0, 0.0);
    let button = |pos, pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    h.event(egui::Event::PointerMoved(from));
    h.run_steps(1);
    h.event(button(from, true));
    h.run_steps(1);
    for k in 1..=6 {
        h.event(egui::Event::PointerMoved(
            from + egui::vec2(10.0 * k as f32, 0.0),
        ));
        h.run_steps(1);
    }
    h.event(button(to, false));
    h.run_steps(2);
    let fps = h.state().stage.main.timeline.frame_rate_hz() as f32;
    let expected = ((detected[1].time_secs + 60.0 / track.width() * duration) * fps).round() / fps;
    let (after, is_detected) = h.state().shown_markers(turn);
    let after = after.to_vec();
    assert!(!is_detected);
    let moved = after
        .iter()
        .find(|m| m.name == detected[1].name && m.time_secs != detected[1].time_secs)
        .unwrap_or_else(|| panic!("{after:?}"));
    assert!(
        (moved.time_secs - expected).abs() < 1e-4,
        "{} vs {expected}",
        moved.time_secs
    );
    assert_eq!(after.len(), detected.len());
    assert_eq!(h.state().stage.main.timeline.time_secs(), 0.0);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// The listing order puts the chosen clips first, each once, the rest in file order; a
/// retarget replacing its clips (indices 4 and up) forgets what was arranged for them, so
/// the clips it adds in their place start listed, shown and not the default.
#[test]
fn an_arrangement_lists_each_clip_once_and_forgets_replaced_clips() {
    let mut a = stridescope::asset::clip_edits::ClipArrangement {
        order: vec![5, 2, 5, 9],
        hidden: vec![6, 1],
        default_clip: Some(5),
    };
    assert_eq!(a.listing_order(7), [5, 2, 0, 1, 3, 4, 6]);
    a.forget_clips_from(4);
    assert_eq!(a.order, [2]);
    assert_eq!(a.hidden, [1]);
    assert_eq!(a.default_clip, None);
    assert_eq!(a.listing_order(6), [2, 0, 1, 3, 4, 5]);
}
