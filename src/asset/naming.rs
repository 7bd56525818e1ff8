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

/// `name` cut to at most `max_chars` characters with an ellipsis in the middle, keeping
/// its last word (after the last `_`, `-`, space or `.`: the take number that tells
/// `walk_normal_002` from `walk_normal_003`) and as much of its start as fits. Names that
/// fit are returned whole; the last word is itself cut from the left when it alone is too
/// long.
pub fn elide_keeping_end(name: &str, max_chars: usize) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= max_chars || max_chars < 3 {
        return name.to_string();
    }
    // Without a separator the end shows anyway (half the room).
    let tail_start = chars
        .iter()
        .rposition(|c| matches!(c, '_' | '-' | ' ' | '.'))
        .unwrap_or(0);
    // The tail keeps its separator, and at most half the room.
    let tail_len = (chars.len() - tail_start).min((max_chars - 1) / 2);
    let head_len = max_chars - 1 - tail_len;
    let head: String = chars[..head_len].iter().collect();
    let tail: String = chars[chars.len() - tail_len..].iter().collect();
    format!("{head}…{tail}")
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

#[cfg(test)]
mod elide_tests {
    use super::elide_keeping_end;

    /// Library labels keep what tells takes apart (issue 39 item 9: "dataset-2_walk_n…"
    /// twice).
    #[test]
    fn cut_names_keep_their_take_number() {
        assert_eq!(
            elide_keeping_end("dataset-2_walk_normal_002", 14),
            "dataset-2…_002"
        );
        assert_eq!(
            elide_keeping_end("dataset-2_walk_normal_003", 14),
            "dataset-2…_003"
        );
        // What fits stays whole; every cut is exactly as long as asked.
        assert_eq!(elide_keeping_end("Robot_Idle", 14), "Robot_Idle");
        for n in 3..25 {
            let cut = elide_keeping_end("dataset-2_walk-turn-left_feminine_001", n);
            assert_eq!(cut.chars().count(), n, "{cut}");
        }
        // A last word longer than half the room is cut from its left.
        assert_eq!(elide_keeping_end("a_verylongfinalword", 9), "a_ve…word");
        // No separator: the end still shows.
        assert_eq!(elide_keeping_end("abcdefghijkl", 7), "abc…jkl");
    }
}
