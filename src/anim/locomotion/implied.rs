//! Implied ground speed of a clip from its planted feet.
//!
//! Most real clips are "in place": the character walks on a treadmill and the root never
//! moves. A planted foot then slides backwards relative to the root at exactly the speed
//! the character would travel on the ground. [`implied_speed`] measures that:
//!
//! 1. contacts per leg from [`detect_contacts`] (foot low and vertically still);
//! 2. the horizontal velocity of every foot joint (ankle and toe) in root space (root
//!    motion removed when the caller passes it: a clip with real root motion; an in-place
//!    clip is measured as it is, so the hips' in-cycle sway, which the feet's motion
//!    relative to the hips includes, is not subtracted and cannot bias the speed) by
//!    central differences over the cycle at the contact settings' sample rate, keeping
//!    only samples inside a contact with the first and last [`CONTACT_TRIM`] of it cut
//!    off (heel strike and toe-off roll the foot);
//! 3. the travel direction is minus the mean of those velocities; the speed is the
//!    median of the velocities projected on it, over all legs' samples;
//! 4. the same is repeated with the contact height threshold halved and doubled; the
//!    spread of the three speeds, relative to the median, says how sure the estimate is.
//!
//! A clip that travels (root motion, such as a motion-capture take) with at least two
//! plants of one foot is measured by its strides instead: from one plant of a foot to its
//! next, the distance between where it stood (the ankle's mean ground position over the
//! middle of each plant) over the time between the touch-downs, summed over every stride of
//! every foot. The stance-phase estimate above reads low there: a walker's hips slow down
//! over the planted foot (and speed up between plants), and the root's yaw, the pelvis'
//! twist, swings the feet measured in its frame.

use glam::Vec3;

use crate::contacts::{detect_contacts, ContactSettings, FootContacts, LegChain};
use crate::model_pose::for_each_model_pose;
use crate::{AnimError, Clip, ClipRootMotion, Skeleton};

/// Share of each contact cut off at either end before measuring.
pub const CONTACT_TRIM: f32 = 0.2;

/// Under this many leg lengths per second (1.8 cm/s on a 0.9 m leg) the planted feet
/// stand still: an idle, not a clip with a ground speed.
pub const STANDING_LEGS_PER_SEC: f32 = 0.02;

/// Result of [`implied_speed`]. Model space (Y up); units of the skeleton per second.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpliedSpeed {
    /// Median ground speed (units/s).
    pub speed: f32,
    /// Unit travel direction (horizontal, model space).
    pub direction: Vec3,
    /// Per leg: the median of that leg's samples (`None` for a leg with no contact).
    pub per_leg: Vec<Option<f32>>,
    /// Contact samples the median is taken over.
    pub samples: usize,
    /// `(max - min) / median` of the speeds found with the contact height threshold at
    /// half, once and twice its setting: under 0.1 is a firm estimate; the Fox's paws,
    /// barely planted, give more.
    pub spread: f32,
    /// No foot ever rests (a cartoon run whose feet touch down for a single key, e.g. the
    /// Robot's `Robot_Running`): the speed is each foot's horizontal speed at its lowest
    /// point instead, and `spread` is the spread between the feet. A rougher estimate.
    pub touch_and_go: bool,
}

fn median(v: &mut [f32]) -> Option<f32> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f32::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    })
}

/// Positions of every foot joint (ankle, then toe where the leg has one; model space,
/// root motion removed when `root` is given) over one cycle, `[sample][joint]`, and the
/// leg of each joint.
fn foot_tracks(
    skeleton: &Skeleton,
    clip: &Clip,
    legs: &[LegChain],
    root: Option<&ClipRootMotion>,
    samples: usize,
) -> Result<Vec<Vec<Vec3>>, AnimError> {
    let duration = clip.duration_secs();
    let times = (0..samples).map(|i| duration * i as f32 / samples as f32);
    let mut out = Vec::with_capacity(samples);
    for_each_model_pose(skeleton, clip, root, times, |_, _, model| {
        out.push(
            foot_joints(legs)
                .map(|(_, j)| model[j].w_axis.truncate())
                .collect(),
        );
        Ok(())
    })?;
    Ok(out)
}

/// `(leg, joint)` for every planted-foot joint: each leg's ankle, then its toe.
fn foot_joints(legs: &[LegChain]) -> impl Iterator<Item = (usize, usize)> + '_ {
    legs.iter()
        .enumerate()
        .flat_map(|(i, l)| std::iter::once((i, l.foot)).chain(l.toe.map(|t| (i, t))))
}

fn estimate(
    tracks: &[Vec<Vec3>],
    joints: &[(usize, usize)],
    contacts: &[FootContacts],
    duration: f32,
) -> Option<(f32, Vec3, Vec<Option<f32>>, usize)> {
    let n = tracks.len();
    let dt = duration / n as f32;
    let legs = contacts.len();
    let mut velocities: Vec<Vec<Vec3>> = vec![Vec::new(); legs];
    for i in 0..n {
        let t = duration * i as f32 / n as f32;
        for (k, &(leg, _)) in joints.iter().enumerate() {
            if contacts
                .get(leg)
                .is_some_and(|c| c.is_down(t, duration, CONTACT_TRIM))
            {
                let (a, b) = (tracks[(i + n - 1) % n][k], tracks[(i + 1) % n][k]);
                let v = (b - a) / (2.0 * dt);
                velocities[leg].push(Vec3::new(v.x, 0.0, v.z));
            }
        }
    }
    let sum: Vec3 = velocities.iter().flatten().copied().sum();
    if sum.length_squared() <= 0.0 {
        return None;
    }
    let direction = -sum.normalize();
    let mut all: Vec<f32> = velocities
        .iter()
        .flatten()
        .map(|v| -v.dot(direction))
        .collect();
    let per_leg = velocities
        .iter()
        .map(|vs| {
            let mut s: Vec<f32> = vs.iter().map(|v| -v.dot(direction)).collect();
            median(&mut s)
        })
        .collect();
    let count = all.len();
    let speed = median(&mut all)?;
    Some((speed, direction, per_leg, count))
}

/// Estimates the ground speed a clip implies (see the module docs). `root` is the clip's
/// root motion, removed before measuring (so a clip with root motion gives about its own
/// root speed). `Ok(None)` when no foot is ever planted, or the planted feet stand still
/// (under [`STANDING_LEGS_PER_SEC`]).
///
/// Errors: those of [`detect_contacts`] (legs out of range, a zero-length clip, invalid
/// settings, a non-finite pose).
pub fn implied_speed(
    skeleton: &Skeleton,
    clip: &Clip,
    legs: &[LegChain],
    root: Option<&ClipRootMotion>,
    settings: &ContactSettings,
) -> Result<Option<ImpliedSpeed>, AnimError> {
    let base = detect_contacts(skeleton, clip, legs, settings)?;
    implied_speed_with_contacts(skeleton, clip, legs, root, settings, &base)
}

/// [`implied_speed`] for a caller that already has the clip's contacts with `settings`
/// (`base`, one entry per leg, from [`detect_contacts`]), so they are not detected twice.
///
/// Errors: those of [`implied_speed`], and `base` of another length than `legs`.
pub fn implied_speed_with_contacts(
    skeleton: &Skeleton,
    clip: &Clip,
    legs: &[LegChain],
    root: Option<&ClipRootMotion>,
    settings: &ContactSettings,
    base: &[FootContacts],
) -> Result<Option<ImpliedSpeed>, AnimError> {
    if base.len() != legs.len() {
        return Err(AnimError::LengthMismatch {
            what: "implied speed contacts",
            expected: legs.len(),
            actual: base.len(),
        });
    }
    let duration = clip.duration_secs();
    let samples = ((duration * settings.samples_per_sec).ceil() as usize).max(8);
    if root.is_some() {
        let ground = foot_tracks(skeleton, clip, legs, None, samples)?;
        if let Some(s) = strides(&ground, legs, base, duration, skeleton) {
            return Ok(Some(s));
        }
    }
    let tracks = foot_tracks(skeleton, clip, legs, root, samples)?;
    let joints: Vec<(usize, usize)> = foot_joints(legs).collect();
    let Some((speed, direction, per_leg, count)) = estimate(&tracks, &joints, base, duration)
    else {
        if base.iter().all(|c| c.intervals.is_empty()) {
            return Ok(touch_and_go(&tracks, &joints, duration, skeleton, legs));
        }
        return Ok(None);
    };
    let leg = super::unit_scale(skeleton, legs) * super::REFERENCE_LEG_LENGTH_M;
    if speed.abs() < STANDING_LEGS_PER_SEC * leg {
        return Ok(None);
    }
    let mut speeds = vec![speed];
    for factor in [0.5, 2.0] {
        let s = ContactSettings {
            height_fraction: settings.height_fraction * factor,
            ..*settings
        };
        let c = detect_contacts(skeleton, clip, legs, &s)?;
        if let Some((v, ..)) = estimate(&tracks, &joints, &c, duration) {
            speeds.push(v);
        }
    }
    let lo = speeds.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = speeds.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let spread = if speed.abs() > 0.0 {
        (hi - lo) / speed.abs()
    } else {
        f32::INFINITY
    };
    Ok(Some(ImpliedSpeed {
        speed,
        direction,
        per_leg,
        samples: count,
        spread,
        touch_and_go: false,
    }))
}

/// The stride measure of a travelling clip (see the module docs): `ground` holds the foot
/// joints' model-space positions with the root motion in, `[sample][joint]` as
/// [`foot_tracks`] gives them. `None` when no foot plants twice (a looping cycle plants each
/// foot once) or the strides have no length.
fn strides(
    ground: &[Vec<Vec3>],
    legs: &[LegChain],
    contacts: &[FootContacts],
    duration: f32,
    skeleton: &Skeleton,
) -> Option<ImpliedSpeed> {
    let n = ground.len();
    if n < 2 || contacts.len() != legs.len() {
        return None;
    }
    let dt = duration / n as f32;
    let joints: Vec<(usize, usize)> = foot_joints(legs).collect();
    let (mut length, mut time, mut sum) = (0.0f32, 0.0f32, Vec3::ZERO);
    let mut per_leg = Vec::with_capacity(legs.len());
    let mut count = 0;
    for (leg, c) in contacts.iter().enumerate() {
        // The ankle's column: `foot_joints` lists each leg's ankle first.
        let Some(k) = joints.iter().position(|&(l, _)| l == leg) else {
            per_leg.push(None);
            continue;
        };
        let plants: Vec<(f32, Vec3)> = c
            .intervals
            .iter()
            .filter(|&&(down, up)| up > down)
            .filter_map(|&(down, up)| {
                // The middle half of the plant: the foot is flat there.
                let (a, b) = (down + 0.25 * (up - down), up - 0.25 * (up - down));
                let (i0, i1) = (
                    (a / dt).ceil() as usize,
                    ((b / dt).floor() as usize).min(n - 1),
                );
                if i1 < i0 {
                    return None;
                }
                let mean = (i0..=i1).map(|i| ground[i][k]).sum::<Vec3>() / (i1 - i0 + 1) as f32;
                Some((down, Vec3::new(mean.x, 0.0, mean.z)))
            })
            .collect();
        let (mut leg_length, mut leg_time) = (0.0f32, 0.0f32);
        for pair in plants.windows(2) {
            let (t0, p0) = pair[0];
            let (t1, p1) = pair[1];
            if t1 > t0 {
                let d = p1 - p0;
                leg_length += d.length();
                leg_time += t1 - t0;
                sum += d;
                count += 1;
            }
        }
        per_leg.push((leg_time > 0.0).then(|| leg_length / leg_time));
        length += leg_length;
        time += leg_time;
    }
    if time <= 0.0 || sum.length_squared() <= 0.0 {
        return None;
    }
    let speed = length / time;
    let leg_length = super::unit_scale(skeleton, legs) * super::REFERENCE_LEG_LENGTH_M;
    if speed < STANDING_LEGS_PER_SEC * leg_length {
        return None;
    }
    let known: Vec<f32> = per_leg.iter().flatten().copied().collect();
    let lo = known.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = known.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    Some(ImpliedSpeed {
        speed,
        direction: sum.normalize(),
        per_leg,
        samples: count,
        spread: if known.len() > 1 {
            (hi - lo) / speed
        } else {
            0.0
        },
        touch_and_go: false,
    })
}

/// Fallback of [`implied_speed`] for feet that never rest: each ankle's horizontal velocity
/// at its lowest sample (central difference), the median over the feet. `tracks` are
/// [`foot_tracks`]' columns, `joints` their `(leg, joint)`.
fn touch_and_go(
    tracks: &[Vec<Vec3>],
    joints: &[(usize, usize)],
    duration: f32,
    skeleton: &Skeleton,
    legs: &[LegChain],
) -> Option<ImpliedSpeed> {
    let n = tracks.len();
    if n < 3 || legs.is_empty() {
        return None;
    }
    let dt = duration / n as f32;
    let velocities: Vec<Vec3> = (0..legs.len())
        .map(|leg| {
            // The ankle's column: `foot_joints` lists each leg's ankle first.
            let k = joints.iter().position(|&(l, _)| l == leg).unwrap_or(0);
            let low = (0..n)
                .min_by(|&a, &b| tracks[a][k].y.total_cmp(&tracks[b][k].y))
                .unwrap_or(0);
            let v = (tracks[(low + 1) % n][k] - tracks[(low + n - 1) % n][k]) / (2.0 * dt);
            Vec3::new(v.x, 0.0, v.z)
        })
        .collect();
    let sum: Vec3 = velocities.iter().copied().sum();
    if sum.length_squared() <= 0.0 {
        return None;
    }
    let direction = -sum.normalize();
    let mut speeds: Vec<f32> = velocities.iter().map(|v| -v.dot(direction)).collect();
    let per_leg = speeds.iter().map(|&v| Some(v)).collect();
    let lo = speeds.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = speeds.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let speed = median(&mut speeds)?;
    let leg = super::unit_scale(skeleton, legs) * super::REFERENCE_LEG_LENGTH_M;
    if speed < STANDING_LEGS_PER_SEC * leg {
        return None;
    }
    Some(ImpliedSpeed {
        speed,
        direction,
        per_leg,
        samples: legs.len(),
        spread: (hi - lo) / speed,
        touch_and_go: true,
    })
}
