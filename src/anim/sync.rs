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

use crate::{AnimError, SyncMarker};

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

/// Most shared markers [`marker_sync_time`] pairs up per clip; past this it falls back to
/// the first shared marker and a uniform rate (no clip has that many per cycle).
pub const MAX_SYNC_MARKERS: usize = 32;

/// How [`marker_sync_time`] aligns a follower with its leader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkerAlignment {
    /// Every shared marker, paired in cyclic order (the two clips list the shared names
    /// in the same cyclic sequence).
    AllMarkers,
    /// Only the shared `*down` markers (e.g. `left_foot_down`): with the `*up` markers
    /// too the sequences differ (walk and run order their lift-offs differently).
    DownMarkers,
    /// The sequences differ (a marker appears a different number of times in the two
    /// clips, or in another order): the first shared marker (named) is aligned and the
    /// follower moves at the uniform rate `follower / leader duration`.
    FirstMarker(String),
    /// Both clips are takes of several gait cycles (a shared `*down` marker at least
    /// [`MIN_GAIT_CYCLES`] times in each, e.g. motion capture): the follower moves one gait
    /// cycle (between two of these markers) per leader gait cycle ([`gait_sync_time`]).
    GaitCycles(String),
    /// No shared marker, or invalid durations: the caller uses [`normalized_phase`].
    None,
}

impl MarkerAlignment {
    /// A line for the phase report; `None` when all markers pair up.
    pub fn note(&self) -> Option<String> {
        match self {
            MarkerAlignment::AllMarkers => None,
            MarkerAlignment::DownMarkers => Some(
                "sync: the clips order their markers differently; aligned on the *down markers only"
                    .into(),
            ),
            MarkerAlignment::FirstMarker(name) => Some(format!(
                "sync: the shared markers appear a different number of times or in another order in the two clips; aligned on '{name}' at a uniform rate"
            )),
            MarkerAlignment::GaitCycles(name) => Some(format!(
                "sync: takes of several steps; one follower gait cycle per leader gait cycle, aligned on '{name}'"
            )),
            MarkerAlignment::None => Some(
                "sync: no shared markers; aligned by normalised phase".into(),
            ),
        }
    }
}

/// Shared markers of one clip, sorted by wrapped time, on the stack.
struct Shared<'a> {
    names: [&'a str; MAX_SYNC_MARKERS],
    times: [f64; MAX_SYNC_MARKERS],
    len: usize,
    overflow: bool,
}

impl<'a> Shared<'a> {
    fn new(
        own: &'a [SyncMarker],
        other: &[SyncMarker],
        duration: f64,
        keep: impl Fn(&str) -> bool,
    ) -> Self {
        let mut s = Shared {
            names: [""; MAX_SYNC_MARKERS],
            times: [0.0; MAX_SYNC_MARKERS],
            len: 0,
            overflow: false,
        };
        for m in own
            .iter()
            .filter(|m| keep(&m.name) && other.iter().any(|o| o.name == m.name))
        {
            if s.len == MAX_SYNC_MARKERS {
                s.overflow = true;
                break;
            }
            // Insertion sort by time (stable: equal times keep the input order).
            let t = wrap_secs(m.time_secs as f64, duration);
            let mut i = s.len;
            while i > 0 && s.times[i - 1] > t {
                s.names[i] = s.names[i - 1];
                s.times[i] = s.times[i - 1];
                i -= 1;
            }
            s.names[i] = &m.name;
            s.times[i] = t;
            s.len += 1;
        }
        s
    }

    /// The first rotation `r` with `self[i]` named like `other[(i + r) % len]` for every
    /// `i`, when the follower's times are not all one instant.
    fn rotation(&self, follower: &Shared) -> Option<usize> {
        let m = self.len;
        if m == 0 || follower.len != m || self.overflow || follower.overflow {
            return None;
        }
        if m > 1 && follower.times[..m].iter().all(|&t| t == follower.times[0]) {
            return None;
        }
        (0..m).find(|&r| (0..m).all(|i| self.names[i] == follower.names[(i + r) % m]))
    }
}

/// A `*down` marker name (any case), without allocating: sync runs every frame.
fn is_down(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() >= 4 && b[b.len() - 4..].eq_ignore_ascii_case(b"down")
}

/// The shared markers of both clips that sync pairs, and the rotation that pairs them
/// (`None`: the sequences differ even with the `*down` markers alone; the leader's set is
/// then all its shared markers). `None` without a shared marker. Durations must be > 0.
fn pairing<'a>(
    leader: &'a [SyncMarker],
    ld: f64,
    follower: &'a [SyncMarker],
    fd: f64,
) -> Option<(Shared<'a>, Shared<'a>, Option<usize>, bool)> {
    let l = Shared::new(leader, follower, ld, |_| true);
    if l.len == 0 {
        return None;
    }
    let f = Shared::new(follower, leader, fd, |_| true);
    if let Some(r) = l.rotation(&f) {
        return Some((l, f, Some(r), false));
    }
    let (l_down, f_down) = (
        Shared::new(leader, follower, ld, is_down),
        Shared::new(follower, leader, fd, is_down),
    );
    match l_down.rotation(&f_down) {
        Some(r) => Some((l_down, f_down, Some(r), true)),
        None => Some((l, f, None, false)),
    }
}

/// Which alignment [`marker_sync_time`] uses for these markers (see there).
pub fn marker_alignment(
    leader: &[SyncMarker],
    leader_duration_secs: f64,
    follower: &[SyncMarker],
    follower_duration_secs: f64,
) -> MarkerAlignment {
    let (ld, fd) = (leader_duration_secs, follower_duration_secs);
    if !(ld.is_finite() && ld > 0.0 && fd.is_finite() && fd > 0.0) {
        return MarkerAlignment::None;
    }
    if let Some(name) = gait_marker(leader, follower) {
        return MarkerAlignment::GaitCycles(name.to_string());
    }
    match pairing(leader, ld, follower, fd) {
        None => MarkerAlignment::None,
        Some((_, _, Some(_), false)) => MarkerAlignment::AllMarkers,
        Some((_, _, Some(_), true)) => MarkerAlignment::DownMarkers,
        Some((l, _, None, _)) => MarkerAlignment::FirstMarker(l.names[0].to_string()),
    }
}

/// Marker sync (Unreal sync groups): the follower's phase time in `[0, follower_duration)`
/// seconds for the leader at `leader_time_secs` (wrapped into `[0, leader_duration)`).
///
/// Markers: `(name, time_secs)` with times in `[0, duration]` (a marker at `duration` is
/// the same instant as one at 0), in any order. Only names both clips have are used.
/// * The shared markers of both clips, each sorted by time, form the same cyclic
///   sequence of names (same counts, same order): leader marker `i` is paired with
///   follower marker `i + r` (the first rotation `r` that matches); between two leader
///   markers the follower moves linearly between their partners. On a leader marker the
///   follower is exactly on its partner.
/// * Otherwise the same with only the `*down` markers (walk and run order their
///   `*_foot_up` markers differently: Walk L-down, R-up, R-down, L-up; Run L-down, L-up,
///   R-down, R-up).
/// * Otherwise (a marker appears a different number of times in the two clips: a second
///   `left_foot_down` from a stumble; or the order differs), and with one shared marker:
///   the leader's first shared marker is aligned with the follower's first occurrence of
///   that name, and the follower moves at the duration ratio
///   (`follower = marker_f + (leader - marker_l) * dur_f / dur_l`).
/// * No shared name, or invalid durations / time: `None` (use [`normalized_phase`]).
///
/// Whatever the markers, the follower advances exactly one cycle per leader cycle, never
/// backwards. [`marker_alignment`] says which case applied.
///
/// Does not allocate (at most [`MAX_SYNC_MARKERS`] shared markers per clip are paired;
/// more fall back to the first marker); O(markers²).
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
    let (l, f, rotation, _) = pairing(leader, ld, follower, fd)?;
    let Some(r) = rotation else {
        // Uniform rate from the leader's first shared marker.
        let name = l.names[0];
        let f_t = (0..f.len)
            .find(|&j| f.names[j] == name)
            .map(|j| f.times[j])?;
        let dt = (t - l.times[0]).rem_euclid(ld);
        return Some(wrap_secs(f_t + dt * (fd / ld), fd));
    };
    let m = l.len;
    // Previous leader marker (at or before t, else the last one a cycle earlier) and the
    // next one (strictly after).
    let (i, prev_t, next_t) = match (0..m).rev().find(|&i| l.times[i] <= t) {
        Some(i) if i + 1 < m => (i, l.times[i], l.times[i + 1]),
        Some(i) => (i, l.times[i], l.times[0] + ld),
        None => (m - 1, l.times[m - 1] - ld, l.times[0]),
    };
    let f_prev = f.times[(i + r) % m];
    let gap = if m == 1 {
        fd
    } else {
        (f.times[(i + 1 + r) % m] - f_prev).rem_euclid(fd)
    };
    let alpha = (t - prev_t) / (next_t - prev_t);
    Some(wrap_secs(f_prev + alpha * gap, fd))
}

/// Fewest occurrences of a shared `*down` marker in each clip for [`gait_sync_time`]: a
/// looping cycle has one per foot (two after a stumble), a take of several steps more.
pub const MIN_GAIT_CYCLES: usize = 3;

/// The first `*down` marker name (in the leader's order) that both clips have at least
/// [`MIN_GAIT_CYCLES`] times.
pub fn gait_marker<'a>(leader: &'a [SyncMarker], follower: &[SyncMarker]) -> Option<&'a str> {
    let count = |ms: &[SyncMarker], name: &str| ms.iter().filter(|m| m.name == name).count();
    leader
        .iter()
        .map(|m| m.name.as_str())
        .filter(|n| is_down(n))
        .find(|n| count(leader, n) >= MIN_GAIT_CYCLES && count(follower, n) >= MIN_GAIT_CYCLES)
}

/// The gait cycle around `t` (seconds in `[0, duration)`) between sorted marker times
/// `times` (cyclic: before the first, the last one a loop earlier): `(start, end)` with
/// `start <= t < end` (`end` may pass `duration`, `start` may be negative).
fn gait_cycle(times: &[f64], duration: f64, t: f64) -> (f64, f64) {
    let m = times.len();
    match (0..m).rev().find(|&i| times[i] <= t) {
        Some(i) if i + 1 < m => (times[i], times[i + 1]),
        Some(i) => (times[i], times[0] + duration),
        None => (times[m - 1] - duration, times[0]),
    }
}

/// The gait cycle (between two occurrences of marker `name`) that holds `now_secs`:
/// `(start, length)` seconds (`start` may be negative: the cycle over the clip's start).
/// `None` with fewer than two occurrences or an invalid duration.
pub fn gait_cycle_at(
    markers: &[SyncMarker],
    name: &str,
    duration_secs: f64,
    now_secs: f64,
) -> Option<(f64, f64)> {
    if !(duration_secs.is_finite() && duration_secs > 0.0 && now_secs.is_finite()) {
        return None;
    }
    let mut v: Vec<f64> = markers
        .iter()
        .filter(|m| m.name == name)
        .map(|m| wrap_secs(f64::from(m.time_secs), duration_secs))
        .collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    if v.len() < 2 {
        return None;
    }
    let (a, b) = gait_cycle(&v, duration_secs, wrap_secs(now_secs, duration_secs));
    Some((a, b - a))
}

/// Gait-cycle sync for takes of several steps (motion capture: a walk of eight steps
/// against a run of twelve): the leader's gait phase `g` in its gait cycle (between two
/// occurrences of the shared `*down` marker, see [`MarkerAlignment::GaitCycles`]) is
/// applied to the follower's gait cycle that holds `follower_now` (its current time), or
/// to the next or previous one, whichever puts it nearest where it is; so the follower
/// advances one gait cycle per leader gait cycle (backwards in reverse), steps stay in
/// phase, whatever the takes' lengths.
/// `None` when the clips are not such takes (use [`marker_sync_time`]). Seconds; the
/// result is in `[0, follower_duration)`. Allocates the two marker lists (a few dozen).
pub fn gait_sync_time(
    leader: &[SyncMarker],
    leader_duration_secs: f64,
    leader_time_secs: f64,
    follower: &[SyncMarker],
    follower_duration_secs: f64,
    follower_now_secs: f64,
) -> Option<f64> {
    let (ld, fd) = (leader_duration_secs, follower_duration_secs);
    if !(ld.is_finite()
        && ld > 0.0
        && fd.is_finite()
        && fd > 0.0
        && leader_time_secs.is_finite()
        && follower_now_secs.is_finite())
    {
        return None;
    }
    let name = gait_marker(leader, follower)?;
    let sorted = |ms: &[SyncMarker], d: f64| {
        let mut v: Vec<f64> = ms
            .iter()
            .filter(|m| m.name == name)
            .map(|m| wrap_secs(f64::from(m.time_secs), d))
            .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let (l, f) = (sorted(leader, ld), sorted(follower, fd));
    if l.len() < MIN_GAIT_CYCLES || f.len() < MIN_GAIT_CYCLES {
        return None;
    }
    let t = wrap_secs(leader_time_secs, ld);
    let (a, b) = gait_cycle(&l, ld, t);
    let g = ((t - a) / (b - a)).clamp(0.0, 1.0);
    let now = wrap_secs(follower_now_secs, fd);
    let (fa, fb) = gait_cycle(&f, fd, now);
    // The leader's gait phase in the follower's current cycle, the next or the previous
    // one: whichever lies nearest where the follower is. Playing forwards the leader's
    // new step moves the follower on to its next cycle; in reverse, back to the previous;
    // and a follower a little ahead (a cross-fade) is pulled back, never sent a step on.
    let (na, nb) = gait_cycle(&f, fd, wrap_secs(fb, fd));
    let (pa, pb) = gait_cycle(&f, fd, wrap_secs(fa - 1e-9 * fd, fd));
    let candidates = [
        fa + g * (fb - fa),
        fb + g * (nb - na),
        fa - (pb - pa) + g * (pb - pa),
    ];
    let distance = |x: f64| {
        let d = (x - now).rem_euclid(fd);
        d.min(fd - d)
    };
    let target = candidates
        .into_iter()
        .min_by(|a, b| distance(*a).total_cmp(&distance(*b)))
        .unwrap_or(fa);
    Some(wrap_secs(target, fd))
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
