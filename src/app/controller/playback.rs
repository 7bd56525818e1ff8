//! What plays: the timeline's clip, the pose graph (a blend, the file's graph), Drive
//! (locomotion) or motion matching; switching between them and advancing them.

use super::*;

/// What the transport asks of the open character's clip timeline: the timeline bar, its
/// keys, the scrub bars and scripted window runs send these instead of changing the
/// timeline themselves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Transport {
    /// Start (`true`) or stop playback; starting a non-looping clip that rests at its end
    /// first rewinds it.
    Play(bool),
    /// Play or pause (the Play / Pause button).
    TogglePlay,
    /// Scrub to unwrapped clip seconds (a seek: the character does not move).
    Seek(f64),
    /// Step frames at the frame rate (negative: back).
    Step(i64),
    /// Jump to the start of the current cycle (Home; a seek).
    ToStart,
    /// Jump to the last frame of the current cycle (End; a seek).
    ToEnd,
    /// Back to the clip's start and the character to the origin.
    Restart,
    /// The play rate (1 = real time, negative plays in reverse); a rate that is not finite
    /// is refused and reported.
    Rate(f64),
    /// Loop or not (L); turning it off brings the playhead back into the first cycle.
    Looping(bool),
    /// Turn round at the ends of the in/out range (else of the clip) instead of looping
    /// (P).
    PingPong(bool),
    /// The in/out range (clip seconds within the cycle); `None` plays the whole clip.
    Range(Option<(f64, f64)>),
    /// Set the in point of the range at the playhead (I).
    InAtPlayhead,
    /// Set the out point of the range at the playhead (O).
    OutAtPlayhead,
    /// How root motion places the character (1 in place, 2 accumulate, 3 loop and reset);
    /// a change keeps the clock and puts the character back at the origin.
    Mode(RootMotionMode),
    /// The frame rate steps and the readout count in (Hz).
    FrameRate(f64),
}

impl Previewer {
    /// Applies a transport command to the clip timeline (the caller re-evaluates the
    /// pose when it shows the result at once).
    pub fn transport(&mut self, command: Transport) {
        let t = &mut self.stage.main.timeline;
        match command {
            Transport::Play(on) => t.set_playing(on),
            Transport::TogglePlay => t.toggle_play(),
            Transport::Seek(secs) => t.seek_secs(secs),
            Transport::Step(frames) => t.step_frames(frames),
            Transport::ToStart => t.jump_to_start(),
            Transport::ToEnd => t.jump_to_end(),
            Transport::Restart => t.restart(),
            Transport::Rate(rate) => t.set_rate(rate),
            Transport::Looping(on) => t.set_looping(on),
            Transport::PingPong(on) => t.set_ping_pong(on),
            Transport::Range(range) => t.set_range(range),
            Transport::InAtPlayhead => t.set_in_at_playhead(),
            Transport::OutAtPlayhead => t.set_out_at_playhead(),
            Transport::Mode(mode) => t.set_mode(mode),
            Transport::FrameRate(hz) => t.set_frame_rate_hz(hz),
        }
    }

    /// What hides the timeline's clip from the views that follow it (curve view, onion
    /// skin, A/B compare), as the step that brings it back: motion matching, Drive, or
    /// the pose graph the user turned on; `None` while the timeline's clip plays.
    pub fn timeline_hidden_by(&self) -> Option<&'static str> {
        if self.stage.main.source.matching().is_some() {
            Some("turn motion matching off (M)")
        } else if self.is_driving() && self.stage.main.source.is_drive_only() {
            Some("turn Drive off (D)")
        } else if self.is_driving() {
            Some("turn Drive (D) and the pose graph off")
        } else if self.stage.main.source.graph().is_some() {
            Some("turn the pose graph off")
        } else {
            None
        }
    }

    /// How much each clip of the model shows now (0..1, one entry per clip), for the
    /// clip list: the timeline's clip; in pose-graph mode every input by its weight (a
    /// layer at its weight too); in motion matching the clip the matcher plays.
    pub fn clip_weights(&self) -> Vec<f32> {
        self.stage.main.clip_weights()
    }

    /// Switches to clip `index` (a seek: the character does not move).
    pub fn select_clip(&mut self, index: usize) {
        // Picking a clip in the list plays that clip alone (driven, while driving).
        let driving = self.is_driving();
        self.stage.main.source = MotionSource::Clip;
        self.stage
            .main
            .timeline
            .select_clip(&self.stage.main.model, index);
        if driving {
            self.set_drive(true);
        }
        self.evaluate_pose();
    }

    /// The same in-place choice for every clip of the model (the window's `--in-place` /
    /// `--root-motion`); the selected clip restarts with it: an in-place clip's root stays
    /// in the pose (it neither moves nor turns the character) and its feet give the speed.
    /// The pose graph and motion matching take it when next started.
    pub fn set_in_place_override_all(&mut self, choice: crate::anim::locomotion::InPlaceOverride) {
        self.stage.main.model.set_in_place_override_all(choice);
        self.sync_compare_in_place(None, choice);
        if let Some(clip) = self.stage.main.timeline.clip() {
            self.select_clip(clip);
            self.evaluate_pose();
        }
    }

    /// Sets the user's in-place choice for the timeline's clip only (Locomotion panel) and
    /// replays the clip with it at the same phase; while the pose graph or motion matching
    /// plays, it applies when they restart (the status bar says so).
    pub fn set_in_place_override(&mut self, choice: crate::anim::locomotion::InPlaceOverride) {
        let Some(clip) = self.stage.main.timeline.clip() else {
            return;
        };
        if self.stage.main.model.in_place_override(clip) == choice {
            return;
        }
        self.stage.main.model.set_in_place_override(clip, choice);
        self.sync_compare_in_place(Some(clip), choice);
        let name = self.stage.main.model.clips[clip].name().to_string();
        let graph_mode = (self.stage.main.source.graph().is_some()
            && !self.stage.main.source.is_drive_only())
            || self.stage.main.source.matching().is_some();
        if graph_mode {
            self.set_message(
                format!(
                    "'{name}': {} (applies when the graph or motion matching restarts)",
                    choice.as_str()
                ),
                false,
            );
            return;
        }
        let time = self.stage.main.timeline.clock().time().phase_secs;
        self.select_clip(clip);
        self.stage.main.timeline.seek_secs(time);
        self.evaluate_pose();
        let reason = self
            .stage
            .main
            .model
            .clip_analysis(clip)
            .map(|a| a.in_place.reason.clone())
            .unwrap_or_else(|e| e.to_string());
        self.set_message(format!("'{name}': {reason}"), false);
    }

    /// A/B compare's B on a copy of A's model takes A's in-place choice too (`clip`:
    /// one clip, `None`: every clip), and replays its clip with it: the same clip
    /// overlaid must lose the same root motion on both sides.
    fn sync_compare_in_place(
        &mut self,
        clip: Option<usize>,
        choice: crate::anim::locomotion::InPlaceOverride,
    ) {
        let Some(c) = self.stage.compare.as_mut().filter(|c| c.b_is_a) else {
            return;
        };
        match clip {
            Some(i) => c.b.model.set_in_place_override(i, choice),
            None => c.b.model.set_in_place_override_all(choice),
        }
        let b_clip = c.b_clip();
        c.b.timeline.select_clip(&c.b.model, b_clip);
    }

    /// True while the locomotion stage drives the character (movement speed and
    /// direction, speed matching, stride warping, foot IK).
    pub fn is_driving(&self) -> bool {
        self.stage.main.source.is_driving()
    }

    /// Turns "drive" on or off (D). On a single clip it plays that clip through a one-clip
    /// pose graph from the timeline's time; in graph mode it drives the graph (a blend
    /// space, the state machine). A rig without legs stays undriven with the reason in
    /// the status bar.
    pub fn set_drive(&mut self, on: bool) {
        if on && self.stage.main.source.matching().is_some() {
            self.stage.main.source = MotionSource::Clip;
        }
        if !on {
            if let Some(g) = self.stage.main.source.graph_mut() {
                let _ = g.set_drive(&self.stage.main.model, false, self.drive.settings);
            }
            if self.stage.main.source.is_drive_only() {
                self.stage.main.source = MotionSource::Clip;
            }
            self.evaluate_pose();
            return;
        }
        if self.is_driving() {
            return;
        }
        if self.stage.main.source.graph().is_none() {
            let Some(clip) = self.stage.main.timeline.clip() else {
                self.set_message("drive: the file has no clip to drive", true);
                return;
            };
            let def = GraphDef {
                params: Vec::new(),
                base: NodeDef::Clip {
                    clip: self.stage.main.model.clips[clip].name().to_string(),
                    rate: 1.0,
                },
                layers: Vec::new(),
            };
            match GraphSession::new(&self.stage.main.model, &def) {
                Ok(mut g) => {
                    g.playing = self.stage.main.timeline.is_playing();
                    let t = self.stage.main.timeline.clock().time();
                    g.seek(
                        &self.stage.main.model,
                        t.to_secs(self.stage.main.model.clips[clip].duration_secs() as f64),
                    );
                    self.stage.main.source = MotionSource::Graph {
                        session: Box::new(g),
                        drive_only: true,
                    };
                }
                Err(e) => {
                    self.set_message(format!("drive: {e}"), true);
                    return;
                }
            }
        }
        let settings = self.drive.settings;
        if let Some(g) = self.stage.main.source.graph_mut() {
            if let Err(e) = g.set_drive(&self.stage.main.model, true, settings) {
                if self.stage.main.source.is_drive_only() {
                    self.stage.main.source = MotionSource::Clip;
                }
                self.set_message(format!("drive: {e}"), true);
            }
        }
        if !self.drive.speed_chosen {
            let model = &self.stage.main.model;
            let natural = self
                .stage
                .main
                .source
                .graph_mut()
                .and_then(|g| g.drive_at_natural_speed(model));
            if let Some(v) = natural {
                self.drive.settings.movement_speed = v;
            }
        }
        self.evaluate_pose();
    }

    /// Chooses the legs everything uses (`None`: detected) on the model, and re-drives
    /// with them. A choice the skeleton or the drive refuses keeps the previous legs, with
    /// the reason in the status bar.
    pub fn set_leg_override(&mut self, legs: Option<Vec<crate::anim::contacts::LegChain>>) {
        let previous = self.stage.main.model.leg_override().map(<[_]>::to_vec);
        if let Err(e) = self.stage.main.model.set_leg_override(legs) {
            self.set_message(format!("legs: {e}"), true);
            return;
        }
        let settings = self.drive.settings;
        let model = &mut self.stage.main.model;
        if let Some(g) = self.stage.main.source.graph_mut() {
            if g.locomotion.is_some() {
                if let Err(e) = g.set_drive(model, true, settings) {
                    let _ = model.set_leg_override(previous);
                    let _ = g.set_drive(model, true, settings);
                    self.set_message(format!("legs: {e}"), true);
                }
            }
        }
        self.evaluate_pose();
    }

    /// Edits the pose graph's definition (Blend panel), undoably; a refused edit keeps the
    /// graph and shows why.
    pub fn edit_graph(&mut self, f: impl FnOnce(&mut crate::graph::GraphDef)) {
        if let Some(g) = self.stage.main.source.graph_mut() {
            self.clip_editing.last_edit = Some(super::EditKind::Graph);
            if let Err(e) = g.edit(&self.stage.main.model, f) {
                self.set_message(format!("graph edit: {e}"), true);
            }
        }
        self.evaluate_pose();
    }

    /// Undoes the pose graph's last edit (the Blend panel's Undo).
    pub fn undo_graph_edit(&mut self) {
        if !self.step_graph_history(true) {
            self.set_message("nothing to undo", false);
        }
    }

    /// Redoes the pose graph's last undone edit (the Blend panel's Redo).
    pub fn redo_graph_edit(&mut self) {
        if !self.step_graph_history(false) {
            self.set_message("nothing to redo", false);
        }
    }

    fn step_graph_history(&mut self, undo: bool) -> bool {
        let model = &self.stage.main.model;
        let done = self.stage.main.source.graph_mut().is_some_and(|g| {
            if undo {
                g.undo(model)
            } else {
                g.redo(model)
            }
        });
        self.evaluate_pose();
        done
    }

    /// Ctrl+Z: undoes the last edit, a clip edit or a pose-graph edit, whichever was made
    /// last (then the other kind).
    pub fn undo_edit(&mut self) {
        if !self.step_any_history(true) {
            self.set_message("nothing to undo", false);
        }
    }

    /// Ctrl+Shift+Z: redoes what Ctrl+Z undid.
    pub fn redo_edit(&mut self) {
        if !self.step_any_history(false) {
            self.set_message("nothing to redo", false);
        }
    }

    fn step_any_history(&mut self, undo: bool) -> bool {
        let clips_first = self.clip_editing.last_edit == Some(super::EditKind::Clips);
        for clips in [clips_first, !clips_first] {
            let done = if clips {
                self.step_clip_history(undo)
            } else {
                self.step_graph_history(undo)
            };
            if done {
                return true;
            }
        }
        false
    }

    /// Applies changed locomotion settings (the panel's controls).
    pub fn set_locomotion_settings(&mut self, settings: LocomotionSettings) {
        if settings.movement_speed != self.drive.settings.movement_speed {
            self.drive.speed_chosen = true;
        }
        self.drive.settings = settings;
        if let Some(g) = self.stage.main.source.graph_mut() {
            g.set_locomotion_settings(&self.stage.main.model, settings);
        }
        self.evaluate_pose();
    }

    /// Advances playback by `dt_secs` of wall time and re-evaluates the pose.
    pub fn advance(&mut self, dt_secs: f64) {
        if self.library_view().is_some() {
            // The library view covers the character: it waits where it was.
            self.advance_library(dt_secs);
            return;
        }
        // Motion matching's keys are relative to where the camera looks (the orbit
        // camera's yaw is where it sits; it looks the opposite way).
        let look = self.view.camera.yaw_rad + std::f32::consts::PI;
        let result = self.stage.main.advance(dt_secs, look);
        match result {
            // The timeline shows its own errors in the status bar.
            Err(_) if matches!(self.stage.main.source, MotionSource::Clip) => {}
            Err(e) => self.set_message(AppError::from(e).report(), true),
            Ok(_) => {}
        }
        self.evaluate_pose();
        if self.stage.main.source.matching().is_none() {
            self.note_phase_warning();
        }
    }

    /// Plays clips `a` and `b` blended through a one-dimensional blend space on the
    /// parameter `weight` (0 = all `a`, 1 = all `b`, held at `weight` until changed),
    /// synced on their foot markers: the two-clip blend slider of the Blend panel.
    pub fn blend_two_clips(&mut self, a: usize, b: usize, weight: f32) {
        use crate::graph::def::{Sample1DDef, SyncMode};
        let (Some(ca), Some(cb)) = (
            self.stage.main.model.clips.get(a),
            self.stage.main.model.clips.get(b),
        ) else {
            return;
        };
        let def = GraphDef {
            params: vec![crate::graph::def::ParamDef::Float {
                name: TWO_CLIP_WEIGHT.to_string(),
                default: weight.clamp(0.0, 1.0),
                min: Some(0.0),
                max: Some(1.0),
            }],
            base: NodeDef::BlendSpace1D {
                param: TWO_CLIP_WEIGHT.to_string(),
                samples: vec![
                    Sample1DDef {
                        clip: ca.name().to_string(),
                        position: Some(0.0),
                    },
                    Sample1DDef {
                        clip: cb.name().to_string(),
                        position: Some(1.0),
                    },
                ],
                sync: SyncMode::Markers,
            },
            layers: Vec::new(),
        };
        let message = format!(
            "blending {} and {} (weight slider in the Blend panel)",
            ca.name(),
            cb.name()
        );
        self.start_graph(&def, message, "blend");
    }

    /// Plays clip `base` with clip `layer` on top as an additive layer whose difference is
    /// taken from `layer`'s own frame `reference_frame` (at its frame rate, else 30 Hz;
    /// past the end: its end): "make additive relative to frame N" for any clip. The
    /// layer's strength, reference, hold and mask are then edited in the Blend panel's
    /// Edit section, with undo.
    pub fn layer_additive(&mut self, base: usize, layer: usize, reference_frame: u32) {
        use crate::graph::def::{LayerDef, LayerMode, ReferenceDef, Weight};
        let (Some(cb), Some(cl)) = (
            self.stage.main.model.clips.get(base),
            self.stage.main.model.clips.get(layer),
        ) else {
            return;
        };
        let fps = cl.frame_rate_hz().unwrap_or(30.0);
        let time_secs = ((f64::from(reference_frame) / fps) as f32).min(cl.duration_secs());
        let def = GraphDef {
            params: Vec::new(),
            base: NodeDef::Clip {
                clip: cb.name().to_string(),
                rate: 1.0,
            },
            layers: vec![LayerDef {
                name: "additive".to_string(),
                clip: cl.name().to_string(),
                mode: LayerMode::Additive,
                weight: Weight::Fixed(1.0),
                mask: None,
                reference: ReferenceDef::ClipFrame {
                    clip: cl.name().to_string(),
                    time_secs,
                },
                hold: None,
            }],
        };
        let message = format!(
            "{} added to {} relative to its frame {reference_frame} ({time_secs:.3} s): strength, \
             reference and hold under Edit graph",
            cl.name(),
            cb.name()
        );
        self.start_graph(&def, message, "additive layer");
    }

    /// Plays `def` instead of what plays now (same play state), saying `message`; a graph
    /// that cannot be built leaves playback as it is, with the reason (`what: error`).
    fn start_graph(&mut self, def: &GraphDef, message: String, what: &str) {
        match GraphSession::new(&self.stage.main.model, def) {
            Ok(mut g) => {
                g.playing = self.stage.main.timeline.is_playing();
                self.stage.main.source = MotionSource::Graph {
                    session: Box::new(g),
                    drive_only: false,
                };
                // The new session's clock starts at 0: an old warning's time means nothing.
                self.messages.forget_phase_warning();
                self.set_message(message, false);
            }
            Err(e) => self.set_message(format!("{what}: {e}"), true),
        }
        self.evaluate_pose();
    }

    /// Switches between the pose graph (the file's default graph) and single-clip
    /// playback. A graph that cannot be built leaves single-clip playback on, with the
    /// reason in the status bar.
    pub fn set_graph_enabled(&mut self, on: bool) {
        if on && self.stage.main.source.matching().is_some() {
            self.stage.main.source = MotionSource::Clip;
        }
        let driving = self.is_driving();
        if self.stage.main.source.is_drive_only() {
            // The one-clip drive graph gives way to the file's graph (and back).
            self.stage.main.source = MotionSource::Clip;
        }
        if !on {
            if self.stage.main.source.graph().is_some() {
                self.stage.main.source = MotionSource::Clip;
            }
            if driving {
                self.set_drive(true);
            }
        } else if self.stage.main.source.graph().is_none() {
            match GraphSession::default_for(&self.stage.main.model) {
                Ok(mut g) => {
                    g.playing = self.stage.main.timeline.is_playing();
                    self.stage.main.source = MotionSource::Graph {
                        session: Box::new(g),
                        drive_only: false,
                    };
                    if driving {
                        self.set_drive(true);
                    }
                }
                Err(e) => self.set_message(format!("pose graph: {e}"), true),
            }
        }
        self.evaluate_pose();
    }

    /// Plays `session` (a graph built for this model) in place of what played.
    pub fn play_graph(&mut self, session: GraphSession) {
        self.stage.main.source = MotionSource::Graph {
            session: Box::new(session),
            drive_only: false,
        };
        self.messages.forget_phase_warning();
        self.evaluate_pose();
    }

    /// Play / pause whatever plays (Space).
    pub fn toggle_play(&mut self) {
        self.stage.main.toggle_play();
        if self.is_playing() {
            // Hand-set morph weights are a paused-preview tweak; playback shows the clip.
            self.inspect.morph_overrides.clear();
        }
    }

    /// Whether what moves the character plays.
    pub fn is_playing(&self) -> bool {
        self.stage.main.is_playing()
    }

    /// Ground positions of the root trail, oldest first.
    pub fn trail(&self) -> Box<dyn Iterator<Item = glam::DVec2> + '_> {
        self.stage.main.trail()
    }
}
