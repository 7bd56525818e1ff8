//! A folder of motion-capture or animation files as one character: every BVH or FBX file of
//! the folder that shares the first file's skeleton becomes a clip (a BVH file's named after
//! the file, an FBX file's takes after the takes), parsed in parallel; files with another
//! skeleton, other units or errors are skipped and listed in the model's warnings.
//!
//! FBX files join by joint name: the character file (the first with a skinned mesh, else
//! the first file) gives the skeleton and the mesh, and an animation-only download of the
//! same rig (Mixamo's "without skin") adds its takes, their tracks moved to the joints of
//! the same name.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{
    bone_shapes, bvh, display_name, fbx, is_bvh_path, is_fbx_path, FolderError, ImportError,
    LoadError, LoadOptions, Model, SourceFormat,
};
use crate::anim::{Clip, JointTracks, MorphTrack};

/// Rest offsets (metres) two files may differ by and still count as one actor's.
const BONE_TOLERANCE_M: f32 = 0.01;

/// The BVH and FBX files directly in `dir`, sorted by name (case-insensitive).
pub fn bvh_files(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    files_in(dir, |p| is_bvh_path(p) || is_fbx_path(p))
}

/// The glTF files (.glb, .gltf) directly in `dir`, sorted by name (case-insensitive): a
/// clip library's files that each carry their own skeleton.
pub fn gltf_files(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    files_in(dir, super::is_gltf_path)
}

/// The files directly in `dir` that `keep` takes, sorted by name (case-insensitive).
fn files_in(dir: &Path, keep: fn(&Path) -> bool) -> Result<Vec<PathBuf>, ImportError> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| ImportError::doing(dir, "", "cannot read the folder", e))?;
    let mut files: Vec<PathBuf> = read
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && keep(p))
        .collect();
    files.sort_by_key(|p| p.to_string_lossy().to_lowercase());
    Ok(files)
}

/// Loads every BVH file of `dir` into one model (see the module docs). `progress` is
/// called with `(files done, files in all)` as files finish, from worker threads.
///
/// Errors: the folder cannot be read, holds no BVH file, or no file loads.
pub fn load_folder(
    dir: &Path,
    options: &LoadOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Model, ImportError> {
    let files = bvh_files(dir)?;
    if files.is_empty() {
        return Err(ImportError::new(
            dir,
            "",
            "no .bvh or .fbx file in this folder (a folder opens as a clip library of BVH or \
             FBX files)",
        ));
    }
    let total = files.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let loaded: Vec<(PathBuf, Result<Model, ImportError>)> = files
        .par_iter()
        .map(|path| {
            let result = std::fs::read(path)
                .map_err(|e| ImportError::doing(path, "", "cannot read file", e))
                .and_then(|bytes| {
                    if is_fbx_path(path) {
                        fbx::load_from_slice(&bytes, path, options)
                    } else {
                        bvh::load_from_slice(&bytes, path, options)
                    }
                });
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(n, total);
            (path.clone(), result)
        })
        .collect();
    // An FBX character file (a skinned mesh) gives the skeleton, whatever its name's order.
    let mut loaded = loaded;
    if let Some(i) = loaded.iter().position(|(_, r)| {
        r.as_ref().is_ok_and(|m| {
            m.format == SourceFormat::Fbx
                && m.meshes
                    .iter()
                    .any(|x| x.skin.is_some() && x.name != bone_shapes::BONE_MESH_NAME)
        })
    }) {
        let character = loaded.remove(i);
        loaded.insert(0, character);
    }
    let mut warnings = Vec::new();
    let mut base: Option<Model> = None;
    let mut skipped = 0;
    let (mut other_lengths, mut worst_m) = (Vec::new(), 0.0f32);
    for (path, result) in loaded {
        let model = match result {
            Ok(m) => m,
            Err(e) => {
                warnings.push(format!("skipped {}: {e}", display_name(&path)));
                skipped += 1;
                continue;
            }
        };
        let Some(first) = base.as_mut() else {
            base = Some(model);
            continue;
        };
        if let Some(why) = other_skeleton(first, &model) {
            if first.format == SourceFormat::Fbx || model.format == SourceFormat::Fbx {
                match clips_by_joint_name(first, &model) {
                    Ok((clips, dropped)) => {
                        if dropped > 0 {
                            warnings.push(format!(
                                "{}: {dropped} animated joints have no joint of that name in \
                                 the character and are left out",
                                display_name(&path)
                            ));
                        }
                        first.clips.extend(clips);
                    }
                    Err(e) => {
                        warnings.push(format!("skipped {}: {e}", display_name(&path)));
                        skipped += 1;
                    }
                }
                continue;
            }
            warnings.push(format!(
                "skipped {}: {why} than {}",
                display_name(&path),
                first.clips.first().map_or("the first file", |c| c.name())
            ));
            skipped += 1;
            continue;
        }
        // Same joints, another actor: the take plays on the first file's bone lengths.
        // Bones only: a root's offset, or one its clip animates, is where the take stood.
        let parents = first.skeleton.parents();
        let moves = |j: usize| {
            model
                .clips
                .iter()
                .any(|c| c.joint_tracks(j).is_some_and(|t| t.translation.is_some()))
        };
        let longest = first
            .skeleton
            .rest_pose()
            .iter()
            .zip(model.skeleton.rest_pose())
            .enumerate()
            .filter(|&(j, _)| parents[j].is_some() && !moves(j))
            .map(|(_, (a, b))| a.translation.distance(b.translation))
            .fold(0.0f32, f32::max);
        if longest > BONE_TOLERANCE_M {
            other_lengths.push(display_name(&path));
            worst_m = worst_m.max(longest);
        }
        first.clips.extend(model.clips);
    }
    let Some(mut model) = base else {
        return Err(ImportError::new(
            dir,
            "",
            format!(
                "none of its {total} BVH or FBX files loads: {}",
                warnings.first().map_or("", String::as_str)
            ),
        ));
    };
    model.source = format!("{} ({} clips)", display_name(dir), model.clips.len());
    if skipped > 0 {
        model.warnings.insert(
            0,
            format!("{skipped} of {total} files skipped (listed below)"),
        );
    }
    if !other_lengths.is_empty() {
        // One line for them all: a capture session's takes often come from several actors.
        model.warnings.push(format!(
            "{} files have the same joints but other bone lengths (up to {:.1} cm) and play on \
             the first file's skeleton: {}{}",
            other_lengths.len(),
            worst_m * 100.0,
            other_lengths
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            if other_lengths.len() > 5 { ", ..." } else { "" }
        ));
    }
    model.warnings.extend(warnings);
    bone_shapes::add_bone_shapes(&mut model)
        .map_err(|e| ImportError::caused_by(dir, "skeleton", e))?;
    Ok(model)
}

/// `other`'s clips on `first`'s skeleton, each track moved to the joint of the same name,
/// and how many animated joints had none. Errors: fewer than half of `other`'s bones have
/// a joint of the same name in `first` (another rig).
fn clips_by_joint_name(first: &Model, other: &Model) -> Result<(Vec<Clip>, usize), FolderError> {
    let (a, b) = (&first.skeleton, &other.skeleton);
    let map: Vec<Option<usize>> = b.names().iter().map(|n| a.find(n)).collect();
    let bones: Vec<usize> = (0..b.joint_count()).filter(|&j| b.is_bound(j)).collect();
    let matched = bones.iter().filter(|&&j| map[j].is_some()).count();
    if bones.is_empty() || matched * 2 < bones.len() {
        return Err(FolderError::OtherRig {
            matched,
            bones: bones.len(),
        });
    }
    let mut dropped = std::collections::BTreeSet::new();
    let mut clips = Vec::with_capacity(other.clips.len());
    for clip in &other.clips {
        let mut tracks = Vec::new();
        for t in clip.tracks() {
            match map[t.joint] {
                Some(j) => {
                    let mut moved = JointTracks::new(j);
                    moved.translation = t.translation.clone();
                    moved.rotation = t.rotation.clone();
                    moved.scale = t.scale.clone();
                    tracks.push(moved);
                }
                None => {
                    dropped.insert(t.joint);
                }
            }
        }
        // Morph weights only move with a mesh of the same target count.
        let morph: Vec<MorphTrack> = clip
            .morph_tracks()
            .iter()
            .filter_map(|m| {
                let j = map[m.joint]?;
                let mesh = first.meshes.iter().find(|x| x.joint == j)?;
                (mesh.morph_target_count() == m.targets()).then(|| {
                    let mut moved = m.clone();
                    moved.joint = j;
                    moved
                })
            })
            .collect();
        let moved = Clip::with_morph(
            clip.name().to_string(),
            tracks,
            morph,
            clip.markers().to_vec(),
            a.joint_count(),
        )
        .map_err(|e| FolderError::Take {
            take: clip.name().to_string(),
            source: e,
        })?
        .with_frame_rate(clip.frame_rate_hz())
        .with_source_start(clip.source_start_secs());
        clips.push(moved);
    }
    Ok((clips, dropped.len()))
}

/// Why `other` cannot share `first`'s skeleton (joint names, hierarchy or units), if so.
fn other_skeleton(first: &Model, other: &Model) -> Option<String> {
    let (a, b) = (&first.skeleton, &other.skeleton);
    if a.names() != b.names() {
        return Some(format!(
            "another skeleton ({} joints{}, vs {})",
            b.joint_count(),
            a.names()
                .iter()
                .zip(b.names())
                .find(|(x, y)| x != y)
                .map_or(String::new(), |(x, y)| format!(", '{y}' where '{x}' is")),
            a.joint_count()
        ));
    }
    if a.parents() != b.parents() {
        return Some("another hierarchy (same names, other parents)".into());
    }
    if (first.source_units_m - other.source_units_m).abs() > 1e-9 * first.source_units_m {
        return Some(format!(
            "other units ({} m per unit vs {})",
            other.source_units_m, first.source_units_m
        ));
    }
    None
}

/// Loads `file`, or the built-in demo character when `None` (see [`super::load_or_demo`]);
/// a folder of BVH/FBX files shows a progress bar on a terminal (indicatif draws nothing
/// into pipes and CI logs).
pub fn load_with_progress(file: Option<&Path>, options: &LoadOptions) -> Result<Model, LoadError> {
    if let Some(dir) = file.filter(|p| p.is_dir()) {
        // A folder of BVH files: one character, every file a clip, with a progress bar
        // on a terminal (indicatif draws nothing into pipes and CI logs).
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("loading {bar:30} {pos}/{len} files")
                .map_err(|e| LoadError::Progress(e.to_string()))?,
        );
        let model = load_folder_reduced(dir, options, &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        });
        bar.finish_and_clear();
        return model;
    }
    Ok(super::load_or_demo_with(file, options)?)
}

/// A folder of takes as one character ([`load_folder`]) with `options`, their key
/// reduction included, reporting `(files read, files in all)` to `progress`.
pub fn load_folder_reduced(
    dir: &Path,
    options: &LoadOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Model, LoadError> {
    let mut model = load_folder(dir, options, progress)?;
    if let Some(tolerance_m) = options.reduce_keys_m {
        model.reduce_keys(tolerance_m)?;
    }
    Ok(model)
}
