//! The library view's grid: every clip of a character on its own copy of it, laid out on
//! the ground in rows and playing at once, each looping at its own length, in place (the
//! clip's root motion taken out, so a walk stays in its cell). Evaluation runs one job
//! per character over rayon's threads ([`ClipGrid::evaluate`]); the renderer skins every
//! copy in one dispatch per model. Nothing here draws: the window hands
//! [`ClipGrid::poses`] to the renderer and labels the cells at [`ClipGrid::label_anchor`].

use glam::{Mat4, Quat, Vec3};
use rayon::prelude::*;

use crate::anim::ClipRootMotion;
use crate::asset::Model;
use crate::pose::{Pose, PoseRequest};
use crate::StageError;

/// How much larger the enlarged (hovered) character is drawn.
pub const ENLARGED_SCALE: f32 = 1.6;

/// One cell: a clip on a copy of the character.
#[derive(Debug)]
struct Cell {
    clip: usize,
    /// Where the character stands (world space, metres; on the ground, y = 0).
    center: Vec3,
    /// The clip's root motion, taken out of its pose (`None`: an in-place clip, or one
    /// whose root motion cannot be extracted; it plays as it is).
    root: Option<ClipRootMotion>,
    /// Brings the clip's start to the cell: a take recorded away from the origin (a
    /// capture volume's corner) or facing elsewhere stands on its cell, facing +z, its
    /// joints centred over it at the clip's first frame.
    root_from_clip: Mat4,
    pose: Pose,
}

/// Every clip of a model playing at once in a grid (see the module docs).
#[derive(Debug)]
pub struct ClipGrid {
    cells: Vec<Cell>,
    columns: usize,
    /// Distance between cell centres (metres).
    spacing_m: f32,
    /// The character's height in its rest pose, skinned mesh included (metres).
    height_m: f32,
    /// How far above the highest joint a label sits (metres, unscaled).
    label_margin_m: f32,
    /// The cell drawn larger (hovered in the window).
    enlarged: Option<usize>,
    /// Clip names (labels).
    names: Vec<String>,
    /// The first clip that failed to evaluate, once (its cell keeps its last pose).
    failed: Option<(usize, String)>,
}

impl ClipGrid {
    /// One cell per clip of `model` that animates (empty takes are left out), in clip
    /// order, row by row (`columns` per row: about the square root of the clip count, so
    /// the grid is square). Cells are spaced by the character's size so neighbours do not
    /// overlap while they play.
    ///
    /// Errors: the model has no clips.
    pub fn new(model: &Model) -> Result<Self, StageError> {
        let animated = model.animated_clips();
        if animated.is_empty() {
            return Err(StageError::NoAnimations {
                model: model.source.clone(),
            });
        }
        Self::of_clips(model, &animated)
    }

    /// One cell per clip of `clips` (indices into the model's clips, in that order), laid
    /// out as [`Self::new`] lays out all of them: the library view's filtered grid. An
    /// empty list gives an empty grid.
    ///
    /// Errors: an index past the model's clips.
    pub fn of_clips(model: &Model, clips: &[usize]) -> Result<Self, StageError> {
        for &c in clips {
            model.clip(c)?;
        }
        let rest = Pose::new(model);
        let (lo, hi) = rest.model_from_joint.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), m| (lo.min(m.w_axis.truncate()), hi.max(m.w_axis.truncate())),
        );
        let joint_top = hi.y;
        // Skinned meshes in their bind pose are in model space: the mesh reaches past the
        // last joint (a head above the neck, a tail behind the hips).
        let (lo, hi) = model
            .meshes
            .iter()
            .filter(|m| m.skin.is_some())
            .flat_map(|m| m.primitives.iter())
            .flat_map(|p| p.positions.iter())
            .filter(|p| p.is_finite())
            .fold((lo, hi), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        let extent = if lo.is_finite() && hi.is_finite() {
            hi - lo
        } else {
            Vec3::ONE
        };
        // A rest pose with no height (a flat or one-joint rig) still gets a cell.
        let height_m = extent.y.max(0.1);
        // The mesh above the highest joint, and a little air, for the label.
        let label_margin_m = (hi.y - joint_top).max(0.0) + 0.08 * height_m;
        let spacing_m = (extent.x.max(extent.z) * 1.4).max(height_m * 0.8);
        let n = clips.len();
        let columns = (n as f32).sqrt().ceil().max(1.0) as usize;
        let rows = n.div_ceil(columns);
        // Centred on the origin; row 0 at the back (-z) so the first clips are read first
        // from the default camera (in front, +z), left to right.
        let origin = Vec3::new(
            -(columns as f32 - 1.0) * 0.5 * spacing_m,
            0.0,
            -(rows as f32 - 1.0) * 0.5 * spacing_m,
        );
        let cells = (0..n)
            .into_par_iter()
            .map(|cell| {
                let clip = clips[cell];
                let (row, col) = (cell / columns, cell % columns);
                // The analysis decides the root motion as the timeline does: none for an
                // in-place clip (its seam drift would otherwise move it every cycle).
                let root = model
                    .clip_analysis(clip)
                    .ok()
                    .and_then(|a| a.root_motion().cloned());
                let mut cell = Cell {
                    clip,
                    center: origin + Vec3::new(col as f32, 0.0, row as f32) * spacing_m,
                    root_from_clip: Mat4::IDENTITY,
                    root,
                    pose: rest.clone(),
                };
                cell.root_from_clip = cell_anchor(model, &mut cell);
                cell
            })
            .collect();
        Ok(Self {
            cells,
            columns,
            spacing_m,
            height_m,
            label_margin_m,
            enlarged: None,
            names: model.clips.iter().map(|c| c.name().to_string()).collect(),
            failed: None,
        })
    }

    /// Number of cells (= clips).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the grid has no cell (an empty list given to [`Self::of_clips`]).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Cells per row.
    pub fn columns(&self) -> usize {
        self.columns
    }

    /// Distance between neighbouring cells (metres).
    pub fn spacing_m(&self) -> f32 {
        self.spacing_m
    }

    /// The clip cell `cell` plays.
    pub fn clip(&self, cell: usize) -> Option<usize> {
        self.cells.get(cell).map(|c| c.clip)
    }

    /// Cell `cell`'s label: its clip's name.
    pub fn label(&self, cell: usize) -> &str {
        self.cells
            .get(cell)
            .and_then(|c| self.names.get(c.clip))
            .map_or("", String::as_str)
    }

    /// Where cell `cell`'s character stands (world space, on the ground).
    pub fn center(&self, cell: usize) -> Option<Vec3> {
        self.cells.get(cell).map(|c| c.center)
    }

    /// Where cell `cell`'s label goes: above its character's head as posed now (world
    /// space: the highest joint, plus the mesh above it in the rest pose and a little
    /// air).
    pub fn label_anchor(&self, cell: usize) -> Option<Vec3> {
        let scale = scale_of(self.enlarged, cell);
        let c = self.cells.get(cell)?;
        let top = c
            .pose
            .model_from_joint
            .iter()
            .map(|m| m.w_axis.y)
            .filter(|y| y.is_finite())
            .fold(f32::NEG_INFINITY, f32::max);
        let top = if top.is_finite() {
            top
        } else {
            self.height_m * scale
        };
        Some(Vec3::new(
            c.center.x,
            top + self.label_margin_m * scale,
            c.center.z,
        ))
    }

    /// The ground area the grid covers (world space, `(min, max)` with y from 0 to the
    /// character's height): what the camera frames.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let half = Vec3::new(self.spacing_m, 0.0, self.spacing_m) * 0.5;
        let (lo, hi) = self.cells.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), c| (lo.min(c.center), hi.max(c.center)),
        );
        (lo - half, hi + half + Vec3::Y * self.height_m)
    }

    /// The cell whose character is drawn larger (`None`: none).
    pub fn enlarged(&self) -> Option<usize> {
        self.enlarged
    }

    /// Draws cell `cell` larger (the hovered one), or none. Takes effect at the next
    /// [`Self::evaluate`].
    pub fn set_enlarged(&mut self, cell: Option<usize>) {
        self.enlarged = cell.filter(|&c| c < self.cells.len());
    }

    /// Every character's pose (cell order), in world space.
    pub fn poses(&self) -> impl ExactSizeIterator<Item = &Pose> {
        self.cells.iter().map(|c| &c.pose)
    }

    /// The first clip that failed to evaluate and why (its cell keeps its last pose).
    pub fn failure(&self) -> Option<(usize, &str)> {
        self.failed.as_ref().map(|(c, e)| (*c, e.as_str()))
    }

    /// Poses every character at `time_secs` of playback (each clip looping at its own
    /// length), one job per character on rayon's threads (the current pool: the caller
    /// decides how many). A clip that fails keeps its last pose and is reported once by
    /// [`Self::failure`].
    pub fn evaluate(&mut self, model: &Model, time_secs: f64) {
        let enlarged = self.enlarged;
        let failures: Vec<(usize, String)> = self
            .cells
            .par_iter_mut()
            .enumerate()
            .with_min_len(4)
            .filter_map(|(i, cell)| {
                cell_evaluate(model, cell, time_secs, scale_of(enlarged, i))
                    .err()
                    .map(|e| (cell.clip, e.to_string()))
            })
            .collect();
        if self.failed.is_none() {
            self.failed = failures.into_iter().next();
        }
    }

    /// [`Self::evaluate`] on the calling thread only (the benchmark's one-core figure).
    pub fn evaluate_sequential(&mut self, model: &Model, time_secs: f64) {
        let enlarged = self.enlarged;
        for (i, cell) in self.cells.iter_mut().enumerate() {
            if let Err(e) = cell_evaluate(model, cell, time_secs, scale_of(enlarged, i)) {
                self.failed.get_or_insert((cell.clip, e.to_string()));
            }
        }
    }
}

/// How large cell `cell`'s character is drawn when `enlarged` is the hovered cell.
fn scale_of(enlarged: Option<usize>, cell: usize) -> f32 {
    if enlarged == Some(cell) {
        ENLARGED_SCALE
    } else {
        1.0
    }
}

/// One character's pose: its clip at `time_secs` modulo the clip's length, in place,
/// standing at its cell (scaled by `scale` about its feet).
fn cell_evaluate(
    model: &Model,
    cell: &mut Cell,
    time_secs: f64,
    scale: f32,
) -> Result<(), StageError> {
    let clip = model.clip(cell.clip)?;
    let duration = f64::from(clip.duration_secs());
    let t = if duration > 0.0 {
        time_secs.rem_euclid(duration)
    } else {
        0.0
    };
    let world_from_root =
        Mat4::from_scale_rotation_translation(Vec3::splat(scale), Quat::IDENTITY, cell.center)
            * cell.root_from_clip;
    cell.pose
        .evaluate(
            model,
            &PoseRequest {
                clip: Some(cell.clip),
                time_secs: t as f32,
                remove_root_motion: cell.root.as_ref(),
                model_from_root: world_from_root,
            },
        )
        .map_err(|source| StageError::Clip {
            clip: clip.name().to_string(),
            source,
        })
}

/// Where a cell's clip is brought so it stands on its cell (see `Cell::root_from_clip`):
/// its root motion's start turned to face +z at the origin, then its joints' mean ground
/// position at the first frame moved onto the origin. The identity when the clip cannot be
/// posed (the grid reports that when it plays).
fn cell_anchor(model: &Model, cell: &mut Cell) -> Mat4 {
    let start = cell
        .root
        .as_ref()
        .map_or(Mat4::IDENTITY, |r| r.motion.start().inverse().to_mat4());
    let posed = cell.pose.evaluate(
        model,
        &PoseRequest {
            clip: Some(cell.clip),
            time_secs: 0.0,
            remove_root_motion: cell.root.as_ref(),
            model_from_root: start,
        },
    );
    let joints = &cell.pose.model_from_joint;
    if posed.is_err() || joints.is_empty() {
        return Mat4::IDENTITY;
    }
    let mean = joints.iter().map(|m| m.w_axis.truncate()).sum::<Vec3>() / joints.len() as f32;
    if !mean.is_finite() {
        return start;
    }
    Mat4::from_translation(Vec3::new(-mean.x, 0.0, -mean.z)) * start
}
