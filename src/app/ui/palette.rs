//! Colours the panels share, so a warning or a leg reads the same in every plot and lane.

use egui::Color32;

/// Warnings: phase cancellation, the loop seam, skating, unmapped bones.
pub(super) const WARN: Color32 = Color32::from_rgb(255, 170, 80);

/// The foot-slide plot's skating threshold: red, apart from the warning orange, which is
/// close to the right leg's.
pub(super) const SKATE: Color32 = Color32::from_rgb(235, 60, 60);

/// The left leg's colour and the right leg's, wherever a leg is drawn: its sync markers,
/// its contact lane in the scrub bar, its foot-slide points.
pub(super) const LEFT: Color32 = Color32::from_rgb(90, 170, 255);
/// See [`LEFT`].
pub(super) const RIGHT: Color32 = Color32::from_rgb(255, 160, 60);

/// One colour per leg in detection order (left, right, then a third and fourth leg), and
/// per input in the Blend panel's plots; the fifth and later repeat them.
pub(super) const FOOT: [Color32; 4] = [
    LEFT,
    RIGHT,
    Color32::from_rgb(200, 200, 90),
    Color32::from_rgb(170, 130, 240),
];

/// The colour of the leg named `leg` ("left", "right", "leg 3"...; a marker's name with
/// its `_foot_down` / `_foot_up` part is accepted too), the `index`-th leg found: by the
/// side its name says, else "leg N" as the N-th leg, else by `index`. So a leg's marker,
/// contact lane and plot read alike whichever of them knows only the name.
pub(super) fn leg_color(leg: &str, index: usize) -> Color32 {
    let lower = leg.to_ascii_lowercase();
    if lower.contains("left") {
        return LEFT;
    }
    if lower.contains("right") {
        return RIGHT;
    }
    let numbered = lower
        .strip_prefix("leg ")
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n >= 1);
    FOOT[numbered.map_or(index, |n| n - 1) % FOOT.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leg_reads_alike_by_name_or_by_marker() {
        assert_eq!(leg_color("left", 1), LEFT);
        assert_eq!(leg_color("left_foot_down", 7), LEFT);
        assert_eq!(leg_color("Right_Foot_Up", 0), RIGHT);
        assert_eq!(leg_color("right", 0), RIGHT);
        assert_eq!(leg_color("leg 3", 0), FOOT[2]);
        assert_eq!(leg_color("leg 3_foot_up", 0), FOOT[2]);
        assert_eq!(leg_color("leg 4_foot_down", 9), FOOT[3]);
        // Neither a side nor a number: the order it was found in.
        assert_eq!(leg_color("hind", 1), RIGHT);
        assert_eq!(leg_color("leg 0", 2), FOOT[2]);
    }
}
