//! One clip instance of a pose graph: its own unwrapped clock, root motion with its own
//! consumed-up-to cursor (the clock), sampling cache and local-pose buffer.

use crate::anim::soa::{transforms_from_soa, SoaTransform};
use crate::anim::{
    AnimError, Clip, ClipRootMotion, ClipTime, GroundTransform, Interval, PlaybackClock,
    SamplingCache, Skeleton, SoaSamplingJob, SyncMarker, Transform,
};
use crate::GraphError;

/// A clip playing inside a graph. Its clock runs at rate 1: the graph passes scaled clip
/// seconds, so sync can set each input's rate per frame.
#[derive(Clone, Debug)]
pub struct ClipPlayer {
    /// Index of the played clip in the model's clips.
    pub clip: usize,
    /// Unwrapped clip time (whole cycles plus seconds into the cycle), advanced by the graph.
    pub clock: PlaybackClock,
    /// `None` for a clip without root motion (or zero length).
    pub root: Option<ClipRootMotion>,
    /// File markers, or ones detected from the feet (`markers_detected`), sorted by time
    /// (stable: equal times keep their order).
    pub markers: Vec<SyncMarker>,
    /// The markers marker sync aligns on: the foot-down markers when the clip has any
    /// (foot-up times differ in order between gaits, e.g. a walk's left-up comes after the
    /// right-down while a run's comes before it, which would drive a follower through
    /// several cycles per leader cycle), else all markers.
    pub sync_markers: Vec<SyncMarker>,
    /// True when `markers` were detected from the feet instead of read from the file.
    pub markers_detected: bool,
    /// A layer's clip: no root motion contribution, sampled with its root as authored.
    pub is_layer: bool,
    /// Phase offset as a fraction of a cycle (kept by cycle sync; added after marker sync).
    pub offset: f64,
    /// Effective weight this frame (product of the weights on its path), 0 = not sampled.
    pub weight: f32,
    /// Root-motion delta of this frame's played interval (identity on a seek).
    pub delta: GroundTransform,
    /// The interval played this frame (for events); `None` after a seek.
    pub interval: Option<Interval>,
    /// Local pose (root motion removed) sampled this frame when `weight > 0`, in blocks of
    /// four joints: the graph blends in that layout.
    pub pose_soa: Vec<SoaTransform>,
    /// The same pose per joint, unpacked for a layer's clip only (the layer jobs work
    /// per joint); other players leave it at the rest pose.
    pub pose: Vec<Transform>,
    /// Keep the clip's root motion in `pose` (a timeline preview in *Loop and reset*).
    pub keep_root_motion: bool,
    /// Moves this clip's start onto the graph's first clip's start (ground transform,
    /// model space) when they were captured facing different ways (motion capture takes):
    /// applied to the root-motion-removed pose and, as a turn, to the deltas. Identity for
    /// clips that start alike.
    pub align: GroundTransform,
    cache: SamplingCache,
    /// The markers `interval` crossed when it stayed within one cycle going forward (nearly
    /// every frame), as a range of `markers`, with the interval it was found for.
    crossed: Option<(Interval, u32, u32)>,
    /// How many markers are at or before `phase_secs` (`(phase_secs, count)`) at the end of
    /// the last interval: where the next frame's search starts.
    markers_before: (f64, usize),
}

impl ClipPlayer {
    /// A player of `clips[clip]` with the root motion it plays (`None` for an in-place
    /// clip: see [`crate::anim::analysis::ClipAnalysis::root_motion`]) and its markers
    /// (and whether they were detected).
    pub fn new(
        skeleton: &Skeleton,
        clips: &[Clip],
        clip: usize,
        root: Option<ClipRootMotion>,
        markers: (Vec<SyncMarker>, bool),
    ) -> Result<Self, GraphError> {
        let c = &clips[clip];
        let duration = c.duration_secs() as f64;
        let mut markers = markers;
        markers
            .0
            .sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
        let clock = PlaybackClock::new(duration).map_err(|e| GraphError::Clock {
            clip: c.name().to_string(),
            source: e,
        })?;
        Ok(Self {
            clip,
            clock,
            root,
            sync_markers: {
                let down: Vec<SyncMarker> = markers
                    .0
                    .iter()
                    .filter(|m| m.name.ends_with("_down"))
                    .cloned()
                    .collect();
                if down.is_empty() {
                    markers.0.clone()
                } else {
                    down
                }
            },
            markers: markers.0,
            markers_detected: markers.1,
            is_layer: false,
            offset: 0.0,
            weight: 0.0,
            delta: GroundTransform::IDENTITY,
            interval: None,
            pose_soa: skeleton.rest_pose_soa().to_vec(),
            pose: skeleton.rest_pose().to_vec(),
            keep_root_motion: false,
            align: GroundTransform::IDENTITY,
            cache: SamplingCache::new(),
            crossed: None,
            markers_before: (f64::NAN, 0),
        })
    }

    /// Length of one cycle of the clip, seconds.
    pub fn duration_secs(&self) -> f64 {
        self.clock.duration_secs()
    }

    /// Phase in `[0, 1)` (0 for a zero-length clip).
    pub fn normalized(&self) -> f64 {
        let d = self.duration_secs();
        if d > 0.0 {
            self.clock.time().phase_secs / d
        } else {
            0.0
        }
    }

    /// Cycles played since time 0 (unwrapped, fractional).
    pub fn cycles(&self) -> f64 {
        let t = self.clock.time();
        t.cycle as f64 + self.normalized()
    }

    /// Plays `clip_secs` of clip time (negative = backwards), any number of wraps, and
    /// records the root-motion delta of exactly that interval.
    pub fn advance(&mut self, clip_secs: f64) -> Result<(), AnimError> {
        let interval = self.clock.advance(clip_secs)?;
        self.delta = match &self.root {
            Some(r) => r.motion.delta(interval.from, interval.to),
            None => GroundTransform::IDENTITY,
        };
        if self.align.yaw_rad != 0.0 {
            // The delta in the aligned frame: the same step, turned with the clip.
            let turn = GroundTransform::new(self.align.yaw_rad, glam::DVec2::ZERO);
            self.delta = turn.compose(&self.delta).compose(&turn.inverse());
        }
        self.interval = Some(interval);
        self.crossed = self.crossed_within_cycle(interval);
        Ok(())
    }

    /// The markers in `(from, to]` when `interval` goes forward within one cycle: from
    /// where the last frame's interval ended (no search when it ended at `from`).
    fn crossed_within_cycle(&mut self, interval: Interval) -> Option<(Interval, u32, u32)> {
        let (from, to) = (interval.from, interval.to);
        let time = |m: &SyncMarker| m.time_secs as f64;
        if from.cycle != to.cycle || from.phase_secs > to.phase_secs {
            self.markers_before = (f64::NAN, 0);
            return None;
        }
        let start = match self.markers_before {
            (phase, count) if phase == from.phase_secs && count <= self.markers.len() => count,
            _ => self.markers.partition_point(|m| time(m) <= from.phase_secs),
        };
        let end = start
            + self.markers[start..]
                .iter()
                .take_while(|m| time(m) <= to.phase_secs)
                .count();
        self.markers_before = (to.phase_secs, end);
        Some((interval, start as u32, end as u32))
    }

    /// Clip seconds the last advance played (negative in reverse); `None` after a seek.
    pub fn advanced_secs(&self) -> Option<f64> {
        let d = self.duration_secs();
        self.interval
            .as_ref()
            .map(|i| i.to.to_secs(d) - i.from.to_secs(d))
    }

    /// Plays forward or back to normalised phase `u` by the shortest phase step (a marker
    /// follower; steps stay well under half a cycle per frame).
    pub fn advance_to_phase(&mut self, u: f64) -> Result<(), AnimError> {
        let step = crate::anim::sync::phase_step(self.normalized(), u.rem_euclid(1.0));
        self.advance(step * self.duration_secs())
    }

    /// Jumps to normalised phase `u` of cycle `cycle` (a seek: no root motion).
    pub fn seek_phase(&mut self, cycle: i64, u: f64) -> Result<(), AnimError> {
        let d = self.duration_secs();
        let u = u.rem_euclid(1.0);
        self.clock.seek(ClipTime {
            cycle,
            phase_secs: u * d,
        })?;
        self.delta = GroundTransform::IDENTITY;
        self.interval = None;
        Ok(())
    }

    /// Samples the clip at the clock's phase into `pose_soa` (and `pose` for a layer's
    /// clip), with root motion removed unless it is a layer's clip (the graph places the
    /// character with the blended deltas). The same bits as [`SamplingJob`] followed by
    /// the per-joint root-motion removal.
    ///
    /// [`SamplingJob`]: crate::anim::SamplingJob
    pub fn sample(&mut self, clips: &[Clip], skeleton: &Skeleton) -> Result<(), AnimError> {
        let t = self.clock.time().phase_secs;
        SoaSamplingJob {
            clip: &clips[self.clip],
            time_secs: t as f32,
            rest_pose: skeleton.rest_pose_soa(),
        }
        .run_with_cache(&mut self.cache, &mut self.pose_soa)?;
        if let (Some(r), false, false) = (&self.root, self.is_layer, self.keep_root_motion) {
            r.source.remove_soa(&r.motion, t, &mut self.pose_soa)?;
            if self.align != GroundTransform::IDENTITY {
                r.source.place_soa(&self.align, &mut self.pose_soa)?;
            }
        }
        if self.is_layer {
            transforms_from_soa(&self.pose_soa, &mut self.pose)?;
        }
        Ok(())
    }

    /// Names of markers crossed by this frame's interval (in time order within each cycle,
    /// forward or in reverse), e.g. foot contacts, for state-machine events.
    pub fn crossed_markers(&self, out: &mut Vec<String>) {
        self.for_each_crossed(|name| {
            if !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        });
    }

    /// Calls `f` with the name of every marker the last advance crossed (each marker
    /// once per crossing; the caller dedupes), borrowing the names: no allocation.
    pub fn for_each_crossed<'a>(&'a self, mut f: impl FnMut(&'a str)) {
        let Some(iv) = self.interval else {
            return;
        };
        if let Some((_, start, end)) = self.crossed.filter(|c| c.0 == iv) {
            for m in &self.markers[start as usize..end as usize] {
                f(&m.name);
            }
            return;
        }
        let d = self.duration_secs();
        if d <= 0.0 {
            return;
        }
        let (from, to) = (iv.from, iv.to);
        let (lo, hi) = if (from.cycle, from.phase_secs) <= (to.cycle, to.phase_secs) {
            (from, to)
        } else {
            (to, from)
        };
        // Half-open (lo, hi]: a marker exactly at the start was fired last frame. Compared
        // in clip seconds within each cycle (no unwrapped times to round after many
        // cycles): after `lo`'s phase in its cycle, every marker of the cycles between, up
        // to `hi`'s phase in its own; at most five cycles. The markers are sorted by time,
        // so each cycle's crossed markers are one run, found by a binary search.
        let last = hi.cycle.min(lo.cycle.saturating_add(4));
        for k in lo.cycle..=last {
            let start = if k == lo.cycle {
                self.markers
                    .partition_point(|m| m.time_secs as f64 <= lo.phase_secs)
            } else {
                0
            };
            for m in &self.markers[start..] {
                if k == hi.cycle && m.time_secs as f64 > hi.phase_secs {
                    break;
                }
                f(&m.name);
            }
        }
    }
}
