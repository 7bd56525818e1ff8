//! `stridescope inspect`: what a file holds (skeleton, skins, meshes, clips with their
//! root motion, locomotion, loop seam and markers) as text or JSON.

use serde::Serialize;

use super::joint_by_name;
use crate::anim::ClipRootMotion;
use crate::asset::Model;
use crate::CliError;

#[derive(Debug, Serialize)]
pub struct InspectReport {
    pub source: String,
    /// `gltf`, `bvh` or `fbx`.
    pub format: &'static str,
    /// Metres per unit of the source file (1 for glTF; detected or given for BVH).
    pub source_units_m: f64,
    /// How the units were decided, in words.
    pub source_units_reason: String,
    /// The source's up axis (`+Y`, `+Z`...).
    pub source_up_axis: String,
    /// The application that wrote the file, when it says (FBX `Creator`); `null` else.
    pub source_creator: Option<String>,
    pub joints: Vec<JointReport>,
    pub skins: Vec<SkinReport>,
    pub meshes: Vec<MeshReport>,
    pub vertex_count: usize,
    pub clips: Vec<ClipReport>,
    /// The clip the window, `render`, `snapshot` and `trace` open on without `--clip`: the
    /// first that animates (`null` without clips).
    pub default_clip: Option<String>,
    /// Legs found by name or shape (empty with `legs_error` when there are none).
    pub legs: Vec<LegReport>,
    pub legs_error: Option<String>,
    /// `mean leg length / 0.9 m`: what the metre thresholds of locomotion are scaled by.
    pub unit_scale: f32,
    /// The file's scenes and the one shown (the default scene, else scene 0).
    pub scenes: Vec<String>,
    pub scene: Option<usize>,
    pub warnings: Vec<String>,
    /// With `--reduce-keys`: one report per clip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_reduction: Option<Vec<crate::anim::reduce::ReductionReport>>,
}

#[derive(Debug, Serialize, Clone)]
pub struct LegReport {
    pub name: String,
    pub thigh: String,
    pub calf: String,
    pub foot: String,
    pub toe: Option<String>,
    /// Rest-pose thigh-to-knee-to-ankle length (model units, metres for glTF).
    pub length_m: f32,
}

/// What locomotion finds in one clip.
#[derive(Debug, Serialize)]
pub struct ClipLocomotionReport {
    /// Foot joint names of the legs used (the model's `legs`).
    pub legs: Vec<String>,
    /// In place (the feet, not the root, carry the motion): speed matching uses the
    /// implied speed. Decided by one rule for every feature (or the user's override).
    pub in_place: bool,
    /// Why: the root's travel per cycle against the leg and the feet, or the override.
    pub in_place_reason: String,
    /// Ground speed implied by the planted feet (units/s; `null` when no foot plants).
    pub implied_speed_mps: Option<f64>,
    /// Travel direction implied by the feet (model X, Z).
    pub implied_direction: Option<[f32; 2]>,
    /// Relative spread of the estimate over contact thresholds x0.5/x1/x2 (< 0.1: firm).
    pub implied_spread: Option<f32>,
    /// No foot ever rests: the speed is the feet's at their lowest points (rougher).
    pub implied_touch_and_go: bool,
    /// Share of the cycle each leg is planted (0..1).
    pub contact_fraction: Vec<f32>,
    /// Per leg, how sure the contact detection is (0..1; 1 for the file's markers).
    pub contact_certainty: Vec<f32>,
    /// The clip's pose at its end returns to its start (root motion removed).
    pub loops: bool,
}

#[derive(Debug, Serialize)]
pub struct JointReport {
    pub name: String,
    pub parent: Option<usize>,
    pub node: usize,
}

#[derive(Debug, Serialize)]
pub struct SkinReport {
    pub name: String,
    pub joint_count: usize,
}

#[derive(Debug, Serialize)]
pub struct MeshReport {
    pub name: String,
    pub skin: Option<usize>,
    pub primitives: usize,
    pub vertices: usize,
    pub triangles: usize,
    /// Morph target names (`extras.targetNames`, else `target N`), and their default
    /// weights; empty without morph targets.
    pub morph_targets: Vec<String>,
    pub morph_weights: Vec<f32>,
}

#[derive(Debug, Serialize)]
pub struct ClipReport {
    pub name: String,
    /// Why the clip shows no motion (`empty take: no animated channel`, `... 0 s long`);
    /// `null` when it animates. Empty clips are never opened by default and libraries,
    /// grids and quality figures leave them out.
    pub empty: Option<String>,
    pub duration_secs: f64,
    /// The source's frame rate when it has one (BVH, FBX); `null` for glTF.
    pub frame_rate_hz: Option<f64>,
    /// Where clip time 0 lies on the source's timeline, seconds (an FBX take's start in
    /// scene time; 0 for glTF and BVH).
    pub source_start_secs: f64,
    pub first_key_secs: f64,
    pub channels: usize,
    pub translation_channels: usize,
    pub rotation_channels: usize,
    pub scale_channels: usize,
    pub interpolations: Vec<&'static str>,
    pub additive: bool,
    /// Animated morph-weight channels (one per mesh node), and the weights they carry.
    pub morph_channels: usize,
    pub morph_weights: usize,
    pub root_motion: Option<RootMotionReport>,
    pub markers: Vec<MarkerReport>,
    /// The channels that jump most at the loop wrap, most visible first (at most
    /// [`SEAM_CHANNELS_SHOWN`]; empty for a zero-length clip).
    pub loop_seam: Vec<SeamReport>,
    /// Legs, in-place flag and implied speed (`null` without legs or for a zero-length clip).
    pub locomotion: Option<ClipLocomotionReport>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct RootMotionReport {
    pub joint: String,
    pub auto_detected: bool,
    /// Per-cycle displacement in the root's start frame: model X and Z, metres.
    pub cycle_x_m: f64,
    pub cycle_z_m: f64,
    pub cycle_distance_m: f64,
    pub cycle_yaw_deg: f64,
    /// Horizontal cycle distance / duration.
    pub average_speed_mps: f64,
}

/// Loop-seam channels `inspect` lists per clip.
pub const SEAM_CHANNELS_SHOWN: usize = 5;

/// One channel's jump at the loop wrap (see [`crate::anim::seam`]).
#[derive(Debug, Serialize)]
pub struct SeamReport {
    pub joint: String,
    /// `translation`, `rotation` or `scale`.
    pub channel: &'static str,
    /// End value against start value: metres (translation), degrees (rotation), scale
    /// factor (scale).
    pub jump: f32,
    /// Slope into the seam against slope out: m/s, deg/s or 1/s.
    pub velocity_jump: f32,
    /// How far the jump moves the end of the joint's chain (metres): the ranking.
    pub visible_m: f32,
    pub visible_velocity_mps: f32,
}

#[derive(Debug, Serialize)]
pub struct MarkerReport {
    pub name: String,
    pub time_secs: f64,
}

/// Builds the inspection report (shared by text and JSON output).
pub fn inspect_report(model: &Model, root_joint: Option<&str>) -> Result<InspectReport, CliError> {
    let skeleton = &model.skeleton;
    let override_joint = joint_by_name(skeleton, root_joint)?;
    let (legs, legs_error) = match model.legs() {
        Ok(l) => (l, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let mut clips = Vec::new();
    for (clip_index, clip) in model.clips.iter().enumerate() {
        let mut warnings = Vec::new();
        let mut interpolations = Vec::new();
        let (mut t, mut r, mut s) = (0, 0, 0);
        for tracks in clip.tracks() {
            let mut note = |interp: crate::anim::Interpolation| {
                if !interpolations.contains(&interp.as_str()) {
                    interpolations.push(interp.as_str());
                }
            };
            if let Some(k) = &tracks.translation {
                t += 1;
                note(k.interpolation());
            }
            if let Some(k) = &tracks.rotation {
                r += 1;
                note(k.interpolation());
            }
            if let Some(k) = &tracks.scale {
                s += 1;
                note(k.interpolation());
            }
        }
        for k in clip.morph_tracks() {
            let name = k.interpolation().as_str();
            if !interpolations.contains(&name) {
                interpolations.push(name);
            }
        }
        let root_motion_full = ClipRootMotion::for_clip(skeleton, clip, override_joint);
        let root_motion = match &root_motion_full {
            Ok(Some(rm)) => {
                let d = rm.motion.cycle_displacement();
                let dist = d.translation.length();
                Some(RootMotionReport {
                    joint: skeleton.names()[rm.source.joint].clone(),
                    auto_detected: override_joint.is_none(),
                    cycle_x_m: d.translation.x,
                    cycle_z_m: d.translation.y,
                    cycle_distance_m: dist,
                    cycle_yaw_deg: d.yaw_rad.to_degrees(),
                    average_speed_mps: dist / rm.motion.duration_secs(),
                })
            }
            Ok(None) => {
                if clip.duration_secs() <= 0.0 {
                    warnings.push("zero-length clip: no root motion, cannot loop".to_string());
                }
                None
            }
            Err(e) => {
                warnings.push(format!("root motion: {e}"));
                None
            }
        };
        let root_motion_full = root_motion_full.ok().flatten();
        let loop_seam = if clip.duration_secs() > 0.0 {
            let mut seams = Vec::new();
            let job = crate::anim::seam::LoopSeamJob {
                skeleton,
                clip,
                root_motion: root_motion_full.as_ref(),
            };
            match job.run(&mut seams) {
                Ok(()) => seams
                    .iter()
                    .take(SEAM_CHANNELS_SHOWN)
                    .map(|s| {
                        let deg = s.channel == crate::anim::seam::SeamChannel::Rotation;
                        let unit = if deg {
                            180.0 / std::f32::consts::PI
                        } else {
                            1.0
                        };
                        SeamReport {
                            joint: skeleton.names()[s.joint].clone(),
                            channel: s.channel.as_str(),
                            jump: s.position_jump * unit,
                            velocity_jump: s.velocity_jump * unit,
                            visible_m: s.visible_m,
                            visible_velocity_mps: s.visible_velocity_mps,
                        }
                    })
                    .collect(),
                Err(e) => {
                    warnings.push(format!("loop seam: {e}"));
                    Vec::new()
                }
            }
        } else {
            Vec::new()
        };
        clips.push(ClipReport {
            loop_seam,
            name: clip.name().to_string(),
            empty: clip.emptiness().map(|e| e.to_string()),
            duration_secs: clip.duration_secs() as f64,
            frame_rate_hz: clip.frame_rate_hz(),
            source_start_secs: clip.source_start_secs(),
            first_key_secs: clip.first_key_secs() as f64,
            morph_channels: clip.morph_tracks().len(),
            morph_weights: clip.morph_tracks().iter().map(|t| t.targets()).sum(),
            channels: clip.channel_count(),
            translation_channels: t,
            rotation_channels: r,
            scale_channels: s,
            interpolations,
            additive: clip.is_additive(),
            root_motion,
            markers: clip
                .markers()
                .iter()
                .map(|m| MarkerReport {
                    name: m.name.clone(),
                    time_secs: m.time_secs as f64,
                })
                .collect(),
            locomotion: if legs.is_empty() || clip.duration_secs() <= 0.0 {
                None
            } else {
                match model.clip_analysis(clip_index) {
                    Ok(c) => Some(ClipLocomotionReport {
                        legs: legs
                            .iter()
                            .map(|l| skeleton.names()[l.foot].clone())
                            .collect(),
                        in_place: c.in_place.in_place,
                        in_place_reason: c.in_place.reason.clone(),
                        implied_speed_mps: c.implied.as_ref().map(|i| f64::from(i.speed)),
                        implied_direction: c
                            .implied
                            .as_ref()
                            .map(|i| [i.direction.x, i.direction.z]),
                        implied_spread: c.implied.as_ref().map(|i| i.spread),
                        implied_touch_and_go: c.implied.as_ref().is_some_and(|i| i.touch_and_go),
                        contact_fraction: c
                            .contacts
                            .iter()
                            // `+ 0.0` turns a -0 into 0 for printing.
                            .map(|f| f.contact_fraction(clip.duration_secs()) + 0.0)
                            .collect(),
                        contact_certainty: c.contacts.iter().map(|f| f.certainty).collect(),
                        loops: c.loops,
                    }),
                    Err(e) => {
                        warnings.push(format!("locomotion: {e}"));
                        None
                    }
                }
            },
            warnings,
        });
    }
    let leg_reports = legs
        .iter()
        .zip(model.leg_lengths_m())
        .map(|(l, length_m)| LegReport {
            name: l.name.clone(),
            thigh: skeleton.names()[l.thigh].clone(),
            calf: skeleton.names()[l.calf].clone(),
            foot: skeleton.names()[l.foot].clone(),
            toe: l.toe.map(|t| skeleton.names()[t].clone()),
            length_m,
        })
        .collect();
    Ok(InspectReport {
        source: model.source.clone(),
        format: model.format.as_str(),
        source_units_m: model.source_units_m,
        source_units_reason: model.source_units_reason.clone(),
        source_up_axis: model.source_up_axis.clone(),
        source_creator: model.source_creator.clone(),
        joints: (0..skeleton.joint_count())
            .map(|i| JointReport {
                name: skeleton.names()[i].clone(),
                parent: skeleton.parents()[i],
                node: model.node_of_joint[i],
            })
            .collect(),
        skins: model
            .skins
            .iter()
            .map(|s| SkinReport {
                name: s.name.clone(),
                joint_count: s.joints.len(),
            })
            .collect(),
        meshes: model
            .meshes
            .iter()
            .map(|m| MeshReport {
                name: m.name.clone(),
                skin: m.skin,
                primitives: m.primitives.len(),
                vertices: m.primitives.iter().map(|p| p.positions.len()).sum(),
                triangles: m.primitives.iter().map(|p| p.indices.len() / 3).sum(),
                morph_targets: m.target_names.clone(),
                morph_weights: m.morph_weights.clone(),
            })
            .collect(),
        vertex_count: model.vertex_count(),
        clips,
        default_clip: model
            .default_clip()
            .map(|c| model.clips[c].name().to_string()),
        unit_scale: model.unit_scale(),
        legs: leg_reports,
        legs_error,
        scenes: model.scenes.clone(),
        scene: model.scene,
        warnings: model.warnings.clone(),
        key_reduction: None,
    })
}
