//! BVH (Biovision Hierarchy) motion capture into the same [`Model`] a glTF file gives: the
//! skeleton and one clip, no meshes or skins, so inspection, tracing, blending, locomotion
//! and motion matching work on it unchanged.
//!
//! How the file maps onto the model:
//! - Joints keep the file's order (parent before child) and names (colons included:
//!   `mixamorig:Hips`); several ROOTs give several root joints; duplicate names are kept
//!   (a lookup by name finds the first; a warning lists them).
//! - An `End Site` becomes a joint named `<parent>_end` (e.g. `Head_end`, `Toes_L_end`)
//!   with its OFFSET as translation and no channels, so the last bone of every chain
//!   (head, hands, toes) has an end to draw and measure.
//! - Rest pose: each joint's OFFSET with an identity rotation. For many files that is a
//!   zero pose, not a T-pose (Bandai's skeletons have every bone along +X); it is kept,
//!   with a warning when most bones point one way ([`measure::rest_pose_warning`]).
//! - Position channels replace the OFFSET component they name, on every joint (so the
//!   root's first clip frame is its channels, not its OFFSET; a non-root joint that
//!   repeats its OFFSET in position channels keeps its length). Rotation channels, in
//!   degrees, compose in the order listed as intrinsic rotations: `Zrotation Xrotation
//!   Yrotation` gives the local rotation `Rz * Rx * Ry`.
//! - A channel that holds the rest pose in every frame gets no track (sampling gives the
//!   rest pose either way): a reference joint that never moves (Bandai's `joint_Root`, all
//!   zeros above the walking `Hips`) is then not taken for the root-motion joint. When
//!   nothing moves at all, every channel keeps its track, so the clip keeps its length.
//! - The clip is named after the file stem; frame `i` is at `i x Frame Time` seconds,
//!   LINEAR. A frame time within 1e-4 (relative) of `1/n` s for a whole rate `n` in
//!   1..=1000 is taken as exactly `1/n` (0.0333333 gives 30 Hz); the clip carries that
//!   rate ([`crate::anim::Clip::frame_rate_hz`]).
//! - Units: given by the caller ([`LoadOptions::units`]) or detected from the skeleton's
//!   height ([`measure`]), converted to metres; [`Model::source_units_m`] and
//!   [`Model::source_units_reason`] record the choice and why.
//! - Up: +Y, as BVH is written; nothing is rotated.
//! - `Model::node_of_joint` is the joint index (BVH has no nodes); no scenes.

mod lexer;
mod measure;
mod motion;
mod parse;

use std::collections::HashMap;
use std::path::Path;

use glam::{Quat, Vec3};

use super::{display_name, ImportError, LoadOptions, Model, SourceFormat};
use crate::anim::{Clip, Interpolation, JointTracks, Skeleton, Track, Transform};

/// Largest frame rate a frame time is snapped to.
const MAX_SNAPPED_RATE: f64 = 1000.0;
/// Relative distance from `1/n` within which a frame time is snapped to it.
const SNAP_TOLERANCE: f64 = 1e-4;

/// Whether `bytes` start (after a UTF-8 BOM and whitespace) with `HIERARCHY`.
pub(crate) fn looks_like_bvh(bytes: &[u8]) -> bool {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    b.get(start..start + 9)
        .is_some_and(|h| h.eq_ignore_ascii_case(b"HIERARCHY"))
}

/// The frame time, snapped to `1/n` s when within [`SNAP_TOLERANCE`] of it.
pub(crate) fn snap_frame_time(seconds: f64) -> f64 {
    let n = (1.0 / seconds).round();
    if (1.0..=MAX_SNAPPED_RATE).contains(&n) && ((seconds * n) - 1.0).abs() <= SNAP_TOLERANCE {
        1.0 / n
    } else {
        seconds
    }
}

/// Parses a whole file: the hierarchy, then the motion. `allow_truncated`: motion data that
/// stops early keeps its complete frames (with [`parse::Bvh::truncated`] set) instead of
/// being an error.
fn parse(text: &str, allow_truncated: bool) -> Result<parse::Bvh, lexer::ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lx = lexer::Lexer::new(text);
    let joints = parse::hierarchy(&mut lx)?;
    motion::motion(&mut lx, joints, allow_truncated)
}

/// Imports a BVH file's bytes; `path` names it in errors and the clip after its stem.
pub(crate) fn load_from_slice(
    bytes: &[u8],
    path: &Path,
    options: &LoadOptions,
) -> Result<Model, ImportError> {
    // Valid UTF-8 (every file seen so far) is read in place; only a file with bytes that
    // are not (a Latin-1 joint name) pays for the lossy conversion.
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    let bvh = parse(&text, options.allow_truncated)
        .map_err(|e| ImportError::new(path, format!("line {}", e.line), e.message))?;
    let at = |line: usize, message: String| ImportError::new(path, format!("line {line}"), message);

    let mut warnings = Vec::new();
    let decision = measure::decide_units(&bvh, options.units);
    let scale = decision.units.metres_per_unit();
    warnings.extend(decision.warning);
    warnings.extend(bvh.truncated.clone());
    let zero_pose = measure::rest_pose_warning(&bvh);
    let zero_pose_found = zero_pose.is_some();
    warnings.extend(zero_pose);
    warnings.extend(duplicate_names_warning(&bvh));

    let n = bvh.joints.len();
    let mut rest = Vec::with_capacity(n);
    for joint in &bvh.joints {
        let t = (glam::DVec3::from_array(joint.offset) * scale).as_vec3();
        if !t.is_finite() {
            return Err(at(
                joint.line,
                format!(
                    "the OFFSET of '{}' in metres ({} m per unit) is out of range",
                    joint.name, scale
                ),
            ));
        }
        rest.push(Transform {
            translation: t,
            ..Transform::IDENTITY
        });
    }
    let names = bvh.joints.iter().map(|j| j.name.clone()).collect();
    let parents = bvh.joints.iter().map(|j| j.parent).collect();
    let mut skeleton =
        Skeleton::new(names, parents, rest).map_err(|e| at(1, format!("skeleton: {e}")))?;

    let frame_time = snap_frame_time(bvh.frame_time);
    let times = frame_times(bvh.frames, frame_time).ok_or_else(|| {
        at(
            bvh.frame_time_line,
            format!(
                "Frame Time {} s does not give {} distinct frame times",
                bvh.frame_time, bvh.frames
            ),
        )
    })?;
    let mut tracks = tracks(&bvh, &times, scale, true).map_err(|(line, m)| at(line, m))?;
    if tracks.is_empty() {
        // Nothing moves: keep the channels anyway, so the clip keeps its length.
        tracks = self::tracks(&bvh, &times, scale, false).map_err(|(line, m)| at(line, m))?;
    }
    let clip_name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "clip".to_string());
    let clip = Clip::new(clip_name, tracks, Vec::new(), n)
        .map_err(|e| at(bvh.frames_line, format!("motion: {e}")))?
        .with_frame_rate(Some(1.0 / frame_time));
    if zero_pose_found {
        // Legs are found and measured standing: on the first frame, not on the zero pose
        // (where a leg lies level with the hips).
        let mut first = skeleton.rest_pose().to_vec();
        crate::anim::SamplingJob {
            clip: &clip,
            time_secs: 0.0,
            rest_pose: skeleton.rest_pose(),
        }
        .run(&mut first)
        .map_err(|e| at(bvh.frames_line, format!("first frame: {e}")))?;
        skeleton
            .set_reference_pose(first)
            .map_err(|e| at(bvh.frames_line, format!("first frame: {e}")))?;
    }

    Ok(Model {
        source: display_name(path),
        scenes: Vec::new(),
        scene: None,
        skeleton,
        node_of_joint: (0..n).collect(),
        skins: Vec::new(),
        meshes: Vec::new(),
        materials: Vec::new(),
        images: Vec::new(),
        clips: vec![clip],
        arrangement: Default::default(),
        warnings,
        analysis: Default::default(),
        format: SourceFormat::Bvh,
        source_units_m: scale,
        source_units_reason: decision.reason,
        source_up_axis: "+Y".to_string(),
        source_creator: None,
    })
}

/// `frames` key times `i x frame_time`, or `None` when they are not finite and strictly
/// increasing in `f32`.
fn frame_times(frames: usize, frame_time: f64) -> Option<Vec<f32>> {
    let mut times = Vec::with_capacity(frames);
    for i in 0..frames {
        let t = (i as f64 * frame_time) as f32;
        if !t.is_finite() || times.last().is_some_and(|&last| t <= last) {
            return None;
        }
        times.push(t);
    }
    Some(times)
}

/// One translation and/or rotation track per joint with channels, in metres;
/// `skip_rest`: none for a channel that holds the rest pose in every frame.
fn tracks(
    bvh: &parse::Bvh,
    times: &[f32],
    scale: f64,
    skip_rest: bool,
) -> Result<Vec<JointTracks>, (usize, String)> {
    let mut out = Vec::new();
    for (j, joint) in bvh.joints.iter().enumerate() {
        let has_position = joint
            .channels
            .iter()
            .any(|c| matches!(c, parse::Channel::Position(_)));
        let has_rotation = joint
            .channels
            .iter()
            .any(|c| matches!(c, parse::Channel::Rotation(_)));
        if !has_position && !has_rotation {
            continue;
        }
        let frames = times.len();
        let mut translations: Vec<Vec3> = Vec::with_capacity(if has_position { frames } else { 0 });
        let mut rotations: Vec<Quat> = Vec::with_capacity(if has_rotation { frames } else { 0 });
        for f in 0..frames {
            let (t, q) = measure::joint_local(joint, bvh.row(f, j));
            if has_position {
                translations.push((t * scale).as_vec3());
            }
            if has_rotation {
                rotations.push(q.as_quat().normalize());
            }
        }
        // A channel that never leaves the rest pose gets no track (the joint keeps its
        // rest pose, the same thing), so that a reference joint that never moves (Bandai's
        // `joint_Root`, all zeros) is not taken for the root-motion joint.
        let rest_t = (glam::DVec3::from_array(joint.offset) * scale).as_vec3();
        let has_position =
            has_position && (!skip_rest || translations.iter().any(|&t| t != rest_t));
        let has_rotation =
            has_rotation && (!skip_rest || rotations.iter().any(|&q| q != Quat::IDENTITY));
        let what = |kind: &str| format!("joint '{}' {kind}", joint.name);
        let fail = |e: crate::anim::AnimError| (joint.line, format!("{e}"));
        let mut jt = JointTracks::new(j);
        if has_position {
            jt.translation = Some(
                Track::new(
                    Interpolation::Linear,
                    times.to_vec(),
                    translations,
                    &what("translation"),
                )
                .map_err(fail)?,
            );
        }
        if has_rotation {
            jt.rotation = Some(
                Track::new(
                    Interpolation::Linear,
                    times.to_vec(),
                    rotations,
                    &what("rotation"),
                )
                .map_err(fail)?,
            );
        }
        if jt.channel_count() > 0 {
            out.push(jt);
        }
    }
    Ok(out)
}

/// One warning naming the joint names used more than once (at most five shown).
fn duplicate_names_warning(bvh: &parse::Bvh) -> Option<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    let mut order = Vec::new();
    for j in &bvh.joints {
        let c = count.entry(j.name.as_str()).or_insert(0);
        *c += 1;
        if *c == 2 {
            order.push(j.name.as_str());
        }
    }
    if order.is_empty() {
        return None;
    }
    let shown: Vec<String> = order
        .iter()
        .take(5)
        .map(|n| format!("'{n}' ({}x)", count[n]))
        .collect();
    let more = if order.len() > 5 {
        format!(" and {} more", order.len() - 5)
    } else {
        String::new()
    };
    Some(format!(
        "joint names used more than once: {}{more}; a lookup by name finds the first",
        shown.join(", ")
    ))
}
