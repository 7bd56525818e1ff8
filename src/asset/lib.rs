//! Asset import: glTF 2.0, FBX and BVH files into the animation core's types, with typed errors
//! that name the file and the offending element (or line); and the built-in demo character.

// Every public item says what it is, with its units, spaces and ranges.
#![warn(missing_docs)]

// The layers below, under their layer names: `crate::anim::Clip` reads the same here as in
// the `stridescope` facade, and the manifest is what allows each one.
use stridescope_anim as anim;

pub mod analysis;
pub mod bone_shapes;
mod bvh;
pub mod clip_edits;
pub mod demo;
mod error;
mod fbx;
pub use fbx::inbetween_weights as fbx_inbetween_weights;
pub mod folder;
pub mod glb_writer;
mod gltf_import;
mod meshopt;
pub mod naming;
mod options;
mod pose_matrices;
pub use pose_matrices::PoseMatrices;

use std::path::Path;

use glam::{Vec2, Vec3, Vec4};

pub(crate) use error::ImportProblem;
pub use error::{
    FolderError, GlbError, ImportError, LoadError, ModelError, OptionError, WriteError,
};
pub use options::{LoadOptions, SourceFormat, Units, ALLOW_TRUNCATED_ENV, UNITS_ENV};

use crate::anim::reduce::{self, KeyReductionJob, ReductionReport};
use crate::anim::{AnimError, Clip, Skeleton, Skin, MAX_INFLUENCES};

/// Environment variable: key-reduction tolerance in millimetres applied by every load
/// ([`load`], [`load_or_demo`]), for tools that cannot pass `--reduce-keys` (the shared
/// ozz-animation benchmark harness, scripts). Unset or empty: full-precision keys.
pub const REDUCE_KEYS_ENV: &str = "STRIDESCOPE_REDUCE_KEYS";

/// The tolerance named by [`REDUCE_KEYS_ENV`], metres; `Err` names a bad value.
pub fn reduce_keys_from_env() -> Result<Option<f32>, OptionError> {
    match std::env::var(REDUCE_KEYS_ENV) {
        Ok(v) if !v.trim().is_empty() => parse_tolerance_mm(v.trim())
            .map(Some)
            .map_err(|e| e.in_env(REDUCE_KEYS_ENV)),
        _ => Ok(None),
    }
}

/// A key-reduction tolerance given in millimetres (`"1"`, `"0.5"`), as metres.
pub fn parse_tolerance_mm(text: &str) -> Result<f32, OptionError> {
    match text.parse::<f32>() {
        Ok(mm) if mm.is_finite() && mm > 0.0 && mm <= 1000.0 => Ok(mm * 1e-3),
        _ => Err(OptionError::NotATolerance {
            text: text.to_string(),
        }),
    }
}

/// Loads `file`, or the built-in demo character when `None`; the error text names the
/// file and the element.
pub fn load_or_demo(file: Option<&Path>) -> Result<Model, ImportError> {
    let named = file.unwrap_or(Path::new("demo.glb"));
    let options = LoadOptions::from_env().map_err(|e| ImportError::caused_by(named, "", e))?;
    load_or_demo_with(file, &options)
}

/// [`load_or_demo`] with explicit options (the demo is built in metres: only the key
/// reduction applies to it).
pub fn load_or_demo_with(file: Option<&Path>, options: &LoadOptions) -> Result<Model, ImportError> {
    match file {
        Some(path) => load_with(path, options),
        None => load_scene_from_slice_with(
            &demo::demo_glb(),
            Path::new("demo.glb"),
            None,
            &LoadOptions {
                reduce_keys_m: options.reduce_keys_m,
                ..LoadOptions::default()
            },
        ),
    }
}

/// Loads a glTF (`.gltf`, `.glb`), FBX (`.fbx`) or BVH (`.bvh`) file with the options the environment
/// sets ([`LoadOptions::from_env`]: [`UNITS_ENV`], [`ALLOW_TRUNCATED_ENV`]; the defaults
/// when unset), and the key reduction [`REDUCE_KEYS_ENV`] asks for.
pub fn load(path: &Path) -> Result<Model, ImportError> {
    load_scene(path, None)
}

/// [`load`] with the scene to show: `None` is the file's default scene, else scene 0
/// (glTF; a BVH file has none).
pub fn load_scene(path: &Path, scene: Option<usize>) -> Result<Model, ImportError> {
    let options = LoadOptions::from_env().map_err(|e| ImportError::caused_by(path, "", e))?;
    load_scene_with(path, scene, &options)
}

/// [`load`] with explicit options (the environment's [`UNITS_ENV`] and
/// [`ALLOW_TRUNCATED_ENV`] are not read).
pub fn load_with(path: &Path, options: &LoadOptions) -> Result<Model, ImportError> {
    load_scene_with(path, None, options)
}

/// [`load_scene`] with explicit options.
pub fn load_scene_with(
    path: &Path,
    scene: Option<usize>,
    options: &LoadOptions,
) -> Result<Model, ImportError> {
    if path.is_dir() {
        // A folder of motion capture: one character with every file as a clip.
        let mut model = folder::load_folder(path, options, &|_, _| {})?;
        if let Some(tolerance_m) = options.reduce_keys_m {
            model
                .reduce_keys(tolerance_m)
                .map_err(|e| ImportError::caused_by(path, "motion", e))?;
        }
        return Ok(model);
    }
    let bytes =
        std::fs::read(path).map_err(|e| ImportError::doing(path, "", "cannot read file", e))?;
    let mut model = load_scene_from_slice_with(&bytes, path, scene, options)?;
    // The user's saved clip edits (rename, trim, markers) beside the file.
    clip_edits::apply_sidecar(&mut model, path)?;
    Ok(model)
}

/// Loads from bytes; `path` names the file in errors, resolves a glTF's relative URIs and
/// tells the format (a `.bvh` name, or text starting with `HIERARCHY`, is BVH).
pub fn load_from_slice(bytes: &[u8], path: &Path) -> Result<Model, ImportError> {
    load_scene_from_slice(bytes, path, None)
}

/// [`load_from_slice`] with the scene to show (see [`load_scene`]).
pub fn load_scene_from_slice(
    bytes: &[u8],
    path: &Path,
    scene: Option<usize>,
) -> Result<Model, ImportError> {
    let options = LoadOptions::from_env().map_err(|e| ImportError::caused_by(path, "", e))?;
    load_scene_from_slice_with(bytes, path, scene, &options)
}

/// [`load_scene_from_slice`] with explicit options.
pub fn load_scene_from_slice_with(
    bytes: &[u8],
    path: &Path,
    scene: Option<usize>,
    options: &LoadOptions,
) -> Result<Model, ImportError> {
    if is_fbx_path(path)
        || (!is_gltf_path(path) && !is_bvh_path(path) && fbx::looks_like_fbx(bytes))
    {
        let mut model = fbx::load_from_slice(bytes, path, options)?;
        if let Some(tolerance_m) = options.reduce_keys_m {
            model
                .reduce_keys(tolerance_m)
                .map_err(|e| ImportError::caused_by(path, "takes", e))?;
        }
        return Ok(model);
    }
    let is_bvh = is_bvh_path(path) || (!is_gltf_path(path) && bvh::looks_like_bvh(bytes));
    if !is_bvh {
        let mut model = gltf_import::load_scene_from_slice(bytes, path, scene)?;
        if let Some(tolerance_m) = options.reduce_keys_m {
            model
                .reduce_keys(tolerance_m)
                .map_err(|e| ImportError::caused_by(path, "animations", e))?;
        }
        if let Some(units) = options.units {
            model.warnings.push(format!(
                "units: {} ignored; glTF is in metres by its specification",
                units.describe()
            ));
        }
        return Ok(model);
    }
    let mut model = bvh::load_from_slice(bytes, path, options)?;
    // Motion capture has no mesh: draw the bones as shapes.
    bone_shapes::add_bone_shapes(&mut model)
        .map_err(|e| ImportError::caused_by(path, "skeleton", e))?;
    if let Some(tolerance_m) = options.reduce_keys_m {
        model
            .reduce_keys(tolerance_m)
            .map_err(|e| ImportError::caused_by(path, "motion", e))?;
    }
    Ok(model)
}

/// Everything the previewer needs from one file.
#[derive(Clone, Debug)]
pub struct Model {
    /// Display name of the source (file name, or "demo").
    pub source: String,
    /// Names of the file's scenes (`scene N` when unnamed), and the one shown (`None`
    /// when the file has no scene: every parentless node is shown).
    pub scenes: Vec<String>,
    /// Index into `scenes` of the scene shown; `None` when the file has no scene.
    pub scene: Option<usize>,
    /// Every node of the shown scene, ordered parent-before-child. `node_of_joint[i]` is the glTF node index of joint i.
    pub skeleton: Skeleton,
    /// glTF node index of each joint (index = joint index); BVH and FBX models use the joint
    /// index itself.
    pub node_of_joint: Vec<usize>,
    /// The skins: the joints each skinned mesh binds to and their inverse bind matrices.
    pub skins: Vec<Skin>,
    /// Meshes of the shown scene, each placed by one node.
    pub meshes: Vec<Mesh>,
    /// Materials, referenced by [`Primitive::material`].
    pub materials: Vec<Material>,
    /// Decoded base-colour images, referenced by [`Material::base_color_image`].
    pub images: Vec<Image>,
    /// Animation clips in file order ([`Model::listed_clips`] gives the user's order).
    pub clips: Vec<Clip>,
    /// How the user listed, hid and chose the opening clip (the file's sidecar,
    /// [`clip_edits`]); the default: file order, nothing hidden.
    pub arrangement: clip_edits::ClipArrangement,
    /// Non-fatal findings (unsupported extensions, morph targets, renormalised data...).
    pub warnings: Vec<String>,
    /// Per-clip analyses, computed on first use ([`Model::clip_analysis`]), and the
    /// user's overrides they depend on.
    pub analysis: analysis::ClipAnalyses,
    /// The file format the model came from.
    pub format: SourceFormat,
    /// Metres per unit of the source file: 1 for glTF; for BVH the units given
    /// ([`LoadOptions::units`]) or detected from the skeleton's height. Everything in the
    /// model is already in metres.
    pub source_units_m: f64,
    /// How the units were decided, in words, e.g. `centimetres (the skeleton is 171 units
    /// tall; a person is 1.4-2.0 m)`.
    pub source_units_reason: String,
    /// The source's up axis (`+Y` for glTF and BVH; what an FBX file declares; the
    /// model is always +Y up).
    pub source_up_axis: String,
    /// The application that wrote the file when it says (an FBX file's creator string).
    pub source_creator: Option<String>,
}

impl Model {
    /// Total vertices over all primitives.
    pub fn vertex_count(&self) -> usize {
        self.meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.positions.len())
            .sum()
    }

    /// Replaces every clip by its key-reduced form ([`crate::anim::reduce`]: channels
    /// within `tolerance_m` metres of one value become constant, measured 10 cm from each
    /// joint) and adds one warning naming the measured error, so the window's status bar
    /// and `inspect` show what was traded. Returns one report per clip.
    pub fn reduce_keys(&mut self, tolerance_m: f32) -> Result<Vec<ReductionReport>, ModelError> {
        let mut reports = Vec::with_capacity(self.clips.len());
        for clip in &mut self.clips {
            let (reduced, report) = KeyReductionJob {
                clip,
                skeleton: &self.skeleton,
                tolerance_m,
                distance_m: reduce::DEFAULT_DISTANCE_M,
            }
            .run()
            .map_err(|e| ModelError::KeyReduction {
                model: self.source.clone(),
                clip: clip.name().to_string(),
                source: e,
            })?;
            *clip = reduced;
            reports.push(report);
        }
        let (before, after) = reports.iter().fold((0, 0), |(b, a), r| {
            (b + r.animated_before, a + r.animated_after)
        });
        if let Some(worst) = reports
            .iter()
            .max_by(|a, b| a.measured_max_m.total_cmp(&b.measured_max_m))
        {
            self.warnings.push(format!(
                "keys reduced (tolerance {:.3} mm): {after} of {before} animated channels \
                 kept; largest measured error {:.3} mm, in '{}' at joint '{}'",
                tolerance_m * 1e3,
                worst.measured_max_m * 1e3,
                worst.clip,
                worst.worst_joint.as_deref().unwrap_or("-"),
            ));
        }
        Ok(reports)
    }

    /// Morph weights of every mesh (index = mesh index) at clip time `time_secs` of
    /// clip `clip` into `out`: the clip's morph-weight track of the mesh's node where it
    /// has one with the right target count, else the mesh's default weights. `None`: the
    /// defaults. `out[m]` must already hold one entry per target of mesh `m`
    /// ([`Model::default_morph_weights`] sizes it); nothing is allocated.
    pub fn morph_weights_at(&self, clip: Option<usize>, time_secs: f32, out: &mut [Vec<f32>]) {
        for (mesh, out) in out.iter_mut().enumerate() {
            self.mesh_morph_weights_at(mesh, clip, time_secs, out);
        }
    }

    /// [`Model::morph_weights_at`] for one mesh; `out` has one entry per target (else it
    /// is left alone).
    pub fn mesh_morph_weights_at(
        &self,
        mesh: usize,
        clip: Option<usize>,
        time_secs: f32,
        out: &mut [f32],
    ) {
        let Some(m) = self.meshes.get(mesh) else {
            return;
        };
        if out.len() != m.morph_weights.len() {
            return;
        }
        let track = clip
            .and_then(|c| self.clips.get(c))
            .and_then(|c| c.morph_track(m.joint))
            .filter(|t| t.targets() == out.len());
        match track {
            Some(t) if t.sample(time_secs, out).is_ok() => {}
            _ => out.copy_from_slice(&m.morph_weights),
        }
    }

    /// Every mesh's default morph weights (index = mesh index).
    pub fn default_morph_weights(&self) -> Vec<Vec<f32>> {
        self.meshes
            .iter()
            .map(|m| m.morph_weights.clone())
            .collect()
    }

    /// Clip `index`, or the one error every layer gives for an index past the clips
    /// ([`AnimError::ClipOutOfRange`]).
    pub fn clip(&self, index: usize) -> Result<&Clip, AnimError> {
        self.clips.get(index).ok_or(AnimError::ClipOutOfRange {
            clip: index,
            clips: self.clips.len(),
        })
    }

    /// Index of the clip with this name.
    pub fn find_clip(&self, name: &str) -> Option<usize> {
        self.clips.iter().position(|c| c.name() == name)
    }

    /// The clip a viewer opens on: the one the user chose ([`clip_edits`]) unless hidden,
    /// else the first listed clip that animates ([`Clip::animates`]), else the first
    /// listed clip (a file of pose takes), else `None` (no clip: the rest pose). A Mixamo
    /// download's empty `Take 001` before its real take is passed over.
    pub fn default_clip(&self) -> Option<usize> {
        let order = self.arrangement.listing_order(self.clips.len());
        let shown = |i: &usize| !self.arrangement.hidden.contains(i);
        self.arrangement
            .default_clip
            .filter(|i| *i < self.clips.len() && shown(i))
            .or_else(|| {
                order
                    .iter()
                    .copied()
                    .find(|i| shown(i) && self.clips[*i].animates())
            })
            .or_else(|| order.iter().copied().find(shown))
            .or(order.first().copied())
    }

    /// Why clip `clip` is left out of lists and grids: the user hid it, or it is an empty
    /// take (no channel at all, Mixamo's `Take 001`) in a file that has clips that
    /// animate (`None`: it is listed; a one-frame pose take is).
    pub fn clip_hidden(&self, clip: usize) -> Option<String> {
        if self.arrangement.hidden.contains(&clip) {
            return Some("hidden by you".to_string());
        }
        let why = self.clips.get(clip)?.emptiness()?;
        if why != crate::anim::ClipEmptiness::NoChannels {
            return None;
        }
        self.clips
            .iter()
            .any(Clip::animates)
            .then(|| format!("{why}: nothing to play"))
    }

    /// The clips a list shows, in the user's order: hidden ones ([`Model::clip_hidden`])
    /// only when `with_hidden`.
    pub fn listed_clips(&self, with_hidden: bool) -> Vec<usize> {
        let mut order = self.arrangement.listing_order(self.clips.len());
        if !with_hidden {
            order.retain(|&i| self.clip_hidden(i).is_none());
        }
        order
    }

    /// Indices of the clips that animate, in order: what libraries, grids and quality
    /// figures take (empty takes are listed, not played).
    pub fn animated_clips(&self) -> Vec<usize> {
        (0..self.clips.len())
            .filter(|&c| self.clips[c].animates())
            .collect()
    }
}

/// A mesh placed by one node.
#[derive(Clone, Debug)]
pub struct Mesh {
    /// Mesh name (or `mesh N`).
    pub name: String,
    /// Skeleton joint index of the node that instantiates the mesh. For unskinned meshes
    /// that joint's model transform places it; skinned meshes ignore it (glTF rule).
    pub joint: usize,
    /// Index into [`Model::skins`] for skinned meshes.
    pub skin: Option<usize>,
    /// The mesh's triangle lists, each with its own material.
    pub primitives: Vec<Primitive>,
    /// Morph weights when no clip animates them, one per morph target: the node's
    /// `weights`, else the mesh's, else 0 (glTF rule). Empty without morph targets.
    pub morph_weights: Vec<f32>,
    /// Morph target names, from the mesh's `extras.targetNames` (the common convention),
    /// else `target N`; one per morph target.
    pub target_names: Vec<String>,
}

impl Mesh {
    /// Morph targets of the mesh (every primitive has the same number).
    pub fn morph_target_count(&self) -> usize {
        self.morph_weights.len()
    }
}

/// One morph target (blend shape) of a primitive: per-vertex deltas added to the
/// primitive's attributes, weighted by the mesh's morph weight for the target. Each list
/// is empty where the target leaves that attribute alone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// POSITION deltas, bind space (metres).
    pub positions: Vec<Vec3>,
    /// NORMAL deltas (the sum is renormalised after skinning).
    pub normals: Vec<Vec3>,
    /// TANGENT deltas (xyz; the handedness w is not morphed).
    pub tangents: Vec<Vec3>,
}

/// One triangle list with de-indexed attributes in the mesh's bind space (model space for
/// skinned meshes).
#[derive(Clone, Debug)]
pub struct Primitive {
    /// Vertex positions in bind space, metres.
    pub positions: Vec<Vec3>,
    /// Unit normals; generated from faces when the file has none.
    pub normals: Vec<Vec3>,
    /// xyz tangent, w handedness; empty when absent.
    pub tangents: Vec<Vec4>,
    /// TEXCOORD_0; empty when absent.
    pub uvs: Vec<Vec2>,
    /// COLOR_0 as linear RGBA (alpha 1 for RGB colours); empty when absent.
    pub colors: Vec<Vec4>,
    /// Triangle list indices into the vertex arrays.
    pub indices: Vec<u32>,
    /// Skin-joint indices (JOINTS_0 then JOINTS_1); all 0 when unskinned.
    pub joints: Vec<[u16; MAX_INFLUENCES]>,
    /// Weights as stored (normalised by the skinning jobs). Unskinned primitives get
    /// weight 1 on palette entry 0 (their node's transform, see `render::PoseMatrices::mesh_palette`).
    pub weights: Vec<[f32; MAX_INFLUENCES]>,
    /// Index into [`Model::materials`]; `None`: the renderer's plain default material.
    pub material: Option<usize>,
    /// Morph targets, one per entry of [`Mesh::morph_weights`]; empty without.
    pub morph_targets: Vec<MorphTarget>,
}

/// The subset of a glTF PBR material the previewer shades with.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Material name from the file, else `material N`.
    pub name: String,
    /// Linear RGBA multiplier.
    pub base_color_factor: Vec4,
    /// Index into [`Model::images`].
    pub base_color_image: Option<usize>,
    /// How the base colour's alpha is used: opaque, masked by a cutoff, or blended.
    pub alpha_mode: AlphaMode,
    /// Both faces drawn (else back faces are culled, glTF's default).
    pub double_sided: bool,
    /// Linear RGB emission added to the lit colour (glTF `emissiveFactor`).
    pub emissive_factor: Vec3,
    /// Index into [`Model::images`]: sRGB emission, multiplied by the factor.
    pub emissive_image: Option<usize>,
}

impl Material {
    /// A plain opaque, single-sided material of one colour.
    pub fn plain(name: impl Into<String>, base_color_factor: Vec4) -> Self {
        Self {
            name: name.into(),
            base_color_factor,
            base_color_image: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            emissive_factor: Vec3::ZERO,
            emissive_image: None,
        }
    }
}

/// How a material's alpha (base colour factor x texture x vertex colour) is used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored; drawn fully opaque.
    Opaque,
    /// Fragments with alpha below the cutoff are discarded, the rest opaque.
    Mask(f32),
    /// Blended over what is behind, after every opaque primitive, back to front, without
    /// writing depth.
    Blend,
}

/// An RGBA8 (sRGB) image.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// sRGB RGBA bytes, `width * height * 4`, rows top to bottom.
    pub rgba8: Vec<u8>,
}

/// Whether `path` names a glTF file by its extension (.gltf or .glb, any case).
pub fn is_gltf_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("glb"))
}

/// Whether `path` names a BVH file by its extension (.bvh, any case).
pub fn is_bvh_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("bvh"))
}

/// Whether `path` names an FBX file by its extension (.fbx, any case).
pub fn is_fbx_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("fbx"))
}

/// Whether `path` names a file [`load`] opens by its extension (glTF, BVH or FBX).
pub fn is_model_path(path: &Path) -> bool {
    is_gltf_path(path) || is_bvh_path(path) || is_fbx_path(path)
}

/// Short display name for a path.
pub(crate) fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}
