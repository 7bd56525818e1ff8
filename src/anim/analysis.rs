//! One analysis per clip: the answers every feature asks of a clip (its legs' contacts
//! and markers, root speed, implied speed, whether it is in place and why, whether it
//! loops), computed once by [`analyse_clip`] and read by locomotion, sync, lint, motion
//! matching, `inspect`, `trace` and the window, so they cannot disagree.
//!
//! Units: the skeleton's (metres for glTF), seconds; model space, Y up.

use glam::Vec3;

use super::contacts::{
    contacts_to_markers, detect_contacts, keep_longest_contact, ContactSettings, FootContacts,
    LegChain,
};
use super::locomotion::in_place::{
    decide_in_place, InPlaceDecision, InPlaceInputs, MIN_CYCLE_SECS,
};
use super::locomotion::{
    clip_root_speed, implied::implied_speed_with_contacts, unit_scale, ImpliedSpeed,
    InPlaceOverride, REFERENCE_LEG_LENGTH_M,
};
use super::model_pose::for_each_model_pose;
use super::{AnimError, Clip, ClipRootMotion, Skeleton, SyncMarker};

/// A clip loops when every joint's model position (root motion removed) at its end is
/// within this share of a leg of where it starts.
pub const LOOP_LEG_FRACTION: f32 = 0.02;

/// What [`analyse_clip`] found in one clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipAnalysis {
    /// The clip's length, seconds.
    pub duration_secs: f32,
    /// The root motion as extracted, whatever the in-place decision (see
    /// [`ClipAnalysis::root_motion`] for what features should play).
    pub extracted_root: Option<ClipRootMotion>,
    /// Horizontal root travel over one cycle / duration (units/s), as extracted.
    pub root_speed: f64,
    /// Ground speed the planted feet imply (root motion removed before measuring).
    pub implied: Option<ImpliedSpeed>,
    /// Contact intervals per leg: the file's `<leg>_foot_down/up` markers where a leg has
    /// both, else detected; a looping locomotion clip keeps one contact per foot.
    pub contacts: Vec<FootContacts>,
    /// The clip's sync markers: the file's, else ones made from `contacts`.
    pub markers: Vec<SyncMarker>,
    /// `markers` were made from detected contacts (the file has none).
    pub markers_detected: bool,
    /// Whether the clip plays in place (its feet drive) or by root motion, and why.
    pub in_place: InPlaceDecision,
    /// The pose at the end returns to the pose at the start (see [`LOOP_LEG_FRACTION`]).
    pub loops: bool,
}

impl ClipAnalysis {
    /// The root motion features should extract: `None` for an in-place clip (its root's
    /// seam drift and sway stay in the pose instead of moving or turning the character).
    pub fn root_motion(&self) -> Option<&ClipRootMotion> {
        if self.in_place.in_place {
            None
        } else {
            self.extracted_root.as_ref()
        }
    }

    /// The clip's ground speed (units/s): its root motion's, or the implied speed of an
    /// in-place clip (0 when neither).
    pub fn speed(&self) -> f64 {
        if self.in_place.in_place {
            self.implied.as_ref().map_or(0.0, |i| f64::from(i.speed))
        } else {
            self.root_speed
        }
    }

    /// Travel direction (model space, unit, horizontal): the root motion's, else the
    /// implied one, else +Z.
    pub fn direction(&self) -> Vec3 {
        match self.root_motion() {
            Some(r) if self.root_speed > 0.0 => {
                let t = r.motion.cycle_displacement().translation;
                Vec3::new(t.x as f32, 0.0, t.y as f32).normalize_or(Vec3::Z)
            }
            _ => self.implied.as_ref().map_or(Vec3::Z, |i| i.direction),
        }
    }
}

/// Contact intervals of leg `leg` from the clip's `<leg>_foot_down` / `<leg>_foot_up`
/// markers: each down paired with the next up (cyclically). `None` without both kinds.
fn marker_intervals(clip: &Clip, leg: &str) -> Option<Vec<(f32, f32)>> {
    let (down_name, up_name) = (format!("{leg}_foot_down"), format!("{leg}_foot_up"));
    let mut downs: Vec<f32> = Vec::new();
    let mut ups: Vec<f32> = Vec::new();
    for m in clip.markers() {
        if m.name == down_name {
            downs.push(m.time_secs);
        } else if m.name == up_name {
            ups.push(m.time_secs);
        }
    }
    if downs.is_empty() || ups.is_empty() {
        return None;
    }
    ups.sort_by(f32::total_cmp);
    let d = clip.duration_secs();
    let mut out: Vec<(f32, f32)> = downs
        .iter()
        .map(|&down| {
            let up = ups.iter().copied().find(|&u| u > down).unwrap_or(ups[0]);
            (down.rem_euclid(d), up.rem_euclid(d))
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    Some(out)
}

/// Whether the pose at the clip's end matches its start (root motion removed) within
/// [`LOOP_LEG_FRACTION`] of `leg_length` for every joint.
fn clip_loops(
    skeleton: &Skeleton,
    clip: &Clip,
    root: Option<&ClipRootMotion>,
    leg_length: f32,
) -> bool {
    let mut ends = [Vec::new(), Vec::new()];
    let posed = for_each_model_pose(
        skeleton,
        clip,
        root,
        [0.0, clip.duration_secs()],
        |i, _, model| {
            ends[i] = model.to_vec();
            Ok(())
        },
    );
    let [a, b] = ends;
    if posed.is_err() {
        return false;
    }
    a.iter()
        .zip(&b)
        .all(|(x, y)| (x.w_axis - y.w_axis).truncate().length() <= LOOP_LEG_FRACTION * leg_length)
}

/// Analyses one clip (see the module docs). `legs` may be empty (a rig without legs:
/// no contacts, no implied speed; the in-place rule then only has the root's travel).
/// `choice` is the user's in-place override for this clip.
///
/// Errors: a leg joint out of range, invalid contact settings, a non-finite pose, a root
/// motion that cannot be extracted.
pub fn analyse_clip(
    skeleton: &Skeleton,
    clip: &Clip,
    legs: &[LegChain],
    settings: &ContactSettings,
    choice: InPlaceOverride,
) -> Result<ClipAnalysis, AnimError> {
    let duration = clip.duration_secs();
    let extracted_root = ClipRootMotion::for_clip(skeleton, clip, None)?;
    let root_speed = extracted_root
        .as_ref()
        .map_or(0.0, |r| clip_root_speed(&r.motion));
    // Mean rest-pose leg length (`unit_scale` is 1 for a rig without legs: no length).
    let leg = (!legs.is_empty()).then(|| unit_scale(skeleton, legs) * REFERENCE_LEG_LENGTH_M);
    // A pose (shorter than `MIN_CYCLE_SECS`) has no steps to measure and does not loop.
    let cycle = f64::from(duration) >= MIN_CYCLE_SECS && duration.is_finite();
    let travel = extracted_root
        .as_ref()
        .map(|r| r.motion.cycle_displacement().translation.length());
    let yaw = extracted_root
        .as_ref()
        .map_or(0.0, |r| r.motion.cycle_displacement().yaw_rad);
    let decide = |implied: Option<&ImpliedSpeed>| {
        decide_in_place(
            &InPlaceInputs {
                duration_secs: f64::from(duration),
                root_travel_per_cycle: travel,
                root_yaw_per_cycle_rad: yaw,
                leg_length: leg.map(f64::from),
                implied_travel_per_cycle: implied.map(|i| f64::from(i.speed) * f64::from(duration)),
            },
            choice,
        )
    };
    let (mut contacts, implied) = if cycle && !legs.is_empty() {
        // The feet are measured with the root motion removed only for a clip that has
        // root motion; an in-place clip keeps its hips' sway (removing it biases the
        // implied speed). Whether it is in place may need the implied speed itself: the
        // first measure removes the root, and is redone without when the rule says so.
        let contacts = detect_contacts(skeleton, clip, legs, settings)?;
        let measure = |root: Option<&ClipRootMotion>| {
            implied_speed_with_contacts(skeleton, clip, legs, root, settings, &contacts)
        };
        let surely_in_place = decide(None).in_place;
        let root = extracted_root.as_ref().filter(|_| !surely_in_place);
        let mut implied = measure(root)?;
        if root.is_some() && decide(implied.as_ref()).in_place {
            implied = measure(None)?;
        }
        (contacts, implied)
    } else {
        (
            legs.iter()
                .map(|l| FootContacts {
                    leg: l.name.clone(),
                    intervals: Vec::new(),
                    certainty: 0.0,
                })
                .collect(),
            None,
        )
    };
    let in_place = decide(implied.as_ref());
    let loops = cycle
        && leg.is_some_and(|l| {
            let root = if in_place.in_place {
                None
            } else {
                extracted_root.as_ref()
            };
            clip_loops(skeleton, clip, root, l)
        });
    let travels = if in_place.in_place {
        implied.is_some()
    } else {
        root_speed > 0.0
    };
    if loops && travels {
        keep_longest_contact(&mut contacts, duration);
    }
    for fc in contacts.iter_mut() {
        if let Some(iv) = marker_intervals(clip, &fc.leg) {
            fc.intervals = iv;
            fc.certainty = 1.0;
        }
    }
    let (markers, markers_detected) = if clip.markers().is_empty() && cycle {
        let m = contacts_to_markers(&contacts);
        let detected = !m.is_empty();
        (m, detected)
    } else {
        (clip.markers().to_vec(), false)
    };
    Ok(ClipAnalysis {
        duration_secs: duration,
        extracted_root,
        root_speed,
        implied,
        contacts,
        markers,
        markers_detected,
        in_place,
        loops,
    })
}
