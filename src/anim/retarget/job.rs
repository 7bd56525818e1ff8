//! The retargeting job: retarget poses, per-frame rotation transfer and whole clips.

use glam::{Mat4, Quat, Vec3};

use super::automap::{left_axis, RetargetMap};
use super::{BONES, CHAINS};
use crate::contacts::LegChain;
use crate::ik::TwoBoneIkJob;
use crate::{
    AnimError, Clip, Interpolation, JointTracks, LocalToModelJob, SamplingCache, SamplingJob,
    Skeleton, Track, Transform,
};

/// How a clip is retargeted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetargetOptions {
    /// Keep the hips over the origin on the ground plane (an in-place clip): the source
    /// hips' horizontal travel is dropped, its height change kept.
    pub in_place: bool,
    /// Pin the target's feet with two-bone leg IK while the source's feet are planted.
    pub foot_ik: bool,
    /// Samples per second of the retargeted clip (the source's frame rate when it has
    /// one is used instead).
    pub samples_per_sec: f32,
}

impl Default for RetargetOptions {
    fn default() -> Self {
        Self {
            in_place: false,
            foot_ik: true,
            samples_per_sec: 30.0,
        }
    }
}

/// The chains whose retarget pose is chosen per chain ([`ChainPose`]), by name.
pub const POSE_CHAINS: [&str; 6] = [
    "spine", "neck", "leftArm", "rightArm", "leftLeg", "rightLeg",
];

/// The chain ([`POSE_CHAINS`]) profile bone `bone` belongs to (hips with the spine, head
/// with the neck, shoulders and hands with the arms, feet and toes with the legs).
pub fn pose_chain_of(bone: &str) -> Option<&'static str> {
    let side = |left: &'static str, right: &'static str| {
        if bone.starts_with("left") {
            Some(left)
        } else if bone.starts_with("right") {
            Some(right)
        } else {
            None
        }
    };
    match bone {
        "hips" | "spine" | "chest" | "upperChest" => Some("spine"),
        "neck" | "head" => Some("neck"),
        b if ["Shoulder", "Arm", "Hand"].iter().any(|k| b.contains(k)) => {
            side("leftArm", "rightArm")
        }
        b if ["Leg", "Foot", "Toes"].iter().any(|k| b.contains(k)) => side("leftLeg", "rightLeg"),
        _ => None,
    }
}

/// How a chain of the target stands in its retarget pose (the pose the source's change
/// from its own reference pose is applied to).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChainPose {
    /// Each bone turned to point the way the source's reference pose points it (in the
    /// aligned frame): an A-pose character and a T-pose clip then agree, the clip's arms
    /// move as the clip's do.
    #[default]
    MatchSource,
    /// The character's own rest pose: the source's changes are applied to it as they are
    /// (an A-pose character keeps its arms lower than a T-pose clip's by the difference).
    /// For chains whose automatic turn twists a rig's bones, or to keep a pose on purpose.
    KeepRest,
}

/// The retarget pose of each chain of [`POSE_CHAINS`] (same order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChainPoses(pub [ChainPose; 6]);

impl ChainPoses {
    /// The choice for `chain` ([`POSE_CHAINS`] name; an unknown name is
    /// [`ChainPose::MatchSource`]).
    pub fn get(&self, chain: &str) -> ChainPose {
        POSE_CHAINS
            .iter()
            .position(|c| *c == chain)
            .map_or(ChainPose::MatchSource, |i| self.0[i])
    }

    /// Sets `chain`'s choice; false when `chain` is not one of [`POSE_CHAINS`].
    pub fn set(&mut self, chain: &str, pose: ChainPose) -> bool {
        match POSE_CHAINS.iter().position(|c| *c == chain) {
            Some(i) => {
                self.0[i] = pose;
                true
            }
            None => false,
        }
    }
}

/// Everything fixed for one source/target pair: the maps, the retarget poses and the
/// frame that aligns the two characters' facings.
#[derive(Clone, Debug)]
pub struct Retargeter {
    source: Skeleton,
    target: Skeleton,
    /// `(source joint, target joint)` per mapped profile bone, in profile order.
    pairs: Vec<(usize, usize)>,
    /// `(source joint, target joint)` of unmapped target bones that have a namesake in the
    /// source (fingers and twist bones of the same rig family): their local change from
    /// the retarget pose is copied.
    namesakes: Vec<(usize, usize)>,
    source_ref_local: Vec<Transform>,
    /// Source retarget pose, model space.
    source_ref_model: Vec<Mat4>,
    /// Target retarget pose (rest with mapped bones turned like the source's), local
    /// and model space.
    target_ref_local: Vec<Transform>,
    target_ref_model: Vec<Mat4>,
    /// Turns source model space into target model space (yaw between the facings).
    align: Quat,
    /// Target leg length / source leg length.
    pub leg_ratio: f32,
    /// The source's leg length (its model units).
    source_leg: f32,
    source_hips: usize,
    /// The target joint that carries the hips and both legs (the hips, or the joint above
    /// them where the legs hang beside the hips, as on the Quaternius robot): the source
    /// hips' travel moves it.
    target_carrier: usize,
    /// Per target leg whose foot is not below its lower leg (an IK rig such as the
    /// Quaternius robot's, whose foot bone hangs off the hips): the foot's retarget-pose
    /// position in the lower leg's space, where it is put back after the legs turn.
    detached_feet: Vec<(usize, usize, Vec3)>,
    /// Target legs (left, right) for foot IK, and the source's legs for contacts.
    pub target_legs: Vec<LegChain>,
    /// Per target leg without a toe joint (the Quaternius robot's feet) whose source leg
    /// has one: where the source's toe is, scaled, in the target foot's space (its model
    /// transform's inverse at the retarget pose). The foot turns as the source's does, so
    /// this point follows the source's ball of the foot: the contact point after the heel
    /// lifts, for foot IK and for the quality figures.
    pub virtual_toes: Vec<Option<Vec3>>,
    /// Source legs (left, right), for the contacts the target's feet follow.
    pub source_legs: Vec<LegChain>,
}

pub(super) fn model_of(skeleton: &Skeleton, local: &[Transform]) -> Result<Vec<Mat4>, AnimError> {
    let mut model = vec![Mat4::IDENTITY; skeleton.joint_count()];
    LocalToModelJob {
        parents: skeleton.parents(),
        local,
        model_from_root: Mat4::IDENTITY,
    }
    .run(&mut model)?;
    Ok(model)
}

pub(super) fn rotation_of(m: &Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    r.normalize()
}

fn position_of(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

/// Puts each `(calf, foot, calf_from_foot)` foot where its calf carries it (`model` is
/// `local`'s model space): feet that do not hang below their shins, moved as if they did.
fn carry_feet(
    target: &Skeleton,
    feet: &[(usize, usize, Mat4)],
    model: &[Mat4],
    local: &mut [Transform],
) {
    for &(calf, foot, calf_from_foot) in feet {
        let wanted = model[calf] * calf_from_foot;
        let parent = target.parents()[foot]
            .map(|p| model[p])
            .unwrap_or(Mat4::IDENTITY);
        let (_, r, t) = (parent.inverse() * wanted).to_scale_rotation_translation();
        local[foot].rotation = r.normalize();
        local[foot].translation = t;
    }
}

/// Leg chains from a map, left then right.
fn legs_of(map: &RetargetMap) -> Vec<LegChain> {
    ["left", "right"]
        .iter()
        .filter_map(|side| {
            Some(LegChain {
                name: side.to_string(),
                thigh: map.joint(&format!("{side}UpperLeg"))?,
                calf: map.joint(&format!("{side}LowerLeg"))?,
                foot: map.joint(&format!("{side}Foot"))?,
                toe: map.joint(&format!("{side}Toes")),
            })
        })
        .collect()
}

fn leg_length(p: &[Mat4], legs: &[LegChain]) -> f32 {
    let sum: f32 = legs
        .iter()
        .map(|l| {
            position_of(&p[l.thigh]).distance(position_of(&p[l.calf]))
                + position_of(&p[l.calf]).distance(position_of(&p[l.foot]))
        })
        .sum();
    sum / legs.len().max(1) as f32
}

impl Retargeter {
    /// Prepares retargeting from `source` (mapped by `source_map`) onto `target`, every
    /// chain's retarget pose matching the source ([`ChainPose::MatchSource`]).
    ///
    /// Errors: either map lacks the hips or the legs; a pose is not finite; the legs have
    /// no length.
    pub fn new(
        source: &Skeleton,
        source_map: &RetargetMap,
        target: &Skeleton,
        target_map: &RetargetMap,
    ) -> Result<Self, AnimError> {
        Self::with_chain_poses(
            source,
            source_map,
            target,
            target_map,
            &ChainPoses::default(),
        )
    }

    /// [`Self::new`] with each chain's retarget pose chosen in `chain_poses`.
    pub fn with_chain_poses(
        source: &Skeleton,
        source_map: &RetargetMap,
        target: &Skeleton,
        target_map: &RetargetMap,
        chain_poses: &ChainPoses,
    ) -> Result<Self, AnimError> {
        let missing = |what: &str| AnimError::OutOfRange {
            what: "retargeting".into(),
            detail: format!("{what} is not mapped"),
        };
        let source_hips = source_map
            .joint("hips")
            .ok_or_else(|| missing("the source's hips"))?;
        let target_hips = target_map
            .joint("hips")
            .ok_or_else(|| missing("the target's hips"))?;
        let source_legs = legs_of(source_map);
        let target_legs = legs_of(target_map);
        if source_legs.len() != 2 || target_legs.len() != 2 {
            return Err(missing("a leg (upper leg, lower leg, foot)"));
        }
        let source_ref_model = model_of(source, source.reference_pose())?;
        let source_leg = leg_length(&source_ref_model, &source_legs);
        // Standing measures (a zero-pose BVH target stands in its reference pose).
        let standing = model_of(target, target.reference_pose())?;
        let target_leg = leg_length(&standing, &target_legs);
        if !(source_leg > 1e-9 && target_leg > 1e-9) {
            return Err(AnimError::OutOfRange {
                what: "retargeting".into(),
                detail: "a skeleton's legs have no length".into(),
            });
        }
        // Facings: each character's left (up x forward) in its model space.
        let positions = |m: &[Mat4]| m.iter().map(position_of).collect::<Vec<_>>();
        let source_left = left_from(&positions(&source_ref_model), &source_legs);
        let target_left = left_from(&positions(&standing), &target_legs);
        let align = yaw_between(source_left, target_left);

        let pairs: Vec<(usize, usize)> = BONES
            .iter()
            .filter_map(|b| Some((source_map.joint(b)?, target_map.joint(b)?)))
            .collect();
        let namesakes: Vec<(usize, usize)> = (0..target.joint_count())
            .filter(|&t| target.is_bound(t) && !pairs.iter().any(|p| p.1 == t))
            .filter_map(|t| {
                let s = source.find(&target.names()[t])?;
                (source.is_bound(s) && !pairs.iter().any(|p| p.0 == s)).then_some((s, t))
            })
            .collect();

        // The target's retarget pose: each mapped bone turned (parents first) so that it
        // points to its mapped child as the source's does, in the aligned frame. From the
        // target's standing pose (a BVH's first frame, not its zero pose): the shortest
        // turn keeps the twist the bone starts with, so a same-rig retarget starts from
        // the source's own reference pose and is the identity (from a zero pose the
        // Bandai hips kept a half-turn twist and swapped the legs' sides).
        let mut local = target.reference_pose().to_vec();
        let mut model = standing.clone();
        // Feet that do not hang below their lower legs (an IK rig) are carried with them
        // while the legs turn, as a foot below its shin would be: the next chain measures
        // the shin to where the foot now is.
        let rest_feet: Vec<(usize, usize, Mat4)> = target_legs
            .iter()
            .filter(|l| !target.is_ancestor_or_self(l.calf, l.foot))
            .map(|l| (l.calf, l.foot, model[l.calf].inverse() * model[l.foot]))
            .collect();
        for (bone, children) in CHAINS {
            let keep = pose_chain_of(bone).map(|c| chain_poses.get(c));
            if keep == Some(ChainPose::KeepRest) {
                continue;
            }
            let (Some(sj), Some(tj)) = (source_map.joint(bone), target_map.joint(bone)) else {
                continue;
            };
            let Some((sc, tc)) = children
                .iter()
                .find_map(|c| Some((source_map.joint(c)?, target_map.joint(c)?)))
            else {
                continue;
            };
            let want =
                align * (position_of(&source_ref_model[sc]) - position_of(&source_ref_model[sj]));
            let have = position_of(&model[tc]) - position_of(&model[tj]);
            if want.length_squared() < 1e-12 || have.length_squared() < 1e-12 {
                continue;
            }
            let turn = Quat::from_rotation_arc(have.normalize(), want.normalize());
            let world = turn * rotation_of(&model[tj]);
            let parent = target.parents()[tj]
                .map(|p| rotation_of(&model[p]))
                .unwrap_or(Quat::IDENTITY);
            local[tj].rotation = (parent.inverse() * world).normalize();
            model = model_of(target, &local)?;
            if !rest_feet.is_empty() {
                carry_feet(target, &rest_feet, &model, &mut local);
                model = model_of(target, &local)?;
            }
        }
        // The hips' travel goes on the joint carrying the hips and the whole legs, feet
        // included: on an IK rig whose feet hang off the root (the Quaternius robot) that
        // is the root, so taking the root motion off it takes it off the feet too (on the
        // joint above the hips alone the feet kept the travel in their own tracks, and
        // played in place they walked off).
        let carries_all = |j: usize| {
            target.is_ancestor_or_self(j, target_hips)
                && target_legs.iter().all(|l| {
                    target.is_ancestor_or_self(j, l.thigh) && target.is_ancestor_or_self(j, l.foot)
                })
        };
        let mut target_carrier = target_hips;
        let mut up = Some(target_hips);
        while let Some(j) = up {
            if carries_all(j) {
                target_carrier = j;
                break;
            }
            up = target.parents()[j];
        }
        // The retarget pose stands on the ground as the source's does: bones turned to the
        // source's reference pose (a take's first frame, knees bent in a run) leave the
        // target's hips at their standing height and its feet in the air; the joint
        // carrying hips and legs comes down (or up) until the lower foot is at its
        // standing height.
        let lowest = |m: &[Mat4]| {
            target_legs
                .iter()
                .map(|l| position_of(&m[l.foot]).y)
                .fold(f32::INFINITY, f32::min)
        };
        let drop = lowest(&model) - lowest(&standing);
        if drop.is_finite() && drop.abs() > 1e-6 {
            let parent = target.parents()[target_carrier]
                .map(|p| model[p])
                .unwrap_or(Mat4::IDENTITY);
            let at = position_of(&model[target_carrier]) - Vec3::Y * drop;
            local[target_carrier].translation = parent.inverse().transform_point3(at);
            model = model_of(target, &local)?;
            carry_feet(target, &rest_feet, &model, &mut local);
            model = model_of(target, &local)?;
        }
        let detached_feet = target_legs
            .iter()
            .filter(|l| !target.is_ancestor_or_self(l.calf, l.foot))
            .map(|l| {
                let offset = model[l.calf]
                    .inverse()
                    .transform_point3(position_of(&model[l.foot]));
                (l.calf, l.foot, offset)
            })
            .collect();
        let virtual_toes = target_legs
            .iter()
            .zip(&source_legs)
            .map(|(t, s)| {
                let toe = s.toe.filter(|_| t.toe.is_none())?;
                let reach = align
                    * (position_of(&source_ref_model[toe])
                        - position_of(&source_ref_model[s.foot]))
                    * (target_leg / source_leg);
                let mut at = position_of(&model[t.foot]) + reach;
                // The ball of the foot is on the sole, never under the ground (y = 0): the
                // robot's foot joint is at its sole, not 12 cm up as an ankle is.
                at.y = at.y.max(0.0);
                Some(model[t.foot].inverse().transform_point3(at))
            })
            .collect();
        Ok(Self {
            virtual_toes,
            detached_feet,
            target_carrier,
            source: source.clone(),
            target: target.clone(),
            pairs,
            namesakes,
            source_ref_local: source.reference_pose().to_vec(),
            source_ref_model,
            target_ref_local: local,
            target_ref_model: model,
            align,
            leg_ratio: target_leg / source_leg,
            source_leg,
            source_hips,
            target_legs,
            source_legs,
        })
    }

    /// The target's retarget pose (local transforms).
    pub fn target_retarget_pose(&self) -> &[Transform] {
        &self.target_ref_local
    }

    /// The turn from source model space to target model space (about the vertical: the
    /// yaw between the two characters' facings).
    pub fn align(&self) -> Quat {
        self.align
    }

    /// The source's contact points of leg `k` (ankle, then toe, or the ankle again without
    /// one) in `source_model`, turned into target model space and scaled by the leg ratio:
    /// where the target's would be if it were the source scaled. Only their movement is
    /// used (the origin is the source's). `in_place`: measured from the source hips' ground
    /// position, as the target's hips then stay where they are.
    fn scaled_source_contacts(&self, source_model: &[Mat4], k: usize, in_place: bool) -> [Vec3; 2] {
        let Some(leg) = self.source_legs.get(k) else {
            return [Vec3::ZERO; 2];
        };
        let origin = if in_place {
            let h = position_of(&source_model[self.source_hips]);
            Vec3::new(h.x, 0.0, h.z)
        } else {
            Vec3::ZERO
        };
        let at = |j: usize| self.align * (position_of(&source_model[j]) - origin) * self.leg_ratio;
        [at(leg.foot), at(leg.toe.unwrap_or(leg.foot))]
    }

    /// The target's pose for the source's local pose `source_local` (one transform per
    /// source joint), into `out` (one per target joint).
    ///
    /// Errors: wrong lengths, a non-finite pose.
    pub fn retarget_pose(
        &self,
        source_local: &[Transform],
        in_place: bool,
        out: &mut [Transform],
    ) -> Result<(), AnimError> {
        self.retarget_pose_from(source_local, in_place, None, out)
    }

    /// [`Self::retarget_pose`] with the source hips' ground position counted from
    /// `ground_start` (source model space, its height ignored) instead of from the
    /// retarget pose: a clip's first frame then stands where the target's retarget pose
    /// stands (takes of a capture session start wherever the actor stood).
    pub fn retarget_pose_from(
        &self,
        source_local: &[Transform],
        in_place: bool,
        ground_start: Option<Vec3>,
        out: &mut [Transform],
    ) -> Result<(), AnimError> {
        let source_model = model_of(&self.source, source_local)?;
        self.retarget_posed(source_local, &source_model, in_place, ground_start, out)
    }

    /// [`Self::retarget_pose_from`] given the source pose in model space too
    /// (`source_model`, from `source_local`), for a caller that needs it as well.
    fn retarget_posed(
        &self,
        source_local: &[Transform],
        source_model: &[Mat4],
        in_place: bool,
        ground_start: Option<Vec3>,
        out: &mut [Transform],
    ) -> Result<(), AnimError> {
        let n = self.target.joint_count();
        if out.len() != n {
            return Err(AnimError::LengthMismatch {
                what: "retargeted pose",
                expected: n,
                actual: out.len(),
            });
        }
        // Source joint `s`'s turn from its retarget pose, in the target's facing.
        let delta = |s: usize| {
            let d =
                rotation_of(&source_model[s]) * rotation_of(&self.source_ref_model[s]).inverse();
            self.align * d * self.align.inverse()
        };
        // Target model rotations of the mapped joints and of the namesakes (fingers,
        // twist bones), which turn in model space like the mapped bones: a local copy is
        // only right where both rigs' parents have the same axes, and put a same-named
        // thumb of another Mixamo body 30-80 degrees off.
        let mut wanted: Vec<Option<Quat>> = vec![None; n];
        for &(s, t) in self.pairs.iter().chain(&self.namesakes) {
            let delta = delta(s);
            wanted[t] = Some((delta * rotation_of(&self.target_ref_model[t])).normalize());
            // Where the legs hang from a joint above the hips (the Quaternius robot's
            // Body), that joint is the pelvis: it turns about the vertical as the source's
            // hips do, so the hip joints swing forward and back with the pelvis. Only the
            // turn: the robot's hip joints sit 0.4 leg lengths apart (a person's 0.1), so
            // the pelvis's roll would lift and drop its feet four times as far.
            if s == self.source_hips && self.target_carrier != t {
                let c = self.target_carrier;
                let yaw = twist_about_y(delta);
                wanted[c] = Some((yaw * rotation_of(&self.target_ref_model[c])).normalize());
            }
        }
        out.copy_from_slice(&self.target_ref_local);
        for &(s, t) in &self.namesakes {
            let (now, reference) = (&source_local[s], &self.source_ref_local[s]);
            out[t].translation = self.target_ref_local[t].translation
                + (now.translation - reference.translation) * self.leg_ratio;
        }
        // Parents first: a mapped joint's local rotation from its parent's new rotation.
        let parents = self.target.parents();
        let mut world = vec![Quat::IDENTITY; n];
        for j in 0..n {
            let parent = parents[j].map(|p| world[p]).unwrap_or(Quat::IDENTITY);
            if let Some(w) = wanted[j] {
                out[j].rotation = (parent.inverse() * w).normalize();
            }
            world[j] = (parent * out[j].rotation).normalize();
        }
        // Hips: the source hips' displacement from its retarget pose, aligned and scaled.
        let mut from = position_of(&self.source_ref_model[self.source_hips]);
        if let Some(g) = ground_start {
            from.x = g.x;
            from.z = g.z;
        }
        let mut moved =
            self.align * (position_of(&source_model[self.source_hips]) - from) * self.leg_ratio;
        if in_place {
            moved.x = 0.0;
            moved.z = 0.0;
        }
        let carrier = self.target_carrier;
        let hips_model = position_of(&self.target_ref_model[carrier]) + moved;
        let parent = parents[carrier];
        let parent_model = match parent {
            Some(p) => {
                let m = model_of(&self.target, out)?;
                m[p]
            }
            None => Mat4::IDENTITY,
        };
        out[carrier].translation = parent_model.inverse().transform_point3(hips_model);
        self.attach_feet(out)?;
        if out.iter().any(|t| !t.is_finite()) {
            return Err(AnimError::NonFinite {
                what: "retargeted pose".into(),
            });
        }
        Ok(())
    }

    /// Puts feet that are not below their lower legs back at the lower legs' ends.
    fn attach_feet(&self, pose: &mut [Transform]) -> Result<(), AnimError> {
        if self.detached_feet.is_empty() {
            return Ok(());
        }
        let parents = self.target.parents();
        for &(calf, foot, offset) in &self.detached_feet {
            let model = model_of(&self.target, pose)?;
            let at = model[calf].transform_point3(offset);
            let parent = parents[foot].map(|p| model[p]).unwrap_or(Mat4::IDENTITY);
            pose[foot].translation = parent.inverse().transform_point3(at);
        }
        Ok(())
    }

    /// Retargets `clip` (on the source skeleton) into a clip on the target skeleton named
    /// `name`, sampled at the source's frame rate (else `options.samples_per_sec`), with
    /// rotation tracks on the mapped joints and a translation track on the hips.
    /// `planted`, per target leg (left, right), says at which clip times the source's foot
    /// is planted; with `options.foot_ik` those feet stay where they came down.
    pub fn retarget_clip(
        &self,
        clip: &Clip,
        name: &str,
        options: &RetargetOptions,
        planted: &dyn Fn(usize, f32) -> bool,
    ) -> Result<Clip, AnimError> {
        let duration = clip.duration_secs();
        let rate = clip
            .frame_rate_hz()
            .map(|h| h as f32)
            .filter(|h| h.is_finite() && *h > 0.0)
            .unwrap_or(options.samples_per_sec)
            .clamp(1.0, 240.0);
        let frames = ((duration * rate).round() as usize).max(1) + 1;
        let times: Vec<f32> = (0..frames)
            .map(|i| {
                if i + 1 == frames {
                    duration
                } else {
                    i as f32 / rate
                }
            })
            .collect();
        let mut times = times;
        times.dedup_by(|a, b| *a <= *b);
        let n = self.target.joint_count();
        let mut source_local = self.source.rest_pose().to_vec();
        let mut cache = SamplingCache::new();
        let mut poses: Vec<Vec<Transform>> = Vec::with_capacity(times.len());
        // Per frame and target leg: the source's contact points, scaled (what a plant
        // follows).
        let mut source_feet: Vec<Vec<[Vec3; 2]>> = Vec::with_capacity(times.len());
        // Where the source hips stand at the clip's start, on the ground.
        let mut ground_start = None;
        for (i, &t) in times.iter().enumerate() {
            SamplingJob {
                clip,
                time_secs: t,
                rest_pose: self.source.rest_pose(),
            }
            .run_with_cache(&mut cache, &mut source_local)?;
            let mut out = vec![Transform::IDENTITY; n];
            let source_model = model_of(&self.source, &source_local)?;
            if i == 0 {
                // A take that starts away from the retarget pose (more than half a leg:
                // the actor stood elsewhere) is moved to start there; a clip that starts
                // at it (a cycle's sway) is left as it is.
                let h = position_of(&source_model[self.source_hips]);
                let r = position_of(&self.source_ref_model[self.source_hips]);
                let away = Vec3::new(h.x - r.x, 0.0, h.z - r.z).length();
                if away > 0.5 * self.source_leg {
                    ground_start = Some(h);
                }
            }
            self.retarget_posed(
                &source_local,
                &source_model,
                options.in_place,
                ground_start,
                &mut out,
            )?;
            poses.push(out);
            if options.foot_ik {
                source_feet.push(
                    (0..self.target_legs.len())
                        .map(|k| self.scaled_source_contacts(&source_model, k, options.in_place))
                        .collect(),
                );
            }
        }
        if options.foot_ik {
            self.pin_feet(&times, &mut poses, &source_feet, planted)?;
        }
        // Tracks: every joint whose rotation leaves its rest value, and the hips' position.
        let rest = self.target.rest_pose();
        let mut tracks = Vec::new();
        for j in 0..n {
            let rotations: Vec<Quat> = poses.iter().map(|p| p[j].rotation).collect();
            let translations: Vec<Vec3> = poses.iter().map(|p| p[j].translation).collect();
            let mut jt = JointTracks::new(j);
            if rotations
                .iter()
                .any(|q| q.dot(rest[j].rotation).abs() < 1.0 - 1e-7)
            {
                jt.rotation = Some(Track::new(
                    Interpolation::Linear,
                    times.clone(),
                    rotations,
                    "retargeted rotation",
                )?);
            }
            if translations
                .iter()
                .any(|t| !t.abs_diff_eq(rest[j].translation, 1e-6))
            {
                jt.translation = Some(Track::new(
                    Interpolation::Linear,
                    times.clone(),
                    translations,
                    "retargeted translation",
                )?);
            }
            if jt.channel_count() > 0 {
                tracks.push(jt);
            }
        }
        Ok(Clip::new(name.to_string(), tracks, Vec::new(), n)?
            .with_frame_rate(Some(f64::from(rate))))
    }

    /// Keeps each target foot planted while the source's is: the foot's contact point (the
    /// lower of ankle and toe: the heel at the strike, the ball at the push-off, so the
    /// foot still rolls) moves from where it touched down exactly as the source's contact
    /// point moves, scaled (`source_feet[frame][leg]`, see `scaled_source_contacts`). A
    /// source foot that stands still holds the target's still; one that slides (a dancer)
    /// or rides the treadmill of an in-place clip takes the target's along, so IK never
    /// drags a foot away from the source, and a clip retargeted onto its own skeleton is
    /// unchanged. Two-bone IK on the leg moves the ankle by the correction; after the plant
    /// the correction fades over a few frames instead of popping.
    fn pin_feet(
        &self,
        times: &[f32],
        poses: &mut [Vec<Transform>],
        source_feet: &[Vec<[Vec3; 2]>],
        planted: &dyn Fn(usize, f32) -> bool,
    ) -> Result<(), AnimError> {
        let parents = self.target.parents();
        for (leg_index, leg) in self.target_legs.iter().enumerate() {
            // (contact point, where it is pinned, the source's contact point then) and the
            // last correction.
            let mut anchor: Option<(usize, Vec3, Vec3)> = None;
            let mut offset = Vec3::ZERO;
            for (i, &t) in times.iter().enumerate() {
                let model = model_of(&self.target, &poses[i])?;
                let ankle = position_of(&model[leg.foot]);
                if planted(leg_index, t) {
                    // 0: the ankle, 1: the toe (a joint, or the virtual toe).
                    let toe = match (leg.toe, self.virtual_toes[leg_index]) {
                        (Some(toe), _) => Some(position_of(&model[toe])),
                        (None, Some(local)) => Some(model[leg.foot].transform_point3(local)),
                        (None, None) => None,
                    };
                    let (contact, now) = match toe {
                        Some(p) if p.y < ankle.y => (1, p),
                        _ => (0, ankle),
                    };
                    let source_now = source_feet
                        .get(i)
                        .and_then(|f| f.get(leg_index))
                        .map_or(Vec3::ZERO, |f| f[contact]);
                    let pinned = match anchor {
                        Some((joint, at, source_at)) if joint == contact => {
                            at + (source_now - source_at)
                        }
                        _ => {
                            // Touch-down, or the roll passed from heel to ball: pin where
                            // the (corrected) contact point is now.
                            let at = now + offset;
                            anchor = Some((contact, at, source_now));
                            at
                        }
                    };
                    // Held in all three axes: legs of other proportions (the robot's
                    // short thighs and long shins) would otherwise lift and drop a planted
                    // foot as the knee bends.
                    offset = pinned - now;
                } else {
                    anchor = None;
                    offset *= 0.8;
                }
                // Float noise (a same-rig retarget's feet differ from the source's by a
                // micrometre) is no correction: running IK for it would only add the
                // solver's own rounding.
                if offset.length() < 1e-5 * self.source_leg * self.leg_ratio {
                    continue;
                }
                let result = TwoBoneIkJob {
                    target: ankle + offset,
                    // Zero: the knee stays in the plane the animation gives it.
                    pole_vector: Vec3::ZERO,
                    mid_axis: hinge_axis(&model, leg),
                    weight: 1.0,
                    // No softening: a planted leg is straight at mid-stance (98-99% of its
                    // reach), and softening from 97% lifted every such ankle by up to
                    // 1.3% of a leg even for a correction of a micrometre. The target is
                    // where the source's scaled foot is, so it is within reach.
                    soften: 1.0,
                    twist_angle: 0.0,
                    start_joint: model[leg.thigh],
                    mid_joint: model[leg.calf],
                    end_joint: model[leg.foot],
                }
                .run()?;
                let pose = &mut poses[i];
                pose[leg.thigh].rotation =
                    (pose[leg.thigh].rotation * result.start_correction).normalize();
                pose[leg.calf].rotation =
                    (pose[leg.calf].rotation * result.mid_correction).normalize();
                self.attach_feet(pose)?;
                // The foot keeps its model-space orientation.
                let after = model_of(&self.target, pose)?;
                let parent = parents[leg.foot]
                    .map(|p| rotation_of(&after[p]))
                    .unwrap_or(Quat::IDENTITY);
                pose[leg.foot].rotation =
                    (parent.inverse() * rotation_of(&model[leg.foot])).normalize();
            }
        }
        Ok(())
    }
}

/// The knee's hinge axis in the calf's local space: perpendicular to the thigh and shin,
/// oriented so a positive turn straightens the leg (falls back to local X when straight).
fn hinge_axis(model: &[Mat4], leg: &LegChain) -> Vec3 {
    let hip = position_of(&model[leg.thigh]);
    let knee = position_of(&model[leg.calf]);
    let ankle = position_of(&model[leg.foot]);
    let axis = (knee - hip).cross(ankle - knee);
    let axis = if axis.length_squared() > 1e-12 {
        -axis.normalize()
    } else {
        return Vec3::X;
    };
    rotation_of(&model[leg.calf]).inverse() * axis
}

/// The character's left in its reference pose: where the left hip joint is from the right
/// one. The pelvis faces the way the body does in any pose, where the feet of a take's
/// first frame (a run mid-stride, a toe pointing down in the swing) do not; the feet's
/// direction only when the hip joints coincide.
fn left_from(p: &[Vec3], legs: &[LegChain]) -> Vec3 {
    let d = p[legs[0].thigh] - p[legs[1].thigh];
    let d = Vec3::new(d.x, 0.0, d.z);
    let leg = p[legs[0].thigh].distance(p[legs[0].foot]).max(1e-6);
    if d.length() > 0.05 * leg {
        return d.normalize();
    }
    left_axis(p, legs)
}

/// The part of `q` that turns about +Y (its twist in a swing-twist split).
fn twist_about_y(q: Quat) -> Quat {
    let t = Quat::from_xyzw(0.0, q.y, 0.0, q.w);
    if t.length_squared() < 1e-12 {
        Quat::IDENTITY
    } else {
        t.normalize()
    }
}

/// The rotation about +Y that turns horizontal direction `from` onto `to`.
fn yaw_between(from: Vec3, to: Vec3) -> Quat {
    let yaw = from.cross(to).y.atan2(from.dot(to));
    Quat::from_rotation_y(yaw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_bone_belongs_to_one_pose_chain() {
        for bone in BONES {
            let chain = pose_chain_of(bone).unwrap_or_else(|| panic!("{bone}"));
            assert!(POSE_CHAINS.contains(&chain), "{bone}: {chain}");
        }
        assert_eq!(pose_chain_of("hips"), Some("spine"));
        assert_eq!(pose_chain_of("head"), Some("neck"));
        assert_eq!(pose_chain_of("leftShoulder"), Some("leftArm"));
        assert_eq!(pose_chain_of("rightHand"), Some("rightArm"));
        assert_eq!(pose_chain_of("leftToes"), Some("leftLeg"));
        assert_eq!(pose_chain_of("rightUpperLeg"), Some("rightLeg"));
        assert_eq!(pose_chain_of("tail"), None);
    }
}
