//! FBX meshes, skins, blend shapes and materials into the model's types.

use std::path::Path;

use glam::{DMat3, DMat4, Vec2, Vec3, Vec4};

use super::material::Materials;
use super::{dmat4, mat4, Joints};
use crate::anim::{Skin, MAX_INFLUENCES};
use crate::{Image, ImportError, ImportProblem, Material, Mesh, MorphTarget, Primitive};

/// Caps on the imported totals (face corners become vertices).
const MAX_TOTAL_VERTICES: usize = 1 << 23;

/// What the meshes of a file give the model, plus what the takes need to animate their
/// blend shapes.
pub(super) struct Built<'s> {
    pub meshes: Vec<Mesh>,
    pub skins: Vec<Skin>,
    pub materials: Vec<Material>,
    pub images: Vec<Image>,
    pub morphs: Vec<MorphSource<'s>>,
}

/// The blend channels behind one mesh's morph targets, in target order.
pub(super) struct MorphSource<'s> {
    /// Index into the model's meshes.
    pub mesh: usize,
    /// Joint (node) of the mesh: its morph track's key.
    pub joint: usize,
    /// Per channel: the channel and the target weights of its shapes (one morph target
    /// each, consecutive).
    pub channels: Vec<(&'s ufbx::BlendChannel, Vec<f64>)>,
}

/// The weight each shape of a blend channel gets at channel weight `weight` (1 = 100%),
/// given the shapes' target weights in increasing order: ufbx's (and Maya's) rule. The
/// weight lies between two consecutive targets (0 counting as an implicit target with no
/// shape), which share it linearly; beyond the last target the last two extrapolate.
pub fn inbetween_weights(weight: f64, targets: &[f64]) -> Vec<f64> {
    let n = targets.len();
    let mut out = vec![0.0; n];
    if n == 0 || !weight.is_finite() {
        return out;
    }
    // Shapes are indexed 0..n; `None` is the implicit zero shape at target weight 0.
    let target = |k: Option<usize>| k.map_or(0.0, |k| targets[k]);
    let last_negative = targets.iter().rposition(|&t| t < 0.0);
    let (mut prev, mut next): (Option<usize>, Option<usize>) = (None, None);
    if weight > 0.0 {
        if let Some(k) = last_negative {
            prev = Some(k);
        }
        let start = last_negative.map_or(0, |k| k + 1);
        for (k, &t) in targets.iter().enumerate().skip(start) {
            prev = next;
            next = Some(k);
            if t > weight {
                break;
            }
        }
    } else {
        let start = last_negative.map_or(0, |k| k + 1);
        if start < n {
            prev = Some(start);
        }
        if let Some(first) = last_negative {
            for k in (0..=first).rev() {
                prev = next;
                next = Some(k);
                if targets[k] < weight {
                    break;
                }
            }
        }
    }
    let delta = target(next) - target(prev);
    if delta != 0.0 {
        let t = (weight - target(prev)) / delta;
        if let Some(p) = prev {
            out[p] = 1.0 - t;
        }
        if let Some(q) = next {
            out[q] = t;
        }
    }
    out
}

/// Builds every mesh instance of the scene (nodes in joint order).
pub(super) fn build<'s>(
    scene: &'s ufbx::Scene,
    joints: &Joints,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<Built<'s>, ImportError> {
    let mut out = Built {
        meshes: Vec::new(),
        skins: Vec::new(),
        materials: Vec::new(),
        images: Vec::new(),
        morphs: Vec::new(),
    };
    let materials = Materials::build(scene, path, &mut out.materials, &mut out.images, warnings);
    let mut total_vertices = 0usize;
    let mut over_influences = 0usize;
    for (joint, &n) in joints.nodes.iter().enumerate() {
        let node = &scene.nodes[n];
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        let element = || {
            format!(
                "mesh '{}' (node '{}')",
                mesh.element.name, node.element.name
            )
        };
        let at = |message: String| ImportError::new(path, element(), message);
        total_vertices = total_vertices.saturating_add(mesh.num_indices);
        if total_vertices > MAX_TOTAL_VERTICES {
            return Err(at(format!(
                "the meshes have more than {MAX_TOTAL_VERTICES} face corners in all"
            )));
        }
        let mesh_index = out.meshes.len();
        let skin = build_skin(mesh, node, joints, &mut out, &mut over_influences)
            .map_err(|e| at(e.message))?;
        let morph = morph_shapes(mesh).map_err(|e| at(e.message))?;
        // Shapes are stored per face corner once triangulated.
        let shapes: usize = morph.channels.iter().map(|(_, s)| s.len()).sum();
        if shapes.saturating_mul(mesh.num_triangles.saturating_mul(3)) > MAX_TOTAL_VERTICES {
            return Err(at(format!(
                "{shapes} blend shapes on {} triangles: more than {MAX_TOTAL_VERTICES} shape corners",
                mesh.num_triangles
            )));
        }
        let primitives =
            primitives(mesh, node, skin.as_ref(), &morph, &materials).map_err(|e| at(e.message))?;
        if primitives.is_empty() {
            continue;
        }
        if skin.as_ref().is_some_and(|_| mesh.skin_deformers.len() > 1) {
            warnings.push(format!(
                "{}: {} skin deformers; only the first is used",
                element(),
                mesh.skin_deformers.len()
            ));
        }
        if skin.as_ref().is_some_and(|s| s.dual_quaternion) {
            warnings.push(format!(
                "{}: dual-quaternion skinning is drawn with linear blend skinning",
                element()
            ));
        }
        let target_names: Vec<String> = morph
            .channels
            .iter()
            .flat_map(|(channel, shapes)| {
                shapes.iter().map(move |s| {
                    if shapes.len() == 1 {
                        channel.element.name.to_string()
                    } else {
                        format!("{} ({}%)", channel.element.name, s.target_weight * 100.0)
                    }
                })
            })
            .collect();
        let morph_weights: Vec<f32> = morph
            .channels
            .iter()
            .flat_map(|(channel, shapes)| {
                let targets: Vec<f64> = shapes.iter().map(|s| s.target_weight).collect();
                inbetween_weights(channel.weight, &targets)
            })
            .map(|w| w as f32)
            .collect();
        if !morph.channels.is_empty() {
            out.morphs.push(MorphSource {
                mesh: mesh_index,
                joint,
                channels: morph
                    .channels
                    .iter()
                    .map(|(c, shapes)| (*c, shapes.iter().map(|s| s.target_weight).collect()))
                    .collect(),
            });
        }
        out.meshes.push(Mesh {
            name: if mesh.element.name.is_empty() {
                node.element.name.to_string()
            } else {
                mesh.element.name.to_string()
            },
            joint,
            skin: skin.map(|s| s.index),
            primitives,
            morph_weights,
            target_names,
        });
    }
    if over_influences > 0 {
        warnings.push(format!(
            "skins: {over_influences} vertices had more than {MAX_INFLUENCES} influences; \
             the strongest {MAX_INFLUENCES} are kept and renormalised"
        ));
    }
    Ok(out)
}

/// A mesh's skin: the model skin's index and each vertex's influences.
struct BuiltSkin {
    index: usize,
    dual_quaternion: bool,
    /// Per mesh vertex (not corner).
    influences: Vec<([u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES])>,
}

fn build_skin(
    mesh: &ufbx::Mesh,
    node: &ufbx::Node,
    joints: &Joints,
    out: &mut Built,
    over_influences: &mut usize,
) -> Result<Option<BuiltSkin>, ImportProblem> {
    let Some(deformer) = mesh.skin_deformers.first() else {
        return Ok(None);
    };
    let clusters = &deformer.clusters;
    if clusters.is_empty() {
        return Ok(None);
    }
    let Some(mesh_joint) = joints.of(node) else {
        return Err("its node is not in the scene".into());
    };
    let mut skin_joints = Vec::with_capacity(clusters.len() + 1);
    let mut inverse_bind = Vec::with_capacity(clusters.len() + 1);
    for (c, cluster) in clusters.iter().enumerate() {
        let joint = cluster
            .bone_node
            .as_ref()
            .and_then(|b| joints.of(b))
            // A cluster without a bone weighs its vertices to the mesh itself.
            .unwrap_or(mesh_joint);
        let m = mat4(&cluster.geometry_to_bone);
        if !m.is_finite() {
            return Err(format!(
                "skin cluster {c} ('{}'): its bind matrix is not finite",
                cluster.element.name
            )
            .into());
        }
        skin_joints.push(joint);
        inverse_bind.push(m);
    }
    // Vertices no cluster weighs follow the mesh node (ufbx's fallback).
    let fallback = skin_joints.len();
    skin_joints.push(mesh_joint);
    inverse_bind.push(mat4(&node.geometry_to_node));
    if skin_joints.len() > usize::from(u16::MAX) {
        return Err(format!(
            "{} skin clusters, more than a skin may have",
            clusters.len()
        )
        .into());
    }
    let num_vertices = mesh.num_vertices;
    let vertices = &deformer.vertices;
    let weights = &deformer.weights;
    let mut influences = Vec::with_capacity(num_vertices);
    for v in 0..num_vertices {
        let mut j = [0u16; MAX_INFLUENCES];
        let mut w = [0.0f32; MAX_INFLUENCES];
        let mut count = 0;
        if let Some(sv) = vertices.get(v) {
            let begin = sv.weight_begin as usize;
            let end = begin.saturating_add(sv.num_weights as usize);
            let list = weights
                .get(begin..end)
                .ok_or_else(|| format!("skin vertex {v}: weights {begin}..{end} out of range"))?;
            let mut sorted: Vec<(u32, f64)> = list
                .iter()
                .filter(|sw| sw.weight.is_finite() && sw.weight > 0.0)
                .map(|sw| (sw.cluster_index, sw.weight))
                .collect();
            // Normalised in f64 (a weight of 1e300 would be infinite as f32).
            let total: f64 = sorted.iter().take(MAX_INFLUENCES).map(|s| s.1).sum();
            if total.is_finite() && total > 0.0 {
                for s in &mut sorted {
                    s.1 /= total;
                }
            }
            sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
            if sorted.len() > MAX_INFLUENCES {
                *over_influences += 1;
            }
            for &(cluster, weight) in sorted.iter().take(MAX_INFLUENCES) {
                if cluster as usize >= clusters.len() {
                    return Err(format!(
                        "skin vertex {v}: cluster {cluster} out of range ({} clusters)",
                        clusters.len()
                    )
                    .into());
                }
                j[count] = cluster as u16;
                w[count] = weight as f32;
                count += 1;
            }
        }
        let sum: f32 = w.iter().sum();
        if count == 0 || !sum.is_finite() || sum <= 0.0 {
            j = [0; MAX_INFLUENCES];
            w = [0.0; MAX_INFLUENCES];
            j[0] = fallback as u16;
            w[0] = 1.0;
        } else {
            for x in &mut w {
                *x /= sum;
            }
        }
        influences.push((j, w));
    }
    let name = if !deformer.element.name.is_empty() {
        deformer.element.name.to_string()
    } else if !mesh.element.name.is_empty() {
        format!("skin of {}", mesh.element.name)
    } else {
        // Neither named (Maya's sausage sample): the mesh's node, else its place.
        match mesh.element.instances.first() {
            Some(node) if !node.element.name.is_empty() => format!("skin of {}", node.element.name),
            _ => format!("skin {}", mesh.element.typed_id),
        }
    };
    // Checked against the skeleton by the caller's Skin::new equivalent below.
    let skin = Skin {
        name,
        joints: skin_joints,
        inverse_bind,
    };
    out.skins.push(skin);
    Ok(Some(BuiltSkin {
        index: out.skins.len() - 1,
        dual_quaternion: deformer.skinning_method == ufbx::SkinningMethod::DualQuaternion,
        influences,
    }))
}

/// The blend shapes of a mesh: per channel its shapes (in-betweens included) by target
/// weight, and per shape a dense per-vertex position and normal offset.
struct MorphShapes<'s> {
    channels: Vec<(&'s ufbx::BlendChannel, Vec<ShapeOffsets>)>,
}

struct ShapeOffsets {
    target_weight: f64,
    positions: Vec<Vec3>,
    /// Empty when the shape has no normal offsets.
    normals: Vec<Vec3>,
}

fn morph_shapes(mesh: &ufbx::Mesh) -> Result<MorphShapes<'_>, ImportProblem> {
    let n = mesh.num_vertices;
    let mut channels = Vec::new();
    let mut targets = 0usize;
    for deformer in &mesh.blend_deformers {
        for channel in &deformer.channels {
            let mut shapes = Vec::new();
            for key in &channel.keyframes {
                let shape = &key.shape;
                let count = shape.offset_vertices.len();
                if shape.position_offsets.len() != count {
                    return Err(format!(
                        "blend shape '{}': {} offsets for {} vertices",
                        shape.element.name,
                        shape.position_offsets.len(),
                        count
                    )
                    .into());
                }
                let has_normals = shape.normal_offsets.len() == count && count > 0;
                let mut positions = vec![Vec3::ZERO; n];
                let mut normals = if has_normals {
                    vec![Vec3::ZERO; n]
                } else {
                    Vec::new()
                };
                for k in 0..count {
                    let v = shape.offset_vertices[k] as usize;
                    let Some(slot) = positions.get_mut(v) else {
                        return Err(format!(
                            "blend shape '{}': vertex {v} out of range ({n} vertices)",
                            shape.element.name
                        )
                        .into());
                    };
                    // A shape may weigh its offsets per vertex (Blender's shape keys with a
                    // vertex group).
                    let weight = shape.offset_weights.get(k).copied().unwrap_or(1.0);
                    *slot = (super::dvec3(shape.position_offsets[k]) * weight).as_vec3();
                    if has_normals {
                        normals[v] = (super::dvec3(shape.normal_offsets[k]) * weight).as_vec3();
                    }
                }
                if !key.target_weight.is_finite() {
                    return Err(format!(
                        "blend shape '{}': its target weight is not finite",
                        shape.element.name
                    )
                    .into());
                }
                shapes.push(ShapeOffsets {
                    target_weight: key.target_weight,
                    positions,
                    normals,
                });
                targets += 1;
                if targets.saturating_mul(n) > MAX_TOTAL_VERTICES {
                    return Err(format!(
                        "blend shapes: more than {MAX_TOTAL_VERTICES} shape vertices"
                    )
                    .into());
                }
            }
            if !shapes.is_empty() {
                channels.push((channel, shapes));
            }
        }
    }
    Ok(MorphShapes { channels })
}

/// One primitive per material used by the mesh.
fn primitives(
    mesh: &ufbx::Mesh,
    node: &ufbx::Node,
    skin: Option<&BuiltSkin>,
    morph: &MorphShapes,
    materials: &Materials,
) -> Result<Vec<Primitive>, ImportProblem> {
    let positions = &mesh.vertex_position;
    if !positions.exists {
        return Ok(Vec::new());
    }
    let num_indices = mesh.num_indices;
    // Unskinned meshes follow their node: bake the geometric transform into the vertices.
    let geometry_to_node: DMat4 = dmat4(&node.geometry_to_node);
    let normal_matrix = DMat3::from_mat4(geometry_to_node).inverse().transpose();
    let bake = skin.is_none() && geometry_to_node != DMat4::IDENTITY;
    let get3 = |attr: &ufbx::VertexVec3, ix: usize, what: &str| {
        attribute(&attr.indices, &attr.values, ix, what).map(super::vec3)
    };
    let shapes: Vec<&ShapeOffsets> = morph.channels.iter().flat_map(|(_, s)| s).collect();

    // Faces by material slot: the mesh's parts, or every face in one.
    let mut parts: Vec<(u32, Vec<usize>)> = mesh
        .material_parts
        .iter()
        .map(|p| {
            (
                p.index,
                p.face_indices.iter().map(|&f| f as usize).collect(),
            )
        })
        .collect();
    if parts.is_empty() {
        parts.push((0, (0..mesh.faces.len()).collect()));
    }
    let node_materials: &ufbx::RefList<ufbx::Material> = if node.materials.is_empty() {
        &mesh.materials
    } else {
        &node.materials
    };
    let mut out = Vec::new();
    let mut tri = Vec::new();
    for (slot, faces) in parts {
        let material = node_materials
            .get(slot as usize)
            .and_then(|m| materials.of(m.element.typed_id as usize));
        let mut p = Primitive {
            positions: Vec::new(),
            normals: Vec::new(),
            tangents: Vec::new(),
            uvs: Vec::new(),
            colors: Vec::new(),
            indices: Vec::new(),
            joints: Vec::new(),
            weights: Vec::new(),
            material,
            morph_targets: vec![MorphTarget::default(); shapes.len()],
        };
        for f in faces {
            let Some(&face) = mesh.faces.get(f) else {
                return Err(format!("face {f} out of range").into());
            };
            let end = face.index_begin as usize + face.num_indices as usize;
            if end > num_indices {
                return Err(format!("face {f}: corners beyond the mesh's {num_indices}").into());
            }
            if face.num_indices < 3 {
                continue;
            }
            ufbx::triangulate_face_vec(&mut tri, mesh, face);
            for &ix in &tri {
                let ix = ix as usize;
                if ix >= num_indices {
                    return Err(format!("face {f}: corner {ix} out of range").into());
                }
                let vertex = *mesh
                    .vertex_indices
                    .get(ix)
                    .ok_or_else(|| format!("corner {ix}: no vertex"))?
                    as usize;
                let mut pos = get3(positions, ix, "positions")?;
                let mut normal = if mesh.vertex_normal.exists {
                    get3(&mesh.vertex_normal, ix, "normals")?
                } else {
                    Vec3::ZERO
                };
                if bake {
                    pos = geometry_to_node.transform_point3(pos.as_dvec3()).as_vec3();
                    normal = (normal_matrix * normal.as_dvec3()).as_vec3();
                }
                p.indices.push(p.positions.len() as u32);
                p.positions.push(pos);
                p.normals.push(normal.normalize_or_zero());
                if mesh.vertex_uv.exists {
                    let uv = attribute(&mesh.vertex_uv.indices, &mesh.vertex_uv.values, ix, "uvs")?;
                    // FBX's V runs up from the bottom of the image, glTF's down from the top.
                    p.uvs.push(Vec2::new(uv.x as f32, 1.0 - uv.y as f32));
                }
                if mesh.vertex_color.exists {
                    let c = attribute(
                        &mesh.vertex_color.indices,
                        &mesh.vertex_color.values,
                        ix,
                        "colors",
                    )?;
                    p.colors
                        .push(Vec4::new(c.x as f32, c.y as f32, c.z as f32, c.w as f32));
                }
                match skin {
                    Some(s) => {
                        let (j, w) =
                            s.influences.get(vertex).copied().ok_or_else(|| {
                                format!("corner {ix}: vertex {vertex} out of range")
                            })?;
                        p.joints.push(j);
                        p.weights.push(w);
                    }
                    None => {
                        let mut w = [0.0; MAX_INFLUENCES];
                        w[0] = 1.0;
                        p.joints.push([0; MAX_INFLUENCES]);
                        p.weights.push(w);
                    }
                }
                for (t, shape) in shapes.iter().enumerate() {
                    let mut d = shape.positions.get(vertex).copied().unwrap_or(Vec3::ZERO);
                    if bake {
                        d = geometry_to_node.transform_vector3(d.as_dvec3()).as_vec3();
                    }
                    p.morph_targets[t].positions.push(d);
                    if !shape.normals.is_empty() {
                        let mut dn = shape.normals.get(vertex).copied().unwrap_or(Vec3::ZERO);
                        if bake {
                            dn = (normal_matrix * dn.as_dvec3()).as_vec3();
                        }
                        p.morph_targets[t].normals.push(dn);
                    }
                }
            }
        }
        if p.positions.is_empty() {
            continue;
        }
        for t in &mut p.morph_targets {
            if t.normals.len() != p.positions.len() {
                t.normals.clear();
            }
        }
        if p.normals.contains(&Vec3::ZERO) {
            flat_normals_where_missing(&mut p);
        }
        if !p.positions.iter().all(|v| v.is_finite()) {
            return Err("a vertex position is not finite".into());
        }
        out.push(p);
    }
    Ok(out)
}

/// A per-corner attribute's value at corner `ix`, both of ufbx's indices checked.
fn attribute<T: Copy>(
    indices: &ufbx::List<u32>,
    values: &ufbx::List<T>,
    ix: usize,
    what: &str,
) -> Result<T, ImportProblem> {
    let i = *indices
        .get(ix)
        .ok_or_else(|| format!("{what}: index {ix} out of range"))? as usize;
    values
        .get(i)
        .copied()
        .ok_or_else(|| format!("{what}: value {i} out of range").into())
}

/// Gives corners without a normal their triangle's face normal.
fn flat_normals_where_missing(p: &mut Primitive) {
    for t in p.indices.chunks_exact(3) {
        let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
        let n = (p.positions[b] - p.positions[a])
            .cross(p.positions[c] - p.positions[a])
            .normalize_or_zero();
        for i in [a, b, c] {
            if p.normals[i] == Vec3::ZERO {
                p.normals[i] = n;
            }
        }
    }
}

/// Checks the skins against the skeleton (`Skin::new`'s checks).
pub(super) fn check_skins(
    skins: &[Skin],
    skeleton: &crate::anim::Skeleton,
) -> Result<(), ImportProblem> {
    for s in skins {
        Skin::new(
            s.name.clone(),
            s.joints.clone(),
            s.inverse_bind.clone(),
            skeleton,
        )
        .map_err(|e| format!("skin '{}': {e}", s.name))?;
    }
    Ok(())
}
