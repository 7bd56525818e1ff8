//! The motion-matching runtime: each frame it moves the simulated character, plays the
//! current frame on (its root motion moves the character), and at every search interval
//! once the minimum dwell has passed, looks for a frame that fits the current pose and
//! the desired trajectory better than continuing. A jump is inertialized: the pose and
//! its velocity continue across it and the difference decays with a half-life.
//!
//! **Why inertialization, not dead blending, is the default:** it needs one pose
//! sample per frame (dead blending extrapolates the old pose and cross-fades, i.e. a
//! second evaluation) and its offset decays critically damped from the exact velocity
//! at the jump, so there is neither a pose nor a velocity step (tests/motion_matching.rs).
//!
//! **Drift:** the character goes where the chosen frames' root motion takes it, so it
//! never slides; the simulated point it follows may get ahead or behind. Each frame
//! reports their horizontal distance (`trajectory_error_m`). Two clamped adjustments,
//! both optional: `drift_clamp_m` pulls the *simulation* back to within that distance
//! of the character (the pose and placement are untouched, so the feet stay planted;
//! the desired trajectory then starts nearer the character), and
//! `steering_deg_per_sec` turns the character's root towards the simulation's facing
//! by at most that rate on top of the root motion (closing the few degrees a clip set
//! without an exact turn leaves; the feet turn about the root by as little). While the
//! input stands still, the simulated point settles onto the character (half-life of the
//! velocity spring), so a stop ends where the stop clip puts the feet.
//!
//! **Clip ends:** when a non-looping clip runs out, the search looks outside that clip
//! first (a stop's tail is not replayed over and over), then inside it if nothing else
//! qualifies.
//!
//! Deterministic: the same inputs give the same frames, bit for bit, whichever search
//! is used (they return the same candidates).

use std::collections::VecDeque;

use glam::{DVec2, Vec2};

use super::controller::{wrap_angle, SpringCharacter, SpringSettings, TrajectoryPoint};
use super::database::{facing_offset, ClipSource, Database, DatabaseSettings, FeatureGroup};
use super::foot_lock::{FootLockSettings, FootLocker};
use super::search::{
    dropped_candidates, frame_cost, group_costs, search_accelerated, search_brute_force, Candidate,
    DropReason, Playing, SearchParams,
};
use crate::inertialize::{Inertializer, JointVelocity};
use crate::{AnimError, GroundTransform, SamplingJob, Skeleton, Transform};

/// Runtime settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatcherSettings {
    /// Seconds between searches (>= 0; 0 = every frame).
    pub search_interval_secs: f32,
    /// No jump until this long after the last one (>= 0), unless the clip ends.
    pub min_dwell_secs: f32,
    /// Added to the cost of continuing the playing clip (negative favours staying:
    /// a jump must win by more than this).
    pub continuing_bias: f32,
    /// Added to the cost of jump targets in the playing clip (0 by default: a jump
    /// within the clip is judged like any other).
    pub current_clip_bias: f32,
    /// Frames of the playing clip this close to its time are not jump targets.
    pub exclude_window_secs: f32,
    /// Inertialization half-life (> 0).
    pub half_life_secs: f32,
    /// Bounding-box search (same result as brute force, faster on big databases).
    pub accelerated: bool,
    /// Candidates kept for the debugger (>= 1).
    pub top_n: usize,
    /// Keep the simulation within this distance of the character (metres).
    pub drift_clamp_m: Option<f32>,
    /// Turn the character towards the simulation's facing by at most this rate
    /// (degrees per second) on top of its root motion.
    pub steering_deg_per_sec: Option<f32>,
    /// Move the character towards the simulated point with this half-life (seconds),
    /// on top of its root motion; `None` = no adjustment. Without it, an offset the
    /// clips create (a start that moves off before the simulation does, a take a little
    /// faster than asked) is never taken back: only the clamp bounds it.
    pub adjust_half_life_secs: Option<f32>,
    /// The adjustment moves the character by at most this fraction of how far its root
    /// motion moves it this frame (>= 0): it hides in the character's own movement and
    /// never moves a character that stands.
    pub adjust_max_ratio: f32,
    /// Play-rate range (min, max; 0 < min <= 1 <= max): the playing clip runs at the
    /// simulation's speed over the clip's own (its smoothed root speed at that time),
    /// clamped to this range, so a take a little slower or faster than asked keeps its
    /// feet planted instead of being pushed by the adjustment. (1, 1) = always 1.
    pub play_rate_range: (f32, f32),
    /// Hold planted feet where they came down (see [`FootLocker`]); `None` = off. Needs
    /// legs ([`Matcher::with_foot_lock`]) and the clips' contacts.
    pub foot_lock: Option<FootLockSettings>,
    /// Half-lives of the simulated character's velocity and facing springs.
    pub spring: SpringSettings,
}

impl Default for MatcherSettings {
    fn default() -> Self {
        Self {
            search_interval_secs: 0.1,
            min_dwell_secs: 0.25,
            continuing_bias: -0.5,
            current_clip_bias: 0.0,
            exclude_window_secs: 0.2,
            half_life_secs: 0.1,
            accelerated: true,
            top_n: 8,
            drift_clamp_m: Some(0.5),
            steering_deg_per_sec: Some(30.0),
            adjust_half_life_secs: Some(0.2),
            adjust_max_ratio: 0.5,
            play_rate_range: (0.85, 1.15),
            foot_lock: Some(FootLockSettings::default()),
            spring: SpringSettings::default(),
        }
    }
}

impl MatcherSettings {
    /// Checks every field (finite, in range); errors name the field.
    pub fn validate(&self) -> Result<(), AnimError> {
        let bad = |what: &str, v: f32| AnimError::OutOfRange {
            what: format!("motion matching {what}"),
            detail: format!("{v} is out of range"),
        };
        for (what, v) in [
            ("search_interval_secs", self.search_interval_secs),
            ("min_dwell_secs", self.min_dwell_secs),
            ("exclude_window_secs", self.exclude_window_secs),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(bad(what, v));
            }
        }
        for (what, v) in [
            ("continuing_bias", self.continuing_bias),
            ("current_clip_bias", self.current_clip_bias),
        ] {
            if !v.is_finite() {
                return Err(bad(what, v));
            }
        }
        if let Some(r) = self.steering_deg_per_sec {
            if !(r.is_finite() && r >= 0.0) {
                return Err(bad("steering_deg_per_sec", r));
            }
        }
        if !(self.half_life_secs.is_finite() && self.half_life_secs > 0.0) {
            return Err(bad("half_life_secs", self.half_life_secs));
        }
        if let Some(c) = self.drift_clamp_m {
            if !(c.is_finite() && c >= 0.0) {
                return Err(bad("drift_clamp_m", c));
            }
        }
        if let Some(h) = self.adjust_half_life_secs {
            if !(h.is_finite() && h > 0.0) {
                return Err(bad("adjust_half_life_secs", h));
            }
        }
        if !(self.adjust_max_ratio.is_finite() && self.adjust_max_ratio >= 0.0) {
            return Err(bad("adjust_max_ratio", self.adjust_max_ratio));
        }
        if let Some(f) = &self.foot_lock {
            f.validate()?;
        }
        let (lo, hi) = self.play_rate_range;
        if !(lo > 0.0 && lo <= 1.0 && (1.0..=4.0).contains(&hi)) {
            return Err(AnimError::OutOfRange {
                what: "motion matching play_rate_range".into(),
                detail: format!("({lo}, {hi}) must have 0 < min <= 1 <= max <= 4"),
            });
        }
        for v in [
            self.spring.velocity_half_life_secs,
            self.spring.facing_half_life_secs,
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(bad("spring half-life", v));
            }
        }
        Ok(())
    }
}

/// What the player wants this frame.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct MatcherInput {
    /// World ground velocity (x, z), m/s.
    pub desired_velocity: Vec2,
    /// World yaw, radians.
    pub desired_yaw: f32,
    /// Tag constraints on jump targets (bit masks over the database's tags).
    pub require_tags: u32,
    /// Jump targets with any tag of this mask are not candidates.
    pub exclude_tags: u32,
}

/// A candidate as the debugger shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchCandidate {
    /// Database frame index (into [`Database::frames`]).
    pub frame: usize,
    /// Database clip (source) and its model clip.
    pub source: usize,
    /// Index of the frame's clip in the model ([`ClipSource::model_clip`]).
    pub clip: usize,
    /// The frame's clip time, seconds.
    pub time_secs: f32,
    /// Total cost, bias included.
    pub cost: f32,
    /// Weighted squared distance per group, in [`super::FEATURE_GROUPS`] order.
    pub groups: [f32; 6],
}

/// A frame the search kept out, with what it would have cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchDropped {
    /// Database frame index (into [`Database::frames`]).
    pub frame: usize,
    /// Model clip and clip seconds.
    pub clip: usize,
    /// The frame's clip time, seconds.
    pub time_secs: f32,
    /// What the frame would have cost (squared distance to the query, bias included).
    pub cost: f32,
    /// Which rule kept it out.
    pub reason: DropReason,
}

/// One frame of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchFrame {
    /// Number of this frame in the run: 0 for the first [`Matcher::step`].
    pub frame: u64,
    /// Seconds of the run so far, this frame's `dt` included.
    pub wall_secs: f64,
    /// What plays after this frame's decision: database clip, model clip, clip seconds.
    pub source: usize,
    /// Index of the playing clip in the model ([`ClipSource::model_clip`]).
    pub clip: usize,
    /// Clip time of the playing clip, seconds (wrapped for looping clips).
    pub clip_time_secs: f64,
    /// A search ran this frame.
    pub searched: bool,
    /// The character jumped to another frame this frame (a search's winner, or the
    /// standing frame).
    pub jumped: bool,
    /// Cost of the playing frame against this frame's query (the winner's when it
    /// jumped, continuing's otherwise); `None` without a search.
    pub cost: Option<f32>,
    /// That cost split into the weighted squared distance per group, in
    /// [`super::FEATURE_GROUPS`] order (bias not included); `None` when `cost` is.
    pub group_costs: Option<[f32; 6]>,
    /// Cost of continuing (`None` at a clip's end, where continuing is not possible).
    pub continue_cost: Option<f32>,
    /// The best candidates, best first (searched frames only).
    pub candidates: Vec<MatchCandidate>,
    /// Frames kept out of the search that would have beaten the best candidate, best
    /// first, with why (searched frames, with [`Matcher::set_explain`] on).
    pub dropped: Vec<MatchDropped>,
    /// The query (raw, root space) of a searched frame.
    pub query_raw: Vec<f32>,
    /// Horizontal distance of the character from the simulation before the clamp (m).
    pub trajectory_error_m: f32,
    /// The character's facing frame in the world after this frame's motion (place
    /// [`Matcher::pose`] with it).
    pub world_from_root: GroundTransform,
    /// The simulated point (world ground position in metres, yaw in radians) after
    /// this frame's update and the drift clamp.
    pub sim: TrajectoryPoint,
    /// Seconds since the last jump (0 when this frame jumped).
    pub since_jump_secs: f32,
    /// Largest inertialization offset left: translation (m), rotation (rad).
    pub offset_remaining: (f32, f32),
    /// The rate the playing clip ran at this frame (see
    /// [`MatcherSettings::play_rate_range`]).
    pub play_rate: f32,
    /// Holding [`Matcher::standing`]'s frame (0 play rate, no search).
    pub holding: bool,
}

/// Everything that changes from frame to frame (cloned for replay snapshots).
#[derive(Clone, Debug)]
pub struct MatcherState {
    /// The playing database clip (index into [`Database::clips`]).
    pub source: usize,
    /// Clip time of the playing clip, seconds (wrapped for looping clips).
    pub time_secs: f64,
    /// The character's facing frame in the world: ground position (metres) and yaw
    /// (radians).
    pub world_from_root: GroundTransform,
    /// The simulated character the matcher follows (world space).
    pub sim: SpringCharacter,
    /// Seconds since the last jump.
    pub since_jump_secs: f32,
    /// Seconds since the last search (infinite when one is due at once: before the
    /// first, and when a hold ends).
    pub since_search_secs: f32,
    /// Frames stepped so far: the number the next [`MatchFrame::frame`] gets.
    pub frame: u64,
    /// Seconds of the run so far (the sum of every step's `dt`).
    pub wall_secs: f64,
    inertializer: Inertializer,
    /// The pose before the offsets, and its velocity.
    input: Vec<Transform>,
    input_velocity: Vec<JointVelocity>,
    /// The pose shown (offsets applied), root motion removed.
    output: Vec<Transform>,
    /// (wall seconds, world position of the facing frame) of recent frames, for the
    /// past trajectory.
    history: VecDeque<(f64, DVec2)>,
    /// The playing frame's facing frame in its clip's root frame ([`facing_offset`]),
    /// kept for the next frame's motion.
    root_offset: GroundTransform,
    /// The last frame's play rate (see [`MatcherSettings::play_rate_range`]).
    pub play_rate: f32,
    /// Standing on [`Matcher::standing`]'s frame: the clip holds still until the input
    /// moves.
    pub holding: bool,
}

/// A motion-matching character.
#[derive(Clone, Debug)]
pub struct Matcher {
    settings: MatcherSettings,
    state: MatcherState,
    scratch: Vec<Transform>,
    query_raw: Vec<f32>,
    query: Vec<f32>,
    /// Record the frames each search kept out (the debugger's list; one more pass over
    /// the database per search).
    explain: bool,
    /// Foot locking's legs and pins (`None`: no legs given).
    locker: Option<FootLocker>,
    /// Where to stand when the input stands and no frame of the database does.
    standing: Option<StandingFrame>,
}

/// A database frame whose future trajectory covers less than this (m/s, model units per
/// second) stands. Walks cover 1-1.5 m/s; an idle's weight shifts stay well under it.
pub const STANDING_SPEED_MPS: f32 = 0.25;

/// Where a character with nothing to stand on stands (see [`Matcher::standing`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StandingFrame {
    /// Database frame held.
    pub frame: usize,
    /// Its speed (m/s): how far its future trajectory goes over its last time.
    pub speed_mps: f32,
    /// Every leg is planted there (else it is merely the slowest frame).
    pub feet_down: bool,
}

/// The frame a character stands on when the input stands and no frame of `db` does: the
/// slowest jump target with every leg planted (the slowest of all when none has), by the
/// speed of its future trajectory. `None` when some frame stands (under
/// [`STANDING_SPEED_MPS`]): the search finds it.
fn standing_frame(db: &Database, sources: &[ClipSource<'_>]) -> Option<StandingFrame> {
    let pos = db.group_range(FeatureGroup::TrajectoryPosition);
    let (&horizon, k) = (
        db.settings().future_secs.last()?,
        db.settings().future_secs.len(),
    );
    let mut best: Option<StandingFrame> = None;
    for (f, info) in db.frames().iter().enumerate() {
        let raw = db.raw_features(f);
        let end = Vec2::new(raw[pos.start + 2 * (k - 1)], raw[pos.start + 2 * k - 1]);
        let speed_mps = end.length() / horizon;
        if speed_mps < STANDING_SPEED_MPS {
            return None;
        }
        if !info.candidate || !speed_mps.is_finite() {
            continue;
        }
        let s = &sources[info.source as usize];
        let d = s.clip.duration_secs();
        let feet_down =
            !s.contacts.is_empty() && s.contacts.iter().all(|c| c.is_down(info.time_secs, d, 0.0));
        let better = best.is_none_or(|b| (feet_down, -speed_mps) > (b.feet_down, -b.speed_mps));
        if better {
            best = Some(StandingFrame {
                frame: f,
                speed_mps,
                feet_down,
            });
        }
    }
    best
}

fn sources_match(db: &Database, sources: &[ClipSource<'_>]) -> Result<(), AnimError> {
    if sources.len() != db.clips().len() {
        return Err(AnimError::LengthMismatch {
            what: "motion matching clip set",
            expected: db.clips().len(),
            actual: sources.len(),
        });
    }
    Ok(())
}

/// Samples a database clip at `t` in its facing frame ([`facing_offset`]): the root's
/// ground position and yaw taken off up to the smoothed, body-facing frame, so the body
/// stands near the origin facing about +Z whatever way the take walked. Matched frames
/// then look alike (their features are measured in the same frame) and a jump between
/// takes facing different ways does not spin the character.
fn sample(
    skeleton: &Skeleton,
    s: &ClipSource<'_>,
    settings: &DatabaseSettings,
    t: f64,
    out: &mut [Transform],
) -> Result<(), AnimError> {
    let d = s.clip.duration_secs() as f64;
    let u = if s.looping {
        t.rem_euclid(d)
    } else {
        t.clamp(0.0, d)
    };
    SamplingJob {
        clip: s.clip,
        time_secs: u as f32,
        rest_pose: skeleton.rest_pose(),
    }
    .run(out)?;
    let facing = facing_offset(s, u, settings)?;
    match s.root {
        Some(root) => {
            let correction = root.motion.sample(u).compose(&facing).inverse();
            root.source.place(&correction, out)?;
        }
        None if facing != GroundTransform::IDENTITY => {
            // In place: turn the skeleton's roots about the origin.
            let m = facing.inverse().to_mat4();
            for (j, p) in skeleton.parents().iter().enumerate() {
                if p.is_none() {
                    out[j] = Transform::from_mat4(&(m * out[j].to_mat4()));
                }
            }
        }
        None => {}
    }
    Ok(())
}

/// The root's motion in a clip from `t0` to `t1` (seconds; `t1` past a non-looping end
/// is clamped), in the root frame at `t0`.
fn root_delta(s: &ClipSource<'_>, t0: f64, t1: f64) -> Result<GroundTransform, AnimError> {
    match (s.root, s.implied_velocity) {
        (Some(r), _) if s.looping => r.motion.delta_secs(t0, t1),
        (Some(r), _) => {
            let m = &r.motion;
            Ok(m.sample(t0).inverse().compose(&m.sample(t1)))
        }
        (None, Some(v)) => Ok(GroundTransform::new(
            0.0,
            DVec2::new(v.x as f64, v.y as f64) * (t1 - t0),
        )),
        (None, None) => Ok(GroundTransform::IDENTITY),
    }
}

impl MatchFrame {
    /// Bytes this frame holds (itself and its vectors' capacity): what a recording of it
    /// costs.
    pub fn retained_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.candidates.capacity() * std::mem::size_of::<MatchCandidate>()
            + self.dropped.capacity() * std::mem::size_of::<MatchDropped>()
            + self.query_raw.capacity() * std::mem::size_of::<f32>()
    }
}

impl Matcher {
    /// Bytes this matcher holds (itself and its vectors' capacity): what a replay
    /// snapshot of it costs.
    pub fn retained_bytes(&self) -> usize {
        let st = &self.state;
        std::mem::size_of::<Self>()
            + (self.scratch.capacity() + st.input.capacity() + st.output.capacity())
                * std::mem::size_of::<Transform>()
            + st.input_velocity.capacity() * std::mem::size_of::<JointVelocity>()
            + (self.query_raw.capacity() + self.query.capacity()) * std::mem::size_of::<f32>()
            + st.history.capacity() * std::mem::size_of::<(f64, DVec2)>()
            + st.inertializer.retained_bytes()
            + self.locker.as_ref().map_or(0, FootLocker::retained_bytes)
    }

    /// A character standing at the world origin facing +Z (its facing frame, see
    /// [`facing_offset`]), playing database clip
    /// `source` from `time_secs`.
    pub fn new(
        db: &Database,
        skeleton: &Skeleton,
        sources: &[ClipSource<'_>],
        settings: MatcherSettings,
        source: usize,
        time_secs: f64,
    ) -> Result<Self, AnimError> {
        settings.validate()?;
        sources_match(db, sources)?;
        if source >= sources.len() || !time_secs.is_finite() {
            return Err(AnimError::OutOfRange {
                what: "motion matching start".into(),
                detail: format!("clip {source} at {time_secs} s"),
            });
        }
        let n = skeleton.joint_count();
        let mut input = vec![Transform::IDENTITY; n];
        sample(
            skeleton,
            &sources[source],
            db.settings(),
            time_secs,
            &mut input,
        )?;
        let root_offset = facing_offset(&sources[source], time_secs, db.settings())?;
        let state = MatcherState {
            source,
            time_secs,
            world_from_root: GroundTransform::IDENTITY,
            root_offset,
            play_rate: 1.0,
            holding: false,
            sim: SpringCharacter::new(Vec2::ZERO, 0.0, settings.spring),
            // The dwell is already served: the first frame searches (a start pose that
            // moves, when the set has no idle, would otherwise run off for the dwell).
            since_jump_secs: settings.min_dwell_secs,
            since_search_secs: f32::INFINITY,
            frame: 0,
            wall_secs: 0.0,
            inertializer: Inertializer::new(n, settings.half_life_secs)?,
            output: input.clone(),
            input,
            input_velocity: vec![JointVelocity::default(); n],
            history: VecDeque::new(),
        };
        Ok(Self {
            settings,
            state,
            scratch: vec![Transform::IDENTITY; n],
            query_raw: vec![0.0; db.dims()],
            query: vec![0.0; db.dims()],
            explain: false,
            locker: None,
            standing: standing_frame(db, sources),
        })
    }

    /// Where the character stands when the input stands and no database frame does (a
    /// mocap library of walks and runs without an idle): it holds this frame, feet
    /// locked, instead of walking on. `None` when the database has a standing frame.
    pub fn standing(&self) -> Option<StandingFrame> {
        self.standing
    }

    /// Locks feet with `locker`'s legs when the settings ask for it (each clip's
    /// [`ClipSource::contacts`] in the same leg order).
    pub fn with_foot_lock(mut self, locker: FootLocker) -> Self {
        self.locker = Some(locker);
        self
    }

    /// Whether each search also records the frames it kept out ([`MatchFrame::dropped`]).
    pub fn set_explain(&mut self, on: bool) {
        self.explain = on;
    }

    /// The runtime settings in use.
    pub fn settings(&self) -> &MatcherSettings {
        &self.settings
    }

    /// Changes settings (validated); a new half-life also applies to the offsets still
    /// decaying.
    pub fn set_settings(&mut self, settings: MatcherSettings) -> Result<(), AnimError> {
        settings.validate()?;
        // What is decaying carries on, at the new rate.
        self.state
            .inertializer
            .set_half_life_secs(settings.half_life_secs)?;
        self.settings = settings;
        self.state.sim.settings = settings.spring;
        Ok(())
    }

    /// Everything that changes per frame; clone it for a replay snapshot
    /// ([`Matcher::restore`]).
    pub fn state(&self) -> &MatcherState {
        &self.state
    }

    /// Restores a snapshot taken with [`Matcher::state`] (replay).
    pub fn restore(&mut self, state: MatcherState) {
        self.state = state;
    }

    /// The pose shown (local, root motion removed; place it with `world_from_root`).
    pub fn pose(&self) -> &[Transform] {
        &self.state.output
    }

    /// The desired trajectory at the database's future times (world space).
    pub fn desired_trajectory(&self, db: &Database, input: &MatcherInput) -> Vec<TrajectoryPoint> {
        self.state.sim.trajectory(
            input.desired_velocity,
            input.desired_yaw,
            &db.settings().future_secs,
        )
    }

    /// Builds the raw query: the playing frame's pose features and the desired
    /// trajectory in the character's root frame.
    fn build_query(&mut self, db: &Database, input: &MatcherInput) {
        let st = &self.state;
        let current = db.nearest_frame(st.source, st.time_secs);
        self.query_raw.copy_from_slice(db.raw_features(current));
        let facing = st.world_from_root;
        let inv = facing.inverse();
        let yaw = facing.yaw_rad;
        let pos = db.group_range(FeatureGroup::TrajectoryPosition);
        let dir = db.group_range(FeatureGroup::TrajectoryDirection);
        let future = st.sim.trajectory(
            input.desired_velocity,
            input.desired_yaw,
            &db.settings().future_secs,
        );
        for (k, p) in future.iter().enumerate() {
            let local = inv.transform_point(DVec2::new(p.position.x as f64, p.position.y as f64));
            self.query_raw[pos.start + 2 * k] = local.x as f32;
            self.query_raw[pos.start + 2 * k + 1] = local.y as f32;
            let d = GroundTransform::rotate(p.yaw as f64 - yaw, DVec2::Y);
            self.query_raw[dir.start + 2 * k] = d.x as f32;
            self.query_raw[dir.start + 2 * k + 1] = d.y as f32;
        }
        let past = db.group_range(FeatureGroup::PastPosition);
        for (k, &tau) in db.settings().past_secs.iter().enumerate() {
            let when = st.wall_secs - tau as f64;
            // The newest recorded position at or before `when` (the start if none).
            let p = st
                .history
                .iter()
                .rev()
                .find(|(t, _)| *t <= when + 1e-9)
                .or(st.history.front())
                .map(|(_, p)| *p)
                .unwrap_or(facing.translation);
            let local = inv.transform_point(p);
            self.query_raw[past.start + 2 * k] = local.x as f32;
            self.query_raw[past.start + 2 * k + 1] = local.y as f32;
        }
        db.normalize_into(&self.query_raw, &mut self.query);
    }

    /// The play rate at clip time `t` of `s` (see [`MatcherSettings::play_rate_range`]):
    /// the simulation's speed over the clip's smoothed root speed, clamped; 1 when
    /// either barely moves (under 5 cm/s), where a ratio means nothing.
    fn play_rate(&self, s: &ClipSource<'_>, db: &Database, t: f64) -> Result<f32, AnimError> {
        let (lo, hi) = self.settings.play_rate_range;
        if lo == 1.0 && hi == 1.0 {
            return Ok(1.0);
        }
        const H: f64 = 1.0 / 30.0;
        let a = facing_offset(s, t - H, db.settings())?;
        let b = facing_offset(s, t + H, db.settings())?;
        let moved = a
            .inverse()
            .compose(&root_delta(s, t - H, t + H)?)
            .compose(&b);
        let clip_speed = (moved.translation.length() / (2.0 * H)) as f32;
        let wanted = self.state.sim.velocity.length();
        if clip_speed < 0.05 || wanted < 0.05 {
            return Ok(1.0);
        }
        Ok((wanted / clip_speed).clamp(lo, hi))
    }

    /// One frame of `dt_secs` (> 0; 0 for the first frame: decide without moving).
    pub fn step(
        &mut self,
        db: &Database,
        skeleton: &Skeleton,
        sources: &[ClipSource<'_>],
        input: &MatcherInput,
        dt_secs: f64,
    ) -> Result<MatchFrame, AnimError> {
        sources_match(db, sources)?;
        let valid = dt_secs.is_finite()
            && dt_secs >= 0.0
            && input.desired_velocity.is_finite()
            && input.desired_yaw.is_finite();
        if !valid {
            return Err(AnimError::OutOfRange {
                what: "motion matching step".into(),
                detail: format!(
                    "dt {dt_secs} s, desired velocity {:?}, yaw {}",
                    input.desired_velocity, input.desired_yaw
                ),
            });
        }
        let dt = dt_secs as f32;
        // Standing with nothing in the database that stands: hold a frame (entered below,
        // left as soon as the input moves, with a search at once).
        let stands = input.desired_velocity.length_squared() < 1e-8;
        let hold = stands && self.standing.is_some();
        if self.state.holding && !hold {
            self.state.holding = false;
            self.state.since_search_secs = f32::INFINITY;
            self.state.since_jump_secs = self.settings.min_dwell_secs;
        }
        // 1. The simulation and the playing clip move on.
        self.state
            .sim
            .update(input.desired_velocity, input.desired_yaw, dt);
        let s = &sources[self.state.source];
        let duration = s.clip.duration_secs() as f64;
        let t0 = self.state.time_secs;
        self.state.play_rate = if self.state.holding {
            0.0
        } else {
            self.play_rate(s, db, t0)?
        };
        let mut t1 = t0 + dt_secs * self.state.play_rate as f64;
        if !s.looping {
            t1 = t1.min(duration);
        }
        // The facing frame's motion: O(t0)^-1 R(t0)^-1 R(t1) O(t1).
        let offset_t1 = facing_offset(s, t1, db.settings())?;
        let delta = self
            .state
            .root_offset
            .inverse()
            .compose(&root_delta(s, t0, t1)?)
            .compose(&offset_t1);
        self.state.world_from_root = self.state.world_from_root.compose(&delta);
        self.state.time_secs = if s.looping {
            t1.rem_euclid(duration)
        } else {
            t1
        };
        let ended = !s.looping && t1 >= duration - 1e-9;
        self.state.root_offset = offset_t1;
        self.state.since_jump_secs += dt;
        self.state.since_search_secs += dt;
        self.state.wall_secs += dt_secs;
        // Standing still, the simulated point settles onto the character (at the
        // velocity spring's rate) instead of asking it to shuffle to where it stopped.
        if input.desired_velocity.length_squared() < 1e-8 {
            let k = 1.0
                - (-std::f32::consts::LN_2 * dt / self.settings.spring.velocity_half_life_secs)
                    .exp();
            let c = self.state.world_from_root.translation;
            let c = Vec2::new(c.x as f32, c.y as f32);
            self.state.sim.position += (c - self.state.sim.position) * k;
        }
        // 2. Steering, the drift from the simulation, then the optional clamp.
        if let Some(rate) = self.settings.steering_deg_per_sec {
            let facing_yaw = self.state.world_from_root.yaw_rad;
            let gap = wrap_angle(self.state.sim.yaw - facing_yaw as f32);
            let max = rate.to_radians() * dt;
            self.state.world_from_root.yaw_rad += gap.clamp(-max, max) as f64;
        }
        let sim_pos = DVec2::new(
            self.state.sim.position.x as f64,
            self.state.sim.position.y as f64,
        );
        // Adjustment: a damped step towards the simulated point, no longer than a
        // fraction of this frame's own root travel.
        if let Some(h) = self.settings.adjust_half_life_secs {
            let off = sim_pos - self.state.world_from_root.translation;
            let k = 1.0 - (-std::f64::consts::LN_2 * dt_secs / h as f64).exp();
            let mut step = off * k;
            let max = self.settings.adjust_max_ratio as f64 * delta.translation.length();
            if step.length() > max {
                step *= max / step.length();
            }
            self.state.world_from_root.translation += step;
        }
        let char_pos = self.state.world_from_root.translation;
        let off = sim_pos - char_pos;
        let trajectory_error_m = off.length() as f32;
        if let Some(clamp) = self.settings.drift_clamp_m {
            if off.length() > clamp as f64 {
                let p = char_pos + off * (clamp as f64 / off.length());
                self.state.sim.position = Vec2::new(p.x as f32, p.y as f32);
            }
        }
        // The pose this frame would show without a jump, and its velocity.
        sample(
            skeleton,
            s,
            db.settings(),
            self.state.time_secs,
            &mut self.scratch,
        )?;
        // Its velocity replaces the last one in place (no allocation per frame).
        let st = &mut self.state;
        if dt > 0.0 {
            for ((v, a), b) in st
                .input_velocity
                .iter_mut()
                .zip(&st.input)
                .zip(&self.scratch)
            {
                *v = JointVelocity::between(a, b, dt);
            }
        } else {
            st.input_velocity.fill(JointVelocity::default());
        }
        self.state.inertializer.update(dt)?;
        // 3. The search.
        let mut frame = MatchFrame {
            frame: self.state.frame,
            wall_secs: self.state.wall_secs,
            source: self.state.source,
            clip: s.model_clip,
            clip_time_secs: self.state.time_secs,
            searched: false,
            jumped: false,
            cost: None,
            group_costs: None,
            continue_cost: None,
            candidates: Vec::new(),
            dropped: Vec::new(),
            query_raw: Vec::new(),
            trajectory_error_m,
            world_from_root: self.state.world_from_root,
            sim: TrajectoryPoint {
                position: self.state.sim.position,
                yaw: self.state.sim.yaw,
            },
            since_jump_secs: self.state.since_jump_secs,
            offset_remaining: (0.0, 0.0),
            play_rate: self.state.play_rate,
            holding: self.state.holding,
        };
        if let (true, false, Some(stand)) = (hold, self.state.holding, self.standing) {
            let info = db.frames()[stand.frame];
            let t = info.time_secs as f64;
            self.jump(db, skeleton, sources, info.source as usize, t)?;
            self.state.holding = true;
            frame.holding = true;
            frame.jumped = true;
            frame.source = info.source as usize;
            frame.clip = db.clips()[info.source as usize].model_clip;
            frame.clip_time_secs = t;
        }
        let due = self.state.since_search_secs >= self.settings.search_interval_secs - 1e-6
            && self.state.since_jump_secs >= self.settings.min_dwell_secs - 1e-6;
        if (due || ended) && !self.state.holding {
            self.build_query(db, input);
            let params = SearchParams {
                query: &self.query,
                playing: Some(Playing {
                    source: self.state.source,
                    time_secs: self.state.time_secs as f32,
                }),
                current_clip_bias: self.settings.current_clip_bias,
                exclude_window_secs: self.settings.exclude_window_secs,
                require_tags: input.require_tags,
                exclude_tags: input.exclude_tags,
                top_n: self.settings.top_n.max(1),
            };
            let run = |p: &SearchParams<'_>| -> Vec<Candidate> {
                if self.settings.accelerated {
                    search_accelerated(db, p)
                } else {
                    search_brute_force(db, p)
                }
            };
            // A clip that ran out is not jumped back into (its tail would replay over
            // and over) unless nothing else qualifies.
            let mut found = Vec::new();
            // The rules the candidates came from (the kept-out list follows them).
            let mut used = params.clone();
            if ended {
                used.exclude_window_secs = f32::INFINITY;
                found = run(&used);
            }
            if found.is_empty() {
                used = params.clone();
                found = run(&params);
            }
            let current = db.nearest_frame(self.state.source, self.state.time_secs);
            // A playing frame the input's tags now rule out (a new style, an excluded
            // motion) is left at once, not continued.
            let tags = db.frames()[current].tags;
            let allowed =
                tags & input.require_tags == input.require_tags && tags & input.exclude_tags == 0;
            let continue_cost = (!ended && allowed)
                .then(|| frame_cost(db, &self.query, current, self.settings.continuing_bias));
            frame.searched = true;
            frame.continue_cost = continue_cost;
            frame.query_raw = self.query_raw.clone();
            frame.candidates = found
                .iter()
                .map(|c| {
                    let info = db.frames()[c.frame];
                    MatchCandidate {
                        frame: c.frame,
                        source: info.source as usize,
                        clip: db.clips()[info.source as usize].model_clip,
                        time_secs: info.time_secs,
                        cost: c.cost,
                        groups: group_costs(db, &self.query, c.frame),
                    }
                })
                .collect();
            if self.explain {
                frame.dropped = dropped_candidates(
                    db,
                    &used,
                    frame.candidates.first().map(|c| c.cost),
                    self.settings.top_n.max(1),
                )
                .into_iter()
                .map(|(c, reason)| {
                    let info = db.frames()[c.frame];
                    MatchDropped {
                        frame: c.frame,
                        clip: db.clips()[info.source as usize].model_clip,
                        time_secs: info.time_secs,
                        cost: c.cost,
                        reason,
                    }
                })
                .collect();
            }
            self.state.since_search_secs = 0.0;
            let best = frame.candidates.first().copied();
            let jump = match (best, continue_cost) {
                (Some(b), Some(c)) => b.cost < c,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if let (true, Some(b)) = (jump, best) {
                let t = b.time_secs as f64;
                self.jump(db, skeleton, sources, b.source, t)?;
                frame.jumped = true;
                frame.source = b.source;
                frame.clip = b.clip;
                frame.clip_time_secs = t;
                frame.cost = Some(b.cost);
                frame.group_costs = Some(b.groups);
            } else if let Some(c) = continue_cost {
                frame.cost = Some(c);
                frame.group_costs = Some(group_costs(db, &self.query, current));
            }
        }
        // 4. The pose: the input with the decaying offsets.
        std::mem::swap(&mut self.state.input, &mut self.scratch);
        let (input_pose, output) = (&self.state.input, &mut self.state.output);
        self.state.inertializer.apply(input_pose, output)?;
        if let (Some(lock), Some(locker)) = (&self.settings.foot_lock, self.locker.as_mut()) {
            let s = &sources[self.state.source];
            let (t, d) = (self.state.time_secs as f32, s.clip.duration_secs());
            let mut planted = [false; 8];
            let n = locker.legs().len().min(planted.len());
            for (i, p) in planted.iter_mut().enumerate().take(n) {
                *p = s.contacts.get(i).is_some_and(|c| c.is_down(t, d, 0.0));
            }
            locker.apply(
                skeleton,
                &self.state.world_from_root,
                &planted[..n],
                dt,
                lock,
                output,
            )?;
        }
        frame.offset_remaining = self.state.inertializer.remaining();
        frame.since_jump_secs = self.state.since_jump_secs;
        // 5. History for the past trajectory (a few seconds is plenty).
        let keep = db
            .settings()
            .past_secs
            .iter()
            .fold(0.0f32, |a, &b| a.max(b)) as f64
            + 0.5;
        self.state
            .history
            .push_back((self.state.wall_secs, self.state.world_from_root.translation));
        while self
            .state
            .history
            .front()
            .is_some_and(|(t, _)| *t < self.state.wall_secs - keep)
        {
            self.state.history.pop_front();
        }
        self.state.frame += 1;
        Ok(frame)
    }

    /// Plays database clip `source` from clip time `t` on, blending in from what plays
    /// now (inertialization: the offsets start at the difference of poses and velocities).
    fn jump(
        &mut self,
        db: &Database,
        skeleton: &Skeleton,
        sources: &[ClipSource<'_>],
        source: usize,
        t: f64,
    ) -> Result<(), AnimError> {
        let target = &sources[source];
        let mut to = vec![Transform::IDENTITY; self.scratch.len()];
        sample(skeleton, target, db.settings(), t, &mut to)?;
        let mut to_velocity = vec![JointVelocity::default(); to.len()];
        let h = (1.0 / db.settings().sample_rate_hz as f64).min(0.05);
        let mut before = vec![Transform::IDENTITY; to.len()];
        let tb = if target.looping {
            t - h
        } else {
            (t - h).max(0.0)
        };
        sample(skeleton, target, db.settings(), tb, &mut before)?;
        if t - tb > 0.0 {
            for ((v, a), b) in to_velocity.iter_mut().zip(&before).zip(&to) {
                *v = JointVelocity::between(a, b, (t - tb) as f32);
            }
        }
        self.state.inertializer.transition(
            &self.scratch,
            &self.state.input_velocity,
            &to,
            &to_velocity,
        )?;
        self.scratch.copy_from_slice(&to);
        self.state.input_velocity.copy_from_slice(&to_velocity);
        self.state.source = source;
        self.state.time_secs = t;
        self.state.root_offset = facing_offset(target, t, db.settings())?;
        self.state.since_jump_secs = 0.0;
        Ok(())
    }

    /// The trajectory of database frame `frame` placed at the character (world space):
    /// where that frame's clip would take it.
    pub fn frame_trajectory(&self, db: &Database, frame: usize) -> Vec<TrajectoryPoint> {
        let raw = db.raw_features(frame);
        let pos = db.group_range(FeatureGroup::TrajectoryPosition);
        let dir = db.group_range(FeatureGroup::TrajectoryDirection);
        let w = self.state.world_from_root;
        (0..db.settings().future_secs.len())
            .map(|k| {
                let p = w.transform_point(DVec2::new(
                    raw[pos.start + 2 * k] as f64,
                    raw[pos.start + 2 * k + 1] as f64,
                ));
                let d = (raw[dir.start + 2 * k], raw[dir.start + 2 * k + 1]);
                TrajectoryPoint {
                    position: Vec2::new(p.x as f32, p.y as f32),
                    yaw: wrap_angle(w.yaw_rad as f32 + d.0.atan2(d.1)),
                }
            })
            .collect()
    }
}
