//! Motion matching on a loaded model: which clips form the set, how they loop and move,
//! their tags, the database (built or read from the disk cache), and the session the
//! window, `trace --motion-matching` and the tests drive ([`session::MatchingSession`]).
//! The algorithms are in [`crate::anim::motion_matching`]; this module only gathers what
//! they need from a [`Model`].

pub mod cache;
pub mod session;

use glam::Vec2;
use serde::{Deserialize, Serialize};

use crate::anim::contacts::LegChain;
use crate::anim::motion_matching::{
    ClipSource, DatabaseSettings, FeatureJoints, FootLockSettings, MatcherSettings, SpringSettings,
    TagRange,
};
use crate::anim::ClipRootMotion;
use crate::asset::Model;
use crate::StageError;

pub use session::{KeyInput, MatchingSession};

/// Clip-name words that mark a locomotion clip (case-insensitive), for the automatic set.
pub const LOCOMOTION_WORDS: [&str; 10] = [
    "idle",
    "walk",
    "run",
    "jog",
    "sprint",
    "turn",
    "strafe",
    "start",
    "stop",
    "locomotion",
];

/// Tags given automatically to clips whose name contains the word.
pub const AUTO_TAGS: [&str; 6] = ["idle", "start", "stop", "turn", "strafe", "run"];

/// Tags from a take's name when it is named like a capture session's file, words joined
/// by `_` (`dataset-2_walk-turn-left_active_002`): each part without digits (the motion
/// `walk-turn-left` and the style `active`), the words of a hyphenated part (`walk`,
/// `turn`, `left`) and what follows its first word (`turn-left`). A mirrored copy
/// (`... (mirrored)`) has left and right swapped. Other names give none (the automatic
/// tags cover them).
pub fn name_tags(clip_name: &str) -> Vec<String> {
    let mut name = clip_name.trim().to_ascii_lowercase();
    let mirrored = name.ends_with(" (mirrored)");
    if mirrored {
        name.truncate(name.len() - " (mirrored)".len());
    }
    // A copy numbered to keep names unique: `... (2)`.
    if let Some(i) = name.rfind(" (") {
        if name.ends_with(')')
            && name[i + 2..name.len() - 1]
                .chars()
                .all(|c| c.is_ascii_digit())
        {
            name.truncate(i);
        }
    }
    if !name.contains('_') {
        return Vec::new();
    }
    let swap = |w: &str| {
        if mirrored {
            swap_sides(w)
        } else {
            w.to_string()
        }
    };
    let mut out: Vec<String> = Vec::new();
    let mut add = |t: String| {
        if !t.is_empty() && !out.contains(&t) {
            out.push(t);
        }
    };
    for part in name.split('_') {
        if part.chars().any(|c| c.is_ascii_digit()) || !part.chars().any(|c| c.is_alphabetic()) {
            continue;
        }
        let words: Vec<String> = part.split('-').map(swap).collect();
        add(words.join("-"));
        if words.len() > 1 {
            for w in &words {
                add(w.clone());
            }
            add(words[1..].join("-"));
        }
    }
    out
}

/// A tag in a take's sidecar file (`walk_01.tags.ron` beside `walk_01.bvh`, a RON list
/// such as `[(tag: "jog"), (tag: "stumble", start_secs: Some(2.5), end_secs: Some(3.1))]`):
/// on the take's clips, over clip seconds (`None` = from the start / to the end).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct SidecarTag {
    /// The tag's name.
    pub tag: String,
    /// Clip seconds where the tag starts; `None` = from the clip's start.
    #[serde(default)]
    pub start_secs: Option<f32>,
    /// Clip seconds where the tag ends; `None` = to the clip's end.
    #[serde(default)]
    pub end_secs: Option<f32>,
}

/// The sidecar of `file` (`<stem>.tags.ron` in its folder), when there is one; a file that
/// does not parse is an error naming it, its line and column.
pub fn read_sidecar(file: &std::path::Path) -> Result<Option<Vec<SidecarTag>>, StageError> {
    let Some(stem) = file.file_stem() else {
        return Ok(None);
    };
    let sidecar = file.with_file_name(format!("{}.tags.ron", stem.to_string_lossy()));
    let text = match std::fs::read_to_string(&sidecar) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StageError::read(&sidecar, &e)),
    };
    crate::ron_file::parse_ron_at(&text, &sidecar).map(Some)
}

/// A tag on a clip, or on part of it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct TagDef {
    /// The tag's name (one of at most 32 in the set).
    pub tag: String,
    /// Name of the tagged clip; it must be in the set unless `optional`.
    pub clip: String,
    /// Clip seconds; `None` = from the start / to the end.
    #[serde(default)]
    pub start_secs: Option<f32>,
    /// Clip seconds where the tag ends; `None` = to the clip's end.
    #[serde(default)]
    pub end_secs: Option<f32>,
    /// Skipped, not an error, when the clip is not in the set (a library sidecar's tag
    /// on a take that is not locomotion).
    #[serde(default)]
    pub optional: bool,
}

/// `tag` with its words `left` and `right` swapped (a mirrored take's tags).
pub fn swap_sides(tag: &str) -> String {
    let mut out = String::with_capacity(tag.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(match word.as_str() {
            "left" => "right",
            "right" => "left",
            "Left" => "Right",
            "Right" => "Left",
            w => w,
        });
        word.clear();
    };
    for c in tag.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Feature weights by group name.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct WeightsDef {
    /// Weight of the feet's positions (>= 0).
    pub foot_position: f32,
    /// Weight of the feet's velocities (>= 0).
    pub foot_velocity: f32,
    /// Weight of the hips' velocity (>= 0).
    pub hip_velocity: f32,
    /// Weight of the future trajectory's positions (>= 0).
    pub trajectory_position: f32,
    /// Weight of the future trajectory's facing directions (>= 0).
    pub trajectory_direction: f32,
    /// Weight of the past trajectory's positions (>= 0).
    pub past_position: f32,
}

impl Default for WeightsDef {
    fn default() -> Self {
        Self::from_array(DatabaseSettings::default().weights)
    }
}

impl WeightsDef {
    /// The weights in the database's group order (as in [`DatabaseSettings::weights`]).
    pub fn to_array(self) -> [f32; 6] {
        [
            self.foot_position,
            self.foot_velocity,
            self.hip_velocity,
            self.trajectory_position,
            self.trajectory_direction,
            self.past_position,
        ]
    }
    /// Weights from an array in the database's group order (as in
    /// [`DatabaseSettings::weights`]).
    pub fn from_array(w: [f32; 6]) -> Self {
        Self {
            foot_position: w[0],
            foot_velocity: w[1],
            hip_velocity: w[2],
            trajectory_position: w[3],
            trajectory_direction: w[4],
            past_position: w[5],
        }
    }
}

/// Motion-matching settings as written in a scenario's `motion_matching: (...)` or
/// given on the command line; every field has a default.
///
/// The matcher's fields are a flat mirror of [`MatcherSettings`] on purpose: this is the
/// file format users write (flat names, distances in metres of a human-sized rig, a
/// `foot_lock` switch), while the core's settings are in the rig's own units with nested
/// options. The two directions are [`Self::set_matcher`] and [`Self::matcher_settings`];
/// `tests/motion_matching.rs` checks that every field survives the round trip, and the
/// defaults come from the core's.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct MatchingDef {
    /// Clip names of the set; empty = the clips named like locomotion (see
    /// [`LOCOMOTION_WORDS`]), else every non-additive clip.
    pub clips: Vec<String>,
    /// Clips that do not loop; `None` = decided per clip (its last pose equals its first,
    /// root motion aside, within 2% of the leg length).
    pub non_looping: Option<Vec<String>>,
    /// Tags on clips or parts of them, on top of the automatic ones.
    pub tags: Vec<TagDef>,
    /// Tag clips by name words too (see [`AUTO_TAGS`]).
    pub auto_tags: bool,
    /// Database frames per second of clip time (> 0).
    pub sample_rate_hz: f32,
    /// Future trajectory times of the features, seconds ahead (> 0).
    pub future_secs: Vec<f32>,
    /// Past trajectory times of the features, seconds back (> 0); empty = none.
    pub past_secs: Vec<f32>,
    /// Last seconds of a non-looping clip that are never a jump target (>= 0).
    pub end_margin_secs: f32,
    /// Half-width (s) of the window that smooths the root's path for the features
    /// (0 = off; see [`crate::anim::motion_matching::facing_offset`]).
    pub root_smoothing_secs: f32,
    /// Weight of each feature group.
    pub weights: WeightsDef,
    /// Seconds between searches (>= 0; 0 = every frame).
    pub search_interval_secs: f32,
    /// Seconds after a jump before the next one (>= 0), unless the clip ends.
    pub min_dwell_secs: f32,
    /// Added to the cost of continuing the playing clip (negative favours staying).
    pub continuing_bias: f32,
    /// Added to the cost of jump targets inside the playing clip.
    pub current_clip_bias: f32,
    /// Frames of the playing clip this close (seconds) to its time are not jump targets.
    pub exclude_window_secs: f32,
    /// Half-life of the inertialization that hides a jump, seconds (> 0).
    pub half_life_secs: f32,
    /// Search with bounding boxes (the same result as brute force, faster).
    pub accelerated: bool,
    /// Candidates kept for the debugger (clamped to 1..=64).
    pub top_n: usize,
    /// `None` = no correction. Metres for a human-sized rig: multiplied by the rig's
    /// unit scale (leg length / 0.9 m), like every locomotion threshold.
    pub drift_clamp_m: Option<f32>,
    /// `None` = no steering.
    pub steering_deg_per_sec: Option<f32>,
    /// `None` = the character is not moved towards the simulation (see
    /// [`MatcherSettings::adjust_half_life_secs`]).
    pub adjust_half_life_secs: Option<f32>,
    /// Fraction of the character's own travel per frame the adjustment may add (>= 0).
    pub adjust_max_ratio: f32,
    /// Play-rate range (min <= 1 <= max; see
    /// [`MatcherSettings::play_rate_range`]); (1, 1) = the clips' own speed.
    pub play_rate_min: f32,
    /// Largest play rate (>= 1); see `play_rate_min`.
    pub play_rate_max: f32,
    /// Hold planted feet where they came down (two-bone IK; see
    /// [`crate::anim::motion_matching::FootLocker`]).
    pub foot_lock: bool,
    /// A pin this far from the free foot is let go (metres for a human-sized rig,
    /// times the rig's unit scale).
    pub foot_unlock_radius_m: f32,
    /// Seconds a released foot takes to blend back to the animation.
    pub foot_lock_release_secs: f32,
    /// Half-life (s, > 0) of the simulated character's velocity spring.
    pub velocity_half_life_secs: f32,
    /// Half-life (s, > 0) of the simulated character's facing spring.
    pub facing_half_life_secs: f32,
    /// Keyboard speeds (m/s); `None` = the median speed of the set's straight walks and
    /// runs of the chosen style (takes tagged `walk` / `run` by name and not `turn`,
    /// `start`, `stop` or `strafe`), else the first clip named like walk / run.
    pub walk_speed_mps: Option<f32>,
    /// Keyboard run speed (m/s); `None` = found like `walk_speed_mps`, from the runs.
    pub run_speed_mps: Option<f32>,
    /// The style jumps land on (a tag every jump target must carry, on top of any
    /// required tags): `None` = `normal` when the set has that tag (a capture library's
    /// neutral style), else any; `Some("any")` = any; `Some(tag)` = that tag.
    pub style: Option<String>,
}

impl Default for MatchingDef {
    fn default() -> Self {
        let db = DatabaseSettings::default();
        let mut def = Self {
            clips: Vec::new(),
            non_looping: None,
            tags: Vec::new(),
            auto_tags: true,
            sample_rate_hz: db.sample_rate_hz,
            future_secs: db.future_secs,
            past_secs: db.past_secs,
            end_margin_secs: db.end_margin_secs,
            root_smoothing_secs: db.root_smoothing_secs,
            weights: WeightsDef::from_array(db.weights),
            search_interval_secs: 0.0,
            min_dwell_secs: 0.0,
            continuing_bias: 0.0,
            current_clip_bias: 0.0,
            exclude_window_secs: 0.0,
            half_life_secs: 0.0,
            accelerated: false,
            top_n: 0,
            drift_clamp_m: None,
            steering_deg_per_sec: None,
            adjust_half_life_secs: None,
            adjust_max_ratio: 0.0,
            play_rate_min: 0.0,
            play_rate_max: 0.0,
            foot_lock: false,
            foot_unlock_radius_m: 0.0,
            foot_lock_release_secs: 0.0,
            velocity_half_life_secs: 0.0,
            facing_half_life_secs: 0.0,
            walk_speed_mps: None,
            run_speed_mps: None,
            style: None,
        };
        // The matcher's defaults are the core's, in human-rig metres.
        def.set_matcher(&MatcherSettings::default(), 1.0);
        def
    }
}

impl MatchingDef {
    /// Writes `m` (the core's settings, for a rig of `unit_scale`: leg length / 0.9 m)
    /// into the matcher's fields, distances back in human-rig metres; the inverse of
    /// [`Self::matcher_settings`]. Without a foot lock, the lock's own fields keep the
    /// core's defaults so that turning `foot_lock` on starts from them.
    pub fn set_matcher(&mut self, m: &MatcherSettings, unit_scale: f32) {
        let lock = m.foot_lock.unwrap_or_else(|| FootLockSettings {
            unlock_radius: FootLockSettings::default().unlock_radius * unit_scale,
            ..FootLockSettings::default()
        });
        self.search_interval_secs = m.search_interval_secs;
        self.min_dwell_secs = m.min_dwell_secs;
        self.continuing_bias = m.continuing_bias;
        self.current_clip_bias = m.current_clip_bias;
        self.exclude_window_secs = m.exclude_window_secs;
        self.half_life_secs = m.half_life_secs;
        self.accelerated = m.accelerated;
        self.top_n = m.top_n;
        self.drift_clamp_m = m.drift_clamp_m.map(|d| d / unit_scale);
        self.steering_deg_per_sec = m.steering_deg_per_sec;
        self.adjust_half_life_secs = m.adjust_half_life_secs;
        self.adjust_max_ratio = m.adjust_max_ratio;
        (self.play_rate_min, self.play_rate_max) = m.play_rate_range;
        self.foot_lock = m.foot_lock.is_some();
        self.foot_unlock_radius_m = lock.unlock_radius / unit_scale;
        self.foot_lock_release_secs = lock.release_secs;
        self.velocity_half_life_secs = m.spring.velocity_half_life_secs;
        self.facing_half_life_secs = m.spring.facing_half_life_secs;
    }

    /// The runtime settings for a rig of `unit_scale` (see [`ClipSet::unit_scale`]).
    pub fn matcher_settings(&self, unit_scale: f32) -> MatcherSettings {
        MatcherSettings {
            search_interval_secs: self.search_interval_secs,
            min_dwell_secs: self.min_dwell_secs,
            continuing_bias: self.continuing_bias,
            current_clip_bias: self.current_clip_bias,
            exclude_window_secs: self.exclude_window_secs,
            half_life_secs: self.half_life_secs,
            accelerated: self.accelerated,
            top_n: self.top_n.clamp(1, 64),
            drift_clamp_m: self.drift_clamp_m.map(|m| m * unit_scale),
            steering_deg_per_sec: self.steering_deg_per_sec,
            adjust_half_life_secs: self.adjust_half_life_secs,
            adjust_max_ratio: self.adjust_max_ratio,
            play_rate_range: (self.play_rate_min, self.play_rate_max),
            foot_lock: self.foot_lock.then_some(FootLockSettings {
                unlock_radius: self.foot_unlock_radius_m * unit_scale,
                release_secs: self.foot_lock_release_secs,
            }),
            spring: SpringSettings {
                velocity_half_life_secs: self.velocity_half_life_secs,
                facing_half_life_secs: self.facing_half_life_secs,
            },
        }
    }
}

/// One clip of the set, with what the database needs and owns.
#[derive(Clone, Debug)]
pub struct SetClip {
    /// Index of the clip in `Model::clips`.
    pub model_clip: usize,
    /// Whether the clip loops (its future wraps into its next cycle).
    pub looping: bool,
    /// The clip's root motion; `None` for an in-place clip.
    pub root: Option<ClipRootMotion>,
    /// Ground velocity (model x, z; units/s) of an in-place clip, from its planted
    /// feet; `None` when it has root motion or no usable speed.
    pub implied_velocity: Option<Vec2>,
    /// The clip's tagged time ranges (clip seconds), tags indexed into the settings' list.
    pub tags: Vec<TagRange>,
    /// Horizontal root (or implied) speed, m/s.
    pub speed_mps: f32,
    /// When each of the set's legs is planted (the clip's analysis).
    pub contacts: Vec<crate::anim::contacts::FootContacts>,
    /// Where the body faces in the clip's root frame (see [`facing_yaw`]).
    pub facing_yaw_rad: f32,
}

/// Where the body faces in clip `clip`'s root frame, radians about +Y (0 = +Z; see
/// [`ClipSource::facing_yaw_rad`]): over 16 times of the clip, the circular mean of the
/// thighs' facing (the left thigh's side, turned a quarter towards the front) less the
/// root motion's yaw then. 0 without a left and a right leg.
pub fn facing_yaw(
    model: &Model,
    clip: usize,
    legs: &[LegChain],
    root: Option<&ClipRootMotion>,
) -> Result<f32, crate::anim::AnimError> {
    let (Some(l), Some(r)) = (
        legs.iter().find(|l| l.name == "left"),
        legs.iter().find(|l| l.name == "right"),
    ) else {
        return Ok(0.0);
    };
    let sk = &model.skeleton;
    let c = &model.clips[clip];
    let (mut sum_sin, mut sum_cos) = (0.0f64, 0.0f64);
    const SAMPLES: usize = 16;
    let times = (0..SAMPLES).map(|k| c.duration_secs() * k as f32 / SAMPLES as f32);
    crate::anim::model_pose::for_each_model_pose(sk, c, None, times, |_, t, world| {
        let left = world[l.thigh].w_axis.truncate() - world[r.thigh].w_axis.truncate();
        let forward = left.cross(glam::Vec3::Y);
        if forward.x.abs() + forward.z.abs() < 1e-9 {
            return Ok(());
        }
        let body = (forward.x as f64).atan2(forward.z as f64);
        let root_yaw = root.map_or(0.0, |r| r.motion.sample(t as f64).yaw_rad);
        let (s, c) = (body - root_yaw).sin_cos();
        sum_sin += s;
        sum_cos += c;
        Ok(())
    })?;
    Ok(if sum_sin.abs() + sum_cos.abs() > 1e-12 {
        sum_sin.atan2(sum_cos) as f32
    } else {
        0.0
    })
}

/// The clip set of a model.
#[derive(Clone, Debug)]
pub struct ClipSet {
    /// The clips of the set, in database order.
    pub clips: Vec<SetClip>,
    /// The feet and hips the pose features read (joint indices into the skeleton).
    pub joints: FeatureJoints,
    /// The model's legs ([`Model::legs`]): the first two's feet are the feature feet; foot
    /// locking holds every leg's foot.
    pub legs: Vec<LegChain>,
    /// How the database is built, with the set's tag names.
    pub settings: DatabaseSettings,
    /// Leg length / 0.9 m (1 for a human in metres).
    pub unit_scale: f32,
}

impl ClipSet {
    /// Gathers the set `def` asks for from `model`. Errors name the clip or tag.
    pub fn new(model: &Model, def: &MatchingDef) -> Result<ClipSet, StageError> {
        let sk = &model.skeleton;
        let legs = model
            .legs()
            .map_err(|e| StageError::from(e).in_matching())?;
        let feet: Vec<usize> = legs.iter().take(2).map(|l| l.foot).collect();
        let hips = sk.parents()[legs[0].thigh].unwrap_or(legs[0].thigh);
        let chosen: Vec<usize> = if def.clips.is_empty() {
            let usable: Vec<usize> = (0..model.clips.len())
                .filter(|&i| !model.clips[i].is_additive() && model.clips[i].animates())
                .collect();
            let named: Vec<usize> = usable
                .iter()
                .copied()
                .filter(|&i| {
                    let n = model.clips[i].name().to_ascii_lowercase();
                    LOCOMOTION_WORDS.iter().any(|w| n.contains(w))
                })
                .collect();
            if named.is_empty() {
                usable
            } else {
                named
            }
        } else {
            def.clips
                .iter()
                .map(|n| {
                    model
                        .find_clip(n)
                        .ok_or_else(|| StageError::MatchingUnknownClip { clip: n.clone() })
                })
                .collect::<Result<_, _>>()?
        };
        if chosen.is_empty() {
            return Err(StageError::NoClipToMatch);
        }
        // Tags: explicit ones first, then the automatic ones.
        let mut tag_names: Vec<String> = Vec::new();
        let tag_index = |name: &str, names: &mut Vec<String>| -> Result<usize, StageError> {
            if let Some(i) = names.iter().position(|t| t == name) {
                return Ok(i);
            }
            if names.len() == 32 {
                return Err(StageError::TooManyTags {
                    tag: name.to_string(),
                });
            }
            names.push(name.to_string());
            Ok(names.len() - 1)
        };
        // The user's tag names get their slots first; automatic ones take what is left of
        // the 32 (and are left out past it).
        for t in def.tags.iter().filter(|t| !t.optional) {
            tag_index(&t.tag, &mut tag_names)?;
        }
        let mut clips = Vec::with_capacity(chosen.len());
        for &ci in &chosen {
            let clip = &model.clips[ci];
            // The clip's analysis: the one in-place rule (root travel against the leg and
            // the feet), its root motion (none when in place) and whether it loops.
            let analysis = model
                .clip_analysis(ci)
                .map_err(|e| StageError::from(e).in_matching())?;
            let (root, implied_velocity, speed_mps) = if analysis.in_place.in_place {
                match &analysis.implied {
                    Some(s) if s.speed.is_finite() => (
                        None,
                        Some(Vec2::new(s.direction.x, s.direction.z) * s.speed),
                        s.speed,
                    ),
                    _ => (None, None, 0.0),
                }
            } else {
                (
                    analysis.root_motion().cloned(),
                    None,
                    analysis.root_speed as f32,
                )
            };
            let looping = match &def.non_looping {
                Some(list) => !list.iter().any(|n| n == clip.name()),
                None => analysis.loops,
            };
            let mut tags = Vec::new();
            if def.auto_tags {
                let n = clip.name().to_ascii_lowercase();
                for t in AUTO_TAGS {
                    if n.contains(t) {
                        if let Ok(tag) = tag_index(t, &mut tag_names) {
                            tags.push(TagRange {
                                tag,
                                start_secs: 0.0,
                                end_secs: clip.duration_secs(),
                            });
                        }
                    }
                }
                // A take named like a file of a capture session gets its name's words too
                // (motion, direction, style); past 32 tags the rest are left out.
                for t in name_tags(clip.name()) {
                    if tags.iter().any(|r| tag_names.get(r.tag) == Some(&t)) {
                        continue;
                    }
                    if let Ok(tag) = tag_index(&t, &mut tag_names) {
                        tags.push(TagRange {
                            tag,
                            start_secs: 0.0,
                            end_secs: clip.duration_secs(),
                        });
                    }
                }
            }
            let facing_yaw_rad = facing_yaw(model, ci, &legs, root.as_ref())
                .map_err(|e| StageError::from(e).in_matching())?;
            clips.push(SetClip {
                model_clip: ci,
                looping,
                root,
                implied_velocity,
                tags,
                speed_mps,
                contacts: analysis.contacts.clone(),
                facing_yaw_rad,
            });
        }
        for t in &def.tags {
            let Some(c) = clips
                .iter_mut()
                .find(|c| model.clips[c.model_clip].name() == t.clip)
            else {
                if t.optional {
                    continue;
                }
                return Err(StageError::TagClipNotInSet {
                    tag: t.tag.clone(),
                    clip: t.clip.clone(),
                });
            };
            let d = model.clips[c.model_clip].duration_secs();
            let (a, b) = (t.start_secs.unwrap_or(0.0), t.end_secs.unwrap_or(d));
            if !(a.is_finite() && b.is_finite() && a <= b) {
                return Err(StageError::TagRange {
                    tag: t.tag.clone(),
                    clip: t.clip.clone(),
                    start_secs: a,
                    end_secs: b,
                });
            }
            let tag = match tag_index(&t.tag, &mut tag_names) {
                Ok(tag) => tag,
                Err(_) if t.optional => continue,
                Err(e) => return Err(e),
            };
            c.tags.push(TagRange {
                tag,
                start_secs: a,
                end_secs: b,
            });
        }
        let settings = DatabaseSettings {
            sample_rate_hz: def.sample_rate_hz,
            future_secs: def.future_secs.clone(),
            past_secs: def.past_secs.clone(),
            end_margin_secs: def.end_margin_secs,
            weights: def.weights.to_array(),
            tags: tag_names,
            root_smoothing_secs: def.root_smoothing_secs,
        };
        Ok(ClipSet {
            clips,
            joints: FeatureJoints { feet, hips },
            unit_scale: model.unit_scale(),
            legs,
            settings,
        })
    }

    /// The borrowed view the database and the matcher take.
    pub fn sources<'a>(&'a self, model: &'a Model) -> Vec<ClipSource<'a>> {
        self.clips
            .iter()
            .map(|c| ClipSource {
                clip: &model.clips[c.model_clip],
                model_clip: c.model_clip,
                looping: c.looping,
                root: c.root.as_ref(),
                implied_velocity: c.implied_velocity,
                tags: &c.tags,
                contacts: &c.contacts,
                facing_yaw_rad: c.facing_yaw_rad,
            })
            .collect()
    }

    /// Index in the set of the first clip whose name contains `word` (case-insensitive).
    pub fn find(&self, model: &Model, word: &str) -> Option<usize> {
        self.clips.iter().position(|c| {
            model.clips[c.model_clip]
                .name()
                .to_ascii_lowercase()
                .contains(word)
        })
    }
}
