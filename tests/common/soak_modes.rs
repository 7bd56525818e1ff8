//! The window modes the memory soaks play: tests/soak.rs runs each for 30 and 300 frames,
//! benches/soak.rs for 10 minutes. Included with `#[path]` by both.

/// Every mode that animates, by name, with the window's arguments (relative to the
/// checkout, `../shared` beside it). Motion matching is driven by held keys, which each
/// runner adds its own way (`--hold-keys` in a scripted run, xdotool in the bench).
pub const WINDOW_MODES: [(&str, &[&str]); 9] = [
    (
        "clip",
        &[
            "../shared/assets/Robot/robot.glb",
            "--clip",
            "Robot_Running",
            "--play",
        ],
    ),
    ("graph", &["--graph", "--param", "speed=2.0", "--play"]),
    (
        "drive",
        &[
            "--clip",
            "Walk",
            "--drive",
            "--movement-speed",
            "1.8",
            "--play",
        ],
    ),
    ("matching", &["--motion-matching"]),
    // Skeleton and mesh ghosts (one skinned instance per ghost, the ghost pipeline).
    (
        "onion",
        &[
            "--clip", "Walk", "--play", "--onion", "3", "--ghosts", "both",
        ],
    ),
    // A motion-capture take (BVH: bone shapes, zero-pose skeleton) left playing.
    (
        "mocap",
        &[
            "../shared/mocap/bandai/dataset-2_walk_normal_002.bvh",
            "--play",
        ],
    ),
    (
        "compare",
        &[
            "--clip",
            "Walk",
            "--compare",
            "Run",
            "--side-by-side",
            "--play",
        ],
    ),
    // The trail and displacement plot of a travelling clip in Accumulate.
    ("trail", &["--clip", "Walk", "--play"]),
    // Plays, then File > Export preview of one Run cycle (scripted runs only).
    ("export", &["--clip", "Run", "--play"]),
];

/// The arguments of mode `name`.
#[allow(dead_code)] // The bench walks the list instead.
pub fn window_mode(name: &str) -> &'static [&'static str] {
    WINDOW_MODES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, a)| *a)
        .unwrap_or_else(|| panic!("no soak mode '{name}'"))
}
