//! How good a retargeted clip is: how far the target's feet slide while the source's are
//! planted, whether the target plants where the source does, and the speed and size
//! ratios.

use glam::{Mat4, Vec3};

use crate::anim::contacts::{detect_contacts, ContactSettings, FootContacts, LegChain};
use crate::anim::{AnimError, Clip, LocalToModelJob, SamplingCache, SamplingJob, Skeleton};

/// The quality figures of one retargeted clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetargetQuality {
    /// Mean horizontal speed of the target's feet while the source's feet are planted,
    /// measured at each foot's contact point (the stiller of ankle and toe: the heel at the
    /// strike, the ball at the push-off; target units per second; 0 is a perfect plant).
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
/// right) against the source's contacts `source_contacts` (same legs, same clip times) and
/// the source's hips ground speed `source_speed`.
///
/// Errors: a zero-length clip; legs out of range; a non-finite pose.
pub fn measure(
    skeleton: &Skeleton,
    clip: &Clip,
    legs: &[LegChain],
    hips: usize,
    source_contacts: &[FootContacts],
    source_speed: f32,
    leg_ratio: f32,
) -> Result<RetargetQuality, AnimError> {
    let duration = clip.duration_secs();
    if duration <= 0.0 {
        return Err(AnimError::Empty {
            what: "retargeted clip (zero length)".into(),
        });
    }
    let settings = ContactSettings::default();
    let target_contacts = detect_contacts(skeleton, clip, legs, &settings)?;
    let rate = clip.frame_rate_hz().unwrap_or(30.0) as f32;
    let n = ((duration * rate).round() as usize).max(2);
    let dt = duration / n as f32;
    let mut local = skeleton.rest_pose().to_vec();
    let mut model = vec![Mat4::IDENTITY; skeleton.joint_count()];
    let mut cache = SamplingCache::new();
    // Per leg and sample: the ankle and the toe (the ankle again without one).
    let mut feet: Vec<Vec<[Vec3; 2]>> = vec![Vec::with_capacity(n + 1); legs.len()];
    let mut hips_path = Vec::with_capacity(n + 1);
    for i in 0..=n {
        let t = (i as f32 * dt).min(duration);
        SamplingJob {
            clip,
            time_secs: t,
            rest_pose: skeleton.rest_pose(),
        }
        .run_with_cache(&mut cache, &mut local)?;
        LocalToModelJob {
            parents: skeleton.parents(),
            local: &local,
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut model)?;
        for (k, leg) in legs.iter().enumerate() {
            let ankle = model[leg.foot].w_axis.truncate();
            let toe = leg.toe.map_or(ankle, |toe| model[toe].w_axis.truncate());
            feet[k].push([ankle, toe]);
        }
        hips_path.push(model[hips].w_axis.truncate());
    }
    let (mut slide_sum, mut slide_count) = (0.0f32, 0usize);
    let mut agreement = Vec::new();
    for (k, _) in legs.iter().enumerate() {
        let (mut both, mut either) = (0usize, 0usize);
        for i in 0..n {
            let t = (i as f32 + 0.5) * dt;
            let src = source_contacts
                .get(k)
                .is_some_and(|c| c.is_down(t, duration, 0.0));
            let tgt = target_contacts
                .get(k)
                .is_some_and(|c| c.is_down(t, duration, 0.0));
            if src {
                // The foot's stiller point is its contact: the heel at the strike, the
                // ball at the push-off (the other one moves as the foot rolls). Taking the
                // lower of the two instead jumps between them where their heights cross.
                let speed = |p: usize| {
                    let d = feet[k][i + 1][p] - feet[k][i][p];
                    Vec3::new(d.x, 0.0, d.z).length() / dt
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
    let travel = hips_path[n] - hips_path[0];
    let target_speed = Vec3::new(travel.x, 0.0, travel.z).length() / duration;
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
        rest.push(crate::anim::Transform {
            translation: *at,
            ..crate::anim::Transform::IDENTITY
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
