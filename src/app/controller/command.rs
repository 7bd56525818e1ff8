//! Changes to what plays on the stage, as values the UI and the window send: panels and
//! the keyboard never reach into the stage's motion sources themselves (they read them to
//! draw), so every change goes through [`Previewer::send`], which applies it, re-evaluates
//! the pose where the change moves the character, and reports what it refuses in the
//! status bar.

use super::*;
use crate::stage::inspect::{CompareLock, CompareView};
use crate::stage::matching::KeyInput;

/// One change to the stage.
#[derive(Clone, Debug, PartialEq)]
pub enum StageCommand {
    /// A float parameter of the pose graph (clamped by the graph to its range).
    GraphFloat { name: String, value: f32 },
    /// A bool parameter of the pose graph.
    GraphBool { name: String, value: bool },
    /// Cross-fade the state machine to `state` over `blend_secs` seconds.
    GraphTravel { state: String, blend_secs: f32 },
    /// Play or pause the pose graph.
    GraphPlaying(bool),
    /// Back to the origin with every graph clock at 0.
    GraphRestart,
    /// The graph's play rate (1 = real time; negative plays backwards; finite).
    GraphRate(f64),
    /// Seek the graph to `secs` on its leading input's clock (a seek: no root motion).
    GraphSeek(f64),
    /// The movement keys held for motion matching this frame.
    MatchingKeys(KeyInput),
    /// Tags a motion-matching jump must land on / avoid (bit i = the database's tag i).
    MatchingTags { require: u32, exclude: u32 },
    /// A/B compare: B plays its clip `index`.
    CompareClip(usize),
    /// A/B compare: how B is locked to A and drawn (`offset`: fraction of B's cycle, 0..1).
    CompareLayout {
        lock: CompareLock,
        offset: f32,
        view: CompareView,
    },
}

impl Previewer {
    /// Applies `command`; one that does not apply to what plays now (a graph command
    /// without a graph) is ignored, one the stage refuses (an unknown parameter) shows
    /// its reason as an error.
    pub fn send(&mut self, command: StageCommand) {
        let model = &self.stage.main.model;
        let mut moved = true;
        let result: Result<(), String> = match command {
            StageCommand::GraphFloat { name, value } => {
                self.stage.main.source.graph_mut().map_or(Ok(()), |g| {
                    g.set_float(model, &name, value);
                    Ok(())
                })
            }
            StageCommand::GraphBool { name, value } => match self.stage.main.source.graph_mut() {
                Some(g) => g
                    .graph
                    .params_mut()
                    .set_bool(&name, value)
                    .map(|()| g.refresh(model))
                    .map_err(|e| e.to_string()),
                None => Ok(()),
            },
            StageCommand::GraphTravel { state, blend_secs } => {
                if let Some(g) = self.stage.main.source.graph_mut() {
                    g.travel(model, &state, blend_secs);
                }
                Ok(())
            }
            StageCommand::GraphPlaying(on) => {
                moved = false;
                if let Some(g) = self.stage.main.source.graph_mut() {
                    g.playing = on;
                }
                Ok(())
            }
            StageCommand::GraphRestart => {
                if let Some(g) = self.stage.main.source.graph_mut() {
                    g.restart(model);
                }
                Ok(())
            }
            StageCommand::GraphRate(rate) => {
                moved = false;
                match self.stage.main.source.graph_mut() {
                    Some(g) => g.graph.set_rate(rate).map_err(|e| e.to_string()),
                    None => Ok(()),
                }
            }
            StageCommand::GraphSeek(secs) => {
                if let Some(g) = self.stage.main.source.graph_mut() {
                    g.seek(model, secs);
                }
                Ok(())
            }
            StageCommand::MatchingKeys(keys) => {
                moved = false;
                if let Some(m) = self.stage.main.source.matching_mut() {
                    m.keys = keys;
                }
                Ok(())
            }
            StageCommand::MatchingTags { require, exclude } => {
                moved = false;
                if let Some(m) = self.stage.main.source.matching_mut() {
                    m.require_tags = require;
                    m.exclude_tags = exclude;
                }
                Ok(())
            }
            StageCommand::CompareClip(index) => {
                if let Some(c) = self.stage.compare.as_mut() {
                    c.set_b_clip(index);
                }
                Ok(())
            }
            StageCommand::CompareLayout { lock, offset, view } => {
                if let Some(c) = self.stage.compare.as_mut() {
                    c.lock = lock;
                    c.offset = offset.clamp(0.0, 1.0);
                    c.view = view;
                }
                Ok(())
            }
        };
        match result {
            Ok(()) if moved => self.evaluate_pose(),
            Ok(()) => {}
            Err(e) => self.set_message(e, true),
        }
    }
}
