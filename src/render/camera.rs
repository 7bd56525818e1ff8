//! Orbit camera maths: pure glam, no GPU types (the window's input handling and the CLI
//! share it).
//!
//! Conventions: right-handed, Y up, metres (or the asset's units). The camera orbits
//! `target` at `distance`; yaw 0 looks from +Z towards -Z (at a glTF character's front),
//! positive yaw moves the eye towards +X, positive pitch raises it. Projection maps depth
//! to 0..1 (near..far) with Y up in NDC, as wgpu expects.

use glam::{Mat4, Vec2, Vec3};

/// An orbit / pan / zoom perspective camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point orbited and looked at (world).
    pub target: Vec3,
    /// Rotation about +Y, radians.
    pub yaw_rad: f32,
    /// Elevation, radians, clamped to ±89°.
    pub pitch_rad: f32,
    /// Eye-to-target distance (world units), > 0.
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov_y_rad: f32,
}

/// Pitch limit: just short of the poles so the view never flips.
pub const MAX_PITCH_RAD: f32 = 89.0 * std::f32::consts::PI / 180.0;

impl Default for OrbitCamera {
    /// A three-quarter view from the front-right, slightly above.
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            yaw_rad: 35f32.to_radians(),
            pitch_rad: 15f32.to_radians(),
            distance: 5.0,
            fov_y_rad: 40f32.to_radians(),
        }
    }
}

impl OrbitCamera {
    /// Unit vector from the target towards the eye.
    pub fn back(&self) -> Vec3 {
        let (sy, cy) = self.yaw_rad.sin_cos();
        let (sp, cp) = self.pitch_rad.sin_cos();
        Vec3::new(cp * sy, sp, cp * cy)
    }

    /// Eye position (world).
    pub fn eye(&self) -> Vec3 {
        self.target + self.back() * self.distance
    }

    /// Unit right and up vectors of the view (world).
    pub fn right_up(&self) -> (Vec3, Vec3) {
        let back = self.back();
        let right = Vec3::Y.cross(back).normalize_or(Vec3::X);
        let up = back.cross(right);
        (right, up)
    }

    /// Rotates around the target by `delta_yaw_rad` / `delta_pitch_rad`.
    pub fn orbit(&mut self, delta_yaw_rad: f32, delta_pitch_rad: f32) {
        self.yaw_rad = (self.yaw_rad + delta_yaw_rad).rem_euclid(std::f32::consts::TAU);
        self.pitch_rad = (self.pitch_rad + delta_pitch_rad).clamp(-MAX_PITCH_RAD, MAX_PITCH_RAD);
    }

    /// Moves target and eye together by a screen-space drag of `delta_px` pixels in a
    /// viewport `viewport_height_px` tall, so the point under the cursor (at the target's
    /// depth) follows it. +x drags right, +y drags down (window coordinates).
    pub fn pan(&mut self, delta_px: Vec2, viewport_height_px: f32) {
        if viewport_height_px.is_nan() || viewport_height_px <= 0.0 {
            return;
        }
        let world_per_px = 2.0 * self.distance * (self.fov_y_rad * 0.5).tan() / viewport_height_px;
        let (right, up) = self.right_up();
        self.target += (-right * delta_px.x + up * delta_px.y) * world_per_px;
    }

    /// Multiplies the distance by `factor` (< 1 zooms in), clamped to a sane range.
    pub fn zoom(&mut self, factor: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance * factor).clamp(1e-4, 1e7);
        }
    }

    /// Aims at the centre of the box and backs off until its bounding sphere fits the view
    /// (both fields of view) with a small margin. Keeps yaw and pitch.
    pub fn frame_to_fit(&mut self, bounds_min: Vec3, bounds_max: Vec3, aspect: f32) {
        if !(bounds_min.is_finite() && bounds_max.is_finite()) {
            return;
        }
        let center = (bounds_min + bounds_max) * 0.5;
        let radius = ((bounds_max - bounds_min).length() * 0.5).max(1e-3);
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        let half_y = self.fov_y_rad * 0.5;
        let half_x = (half_y.tan() * aspect).atan();
        let half = half_y.min(half_x);
        const MARGIN: f32 = 1.08;
        self.target = center;
        self.distance = radius * MARGIN / half.sin();
    }

    /// Near and far planes that bracket a scene of the current size with good depth
    /// precision.
    pub fn near_far(&self) -> (f32, f32) {
        let near = (self.distance * 0.01).max(1e-4);
        let far = self.distance * 100.0 + 1.0;
        (near, far)
    }

    /// `view_from_world` (right-handed look-at).
    pub fn view_from_world(&self) -> Mat4 {
        let (_, up) = self.right_up();
        glam::camera::rh::view::look_at_mat4(self.eye(), self.target, up)
    }

    /// `clip_from_view`: perspective, depth 0 (near) .. 1 (far), NDC Y up (WebGPU).
    pub fn clip_from_view(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.near_far();
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        glam::camera::rh::proj::directx::perspective(self.fov_y_rad, aspect, near, far)
    }

    /// `clip_from_world = clip_from_view * view_from_world`.
    pub fn clip_from_world(&self, aspect: f32) -> Mat4 {
        self.clip_from_view(aspect) * self.view_from_world()
    }
}

/// Projects a world point to pixel coordinates (x right, y down, origin at the top-left
/// corner of the top-left pixel) of a `size_px` viewport; `None` behind the camera.
pub fn world_to_pixel(clip_from_world: &Mat4, point: Vec3, size_px: Vec2) -> Option<Vec2> {
    let clip = *clip_from_world * point.extend(1.0);
    if clip.w.is_nan() || clip.w <= 0.0 {
        return None;
    }
    let ndc = clip.truncate() / clip.w;
    Some(Vec2::new(
        (ndc.x * 0.5 + 0.5) * size_px.x,
        (0.5 - ndc.y * 0.5) * size_px.y,
    ))
}

/// The joint nearest to `click_px` on screen (within `radius_px`), from the joints'
/// world positions (`model_from_joint` translations, already placed in the world) seen
/// by `camera` in a `size_px` viewport. Nearer joints to the camera win ties.
pub fn pick_joint(
    model_from_joint: &[Mat4],
    camera: &OrbitCamera,
    size_px: Vec2,
    click_px: Vec2,
    radius_px: f32,
) -> Option<usize> {
    let clip_from_world = camera.clip_from_world(size_px.x / size_px.y.max(1.0));
    let eye = camera.eye();
    let mut best: Option<(f32, f32, usize)> = None;
    for (j, m) in model_from_joint.iter().enumerate() {
        let p: Vec3 = m.w_axis.truncate();
        let Some(px) = world_to_pixel(&clip_from_world, p, size_px) else {
            continue;
        };
        let d = px.distance(click_px);
        if d > radius_px {
            continue;
        }
        let depth = p.distance(eye);
        let better = match best {
            None => true,
            Some((bd, bz, _)) => d < bd - 0.5 || ((d - bd).abs() <= 0.5 && depth < bz),
        };
        if better {
            best = Some((d, depth, j));
        }
    }
    best.map(|b| b.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_view_looks_at_the_front_from_above_right() {
        let camera = OrbitCamera::default();
        let eye = camera.eye();
        assert!(eye.z > 0.0 && eye.x > 0.0 && eye.y > 0.0, "{eye:?}");
        assert!((eye.distance(camera.target) - camera.distance).abs() < 1e-4);
        // The target projects to the centre at mid depth range (0..1).
        let clip = camera.clip_from_world(16.0 / 9.0) * camera.target.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        assert!(
            ndc.x.abs() < 1e-5 && ndc.y.abs() < 1e-5 && ndc.z > 0.0 && ndc.z < 1.0,
            "{ndc:?}"
        );
        // +Y is up on screen.
        let up = world_to_pixel(
            &camera.clip_from_world(1.0),
            Vec3::Y * 0.1,
            Vec2::splat(100.0),
        )
        .unwrap();
        assert!(up.y < 50.0);
    }

    #[test]
    fn frame_to_fit_keeps_every_corner_in_view() {
        for aspect in [0.5, 1.0, 16.0 / 9.0, 3.0] {
            let mut camera = OrbitCamera::default();
            let (min, max) = (Vec3::new(-0.3, 0.0, -1.2), Vec3::new(0.5, 1.8, 0.4));
            camera.frame_to_fit(min, max, aspect);
            let m = camera.clip_from_world(aspect);
            let corners = [
                min,
                max,
                Vec3::new(min.x, max.y, min.z),
                Vec3::new(max.x, min.y, max.z),
            ];
            for c in corners {
                let clip = m * c.extend(1.0);
                let ndc = clip.truncate() / clip.w;
                assert!(
                    ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0 && (0.0..=1.0).contains(&ndc.z),
                    "{aspect}: {ndc:?}"
                );
            }
        }
    }

    #[test]
    fn orbit_pan_and_zoom() {
        let mut camera = OrbitCamera::default();
        camera.orbit(0.0, 10.0);
        assert_eq!(camera.pitch_rad, MAX_PITCH_RAD);
        let target = camera.target;
        let (right, _) = camera.right_up();
        camera.pan(Vec2::new(-100.0, 0.0), 500.0);
        // Dragging left moves the view (target) right.
        assert!((camera.target - target).dot(right) > 0.0);
        let d = camera.distance;
        camera.zoom(0.5);
        assert!((camera.distance - d * 0.5).abs() < 1e-6);
        camera.zoom(f32::NAN);
        assert!((camera.distance - d * 0.5).abs() < 1e-6);
    }
}
