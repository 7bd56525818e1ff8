//! Changes to what plays on the stage, as values the UI and the window send: panels and
//! the keyboard never reach into the stage's motion sources themselves (they read them to
//! draw), so every change goes through [`Previewer::send`], which applies it, re-evaluates
//! the pose where the change moves the character, and reports what it refuses in the
//! status bar.

use super::*;
use crate::stage::inspect::{CompareLock, CompareView};
use crate::stage::matching::KeyInput;
use crate::AppError;

/// One change to the stage.
#[derive(Clone, Debug, PartialEq)]
pub enum StageCommand {
    /// A float parameter of the pose graph (clamped by the graph to its range).
    GraphFloat {
        /// The parameter's name, as the graph declares it.
        name: String,
        /// The new value.
        value: f32,
    },
    /// A bool parameter of the pose graph.
    GraphBool {
        /// The parameter's name, as the graph declares it.
        name: String,
        /// The new value.
        value: bool,
    },
    /// Cross-fade the state machine to `state` over `blend_secs` seconds.
    GraphTravel {
        /// The state to go to, by name.
        state: String,
        /// How long the cross-fade takes (seconds).
        blend_secs: f32,
    },
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
    MatchingTags {
        /// Tags every jump target must carry (0: none required).
        require: u32,
        /// Tags no jump target may carry (0: none excluded).
        exclude: u32,
    },
    /// A/B compare: B plays its clip `index`.
    CompareClip(usize),
    /// A/B compare: how B is locked to A and drawn (`offset`: fraction of B's cycle, 0..1).
    CompareLayout {
        /// How B's clock follows A's.
        lock: CompareLock,
        /// B's phase offset with [`CompareLock::Phase`] (fraction of its cycle, clamped to
        /// 0..1).
        offset: f32,
        /// B over A or beside it.
        view: CompareView,
    },
}

impl Previewer {
    /// Applies `command`; one that does not apply to what plays now (a graph command
    /// without a graph) is ignored. A bool parameter or a rate the graph refuses shows
    /// its reason as an error in the status bar; the graph session reports its own
    /// errors (an unknown float parameter or state) in the Blend panel.
    pub fn send(&mut self, command: StageCommand) {
        let model = &self.stage.main.model;
        let mut moved = true;
        let result: Result<(), AppError> = match command {
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
                    .map_err(AppError::from),
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
                    Some(g) => g.graph.set_rate(rate).map_err(AppError::from),
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
            Err(e) => self.set_message(e.report(), true),
        }
    }
}

/// A change to how the previewer shows the stage (nothing on it moves), sent by the
/// panels, menus and the viewport: what is drawn, which windows are open, the curve
/// view's and the outliner's settings, the camera.
#[derive(Clone, Debug, PartialEq)]
pub enum ViewCommand {
    /// Mesh, skeleton, grid, bind pose, trail, camera follow.
    Toggles(ViewToggles),
    /// The curve view of the selected joint.
    ShowCurves(bool),
    /// View > Messages.
    ShowMessages(bool),
    /// Help > Keyboard shortcuts (F1) open or closed.
    ShowShortcuts(bool),
    /// Help > What the figures mean open or closed.
    ShowFigures(bool),
    /// The retarget bone-map window.
    ShowBoneMap(bool),
    /// The outliner's name filter.
    JointFilter(String),
    /// Which curves the curve view draws, and the Euler order of its rotation curves.
    CurveChannels(crate::stage::inspect::CurveChannels),
    /// The Euler order of the curve view's rotation curves.
    EulerOrder(crate::anim::curves::EulerOrder),
    /// Onion-skin ghosts (re-evaluated at once).
    Onion(crate::stage::inspect::OnionSkin),
    /// Which motion-matching debug overlays the viewport draws (the debugger's Overlays).
    MatchingOverlays(MatchingOverlays),
    /// Which Drive debug overlays the viewport draws (Locomotion panel > Overlays).
    LocomotionOverlays(LocomotionOverlays),
    /// The viewport's size in physical pixels (measured by the UI every frame).
    ViewportSize([u32; 2]),
    /// Orbit the camera by (yaw, pitch) radians.
    Orbit(f32, f32),
    /// Pan the camera by a drag of (x, y) physical pixels.
    Pan(f32, f32),
    /// Zoom the camera (distance times `factor`).
    Zoom(f32),
    /// Pin or unpin a joint in the curve view.
    TogglePin(usize),
    /// Open or close a joint's children in the outliner.
    ToggleOutliner(usize),
}

impl Previewer {
    /// Applies `command` (see [`ViewCommand`]).
    pub fn set_view(&mut self, command: ViewCommand) {
        match command {
            ViewCommand::Toggles(t) => {
                if t.follow != self.view.toggles.follow {
                    self.view.follow_offset = None;
                }
                let changed = t != self.view.toggles;
                self.view.toggles = t;
                // The bind pose replaces the frame's pose; the mesh toggle decides
                // whether mesh ghosts are made.
                if changed {
                    self.evaluate_pose();
                }
            }
            ViewCommand::ShowCurves(on) => self.inspect.show_curves = on,
            ViewCommand::ShowMessages(on) => self.view.windows.messages = on,
            ViewCommand::ShowShortcuts(on) => self.view.windows.shortcuts = on,
            ViewCommand::ShowFigures(on) => self.view.windows.figures = on,
            ViewCommand::ShowBoneMap(on) => self.view.windows.bone_map = on,
            ViewCommand::JointFilter(text) => self.inspect.filter = text,
            ViewCommand::CurveChannels(c) => self.inspect.channels = c,
            ViewCommand::EulerOrder(o) => self.inspect.euler_order = o,
            ViewCommand::Onion(o) => {
                if o != self.inspect.onion {
                    self.inspect.onion = o;
                    self.evaluate_pose();
                }
            }
            ViewCommand::MatchingOverlays(o) => self.matching.overlays = o,
            ViewCommand::LocomotionOverlays(o) => self.drive.overlays = o,
            ViewCommand::ViewportSize([w, h]) => self.view.viewport_size_px = [w.max(1), h.max(1)],
            ViewCommand::Orbit(yaw, pitch) => self.view.camera.orbit(yaw, pitch),
            ViewCommand::Pan(x, y) => {
                let height = self.view.viewport_size_px[1] as f32;
                self.view.camera.pan(glam::Vec2::new(x, y), height);
                self.view.follow_offset = None;
                self.evaluate_pose();
            }
            ViewCommand::Zoom(factor) => self.view.camera.zoom(factor),
            ViewCommand::TogglePin(j) => self.inspect.toggle_pin(j),
            ViewCommand::ToggleOutliner(j) => self.inspect.toggle_outliner(j),
        }
    }

    /// Measures clip `clip`'s loop seams when they are not measured yet (once per clip;
    /// `Inspection::seams` reads them).
    pub fn refresh_seams(&mut self, clip: Option<usize>) {
        self.inspect.update_seams(&self.stage.main.model, clip);
    }

    /// Asks the window for something egui cannot do itself (a native dialog, quitting).
    pub fn request(&mut self, action: Action) {
        self.actions.push(action);
    }

    /// Takes the in-app file browser out while the UI draws it; give it back with
    /// [`Self::keep_file_browser`] unless it closed.
    pub fn take_file_browser(&mut self) -> Option<crate::file_browser::FileBrowser> {
        self.view.windows.file_browser.take()
    }

    /// Puts the in-app file browser back (still open), remembering its folder for the
    /// next time one opens.
    pub fn keep_file_browser(&mut self, browser: crate::file_browser::FileBrowser) {
        self.loads.browsed_dir = Some(browser.dir.clone());
        self.view.windows.file_browser = Some(browser);
    }

    /// Closes the in-app file browser taken out with [`Self::take_file_browser`],
    /// remembering its folder for the next time one opens.
    pub fn close_file_browser(&mut self, browser: crate::file_browser::FileBrowser) {
        self.loads.browsed_dir = Some(browser.dir);
    }
}
