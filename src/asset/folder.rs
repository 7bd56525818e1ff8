//! A folder of motion-capture files as one character: every BVH file of the folder that
//! shares the first file's skeleton becomes a clip (named after the file), parsed in
//! parallel; files with another skeleton, other units or errors are skipped and listed in
//! the model's warnings.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{bone_shapes, bvh, display_name, is_bvh_path, ImportError, LoadOptions, Model};

/// Rest offsets (metres) two files may differ by and still count as one actor's.
const BONE_TOLERANCE_M: f32 = 0.01;

/// The BVH files directly in `dir`, sorted by name (case-insensitive).
pub fn bvh_files(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| ImportError::new(dir, "", format!("cannot read the folder: {e}")))?;
    let mut files: Vec<PathBuf> = read
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && is_bvh_path(p))
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
            "no .bvh file in this folder (a folder opens as a clip library of BVH files)",
        ));
    }
    let total = files.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let loaded: Vec<(PathBuf, Result<Model, ImportError>)> = files
        .par_iter()
        .map(|path| {
            let result = std::fs::read(path)
                .map_err(|e| ImportError::new(path, "", format!("cannot read file: {e}")))
                .and_then(|bytes| bvh::load_from_slice(&bytes, path, options));
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(n, total);
            (path.clone(), result)
        })
        .collect();
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
                "none of its {total} BVH files loads: {}",
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
    bone_shapes::add_bone_shapes(&mut model).map_err(|e| ImportError::new(dir, "skeleton", e))?;
    Ok(model)
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
