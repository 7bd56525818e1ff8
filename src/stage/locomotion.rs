//! The locomotion stage: runs after the pose graph on its output pose and blended root
//! motion, and fits them to a movement speed and direction (SPEC 5).
//!
//! Per frame:
//! 1. [`Locomotion::before_advance`]: speed matching sets the graph's play rate from the
//!    movement speed and the weighted speed of the inputs (their root-motion speed, or
//!    the implied speed of in-place clips).
//! 2. the graph advances (the caller);
//! 3. [`Locomotion::after_advance`]: orientation warping, stride warping, the pelvis,
//!    the leg IK, then the world placement and the foot-slide metric.
//!
//! **Drive.** The movement speed and direction drive the character as gameplay drives a
//! capsule: the character covers `movement_speed` on average whether or not the pose is
//! warped. With warping on, the world moves by the root-motion delta times the stride
//! scale (SPEC 5 step 4); with warping off it moves by the delta times the speed it
//! lacks (`movement_speed / (play_rate * clip speed)`), so an unwarped clip's feet slide
//! exactly as much as the mismatch says. In-place clips get a root delta along their
//! implied direction at their implied speed.

use glam::{DVec2, Mat4, Quat, Vec3};

use crate::anim::analysis::{analyse_clip, ClipAnalysis};
use crate::anim::contacts::{ContactSettings, FootContacts, LegChain};
use crate::anim::locomotion::in_place::InPlaceDecision;
use crate::anim::locomotion::speed_match::MIN_ANIM_SPEED;
use crate::anim::locomotion::{
    counter_rotate_spine, orientation_warp, pelvis_of, speed_match, spine_chain, FootSlideMeter,
    ImpliedSpeed, LegIkJob, OrientationWarp, OrientationWarpSettings, OrientationWarpState,
    SlideSettings, SpeedMatch, SpeedMatchSettings, StrideMode, StrideWarpJob, StrideWarpOutput,
    StrideWarpSettings, StrideWarpState,
};
use crate::anim::{AnimError, GroundTransform, LocalToModelJob, Transform};
use crate::asset::Model;

use crate::graph::eval::PoseGraph;
use crate::StageError;

/// Everything the user sets (window panel, `trace` flags).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocomotionSettings {
    /// Movement speed in scene units (metres) per second.
    pub movement_speed: f32,
    /// Movement direction relative to the character's facing, degrees, counter-clockwise
    /// seen from above (90 = to the character's left).
    pub direction_deg: f32,
    /// Speed matching on: the graph's play rate follows the movement speed.
    pub speed_matching: bool,
    /// Speed matching's play-rate clamp.
    pub speed_match: SpeedMatchSettings,
    /// Stride warping on: strides scaled to the movement speed and turned to its
    /// direction, feet placed with leg IK.
    pub stride_warping: bool,
    /// Stride warping's settings (metres and m/s for a human rig, scaled by the unit scale).
    pub stride: StrideWarpSettings,
    /// Orientation warping's settings: the share of the movement angle the body turns.
    pub orientation: OrientationWarpSettings,
    /// Two-bone IK soften ratio (1 = no softening).
    pub ik_soften: f32,
    /// Thresholds of the foot-slide metric (m/s for a human rig, times the unit scale).
    pub slide: SlideSettings,
    /// Foot-contact detection thresholds (in leg lengths), for each clip's planted times.
    pub contacts: ContactSettings,
    /// Manual stride (direction and scale) instead of graph-driven. Default `None`.
    pub manual_stride: Option<ManualStride>,
    /// Pin planted feet to where they came down (removes the slide that the warp leaves,
    /// e.g. at push-off). Default off, so the warp's own result is what is measured.
    pub foot_lock: bool,
    /// Seconds a released foot lock takes to blend back to the free target. Default 0.1.
    pub foot_lock_release_secs: f32,
}

impl Default for LocomotionSettings {
    fn default() -> Self {
        Self {
            movement_speed: 1.5,
            direction_deg: 0.0,
            speed_matching: true,
            speed_match: SpeedMatchSettings::default(),
            stride_warping: true,
            stride: StrideWarpSettings::default(),
            orientation: OrientationWarpSettings::default(),
            ik_soften: 1.0,
            slide: SlideSettings::default(),
            contacts: ContactSettings::default(),
            manual_stride: None,
            foot_lock: false,
            foot_lock_release_secs: 0.1,
        }
    }
}

/// What locomotion knows about one clip (computed once, on first use): the clip's
/// [`ClipAnalysis`] with the legs and contact settings the stage uses.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipLocomotion {
    /// Horizontal root-motion speed over the cycle as extracted (units/s), whether or not
    /// the clip counts as in place.
    pub root_speed: f64,
    /// Travel direction (model space, unit): the root motion's, else the implied one.
    pub direction: Vec3,
    /// Implied speed from the planted feet (`None`: no foot plants).
    pub implied: Option<ImpliedSpeed>,
    /// Contact intervals per leg.
    pub contacts: Vec<FootContacts>,
    /// The clip's length, seconds.
    pub duration_secs: f32,
    /// In place or root motion, and why (the one rule, [`crate::anim::locomotion::decide_in_place`]).
    pub in_place: InPlaceDecision,
}

impl ClipLocomotion {
    fn from_analysis(a: &ClipAnalysis) -> Self {
        Self {
            root_speed: a.root_speed,
            direction: a.direction(),
            implied: a.implied.clone(),
            contacts: a.contacts.clone(),
            duration_secs: a.duration_secs,
            in_place: a.in_place.clone(),
        }
    }

    /// True when the clip counts as in place (see [`crate::anim::locomotion::decide_in_place`]).
    pub fn in_place(&self) -> bool {
        self.in_place.in_place
    }
    /// The speed speed matching and stride warping use: root motion, or the implied
    /// speed of an in-place clip (0 when neither).
    pub fn speed(&self) -> f64 {
        if !self.in_place() {
            self.root_speed
        } else {
            self.implied.as_ref().map_or(0.0, |i| f64::from(i.speed))
        }
    }
    /// Whether `leg` is planted at clip time `t` (seconds within the cycle).
    pub fn planted(&self, leg: usize, t: f32) -> bool {
        let Some(c) = self.contacts.get(leg) else {
            return false;
        };
        let d = self.duration_secs;
        if c.intervals.len() == 1 && c.intervals[0].0 == c.intervals[0].1 {
            return true;
        }
        c.intervals.iter().any(|&(down, up)| {
            if down <= up {
                t >= down && t < up
            } else {
                t >= down || t < up
            }
        }) && d > 0.0
    }
}

/// Dedicated IK-foot bones of a rig, per leg: Unreal's `ik_foot_l` / `ik_foot_r`, and
/// `foot_ik.L` / `ik_foot.L` (Rigify-like) spellings, matched case-insensitively after a
/// namespace (`mixamorig:`, `Armature|`) is dropped; only for the `left` and `right` legs.
/// Real glTF rigs rarely have them, so the warp usually starts at the FK feet.
pub fn ik_foot_bones(skeleton: &crate::anim::Skeleton, legs: &[LegChain]) -> Vec<Option<usize>> {
    let bare = |n: &str| {
        let n = n.rsplit([':', '|']).next().unwrap_or(n);
        n.to_ascii_lowercase()
    };
    legs.iter()
        .map(|leg| {
            let side = match leg.name.as_str() {
                "left" => "l",
                "right" => "r",
                _ => return None,
            };
            let wanted = [
                format!("ik_foot_{side}"),
                format!("ik_foot.{side}"),
                format!("foot_ik_{side}"),
                format!("foot_ik.{side}"),
                format!("ik_foot{side}"),
            ];
            (0..skeleton.joint_count())
                .find(|&j| j != leg.foot && wanted.contains(&bare(&skeleton.names()[j])))
        })
        .collect()
}

/// Computes [`ClipLocomotion`] for a clip: the model's cached analysis when `legs` and
/// `settings` are the model's own (detected legs, default contacts), else a fresh one
/// with the user's in-place choice for the clip.
pub fn clip_locomotion(
    model: &Model,
    clip: usize,
    legs: &[LegChain],
    settings: &ContactSettings,
) -> Result<ClipLocomotion, StageError> {
    let c = model.clip(clip)?;
    let own_legs = model.legs().ok();
    if *settings == ContactSettings::default() && own_legs.as_deref() == Some(legs) {
        return model
            .clip_analysis(clip)
            .map(|a| ClipLocomotion::from_analysis(&a))
            .map_err(StageError::from);
    }
    analyse_clip(
        &model.skeleton,
        c,
        legs,
        settings,
        model.in_place_override(clip),
    )
    .map(|a| ClipLocomotion::from_analysis(&a))
    .map_err(|e| StageError::Clip {
        clip: c.name().to_string(),
        source: e,
    })
}

/// The locomotion stage (see the module docs).
#[derive(Clone, Debug)]
pub struct Locomotion {
    /// What the user set; read every frame.
    pub settings: LocomotionSettings,
    legs: Vec<LegChain>,
    pelvis: usize,
    spine: Vec<usize>,
    unit_scale: f32,
    clips: Vec<Option<Result<ClipLocomotion, StageError>>>,
    stride_state: StrideWarpState,
    orient_state: OrientationWarpState,
    /// The last frame's stride warp (overlays, trace).
    pub warp: StrideWarpOutput,
    /// The last frame's orientation warp (angles in radians).
    pub orientation: OrientationWarp,
    /// Per leg: the IK foot reached its target.
    pub reached: Vec<bool>,
    /// Foot slide measured over the run (world units; cleared by [`Self::restart`]).
    pub slide: FootSlideMeter,
    /// The last speed match (`None` while speed matching is off).
    pub speed_match: Option<SpeedMatch>,
    /// Speed of the inputs at rate 1 (units/s): what they covered last frame divided by
    /// the play rate, or before any frame their weighted clip speeds.
    pub anim_speed: f64,
    measured_speed: Option<f64>,
    /// True when the leading input is in place and its implied speed is used.
    pub uses_implied: bool,
    /// The last frame's warnings (e.g. no speed to match, a flipped warp), for display.
    pub warnings: Vec<String>,
    local: Vec<Transform>,
    model_from_joint: Vec<Mat4>,
    /// FK model pose before warping (overlays draw FK thigh lines from it).
    pub fk_model_from_joint: Vec<Mat4>,
    /// World placement of the root (ground plane), moved by the drive.
    pub world_from_root: GroundTransform,
    travel: Vec3,
    /// The leader's clip and cycles at the last frame (for the cycles played).
    cycles_start: Option<(usize, f64)>,
    /// IK feet this frame: the FK feet (or the rig's IK-foot bones), turned about the
    /// pelvis by orientation warping's leftover angle.
    ik_feet: Vec<Vec3>,
    /// Per leg, the rig's dedicated IK-foot bone ([`ik_foot_bones`]).
    ik_bones: Vec<Option<usize>>,
    /// Cycles of the leader clip played since the start, summed per frame (a new
    /// leader adds its own).
    pub cycles_played: f64,
    /// World positions of the feet this frame.
    /// (ankle, toe) per leg.
    pub world_feet: Vec<(Vec3, Option<Vec3>)>,
    /// Per leg: whether the foot is planted this frame (the inputs vote by weight).
    pub planted: Vec<bool>,
    /// The graph parameter the movement speed drives (a float named `speed` or
    /// `movement_speed`, e.g. the demo graph's Idle / Walk / Run switch and its blend
    /// space), found by [`Locomotion::attach`].
    pub speed_param: Option<String>,
    locks: Vec<FootLock>,
    /// Clips of the attached graph whose data [`Locomotion::prepare`] computes up front.
    pending_clips: Vec<usize>,
}

/// Foot-lock state of one leg (world space).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct FootLock {
    /// Where the planted foot is pinned (x, z used).
    at: Option<Vec3>,
    /// The last pin, blended out after lift-off.
    from: Vec3,
    /// 1 at lift-off, falling to 0 over the release time.
    fade: f32,
}

/// A fixed stride (manual mode): direction relative to the character's facing and scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ManualStride {
    /// Degrees counter-clockwise from the facing (+Z).
    pub direction_deg: f32,
    /// Stride scale (1 = the clip's own stride length).
    pub scale: f32,
}

impl Locomotion {
    /// Sets up locomotion for a model: legs (detected), pelvis, spine, unit scale. Errors
    /// with a clear message when the rig has no legs.
    pub fn new(model: &Model, settings: LocomotionSettings) -> Result<Self, StageError> {
        let legs = model.legs()?;
        Self::with_legs(model, settings, legs)
    }

    /// [`Locomotion::new`] with `legs`, the model's (their scale is the model's).
    fn with_legs(
        model: &Model,
        settings: LocomotionSettings,
        legs: Vec<LegChain>,
    ) -> Result<Self, StageError> {
        let sk = &model.skeleton;
        if legs.is_empty() {
            return Err(StageError::NoLegs {
                model: model.source.clone(),
            });
        }
        let n = sk.joint_count();
        for leg in &legs {
            if leg.thigh >= n || leg.calf >= n || leg.foot >= n {
                return Err(StageError::LegJointOutOfRange {
                    leg: leg.name.clone(),
                });
            }
            // The knee must hang below the hip; the foot may sit elsewhere (IK rigs).
            if leg.calf == leg.thigh || !sk.is_ancestor_or_self(leg.thigh, leg.calf) {
                return Err(StageError::CalfNotBelowThigh {
                    leg: leg.name.clone(),
                    calf: sk.names()[leg.calf].clone(),
                    thigh: sk.names()[leg.thigh].clone(),
                });
            }
        }
        let pelvis = pelvis_of(sk.parents(), &legs).ok_or_else(|| StageError::NoPelvis {
            model: model.source.clone(),
        })?;
        Ok(Self {
            settings,
            unit_scale: model.unit_scale(),
            spine: spine_chain(sk, pelvis),
            pelvis,
            clips: vec![None; model.clips.len()],
            stride_state: StrideWarpState::default(),
            orient_state: OrientationWarpState::default(),
            warp: StrideWarpOutput::default(),
            orientation: OrientationWarp::default(),
            reached: Vec::new(),
            slide: FootSlideMeter::new(legs.len()),
            speed_match: None,
            anim_speed: 0.0,
            measured_speed: None,
            uses_implied: false,
            warnings: Vec::new(),
            local: sk.rest_pose().to_vec(),
            model_from_joint: vec![Mat4::IDENTITY; n],
            fk_model_from_joint: vec![Mat4::IDENTITY; n],
            world_from_root: GroundTransform::IDENTITY,
            travel: Vec3::Z,
            cycles_start: None,
            cycles_played: 0.0,
            world_feet: vec![(Vec3::ZERO, None); legs.len()],
            ik_feet: vec![Vec3::ZERO; legs.len()],
            ik_bones: ik_foot_bones(sk, &legs),
            planted: vec![false; legs.len()],
            speed_param: None,
            locks: vec![FootLock::default(); legs.len()],
            pending_clips: Vec::new(),
            legs,
        })
    }

    /// The legs being warped (joint indices into the skeleton), detected on the model.
    pub fn legs(&self) -> &[LegChain] {
        &self.legs
    }
    /// Per leg, the IK-foot bone the warp starts from (`None`: the FK foot).
    pub fn ik_bones(&self) -> &[Option<usize>] {
        &self.ik_bones
    }
    /// The pelvis joint (index into the skeleton): the thighs' nearest common ancestor.
    pub fn pelvis(&self) -> usize {
        self.pelvis
    }
    /// The spine joints between the pelvis and the head, pelvis side first (empty
    /// without a head joint): orientation warping turns them back.
    pub fn spine(&self) -> &[usize] {
        &self.spine
    }
    /// `leg length / 0.9 m` (see [`crate::anim::locomotion::unit_scale`]).
    pub fn unit_scale(&self) -> f32 {
        self.unit_scale
    }

    /// Where the clip speed comes from, for readouts: "implied by the feet" for an
    /// in-place clip, "root motion" otherwise.
    pub fn speed_source(&self) -> &'static str {
        if self.uses_implied {
            "implied by the feet"
        } else {
            "root motion"
        }
    }

    /// The drive's readout, one item per line: play rate, clip speed and where it comes
    /// from, movement speed, the speed the clip plays at (units/s), stride scale and
    /// direction, pelvis offset (cm) and orientation warp (degrees). The viewport's text
    /// overlay and `render`'s text both print these lines, so the window, the panel (which
    /// names the same clip speed and source) and the CLI cannot disagree.
    pub fn readout(&self, play_rate: f64) -> Vec<String> {
        let w = &self.warp;
        vec![
            format!("play rate {play_rate:.3}"),
            format!(
                "clip speed {:.3} m/s ({})",
                self.anim_speed,
                self.speed_source()
            ),
            format!("movement speed {:.3} m/s", w.locomotion_speed),
            format!(
                "played speed {:.3} m/s (stride held at 1 under {:.3})",
                w.root_speed, w.min_root_speed
            ),
            format!("stride scale {:.3} (target {:.3})", w.scale, w.target_scale),
            format!(
                "stride direction ({:.2}, {:.2}, {:.2})",
                w.direction.x, w.direction.y, w.direction.z
            ),
            format!("pelvis offset {:.1} cm", w.pelvis_offset.length() * 100.0),
            format!(
                "orientation warp {:.1}° (body {:.1}°)",
                self.orientation.angle_rad.to_degrees(),
                self.orientation.body_yaw_rad.to_degrees()
            ),
        ]
    }
    /// The warped local pose of the last frame.
    pub fn local_pose(&self) -> &[Transform] {
        &self.local
    }
    /// Model-space matrices of the last frame's warped pose, one per joint (without
    /// the world placement; see [`Self::model_from_root`]).
    pub fn model_from_joint(&self) -> &[Mat4] {
        &self.model_from_joint
    }

    /// Per-clip data, computed on first use.
    pub fn clip(&mut self, model: &Model, clip: usize) -> Result<&ClipLocomotion, StageError> {
        if clip >= self.clips.len() {
            return Err(AnimError::ClipOutOfRange {
                clip,
                clips: self.clips.len(),
            }
            .into());
        }
        if self.clips[clip].is_none() {
            let r = clip_locomotion(model, clip, &self.legs, &self.settings.contacts);
            self.clips[clip] = Some(r);
        }
        match self.clips[clip].as_ref() {
            Some(Ok(c)) => Ok(c),
            Some(Err(e)) => Err(e.clone()),
            None => unreachable!("filled above"),
        }
    }

    /// Forgets time-dependent state (a seek, a new clip): interpolations jump, the slide
    /// metric does not count the jump.
    pub fn reset_motion(&mut self) {
        self.locks.fill(FootLock::default());
        self.stride_state.reset();
        self.orient_state.reset();
        self.slide.break_continuity();
    }

    /// Starts the run over: placement, slide metric and state.
    pub fn restart(&mut self) {
        self.reset_motion();
        self.slide.clear();
        self.world_from_root = GroundTransform::IDENTITY;
        self.cycles_start = None;
        self.cycles_played = 0.0;
        self.measured_speed = None;
    }

    /// Weighted speed of the graph's (non-layer) inputs, and whether the heaviest one is in
    /// place.
    fn input_speed(&mut self, model: &Model, graph: &PoseGraph) -> Result<(f64, bool), StageError> {
        let mut sum = 0.0;
        let mut weight = 0.0;
        let mut lead = (0.0f32, false);
        for p in graph
            .players()
            .iter()
            .filter(|p| !p.is_layer && p.weight > 0.0)
        {
            let (clip, w) = (p.clip, p.weight);
            let c = self.clip(model, clip)?;
            sum += c.speed() * f64::from(w);
            weight += f64::from(w);
            if w > lead.0 {
                lead = (w, c.in_place());
            }
        }
        Ok((if weight > 0.0 { sum / weight } else { 0.0 }, lead.1))
    }

    /// Finds the graph parameter the movement speed drives (see
    /// [`Locomotion::speed_param`]); call once per graph.
    pub fn attach(&mut self, graph: &PoseGraph) {
        self.pending_clips = graph.players().iter().map(|p| p.clip).collect();
        self.measured_speed = None;
        self.speed_param = graph.def().params.iter().find_map(|p| match p {
            crate::graph::def::ParamDef::Float { name, .. }
                if ["speed", "movement_speed"].contains(&name.to_ascii_lowercase().as_str()) =>
            {
                Some(name.clone())
            }
            _ => None,
        });
    }

    /// Computes the data of every clip of the attached graph now (contacts and implied
    /// speed take a few milliseconds per clip), so that no frame stalls when a blend
    /// first gives a clip weight.
    pub fn prepare(&mut self, model: &Model) -> Result<(), StageError> {
        for clip in std::mem::take(&mut self.pending_clips) {
            self.clip(model, clip)?;
        }
        Ok(())
    }

    /// Step 1: the movement speed drives the graph's speed parameter (which picks the
    /// state and the blend-space weights), then speed matching sets the graph's play rate
    /// (when on) from the inputs that parameter selected.
    pub fn before_advance(
        &mut self,
        model: &Model,
        graph: &mut PoseGraph,
    ) -> Result<(), StageError> {
        if !self.pending_clips.is_empty() {
            self.prepare(model)?;
        }
        if let Some(name) = &self.speed_param {
            let v = self.settings.movement_speed;
            if graph.params().get_float(name) != Some(v) {
                graph.params_mut().set_float(name, v)?;
                // New weights (and pose) now, so the speed below is the new inputs'.
                graph.evaluate(model)?;
            }
        }
        let (weighted, in_place) = self.input_speed(model, graph)?;
        // What the inputs really covered last frame (cycle sync changes a blend's speed:
        // the demo's Walk/Run space at speed 3 covers 2.6 m/s), else their weighted speed.
        let speed = match self.measured_speed {
            Some(v) if weighted >= MIN_ANIM_SPEED => v,
            _ => weighted,
        };
        self.anim_speed = speed;
        self.uses_implied = in_place && speed > 0.0;
        if self.settings.speed_matching {
            let m = speed_match(
                f64::from(self.settings.movement_speed),
                speed,
                graph.rate(),
                &self.settings.speed_match,
            )?;
            graph.set_rate(m.play_rate)?;
            self.speed_match = Some(m);
        } else {
            self.speed_match = None;
        }
        Ok(())
    }

    /// Steps 3 on: warps the graph's pose of this frame. `dt_secs` is the wall time
    /// played (0 for a seek or the first frame: no motion, interpolations jump).
    pub fn after_advance(
        &mut self,
        model: &Model,
        graph: &PoseGraph,
        dt_secs: f64,
    ) -> Result<(), StageError> {
        let sk = &model.skeleton;
        let (speed, in_place) = self.input_speed(model, graph)?;
        self.anim_speed = speed;
        self.uses_implied = in_place && speed > 0.0;
        self.warnings.clear();
        if speed < MIN_ANIM_SPEED {
            self.warnings.push(
                "the clip has no root motion and its feet imply no speed (none planted, or standing still): play rate and stride left alone"
                    .into(),
            );
        }
        if let Some(w) = self.speed_match.as_ref().and_then(|m| m.warning.as_ref()) {
            if speed >= MIN_ANIM_SPEED {
                self.warnings.push(w.clone());
            }
        }
        let rate = graph.rate();
        let dt = dt_secs.max(0.0) as f32;
        let seek = dt <= 0.0;

        // Root delta (model space, units): the graph's, plus the implied motion of the
        // in-place inputs over the clip seconds each actually played. The clip speed the
        // stride scale divides by is measured the same way (each input at the rate its
        // sync gave it), so the scale is right for cycle-synced blends too.
        let d = graph.root_delta();
        let mut implied_delta = Vec3::ZERO;
        let mut played_speed = 0.0f64;
        let mut total = 0.0f64;
        for p in graph
            .players()
            .iter()
            .filter(|p| !p.is_layer && p.weight > 0.0)
        {
            let (clip, w) = (p.clip, f64::from(p.weight));
            let advanced = p.advanced_secs().filter(|_| !seek);
            let c = self.clip(model, clip)?;
            total += w;
            match advanced {
                Some(secs) => {
                    played_speed += w * c.speed() * secs.abs() / dt_secs;
                    if let (true, Some(i)) = (c.in_place(), &c.implied) {
                        implied_delta += i.direction * (f64::from(i.speed) * secs.abs() * w) as f32;
                    }
                }
                None => played_speed += w * c.speed() * rate.abs(),
            }
        }
        if total > 0.0 {
            played_speed /= total;
            implied_delta /= total as f32;
        }
        if !seek && rate.abs() > 1e-9 && speed >= MIN_ANIM_SPEED {
            self.measured_speed = Some(played_speed / rate.abs());
            self.anim_speed = played_speed / rate.abs();
        }
        let root_delta =
            Vec3::new(d.translation.x as f32, 0.0, d.translation.y as f32) + implied_delta;
        if root_delta.length_squared() > 1e-12 {
            self.travel = root_delta.normalize();
        }

        // Orientation warping.
        self.orientation = orientation_warp(
            self.settings.direction_deg.to_radians(),
            dt,
            &self.settings.orientation,
            &mut self.orient_state,
        )?;
        if self.orientation.flipped {
            self.warnings.push(
                "the movement is more than 90 degrees off the clip's travel: warped as if backwards (a backward clip fits better)"
                    .into(),
            );
        }
        let stride_dir = Quat::from_rotation_y(self.orientation.stride_yaw_rad) * self.travel;

        // FK pose, with the spine turned back first: legs that hang below the spine (a
        // quadruped's front legs) are then warped from where they really are.
        self.local.copy_from_slice(graph.local_pose());
        LocalToModelJob {
            parents: sk.parents(),
            local: &self.local,
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut self.model_from_joint)?;
        counter_rotate_spine(
            sk.parents(),
            &self.spine,
            self.orientation.spine_yaw_rad,
            &mut self.local,
            &mut self.model_from_joint,
        )?;
        self.fk_model_from_joint
            .copy_from_slice(&self.model_from_joint);

        // The share of speed the clip lacks (cycle average): what the drive adds.
        let cycle_speed = played_speed as f32;
        let lacking = if cycle_speed > 1e-6 {
            self.settings.movement_speed / cycle_speed
        } else {
            1.0
        };
        let warping = self.settings.stride_warping && speed >= MIN_ANIM_SPEED;
        // The body turned by only part of the movement angle: the feet's paths turn the
        // rest about the pelvis's ground point, so they travel along the movement.
        let leftover = if warping {
            self.orientation.stride_yaw_rad
        } else {
            0.0
        };
        let pelvis = self.fk_model_from_joint[self.pelvis].w_axis.truncate();
        let pivot = Vec3::new(pelvis.x, 0.0, pelvis.z);
        let turn = Quat::from_rotation_y(leftover);
        for (i, leg) in self.legs.iter().enumerate() {
            // The rig's IK-foot bone where it has one, else the FK foot.
            let j = self.ik_bones[i].unwrap_or(leg.foot);
            let f = self.fk_model_from_joint[j].w_axis.truncate();
            self.ik_feet[i] = pivot + turn * (f - pivot);
        }
        let mode = match (warping, self.settings.manual_stride) {
            (true, Some(m)) => StrideMode::Manual {
                direction: Quat::from_rotation_y(m.direction_deg.to_radians()) * Vec3::Z,
                scale: m.scale,
            },
            (true, None) => StrideMode::Graph {
                locomotion_speed: self.settings.movement_speed,
                direction: Some(stride_dir),
            },
            // No warp: an identity warp at the FK feet, for the overlays and the trace.
            (false, _) => StrideMode::Manual {
                direction: stride_dir,
                scale: 1.0,
            },
        };
        let stride_settings = if warping {
            self.settings.stride
        } else {
            StrideWarpSettings {
                pelvis_adjust: false,
                interpolate_scale: false,
                ..self.settings.stride
            }
        };
        StrideWarpJob {
            settings: &stride_settings,
            legs: &self.legs,
            pelvis: self.pelvis,
            model_from_joint: &self.fk_model_from_joint,
            ik_feet: Some(&self.ik_feet),
            mode,
            root_delta,
            dt_secs: dt,
            cycle_speed: Some(cycle_speed),
            floor_normal: Vec3::Y,
            gravity: -Vec3::Y,
            unit_scale: self.unit_scale,
        }
        .run(&mut self.stride_state, &mut self.warp)?;
        let world_scale = if warping { self.warp.scale } else { lacking };

        // World placement: the clip's own turning, and the movement along the direction.
        if !seek {
            let step = root_delta.length() * world_scale;
            let dir = Quat::from_rotation_y(self.settings.direction_deg.to_radians()) * self.travel;
            let local_step = DVec2::new(f64::from(dir.x * step), f64::from(dir.z * step));
            self.world_from_root = self
                .world_from_root
                .compose(&GroundTransform::new(d.yaw_rad, local_step));
        }

        // Contacts of the leader at its clip time; cycles played, summed per frame (a new
        // leader after a state change starts its own count).
        let leader = graph.leader();
        let clip = leader.clip;
        let cycles = leader.cycles();
        match self.cycles_start {
            Some((c, prev)) if c == clip && !seek => self.cycles_played += (cycles - prev).abs(),
            _ => {}
        }
        self.cycles_start = Some((clip, cycles));
        // Planted: the inputs vote with their weights, each at its own clip time (a
        // walk/run blend's foot is down when the heavier share of its inputs says so; their
        // data was computed by `input_speed` above).
        for i in 0..self.legs.len() {
            let mut down = 0.0f32;
            let mut all = 0.0f32;
            for p in graph
                .players()
                .iter()
                .filter(|p| !p.is_layer && p.weight > 0.0)
            {
                if let Some(Some(Ok(c))) = self.clips.get(p.clip) {
                    all += p.weight;
                    if c.planted(i, p.clock.time().phase_secs as f32) {
                        down += p.weight;
                    }
                }
            }
            self.planted[i] = all > 0.0 && down >= 0.5 * all;
        }
        let world = self.model_from_root();
        if warping && self.settings.foot_lock {
            self.lock_feet(world, dt, seek);
        }

        if warping {
            LegIkJob {
                parents: sk.parents(),
                legs: &self.legs,
                pelvis: self.pelvis,
                warp: &self.warp,
                thigh_compensation: self.settings.stride.thigh_compensation,
                soften: self.settings.ik_soften,
                model_from_root: Mat4::IDENTITY,
                forward: self.travel,
            }
            .run(
                &mut self.local,
                &mut self.model_from_joint,
                &mut self.reached,
            )?;
        } else {
            self.reached.clear();
            self.reached.resize(self.legs.len(), true);
        }

        // Foot slide: world feet (body turned by orientation warping).
        for (i, leg) in self.legs.iter().enumerate() {
            let at = |j: usize| world.transform_point3(self.model_from_joint[j].w_axis.truncate());
            self.world_feet[i] = (at(leg.foot), leg.toe.map(at));
        }
        if seek {
            self.slide.break_continuity();
        } else {
            self.slide.update(
                &self.world_feet,
                &self.planted,
                dt,
                &self.settings.slide,
                self.unit_scale,
            );
        }
        Ok(())
    }

    /// Foot locking: a planted foot's target keeps the ground position (x, z) it had
    /// when the foot came down, for the whole contact; after lift-off it blends back to
    /// the free target over `foot_lock_release_secs`. Targets stay within the FK leg
    /// length of the adjusted thigh.
    fn lock_feet(&mut self, world: Mat4, dt: f32, seek: bool) {
        let model_from_world = world.inverse();
        let release = self.settings.foot_lock_release_secs.max(1e-3);
        for (i, f) in self.warp.feet.iter_mut().enumerate() {
            let lock = &mut self.locks[i];
            let free = world.transform_point3(f.target);
            let pinned = |at: Vec3| Vec3::new(at.x, free.y, at.z);
            let want = if seek {
                lock.at = None;
                lock.fade = 0.0;
                free
            } else if self.planted[i] {
                let at = *lock.at.get_or_insert(free);
                lock.from = at;
                lock.fade = 1.0;
                pinned(at)
            } else {
                lock.at = None;
                lock.fade = (lock.fade - dt / release).max(0.0);
                free.lerp(pinned(lock.from), lock.fade)
            };
            let mut target = model_from_world.transform_point3(want);
            let to = target - f.thigh_adjusted;
            let len = to.length();
            if self.settings.stride.clamp_to_fk_length && len > f.fk_length && len > 0.0 {
                target = f.thigh_adjusted + to * (f.fk_length / len);
                f.clamped = true;
            }
            f.target = target;
        }
    }

    /// The clip's travel direction (model space, unit) of the last frame.
    pub fn travel(&self) -> Vec3 {
        self.travel
    }

    /// World from model of the last frame: the placement and the body yaw of orientation
    /// warping.
    pub fn model_from_root(&self) -> Mat4 {
        self.world_from_root.to_mat4() * Mat4::from_rotation_y(self.orientation.body_yaw_rad)
    }

    /// One played frame of `graph` with locomotion: speed match, advance, warp.
    pub fn advance(
        &mut self,
        model: &Model,
        graph: &mut PoseGraph,
        dt_secs: f64,
    ) -> Result<(), StageError> {
        self.before_advance(model, graph)?;
        graph.advance(model, dt_secs)?;
        self.after_advance(model, graph, dt_secs)
    }

    /// A seek (or the first frame): re-evaluates the warp for the graph's current pose with
    /// no motion and no time-dependent state.
    pub fn evaluate_still(
        &mut self,
        model: &Model,
        graph: &mut PoseGraph,
    ) -> Result<(), StageError> {
        self.reset_motion();
        self.before_advance(model, graph)?;
        self.after_advance(model, graph, 0.0)
    }
}
