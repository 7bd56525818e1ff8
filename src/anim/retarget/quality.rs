//! How good a retargeted clip is: how far the target's feet slide while the source's are
//! planted, whether the target plants where the source does, how far its feet stray from
//! the source's (scaled), and the speed and size ratios.
//!
//! The figures are made so that a retarget that strays from its source cannot score
//! better than one that follows it: "planted" means the source's foot is on the ground
//! *and* still on it (relative to the ground the clip implies: the world for a clip that
//! travels, the treadmill of an in-place clip), so a dancer's sliding foot is not a plant
//! that pinning could be rewarded for; slide is measured against that same ground; and
//! [`FootDeviation`] says how far the target's feet are from the source's.

use glam::{Quat, Vec3};

use crate::contacts::{check_legs, detect_contacts, leg_length, ContactSettings, LegChain};
use crate::model_pose::for_each_model_pose;
use crate::{AnimError, Clip, Skeleton};

/// A planted foot's contact point moves at under this many leg lengths per second
/// relative to the ground (0.45 m/s on a 0.9 m leg): a heel rolling onto the ball stays
/// under it (the stiller of the two points is measured), a dancer's foot sliding on the
/// floor at 1-4 m/s is far over it.
pub const STILL_LEGS_PER_SEC: f32 = 0.5;

/// How far the target's feet are from the source's, scaled: per sample and foot, the
/// distance between the target's ankle and where the source's ankle is relative to its
/// hips, turned into the target's facing and scaled by the leg ratio, placed at the
/// target's hips; in target leg lengths.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct FootDeviation {
    /// Mean over the samples and the feet (legs; 0 = the source's feet exactly).
    pub mean_legs: f32,
    /// Largest (legs).
    pub max_legs: f32,
}

/// When each foot of a clip stands still on the ground, sampled: see
/// [`StillFeet::detect`].
#[derive(Clone, Debug)]
pub struct StillFeet {
    dt: f32,
    /// `[leg][sample]`.
    still: Vec<Vec<bool>>,
    /// `[leg][sample]`: the ankle and the toe (the ankle again without one), model space.
    paths: Vec<Vec<[Vec3; 2]>>,
}

impl StillFeet {
    /// Samples `clip` on `skeleton` at about 60 Hz and marks, per leg, the samples where
    /// the foot's contact point (the stiller of ankle and toe) moves horizontally at under
    /// [`STILL_LEGS_PER_SEC`] leg lengths per second relative to the ground, which moves
    /// at `ground_velocity` (model units/s: zero for a clip that travels; for an in-place
    /// clip, backwards at its implied speed).
    ///
    /// Errors: a zero-length clip, a leg joint out of range, a non-finite pose.
    pub fn detect(
        skeleton: &Skeleton,
        clip: &Clip,
        legs: &[LegChain],
        ground_velocity: Vec3,
    ) -> Result<Self, AnimError> {
        let duration = clip.duration_secs();
        if !(duration > 0.0 && duration.is_finite()) {
            return Err(AnimError::Empty {
                what: format!("clip '{}' (zero length)", clip.name()),
            });
        }
        check_legs(skeleton, legs)?;
        let n = ((duration * 60.0).ceil() as usize).clamp(2, 1 << 20);
        let dt = duration / n as f32;
        let (paths, _) = foot_samples(skeleton, clip, legs, None, n, dt)?;
        let ground = Vec3::new(ground_velocity.x, 0.0, ground_velocity.z);
        let still = legs
            .iter()
            .zip(&paths)
            .map(|(leg, path)| {
                let limit = STILL_LEGS_PER_SEC * leg_length(skeleton, leg);
                (0..=n)
                    .map(|i| {
                        let [ankle, toe] = central_velocity(path, i, dt);
                        (ankle - ground).length().min((toe - ground).length()) < limit
                    })
                    .collect()
            })
            .collect();
        Ok(Self { dt, still, paths })
    }

    /// The horizontal velocity of leg `leg`'s ankle and toe at clip time `t` (model
    /// units/s, central difference over the nearest samples; zero for a leg it does not
    /// know): what the ground of an in-place clip does under a planted foot.
    pub fn velocity(&self, leg: usize, t: f32) -> [Vec3; 2] {
        let Some(path) = self.paths.get(leg).filter(|p| p.len() >= 2) else {
            return [Vec3::ZERO; 2];
        };
        let i = ((t / self.dt).round().max(0.0) as usize).min(path.len() - 1);
        central_velocity(path, i, self.dt)
    }

    /// True when leg `leg`'s foot stands still at clip time `t` (the nearest sample;
    /// false for a leg it does not know).
    pub fn is_still(&self, leg: usize, t: f32) -> bool {
        let Some(s) = self.still.get(leg) else {
            return false;
        };
        let i = (t / self.dt).round().max(0.0) as usize;
        s.get(i.min(s.len().saturating_sub(1)))
            .copied()
            .unwrap_or(false)
    }
}

/// The horizontal velocity of the ankle and the toe at sample `i` of `path` (samples
/// `dt` apart): a central difference, one-sided at the ends (units/s).
fn central_velocity(path: &[[Vec3; 2]], i: usize, dt: f32) -> [Vec3; 2] {
    let n = path.len() - 1;
    let (a, b) = (i.saturating_sub(1), (i + 1).min(n));
    let span = (b - a) as f32 * dt;
    let v = |p: usize| {
        let d = (path[b][p] - path[a][p]) / span;
        Vec3::new(d.x, 0.0, d.z)
    };
    [v(0), v(1)]
}

/// Clip times `i * dt` for `i` in `0..=n`, the last one at most the clip's end.
fn sample_times(clip: &Clip, n: usize, dt: f32) -> impl Iterator<Item = f32> {
    let duration = clip.duration_secs();
    (0..=n).map(move |i| (i as f32 * dt).min(duration))
}

/// `[leg][sample]` ankle and toe, and `[sample]` hips (empty unless asked for).
type FootPaths = (Vec<Vec<[Vec3; 2]>>, Vec<Vec3>);

/// Per leg and sample `i` (time `i * dt`, `0..=n`): the ankle and the toe (the ankle
/// again without one), model space; with `hips`, that joint's path too (one sampling
/// pass for both).
fn foot_samples(
    skeleton: &Skeleton,
    clip: &Clip,
    legs: &[LegChain],
    hips: Option<usize>,
    n: usize,
    dt: f32,
) -> Result<FootPaths, AnimError> {
    let mut feet = vec![Vec::with_capacity(n + 1); legs.len()];
    let mut hips_path = Vec::with_capacity(if hips.is_some() { n + 1 } else { 0 });
    for_each_model_pose(
        skeleton,
        clip,
        None,
        sample_times(clip, n, dt),
        |_, _, model| {
            for (k, leg) in legs.iter().enumerate() {
                let ankle = model[leg.foot].w_axis.truncate();
                let toe = leg.toe.map_or(ankle, |toe| model[toe].w_axis.truncate());
                feet[k].push([ankle, toe]);
            }
            if let Some(h) = hips {
                hips_path.push(model[h].w_axis.truncate());
            }
            Ok(())
        },
    )?;
    Ok((feet, hips_path))
}

/// One side of [`source_foot_deviation`]: a clip on its skeleton, its legs (left, right)
/// and its hips joint.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// The skeleton the clip animates.
    pub skeleton: &'a Skeleton,
    /// The clip whose feet are measured.
    pub clip: &'a Clip,
    /// The legs, left then right (both sides list the same number).
    pub legs: &'a [LegChain],
    /// The hips joint (index into the skeleton's joints).
    pub hips: usize,
}

/// How far `target`'s feet are from `source`'s, scaled (see [`FootDeviation`]): both
/// clips sampled at the same clip times (the target's frame rate, else 30 Hz, over the
/// shorter clip), `align` the source-to-target facing turn and `leg_ratio` the target's
/// leg length over the source's.
///
/// Errors: a zero-length clip, legs that differ in count or are out of range, a target
/// leg of no length, a non-finite pose.
pub fn source_foot_deviation(
    source: Side<'_>,
    target: Side<'_>,
    align: Quat,
    leg_ratio: f32,
) -> Result<FootDeviation, AnimError> {
    let duration = source.clip.duration_secs().min(target.clip.duration_secs());
    if !(duration > 0.0 && duration.is_finite()) {
        return Err(AnimError::Empty {
            what: "retargeted clip (zero length)".into(),
        });
    }
    if source.legs.len() != target.legs.len() {
        return Err(AnimError::LengthMismatch {
            what: "legs of the source and the target",
            expected: target.legs.len(),
            actual: source.legs.len(),
        });
    }
    check_legs(source.skeleton, source.legs)?;
    check_legs(target.skeleton, target.legs)?;
    for s in [&source, &target] {
        if s.hips >= s.skeleton.joint_count() {
            return Err(AnimError::JointOutOfRange {
                what: "hips".into(),
                joint: s.hips,
                joint_count: s.skeleton.joint_count(),
            });
        }
    }
    let leg = target
        .legs
        .iter()
        .map(|l| leg_length(target.skeleton, l))
        .sum::<f32>()
        / target.legs.len().max(1) as f32;
    if !(leg > 0.0 && leg.is_finite()) {
        return Err(AnimError::OutOfRange {
            what: "target legs".into(),
            detail: format!("rest length {leg}"),
        });
    }
    let rate = target.clip.frame_rate_hz().unwrap_or(30.0) as f32;
    let n = ((duration * rate).round() as usize).max(2);
    let dt = duration / n as f32;
    // Ankles relative to the hips, per leg and sample.
    let relative = |side: &Side<'_>| -> Result<Vec<Vec<Vec3>>, AnimError> {
        let (feet, hips) =
            foot_samples(side.skeleton, side.clip, side.legs, Some(side.hips), n, dt)?;
        Ok(feet
            .iter()
            .map(|path| {
                path.iter()
                    .zip(&hips)
                    .map(|([ankle, _], h)| *ankle - *h)
                    .collect()
            })
            .collect())
    };
    let (s, t) = (relative(&source)?, relative(&target)?);
    let (mut sum, mut count, mut max) = (0.0f32, 0usize, 0.0f32);
    for (s, t) in s.iter().zip(&t) {
        for (s, t) in s.iter().zip(t) {
            let d = (*t - align * *s * leg_ratio).length() / leg;
            if !d.is_finite() {
                return Err(AnimError::NonFinite {
                    what: "foot deviation".into(),
                });
            }
            sum += d;
            count += 1;
            max = max.max(d);
        }
    }
    Ok(FootDeviation {
        mean_legs: if count > 0 { sum / count as f32 } else { 0.0 },
        max_legs: max,
    })
}

/// The quality figures of one retargeted clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetargetQuality {
    /// Mean horizontal speed of the target's feet relative to the ground (see
    /// [`measure`]'s `ground_velocity`) while the source's feet are planted, measured at
    /// each foot's contact point (the stiller of ankle and toe: the heel at the strike,
    /// the ball at the push-off; target units per second; 0 is a perfect plant).
    pub planted_foot_slide_mps: f32,
    /// Intersection over union of the target's and the source's planted times, averaged
    /// over the feet (0..1; 1 = the target plants exactly when the source does).
    pub contact_agreement: f32,
    /// Target root (hips) ground speed / the source's (the leg ratio when the clip
    /// travels and the stride is kept; 0 when the source does not travel).
    pub speed_ratio: f32,
    /// Target leg length / source leg length.
    pub leg_ratio: f32,
}

/// Measures `clip` (already retargeted onto `skeleton`, whose legs are `legs`, left then
/// right) against when the source's feet are planted (`source_planted(leg, clip time)`:
/// on the ground and still on it, see [`StillFeet`]).
///
/// `ground_velocity(leg, clip time)` is how a planted target foot's ankle and toe should
/// move (target units/s, horizontal): zero for a clip that travels; for an in-place clip
/// the treadmill its feet imply, i.e. the source's planted foot's own velocity turned and
/// scaled (an actor's pace varies within a stride, so a treadmill at the mean speed would
/// read that variation, 15% of the speed, as slide of a faithful retarget). `speeds` is `(source ground speed, target ground speed)` when the caller
/// knows them (an in-place side's implied speed); `None` takes the source's as
/// `source_speed` and the target's from its hips' travel.
///
/// Errors: a zero-length clip; legs out of range; a non-finite pose.
#[allow(clippy::too_many_arguments)]
pub fn measure(
    skeleton: &Skeleton,
    clip: &Clip,
    legs: &[LegChain],
    hips: usize,
    source_planted: &dyn Fn(usize, f32) -> bool,
    ground_velocity: &dyn Fn(usize, f32) -> [Vec3; 2],
    speeds: (f32, Option<f32>),
    leg_ratio: f32,
) -> Result<RetargetQuality, AnimError> {
    let duration = clip.duration_secs();
    if duration <= 0.0 {
        return Err(AnimError::Empty {
            what: "retargeted clip (zero length)".into(),
        });
    }
    if hips >= skeleton.joint_count() {
        return Err(AnimError::JointOutOfRange {
            what: "hips".into(),
            joint: hips,
            joint_count: skeleton.joint_count(),
        });
    }
    let settings = ContactSettings::default();
    let target_contacts = detect_contacts(skeleton, clip, legs, &settings)?;
    let rate = clip.frame_rate_hz().unwrap_or(30.0) as f32;
    let n = ((duration * rate).round() as usize).max(2);
    let dt = duration / n as f32;
    let (feet, hips_path) = foot_samples(skeleton, clip, legs, Some(hips), n, dt)?;
    let (mut slide_sum, mut slide_count) = (0.0f32, 0usize);
    let mut agreement = Vec::new();
    for (k, _) in legs.iter().enumerate() {
        let (mut both, mut either) = (0usize, 0usize);
        for i in 0..n {
            let t = (i as f32 + 0.5) * dt;
            let src = source_planted(k, t);
            let tgt = target_contacts
                .get(k)
                .is_some_and(|c| c.is_down(t, duration, 0.0));
            if src {
                // The foot's stiller point is its contact: the heel at the strike, the
                // ball at the push-off (the other one moves as the foot rolls). Taking the
                // lower of the two instead jumps between them where their heights cross.
                let ground = ground_velocity(k, t);
                let speed = |p: usize| {
                    let d = (feet[k][i + 1][p] - feet[k][i][p]) / dt - ground[p];
                    Vec3::new(d.x, 0.0, d.z).length()
                };
                slide_sum += speed(0).min(speed(1));
                slide_count += 1;
            }
            both += (src && tgt) as usize;
            either += (src || tgt) as usize;
        }
        if either > 0 {
            agreement.push(both as f32 / either as f32);
        }
    }
    let (source_speed, target_speed) = speeds;
    let target_speed = target_speed.unwrap_or_else(|| {
        let travel = hips_path[n] - hips_path[0];
        Vec3::new(travel.x, 0.0, travel.z).length() / duration
    });
    Ok(RetargetQuality {
        planted_foot_slide_mps: if slide_count > 0 {
            slide_sum / slide_count as f32
        } else {
            0.0
        },
        contact_agreement: if agreement.is_empty() {
            0.0
        } else {
            agreement.iter().sum::<f32>() / agreement.len() as f32
        },
        speed_ratio: if source_speed > 1e-6 {
            target_speed / source_speed
        } else {
            0.0
        },
        leg_ratio,
    })
}

/// `skeleton` with a joint added for each virtual toe (`toes[k]`, a point in leg `k`'s
/// foot space; see `Retargeter::virtual_toes`) as a child of that foot, `clip` on the
/// larger skeleton, and the legs with those joints as toes: contacts and slide are then
/// measured where a toeless foot meets the ground after the heel lifts. Nothing to add:
/// copies of the inputs.
///
/// Errors: `toes` and `legs` differ in length; a foot out of range; a non-finite point.
pub fn with_virtual_toes(
    skeleton: &Skeleton,
    clip: &Clip,
    legs: &[LegChain],
    toes: &[Option<Vec3>],
) -> Result<(Skeleton, Clip, Vec<LegChain>), AnimError> {
    if toes.len() != legs.len() {
        return Err(AnimError::LengthMismatch {
            what: "virtual toes",
            expected: legs.len(),
            actual: toes.len(),
        });
    }
    let mut names = skeleton.names().to_vec();
    let mut parents = skeleton.parents().to_vec();
    let mut rest = skeleton.rest_pose().to_vec();
    let mut bound: Vec<bool> = (0..skeleton.joint_count())
        .map(|j| skeleton.is_bound(j))
        .collect();
    let mut out_legs = legs.to_vec();
    for (leg, toe) in out_legs.iter_mut().zip(toes) {
        let Some(at) = toe else { continue };
        if leg.foot >= skeleton.joint_count() {
            return Err(AnimError::JointOutOfRange {
                what: format!("leg '{}' foot", leg.name),
                joint: leg.foot,
                joint_count: skeleton.joint_count(),
            });
        }
        if !at.is_finite() {
            return Err(AnimError::NonFinite {
                what: format!("leg '{}' virtual toe", leg.name),
            });
        }
        leg.toe = Some(names.len());
        names.push(format!("{} (virtual toe)", skeleton.names()[leg.foot]));
        parents.push(Some(leg.foot));
        rest.push(crate::Transform {
            translation: *at,
            ..crate::Transform::IDENTITY
        });
        bound.push(false);
    }
    let mut larger = Skeleton::new(names, parents, rest)?;
    larger.mark_bones(bound);
    let clip = Clip::new(
        clip.name().to_string(),
        clip.tracks().to_vec(),
        clip.markers().to_vec(),
        larger.joint_count(),
    )?
    .with_frame_rate(clip.frame_rate_hz());
    Ok((larger, clip, out_legs))
}
