//! Debug draw of stride warping, orientation warping and foot IK, in the colours of
//! Unreal's debug draw so users recognise them: floor normal (blue arrow); IK foot origin
//! (red), scale origin (yellow), warped target (green), final target (blue); pelvis
//! before (red) and after (blue) with the offset vector; the stride direction arrow from
//! the pelvis, as long as the stride scale times half a leg; FK thigh-to-foot lines (red)
//! and adjusted ones (green); the orientation-warp angle as an arc on the ground.
//! Text (stride scale, speeds) is drawn by egui in the window and printed by `render`.

use glam::{Mat4, Quat, Vec3};

use crate::anim::locomotion::StrideWarpOutput;

use super::overlay::{DepthTest, OverlayBatch, Rgba8};
use super::UnknownOverlay;

/// Which groups to draw (each toggleable; `all()` turns every one on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LocomotionOverlays {
    /// The floor normal: a blue arrow on the ground under the pelvis.
    pub floor_normal: bool,
    /// Per foot: IK origin (red), scale origin (yellow) with a line to the warped target
    /// (green), and the final target (blue).
    pub ik_targets: bool,
    /// The pelvis before (red) and after (blue) the stride-warp offset, joined by a line.
    pub pelvis: bool,
    /// An orange arrow from the warped pelvis along the stride direction, the stride scale
    /// times half a leg long.
    pub stride_direction: bool,
    /// FK thigh-to-IK-origin lines (red) and adjusted thigh-to-target lines (green).
    pub thighs: bool,
    /// The orientation-warp angle as a magenta arc on the ground, with the turned body's
    /// facing (green).
    pub orientation: bool,
    /// Stride scale and speeds as text: the window draws it with egui and `render` prints it;
    /// [`OverlayBatch::locomotion`] ignores this flag.
    pub text: bool,
}

/// Names accepted by [`LocomotionOverlays::parse`], in drawing order.
pub const OVERLAY_NAMES: [&str; 7] = [
    "floor",
    "targets",
    "pelvis",
    "stride",
    "thighs",
    "orientation",
    "text",
];

impl LocomotionOverlays {
    /// Every group on.
    pub fn all() -> Self {
        Self {
            floor_normal: true,
            ik_targets: true,
            pelvis: true,
            stride_direction: true,
            thighs: true,
            orientation: true,
            text: true,
        }
    }

    /// True when at least one group is on.
    pub fn any(&self) -> bool {
        *self != Self::default()
    }

    /// `all`, `none`, or a comma-separated list of [`OVERLAY_NAMES`].
    pub fn parse(s: &str) -> Result<Self, UnknownOverlay> {
        let mut o = Self::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.to_ascii_lowercase().as_str() {
                "all" => o = Self::all(),
                "none" => o = Self::default(),
                "floor" | "floor-normal" => o.floor_normal = true,
                "targets" | "ik" | "feet" => o.ik_targets = true,
                "pelvis" => o.pelvis = true,
                "stride" | "direction" => o.stride_direction = true,
                "thighs" | "thigh" => o.thighs = true,
                "orientation" => o.orientation = true,
                "text" => o.text = true,
                other => {
                    return Err(UnknownOverlay {
                        name: other.to_string(),
                    })
                }
            }
        }
        Ok(o)
    }

    /// Mutable flags with their names (for UI checkboxes).
    pub fn flags_mut(&mut self) -> [(&'static str, &mut bool); 7] {
        [
            ("floor normal", &mut self.floor_normal),
            ("IK targets", &mut self.ik_targets),
            ("pelvis", &mut self.pelvis),
            ("stride direction", &mut self.stride_direction),
            ("thighs", &mut self.thighs),
            ("orientation warp", &mut self.orientation),
            ("text", &mut self.text),
        ]
    }
}

/// Colours (Unreal's debug draw).
pub const ORIGIN_RED: Rgba8 = Rgba8::rgb(235, 50, 50);
/// Stride-scale origins and their lines to the warped targets.
pub const SCALE_YELLOW: Rgba8 = Rgba8::rgb(245, 215, 40);
/// Warped foot targets, adjusted thigh lines and the turned body's facing.
pub const WARPED_GREEN: Rgba8 = Rgba8::rgb(60, 220, 70);
/// Final IK targets, the pelvis after the offset, and the floor normal.
pub const FINAL_BLUE: Rgba8 = Rgba8::rgb(60, 120, 255);
/// The stride-direction arrow.
pub const STRIDE_ORANGE: Rgba8 = Rgba8::rgb(255, 140, 30);
/// The orientation-warp arc and its arrow.
pub const ORIENTATION_MAGENTA: Rgba8 = Rgba8::rgb(230, 80, 230);

/// What to draw: one frame's warp, placed in the world.
#[derive(Clone, Copy, Debug)]
pub struct LocomotionDraw<'a> {
    /// This frame's stride-warp result; its positions are in the skeleton's model space.
    pub warp: &'a StrideWarpOutput,
    /// World from the skeleton's model space (placement and body yaw).
    pub world_from_model: Mat4,
    /// Mean leg length (units): sizes of arrows and points.
    pub leg_length: f32,
    /// Body yaw of orientation warping (radians) and the movement direction relative to
    /// the clip's travel direction after its flip past 90° (radians), for the angle arc.
    pub body_yaw_rad: f32,
    /// Movement direction relative to the clip's travel direction (after its flip past 90
    /// degrees), radians: where the arc ends.
    pub movement_yaw_rad: f32,
    /// The clip's travel direction in model space (unit, horizontal).
    pub travel: Vec3,
}

impl OverlayBatch {
    /// Appends the locomotion debug draw (see the module docs).
    pub fn locomotion(&mut self, d: &LocomotionDraw, flags: &LocomotionOverlays) {
        let w = d.world_from_model;
        let p = |v: Vec3| w.transform_point3(v);
        let leg = if d.leg_length > 0.0 && d.leg_length.is_finite() {
            d.leg_length
        } else {
            1.0
        };
        let top = DepthTest::OnTop;
        let warp = d.warp;
        // Root on the ground, under the pelvis.
        let ground = Vec3::new(warp.pelvis_before.x, 0.0, warp.pelvis_before.z);
        if flags.floor_normal {
            let n = if warp.floor_normal.length_squared() > 0.0 {
                warp.floor_normal
            } else {
                Vec3::Y
            };
            self.arrow(
                p(ground),
                p(ground + n * leg * 0.4),
                leg * 0.1,
                FINAL_BLUE,
                top,
            );
        }
        if flags.thighs {
            for f in &warp.feet {
                self.line(p(f.thigh_fk), p(f.ik_origin), ORIGIN_RED, top);
                self.line(p(f.thigh_adjusted), p(f.target), WARPED_GREEN, top);
            }
        }
        if flags.ik_targets {
            for f in &warp.feet {
                self.point(p(f.ik_origin), 9.0, ORIGIN_RED, top);
                self.point(p(f.scale_origin), 7.0, SCALE_YELLOW, top);
                self.line(p(f.scale_origin), p(f.warped), SCALE_YELLOW, top);
                self.point(p(f.warped), 7.0, WARPED_GREEN, top);
                self.point(p(f.target), 5.0, FINAL_BLUE, top);
            }
        }
        if flags.pelvis {
            self.point(p(warp.pelvis_before), 9.0, ORIGIN_RED, top);
            self.point(p(warp.pelvis_after), 7.0, FINAL_BLUE, top);
            self.line(p(warp.pelvis_before), p(warp.pelvis_after), FINAL_BLUE, top);
        }
        if flags.stride_direction && warp.direction.length_squared() > 0.0 {
            let len = leg * 0.5 * warp.scale.max(0.0);
            let from = warp.pelvis_after;
            self.arrow(
                p(from),
                p(from + warp.direction * len),
                leg * 0.08,
                STRIDE_ORANGE,
                top,
            );
        }
        if flags.orientation {
            // Arc on the ground from the clip's travel direction (before the body turn)
            // to the movement direction.
            let r = leg * 0.6;
            let start = -d.body_yaw_rad;
            let end = d.movement_yaw_rad - d.body_yaw_rad;
            let steps = 24;
            let travel = if d.travel.length_squared() > 0.0 {
                d.travel.normalize()
            } else {
                Vec3::Z
            };
            let at = |a: f32| ground + Quat::from_rotation_y(a) * travel * r;
            let mut prev = at(start);
            for i in 1..=steps {
                let a = start + (end - start) * i as f32 / steps as f32;
                let next = at(a);
                self.line(p(prev), p(next), ORIENTATION_MAGENTA, top);
                prev = next;
            }
            self.line(p(ground), p(at(start)), ORIENTATION_MAGENTA, top);
            self.arrow(p(ground), p(at(end)), leg * 0.08, ORIENTATION_MAGENTA, top);
            // The turned body's facing.
            self.line(p(ground), p(ground + travel * r * 0.8), WARPED_GREEN, top);
        }
    }
}
