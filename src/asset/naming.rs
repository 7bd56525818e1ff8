//! Clip names that say where a clip came from.
//!
//! Exporters name takes after the tool, not the motion: every Mixamo download holds a take
//! called `mixamo.com` (and often an empty `Take 001` before it), Maya and MotionBuilder
//! write `Take 001`, Blender writes `Armature|<action>` and Unreal `Unreal Take`. A folder
//! of five dances would list five `mixamo.com`. Such a take is named after its file
//! instead: the file's stem when the file has one such take that animates, `stem/take`
//! for the others. The rule depends only on the file's name and its take names, so a
//! clip's name is the same on every run (scenario files and `--clip` refer to it).

use std::path::Path;

use crate::anim::Clip;

/// True for a take name an exporter gives whatever the motion: `mixamo.com`, `Take 001`
/// (any number), `Armature|...`, `Unreal Take`, `Scene` (compared without case).
pub fn is_generic_take_name(name: &str) -> bool {
    let lower = name.trim().to_lowercase();
    if lower == "mixamo.com" || lower == "unreal take" || lower == "scene" || lower.is_empty() {
        return true;
    }
    if lower.starts_with("armature|") {
        return true;
    }
    lower
        .strip_prefix("take")
        .map(str::trim_start)
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// `wanted` if `taken` says it is free, else the first free one of `wanted (2)`,
/// `wanted (3)` ...: how clip and animation names are kept unique in a file, a library
/// and a written GLB.
pub fn unique_name(wanted: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = wanted.to_string();
    let mut k = 2;
    while taken(&name) {
        name = format!("{wanted} ({k})");
        k += 1;
    }
    name
}

/// Renames `clips` (one file's takes, in file order) whose names are generic (see
/// [`is_generic_take_name`]) after `path`'s stem: the stem alone for the one generic take
/// that animates when there is exactly one, `stem/take` for every other generic take.
/// Names stay unique within the file (` (2)`, ` (3)` ... where two would collide).
pub fn name_takes_after_file(clips: &mut [Clip], path: &Path) {
    let Some(stem) = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
    else {
        return;
    };
    let generic: Vec<usize> = (0..clips.len())
        .filter(|&c| is_generic_take_name(clips[c].name()))
        .collect();
    if generic.is_empty() {
        return;
    }
    let animated: Vec<usize> = generic
        .iter()
        .copied()
        .filter(|&c| clips[c].animates())
        .collect();
    let sole = match animated.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    for &c in &generic {
        let wanted = if Some(c) == sole {
            stem.clone()
        } else {
            format!("{stem}/{}", clips[c].name())
        };
        let name = unique_name(&wanted, |name| {
            clips
                .iter()
                .enumerate()
                .any(|(i, other)| i != c && other.name() == name)
        });
        clips[c].set_name(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_names_are_the_exporters_defaults() {
        for n in [
            "mixamo.com",
            "Take 001",
            "take 12",
            "Take001",
            "Armature|Walk",
            "Unreal Take",
            "Scene",
        ] {
            assert!(is_generic_take_name(n), "{n}");
        }
        for n in [
            "Walk",
            "Take off",
            "Takes 1",
            "Robot_Running",
            "spin",
            "Take",
        ] {
            assert!(!is_generic_take_name(n), "{n}");
        }
    }
}

#[cfg(test)]
mod unique_tests {
    use super::unique_name;

    #[test]
    fn a_taken_name_gets_the_first_free_number() {
        let taken = ["Walk", "Walk (2)"];
        assert_eq!(unique_name("Run", |n| taken.contains(&n)), "Run");
        assert_eq!(unique_name("Walk", |n| taken.contains(&n)), "Walk (3)");
    }
}
