//! A generic batch of world-space debug geometry — lines, points (screen-space squares)
//! and arrows — each with its own colour and a depth-test switch. The ground grid, the
//! skeleton and later the stride-warp and root-motion overlays are all built through it.
//! Text labels are the UI's job.

use glam::{Vec3, Vec4Swizzles};

use super::gpu_types::{LineVertex, PointInstance};
use super::PoseMatrices;
use crate::asset::Model;

/// An sRGB colour with alpha (what an artist would type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgba8(pub [u8; 4]);

impl Rgba8 {
    /// Opaque white.
    pub const WHITE: Rgba8 = Rgba8([255, 255, 255, 255]);
    /// Opaque black.
    pub const BLACK: Rgba8 = Rgba8([0, 0, 0, 255]);
    /// Opaque red (230, 60, 60).
    pub const RED: Rgba8 = Rgba8([230, 60, 60, 255]);
    /// Opaque green (70, 200, 80).
    pub const GREEN: Rgba8 = Rgba8([70, 200, 80, 255]);
    /// Opaque blue (70, 110, 240).
    pub const BLUE: Rgba8 = Rgba8([70, 110, 240, 255]);
    /// Opaque yellow (240, 210, 60).
    pub const YELLOW: Rgba8 = Rgba8([240, 210, 60, 255]);
    /// Opaque orange (250, 150, 40).
    pub const ORANGE: Rgba8 = Rgba8([250, 150, 40, 255]);
    /// Opaque cyan (80, 210, 230).
    pub const CYAN: Rgba8 = Rgba8([80, 210, 230, 255]);

    /// An opaque colour from sRGB bytes.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Rgba8([r, g, b, 255])
    }
}

/// Whether an overlay item is hidden behind nearer geometry or drawn on top of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DepthTest {
    /// Occluded by the mesh and other depth-tested items (the grid).
    Tested,
    /// Always visible (skeleton, debug markers).
    OnTop,
}

impl DepthTest {
    fn index(self) -> usize {
        match self {
            DepthTest::Tested => 0,
            DepthTest::OnTop => 1,
        }
    }
}

/// World-space lines and points, rebuilt every frame by whoever draws them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverlayBatch {
    lines: [Vec<LineVertex>; 2],
    points: [Vec<PointInstance>; 2],
}

impl OverlayBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Removes every line and point, keeping the allocations for the next frame.
    pub fn clear(&mut self) {
        for v in &mut self.lines {
            v.clear();
        }
        for v in &mut self.points {
            v.clear();
        }
    }

    /// True when the batch holds no line and no point.
    pub fn is_empty(&self) -> bool {
        self.lines.iter().all(Vec::is_empty) && self.points.iter().all(Vec::is_empty)
    }

    /// A line segment.
    pub fn line(&mut self, from: Vec3, to: Vec3, color: Rgba8, depth: DepthTest) {
        let list = &mut self.lines[depth.index()];
        list.push(LineVertex {
            position: from.to_array(),
            color: color.0,
        });
        list.push(LineVertex {
            position: to.to_array(),
            color: color.0,
        });
    }

    /// Connected segments through `points` (trails, paths).
    pub fn polyline(&mut self, points: &[Vec3], color: Rgba8, depth: DepthTest) {
        for pair in points.windows(2) {
            self.line(pair[0], pair[1], color, depth);
        }
    }

    /// A square `size_px` pixels wide, centred on `at`, facing the camera.
    pub fn point(&mut self, at: Vec3, size_px: f32, color: Rgba8, depth: DepthTest) {
        self.points[depth.index()].push(PointInstance {
            position: at.to_array(),
            size_px,
            color: color.0,
        });
    }

    /// A shaft from `from` to `to` with a four-fin head at `to` (readable from any view).
    /// The head is 20% of the length, at most `max_head` long.
    pub fn arrow(&mut self, from: Vec3, to: Vec3, max_head: f32, color: Rgba8, depth: DepthTest) {
        self.line(from, to, color, depth);
        let d = to - from;
        let len = d.length();
        if len <= 0.0 || !len.is_finite() {
            return;
        }
        let dir = d / len;
        let head = (len * 0.2).min(max_head.max(0.0));
        let (a, b) = dir.any_orthonormal_pair();
        let back = to - dir * head;
        for side in [a, -a, b, -b] {
            self.line(to, back + side * head * 0.35, color, depth);
        }
    }

    /// Appends everything in `other`.
    pub fn extend(&mut self, other: &OverlayBatch) {
        for k in 0..2 {
            self.lines[k].extend_from_slice(&other.lines[k]);
            self.points[k].extend_from_slice(&other.points[k]);
        }
    }

    /// Line-list vertices (pairs) of one depth mode.
    pub fn lines(&self, depth: DepthTest) -> &[LineVertex] {
        &self.lines[depth.index()]
    }

    /// Points of one depth mode.
    pub fn points(&self, depth: DepthTest) -> &[PointInstance] {
        &self.points[depth.index()]
    }

    /// Bones (joint to parent) as lines and joints as points, drawn on top of the mesh.
    /// Only skin joints are drawn when the model has skins (scene roots, mesh nodes and
    /// cameras are not bones); each bone goes to the nearest drawn ancestor.
    pub fn skeleton(&mut self, model: &Model, pose: &impl PoseMatrices, style: &SkeletonStyle) {
        let model_from_joint = pose.model_from_joint();
        let n = model.skeleton.joint_count().min(model_from_joint.len());
        let mut drawn = vec![model.skins.is_empty(); n];
        for skin in &model.skins {
            for &j in &skin.joints {
                if j < n {
                    drawn[j] = true;
                }
            }
        }
        let parents = model.skeleton.parents();
        let position = |j: usize| model_from_joint[j].w_axis.xyz();
        for j in 0..n {
            if !drawn[j] {
                continue;
            }
            let mut parent = parents[j];
            while let Some(p) = parent {
                if p < n && drawn[p] {
                    break;
                }
                parent = parents.get(p).copied().flatten();
            }
            if let Some(p) = parent {
                self.line(position(p), position(j), style.bone_color, DepthTest::OnTop);
            }
            self.point(
                position(j),
                style.joint_size_px,
                style.joint_color,
                DepthTest::OnTop,
            );
        }
    }
}

impl OverlayBatch {
    /// Highlights joint `joint`: its bone from the parent and the bones to its children in
    /// `color`, and a larger point at the joint (drawn on top of the skeleton).
    pub fn joint_highlight(
        &mut self,
        model: &Model,
        pose: &impl PoseMatrices,
        joint: usize,
        color: Rgba8,
    ) {
        let model_from_joint = pose.model_from_joint();
        let n = model_from_joint.len().min(model.skeleton.joint_count());
        if joint >= n {
            return;
        }
        let position = |j: usize| model_from_joint[j].w_axis.xyz();
        let parents = model.skeleton.parents();
        if let Some(p) = parents[joint] {
            self.line(position(p), position(joint), color, DepthTest::OnTop);
        }
        for c in (joint + 1..n).filter(|&c| parents[c] == Some(joint)) {
            self.line(position(joint), position(c), color, DepthTest::OnTop);
        }
        self.point(position(joint), 10.0, color, DepthTest::OnTop);
    }
}

/// Colours and sizes for [`OverlayBatch::skeleton`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkeletonStyle {
    /// Colour of the bone lines (joint to drawn parent).
    pub bone_color: Rgba8,
    /// Colour of the joint points.
    pub joint_color: Rgba8,
    /// Edge length of each joint's square, pixels.
    pub joint_size_px: f32,
}

impl Default for SkeletonStyle {
    fn default() -> Self {
        Self {
            bone_color: Rgba8::rgb(255, 200, 80),
            joint_color: Rgba8::rgb(255, 255, 255),
            joint_size_px: 5.0,
        }
    }
}

/// A ground grid on the y = 0 plane with the world axes coloured (X red, Z blue).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// Grid centre (x and z used; snapped to `spacing`).
    pub center: Vec3,
    /// Distance between lines (world units).
    pub spacing: f32,
    /// Lines on each side of the centre.
    pub half_lines: u32,
    /// Colour of the ordinary grid lines.
    pub line_color: Rgba8,
    /// Colour of the line along the X axis (z = 0).
    pub x_axis_color: Rgba8,
    /// Colour of the line along the Z axis (x = 0).
    pub z_axis_color: Rgba8,
}

impl Grid {
    /// A grid under a box: a "nice" spacing (1, 2 or 5 × 10^k) giving about ten cells
    /// across a floor about three times the box's footprint.
    pub fn for_bounds(min: Vec3, max: Vec3) -> Self {
        let size = (max - min).abs();
        let extent = size.x.max(size.z).max(size.y).max(1e-3) * 1.6;
        let raw = extent / 10.0;
        let decade = 10f32.powf(raw.log10().floor());
        let spacing = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * decade)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * decade);
        let center = (min + max) * 0.5;
        Self {
            center: Vec3::new(
                (center.x / spacing).round() * spacing,
                0.0,
                (center.z / spacing).round() * spacing,
            ),
            spacing,
            half_lines: ((extent / spacing).ceil() as u32).clamp(1, 200),
            line_color: Rgba8::rgb(78, 80, 84),
            x_axis_color: Rgba8::rgb(200, 60, 60),
            z_axis_color: Rgba8::rgb(60, 100, 220),
        }
    }

    /// Appends the grid lines (depth-tested).
    pub fn append_to(&self, batch: &mut OverlayBatch) {
        let h = self.half_lines as i64;
        let s = self.spacing;
        let (x0, z0) = (self.center.x - h as f32 * s, self.center.z - h as f32 * s);
        let (x1, z1) = (self.center.x + h as f32 * s, self.center.z + h as f32 * s);
        let mut x_axis = false;
        let mut z_axis = false;
        for i in -h..=h {
            let x = self.center.x + i as f32 * s;
            let z = self.center.z + i as f32 * s;
            // Lines of constant x run along Z; x = 0 is the Z axis.
            let on_z_axis = x.abs() < s * 1e-3;
            let on_x_axis = z.abs() < s * 1e-3;
            z_axis |= on_z_axis;
            x_axis |= on_x_axis;
            if !on_z_axis {
                batch.line(
                    Vec3::new(x, 0.0, z0),
                    Vec3::new(x, 0.0, z1),
                    self.line_color,
                    DepthTest::Tested,
                );
            }
            if !on_x_axis {
                batch.line(
                    Vec3::new(x0, 0.0, z),
                    Vec3::new(x1, 0.0, z),
                    self.line_color,
                    DepthTest::Tested,
                );
            }
        }
        // Axes last so they draw over the grid lines they replace.
        if z_axis {
            batch.line(
                Vec3::new(0.0, 0.0, z0),
                Vec3::new(0.0, 0.0, z1),
                self.z_axis_color,
                DepthTest::Tested,
            );
        }
        if x_axis {
            batch.line(
                Vec3::new(x0, 0.0, 0.0),
                Vec3::new(x1, 0.0, 0.0),
                self.x_axis_color,
                DepthTest::Tested,
            );
        }
    }
}
