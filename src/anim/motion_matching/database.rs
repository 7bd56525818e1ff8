//! The feature database: frames of a clip set sampled at a fixed rate, each described by
//! a feature vector in its root space, normalised per group and weighted.
//!
//! Feature groups (in this order; the trajectory groups hold one entry per configured
//! time):
//!
//! | group                  | per entry                    | units            |
//! |------------------------|------------------------------|------------------|
//! | `foot_position`        | x, y, z of each foot joint   | m, facing frame  |
//! | `foot_velocity`        | x, y, z of each foot joint   | m/s, facing frame|
//! | `hip_velocity`         | x, y, z of the hips          | m/s, facing frame|
//! | `trajectory_position`  | x, z of the facing frame at +t | m, facing frame |
//! | `trajectory_direction` | x, z of its facing at +t     | unit vector      |
//! | `past_position`        | x, z of the facing frame at -t | m, facing frame |
//!
//! The *facing frame* of a time is the clip's root frame then, with the gait's sway
//! averaged out of its path and turned to where the body faces ([`facing_offset`]).
//! Velocities are central differences over ±1/60 s of the world motion (root motion
//! included), expressed in the facing frame of the frame's time, so a planted foot has
//! a velocity of about zero.
//!
//! **Clip ends.** A looping clip's future wraps into its next cycle (wrap-safe root
//! motion). A non-looping clip's trajectory past its end continues at the clip's final
//! root velocity and turn rate (the motion of its last stretch, at most 1/30 s long,
//! repeated), and before its start at its first; its last `end_margin_secs` are kept for
//! the pose lookup but are never a jump target (playback would run off the end at once).
//!
//! **In-place clips** (no root motion) move along their implied ground velocity (the
//! planted feet's speed, from the locomotion stage) when the caller gives one, else they
//! stand still.
//!
//! **Normalisation.** Per dimension the mean over the database is subtracted; each group
//! is divided by its own standard deviation (the square root of its dimensions' mean
//! variance), so every group's mean per-dimension variance is 1 whatever its units, while
//! dimensions of one group keep their relative scale. The weight of a group then
//! multiplies its squared distance: stored values are scaled by `sqrt(weight)`.

use std::ops::Range;

use glam::{DVec2, Mat4, Vec2, Vec3};
use rayon::prelude::*;

use crate::model_pose::ModelPoseJob;
use crate::{AnimError, Clip, ClipRootMotion, GroundTransform, Skeleton, Transform};

/// A group of features, normalised together and given one weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FeatureGroup {
    /// Position (x, y, z) of each foot joint, metres, facing frame.
    FootPosition,
    /// Velocity (x, y, z) of each foot joint, m/s, facing frame.
    FootVelocity,
    /// Velocity (x, y, z) of the hips joint, m/s, facing frame.
    HipVelocity,
    /// Ground position (x, z) of the facing frame at each future time, metres, in the
    /// facing frame of the frame's time.
    TrajectoryPosition,
    /// Facing direction (x, z; unit vector) at each future time, in the facing frame of
    /// the frame's time.
    TrajectoryDirection,
    /// Ground position (x, z) of the facing frame at each past time, metres, in the
    /// facing frame of the frame's time.
    PastPosition,
}

/// Every group, in layout order.
pub const FEATURE_GROUPS: [FeatureGroup; 6] = [
    FeatureGroup::FootPosition,
    FeatureGroup::FootVelocity,
    FeatureGroup::HipVelocity,
    FeatureGroup::TrajectoryPosition,
    FeatureGroup::TrajectoryDirection,
    FeatureGroup::PastPosition,
];

impl FeatureGroup {
    /// The name used in files, JSON and the debugger.
    pub fn as_str(self) -> &'static str {
        match self {
            FeatureGroup::FootPosition => "foot_position",
            FeatureGroup::FootVelocity => "foot_velocity",
            FeatureGroup::HipVelocity => "hip_velocity",
            FeatureGroup::TrajectoryPosition => "trajectory_position",
            FeatureGroup::TrajectoryDirection => "trajectory_direction",
            FeatureGroup::PastPosition => "past_position",
        }
    }

    fn index(self) -> usize {
        FEATURE_GROUPS.iter().position(|g| *g == self).unwrap_or(0)
    }
}

/// The joints the pose features read.
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureJoints {
    /// Foot (ankle) joints, usually left then right; at least one.
    pub feet: Vec<usize>,
    /// The hips (pelvis) joint.
    pub hips: usize,
}

/// A tagged time range of one clip.
#[derive(Clone, Debug, PartialEq)]
pub struct TagRange {
    /// Index into [`DatabaseSettings::tags`].
    pub tag: usize,
    /// Clip seconds, inclusive; `start_secs <= end_secs`.
    pub start_secs: f32,
    /// End of the range, clip seconds, inclusive.
    pub end_secs: f32,
}

/// One clip of the set.
#[derive(Clone, Debug)]
pub struct ClipSource<'a> {
    /// The clip sampled for poses and features.
    pub clip: &'a Clip,
    /// Index of the clip in its model, reported back in [`DbClip::model_clip`].
    pub model_clip: usize,
    /// Whether the clip loops (its future wraps into the next cycle); a non-looping
    /// clip's last `end_margin_secs` are never a jump target.
    pub looping: bool,
    /// The clip's root motion, `None` for in-place clips.
    pub root: Option<&'a ClipRootMotion>,
    /// Ground velocity (model x, z; units/s) of an in-place clip, e.g. its implied speed.
    pub implied_velocity: Option<Vec2>,
    /// Tagged time ranges of this clip; they set the tag bits of its frames.
    pub tags: &'a [TagRange],
    /// When each leg is planted (the foot lock's legs, in order); empty = never.
    pub contacts: &'a [crate::contacts::FootContacts],
    /// Where the body faces in the clip's root frame (radians about +Y, 0 = +Z): root
    /// motion's yaw counts from the clip's start, so a take that starts facing -Z has a
    /// root frame whose +Z is behind the actor. Features are measured in the frame
    /// turned by this, so every take walks forwards along +Z.
    pub facing_yaw_rad: f32,
}

/// How the database is built.
#[derive(Clone, Debug, PartialEq)]
pub struct DatabaseSettings {
    /// Frames per second of clip time (> 0).
    pub sample_rate_hz: f32,
    /// Future trajectory times, seconds (> 0), e.g. 0.33, 0.66, 1.0.
    pub future_secs: Vec<f32>,
    /// Past trajectory times, seconds back (> 0); empty = no past group.
    pub past_secs: Vec<f32>,
    /// Last seconds of a non-looping clip that are never a jump target (>= 0).
    pub end_margin_secs: f32,
    /// Weight per group, in [`FEATURE_GROUPS`] order (>= 0).
    pub weights: [f32; 6],
    /// Tag names; a frame's tags are a bit mask over this list (at most 32).
    pub tags: Vec<String>,
    /// Half-width (seconds, >= 0; 0 = off) of the window that smooths the root's
    /// ground path for the features (see [`facing_offset`]).
    pub root_smoothing_secs: f32,
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            sample_rate_hz: 30.0,
            future_secs: vec![0.33, 0.66, 1.0],
            past_secs: vec![0.33],
            end_margin_secs: 0.2,
            weights: [0.75, 1.0, 1.0, 1.0, 1.5, 0.5],
            tags: Vec::new(),
            root_smoothing_secs: 0.5,
        }
    }
}

/// One database frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameInfo {
    /// Index into [`Database::clips`] (whose [`DbClip::model_clip`] is the model's clip).
    pub source: u32,
    /// Clip seconds.
    pub time_secs: f32,
    /// Bit mask over [`Database::tag_names`].
    pub tags: u32,
    /// Whether a jump may land here (false in a non-looping clip's end margin).
    pub candidate: bool,
}

/// Per clip of the set.
#[derive(Clone, Debug, PartialEq)]
pub struct DbClip {
    /// Index of the clip in its model ([`ClipSource::model_clip`]).
    pub model_clip: usize,
    /// The clip's name, for messages and the debugger.
    pub name: String,
    /// Clip duration, seconds (> 0).
    pub duration_secs: f32,
    /// Whether the clip loops.
    pub looping: bool,
    /// First database frame of the clip, and how many there are.
    pub first_frame: usize,
    /// Number of database frames of the clip, from `first_frame` on.
    pub frame_count: usize,
}

/// A run of consecutive frames whose axis-aligned bounds in normalised feature space the
/// database keeps ([`Database::small_bounds`], [`Database::large_bounds`]).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FrameBox {
    pub frames: Range<usize>,
    /// Database clips (sources) the frames belong to, inclusive.
    pub sources: (u32, u32),
}

/// The bounds of [`LANES`] boxes, one dimension: lows and highs, lane = box.
pub(super) type BoundsRow = ([f32; LANES], [f32; LANES]);
/// Small boxes per large box.
pub(super) const PER_LARGE: usize = LARGE_BOX / SMALL_BOX;
/// The bounds of the [`PER_LARGE`] small boxes of a large box, one dimension.
pub(super) type SmallRow = ([f32; PER_LARGE], [f32; PER_LARGE]);

/// The database: features of every frame, normalised and weighted, with the bounds the
/// accelerated search prunes with.
#[derive(Clone, Debug, PartialEq)]
pub struct Database {
    pub(super) settings: DatabaseSettings,
    pub(super) dims: usize,
    /// Feature range of each group (empty when the group has no entries).
    pub(super) groups: [Range<usize>; 6],
    pub(super) clips: Vec<DbClip>,
    pub(super) frames: Vec<FrameInfo>,
    /// Raw features, frame-major (`frames × dims`).
    pub(super) raw: Vec<f32>,
    pub(super) mean: Vec<f32>,
    /// Standard deviation per group (1 for a constant group).
    pub(super) group_std: [f32; 6],
    /// Multiplier per dimension: `sqrt(weight) / group_std`.
    pub(super) scale: Vec<f32>,
    /// Normalised, weighted features (`frames × dims`).
    pub(super) features: Vec<f32>,
    /// The same features in blocks of [`LANES`] frames, dimension-major within a block
    /// (`[block][dim][lane]`; the last block padded with zeros), for the search that
    /// scores [`LANES`] frames per step.
    pub(super) blocks: Vec<[f32; LANES]>,
    pub(super) small_boxes: Vec<FrameBox>,
    pub(super) large_boxes: Vec<FrameBox>,
    /// The small boxes' bounds, the four of each large box together, dimension-major
    /// (`large boxes × dims` rows of four lows and four highs; missing boxes empty), so
    /// the four lower bounds are summed per step.
    pub(super) small_bounds: Vec<SmallRow>,
    /// The large boxes' bounds in blocks of [`LANES`] boxes, dimension-major within a
    /// block (padding boxes are empty: +inf low, -inf high), so eight boxes' lower bounds
    /// are summed per step.
    pub(super) large_bounds: Vec<BoundsRow>,
}

/// Frames per small bounding box and small boxes per large one (as in "Learned Motion
/// Matching": 16 and 64 frames).
pub(super) const SMALL_BOX: usize = 16;
/// Frames scored together by the block search (a small box is two blocks).
pub const LANES: usize = 8;
pub(super) const LARGE_BOX: usize = 64;

/// Half the central-difference interval of the velocity features.
const VELOCITY_H_SECS: f64 = 1.0 / 60.0;
/// Interval over which a non-looping clip's end velocity is measured.
const END_VELOCITY_SECS: f64 = 1.0 / 30.0;

fn invalid(what: &str, detail: impl Into<String>) -> AnimError {
    AnimError::OutOfRange {
        what: what.into(),
        detail: detail.into(),
    }
}

/// Applies a ground transform to a 3D point (x, z moved; y kept).
fn ground_point(g: &GroundTransform, p: Vec3) -> Vec3 {
    let xz = g.transform_point(DVec2::new(p.x as f64, p.z as f64));
    Vec3::new(xz.x as f32, p.y, xz.y as f32)
}

/// How a clip moves over the ground, wrap-safe for looping clips.
enum RootPath<'a> {
    Motion {
        root: &'a ClipRootMotion,
        looping: bool,
        duration: f64,
    },
    Implied(DVec2),
    Still,
}

impl<'a> RootPath<'a> {
    fn of(s: &ClipSource<'a>) -> RootPath<'a> {
        match (s.root, s.implied_velocity) {
            (Some(root), _) => RootPath::Motion {
                root,
                looping: s.looping,
                duration: s.clip.duration_secs() as f64,
            },
            (None, Some(v)) => RootPath::Implied(DVec2::new(v.x as f64, v.y as f64)),
            (None, None) => RootPath::Still,
        }
    }

    /// Where a pose sampled for unwrapped time `t` is taken from.
    fn sample_time(&self, t: f64, duration: f64, looping: bool) -> f64 {
        if duration <= 0.0 {
            0.0
        } else if looping {
            t.rem_euclid(duration)
        } else {
            t.clamp(0.0, duration)
        }
    }

    /// The model-space ground frame of the root at sampling time `u` (identity for
    /// in-place clips).
    fn frame_at(&self, u: f64) -> GroundTransform {
        match self {
            RootPath::Motion { root, .. } => root.motion.sample(u),
            _ => GroundTransform::IDENTITY,
        }
    }

    /// The root frame at `t1` seen from the root frame at `t0` (unwrapped seconds).
    fn delta(&self, t0: f64, t1: f64) -> Result<GroundTransform, AnimError> {
        match self {
            RootPath::Still => Ok(GroundTransform::IDENTITY),
            RootPath::Implied(v) => Ok(GroundTransform::new(0.0, *v * (t1 - t0))),
            RootPath::Motion {
                root,
                looping: true,
                ..
            } => root.motion.delta_secs(t0, t1),
            RootPath::Motion {
                root,
                looping: false,
                duration,
            } => {
                let m = &root.motion;
                let at = |t: f64| m.sample(t.clamp(0.0, *duration));
                // Both ends extrapolated with the velocity of the clip's first/last
                // stretch, so the trajectory of a frame near an end is still defined.
                let beyond = |t: f64| -> GroundTransform {
                    if t > *duration {
                        extrapolate(m, *duration, t - *duration, true)
                    } else if t < 0.0 {
                        extrapolate(m, 0.0, -t, false)
                    } else {
                        GroundTransform::IDENTITY
                    }
                };
                let a = at(t0).compose(&beyond(t0));
                let b = at(t1).compose(&beyond(t1));
                Ok(a.inverse().compose(&b))
            }
        }
    }
}

/// Samples per side of the root-smoothing window.
const SMOOTHING_SAMPLES: i32 = 15;

/// The smoothed root frame at clip time `t` (unwrapped seconds), in the root's frame
/// at `t`: where the character stands, and how its root turns, once the gait's sway is
/// averaged out ([`facing_at`] adds where the body faces).
///
/// Why: root motion taken from motion capture follows the hips, whose yaw swings a few
/// degrees each step and whose position sways sideways. Features measured in that frame
/// carry the swing (a straight walk's future points wobble by tenths of a metre a
/// second ahead), which no smooth desired trajectory matches, so the search keeps
/// jumping to whichever frames happen to face straight. Averaging the path over a
/// Gaussian window (sigma = half the half-width, ±`half_width_secs`) removes the swing
/// and keeps turns. Non-looping clips' ends continue at their end velocity (as the
/// trajectory does); in-place clips have no sway: identity.
fn smoothed_offset(
    path: &RootPath<'_>,
    t: f64,
    half_width_secs: f64,
) -> Result<GroundTransform, AnimError> {
    if half_width_secs <= 0.0 || !matches!(path, RootPath::Motion { .. }) {
        return Ok(GroundTransform::IDENTITY);
    }
    let h = half_width_secs / SMOOTHING_SAMPLES as f64;
    let sigma = half_width_secs / 2.0;
    let (mut sum_w, mut pos, mut dir) = (0.0f64, DVec2::ZERO, DVec2::ZERO);
    for j in -SMOOTHING_SAMPLES..=SMOOTHING_SAMPLES {
        let s = j as f64 * h;
        let w = (-0.5 * (s / sigma).powi(2)).exp();
        let g = path.delta(t, t + s)?;
        sum_w += w;
        pos += g.translation * w;
        dir += GroundTransform::rotate(g.yaw_rad, DVec2::Y) * w;
    }
    // rotate(yaw, +Z) = (sin yaw, cos yaw).
    let yaw = if dir.length_squared() > 1e-12 {
        dir.x.atan2(dir.y)
    } else {
        0.0
    };
    Ok(GroundTransform::new(yaw, pos / sum_w))
}

/// The *facing frame* of a database clip at clip time `t` (seconds), relative to the
/// clip's root frame then: the root's path with the gait's sway averaged out (a Gaussian
/// window of `DatabaseSettings::root_smoothing_secs` either side: motion capture's root
/// follows the hips, whose yaw swings a few degrees each step and whose position sways,
/// which no smooth desired trajectory matches), turned by
/// [`ClipSource::facing_yaw_rad`] to where the body faces. Features are measured in it,
/// and the matcher plays poses and places its query in it.
pub fn facing_offset(
    s: &ClipSource<'_>,
    t: f64,
    settings: &DatabaseSettings,
) -> Result<GroundTransform, AnimError> {
    facing_at(&RootPath::of(s), s, t, settings.root_smoothing_secs as f64)
}

/// The smoothed root frame turned to where the body faces ([`ClipSource::facing_yaw_rad`]).
fn facing_at(
    path: &RootPath<'_>,
    s: &ClipSource<'_>,
    t: f64,
    smoothing_secs: f64,
) -> Result<GroundTransform, AnimError> {
    Ok(smoothed_offset(path, t, smoothing_secs)?
        .compose(&GroundTransform::new(s.facing_yaw_rad as f64, DVec2::ZERO)))
}

/// Constant-velocity continuation of a track `secs` past one of its ends: the motion of
/// the last (or first) stretch of at most [`END_VELOCITY_SECS`], repeated.
fn extrapolate(m: &crate::RootMotion, end: f64, secs: f64, forward: bool) -> GroundTransform {
    let steps = (secs / END_VELOCITY_SECS).ceil().max(1.0);
    let step = secs / steps;
    let step_motion = if forward {
        m.sample(end - step).inverse().compose(&m.sample(end))
    } else {
        m.sample(end + step).inverse().compose(&m.sample(end))
    };
    step_motion.pow(steps as i64)
}

struct Scratch {
    local: Vec<Transform>,
    model: Vec<Mat4>,
}

impl Database {
    /// Builds the database from a clip set, one frame every `1 / sample_rate_hz` seconds
    /// of each clip, in parallel. Errors name the clip or setting at fault.
    pub fn build(
        skeleton: &Skeleton,
        joints: &FeatureJoints,
        sources: &[ClipSource<'_>],
        settings: &DatabaseSettings,
    ) -> Result<Database, AnimError> {
        validate_settings(settings)?;
        let n_joints = skeleton.joint_count();
        if joints.feet.is_empty() {
            return Err(invalid("motion matching features", "no foot joint"));
        }
        for &j in joints.feet.iter().chain([&joints.hips]) {
            if j >= n_joints {
                return Err(AnimError::JointOutOfRange {
                    what: "motion matching feature joint".into(),
                    joint: j,
                    joint_count: n_joints,
                });
            }
        }
        if sources.is_empty() {
            return Err(AnimError::Empty {
                what: "motion matching clip set".into(),
            });
        }
        let groups = layout(joints.feet.len(), settings);
        let dims = groups[5].end;
        let rate = settings.sample_rate_hz as f64;
        let mut clips = Vec::with_capacity(sources.len());
        let mut jobs: Vec<(u32, f64)> = Vec::new();
        for (si, s) in sources.iter().enumerate() {
            let d = s.clip.duration_secs() as f64;
            if !(d.is_finite() && d > 0.0) {
                return Err(invalid(
                    &format!("motion matching clip '{}'", s.clip.name()),
                    "has zero length",
                ));
            }
            for t in s.tags {
                if t.tag >= settings.tags.len()
                    || t.start_secs
                        .partial_cmp(&t.end_secs)
                        .is_none_or(|o| o.is_gt())
                {
                    return Err(invalid(
                        &format!("motion matching clip '{}'", s.clip.name()),
                        format!(
                            "tag range {}..{} s (tag {}) is invalid",
                            t.start_secs, t.end_secs, t.tag
                        ),
                    ));
                }
            }
            if let Some(v) = s.implied_velocity {
                if !v.is_finite() {
                    return Err(AnimError::NonFinite {
                        what: format!("implied velocity of clip '{}'", s.clip.name()),
                    });
                }
            }
            // A looping clip's end is its start again; a non-looping one keeps its end.
            let count = if s.looping {
                ((d * rate) - 1e-6).ceil().max(1.0)
            } else {
                (d * rate + 1e-6).floor() + 1.0
            };
            if jobs.len() as f64 + count > 4_000_000.0 {
                return Err(invalid("motion matching database", "over 4,000,000 frames"));
            }
            let count = count as usize;
            clips.push(DbClip {
                model_clip: s.model_clip,
                name: s.clip.name().to_string(),
                duration_secs: d as f32,
                looping: s.looping,
                first_frame: jobs.len(),
                frame_count: count,
            });
            for i in 0..count {
                jobs.push((si as u32, (i as f64 / rate).min(d)));
            }
        }
        let rows: Vec<Result<(Vec<f32>, FrameInfo), AnimError>> = jobs
            .par_iter()
            .map_init(
                || Scratch {
                    local: vec![Transform::IDENTITY; n_joints],
                    model: vec![Mat4::IDENTITY; n_joints],
                },
                |scratch, &(si, t)| {
                    let s = &sources[si as usize];
                    let features =
                        frame_features(skeleton, joints, s, settings, &groups, t, scratch)?;
                    let d = s.clip.duration_secs() as f64;
                    let mut tags = 0u32;
                    for r in s.tags {
                        if (r.start_secs as f64) <= t + 1e-6 && t <= r.end_secs as f64 + 1e-6 {
                            tags |= 1 << r.tag;
                        }
                    }
                    let candidate = s.looping || t <= d - settings.end_margin_secs as f64 + 1e-6;
                    Ok((
                        features,
                        FrameInfo {
                            source: si,
                            time_secs: t as f32,
                            tags,
                            candidate,
                        },
                    ))
                },
            )
            .collect();
        let mut raw = Vec::with_capacity(rows.len() * dims);
        let mut frames = Vec::with_capacity(rows.len());
        for r in rows {
            let (f, info) = r?;
            raw.extend_from_slice(&f);
            frames.push(info);
        }
        Database::from_parts(settings.clone(), dims, groups, clips, frames, raw)
    }

    /// Assembles a database from raw features (the build, or a disk cache), computing the
    /// normalisation, the weighted features and the bounds.
    pub(super) fn from_parts(
        settings: DatabaseSettings,
        dims: usize,
        groups: [Range<usize>; 6],
        clips: Vec<DbClip>,
        frames: Vec<FrameInfo>,
        raw: Vec<f32>,
    ) -> Result<Database, AnimError> {
        if raw.len() != frames.len() * dims {
            return Err(AnimError::LengthMismatch {
                what: "motion matching raw features",
                expected: frames.len() * dims,
                actual: raw.len(),
            });
        }
        if raw.iter().any(|v| !v.is_finite()) {
            return Err(AnimError::NonFinite {
                what: "motion matching feature".into(),
            });
        }
        let n = frames.len().max(1) as f64;
        let mut mean = vec![0.0f32; dims];
        let mut var = vec![0.0f64; dims];
        for d in 0..dims {
            let m = raw
                .iter()
                .skip(d)
                .step_by(dims)
                .map(|&v| v as f64)
                .sum::<f64>()
                / n;
            mean[d] = m as f32;
            var[d] = raw
                .iter()
                .skip(d)
                .step_by(dims)
                .map(|&v| (v as f64 - m).powi(2))
                .sum::<f64>()
                / n;
        }
        let mut group_std = [1.0f32; 6];
        for (g, r) in groups.iter().enumerate() {
            if r.is_empty() {
                continue;
            }
            let s = (var[r.clone()].iter().sum::<f64>() / r.len() as f64).sqrt();
            group_std[g] = if s > 1e-6 { s as f32 } else { 1.0 };
        }
        let mut db = Database {
            settings,
            dims,
            groups,
            clips,
            frames,
            raw,
            mean,
            group_std,
            scale: vec![1.0; dims],
            features: Vec::new(),
            blocks: Vec::new(),
            small_boxes: Vec::new(),
            large_boxes: Vec::new(),
            small_bounds: Vec::new(),
            large_bounds: Vec::new(),
        };
        db.reweight();
        Ok(db)
    }

    /// Recomputes the weighted features and bounds after a weight change.
    fn reweight(&mut self) {
        for (g, r) in self.groups.clone().into_iter().enumerate() {
            let k = self.settings.weights[g].sqrt() / self.group_std[g];
            for s in &mut self.scale[r] {
                *s = k;
            }
        }
        let dims = self.dims;
        let mut features = vec![0.0f32; self.raw.len()];
        for (row, out) in self
            .raw
            .chunks(dims.max(1))
            .zip(features.chunks_mut(dims.max(1)))
        {
            self.normalize_into(row, out);
        }
        self.features = features;
        self.blocks = self.blocks();
        let (small_boxes, small) = self.boxes(SMALL_BOX);
        let (large_boxes, large) = self.boxes(LARGE_BOX);
        self.small_boxes = small_boxes;
        let dims = self.dims;
        let empty = ([f32::INFINITY; PER_LARGE], [f32::NEG_INFINITY; PER_LARGE]);
        let mut small_rows = vec![empty; large.len() * dims];
        for (i, bounds) in small.iter().enumerate() {
            let (l, lane) = (i / PER_LARGE, i % PER_LARGE);
            for (d, [lo, hi]) in bounds.iter().enumerate() {
                small_rows[l * dims + d].0[lane] = *lo;
                small_rows[l * dims + d].1[lane] = *hi;
            }
        }
        self.small_bounds = small_rows;
        self.large_boxes = large_boxes;
        let mut rows = vec![
            ([f32::INFINITY; LANES], [f32::NEG_INFINITY; LANES]);
            large.len().div_ceil(LANES) * dims
        ];
        for (i, bounds) in large.iter().enumerate() {
            let (b, lane) = (i / LANES, i % LANES);
            for (d, [lo, hi]) in bounds.iter().enumerate() {
                rows[b * dims + d].0[lane] = *lo;
                rows[b * dims + d].1[lane] = *hi;
            }
        }
        self.large_bounds = rows;
    }

    fn blocks(&self) -> Vec<[f32; LANES]> {
        let dims = self.dims;
        let n = self.frames.len().div_ceil(LANES);
        let mut out = vec![[0.0f32; LANES]; n * dims];
        for f in 0..self.frames.len() {
            let (b, lane) = (f / LANES, f % LANES);
            for (d, &v) in self.frame_features(f).iter().enumerate() {
                out[b * dims + d][lane] = v;
            }
        }
        out
    }

    /// Boxes of `size` consecutive frames, with each box's `(low, high)` per dimension.
    fn boxes(&self, size: usize) -> (Vec<FrameBox>, Vec<Vec<[f32; 2]>>) {
        let dims = self.dims;
        (0..self.frames.len())
            .step_by(size)
            .map(|start| {
                let end = (start + size).min(self.frames.len());
                let mut bounds = vec![[f32::INFINITY, f32::NEG_INFINITY]; dims];
                for f in start..end {
                    for (b, &v) in bounds.iter_mut().zip(self.frame_features(f)) {
                        b[0] = b[0].min(v);
                        b[1] = b[1].max(v);
                    }
                }
                let frame_box = FrameBox {
                    frames: start..end,
                    sources: (self.frames[start].source, self.frames[end - 1].source),
                };
                (frame_box, bounds)
            })
            .unzip()
    }

    /// Bytes the database holds (its vectors' contents: raw and normalised features, the
    /// blocks of eight frames, per-frame information, boxes and their bounds, clips).
    pub fn bytes(&self) -> usize {
        use std::mem::size_of;
        let clips: usize = self
            .clips
            .iter()
            .map(|c| size_of::<DbClip>() + c.name.len())
            .sum();
        (self.raw.len() + self.features.len() + self.mean.len() + self.scale.len())
            * size_of::<f32>()
            + self.blocks.len() * size_of::<[f32; LANES]>()
            + self.frames.len() * size_of::<FrameInfo>()
            + (self.small_boxes.len() + self.large_boxes.len()) * size_of::<FrameBox>()
            + self.small_bounds.len() * size_of::<SmallRow>()
            + self.large_bounds.len() * size_of::<BoundsRow>()
            + clips
    }

    /// [`Self::bytes`] per frame (0 for an empty database).
    pub fn bytes_per_frame(&self) -> f64 {
        self.bytes() as f64 / self.frames.len().max(1) as f64
    }

    /// Normalises and weights a raw feature vector (`dims` long each).
    pub fn normalize_into(&self, raw: &[f32], out: &mut [f32]) {
        for (((o, &r), &m), &s) in out.iter_mut().zip(raw).zip(&self.mean).zip(&self.scale) {
            *o = (r - m) * s;
        }
    }

    /// Sets the group weights (>= 0, finite) and renormalises.
    pub fn set_weights(&mut self, weights: [f32; 6]) -> Result<(), AnimError> {
        if weights.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(invalid(
                "motion matching weights",
                format!("{weights:?}: each must be finite and >= 0"),
            ));
        }
        self.settings.weights = weights;
        self.reweight();
        Ok(())
    }

    /// The settings the database was built with (weights as last set).
    pub fn settings(&self) -> &DatabaseSettings {
        &self.settings
    }
    /// Group weights, in [`FEATURE_GROUPS`] order.
    pub fn weights(&self) -> [f32; 6] {
        self.settings.weights
    }
    /// Length of one frame's feature vector (all groups together).
    pub fn dims(&self) -> usize {
        self.dims
    }
    /// Number of database frames, over all clips.
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }
    /// Every database frame, clip by clip, in time order within a clip.
    pub fn frames(&self) -> &[FrameInfo] {
        &self.frames
    }
    /// The database's clips (its sources, in order); [`FrameInfo::source`] indexes this.
    pub fn clips(&self) -> &[DbClip] {
        &self.clips
    }
    /// Tag names; bit `i` of [`FrameInfo::tags`] is `tag_names()[i]`.
    pub fn tag_names(&self) -> &[String] {
        &self.settings.tags
    }
    /// Feature range of a group (empty when the configuration has none of it).
    pub fn group_range(&self, g: FeatureGroup) -> Range<usize> {
        self.groups[g.index()].clone()
    }
    /// The normalised, weighted features of frame `f`.
    pub fn frame_features(&self, f: usize) -> &[f32] {
        &self.features[f * self.dims..(f + 1) * self.dims]
    }
    /// The raw (root-space, metres and m/s) features of frame `f`.
    pub fn raw_features(&self, f: usize) -> &[f32] {
        &self.raw[f * self.dims..(f + 1) * self.dims]
    }

    /// The frame of database clip `source` nearest to clip time `time_secs` (wrapped
    /// for looping clips, clamped otherwise).
    pub fn nearest_frame(&self, source: usize, time_secs: f64) -> usize {
        let c = &self.clips[source.min(self.clips.len() - 1)];
        let rate = self.settings.sample_rate_hz as f64;
        let i = (time_secs * rate).round();
        let i = if c.looping {
            (i as i64).rem_euclid(c.frame_count as i64) as usize
        } else {
            i.clamp(0.0, (c.frame_count - 1) as f64) as usize
        };
        c.first_frame + i
    }

    /// A copy of the database with its frames repeated `times` (>= 1) over: a bigger
    /// search problem of the same data, for benchmarks. With `jitter > 0` every copy
    /// after the first has its raw features moved by a deterministic offset of up to
    /// `jitter` standard deviations of their group (distinct frames, as a real large
    /// database has; exact copies tie, and ties cannot be pruned).
    pub fn repeated(&self, times: usize, jitter: f32) -> Database {
        let times = times.max(1);
        let mut clips = Vec::new();
        let mut frames = Vec::new();
        let mut raw = Vec::new();
        for k in 0..times {
            for c in &self.clips {
                let mut c = c.clone();
                c.first_frame += k * self.frames.len();
                clips.push(c);
            }
            let offset = (k * self.clips.len()) as u32;
            frames.extend(self.frames.iter().map(|f| FrameInfo {
                source: f.source + offset,
                ..*f
            }));
            if k == 0 || jitter <= 0.0 {
                raw.extend_from_slice(&self.raw);
                continue;
            }
            // xorshift64 seeded by the copy: the same bytes on every run.
            let mut state =
                0x9e37_79b9_7f4a_7c15u64 ^ (k as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            for (i, &v) in self.raw.iter().enumerate() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let u = (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
                let d = i % self.dims;
                let g = self.groups.iter().position(|r| r.contains(&d)).unwrap_or(0);
                raw.push(v + u * jitter * self.group_std[g]);
            }
        }
        let mut db = self.clone();
        db.clips = clips;
        db.frames = frames;
        db.raw = raw;
        db.reweight();
        db
    }
}

fn validate_settings(s: &DatabaseSettings) -> Result<(), AnimError> {
    let what = "motion matching settings";
    if !(s.sample_rate_hz.is_finite() && s.sample_rate_hz > 0.0 && s.sample_rate_hz <= 1000.0) {
        return Err(invalid(
            what,
            format!("sample_rate_hz {} must be in (0, 1000]", s.sample_rate_hz),
        ));
    }
    for (name, list) in [("future_secs", &s.future_secs), ("past_secs", &s.past_secs)] {
        if list.len() > 16
            || list
                .iter()
                .any(|t| !(t.is_finite() && *t > 0.0 && *t <= 60.0))
        {
            return Err(invalid(
                what,
                format!("{name} {list:?}: at most 16 times, each in (0, 60] s"),
            ));
        }
    }
    if s.future_secs.is_empty() {
        return Err(invalid(
            what,
            "future_secs is empty: the trajectory needs a time",
        ));
    }
    if !(s.root_smoothing_secs.is_finite()
        && s.root_smoothing_secs >= 0.0
        && s.root_smoothing_secs <= 5.0)
    {
        return Err(invalid(
            what,
            format!(
                "root_smoothing_secs {} must be in [0, 5]",
                s.root_smoothing_secs
            ),
        ));
    }
    if !(s.end_margin_secs.is_finite() && s.end_margin_secs >= 0.0) {
        return Err(invalid(
            what,
            format!("end_margin_secs {} must be >= 0", s.end_margin_secs),
        ));
    }
    if s.weights.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
        return Err(invalid(
            what,
            format!("weights {:?}: each must be finite and >= 0", s.weights),
        ));
    }
    if s.tags.len() > 32 {
        return Err(invalid(what, format!("{} tags; at most 32", s.tags.len())));
    }
    Ok(())
}

fn layout(feet: usize, s: &DatabaseSettings) -> [Range<usize>; 6] {
    let sizes = [
        3 * feet,
        3 * feet,
        3,
        2 * s.future_secs.len(),
        2 * s.future_secs.len(),
        2 * s.past_secs.len(),
    ];
    let mut start = 0;
    sizes.map(|n| {
        let r = start..start + n;
        start += n;
        r
    })
}

/// Raw features of one frame of one clip.
fn frame_features(
    skeleton: &Skeleton,
    joints: &FeatureJoints,
    s: &ClipSource<'_>,
    settings: &DatabaseSettings,
    groups: &[Range<usize>; 6],
    t: f64,
    scratch: &mut Scratch,
) -> Result<Vec<f32>, AnimError> {
    let d = s.clip.duration_secs() as f64;
    let path = RootPath::of(s);
    let smoothing = settings.root_smoothing_secs as f64;
    // Everything is expressed in the smoothed root frame at `t` (see `smoothed_offset`).
    let offset_inv = facing_at(&path, s, t, smoothing)?.inverse();
    // The smoothed frame at `t1` seen from the smoothed frame at `t`.
    let smoothed_delta = |t1: f64| -> Result<GroundTransform, AnimError> {
        Ok(offset_inv
            .compose(&path.delta(t, t1)?)
            .compose(&facing_at(&path, s, t1, smoothing)?))
    };
    let mut out = vec![0.0f32; groups[5].end];
    // Joint positions at time `t1`, in the smoothed root frame at `t`.
    let mut positions_at = |t1: f64, out: &mut Vec<Vec3>| -> Result<(), AnimError> {
        let u = path.sample_time(t1, d, s.looping);
        ModelPoseJob {
            skeleton,
            clip: s.clip,
            time_secs: u as f32,
            in_place: None,
        }
        .run(&mut scratch.local, &mut scratch.model)?;
        let frame_inv = path.frame_at(u).inverse();
        let delta = path.delta(t, t1)?;
        out.clear();
        for &j in joints.feet.iter().chain([&joints.hips]) {
            let p = scratch.model[j].w_axis.truncate();
            out.push(ground_point(
                &offset_inv,
                ground_point(&delta, ground_point(&frame_inv, p)),
            ));
        }
        Ok(())
    };
    let (ta, tb) = if s.looping {
        (t - VELOCITY_H_SECS, t + VELOCITY_H_SECS)
    } else {
        ((t - VELOCITY_H_SECS).max(0.0), (t + VELOCITY_H_SECS).min(d))
    };
    let (mut now, mut before, mut after) = (Vec::new(), Vec::new(), Vec::new());
    positions_at(t, &mut now)?;
    positions_at(ta, &mut before)?;
    positions_at(tb, &mut after)?;
    let dt = (tb - ta) as f32;
    let feet = joints.feet.len();
    for k in 0..feet {
        let p = now[k];
        let v = if dt > 0.0 {
            (after[k] - before[k]) / dt
        } else {
            Vec3::ZERO
        };
        out[groups[0].start + 3 * k..][..3].copy_from_slice(&p.to_array());
        out[groups[1].start + 3 * k..][..3].copy_from_slice(&v.to_array());
    }
    let hv = if dt > 0.0 {
        (after[feet] - before[feet]) / dt
    } else {
        Vec3::ZERO
    };
    out[groups[2].start..][..3].copy_from_slice(&hv.to_array());
    for (k, &tau) in settings.future_secs.iter().enumerate() {
        let g = smoothed_delta(t + tau as f64)?;
        let dir = GroundTransform::rotate(g.yaw_rad, DVec2::Y);
        out[groups[3].start + 2 * k] = g.translation.x as f32;
        out[groups[3].start + 2 * k + 1] = g.translation.y as f32;
        out[groups[4].start + 2 * k] = dir.x as f32;
        out[groups[4].start + 2 * k + 1] = dir.y as f32;
    }
    for (k, &tau) in settings.past_secs.iter().enumerate() {
        let g = smoothed_delta(t - tau as f64)?;
        out[groups[5].start + 2 * k] = g.translation.x as f32;
        out[groups[5].start + 2 * k + 1] = g.translation.y as f32;
    }
    if out.iter().any(|v| !v.is_finite()) {
        return Err(AnimError::NonFinite {
            what: format!(
                "motion matching features of clip '{}' at {t} s",
                s.clip.name()
            ),
        });
    }
    Ok(out)
}
