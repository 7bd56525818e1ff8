//! The lint's checks of foot contacts: file markers against the detected contacts, and
//! planted feet sliding or skating over a played cycle.

use super::{finding, joint_name, Finding, LintSettings, PLAY_HZ, STANDING_FRACTION};
use crate::anim::contacts::{contacts_to_markers, detect_contacts, ContactSettings, LegChain};
use crate::anim::locomotion::{FootSlideMeter, SlideSettings};
use crate::anim::model_pose::ModelPoseJob;
use crate::anim::{Clip, SamplingCache};
use crate::asset::Model;
use crate::stage::locomotion::ClipLocomotion;
use glam::{Mat4, Vec3};

/// Cyclic distance between two clip times (seconds).
pub(super) fn cyclic(a: f32, b: f32, d: f32) -> f32 {
    let x = (a - b).rem_euclid(d);
    x.min(d - x)
}

pub(super) fn markers(
    model: &Model,
    clip: &Clip,
    legs: &[LegChain],
    settings: &LintSettings,
    out: &mut Vec<Finding>,
) {
    let contact_name = |n: &str| n.ends_with("_foot_down") || n.ends_with("_foot_up");
    let names: Vec<&str> = {
        let mut v: Vec<&str> = clip
            .markers()
            .iter()
            .map(|m| m.name.as_str())
            .filter(|n| contact_name(n))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if names.is_empty() {
        return;
    }
    let detected = match detect_contacts(&model.skeleton, clip, legs, &ContactSettings::default()) {
        Ok(c) => contacts_to_markers(&c),
        Err(_) => return,
    };
    let d = clip.duration_secs();
    let limit = settings.marker_tolerance * d;
    let mut worst: Option<(f32, String)> = None;
    for name in names {
        let file: Vec<f32> = clip
            .markers()
            .iter()
            .filter(|m| m.name == name)
            .map(|m| m.time_secs)
            .collect();
        let found: Vec<f32> = detected
            .iter()
            .filter(|m| m.name == name)
            .map(|m| m.time_secs)
            .collect();
        if found.len() != file.len() {
            let text = format!(
                "{} '{name}' marker(s) in the file, {} detected from the feet",
                file.len(),
                found.len()
            );
            // A missing or extra contact is as bad as a marker half a cycle off.
            let e = 0.5 * d;
            if worst.as_ref().is_none_or(|w| e > w.0) {
                worst = Some((e, text));
            }
            continue;
        }
        for &t in &file {
            let e = found
                .iter()
                .map(|&f| cyclic(t, f, d))
                .fold(f32::INFINITY, f32::min);
            if e > limit && worst.as_ref().is_none_or(|w| e > w.0) {
                worst = Some((
                    e,
                    format!(
                        "'{name}' at {t:.3} s in the file, the feet say {:.0} ms away \
                         ({:.0}% of the cycle)",
                        e * 1000.0,
                        100.0 * e / d
                    ),
                ));
            }
        }
    }
    if let Some((e, text)) = worst {
        if e > limit {
            out.push(finding(
                "markers-disagree",
                clip,
                None,
                text,
                f64::from(e),
                f64::from(limit),
            ));
        }
    }
}

/// Contacts per leg per cycle when every leg steps the same number of times and none
/// stands; `None` for standing or irregular clips.
pub(super) fn gait_strides(loco: &ClipLocomotion) -> Option<usize> {
    let mut strides = None;
    for c in &loco.contacts {
        let moving = c.intervals.iter().filter(|(a, b)| a != b).count();
        if moving == 0 || c.contact_fraction(loco.duration_secs) > STANDING_FRACTION {
            return None;
        }
        match strides {
            None => strides = Some(moving),
            Some(s) if s != moving => return None,
            _ => {}
        }
    }
    strides
}

/// Plays one cycle at its own speed and measures the planted feet over the ground.
pub(super) fn slide(
    model: &Model,
    clip: &Clip,
    legs: &[LegChain],
    loco: &ClipLocomotion,
    settings: &LintSettings,
    scale: f32,
    out: &mut Vec<Finding>,
) {
    let sk = &model.skeleton;
    let d = clip.duration_secs();
    // An in-place clip travels at the speed its feet imply: the ground moves under it.
    let ground_velocity = match &loco.implied {
        Some(i) if loco.in_place() => i.direction * i.speed,
        _ => Vec3::ZERO,
    };
    let frames = ((f64::from(d) * PLAY_HZ).ceil() as usize).max(8);
    let dt = d / frames as f32;
    let mut local = sk.rest_pose().to_vec();
    let mut model_from_joint = vec![Mat4::IDENTITY; sk.joint_count()];
    let mut cache = SamplingCache::new();
    let mut meter = FootSlideMeter::new(legs.len());
    let mut feet = vec![(Vec3::ZERO, None); legs.len()];
    let mut planted = vec![false; legs.len()];
    for i in 0..=frames {
        let t = (i as f32 * dt).min(d);
        let posed = ModelPoseJob {
            skeleton: sk,
            clip,
            time_secs: t,
            in_place: None,
        }
        .run_with_cache(&mut cache, &mut local, &mut model_from_joint);
        if posed.is_err() {
            return;
        }
        let offset = ground_velocity * t;
        for (k, leg) in legs.iter().enumerate() {
            let at = |j: usize| model_from_joint[j].w_axis.truncate() + offset;
            feet[k] = (at(leg.foot), leg.toe.map(at));
            planted[k] = loco.planted(k, t.min(d - dt * 0.5));
        }
        meter.update(
            &feet,
            &planted,
            if i == 0 { 0.0 } else { dt },
            &SlideSettings::default(),
            scale,
        );
    }
    let per_cycle = meter.slide_per_cycle(1.0);
    let limit = f64::from(settings.slide_m_per_cycle * scale);
    let worst_foot = meter
        .slide()
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
        .map(|(k, _)| k);
    let how = if ground_velocity != Vec3::ZERO {
        format!(
            " (in place, against the {:.2} m/s its feet imply)",
            ground_velocity.length()
        )
    } else {
        String::new()
    };
    if per_cycle > limit {
        out.push(finding(
            "foot-slide",
            clip,
            worst_foot.map(|k| joint_name(model, legs[k].foot)),
            format!(
                "planted feet slide {:.1} cm per cycle on average{how}",
                per_cycle * 100.0
            ),
            per_cycle,
            limit,
        ));
    }
    let ratio = meter.skating_ratio();
    if ratio > f64::from(settings.skating_ratio) {
        out.push(finding(
            "skating",
            clip,
            worst_foot.map(|k| joint_name(model, legs[k].foot)),
            format!(
                "a planted foot moves faster than {:.2} m/s in {:.0}% of the frames{how}",
                SlideSettings::default().skate_speed_mps * scale,
                ratio * 100.0
            ),
            ratio,
            f64::from(settings.skating_ratio),
        ));
    }
}
