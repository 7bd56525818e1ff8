//! Clip-inspection state of the previewer (no egui): the selected and pinned joints of the
//! outliner and curve view, the curve view's channels, the onion-skin settings, and the
//! loop-seam table of the current clip. The UI draws it (src/ui/inspect.rs), the window
//! draws the ghosts and the selected bone (src/app.rs).

use glam::{Mat4, Vec2, Vec3};

use crate::anim::curves::EulerOrder;
use crate::anim::seam::{ChannelSeam, LoopSeamJob};
use crate::asset::Model;
use crate::render::camera::world_to_pixel;
use crate::render::OrbitCamera;

/// Which curves the curve view draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CurveChannels {
    pub translation: bool,
    /// Rotation as continuous Euler angles (degrees).
    pub euler: bool,
    pub quaternion: bool,
    pub scale: bool,
}

impl Default for CurveChannels {
    fn default() -> Self {
        Self {
            translation: true,
            euler: true,
            quaternion: false,
            scale: false,
        }
    }
}

/// Onion skin: ghosts of the pose before and after the playhead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OnionSkin {
    pub enabled: bool,
    /// Ghosts before and after the playhead (0..=8 each).
    pub before: u32,
    pub after: u32,
    /// Frames (at the clip's frame rate) between two ghosts, >= 1.
    pub spacing_frames: u32,
    /// Opacity of the nearest ghost (0..1); farther ones fade out linearly.
    pub opacity: f32,
    /// Ghosts at the clip's sync markers instead of around the playhead.
    pub at_markers: bool,
}

impl Default for OnionSkin {
    fn default() -> Self {
        Self {
            enabled: false,
            before: 2,
            after: 2,
            spacing_frames: 4,
            opacity: 0.6,
            at_markers: false,
        }
    }
}

/// Most ghosts on either side.
pub const MAX_GHOSTS: u32 = 8;

impl OnionSkin {
    /// Clip-time offsets (seconds, relative to the playhead) of the ghosts with their
    /// opacity, nearest first on each side; `frame_rate_hz` turns frames into seconds.
    pub fn offsets(&self, frame_rate_hz: f64) -> Vec<(f64, f32)> {
        let step = f64::from(self.spacing_frames.max(1)) / frame_rate_hz.max(1.0);
        let mut out = Vec::new();
        for (count, sign) in [(self.before, -1.0), (self.after, 1.0)] {
            let count = count.min(MAX_GHOSTS);
            for k in 1..=count {
                let fade = 1.0 - (k - 1) as f32 / count as f32;
                out.push((
                    sign * step * f64::from(k),
                    self.opacity.clamp(0.0, 1.0) * fade,
                ));
            }
        }
        out
    }
}

/// The outliner's and curve view's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inspection {
    /// Selected joint (outliner row, viewport click, seam table row).
    pub selected: Option<usize>,
    /// Joints whose curves stay in the curve view next to the selected one.
    pub pinned: Vec<usize>,
    /// The outliner's search text.
    pub filter: String,
    pub show_curves: bool,
    pub channels: CurveChannels,
    pub euler_order: EulerOrder,
    pub onion: OnionSkin,
    /// Loop seams of `seams_for` (clip index), most visible first.
    seams: Vec<ChannelSeam>,
    seams_for: Option<usize>,
    /// The lint's pop threshold scaled to this rig (metres), once per model.
    pop_m: Option<f32>,
}

impl Inspection {
    pub fn new() -> Self {
        Self {
            show_curves: true,
            ..Self::default()
        }
    }

    /// Selects `joint` (or clears the selection).
    pub fn select(&mut self, joint: Option<usize>) {
        self.selected = joint;
    }

    /// Pins or unpins `joint` in the curve view.
    pub fn toggle_pin(&mut self, joint: usize) {
        match self.pinned.iter().position(|&j| j == joint) {
            Some(i) => {
                self.pinned.remove(i);
            }
            None => self.pinned.push(joint),
        }
    }

    /// A new model: joint indices mean other joints now.
    pub fn reset_for_model(&mut self) {
        self.selected = None;
        self.pinned.clear();
        self.forget_measurements();
    }

    /// The file changed (a reload): the seams and thresholds are measured again.
    pub fn forget_measurements(&mut self) {
        self.seams.clear();
        self.seams_for = None;
        self.pop_m = None;
    }

    /// A seam that moves the end of its chain farther than this (metres) is a pop: the
    /// lint's threshold, scaled by the rig's leg length like every metre threshold.
    pub fn seam_pop_m(&mut self, model: &Model) -> f32 {
        *self.pop_m.get_or_insert_with(|| {
            let legs = crate::anim::contacts::detect_legs(&model.skeleton).unwrap_or_default();
            crate::lint::LintSettings::default().seam_m
                * crate::anim::locomotion::unit_scale(&model.skeleton, &legs)
        })
    }

    /// The loop seams of clip `clip` of `model` (computed once per clip).
    pub fn seams(&mut self, model: &Model, clip: Option<usize>) -> &[ChannelSeam] {
        if self.seams_for != clip {
            self.seams.clear();
            self.seams_for = clip;
            if let Some(c) = clip.and_then(|i| model.clips.get(i)) {
                let root = crate::anim::ClipRootMotion::for_clip(&model.skeleton, c, None)
                    .ok()
                    .flatten();
                let job = LoopSeamJob {
                    skeleton: &model.skeleton,
                    clip: c,
                    root_motion: root.as_ref(),
                };
                // A zero-length clip has no seam; the table says so.
                let _ = job.run(&mut self.seams);
            }
        }
        &self.seams
    }
}

/// The joint nearest to `click_px` on screen (within `radius_px`), from the joints'
/// world positions (`model_from_joint` translations, already placed in the world) seen
/// by `camera` in a `size_px` viewport. Nearer joints to the camera win ties.
pub fn pick_joint(
    model_from_joint: &[Mat4],
    camera: &OrbitCamera,
    size_px: Vec2,
    click_px: Vec2,
    radius_px: f32,
) -> Option<usize> {
    let clip_from_world = camera.clip_from_world(size_px.x / size_px.y.max(1.0));
    let eye = camera.eye();
    let mut best: Option<(f32, f32, usize)> = None;
    for (j, m) in model_from_joint.iter().enumerate() {
        let p: Vec3 = m.w_axis.truncate();
        let Some(px) = world_to_pixel(&clip_from_world, p, size_px) else {
            continue;
        };
        let d = px.distance(click_px);
        if d > radius_px {
            continue;
        }
        let depth = p.distance(eye);
        let better = match best {
            None => true,
            Some((bd, bz, _)) => d < bd - 0.5 || ((d - bd).abs() <= 0.5 && depth < bz),
        };
        if better {
            best = Some((d, depth, j));
        }
    }
    best.map(|b| b.2)
}
