//! The per-clip and per-set checks of [`super`] (see its docs for the list).

use std::collections::BTreeMap;

use super::{finding, joint_name, FileReport, Finding, LintSettings, Severity, PLAY_HZ};
use crate::anim::contacts::ContactSettings;
use crate::anim::root_motion::GroundTransform;
use crate::anim::seam::{ChannelSeam, LoopSeamJob, SeamChannel};
use crate::anim::{Clip, ClipRootMotion};
use crate::asset::Model;
use crate::stage::locomotion::clip_locomotion;

use super::feet::{gait_strides, markers, slide};

/// A seam velocity jump this many times the channel's largest one at another key stands
/// out as a hitch (linear keys change slope at every key).
pub(super) const HITCH_RATIO: f32 = 2.0;
/// Most frames one clip is played for (about 5.5 minutes at 60 fps): a stray key at
/// 1e7 s (frame numbers written as seconds) must not stall the run.
pub(super) const MAX_PLAY_FRAMES: usize = 20_000;
/// A root that moves backwards in this share of a cycle's frames scores 1 in the ranking.
pub(super) const REVERSAL_SHARE: f64 = 0.05;
/// Additive layers that travel more than this per cycle (metres, scaled) move like
/// locomotion, not like a layer.
pub(super) const ADDITIVE_TRAVEL_M: f64 = 0.05;
/// A joint whose animated translation is under this share of its rest length collapses.
pub(super) const COLLAPSED_FRACTION: f32 = 0.1;

/// One gait cycle of a file, for the checks across clips of one skeleton.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Gait {
    /// Joint names and parents: clips on the same skeleton blend.
    pub skeleton_key: String,
    pub clip: String,
    pub duration_secs: f32,
    /// Contacts per leg per cycle (the same on every leg).
    pub strides: usize,
}

/// Checks every clip of a loaded model. Returns the findings (unranked) and the gait
/// cycles for [`set_checks`].
pub(crate) fn lint_model(model: &Model, settings: &LintSettings) -> (Vec<Finding>, Vec<Gait>) {
    let mut out: Vec<Finding> = model
        .warnings
        .iter()
        .map(|w| Finding {
            severity: Severity::Warning,
            check: "import",
            clip: None,
            joint: None,
            message: w.clone(),
            value: 1.0,
            threshold: 0.0,
        })
        .collect();
    let sk = &model.skeleton;
    let legs = model.legs().unwrap_or_default();
    let scale = model.unit_scale();
    let key = skeleton_key(model);
    let mut gaits = Vec::new();
    for (index, clip) in model.clips.iter().enumerate() {
        if clip.tracks().is_empty() || clip.duration_secs() <= 0.0 {
            out.push(finding(
                "empty-clip",
                clip,
                None,
                if clip.tracks().is_empty() {
                    "no animated channels".to_string()
                } else {
                    "zero length: every track holds one key, so it cannot loop or sync".to_string()
                },
                1.0,
                0.0,
            ));
            continue;
        }
        let root = match ClipRootMotion::for_clip(sk, clip, None) {
            Ok(r) => r,
            Err(e) => {
                out.push(Finding {
                    severity: Severity::Error,
                    check: "root-motion",
                    clip: Some(clip.name().to_string()),
                    joint: None,
                    message: format!("root motion cannot be extracted: {e}"),
                    value: 1.0,
                    threshold: 0.0,
                });
                None
            }
        };
        if f64::from(clip.duration_secs()) * PLAY_HZ > MAX_PLAY_FRAMES as f64 {
            out.push(finding(
                "long-clip",
                clip,
                None,
                format!(
                    "{:.0} s long: more than {MAX_PLAY_FRAMES} frames at {PLAY_HZ:.0} fps, so it \
                     is not played for root reversal and foot slide (a key time in frames \
                     instead of seconds?)",
                    clip.duration_secs()
                ),
                f64::from(clip.duration_secs()),
                MAX_PLAY_FRAMES as f64 / PLAY_HZ,
            ));
            seams(model, clip, root.as_ref(), settings, scale, &mut out);
            additive(model, clip, root.as_ref(), scale, &mut out);
            continue;
        }
        // An in-place clip has no direction of travel to move against (its root's seam
        // drift is not travel).
        let in_place = model
            .clip_analysis(index)
            .is_ok_and(|a| a.in_place.in_place);
        if let (Some(rm), false) = (&root, in_place) {
            reversal(clip, rm, &mut out);
        }
        seams(model, clip, root.as_ref(), settings, scale, &mut out);
        additive(model, clip, root.as_ref(), scale, &mut out);
        if legs.is_empty() {
            continue;
        }
        markers(model, clip, &legs, settings, &mut out);
        match clip_locomotion(model, index, &legs, &ContactSettings::default()) {
            Ok(loco) => {
                slide(model, clip, &legs, &loco, settings, scale, &mut out);
                if let Some(strides) = gait_strides(&loco) {
                    gaits.push(Gait {
                        skeleton_key: key.clone(),
                        clip: clip.name().to_string(),
                        duration_secs: clip.duration_secs(),
                        strides,
                    });
                }
            }
            Err(e) => out.push(finding(
                "foot-slide",
                clip,
                None,
                format!("feet cannot be measured: {e}"),
                1.0,
                0.0,
            )),
        }
    }
    (out, gaits)
}

pub(super) fn skeleton_key(model: &Model) -> String {
    let sk = &model.skeleton;
    let mut key = String::new();
    for (name, parent) in sk.names().iter().zip(sk.parents()) {
        key.push_str(name);
        key.push('<');
        key.push_str(&parent.map_or(String::new(), |p| p.to_string()));
        key.push(';');
    }
    key
}

/// Frames of one cycle, played from mid-cycle across the wrap, that move against the
/// direction of travel.
fn reversal(clip: &Clip, rm: &ClipRootMotion, out: &mut Vec<Finding>) {
    let Some(dir) = crate::stage::timeline::travel_direction_of(&rm.motion) else {
        return; // In place: no direction to move against.
    };
    let motion = &rm.motion;
    let t_cycle = motion.duration_secs();
    let frames = ((t_cycle * PLAY_HZ).ceil() as usize).max(8);
    let dt = t_cycle / frames as f64;
    let (mut against, mut worst, mut worst_at) = (0usize, 0.0f64, 0.0f64);
    for i in 0..frames {
        let t0 = 0.5 * t_cycle + i as f64 * dt;
        let t1 = t0 + dt;
        let Ok(step) = motion.delta_secs(t0, t1) else {
            return;
        };
        // The step is in the root's frame at t0; the travel direction is in the frame at
        // the cycle start, so turn it by the root's heading since then.
        let phase = t0.rem_euclid(t_cycle);
        let heading = motion
            .start()
            .inverse()
            .compose(&motion.sample(phase))
            .yaw_rad;
        let forward = GroundTransform::rotate(-heading, dir);
        let along = step.translation.dot(forward);
        if along < -crate::stage::timeline::BACKWARDS_EPSILON_M {
            against += 1;
            if -along > worst {
                worst = -along;
                worst_at = phase;
            }
        }
    }
    if against > 0 {
        out.push(finding(
            "root-reversal",
            clip,
            None,
            format!(
                "the root moves backwards in {against} of {frames} frames at {PLAY_HZ:.0} fps \
                 (worst {:.1} mm, at {worst_at:.3} s)",
                worst * 1000.0
            ),
            against as f64 / frames as f64,
            REVERSAL_SHARE,
        ));
    }
}

fn describe_seam(model: &Model, s: &ChannelSeam) -> String {
    let what = joint_name(model, s.joint);
    match s.channel {
        SeamChannel::Rotation => format!(
            "{what} rotation jumps {:.2} deg ({:.1} cm at the end of its {:.2} m chain)",
            s.position_jump.to_degrees(),
            s.visible_m * 100.0,
            s.chain_length_m
        ),
        SeamChannel::Translation => {
            format!("{what} translation jumps {:.1} cm", s.visible_m * 100.0)
        }
        SeamChannel::Scale => format!(
            "{what} scale jumps {:.3} ({:.1} cm at the end of its chain)",
            s.position_jump,
            s.visible_m * 100.0
        ),
    }
}

fn seams(
    model: &Model,
    clip: &Clip,
    root: Option<&ClipRootMotion>,
    settings: &LintSettings,
    scale: f32,
    out: &mut Vec<Finding>,
) {
    let mut seams = Vec::new();
    let job = LoopSeamJob {
        skeleton: &model.skeleton,
        clip,
        root_motion: root,
    };
    if let Err(e) = job.run(&mut seams) {
        out.push(finding(
            "loop-seam",
            clip,
            None,
            format!("cannot measure the seam: {e}"),
            1.0,
            0.0,
        ));
        return;
    }
    let pop = settings.seam_m * scale;
    let over: Vec<&ChannelSeam> = seams.iter().filter(|s| s.visible_m > pop).collect();
    if let Some(worst) = over.first() {
        let more = match over.len() - 1 {
            0 => String::new(),
            n => format!("; {n} more channel(s) over {:.1} cm", pop * 100.0),
        };
        out.push(finding(
            "loop-seam",
            clip,
            Some(joint_name(model, worst.joint)),
            format!("pops at the loop: {}{more}", describe_seam(model, worst)),
            f64::from(worst.visible_m),
            f64::from(pop),
        ));
    }
    let hitch = settings.seam_velocity_mps * scale;
    let worst_velocity = seams
        .iter()
        .filter(|s| s.visible_velocity_mps > hitch && s.hitch_ratio() > HITCH_RATIO)
        .max_by(|a, b| {
            a.visible_velocity_mps
                .total_cmp(&b.visible_velocity_mps)
                .then(b.joint.cmp(&a.joint))
        });
    if let Some(w) = worst_velocity {
        out.push(finding(
            "loop-seam-velocity",
            clip,
            Some(joint_name(model, w.joint)),
            format!(
                "hitches at the loop: {} {} changes speed by {:.2} m/s at the end of its chain, \
                 {}",
                joint_name(model, w.joint),
                w.channel.as_str(),
                w.visible_velocity_mps,
                match w.hitch_ratio() {
                    r if r.is_finite() => format!("{r:.1}x its largest change at any other key"),
                    _ => "though its speed changes nowhere else in the clip".to_string(),
                }
            ),
            f64::from(w.visible_velocity_mps),
            f64::from(hitch),
        ));
    }
}

fn additive(
    model: &Model,
    clip: &Clip,
    root: Option<&ClipRootMotion>,
    scale: f32,
    out: &mut Vec<Finding>,
) {
    if clip.is_additive() {
        let travel = root.map_or(0.0, |r| r.motion.cycle_displacement().translation.length());
        let limit = ADDITIVE_TRAVEL_M * f64::from(scale);
        if travel > limit {
            out.push(finding(
                "additive-travels",
                clip,
                None,
                format!(
                    "flagged additive but travels {travel:.2} m per cycle like a locomotion \
                     clip; an additive layer adds motion on top of a base pose"
                ),
                travel,
                limit,
            ));
        }
        return;
    }
    // Bones with length at rest whose animated translation (clip start) is ~0.
    let sk = &model.skeleton;
    let (mut with_length, mut collapsed) = (0usize, 0usize);
    for tracks in clip.tracks() {
        let (Some(t), Some(_)) = (&tracks.translation, sk.parents()[tracks.joint]) else {
            continue;
        };
        let rest = sk.rest_pose()[tracks.joint].translation.length();
        if rest <= 1e-6 {
            continue;
        }
        with_length += 1;
        if t.key_value(0).length() < COLLAPSED_FRACTION * rest {
            collapsed += 1;
        }
    }
    if with_length >= 3 && collapsed * 2 > with_length {
        out.push(finding(
            "looks-additive",
            clip,
            None,
            format!(
                "{collapsed} of {with_length} translated bones have almost no length: authored \
                 as an additive delta, but not flagged additive (extras {{\"additive\": true}})"
            ),
            collapsed as f64 / with_length as f64,
            0.5,
        ));
    }
}

/// Checks across the files: gait cycles on one skeleton should hold the same number of
/// strides and cycle lengths within [`LintSettings::duration_ratio`] of each other.
/// Findings go to the file that holds the odd clip.
pub(crate) fn set_checks(reports: &mut [FileReport], settings: &LintSettings) {
    // skeleton -> (file index, gait)
    let mut sets: BTreeMap<&str, Vec<(usize, &Gait)>> = BTreeMap::new();
    for (i, r) in reports.iter().enumerate() {
        for g in &r.gaits {
            sets.entry(g.skeleton_key.as_str())
                .or_default()
                .push((i, g));
        }
    }
    let mut add: Vec<(usize, Finding)> = Vec::new();
    for members in sets.values().filter(|m| m.len() >= 2) {
        // The most common stride count (the smaller on a tie) is the set's.
        let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
        for (_, g) in members {
            *counts.entry(g.strides).or_default() += 1;
        }
        let usual = counts
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(s, _)| *s)
            .unwrap_or(1);
        let example = members
            .iter()
            .find(|(_, g)| g.strides == usual)
            .map(|(_, g)| g.clip.clone())
            .unwrap_or_default();
        for (i, g) in members {
            if g.strides != usual {
                add.push((
                    *i,
                    Finding {
                        severity: Severity::Warning,
                        check: "stride-count",
                        clip: Some(g.clip.clone()),
                        joint: None,
                        message: format!(
                            "{} stride(s) per cycle where '{example}' and the rest of its set \
                             hold {usual}: cycle sync pairs one cycle with one cycle, so the \
                             feet fall out of step",
                            g.strides
                        ),
                        value: g.strides as f64,
                        threshold: usual as f64,
                    },
                ));
            }
        }
        let same: Vec<&(usize, &Gait)> =
            members.iter().filter(|(_, g)| g.strides == usual).collect();
        let shortest = same
            .iter()
            .min_by(|a, b| a.1.duration_secs.total_cmp(&b.1.duration_secs));
        let longest = same
            .iter()
            .max_by(|a, b| a.1.duration_secs.total_cmp(&b.1.duration_secs));
        if let (Some(s), Some(l)) = (shortest, longest) {
            let ratio = l.1.duration_secs / s.1.duration_secs;
            if ratio > settings.duration_ratio {
                add.push((
                    l.0,
                    Finding {
                        severity: Severity::Warning,
                        check: "duration-spread",
                        clip: Some(l.1.clip.clone()),
                        joint: None,
                        message: format!(
                            "cycle of {:.2} s against {:.2} s for '{}' on the same skeleton \
                             (x{ratio:.1}): a cycle-synced blend plays them far from their \
                             own rates",
                            l.1.duration_secs, s.1.duration_secs, s.1.clip
                        ),
                        value: f64::from(ratio),
                        threshold: f64::from(settings.duration_ratio),
                    },
                ));
            }
        }
    }
    for (i, f) in add {
        reports[i].findings.push(f);
    }
}
