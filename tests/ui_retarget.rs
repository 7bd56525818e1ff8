//! The retarget panel and the bone-map window, headless with egui_kittest: after File >
//! Retarget, the quality figures and the map show; a joint picked for a bone is applied
//! (the clips are made again, the map says "given"), saved as a RON map file that
//! `--map` reads, loaded back, and reset to the automatic map.

use std::path::{Path, PathBuf};

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use stridescope::app::controller::{Action, MapSide};
use stridescope::app::settings::Settings;
use stridescope::app::ui::Previewer;
use stridescope::stage::retarget::MapFile;

#[path = "common/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

fn walk() -> PathBuf {
    shared("mocap/bandai/dataset-2_walk_normal_002.bvh")
}

fn harness() -> Harness<'static, Previewer> {
    harness_on(stridescope::asset::load_or_demo(None).unwrap())
}

/// The panel after retargeting the Bandai walk onto `model`.
fn harness_on(model: stridescope::asset::Model) -> Harness<'static, Previewer> {
    let mut previewer = Previewer::new(model, None, Settings::default());
    previewer.retarget_from(&walk()).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h
}

#[test]
fn the_panel_shows_the_figures_and_the_bone_map_window_the_joints() {
    let mut h = harness();
    // The panel: the clip's figures (the demo plants with the actor: no warning).
    h.get_by_label("Retargeted from dataset-2_walk_normal_002.bvh");
    h.get_by_label("dataset-2_walk_normal_002");
    let s = h.state().retarget.as_ref().unwrap();
    let c = &s.report.clips[0];
    h.get_by_label(&format!("contact {:.2}", c.contact_agreement));
    assert!(c.contact_agreement > 0.9, "{c:?}");
    let d = c.source_foot_deviation;
    h.get_by_label(&format!(
        "feet off {:.0}% (max {:.0}%)",
        d.mean_legs * 100.0,
        d.max_legs * 100.0
    ));
    assert!(d.max_legs < 0.10, "{c:?}");
    for warning in [
        "feet stray",
        "slide and plant",
        "planted feet slide",
        "plant at other",
    ] {
        assert!(
            h.query_by_label_contains(warning).is_none(),
            "no warning: {warning}"
        );
    }
    let mapped = s.report.mapping.len();
    // The bone map opens in its own window: a row per profile bone with both joints.
    h.get_by_label(&format!("Bone map… ({mapped} of 22 bones mapped)"))
        .click();
    h.run_steps(2);
    assert!(h.state().view.windows.bone_map);
    h.get_by_label("leftUpperLeg");
    // The joints are the combo boxes' values: the actor's thigh and the demo's.
    assert_eq!(h.query_all_by_value("UpperLeg_L").count(), 1);
    assert_eq!(h.query_all_by_value("thigh_l").count(), 1);
    assert!(h.query_all_by_label("name/name").count() >= 15);
    // Save and load ask the window for a file.
    h.get_by_label("Save map…").click();
    h.run_steps(1);
    h.get_by_label("Load map…").click();
    h.run_steps(1);
    assert_eq!(
        h.state_mut().take_actions(),
        [Action::SaveRetargetMapDialog, Action::LoadRetargetMapDialog]
    );
    // Nothing edited yet: Apply does nothing (the button is disabled).
    h.get_by_label("Apply map").click();
    h.run_steps(1);
    assert!(!h.state().retarget.as_ref().unwrap().map_edited);
    assert!(h
        .state()
        .message_log()
        .all(|m| !m.text.contains("retargeted 1 clip(s)") || m.text.contains("walk_normal_002")));
}

#[test]
fn a_picked_joint_is_applied_saved_loaded_and_reset() {
    let mut h = harness();
    let clips_before = h.state().model().clips.len();
    // The actor's left foot given as its toe joint: a wrong choice, so it shows.
    h.state_mut()
        .set_retarget_bone(MapSide::Source, "leftFoot", Some("Toes_L".into()));
    assert!(h.state().retarget.as_ref().unwrap().map_edited);
    h.state_mut().view.windows.bone_map = true;
    h.run_steps(2);
    h.get_by_label("Apply map").click();
    h.run_steps(2);
    let p = h.state();
    let s = p.retarget.as_ref().unwrap();
    assert!(!s.map_edited);
    let foot = s
        .report
        .mapping
        .iter()
        .find(|m| m.bone == "leftFoot")
        .unwrap();
    assert_eq!(foot.source, "Toes_L");
    assert!(foot.how.starts_with("given/"), "{}", foot.how);
    // The clips were made again, not added a second time.
    assert_eq!(p.model().clips.len(), clips_before);
    assert_eq!(s.clips, clips_before - 1..clips_before);

    // Saved as RON that `--map` reads.
    let dir = Scratch::new("ui-retarget");
    let file = dir.join("map.ron");
    h.state_mut().save_retarget_map(&file).unwrap();
    let read = MapFile::read(&file).unwrap();
    assert_eq!(
        read.source.get("leftFoot").map(String::as_str),
        Some("Toes_L")
    );
    assert!(read.target.is_empty());
    let demo = dir.join("demo.glb");
    std::fs::write(&demo, stridescope::asset::demo::demo_glb()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .args([
            "retarget",
            walk().to_str().unwrap(),
            "--onto",
            demo.to_str().unwrap(),
            "--map",
            file.to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = json["mapping"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["bone"] == "leftFoot")
        .unwrap()
        .clone();
    assert_eq!(row["source"], "Toes_L");

    // Back to automatic, then the file loaded again.
    h.get_by_label("Automatic").click();
    h.run_steps(1);
    h.get_by_label("Apply map").click();
    h.run_steps(2);
    let foot = |h: &Harness<'static, Previewer>| {
        let s = h.state().retarget.as_ref().unwrap();
        s.report
            .mapping
            .iter()
            .find(|m| m.bone == "leftFoot")
            .unwrap()
            .source
            .clone()
    };
    assert_eq!(foot(&h), "Foot_L");
    h.state_mut().load_retarget_map(&file).unwrap();
    assert_eq!(foot(&h), "Toes_L");

    // A map naming a joint the source lacks is refused with the file's reason; the clips
    // stay as they were.
    let bad = dir.join("bad.ron");
    std::fs::write(&bad, "(source: {\"hips\": \"NoSuchJoint\"})").unwrap();
    let e = h
        .state_mut()
        .load_retarget_map(&bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("NoSuchJoint"), "{e}");
    assert_eq!(h.state().model().clips.len(), clips_before);
    // A file that is not RON names its line.
    std::fs::write(&bad, "(source: {\"hips\": ").unwrap();
    let e = h
        .state_mut()
        .load_retarget_map(&bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1"), "{e}");
}

/// The bone map's retarget pose per chain: keeping the demo's left arm at its rest pose
/// is an edit (Apply makes the clips again, the arm then hangs as the rest has it and
/// swings from there), it is saved with the map and read back.
#[test]
fn a_chains_retarget_pose_is_chosen_applied_and_saved() {
    let mut h = harness();
    h.state_mut().view.windows.bone_map = true;
    h.run_steps(2);
    h.get_by_label("leftArm");
    assert_eq!(h.query_all_by_value("match the source").count(), 6);
    let hand_at = |h: &Harness<'static, Previewer>| {
        let p = h.state();
        let j = p.model().skeleton.find("hand_l").unwrap();
        p.stage.main.pose.model_from_joint[j].w_axis.truncate()
    };
    let before = hand_at(&h);
    // The left arm's combo (the third chain): keep its rest pose.
    h.query_all_by_value("match the source")
        .nth(2)
        .unwrap()
        .scroll_to_me();
    // The scroll animates: let it settle before clicking where the combo box ends up.
    h.run_steps(4);
    h.query_all_by_value("match the source")
        .nth(2)
        .unwrap()
        .click();
    h.run_steps(2);
    h.run_steps(2);
    h.get_by_label("keep its rest pose").click();
    h.run_steps(2);
    let s = h.state().retarget.as_ref().unwrap();
    assert!(s.map_edited);
    assert_eq!(
        s.map.chains.get("leftArm"),
        Some(&stridescope::stage::retarget::ChainPoseDef::KeepRest)
    );
    assert_eq!(s.map.chains.len(), 1);
    h.get_by_label("Apply map").click();
    h.run_steps(2);
    assert!(!h.state().retarget.as_ref().unwrap().map_edited);
    // The demo's rest has its arms lower than the actor's reference pose: the left hand
    // moved (the same frame, another retarget pose).
    let after = hand_at(&h);
    assert!(after.distance(before) > 0.05, "{before:?} -> {after:?}");
    let dir = Scratch::new("ui-retarget");
    let file = dir.join("chains.ron");
    h.state_mut().save_retarget_map(&file).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("keep_rest"), "{text}");
    let read = MapFile::read(&file).unwrap();
    assert_eq!(read, h.state().retarget.as_ref().unwrap().map);
    // Back to matching the source: the default is not written.
    h.state_mut().set_retarget_chain_pose(
        "leftArm",
        stridescope::stage::retarget::ChainPoseDef::MatchSource,
    );
    assert!(h.state().retarget.as_ref().unwrap().map.chains.is_empty());
}

/// The map and its clips belong to the character they were made on: opening another file
/// forgets them, so applying a map there cannot cut that file's clips.
#[test]
fn opening_another_file_forgets_the_retarget() {
    let mut h = harness();
    assert!(h.state().retarget.is_some());
    let robot = shared("assets/Robot/robot.glb");
    h.state_mut().open_path(&robot).unwrap();
    h.run_steps(2);
    let p = h.state_mut();
    assert!(p.retarget.is_none());
    assert!(!p.view.windows.bone_map);
    let clips = p.model().clips.len();
    assert!(p.apply_retarget_map().is_err());
    assert_eq!(
        p.model().clips.len(),
        clips,
        "the robot's clips are all there"
    );
    assert!(h.query_by_label_contains("Retargeted from").is_none());
}

/// On the Quaternius robot (hip joints 0.4 legs apart, short thighs) the feet stay 0.35-0.40
/// legs from the scaled actor's: the figure is orange and a warning line says it.
#[test]
fn feet_far_from_the_source_s_are_flagged() {
    let robot = stridescope::asset::load(&shared("assets/Robot/robot.glb")).unwrap();
    let h = harness_on(robot);
    let c = &h.state().retarget.as_ref().unwrap().report.clips[0];
    let d = c.source_foot_deviation;
    assert!(d.max_legs > 0.10, "{c:?}");
    h.get_by_label(&format!(
        "feet stray up to {:.0}% of a leg",
        d.max_legs * 100.0
    ));
}

/// File > Save retargeted clips (issue 39 item 14): the character's GLB with the clips
/// the retarget added, as `retarget --out` writes it; it opens with them.
#[test]
fn save_retargeted_clips_writes_the_character_with_them() {
    let robot = shared("assets/Robot/robot.glb");
    let model = stridescope::asset::load(&robot).unwrap();
    let own = model.clips.len();
    let mut previewer = Previewer::new(model, Some(robot.clone()), Settings::default());
    // Nothing retargeted yet: the menu item is greyed and the call says why.
    let dir = Scratch::new("ui-retarget");
    let out = dir.join("robot_retargeted.glb");
    assert!(previewer.save_retargeted_clips(&out).is_err());
    previewer.retarget_from(&walk()).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Save retargeted clips…");
    h.state_mut().save_retargeted_clips(&out).unwrap();
    let saved = stridescope::asset::load(&out).unwrap();
    assert_eq!(saved.clips.len(), own + 1);
    assert!(saved.find_clip("dataset-2_walk_normal_002").is_some());
    // The same motion as in the window.
    let (a, b) = (
        &h.state().model().clips[h
            .state()
            .model()
            .find_clip("dataset-2_walk_normal_002")
            .unwrap()],
        &saved.clips[saved.find_clip("dataset-2_walk_normal_002").unwrap()],
    );
    assert!((a.duration_secs() - b.duration_secs()).abs() < 1e-4);
}
