//! Cycle sync and marker sync (SPEC section 4) with values known in advance.

use std::path::Path;

use stridescope::anim::sync::{
    cycle_sync_loop_secs, cycle_sync_rates, marker_alignment, marker_sync_time, normalized_phase,
    phase_step, MarkerAlignment,
};
use stridescope::anim::{AnimError, Clip, SyncMarker};

const TOL: f64 = 1e-12;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

// ---------------------------------------------------------------------------------------
// Cycle sync

#[test]
fn cycle_sync_loop_and_rates() {
    let durations = [1.1, 0.7];
    let loop_secs = cycle_sync_loop_secs(&durations, &[0.25, 0.75]).unwrap();
    assert!(close(loop_secs, 0.8, TOL), "{loop_secs}");
    let mut rates = [f64::NAN; 2];
    let l = cycle_sync_rates(&durations, &[0.25, 0.75], &mut rates).unwrap();
    assert_eq!(l.to_bits(), loop_secs.to_bits());
    assert!(close(rates[0], 1.375, TOL), "{rates:?}");
    assert!(close(rates[1], 0.875, TOL), "{rates:?}");
    // Both advance exactly one cycle per loop.
    for (r, d) in rates.iter().zip(durations) {
        assert!(close(r * l, d, TOL), "{r} * {l} != {d}");
    }
    // Unnormalised weights give the same result.
    let mut rates2 = [f64::NAN; 2];
    let l2 = cycle_sync_rates(&durations, &[0.5, 1.5], &mut rates2).unwrap();
    assert!(close(l2, 0.8, TOL));
    assert!(close(rates2[0], 1.375, TOL) && close(rates2[1], 0.875, TOL));
    // One input at full weight plays at rate 1; a zero-weight input still gets a rate.
    let mut rates3 = [f64::NAN; 3];
    let l3 = cycle_sync_rates(&[1.1, 0.7, 2.0], &[0.0, 2.0, 0.0], &mut rates3).unwrap();
    assert!(close(l3, 0.7, TOL));
    assert!(close(rates3[1], 1.0, TOL));
    assert!(close(rates3[0], 1.1 / 0.7, TOL) && close(rates3[2], 2.0 / 0.7, TOL));
}

#[test]
fn cycle_sync_rejects_bad_input() {
    let d = [1.1, 0.7];
    let zero = cycle_sync_loop_secs(&d, &[0.0, 0.0]);
    assert!(
        matches!(zero, Err(AnimError::OutOfRange { .. })),
        "{zero:?}"
    );
    let neg = cycle_sync_loop_secs(&d, &[1.0, -0.5]);
    assert!(matches!(neg, Err(AnimError::OutOfRange { .. })), "{neg:?}");
    let nan = cycle_sync_loop_secs(&d, &[f64::NAN, 1.0]);
    assert!(matches!(nan, Err(AnimError::NonFinite { .. })), "{nan:?}");
    let nan_dur = cycle_sync_loop_secs(&[f64::NAN, 0.7], &[1.0, 1.0]);
    assert!(matches!(nan_dur, Err(AnimError::NonFinite { .. })));
    let zero_dur = cycle_sync_loop_secs(&[0.0, 0.7], &[1.0, 1.0]);
    assert!(matches!(zero_dur, Err(AnimError::OutOfRange { .. })));
    assert!(matches!(
        cycle_sync_loop_secs(&[], &[]),
        Err(AnimError::Empty { .. })
    ));
    assert!(matches!(
        cycle_sync_loop_secs(&d, &[1.0]),
        Err(AnimError::LengthMismatch { .. })
    ));
    let mut short = [f64::NAN; 1];
    assert!(matches!(
        cycle_sync_rates(&d, &[1.0, 1.0], &mut short),
        Err(AnimError::LengthMismatch { .. })
    ));
    let mut rates = [-3.0; 2];
    assert!(cycle_sync_rates(&d, &[0.0, 0.0], &mut rates).is_err());
    assert_eq!(rates, [-3.0; 2], "untouched on error");
}

// ---------------------------------------------------------------------------------------
// Phase helpers

#[test]
fn phase_step_takes_the_short_way_round() {
    assert!(
        close(phase_step(0.95, 0.05), 0.1, 1e-12),
        "{}",
        phase_step(0.95, 0.05)
    );
    assert!(close(phase_step(0.05, 0.95), -0.1, 1e-12));
    assert!(close(phase_step(0.2, 0.3), 0.1, 1e-12));
    assert!(close(phase_step(0.3, 0.2), -0.1, 1e-12));
    assert_eq!(phase_step(0.4, 0.4), 0.0);
    assert_eq!(phase_step(0.0, 0.5), 0.5, "half a cycle counts as forward");
    assert_eq!(phase_step(0.5, 0.0), 0.5);
    assert_eq!(phase_step(f64::NAN, 0.2), 0.0);
}

#[test]
fn normalized_phase_wraps_into_unit_interval() {
    assert!(close(normalized_phase(0.55, 1.1), 0.5, TOL));
    assert!(close(normalized_phase(1.65, 1.1), 0.5, TOL));
    assert!(close(normalized_phase(-0.275, 1.1), 0.75, TOL));
    assert_eq!(normalized_phase(0.0, 1.1), 0.0);
    assert_eq!(normalized_phase(1.1, 1.1), 0.0);
    let tiny_negative = normalized_phase(-1e-300, 1.1);
    assert!((0.0..1.0).contains(&tiny_negative), "{tiny_negative}");
    assert_eq!(normalized_phase(0.3, 0.0), 0.0);
    assert_eq!(normalized_phase(f64::NAN, 1.0), 0.0);
}

// ---------------------------------------------------------------------------------------
// Marker sync

fn m(name: &str, time_secs: f32) -> SyncMarker {
    SyncMarker {
        name: name.to_string(),
        time_secs,
    }
}

const LD: &str = "left_foot_down";
const LU: &str = "left_foot_up";
const RD: &str = "right_foot_down";
const RU: &str = "right_foot_up";

/// The leader of the brief, 1.1 s, given unsorted: in time order L-down 0, R-up 0.1,
/// R-down 0.5, L-up 0.6.
fn leader() -> Vec<SyncMarker> {
    vec![m(LD, 0.0), m(LU, 0.6), m(RD, 0.5), m(RU, 0.1)]
}
const LEADER_DUR: f64 = 1.1;

/// A follower of 0.7 s with the same cyclic order but other spacing: L-down 0, R-up 0.08,
/// R-down 0.35, L-up 0.43.
fn follower() -> Vec<SyncMarker> {
    vec![m(LD, 0.0), m(RU, 0.08), m(RD, 0.35), m(LU, 0.43)]
}
const FOLLOWER_DUR: f64 = 0.7;

fn sync(leader_t: f64, f: &[SyncMarker]) -> f64 {
    marker_sync_time(&leader(), LEADER_DUR, leader_t, f, FOLLOWER_DUR).unwrap()
}

fn t(x: f32) -> f64 {
    x as f64
}

#[test]
fn on_a_leader_marker_the_follower_is_exactly_on_its_match() {
    let f = follower();
    for lm in leader() {
        let ft = f.iter().find(|x| x.name == lm.name).unwrap().time_secs as f64;
        let got = sync(lm.time_secs as f64, &f);
        assert_eq!(got.to_bits(), ft.to_bits(), "{}: {got} != {ft}", lm.name);
    }
}

#[test]
fn between_markers_the_follower_keeps_the_relative_position() {
    let f = follower();
    // Halfway between R-up (0.1) and R-down (0.5) -> halfway between 0.08 and 0.35.
    let got = sync((t(0.1) + t(0.5)) / 2.0, &f);
    assert!(close(got, (t(0.08) + t(0.35)) / 2.0, TOL), "{got}");
    // A quarter of the way from L-down (0) to R-up (0.1).
    let got = sync(t(0.1) * 0.25, &f);
    assert!(close(got, t(0.08) * 0.25, TOL), "{got}");
    // Leader wrap: from L-up (0.6) to L-down (1.1 = 0): alpha 0.6 at 0.9 s; the follower
    // goes from L-up 0.43 to its end 0.7, a gap of 0.27.
    let got = sync(t(0.6) + 0.6 * (1.1 - t(0.6)), &f);
    assert!(close(got, t(0.43) + 0.6 * (0.7 - t(0.43)), 1e-9), "{got}");
    // Leader times outside one cycle wrap first (0.3 s + one cycle, 0.3 s - one cycle).
    let at = sync(0.3, &f);
    assert!(close(sync(0.3 + LEADER_DUR, &f), at, 1e-12));
    assert!(close(sync(0.3 - LEADER_DUR, &f), at, 1e-12));
}

#[test]
fn follower_wraps_past_its_end() {
    // The follower shifted by 0.3 s: L-down 0.3, R-up 0.38, R-down 0.65, L-up 0.03.
    let f = vec![m(LD, 0.3), m(RU, 0.38), m(RD, 0.65), m(LU, 0.03)];
    // Halfway R-up -> R-down: 0.515.
    let got = sync((t(0.1) + t(0.5)) / 2.0, &f);
    assert!(close(got, (t(0.38) + t(0.65)) / 2.0, TOL), "{got}");
    // R-down (0.5) -> L-up (0.6) at alpha 0.8: follower 0.65 -> 0.73 (= 0.03), at 0.714,
    // wrapped to 0.014.
    let got = sync(t(0.5) + 0.8 * (t(0.6) - t(0.5)), &f);
    let gap = t(0.03) + 0.7 - t(0.65);
    let expected = t(0.65) + 0.8 * gap - 0.7;
    assert!(close(got, expected, 1e-9), "{got} vs {expected}");
    assert!(close(expected, 0.014, 1e-6));
    // L-up -> L-down at alpha 0.6: 0.03 + 0.6 * 0.27.
    let got = sync(t(0.6) + 0.6 * (1.1 - t(0.6)), &f);
    assert!(
        close(got, t(0.03) + 0.6 * (t(0.3) - t(0.03)), 1e-9),
        "{got}"
    );
}

#[test]
fn leader_time_before_its_first_marker_uses_the_previous_cycle() {
    // Leader 1.0 s with markers at 0.2 (L-down) and 0.7 (R-down); follower 0.5 s with
    // L-down 0.0 and R-down 0.2. At 0.1 s the leader is 0.4 of the way from R-down
    // (0.7 - 1.0 = -0.3) to L-down (0.2); the follower 0.4 of the way from 0.2 to 0.5.
    let l = vec![m(RD, 0.7), m(LD, 0.2)];
    let f = vec![m(LD, 0.0), m(RD, 0.2)];
    let got = marker_sync_time(&l, 1.0, 0.1, &f, 0.5).unwrap();
    let alpha = (0.1 - (t(0.7) - 1.0)) / (t(0.2) + 1.0 - t(0.7));
    assert!(close(alpha, 0.8, 1e-7), "{alpha}");
    let expected = t(0.2) + alpha * (0.5 - t(0.2));
    assert!(close(got, expected, 1e-12), "{got} vs {expected}");
    assert!(close(got, 0.44, 1e-6));
}

#[test]
fn sweeping_the_leader_moves_the_follower_one_cycle_forward() {
    let f = follower();
    let steps = 1100;
    let mut prev = normalized_phase(sync(0.0, &f), FOLLOWER_DUR);
    let mut total = 0.0;
    let mut max_step: f64 = 0.0;
    for k in 1..=steps {
        let lt = LEADER_DUR * k as f64 / steps as f64;
        let ph = normalized_phase(sync(lt, &f), FOLLOWER_DUR);
        let step = phase_step(prev, ph);
        assert!(
            step > 0.0,
            "follower moved backwards at leader {lt}: {step}"
        );
        max_step = max_step.max(step);
        total += step;
        prev = ph;
    }
    assert!(close(total, 1.0, 1e-9), "{total}");
    // No jumps: the fastest segment (L-down -> R-up: 0.08/0.7 of the follower for
    // 0.1/1.1 of the leader) moves 1.257 times the leader's phase step.
    let fastest = (t(0.08) / 0.7) / (t(0.1) / 1.1) / steps as f64;
    assert!(
        max_step <= fastest * (1.0 + 1e-6),
        "{max_step} vs {fastest}"
    );
}

#[test]
fn one_shared_marker_aligns_and_moves_at_the_duration_ratio() {
    let l = vec![m("leader_only", 0.5), m(LD, 0.2)];
    let f = vec![m(LD, 0.1), m("follower_only", 0.3)];
    let got = marker_sync_time(&l, 1.0, t(0.2), &f, 0.5).unwrap();
    assert_eq!(got.to_bits(), t(0.1).to_bits());
    // 0.4 s after the marker -> 0.2 s after the follower's.
    let got = marker_sync_time(&l, 1.0, 0.6, &f, 0.5).unwrap();
    assert!(close(got, t(0.1) + (0.6 - t(0.2)) * 0.5, TOL), "{got}");
    // 0.9 s after the marker (wrapping the leader) -> 0.45 s after, wrapping the follower.
    let got = marker_sync_time(&l, 1.0, 0.1, &f, 0.5).unwrap();
    let expected = t(0.1) + (0.1 + 1.0 - t(0.2)) * 0.5 - 0.5;
    assert!(close(got, expected, 1e-12), "{got} vs {expected}");
    assert!(close(got, 0.05, 1e-6));
}

#[test]
fn no_shared_markers_or_bad_input_gives_none() {
    let l = leader();
    let f = vec![m("jump", 0.1), m("land", 0.4)];
    assert_eq!(marker_sync_time(&l, 1.1, 0.3, &f, 0.7), None);
    assert_eq!(marker_sync_time(&l, 1.1, 0.3, &[], 0.7), None);
    assert_eq!(marker_sync_time(&[], 1.1, 0.3, &follower(), 0.7), None);
    let f = follower();
    assert_eq!(marker_sync_time(&l, 0.0, 0.3, &f, 0.7), None);
    assert_eq!(marker_sync_time(&l, 1.1, f64::NAN, &f, 0.7), None);
    assert_eq!(marker_sync_time(&l, 1.1, 0.3, &f, -1.0), None);
    assert_eq!(marker_sync_time(&l, f64::INFINITY, 0.3, &f, 0.7), None);
}

// ---------------------------------------------------------------------------------------
// The demo's Walk and Run

fn demo_clips() -> (Clip, Clip) {
    let model = stridescope::asset::load_from_slice(
        &stridescope::asset::demo::demo_glb(),
        Path::new("demo.glb"),
    )
    .unwrap();
    let walk = model.clips[model.find_clip("Walk").unwrap()].clone();
    let run = model.clips[model.find_clip("Run").unwrap()].clone();
    (walk, run)
}

fn marker_time(clip: &Clip, name: &str) -> f32 {
    clip.markers()
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("{} has no {name}", clip.name()))
        .time_secs
}

#[test]
fn demo_walk_leads_run_onto_its_matching_markers() {
    let (walk, run) = demo_clips();
    let (wd, rd) = (walk.duration_secs() as f64, run.duration_secs() as f64);
    for name in [LD, LU, RD, RU] {
        marker_time(&walk, name);
        marker_time(&run, name);
    }
    // right_foot_down sits at half the cycle in both (demo.rs: phase 0.5).
    assert!(close(marker_time(&walk, RD) as f64 / wd, 0.5, 1e-6));
    // Walk and Run order their foot-up markers differently (LD, RU, RD, LU against LD,
    // LU, RD, RU): all four cannot pair up, so sync aligns on the down markers, and on
    // those the follower is exactly on its match.
    assert_eq!(
        marker_alignment(walk.markers(), wd, run.markers(), rd),
        MarkerAlignment::DownMarkers
    );
    for name in [RD, LD] {
        let got = marker_sync_time(
            walk.markers(),
            wd,
            marker_time(&walk, name) as f64,
            run.markers(),
            rd,
        )
        .unwrap();
        let expected = marker_time(&run, name) as f64;
        assert_eq!(
            got.to_bits(),
            expected.to_bits(),
            "{name}: {got} vs {expected}"
        );
    }
}

/// Counts the follower's cycles over one leader cycle (sum of phase steps).
fn follower_cycles(leader: &[SyncMarker], ld: f64, follower: &[SyncMarker], fd: f64) -> f64 {
    let steps = 2000;
    let ph = |k: usize| {
        let lt = ld * k as f64 / steps as f64;
        normalized_phase(marker_sync_time(leader, ld, lt, follower, fd).unwrap(), fd)
    };
    (1..=steps).map(|k| phase_step(ph(k - 1), ph(k))).sum()
}

#[test]
fn demo_walk_and_run_foot_down_markers_keep_one_cycle_per_cycle() {
    let (walk, run) = demo_clips();
    let (wd, rd) = (walk.duration_secs() as f64, run.duration_secs() as f64);
    let downs = |c: &Clip| -> Vec<SyncMarker> {
        c.markers()
            .iter()
            .filter(|m| m.name.ends_with("_down"))
            .cloned()
            .collect()
    };
    let cycles = follower_cycles(&downs(&walk), wd, &downs(&run), rd);
    assert!(close(cycles, 1.0, 1e-9), "{cycles}");
    // With all four markers the feet-up markers come in a different cyclic order (Walk
    // duty 0.6: LD, RU, RD, LU; Run duty 0.26: LD, LU, RD, RU). Pairing them by name
    // made each of the leader's segments span about 0.75 of the Run cycle: 3 Run cycles
    // per Walk cycle. Sync now sees the sequences differ and aligns on the down markers:
    // one cycle per cycle.
    let all = follower_cycles(walk.markers(), wd, run.markers(), rd);
    assert!(close(all, 1.0, 1e-9), "{all}");
}

/// Sync cannot run away (issue 18): for pseudo-random marker sets, with names appearing a
/// different number of times in the two clips or in another order, the follower advances
/// exactly one cycle per leader cycle (10 over 10), never backwards, and its phase offset
/// seen once per leader cycle at the same leader phase stays within 0.05 cycle of its
/// mean.
#[test]
fn any_marker_sets_keep_one_follower_cycle_per_leader_cycle() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let names = [LD, RD, LU, RU];
    for case in 0..200 {
        let set = |dur: f64, next: &mut dyn FnMut() -> f64| -> Vec<SyncMarker> {
            let mut v = Vec::new();
            for n in names {
                let count = (next() * 3.0) as usize; // 0, 1 or 2
                for _ in 0..count {
                    v.push(m(n, (next() * dur) as f32));
                }
            }
            v
        };
        let (ld, fd) = (0.6 + next(), 0.4 + next());
        let l = set(ld, &mut next);
        let f = set(fd, &mut next);
        if marker_sync_time(&l, ld, 0.0, &f, fd).is_none() {
            continue; // No shared name: normalised phase, not marker sync.
        }
        let steps_per_cycle = 400;
        let mut prev = normalized_phase(marker_sync_time(&l, ld, 0.0, &f, fd).unwrap(), fd);
        let mut unwrapped = prev;
        let mut strobe = Vec::new();
        for k in 1..=10 * steps_per_cycle {
            let lt = ld * k as f64 / steps_per_cycle as f64;
            let ph = normalized_phase(marker_sync_time(&l, ld, lt, &f, fd).unwrap(), fd);
            let step = phase_step(prev, ph);
            assert!(
                step >= -1e-12,
                "case {case}: backwards at {lt}: {l:?} / {f:?}"
            );
            unwrapped += step;
            prev = ph;
            if k % steps_per_cycle == 0 {
                strobe.push(unwrapped - lt / ld);
            }
        }
        let cycles =
            unwrapped - normalized_phase(marker_sync_time(&l, ld, 0.0, &f, fd).unwrap(), fd);
        assert!(
            (cycles - 10.0).abs() < 1e-6,
            "case {case}: {cycles} cycles: {l:?} / {f:?}"
        );
        let mean = strobe.iter().sum::<f64>() / strobe.len() as f64;
        for s in &strobe {
            assert!(
                (s - mean).abs() <= 0.05,
                "case {case}: offset {s} vs mean {mean}"
            );
        }
    }
}

/// Takes of several steps (motion capture) sync per gait cycle: the leader's phase
/// between two `left_foot_down` markers is the follower's phase between two of its own,
/// in the follower's current gait cycle, moving on to the next when the leader starts a
/// new one. Hand-computed: leader steps every 1 s (4 s take), follower every 0.8 s
/// (markers at 0.5, 1.3, 2.1 in a 2.4 s take).
#[test]
fn takes_of_several_steps_sync_per_gait_cycle() {
    use stridescope::anim::sync::{gait_sync_time, marker_alignment, MarkerAlignment};
    let leader = vec![m(LD, 0.0), m(LD, 1.0), m(LD, 2.0), m(LD, 3.0)];
    let follower = vec![m(LD, 0.5), m(LD, 1.3), m(LD, 2.1)];
    assert_eq!(
        marker_alignment(&leader, 4.0, &follower, 2.4),
        MarkerAlignment::GaitCycles(LD.to_string())
    );
    let at = |lt: f64, now: f64| gait_sync_time(&leader, 4.0, lt, &follower, 2.4, now).unwrap();
    // Half way through the leader's second step: half way through the follower's.
    assert!((at(1.5, 1.35) - 1.7).abs() < 1e-6);
    // The leader starts a new step: the follower moves on to its next one, not back.
    assert!((at(2.0, 2.09) - 2.1).abs() < 1e-6);
    assert!((at(2.25, 2.1) - 2.3).abs() < 1e-6);
    // Over the follower's end: its last step runs 2.1 -> 2.9 (= 0.5 a take later), so
    // 2.7 is 0.3 of the next pass.
    assert!((at(2.75, 2.6) - 0.3).abs() < 1e-6, "{}", at(2.75, 2.6));
    assert!(
        (at(2.875, 2.7) - 0.4f64.rem_euclid(2.4)).abs() < 1e-6,
        "{}",
        at(2.875, 2.7)
    );
    // Played along, the follower never goes back and advances one step per leader step.
    let (mut now, mut travelled) = (0.5, 0.0);
    for k in 1..=4000 {
        let lt = 8.0 * k as f64 / 4000.0;
        let next = at(lt, now);
        let step = (next - now).rem_euclid(2.4);
        assert!(step < 0.2, "jump of {step} at {lt}");
        travelled += step;
        now = next;
    }
    // 8 s = 8 leader steps = 8 follower steps of 0.8 s.
    assert!((travelled - 6.4).abs() < 1e-6, "{travelled}");
    // In reverse the follower steps back just as smoothly (it used to jump a step ahead
    // every frame).
    let mut back = 0.0;
    for k in 1..=4000 {
        let lt = 8.0 - 8.0 * k as f64 / 4000.0;
        let next = at(lt, now);
        let step = (now - next).rem_euclid(2.4);
        assert!(step < 0.2, "jump of {step} at {lt} in reverse");
        back += step;
        now = next;
    }
    assert!((back - 6.4).abs() < 1e-6, "{back}");
    // Loops with one or two markers a foot keep pairing their markers.
    let one = vec![m(LD, 0.1), m(LD, 0.6)];
    assert_ne!(
        marker_alignment(&one, 1.0, &follower, 2.4),
        MarkerAlignment::GaitCycles(LD.to_string())
    );
    assert_eq!(gait_sync_time(&one, 1.0, 0.3, &follower, 2.4, 0.0), None);
}
