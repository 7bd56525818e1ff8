//! A motion-matching session: the clip set, its database, the live matcher and the
//! recording of every frame played, which can be paused and scrubbed. The recording is
//! the inputs per frame plus snapshots of the matcher every [`SNAPSHOT_EVERY`] frames;
//! showing a recorded frame restores the snapshot before it and replays the inputs, so
//! it is exactly what was shown live (the matcher is deterministic). No UI code.

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::Vec2;

use crate::anim::motion_matching::{
    Database, FootLocker, MatchFrame, Matcher, MatcherInput, TrajectoryPoint,
};
use crate::anim::Transform;
use crate::asset::Model;
use crate::StageError;

use super::cache::{load_or_build, load_or_build_by_content, CacheOutcome};

/// Where a session's database is cached.
#[derive(Clone, Copy)]
enum CacheBy<'a> {
    /// Under the name of the file the model came from.
    File(&'a Path),
    /// Under the model's content key (a model made in memory).
    Content,
    Nothing,
}
use super::{ClipSet, MatchingDef};

/// Frames between replay snapshots.
pub const SNAPSHOT_EVERY: usize = 60;
/// Bytes the recording may hold (frames, inputs and replay snapshots, by their own
/// accounting, [`MatchFrame::retained_bytes`] and [`Matcher::retained_bytes`]): 8 MiB.
/// On the demo's set a frame costs about 0.42 kB with its share of a snapshot (measured in
/// tests/motion_matching.rs), so this is about 5.5 minutes at 60 fps; a bigger library (longer queries, more joints) keeps fewer
/// frames in the same memory. Past it, the oldest half is dropped at a snapshot boundary,
/// so memory stays flat however long a session plays (issue 17).
pub const MAX_RECORDING_BYTES: usize = 8 << 20;

/// Movement keys held this frame (WASD or arrows; Shift runs; strafing keeps facing the
/// camera's direction instead of turning towards the movement).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyInput {
    /// Move away from the camera (W or Up).
    pub forward: bool,
    /// Move towards the camera (S or Down).
    pub back: bool,
    /// Move to the camera's left (A or Left).
    pub left: bool,
    /// Move to the camera's right (D or Right).
    pub right: bool,
    /// Run speed instead of walk speed (Shift).
    pub run: bool,
    /// Keep facing the camera's direction while moving (Ctrl in the window).
    pub strafe: bool,
}

impl KeyInput {
    /// The desired motion: directions relative to `camera_yaw` (the yaw the camera looks
    /// along, world radians; forward = away from the camera), at the walk or run speed.
    /// With no direction held the character stands, keeping `current_yaw`.
    pub fn to_input(
        &self,
        camera_yaw: f32,
        walk_mps: f32,
        run_mps: f32,
        current_yaw: f32,
    ) -> MatcherInput {
        let f = self.forward as i32 - self.back as i32;
        let l = self.left as i32 - self.right as i32;
        if f == 0 && l == 0 {
            return MatcherInput {
                desired_velocity: Vec2::ZERO,
                desired_yaw: current_yaw,
                ..Default::default()
            };
        }
        let forward = Vec2::new(camera_yaw.sin(), camera_yaw.cos());
        let left = Vec2::new(camera_yaw.cos(), -camera_yaw.sin());
        let dir = (forward * f as f32 + left * l as f32).normalize();
        let speed = if self.run { run_mps } else { walk_mps };
        MatcherInput {
            desired_velocity: dir * speed,
            desired_yaw: if self.strafe {
                camera_yaw
            } else {
                dir.x.atan2(dir.y)
            },
            ..Default::default()
        }
    }
}

/// The session.
pub struct MatchingSession {
    /// The settings the session plays with.
    pub def: MatchingDef,
    /// The clip set the database was built from.
    pub set: ClipSet,
    /// The feature database of `set`.
    pub db: Database,
    /// Whether the database was read from its cache, written to it, or not cached.
    pub cache: CacheOutcome,
    /// Seconds the database took to build or load.
    pub load_secs: f64,
    /// Seconds per frame of the simulation (fixed, so a recording replays exactly).
    pub dt_secs: f64,
    /// Keyboard walk speed, m/s (see [`MatchingDef::walk_speed_mps`]).
    pub walk_speed_mps: f32,
    /// Keyboard run speed, m/s (see [`MatchingDef::run_speed_mps`]).
    pub run_speed_mps: f32,
    /// The style jumps land on (see [`MatchingDef::style`]), `None` = any.
    pub style: Option<String>,
    /// `style`'s bit over the database's tags (0 = any), added to every input's
    /// required tags.
    style_mask: u32,
    /// The file whose cache is used (in the user's cache folder; `None`: no cache, or
    /// cached by content).
    file: Option<PathBuf>,
    /// Cached under the model's content key ([`Self::new_cached_by_content`]).
    by_content: bool,
    live: Matcher,
    inputs: Vec<MatcherInput>,
    frames: Vec<MatchFrame>,
    /// `snapshots[i]`: the matcher before recorded frame `i * SNAPSHOT_EVERY`.
    snapshots: Vec<Matcher>,
    /// A recorded frame being shown (its index in `frames`) and the matcher after it.
    view: Option<(usize, Matcher)>,
    /// What `frames`, `inputs` and `snapshots` hold, in bytes (see
    /// [`MAX_RECORDING_BYTES`]).
    recorded_bytes: usize,
    /// The cap on `recorded_bytes` ([`MAX_RECORDING_BYTES`] unless a test lowers it).
    recording_cap_bytes: usize,
    /// Searches record the frames they kept out (the window's debugger).
    explain: bool,
}

impl MatchingSession {
    /// Builds (or loads from `file`'s cache) the database of `model` and stands the
    /// character in its idle clip (else the set's first) at the origin.
    pub fn new(model: &Model, def: MatchingDef, file: Option<&Path>) -> Result<Self, StageError> {
        Self::with_cache(model, def, file.map_or(CacheBy::Nothing, CacheBy::File))
    }

    /// [`Self::new`] for a model made in memory (a library on a character), its database
    /// cached under its content key in the user's cache folder.
    pub fn new_cached_by_content(model: &Model, def: MatchingDef) -> Result<Self, StageError> {
        Self::with_cache(model, def, CacheBy::Content)
    }

    fn with_cache(
        model: &Model,
        def: MatchingDef,
        cache_by: CacheBy<'_>,
    ) -> Result<Self, StageError> {
        let set = ClipSet::new(model, &def)?;
        let started = Instant::now();
        let build = || {
            Database::build(
                &model.skeleton,
                &set.joints,
                &set.sources(model),
                &set.settings,
            )
            .map_err(StageError::MatchingDatabase)
        };
        let (db, cache) = match cache_by {
            CacheBy::File(f) => load_or_build(f, model, &set, build)?,
            CacheBy::Content => load_or_build_by_content(model, &set, build)?,
            CacheBy::Nothing => (
                build()?,
                CacheOutcome::Skipped("built-in model: no file to cache".into()),
            ),
        };
        let load_secs = started.elapsed().as_secs_f64();
        let (style, style_mask) = resolve_style(&db, def.style.as_deref())?;
        let (walk_speed_mps, run_speed_mps) = keyboard_speeds(model, &set, &def, style.as_deref());
        let start = set.find(model, "idle").unwrap_or(0);
        let live = Matcher::new(
            &db,
            &model.skeleton,
            &set.sources(model),
            def.matcher_settings(set.unit_scale),
            start,
            0.0,
        )
        .map_err(|e| StageError::from(e).in_matching())?
        .with_foot_lock(foot_locker(model, &set)?);
        Ok(Self {
            def,
            set,
            db,
            cache,
            load_secs,
            dt_secs: 1.0 / 60.0,
            walk_speed_mps,
            run_speed_mps,
            style,
            style_mask,
            file: match cache_by {
                CacheBy::File(f) => Some(f.to_path_buf()),
                _ => None,
            },
            by_content: matches!(cache_by, CacheBy::Content),
            recorded_bytes: live.retained_bytes(),
            recording_cap_bytes: MAX_RECORDING_BYTES,
            snapshots: vec![live.clone()],
            live,
            inputs: Vec::new(),
            frames: Vec::new(),
            view: None,
            explain: false,
        })
    }

    /// Whether searches record the frames they kept out and why
    /// ([`crate::anim::motion_matching::MatchFrame::dropped`]): one more pass over the
    /// database per search, for the debugger.
    pub fn set_explain(&mut self, on: bool) {
        self.explain = on;
        self.live.set_explain(on);
    }

    /// Plays one live frame (the first decides without moving); stops showing a recorded
    /// frame.
    pub fn step(&mut self, model: &Model, input: &MatcherInput) -> Result<&MatchFrame, StageError> {
        self.view = None;
        if self.recorded_bytes >= self.recording_cap_bytes && self.snapshots.len() >= 2 {
            // Drop the oldest half, at a snapshot boundary.
            let blocks = self.snapshots.len() / 2;
            let n = (blocks * SNAPSHOT_EVERY).min(self.frames.len());
            self.frames.drain(..n);
            self.inputs.drain(..n);
            self.snapshots.drain(..blocks);
            self.recorded_bytes = self.frames.iter().map(frame_bytes).sum::<usize>()
                + self
                    .snapshots
                    .iter()
                    .map(Matcher::retained_bytes)
                    .sum::<usize>();
        }
        if self.frames.len().is_multiple_of(SNAPSHOT_EVERY)
            && self.frames.len() / SNAPSHOT_EVERY == self.snapshots.len()
        {
            self.recorded_bytes += self.live.retained_bytes();
            self.snapshots.push(self.live.clone());
        }
        let dt = if self.live.state().frame == 0 {
            0.0
        } else {
            self.dt_secs
        };
        // The style narrows every input's jump targets (recorded so replay is exact).
        let input = &MatcherInput {
            require_tags: input.require_tags | self.style_mask,
            ..*input
        };
        let frame = self
            .live
            .step(
                &self.db,
                &model.skeleton,
                &self.set.sources(model),
                input,
                dt,
            )
            .map_err(|e| StageError::MatchingFrame {
                frame: self.live.state().frame,
                source: e,
            })?;
        self.recorded_bytes += frame_bytes(&frame);
        self.inputs.push(*input);
        self.frames.push(frame);
        Ok(self.frames.last().expect("just pushed"))
    }

    /// Bytes the recording holds now (at most about [`MAX_RECORDING_BYTES`]).
    pub fn recorded_bytes(&self) -> usize {
        self.recorded_bytes
    }

    /// Lowers (or raises) the recording's byte cap, for tests and tools; at least one
    /// snapshot block is always kept.
    pub fn set_recording_cap_bytes(&mut self, bytes: usize) {
        self.recording_cap_bytes = bytes;
    }

    /// Shows recorded frame `index` (0 = the oldest kept), replayed from its snapshot.
    pub fn seek(&mut self, model: &Model, index: usize) -> Result<(), StageError> {
        if self.frames.is_empty() {
            return Ok(());
        }
        let index = index.min(self.frames.len() - 1);
        if index + 1 == self.frames.len() {
            self.view = None;
            return Ok(());
        }
        let block = index / SNAPSHOT_EVERY;
        let mut m = self.snapshots[block].clone();
        let sources = self.set.sources(model);
        for i in block * SNAPSHOT_EVERY..=index {
            let dt = if m.state().frame == 0 {
                0.0
            } else {
                self.dt_secs
            };
            m.step(&self.db, &model.skeleton, &sources, &self.inputs[i], dt)
                .map_err(|e| StageError::MatchingReplay {
                    frame: i,
                    source: e,
                })?;
        }
        self.view = Some((index, m));
        Ok(())
    }

    /// The recorded frame shown (`None` = live, showing the newest).
    pub fn viewed(&self) -> Option<usize> {
        self.view.as_ref().map(|(i, _)| *i)
    }

    fn shown(&self) -> &Matcher {
        self.view.as_ref().map(|(_, m)| m).unwrap_or(&self.live)
    }

    /// The frame shown: the viewed one, else the newest.
    pub fn current(&self) -> Option<&MatchFrame> {
        match &self.view {
            Some((i, _)) => self.frames.get(*i),
            None => self.frames.last(),
        }
    }

    /// The last searched frame at or before the shown one (what the debugger lists).
    pub fn last_search(&self) -> Option<&MatchFrame> {
        let end = self.viewed().map(|i| i + 1).unwrap_or(self.frames.len());
        self.frames[..end].iter().rev().find(|f| f.searched)
    }

    /// Every recorded frame kept, oldest first (index 0 = the oldest kept).
    pub fn frames(&self) -> &[MatchFrame] {
        &self.frames
    }

    /// The input of recorded frame `index` (style tags included); `None` past the recording.
    pub fn input_at(&self, index: usize) -> Option<&MatcherInput> {
        self.inputs.get(index)
    }

    /// The pose shown (local, root motion removed) and where its root is.
    pub fn pose(&self) -> &[Transform] {
        self.shown().pose()
    }

    /// Where the shown frame's root stands on the ground (world space).
    pub fn world_from_root(&self) -> crate::anim::GroundTransform {
        self.shown().state().world_from_root
    }

    /// The matcher of the shown frame (the replayed one while scrubbing).
    pub fn matcher(&self) -> &Matcher {
        self.shown()
    }

    /// The live matcher (the newest frame), whatever is shown.
    pub fn live(&self) -> &Matcher {
        &self.live
    }

    /// The desired trajectory of the shown frame (world space).
    pub fn desired_trajectory(&self) -> Vec<TrajectoryPoint> {
        let i = self.viewed().unwrap_or(self.frames.len().saturating_sub(1));
        let input = self.inputs.get(i).copied().unwrap_or_default();
        self.shown().desired_trajectory(&self.db, &input)
    }

    /// Changes the settings. Weights renormalise the database and runtime settings
    /// apply at once; either way the recording starts over from the shown pose (a replay
    /// must use the settings it was played with). A change of what the database holds
    /// (the clips, tags, sample rate, trajectory times, end margin) rebuilds it and
    /// stands the character at the origin again. A refused setting changes nothing.
    pub fn apply_def(&mut self, model: &Model, def: MatchingDef) -> Result<(), StageError> {
        let settings = def.matcher_settings(self.set.unit_scale);
        settings
            .validate()
            .map_err(|e| StageError::from(e).in_matching())?;
        let (a, b) = (&def, &self.def);
        let structural = a.clips != b.clips
            || a.non_looping != b.non_looping
            || a.tags != b.tags
            || a.auto_tags != b.auto_tags
            || a.sample_rate_hz != b.sample_rate_hz
            || a.future_secs != b.future_secs
            || a.past_secs != b.past_secs
            || a.end_margin_secs != b.end_margin_secs
            || a.root_smoothing_secs != b.root_smoothing_secs;
        if structural {
            let (dt, explain) = (self.dt_secs, self.explain);
            *self = match (self.by_content, self.file.clone()) {
                (true, _) => MatchingSession::new_cached_by_content(model, def)?,
                (false, file) => MatchingSession::new(model, def, file.as_deref())?,
            };
            self.dt_secs = dt;
            self.set_explain(explain);
            return Ok(());
        }
        if def.weights != self.def.weights {
            self.db
                .set_weights(def.weights.to_array())
                .map_err(|e| StageError::from(e).in_matching())?;
        }
        let (style, style_mask) = resolve_style(&self.db, def.style.as_deref())?;
        let mut live = self.shown().clone();
        live.set_settings(settings)
            .map_err(|e| StageError::from(e).in_matching())?;
        (self.walk_speed_mps, self.run_speed_mps) =
            keyboard_speeds(model, &self.set, &def, style.as_deref());
        (self.style, self.style_mask) = (style, style_mask);
        self.def = def;
        self.restart_recording(live);
        Ok(())
    }

    /// Back to standing at the origin with an empty recording.
    pub fn reset(&mut self, model: &Model) -> Result<(), StageError> {
        let start = self.set.find(model, "idle").unwrap_or(0);
        let live = Matcher::new(
            &self.db,
            &model.skeleton,
            &self.set.sources(model),
            self.def.matcher_settings(self.set.unit_scale),
            start,
            0.0,
        )
        .map_err(|e| StageError::from(e).in_matching())?
        .with_foot_lock(foot_locker(model, &self.set)?);
        self.restart_recording(live);
        Ok(())
    }

    fn restart_recording(&mut self, mut live: Matcher) {
        live.set_explain(self.explain);
        self.recorded_bytes = live.retained_bytes();
        self.snapshots = vec![live.clone()];
        self.live = live;
        self.inputs.clear();
        self.frames.clear();
        self.view = None;
    }
}

/// Foot locking's legs: the set's, with the hips the features use.
fn foot_locker(model: &Model, set: &ClipSet) -> Result<FootLocker, StageError> {
    FootLocker::new(&model.skeleton, set.legs.clone(), set.joints.hips)
        .map_err(|e| StageError::from(e).in_matching())
}

/// The style of `requested` (see [`MatchingDef::style`]) and its bit over the database's
/// tags; an unknown style is an error listing the tags.
fn resolve_style(
    db: &Database,
    requested: Option<&str>,
) -> Result<(Option<String>, u32), StageError> {
    let tags = db.tag_names();
    let bit = |t: &str| tags.iter().position(|n| n == t).map(|i| 1u32 << i);
    match requested {
        None => Ok(match bit("normal") {
            Some(b) => (Some("normal".to_string()), b),
            None => (None, 0),
        }),
        Some("any") => Ok((None, 0)),
        Some(t) => match bit(t) {
            Some(b) => Ok((Some(t.to_string()), b)),
            None => Err(StageError::MatchingUnknownStyle {
                style: t.to_string(),
                tags: tags.to_vec(),
            }),
        },
    }
}

/// The keyboard's walk and run speeds (see [`MatchingDef::walk_speed_mps`]).
fn keyboard_speeds(
    model: &Model,
    set: &ClipSet,
    def: &MatchingDef,
    style: Option<&str>,
) -> (f32, f32) {
    let speed_of = |word: &str, fallback: f32| {
        let mut straight: Vec<f32> = set
            .clips
            .iter()
            .filter(|c| {
                let tags = super::name_tags(model.clips[c.model_clip].name());
                let has = |t: &str| tags.iter().any(|x| x == t);
                has(word)
                    && style.is_none_or(has)
                    && !["turn", "start", "stop", "strafe"].iter().any(|t| has(t))
            })
            .map(|c| c.speed_mps)
            .filter(|s| *s > 0.0)
            .collect();
        if !straight.is_empty() {
            straight.sort_by(f32::total_cmp);
            return straight[straight.len() / 2];
        }
        set.find(model, word)
            .map(|i| set.clips[i].speed_mps)
            .filter(|s| *s > 0.0)
            .unwrap_or(fallback)
    };
    (
        def.walk_speed_mps.unwrap_or_else(|| speed_of("walk", 1.3)),
        def.run_speed_mps.unwrap_or_else(|| speed_of("run", 3.5)),
    )
}

/// What one recorded frame costs: the frame and its input.
fn frame_bytes(frame: &MatchFrame) -> usize {
    frame.retained_bytes() + std::mem::size_of::<MatcherInput>()
}
