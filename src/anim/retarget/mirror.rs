//! Mirroring a clip left/right: every joint takes the motion of its counterpart on the
//! other side (`UpperLeg_L` <-> `UpperLeg_R`, `thigh_l` <-> `thigh_r`, `LeftArm` <->
//! `RightArm`...), reflected across the character's sagittal plane, so a walk that turns
//! left becomes one that turns right (a motion-matching library doubles this way).
//!
//! Per frame, in model space: the counterpart's transform is reflected (`M X M` with `M`
//! the reflection across the plane through the origin whose normal is the character's left
//! axis), then each joint's change from its own rest is kept: a left and a right bone
//! whose rest frames are not exact mirror images still come out right.

use glam::{Mat3, Mat4, Quat, Vec3};

use super::job::{model_of, rotation_of};
use crate::model_pose::ModelPoseJob;

use crate::{AnimError, Clip, Interpolation, JointTracks, SamplingCache, Skeleton, Track};

/// The counterpart of every joint (itself for a joint on the middle line): the joint whose
/// name is this one's with its side word swapped. When several joints carry that name
/// (the Quaternius robot has a `Foot.L` under its root and another under its armature's
/// bone), the one whose parent is this joint's parent, or its parent's counterpart by
/// name, wins.
pub fn counterparts(skeleton: &Skeleton) -> Vec<usize> {
    let names = skeleton.names();
    let parent_name = |j: usize| skeleton.parents()[j].map(|p| names[p].as_str());
    (0..names.len())
        .map(|j| {
            let wanted = swapped_names(&names[j]);
            let candidates: Vec<usize> = (0..names.len())
                .filter(|&c| wanted.iter().any(|w| *w == names[c]))
                .collect();
            let same_place = |c: usize| match (parent_name(j), parent_name(c)) {
                (None, None) => true,
                (Some(a), Some(b)) => a == b || swapped_names(a).iter().any(|n| n == b),
                _ => false,
            };
            candidates
                .iter()
                .copied()
                .find(|&c| same_place(c))
                .or(candidates.first().copied())
                .unwrap_or(j)
        })
        .collect()
}

/// Candidate names with the side swapped: whole-word `Left`/`Right` (any case), and a
/// single `L`/`R` (or `l`/`r`) standing apart (`_L`, `.L`, `L_`, `_l`).
fn swapped_names(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (a, b) in [("Left", "Right"), ("left", "right"), ("LEFT", "RIGHT")] {
        if name.contains(a) {
            out.push(name.replace(a, b));
        } else if name.contains(b) {
            out.push(name.replace(b, a));
        }
    }
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let other = match c {
            'L' => 'R',
            'R' => 'L',
            'l' => 'r',
            'r' => 'l',
            _ => continue,
        };
        let apart = |k: Option<&char>| k.is_none_or(|x| !x.is_alphanumeric());
        let before = if i == 0 { None } else { chars.get(i - 1) };
        if apart(before) && apart(chars.get(i + 1)) {
            let mut s: Vec<char> = chars.clone();
            s[i] = other;
            out.push(s.into_iter().collect());
        }
    }
    out
}

/// The character's left in model space, horizontal: from its right thigh to its left one
/// in the rest pose (the humanoid map finds them). `None` when the legs are not found.
pub fn left_axis_of(skeleton: &Skeleton) -> Option<Vec3> {
    let map = super::automap(skeleton).ok()?;
    let (l, r) = (map.joint("leftUpperLeg")?, map.joint("rightUpperLeg")?);
    let p = crate::contacts::rest_positions(skeleton);
    let d = p[l] - p[r];
    let d = Vec3::new(d.x, 0.0, d.z);
    (d.length_squared() > 1e-12).then(|| d.normalize())
}

/// Mirrors `clip` across the plane through the model origin with normal `left` (the
/// character's left, model space; normalised here), sampled at the clip's frame rate (30
/// per second without one). The result is named `name`.
///
/// Errors: a zero `left`, a non-finite pose.
pub fn mirror_clip(
    skeleton: &Skeleton,
    clip: &Clip,
    left: Vec3,
    name: &str,
) -> Result<Clip, AnimError> {
    let n = left.normalize_or_zero();
    if n == Vec3::ZERO {
        return Err(AnimError::OutOfRange {
            what: "mirror plane".into(),
            detail: "the character's left axis is zero".into(),
        });
    }
    let m3 = Mat3::IDENTITY - 2.0 * Mat3::from_cols(n * n.x, n * n.y, n * n.z);
    let m = Mat4::from_mat3(m3);
    let other = counterparts(skeleton);
    let joints = skeleton.joint_count();
    let parents = skeleton.parents();
    let rest = skeleton.rest_pose();
    let rest_model = model_of(skeleton, rest)?;
    // Each joint's rest rotation against its mirrored counterpart's: the correction that
    // keeps its own rest frame.
    let fix: Vec<Quat> = (0..joints)
        .map(|j| {
            let mirrored = rotation_of(&(m * rest_model[other[j]] * m));
            (mirrored.inverse() * rotation_of(&rest_model[j])).normalize()
        })
        .collect();
    let duration = clip.duration_secs();
    let rate = clip.frame_rate_hz().unwrap_or(30.0).clamp(1.0, 240.0) as f32;
    let frames = ((duration * rate).round() as usize).max(1) + 1;
    let mut times: Vec<f32> = (0..frames)
        .map(|i| {
            if i + 1 == frames {
                duration
            } else {
                i as f32 / rate
            }
        })
        .collect();
    times.dedup_by(|a, b| *a <= *b);
    let mut local = rest.to_vec();
    let mut model = vec![Mat4::IDENTITY; joints];
    let mut cache = SamplingCache::new();
    let mut rotations = vec![Vec::with_capacity(times.len()); joints];
    let mut translations = vec![Vec::with_capacity(times.len()); joints];
    let mut world_rot = vec![Quat::IDENTITY; joints];
    let mut world_pos = vec![Vec3::ZERO; joints];
    let mut world_scale = vec![Vec3::ONE; joints];
    for &t in &times {
        ModelPoseJob {
            skeleton,
            clip,
            time_secs: t,
            in_place: None,
        }
        .run_with_cache(&mut cache, &mut local, &mut model)?;
        for j in 0..joints {
            let x = m * model[other[j]] * m;
            world_rot[j] = (rotation_of(&x) * fix[j]).normalize();
            world_pos[j] = x.w_axis.truncate();
            world_scale[j] = model[other[j]].to_scale_rotation_translation().0;
        }
        for j in 0..joints {
            let (pr, pp, ps) = match parents[j] {
                Some(p) => (world_rot[p], world_pos[p], world_scale[p]),
                None => (Quat::IDENTITY, Vec3::ZERO, Vec3::ONE),
            };
            let r = (pr.inverse() * world_rot[j]).normalize();
            // Bone lengths stay the joint's own: only where the counterpart's offset
            // differs from the mirrored own does the translation follow the motion.
            let own = local[j].translation;
            // In the parent's space: its scale too (a rig under a 0.01 armature node keys
            // its hips in centimetres).
            let ps = Vec3::select(ps.abs().cmplt(Vec3::splat(1e-12)), Vec3::ONE, ps);
            let moved = (pr.inverse() * (world_pos[j] - pp)) / ps;
            let animated = clip
                .joint_tracks(other[j])
                .is_some_and(|t| t.translation.is_some());
            let tr = if animated { moved } else { own };
            if !(r.is_finite() && tr.is_finite()) {
                return Err(AnimError::NonFinite {
                    what: format!("mirrored pose of joint {j} at {t} s"),
                });
            }
            rotations[j].push(r);
            translations[j].push(tr);
        }
    }
    let mut tracks = Vec::new();
    for j in 0..joints {
        let mut jt = JointTracks::new(j);
        if rotations[j]
            .iter()
            .any(|q| q.dot(rest[j].rotation).abs() < 1.0 - 1e-7)
        {
            jt.rotation = Some(Track::new(
                Interpolation::Linear,
                times.clone(),
                std::mem::take(&mut rotations[j]),
                "mirrored rotation",
            )?);
        }
        if translations[j]
            .iter()
            .any(|v| !v.abs_diff_eq(rest[j].translation, 1e-6))
        {
            jt.translation = Some(Track::new(
                Interpolation::Linear,
                times.clone(),
                std::mem::take(&mut translations[j]),
                "mirrored translation",
            )?);
        }
        if jt.channel_count() > 0 {
            tracks.push(jt);
        }
    }
    Ok(Clip::new(name.to_string(), tracks, Vec::new(), joints)?
        .with_frame_rate(clip.frame_rate_hz()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_words_swap() {
        assert!(swapped_names("UpperLeg_L").contains(&"UpperLeg_R".to_string()));
        assert!(swapped_names("thigh_l").contains(&"thigh_r".to_string()));
        assert!(swapped_names("mixamorig:LeftUpLeg").contains(&"mixamorig:RightUpLeg".to_string()));
        assert!(swapped_names("Shoulder.R").contains(&"Shoulder.L".to_string()));
        assert!(swapped_names("Hips").is_empty());
        // A letter inside a word is no side.
        assert!(swapped_names("Ribcage").is_empty());
    }
}
