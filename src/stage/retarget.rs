//! Retargeting whole models: the maps of both skeletons (automatic, with a map file's
//! bones over them), every chosen clip played on the target, each clip's quality, and the
//! target's GLB with the clips added. Used by `stridescope retarget`, by motion matching's
//! `--library` and by the window's File > Retarget onto this character.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::anim::contacts::{detect_contacts, ContactSettings};
use crate::anim::retarget::quality::{
    measure, source_foot_deviation, with_virtual_toes, FootDeviation, Side, StillFeet,
};
use crate::anim::retarget::{
    automap, ChainPose, ChainPoses, RetargetMap, RetargetOptions, Retargeter, BONES,
};
use crate::anim::Clip;
use crate::asset::Model;
use crate::ron_file::parse_ron_at;
use crate::StageError;

/// One line of the mapping.
#[derive(Debug, Serialize)]
pub struct MappingReport {
    /// VRM's bone name (`hips`, `leftUpperLeg`...).
    pub bone: &'static str,
    /// Name of the source skeleton's joint mapped to the bone.
    pub source: String,
    /// Name of the target skeleton's joint mapped to the bone.
    pub target: String,
    /// How each side was found: `name`, `hierarchy` or `given`, as `source/target`.
    pub how: String,
}

/// One retargeted clip's figures (see [`crate::anim::retarget::quality`]).
#[derive(Debug, Serialize)]
pub struct ClipQualityReport {
    /// The clip's name (the same on the source and the target).
    pub name: String,
    /// The clip's length, seconds.
    pub duration_secs: f32,
    /// Mean speed of the target's feet relative to the ground while the source's are
    /// planted (on the ground and still on it); the ground of an in-place clip is the
    /// treadmill its feet imply (m/s).
    pub planted_foot_slide_mps: f32,
    /// Intersection over union of the target's and the source's planted times, averaged over
    /// the feet (0..1; 1 = the target plants exactly when the source does).
    pub contact_agreement: f32,
    /// Target ground speed / source ground speed: implied speeds for an in-place side.
    pub speed_ratio: f32,
    /// Target leg length / source leg length.
    pub leg_ratio: f32,
    /// How far the target's feet are from the source's, scaled by the leg ratio (in
    /// target leg lengths): what foot IK must not make worse.
    pub source_foot_deviation: FootDeviation,
    /// The source clip was judged in place (its planted feet ride a treadmill).
    pub source_in_place: bool,
}

/// What `retarget --json` prints.
#[derive(Debug, Serialize)]
pub struct RetargetReport {
    /// Display name of the source model (its file name, or `demo`).
    pub source: String,
    /// Display name of the target model (its file name, or `demo`).
    pub target: String,
    /// The bones mapped on both sides, in the profile's bone order.
    pub mapping: Vec<MappingReport>,
    /// Profile bones mapped on neither or only one side.
    pub unmapped: Vec<&'static str>,
    /// Whether the target's feet were pinned with leg IK while the source's were planted.
    pub foot_ik: bool,
    /// Whether the clips were made in place (the hips' horizontal travel dropped).
    pub in_place: bool,
    /// One report per retargeted clip, in the order they were chosen.
    pub clips: Vec<ClipQualityReport>,
    /// The file written with `--out`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out: Option<String>,
}

/// A map file: per side, VRM bone name -> joint name, and the retarget pose per chain.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, Serialize)]
pub struct MapFile {
    /// The source skeleton's joints by VRM bone name (bone -> joint name), given over
    /// the automatic map.
    #[serde(default)]
    pub source: std::collections::BTreeMap<String, String>,
    /// The target skeleton's joints by VRM bone name (bone -> joint name), given over
    /// the automatic map.
    #[serde(default)]
    pub target: std::collections::BTreeMap<String, String>,
    /// The target's retarget pose per chain (`spine`, `neck`, `leftArm`, `rightArm`,
    /// `leftLeg`, `rightLeg`); a chain not listed matches the source.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub chains: std::collections::BTreeMap<String, ChainPoseDef>,
}

/// [`ChainPose`] as a map file spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChainPoseDef {
    /// Bones turned to point as the source's reference pose points them (the default).
    MatchSource,
    /// The character's own rest pose.
    KeepRest,
}

impl From<ChainPoseDef> for ChainPose {
    fn from(d: ChainPoseDef) -> Self {
        match d {
            ChainPoseDef::MatchSource => ChainPose::MatchSource,
            ChainPoseDef::KeepRest => ChainPose::KeepRest,
        }
    }
}

impl MapFile {
    /// Writes the map as RON (what [`MapFile::read`] reads); errors name the file.
    pub fn write(&self, path: &Path) -> Result<(), StageError> {
        let text =
            ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).map_err(|e| {
                StageError::RonWrite {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                }
            })?;
        std::fs::write(path, text + "\n").map_err(|e| StageError::write(path, &e))
    }

    /// The chains' retarget poses; an unknown chain name is an error naming it.
    pub fn chain_poses(&self) -> Result<ChainPoses, StageError> {
        let mut poses = ChainPoses::default();
        for (chain, pose) in &self.chains {
            if !poses.set(chain, (*pose).into()) {
                return Err(StageError::MapNotAChain {
                    chain: chain.clone(),
                    path: None,
                });
            }
        }
        Ok(poses)
    }

    /// Reads a map file; errors name the file and the line.
    pub fn read(path: &Path) -> Result<MapFile, StageError> {
        let text = std::fs::read_to_string(path).map_err(|e| StageError::read(path, &e))?;
        let map: MapFile = parse_ron_at(&text, path)?;
        // An unknown chain is refused here, naming the file, not at every apply.
        if let Err(StageError::MapNotAChain { chain, .. }) = map.chain_poses() {
            return Err(StageError::MapNotAChain {
                chain,
                path: Some(path.to_path_buf()),
            });
        }
        Ok(map)
    }
}

/// Maps a skeleton (the automatic map, with `given` bone -> joint names over it), naming
/// the file in the error.
fn map_of(
    model: &Model,
    role: &str,
    given: &std::collections::BTreeMap<String, String>,
) -> Result<RetargetMap, StageError> {
    // With bones given, what the tables and the shape found stays: the file adds to it.
    let mut map = if given.is_empty() {
        automap(&model.skeleton).map_err(|e| StageError::Automap {
            model: model.source.clone(),
            role: role.to_string(),
            source: e,
        })?
    } else {
        crate::anim::retarget::automap_partial(&model.skeleton)
    };
    for (bone, joint) in given {
        // A bone of that name before any other joint of it (the Quaternius robot has mesh
        // nodes named like its bones).
        let sk = &model.skeleton;
        let bone_named = (0..sk.joint_count()).find(|&j| sk.names()[j] == *joint && sk.is_bound(j));
        let j = bone_named
            .or_else(|| sk.find(joint))
            .ok_or_else(|| StageError::MapNoJoint {
                role: role.to_string(),
                bone: bone.clone(),
                joint: joint.clone(),
                model: model.source.clone(),
            })?;
        if !map.set(bone, j, "given") {
            return Err(StageError::MapNotABone {
                role: role.to_string(),
                bone: bone.clone(),
            });
        }
    }
    let missing = map.missing_required();
    if !missing.is_empty() {
        return Err(StageError::MapMissing {
            model: model.source.clone(),
            role: role.to_string(),
            missing: missing.iter().map(|m| m.to_string()).collect(),
        });
    }
    Ok(map)
}

/// The source hips' ground velocity over the clip (net travel / duration, units/s).
fn hips_travel(model: &Model, clip: usize, hips: usize) -> Result<glam::Vec3, StageError> {
    let c = &model.clips[clip];
    let d = c.duration_secs();
    if d <= 0.0 {
        return Ok(glam::Vec3::ZERO);
    }
    let at = |t: f32| -> Result<glam::Vec3, StageError> {
        let pose = crate::pose::pose_at(model, Some(clip), t)?;
        Ok(pose.model_from_joint[hips].w_axis.truncate())
    };
    let travel = at(d)? - at(0.0)?;
    Ok(glam::Vec3::new(travel.x, 0.0, travel.z) / d)
}

/// Retargets the chosen clips; returns the target clips and the report.
pub fn retarget_models(
    source: &Model,
    target: &Model,
    clips: &[String],
    options: &RetargetOptions,
) -> Result<(Vec<Clip>, RetargetReport), StageError> {
    retarget_models_with(source, target, clips, options, &MapFile::default())
}

/// [`retarget_models`] with bones given by a map file over the automatic maps.
pub fn retarget_models_with(
    source: &Model,
    target: &Model,
    clips: &[String],
    options: &RetargetOptions,
    given: &MapFile,
) -> Result<(Vec<Clip>, RetargetReport), StageError> {
    retarget_models_counted(source, target, clips, options, given, &|| {})
}

/// [`retarget_models_with`], calling `clip_done` as each clip is made (from the worker
/// threads that make them).
fn retarget_models_counted(
    source: &Model,
    target: &Model,
    clips: &[String],
    options: &RetargetOptions,
    given: &MapFile,
    clip_done: &(dyn Fn() + Sync),
) -> Result<(Vec<Clip>, RetargetReport), StageError> {
    let source_map = map_of(source, "source", &given.source)?;
    let target_map = map_of(target, "target", &given.target)?;
    let r = Retargeter::with_chain_poses(
        &source.skeleton,
        &source_map,
        &target.skeleton,
        &target_map,
        &given.chain_poses()?,
    )
    .map_err(|e| StageError::Retargeter {
        source_model: source.source.clone(),
        target_model: target.source.clone(),
        error: e,
    })?;
    let mapping = BONES
        .iter()
        .filter_map(|&bone| {
            let s = source_map.mapped().into_iter().find(|m| m.bone == bone)?;
            let t = target_map.mapped().into_iter().find(|m| m.bone == bone)?;
            Some(MappingReport {
                bone,
                source: source.skeleton.names()[s.joint].clone(),
                target: target.skeleton.names()[t.joint].clone(),
                how: format!("{}/{}", s.how, t.how),
            })
        })
        .collect::<Vec<_>>();
    let unmapped = BONES
        .iter()
        .copied()
        .filter(|b| !mapping.iter().any(|m| m.bone == *b))
        .collect();
    // Empty takes (a Mixamo download's `Take 001`) have no motion to carry over: a
    // retarget of every clip leaves them out, and so do the quality figures.
    let chosen: Vec<usize> = if clips.is_empty() {
        source.animated_clips()
    } else {
        clips
            .iter()
            .map(|n| {
                source.find_clip(n).ok_or_else(|| StageError::NoClipNamed {
                    model: source.source.clone(),
                    clip: n.clone(),
                })
            })
            .collect::<Result<_, _>>()?
    };
    let source_hips = source_map.joint("hips").unwrap_or(0);
    let target_hips = target_map.joint("hips").unwrap_or(0);
    let settings = ContactSettings::default();
    // Clips in parallel (a folder of takes), in their order.
    use rayon::prelude::*;
    let done: Vec<(Clip, ClipQualityReport)> = chosen
        .par_iter()
        .map(|&c| -> Result<(Clip, ClipQualityReport), StageError> {
            let clip = &source.clips[c];
            let what = |e: crate::anim::AnimError| StageError::RetargetClip {
                model: source.source.clone(),
                clip: clip.name().to_string(),
                source: e,
            };
            let duration = clip.duration_secs();
            let contacts = if duration > 0.0 {
                detect_contacts(&source.skeleton, clip, &r.source_legs, &settings).map_err(what)?
            } else {
                Vec::new()
            };
            // The ground the source's feet stand on: the world for a clip that travels, a
            // treadmill backwards at the implied speed for an in-place one.
            let analysis = source.clip_analysis(c).ok();
            let source_in_place = analysis.as_ref().is_some_and(|a| a.in_place.in_place);
            let source_ground = match analysis.as_ref().and_then(|a| a.implied.as_ref()) {
                Some(i) if source_in_place => -i.direction * i.speed,
                _ => glam::Vec3::ZERO,
            };
            let still = if duration > 0.0 {
                Some(
                    StillFeet::detect(&source.skeleton, clip, &r.source_legs, source_ground)
                        .map_err(what)?,
                )
            } else {
                None
            };
            // Planted: on the ground (height, vertical speed) and still on it.
            let planted = |leg: usize, t: f32| {
                contacts
                    .get(leg)
                    .is_some_and(|fc| fc.is_down(t, duration, 0.0))
                    && still.as_ref().is_some_and(|s| s.is_still(leg, t))
            };
            let retargeted = r
                .retarget_clip(clip, clip.name(), options, &planted)
                .map_err(what)?;
            let source_travel = hips_travel(source, c, source_hips)?;
            let (q, deviation) = if duration > 0.0 {
                // Where a planted target foot moves: the source's ground, turned and scaled;
                // a travelling source played in place (`--in-place`) puts the target on a
                // treadmill at the source's speed.
                let align = r.align();
                let treadmill = -(align * source_travel) * r.leg_ratio;
                let target_ground = |leg: usize, t: f32| -> [glam::Vec3; 2] {
                    match &still {
                        // The source's own planted foot is the treadmill: turned, scaled.
                        Some(still) if source_in_place => {
                            still.velocity(leg, t).map(|v| align * v * r.leg_ratio)
                        }
                        _ if options.in_place => [treadmill; 2],
                        _ => [glam::Vec3::ZERO; 2],
                    }
                };
                let in_place_target = source_in_place || options.in_place;
                let source_speed = analysis
                    .as_ref()
                    .map_or(source_travel.length(), |a| a.speed() as f32);
                let target_speed = if in_place_target {
                    Some(
                        crate::anim::locomotion::implied::implied_speed(
                            &target.skeleton,
                            &retargeted,
                            &r.target_legs,
                            None,
                            &settings,
                        )
                        .map_err(what)?
                        .map_or(0.0, |i| i.speed),
                    )
                } else {
                    None
                };
                // Toeless target feet are measured at the source's ball of the foot too.
                let (skeleton, measured, legs) = with_virtual_toes(
                    &target.skeleton,
                    &retargeted,
                    &r.target_legs,
                    &r.virtual_toes,
                )
                .map_err(what)?;
                let q = measure(
                    &skeleton,
                    &measured,
                    &legs,
                    target_hips,
                    &planted,
                    &target_ground,
                    (source_speed, target_speed),
                    r.leg_ratio,
                )
                .map_err(what)?;
                let deviation = source_foot_deviation(
                    Side {
                        skeleton: &source.skeleton,
                        clip,
                        legs: &r.source_legs,
                        hips: source_hips,
                    },
                    Side {
                        skeleton: &target.skeleton,
                        clip: &retargeted,
                        legs: &r.target_legs,
                        hips: target_hips,
                    },
                    align,
                    r.leg_ratio,
                )
                .map_err(what)?;
                (q, deviation)
            } else {
                (
                    crate::anim::retarget::quality::RetargetQuality {
                        planted_foot_slide_mps: 0.0,
                        contact_agreement: 0.0,
                        speed_ratio: 0.0,
                        leg_ratio: r.leg_ratio,
                    },
                    Default::default(),
                )
            };
            let report = ClipQualityReport {
                name: clip.name().to_string(),
                duration_secs: duration,
                planted_foot_slide_mps: q.planted_foot_slide_mps,
                contact_agreement: q.contact_agreement,
                speed_ratio: q.speed_ratio,
                leg_ratio: q.leg_ratio,
                source_foot_deviation: deviation,
                source_in_place,
            };
            clip_done();
            Ok((retargeted, report))
        })
        .collect::<Result<_, _>>()?;
    let (out_clips, reports): (Vec<Clip>, Vec<ClipQualityReport>) = done.into_iter().unzip();
    Ok((
        out_clips,
        RetargetReport {
            source: source.source.clone(),
            target: target.source.clone(),
            mapping,
            unmapped,
            foot_ik: options.foot_ik,
            in_place: options.in_place,
            clips: reports,
            out: None,
        },
    ))
}

/// `glb` (TARGET's bytes) with `clips` (on `model`'s skeleton) added as animations.
pub fn glb_with_clips(glb: &[u8], model: &Model, clips: &[Clip]) -> Result<Vec<u8>, StageError> {
    use crate::asset::glb_writer::{append_animations, NewChannel};
    let animations = clips
        .iter()
        .map(|clip| {
            let mut channels = Vec::new();
            for t in clip.tracks() {
                let node = model.node_of_joint[t.joint];
                if let Some(track) = &t.translation {
                    channels.push(NewChannel {
                        node,
                        path: "translation",
                        times: track.times().to_vec(),
                        values: track.values().iter().flat_map(|v| v.to_array()).collect(),
                    });
                }
                if let Some(track) = &t.rotation {
                    channels.push(NewChannel {
                        node,
                        path: "rotation",
                        times: track.times().to_vec(),
                        values: track.values().iter().flat_map(|q| q.to_array()).collect(),
                    });
                }
            }
            (clip.name().to_string(), channels)
        })
        .collect::<Vec<_>>();
    Ok(append_animations(glb, &animations)?)
}

/// How far [`library_model_with`] got: files read, then clips retargeted (done, in all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LibraryStep {
    /// Reading a library folder's take files: `done` of `total` read.
    Reading {
        /// Files of the folder read so far.
        done: usize,
        /// Files in the folder.
        total: usize,
    },
    /// Retargeting one source's clips onto the character: `done` of `total` made.
    Retargeting {
        /// Clips retargeted so far from this source.
        done: usize,
        /// Clips this source has in all.
        total: usize,
    },
}

/// The character (FILE's, or the plain built-in demo) with every clip of `library` on it
/// instead of its own clips: clips of another skeleton retargeted onto it (foot IK on),
/// names made unique. Returns the model and how many clip files were read. A folder
/// shows a progress bar on a terminal.
pub fn library_model(
    file: Option<&Path>,
    library: &[std::path::PathBuf],
    mirror: bool,
) -> Result<(Model, usize, Vec<crate::matching::TagDef>), StageError> {
    let options = crate::asset::LoadOptions::from_env().map_err(crate::asset::LoadError::from)?;
    library_model_using(file, library, mirror, &options, true)
}

/// [`library_model`] with every file read as `options` say; `use_cache`: read and write
/// the folders' retargeted takes in the library cache ([`crate::library_cache`]).
pub fn library_model_using(
    file: Option<&Path>,
    library: &[std::path::PathBuf],
    mirror: bool,
    options: &crate::asset::LoadOptions,
    use_cache: bool,
) -> Result<(Model, usize, Vec<crate::matching::TagDef>), StageError> {
    let character = crate::asset::load_or_demo_with(file, options)?;
    library_on(character, library, mirror, options, None, use_cache)
}

/// [`library_model`] onto `character`, reporting each file read and each clip
/// retargeted to `progress` (from worker threads; the window draws it).
pub fn library_model_with(
    character: Model,
    library: &[std::path::PathBuf],
    mirror: bool,
    options: &crate::asset::LoadOptions,
    progress: &(dyn Fn(LibraryStep) + Sync),
) -> Result<(Model, usize, Vec<crate::matching::TagDef>), StageError> {
    library_on(character, library, mirror, options, Some(progress), true)
}

fn library_on(
    mut character: Model,
    library: &[std::path::PathBuf],
    mirror: bool,
    options: &crate::asset::LoadOptions,
    progress: Option<&(dyn Fn(LibraryStep) + Sync)>,
    use_cache: bool,
) -> Result<(Model, usize, Vec<crate::matching::TagDef>), StageError> {
    let mut clips: Vec<crate::anim::Clip> = Vec::new();
    let mut files = 0;
    // (the clip's name in the library, its sidecar's tags).
    let mut tagged: Vec<(String, Vec<crate::matching::SidecarTag>)> = Vec::new();
    // A folder's BVH and FBX takes load together (one actor's rig, in parallel); each
    // glTF file in it is a source of its own (it carries its own skeleton).
    // (path, a glTF file found in a folder rather than named by the user).
    let mut sources: Vec<(PathBuf, bool)> = Vec::new();
    for path in library {
        if path.is_dir() {
            if !crate::asset::folder::bvh_files(path)?.is_empty() {
                sources.push((path.clone(), false));
            }
            let gltf = crate::asset::folder::gltf_files(path)?;
            sources.extend(gltf.into_iter().map(|f| (f, true)));
        } else {
            sources.push((path.clone(), false));
        }
    }
    let mut skipped: Vec<String> = Vec::new();
    for (path, from_folder) in &sources {
        let (path, from_folder) = (path, *from_folder);
        let listed = if path.is_dir() {
            crate::asset::folder::bvh_files(path)?
        } else {
            vec![path.clone()]
        };
        files += listed.len();
        // This path's sidecars: by the take's file stem (a BVH take is named after its
        // file); a single file's sidecar tags every clip it gives (an FBX file's takes).
        let mut sidecars: Vec<(String, Vec<crate::matching::SidecarTag>)> = Vec::new();
        for f in &listed {
            if let Some(tags) = crate::matching::read_sidecar(f)? {
                let stem = f
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                sidecars.push((stem, tags));
            }
        }
        let single_file = !path.is_dir();
        let take_clips = || -> Result<Vec<crate::anim::Clip>, StageError> {
            let source = match progress {
                Some(report) if path.is_dir() => {
                    crate::asset::folder::load_folder_reduced(path, options, &|done, total| {
                        report(LibraryStep::Reading { done, total })
                    })?
                }
                _ => crate::asset::folder::load_with_progress(Some(path), options)?,
            };
            // The same rig (names, hierarchy and bone offsets within 1 mm): the clips play as
            // they are; another actor on a rig of the same names is retargeted.
            let same = source.skeleton.names() == character.skeleton.names()
                && source.skeleton.parents() == character.skeleton.parents()
                && source
                    .skeleton
                    .rest_pose()
                    .iter()
                    .zip(character.skeleton.rest_pose())
                    .all(|(a, b)| a.translation.distance(b.translation) <= 1e-3);
            Ok(if same {
                source.clips.clone()
            } else {
                let total = source.clips.len();
                let done = std::sync::atomic::AtomicUsize::new(0);
                retarget_models_counted(
                    &source,
                    &character,
                    &[],
                    &crate::anim::retarget::RetargetOptions::default(),
                    &MapFile::default(),
                    &|| {
                        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        if let Some(report) = progress {
                            report(LibraryStep::Retargeting { done: n, total });
                        }
                    },
                )?
                .0
            })
        };
        // A folder's takes are read back from the library cache when nothing they come
        // from changed (see `library_cache`); a cache that cannot be written only costs
        // the next build its time.
        let cache = (use_cache && path.is_dir())
            .then(|| crate::library_cache::key(&character, path, options))
            .flatten()
            .map(|k| (crate::library_cache::path(&character, path), k));
        let cached = cache.as_ref().and_then(|(file, k)| {
            crate::library_cache::read(file, *k, character.skeleton.joint_count())
        });
        let taken = match cached {
            Some(clips) => Ok(clips),
            None => take_clips().inspect(|clips| {
                if let Some((file, k)) = &cache {
                    let _ = crate::library_cache::write(file, *k, clips);
                }
            }),
        };
        let found = match taken {
            Ok(found) => found,
            // A glTF file found in a folder may be a prop or another kind of rig: it is
            // skipped (and listed in the warnings), not the end of the whole library.
            Err(e) if from_folder => {
                skipped.push(format!("{}: skipped: {e}", path.display()));
                continue;
            }
            Err(e) => return Err(e),
        };
        for clip in found {
            let name = crate::asset::naming::unique_name(clip.name(), |n| {
                clips.iter().any(|c: &crate::anim::Clip| c.name() == n)
            });
            let sidecar = sidecars
                .iter()
                .find(|(stem, _)| single_file || stem == clip.name());
            if let Some((_, tags)) = sidecar {
                tagged.push((name.clone(), tags.clone()));
            }
            clips.push(clip.renamed(name));
        }
    }
    if clips.is_empty() {
        return Err(StageError::EmptyLibrary);
    }
    if mirror {
        let left =
            crate::anim::retarget::mirror::left_axis_of(&character.skeleton).ok_or_else(|| {
                StageError::MirrorNoLegs {
                    model: character.source.clone(),
                }
            })?;
        let mirrored: Vec<crate::anim::Clip> = clips
            .iter()
            .map(|c| {
                crate::anim::retarget::mirror::mirror_clip(
                    &character.skeleton,
                    c,
                    left,
                    &format!("{} (mirrored)", c.name()),
                )
                .map_err(|e| StageError::Mirror {
                    clip: c.name().to_string(),
                    source: e,
                })
            })
            .collect::<Result<_, _>>()?;
        clips.extend(mirrored);
    }
    // Sidecar tags on the clips their file gave, and on their mirrored copies with left
    // and right swapped; a clip the matching set leaves out is skipped, not an error.
    let mut tags = Vec::new();
    for (name, list) in &tagged {
        let mirrored = format!("{name} (mirrored)");
        for (clip, swap) in [(name.as_str(), false), (mirrored.as_str(), true)] {
            if !clips.iter().any(|c| c.name() == clip) {
                continue;
            }
            for t in list {
                tags.push(crate::matching::TagDef {
                    tag: if swap {
                        crate::matching::swap_sides(&t.tag)
                    } else {
                        t.tag.clone()
                    },
                    clip: clip.to_string(),
                    start_secs: t.start_secs,
                    end_secs: t.end_secs,
                    optional: true,
                });
            }
        }
    }
    character.clips = clips;
    character.analysis = Default::default();
    character.warnings.extend(skipped);
    character.source = format!("{} + library of {files} files", character.source);
    Ok((character, files, tags))
}
