//! A model's static GPU data: the concatenated skinning input of every primitive, UVs,
//! indices, textures and material bind groups, and the draw list.

use std::ops::Range;

use super::bounds::primitive_influences;
use super::gpu_types::{MaterialUniforms, MorphDelta, SkinVertex};
use super::skinning::PaletteLayout;
use super::{GpuContext, RenderError};
use crate::asset::{AlphaMode, Image, Model};

/// One primitive's indexed draw.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveDraw {
    /// Index of the mesh in [`Model::meshes`].
    pub mesh: usize,
    /// Index of the primitive in that mesh's `primitives`.
    pub primitive: usize,
    /// Range in the model's index buffer.
    pub indices: Range<u32>,
    /// Index of the primitive's first vertex in the concatenated vertex order.
    pub base_vertex: i32,
    /// Index into the model's material bind groups (the last one is the default).
    pub material: usize,
    /// Alpha BLEND: drawn after the opaque primitives, back to front, without depth writes.
    pub blend: bool,
    /// Both faces drawn (else back faces are culled).
    pub double_sided: bool,
    /// Bind-space centroid of the primitive's vertices (what blended draws are sorted by).
    pub centroid: glam::Vec3,
}

/// Layouts and defaults a model upload needs from the renderer.
#[derive(Debug)]
pub(crate) struct MaterialResources {
    pub layout: wgpu::BindGroupLayout,
    pub sampler: wgpu::Sampler,
    pub white: wgpu::TextureView,
}

/// Static GPU data of one [`Model`] (upload once, draw many instances).
#[derive(Debug)]
pub struct GpuModel {
    skin_input: wgpu::Buffer,
    pub(crate) uvs: wgpu::Buffer,
    /// COLOR_0 per vertex (linear RGBA; white where a primitive has none).
    pub(crate) colors: wgpu::Buffer,
    pub(crate) indices: wgpu::Buffer,
    pub(crate) materials: Vec<wgpu::BindGroup>,
    draws: Vec<PrimitiveDraw>,
    vertex_ranges: Vec<Vec<Range<u32>>>,
    vertex_count: u32,
    palette: PaletteLayout,
    morph_deltas: wgpu::Buffer,
    morph: MorphLayout,
    /// Each mesh's default morph weights (drawn when a pose has none for it).
    default_morph_weights: Vec<Vec<f32>>,
    source: String,
}

/// Where each mesh's morph weights sit in one instance's weight block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MorphLayout {
    /// First weight of each mesh (index = mesh index); meshes without targets have none.
    pub mesh_offsets: Vec<u32>,
    /// Weights per instance (the sum of the meshes' target counts).
    pub len: u32,
}

impl MorphLayout {
    /// The layout of `model`'s morph weights: each mesh's targets in turn, in mesh order.
    pub fn new(model: &Model) -> Self {
        let mut len = 0u32;
        let mesh_offsets = model
            .meshes
            .iter()
            .map(|m| {
                let at = len;
                len += m.morph_target_count() as u32;
                at
            })
            .collect();
        Self { mesh_offsets, len }
    }
}

impl GpuModel {
    pub(crate) fn new(
        ctx: &GpuContext,
        resources: &MaterialResources,
        model: &Model,
    ) -> Result<Self, RenderError> {
        let palette = PaletteLayout::new(model);
        let max_buffer = ctx.device.limits().max_buffer_size;
        let mut vertices: Vec<SkinVertex> = Vec::with_capacity(model.vertex_count());
        let mut uvs: Vec<[f32; 2]> = Vec::with_capacity(model.vertex_count());
        let mut colors: Vec<[f32; 4]> = Vec::with_capacity(model.vertex_count());
        let mut indices: Vec<u32> = Vec::new();
        let mut draws = Vec::new();
        let mut vertex_ranges = Vec::with_capacity(model.meshes.len());
        let default_material = model.materials.len();
        let morph = MorphLayout::new(model);
        // Per primitive and target, one delta per vertex (target-major).
        let mut deltas: Vec<MorphDelta> = Vec::new();
        for (m, mesh) in model.meshes.iter().enumerate() {
            let palette_offset = palette.mesh_offsets[m];
            let targets = mesh.morph_target_count();
            let joint_count = match mesh.skin {
                Some(skin) => model.skins.get(skin).map(|s| s.joints.len()).unwrap_or(0),
                None => 1,
            };
            let mut ranges = Vec::with_capacity(mesh.primitives.len());
            for (p, primitive) in mesh.primitives.iter().enumerate() {
                let first = vertices.len();
                let n = primitive.positions.len();
                if primitive.normals.len() != n {
                    return Err(RenderError::InvalidInput(format!(
                        "{}: mesh '{}' primitive {p}: {} normals for {n} positions",
                        model.source,
                        mesh.name,
                        primitive.normals.len()
                    )));
                }
                let (joints, weights) = primitive_influences(model, m, p);
                if joints.len() != n || weights.len() != n {
                    return Err(RenderError::InvalidInput(format!(
                        "{}: mesh '{}' primitive {p}: joints/weights do not match the {n} positions",
                        model.source, mesh.name
                    )));
                }
                let has_tangents = primitive.tangents.len() == n;
                if primitive.morph_targets.len() != targets {
                    return Err(RenderError::InvalidInput(format!(
                        "{}: mesh '{}' primitive {p}: {} morph targets, the mesh has {targets}",
                        model.source,
                        mesh.name,
                        primitive.morph_targets.len()
                    )));
                }
                let delta_base = deltas.len() as u32;
                for target in &primitive.morph_targets {
                    for (what, len) in [
                        ("POSITION", target.positions.len()),
                        ("NORMAL", target.normals.len()),
                        ("TANGENT", target.tangents.len()),
                    ] {
                        if len != 0 && len != n {
                            return Err(RenderError::InvalidInput(format!(
                                "{}: mesh '{}' primitive {p}: {len} morph {what} deltas for \
                                 {n} vertices",
                                model.source, mesh.name
                            )));
                        }
                    }
                    let get =
                        |d: &[glam::Vec3], v: usize| d.get(v).map_or([0.0; 3], |d| d.to_array());
                    deltas.extend((0..n).map(|v| MorphDelta {
                        position: get(&target.positions, v),
                        normal: get(&target.normals, v),
                        tangent: get(&target.tangents, v),
                        ..MorphDelta::default()
                    }));
                }
                let morph_info = if targets > 0 {
                    [delta_base, n as u32, morph.mesh_offsets[m], targets as u32]
                } else {
                    [0; 4]
                };
                for v in 0..n {
                    for k in 0..joints[v].len() {
                        if weights[v][k] != 0.0 && joints[v][k] as usize >= joint_count {
                            return Err(RenderError::InvalidInput(format!(
                                "{}: mesh '{}' primitive {p} vertex {v}: joint {} but the skin has {joint_count} joints",
                                model.source, mesh.name, joints[v][k]
                            )));
                        }
                    }
                    let mut w = [0.0; 8];
                    w.copy_from_slice(&weights[v]);
                    vertices.push(SkinVertex {
                        position: primitive.positions[v].to_array(),
                        palette_offset,
                        normal: primitive.normals[v].to_array(),
                        has_tangent: has_tangents as u32,
                        tangent: if has_tangents {
                            primitive.tangents[v].to_array()
                        } else {
                            [0.0; 4]
                        },
                        joints: SkinVertex::pack_joints(&joints[v]),
                        weights: w,
                        morph: [
                            morph_info[0] + v as u32,
                            morph_info[1],
                            morph_info[2],
                            morph_info[3],
                        ],
                    });
                    uvs.push(
                        primitive
                            .uvs
                            .get(v)
                            .map(|uv| uv.to_array())
                            .unwrap_or([0.0; 2]),
                    );
                    colors.push(
                        primitive
                            .colors
                            .get(v)
                            .map(|c| c.to_array())
                            .unwrap_or([1.0; 4]),
                    );
                }
                if let Some(&bad) = primitive.indices.iter().find(|&&i| i as usize >= n) {
                    return Err(RenderError::InvalidInput(format!(
                        "{}: mesh '{}' primitive {p}: index {bad} but only {n} vertices",
                        model.source, mesh.name
                    )));
                }
                let start = indices.len() as u32;
                indices.extend_from_slice(&primitive.indices);
                let material = primitive
                    .material
                    .filter(|&i| i < model.materials.len())
                    .unwrap_or(default_material);
                let (blend, double_sided) = match model.materials.get(material) {
                    Some(m) => (m.alpha_mode == AlphaMode::Blend, m.double_sided),
                    // glTF's default material: opaque, single-sided.
                    None => (false, false),
                };
                let centroid = if n > 0 {
                    primitive.positions.iter().copied().sum::<glam::Vec3>() / n as f32
                } else {
                    glam::Vec3::ZERO
                };
                if !primitive.indices.is_empty() {
                    draws.push(PrimitiveDraw {
                        blend,
                        double_sided,
                        centroid,
                        mesh: m,
                        primitive: p,
                        indices: start..indices.len() as u32,
                        base_vertex: i32::try_from(first).map_err(|_| {
                            RenderError::InvalidInput(format!(
                                "{}: more than 2^31 vertices",
                                model.source
                            ))
                        })?,
                        material,
                    });
                }
                ranges.push(first as u32..vertices.len() as u32);
            }
            vertex_ranges.push(ranges);
        }
        let vertex_count = u32::try_from(vertices.len()).map_err(|_| {
            RenderError::InvalidInput(format!("{}: more than 2^32 vertices", model.source))
        })?;
        if deltas.is_empty() {
            // A storage binding holds at least one element.
            deltas.push(MorphDelta::default());
        }
        let max_binding = ctx.device.limits().max_storage_buffer_binding_size;
        for (what, bytes, limit) in [
            (
                "skinning input",
                std::mem::size_of_val(vertices.as_slice()),
                max_buffer,
            ),
            (
                "index buffer",
                std::mem::size_of_val(indices.as_slice()),
                max_buffer,
            ),
            (
                "morph target deltas (bound whole)",
                std::mem::size_of_val(deltas.as_slice()),
                max_binding.min(max_buffer),
            ),
        ] {
            if bytes as u64 > limit {
                return Err(RenderError::TooLarge {
                    what: format!("{}: {what}", model.source),
                    bytes: bytes as u64,
                    limit,
                    hint: "the model is too large for this device",
                });
            }
        }

        ctx.scoped(|| {
            let device = &ctx.device;
            let skin_input = create_buffer_init(
                ctx,
                "skinning input",
                bytemuck::cast_slice(&vertices),
                wgpu::BufferUsages::STORAGE,
            );
            let morph_deltas = create_buffer_init(
                ctx,
                "morph target deltas",
                bytemuck::cast_slice(&deltas),
                wgpu::BufferUsages::STORAGE,
            );
            let uv_buffer = create_buffer_init(
                ctx,
                "uvs",
                bytemuck::cast_slice(&uvs),
                wgpu::BufferUsages::VERTEX,
            );
            let color_buffer = create_buffer_init(
                ctx,
                "vertex colours",
                bytemuck::cast_slice(&colors),
                wgpu::BufferUsages::VERTEX,
            );
            let index_buffer = create_buffer_init(
                ctx,
                "indices",
                bytemuck::cast_slice(&indices),
                wgpu::BufferUsages::INDEX,
            );
            let textures: Vec<wgpu::TextureView> = model
                .images
                .iter()
                .map(|image| upload_image(ctx, image))
                .collect::<Result<_, _>>()?;
            let mut materials = Vec::with_capacity(model.materials.len() + 1);
            let defaults =
                crate::asset::Material::plain("default", glam::Vec4::new(0.8, 0.8, 0.8, 1.0));
            for material in model.materials.iter().chain(std::iter::once(&defaults)) {
                let (alpha_mode, alpha_cutoff) = match material.alpha_mode {
                    AlphaMode::Opaque => (0, 0.0),
                    AlphaMode::Mask(cutoff) => (1, cutoff),
                    AlphaMode::Blend => (2, 0.0),
                };
                let uniforms = MaterialUniforms {
                    base_color_factor: material.base_color_factor.to_array(),
                    emissive_factor: material.emissive_factor.extend(0.0).to_array(),
                    alpha_cutoff,
                    alpha_mode,
                    _pad: [0; 2],
                };
                let emissive = material
                    .emissive_image
                    .and_then(|i| textures.get(i))
                    .unwrap_or(&resources.white);
                let buffer = create_buffer_init(
                    ctx,
                    "material",
                    bytemuck::bytes_of(&uniforms),
                    wgpu::BufferUsages::STORAGE,
                );
                let view = material
                    .base_color_image
                    .and_then(|i| textures.get(i))
                    .unwrap_or(&resources.white);
                materials.push(device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("material"),
                    layout: &resources.layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: buffer.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(view),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::Sampler(&resources.sampler),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: wgpu::BindingResource::TextureView(emissive),
                        },
                    ],
                }));
            }
            Ok(Self {
                skin_input,
                uvs: uv_buffer,
                colors: color_buffer,
                indices: index_buffer,
                materials,
                draws,
                vertex_ranges,
                vertex_count,
                palette,
                morph_deltas,
                morph,
                default_morph_weights: model
                    .meshes
                    .iter()
                    .map(|m| m.morph_weights.clone())
                    .collect(),
                source: model.source.clone(),
            })
        })
    }

    /// Vertices over all primitives (the skinning work per instance).
    pub fn vertex_count(&self) -> u32 {
        self.vertex_count
    }

    /// Where each mesh's matrices sit in the model palette.
    pub fn palette_layout(&self) -> &PaletteLayout {
        &self.palette
    }

    /// Indexed draws, one per non-empty primitive.
    pub fn draws(&self) -> &[PrimitiveDraw] {
        &self.draws
    }

    /// Range of a primitive's vertices in the skinned output of one instance.
    pub fn vertex_range(&self, mesh: usize, primitive: usize) -> Option<Range<u32>> {
        self.vertex_ranges.get(mesh)?.get(primitive).cloned()
    }

    /// Display name of the model's source (the CPU model's `source`: file name or demo).
    pub fn source(&self) -> &str {
        &self.source
    }

    pub(crate) fn skin_input(&self) -> &wgpu::Buffer {
        &self.skin_input
    }

    /// Where each mesh's morph weights sit in an instance's weight block.
    pub fn morph_layout(&self) -> &MorphLayout {
        &self.morph
    }

    /// Each mesh's default morph weights.
    pub fn default_morph_weights(&self) -> &[Vec<f32>] {
        &self.default_morph_weights
    }

    pub(crate) fn morph_deltas(&self) -> &wgpu::Buffer {
        &self.morph_deltas
    }
}

/// A buffer holding `bytes` (at least 16 bytes so empty models still bind).
pub(crate) fn create_buffer_init(
    ctx: &GpuContext,
    label: &str,
    bytes: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let size = (bytes.len() as u64).max(16).div_ceil(4) * 4;
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    if !bytes.is_empty() {
        if bytes.len().is_multiple_of(4) {
            ctx.queue.write_buffer(&buffer, 0, bytes);
        } else {
            let mut padded = bytes.to_vec();
            padded.resize(bytes.len().div_ceil(4) * 4, 0);
            ctx.queue.write_buffer(&buffer, 0, &padded);
        }
    }
    buffer
}

/// Uploads an RGBA8 sRGB image with a full mip chain (box-filtered in linear light).
pub(crate) fn upload_image(
    ctx: &GpuContext,
    image: &Image,
) -> Result<wgpu::TextureView, RenderError> {
    let max = ctx.device.limits().max_texture_dimension_2d;
    if image.width == 0 || image.height == 0 || image.width > max || image.height > max {
        return Err(RenderError::InvalidInput(format!(
            "texture of {}x{} (each side must be 1..={max})",
            image.width, image.height
        )));
    }
    if image.rgba8.len() != image.width as usize * image.height as usize * 4 {
        return Err(RenderError::InvalidInput(format!(
            "texture of {}x{} has {} bytes of RGBA8",
            image.width,
            image.height,
            image.rgba8.len()
        )));
    }
    let mips = mip_chain(image.width, image.height, &image.rgba8);
    let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("base colour"),
        size: wgpu::Extent3d {
            width: image.width,
            height: image.height,
            depth_or_array_layers: 1,
        },
        mip_level_count: mips.len() as u32,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    for (level, (w, h, pixels)) in mips.iter().enumerate() {
        ctx.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level as u32,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            pixels,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * w),
                rows_per_image: Some(*h),
            },
            wgpu::Extent3d {
                width: *w,
                height: *h,
                depth_or_array_layers: 1,
            },
        );
    }
    Ok(texture.create_view(&wgpu::TextureViewDescriptor::default()))
}

fn srgb_to_linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0 + 0.5) as u8
}

/// Level 0 and every halving down to 1x1; colour averaged in linear light, alpha
/// linearly.
pub(crate) fn mip_chain(width: u32, height: u32, rgba8: &[u8]) -> Vec<(u32, u32, Vec<u8>)> {
    let lut: Vec<f32> = (0..=255u8).map(srgb_to_linear).collect();
    let mut levels = vec![(width, height, rgba8.to_vec())];
    while let Some((w, h, src)) = levels.last() {
        let (w, h) = (*w, *h);
        if w == 1 && h == 1 {
            break;
        }
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut dst = vec![0u8; nw as usize * nh as usize * 4];
        for y in 0..nh {
            for x in 0..nw {
                let mut acc = [0f32; 4];
                let mut count = 0.0;
                for sy in [2 * y, (2 * y + 1).min(h - 1)] {
                    for sx in [2 * x, (2 * x + 1).min(w - 1)] {
                        let at = (sy as usize * w as usize + sx as usize) * 4;
                        for c in 0..3 {
                            acc[c] += lut[src[at + c] as usize];
                        }
                        acc[3] += src[at + 3] as f32;
                        count += 1.0;
                    }
                }
                let at = (y as usize * nw as usize + x as usize) * 4;
                for c in 0..3 {
                    dst[at + c] = linear_to_srgb(acc[c] / count);
                }
                dst[at + 3] = (acc[3] / count + 0.5) as u8;
            }
        }
        levels.push((nw, nh, dst));
    }
    levels
}
