//! Clip inspection panels driven headless with egui_kittest: the outliner selects a joint
//! (and the curve view appears), the seam table selects the joint that pops, a click on
//! the curve view seeks, and the onion skin makes ghosts.

mod common;

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use stridescope::app::settings::Settings;
use stridescope::app::ui::Previewer;

fn harness(model: stridescope::asset::Model) -> Harness<'static, Previewer> {
    let previewer = Previewer::new(model, None, Settings::default());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 1000.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h
}

#[test]
fn outliner_selects_and_the_curve_view_seeks() {
    let mut h = harness(stridescope::asset::load_or_demo(None).unwrap());
    h.get_by_label("Joints").click();
    h.run_steps(2);
    assert!(
        h.query_by_label("Curves").is_none(),
        "no curve view before a selection"
    );
    // Nodes no skin binds are marked.
    h.get_by_label("spine_02").click();
    h.run_steps(2);
    let spine = h.state().model().skeleton.find("spine_02").unwrap();
    assert_eq!(h.state().inspect.selected, Some(spine));
    h.get_by_label("body (node)");
    // The details name the parent and the units.
    // (its outliner row and the details' parent)
    assert_eq!(h.query_all_by_label("spine_01").count(), 2);
    // The left panel scrolls to it (the timeline's rows leave less room above).
    h.get_by_label("Pin curves").scroll_to_me();
    h.run_steps(3);
    h.get_by_label("Pin curves").click();
    h.run_steps(2);
    assert_eq!(h.state().inspect.pinned, vec![spine]);
    // The curve view is up; a click in it is a seek (paused, no root motion).
    h.get_by_label("Curves");
    assert_eq!(h.state().stage.main.timeline.phase_secs(), 0.0);
    let world_before = h.state().stage.main.timeline.world_from_root();
    // Degrees and metres on their own axes (issue 19, item 11): one plot per unit.
    h.get_by_label("Curve view: translation (m)");
    let plot = h.get_by_label("Curve view: rotation (deg)").rect();
    let at = plot.center();
    common::click_at(&mut h, at);
    let t = h.state().stage.main.timeline.phase_secs();
    let d = h.state().model().clips[h.state().stage.main.timeline.clip().unwrap()].duration_secs()
        as f64;
    assert!(t > 0.1 * d && t < 0.9 * d, "seeked to {t} of {d} s");
    assert!(!h.state().stage.main.timeline.is_playing());
    assert_eq!(
        h.state().stage.main.timeline.world_from_root(),
        world_before
    );
    // Unticking translation leaves the rotation plot alone.
    h.state_mut().inspect.channels.translation = false;
    h.run_steps(2);
    assert!(h.query_by_label("Curve view: translation (m)").is_none());
    h.get_by_label("Curve view: rotation (deg)");
    // Search narrows the outliner to matching names.
    h.state_mut().inspect.filter = "toe".into();
    h.run_steps(2);
    h.get_by_label("toe_l");
    // spine_02's row is gone; its name stays as the selected joint's title.
    assert_eq!(h.query_all_by_label("spine_02").count(), 1);
}

#[test]
fn seam_table_names_the_popping_joint_and_onion_skin_makes_ghosts() {
    // CesiumMan's right leg jumps 3 degrees at the wrap (see tests/lint.rs).
    let model = stridescope::asset::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/assets/CesiumMan/CesiumMan.glb"
    )))
    .unwrap();
    let leg = model.skeleton.find("leg_joint_R_1").unwrap();
    let mut h = harness(model);
    h.get_by_label_contains("Loop seam: leg_joint_R_1 pops")
        .click();
    h.run_steps(2);
    h.get_by_label("leg_joint_R_1 rotation").click();
    h.run_steps(2);
    assert_eq!(h.state().inspect.selected, Some(leg));

    assert!(h.state().view.ghosts.poses.is_empty());
    h.get_by_label("Onion skin").click();
    h.run_steps(2);
    // Two before and two after by default, fading with distance.
    let alphas: Vec<f32> = h.state().view.ghosts.poses.iter().map(|g| g.1).collect();
    assert_eq!(alphas, vec![0.6, 0.3, 0.6, 0.3]);
    // The ghosts are other frames of the clip: their feet are elsewhere.
    let foot = h.state().model().skeleton.find("leg_joint_R_5").unwrap();
    let now = h.state().stage.main.pose.model_from_joint[foot].w_axis;
    let ghost = h.state().view.ghosts.poses[2].0.model_from_joint[foot].w_axis;
    assert!((now - ghost).length() > 1e-3, "{now:?} {ghost:?}");
    // Ghosts are skeletons until the user picks meshes (or both).
    use stridescope::stage::inspect::GhostStyle;
    assert_eq!(h.state().inspect.onion.style, GhostStyle::Skeletons);
    // The curve view of the selected joint takes the bottom of the window; without it
    // the onion-skin panel is in view.
    h.state_mut().select_joint(None);
    h.run_steps(2);
    // Scrolled into view, and still (egui ignores a click on a widget that moved).
    h.get_by_label("meshes").scroll_to_me();
    h.run_steps(30);
    h.get_by_label("meshes").click();
    h.run_steps(2);
    assert_eq!(h.state().inspect.onion.style, GhostStyle::Meshes);
    assert_eq!(h.state().view.ghosts.poses.len(), 4, "the ghosts stay");
    h.get_by_label("both").scroll_to_me();
    h.run_steps(30);
    h.get_by_label("both").click();
    h.run_steps(2);
    assert_eq!(h.state().inspect.onion.style, GhostStyle::Both);
}

/// A/B compare from its panel: on, B = the same clip is zero everywhere; B = Run shows
/// centimetres and a curve; markers lock; off again.
#[test]
fn ab_compare_panel() {
    let mut h = harness(stridescope::asset::load_or_demo(None).unwrap());
    let walk = h.state().model().find_clip("Walk").unwrap();
    h.state_mut().select_clip(walk);
    h.run_steps(2);
    h.get_by_label("A/B compare").click();
    h.run_steps(2);
    h.get_by_label("Compare the timeline's clip (A) with B")
        .click();
    h.run_steps(2);
    let c = h.state().stage.compare.as_ref().expect("compare on");
    assert_eq!(c.b_clip(), walk + 1);
    // B = A: nothing differs, at any phase.
    h.state_mut().compare_with_clip(walk);
    h.run_steps(2);
    let c = h.state().stage.compare.as_ref().unwrap();
    assert_eq!(c.difference.max_m, 0.0);
    assert!(c.curve.iter().all(|s| s[1] == 0.0 && s[2] == 0.0));
    h.get_by_label("A/B compare: max 0.0 cm");
    // B = Run: they differ.
    let run = h.state().model().find_clip("Run").unwrap();
    h.state_mut().compare_with_clip(run);
    h.run_steps(2);
    let c = h.state().stage.compare.as_ref().unwrap();
    assert!(c.difference.max_m > 0.05, "{}", c.difference.max_m);
    assert_eq!(c.curve.len(), 121);
    assert!(c.valid);
    // The pose graph plays several clocks: compare cannot follow it and draws nothing
    // stale meanwhile.
    h.state_mut().set_graph_enabled(true);
    h.run_steps(2);
    let c = h.state().stage.compare.as_ref().unwrap();
    assert!(!c.valid);
    assert!(
        c.note.as_deref().unwrap_or("").contains("pose graph"),
        "{:?}",
        c.note
    );
    h.state_mut().set_graph_enabled(false);
    h.run_steps(2);
    assert!(h.state().stage.compare.as_ref().unwrap().valid);
    // Markers: Walk and Run both start on left_foot_down at 0, so the offset is 0.
    h.get_by_label("sync on markers").click();
    h.run_steps(2);
    let c = h.state().stage.compare.as_ref().unwrap();
    assert!(
        c.note.as_deref().unwrap_or("").contains("markers"),
        "{:?}",
        c.note
    );
    // Side by side: B moves beside A.
    // Inside the harness (a 1400 px window): the row once ran past the panel's edge.
    assert!(h.get_by_label("side by side").rect().max.x <= 1400.0);
    h.get_by_label("side by side").click();
    h.run_steps(2);
    let c = h.state().stage.compare.as_ref().unwrap();
    assert_eq!(c.view, stridescope::stage::inspect::CompareView::SideBySide);
    assert_eq!(c.lock, stridescope::stage::inspect::CompareLock::Markers);
    h.get_by_label("Compare the timeline's clip (A) with B")
        .click();
    h.run_steps(2);
    assert!(h.state().stage.compare.is_none());

    // B from another file: the Fox is not this skeleton, a copy of the demo is.
    let refused = h
        .state_mut()
        .compare_with_file(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/assets/Fox/Fox.glb"
        )));
    assert!(refused
        .unwrap_err()
        .to_string()
        .contains("not the same skeleton"));
    assert!(h.state().stage.compare.is_none());
    let text = h.state().message().unwrap().text.clone();
    assert!(text.contains("not the same skeleton"), "{text}");
    let copy = std::env::temp_dir().join(format!("stridescope-ab-{}.glb", std::process::id()));
    stridescope::asset::demo::write_demo(&copy).unwrap();
    h.state_mut().compare_with_file(&copy).unwrap();
    h.run_steps(2);
    let c = h.state().stage.compare.as_ref().expect("the copy matches");
    assert!(!c.b_is_a);
    // The copy's first clip (Idle) against Walk.
    assert!(c.difference.max_m > 0.0);
    let _ = std::fs::remove_file(&copy);
}

/// What the importer ignored reaches the user: the status bar says how many warnings and
/// the first, and Clips > Import warnings lists them.
#[test]
fn import_warnings_show_in_the_status_bar_and_the_clips_panel() {
    let json = br#"{"asset": {"version": "2.0"}, "extensionsUsed": ["KHR_materials_sheen"],
        "nodes": [{"name": "n"}], "scenes": [{"nodes": [0]}], "scene": 0}"#;
    let model =
        stridescope::asset::load_from_slice(json, std::path::Path::new("sheen.gltf")).unwrap();
    assert_eq!(model.warnings.len(), 1);
    let mut h = harness(model);
    let text = h.state().message().unwrap().text.clone();
    assert!(text.starts_with("1 import warning"), "{text}");
    assert!(text.contains("KHR_materials_sheen"), "{text}");
    h.get_by_label("Import warnings (1)").click();
    h.run_steps(2);
    // In the status bar and as the list's row.
    assert_eq!(
        h.query_all_by_label_contains("'KHR_materials_sheen' is not supported")
            .count(),
        2
    );
    // The demo has nothing to report.
    let h = harness(stridescope::asset::load_or_demo(None).unwrap());
    assert!(h.state().message().is_none());
    assert!(h.query_by_label_contains("Import warnings").is_none());
}

/// A reload of the same file keeps the selected and pinned joints that still exist, found
/// again by name (a joint renamed in the DCC is dropped, not replaced by whatever took its
/// index); another file clears them.
#[test]
fn a_reload_keeps_the_selection_by_name() {
    let demo = stridescope::asset::load_or_demo(None).unwrap();
    let path = std::path::PathBuf::from("/tmp/stridescope-reload-demo.glb");
    let mut p = Previewer::new(demo.clone(), Some(path.clone()), Settings::default());
    let spine = demo.skeleton.find("spine_02").unwrap();
    let calf = demo.skeleton.find("calf_l").unwrap();
    p.inspect.select(Some(spine));
    p.inspect.toggle_pin(calf);
    // The file saved again with calf_l renamed.
    let mut edited = demo.clone();
    let names: Vec<String> = demo
        .skeleton
        .names()
        .iter()
        .map(|n| {
            if n == "calf_l" {
                "calf_left".into()
            } else {
                n.clone()
            }
        })
        .collect();
    edited.skeleton = stridescope::anim::Skeleton::new(
        names,
        demo.skeleton.parents().to_vec(),
        demo.skeleton.rest_pose().to_vec(),
    )
    .unwrap();
    p.replace_model(edited, Some(path));
    assert_eq!(p.inspect.selected, Some(spine));
    assert!(p.inspect.pinned.is_empty(), "{:?}", p.inspect.pinned);
    p.replace_model(demo, Some(std::path::PathBuf::from("/tmp/other.glb")));
    assert_eq!(p.inspect.selected, None);
}

/// The outliner's "+" shows the children it promises (issue 19, item 3: on the Fox it
/// flipped to "-" and nothing appeared), "-" hides them again, and a joint picked outside
/// the outliner opens the rows above it.
#[test]
fn the_outliner_opens_and_closes_rows() {
    let fox = stridescope::asset::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Fox/Fox.glb"),
    )
    .unwrap();
    let sk = fox.skeleton.clone();
    // The first joint that starts closed (depth 4) and has children.
    let closed = (0..sk.joint_count())
        .find(|&j| sk.depth(j) == 4 && sk.parents().contains(&Some(j)))
        .expect("a closed row with children");
    let child = sk
        .parents()
        .iter()
        .position(|&p| p == Some(closed))
        .unwrap();
    let (closed_name, child_name) = (sk.names()[closed].clone(), sk.names()[child].clone());
    let mut h = harness(fox);
    h.get_by_label("Joints").click();
    h.run_steps(2);
    let row = h.get_by_label(&closed_name).rect();
    assert!(
        h.query_by_label(&child_name).is_none(),
        "{child_name} hidden"
    );
    // The toggle on the row's line.
    let toggle = |h: &Harness<'static, Previewer>, text: &str| {
        h.query_all_by_label(text)
            .map(|n| n.rect())
            .find(|r| (r.center().y - row.center().y).abs() < 4.0 && r.max.x <= row.min.x)
    };
    let plus = toggle(&h, "+").expect("a + beside the closed row");
    common::click_at(&mut h, plus.center());
    h.run_steps(2);
    h.get_by_label(&child_name);
    let minus = toggle(&h, "-").expect("a - once open");
    common::click_at(&mut h, minus.center());
    h.run_steps(2);
    assert!(
        h.query_by_label(&child_name).is_none(),
        "{child_name} hidden again"
    );
    // A pick elsewhere (viewport, seam table) reveals the row.
    let deep = (0..sk.joint_count()).max_by_key(|&j| sk.depth(j)).unwrap();
    h.state_mut().select_joint(Some(deep));
    h.run_steps(2);
    // Its row and the details' title.
    assert_eq!(h.query_all_by_label(&sk.names()[deep]).count(), 2);
}

/// One unit system in the seam table (issue 19, item 10): on the Fox (a rig in
/// centimetre-sized units) the threshold, the jumps and the velocity jumps are all read
/// as on a human-sized character, and the table says how rig units were converted.
/// Before, the threshold read "44.0 cm" (0.01 m times the rig's scale, labelled cm) beside
/// a velocity jump of 455.70 "m/s" in raw rig units per second.
#[test]
fn the_seam_table_reads_in_one_unit_system() {
    let fox = stridescope::asset::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Fox/Fox.glb"),
    )
    .unwrap();
    let mut h = harness(fox);
    h.get_by_label_contains("Loop seam").click();
    h.run_steps(2);
    // The lint's 1 cm pop threshold, as 1 cm.
    h.get_by_label_contains("pop over 1.0 cm");
    h.get_by_label_contains("Lengths read as on a human-sized character: 1 m here is");
    // Every velocity jump is a plausible speed for a body part (the largest raw one is
    // hundreds of rig units per second).
    let speeds: Vec<f32> = h
        .query_all_by_label_contains(" m/s")
        .filter_map(|n| {
            use egui_kittest::kittest::NodeT;
            // Labels carry their text as the node's value.
            let label = n.accesskit_node().label().or_else(|| n.value())?;
            label.strip_suffix(" m/s")?.trim().parse::<f32>().ok()
        })
        .collect();
    assert!(!speeds.is_empty());
    assert!(speeds.iter().all(|&v| v < 30.0), "{speeds:?}");
}

/// Status texts describe the state they are in (issue 19, item 13): in Drive mode the
/// curve view and the onion skin ask to turn Drive off, not the pose graph (which the
/// user never turned on); with the pose graph on they ask for that.
#[test]
fn views_that_follow_the_timeline_name_what_hides_it() {
    let mut h = harness(stridescope::asset::load_or_demo(None).unwrap());
    let spine = h.state().model().skeleton.find("spine_02").unwrap();
    h.state_mut().select_joint(Some(spine));
    h.run_steps(2);
    h.key_press(egui::Key::D);
    h.run_steps(2);
    assert!(h.state().is_driving());
    h.get_by_label("The curve view shows the timeline's clip: turn Drive off (D).");
    assert!(h
        .query_by_label_contains("turn the pose graph off")
        .is_none());
    h.key_press(egui::Key::D);
    h.run_steps(2);
    h.get_by_label("Play through the pose graph").click();
    h.run_steps(2);
    h.get_by_label("The curve view shows the timeline's clip: turn the pose graph off.");
}

/// Camera views (issue 19, item 17) relative to the character's facing, on Alt+digit
/// (the numpad digits go through the window, which tests/window.rs cannot press) and
/// View > Camera; they leave the root-motion mode alone (plain 1/2/3 pick it).
#[test]
fn camera_presets_look_from_the_characters_sides() {
    use std::f32::consts::{FRAC_PI_2, PI, TAU};
    use stridescope::stage::timeline::RootMotionMode;
    let mut h = harness(stridescope::asset::load_or_demo(None).unwrap());
    let mode = h.state().stage.main.timeline.mode();
    let yaw_pitch = |h: &Harness<'static, Previewer>| {
        let c = &h.state().view.camera;
        (c.yaw_rad, c.pitch_rad)
    };
    let press = |h: &mut Harness<'static, Previewer>, key: egui::Key, m: egui::Modifiers| {
        h.key_press_modifiers(m, key);
        h.run_steps(2);
    };
    let close = |a: f32, b: f32| ((a - b).rem_euclid(TAU) + 1e-4).rem_euclid(TAU) < 2e-4;
    press(&mut h, egui::Key::Num1, egui::Modifiers::ALT);
    assert_eq!(yaw_pitch(&h), (0.0, 0.0), "front: the camera on +Z");
    press(
        &mut h,
        egui::Key::Num1,
        egui::Modifiers::ALT | egui::Modifiers::COMMAND,
    );
    assert!(close(yaw_pitch(&h).0, PI), "back {:?}", yaw_pitch(&h));
    press(&mut h, egui::Key::Num3, egui::Modifiers::ALT);
    assert!(
        close(yaw_pitch(&h).0, -FRAC_PI_2),
        "right {:?}",
        yaw_pitch(&h)
    );
    press(&mut h, egui::Key::Num7, egui::Modifiers::ALT);
    assert!(yaw_pitch(&h).1 > 1.5, "top {:?}", yaw_pitch(&h));
    assert_eq!(
        h.state().stage.main.timeline.mode(),
        mode,
        "Alt+digits leave the mode"
    );
    // A character turned by its root motion: front follows its facing.
    let mut world = h.state().stage.main.timeline.world_from_root();
    world.yaw_rad = 1.0;
    h.state_mut().stage.main.timeline.set_world_from_root(world);
    h.state_mut().view.toggles.follow = false;
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Camera").click();
    h.run_steps(2);
    h.get_by_label("Follow from behind  (Numpad 9, Alt+9)")
        .click();
    h.run_steps(2);
    assert!(close(yaw_pitch(&h).0, 1.0 + PI), "{:?}", yaw_pitch(&h));
    assert!(h.state().view.toggles.follow);
    press(&mut h, egui::Key::Num1, egui::Modifiers::ALT);
    assert!(close(yaw_pitch(&h).0, 1.0), "{:?}", yaw_pitch(&h));
    // Plain 2 still picks a mode.
    press(&mut h, egui::Key::Num2, egui::Modifiers::NONE);
    assert_eq!(
        h.state().stage.main.timeline.mode(),
        RootMotionMode::Accumulate
    );
}

/// Side by side, F frames A and B (issue 19, item 8: B stood off screen and F framed A
/// only): every joint of both is inside the viewport after F.
#[test]
fn side_by_side_compare_frames_both() {
    use stridescope::stage::inspect::CompareView;
    let mut h = harness(stridescope::asset::load_or_demo(None).unwrap());
    let walk = h.state().model().find_clip("Walk").unwrap();
    h.state_mut().select_clip(walk);
    h.run_steps(2);
    h.state_mut().compare_with_clip(walk + 1);
    h.state_mut().stage.compare.as_mut().unwrap().view = CompareView::SideBySide;
    h.state_mut().evaluate_pose();
    h.key_press(egui::Key::F);
    h.run_steps(3);
    let p = h.state();
    let [w, hgt] = p.viewport_size_px();
    let size = glam::Vec2::new(w as f32, hgt as f32);
    let clip_from_world = p.view.camera.clip_from_world(size.x / size.y);
    let c = p.stage.compare.as_ref().unwrap();
    assert!(c.valid);
    for (who, pose) in [("A", &p.stage.main.pose), ("B", &c.b.pose)] {
        for m in &pose.model_from_joint {
            let px = stridescope::render::camera::world_to_pixel(
                &clip_from_world,
                m.w_axis.truncate(),
                size,
            )
            .unwrap();
            assert!(
                px.x >= 0.0 && px.x <= size.x && px.y >= 0.0 && px.y <= size.y,
                "{who} joint at {px:?} outside {size:?}"
            );
        }
    }
}

/// A/B compare of a clip with itself: turning the clip in place turns B in place too (B
/// plays a copy of A's model), so the overlaid clips lose the same root motion.
#[test]
fn an_in_place_choice_reaches_a_compared_copy_of_the_clip() {
    use stridescope::anim::locomotion::InPlaceOverride;
    let model = stridescope::asset::load_or_demo(None).unwrap();
    let mut p = Previewer::new(model, None, Settings::default());
    let walk = p.model().find_clip("Walk").unwrap();
    p.select_clip(walk);
    p.compare_with_clip(walk);
    let b_moves = |p: &Previewer| {
        p.stage
            .compare
            .as_ref()
            .unwrap()
            .b
            .timeline
            .root_motion()
            .is_some()
    };
    assert!(
        p.stage.main.timeline.root_motion().is_some() && b_moves(&p),
        "Walk travels"
    );
    p.set_in_place_override(InPlaceOverride::InPlace);
    assert!(p.stage.main.timeline.root_motion().is_none());
    assert!(!b_moves(&p), "B follows A's choice");
    let c = p.stage.compare.as_ref().unwrap();
    assert_eq!(c.b.model.in_place_override(walk), InPlaceOverride::InPlace);
    assert_eq!(c.b.timeline.clip(), Some(walk));
    p.set_in_place_override_all(InPlaceOverride::Auto);
    assert!(b_moves(&p));
}

/// Joint details and the curve view read in metres whatever the file's units (issue 39
/// item 4): Maya's HumanIK file keeps its hips 100 units up in centimetres under a root
/// scaled by 0.01; the details say 1 m up, as the world position does.
#[test]
fn local_translations_read_in_metres_under_a_scaled_parent() {
    let model = stridescope::asset::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fbx/ufbx/maya_human_ik_7400_binary.fbx"
    )))
    .unwrap();
    let hips = model.skeleton.find("Character1_Hips").unwrap();
    let file_t = model.skeleton.rest_pose()[hips].translation;
    assert!((file_t.y - 100.0).abs() < 0.01, "{file_t}");
    let mut h = harness(model);
    h.get_by_label("Joints").click();
    h.run_steps(2);
    h.state_mut().select_joint(Some(hips));
    h.run_steps(3);
    let world = h.state().stage.main.pose.model_from_joint[hips].w_axis;
    assert!((world.y - 1.0).abs() < 1e-3, "{world}");
    // Local (in metres) and world read the same: the hips' parents add no offset.
    assert_eq!(
        format!("{:.4} {:.4} {:.4} m", world.x, world.y, world.z),
        "0.0000 1.0000 0.0000 m"
    );
    assert_eq!(h.query_all_by_label("0.0000 1.0000 0.0000 m").count(), 2);
}
