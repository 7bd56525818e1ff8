//! Per-joint blend weights ("masks"), e.g. an upper-body layer over a locomotion base.
//!
//! A mask is one weight in [0, 1] per skeleton joint, handed to a
//! [`super::blending::BlendLayer`] as its `joint_weights`. A joint whose mask weight is 0
//! gives the layer no weight there, so when only the base remains it takes the base through
//! the blending job's single-contributor branch: the masked difference to the base is
//! exactly 0.0 (SPEC section 4), and joints the mask leaves at 1 blend exactly as without a
//! mask.
//!
//! Real masks do not switch from 0 to 1 at one joint: the classic upper-body mask ramps
//! along the spine (pelvis 0.25, spine 0.5, chest 1) so the rotation the layer adds is
//! spread over several joints and the shoulders do not tear away from the hips.
//! [`JointMask::from_subtrees`] sets whole branches, [`JointMask::with_ramp`] then
//! overrides single joints.

use crate::{AnimError, Skeleton};

/// One weight in [0, 1] per joint, in skeleton order.
#[derive(Clone, Debug, PartialEq)]
pub struct JointMask {
    weights: Vec<f32>,
}

impl JointMask {
    /// Every joint at 0: the layer contributes nowhere.
    pub fn none(joint_count: usize) -> JointMask {
        JointMask {
            weights: vec![0.0; joint_count],
        }
    }

    /// Every joint at 1: the same as no mask.
    pub fn all(joint_count: usize) -> JointMask {
        JointMask {
            weights: vec![1.0; joint_count],
        }
    }

    /// Starts from [`JointMask::none`] and gives each root's whole subtree (the root and
    /// all its descendants) its weight, in order: a later entry overrides earlier ones for
    /// the joints it covers (e.g. `[(spine, 1.0), (left_arm, 0.0)]` = upper body without
    /// the left arm).
    pub fn from_subtrees(
        skeleton: &Skeleton,
        roots: &[(usize, f32)],
    ) -> Result<JointMask, AnimError> {
        let n = skeleton.joint_count();
        let mut mask = JointMask::none(n);
        let mut inside = vec![false; n];
        for (k, &(root, weight)) in roots.iter().enumerate() {
            check_entry(k, root, weight, n, "mask subtree")?;
            // Parents come before children, so one forward pass marks the subtree.
            inside.fill(false);
            inside[root] = true;
            mask.weights[root] = weight;
            for j in root + 1..n {
                if let Some(p) = skeleton.parents()[j] {
                    if inside[p] {
                        inside[j] = true;
                        mask.weights[j] = weight;
                    }
                }
            }
        }
        Ok(mask)
    }

    /// Sets single joints (no descendants), e.g. the spine ramp
    /// `[(pelvis, 0.25), (spine, 0.5), (chest, 1.0)]`, in order (later entries win).
    pub fn with_ramp(mut self, chain: &[(usize, f32)]) -> Result<JointMask, AnimError> {
        let n = self.weights.len();
        for (k, &(joint, weight)) in chain.iter().enumerate() {
            check_entry(k, joint, weight, n, "mask ramp")?;
        }
        for &(joint, weight) in chain {
            self.weights[joint] = weight;
        }
        Ok(self)
    }

    /// [`JointMask::from_subtrees`] then [`JointMask::with_ramp`] with joints given by
    /// name (exact match). An unknown name is an error that names it and lists the closest
    /// joint names of the skeleton, for a definition file written by hand.
    pub fn from_names(
        skeleton: &Skeleton,
        subtrees: &[(&str, f32)],
        ramp: &[(&str, f32)],
    ) -> Result<JointMask, AnimError> {
        let resolve = |entries: &[(&str, f32)]| -> Result<Vec<(usize, f32)>, AnimError> {
            entries
                .iter()
                .map(|&(name, w)| match skeleton.find(name) {
                    Some(j) => Ok((j, w)),
                    None => Err(unknown_joint(skeleton, name)),
                })
                .collect()
        };
        let subtrees = resolve(subtrees)?;
        let ramp = resolve(ramp)?;
        JointMask::from_subtrees(skeleton, &subtrees).and_then(|m| m.with_ramp(&ramp))
    }

    /// The weights, one per joint in [0, 1]: pass as `BlendLayer::joint_weights`.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Number of joints the mask covers (one weight each).
    pub fn joint_count(&self) -> usize {
        self.weights.len()
    }
}

fn check_entry(k: usize, joint: usize, weight: f32, n: usize, what: &str) -> Result<(), AnimError> {
    if joint >= n {
        return Err(AnimError::JointOutOfRange {
            what: format!("{what} entry {k}"),
            joint,
            joint_count: n,
        });
    }
    if !weight.is_finite() {
        return Err(AnimError::NonFinite {
            what: format!("{what} entry {k} weight"),
        });
    }
    if !(0.0..=1.0).contains(&weight) {
        return Err(AnimError::OutOfRange {
            what: format!("{what} entry {k} weight"),
            detail: format!("{weight} is outside [0, 1]"),
        });
    }
    Ok(())
}

/// "unknown joint 'spine1' in mask; closest joints: spine_01, spine_02, spine_03".
fn unknown_joint(skeleton: &Skeleton, name: &str) -> AnimError {
    let wanted = name.to_lowercase();
    let mut scored: Vec<(usize, &str)> = skeleton
        .names()
        .iter()
        .map(|n| {
            let lower = n.to_lowercase();
            // A name containing the query (or the other way round) is a near hit whatever
            // its edit distance.
            let contains = lower.contains(&wanted) || wanted.contains(&lower);
            let d = edit_distance(&wanted, &lower);
            (if contains { d.min(1) } else { d }, n.as_str())
        })
        .collect();
    scored.sort();
    AnimError::UnknownJoint {
        what: "mask",
        name: name.to_string(),
        closest: scored.iter().take(4).map(|&(_, n)| n.to_string()).collect(),
    }
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (k, &cb) in b.iter().enumerate() {
            let next = (row[k + 1] + 1)
                .min(row[k] + 1)
                .min(diag + usize::from(ca != cb));
            diag = row[k + 1];
            row[k + 1] = next;
        }
    }
    row[b.len()]
}
