//! The timeline controller (no UI): play vs seek, wraps, clip switch, stepping, modes.

use glam::DVec2;
use stridescope::cli::load_model;
use stridescope::stage::timeline::{key_rate_hz, RootMotionMode, Timeline};

fn demo() -> stridescope::asset::Model {
    load_model(None).unwrap()
}

#[test]
fn scrubbing_moves_nothing_playing_accumulates() {
    let model = demo();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, model.find_clip("Walk").unwrap());
    t.seek_secs(0.9);
    t.seek_secs(3.1);
    t.seek_secs(-7.0);
    assert_eq!(t.world_from_root().translation, DVec2::ZERO);
    t.seek_secs(0.55);
    t.set_playing(true);
    // One long frame across two wraps (a hitch, or a very fast rate): exactly two cycles
    // of the demo walk, which travels 1.4 m along +Z per cycle (src/asset/demo.rs).
    let d = t.tick(2.2);
    let expected = DVec2::new(0.0, 2.8);
    assert!(
        (d.translation - expected).length() < 1e-5,
        "{}",
        d.translation
    );
    assert!((t.world_from_root().translation - expected).length() < 1e-5);
    // Paused ticks do nothing.
    t.set_playing(false);
    let before = t.world_from_root();
    assert_eq!(t.tick(1.0).translation, DVec2::ZERO);
    assert_eq!(t.world_from_root(), before);
}

#[test]
fn fast_rate_wraps_many_times_in_one_frame_and_reverse_undoes_it() {
    let model = demo();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, model.find_clip("Run").unwrap());
    let duration = t.clock().duration_secs();
    t.set_rate(3.5);
    t.set_playing(true);
    t.tick(1.0); // 3.5 s of a 0.7 s clip: 5 whole cycles of 3.5 m along +Z
    assert_eq!(t.clock().time().cycle, 5);
    assert!(duration > 0.69 && duration < 0.71);
    let expected = DVec2::new(0.0, 17.5);
    assert!(
        (t.world_from_root().translation - expected).length() < 1e-4,
        "{}",
        t.world_from_root().translation
    );
    t.set_rate(-3.5);
    t.tick(0.5);
    t.tick(0.5);
    assert!(t.world_from_root().translation.length() < 1e-9);
    assert!(t.time_secs().abs() < 1e-9);
    // The plot recorded backwards motion while reversing.
    assert!(t.displacement().any(|s| s.along_m < 0.0));
    assert!(t.displacement().any(|s| s.along_m > 0.0));
}

#[test]
fn clip_switch_is_a_seek_and_keeps_the_character_in_place() {
    let model = demo();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, model.find_clip("Walk").unwrap());
    t.set_playing(true);
    t.tick(0.5);
    let placed = t.world_from_root();
    assert!(placed.translation.length() > 0.1);
    t.select_clip(&model, model.find_clip("Run").unwrap());
    assert_eq!(t.world_from_root(), placed, "switching clips moves nothing");
    assert_eq!(t.time_secs(), 0.0);
    assert!(t.is_playing());
    assert_eq!(t.displacement().len(), 0);
}

#[test]
fn stepping_and_jumping_are_seeks_at_the_key_rate() {
    let model = demo();
    let mut t = Timeline::new(&model);
    let walk = model.find_clip("Walk").unwrap();
    t.select_clip(&model, walk);
    assert_eq!(t.frame_rate_hz(), key_rate_hz(&model.clips[walk]));
    assert_eq!(t.frame_rate_hz(), 30.0);
    t.step_frames(1);
    assert!((t.phase_secs() - 1.0 / 30.0).abs() < 1e-12);
    assert_eq!(t.frame_index(), 1.0);
    t.step_frames(-2); // back across the loop point into the previous cycle
    assert_eq!(t.clock().time().cycle, -1);
    assert!((t.frame_index() - (t.clock().duration_secs() * 30.0 - 1.0)).abs() < 1e-6);
    t.jump_to_start();
    assert_eq!(t.phase_secs(), 0.0);
    // End: the last whole frame before the wrap (Walk: 1.1 s at 30 fps = 33 frames, so
    // frame 32), and one step forward wraps to frame 0 of the next cycle.
    t.jump_to_end();
    assert_eq!(t.frame_index(), 32.0);
    let cycle = t.clock().time().cycle;
    t.step_frames(1);
    assert_eq!(t.frame_index(), 0.0);
    assert_eq!(t.clock().time().cycle, cycle + 1);
    t.step_frames(-1);
    assert_eq!(t.frame_index(), 32.0);
    // Stepping from between frames lands on whole frames.
    t.seek_secs(0.51); // frame 15.3
    t.step_frames(1);
    assert_eq!(t.frame_index(), 16.0);
    t.seek_secs(0.51);
    t.step_frames(-1);
    assert_eq!(t.frame_index(), 15.0);
    assert_eq!(t.world_from_root().translation, DVec2::ZERO);
    // Non-looping: the end is the end, and playing stops there.
    t.set_looping(false);
    t.jump_to_start();
    t.set_playing(true);
    t.tick(10.0);
    assert!(!t.is_playing());
    assert_eq!(t.phase_secs(), t.clock().duration_secs());
    // Play again at the end starts over from the beginning.
    t.set_playing(true);
    assert_eq!(t.phase_secs(), 0.0);
    t.tick(0.1);
    assert!((t.phase_secs() - 0.1).abs() < 1e-12);
}

#[test]
fn modes_place_the_character() {
    let model = demo();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, model.find_clip("Walk").unwrap());
    let rm = t.root_motion().unwrap().motion.clone();
    t.set_playing(true);
    t.tick(2.2);
    // Accumulate: the root's start plus two whole cycles of 1.4 m along +Z.
    let acc = t.root_world_position();
    let expected = rm.start().translation + DVec2::new(0.0, 2.8);
    assert!((acc - expected).length() < 1e-5, "{acc} vs {expected}");
    assert!(t.pose_request().remove_root_motion.is_some());
    // Loop and reset: the clip's own track within the cycle.
    t.set_mode(RootMotionMode::LoopAndReset);
    let lr = t.root_world_position();
    assert!((lr - rm.sample(t.phase_secs()).translation).length() < 1e-9);
    assert!(t.pose_request().remove_root_motion.is_none());
    // In place: never moves.
    t.set_mode(RootMotionMode::InPlace);
    t.tick(3.0);
    assert_eq!(t.root_world_position(), rm.start().translation);
    assert_eq!(t.model_from_root(), glam::Mat4::IDENTITY);
}

#[test]
fn turning_walk_trail_curves() {
    let model = demo();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, model.find_clip("TurnWalk").unwrap());
    t.set_playing(true);
    for _ in 0..600 {
        t.tick(1.0 / 60.0);
    }
    let trail: Vec<DVec2> = t.trail().collect();
    assert!(trail.len() > 500);
    // Turning every cycle: the heading at the end differs from the start by the per-cycle
    // yaw times the cycles played.
    let yaw = t.world_from_root().yaw_rad;
    let per_cycle = t.root_motion().unwrap().motion.cycle_displacement().yaw_rad;
    let expected = per_cycle * 10.0 / t.clock().duration_secs();
    assert!(
        (yaw - expected).abs() < 0.02 * expected.abs(),
        "{yaw} vs {expected}"
    );
    assert!(yaw.abs() > 1.0);
}

#[test]
fn only_motion_against_the_direction_of_play_is_flagged() {
    let model = demo();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, model.find_clip("Walk").unwrap());
    assert!(t.travel_direction().is_some());
    t.set_playing(true);
    for _ in 0..200 {
        t.tick(1.0 / 60.0);
    }
    assert!(t.displacement().all(|s| s.along_m > 0.0 && !s.against_play));
    // Reversing walks backwards, which is what reverse play means: not flagged.
    t.set_rate(-1.0);
    t.seek_secs(t.time_secs()); // a seek starts a new plot run
    for _ in 0..200 {
        t.tick(1.0 / 60.0);
    }
    assert_eq!(t.displacement().len(), 200);
    assert!(t.displacement().all(|s| s.along_m < 0.0 && !s.against_play));
    // An in-place clip (the Fox's hips sway back and forth) has no root motion: the one
    // in-place rule keeps the sway in the pose, so nothing is displaced or flagged.
    let fox = stridescope::asset::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Fox/Fox.glb"),
    )
    .unwrap();
    let mut f = Timeline::new(&fox);
    f.select_clip(&fox, fox.find_clip("Walk").unwrap());
    assert_eq!(f.travel_direction(), None);
    f.set_playing(true);
    for _ in 0..200 {
        f.tick(1.0 / 60.0);
    }
    assert!(
        fox.clip_analysis(fox.find_clip("Walk").unwrap())
            .unwrap()
            .in_place
            .in_place
    );
    assert!(
        f.displacement()
            .all(|s| s.along_m == 0.0 && !s.against_play),
        "the Fox's sway stays in the pose"
    );
}

/// An in-place clip whose root sways 3 cm sideways and drifts 1.1 mm forward per cycle
/// (what Mixamo's in-place Walk does) has no direction of travel, so none of its frames is
/// flagged as moving backwards; the same sway with a real 1.2 m stride travels along +Z.
#[test]
fn tiny_drift_is_in_place_relative_to_the_sway() {
    use stridescope::anim::{Clip, Interpolation, JointTracks, Track};
    let mut model = demo();
    let root = model.skeleton.find("root").unwrap();
    let n = model.skeleton.joint_count();
    let clip_with = |name: &str, forward_m: f32| {
        let times: Vec<f32> = (0..=20).map(|i| i as f32 * 0.05).collect();
        let values: Vec<glam::Vec3> = times
            .iter()
            .map(|&t| {
                let sway = 0.03 * (std::f32::consts::TAU * t).sin();
                glam::Vec3::new(sway, 0.0, forward_m * t)
            })
            .collect();
        let mut tracks = JointTracks::new(root);
        tracks.translation =
            Some(Track::new(Interpolation::Linear, times, values, "root translation").unwrap());
        Clip::new(name.into(), vec![tracks], vec![], n).unwrap()
    };
    model.clips = vec![clip_with("Drift", 0.0011), clip_with("Stride", 1.2)];
    let mut t = Timeline::new(&model);
    t.select_clip(&model, 0);
    assert_eq!(t.travel_direction(), None);
    t.set_playing(true);
    for _ in 0..60 {
        t.tick(1.0 / 30.0);
    }
    assert!(t.displacement().count() == 60);
    assert!(
        t.displacement().all(|s| !s.against_play),
        "an in-place clip's sway was flagged as moving backwards"
    );
    t.select_clip(&model, 1);
    let d = t.travel_direction().unwrap();
    assert!((d - DVec2::new(0.0, 1.0)).length() < 1e-6, "{d}");
}

/// A clip without file markers gets markers detected from its feet for the scrub bar: the
/// Robot's walk has none in the file; the demo walk has file markers, so none are detected.
#[test]
fn markers_are_detected_for_clips_without_them() {
    let robot = stridescope::asset::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/Robot/robot.glb"),
    )
    .unwrap();
    let mut t = Timeline::new(&robot);
    t.select_clip(&robot, robot.find_clip("Robot_Walking").unwrap());
    let names: Vec<&str> = t
        .detected_markers()
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert!(
        names.contains(&"left_foot_down") && names.contains(&"right_foot_down"),
        "{names:?}"
    );
    let model = demo();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, model.find_clip("Walk").unwrap());
    assert!(t.detected_markers().is_empty());
}

/// Ping-pong (issue 19, item 15): the demo walk (1.1 s, 1.4 m per cycle) played 1.5 s
/// turns round at its end and is at 0.7 s, going backwards, having walked forward to the
/// end and back 0.4 s: where a plain play of 0.7 s puts it, no cycle added.
#[test]
fn ping_pong_turns_round_at_the_clip_end() {
    let model = demo();
    let walk = model.find_clip("Walk").unwrap();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, walk);
    t.set_ping_pong(true);
    t.set_playing(true);
    for _ in 0..90 {
        t.tick(1.0 / 60.0);
    }
    assert!((t.phase_secs() - 0.7).abs() < 1e-6, "{}", t.phase_secs());
    assert!(t.clock().rate() < 0.0);
    let mut plain = Timeline::new(&model);
    plain.select_clip(&model, walk);
    plain.set_playing(true);
    plain.tick(0.7);
    let (a, b) = (t.world_from_root(), plain.world_from_root());
    assert!(
        (a.translation - b.translation).length() < 1e-6,
        "{a:?} vs {b:?}"
    );
    // 1.1 s more: back to the start (0.7 s), turn, forward 0.4 s.
    for _ in 0..66 {
        t.tick(1.0 / 60.0);
    }
    assert!((t.phase_secs() - 0.4).abs() < 1e-6, "{}", t.phase_secs());
    assert!(t.clock().rate() > 0.0);
}

/// An in/out range loops playback inside it; the jump back is a seek, so in Accumulate
/// mode the character only travels while a frame inside the range plays (0.3 s of the
/// range per loop, at the demo walk's 1.4 m per 1.1 s cycle where its root speed is
/// steady between 0.2 and 0.5 s); a range with ping-pong bounces between its edges.
#[test]
fn an_in_out_range_loops_and_bounces_inside_it() {
    let model = demo();
    let walk = model.find_clip("Walk").unwrap();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, walk);
    t.set_mode(RootMotionMode::Accumulate);
    t.seek_secs(0.2);
    t.set_in_at_playhead();
    t.seek_secs(0.5);
    t.set_out_at_playhead();
    assert_eq!(
        t.range()
            .map(|(a, b)| ((a * 1e6).round(), (b * 1e6).round())),
        Some((200000.0, 500000.0))
    );
    t.seek_secs(0.2);
    t.set_playing(true);
    let mut played = 0.0;
    for _ in 0..150 {
        t.tick(1.0 / 60.0);
        played += 1.0 / 60.0;
        let ph = t.phase_secs();
        assert!((0.2 - 1e-9..=0.5 + 1e-9).contains(&ph), "phase {ph}");
    }
    // The world moved by the root motion of the played parts: as much as a plain play
    // from 0.2 s for the same 2.5 s folded into the range, i.e. 2.5 / 0.3 range lengths.
    let mut one = Timeline::new(&model);
    one.select_clip(&model, walk);
    one.seek_secs(0.2);
    one.set_playing(true);
    one.tick(0.3);
    let per_loop = one.world_from_root().translation.length();
    let travelled = t.world_from_root().translation.length();
    let loops = played / 0.3;
    assert!(
        (travelled - per_loop * loops).abs() < 0.02 * per_loop * loops,
        "{travelled} m vs {} m",
        per_loop * loops
    );
    // Ping-pong inside the range.
    t.set_ping_pong(true);
    t.seek_secs(0.45);
    for _ in 0..6 {
        t.tick(1.0 / 60.0);
    }
    // 0.1 s: to 0.5 (0.05 s), back 0.05 s.
    assert!((t.phase_secs() - 0.45).abs() < 1e-6, "{}", t.phase_secs());
    assert!(t.clock().rate() < 0.0);
    // The frame rate can be overridden for stepping.
    t.set_playing(false);
    t.set_frame_rate_hz(60.0);
    t.seek_secs(0.0);
    t.step_frames(1);
    assert!((t.phase_secs() - 1.0 / 60.0).abs() < 1e-9);
    // Selecting a clip clears the range and restores its key rate.
    t.select_clip(&model, walk);
    assert_eq!(t.range(), None);
    assert_eq!(t.frame_rate_hz(), 30.0);
}

/// Ping-pong on a clip that does not loop keeps turning round (it stopped at the clamped
/// end), and turning it off gives back the direction the user chose; with loop off a
/// range plays once, to its out point.
#[test]
fn ping_pong_without_loop_and_the_chosen_rate() {
    let model = demo();
    let walk = model.find_clip("Walk").unwrap();
    let mut t = Timeline::new(&model);
    t.select_clip(&model, walk);
    t.set_looping(false);
    t.set_ping_pong(true);
    t.set_playing(true);
    for _ in 0..90 {
        t.tick(1.0 / 60.0);
    }
    assert!(t.is_playing(), "still playing after the turn");
    assert!((t.phase_secs() - 0.7).abs() < 1e-6, "{}", t.phase_secs());
    assert!(t.clock().rate() < 0.0);
    assert_eq!(t.chosen_rate(), 1.0);
    t.set_ping_pong(false);
    assert_eq!(t.clock().rate(), 1.0);
    // Loop off with a range: plays to the out point and stops there.
    t.seek_secs(0.2);
    t.set_in_at_playhead();
    t.seek_secs(0.5);
    t.set_out_at_playhead();
    t.seek_secs(0.2);
    t.set_playing(true);
    for _ in 0..60 {
        t.tick(1.0 / 60.0);
    }
    assert!(!t.is_playing());
    assert!((t.phase_secs() - 0.5).abs() < 1e-6, "{}", t.phase_secs());
}

/// The frame readout's range is where End lands, also when the duration is not a whole
/// number of frames (the Walk's 1.1 s at an overridden 24 fps is 26.4 frames).
#[test]
fn end_lands_on_the_last_frame_the_readout_names() {
    let model = demo();
    let mut t = Timeline::new(&model);
    let walk = model.find_clip("Walk").unwrap();
    t.select_clip(&model, walk);
    // 33 whole frames at 30 fps: a loop's last is 32, a clip that stops ends on 33.
    assert_eq!(t.last_frame(), 32.0);
    t.set_looping(false);
    assert_eq!(t.last_frame(), 33.0);
    t.set_frame_rate_hz(24.0);
    for looping in [true, false] {
        t.set_looping(looping);
        assert_eq!(t.last_frame(), 26.0, "looping {looping}");
        t.jump_to_end();
        assert_eq!(t.frame_index().floor(), 26.0, "looping {looping}");
    }
    use stridescope::app::ui::timeline::fps_text;
    // A Bandai take: 265 frames of 0.0333333 s (the BVH's seven digits), so its duration
    // and rate are a few millionths off whole: a loop's last frame is still 263, like
    // every other take's N - 2.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/mocap/bandai/dataset-2_walk_normal_002.bvh");
    let take = stridescope::asset::load(&path).unwrap();
    let mut t = Timeline::new(&take);
    t.select_clip(&take, 0);
    assert_eq!(fps_text(t.frame_rate_hz()), "30");
    assert_eq!(t.last_frame(), 263.0);
    // End lands on it, and the next frame is the wrap's frame 0 (every place that counts
    // frames snaps alike), then 1; two back from 1 is 263 again.
    t.jump_to_end();
    assert_eq!(t.frame_index().floor(), 263.0);
    t.step_frames(1);
    assert_eq!(t.frame_index(), 0.0);
    t.step_frames(1);
    assert_eq!(t.frame_index(), 1.0);
    t.step_frames(-2);
    assert_eq!(t.frame_index().floor(), 263.0);
    t.set_looping(false);
    assert_eq!(t.last_frame(), 264.0);
    assert_eq!(fps_text(30.0), "30");
    assert_eq!(fps_text(30000.0 / 1001.0), "29.97");
    assert_eq!(fps_text(24000.0 / 1001.0), "23.976");
    assert_eq!(fps_text(12.5), "12.5");
}

/// A zero-length take (an FBX pose take) is one pose: Play does not start playback.
#[test]
fn a_zero_length_take_does_not_play() {
    let model = stridescope::asset::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/fbx/ufbx/maya_character_7500_binary.fbx"),
    )
    .unwrap();
    assert_eq!(model.clips[0].duration_secs(), 0.0);
    let mut t = Timeline::new(&model);
    t.select_clip(&model, 0);
    t.set_playing(true);
    assert!(!t.is_playing());
}

/// Every playback or seek error counts, the same text twice too: a caller that reports
/// each one (the window's status, `trace`) compares the count, not the text.
#[test]
fn every_error_counts_even_with_the_same_text() {
    let model = demo();
    let mut t = Timeline::new(&model);
    assert_eq!(t.error_count(), 0);
    t.seek_secs(f64::NAN);
    let first = t.error().expect("a NaN seek is an error").to_string();
    assert_eq!(t.error_count(), 1);
    t.seek_secs(f64::NAN);
    assert_eq!(t.error(), Some(first.as_str()));
    assert_eq!(t.error_count(), 2, "the same error again is another error");
    // A good seek adds none.
    t.seek_secs(0.5);
    assert_eq!(t.error_count(), 2);
    // The clip source reports an error of its tick once per error.
    let mut source = stridescope::stage::source::MotionSource::Clip;
    t.set_playing(true);
    assert!(source.advance(&model, &mut t, 1.0 / 60.0, 0.0).is_ok());
}
