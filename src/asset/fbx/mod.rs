//! FBX (binary and ASCII, versions 6100-7700) into the same [`Model`] a glTF file gives,
//! read with the `ufbx` crate (ufbx's C loader; we write no FBX parser).
//!
//! How the file maps onto the model:
//! - ufbx converts the scene to glTF conventions while loading (metres, +Y up,
//!   right-handed; `ModifyGeometry`, so vertices and translations are scaled rather than a
//!   scale being left on a root node) and compensates Maya's segment scale compensation
//!   and other non-standard scale inheritance (adding scale helper nodes where it cannot;
//!   they become joints named `<node> (scale helper)`). A left-handed file is mirrored
//!   along X, as its author saw it upright. With [`LoadOptions::source_space`]
//!   nothing is converted: lengths and axes stay the file's.
//! - Every node below ufbx's root becomes a joint, parent before child, with its local
//!   transform (pre/post rotations, pivots and offsets folded in by ufbx) as the rest pose.
//!   The joints a skin binds, and every FBX limb (bone) node, are the bones; a file with
//!   neither (only nulls) counts every joint as one.
//! - Meshes: one [`Mesh`] per node that instances a mesh, one primitive per material,
//!   faces triangulated, one vertex per face corner. Skinned meshes keep their geometry
//!   space and each skin cluster's `geometry_to_bone` is its inverse bind matrix; vertices
//!   that no cluster weighs follow the mesh node (ufbx's rule). Unskinned meshes get their
//!   geometric transform baked in and follow their node.
//! - Blend shapes become morph targets, one per shape (in-between shapes included); a
//!   channel's weight is spread over its shapes as ufbx does (between the two shapes
//!   around the weight, linearly), so a morph weight track per mesh reproduces it.
//! - Every take (anim stack) is a clip named after it. Its layers (weights, additive and
//!   override modes, rotation orders) are evaluated by ufbx's `bake_anim` at the file's
//!   frame rate where curves are not linear, at their own keys where they are. Clip time 0
//!   is the take's start (`Clip::source_start_secs` keeps the scene time of it).
//! - Everything ufbx hands over (indices, counts, values) is checked before use; a file
//!   ufbx refuses gives ufbx's reason.

mod anim;
mod material;
mod mesh;

pub use mesh::inbetween_weights;

use std::collections::HashMap;
use std::path::Path;

use glam::{DMat4, DQuat, DVec3, Mat4, Quat, Vec3};

use super::{display_name, ImportError, ImportProblem, LoadOptions, Model, SourceFormat};
use crate::anim::{Skeleton, Transform};

/// ufbx may use this much memory for its result and as much again for temporary data; a
/// malformed file that declares huge arrays fails with ufbx's out-of-memory error instead
/// of exhausting the machine.
const MEMORY_LIMIT_BYTES: usize = 2 << 30;
/// Joints (nodes) a file may have.
const MAX_JOINTS: usize = 1 << 16;

/// Whether `bytes` look like an FBX file: the binary magic, or an ASCII file's
/// `FBXHeaderExtension` near the start.
pub(crate) fn looks_like_fbx(bytes: &[u8]) -> bool {
    if bytes.starts_with(b"Kaydara FBX Binary") {
        return true;
    }
    let head = &bytes[..bytes.len().min(4096)];
    head.windows(18).any(|w| w == b"FBXHeaderExtension")
}

/// Imports an FBX file's bytes; `path` names it in errors and finds textures beside it.
pub(crate) fn load_from_slice(
    bytes: &[u8],
    path: &Path,
    options: &LoadOptions,
) -> Result<Model, ImportError> {
    let scene = ufbx::load_memory(bytes, ufbx_options(options.source_space)).map_err(|e| {
        // A file cut short fails somewhere inside (often as corrupt compressed data): say
        // first what the user can act on.
        let text = match binary_sections_end(bytes) {
            Some(claimed) if claimed > bytes.len() as u64 => format!(
                "the file looks truncated: it is {} bytes, its sections run to {claimed}; {}",
                bytes.len(),
                error_text(&e)
            ),
            _ => error_text(&e),
        };
        ImportError::new(path, "", text)
    })?;
    let mut warnings = Vec::new();
    if options.units.is_some() {
        warnings
            .push("units: the --units given is ignored; an FBX file declares its own".to_string());
    }

    let joints = Joints::collect(&scene).map_err(|e| ImportError::caused_by(path, "nodes", e))?;
    let mut skeleton = joints
        .skeleton(&scene)
        .map_err(|(element, e)| ImportError::new(path, element, e))?;

    let built = mesh::build(&scene, &joints, path, &mut warnings)?;
    mesh::check_skins(&built.skins, &skeleton)
        .map_err(|e| ImportError::caused_by(path, "skins", e))?;
    skeleton.mark_bound_by(&built.skins);
    let bones = joints.bones(&scene, &skeleton, &built.skins);
    skeleton.mark_bones(bones);

    let fps = frame_rate(&scene, &mut warnings);
    let mut clips = anim::clips(&scene, &joints, &skeleton, &built.morphs, fps, path)?;
    super::naming::name_takes_after_file(&mut clips, path);

    let settings = &scene.settings;
    // What the file declares (UnitScaleFactor): the unit its data is in. The
    // "original" settings describe the authoring application's scene before export.
    let source_units_m = settings.unit_meters;
    let source_units_m = if source_units_m.is_finite() && source_units_m > 0.0 {
        source_units_m
    } else {
        0.01
    };
    let creator = scene.metadata.creator.to_string();
    let mut model = Model {
        source: display_name(path),
        scenes: Vec::new(),
        scene: None,
        skeleton,
        node_of_joint: (0..joints.nodes.len()).collect(),
        skins: built.skins,
        meshes: built.meshes,
        materials: built.materials,
        images: built.images,
        clips,
        arrangement: Default::default(),
        warnings,
        analysis: Default::default(),
        format: SourceFormat::Fbx,
        source_units_m,
        source_units_reason: format!(
            "{} (declared by the file: {} m per unit){}",
            unit_name(source_units_m),
            source_units_m,
            if options.source_space {
                "; kept as in the file"
            } else {
                "; converted to metres"
            }
        ),
        source_up_axis: declared_up(&scene).to_string(),
        source_creator: (!creator.trim().is_empty()).then(|| creator.trim().to_string()),
    };
    if model.meshes.is_empty() && model.skeleton.joint_count() == 0 {
        return Err(ImportError::new(
            path,
            "",
            "the file has no node to show (no mesh, no bone, no null)",
        ));
    }
    // A skeleton-only file (a Mixamo "without skin" download, a MotionBuilder take): draw
    // the bones as shapes.
    super::bone_shapes::add_bone_shapes(&mut model)
        .map_err(|e| ImportError::caused_by(path, "skeleton", e))?;
    Ok(model)
}

/// ufbx's load options: glTF conventions unless `source_space`.
fn ufbx_options(source_space: bool) -> ufbx::LoadOpts<'static> {
    let mut opts = ufbx::LoadOpts {
        generate_missing_normals: true,
        clean_skin_weights: true,
        // Textures are read by us, beside the file, with a size limit.
        load_external_files: false,
        ..Default::default()
    };
    opts.temp_allocator.memory_limit = MEMORY_LIMIT_BYTES;
    opts.result_allocator.memory_limit = MEMORY_LIMIT_BYTES;
    if !source_space {
        opts.target_axes = ufbx::CoordinateAxes::right_handed_y_up();
        opts.target_unit_meters = 1.0;
        opts.space_conversion = ufbx::SpaceConversion::ModifyGeometry;
        // A left-handed file is mirrored along X (its right axis), faces turned round so
        // they still face out. Without a mirror axis ufbx turns such a scene upside down
        // (x, y and z all negated) to reach right-handed axes.
        opts.handedness_conversion_axis = ufbx::MirrorAxis::X;
    }
    opts.inherit_mode_handling = ufbx::InheritModeHandling::Compensate;
    opts
}

/// ufbx's error as one line, in words where ufbx's own are terse (its error stack, which
/// names the element, is compiled out of release builds).
pub(super) fn error_text(error: &ufbx::Error) -> String {
    let mut buf = vec![0u8; 2048];
    let n = ufbx::format_error(&mut buf, error).min(buf.len());
    let text = String::from_utf8_lossy(&buf[..n]);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let first = lines.first().copied().unwrap_or("");
    // "ufbx v0.23.1 error: Truncated file" -> "Truncated file".
    let what = first.split_once("error: ").map_or(first, |(_, w)| w).trim();
    let plain = match what {
        "Truncated file" => "the file ends early (truncated)".to_string(),
        "Unrecognized file format" => {
            "not a file ufbx recognises as FBX (binary or ASCII, versions 3000-7700)".to_string()
        }
        "Failed to load" => "its structure is malformed, ufbx cannot read it".to_string(),
        "Bad DEFLATE data" => "a compressed array in it is corrupt".to_string(),
        "Out of memory" | "Memory limit exceeded" => {
            "it declares more data than the importer allows".to_string()
        }
        "" => "the file could not be read".to_string(),
        other => other.to_string(),
    };
    let mut out = format!("{plain} (ufbx: {what}");
    for extra in lines.iter().skip(1) {
        out.push_str("; ");
        out.push_str(extra);
    }
    out.push(')');
    out
}

/// Where the top-level sections of a binary FBX say the file ends (bytes): each record
/// starts with the absolute offset of its end, and the next record starts there. `None`
/// for an ASCII file or one whose header cannot be read. Only the record headers are
/// read (ufbx parses the file); a record ending past the file's length means the file
/// was cut short.
fn binary_sections_end(bytes: &[u8]) -> Option<u64> {
    const MAGIC: &[u8] = b"Kaydara FBX Binary  \0";
    if !bytes.starts_with(MAGIC) || bytes.len() < 27 {
        return None;
    }
    let version = u32::from_le_bytes(bytes[23..27].try_into().ok()?);
    let wide = version >= 7500;
    let field = |at: usize| -> Option<u64> {
        if wide {
            Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
        } else {
            Some(u64::from(u32::from_le_bytes(
                bytes.get(at..at + 4)?.try_into().ok()?,
            )))
        }
    };
    let mut at = 27usize;
    let mut end = at as u64;
    // A record list ends with a null record (all zero); cap the walk for hostile files.
    for _ in 0..1_000_000 {
        let record_end = match field(at) {
            Some(e) => e,
            // The header itself is cut: the file ends inside a record.
            None => return Some(end.max(at as u64 + 1)),
        };
        if record_end == 0 {
            break;
        }
        if record_end <= at as u64 {
            return None;
        }
        end = record_end;
        if record_end > bytes.len() as u64 {
            break;
        }
        at = record_end as usize;
    }
    Some(end)
}

/// The scene's frame rate (Hz), 30 with a warning when it declares none usable.
fn frame_rate(scene: &ufbx::Scene, warnings: &mut Vec<String>) -> f64 {
    let fps = scene.settings.frames_per_second;
    if fps.is_finite() && (1.0..=1000.0).contains(&fps) {
        fps
    } else {
        warnings.push(format!(
            "frame rate: the file declares {fps} frames/s; takes are sampled at 30"
        ));
        30.0
    }
}

/// `centimetres`, `inches`... or `0.05 m per unit` ([`crate::Units`]' words).
fn unit_name(metres: f64) -> String {
    crate::Units::NAMED
        .into_iter()
        .find(|u| ((metres / u.metres_per_unit()) - 1.0).abs() < 1e-6)
        .unwrap_or(crate::Units::MetresPerUnit(metres))
        .describe()
}

/// The up axis the file declares: what ufbx recorded before converting, else the
/// `UpAxis`/`UpAxisSign` global settings (files already +Y up keep ufbx's record empty).
fn declared_up(scene: &ufbx::Scene) -> &'static str {
    // The file's UpAxis (what its data uses; OriginalUpAxis is the authoring
    // application's before export).
    let recorded = axis_name(scene.settings.axes.up);
    if recorded != "unknown" {
        return recorded;
    }
    let props = &scene.settings.props;
    let axis = ufbx::find_prop(props, "UpAxis").map(|p| p.value_int);
    let sign = ufbx::find_prop(props, "UpAxisSign").map_or(1, |p| p.value_int);
    match (axis, sign >= 0) {
        (Some(0), true) => "+X",
        (Some(0), false) => "-X",
        (Some(1), true) => "+Y",
        (Some(1), false) => "-Y",
        (Some(2), true) => "+Z",
        (Some(2), false) => "-Z",
        // Old files (FBX 5000/6100) may not say; ufbx reads them as +Y up.
        _ => "+Y (not declared)",
    }
}

fn axis_name(axis: ufbx::CoordinateAxis) -> &'static str {
    match axis {
        ufbx::CoordinateAxis::PositiveX => "+X",
        ufbx::CoordinateAxis::NegativeX => "-X",
        ufbx::CoordinateAxis::PositiveY => "+Y",
        ufbx::CoordinateAxis::NegativeY => "-Y",
        ufbx::CoordinateAxis::PositiveZ => "+Z",
        ufbx::CoordinateAxis::NegativeZ => "-Z",
        _ => "unknown",
    }
}

/// The scene's nodes as joints, parent before child.
pub(super) struct Joints {
    /// ufbx node (index into `scene.nodes`) of each joint.
    pub nodes: Vec<usize>,
    /// Joint of each ufbx node (by index into `scene.nodes`), where it is one.
    pub of_node: HashMap<usize, usize>,
}

impl Joints {
    /// Every node below ufbx's root (the root too when it carries a transform), depth
    /// first, so that parents come first.
    fn collect(scene: &ufbx::Scene) -> Result<Joints, ImportProblem> {
        let count = scene.nodes.len();
        let root = &scene.root_node;
        let root_index = root.element.typed_id as usize;
        let keep_root = !is_identity(&root.local_transform);
        let mut nodes = Vec::new();
        let mut of_node = HashMap::new();
        let mut stack: Vec<usize> = if keep_root {
            vec![root_index]
        } else {
            root.children
                .iter()
                .rev()
                .map(|c| c.element.typed_id as usize)
                .collect()
        };
        while let Some(n) = stack.pop() {
            if n >= count {
                return Err(format!("node index {n} out of range (the scene has {count})").into());
            }
            if of_node.contains_key(&n) {
                return Err(format!(
                    "node '{}' is reached twice (a cycle in the hierarchy)",
                    scene.nodes[n].element.name
                )
                .into());
            }
            if nodes.len() >= MAX_JOINTS {
                return Err(format!("more than {MAX_JOINTS} nodes").into());
            }
            of_node.insert(n, nodes.len());
            nodes.push(n);
            for c in scene.nodes[n].children.iter().rev() {
                stack.push(c.element.typed_id as usize);
            }
        }
        Ok(Joints { nodes, of_node })
    }

    /// Joint of a ufbx node, when it is one.
    pub fn of(&self, node: &ufbx::Node) -> Option<usize> {
        self.of_node.get(&(node.element.typed_id as usize)).copied()
    }

    fn skeleton(&self, scene: &ufbx::Scene) -> Result<Skeleton, (String, String)> {
        let mut names = Vec::with_capacity(self.nodes.len());
        let mut parents = Vec::with_capacity(self.nodes.len());
        let mut rest = Vec::with_capacity(self.nodes.len());
        for (j, &n) in self.nodes.iter().enumerate() {
            let node = &scene.nodes[n];
            names.push(node_name(node, j));
            let parent = node.parent.as_ref().and_then(|p| self.of(p));
            if parent.is_some_and(|p| p >= j) {
                return Err((
                    format!("node '{}'", node.element.name),
                    "its parent comes after it".to_string(),
                ));
            }
            parents.push(parent);
            let t = transform(&node.local_transform);
            if !t.is_finite() {
                return Err((
                    format!("node '{}'", node.element.name),
                    "its transform is not finite".to_string(),
                ));
            }
            rest.push(t);
        }
        Skeleton::new(names, parents, rest).map_err(|e| ("nodes".to_string(), e.to_string()))
    }

    /// Bones: what the skins bind, FBX limb nodes, and the nodes between a bone and its
    /// skeleton's top (a hierarchy's `Armature` node is not one: only ancestors that are
    /// limbs or skin joints are).
    fn bones(
        &self,
        scene: &ufbx::Scene,
        skeleton: &Skeleton,
        skins: &[crate::anim::Skin],
    ) -> Vec<bool> {
        let mut bones: Vec<bool> = (0..self.nodes.len())
            .map(|j| skeleton.is_bound(j) && !skins.is_empty())
            .collect();
        for (j, &n) in self.nodes.iter().enumerate() {
            let node = &scene.nodes[n];
            if node.bone.is_some() || node.attrib_type == ufbx::ElementType::Bone {
                bones[j] = true;
            }
        }
        // Scale helpers ufbx inserted between two bones are part of the chain.
        for (j, &n) in self.nodes.iter().enumerate() {
            if scene.nodes[n].is_scale_helper {
                if let Some(p) = skeleton.parents()[j] {
                    bones[j] = bones[p];
                }
            }
        }
        bones
    }
}

/// A node's name: the file's, `<parent> (scale helper)` for helpers ufbx made, else
/// `node N`.
fn node_name(node: &ufbx::Node, joint: usize) -> String {
    let name = node.element.name.to_string();
    if !name.is_empty() {
        return name;
    }
    if node.is_scale_helper || node.is_geometry_transform_helper {
        if let Some(p) = node.parent.as_ref() {
            let what = if node.is_scale_helper {
                "scale helper"
            } else {
                "geometry helper"
            };
            return format!("{} ({what})", p.element.name);
        }
    }
    format!("node {joint}")
}

fn is_identity(t: &ufbx::Transform) -> bool {
    let t = transform(t);
    t.translation.abs_diff_eq(Vec3::ZERO, 1e-9)
        && t.rotation.abs_diff_eq(Quat::IDENTITY, 1e-9)
        && t.scale.abs_diff_eq(Vec3::ONE, 1e-9)
}

pub(super) fn dvec3(v: ufbx::Vec3) -> DVec3 {
    DVec3::new(v.x, v.y, v.z)
}

pub(super) fn vec3(v: ufbx::Vec3) -> Vec3 {
    dvec3(v).as_vec3()
}

pub(super) fn quat(q: ufbx::Quat) -> Quat {
    let q = DQuat::from_xyzw(q.x, q.y, q.z, q.w);
    let len = q.length();
    if len.is_finite() && len > 1e-12 {
        (q / len).as_quat()
    } else {
        Quat::from_xyzw(f32::NAN, f32::NAN, f32::NAN, f32::NAN)
    }
}

pub(super) fn transform(t: &ufbx::Transform) -> Transform {
    Transform {
        translation: vec3(t.translation),
        rotation: quat(t.rotation),
        scale: vec3(t.scale),
    }
}

/// An affine ufbx matrix (3 columns of axes, one of translation) as a `DMat4`.
pub(super) fn dmat4(m: &ufbx::Matrix) -> DMat4 {
    DMat4::from_cols_array(&[
        m.m00, m.m10, m.m20, 0.0, m.m01, m.m11, m.m21, 0.0, m.m02, m.m12, m.m22, 0.0, m.m03, m.m13,
        m.m23, 1.0,
    ])
}

pub(super) fn mat4(m: &ufbx::Matrix) -> Mat4 {
    dmat4(m).as_mat4()
}
