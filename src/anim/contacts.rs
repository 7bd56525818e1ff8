//! Leg chains and foot contacts.
//!
//! Two steps, both on the CPU and both offline (once per skeleton / clip, not per frame):
//!
//! 1. [`detect_legs`] finds each leg's thigh, calf, foot (and toe) joints: first by the
//!    names common rigs use, then by the shape of the rest pose (chains that hang from a
//!    branching joint such as the hips down to the ground). [`legs_from_override`] takes
//!    the user's choice instead.
//! 2. [`detect_contacts`] samples a clip over one cycle and finds when each foot is on
//!    the ground: low (near its lowest height in the cycle) *and* still vertically. The
//!    thresholds are fractions of the leg's rest length, so they hold for a 0.2-unit
//!    character and a 440-unit one alike. [`contacts_to_markers`] turns the result into
//!    the sync markers the files carry (`left_foot_down`, ...).
//!
//! Space: model space of the skeleton (every root's parent is the identity), Y up, as
//! glTF defines it. The clip's root motion is *not* removed: only heights matter, and a
//! root that bobs moves the feet in the clip too.

use glam::{Mat4, Vec3};

use super::model_pose::for_each_model_pose;
use super::{AnimError, Clip, LocalToModelJob, Skeleton, SyncMarker};

/// One leg: joint indices into the [`Skeleton`].
#[derive(Clone, Debug, PartialEq)]
pub struct LegChain {
    /// `"left"`, `"right"`, or `"leg N"` (N = 1-based position in the detected list) for
    /// legs beyond the first pair, e.g. a quadruped's front legs.
    pub name: String,
    /// Hip joint (top of the upper leg).
    pub thigh: usize,
    /// Knee joint (top of the lower leg).
    pub calf: usize,
    /// Ankle joint. Usually a descendant of `calf`; in IK rigs (the Robot) the foot bone
    /// can sit elsewhere in the hierarchy.
    pub foot: usize,
    /// Ball/toe joint below the foot, when the rig has one.
    pub toe: Option<usize>,
}

/// A leg chosen by the user, by exact joint names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegOverride<'a> {
    /// Exact name of the hip joint (top of the upper leg).
    pub thigh: &'a str,
    /// Exact name of the knee joint (top of the lower leg).
    pub calf: &'a str,
    /// Exact name of the ankle joint.
    pub foot: &'a str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Thigh,
    Calf,
    Foot,
    Toe,
}

/// Name prefixes that exporters and rig generators put before the bone's own name
/// (compared lower-case). Namespaces (`mixamorig:`, `Armature|`) are cut off before.
const PREFIXES: [&str; 11] = [
    "mixamorig_",
    "mixamorig",
    "armature_",
    "armature.",
    "def-",
    "def_",
    "def.",
    "j_bip_",
    "bip01_",
    "bip01 ",
    "bip001 ",
];

/// Bone names with the side and separators removed (lower-case), per part:
/// Mixamo (`UpLeg`, `Leg`, `Foot`, `ToeBase`), Unreal (`thigh`, `calf`, `foot`, `ball`),
/// Rigify (`thigh`, `shin`, `foot`, `toe`), VRM/Unity (`UpperLeg`, `LowerLeg`, `Foot`,
/// `Toes`), Quaternius (`UpperLeg`, `LowerLeg`, `Foot`), 3ds Max biped (`Thigh`, `Calf`,
/// `Foot`, `Toe0`).
const PART_NAMES: [(Part, &[&str]); 4] = [
    (
        Part::Thigh,
        &["upleg", "upperleg", "thigh", "legupper", "femur"],
    ),
    (
        Part::Calf,
        &[
            "leg", "lowerleg", "calf", "shin", "leglower", "knee", "tibia",
        ],
    ),
    (Part::Foot, &["foot", "ankle"]),
    (Part::Toe, &["toebase", "toe", "toes", "ball", "toe0"]),
];

fn is_separator(c: u8) -> bool {
    matches!(c, b'_' | b'.' | b'-' | b' ')
}

/// Side and part of a bone name such as `mixamorig:LeftUpLeg`, `thigh_l`, `DEF-shin.L`,
/// `J_Bip_L_UpperLeg` or `UpperLegL`; `None` for anything else.
fn parse_leg_name(name: &str) -> Option<(Side, Part)> {
    let mut s = name.rsplit([':', '|']).next().unwrap_or(name).trim();
    'strip: loop {
        let lower = s.to_ascii_lowercase();
        for p in PREFIXES {
            if lower.starts_with(p) && s.len() > p.len() {
                s = &s[p.len()..];
                continue 'strip;
            }
        }
        break;
    }
    let lower = s.to_ascii_lowercase();
    let b = lower.as_bytes();
    let n = b.len();
    let (side, rest): (Side, &str) = if let Some(r) = lower.strip_prefix("left") {
        (Side::Left, r)
    } else if let Some(r) = lower.strip_prefix("right") {
        (Side::Right, r)
    } else if n > 2 && is_separator(b[1]) && (b[0] == b'l' || b[0] == b'r') {
        let side = if b[0] == b'l' {
            Side::Left
        } else {
            Side::Right
        };
        (side, &lower[2..])
    } else if n > 2 && is_separator(b[n - 2]) && (b[n - 1] == b'l' || b[n - 1] == b'r') {
        let side = if b[n - 1] == b'l' {
            Side::Left
        } else {
            Side::Right
        };
        (side, &lower[..n - 2])
    } else if let Some(r) = lower.strip_suffix("left") {
        (Side::Left, r)
    } else if let Some(r) = lower.strip_suffix("right") {
        (Side::Right, r)
    } else {
        // CamelCase side suffix: `UpperLegL`, `FootR` (an upper-case letter after a
        // lower-case one, so `BALL` is not read as a left `BAL`).
        let o = s.as_bytes();
        if n > 2 && o[n - 2].is_ascii_lowercase() && (o[n - 1] == b'L' || o[n - 1] == b'R') {
            let side = if o[n - 1] == b'L' {
                Side::Left
            } else {
                Side::Right
            };
            (side, &lower[..n - 1])
        } else {
            return None;
        }
    };
    let part_name: String = rest.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    PART_NAMES
        .iter()
        .find(|(_, names)| names.contains(&part_name.as_str()))
        .map(|&(part, _)| (side, part))
}

/// Model-space joint positions in the skeleton's reference pose (its rest pose unless
/// that is no standing pose, see [`Skeleton::reference_pose`]; roots placed by the
/// identity).
/// Model-space joint positions in the skeleton's reference pose (the standing pose legs
/// are found and measured on).
pub(crate) fn rest_positions(skeleton: &Skeleton) -> Vec<Vec3> {
    let mut model = vec![Mat4::IDENTITY; skeleton.joint_count()];
    let job = LocalToModelJob {
        parents: skeleton.parents(),
        local: skeleton.reference_pose(),
        model_from_root: Mat4::IDENTITY,
    };
    // A Skeleton is ordered and sized by construction, so the job cannot fail.
    if job.run(&mut model).is_err() {
        return vec![Vec3::ZERO; skeleton.joint_count()];
    }
    model.iter().map(|m| m.w_axis.truncate()).collect()
}

/// Rest-pose length of a leg: thigh→calf plus calf→foot joint distances, in model space
/// (so an armature node's scale is included). 0 when a joint index is out of range.
pub fn leg_length(skeleton: &Skeleton, leg: &LegChain) -> f32 {
    let n = skeleton.joint_count();
    if leg.thigh >= n || leg.calf >= n || leg.foot >= n {
        return 0.0;
    }
    let p = rest_positions(skeleton);
    length_of(&p, leg.thigh, leg.calf, leg.foot)
}

fn length_of(p: &[Vec3], thigh: usize, calf: usize, foot: usize) -> f32 {
    p[thigh].distance(p[calf]) + p[calf].distance(p[foot])
}

/// (thigh, calf, foot, toe) before naming.
type Chain = (usize, usize, usize, Option<usize>);
/// (thigh, calf, foot).
type Triple = (usize, usize, usize);

/// Finds the legs of a skeleton.
///
/// **By name** first (case-insensitive; namespaces such as `mixamorig:` and prefixes such
/// as `Armature_`, `DEF-`, `J_Bip_` are ignored): Mixamo `LeftUpLeg/LeftLeg/LeftFoot
/// (/LeftToeBase)`, Unreal `thigh_l/calf_l/foot_l(/ball_l)`, Rigify `thigh.L/shin.L/
/// foot.L(/toe.L)`, VRM/Unity `LeftUpperLeg/LeftLowerLeg/LeftFoot(/LeftToes)`,
/// Quaternius `UpperLeg.L/LowerLeg.L/Foot.L`, the demo's `thigh_l/calf_l/foot_l/toe_l`.
/// The thigh must be an ancestor of the calf, and the calf of the foot; an IK rig whose
/// foot bone hangs elsewhere (the Robot's `Foot.L` is a child of the root bone) is
/// accepted when no foot of that side is below the calf, taking the foot that shares the
/// deepest ancestor with the calf and lies within two thigh lengths of it.
///
/// **By shape** otherwise (and for further legs, e.g. the front legs of a quadruped
/// whose hind legs are named): chains of at least three joints that start below a
/// joint with two or more branches (the hips, the chest), follow single branches
/// (leaf side-bones such as twist joints are skipped), point down (the chain drops by at
/// least half its length) and reach the ground (their lowest joint is within a quarter
/// leg length of the lowest such chain) in the rest pose. Of each chain, the two
/// consecutive segments with the largest summed length are thigh→calf→foot; the next
/// joint, if any, is the toe. Pairs are told apart by the sign of the thigh's model-space
/// X offset from its parent: +X is the character's left (glTF characters face +Z). The
/// first pair (the one hanging from the joint nearest the root) is `left`/`right`,
/// others are `leg N`.
///
/// Only bones are considered: joints a skin binds (every joint when no skin binds any),
/// so a mesh node named after the bone it follows (`Foot.L` twice in a Quaternius
/// export) is never a leg joint. A named leg hangs: its foot is lower than its thigh in
/// the rest pose.
///
/// A skeleton with neither gives an error saying what was looked for.
pub fn detect_legs(skeleton: &Skeleton) -> Result<Vec<LegChain>, LegError> {
    let p = rest_positions(skeleton);
    let mut legs = named_legs(skeleton, &p);
    let used: Vec<usize> = legs
        .iter()
        .flat_map(|l| [Some(l.thigh), Some(l.calf), Some(l.foot), l.toe])
        .flatten()
        .collect();
    let shaped: Vec<Chain> = shaped_legs(skeleton, &p, &legs)
        .into_iter()
        .filter(|c| {
            ![Some(c.0), Some(c.1), Some(c.2), c.3]
                .iter()
                .flatten()
                .any(|j| used.contains(j))
        })
        .collect();
    legs.extend(name_by_side(skeleton, &p, &shaped, legs.len()));
    if legs.is_empty() {
        return Err(LegError::NotFound {
            joint_count: skeleton.joint_count(),
        });
    }
    Ok(legs)
}

/// Legs found by joint names (see [`detect_legs`]), left before right.
fn named_legs(skeleton: &Skeleton, p: &[Vec3]) -> Vec<LegChain> {
    let mut found: Vec<(Side, Part, usize)> = Vec::new();
    for (j, name) in skeleton.names().iter().enumerate() {
        if !skeleton.is_bound(j) {
            continue; // a mesh node named after the bone it follows
        }
        if let Some((side, part)) = parse_leg_name(name) {
            found.push((side, part, j));
        }
    }
    let mut legs = Vec::new();
    for (side, label) in [(Side::Left, "left"), (Side::Right, "right")] {
        let of = |part: Part| -> Vec<usize> {
            found
                .iter()
                .filter(|f| f.0 == side && f.1 == part)
                .map(|f| f.2)
                .collect()
        };
        let (thighs, calves, feet, toes) = (
            of(Part::Thigh),
            of(Part::Calf),
            of(Part::Foot),
            of(Part::Toe),
        );
        let Some((thigh, calf, foot)) = pick_named(skeleton, p, &thighs, &calves, &feet) else {
            continue;
        };
        let toe = toes
            .iter()
            .copied()
            .filter(|&t| t != foot && skeleton.is_ancestor_or_self(foot, t))
            .min_by_key(|&t| skeleton.depth(t));
        legs.push(LegChain {
            name: label.to_string(),
            thigh,
            calf,
            foot,
            toe,
        });
    }
    legs
}

/// The tightest (fewest joints from thigh to foot) thigh ⊃ calf ⊃ foot triple; failing
/// that, an IK-style foot outside the calf's subtree.
fn pick_named(
    skeleton: &Skeleton,
    p: &[Vec3],
    thighs: &[usize],
    calves: &[usize],
    feet: &[usize],
) -> Option<Triple> {
    let below = |a: usize, b: usize| a != b && skeleton.is_ancestor_or_self(a, b);
    // A leg hangs: its foot is lower than its thigh in the rest pose.
    let hangs = |t: usize, f: usize| p[f].y < p[t].y;
    let mut best: Option<(usize, Triple)> = None;
    for &t in thighs {
        for &c in calves.iter().filter(|&&c| below(t, c)) {
            for &f in feet.iter().filter(|&&f| below(c, f) && hangs(t, f)) {
                let span = skeleton.depth(f) - skeleton.depth(t);
                if best.is_none_or(|(s, _)| span < s) {
                    best = Some((span, (t, c, f)));
                }
            }
        }
    }
    if let Some((_, triple)) = best {
        return Some(triple);
    }
    // IK rigs: the foot bone is driven by a target, not parented under the calf.
    let mut best: Option<((usize, f32), Triple)> = None;
    for &t in thighs {
        for &c in calves.iter().filter(|&&c| below(t, c)) {
            let thigh_len = p[t].distance(p[c]);
            for &f in feet
                .iter()
                .filter(|&&f| !skeleton.is_ancestor_or_self(f, c) && !below(c, f) && hangs(t, f))
            {
                let d = p[c].distance(p[f]);
                if !(d > 0.0 && d <= 2.0 * thigh_len) {
                    continue;
                }
                let shared = common_ancestor_depth(skeleton, c, f);
                // Deeper shared ancestor first, then nearer.
                let better = match best {
                    None => true,
                    Some(((s, bd), _)) => shared > s || (shared == s && d < bd),
                };
                if better {
                    best = Some(((shared, d), (t, c, f)));
                }
            }
        }
    }
    best.map(|(_, triple)| triple)
}

/// Depth of the deepest common ancestor of `a` and `b`; 0 when they share none (also 0
/// for a shared root, which is fine for ranking).
fn common_ancestor_depth(skeleton: &Skeleton, a: usize, b: usize) -> usize {
    let mut j = Some(a);
    while let Some(i) = j {
        if skeleton.is_ancestor_or_self(i, b) {
            return skeleton.depth(i);
        }
        j = skeleton.parents()[i];
    }
    0
}

/// Leg-shaped chains of the rest pose (see [`detect_legs`]), not yet named. `named`
/// legs take part in finding the ground height.
fn shaped_legs(skeleton: &Skeleton, p: &[Vec3], named: &[LegChain]) -> Vec<Chain> {
    let n = skeleton.joint_count();
    // Bones only: a mesh node hanging from a bone neither makes a branch nor extends a
    // chain.
    let mut children = vec![Vec::new(); n];
    for (j, parent) in skeleton.parents().iter().enumerate() {
        if let Some(pa) = *parent {
            if skeleton.is_bound(j) && skeleton.is_bound(pa) {
                children[pa].push(j);
            }
        }
    }
    let inner = |j: usize| -> Vec<usize> {
        children[j]
            .iter()
            .copied()
            .filter(|&c| !children[c].is_empty())
            .collect()
    };
    // Candidates: (chain, lowest y, leg length).
    let mut candidates: Vec<(Chain, f32, f32)> = Vec::new();
    for b in 0..n {
        if inner(b).len() < 2 {
            continue;
        }
        for &start in &children[b] {
            let mut chain = vec![start];
            let mut j = start;
            loop {
                let next = match (inner(j).as_slice(), children[j].as_slice()) {
                    ([only], _) => *only,
                    ([], [leaf]) => *leaf,
                    _ => break,
                };
                chain.push(next);
                j = next;
            }
            if chain.len() < 3 {
                continue;
            }
            let seg = |k: usize| p[chain[k]].distance(p[chain[k + 1]]);
            let k = (0..chain.len() - 2)
                .max_by(|&x, &y| (seg(x) + seg(x + 1)).total_cmp(&(seg(y) + seg(y + 1))))
                .unwrap_or(0);
            let len = seg(k) + seg(k + 1);
            let lowest = chain[k..]
                .iter()
                .map(|&j| p[j].y)
                .fold(f32::INFINITY, f32::min);
            // Points down: the chain drops by at least half its length.
            if len.is_nan() || len <= 0.0 || p[chain[k]].y - lowest < 0.5 * len {
                continue;
            }
            let toe = chain.get(k + 3).copied();
            candidates.push(((chain[k], chain[k + 1], chain[k + 2], toe), lowest, len));
        }
    }
    let ground = named
        .iter()
        .map(|l| {
            [Some(l.foot), l.toe]
                .into_iter()
                .flatten()
                .map(|j| p[j].y)
                .fold(f32::INFINITY, f32::min)
        })
        .chain(candidates.iter().map(|c| c.1))
        .fold(f32::INFINITY, f32::min);
    candidates
        .into_iter()
        .filter(|&(_, lowest, len)| lowest - ground <= 0.25 * len)
        .map(|c| c.0)
        .collect()
}

/// Names chains by pairs: grouped by the thigh's parent (nearest the root first), +X
/// offset from the parent is left. The first pair overall (when `first_index` is 0) is
/// `left`/`right`; all other legs are `leg N` with N = their 1-based position.
fn name_by_side(
    skeleton: &Skeleton,
    p: &[Vec3],
    chains: &[Chain],
    first_index: usize,
) -> Vec<LegChain> {
    let parent_of = |c: &Chain| skeleton.parents()[c.0];
    let mut groups: Vec<Option<usize>> = chains.iter().map(parent_of).collect();
    groups.sort_by_key(|g| (g.map_or(0, |j| skeleton.depth(j)), *g));
    groups.dedup();
    let side_x = |c: &Chain| p[c.0].x - parent_of(c).map_or(0.0, |pa| p[pa].x);
    let mut ordered: Vec<(Chain, Option<Side>)> = Vec::new();
    for g in groups {
        let members: Vec<Chain> = chains
            .iter()
            .copied()
            .filter(|c| parent_of(c) == g)
            .collect();
        let lefts: Vec<Chain> = members
            .iter()
            .copied()
            .filter(|c| side_x(c) >= 0.0)
            .collect();
        let rights: Vec<Chain> = members
            .iter()
            .copied()
            .filter(|c| side_x(c) < 0.0)
            .collect();
        for i in 0..lefts.len().max(rights.len()) {
            if let Some(&l) = lefts.get(i) {
                ordered.push((l, Some(Side::Left)));
            }
            if let Some(&r) = rights.get(i) {
                ordered.push((r, Some(Side::Right)));
            }
        }
    }
    // Only a true pair at the front may take the plain side names.
    let first_pair = first_index == 0
        && ordered.len() >= 2
        && ordered[0].1 == Some(Side::Left)
        && ordered[1].1 == Some(Side::Right)
        && parent_of(&ordered[0].0) == parent_of(&ordered[1].0);
    ordered
        .into_iter()
        .enumerate()
        .map(|(i, ((thigh, calf, foot, toe), _))| LegChain {
            name: match (first_pair, i) {
                (true, 0) => "left".to_string(),
                (true, 1) => "right".to_string(),
                _ => format!("leg {}", first_index + i + 1),
            },
            thigh,
            calf,
            foot,
            toe,
        })
        .collect()
}

/// Why no legs could be found or chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum LegError {
    /// Neither names nor the skeleton's shape give legs.
    NotFound {
        /// Number of joints in the skeleton searched.
        joint_count: usize,
    },
    /// Chosen leg `leg` (1-based) names a joint the skeleton lacks, as its `role`.
    NoJoint {
        /// Position of the leg in the chosen list, 1-based.
        leg: usize,
        /// `"thigh"`, `"calf"` or `"foot"`.
        role: &'static str,
        /// The joint name that was not found.
        name: String,
    },
    /// Chosen leg `leg` (1-based) uses one joint twice.
    SameJoints {
        /// Position of the leg in the chosen list, 1-based.
        leg: usize,
        /// The thigh joint's name as given.
        thigh: String,
        /// The calf joint's name as given.
        calf: String,
        /// The foot joint's name as given.
        foot: String,
    },
}

impl std::fmt::Display for LegError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotFound { joint_count } => write!(
                f,
                "no legs found in the skeleton ({joint_count} joints): no thigh/calf/foot joints named like \
                 Mixamo (LeftUpLeg/LeftLeg/LeftFoot), Unreal (thigh_l/calf_l/foot_l), Rigify \
                 (thigh.L/shin.L/foot.L), VRM/Unity (LeftUpperLeg/LeftLowerLeg/LeftFoot) or \
                 Quaternius (UpperLeg.L/LowerLeg.L/Foot.L), and no chain of 3 or more joints \
                 below a branching joint (hips) that hangs down to the ground in the rest pose; \
                 choose the legs by joint name instead"
            ),
            Self::NoJoint { leg, role, name } => write!(
                f,
                "leg {leg}: no joint named '{name}' (the {role}) in the skeleton"
            ),
            Self::SameJoints {
                leg,
                thigh,
                calf,
                foot,
            } => write!(
                f,
                "leg {leg}: thigh '{thigh}', calf '{calf}' and foot '{foot}' must be three different joints"
            ),
        }
    }
}

impl std::error::Error for LegError {}

// Callers above the core that report in words take it with `?`.

/// Legs chosen by the user, by exact joint names; named like detected legs by shape
/// (`left`/`right` for a pair hanging from one joint, +X left; `leg N` otherwise). The
/// toe is the foot's only child, if it has exactly one. The error names the missing joint.
pub fn legs_from_override(
    skeleton: &Skeleton,
    legs: &[LegOverride],
) -> Result<Vec<LegChain>, LegError> {
    let mut chains = Vec::with_capacity(legs.len());
    for (i, leg) in legs.iter().enumerate() {
        let find = |role: &'static str, name: &str| {
            skeleton.find(name).ok_or_else(|| LegError::NoJoint {
                leg: i + 1,
                role,
                name: name.to_string(),
            })
        };
        let thigh = find("thigh", leg.thigh)?;
        let calf = find("calf", leg.calf)?;
        let foot = find("foot", leg.foot)?;
        if thigh == calf || calf == foot || thigh == foot {
            return Err(LegError::SameJoints {
                leg: i + 1,
                thigh: leg.thigh.to_string(),
                calf: leg.calf.to_string(),
                foot: leg.foot.to_string(),
            });
        }
        let mut kids = skeleton
            .parents()
            .iter()
            .enumerate()
            .filter(|(_, pa)| **pa == Some(foot))
            .map(|(j, _)| j);
        let toe = match (kids.next(), kids.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        };
        chains.push((thigh, calf, foot, toe));
    }
    let p = rest_positions(skeleton);
    let named = name_by_side(skeleton, &p, &chains, 0);
    // name_by_side reorders by pairs; the caller's order is kept here.
    Ok(chains
        .iter()
        .map(|c| {
            named
                .iter()
                .find(|l| (l.thigh, l.calf, l.foot, l.toe) == *c)
                .cloned()
                .unwrap_or_else(|| LegChain {
                    name: String::new(),
                    thigh: c.0,
                    calf: c.1,
                    foot: c.2,
                    toe: c.3,
                })
        })
        .collect())
}

/// Thresholds of [`detect_contacts`], relative to each leg's rest length `L`
/// ([`leg_length`]) so that they hold at any asset scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSettings {
    /// A foot (ankle or toe joint) can be down while it is within this many leg lengths
    /// above its own lowest height in the cycle.
    pub height_fraction: f32,
    /// ... and while its vertical speed is below this many leg lengths per second.
    pub vertical_speed_fraction: f32,
    /// Hysteresis: a foot comes down when both measures are under their thresholds, and
    /// lifts only when one of them passes `release_ratio` times its threshold (>= 1; 1 is
    /// no hysteresis). Keeps a planted foot that rolls or jitters near a threshold from
    /// flickering up and down.
    pub release_ratio: f32,
    /// Samples per clip second (at least 8 samples per cycle are taken).
    pub samples_per_sec: f32,
    /// Contacts shorter than this are grazes (a swing foot touching the ground) and are
    /// dropped; a gap shorter than this is closed only next to a contact at least this
    /// long (a toe rolling off after the ankle lifted), so two grazes close together
    /// never merge into one contact long enough to survive. Gaps under a quarter of it
    /// (a flicker within a stance) are always closed.
    pub min_contact_secs: f32,
}

impl Default for ContactSettings {
    /// `height_fraction` 0.05: 4.5 cm on a 0.9 m leg. A planted ankle rises about 1 cm
    /// as the heel strikes and the foot rolls, the toe joint not at all, while a swing
    /// foot clears the ground by 5 cm or more within ~0.1 s of lift-off.
    /// `vertical_speed_fraction` 0.25: 0.22 m/s on a 0.9 m leg; a swing foot rises and
    /// drops at 0.5-2 m/s, a planted one rolls at a few cm/s.
    /// `release_ratio` 1.25: a planted foot lifts when it is 5.6 cm up or rising at
    /// 0.28 m/s on a 0.9 m leg; a lifting foot passes both within a sample or two.
    /// `samples_per_sec` 120: 4 samples per 30 Hz key; crossings are interpolated between
    /// samples, so this is ample. `min_contact_secs` 0.05: a stance lasts 0.15 s (sprint)
    /// to 0.7 s (walk); anything shorter is a graze.
    fn default() -> Self {
        Self {
            height_fraction: 0.05,
            vertical_speed_fraction: 0.25,
            release_ratio: 1.25,
            samples_per_sec: 120.0,
            min_contact_secs: 0.05,
        }
    }
}

impl ContactSettings {
    fn validate(&self) -> Result<(), AnimError> {
        for (what, v, ok, need) in [
            (
                "height_fraction",
                self.height_fraction,
                self.height_fraction > 0.0,
                "must be positive",
            ),
            (
                "vertical_speed_fraction",
                self.vertical_speed_fraction,
                self.vertical_speed_fraction > 0.0,
                "must be positive",
            ),
            (
                "release_ratio",
                self.release_ratio,
                self.release_ratio >= 1.0,
                "must be at least 1",
            ),
            (
                "samples_per_sec",
                self.samples_per_sec,
                self.samples_per_sec > 0.0,
                "must be positive",
            ),
            (
                "min_contact_secs",
                self.min_contact_secs,
                self.min_contact_secs >= 0.0,
                "must not be negative",
            ),
        ] {
            if !v.is_finite() {
                return Err(AnimError::NonFinite {
                    what: format!("contact settings: {what}"),
                });
            }
            if !ok {
                return Err(AnimError::OutOfRange {
                    what: format!("contact settings: {what}"),
                    detail: format!("{v} {need}"),
                });
            }
        }
        Ok(())
    }
}

/// When one leg's foot is on the ground during a clip.
#[derive(Clone, Debug, PartialEq)]
pub struct FootContacts {
    /// The [`LegChain::name`].
    pub leg: String,
    /// `(down_secs, up_secs)` in clip seconds within `[0, duration)`, sorted by
    /// `down_secs`. An interval that spans the loop point wraps (`down > up`). A foot that
    /// never lifts has the single interval `(0.0, 0.0)` (the whole cycle); one that never
    /// touches down has none.
    pub intervals: Vec<(f32, f32)>,
    /// How sure the detection is, in `[0, 1]`: the share of the cycle where the foot is
    /// clearly down or clearly up (its threshold ratio under 0.7 or over 1.4). A clean
    /// walk scores about 0.9; feet that hover near the thresholds (a shuffle, a foot
    /// barely lifted, noisy capture) score lower, and their contacts deserve a look.
    pub certainty: f32,
}

impl FootContacts {
    /// Whether the foot is down at clip time `t` (seconds, a clip of `duration_secs`;
    /// intervals that wrap count), with `trim_share` of each contact cut off at either end
    /// (0: the whole contact; heel strike and toe-off roll the foot).
    pub fn is_down(&self, t: f32, duration_secs: f32, trim_share: f32) -> bool {
        if self.intervals.len() == 1 && self.intervals[0].0 == self.intervals[0].1 {
            return true;
        }
        if duration_secs <= 0.0 {
            return false;
        }
        self.intervals.iter().any(|&(down, up)| {
            let len = (up - down).rem_euclid(duration_secs);
            let trim = len * trim_share;
            let rel = (t - down).rem_euclid(duration_secs);
            rel >= trim && rel <= len - trim
        })
    }
}

impl FootContacts {
    /// The down intervals as non-wrapping spans `(from, to)` within `[0, duration_secs]`,
    /// for drawing: an interval over the loop point becomes its two ends, a foot that
    /// never lifts one span over the whole cycle. Empty for a non-positive duration.
    pub fn spans(&self, duration_secs: f32) -> Vec<(f32, f32)> {
        if duration_secs.is_nan() || duration_secs <= 0.0 {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(self.intervals.len() + 1);
        for &(down, up) in &self.intervals {
            if down == up {
                out.push((0.0, duration_secs));
            } else if down < up {
                out.push((down, up));
            } else {
                out.push((0.0, up));
                out.push((down, duration_secs));
            }
        }
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        out
    }

    /// One line for a tooltip: `left: down 0.12-0.45 s (sure 92%)`; an interval over
    /// the loop point reads `0.90-0.20 s over the loop`.
    pub fn describe(&self) -> String {
        let spans: Vec<String> = self
            .intervals
            .iter()
            .map(|&(down, up)| {
                if down == up {
                    "the whole cycle".to_string()
                } else if down < up {
                    format!("{down:.2}-{up:.2} s")
                } else {
                    format!("{down:.2}-{up:.2} s over the loop")
                }
            })
            .collect();
        format!(
            "{}: {} (sure {:.0}%)",
            self.leg,
            if spans.is_empty() {
                "never down".to_string()
            } else {
                format!("down {}", spans.join(", "))
            },
            self.certainty * 100.0
        )
    }

    /// Fraction of the cycle the foot is down, in `[0, 1]`.
    pub fn contact_fraction(&self, duration_secs: f32) -> f32 {
        if duration_secs.is_nan() || duration_secs <= 0.0 {
            return 0.0;
        }
        if self.intervals.len() == 1 && self.intervals[0].0 == self.intervals[0].1 {
            return 1.0;
        }
        let down: f32 = self
            .intervals
            .iter()
            .map(|&(d, u)| (u - d).rem_euclid(duration_secs))
            .sum();
        (down / duration_secs).clamp(0.0, 1.0)
    }
}

/// More samples than this per cycle is a settings mistake (hours of clip, or MHz rates).
const MAX_SAMPLES: usize = 1 << 20;
const MIN_SAMPLES: usize = 8;

/// Every joint of every leg (thigh, calf, foot, toe) is a joint of `skeleton`.
///
/// Errors: the first one out of range, named by leg and role.
pub fn check_legs(skeleton: &Skeleton, legs: &[LegChain]) -> Result<(), AnimError> {
    let n = skeleton.joint_count();
    for leg in legs {
        let joints = [
            ("thigh", Some(leg.thigh)),
            ("calf", Some(leg.calf)),
            ("foot", Some(leg.foot)),
            ("toe", leg.toe),
        ];
        for (role, joint) in joints {
            if let Some(joint) = joint.filter(|&j| j >= n) {
                return Err(AnimError::JointOutOfRange {
                    what: format!("leg '{}' {role}", leg.name),
                    joint,
                    joint_count: n,
                });
            }
        }
    }
    Ok(())
}

/// Finds each leg's contact intervals over one cycle of `clip`.
///
/// Samples the clip at `samples_per_sec` over `[0, duration)` (SamplingJob +
/// LocalToModelJob, model space, root motion kept), takes the height of the foot and toe
/// joints above their own lowest height in the cycle and their vertical speed (central
/// differences, cyclic: the clip is taken as a loop). A joint is planted while both are
/// under the [`ContactSettings`] thresholds (times the leg's rest length); the foot is
/// down while its ankle *or* its toe is planted (heel strike lowers the ankle first,
/// toe-off lifts the toe last). Down times are interpolated between samples where the
/// larger of the two threshold ratios falls to 1, up times where it passes
/// [`ContactSettings::release_ratio`] (hysteresis). Each leg also gets a
/// [`FootContacts::certainty`].
///
/// Errors: a leg joint out of range, a clip of zero (or non-finite) length, a leg of zero
/// rest length, settings that are not positive and finite, a pose that is not finite.
pub fn detect_contacts(
    skeleton: &Skeleton,
    clip: &Clip,
    legs: &[LegChain],
    settings: &ContactSettings,
) -> Result<Vec<FootContacts>, AnimError> {
    settings.validate()?;
    check_legs(skeleton, legs)?;
    let duration = clip.duration_secs();
    if !(duration > 0.0 && duration.is_finite()) {
        return Err(AnimError::OutOfRange {
            what: format!("clip '{}'", clip.name()),
            detail: format!(
                "duration is {duration} s; contact detection needs a clip with a cycle"
            ),
        });
    }
    let wanted = (f64::from(duration) * f64::from(settings.samples_per_sec)).ceil();
    if wanted > MAX_SAMPLES as f64 {
        return Err(AnimError::OutOfRange {
            what: "contact settings: samples_per_sec".into(),
            detail: format!("{wanted} samples for the {duration} s clip; at most {MAX_SAMPLES}"),
        });
    }
    let samples = (wanted as usize).max(MIN_SAMPLES);
    let dt = duration / samples as f32;

    let p = rest_positions(skeleton);
    let mut lengths = Vec::with_capacity(legs.len());
    for leg in legs {
        let len = length_of(&p, leg.thigh, leg.calf, leg.foot);
        if !(len > 0.0 && len.is_finite()) {
            return Err(AnimError::OutOfRange {
                what: format!("leg '{}'", leg.name),
                detail: format!("rest-pose length is {len}; thresholds scale with it"),
            });
        }
        lengths.push(len);
    }

    // Heights, joint-major: [leg][foot|toe][sample]; and ground positions (x, z).
    let mut heights = vec![[Vec::with_capacity(samples), Vec::new()]; legs.len()];
    let mut grounds: Vec<[Vec<glam::Vec2>; 2]> = vec![[Vec::new(), Vec::new()]; legs.len()];
    let times = (0..samples).map(|i| duration * (i as f32 / samples as f32));
    for_each_model_pose(skeleton, clip, None, times, |_, time_secs, model| {
        for ((leg, h), g) in legs.iter().zip(heights.iter_mut()).zip(grounds.iter_mut()) {
            let y = model[leg.foot].w_axis.y;
            let ground = |j: usize| glam::Vec2::new(model[j].w_axis.x, model[j].w_axis.z);
            g[0].push(ground(leg.foot));
            if let Some(toe) = leg.toe {
                g[1].push(ground(toe));
            }
            if !y.is_finite() {
                return Err(AnimError::NonFinite {
                    what: format!("clip '{}' pose at {time_secs} s", clip.name()),
                });
            }
            h[0].push(y);
            if let Some(toe) = leg.toe {
                h[1].push(model[toe].w_axis.y);
            }
        }
        Ok(())
    })?;

    let mut out = Vec::with_capacity(legs.len());
    let mut margin = vec![0.0f32; samples];
    for (((leg, h), g), &len) in legs.iter().zip(&heights).zip(&grounds).zip(&lengths) {
        let height_limit = settings.height_fraction * len;
        let speed_limit = settings.vertical_speed_fraction * len;
        margin.fill(f32::INFINITY);
        for (ys, xz) in h.iter().zip(g).filter(|(ys, _)| !ys.is_empty()) {
            let lowest = ys.iter().copied().fold(f32::INFINITY, f32::min);
            // A clip whose feet travel (root motion on the ground): a planted foot stands
            // still on the ground, so a low foot still skimming forward (before the heel
            // strikes) or sweeping away is not planted. Feet that end where they started
            // (an in-place clip, whose planted feet slide back under the hips) get no
            // such test.
            let travel_speed = match (xz.first(), xz.last()) {
                (Some(a), Some(b)) if samples > 1 => a.distance(*b) / (dt * (samples - 1) as f32),
                _ => 0.0,
            };
            let ground_limit = (travel_speed > TRAVEL_LEGS_PER_SEC * len)
                .then_some(GROUND_SPEED_SHARE * travel_speed);
            for (i, out) in margin.iter_mut().enumerate() {
                let (prev, next) = (ys[(i + samples - 1) % samples], ys[(i + 1) % samples]);
                let speed = (next - prev) / (2.0 * dt);
                let mut m = ((ys[i] - lowest) / height_limit).max(speed.abs() / speed_limit);
                if let Some(limit) = ground_limit {
                    // One-sided at the ends: the travel is not a loop.
                    let (a, b, k) = match i {
                        0 => (xz[0], xz[1], 1.0),
                        _ if i + 1 == samples => (xz[i - 1], xz[i], 1.0),
                        _ => (xz[i - 1], xz[i + 1], 2.0),
                    };
                    m = m.max(a.distance(b) / (k * dt) / limit);
                }
                *out = out.min(m);
            }
        }
        out.push(FootContacts {
            leg: leg.name.clone(),
            intervals: intervals(
                &margin,
                dt,
                duration,
                settings.min_contact_secs,
                settings.release_ratio,
            ),
            certainty: certainty(&margin),
        });
    }
    Ok(out)
}

/// Feet whose ground position moves on by more than this many leg lengths per second over
/// the clip travel with the root (a root-motion clip).
const TRAVEL_LEGS_PER_SEC: f32 = 0.1;
/// In a travelling clip a planted foot moves on the ground at under this share of the
/// travel speed.
const GROUND_SPEED_SHARE: f32 = 0.3;

/// Threshold ratios outside `[CERTAIN_DOWN, CERTAIN_UP]` count as a clear answer for
/// [`FootContacts::certainty`].
const CERTAIN_DOWN: f32 = 0.7;
const CERTAIN_UP: f32 = 1.4;

/// Share of samples whose threshold ratio is clearly down or clearly up.
fn certainty(margin: &[f32]) -> f32 {
    if margin.is_empty() {
        return 0.0;
    }
    let clear = margin
        .iter()
        .filter(|&&m| !(CERTAIN_DOWN..=CERTAIN_UP).contains(&m))
        .count();
    clear as f32 / margin.len() as f32
}

/// Contact intervals of a cyclic margin series, with crossings interpolated linearly
/// between samples `dt` apart. A foot comes down where `margin` falls to 1 and lifts where
/// it passes `release` (hysteresis, `release >= 1`). Gaps and grazes as
/// [`ContactSettings::min_contact_secs`] says.
fn intervals(
    margin: &[f32],
    dt: f32,
    duration: f32,
    min_secs: f32,
    release: f32,
) -> Vec<(f32, f32)> {
    let n = margin.len();
    let at = |i: usize| margin[i % n];
    // Start the scan where the foot is surely up, so the hysteresis state is known.
    let Some(start) = (0..n).find(|&i| at(i) > release) else {
        return if margin.iter().any(|&m| m <= 1.0) {
            vec![(0.0, 0.0)]
        } else {
            Vec::new()
        };
    };
    // Where margin crosses `level` between samples a and a + 1 (time past sample 0).
    let cross = |a: usize, level: f32| {
        let (m0, m1) = (at(a), at(a + 1));
        let f = if m0.is_finite() && m1.is_finite() && m0 != m1 {
            (m0 - level) / (m0 - m1)
        } else {
            0.5
        };
        (a as f32 + f.clamp(0.0, 1.0)) * dt
    };
    // Runs in unwrapped time, scanning one cycle from a sample that is up.
    let mut runs: Vec<(f32, f32)> = Vec::new();
    let mut open: Option<f32> = None;
    for a in start..start + n {
        let next = at(a + 1);
        match open {
            None if next <= 1.0 => open = Some(cross(a, 1.0)),
            Some(t0) if next > release => {
                runs.push((t0, cross(a, release)));
                open = None;
            }
            _ => {}
        }
    }
    // `start` is up, so every run closed within the cycle. First a flicker within a stance
    // (a gap of a sample or two) is closed; then a gap shorter than `min_secs` is closed
    // only next to a real contact (a toe rolling off after the ankle lifted); then the
    // runs still shorter than `min_secs` are dropped as grazes. Two grazes a few
    // hundredths of a second apart stay two grazes and go.
    let runs = close_gaps(runs, FLICKER_SHARE * min_secs, duration, 0.0);
    let mut merged = close_gaps(runs, min_secs, duration, min_secs);
    merged.retain(|(d, u)| u - d >= min_secs);
    if let [only] = merged.as_slice() {
        // A gap shorter than min_secs around the loop: down all cycle.
        if only.0 + duration - only.1 < min_secs {
            return vec![(0.0, 0.0)];
        }
    }
    let wrap = |t: f32| {
        let w = t.rem_euclid(duration);
        if w >= duration {
            0.0
        } else {
            w
        }
    };
    let mut out: Vec<(f32, f32)> = merged
        .into_iter()
        .filter(|(d, u)| u > d)
        .map(|(d, u)| (wrap(d), wrap(u)))
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// Gaps shorter than this share of `min_contact_secs` are a flicker within one stance
/// (a sample or two at 120 samples/s), closed before grazes are dropped.
const FLICKER_SHARE: f32 = 0.25;

/// Joins runs (unwrapped times, sorted, within one cycle) separated by less than `gap`
/// seconds, cyclically (the last run may join the first one), when one of the two is at
/// least `anchor` seconds long (0: always).
fn close_gaps(runs: Vec<(f32, f32)>, gap: f32, duration: f32, anchor: f32) -> Vec<(f32, f32)> {
    let joins = |a: (f32, f32), b: (f32, f32), between: f32| {
        between < gap && (a.1 - a.0 >= anchor || b.1 - b.0 >= anchor)
    };
    let mut merged: Vec<(f32, f32)> = Vec::new();
    for run in runs {
        match merged.last_mut() {
            Some(last) if joins(*last, run, run.0 - last.1) => last.1 = run.1,
            _ => merged.push(run),
        }
    }
    if merged.len() > 1 {
        let (first, last) = (merged[0], merged[merged.len() - 1]);
        if joins(last, first, first.0 + duration - last.1) {
            merged[0].0 = last.0 - duration;
            merged.pop();
        }
    }
    merged
}

/// Keeps each foot's longest contact only (ties: the earliest). For a looping locomotion
/// clip a foot plants once per cycle; a second, shorter contact is a stumble or a graze
/// that the thresholds let through, and as a sync marker it would make the foot appear
/// twice per cycle.
pub fn keep_longest_contact(contacts: &mut [FootContacts], duration_secs: f32) {
    if duration_secs.is_nan() || duration_secs <= 0.0 {
        return;
    }
    for c in contacts.iter_mut() {
        if c.intervals.len() < 2 {
            continue;
        }
        let len = |&(d, u): &(f32, f32)| (u - d).rem_euclid(duration_secs);
        let mut best = c.intervals[0];
        for iv in &c.intervals[1..] {
            if len(iv) > len(&best) {
                best = *iv;
            }
        }
        c.intervals = vec![best];
    }
}

/// Sync markers for the contacts, named like the file markers: `left_foot_down` /
/// `left_foot_up`, `right_foot_down` / `right_foot_up`, and `<leg name>_foot_down` /
/// `_foot_up` for other legs; sorted by time (stable, so a leg's down comes before
/// another leg's event at the same time only by input order). A foot that never lifts
/// (interval `(t, t)`) has no events and gives no markers.
pub fn contacts_to_markers(contacts: &[FootContacts]) -> Vec<SyncMarker> {
    let mut markers = Vec::new();
    for c in contacts {
        for &(down, up) in c.intervals.iter().filter(|(d, u)| d != u) {
            markers.push(SyncMarker {
                name: format!("{}_foot_down", c.leg),
                time_secs: down,
            });
            markers.push(SyncMarker {
                name: format!("{}_foot_up", c.leg),
                time_secs: up,
            });
        }
    }
    markers.sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
    markers
}
