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
use crate::stage::pose::{Pose, PoseRequest};
use crate::stage::StageError;

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
    pose: Pose,
}

/// Every clip of a model playing at once in a grid (see the module docs).
#[derive(Debug)]
pub struct ClipGrid {
    cells: Vec<Cell>,
    columns: usize,
    /// Distance between cell centres (metres).
    spacing_m: f32,
    /// The character's height in its rest pose (metres; the label sits above it).
    height_m: f32,
    /// The cell drawn larger (hovered in the window).
    enlarged: Option<usize>,
    /// Clip names (labels).
    names: Vec<String>,
    /// The first clip that failed to evaluate, once (its cell keeps its last pose).
    failed: Option<(usize, String)>,
}

impl ClipGrid {
    /// One cell per clip of `model`, in clip order, row by row (`columns` per row: about
    /// the square root of the clip count, so the grid is square). Cells are spaced by
    /// the character's size so neighbours do not overlap while they play.
    ///
    /// Errors: the model has no clips.
    pub fn new(model: &Model) -> Result<Self, StageError> {
        if model.clips.is_empty() {
            return Err(StageError::NoAnimations {
                model: model.source.clone(),
            });
        }
        let all: Vec<usize> = (0..model.clips.len()).collect();
        Self::of_clips(model, &all)
    }

    /// One cell per clip of `clips` (indices into the model's clips, in that order), laid
    /// out as [`Self::new`] lays out all of them: the library view's filtered grid. An
    /// empty list gives an empty grid.
    ///
    /// Errors: an index past the model's clips.
    pub fn of_clips(model: &Model, clips: &[usize]) -> Result<Self, StageError> {
        if let Some(&bad) = clips.iter().find(|&&c| c >= model.clips.len()) {
            return Err(StageError::ClipOutOfRange { clip: bad });
        }
        let rest = Pose::new(model);
        let (lo, hi) = rest.model_from_joint.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), m| (lo.min(m.w_axis.truncate()), hi.max(m.w_axis.truncate())),
        );
        let extent = if lo.is_finite() && hi.is_finite() {
            hi - lo
        } else {
            Vec3::ONE
        };
        // A rest pose with no height (a flat or one-joint rig) still gets a cell.
        let height_m = extent.y.max(0.1);
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
                Cell {
                    clip,
                    center: origin + Vec3::new(col as f32, 0.0, row as f32) * spacing_m,
                    root,
                    pose: rest.clone(),
                }
            })
            .collect();
        Ok(Self {
            cells,
            columns,
            spacing_m,
            height_m,
            enlarged: None,
            names: model.clips.iter().map(|c| c.name().to_string()).collect(),
            failed: None,
        })
    }

    /// Number of cells (= clips).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

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

    /// Where cell `cell`'s label goes: above its character's head (world space; the
    /// skeleton's height and 30% more, for the mesh above the last joint).
    pub fn label_anchor(&self, cell: usize) -> Option<Vec3> {
        let scale = if self.enlarged == Some(cell) {
            ENLARGED_SCALE
        } else {
            1.0
        };
        self.center(cell)
            .map(|c| c + Vec3::Y * self.height_m * (scale + 0.3))
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
                let scale = if enlarged == Some(i) {
                    ENLARGED_SCALE
                } else {
                    1.0
                };
                cell_evaluate(model, cell, time_secs, scale)
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
            let scale = if enlarged == Some(i) {
                ENLARGED_SCALE
            } else {
                1.0
            };
            if let Err(e) = cell_evaluate(model, cell, time_secs, scale) {
                self.failed.get_or_insert((cell.clip, e.to_string()));
            }
        }
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
    let clip = model
        .clips
        .get(cell.clip)
        .ok_or(StageError::ClipOutOfRange { clip: cell.clip })?;
    let duration = f64::from(clip.duration_secs());
    let t = if duration > 0.0 {
        time_secs.rem_euclid(duration)
    } else {
        0.0
    };
    let world_from_root =
        Mat4::from_scale_rotation_translation(Vec3::splat(scale), Quat::IDENTITY, cell.center);
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
