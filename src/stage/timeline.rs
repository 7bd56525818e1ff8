//! The timeline controller: which clip plays, the playback clock, the root-motion cursor
//! and how root motion places the character. No UI or GPU code here: the egui timeline
//! panel and the window drive it, and tests drive it directly.
//!
//! Seek semantics (SPEC section 3): playing moves the clock and emits the root-motion
//! delta of exactly the played interval; scrubbing, stepping frames, jumping to the start
//! or end, switching clips and restarting are seeks — they move the playhead and reset
//! the root-motion cursor without moving the character.

use std::collections::VecDeque;

use glam::{DVec2, Mat4};

use crate::anim::{Clip, ClipRootMotion, ClipTime, GroundTransform, PlaybackClock, Player};
use crate::asset::Model;
use crate::pose::PoseRequest;

/// How root motion places the character in the viewport.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RootMotionMode {
    /// Root motion removed; the character animates on the spot at the origin.
    InPlace,
    /// The world transform integrates the per-frame deltas; seeks only reset the cursor.
    #[default]
    Accumulate,
    /// Position follows the clip's own root track within the current cycle and snaps
    /// back at each wrap (`F(t)` restricted to one cycle).
    LoopAndReset,
}

impl RootMotionMode {
    /// Every mode, in the order the timeline panel lists them (keys 1 to 3 in the window).
    pub const ALL: [RootMotionMode; 3] = [Self::InPlace, Self::Accumulate, Self::LoopAndReset];

    /// The mode's name as the timeline panel shows it.
    pub fn label(self) -> &'static str {
        match self {
            Self::InPlace => "In place",
            Self::Accumulate => "Accumulate",
            Self::LoopAndReset => "Loop and reset",
        }
    }
}

/// One played frame's root displacement along the clip's travel direction, for the
/// root-motion plot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DisplacementSample {
    /// Unwrapped clip seconds at the end of the frame.
    pub time_secs: f64,
    /// Metres moved along the travel direction this frame (negative = backwards; along +Z
    /// for in-place clips).
    pub along_m: f64,
    /// The root moved against the direction of play (backwards while playing forwards,
    /// or forwards while reversing) by more than [`BACKWARDS_EPSILON_M`]: what a loop-wrap
    /// bug looks like.
    pub against_play: bool,
}

/// Per-frame motion below this (metres) counts as standing still: rounding noise of an
/// in-place clip (1e-17 m) must not be flagged.
pub const BACKWARDS_EPSILON_M: f64 = 1e-6;

/// A clip is in place (no direction of travel) when its net travel per cycle is less than
/// this fraction of the path its root walks within the cycle. Relative, not absolute,
/// because assets come at any scale and in-place exports drift: Mixamo's in-place Walk
/// drifts 1.1 mm per cycle while its hips sway centimetres (straightness ~0.02), and a
/// real walk covers almost exactly its path (straightness ~0.95).
pub const MIN_TRAVEL_STRAIGHTNESS: f64 = 0.1;

/// Below this many metres per cycle a clip is in place whatever its sway (rounding noise).
pub const MIN_TRAVEL_PER_CYCLE_M: f64 = 1e-6;

/// The direction a root track travels per cycle (unit, ground X/Z), or `None` for an
/// in-place clip (see [`MIN_TRAVEL_STRAIGHTNESS`]).
pub fn travel_direction_of(motion: &crate::anim::RootMotion) -> Option<DVec2> {
    let d = motion.cycle_displacement().translation;
    let travel = d.length();
    if travel < MIN_TRAVEL_PER_CYCLE_M {
        return None;
    }
    let track = motion.track();
    let mut path = 0.0;
    let mut prev = track.sample(0.0).translation;
    for &t in track.times() {
        let p = track.sample(t).translation;
        path += (p - prev).length();
        prev = p;
    }
    if travel < MIN_TRAVEL_STRAIGHTNESS * path {
        return None;
    }
    d.try_normalize()
}

/// Most trail points and plot samples kept (about a minute at 60 fps).
pub const HISTORY_LEN: usize = 4096;

/// Playback state of the open model.
#[derive(Clone, Debug)]
pub struct Timeline {
    clip: Option<usize>,
    player: Player,
    root: Option<ClipRootMotion>,
    playing: bool,
    mode: RootMotionMode,
    frame_rate_hz: f64,
    /// World ground positions of the root, oldest first.
    trail: VecDeque<DVec2>,
    displacement: VecDeque<DisplacementSample>,
    /// Last error from the clock (non-finite input, out of range); playback pauses on it.
    error: Option<String>,
    /// Errors of playback and seeks so far (a caller that must report each one compares
    /// it before and after, whatever the text).
    errors: u64,
    /// Foot-contact markers detected from the feet when the clip has no file markers.
    detected_markers: Vec<crate::anim::SyncMarker>,
    /// In/out range within the cycle (seconds), and the unwrapped start of the cycle it
    /// is measured in.
    range: Option<(f64, f64)>,
    range_origin: f64,
    /// Turn round at the ends instead of looping, and the sign of the rate the user
    /// chose before (restored when ping-pong is turned off).
    ping_pong: bool,
    ping_pong_sign: f64,
    /// The ground frame root motion is measured from: `R0` of the current clip, or, for a
    /// clip without root motion, the last clip's `R0` (so switching keeps the character,
    /// the trail and the camera where they are).
    anchor: GroundTransform,
}

/// `frames` as the whole number it is within a thousandth of, if any. A frame count or
/// index is an f64 product of an f32 duration or time and a rate: 1.1 s * 30 fps is
/// 33.000000000000004, and a BVH take of 265 frames of 0.0333333 s (seven digits) comes
/// to 264.00001 at the rate read from it. The readout's last frame, Home/End and frame
/// steps all snap here, so they agree on where a cycle ends.
fn whole_frames(frames: f64) -> Option<f64> {
    let whole = frames.round();
    ((frames - whole).abs() < 1e-3).then_some(whole)
}

impl Timeline {
    /// A timeline on the model's default clip ([`Model::default_clip`]: the first that
    /// animates; the rest pose when it has none), paused at time 0.
    pub fn new(model: &Model) -> Self {
        let mut t = Self {
            clip: None,
            player: Player::new(
                PlaybackClock::new(0.0).expect("zero is a valid duration"),
                None,
            ),
            root: None,
            playing: false,
            mode: RootMotionMode::default(),
            frame_rate_hz: 30.0,
            trail: VecDeque::new(),
            displacement: VecDeque::new(),
            error: None,
            errors: 0,
            detected_markers: Vec::new(),
            range: None,
            range_origin: 0.0,
            ping_pong: false,
            ping_pong_sign: 1.0,
            anchor: GroundTransform::IDENTITY,
        };
        if let Some(clip) = model.default_clip() {
            t.select_clip(model, clip);
        }
        t
    }

    /// Index into `Model::clips` of the selected clip; `None` (the rest pose) when the
    /// model has no clip that animates.
    pub fn clip(&self) -> Option<usize> {
        self.clip
    }

    /// Switches clip: a seek to time 0 of the new clip (no root motion), keeping play
    /// state, rate, looping and mode. The character stays where it is; the trail and plot
    /// restart.
    pub fn select_clip(&mut self, model: &Model, index: usize) {
        self.select_clip_with(model, index, None);
    }

    /// [`Self::select_clip`] with the root motion given (`trace --root-joint`: the
    /// user's joint) instead of the one the clip's analysis decides.
    pub fn select_clip_with_root(
        &mut self,
        model: &Model,
        index: usize,
        root: Option<ClipRootMotion>,
    ) {
        self.select_clip_with(model, index, Some(root));
    }

    fn select_clip_with(
        &mut self,
        model: &Model,
        index: usize,
        given_root: Option<Option<ClipRootMotion>>,
    ) {
        let Some(clip) = model.clips.get(index) else {
            return;
        };
        let rate = self.player.clock.rate();
        let looping = self.player.clock.looping();
        // Keep what is displayed: the placement P = R0·W·R0⁻¹ of the old clip becomes
        // W' = R0'⁻¹·P·R0' for the new one (R0 = identity without root motion).
        let placement = self.placement();
        // The clip's analysis decides its root motion: none for an in-place clip, whose
        // root's seam drift would otherwise turn and move the character every cycle.
        let analysed = model.clip_analysis(index);
        let root = match (given_root, &analysed) {
            (Some(root), _) => Ok(root),
            (None, Ok(a)) => Ok(a.root_motion().cloned()),
            (None, Err(_)) => ClipRootMotion::for_clip(&model.skeleton, clip, None),
        };
        let (root, note) = match root {
            Ok(root) => (root, None),
            Err(e) => (
                None,
                Some(format!(
                    "clip '{}': root motion unavailable: {e}",
                    clip.name()
                )),
            ),
        };
        let duration = clip.duration_secs() as f64;
        let clock = PlaybackClock::new(duration)
            .unwrap_or_else(|_| PlaybackClock::new(0.0).expect("valid"));
        self.player = Player::new(clock, root.as_ref().map(|r| r.motion.clone()));
        let _ = self.player.clock.set_rate(rate);
        self.player.clock.set_looping(looping);
        let anchor = root
            .as_ref()
            .map(|r| r.motion.start())
            .unwrap_or(self.anchor);
        self.player
            .set_world_from_root(anchor.inverse().compose(&placement).compose(&anchor));
        self.anchor = anchor;
        self.root = root;
        self.detected_markers = match &analysed {
            Ok(a) if a.markers_detected => a.markers.clone(),
            _ => Vec::new(),
        };
        self.clip = Some(index);
        self.frame_rate_hz = key_rate_hz(clip);
        // A range belongs to the clip it was set on.
        self.range = None;
        self.range_origin = 0.0;
        self.trail.clear();
        self.displacement.clear();
        self.error = note;
        self.push_trail();
    }

    /// Markers detected from the feet for a clip without file markers (empty otherwise, or
    /// when the rig has no detectable legs).
    pub fn detected_markers(&self) -> &[crate::anim::SyncMarker] {
        &self.detected_markers
    }

    /// The playback clock: clip time (cycle and phase), rate, looping.
    pub fn clock(&self) -> &PlaybackClock {
        &self.player.clock
    }

    /// Where the model is put on the ground: `A·W·A⁻¹` with the anchor `A` (`R0` of the
    /// clip), since the in-place pose keeps the root at `A`.
    fn placement(&self) -> GroundTransform {
        self.anchor
            .compose(&self.player.world_from_root())
            .compose(&self.anchor.inverse())
    }

    /// Sets the accumulated root motion `W` (a teleport; the clock is unchanged).
    pub fn set_world_from_root(&mut self, world_from_root: GroundTransform) {
        self.player.set_world_from_root(world_from_root);
        self.trail.clear();
        self.push_trail();
    }

    /// Moves the playhead to a cycle and phase (a seek: no root motion).
    pub fn seek(&mut self, time: ClipTime) {
        self.seek_to(time);
    }

    /// The selected clip's root motion; `None` for an in-place clip, without a clip,
    /// or when it cannot be extracted.
    pub fn root_motion(&self) -> Option<&ClipRootMotion> {
        self.root.as_ref()
    }

    /// Whether playback is on (it may still not move time: see [`Self::is_advancing`]).
    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Starts or stops playback. Starting a non-looping clip that rests at its end (in the
    /// direction of play) first seeks back to the other end, like any player.
    pub fn set_playing(&mut self, playing: bool) {
        // A zero-length take is a single pose: nothing to play (the transport keeps
        // showing Play, and the Morphs panel keeps its sliders).
        self.playing = playing && self.clip.is_some() && self.player.clock.duration_secs() > 0.0;
        if self.playing {
            self.error = None;
            if !self.player.clock.looping() && self.at_clamped_end() {
                let t = self.player.clock.time();
                let d = self.player.clock.duration_secs();
                let phase = if self.player.clock.rate() < 0.0 {
                    d
                } else {
                    0.0
                };
                self.seek_to(ClipTime {
                    cycle: t.cycle,
                    phase_secs: phase,
                });
            }
        }
    }

    /// Plays on from where the playhead is, without [`Self::set_playing`]'s rewind of a
    /// clip resting at its end (a scripted run plays exactly from its seeks).
    pub fn resume(&mut self) {
        self.playing = self.clip.is_some() && self.player.clock.duration_secs() > 0.0;
    }

    /// True when playing would move time: playing, a non-zero rate and a clip with length.
    pub fn is_advancing(&self) -> bool {
        self.playing && self.player.clock.rate() != 0.0 && self.player.clock.duration_secs() > 0.0
    }

    /// Starts or stops playback (see [`Self::set_playing`]).
    pub fn toggle_play(&mut self) {
        self.set_playing(!self.playing);
    }

    /// How root motion places the character.
    pub fn mode(&self) -> RootMotionMode {
        self.mode
    }

    /// Changing mode keeps the clock; switching to Accumulate starts from the origin.
    pub fn set_mode(&mut self, mode: RootMotionMode) {
        if mode != self.mode {
            self.mode = mode;
            self.player.set_world_from_root(GroundTransform::IDENTITY);
            self.trail.clear();
            self.push_trail();
        }
    }

    /// Frames per second used for stepping and frame numbers: the clip's key rate when it
    /// has a regular one, else 30.
    pub fn frame_rate_hz(&self) -> f64 {
        self.frame_rate_hz
    }

    /// Sets the play rate (1 = real time, negative = reverse); a rate the clock refuses
    /// (not finite) is recorded as an error.
    pub fn set_rate(&mut self, rate: f64) {
        if let Err(e) = self.player.clock.set_rate(rate) {
            self.error = Some(e.to_string());
            self.errors += 1;
        }
    }

    /// Turns looping on or off; turning it off brings the playhead back into the
    /// first cycle at the same phase (a seek).
    pub fn set_looping(&mut self, looping: bool) {
        self.player.clock.set_looping(looping);
        if !looping {
            // Bring an unwrapped time back into the clip so the clamp applies.
            let phase = self.player.clock.time().phase_secs;
            self.seek_to(ClipTime {
                cycle: 0,
                phase_secs: phase,
            });
        }
    }

    /// Last error (clock rejected a time, root motion unavailable), for the status bar.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// How many playback and seek errors happened so far (see [`Self::error`] for the
    /// last one's text).
    pub fn error_count(&self) -> u64 {
        self.errors
    }

    /// Advances playback by `dt_secs` of wall time when playing; returns the root-motion
    /// delta applied (identity when paused). Any number of loop wraps per call.
    pub fn tick(&mut self, dt_secs: f64) -> GroundTransform {
        if !self.playing {
            return GroundTransform::IDENTITY;
        }
        if self.range.is_none() && !self.ping_pong {
            return self.advance_by(dt_secs);
        }
        // Play up to the edge of the in/out range (the clip's ends without one), then
        // turn round (ping-pong) or jump back to the other edge (a seek: the character
        // does not move), as many times as `dt_secs` covers.
        let d = self.player.clock.duration_secs();
        let (lo, hi) = self.range.unwrap_or((0.0, d));
        if d <= 0.0 || hi <= lo {
            return self.advance_by(dt_secs);
        }
        if !dt_secs.is_finite() {
            return self.advance_by(dt_secs);
        }
        let mut total = GroundTransform::IDENTITY;
        let mut left = dt_secs.max(0.0);
        for _ in 0..64 {
            let rate = self.player.clock.rate();
            if rate == 0.0 || left <= 0.0 || !self.playing {
                break;
            }
            let t = self.time_secs();
            let (lo_abs, hi_abs) = (self.range_origin + lo, self.range_origin + hi);
            if t < lo_abs - 1e-9 || t > hi_abs + 1e-9 {
                // Outside the range: start at its edge in the direction of play.
                self.seek_within(if rate > 0.0 { lo_abs } else { hi_abs });
                continue;
            }
            let to_edge = if rate > 0.0 {
                (hi_abs - t) / rate
            } else {
                (t - lo_abs) / -rate
            };
            if left <= to_edge {
                total = total.compose(&self.advance_by(left));
                break;
            }
            total = total.compose(&self.advance_by(to_edge.max(0.0)));
            left -= to_edge.max(0.0);
            if self.ping_pong {
                let _ = self.player.clock.set_rate(-rate);
                // A clip that does not loop stops at its clamped end: turn round instead.
                self.playing = true;
            } else if !self.player.clock.looping() {
                // Loop off: the range plays once, to its out point.
                self.playing = false;
                break;
            } else {
                let displacement = std::mem::take(&mut self.displacement);
                self.seek_within(if rate > 0.0 { lo_abs } else { hi_abs });
                // The jump back is not a played frame, but the plot keeps what played.
                self.displacement = displacement;
            }
        }
        total
    }

    /// The in/out range playback stays in (clip seconds within the cycle, in < out), if
    /// any; `None` plays the whole clip.
    pub fn range(&self) -> Option<(f64, f64)> {
        self.range
    }

    /// Sets or clears the in/out range (clamped into the clip; an empty or reversed range
    /// clears it). The range is measured in the cycle the playhead is in.
    pub fn set_range(&mut self, range: Option<(f64, f64)>) {
        let d = self.player.clock.duration_secs();
        self.range = range
            .map(|(a, b)| (a.clamp(0.0, d), b.clamp(0.0, d)))
            .filter(|(a, b)| b - a > 1e-6);
        self.range_origin = self.time_secs() - self.phase_secs();
    }

    /// Sets the in point at the playhead (the out point moves to the clip's end when it
    /// would come before it).
    pub fn set_in_at_playhead(&mut self) {
        let d = self.player.clock.duration_secs();
        let at = self.phase_secs();
        let out = self.range.map_or(d, |r| r.1);
        self.set_range(Some((at, if out > at { out } else { d })));
    }

    /// Sets the out point at the playhead (the in point moves to 0 when it would come
    /// after it).
    pub fn set_out_at_playhead(&mut self) {
        let at = self.phase_secs();
        let at = if at <= 0.0 && self.player.clock.time().cycle != 0 {
            self.player.clock.duration_secs()
        } else {
            at
        };
        let start = self.range.map_or(0.0, |r| r.0);
        self.set_range(Some((if start < at { start } else { 0.0 }, at)));
    }

    /// Ping-pong: at each end of the range (or of the clip) playback turns round instead
    /// of looping.
    pub fn ping_pong(&self) -> bool {
        self.ping_pong
    }

    /// Turns ping-pong on or off; turning it off restores the direction the user
    /// chose (see [`Self::chosen_rate`]).
    pub fn set_ping_pong(&mut self, on: bool) {
        let rate = self.player.clock.rate();
        if on && !self.ping_pong {
            self.ping_pong_sign = if rate < 0.0 { -1.0 } else { 1.0 };
        } else if !on && self.ping_pong {
            // Back to the direction the user chose, not the one the last turn left.
            let _ = self.player.clock.set_rate(rate.abs() * self.ping_pong_sign);
        }
        self.ping_pong = on;
        self.range_origin = self.time_secs() - self.phase_secs();
    }

    /// The play rate the user chose: with ping-pong on, the clock's rate flips sign at
    /// every turn; this is the rate with the sign it had when ping-pong was turned on.
    pub fn chosen_rate(&self) -> f64 {
        let rate = self.player.clock.rate();
        if self.ping_pong {
            rate.abs() * self.ping_pong_sign
        } else {
            rate
        }
    }

    /// Sets the frame rate stepping, the readout and the ruler use (frames per second,
    /// 1..=1000); the clip's own key rate is restored when another clip is selected.
    pub fn set_frame_rate_hz(&mut self, fps: f64) {
        if fps.is_finite() {
            self.frame_rate_hz = fps.clamp(1.0, 1000.0);
        }
    }

    fn advance_by(&mut self, dt_secs: f64) -> GroundTransform {
        let cycle_before = self.player.clock.time().cycle;
        match self.player.advance(dt_secs) {
            Ok(delta) => {
                if self.mode == RootMotionMode::LoopAndReset
                    && self.player.clock.time().cycle != cycle_before
                {
                    // The character snaps back at each wrap: start a new trail segment
                    // instead of drawing the jump.
                    self.trail.clear();
                }
                let direction = self.travel_direction();
                let along = direction.unwrap_or(DVec2::Y).dot(delta.translation);
                let sign = self.player.clock.rate().signum();
                self.displacement.push_back(DisplacementSample {
                    time_secs: self.time_secs(),
                    along_m: along,
                    // In-place clips sway both ways; only a travelling clip has a
                    // "backwards".
                    against_play: direction.is_some() && along * sign < -BACKWARDS_EPSILON_M,
                });
                if self.displacement.len() > HISTORY_LEN {
                    self.displacement.pop_front();
                }
                if !self.player.clock.looping() && self.at_clamped_end() {
                    self.playing = false;
                }
                self.push_trail();
                delta
            }
            Err(e) => {
                self.playing = false;
                self.error = Some(e.to_string());
                self.errors += 1;
                GroundTransform::IDENTITY
            }
        }
    }

    fn at_clamped_end(&self) -> bool {
        let t = self.player.clock.time();
        let d = self.player.clock.duration_secs();
        let rate = self.player.clock.rate();
        (rate > 0.0 && t.phase_secs >= d) || (rate < 0.0 && t.phase_secs <= 0.0)
    }

    /// Scrubs the playhead to unwrapped seconds `t` (a seek: no root motion). An in/out
    /// range then applies to the cycle the playhead lands in.
    pub fn seek_secs(&mut self, t: f64) {
        self.seek_within(t);
        self.range_origin = self.time_secs() - self.phase_secs();
    }

    /// A seek that keeps the range where it is (the jump back inside a range).
    fn seek_within(&mut self, t: f64) {
        match self.player.seek_secs(t) {
            Ok(()) => self.displacement.clear(),
            Err(e) => {
                self.error = Some(e.to_string());
                self.errors += 1;
            }
        }
    }

    fn seek_to(&mut self, time: ClipTime) {
        match self.player.clock.seek(time) {
            // The plot shows played frames; a seek starts a new run.
            Ok(()) => self.displacement.clear(),
            Err(e) => {
                self.error = Some(e.to_string());
                self.errors += 1;
            }
        }
        self.range_origin = self.time_secs() - self.phase_secs();
    }

    /// Steps `frames` frames (negative = back) at the frame rate; a seek.
    pub fn step_frames(&mut self, frames: i64) {
        let d = self.player.clock.duration_secs();
        if d <= 0.0 {
            return;
        }
        // Land on whole frames: from frame 15.3, forward goes to 16 and back to 15.
        let current = self.frame_index();
        let frame = if frames >= 0 {
            current.floor() + frames as f64
        } else {
            current.ceil() + frames as f64
        };
        let t = self.player.clock.time();
        let fps = self.frame_rate_hz;
        if !self.player.clock.looping() {
            self.seek_to(ClipTime {
                cycle: t.cycle,
                phase_secs: (frame / fps).clamp(0.0, d),
            });
            return;
        }
        // Wrap in whole cycles first, so a clip of a whole number of frames (1.1 s at
        // 30 fps = 33 frames, not 33.000000000000004) steps 31, 32, 0, 1 exactly.
        let per_cycle = whole_frames(d * fps).unwrap_or(d * fps);
        let wraps = (frame / per_cycle).floor();
        let frame_in_cycle = frame - wraps * per_cycle;
        let phase = (frame_in_cycle / fps).min(d);
        let time = ClipTime::from_secs(phase, d).unwrap_or(ClipTime::ZERO);
        self.seek_to(ClipTime {
            cycle: t.cycle + wraps as i64 + time.cycle,
            phase_secs: time.phase_secs,
        });
    }

    /// Jumps to the start of the current cycle (a seek).
    pub fn jump_to_start(&mut self) {
        let cycle = self.player.clock.time().cycle;
        self.seek_to(ClipTime {
            cycle,
            phase_secs: 0.0,
        });
    }

    /// The last frame End reaches, at [`Self::frame_rate_hz`]: a looping clip's is the
    /// last whole frame before the wrap (the frame at the duration is frame 0 again), a
    /// clip that does not loop ends on the frame its duration falls in.
    pub fn last_frame(&self) -> f64 {
        let d = self.player.clock.duration_secs();
        let frames = d * self.frame_rate_hz;
        let last = match (self.player.clock.looping(), whole_frames(frames)) {
            (true, Some(whole)) => whole - 1.0,
            (false, Some(whole)) => whole,
            (_, None) => frames.floor(),
        };
        last.max(0.0)
    }

    /// Jumps to the last frame of the current cycle (a seek): the end itself for a
    /// non-looping clip, else the frame [`Self::last_frame`] gives.
    pub fn jump_to_end(&mut self) {
        let t = self.player.clock.time();
        let d = self.player.clock.duration_secs();
        let phase = if self.player.clock.looping() {
            (self.last_frame() / self.frame_rate_hz).max(0.0)
        } else {
            d
        };
        self.seek_to(ClipTime {
            cycle: t.cycle,
            phase_secs: phase,
        });
    }

    /// Puts the character back at the origin and the playhead at 0 (a seek).
    pub fn restart(&mut self) {
        self.seek_to(ClipTime::ZERO);
        self.player.set_world_from_root(GroundTransform::IDENTITY);
        self.trail.clear();
        self.displacement.clear();
        self.push_trail();
    }

    /// Clip seconds within the current cycle.
    pub fn phase_secs(&self) -> f64 {
        self.player.clock.time().phase_secs
    }

    /// Unwrapped seconds (cycle * duration + phase).
    pub fn time_secs(&self) -> f64 {
        self.player
            .clock
            .time()
            .to_secs(self.player.clock.duration_secs())
    }

    /// Frame number within the cycle at the frame rate (fractional between frames).
    pub fn frame_index(&self) -> f64 {
        let f = self.phase_secs() * self.frame_rate_hz;
        whole_frames(f).unwrap_or(f)
    }

    /// Accumulated root placement (meaningful in Accumulate mode).
    pub fn world_from_root(&self) -> GroundTransform {
        self.player.world_from_root()
    }

    /// Root positions on the ground, oldest first (the viewport trail).
    pub fn trail(&self) -> impl ExactSizeIterator<Item = DVec2> + '_ {
        self.trail.iter().copied()
    }

    /// Per-frame displacement along the travel direction (the root-motion plot).
    pub fn displacement(&self) -> impl ExactSizeIterator<Item = DisplacementSample> + '_ {
        self.displacement.iter().copied()
    }

    /// The clip's direction of travel on the ground (unit), `None` for an in-place clip
    /// (whose per-cycle displacement is only rounding or sway, no direction).
    pub fn travel_direction(&self) -> Option<DVec2> {
        self.root
            .as_ref()
            .and_then(|r| travel_direction_of(&r.motion))
    }

    /// Where the displayed character's root is on the ground now (world space).
    pub fn root_world_position(&self) -> DVec2 {
        match (self.mode, &self.root) {
            (RootMotionMode::Accumulate, _) => {
                self.anchor
                    .compose(&self.player.world_from_root())
                    .translation
            }
            (RootMotionMode::LoopAndReset, Some(root)) => {
                root.motion.sample(self.phase_secs()).translation
            }
            _ => self.anchor.translation,
        }
    }

    fn push_trail(&mut self) {
        if self.mode == RootMotionMode::InPlace {
            return;
        }
        let p = self.root_world_position();
        if self.trail.back() != Some(&p) {
            self.trail.push_back(p);
            if self.trail.len() > HISTORY_LEN {
                self.trail.pop_front();
            }
        }
    }

    /// The pose to evaluate this frame.
    pub fn pose_request(&self) -> PoseRequest<'_> {
        let remove = match self.mode {
            RootMotionMode::InPlace | RootMotionMode::Accumulate => self.root.as_ref(),
            RootMotionMode::LoopAndReset => None,
        };
        PoseRequest {
            clip: self.clip,
            time_secs: self.phase_secs() as f32,
            remove_root_motion: remove,
            model_from_root: self.model_from_root(),
        }
    }

    /// The pose `offset_secs` of clip time away from the playhead (an onion-skin ghost):
    /// its phase, placed where playback would put the character then (in Accumulate
    /// mode the root motion of the offset is composed onto today's placement). `None`
    /// without a clip or for a time the clock cannot represent.
    pub fn ghost_request(&self, offset_secs: f64) -> Option<PoseRequest<'_>> {
        let clip = self.clip?;
        let d = self.player.clock.duration_secs();
        let now = self.time_secs();
        let at = now + offset_secs;
        let time = ClipTime::from_secs(at, d).ok()?;
        let mut request = self.pose_request();
        request.clip = Some(clip);
        request.time_secs = time.phase_secs as f32;
        if let (RootMotionMode::Accumulate, Some(root)) = (self.mode, &self.root) {
            let delta = root.motion.delta_secs(now, at).ok()?;
            let world = self.player.world_from_root().compose(&delta);
            request.model_from_root = self
                .anchor
                .compose(&world)
                .compose(&self.anchor.inverse())
                .to_mat4();
        }
        Some(request)
    }

    /// Placement of the skeleton's roots: in Accumulate mode, the accumulated root motion
    /// conjugated by the track start (`R0 · W · R0⁻¹`, since the in-place pose keeps the
    /// root at `R0`); identity otherwise.
    pub fn model_from_root(&self) -> Mat4 {
        match self.mode {
            RootMotionMode::Accumulate => self.placement().to_mat4(),
            _ => Mat4::IDENTITY,
        }
    }
}

/// The clip's key rate in Hz: the source's frame rate when it has one (BVH), else the
/// most common key interval's when the keys are regular (1..=240 Hz), else 30.
pub fn key_rate_hz(clip: &Clip) -> f64 {
    if let Some(hz) = clip.frame_rate_hz() {
        return hz;
    }
    let mut intervals: Vec<f32> = Vec::new();
    for t in clip.tracks() {
        let times = t
            .rotation
            .as_ref()
            .map(|k| k.times())
            .or(t.translation.as_ref().map(|k| k.times()))
            .or(t.scale.as_ref().map(|k| k.times()));
        if let Some(times) = times {
            intervals.extend(times.windows(2).map(|w| w[1] - w[0]));
        }
    }
    if intervals.is_empty() {
        return 30.0;
    }
    intervals.sort_by(f32::total_cmp);
    let median = intervals[intervals.len() / 2] as f64;
    let hz = (1.0 / median).round();
    if (1.0..=240.0).contains(&hz) {
        hz
    } else {
        30.0
    }
}
