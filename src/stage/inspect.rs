//! Clip-inspection state of the previewer (no egui): the selected and pinned joints of the
//! outliner and curve view, the curve view's channels, the onion-skin settings, and the
//! loop-seam table of the current clip. The UI draws it (src/app/ui/inspect.rs), the window
//! draws the ghosts and the selected bone (src/app/lib.rs).

use glam::{Mat4, Vec3};

use crate::anim::curves::{EulerOrder, JointCurves};
use crate::anim::seam::{ChannelSeam, LoopSeamJob};
use crate::anim::Skeleton;
use crate::asset::Model;
use crate::character::Character;
use crate::timeline::RootMotionMode;
use crate::StageError;

/// Which curves the curve view draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CurveChannels {
    /// Local translation x, y, z (parent space, model units).
    pub translation: bool,
    /// Rotation as continuous Euler angles (degrees).
    pub euler: bool,
    /// Rotation as a quaternion x, y, z, w (sign-continuous).
    pub quaternion: bool,
    /// Local scale x, y, z.
    pub scale: bool,
}

impl Default for CurveChannels {
    fn default() -> Self {
        Self {
            translation: true,
            euler: true,
            quaternion: false,
            scale: false,
        }
    }
}

/// Onion skin: ghosts of the pose before and after the playhead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OnionSkin {
    /// Whether ghosts are drawn.
    pub enabled: bool,
    /// Ghosts before and after the playhead (0..=8 each).
    pub before: u32,
    /// Ghosts after the playhead (0..=8).
    pub after: u32,
    /// Frames (at the clip's frame rate) between two ghosts, >= 1.
    pub spacing_frames: u32,
    /// Opacity of the nearest ghost (0..1); farther ones fade out linearly.
    pub opacity: f32,
    /// Ghosts at the clip's sync markers instead of around the playhead.
    pub at_markers: bool,
    /// How ghosts are drawn.
    pub style: GhostStyle,
}

/// How onion-skin ghosts are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GhostStyle {
    /// Tinted skeletons (bones and joints).
    #[default]
    Skeletons,
    /// Tinted, translucent meshes.
    Meshes,
    /// Both.
    Both,
}

impl GhostStyle {
    /// Every style, in the order the panel lists them.
    pub const ALL: [GhostStyle; 3] = [GhostStyle::Skeletons, GhostStyle::Meshes, GhostStyle::Both];

    /// The style's name as the panel shows it.
    pub fn label(self) -> &'static str {
        match self {
            GhostStyle::Skeletons => "skeletons",
            GhostStyle::Meshes => "meshes",
            GhostStyle::Both => "both",
        }
    }

    /// Whether the style draws skeletons.
    pub fn skeletons(self) -> bool {
        self != GhostStyle::Meshes
    }

    /// Whether the style draws meshes.
    pub fn meshes(self) -> bool {
        self != GhostStyle::Skeletons
    }
}

impl Default for OnionSkin {
    fn default() -> Self {
        Self {
            enabled: false,
            before: 2,
            after: 2,
            spacing_frames: 4,
            opacity: 0.6,
            at_markers: false,
            style: GhostStyle::Skeletons,
        }
    }
}

/// Most ghosts on either side.
pub const MAX_GHOSTS: u32 = 8;

impl OnionSkin {
    /// Clip-time offsets (seconds, relative to the playhead) of the ghosts with their
    /// opacity, nearest first on each side; `frame_rate_hz` turns frames into seconds.
    pub fn offsets(&self, frame_rate_hz: f64) -> Vec<(f64, f32)> {
        let step = f64::from(self.spacing_frames.max(1)) / frame_rate_hz.max(1.0);
        let mut out = Vec::new();
        for (count, sign) in [(self.before, -1.0), (self.after, 1.0)] {
            let count = count.min(MAX_GHOSTS);
            for k in 1..=count {
                let fade = 1.0 - (k - 1) as f32 / count as f32;
                out.push((
                    sign * step * f64::from(k),
                    self.opacity.clamp(0.0, 1.0) * fade,
                ));
            }
        }
        out
    }
}

/// The outliner's, curve view's and Morphs panel's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inspection {
    /// Selected joint (outliner row, viewport click, seam table row).
    pub selected: Option<usize>,
    /// Joints whose curves stay in the curve view next to the selected one.
    pub pinned: Vec<usize>,
    /// The outliner's search text.
    pub filter: String,
    /// Whether the curve view is shown.
    pub show_curves: bool,
    /// Which curves the curve view draws.
    pub channels: CurveChannels,
    /// The order the curve view reads Euler angles in.
    pub euler_order: EulerOrder,
    /// The onion-skin settings.
    pub onion: OnionSkin,
    /// The Morphs panel's weights set by hand.
    pub morph_overrides: crate::morph_overrides::MorphOverrides,
    /// Loop seams of `seams_for` (clip index), most visible first.
    seams: Vec<ChannelSeam>,
    seams_for: Option<usize>,
    /// Sampled curves of `(clip, joint, order)`, kept while the joint stays in the view.
    curves: Vec<((usize, usize, EulerOrder), JointCurves)>,
    /// Outliner rows the user opened or closed against the default (rows above
    /// [`OUTLINER_OPEN_DEPTH`] start open).
    outliner_toggled: Vec<usize>,
}

/// Outliner rows shallower than this start expanded.
pub const OUTLINER_OPEN_DEPTH: usize = 4;

impl Inspection {
    /// Nothing selected or pinned, the curve view shown with its default channels.
    pub fn new() -> Self {
        Self {
            show_curves: true,
            ..Self::default()
        }
    }

    /// Selects `joint` (or clears the selection).
    pub fn select(&mut self, joint: Option<usize>) {
        self.selected = joint;
    }

    /// Pins or unpins `joint` in the curve view.
    pub fn toggle_pin(&mut self, joint: usize) {
        match self.pinned.iter().position(|&j| j == joint) {
            Some(i) => {
                self.pinned.remove(i);
            }
            None => self.pinned.push(joint),
        }
    }

    /// Whether the outliner shows `joint`'s children.
    pub fn outliner_open(&self, skeleton: &Skeleton, joint: usize) -> bool {
        (skeleton.depth(joint) < OUTLINER_OPEN_DEPTH) != self.outliner_toggled.contains(&joint)
    }

    /// Opens or closes `joint`'s row in the outliner.
    pub fn toggle_outliner(&mut self, joint: usize) {
        match self.outliner_toggled.iter().position(|&j| j == joint) {
            Some(i) => {
                self.outliner_toggled.remove(i);
            }
            None => self.outliner_toggled.push(joint),
        }
    }

    /// Whether `joint`'s row shows in the outliner's tree (every ancestor open).
    pub fn outliner_shows(&self, skeleton: &Skeleton, joint: usize) -> bool {
        let mut parent = skeleton.parents().get(joint).copied().flatten();
        while let Some(q) = parent {
            if !self.outliner_open(skeleton, q) {
                return false;
            }
            parent = skeleton.parents()[q];
        }
        true
    }

    /// Opens every ancestor of `joint`, so a joint picked in the viewport or the seam
    /// table shows in the outliner.
    pub fn reveal_in_outliner(&mut self, skeleton: &Skeleton, joint: usize) {
        let mut parent = skeleton.parents().get(joint).copied().flatten();
        while let Some(q) = parent {
            if !self.outliner_open(skeleton, q) {
                self.toggle_outliner(q);
            }
            parent = skeleton.parents()[q];
        }
    }

    /// A new model: joint and mesh indices mean other joints and meshes now.
    pub fn reset_for_model(&mut self) {
        self.selected = None;
        self.morph_overrides.clear();
        self.pinned.clear();
        self.outliner_toggled.clear();
        self.forget_measurements();
    }

    /// The file changed (a reload): the seams and thresholds are measured again.
    pub fn forget_measurements(&mut self) {
        self.seams.clear();
        self.seams_for = None;
        self.curves.clear();
    }

    /// The curves of `joints` in clip `clip` in the current Euler order, sampled once and
    /// kept while they stay in the view (not every frame); `(joint, curves)` pairs.
    pub fn curves(
        &mut self,
        model: &Model,
        clip: usize,
        joints: &[usize],
        samples: usize,
    ) -> Vec<(usize, &JointCurves)> {
        let order = self.euler_order;
        self.curves
            .retain(|((c, j, o), _)| *c == clip && *o == order && joints.contains(j));
        for &j in joints {
            if self.curves.iter().any(|((_, k, _), _)| *k == j) {
                continue;
            }
            let (Some(c), Some(rest)) = (model.clips.get(clip), model.skeleton.rest_pose().get(j))
            else {
                continue;
            };
            if let Ok(curves) = JointCurves::sample(c, j, rest, order, samples) {
                self.curves.push(((clip, j, order), curves));
            }
        }
        joints
            .iter()
            .filter_map(|&j| {
                self.curves
                    .iter()
                    .find(|((_, k, _), _)| *k == j)
                    .map(|(_, c)| (j, c))
            })
            .collect()
    }

    /// A seam that moves the end of its chain farther than this (metres) is a pop: the
    /// lint's threshold, scaled by the rig's leg length like every metre threshold.
    pub fn seam_pop_m(&self, model: &Model) -> f32 {
        crate::anim::seam::DEFAULT_SEAM_M * model.unit_scale()
    }

    /// Measures the loop seams of clip `clip` of `model` when they are not measured yet
    /// (once per clip); [`Self::seams`] reads them.
    pub fn update_seams(&mut self, model: &Model, clip: Option<usize>) {
        if self.seams_for != clip {
            self.seams.clear();
            self.seams_for = clip;
            if let Some(c) = clip.and_then(|i| model.clips.get(i)) {
                let root = crate::anim::ClipRootMotion::for_clip(&model.skeleton, c, None)
                    .ok()
                    .flatten();
                let job = LoopSeamJob {
                    skeleton: &model.skeleton,
                    clip: c,
                    root_motion: root.as_ref(),
                };
                // A zero-length clip has no seam; the table says so.
                let _ = job.run(&mut self.seams);
            }
        }
    }

    /// The seams of the clip last passed to [`Self::update_seams`], most visible first.
    pub fn seams(&self) -> &[ChannelSeam] {
        &self.seams
    }
}

/// Heat-map colour of a joint difference: green at 0, yellow at half of `full_m`, red
/// from `full_m` on.
pub fn heat_color(d_m: f32, full_m: f32) -> [u8; 3] {
    let t = (d_m / full_m.max(1e-6)).clamp(0.0, 1.0);
    if t < 0.5 {
        [(80.0 + 350.0 * t) as u8, 210, 90]
    } else {
        [255, (210.0 - 300.0 * (t - 0.5)) as u8, 70]
    }
}

/// A difference of this many metres (times the rig's unit scale) is fully red.
pub const HEAT_FULL_M: f32 = 0.1;

/// How B is drawn against A.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CompareView {
    /// B's skeleton over A, tinted, A's joints coloured by their difference.
    #[default]
    Overlay,
    /// B beside A (its mesh too when it comes from the same file).
    SideBySide,
}

/// How B's clock follows A's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CompareLock {
    /// The same normalised phase plus a fixed offset (fraction of a cycle).
    #[default]
    Phase,
    /// The offset that puts the first foot marker both clips share at the same phase.
    Markers,
}

/// A/B compare: a second character on the stage, B, whose clip (of this file or of another
/// file with the same skeleton) is locked to A's phase, with per-joint differences and a
/// difference curve over the cycle.
pub struct AbCompare {
    /// B: its model (another file's, or a copy of A's), its timeline on B's clip (in
    /// place; every frame a seek to A's locked time), its pose and where it stands.
    pub b: Character,
    /// B's model is a copy of A's (B is a clip of the open file): the window draws it with
    /// A's GPU data.
    pub b_is_a: bool,
    /// How B's clock follows A's.
    pub lock: CompareLock,
    /// Phase offset of B (fraction of its cycle) with [`CompareLock::Phase`].
    pub offset: f32,
    /// How B is drawn against A.
    pub view: CompareView,
    /// A against B this frame.
    pub difference: crate::anim::compare::PoseDifference,
    /// `(phase, max_m, mean_m)` over A's cycle for the current settings.
    pub curve: Vec<[f32; 3]>,
    /// The pose, difference and paths are this frame's (false when the comparison could
    /// not run: nothing stale is drawn then).
    pub valid: bool,
    /// Why the offset is what it is, or why B cannot be compared (for the panel).
    pub note: Option<String>,
    /// B's joint for each of A's joints.
    pub joint_map: Vec<Option<usize>>,
    /// Bumped when B's model changes, so the window uploads it.
    pub generation: u64,
    /// A's rig size (`mean leg length / 0.9 m`): scales the heat map's red.
    pub unit_scale: f32,
    /// A's and B's root-motion paths over one cycle on the ground (world, y just above
    /// 0), from where each character is placed: their trails side by side.
    pub a_path: Vec<Vec3>,
    /// B's root-motion path over one cycle (world space; see `a_path`).
    pub b_path: Vec<Vec3>,
    curve_for: Option<(usize, usize, u32, bool)>,
    /// B is the character A's clips were retargeted from: a different skeleton, so no
    /// joint differences; `(A's clip, B's clip)` for every retargeted clip, so B follows
    /// the clip selected in A.
    pub retarget_pairs: Option<Vec<(usize, usize)>>,
    /// Root motion of A's and B's clips, extracted once per `(a_clip, b_clip)`.
    roots: Option<RootsFor>,
    scratch: crate::anim::compare::CompareScratch,
}

/// `(a_clip, b_clip)` and their root motion.
type RootsFor = (
    (usize, usize),
    Option<crate::anim::ClipRootMotion>,
    Option<crate::anim::ClipRootMotion>,
);

impl AbCompare {
    /// B = clip `b_clip` of `a` (the open file).
    pub fn new(a: &Model, b_clip: usize) -> Self {
        let mut s = Self::with_b(a, Character::new(a.clone(), None), b_clip);
        s.b_is_a = true;
        s
    }

    /// B = clip `b_clip` of the character `b`, compared with `a`.
    fn with_b(a: &Model, mut b: Character, b_clip: usize) -> Self {
        b.timeline.set_mode(RootMotionMode::InPlace);
        // B only seeks: a seek to its end is its last frame, not the next cycle's first.
        b.timeline.set_looping(false);
        b.timeline.select_clip(&b.model, b_clip);
        Self {
            b,
            b_is_a: false,
            lock: CompareLock::default(),
            offset: 0.0,
            view: CompareView::default(),
            difference: Default::default(),
            curve: Vec::new(),
            valid: false,
            note: None,
            // The same skeleton: every joint is itself (names may repeat in a scene).
            joint_map: (0..a.skeleton.joint_count()).map(Some).collect(),
            generation: 0,
            unit_scale: a.unit_scale(),
            a_path: Vec::new(),
            b_path: Vec::new(),
            curve_for: None,
            retarget_pairs: None,
            roots: None,
            scratch: Default::default(),
        }
    }

    /// B from another file. Refused (with the reason) when fewer than half of A's joints
    /// have a namesake in B: that is not the same skeleton.
    pub fn with_file(
        a: &Model,
        path: std::path::PathBuf,
        b: Model,
        generation: u64,
    ) -> Result<Self, StageError> {
        let map = crate::anim::compare::joint_map_by_name(&a.skeleton, &b.skeleton);
        let matched = map.iter().filter(|m| m.is_some()).count();
        if matched * 2 < a.skeleton.joint_count() || b.clips.is_empty() {
            return Err(StageError::NotSameSkeleton {
                path,
                matched,
                joints: a.skeleton.joint_count(),
                no_clips: b.clips.is_empty(),
            });
        }
        let mut s = Self::with_b(a, Character::new(b, Some(path)), 0);
        s.joint_map = map;
        s.generation = generation;
        Ok(s)
    }

    /// B = the retarget source `b` (from `path`) beside A, locked to A's time: clip
    /// `pairs[i].1` of B plays while A shows its retargeted copy `pairs[i].0`. The
    /// skeletons differ, so no joint is compared (the heat map and curve stay empty).
    pub fn retarget_source(
        a: &Model,
        path: std::path::PathBuf,
        b: Model,
        pairs: Vec<(usize, usize)>,
        generation: u64,
    ) -> Self {
        let first = pairs.first().map_or(0, |p| p.1);
        let mut s = Self::with_b(a, Character::new(b, Some(path)), first);
        s.joint_map = vec![None; a.skeleton.joint_count()];
        s.generation = generation;
        s.view = CompareView::SideBySide;
        s.retarget_pairs = Some(pairs);
        s
    }

    /// For a retarget source: B's clip for A's clip `a_clip` (`None`: not a retargeted
    /// clip, or B is not a retarget source).
    pub fn retarget_source_clip(&self, a_clip: usize) -> Option<usize> {
        self.retarget_pairs
            .as_ref()?
            .iter()
            .find(|p| p.0 == a_clip)
            .map(|p| p.1)
    }

    /// B's clip.
    pub fn b_clip(&self) -> usize {
        self.b.timeline.clip().unwrap_or(0)
    }

    /// Compares with clip `index` of B's model (ignored when out of range).
    pub fn set_b_clip(&mut self, index: usize) {
        if index < self.b.model.clips.len() && Some(index) != self.b.timeline.clip() {
            self.b.timeline.select_clip(&self.b.model, index);
        }
    }

    /// The offset B's phase runs at (fraction of its cycle), from the lock.
    pub fn effective_offset(&self, a: &Model, a_clip: usize) -> (f32, Option<String>) {
        match self.lock {
            CompareLock::Phase => (self.offset, None),
            CompareLock::Markers => {
                match self
                    .b
                    .model
                    .clips
                    .get(self.b_clip())
                    .and_then(|bc| crate::anim::compare::marker_phase_offset(&a.clips[a_clip], bc))
                {
                    Some(o) => (
                        o,
                        Some(format!(
                            "markers: B runs {:.1}% of a cycle ahead",
                            o * 100.0
                        )),
                    ),
                    None => (
                        self.offset,
                        Some("no marker both clips share: phase lock with the offset".into()),
                    ),
                }
            }
        }
    }

    /// Evaluates B at A's phase (`a_phase_secs` into clip `a_clip`), placed by
    /// `model_from_root` (A's placement, moved aside for the side-by-side view by
    /// `side_offset`), the per-joint difference, and the curve when the settings changed.
    pub fn evaluate(
        &mut self,
        a: &Model,
        a_clip: usize,
        a_phase_secs: f64,
        model_from_root: Mat4,
        side_offset: Vec3,
    ) {
        let (offset, note) = self.effective_offset(a, a_clip);
        self.valid = false;
        if self.retarget_pairs.is_some() {
            match self.retarget_source_clip(a_clip) {
                Some(b) => self.set_b_clip(b),
                None => {
                    self.note = Some(
                        "the retarget source plays beside its retargeted clips: pick one".into(),
                    );
                    return;
                }
            }
        }
        let view = self.view;
        let b_clip = self.b_clip();
        let has_file = !self.b_is_a;
        let retarget = self.retarget_pairs.is_some();
        // Split borrows: B's model lives in `b` while its pose and the scratch change.
        let Self {
            b,
            difference,
            curve,
            note: note_out,
            joint_map,
            curve_for,
            scratch,
            a_path,
            b_path,
            valid,
            roots,
            ..
        } = self;
        *note_out = note;
        let b_model: &Model = &b.model;
        if retarget {
            *note_out = Some(format!(
                "B is the retarget source ('{}'), at A's time; the skeletons differ, so no joint is compared",
                b_model.clips.get(b_clip).map_or("?", |c| c.name())
            ));
        }
        let a_clip_ref = &a.clips[a_clip];
        let da = a_clip_ref.duration_secs();
        let Some(bc) = b_model.clips.get(b_clip) else {
            *note_out = Some("B has no such clip".into());
            return;
        };
        if da <= 0.0 || bc.duration_secs() <= 0.0 {
            *note_out = Some("zero-length clips have no phase to lock".into());
            return;
        }
        // A clock resting on its end (no loop) is at the last frame, not back at 0.
        let u = if a_phase_secs as f32 >= da {
            1.0 - 1e-6
        } else {
            ((a_phase_secs as f32) / da).rem_euclid(1.0)
        };
        let ub = (u + offset).rem_euclid(1.0);
        if roots.as_ref().map(|r| r.0) != Some((a_clip, b_clip)) {
            let extract = |m: &Model, c| {
                crate::anim::ClipRootMotion::for_clip(&m.skeleton, c, None)
                    .ok()
                    .flatten()
            };
            *roots = Some((
                (a_clip, b_clip),
                extract(a, a_clip_ref),
                extract(b_model, bc),
            ));
        }
        let (_, root_a, root_b) = roots.as_ref().expect("set above");
        let place = match view {
            CompareView::Overlay => model_from_root,
            CompareView::SideBySide => Mat4::from_translation(side_offset) * model_from_root,
        };
        // B is a character of its own: its timeline seeks to A's locked time and it is
        // posed in place, standing where the view puts it.
        // A retargeted clip has its source's keys: the same time, not the same fraction
        // of a cycle (their lengths may differ by a frame's rounding).
        let b_time = if retarget {
            (a_phase_secs as f32).clamp(0.0, bc.duration_secs())
        } else {
            ub * bc.duration_secs()
        };
        b.timeline.seek_secs(f64::from(b_time));
        b.world_from_stage = place;
        if let Err(e) = b.evaluate(false) {
            *note_out = Some(format!("B: {e}"));
        }
        let b_model: &Model = &b.model;
        let bc = &b_model.clips[b_clip];
        // Each root's path over its cycle, from the track start, placed like its pose.
        for (path, root, at) in [
            (a_path, root_a.as_ref(), model_from_root),
            (b_path, root_b.as_ref(), place),
        ] {
            path.clear();
            if let Some(r) = root {
                let d = r.motion.duration_secs();
                for i in 0..=48 {
                    let g = r.motion.sample(d * f64::from(i) / 48.0);
                    let p = Vec3::new(g.translation.x as f32, 0.01, g.translation.y as f32);
                    path.push(at.transform_point3(p));
                }
            }
        }
        let job = crate::anim::compare::CompareJob {
            a: crate::anim::compare::CompareSide {
                skeleton: &a.skeleton,
                clip: a_clip_ref,
                root_motion: root_a.as_ref(),
            },
            b: crate::anim::compare::CompareSide {
                skeleton: &b_model.skeleton,
                clip: bc,
                root_motion: root_b.as_ref(),
            },
            joint_map,
        };
        if let Err(e) = job.run(u, offset, scratch, difference) {
            *note_out = Some(format!("compare: {e}"));
            return;
        }
        *valid = true;
        let key = (a_clip, b_clip, offset.to_bits(), has_file);
        if *curve_for != Some(key) {
            *curve = job.curve(offset, 121).unwrap_or_default();
            *curve_for = Some(key);
        }
    }
}

/// How much the space of `joint`'s parent scales lengths, per axis, in the rest pose (the
/// lengths of the parent's model-space axes; 1 for a root). A local translation times
/// this is in the model's metres: a Mixamo file's hips sit in centimetres under an
/// armature scaled by 0.01, so their local translation reads 100 times too large unless
/// scaled.
pub fn parent_scale(model: &Model, joint: usize) -> glam::Vec3 {
    let sk = &model.skeleton;
    let Some(mut at) = sk.parents().get(joint).copied().flatten() else {
        return glam::Vec3::ONE;
    };
    // The parent's chain only, composed upwards (parent of parent on the left): no
    // allocation, it runs every frame a joint is selected.
    let mut m = sk.rest_pose()[at].to_mat4();
    while let Some(q) = sk.parents()[at] {
        m = sk.rest_pose()[q].to_mat4() * m;
        at = q;
    }
    glam::Vec3::new(
        m.x_axis.truncate().length(),
        m.y_axis.truncate().length(),
        m.z_axis.truncate().length(),
    )
}
