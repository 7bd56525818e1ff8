//! Stride warping (SPEC 5, steps 1-7): lengthen or shorten the stride so the feet cover
//! the movement speed that speed matching could not reach within its clamp.
//!
//! [`StrideWarpJob`] works in model space (the skeleton's root space, Y up, the character
//! facing +Z) on the FK pose that the pose graph produced, and computes where each foot
//! should go and how far the pelvis must drop; [`LegIkJob`] then writes those into the
//! local pose (pelvis offset, thigh compensation, two-bone IK, feet kept at their FK
//! orientation) and re-derives the model transforms below each edited joint.
//!
//! The IK targets start at the FK feet: real glTF rigs carry no dedicated IK-foot bones.
//! A rig that has them (`ik_foot_l`...) passes their positions as
//! [`StrideWarpJob::ik_feet`].
//!
//! Every distance threshold is written in metres for a human-sized rig (a 0.9 m leg,
//! [`REFERENCE_LEG_LENGTH_M`]) and multiplied by [`StrideWarpJob::unit_scale`]
//! (`leg length / 0.9 m`) so that a 0.2-unit character and a 4.4-unit one behave alike.

use glam::{Mat4, Quat, Vec3};

use crate::contacts::LegChain;
use crate::ik::{knee_axis, rotation_of, TwoBoneIkJob};
use crate::local_to_model::is_below;
use crate::{AnimError, LocalToModelJob, Transform};

/// Most legs [`LegIkJob`] solves in one run (an octopod).
pub const MAX_LEGS: usize = 8;

/// Leg length (thigh to ankle, metres) of the human rig the metre thresholds are written
/// for. `unit_scale = leg_length / REFERENCE_LEG_LENGTH_M`.
pub const REFERENCE_LEG_LENGTH_M: f32 = 0.9;

/// Where graph mode's stride scale takes the clip's speed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SpeedSource {
    /// The clip's mean speed over its cycle times the play rate (the default). The root
    /// speed of most walks varies within the cycle (the demo walk: 0.76 to 1.53 m/s): a
    /// per-frame scale then oscillates by a factor of two and its rate of change moves
    /// planted feet, while the mean gives one steady scale that matches the clip's own
    /// distance per cycle.
    #[default]
    CycleAverage,
    /// This frame's root-motion delta over the frame time (Unreal's graph-driven mode).
    PerFrame,
}

impl SpeedSource {
    /// A short label for the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            SpeedSource::CycleAverage => "cycle average",
            SpeedSource::PerFrame => "per frame",
        }
    }
}

/// Settings of stride warping, with Unreal's defaults. Distances in metres and speeds in
/// metres per second for a human rig; the job scales them by the rig's leg length.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrideWarpSettings {
    /// Re-orient the stride direction with the floor normal (`axis = n × dir; dir = axis
    /// × n`) so that on a slope the feet move along the slope. Default on.
    pub floor_normal_reorient: bool,
    /// Under this root speed (m/s) the stride scale snaps to 1: a nearly still clip has
    /// no stride to scale. Default 0.1.
    pub min_root_speed_mps: f32,
    /// Optional clamp of the stride scale. Default off.
    pub scale_clamp: Option<(f32, f32)>,
    /// Interpolate the stride scale toward its target (exponential, like Unreal's
    /// `FInterpTo`: each frame moves `min(1, dt * speed)` of the way). Default on.
    pub interpolate_scale: bool,
    /// Interpolation speed while the scale grows / shrinks (1/s). Default 10 and 10.
    pub scale_interp_up: f32,
    /// Interpolation speed (1/s) while the scale shrinks; 0 = no interpolation.
    pub scale_interp_down: f32,
    /// Where graph mode's root speed comes from (default: cycle average, see there).
    pub speed_source: SpeedSource,
    /// Lower the pelvis so the warped feet stay reachable. Default on.
    pub pelvis_adjust: bool,
    /// Pelvis solver iterations (default 3) and the change (metres) under which it stops
    /// early (default 0.001).
    pub pelvis_max_iterations: u32,
    /// The pelvis solver stops once an iteration moves it less than this (metres,
    /// scaled to the rig). Default 0.001.
    pub pelvis_tolerance_m: f32,
    /// Share of the solved pelvis offset that is applied: 0 keeps the original pelvis
    /// motion, 1 applies the full offset. Default 0.5 (half the bob is kept).
    pub pelvis_alpha: f32,
    /// Longest pelvis offset (metres). Default 0.1.
    pub pelvis_max_offset_m: f32,
    /// Half-life (seconds) of the critically damped spring that smooths the pelvis
    /// offset over time. Default 0.05.
    pub pelvis_halflife_secs: f32,
    /// Rotate each thigh from its FK thigh→foot direction toward the adjusted thigh→IK
    /// foot direction before the IK solve, so the knee keeps its plane. Default on.
    pub thigh_compensation: bool,
    /// Pull an IK foot that is farther from the adjusted thigh than the FK leg extends
    /// back onto that length (no over-extension, no knee pop). Default on.
    pub clamp_to_fk_length: bool,
}

impl Default for StrideWarpSettings {
    fn default() -> Self {
        Self {
            floor_normal_reorient: true,
            min_root_speed_mps: 0.1,
            scale_clamp: None,
            interpolate_scale: true,
            scale_interp_up: 10.0,
            scale_interp_down: 10.0,
            speed_source: SpeedSource::CycleAverage,
            pelvis_adjust: true,
            pelvis_max_iterations: 3,
            pelvis_tolerance_m: 0.001,
            pelvis_alpha: 0.5,
            pelvis_max_offset_m: 0.1,
            pelvis_halflife_secs: 0.05,
            thigh_compensation: true,
            clamp_to_fk_length: true,
        }
    }
}

impl StrideWarpSettings {
    fn validate(&self) -> Result<(), AnimError> {
        let checks = [
            ("min_root_speed_mps", self.min_root_speed_mps, true),
            ("scale_interp_up", self.scale_interp_up, true),
            ("scale_interp_down", self.scale_interp_down, true),
            ("pelvis_tolerance_m", self.pelvis_tolerance_m, true),
            ("pelvis_max_offset_m", self.pelvis_max_offset_m, true),
            ("pelvis_halflife_secs", self.pelvis_halflife_secs, true),
            (
                "pelvis_alpha",
                self.pelvis_alpha,
                (0.0..=1.0).contains(&self.pelvis_alpha),
            ),
        ];
        for (what, v, ok) in checks {
            if !v.is_finite() {
                return Err(AnimError::NonFinite {
                    what: format!("stride warping: {what}"),
                });
            }
            if v < 0.0 || !ok {
                return Err(AnimError::OutOfRange {
                    what: format!("stride warping: {what}"),
                    detail: format!("{v} is out of range"),
                });
            }
        }
        if let Some((lo, hi)) = self.scale_clamp {
            if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo <= hi) {
                return Err(AnimError::OutOfRange {
                    what: "stride warping: scale clamp".into(),
                    detail: format!("({lo}, {hi}) must be finite with 0 < min <= max"),
                });
            }
        }
        Ok(())
    }
}

/// Graph-driven (from the movement speed and this frame's root motion) or manual.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StrideMode {
    /// Scale = `locomotion_speed / root speed`; direction = the root-motion delta's
    /// (the previous one while the delta is ~0), or `direction` when given (orientation
    /// warping's share of the movement direction).
    Graph {
        /// Units per second.
        locomotion_speed: f32,
        /// Stride direction (model space, need not be normalised) used instead of the
        /// root-motion delta's; `None` takes the delta's.
        direction: Option<Vec3>,
    },
    /// A fixed direction (model space, need not be normalised) and scale.
    Manual {
        /// Stride direction, model space, need not be normalised.
        direction: Vec3,
        /// Stride scale (>= 0; 1 keeps the clip's stride).
        scale: f32,
    },
}

/// Time-dependent part of stride warping: the last direction, the interpolated scale and
/// the pelvis spring. [`StrideWarpState::reset`] after a seek or a clip change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrideWarpState {
    direction: Vec3,
    scale: Option<f32>,
    pelvis_offset: Vec3,
    pelvis_velocity: Vec3,
}

impl Default for StrideWarpState {
    fn default() -> Self {
        Self {
            direction: Vec3::Z,
            scale: None,
            pelvis_offset: Vec3::ZERO,
            pelvis_velocity: Vec3::ZERO,
        }
    }
}

impl StrideWarpState {
    /// Forgets the interpolated scale and the pelvis spring (after a seek or a clip
    /// change); the last stride direction is kept.
    pub fn reset(&mut self) {
        *self = Self {
            direction: self.direction,
            ..Self::default()
        };
    }
    /// The stride scale of the last frame (1 before the first).
    pub fn scale(&self) -> f32 {
        self.scale.unwrap_or(1.0)
    }
}

/// One foot of [`StrideWarpOutput`] (model space). Colours in brackets are the overlay's.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct FootWarp {
    /// Thigh joint, FK.
    pub thigh_fk: Vec3,
    /// The FK foot joint.
    pub fk_foot: Vec3,
    /// The IK foot before warping: the FK foot, or the rig's IK bone (red).
    pub ik_origin: Vec3,
    /// The thigh projected along gravity onto the foot's floor plane.
    pub plane_origin: Vec3,
    /// The origin the foot is scaled from (yellow).
    pub scale_origin: Vec3,
    /// After scaling along the stride direction (green).
    pub warped: Vec3,
    /// After the pelvis adjustment and the length clamp: what the IK solves to (blue).
    pub target: Vec3,
    /// Thigh after the pelvis offset.
    pub thigh_adjusted: Vec3,
    /// FK thigh-to-foot distance this frame.
    pub fk_length: f32,
    /// The length clamp pulled the target back.
    pub clamped: bool,
}

/// What one frame of stride warping decided (model space, units of the skeleton).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct StrideWarpOutput {
    /// Unit stride direction (after floor re-orientation).
    pub direction: Vec3,
    /// Stride scale applied (after clamp and interpolation).
    pub scale: f32,
    /// Stride scale before the clamp and the interpolation.
    pub target_scale: f32,
    /// The root speed the scale was computed from (units/s).
    pub root_speed: f32,
    /// `min_root_speed_mps` scaled to the rig (units/s).
    pub min_root_speed: f32,
    /// Locomotion speed (units/s; the manual mode reports 0).
    pub locomotion_speed: f32,
    /// The root-motion delta times the stride scale (step 4).
    pub root_delta: Vec3,
    /// Pelvis FK position (red) and after the offset (blue).
    pub pelvis_before: Vec3,
    /// Pelvis position after the offset (blue).
    pub pelvis_after: Vec3,
    /// The pelvis offset applied: along gravity, downwards only, at most
    /// `pelvis_max_offset_m` scaled to the rig.
    pub pelvis_offset: Vec3,
    /// The unit floor normal used.
    pub floor_normal: Vec3,
    /// One entry per leg, in the order of [`StrideWarpJob::legs`].
    pub feet: Vec<FootWarp>,
}

/// One frame of stride warping: steps 1-5 and 7 of SPEC 5 (step 6, the thigh rotation,
/// and step 8, the IK solve, are [`LegIkJob`]'s).
#[derive(Clone, Copy, Debug)]
pub struct StrideWarpJob<'a> {
    /// The settings; their metre values are multiplied by `unit_scale`.
    pub settings: &'a StrideWarpSettings,
    /// The legs to warp (at least one); [`LegIkJob`] takes the same list.
    pub legs: &'a [LegChain],
    /// The joint that carries both thighs (the nearest common ancestor of the thighs).
    pub pelvis: usize,
    /// FK pose, model space.
    pub model_from_joint: &'a [Mat4],
    /// Positions of dedicated IK-foot bones, one per leg; `None` starts at the FK feet.
    pub ik_feet: Option<&'a [Vec3]>,
    /// Where the stride scale and direction come from: graph-driven or manual.
    pub mode: StrideMode,
    /// This frame's root-motion translation (model space, units), after the play rate.
    pub root_delta: Vec3,
    /// Frame time in seconds; 0 is a seek: the scale and the pelvis spring jump to their
    /// targets and the root delta is ignored.
    pub dt_secs: f32,
    /// The clip's mean speed times the play rate (units/s), for
    /// [`SpeedSource::CycleAverage`]; `None` falls back to the per-frame speed.
    pub cycle_speed: Option<f32>,
    /// Unit floor normal (model space); `Vec3::Y` on flat ground.
    pub floor_normal: Vec3,
    /// Unit gravity direction (model space); `-Vec3::Y`.
    pub gravity: Vec3,
    /// `leg length / REFERENCE_LEG_LENGTH_M`: multiplies every metre threshold.
    pub unit_scale: f32,
}

fn finite3(what: &str, v: Vec3) -> Result<(), AnimError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(AnimError::NonFinite {
            what: format!("stride warping: {what}"),
        })
    }
}

/// Exact step of a critically damped spring toward `goal` with the given half-life.
fn spring_step(x: &mut Vec3, v: &mut Vec3, goal: Vec3, halflife: f32, dt: f32) {
    if dt <= 0.0 || halflife <= 0.0 {
        *x = goal;
        *v = Vec3::ZERO;
        return;
    }
    let y = 2.0 * std::f32::consts::LN_2 / halflife;
    let j0 = *x - goal;
    let j1 = *v + j0 * y;
    let e = (-y * dt).exp();
    *x = goal + (j0 + j1 * dt) * e;
    *v = (*v - j1 * y * dt) * e;
}

impl StrideWarpJob<'_> {
    fn validate(&self) -> Result<(), AnimError> {
        self.settings.validate()?;
        let n = self.model_from_joint.len();
        if self.pelvis >= n {
            return Err(AnimError::JointOutOfRange {
                what: "stride warping: pelvis".into(),
                joint: self.pelvis,
                joint_count: n,
            });
        }
        if self.legs.is_empty() {
            return Err(AnimError::Empty {
                what: "stride warping: legs".into(),
            });
        }
        for leg in self.legs {
            for (role, j) in [("thigh", leg.thigh), ("calf", leg.calf), ("foot", leg.foot)] {
                if j >= n {
                    return Err(AnimError::JointOutOfRange {
                        what: format!("stride warping: leg '{}' {role}", leg.name),
                        joint: j,
                        joint_count: n,
                    });
                }
            }
        }
        if let Some(ik) = self.ik_feet {
            if ik.len() != self.legs.len() {
                return Err(AnimError::LengthMismatch {
                    what: "stride warping: IK feet",
                    expected: self.legs.len(),
                    actual: ik.len(),
                });
            }
            for &p in ik {
                finite3("IK foot", p)?;
            }
        }
        finite3("root delta", self.root_delta)?;
        finite3("floor normal", self.floor_normal)?;
        finite3("gravity", self.gravity)?;
        if self.floor_normal.length_squared() < 1e-12 || self.gravity.length_squared() < 1e-12 {
            return Err(AnimError::OutOfRange {
                what: "stride warping: floor normal / gravity".into(),
                detail: "must not be zero".into(),
            });
        }
        for (what, v) in [
            ("frame time", self.dt_secs),
            ("unit scale", self.unit_scale),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(AnimError::OutOfRange {
                    what: format!("stride warping: {what}"),
                    detail: format!("{v} must be finite and >= 0"),
                });
            }
        }
        if self.unit_scale <= 0.0 {
            return Err(AnimError::OutOfRange {
                what: "stride warping: unit scale".into(),
                detail: "must be > 0".into(),
            });
        }
        match self.mode {
            StrideMode::Graph {
                locomotion_speed,
                direction,
            } => {
                if !locomotion_speed.is_finite() || locomotion_speed < 0.0 {
                    return Err(AnimError::OutOfRange {
                        what: "stride warping: locomotion speed".into(),
                        detail: format!("{locomotion_speed} must be finite and >= 0"),
                    });
                }
                if let Some(d) = direction {
                    finite3("direction", d)?;
                }
            }
            StrideMode::Manual { direction, scale } => {
                finite3("manual direction", direction)?;
                if !scale.is_finite() || scale < 0.0 {
                    return Err(AnimError::OutOfRange {
                        what: "stride warping: manual scale".into(),
                        detail: format!("{scale} must be finite and >= 0"),
                    });
                }
            }
        }
        if let Some(s) = self.cycle_speed {
            if !s.is_finite() {
                return Err(AnimError::NonFinite {
                    what: "stride warping: cycle speed".into(),
                });
            }
        }
        for m in self.model_from_joint {
            if !m.is_finite() {
                return Err(AnimError::NonFinite {
                    what: "stride warping: FK pose".into(),
                });
            }
        }
        Ok(())
    }

    /// Runs one frame, updating `state` and filling `out` (its `feet` are reused).
    pub fn run(
        &self,
        state: &mut StrideWarpState,
        out: &mut StrideWarpOutput,
    ) -> Result<(), AnimError> {
        self.validate()?;
        let s = self.settings;
        let n = self.floor_normal.normalize();
        let g = self.gravity.normalize();
        let pos = |j: usize| self.model_from_joint[j].w_axis.truncate();
        let seek = self.dt_secs <= 0.0;

        // 1. Stride direction.
        let raw_dir = match self.mode {
            StrideMode::Manual { direction, .. } => Some(direction),
            StrideMode::Graph {
                direction: Some(d), ..
            } => Some(d),
            StrideMode::Graph {
                direction: None, ..
            } => {
                // Horizontal part of the root delta (gravity removed).
                let d = self.root_delta - g * self.root_delta.dot(g);
                (!seek && d.length() > 1e-6 * self.unit_scale).then_some(d)
            }
        };
        let mut dir = raw_dir
            .filter(|d| d.length_squared() > 1e-12)
            .map(|d| d.normalize())
            .unwrap_or(state.direction);
        if s.floor_normal_reorient {
            let axis = n.cross(dir);
            let d = axis.cross(n);
            if d.length_squared() > 1e-12 {
                dir = d.normalize();
            }
        }
        state.direction = dir;

        // 2. Stride scale.
        let min_root_speed = s.min_root_speed_mps * self.unit_scale;
        let frame_speed = if seek || self.dt_secs <= 0.0 {
            0.0
        } else {
            (self.root_delta - g * self.root_delta.dot(g)).length() / self.dt_secs
        };
        let (root_speed, locomotion_speed, mut target) = match self.mode {
            StrideMode::Manual { scale, .. } => (frame_speed, 0.0, scale),
            StrideMode::Graph {
                locomotion_speed, ..
            } => {
                let speed = match (s.speed_source, self.cycle_speed) {
                    (SpeedSource::CycleAverage, Some(c)) => c.abs(),
                    _ => frame_speed,
                };
                let scale = if speed <= 0.0 || speed < min_root_speed {
                    1.0
                } else {
                    locomotion_speed / speed
                };
                (speed, locomotion_speed, scale)
            }
        };
        if let Some((lo, hi)) = s.scale_clamp {
            target = target.clamp(lo, hi);
        }
        let scale = match (state.scale, s.interpolate_scale && !seek) {
            (Some(prev), true) => {
                let speed = if target > prev {
                    s.scale_interp_up
                } else {
                    s.scale_interp_down
                };
                // Like Unreal's FInterpTo: a speed of 0 means no interpolation.
                if speed <= 0.0 {
                    target
                } else {
                    prev + (target - prev) * (self.dt_secs * speed).min(1.0)
                }
            }
            _ => target,
        };
        if !scale.is_finite() {
            return Err(AnimError::NonFinite {
                what: "stride warping: stride scale".into(),
            });
        }
        state.scale = Some(scale);

        // 3. Per foot: plane origin, scale origin, warped.
        out.feet.clear();
        for (i, leg) in self.legs.iter().enumerate() {
            let thigh = pos(leg.thigh);
            let foot_fk = pos(leg.foot);
            let ik = self.ik_feet.map_or(foot_fk, |f| f[i]);
            let gn = g.dot(n);
            let plane_origin = if gn.abs() < 1e-6 {
                ik
            } else {
                thigh + g * ((ik - thigh).dot(n) / gn)
            };
            let scale_origin = ik - dir * (ik - plane_origin).dot(dir);
            let warped = scale_origin + (ik - scale_origin) * scale;
            out.feet.push(FootWarp {
                thigh_fk: thigh,
                fk_foot: foot_fk,
                ik_origin: ik,
                plane_origin,
                scale_origin,
                warped,
                target: warped,
                thigh_adjusted: thigh,
                fk_length: thigh.distance(foot_fk),
                clamped: false,
            });
        }

        // 4. Root motion.
        out.root_delta = if seek {
            Vec3::ZERO
        } else {
            self.root_delta * scale
        };

        // 5. Pelvis.
        let pelvis_before = pos(self.pelvis);
        let mut goal = Vec3::ZERO;
        if s.pelvis_adjust {
            let mut p = pelvis_before;
            for _ in 0..s.pelvis_max_iterations {
                let mut sum = Vec3::ZERO;
                for (leg, f) in self.legs.iter().zip(&out.feet) {
                    let reach = pelvis_before.distance(pos(leg.foot));
                    let away = (p - f.warped).normalize_or(-g);
                    sum += f.warped + away * reach;
                }
                let next = sum / out.feet.len() as f32;
                let moved = next.distance(p);
                p = next;
                if moved < s.pelvis_tolerance_m * self.unit_scale {
                    break;
                }
            }
            // Only along gravity and only down: raising the pelvis would over-extend the
            // legs that the warp shortened.
            let down = (p - pelvis_before).dot(g).max(0.0) * s.pelvis_alpha;
            goal = g * down.min(s.pelvis_max_offset_m * self.unit_scale);
        }
        spring_step(
            &mut state.pelvis_offset,
            &mut state.pelvis_velocity,
            goal,
            s.pelvis_halflife_secs,
            if seek { 0.0 } else { self.dt_secs },
        );
        // The spring can overshoot a moving goal: clamp what is applied once more.
        let down = state
            .pelvis_offset
            .dot(g)
            .clamp(0.0, s.pelvis_max_offset_m * self.unit_scale);
        let offset = g * down;

        // 7. Adjusted thighs, and the IK feet pulled back onto the FK leg length.
        for f in &mut out.feet {
            f.thigh_adjusted = f.thigh_fk + offset;
            let to = f.warped - f.thigh_adjusted;
            let len = to.length();
            if s.clamp_to_fk_length && len > f.fk_length && len > 0.0 {
                f.target = f.thigh_adjusted + to * (f.fk_length / len);
                f.clamped = true;
            } else {
                f.target = f.warped;
            }
        }
        out.direction = dir;
        out.scale = scale;
        out.target_scale = target;
        out.root_speed = root_speed;
        out.min_root_speed = min_root_speed;
        out.locomotion_speed = locomotion_speed;
        out.pelvis_before = pelvis_before;
        out.pelvis_offset = offset;
        out.pelvis_after = pelvis_before + offset;
        out.floor_normal = n;
        Ok(())
    }
}

/// Applies a model-space rotation `r` (about the joint's own position) to joint `j`'s
/// local rotation.
pub(crate) fn rotate_joint_model(local: &mut [Transform], model: &[Mat4], j: usize, r: Quat) {
    let m = rotation_of(&model[j]);
    let c = (m.inverse() * r * m).normalize();
    local[j].rotation = (local[j].rotation * c).normalize();
}

/// Sets joint `j`'s local rotation so that its model rotation becomes `want`.
fn set_model_rotation(
    local: &mut [Transform],
    model: &[Mat4],
    parents: &[Option<usize>],
    model_from_root: Mat4,
    j: usize,
    want: Quat,
) {
    let parent = parents[j].map_or(model_from_root, |p| model[p]);
    local[j].rotation = (rotation_of(&parent).inverse() * want).normalize();
}

/// Writes a [`StrideWarpOutput`] into the pose: pelvis offset, thigh compensation (step
/// 6), then a two-bone IK per leg (step 8) that puts the real foot joints on the targets;
/// each foot keeps its FK model orientation. `local` and `model_from_joint` must hold the
/// FK pose the warp was computed from and are updated in place (model transforms are
/// recomputed below each edited joint only).
#[derive(Clone, Copy, Debug)]
pub struct LegIkJob<'a> {
    /// Parent of each joint (`None` for a root): the skeleton's hierarchy.
    pub parents: &'a [Option<usize>],
    /// The legs (at most [`MAX_LEGS`]), in the order of the warp's feet.
    pub legs: &'a [LegChain],
    /// The joint the pelvis offset moves (the warp's [`StrideWarpJob::pelvis`]).
    pub pelvis: usize,
    /// What stride warping decided this frame.
    pub warp: &'a StrideWarpOutput,
    /// Rotate each thigh toward its target before the IK solve (step 6; see
    /// [`StrideWarpSettings::thigh_compensation`]).
    pub thigh_compensation: bool,
    /// Two-bone IK soften ratio (1 = none).
    pub soften: f32,
    /// Placement of the skeleton's roots (the identity in model space).
    pub model_from_root: Mat4,
    /// The character's forward direction (model space): a straight knee bends toward it.
    pub forward: Vec3,
}

impl LegIkJob<'_> {
    /// Returns, per leg, whether the foot reached its target. `reached` is cleared and
    /// filled.
    pub fn run(
        &self,
        local: &mut [Transform],
        model_from_joint: &mut [Mat4],
        reached: &mut Vec<bool>,
    ) -> Result<(), AnimError> {
        let n = self.parents.len();
        if local.len() != n || model_from_joint.len() != n {
            return Err(AnimError::LengthMismatch {
                what: "leg IK pose",
                expected: n,
                actual: local.len().min(model_from_joint.len()),
            });
        }
        if self.warp.feet.len() != self.legs.len() {
            return Err(AnimError::LengthMismatch {
                what: "leg IK: warped feet",
                expected: self.legs.len(),
                actual: self.warp.feet.len(),
            });
        }
        if self.pelvis >= n {
            return Err(AnimError::JointOutOfRange {
                what: "leg IK: pelvis".into(),
                joint: self.pelvis,
                joint_count: n,
            });
        }
        for leg in self.legs {
            for j in [leg.thigh, leg.calf, leg.foot] {
                if j >= n {
                    return Err(AnimError::JointOutOfRange {
                        what: format!("leg IK: leg '{}'", leg.name),
                        joint: j,
                        joint_count: n,
                    });
                }
            }
        }
        if self.legs.len() > MAX_LEGS {
            return Err(AnimError::OutOfRange {
                what: "leg IK".into(),
                detail: format!("{} legs; at most {MAX_LEGS}", self.legs.len()),
            });
        }
        reached.clear();
        // Feet orientation before anything moves (fixed arrays: no allocation per frame).
        let mut foot_rot = [Quat::IDENTITY; MAX_LEGS];
        // A foot that does not hang below its calf (an IK rig such as the Robot's) is
        // taken as riding rigidly on the calf's end for the solve.
        let mut detached: [Option<Vec3>; MAX_LEGS] = [None; MAX_LEGS];
        for (i, l) in self.legs.iter().enumerate() {
            foot_rot[i] = rotation_of(&model_from_joint[l.foot]);
            if !is_below(self.parents, l.calf, l.foot) {
                detached[i] = Some(
                    model_from_joint[l.calf]
                        .inverse()
                        .transform_point3(model_from_joint[l.foot].w_axis.truncate()),
                );
            }
        }
        // Pelvis offset: model-space vector into the parent's frame.
        let offset = self.warp.pelvis_offset;
        if offset.length_squared() > 0.0 {
            let parent =
                self.parents[self.pelvis].map_or(self.model_from_root, |p| model_from_joint[p]);
            let local_offset = parent.inverse().transform_vector3(offset);
            local[self.pelvis].translation += local_offset;
            self.l2m(local).run_subtree(self.pelvis, model_from_joint)?;
        }
        for (((leg, foot), &want_rot), end_in_calf) in self
            .legs
            .iter()
            .zip(&self.warp.feet)
            .zip(&foot_rot)
            .zip(&detached)
        {
            let pos = |m: &[Mat4], j: usize| m[j].w_axis.truncate();
            if self.thigh_compensation {
                let from = foot.fk_foot - foot.thigh_fk;
                let to = foot.target - pos(model_from_joint, leg.thigh);
                if from.length_squared() > 1e-12 && to.length_squared() > 1e-12 {
                    let r = Quat::from_rotation_arc(from.normalize(), to.normalize());
                    rotate_joint_model(local, model_from_joint, leg.thigh, r);
                    self.l2m(local).run_subtree(leg.thigh, model_from_joint)?;
                }
            }
            let (a, b) = (
                pos(model_from_joint, leg.thigh),
                pos(model_from_joint, leg.calf),
            );
            let (c, end_joint) = match end_in_calf {
                Some(e) => {
                    let c = model_from_joint[leg.calf].transform_point3(*e);
                    (c, Mat4::from_translation(c))
                }
                None => (pos(model_from_joint, leg.foot), model_from_joint[leg.foot]),
            };
            // Keep the knee on the side it points to now.
            let ac = c - a;
            let pole = if ac.length_squared() > 0.0 {
                (b - a) - ac * ((b - a).dot(ac) / ac.length_squared())
            } else {
                Vec3::Z
            };
            // A straight knee opens about forward x up (-X for a character facing +Z).
            let fallback = self
                .forward
                .cross(Vec3::Y)
                .try_normalize()
                .unwrap_or(-Vec3::X);
            let mid_axis = knee_axis(a, &model_from_joint[leg.calf], c, fallback);
            let result = TwoBoneIkJob {
                target: foot.target,
                pole_vector: pole,
                mid_axis,
                weight: 1.0,
                soften: self.soften,
                twist_angle: 0.0,
                start_joint: model_from_joint[leg.thigh],
                mid_joint: model_from_joint[leg.calf],
                end_joint,
            }
            .run()
            .map_err(|e| AnimError::OutOfRange {
                what: format!("leg '{}' IK", leg.name),
                detail: e.to_string(),
            })?;
            local[leg.thigh].rotation =
                (local[leg.thigh].rotation * result.start_correction).normalize();
            local[leg.calf].rotation =
                (local[leg.calf].rotation * result.mid_correction).normalize();
            self.l2m(local).run_subtree(leg.thigh, model_from_joint)?;
            // An IK rig's foot that does not hang below the calf (the Robot) is moved to
            // where the chain's end landed.
            if end_in_calf.is_some() {
                let parent =
                    self.parents[leg.foot].map_or(self.model_from_root, |p| model_from_joint[p]);
                local[leg.foot].translation =
                    parent.inverse().transform_point3(result.end_position);
            }
            set_model_rotation(
                local,
                model_from_joint,
                self.parents,
                self.model_from_root,
                leg.foot,
                want_rot,
            );
            self.l2m(local).run_subtree(leg.foot, model_from_joint)?;
            reached.push(
                pos(model_from_joint, leg.foot).distance(foot.target)
                    <= 1e-3 * foot.fk_length.max(1e-6),
            );
        }
        Ok(())
    }

    fn l2m<'b>(&'b self, local: &'b [Transform]) -> LocalToModelJob<'b> {
        LocalToModelJob {
            parents: self.parents,
            local,
            model_from_root: self.model_from_root,
        }
    }
}

/// The joint that carries every leg: the nearest common ancestor of the thighs (a lone
/// leg's thigh parent). `None` when the thighs share no ancestor.
pub fn pelvis_of(parents: &[Option<usize>], legs: &[LegChain]) -> Option<usize> {
    let chain = |j: usize| {
        let mut v = Vec::new();
        let mut c = parents.get(j).copied().flatten();
        while let Some(p) = c {
            v.push(p);
            c = parents.get(p).copied().flatten();
        }
        v
    };
    let first = chain(legs.first()?.thigh);
    first
        .into_iter()
        .find(|&a| legs.iter().all(|l| is_below(parents, a, l.thigh)))
}
