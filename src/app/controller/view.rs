//! The camera and picking: framing, presets, following, the joint under the cursor.

use super::*;

/// The viewport's side of the window: the camera, what it draws (the onion-skin ghosts
/// among it), its size, whether to frame the character on the next layout, the windows
/// open over it and the frame statistics.
pub struct ViewState {
    pub camera: OrbitCamera,
    pub toggles: ViewToggles,
    /// Viewport size in physical pixels, as laid out last frame.
    pub(crate) viewport_size_px: [u32; 2],
    /// Frame the character on the next viewport layout.
    pub(crate) frame_pending: bool,
    /// Camera target minus the root position while following.
    pub(crate) follow_offset: Option<Vec3>,
    /// A clip the clip list should scroll to once (opened from the library grid).
    pub(crate) reveal_clip: Option<usize>,
    /// The windows open over the viewport (messages, help, bone map, file browser).
    pub windows: Windows,
    /// Frame rate, frame time and GPU adapter, shown in the status bar.
    pub stats: super::Stats,
    /// Onion-skin ghosts of the last evaluation (empty when off).
    pub ghosts: Ghosts,
}

impl ViewState {
    /// The default camera with `toggles`, framing the character at the first layout.
    pub fn new(toggles: ViewToggles) -> Self {
        Self {
            camera: OrbitCamera::default(),
            toggles,
            viewport_size_px: [1, 1],
            frame_pending: true,
            follow_offset: None,
            reveal_clip: None,
            windows: Windows::default(),
            stats: super::Stats::default(),
            ghosts: Ghosts::default(),
        }
    }
}

impl Previewer {
    /// Selects the joint drawn nearest to `click_px` (viewport pixels), if any within
    /// 12 px; clears the selection otherwise.
    pub fn pick_joint(&mut self, click_px: glam::Vec2) {
        let [w, h] = self.view.viewport_size_px;
        let picked = crate::render::camera::pick_joint(
            &self.stage.main.pose.model_from_joint,
            &self.view.camera,
            glam::Vec2::new(w as f32, h as f32),
            click_px,
            12.0,
        );
        self.select_joint(picked);
    }

    /// Selects `joint` (or clears the selection) and opens its ancestors in the outliner,
    /// so a joint picked in the viewport or the seam table shows there too.
    pub fn select_joint(&mut self, joint: Option<usize>) {
        self.inspect.select(joint);
        if let Some(j) = joint {
            self.inspect
                .reveal_in_outliner(&self.stage.main.model.skeleton, j);
        }
    }

    /// World position of the displayed root on the ground (y = 0).
    pub fn root_position(&self) -> Vec3 {
        let p = match self.stage.main.source {
            // The timeline's root stands where its pose puts it (in place or not).
            MotionSource::Clip => self.stage.main.timeline.root_world_position(),
            _ => self.stage.main.world_from_root().translation,
        };
        Vec3::new(p.x as f32, 0.0, p.y as f32)
    }

    /// The screen rectangle (UI points, the viewport's top-left at `origin`) around the
    /// displayed character's joints, for overlays to keep clear of it; `None` when none
    /// projects in front of the camera.
    pub fn character_screen_rect(
        &self,
        pixels_per_point: f32,
        origin: egui::Pos2,
    ) -> Option<egui::Rect> {
        let [w, h] = self.view.viewport_size_px;
        let size = glam::Vec2::new(w as f32, h as f32);
        let clip_from_world = self.view.camera.clip_from_world(size.x / size.y.max(1.0));
        // The pose's matrices already include the world placement.
        let mut r = egui::Rect::NOTHING;
        for m in &self.stage.main.pose.model_from_joint {
            let p = m.w_axis.truncate();
            if let Some(px) = crate::render::camera::world_to_pixel(&clip_from_world, p, size) {
                r.extend_with(origin + egui::vec2(px.x, px.y) / pixels_per_point.max(1e-3));
            }
        }
        r.is_positive().then_some(r)
    }

    /// Frames the character in the viewport (F).
    pub fn frame_character(&mut self) {
        self.view.frame_pending = true;
    }

    pub(crate) fn apply_pending_frame(&mut self) {
        if !self.view.frame_pending {
            return;
        }
        self.view.frame_pending = false;
        if self.library_view().is_some() {
            self.frame_library();
            return;
        }
        let mut bounds =
            match crate::render::bounds::pose_bounds(&self.stage.main.model, &self.stage.main.pose)
            {
                Ok(b) if !b.is_empty() => b,
                _ => return,
            };
        // Side by side, B stands beside A: frame both (B's skin when it has its own file).
        if let Some(c) = self
            .stage
            .compare
            .as_ref()
            .filter(|c| c.valid && c.view == crate::stage::inspect::CompareView::SideBySide)
        {
            let b = crate::render::bounds::pose_bounds(&c.b.model, &c.b.pose)
                .ok()
                .filter(|b| !b.is_empty())
                .unwrap_or_else(|| crate::render::bounds::joint_bounds(&c.b.pose));
            if !b.is_empty() {
                bounds = bounds.union(&b);
            }
        }
        let [w, h] = self.view.viewport_size_px;
        self.view
            .camera
            .frame_to_fit(bounds.min, bounds.max, w.max(1) as f32 / h.max(1) as f32);
        self.view.follow_offset = self
            .view
            .toggles
            .follow
            .then(|| self.view.camera.target - self.root_position());
    }

    /// The displayed character's facing about +Y (radians; 0 = the rig's +Z, glTF's
    /// front), with the root motion applied so far.
    pub fn root_yaw_rad(&self) -> f32 {
        let yaw = self.stage.main.world_from_root().yaw_rad;
        yaw as f32
    }

    /// Looks at the character from a preset side (relative to its facing), framed.
    pub fn camera_preset(&mut self, preset: CameraPreset) {
        let facing = self.root_yaw_rad();
        let (yaw, pitch) = match preset {
            CameraPreset::Front => (facing, 0.0),
            CameraPreset::Back => (facing + std::f32::consts::PI, 0.0),
            // The character's right is -X when it faces +Z (glTF: +X is its left).
            CameraPreset::Right => (facing - std::f32::consts::FRAC_PI_2, 0.0),
            CameraPreset::Left => (facing + std::f32::consts::FRAC_PI_2, 0.0),
            CameraPreset::Top => (facing, crate::render::camera::MAX_PITCH_RAD),
            CameraPreset::Follow => (facing + std::f32::consts::PI, 15f32.to_radians()),
        };
        self.view.camera.yaw_rad = yaw.rem_euclid(std::f32::consts::TAU);
        self.view.camera.pitch_rad = pitch;
        if preset == CameraPreset::Follow {
            self.view.toggles.follow = true;
        }
        self.view.frame_pending = true;
    }

    /// Resets the camera to the default three-quarter view, framed.
    pub fn reset_view(&mut self) {
        self.view.camera = OrbitCamera::default();
        self.view.frame_pending = true;
    }
}

/// The windows open over the viewport.
#[derive(Default)]
pub struct Windows {
    /// View > Messages is open.
    pub messages: bool,
    /// Help > Keyboard shortcuts (F1) is open.
    pub shortcuts: bool,
    /// Help > What the figures mean is open.
    pub figures: bool,
    /// The bone-map window is open.
    pub bone_map: bool,
    /// The in-app file browser while it is open (File > Open where no desktop portal
    /// answers, or File > Open with the built-in browser).
    pub file_browser: Option<crate::file_browser::FileBrowser>,
}

/// Onion-skin ghosts of the last evaluation.
#[derive(Default)]
pub struct Ghosts {
    /// Each ghost's pose and opacity (0..1); empty when the onion skin is off.
    pub poses: Vec<(crate::stage::pose::Pose, f32)>,
    /// Each ghost's time from the playhead (seconds; negative = the past), parallel to
    /// `poses`: past and future are tinted differently.
    pub offsets_secs: Vec<f64>,
}

/// What motion matching shows besides the pose.
#[derive(Default)]
pub struct MatchingDisplay {
    /// Tags motion matching puts on clips besides the automatic ones: a library's
    /// sidecar files' (`--library`).
    pub tags: Vec<crate::stage::matching::TagDef>,
    /// Which motion-matching debug overlays the viewport draws.
    pub overlays: super::MatchingOverlays,
}
