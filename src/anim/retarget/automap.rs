//! Mapping a skeleton onto the humanoid profile: joint names first (Mixamo, Unreal, Rigify,
//! VRM/Unity, Quaternius, Bandai/LAFAN1, CMU, HumanIK), then the hierarchy (legs that reach
//! the ground, the spine up to the highest joint, arms branching off it).

use glam::Vec3;

use super::{BONES, REQUIRED};
use crate::contacts::{detect_legs, rest_positions, LegChain};
use crate::locomotion::stride_warp::pelvis_of;
use crate::{AnimError, Skeleton};

/// One profile bone's joint and how it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct MappedBone {
    /// VRM's name (`hips`, `leftUpperLeg`...).
    pub bone: &'static str,
    /// Skeleton joint index.
    pub joint: usize,
    /// `name` (the joint's name matched a table), `hierarchy` (found by the skeleton's
    /// shape), or `given` (a map file or the user).
    pub how: &'static str,
}

/// A skeleton's profile bones: one entry per [`BONES`] entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RetargetMap {
    bones: Vec<Option<(usize, &'static str)>>,
}

impl RetargetMap {
    /// An empty map.
    pub fn new() -> Self {
        Self {
            bones: vec![None; BONES.len()],
        }
    }

    /// Joint of profile bone `bone` (VRM name), when mapped.
    pub fn joint(&self, bone: &str) -> Option<usize> {
        let i = super::bone_index(bone)?;
        self.bones.get(i).copied().flatten().map(|(j, _)| j)
    }

    /// Maps `bone` to `joint` (`how` as in [`MappedBone::how`]). Unknown bone names are
    /// ignored and return false.
    pub fn set(&mut self, bone: &str, joint: usize, how: &'static str) -> bool {
        match super::bone_index(bone) {
            Some(i) => {
                self.bones[i] = Some((joint, how));
                true
            }
            None => false,
        }
    }

    /// Every mapped bone, in profile order.
    pub fn mapped(&self) -> Vec<MappedBone> {
        BONES
            .iter()
            .zip(&self.bones)
            .filter_map(|(&bone, m)| m.map(|(joint, how)| MappedBone { bone, joint, how }))
            .collect()
    }

    /// Required bones ([`REQUIRED`]) that are not mapped.
    pub fn missing_required(&self) -> Vec<&'static str> {
        REQUIRED
            .iter()
            .copied()
            .filter(|b| self.joint(b).is_none())
            .collect()
    }
}

/// A joint name split into lowercase words: the namespace before a `:` dropped
/// (`mixamorig:LeftUpLeg`), split at separators, digits and case changes
/// (`LeftUpLeg` -> left, up, leg; `thigh_l` -> thigh, l; `spine_01` -> spine, 01).
fn words(name: &str) -> Vec<String> {
    let name = name.rsplit(':').next().unwrap_or(name);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        let split = !c.is_alphanumeric()
            || prev.is_some_and(|p| {
                (p.is_lowercase() && c.is_uppercase()) || (p.is_ascii_digit() != c.is_ascii_digit())
            });
        if split && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        }
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    // A leading single capital side letter glued to the next word (`LHipJoint` ->
    // lhip, joint): split it off.
    let mut fixed = Vec::with_capacity(out.len());
    for (i, w) in out.into_iter().enumerate() {
        let original_start = i == 0 && name.len() > 1;
        // ...but not a whole word in capitals (`LEFT_FOOT`, `RIGHTHAND`): only a capital
        // followed by a capital then a lower-case letter (`LHip`).
        if original_start
            && (w.starts_with('l') || w.starts_with('r'))
            && w.len() > 1
            && !w.starts_with("left")
            && !w.starts_with("right")
            && name.chars().next().is_some_and(|c| c == 'L' || c == 'R')
            && name.chars().nth(1).is_some_and(char::is_uppercase)
            && name.chars().nth(2).is_some_and(char::is_lowercase)
        {
            fixed.push(w[..1].to_string());
            fixed.push(w[1..].to_string());
        } else {
            fixed.push(w);
        }
    }
    fixed
}

/// Side and body-part key of a joint name: (`Some('l' | 'r')`, the other words joined
/// without noise words), e.g. `mixamorig:LeftUpLeg` -> (l, "upleg"), `thigh_l` ->
/// (l, "thigh"), `spine_01` -> (none, "spine01").
fn key(name: &str) -> (Option<char>, String) {
    let mut side = None;
    let mut rest = Vec::new();
    for w in words(name) {
        match w.as_str() {
            "left" | "l" if side.is_none() => side = Some('l'),
            "right" | "r" if side.is_none() => side = Some('r'),
            "def" | "org" | "mch" | "jnt" | "joint" | "bone" | "bip" | "bip01" | "skeleton"
            | "mixamorig" | "end" | "j" => {}
            w if w.starts_with("character") || w.starts_with("mixamorig") => {}
            // A number before the part names the rig, not the bone (`Character1_Hips`).
            w if rest.is_empty() && w.chars().all(|c| c.is_ascii_digit()) => {}
            w => rest.push(w.to_string()),
        }
    }
    (side, rest.concat())
}

/// The sided profile part a key names (`upleg` -> UpperLeg...), without the side.
fn sided_part(key: &str) -> Option<&'static str> {
    Some(match key {
        "upleg" | "upperleg" | "thigh" | "femur" => "UpperLeg",
        "leg" | "lowerleg" | "calf" | "shin" | "knee" | "tibia" => "LowerLeg",
        "foot" | "ankle" => "Foot",
        "toebase" | "toe" | "toes" | "ball" | "toe0" | "toe1" => "Toes",
        "shoulder" | "clavicle" | "collar" | "collarbone" => "Shoulder",
        "arm" | "upperarm" | "uparm" | "humerus" => "UpperArm",
        "forearm" | "lowerarm" | "elbow" | "loarm" => "LowerArm",
        "hand" | "wrist" => "Hand",
        _ => return None,
    })
}

/// The unsided profile bone a key names.
fn middle_part(key: &str) -> Option<&'static str> {
    Some(match key {
        "hips" | "hip" | "pelvis" => "hips",
        // Spine joints are numbered differently by every rig (Spine/Spine1/Spine2,
        // spine_01..05, Abdomen/Torso): the spine, chest and upper chest are taken from
        // the path between the hips and the neck instead.
        "chest" | "torso" => "chest",
        "upperchest" => "upperChest",
        "neck" | "neck0" | "neck01" | "neck1" => "neck",
        "head" => "head",
        _ => return None,
    })
}

/// Maps `skeleton` onto the profile (see the module docs). Only bones count: joints a
/// skin binds, or every joint when none is bound (a mesh node named like a bone is never
/// taken). Errors: a required bone found neither by name nor by shape (the message names
/// every missing bone).
pub fn automap(skeleton: &Skeleton) -> Result<RetargetMap, AnimError> {
    let map = automap_partial(skeleton);
    let missing = map.missing_required();
    if !missing.is_empty() {
        return Err(AnimError::OutOfRange {
            what: "humanoid mapping".into(),
            detail: format!(
                "no joint found for {} (by name or by the skeleton's shape); give them in a \
                 map file",
                missing.join(", ")
            ),
        });
    }
    Ok(map)
}

/// What [`automap`] finds, without requiring every required bone (a map file adds the
/// rest).
pub fn automap_partial(skeleton: &Skeleton) -> RetargetMap {
    let mut map = RetargetMap::new();
    let n = skeleton.joint_count();
    let depth: Vec<usize> = (0..n).map(|j| skeleton.depth(j)).collect();
    // By name: the shallowest bone with a matching name wins.
    let mut order: Vec<usize> = (0..n).filter(|&j| skeleton.is_bound(j)).collect();
    order.sort_by_key(|&j| (depth[j], j));
    for &j in &order {
        let (side, k) = key(&skeleton.names()[j]);
        let bone = match side {
            Some(s) => sided_part(&k).map(|p| {
                let side = if s == 'l' { "left" } else { "right" };
                format!("{side}{p}")
            }),
            None => middle_part(&k).map(str::to_string),
        };
        if let Some(bone) = bone {
            if map.joint(&bone).is_none() {
                map.set(&bone, j, "name");
            }
        }
    }
    // The spine between hips and neck by hierarchy when names gave fewer spine bones.
    fill_from_hierarchy(skeleton, &mut map);
    map
}

/// The character's left in model space: up x forward, forward from the feet (ankle to
/// toe) where there are toes, else from which side the thighs are on (+X when unknown).
pub(super) fn left_axis(p: &[Vec3], legs: &[LegChain]) -> Vec3 {
    let forward: Vec3 = legs
        .iter()
        .filter_map(|l| l.toe.map(|t| p[t] - p[l.foot]))
        .map(|d| Vec3::new(d.x, 0.0, d.z))
        .sum();
    if forward.length_squared() > 1e-12 {
        return Vec3::Y.cross(forward.normalize()).normalize_or(Vec3::X);
    }
    Vec3::X
}

/// Fills what names did not give from the skeleton's shape.
fn fill_from_hierarchy(skeleton: &Skeleton, map: &mut RetargetMap) {
    let p = rest_positions(skeleton);
    let parents = skeleton.parents();
    let children = |j: usize| -> Vec<usize> {
        (0..skeleton.joint_count())
            .filter(|&c| parents[c] == Some(j) && skeleton.is_bound(c))
            .collect()
    };
    let Ok(legs) = detect_legs(skeleton) else {
        return;
    };
    let left = left_axis(&p, &legs);
    // Legs: the first two, sided by their name or by where they stand (against the middle
    // of the thighs, not the origin: the rig may stand anywhere).
    let middle =
        legs.iter().take(2).map(|l| p[l.thigh]).sum::<Vec3>() / legs.len().clamp(1, 2) as f32;
    let mut sided: Vec<(&str, &LegChain)> = Vec::new();
    for leg in legs.iter().take(2) {
        let side = match leg.name.as_str() {
            "left" => "left",
            "right" => "right",
            _ => {
                if (p[leg.thigh] - middle).dot(left) >= 0.0 {
                    "left"
                } else {
                    "right"
                }
            }
        };
        sided.push((side, leg));
    }
    for (side, leg) in &sided {
        for (part, j) in [
            ("UpperLeg", Some(leg.thigh)),
            ("LowerLeg", Some(leg.calf)),
            ("Foot", Some(leg.foot)),
            ("Toes", leg.toe),
        ] {
            let bone = format!("{side}{part}");
            if let (None, Some(j)) = (map.joint(&bone), j) {
                map.set(&bone, j, "hierarchy");
            }
        }
    }
    let hips = map
        .joint("hips")
        .or_else(|| pelvis_of(parents, &legs).filter(|&h| skeleton.is_bound(h)));
    let Some(hips) = hips else {
        return;
    };
    if map.joint("hips").is_none() {
        map.set("hips", hips, "hierarchy");
    }
    let on_leg = |j: usize| {
        legs.iter()
            .any(|l| skeleton.is_ancestor_or_self(l.thigh, j))
    };
    // The head: the highest bone above the hips that is not on a leg (a `_end` leaf is
    // the head's tip: its parent).
    let head = map.joint("head").or_else(|| {
        let top = (0..skeleton.joint_count())
            .filter(|&j| {
                j != hips
                    && skeleton.is_bound(j)
                    && skeleton.is_ancestor_or_self(hips, j)
                    && !on_leg(j)
            })
            .max_by(|&a, &b| p[a].y.total_cmp(&p[b].y))?;
        let name = skeleton.names()[top].to_ascii_lowercase();
        let tip = name.ends_with("end") || name.ends_with("top") || name.ends_with("tip");
        Some(match parents[top] {
            Some(parent) if tip && parent != hips => parent,
            _ => top,
        })
    });
    let Some(head) = head else {
        return;
    };
    if map.joint("head").is_none() && !map.mapped().iter().any(|m| m.joint == head) {
        map.set("head", head, "hierarchy");
    }
    // The spine: the path from the hips up to the head.
    let mut path = Vec::new();
    let mut j = parents[head];
    while let Some(x) = j {
        if x == hips {
            break;
        }
        path.push(x);
        j = parents[x];
    }
    if j != Some(hips) {
        return;
    }
    path.reverse();
    // The branch point of the arms: the highest path joint with a child off the path
    // that is not on a leg.
    let branch = path.iter().rposition(|&x| {
        children(x)
            .iter()
            .any(|&c| !path.contains(&c) && c != head && !on_leg(c))
    });
    // Neck: the path joint after the branch point, if any.
    if let Some(b) = branch {
        if b + 1 < path.len() && map.joint("neck").is_none() {
            map.set("neck", path[b + 1], "hierarchy");
        }
    }
    let body: &[usize] = match branch {
        Some(b) => &path[..=b],
        None => &path,
    };
    for (bone, idx) in [("spine", 0usize), ("chest", 1), ("upperChest", 2)] {
        if let (None, Some(&j)) = (map.joint(bone), body.get(idx)) {
            let taken = map.mapped().iter().any(|m| m.joint == j);
            if !taken {
                // Named like a spine joint: found by its name, placed by the path.
                let k = key(&skeleton.names()[j]).1;
                let named = ["spine", "abdomen", "torso", "chest", "back"]
                    .iter()
                    .any(|w| k.starts_with(w));
                map.set(bone, j, if named { "name" } else { "hierarchy" });
            }
        }
    }
    // Arms: the branches off the branch point, each followed down its single-child
    // chain to the hand (where fingers branch, or the end).
    let Some(b) = branch else {
        return;
    };
    for start in children(path[b]) {
        if path.contains(&start) || start == head || on_leg(start) {
            continue;
        }
        let mut chain = vec![start];
        loop {
            let c = children(*chain.last().unwrap_or(&start));
            if c.is_empty() || chain.len() >= 4 {
                break;
            }
            if c.len() == 1 {
                chain.push(c[0]);
                continue;
            }
            // Fingers (or palm bones) branch: when the chain has no hand yet, the middle
            // branch stands for it (a Quaternius robot's lower arm carries three palms).
            if chain.len() == 3 {
                let centre: Vec3 = c.iter().map(|&x| p[x]).sum::<Vec3>() / c.len() as f32;
                if let Some(&mid) = c
                    .iter()
                    .min_by(|&&a, &&b| p[a].distance(centre).total_cmp(&p[b].distance(centre)))
                {
                    chain.push(mid);
                }
            }
            break;
        }
        let side = if (p[chain[chain.len() - 1]] - p[hips]).dot(left) >= 0.0 {
            "left"
        } else {
            "right"
        };
        let parts: &[&str] = match chain.len() {
            4.. => &["Shoulder", "UpperArm", "LowerArm", "Hand"],
            3 => &["UpperArm", "LowerArm", "Hand"],
            _ => continue,
        };
        for (part, &j) in parts.iter().zip(&chain) {
            let bone = format!("{side}{part}");
            let taken = map.mapped().iter().any(|m| m.joint == j);
            if map.joint(&bone).is_none() && !taken {
                map.set(&bone, j, "hierarchy");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_capitals_keep_their_side_word() {
        assert_eq!(key("LEFT_FOOT"), (Some('l'), "foot".into()));
        assert_eq!(key("RIGHT_HAND"), (Some('r'), "hand".into()));
    }

    #[test]
    fn names_split_into_side_and_part() {
        assert_eq!(key("mixamorig:LeftUpLeg"), (Some('l'), "upleg".into()));
        assert_eq!(key("thigh_l"), (Some('l'), "thigh".into()));
        assert_eq!(key("UpperLeg.R"), (Some('r'), "upperleg".into()));
        assert_eq!(key("DEF-forearm.L"), (Some('l'), "forearm".into()));
        assert_eq!(key("Character1_RightHand"), (Some('r'), "hand".into()));
        assert_eq!(key("spine_01"), (None, "spine01".into()));
        assert_eq!(key("LHipJoint"), (Some('l'), "hip".into()));
        assert_eq!(key("Toes_L"), (Some('l'), "toes".into()));
        assert_eq!(key("J_Bip_L_UpperLeg"), (Some('l'), "upperleg".into()));
    }
}
