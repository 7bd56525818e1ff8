//! Foot-slide metric: how fast planted feet move over the ground in world space.
//!
//! Per frame, a foot that is in contact (from the clip's markers or detected contacts,
//! at the pose's clip time) and was in contact the frame before contributes its
//! world-space horizontal speed; the distance it covers is its slide. A foot with a toe
//! joint is measured at whichever of ankle and toe moved less this frame: the heel
//! carries the weight after heel strike and the ball before toe-off, and the other end
//! of a rolling foot moves even when nothing slides. Summed per foot
//! and divided by the cycles played, that is the slide per cycle.
//!
//! Skating ratio, as in the motion-synthesis literature (a planted foot is one under
//! 5 cm that moves faster than 0.5 m/s, counted at 20 fps): frames in which any planted
//! foot moves faster than [`SlideSettings::skate_speed_mps`] (times the rig's unit scale)
//! over all frames. Here "planted" is the contact flag, which already includes a height
//! test (5 % of the leg length above the foot's lowest point, 4.5 cm on a human), so no
//! second height threshold is applied; frames are the trace's, not resampled to 20 fps.

use glam::Vec3;

/// Thresholds of [`FootSlideMeter`], for a human rig (scaled by the unit scale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideSettings {
    /// A planted foot faster than this (m/s) is skating. Default 0.5.
    pub skate_speed_mps: f32,
}

impl Default for SlideSettings {
    fn default() -> Self {
        Self {
            skate_speed_mps: 0.5,
        }
    }
}

/// Accumulates foot slide over a run. Positions in world units (metres for glTF).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FootSlideMeter {
    prev: Vec<Option<(Vec3, Option<Vec3>)>>,
    slide: Vec<f64>,
    /// This frame's horizontal speed per foot (`None` when not planted).
    speeds: Vec<Option<f32>>,
    frames: u64,
    skating_frames: u64,
}

impl FootSlideMeter {
    /// A meter for `feet` feet, with nothing measured yet.
    pub fn new(feet: usize) -> Self {
        Self {
            prev: vec![None; feet],
            slide: vec![0.0; feet],
            speeds: vec![None; feet],
            frames: 0,
            skating_frames: 0,
        }
    }

    /// Starts over (a new clip or settings).
    pub fn clear(&mut self) {
        *self = Self::new(self.prev.len());
    }

    /// Forgets the last positions, so the next frame measures no speed: call after a seek
    /// (a jump is not a slide).
    pub fn break_continuity(&mut self) {
        self.prev.fill(None);
        self.speeds.fill(None);
    }

    /// One played frame: `world_feet` (ankle and, when the leg has one, toe positions)
    /// and `planted` hold one entry per foot; `dt_secs` is the wall time of the frame
    /// (> 0); `unit_scale` scales the skate threshold.
    pub fn update(
        &mut self,
        world_feet: &[(Vec3, Option<Vec3>)],
        planted: &[bool],
        dt_secs: f32,
        settings: &SlideSettings,
        unit_scale: f32,
    ) {
        let limit = settings.skate_speed_mps * unit_scale;
        let mut skating = false;
        for (i, (&p, &down)) in world_feet
            .iter()
            .zip(planted)
            .enumerate()
            .take(self.prev.len())
        {
            let speed = match (self.prev[i], down && dt_secs > 0.0) {
                (Some(q), true) => {
                    let flat = |a: Vec3, b: Vec3| Vec3::new(a.x - b.x, 0.0, a.z - b.z).length();
                    let mut d = flat(p.0, q.0);
                    if let (Some(a), Some(b)) = (p.1, q.1) {
                        d = d.min(flat(a, b));
                    }
                    self.slide[i] += f64::from(d);
                    Some(d / dt_secs)
                }
                _ => None,
            };
            skating |= speed.is_some_and(|s| s > limit);
            self.speeds[i] = speed;
            self.prev[i] = down.then_some(p);
        }
        self.frames += 1;
        if skating {
            self.skating_frames += 1;
        }
    }

    /// This frame's planted-foot speeds (units/s), `None` for feet in the air.
    pub fn speeds(&self) -> &[Option<f32>] {
        &self.speeds
    }

    /// Total slide per foot (units).
    pub fn slide(&self) -> &[f64] {
        &self.slide
    }

    /// Mean over the feet of the slide per cycle (units per cycle); 0 when no cycle was
    /// played.
    pub fn slide_per_cycle(&self, cycles: f64) -> f64 {
        if self.slide.is_empty() || cycles.is_nan() || cycles <= 0.0 {
            return 0.0;
        }
        self.slide.iter().sum::<f64>() / self.slide.len() as f64 / cycles
    }

    /// Frames with a skating foot over all frames (0 before the first frame).
    pub fn skating_ratio(&self) -> f64 {
        if self.frames == 0 {
            0.0
        } else {
            self.skating_frames as f64 / self.frames as f64
        }
    }

    /// Frames measured so far (calls of [`FootSlideMeter::update`]).
    pub fn frames(&self) -> u64 {
        self.frames
    }
}
