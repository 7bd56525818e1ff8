//! `stridescope inspect`: what a file holds (skeleton, skins, meshes, clips with their
//! root motion, locomotion, loop seam and markers) as text or JSON.

use rayon::prelude::*;
use serde::Serialize;

use super::joint_by_name;
use crate::anim::ClipRootMotion;
use crate::asset::Model;
use crate::CliError;

/// The whole report of `stridescope inspect` on one file; `inspect --json` prints it.
#[derive(Debug, Serialize)]
pub struct InspectReport {
    /// Display name of the source: its file name, or `demo` for the built-in character.
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
    /// Every skeleton joint, in skeleton order (a parent before its children; index = joint
    /// index).
    pub joints: Vec<JointReport>,
    /// The file's skins, in file order.
    pub skins: Vec<SkinReport>,
    /// The meshes of the shown scene.
    pub meshes: Vec<MeshReport>,
    /// Total vertices over every primitive of every mesh.
    pub vertex_count: usize,
    /// Every clip, in file order (hidden and empty takes included).
    pub clips: Vec<ClipReport>,
    /// The clip the window, `render`, `snapshot` and `trace` open on without `--clip`: the
    /// first that animates (`null` without clips).
    pub default_clip: Option<String>,
    /// Legs found by name or shape (empty with `legs_error` when there are none).
    pub legs: Vec<LegReport>,
    /// Why no legs were found (what was looked for); `null` when `legs` is not empty.
    pub legs_error: Option<String>,
    /// `mean leg length / 0.9 m`: what the metre thresholds of locomotion are scaled by.
    pub unit_scale: f32,
    /// The file's scenes and the one shown (the default scene, else scene 0).
    pub scenes: Vec<String>,
    /// Index into `scenes` of the scene shown; `null` when the file has no scene (every
    /// parentless node is shown).
    pub scene: Option<usize>,
    /// Non-fatal findings of loading (unsupported extensions, renormalised data, reduced
    /// keys...).
    pub warnings: Vec<String>,
    /// With `--reduce-keys`: one report per clip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_reduction: Option<Vec<crate::anim::reduce::ReductionReport>>,
}

/// One leg the locomotion analysis uses: its joint names and rest length.
#[derive(Debug, Serialize, Clone)]
pub struct LegReport {
    /// `left`, `right`, or `leg N` (1-based) for legs beyond the first pair.
    pub name: String,
    /// Hip joint (top of the upper leg).
    pub thigh: String,
    /// Knee joint (top of the lower leg).
    pub calf: String,
    /// Ankle joint.
    pub foot: String,
    /// Ball/toe joint below the foot; `null` when the rig has none.
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

/// One skeleton joint.
#[derive(Debug, Serialize)]
pub struct JointReport {
    /// Joint name from the file.
    pub name: String,
    /// Joint index of the parent (always less than the joint's own); `null` for a root.
    pub parent: Option<usize>,
    /// glTF node index of the joint; BVH and FBX models give the joint index itself.
    pub node: usize,
}

/// One skin: the joints a skinned mesh binds to.
#[derive(Debug, Serialize)]
pub struct SkinReport {
    /// Skin name from the file.
    pub name: String,
    /// Number of joints the skin binds.
    pub joint_count: usize,
}

/// One mesh of the shown scene, placed by one node.
#[derive(Debug, Serialize)]
pub struct MeshReport {
    /// Mesh name from the file, else `mesh N`.
    pub name: String,
    /// Index into `skins` when the mesh is skinned; `null` for a rigid mesh.
    pub skin: Option<usize>,
    /// Number of primitives (triangle lists, one material each).
    pub primitives: usize,
    /// Vertices over all its primitives.
    pub vertices: usize,
    /// Triangles over all its primitives.
    pub triangles: usize,
    /// Morph target names (`extras.targetNames`, else `target N`), and their default
    /// weights; empty without morph targets.
    pub morph_targets: Vec<String>,
    /// Default weight of each entry of `morph_targets` (the node's `weights`, else the mesh's,
    /// else 0).
    pub morph_weights: Vec<f32>,
}

/// One clip: its length, channels, root motion, markers, loop seam and locomotion.
#[derive(Debug, Serialize)]
pub struct ClipReport {
    /// Clip name (a glTF animation's, an FBX take's; a BVH clip is named after its file).
    pub name: String,
    /// Why the clip shows no motion (`empty take: no animated channel`, `... 0 s long`);
    /// `null` when it animates. Empty clips are never opened by default and libraries,
    /// grids and quality figures leave them out.
    pub empty: Option<String>,
    /// Clip length, seconds: the last key time (0 when every channel holds a single key).
    pub duration_secs: f64,
    /// The source's frame rate when it has one (BVH, FBX); `null` for glTF.
    pub frame_rate_hz: Option<f64>,
    /// Where clip time 0 lies on the source's timeline, seconds (an FBX take's start in
    /// scene time; 0 for glTF and BVH).
    pub source_start_secs: f64,
    /// Earliest key time of any track, seconds (0 without tracks).
    pub first_key_secs: f64,
    /// Joint channels: translation, rotation and scale tracks together (morph channels
    /// excluded).
    pub channels: usize,
    /// Joints with a translation track.
    pub translation_channels: usize,
    /// Joints with a rotation track.
    pub rotation_channels: usize,
    /// Joints with a scale track.
    pub scale_channels: usize,
    /// The interpolations the tracks use (morph tracks included), glTF names: `STEP`,
    /// `LINEAR`, `CUBICSPLINE`, in the order first met.
    pub interpolations: Vec<&'static str>,
    /// An additive layer: its values are added to a pose, against the clip's first frame.
    pub additive: bool,
    /// Animated morph-weight channels (one per mesh node), and the weights they carry.
    pub morph_channels: usize,
    /// Morph weights over all those channels (one per morph target of each channel's mesh).
    pub morph_weights: usize,
    /// The travel of the clip's root over one cycle; `null` when no joint translates, the clip
    /// has zero length, or extraction failed (then a `warnings` entry says why).
    pub root_motion: Option<RootMotionReport>,
    /// The clip's sync markers, sorted by time.
    pub markers: Vec<MarkerReport>,
    /// The channels that jump most at the loop wrap, most visible first (at most
    /// [`SEAM_CHANNELS_SHOWN`]; empty for a zero-length clip).
    pub loop_seam: Vec<SeamReport>,
    /// Legs, in-place flag and implied speed (`null` without legs or for a zero-length clip).
    pub locomotion: Option<ClipLocomotionReport>,
    /// Findings about this clip: zero length, and why root motion, the loop seam or locomotion
    /// could not be computed.
    pub warnings: Vec<String>,
}

/// The root motion of one clip: the root joint's ground travel over one cycle.
#[derive(Debug, Serialize)]
pub struct RootMotionReport {
    /// The joint the motion is taken from.
    pub joint: String,
    /// `true` when the joint was detected; `false` when `--root-joint` named it.
    pub auto_detected: bool,
    /// Per-cycle displacement in the root's start frame: model X and Z, metres.
    pub cycle_x_m: f64,
    /// Model Z of the cycle displacement (see `cycle_x_m`), metres.
    pub cycle_z_m: f64,
    /// Horizontal length of the cycle displacement, metres.
    pub cycle_distance_m: f64,
    /// Turn over one cycle about +Y, degrees (counter-clockwise seen from above; unwrapped: it
    /// may exceed ±180).
    pub cycle_yaw_deg: f64,
    /// Horizontal cycle distance / duration.
    pub average_speed_mps: f64,
}

/// Loop-seam channels `inspect` lists per clip.
pub const SEAM_CHANNELS_SHOWN: usize = 5;

/// One channel's jump at the loop wrap (see [`crate::anim::seam`]).
#[derive(Debug, Serialize)]
pub struct SeamReport {
    /// Name of the joint whose channel jumps.
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
    /// The velocity jump at the end of the chain (m/s).
    pub visible_velocity_mps: f32,
}

/// One sync marker of a clip.
#[derive(Debug, Serialize)]
pub struct MarkerReport {
    /// Marker name, e.g. `left_foot_down`.
    pub name: String,
    /// Clip time of the marker, seconds, in `[0, duration_secs]`.
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
    // One report per clip, on every core: each clip's analysis (root motion, contacts,
    // implied speed) and loop seam are independent, and a folder of takes has hundreds.
    let clips: Vec<ClipReport> = model
        .clips
        .par_iter()
        .enumerate()
        .map(|(clip_index, clip)| {
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
            ClipReport {
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
                            implied_touch_and_go: c
                                .implied
                                .as_ref()
                                .is_some_and(|i| i.touch_and_go),
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
            }
        })
        .collect();
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
