//! SPEC section 3: the playback clock and seek semantics.

use glam::DVec2;
use stridescope::anim::{ClipTime, PlaybackClock, Player, RootMotion, RootMotionTrack};

fn reference() -> RootMotion {
    let keys: Vec<_> = [(0.0, 0.0), (0.25, 0.2), (0.75, 1.7), (1.0, 2.0)]
        .iter()
        .map(|&(t, z)| (t, DVec2::new(0.0, z), 0.0))
        .collect();
    RootMotion::new(RootMotionTrack::new(1.0, &keys).unwrap())
}

fn player() -> Player {
    Player::new(PlaybackClock::new(1.0).unwrap(), Some(reference()))
}

#[test]
fn play_moves_seek_does_not() {
    // Playing 0.9 -> 3.1 moves the character 4.20 m ...
    let mut p = player();
    p.seek_secs(0.9).unwrap();
    assert_eq!(p.world_from_root().translation, DVec2::ZERO);
    let d = p.advance(2.2).unwrap();
    assert!((d.translation.y - 4.20).abs() < 1e-9, "{d:?}");
    assert!((p.world_from_root().translation.y - 4.20).abs() < 1e-9);
    assert_eq!(p.clock.time().cycle, 3);
    assert!((p.clock.time().phase_secs - 0.1).abs() < 1e-12);
    // ... seeking 0.9 -> 3.1 moves it 0 m.
    let mut s = player();
    s.seek_secs(0.9).unwrap();
    s.seek_secs(3.1).unwrap();
    assert_eq!(s.world_from_root().translation, DVec2::ZERO);
    assert_eq!(s.clock.time().cycle, 3);
    // And playing on after a seek emits motion from the new cursor only.
    let d = s.advance(0.1).unwrap();
    let expected = reference().delta_secs(3.1, 3.2).unwrap().translation.y;
    assert!((d.translation.y - expected).abs() < 1e-12);
}

#[test]
fn many_wraps_in_one_step_and_reverse() {
    let mut p = player();
    // Rate 7.5 for one 1-second frame: 7.5 cycles in one advance.
    p.clock.set_rate(7.5).unwrap();
    let d = p.advance(1.0).unwrap();
    // 7 whole cycles of 2 m plus p(0.5) - p(0) = 0.2 + 0.25 * 3 = 0.95 m.
    let exact = reference().delta_secs(0.0, 7.5).unwrap().translation.y;
    assert!((d.translation.y - exact).abs() < 1e-9);
    assert!((exact - (14.0 + 0.95)).abs() < 1e-9);
    assert_eq!(p.clock.time().cycle, 7);
    // Reverse: rate -7.5 brings it back to where it started.
    p.clock.set_rate(-7.5).unwrap();
    let back = p.advance(1.0).unwrap();
    assert!((back.translation.y + exact).abs() < 1e-9);
    assert!(p.world_from_root().translation.length() < 1e-9);
    assert_eq!(p.clock.time(), ClipTime::ZERO);
    // Reverse across zero goes into negative cycles (floor semantics).
    p.clock.set_rate(-1.0).unwrap();
    p.advance(0.1).unwrap();
    assert_eq!(p.clock.time().cycle, -1);
    assert!((p.clock.time().phase_secs - 0.9).abs() < 1e-12);
    assert!((p.world_from_root().translation.y - -0.12).abs() < 1e-9);
}

#[test]
fn non_looping_clamps_and_never_wraps() {
    let mut p = player();
    p.clock.set_looping(false);
    p.seek_secs(0.9).unwrap();
    let d = p.advance(0.5).unwrap();
    assert_eq!(
        p.clock.time(),
        ClipTime {
            cycle: 0,
            phase_secs: 1.0
        }
    );
    assert!((d.translation.y - 0.12).abs() < 1e-9);
    let d = p.advance(5.0).unwrap();
    assert_eq!(d.translation, DVec2::ZERO);
    p.clock.set_rate(-1.0).unwrap();
    p.advance(10.0).unwrap();
    assert_eq!(p.clock.time(), ClipTime::ZERO);
    assert!((p.world_from_root().translation.y - 0.12 + 2.0).abs() < 1e-9);
    // Seeking a non-looping clock clamps into the clip.
    p.seek_secs(7.3).unwrap();
    assert_eq!(
        p.clock.time(),
        ClipTime {
            cycle: 0,
            phase_secs: 1.0
        }
    );
}

#[test]
fn rejects_non_finite_input() {
    let mut c = PlaybackClock::new(1.0).unwrap();
    assert!(c.advance(f64::NAN).is_err());
    assert!(c.advance(f64::INFINITY).is_err());
    assert!(c.set_rate(f64::NAN).is_err());
    assert!(c.seek_secs(f64::NAN).is_err());
    assert!(c.seek_secs(1e300).is_err());
    assert_eq!(
        c.time(),
        ClipTime::ZERO,
        "a rejected call leaves the clock unchanged"
    );
    c.set_rate(1e300).unwrap();
    assert!(c.advance(1e10).is_err());
    assert_eq!(c.time(), ClipTime::ZERO);
    assert!(PlaybackClock::new(f64::NAN).is_err());
    assert!(PlaybackClock::new(-1.0).is_err());
}

#[test]
fn zero_length_clip_never_moves() {
    let mut c = PlaybackClock::new(0.0).unwrap();
    let i = c.advance(3.0).unwrap();
    assert_eq!(i.from, i.to);
    c.seek_secs(5.0).unwrap();
    assert_eq!(c.time(), ClipTime::ZERO);
}

/// A million cycles at 60 fps (6e7 frames) of the 1 s reference clip.
///
/// Drift bound: the clock's phase stays within 1e-7 s of the exact time n * dt (seen:
/// 1.6e-9 s), and the accumulated position within 1e-8 relative of the exact F(n * dt),
/// i.e. 2 cm of 2,000,000 m (seen: 1.6 mm). A plain f32 seconds clock would be off by
/// whole frames by then.
#[test]
fn a_million_cycles_stay_in_phase() {
    let dt = 1.0 / 60.0;
    let frames: u64 = 60_000_000;
    let mut p = player();
    for _ in 0..frames {
        p.advance(dt).unwrap();
    }
    let t = p.clock.time();
    // Exact elapsed time: frames * dt (dt is the f64 nearest 1/60; the product below is
    // computed once, with a single rounding).
    let exact_secs = frames as f64 * dt;
    let exact = ClipTime::from_secs(exact_secs, 1.0).unwrap();
    assert_eq!(t.cycle, exact.cycle);
    let phase_err = (t.phase_secs - exact.phase_secs).abs();
    assert!(phase_err < 1e-7, "phase drift {phase_err:e} s");
    let expected = reference()
        .transform_at_secs(exact_secs)
        .unwrap()
        .translation
        .y;
    let got = p.world_from_root().translation.y;
    let rel = ((got - expected) / expected).abs();
    eprintln!(
        "after {frames} frames: phase drift {phase_err:e} s, position {got} m vs {expected} m (rel {rel:e})"
    );
    assert!(rel < 1e-8, "position drift {rel:e}");
}

#[test]
fn a_step_within_the_cycle_keeps_the_general_rules_at_their_edges() {
    // A zero step at phase -0 comes out at +0 (the wrap arithmetic subtracts a zero
    // carry), bit for bit, so every later sample time is the same.
    let mut c = PlaybackClock::new(1.0).unwrap();
    c.seek(ClipTime {
        cycle: 0,
        phase_secs: -0.0,
    })
    .unwrap();
    c.advance(-0.0).unwrap();
    assert_eq!(c.time().phase_secs.to_bits(), 0.0f64.to_bits());
    assert_eq!(c.time().cycle, 0);
    // A clock seeked to the end of the last allowed cycle wraps past the limit: playing on
    // from there is refused, however small the step.
    let max = stridescope::anim::MAX_ABS_CYCLE;
    let mut c = PlaybackClock::new(1.0).unwrap();
    c.seek(ClipTime {
        cycle: max,
        phase_secs: 1.0,
    })
    .unwrap();
    assert_eq!(c.time().cycle, max + 1);
    assert!(c.advance(0.1).is_err(), "{:?}", c.time());
}
