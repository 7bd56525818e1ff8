//! Time synchronisation of blended clips (SPEC section 4). Blending two gaits at the same
//! *seconds* mixes different phases (and can cancel the motion), so each input is sampled
//! at the time that matches a shared phase. Two kinds:
//!
//! * **Cycle sync** (blend spaces, ozz `sample_blend`): all inputs loop together. The
//!   common loop lasts `sum_i w_i * dur_i` (weights normalised) and each input plays at
//!   rate `dur_i / loop`, so every input advances exactly one cycle per loop.
//! * **Marker sync** (cross-fades, Unreal sync groups): the highest-weight input leads; a
//!   follower sits at the leader's relative position between the sync markers (e.g.
//!   `left_foot_down`) both clips share. Clips without shared markers fall back to the
//!   normalised phase ([`normalized_phase`]).
//!
//! A follower's clock is best kept unwrapped (seconds since it started, counting cycles)
//! so root motion stays wrap-safe: advance it each frame by [`phase_step`] of the synced
//! phase times its duration.
//!
//! All times are seconds in f64 (clip seconds, not wall-clock, unless stated).

use crate::anim::{AnimError, SyncMarker};

/// Validates the inputs of cycle sync and returns the normalised loop length in seconds.
fn cycle_loop(durations_secs: &[f64], weights: &[f64]) -> Result<f64, AnimError> {
    if durations_secs.is_empty() {
        return Err(AnimError::Empty {
            what: "cycle sync inputs".into(),
        });
    }
    if weights.len() != durations_secs.len() {
        return Err(AnimError::LengthMismatch {
            what: "cycle sync weights",
            expected: durations_secs.len(),
            actual: weights.len(),
        });
    }
    for (i, &d) in durations_secs.iter().enumerate() {
        if !d.is_finite() {
            return Err(AnimError::NonFinite {
                what: format!("cycle sync duration {i}"),
            });
        }
        if d <= 0.0 {
            return Err(AnimError::OutOfRange {
                what: format!("cycle sync duration {i}"),
                detail: format!("{d} s; a looping clip needs a duration > 0"),
            });
        }
    }
    let mut total = 0.0;
    for (i, &w) in weights.iter().enumerate() {
        if !w.is_finite() {
            return Err(AnimError::NonFinite {
                what: format!("cycle sync weight {i}"),
            });
        }
        if w < 0.0 {
            return Err(AnimError::OutOfRange {
                what: format!("cycle sync weight {i}"),
                detail: format!("{w}; weights must be >= 0"),
            });
        }
        total += w;
    }
    if !total.is_finite() || total <= 0.0 {
        return Err(AnimError::OutOfRange {
            what: "cycle sync weights".into(),
            detail: format!("sum {total}; at least one weight must be > 0"),
        });
    }
    let loop_secs: f64 = durations_secs
        .iter()
        .zip(weights)
        .map(|(d, w)| d * (w / total))
        .sum();
    Ok(loop_secs)
}

/// Cycle sync (ozz `sample_blend`): the length in seconds of the common loop,
/// `sum_i (w_i / sum_j w_j) * dur_i`.
///
/// `durations_secs`: one cycle length per input, each finite and > 0. `weights`: one per
/// input, finite and >= 0, not all 0 (they are normalised here, so 0.5/1.5 equals
/// 0.25/0.75).
pub fn cycle_sync_loop_secs(durations_secs: &[f64], weights: &[f64]) -> Result<f64, AnimError> {
    cycle_loop(durations_secs, weights)
}

/// Cycle sync: writes each input's playback rate (clip seconds per loop second),
/// `dur_i / loop`, and returns the loop length in seconds. Advancing every input's clock by
/// `rate_i * dt` moves all of them through exactly one cycle per loop, so their phases stay
/// equal. Zero-weight inputs get a rate too, so they stay in phase while fading in.
///
/// Same input rules as [`cycle_sync_loop_secs`]; `rates_out.len()` must equal the number of
/// inputs. On error `rates_out` is left untouched.
pub fn cycle_sync_rates(
    durations_secs: &[f64],
    weights: &[f64],
    rates_out: &mut [f64],
) -> Result<f64, AnimError> {
    let loop_secs = cycle_loop(durations_secs, weights)?;
    if rates_out.len() != durations_secs.len() {
        return Err(AnimError::LengthMismatch {
            what: "cycle sync rates",
            expected: durations_secs.len(),
            actual: rates_out.len(),
        });
    }
    for (r, d) in rates_out.iter_mut().zip(durations_secs) {
        *r = d / loop_secs;
    }
    Ok(loop_secs)
}

/// Normalised phase in `[0, 1)` of `time_secs` in a cycle of `duration_secs` (times outside
/// one cycle wrap, negative ones too). The common fallback when clips share no markers.
/// Returns 0 for a non-finite time or a duration that is not finite and > 0.
pub fn normalized_phase(time_secs: f64, duration_secs: f64) -> f64 {
    if !time_secs.is_finite() || !duration_secs.is_finite() || duration_secs <= 0.0 {
        return 0.0;
    }
    wrap_unit(time_secs / duration_secs)
}

/// Smallest signed phase step from `from` to `to` (phases in cycles, normally in
/// `[0, 1)`), in `(-0.5, 0.5]`: e.g. 0.95 -> 0.05 is +0.1 (a forward wrap), 0.05 -> 0.95
/// is -0.1. Adding it to a follower's unwrapped phase counts wraps correctly as long as a
/// frame moves less than half a cycle. Non-finite inputs give 0.
pub fn phase_step(from: f64, to: f64) -> f64 {
    let d = (to - from).rem_euclid(1.0);
    if !d.is_finite() {
        0.0
    } else if d > 0.5 {
        d - 1.0
    } else {
        d
    }
}

/// Marker sync (Unreal sync groups): the follower's phase time in `[0, follower_duration)`
/// seconds for the leader at `leader_time_secs` (wrapped into `[0, leader_duration)`).
///
/// Markers: `(name, time_secs)` with times in `[0, duration]` (a marker at `duration` is
/// the same instant as one at 0), in any order. Only names both clips have are used.
/// * At least two shared markers in the leader: take the leader's previous shared marker
///   (at or before the time) and next one (strictly after), cyclically; `alpha` = the
///   relative position between them, in `[0, 1)`. In the follower, take its (first)
///   occurrence of the previous name and the next occurrence of the next name after it,
///   cyclically (a full cycle when that is the same marker), and place the follower at
///   `alpha` between them. On a leader marker the follower is exactly on its match.
/// * Exactly one shared marker occurrence in the leader: align on it and move at the
///   duration ratio (`follower = marker_f + (leader - marker_l) * dur_f / dur_l`).
/// * No shared name, or invalid durations / time: `None` (use [`normalized_phase`]).
///
/// Caveat: the markers used should come in the same cyclic order in both clips. Walk and
/// Run with different duty factors order their `*_foot_up` markers differently (Walk:
/// L-down, R-up, R-down, L-up; Run: L-down, L-up, R-down, R-up); with all four markers
/// the follower then runs through extra cycles between markers. Pass only the
/// `*_foot_down` markers for such pairs.
///
/// Does not allocate; O(leader markers * follower markers).
pub fn marker_sync_time(
    leader: &[SyncMarker],
    leader_duration_secs: f64,
    leader_time_secs: f64,
    follower: &[SyncMarker],
    follower_duration_secs: f64,
) -> Option<f64> {
    let ld = leader_duration_secs;
    let fd = follower_duration_secs;
    if !(ld.is_finite() && ld > 0.0 && fd.is_finite() && fd > 0.0 && leader_time_secs.is_finite()) {
        return None;
    }
    let t = wrap_secs(leader_time_secs, ld);
    let shared = |m: &&SyncMarker| follower.iter().any(|f| f.name == m.name);

    // Previous (largest wrapped time <= t, else the latest one a cycle earlier) and next
    // (smallest time > t, else the earliest one a cycle later) shared leader markers, as
    // (marker, time shifted onto the cycle around t).
    let mut prev: Option<(&SyncMarker, f64)> = None;
    let mut latest: Option<(&SyncMarker, f64)> = None;
    let mut next: Option<(&SyncMarker, f64)> = None;
    let mut earliest: Option<(&SyncMarker, f64)> = None;
    let mut count = 0usize;
    for m in leader.iter().filter(shared) {
        count += 1;
        // A marker at the very end is the same instant as one at 0.
        let mt = wrap_secs(m.time_secs as f64, ld);
        if mt <= t && prev.is_none_or(|(_, p)| mt >= p) {
            prev = Some((m, mt));
        }
        if mt > t && next.is_none_or(|(_, n)| mt < n) {
            next = Some((m, mt));
        }
        if latest.is_none_or(|(_, p)| mt >= p) {
            latest = Some((m, mt));
        }
        if earliest.is_none_or(|(_, n)| mt < n) {
            earliest = Some((m, mt));
        }
    }
    let (prev, prev_t) = prev.or_else(|| latest.map(|(m, mt)| (m, mt - ld)))?;
    let (next, next_t) = next.or_else(|| earliest.map(|(m, mt)| (m, mt + ld)))?;

    // The follower's occurrence of the previous marker name.
    let (fi, f_prev) = follower
        .iter()
        .enumerate()
        .find(|(_, f)| f.name == prev.name)?;
    let f_prev_t = wrap_secs(f_prev.time_secs as f64, fd);

    if count == 1 {
        let dt = t - prev_t; // in [0, ld)
        return Some(wrap_secs(f_prev_t + dt * (fd / ld), fd));
    }

    // Next occurrence of the next name after f_prev, cyclically, as a forward gap.
    let gap = follower
        .iter()
        .enumerate()
        .filter(|(_, f)| f.name == next.name)
        .map(|(j, f)| {
            if j == fi {
                fd
            } else {
                (wrap_secs(f.time_secs as f64, fd) - f_prev_t).rem_euclid(fd)
            }
        })
        .min_by(f64::total_cmp)?;
    let alpha = (t - prev_t) / (next_t - prev_t);
    Some(wrap_secs(f_prev_t + alpha * gap, fd))
}

/// Wraps `x` into `[0, 1)`; rem_euclid can round up to exactly 1 for tiny negative inputs.
fn wrap_unit(x: f64) -> f64 {
    let r = x.rem_euclid(1.0);
    if r >= 1.0 {
        0.0
    } else {
        r
    }
}

/// Wraps `secs` into `[0, duration)` (duration > 0), guarding the same rounding case.
fn wrap_secs(secs: f64, duration: f64) -> f64 {
    let r = secs.rem_euclid(duration);
    if r >= duration {
        0.0
    } else {
        r
    }
}
