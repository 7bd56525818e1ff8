use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::{Interpolation as GltfInterpolation, Property};
use gltf::json;
use gltf::mesh::{Mode, Semantic};

use super::{
    display_name, AlphaMode, Image, ImportError, ImportProblem, Material, Mesh, Model, MorphTarget,
    Primitive,
};
use crate::anim::{
    Clip, Interpolation, JointTracks, MorphTrack, Skeleton, Skin, SyncMarker, Track, Transform,
    MAX_INFLUENCES,
};

mod accessors;
mod animations;
mod buffers;
mod container;
mod document;
mod hierarchy;
mod materials;
mod meshes;
mod skins;

use accessors::*;
use animations::*;
use container::*;
use document::*;
use hierarchy::*;
use skins::*;

/// An accessor without a buffer view is zero-filled; this caps what such a declaration may
/// make us allocate.
const MAX_ZERO_FILLED_BYTES: usize = 64 << 20;
/// Caps on the imported totals, so a small file cannot instance one large mesh or one
/// large key accessor thousands of times.
const MAX_TOTAL_VERTICES: usize = 1 << 23;
const MAX_TOTAL_INDICES: usize = 1 << 25;
const MAX_TOTAL_KEYS: usize = 1 << 24;
/// Decoded base-colour images, in RGBA8 bytes, over the whole file.
const MAX_TOTAL_IMAGE_BYTES: usize = 1 << 30;
/// External image files larger than this are not read.
const MAX_EXTERNAL_IMAGE_BYTES: u64 = 256 << 20;
/// Loads a `.gltf` (external or embedded buffers) or `.glb` file from its bytes; `path`
/// names the file in errors and resolves relative URIs; `scene` is the scene to show
/// (`None`: the file's default scene, else scene 0).
pub fn load_scene_from_slice(
    bytes: &[u8],
    path: &Path,
    scene: Option<usize>,
) -> Result<Model, ImportError> {
    install_quiet_panic_hook();
    let _quiet = QuietPanics::enter();
    match panic::catch_unwind(AssertUnwindSafe(|| import(bytes, path, scene))) {
        Ok(Ok(mut model)) => {
            super::naming::name_takes_after_file(&mut model.clips, path);
            Ok(model)
        }
        Ok(Err(e)) => Err(e),
        Err(payload) => Err(ImportError::new(
            path,
            "",
            format!(
                "the file is malformed in a way the glTF parser could not handle ({})",
                panic_message(payload.as_ref())
            ),
        )),
    }
}

// ---------------------------------------------------------------------------------------
// Panic containment
// ---------------------------------------------------------------------------------------

thread_local! {
    /// Depth of imports running on this thread; panics are not printed while > 0.
    static QUIET_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Installs (once per process) a panic hook that defers to the previous hook unless the
/// panicking thread is inside an import. Other threads and other code see no change.
fn install_quiet_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET_DEPTH.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

struct QuietPanics;

impl QuietPanics {
    fn enter() -> Self {
        QUIET_DEPTH.with(|d| d.set(d.get() + 1));
        QuietPanics
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        QUIET_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

// ---------------------------------------------------------------------------------------
// Top level
// ---------------------------------------------------------------------------------------

fn import(bytes: &[u8], path: &Path, scene: Option<usize>) -> Result<Model, ImportError> {
    let mut warnings = Vec::new();
    let (json_bytes, bin) = split_container(bytes, path, &mut warnings)?;
    let is_glb = bytes.starts_with(GLB_MAGIC);
    let (root, channel_map) = parse_json(json_bytes, path, &mut warnings)?;
    check_asset(&root, path)?;
    let quantized = check_extensions(&root, path, &mut warnings)?;
    validate_structure(&root, path, &channel_map)?;
    let doc = gltf::Document::from_json_without_validation(root);

    let mut imp = Importer {
        file: path,
        base_dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        doc: &doc,
        buffers: Vec::new(),
        buffer_errors: Vec::new(),
        fallback_buffers: Vec::new(),
        decoded_views: Vec::new(),
        decoded_bytes: Cell::new(0),
        channel_map,
        warnings,
        quantized,
        requested_scene: scene,
        shown_scene: None,
        uv_transforms: Vec::new(),
        total_vertices: 0,
        total_indices: 0,
        total_keys: 0,
        total_image_bytes: 0,
    };
    imp.load_buffers(bin, is_glb);
    imp.decode_meshopt_views();
    let hierarchy = imp.hierarchy()?;
    let mut skeleton = imp.skeleton(&hierarchy)?;
    let skins = imp.skins(&hierarchy, &skeleton)?;
    skeleton.mark_bound_by(&skins.skins);
    let (materials, images) = imp.materials();
    let meshes = imp.meshes(&hierarchy, &skins)?;
    let clips = imp.clips(&hierarchy, skeleton.joint_count())?;
    imp.warn_unused_broken_buffers();

    let Importer { warnings, .. } = imp;
    let imp_scene = imp.shown_scene;
    let scenes = doc
        .scenes()
        .map(|s| {
            s.name()
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| format!("scene {}", s.index()))
        })
        .collect();
    Ok(Model {
        source: display_name(path),
        scenes,
        scene: imp_scene,
        skeleton,
        node_of_joint: hierarchy.order.clone(),
        skins: skins.skins,
        meshes,
        materials,
        images,
        clips,
        arrangement: Default::default(),
        warnings,
        analysis: Default::default(),
        format: super::SourceFormat::Gltf,
        source_units_m: 1.0,
        source_units_reason: "metres (glTF's unit)".to_string(),
        source_up_axis: "+Y".to_string(),
        source_creator: None,
    })
}

// ---------------------------------------------------------------------------------------
// Container: GLB chunks or JSON text
// ---------------------------------------------------------------------------------------

/// A compressed buffer view's bytes once decoded, or why they could not be.
type DecodedView = std::cell::OnceCell<Result<Vec<u8>, ImportProblem>>;

struct Importer<'a> {
    file: &'a Path,
    base_dir: PathBuf,
    doc: &'a gltf::Document,
    /// Buffer bytes, exactly `byteLength` long; empty where loading failed.
    buffers: Vec<gltf::buffer::Data>,
    /// Why a buffer could not be loaded; reported when something reads from it.
    buffer_errors: Vec<Option<ImportProblem>>,
    /// `EXT_meshopt_compression` fallback buffers (no data of their own; never warned
    /// about).
    fallback_buffers: Vec<bool>,
    /// Per buffer view: its `EXT_meshopt_compression` extension (`None` for plain
    /// views), decoded the first time an accessor reads the view (or why it could not
    /// be).
    decoded_views: Vec<Option<DecodedView>>,
    /// Bytes decoded from compressed views so far (capped in all, not only per view).
    decoded_bytes: Cell<usize>,
    channel_map: ChannelMap,
    warnings: Vec<String>,
    /// `KHR_mesh_quantization` is in use: vertex attributes may be 8/16-bit integers.
    quantized: bool,
    /// The scene the caller asked for (`None`: the default, else scene 0), and the one
    /// shown.
    requested_scene: Option<usize>,
    shown_scene: Option<usize>,
    /// Per material: its base colour texture's `KHR_texture_transform`, applied to the
    /// UVs of the primitives that use it.
    uv_transforms: Vec<Option<glam::Affine2>>,
    total_vertices: usize,
    total_indices: usize,
    total_keys: usize,
    total_image_bytes: usize,
}

impl Importer<'_> {
    fn err(&self, element: impl Into<String>, message: impl Into<String>) -> ImportError {
        ImportError::new(self.file, element, message)
    }

    fn warn(&mut self, element: &str, message: impl AsRef<str>) {
        self.warnings
            .push(format!("{element}: {}", message.as_ref()));
    }
}
