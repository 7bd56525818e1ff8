//! The previewer's motion-matching mode (the source is [`MatchingPlay`]; the debugger's
//! view options are the controller's). While it is on, the character is driven by the
//! keyboard (WASD or arrows relative to the camera, Shift runs, Ctrl strafes); pausing
//! freezes the recording, and the timeline then scrubs it (a seek: the recorded frame is
//! replayed exactly, nothing new is simulated).

use crate::asset::Model;
use crate::stage::matching::{MatchingDef, MatchingSession};
use crate::stage::source::{MatchingPlay, MotionSource};
use crate::AppError;

use super::Previewer;
pub use crate::render::MatchingOverlays;
use crate::render::{MatchingDraw, PathPoint};

impl Previewer {
    /// Turns motion matching on (building or loading the database of the open file) or
    /// off. On replaces the pose graph; a set that cannot be built leaves it off with
    /// the reason in the status bar.
    pub fn set_matching_enabled(&mut self, on: bool) {
        if !on {
            if self.stage.main.source.matching().is_some() {
                self.stage.main.source = MotionSource::Clip;
            }
            self.evaluate_pose();
            return;
        }
        if self.stage.main.source.matching().is_some() {
            return;
        }
        let def = MatchingDef {
            tags: self.matching.tags.clone(),
            ..MatchingDef::default()
        };
        match MatchingSession::new(&self.stage.main.model, def, self.stage.main.path.as_deref()) {
            Ok(session) => self.start_matching(session),
            Err(e) => {
                self.set_message(AppError::from(e).report(), true);
                self.evaluate_pose();
            }
        }
    }

    /// Motion matching on `session` (built for the open model) moves the character.
    pub(super) fn start_matching(&mut self, session: MatchingSession) {
        if self.is_driving() {
            self.set_drive(false);
        }
        let note = match &session.cache {
            crate::stage::matching::cache::CacheOutcome::Loaded(_) => {
                "loaded from its cache".to_string()
            }
            crate::stage::matching::cache::CacheOutcome::Written(_) => {
                "built and cached".to_string()
            }
            crate::stage::matching::cache::CacheOutcome::Skipped(why) => {
                format!("built (not cached: {why})")
            }
        };
        self.set_message(
            format!(
                "motion matching: {} clips, {} frames, {} in {:.0} ms; WASD/arrows move, Shift runs, Ctrl strafes",
                session.db.clips().len(),
                session.db.frame_count(),
                note,
                session.load_secs * 1e3
            ),
            false,
        );
        self.stage.main.source = MotionSource::Matching(Box::new(MatchingPlay::new(session)));
        // Motion matching plays no morph channels: the meshes' own weights,
        // set once (a graph or clip shown before may have left others).
        self.stage
            .main
            .pose
            .set_morph_weights(&self.stage.main.model.default_morph_weights());
        // The first frame decides where to start, without moving.
        self.step_matching(1);
        self.view.frame_pending = true;
        self.evaluate_pose();
    }

    /// Opens the demo character with its locomotion set and turns motion matching on.
    pub fn open_matching_demo(&mut self) {
        match crate::asset::load_from_slice(
            &crate::asset::demo::locomotion_set_glb(),
            std::path::Path::new(crate::asset::demo::LOCOMOTION_SET_NAME),
        ) {
            Ok(model) => {
                self.replace_model(model, None);
                self.set_matching_enabled(true);
            }
            Err(e) => self.set_message(e.to_string(), true),
        }
    }

    /// The viewport's motion-matching geometry for the shown frame (`None` when off).
    pub fn matching_draw(&self) -> Option<MatchingDraw> {
        use crate::anim::motion_matching::FeatureGroup;
        use glam::{DVec2, Vec3};
        let m = self.stage.main.source.matching()?;
        let s = &m.session;
        let f = s.current()?;
        let ground = |p: glam::Vec2| Vec3::new(p.x, 0.0, p.y);
        let root = f.world_from_root;
        let root_pos = Vec3::new(root.translation.x as f32, 0.0, root.translation.y as f32);
        let sim = ground(f.sim.position);
        let mut desired = vec![PathPoint {
            position: sim,
            yaw: f.sim.yaw,
        }];
        desired.extend(s.desired_trajectory().iter().map(|p| PathPoint {
            position: ground(p.position),
            yaw: p.yaw,
        }));
        let playing = s.db.nearest_frame(f.source, f.clip_time_secs);
        let mut matched = vec![PathPoint {
            position: root_pos,
            yaw: root.yaw_rad as f32,
        }];
        matched.extend(
            s.matcher()
                .frame_trajectory(&s.db, playing)
                .iter()
                .map(|p| PathPoint {
                    position: ground(p.position),
                    yaw: p.yaw,
                }),
        );
        // Feet of the last search: the query's and the chosen frame's, placed where the
        // character was when it searched.
        let (mut query_feet, mut match_feet) = (Vec::new(), Vec::new());
        if let Some(search) = s.last_search() {
            let at = search.world_from_root;
            let place = |raw: &[f32]| -> Vec<Vec3> {
                let r = s.db.group_range(FeatureGroup::FootPosition);
                raw[r]
                    .chunks_exact(3)
                    .map(|c| {
                        let xz = at.transform_point(DVec2::new(c[0] as f64, c[2] as f64));
                        Vec3::new(xz.x as f32, c[1], xz.y as f32)
                    })
                    .collect()
            };
            if search.query_raw.len() == s.db.dims() {
                query_feet = place(&search.query_raw);
            }
            let chosen = s.db.nearest_frame(search.source, search.clip_time_secs);
            match_feet = place(s.db.raw_features(chosen));
        }
        Some(MatchingDraw {
            desired,
            matched,
            query_feet,
            match_feet,
            sim,
            root: root_pos,
            leg_length: self.stage.main.model.leg_length_or_reference_m(),
        })
    }

    /// Runs `steps` live frames with the held keys.
    fn step_matching(&mut self, steps: usize) {
        let look = self.view.camera.yaw_rad + std::f32::consts::PI;
        let Some(m) = self.stage.main.source.matching_mut() else {
            return;
        };
        if let Err(e) = m.step(&self.stage.main.model, steps, look) {
            self.set_message(AppError::from(e).report(), true);
        }
    }

    /// Shows recorded frame `index` (pauses first): the timeline's scrub.
    pub fn seek_matching(&mut self, index: usize) {
        let Some(m) = self.stage.main.source.matching_mut() else {
            return;
        };
        m.playing = false;
        if let Err(e) = m.session.seek(&self.stage.main.model, index) {
            self.set_message(AppError::from(e).report(), true);
        }
        self.evaluate_pose();
    }

    /// Steps the shown recorded frame by `delta` (←/→ while paused).
    pub fn step_matching_view(&mut self, delta: i64) {
        let Some(m) = self.stage.main.source.matching() else {
            return;
        };
        let n = m.session.frames().len();
        if n == 0 {
            return;
        }
        let current = m.session.viewed().unwrap_or(n - 1) as i64;
        let target = (current + delta).clamp(0, n as i64 - 1) as usize;
        self.seek_matching(target);
    }

    /// Applies new settings (weights, dwell, biases...): the recording starts over from
    /// the shown pose.
    pub fn edit_matching(&mut self, f: impl FnOnce(&mut MatchingDef)) {
        let Some(m) = self.stage.main.source.matching_mut() else {
            return;
        };
        let mut def = m.session.def.clone();
        f(&mut def);
        if def == m.session.def {
            return;
        }
        if let Err(e) = m.session.apply_def(&self.stage.main.model, def) {
            self.set_message(AppError::from(e).report(), true);
        }
        self.evaluate_pose();
    }

    /// Back to standing at the origin with an empty recording.
    pub fn reset_matching(&mut self) {
        let model: &Model = &self.stage.main.model;
        if let Some(m) = self.stage.main.source.matching_mut() {
            if let Err(e) = m.session.reset(model) {
                self.messages.replace_current(super::Message {
                    text: e.to_string(),
                    is_error: true,
                });
            }
            m.playing = true;
        }
        self.step_matching(1);
        self.evaluate_pose();
    }
}
