//! Colours the panels share, so a warning or a leg reads the same in every plot and lane.

use egui::Color32;

/// Warnings: phase cancellation, the loop seam, skating, unmapped bones.
pub(super) const WARN: Color32 = Color32::from_rgb(255, 170, 80);

/// One colour per leg (foot-slide plot, swing plot, the scrub bar's contact lanes, the
/// Blend panel's sync markers); legs past the fourth repeat them.
pub(super) const FOOT: [Color32; 4] = [
    Color32::from_rgb(240, 110, 110),
    Color32::from_rgb(110, 200, 240),
    Color32::from_rgb(200, 200, 90),
    Color32::from_rgb(170, 130, 240),
];
