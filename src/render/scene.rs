//! One builder for what a frame shows, used by the window and by `stridescope render`:
//! each describes its frame as a [`Frame`] (characters with their GPU copies and poses,
//! ghosts, a second character, the debug drawing asked for) and [`SceneBuilder::draw`]
//! writes the poses, fills the overlay and hands the [`SceneView`] to whoever renders it
//! (into the window's viewport or into an image). Nothing here evaluates animation.

use glam::Vec3;

use super::overlay::{DepthTest, OverlayBatch, Rgba8, SkeletonStyle};
use super::{
    CharacterDraw, GhostTint, GpuContext, GpuModel, Grid, LocomotionDraw, LocomotionOverlays,
    OrbitCamera, RenderError, Renderer, SceneView, SkinnedInstances,
};
use crate::asset::{Model, PoseMatrices};
use crate::matching_overlay::{MatchingDraw, MatchingOverlays};

/// Where past ghosts are drawn warm and future ones cool (as Blender's and Maya's onion
/// skins do): bone and joint colours.
const PAST: ([u8; 3], [u8; 3]) = ([255, 160, 90], [255, 205, 160]);
const FUTURE: ([u8; 3], [u8; 3]) = ([120, 190, 255], [200, 225, 255]);
/// Magenta: the second character's skeleton and path.
const SECOND: Rgba8 = Rgba8::rgb(230, 90, 230);
const TRAIL: Rgba8 = Rgba8::rgb(90, 220, 140);

/// A character's GPU copy and the instance its pose is written to.
pub struct OnGpu<'a> {
    /// The character's static GPU data.
    pub model: &'a GpuModel,
    /// The instance group its pose is written to (instance 0; in a [`Crowd`], one instance per
    /// pose).
    pub instances: &'a mut SkinnedInstances,
    /// Which upload `model` is (the window's model generation): ghost instances made for
    /// another upload are dropped, never written with this model's poses.
    pub upload: u64,
}

/// A second character drawn with the first (A/B compare's B, a retarget source): its
/// skeleton in magenta, its mesh (tinted when `tinted`), heat points on the main
/// character's joints and two paths (A's green, B's magenta), in world space.
pub struct Second<'a, P> {
    /// The second character's model.
    pub model: &'a Model,
    /// Its evaluated pose, as the renderer reads it.
    pub pose: &'a P,
    /// Its GPU copy; `None` draws the skeleton only.
    pub gpu: Option<OnGpu<'a>>,
    /// Draw its mesh tinted pink and translucent: a reference (a retarget source) rather than
    /// a character.
    pub tinted: bool,
    /// Points to mark on the main character (world position, colour).
    pub heat: Vec<(Vec3, [u8; 3])>,
    /// Ground paths of A (the main character, green) and B (magenta), world space, metres;
    /// each drawn when it has two points or more.
    pub paths: [&'a [Vec3]; 2],
}

/// Everything one frame shows.
pub struct Frame<'a, P> {
    /// The camera the frame is seen from.
    pub camera: OrbitCamera,
    /// Ground grid; `None` hides it.
    pub grid: Option<Grid>,
    /// The character's model and pose (overlays read them even while no GPU copy exists).
    pub model: &'a Model,
    /// The character's evaluated pose: the skeleton overlay and, with `gpu`, the mesh.
    pub pose: &'a P,
    /// Its GPU copy: the mesh is drawn when present.
    pub gpu: Option<OnGpu<'a>>,
    /// Draw the skeleton (bones and joints) on top of the mesh.
    pub skeleton: bool,
    /// Skeleton joint index to highlight (its bones and a larger point), if any.
    pub selected_joint: Option<usize>,
    /// Onion-skin ghosts: poses of the main character with their opacity (0..1), and
    /// each one's offset from the playhead in seconds (negative: the past, drawn warm).
    pub ghosts: &'a [(P, f32)],
    /// Each ghost's offset from the playhead in seconds, in the order of `ghosts` (negative:
    /// the past).
    pub ghost_offsets_secs: &'a [f64],
    /// Draw the ghosts as skeletons / as translucent meshes.
    pub ghost_skeletons: bool,
    /// Draw the ghosts as tinted translucent meshes (needs `gpu`).
    pub ghost_meshes: bool,
    /// A second character drawn with the first, if any.
    pub second: Option<Second<'a, P>>,
    /// The root's path on the ground and where the root is now (world space).
    pub trail: Option<(&'a [Vec3], Vec3)>,
    /// Stride-warp and foot-IK debug draw, with the groups to show.
    pub locomotion: Option<(LocomotionDraw<'a>, LocomotionOverlays)>,
    /// Motion-matching debug draw, with the parts to show.
    pub matching: Option<(MatchingDraw, MatchingOverlays)>,
}

impl<'a, P> Frame<'a, P> {
    /// A frame of `model` in `pose` seen by `camera`, nothing else drawn.
    pub fn new(camera: OrbitCamera, model: &'a Model, pose: &'a P) -> Self {
        Self {
            camera,
            grid: None,
            model,
            pose,
            gpu: None,
            skeleton: false,
            selected_joint: None,
            ghosts: &[],
            ghost_offsets_secs: &[],
            ghost_skeletons: false,
            ghost_meshes: false,
            second: None,
            trail: None,
            locomotion: None,
            matching: None,
        }
    }
}

/// What a frame needs kept between frames: the overlay's buffers and one skinned
/// instance per mesh ghost (grown as more ghosts show, dropped when the model changes).
#[derive(Default)]
pub struct SceneBuilder {
    overlay: OverlayBatch,
    /// Ghost instances and the upload ([`OnGpu::upload`]) they were made for.
    ghost_instances: (u64, Vec<SkinnedInstances>),
}

impl SceneBuilder {
    /// A builder with an empty overlay and no ghost instances yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes `frame`'s poses to the GPU, fills the overlay, and calls `render` with the
    /// scene (to record it into a view or read it back as an image).
    pub fn draw<P: PoseMatrices, R>(
        &mut self,
        ctx: &GpuContext,
        renderer: &mut Renderer,
        frame: Frame<'_, P>,
        render: impl FnOnce(&mut Renderer, &SceneView<'_>) -> Result<R, RenderError>,
    ) -> Result<R, RenderError> {
        let Frame {
            camera,
            grid,
            model,
            pose,
            gpu,
            skeleton,
            selected_joint,
            ghosts,
            ghost_offsets_secs,
            ghost_skeletons,
            ghost_meshes,
            second,
            trail,
            locomotion,
            matching,
        } = frame;
        let overlay = &mut self.overlay;
        overlay.clear();
        if skeleton {
            overlay.skeleton(model, pose, &SkeletonStyle::default());
        }
        let past = |i: usize| ghost_offsets_secs.get(i).is_some_and(|&o| o < 0.0);
        if ghost_skeletons {
            for (i, (ghost, alpha)) in ghosts.iter().enumerate().filter(|(_, g)| g.1 > 0.0) {
                let a = (alpha * 255.0).round() as u8;
                let (bone, joint) = if past(i) { PAST } else { FUTURE };
                overlay.skeleton(
                    model,
                    ghost,
                    &SkeletonStyle {
                        bone_color: Rgba8([bone[0], bone[1], bone[2], a]),
                        joint_color: Rgba8([joint[0], joint[1], joint[2], a]),
                        joint_size_px: 4.0,
                    },
                );
            }
        }
        if let Some(s) = &second {
            for (at, [r, g, b]) in &s.heat {
                overlay.point(*at, 8.0, Rgba8::rgb(*r, *g, *b), DepthTest::OnTop);
            }
            overlay.skeleton(
                s.model,
                s.pose,
                &SkeletonStyle {
                    bone_color: SECOND,
                    joint_color: SECOND,
                    joint_size_px: 4.0,
                },
            );
            for (path, color) in s.paths.iter().zip([TRAIL, SECOND]) {
                if path.len() >= 2 {
                    overlay.polyline(path, color, DepthTest::Tested);
                }
            }
        }
        if let Some(j) = selected_joint {
            overlay.joint_highlight(model, pose, j, Rgba8::rgb(90, 200, 255));
        }
        if let Some((path, root)) = &trail {
            if path.len() >= 2 {
                overlay.polyline(path, TRAIL, DepthTest::Tested);
            }
            overlay.point(*root, 7.0, TRAIL, DepthTest::OnTop);
        }
        if let Some((draw, flags)) = &locomotion {
            if flags.any() {
                overlay.locomotion(draw, flags);
            }
        }
        if let Some((draw, flags)) = &matching {
            overlay.matching(draw, flags);
        }

        // Meshes: the character, its ghosts, the second character.
        let mut main = None;
        let mut ghost_count = 0;
        if let Some(OnGpu {
            model: gm,
            instances,
            upload,
        }) = gpu
        {
            instances.write_poses(&ctx.queue, gm, &[pose])?;
            if ghost_meshes {
                if self.ghost_instances.0 != upload {
                    self.ghost_instances = (upload, Vec::new());
                }
                let made = &mut self.ghost_instances.1;
                while made.len() < ghosts.len() {
                    made.push(renderer.create_instances(ctx, gm, 1)?);
                }
                for ((ghost, _), instances) in ghosts.iter().zip(made.iter_mut()) {
                    instances.write_poses(&ctx.queue, gm, &[ghost])?;
                }
                ghost_count = ghosts.len();
            }
            main = Some((gm, &*instances));
        }
        let mut second_mesh = None;
        if let Some(Second {
            gpu:
                Some(OnGpu {
                    model: gm,
                    instances,
                    ..
                }),
            pose,
            tinted,
            ..
        }) = second
        {
            instances.write_poses(&ctx.queue, gm, &[pose])?;
            second_mesh = Some((gm, &*instances, tinted));
        }
        let mut characters = Vec::new();
        if let Some((gm, instances)) = main {
            characters.push(CharacterDraw {
                model: gm,
                instances,
                ghost: None,
            });
            let made = ghosts.iter().zip(&self.ghost_instances.1).take(ghost_count);
            for (i, ((_, alpha), instances)) in made.enumerate() {
                characters.push(CharacterDraw {
                    model: gm,
                    instances,
                    ghost: Some(GhostTint {
                        // Past warm, future cool, as the skeleton ghosts.
                        tint: if past(i) {
                            [1.0, 0.55, 0.3]
                        } else {
                            [0.35, 0.65, 1.0]
                        },
                        opacity: alpha * 0.7,
                    }),
                });
            }
            if let Some((gm, instances, tinted)) = second_mesh {
                // A retarget source is tinted: it is the reference, not the character.
                characters.push(CharacterDraw {
                    model: gm,
                    instances,
                    ghost: tinted.then_some(GhostTint {
                        tint: [0.95, 0.55, 0.95],
                        opacity: 0.85,
                    }),
                });
            }
        }
        let scene = SceneView {
            camera,
            characters: &characters,
            grid,
            overlay: Some(&self.overlay),
            background: Default::default(),
        };
        render(renderer, &scene)
    }

    /// Draws many copies of one model at once (the library view's grid): every pose is
    /// written to `instances` (one palette each, skinned in one dispatch per model) and
    /// drawn lit, with the grid; no overlay. `poses` are in world space.
    pub fn draw_crowd<P: PoseMatrices, R>(
        &mut self,
        ctx: &GpuContext,
        renderer: &mut Renderer,
        crowd: Crowd<'_, P>,
        render: impl FnOnce(&mut Renderer, &SceneView<'_>) -> Result<R, RenderError>,
    ) -> Result<R, RenderError> {
        let Crowd {
            camera,
            grid,
            gpu,
            poses,
        } = crowd;
        self.overlay.clear();
        // At most one group (nothing allocated per frame).
        let mut character = None;
        if let Some(gpu) = gpu.filter(|_| !poses.is_empty()) {
            gpu.instances.write_poses(&ctx.queue, gpu.model, poses)?;
            character = Some(CharacterDraw {
                model: gpu.model,
                instances: gpu.instances,
                ghost: None,
            });
        }
        let scene = SceneView {
            camera,
            characters: character.as_slice(),
            grid,
            overlay: Some(&self.overlay),
            background: Default::default(),
        };
        render(renderer, &scene)
    }
}

/// Many copies of one model, each in its own pose: the library view's grid.
pub struct Crowd<'a, P> {
    /// The camera the crowd is seen from.
    pub camera: OrbitCamera,
    /// Ground grid; `None` hides it.
    pub grid: Option<Grid>,
    /// The model's GPU copy and instances enough for every pose (`None`, or no poses:
    /// only the ground and background, e.g. a filter that matches no clip).
    pub gpu: Option<OnGpu<'a>>,
    /// One pose per copy (world space).
    pub poses: &'a [&'a P],
}
