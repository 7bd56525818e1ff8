//! Motion matching in the previewer UI, headless with egui_kittest: opening the demo
//! set, driving with held keys, the debugger panel, pausing and stepping through the
//! recording, scrubbing the track, and an edit restarting the recording.

use egui::Key;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use stridescope::app::settings::Settings;
use stridescope::app::ui::Previewer;

fn harness() -> Harness<'static, Previewer> {
    let model = stridescope::cli::load_model(None).unwrap();
    let previewer = Previewer::new(model, None, Settings::default());
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(|ui, p: &mut Previewer| p.ui(ui, None), previewer);
    h.run_steps(2);
    h
}

/// The motion-matching session (motion matching must be on).
fn session<'a>(
    h: &'a Harness<'static, Previewer>,
) -> &'a stridescope::stage::matching::MatchingSession {
    &h.state().matching().expect("motion matching is on").session
}

/// Frames of 1/60 s: the UI reads the keys, then the controller advances.
fn run_frames(h: &mut Harness<'static, Previewer>, n: usize) {
    for _ in 0..n {
        h.run_steps(1);
        h.state_mut().advance(1.0 / 60.0);
    }
    h.run_steps(1);
}

fn open_demo_set(h: &mut Harness<'static, Previewer>) {
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Open the motion-matching demo").click();
    h.run_steps(2);
    let p = h.state();
    assert!(p.matching().is_some(), "motion matching is on");
    assert_eq!(p.model().clips.len(), 13);
}

#[test]
fn held_keys_walk_away_from_the_camera_and_shift_runs() {
    let mut h = harness();
    open_demo_set(&mut h);
    // The orbit camera looks along -back(): W walks that way on the ground.
    let yaw = h.state().view.camera.yaw_rad;
    let look = glam::DVec2::new(-(yaw as f64).sin(), -(yaw as f64).cos());
    h.key_down(Key::W);
    run_frames(&mut h, 180);
    let at = |h: &Harness<'static, Previewer>| {
        h.state()
            .matching()
            .unwrap()
            .session
            .world_from_root()
            .translation
    };
    let turned = at(&h);
    run_frames(&mut h, 60);
    let p = h.state();
    // After turning towards it, the last second goes straight that way at walk speed.
    let moved = at(&h) - turned;
    assert!(moved.length() > 1.0, "walked {} m in 1 s", moved.length());
    assert!(
        moved.normalize().dot(look) > 0.97,
        "went {moved:?}, camera looks {look:?}"
    );
    let walk = p.model().find_clip("Walk").unwrap();
    let f = p.matching().unwrap().session.current().unwrap();
    assert_eq!(f.clip, walk, "walking on W");
    // Shift: the run.
    // Shift held (a modifier state, as the window reports it).
    h.event(egui::Event::ModifiersChanged(egui::Modifiers::SHIFT));
    let mut ran = false;
    for _ in 0..120 {
        h.run_steps(1);
        h.state_mut().advance(1.0 / 60.0);
        let p = h.state();
        let f = p.matching().unwrap().session.current().unwrap();
        ran |= p.model().clips[f.clip].name().starts_with("Run");
    }
    assert!(ran, "Shift+W never ran");
    h.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    h.key_up(Key::W);
    // The debugger lists the search that made it run.
    h.run_steps(2);
    let _ = h.get_by_label_contains("Since jump: ");
    let _ = h.get_by_label_contains("Trajectory error: ");
    assert!(
        h.query_by_label_contains("Search at").is_some(),
        "the candidates header is shown"
    );
}

#[test]
fn pausing_steps_and_scrubs_the_recording() {
    let mut h = harness();
    open_demo_set(&mut h);
    h.key_down(Key::D);
    run_frames(&mut h, 120);
    h.key_up(Key::D);
    h.run_steps(1);
    let recorded = session(&h).frames().len();
    assert!(recorded >= 120);
    // Space pauses; Left steps back one recorded frame and shows it exactly.
    h.key_press(Key::Space);
    h.run_steps(1);
    assert!(!h.state().is_playing());
    h.key_press(Key::ArrowLeft);
    h.run_steps(1);
    h.key_press(Key::ArrowLeft);
    h.run_steps(1);
    let p = h.state();
    let s = &p.matching().unwrap().session;
    assert_eq!(s.viewed(), Some(recorded - 3));
    let f = &s.frames()[recorded - 3];
    assert_eq!(s.world_from_root(), f.world_from_root);
    let root = p.root_position();
    assert!((root.x as f64 - f.world_from_root.translation.x).abs() < 1e-5);
    // Advancing while paused simulates nothing.
    h.state_mut().advance(0.5);
    assert_eq!(session(&h).frames().len(), recorded);
    // Home-like scrub: the Back button walks further back; Play continues live.
    h.get_by_label("Back").click();
    h.run_steps(1);
    assert_eq!(session(&h).viewed(), Some(recorded - 4));
    h.get_by_label("Play").click();
    h.run_steps(1);
    h.state_mut().advance(1.0 / 60.0);
    let s = &session(&h);
    assert_eq!(s.viewed(), None);
    assert_eq!(s.frames().len(), recorded + 1);
}

#[test]
fn m_toggles_motion_matching_on_the_plain_demo_and_edits_restart_the_recording() {
    let mut h = harness();
    h.key_press(Key::M);
    h.run_steps(2);
    assert!(h.state().matching().is_some());
    // Panels that describe the timeline's clip say who drives instead.
    for text in [
        "Motion matching moves the root",
        "Off: motion matching drives the character",
        "Off: motion matching moves the character",
    ] {
        assert!(h.query_by_label_contains(text).is_some(), "no '{text}'");
    }
    // The loop-seam row stays in place, greyed: no clip is on the timeline.
    assert!(h.get_by_label("Loop seam").accesskit_node().is_disabled());
    // The plain demo's clips: Idle, Walk, Run and TurnWalk (Wave is additive).
    let names: Vec<String> = session(&h)
        .db
        .clips()
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(names, ["Idle", "Walk", "Run", "TurnWalk"]);
    h.key_down(Key::W);
    run_frames(&mut h, 60);
    h.key_up(Key::W);
    assert!(session(&h).frames().len() > 60);
    // Onion skin follows the timeline's clip: no ghosts of it over the matched pose.
    h.state_mut().inspect.onion.enabled = true;
    h.state_mut().evaluate_pose();
    assert!(h.state().view.ghosts.poses.is_empty());
    h.state_mut().inspect.onion.enabled = false;
    h.state_mut()
        .edit_matching(|d| d.weights.trajectory_direction = 3.0);
    let s = &session(&h);
    assert_eq!(s.frames().len(), 0, "an edit starts a new recording");
    assert_eq!(s.db.weights()[4], 3.0);
    h.key_press(Key::M);
    h.run_steps(2);
    assert!(h.state().matching().is_none());
}

/// Frames (of the last `n`) that played a clip whose name contains `word`.
fn played(h: &Harness<'static, Previewer>, n: usize, word: &str) -> usize {
    let p = h.state();
    let frames = p.matching().unwrap().session.frames();
    frames[frames.len().saturating_sub(n)..]
        .iter()
        .filter(|f| p.model().clips[f.clip].name().contains(word))
        .count()
}

#[test]
fn jump_target_tags_from_the_panel_constrain_the_search() {
    // Ctrl+D strafes right: the strafe clips play.
    let strafe_right = |h: &mut Harness<'static, Previewer>| {
        h.event(egui::Event::ModifiersChanged(egui::Modifiers::CTRL));
        h.key_down(Key::D);
        run_frames(h, 180);
        h.key_up(Key::D);
        h.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
        run_frames(h, 1);
    };
    let mut h = harness();
    open_demo_set(&mut h);
    strafe_right(&mut h);
    assert!(
        played(&h, 180, "Strafe") > 30,
        "strafing plays the strafe clips"
    );
    // Jump targets > exclude strafe: the same input never lands on a strafe clip.
    let mut h = harness();
    open_demo_set(&mut h);
    h.get_by_label("Jump targets").click();
    h.run_steps(2);
    // The side panel runs past the window's bottom: scroll to the box, as a user would
    // (the scroll animates over a few frames).
    h.get_by_label("exclude strafe").scroll_to_me();
    h.run_steps(8);
    h.get_by_label("exclude strafe").click();
    h.run_steps(2);
    let tags = session(&h).db.tag_names().to_vec();
    let bit = 1u32 << tags.iter().position(|t| t == "strafe").unwrap();
    assert_eq!(h.state().matching().unwrap().exclude_tags, bit);
    strafe_right(&mut h);
    assert_eq!(played(&h, 180, "Strafe"), 0);
    // The constraint is part of the recorded input, so a replay honours it too.
    let s = &session(&h);
    let last = s.frames().len() - 1;
    assert_eq!(s.input_at(last).unwrap().exclude_tags, bit);
}
