//! The library view: every clip of the open character playing at once in a grid
//! ([`crate::stage::library::ClipGrid`]), each labelled; hovering a cell enlarges its
//! character, clicking it opens that clip. File > Open a folder as a library builds the
//! character's clips from a folder first (retargeted onto it when their skeletons differ).

use std::path::Path;

use glam::{Vec2, Vec3};

use super::Previewer;
use crate::render::camera::OrbitCamera;
use crate::stage::library::ClipGrid;

/// The grid while the library view is open.
pub struct LibraryView {
    /// One cell per clip shown: its character's place, pose and label, and the hovered
    /// (enlarged) cell.
    pub grid: ClipGrid,
    /// The model generation the grid was made for (another model closes the view).
    generation: u64,
    /// Seconds of playback since the view opened (each clip loops at its own length).
    pub time_secs: f64,
    /// The grid plays (Space pauses it); `time_secs` stands still while false.
    pub playing: bool,
    /// Only clips whose names contain this (any case) are shown; empty: all.
    pub filter: String,
    /// The camera before the view opened, with its follow offset and whether it was
    /// still to be framed (a view opened at start-up), put back when it closes.
    camera_before: (OrbitCamera, Option<Vec3>, bool),
}

impl Previewer {
    /// The library view while it is open.
    pub fn library_view(&self) -> Option<&LibraryView> {
        self.loads
            .library_view
            .as_ref()
            .filter(|v| v.generation == self.stage.main.generation)
    }

    /// The clips the library view shows, whichever way it opens (View > Library view, G,
    /// `--library-view`, a folder opened as a library): the clips the clip list lists, in
    /// its order, that animate, and whose names contain `filter` (any case).
    pub fn library_clips(&self, filter: &str) -> Vec<usize> {
        Self::clips_for_grid(&self.stage.main.model, filter)
    }

    fn clips_for_grid(model: &crate::asset::Model, filter: &str) -> Vec<usize> {
        let needle = filter.trim().to_lowercase();
        model
            .listed_clips(false)
            .into_iter()
            .filter(|&c| model.clips[c].animates())
            .filter(|&c| model.clips[c].name().to_lowercase().contains(&needle))
            .collect()
    }

    /// Opens the library view on the open character's clips (View > Library view, G), or
    /// says why not in the status bar.
    pub fn open_library_view(&mut self) {
        if self.library_view().is_some() {
            return;
        }
        let clips = self.library_clips("");
        if clips.is_empty() {
            let why = if self.stage.main.model.animated_clips().is_empty() {
                format!("{} has no animations", self.stage.main.model.source)
            } else {
                "every clip that animates is hidden (Clips > Show hidden)".to_string()
            };
            self.set_message(format!("library view: {why}"), true);
            return;
        }
        let grid = match ClipGrid::of_clips(&self.stage.main.model, &clips) {
            Ok(g) => g,
            Err(e) => {
                self.set_message(format!("library view: {e}"), true);
                return;
            }
        };
        let n = grid.len();
        let camera_before = (
            self.view.camera,
            self.view.follow_offset,
            self.view.frame_pending,
        );
        self.loads.library_view = Some(LibraryView {
            grid,
            generation: self.stage.main.generation,
            time_secs: 0.0,
            playing: true,
            filter: String::new(),
            camera_before,
        });
        self.frame_library();
        // Again at the next layout, with the viewport's real shape.
        self.view.frame_pending = true;
        self.evaluate_library();
        self.set_message(
            format!(
                "library view: {n} clips of {} (hover to enlarge, click to open, Space to \
                 pause, Esc to leave)",
                self.stage.main.model.source
            ),
            false,
        );
    }

    /// Leaves the library view, the camera as it was before.
    pub fn close_library_view(&mut self) {
        if let Some(v) = self.loads.library_view.take() {
            (
                self.view.camera,
                self.view.follow_offset,
                self.view.frame_pending,
            ) = v.camera_before;
            self.evaluate_pose();
            // The grid's "Esc to leave" must not outlive the grid.
            if self
                .message()
                .is_some_and(|m| m.text.starts_with("library view:"))
            {
                self.set_message("left the library view (G opens it again)", false);
            }
        }
    }

    /// The clip the clip list should scroll to, once (see [`Self::open_library_cell`]).
    pub fn take_reveal_clip(&mut self) -> Option<usize> {
        self.view.reveal_clip.take()
    }

    /// Builds the clips of `folder` (any format the importer reads) onto the open
    /// character on a worker thread, then opens the library view on them (File > Open a
    /// folder as a library).
    pub fn open_library_folder(&mut self, folder: &Path) {
        self.close_library_view();
        self.start_library_load(
            &[folder.to_path_buf()],
            false,
            false,
            crate::anim::locomotion::InPlaceOverride::Auto,
        );
        // After the start: starting drops any earlier build and its pending view. Its
        // outcome is not the start-up library's (whose other options wait for it).
        if let Some(p) = self.loads.pending.as_mut() {
            p.report_outcome = false;
        }
        self.loads.library_view_pending = self.loads.pending.is_some();
    }

    /// Shows only the clips whose names contain `filter` (any case; empty: all of them),
    /// the grid laid out again and framed.
    pub fn set_library_filter(&mut self, filter: &str) {
        let model = &self.stage.main.model;
        let Some(v) = self.loads.library_view.as_mut() else {
            return;
        };
        if v.filter == filter {
            return;
        }
        let clips = Self::clips_for_grid(model, filter);
        match ClipGrid::of_clips(model, &clips) {
            Ok(grid) => {
                v.grid = grid;
                v.filter = filter.to_string();
            }
            Err(e) => {
                self.set_message(format!("library view: {e}"), true);
                return;
            }
        }
        self.frame_library();
        self.evaluate_library();
    }

    /// Frames the whole grid, looking down on it from the front.
    pub fn frame_library(&mut self) {
        let Some(v) = self.loads.library_view.as_ref() else {
            return;
        };
        let (lo, hi) = v.grid.bounds();
        let [w, h] = self.view.viewport_size_px;
        self.view.camera.yaw_rad = 0.0;
        self.view.camera.pitch_rad = 45f32.to_radians();
        let aspect = w.max(1) as f32 / h.max(1) as f32;
        self.view.camera.frame_to_fit(lo, hi, aspect);
        // The fit is for the bounds' sphere; a flat grid seen from above fills less than
        // that: come closer while every corner stays inside the view (with a margin).
        let corners: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { lo.x } else { hi.x },
                    if i & 2 == 0 { lo.y } else { hi.y },
                    if i & 4 == 0 { lo.z } else { hi.z },
                )
            })
            .collect();
        let inside = |camera: &OrbitCamera| {
            let clip_from_world = camera.clip_from_world(aspect);
            corners.iter().all(|&c| {
                let p = clip_from_world * c.extend(1.0);
                p.w > 0.0 && (p.x / p.w).abs() <= 0.94 && (p.y / p.w).abs() <= 0.94
            })
        };
        for _ in 0..40 {
            let mut closer = self.view.camera;
            closer.distance *= 0.95;
            if !inside(&closer) {
                break;
            }
            self.view.camera = closer;
        }
        self.view.follow_offset = None;
    }

    /// Pauses or resumes the grid (Space in the library view).
    pub fn toggle_library_play(&mut self) {
        if let Some(v) = self.loads.library_view.as_mut() {
            v.playing = !v.playing;
        }
    }

    /// Draws `cell` larger (the hovered one), or none.
    pub fn hover_library_cell(&mut self, cell: Option<usize>) {
        let Some(v) = self.loads.library_view.as_mut() else {
            return;
        };
        if v.grid.enlarged() != cell {
            v.grid.set_enlarged(cell);
            self.evaluate_library();
        }
    }

    /// Opens cell `cell`'s clip: the library view closes and the timeline plays it.
    pub fn open_library_cell(&mut self, cell: usize) {
        let Some(clip) = self.library_view().and_then(|v| v.grid.clip(cell)) else {
            return;
        };
        self.close_library_view();
        self.select_clip(clip);
        // The clip list shows it (a mocap folder's list is longer than its panel).
        self.view.reveal_clip = Some(clip);
        self.view.frame_pending = true;
        self.transport(super::Transport::Play(true));
        let name = self.stage.main.model.clips[clip].name().to_string();
        self.set_message(
            format!("opened clip '{name}' (G: back to the library)"),
            false,
        );
    }

    /// The cell under `px` (viewport pixels, physical; from the top left), if any: the
    /// nearest whose character (its cell's column from the ground to above the head, as
    /// the camera sees it) holds the point.
    pub fn library_cell_at(&self, px: Vec2) -> Option<usize> {
        let v = self.library_view()?;
        let [w, h] = self.view.viewport_size_px;
        let size = Vec2::new(w as f32, h as f32);
        let clip_from_world = self.view.camera.clip_from_world(size.x / size.y.max(1.0));
        let to_px = |p: Vec3| crate::render::camera::world_to_pixel(&clip_from_world, p, size);
        let half = v.grid.spacing_m() * 0.5;
        let mut best: Option<(f32, usize)> = None;
        for cell in 0..v.grid.len() {
            let (Some(foot), Some(head)) = (v.grid.center(cell), v.grid.label_anchor(cell)) else {
                continue;
            };
            let (Some(a), Some(b), Some(side)) = (
                to_px(foot),
                to_px(head),
                to_px(foot + self.camera_right() * half),
            ) else {
                continue;
            };
            // Distance from the segment feet-head on screen, within half a cell's width.
            let radius = (side - a).length();
            let ab = b - a;
            let t = ((px - a).dot(ab) / ab.length_squared().max(1e-6)).clamp(0.0, 1.0);
            let d = (px - (a + ab * t)).length();
            if d <= radius && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, cell));
            }
        }
        best.map(|(_, c)| c)
    }

    /// The camera's right direction (world).
    fn camera_right(&self) -> Vec3 {
        self.view.camera.right_up().0
    }

    /// Advances the grid's playback by `dt_secs` and poses every character.
    pub(super) fn advance_library(&mut self, dt_secs: f64) {
        if let Some(v) = self.loads.library_view.as_mut() {
            if v.playing && dt_secs.is_finite() && dt_secs > 0.0 {
                v.time_secs += dt_secs;
            }
        }
        self.evaluate_library();
    }

    /// Poses every character of the grid at its time (one job per character on rayon's
    /// threads); the first clip that fails is named in the status bar once.
    pub(super) fn evaluate_library(&mut self) {
        let generation = self.stage.main.generation;
        let Some(v) = self
            .loads
            .library_view
            .as_mut()
            .filter(|v| v.generation == generation)
        else {
            self.loads.library_view = None;
            return;
        };
        let had_failure = v.grid.failure().is_some();
        v.grid.evaluate(&self.stage.main.model, v.time_secs);
        if let (false, Some((_, e))) = (had_failure, v.grid.failure()) {
            let text = format!("library view: {e} (that character keeps its last pose)");
            self.set_message(text, true);
        }
    }
}
