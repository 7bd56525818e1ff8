//! What the skeleton's shape says: its height (for the units) and whether its rest pose is
//! a pose at all.
//!
//! Units: BVH has none. The skeleton's height in file units is measured as the largest
//! extent of its joints, in the rest pose and in the first frame (the larger of the two:
//! a zero pose with every bone along +X is a poor height, a first frame lying down too).
//! Reference joints above the body are left out: a root with a single child, and that
//! child while it has a single child, down to the first joint that branches (Bandai's
//! `joint_Root` sits on the floor while its `Hips` walk 5 m away in the first frame). The
//! named unit ([`Units::NAMED`]) that makes that height closest to a person's 1.4-2.0 m
//! (on a log scale, around 1.67 m) is chosen; when none lands inside the range a warning
//! says so.

use glam::{DQuat, DVec3};

use super::parse::{Bvh, Channel, Joint};
use crate::Units;

/// A person's height, metres: what the units are chosen to give.
pub(super) const PERSON_MIN_M: f64 = 1.4;
pub(super) const PERSON_MAX_M: f64 = 2.0;

/// The units chosen, why (in words), and a warning when the choice is a guess.
pub(super) struct UnitsDecision {
    pub(super) units: Units,
    pub(super) reason: String,
    pub(super) warning: Option<String>,
}

/// A joint's local translation (file units) and rotation for one frame's values of it
/// (`None`: the rest pose). Position channels replace the OFFSET component they name;
/// rotations, in degrees, compose in the order listed (`Zrotation Xrotation Yrotation`
/// gives `Rz * Rx * Ry`).
pub(super) fn joint_local(joint: &Joint, row: Option<&[f32]>) -> (DVec3, DQuat) {
    let mut t = DVec3::from_array(joint.offset);
    let mut q = DQuat::IDENTITY;
    if let Some(row) = row {
        for (c, &v) in joint.channels.iter().zip(row) {
            match *c {
                Channel::Position(a) => match a {
                    0 => t.x = f64::from(v),
                    1 => t.y = f64::from(v),
                    _ => t.z = f64::from(v),
                },
                Channel::Rotation(a) => {
                    let r = f64::from(v).to_radians();
                    q *= match a {
                        0 => DQuat::from_rotation_x(r),
                        1 => DQuat::from_rotation_y(r),
                        _ => DQuat::from_rotation_z(r),
                    };
                }
            }
        }
    }
    (t, q.normalize())
}

/// Model-space joint positions (file units) in the rest pose (`frame: None`) or a frame.
fn positions(bvh: &Bvh, frame: Option<usize>) -> Vec<DVec3> {
    let mut world: Vec<(DVec3, DQuat)> = Vec::with_capacity(bvh.joints.len());
    for (j, joint) in bvh.joints.iter().enumerate() {
        let row = frame.and_then(|f| bvh.row(f, j));
        let (t, q) = joint_local(joint, row);
        let w = match joint.parent.and_then(|p| world.get(p)) {
            Some(&(pt, pq)) => (pt + pq * t, pq * q),
            None => (t, q),
        };
        world.push(w);
    }
    world.into_iter().map(|(t, _)| t).collect()
}

/// The joints the height is measured on: all but the single-child chains above each
/// root's first branching joint (see the module comment).
fn body_joints(joints: &[Joint]) -> Vec<bool> {
    let n = joints.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (j, joint) in joints.iter().enumerate() {
        if let Some(p) = joint.parent.filter(|&p| p < j) {
            children[p].push(j);
        }
    }
    let mut size = vec![1usize; n];
    for j in (0..n).rev() {
        if let Some(p) = joints[j].parent.filter(|&p| p < j) {
            size[p] += size[j];
        }
    }
    let mut included = vec![true; n];
    for (r, joint) in joints.iter().enumerate() {
        if joint.parent.is_some() {
            continue;
        }
        let mut chain = vec![r];
        let mut b = r;
        while let [only] = children[b][..] {
            b = only;
            chain.push(b);
        }
        chain.pop();
        if size[b] >= 2 {
            for j in chain {
                included[j] = false;
            }
        }
    }
    included
}

/// Largest extent along X, Y or Z of the included positions.
fn extent(points: &[DVec3], included: &[bool]) -> f64 {
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for (p, _) in points.iter().zip(included).filter(|(_, &i)| i) {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let e = (hi - lo).max_element();
    if e.is_finite() {
        e
    } else {
        0.0
    }
}

/// The skeleton's height in file units (the larger extent of the rest pose and the first
/// frame, reference joints left out), and a phrase saying where it comes from.
pub(super) fn height(bvh: &Bvh) -> (f64, String) {
    let included = body_joints(&bvh.joints);
    let rest = extent(&positions(bvh, None), &included);
    let first = extent(&positions(bvh, Some(0)), &included);
    if rest >= first {
        (
            rest,
            format!(
                "its extent in the rest pose; {} in the first frame",
                shown_length(first)
            ),
        )
    } else {
        (
            first,
            format!(
                "its extent in the first frame; {} in the rest pose",
                shown_length(rest)
            ),
        )
    }
}

/// A length for a sentence: three significant digits or so.
pub(super) fn shown_length(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The units: `given` when the caller chose, else detected from the height.
pub(super) fn decide_units(bvh: &Bvh, given: Option<Units>) -> UnitsDecision {
    let (h, from) = height(bvh);
    if let Some(units) = given {
        return UnitsDecision {
            units,
            reason: format!(
                "{} (given by the caller; the skeleton is {} units tall)",
                units.describe(),
                shown_length(h)
            ),
            warning: None,
        };
    }
    if !(h.is_finite() && h > 0.0) {
        return UnitsDecision {
            units: Units::Centimetres,
            reason: "centimetres (assumed, as for most BVH: the skeleton has no extent to \
                     measure)"
                .into(),
            warning: Some(
                "units: the skeleton has no extent to tell its units by; assumed centimetres \
                 (give the units to change)"
                    .into(),
            ),
        };
    }
    let middle = (PERSON_MIN_M * PERSON_MAX_M).sqrt();
    let misfit = |u: &Units| (h * u.metres_per_unit() / middle).ln().abs();
    let units = Units::NAMED
        .into_iter()
        .min_by(|a, b| misfit(a).total_cmp(&misfit(b)))
        .unwrap_or(Units::Centimetres);
    let metres = h * units.metres_per_unit();
    if (PERSON_MIN_M..=PERSON_MAX_M).contains(&metres) {
        UnitsDecision {
            units,
            reason: format!(
                "{} (the skeleton is {} units tall, {from}; a person is 1.4-2.0 m)",
                units.describe(),
                shown_length(h)
            ),
            warning: None,
        }
    } else {
        UnitsDecision {
            units,
            reason: format!(
                "{} (the skeleton is {} units tall, {from}; {metres:.2} m in {} is the \
                 nearest to a person's 1.4-2.0 m)",
                units.describe(),
                shown_length(h),
                units.describe()
            ),
            warning: Some(format!(
                "units: the skeleton is {} units tall, a person's height in no usual unit; \
                 assumed {} ({metres:.2} m tall; give the units to change)",
                shown_length(h),
                units.describe()
            )),
        }
    }
}

/// Bones within this angle of one axis direction count as lying along it.
const ALONG_AXIS_COS: f64 = 0.906; // cos 25°

/// A warning when most bones of the rest pose point the same way along one axis: BVH's
/// identity-rotation zero pose (Bandai's skeletons have every limb along +X), which shows
/// as a straight line, not a T-pose. More than half of the bones, at least three.
pub(super) fn rest_pose_warning(bvh: &Bvh) -> Option<String> {
    // With identity rotations a bone's model-space vector is its child's OFFSET.
    let bones: Vec<DVec3> = bvh
        .joints
        .iter()
        .filter(|j| j.parent.is_some())
        .map(|j| DVec3::from_array(j.offset))
        .collect();
    let longest = bones.iter().map(|b| b.length()).fold(0.0, f64::max);
    if !(longest.is_finite() && longest > 0.0) {
        return None;
    }
    let dirs: Vec<DVec3> = bones
        .iter()
        .filter(|b| b.length() > longest * 1e-6)
        .map(|b| b.normalize())
        .collect();
    let total = dirs.len();
    let axes = [
        (DVec3::X, "+X"),
        (DVec3::NEG_X, "-X"),
        (DVec3::Y, "+Y"),
        (DVec3::NEG_Y, "-Y"),
        (DVec3::Z, "+Z"),
        (DVec3::NEG_Z, "-Z"),
    ];
    let (count, axis) = axes
        .iter()
        .map(|&(a, name)| {
            let n = dirs.iter().filter(|d| d.dot(a) >= ALONG_AXIS_COS).count();
            (n, name)
        })
        .max_by_key(|&(n, _)| n)?;
    if total < 3 || count * 2 <= total {
        return None;
    }
    let which = if count == total {
        format!("every bone lies along {axis}")
    } else {
        format!("{count} of {total} bones lie along {axis}")
    };
    Some(format!(
        "rest pose: {which} (a BVH zero pose, not a T-pose); poses that need a T-pose \
         (retargeting) must come from the motion"
    ))
}
