//! The frame: its first step (playback advanced, loads taken in), what the previewer
//! shows, as the renderer's `Frame` (the GPU upkeep in `gpu.rs` adds the uploads it holds
//! and draws it), and how fast frames come.

use std::time::Instant;

use glam::Vec3;
use winit::event_loop::ActiveEventLoop;

use super::options::apply_start_options;
use crate::controller::StageCommand;

/// Seconds of playback per frame in scripted runs (`--screenshot`, `--export`): the same
/// command gives the same picture on a fast machine and on a loaded one.
pub(super) const SCRIPTED_FRAME_SECS: f64 = 1.0 / 60.0;

use crate::controller::Previewer;
use crate::render::scene::Second;
use crate::render::{Frame, LocomotionDraw};
use crate::stage::pose::Pose;

/// What the previewer shows this frame, without GPU copies (the window adds those it
/// has): the character and its pose, the skeleton, onion-skin ghosts, A/B compare's B
/// with its heat points and paths, the selected joint, the trail (`trail`, world space),
/// and the locomotion and motion-matching overlays.
pub(super) fn scene_frame<'a>(previewer: &'a Previewer, trail: &'a [Vec3]) -> Frame<'a, Pose> {
    let toggles = previewer.view.toggles;
    let model = previewer.model();
    let pose = &previewer.stage.main.pose;
    let mut frame = Frame::new(previewer.view.camera, model, pose);
    frame.skeleton = toggles.skeleton;
    frame.selected_joint = previewer.inspect.selected;
    let style = previewer.inspect.onion.style;
    frame.ghost_skeletons = style.skeletons();
    frame.ghost_meshes = style.meshes() && toggles.mesh;
    frame.ghosts = &previewer.view.ghosts.poses;
    frame.ghost_offsets_secs = &previewer.view.ghosts.offsets_secs;
    if let Some(c) = previewer.stage.compare.as_ref().filter(|c| c.valid) {
        let full = crate::stage::inspect::HEAT_FULL_M * c.unit_scale;
        let skin_joint =
            |j: usize| model.skins.is_empty() || model.skins.iter().any(|s| s.joints.contains(&j));
        let heat = c
            .difference
            .per_joint_m
            .iter()
            .enumerate()
            .filter(|&(j, _)| c.joint_map[j].is_some() && skin_joint(j))
            .filter_map(|(j, d)| {
                let m = pose.model_from_joint.get(j)?;
                Some((
                    m.w_axis.truncate(),
                    crate::stage::inspect::heat_color(*d, full),
                ))
            })
            .collect();
        frame.second = Some(Second {
            model: &c.b.model,
            pose: &c.b.pose,
            gpu: None,
            tinted: c.retarget_pairs.is_some(),
            heat,
            paths: [&c.a_path, &c.b_path],
        });
    }
    if toggles.trail {
        frame.trail = Some((trail, previewer.root_position()));
    }
    if let Some(l) = previewer.graph().and_then(|g| g.locomotion.as_ref()) {
        frame.locomotion = Some((
            LocomotionDraw {
                warp: &l.warp,
                world_from_model: l.model_from_root(),
                leg_length: previewer.model().leg_length_or_reference_m(),
                body_yaw_rad: l.orientation.body_yaw_rad,
                movement_yaw_rad: l.orientation.angle_rad,
                travel: l.travel(),
            },
            previewer.drive.overlays,
        ));
    }
    if let Some(d) = previewer.matching_draw() {
        frame.matching = Some((d, previewer.matching.overlays));
    }
    frame
}

/// Frames per second over the last half second, and the CPU time of the last frame.
#[derive(Default)]
pub(super) struct FpsCounter {
    window_start: Option<Instant>,
    frames: u32,
    pub(super) fps: f32,
    /// Time spent building and submitting the previous frame (ms).
    pub(super) frame_ms: f32,
}

impl FpsCounter {
    /// The window slept (nothing animating): the next frames start a new window, so the
    /// sleep is not counted as one slow frame.
    pub(super) fn idle(&mut self) {
        self.window_start = None;
        self.frames = 0;
    }

    /// Counts a frame drawn at `now`.
    pub(super) fn frame(&mut self, now: Instant) {
        let start = *self.window_start.get_or_insert(now);
        self.frames += 1;
        let elapsed = now.duration_since(start).as_secs_f32();
        if elapsed >= 0.5 {
            self.fps = self.frames as f32 / elapsed;
            self.frames = 0;
            self.window_start = Some(now);
        }
    }
}

impl super::App {
    /// The first step of a frame: playback advanced by the time since the last frame (a
    /// fixed 1/60 s in scripted runs), background loads taken in, the frame counted.
    /// Returns whether the run is scripted (`--screenshot`, `--export`), or `None` when a
    /// scripted run stopped because the library it needed failed.
    pub(super) fn advance_playback(
        &mut self,
        event_loop: &ActiveEventLoop,
        now: Instant,
    ) -> Option<bool> {
        // Advance playback by real time; paused frames do not accumulate time. Scripted
        // runs (--screenshot, --export) step a fixed 1/60 s per frame instead, so the
        // same command gives the same picture on a fast machine and on a loaded one.
        let scripted = self.options.screenshot.is_some() || self.options.export.is_some();
        let dt = match (self.previewer.is_animating(), self.last_tick) {
            (true, Some(_)) if scripted => SCRIPTED_FRAME_SECS,
            (true, Some(last)) => now.duration_since(last).as_secs_f64(),
            _ => 0.0,
        };
        if self.last_tick.is_none() {
            // The window slept since the last frame (or this is the first).
            self.fps.idle();
        }
        self.last_tick = self.previewer.is_animating().then_some(now);
        if let (true, Some(keys)) = (scripted, self.options.hold_keys) {
            self.previewer.send(StageCommand::MatchingKeys(keys));
        }
        self.previewer.poll_pending_load();
        match self.previewer.take_library_outcome() {
            // The library is on the character: the options that choose what plays apply
            // to it now.
            Some(Ok(())) => apply_start_options(&mut self.previewer, &self.options),
            // A scripted run needed the library: stop with its reason.
            Some(Err(e)) if scripted => {
                let what = if self.options.motion_matching {
                    "motion-matching library"
                } else {
                    "library"
                };
                self.fatal = Some(e.context(what));
                self.exit(event_loop);
                return None;
            }
            _ => {}
        }
        if dt > 0.0 {
            self.previewer.advance(dt);
        }
        self.fps.frame(now);
        self.previewer.view.stats.fps = self.fps.fps;
        self.previewer.view.stats.frame_ms = self.fps.frame_ms;
        Some(scripted)
    }
}
