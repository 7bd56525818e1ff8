//! Compute skinning: the pipeline, the model palette layout, and the per-character-group
//! GPU buffers ([`SkinnedInstances`]): one palette per instance in a storage buffer, and
//! output vertex buffers (STORAGE | VERTEX) that the mesh pass draws without a CPU round
//! trip.
//!
//! All primitives of a model are skinned together: [`super::GpuModel`] concatenates their
//! vertices into one input buffer, each vertex carrying the offset of its mesh's palette in
//! the model palette. One dispatch covers every vertex of many instances
//! (`global_invocation_id.y` = instance), so a crowd of N characters usually costs one or a
//! few dispatches per frame.
//!
//! Storage bindings must stay under `max_storage_buffer_binding_size` (128 MiB on
//! lavapipe): [`plan_skinning`] splits the work into vertex chunks and instance groups that
//! fit, with every binding offset 256-byte aligned, or returns [`RenderError::TooLarge`].

use glam::Mat4;

use super::gpu_types::{SkinParams, SkinVertex, SkinnedVertex};
use super::target::read_buffer;
use super::PoseMatrices;
use super::{GpuContext, GpuModel, RenderError};
use crate::asset::Model;

const INPUT_BYTES: u64 = std::mem::size_of::<SkinVertex>() as u64;
const OUTPUT_BYTES: u64 = std::mem::size_of::<SkinnedVertex>() as u64;
const MATRIX_BYTES: u64 = 64;
const PARAMS_BYTES: u64 = std::mem::size_of::<SkinParams>() as u64;
/// Vertices per instance are padded to a multiple of this so every per-instance and
/// per-chunk offset is 256-byte aligned (16 * 48 = 3 * 256, 16 * 112 = 7 * 256).
const VERTEX_ALIGN: u64 = 16;
/// Palette entries per instance are padded to a multiple of this (4 * 64 = 256).
const PALETTE_ALIGN: u64 = 4;
const WORKGROUP_SIZE: u64 = 64;

fn round_up(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

/// Where each mesh's matrices sit in a model's palette: every skin's palette in order,
/// then one entry per unskinned mesh (its node's model transform).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaletteLayout {
    /// Palette offset of each mesh (index = mesh index).
    pub mesh_offsets: Vec<u32>,
    /// Palette offset of each skin.
    pub skin_offsets: Vec<u32>,
    /// `(palette offset, joint)` of each unskinned mesh.
    pub unskinned: Vec<(u32, usize)>,
    /// Total matrices.
    pub len: u32,
}

impl PaletteLayout {
    /// Lays out `model`'s palette: every skin's joints in skin order, then one entry per
    /// unskinned mesh.
    pub fn new(model: &Model) -> Self {
        let mut len = 0u32;
        let skin_offsets = model
            .skins
            .iter()
            .map(|s| {
                let at = len;
                len += s.joints.len() as u32;
                at
            })
            .collect::<Vec<_>>();
        let mut unskinned = Vec::new();
        let mesh_offsets = model
            .meshes
            .iter()
            .map(|mesh| match mesh.skin {
                Some(skin) => skin_offsets.get(skin).copied().unwrap_or(0),
                None => {
                    let at = len;
                    len += 1;
                    unskinned.push((at, mesh.joint));
                    at
                }
            })
            .collect();
        Self {
            mesh_offsets,
            skin_offsets,
            unskinned,
            len,
        }
    }

    /// Writes the model palette of `pose` into `out` (`len` matrices).
    pub fn fill(&self, pose: &impl PoseMatrices, out: &mut [Mat4]) -> Result<(), RenderError> {
        let (skin_palettes, model_from_joint) = (pose.skin_palettes(), pose.model_from_joint());
        if out.len() != self.len as usize {
            return Err(RenderError::InvalidInput(format!(
                "palette output holds {} matrices, the model needs {}",
                out.len(),
                self.len
            )));
        }
        if skin_palettes.len() != self.skin_offsets.len() {
            return Err(RenderError::InvalidInput(format!(
                "pose has {} skin palettes, the model has {} skins (pose of another model?)",
                skin_palettes.len(),
                self.skin_offsets.len()
            )));
        }
        for (palette, &at) in skin_palettes.iter().zip(&self.skin_offsets) {
            let at = at as usize;
            let dst = out.get_mut(at..at + palette.len()).ok_or_else(|| {
                RenderError::InvalidInput("pose skin palette longer than the model's skin".into())
            })?;
            dst.copy_from_slice(palette);
        }
        for &(at, joint) in &self.unskinned {
            out[at as usize] = *model_from_joint.get(joint).ok_or_else(|| {
                RenderError::InvalidInput(format!(
                    "pose has {} joints, mesh node joint {joint} is out of range",
                    model_from_joint.len()
                ))
            })?;
        }
        Ok(())
    }
}

/// Device limits that shape the skinning dispatches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkinningLimits {
    /// `max_storage_buffer_binding_size`.
    pub max_storage_binding: u64,
    /// `max_buffer_size`.
    pub max_buffer: u64,
    /// `max_compute_workgroups_per_dimension`.
    pub max_workgroups_per_dimension: u32,
}

impl SkinningLimits {
    /// The limits of `device`.
    pub fn of(device: &wgpu::Device) -> Self {
        let limits = device.limits();
        Self {
            max_storage_binding: limits.max_storage_buffer_binding_size,
            max_buffer: limits.max_buffer_size,
            max_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
        }
    }

    /// The smaller of each limit (e.g. a test's artificial limit and the device's).
    pub fn min(&self, other: &SkinningLimits) -> SkinningLimits {
        SkinningLimits {
            max_storage_binding: self.max_storage_binding.min(other.max_storage_binding),
            max_buffer: self.max_buffer.min(other.max_buffer),
            max_workgroups_per_dimension: self
                .max_workgroups_per_dimension
                .min(other.max_workgroups_per_dimension),
        }
    }
}

/// A byte range of a buffer bound to the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteRange {
    /// Start of the range, bytes from the start of the buffer (the plan keeps it a multiple
    /// of 256).
    pub offset: u64,
    /// Length of the range, bytes.
    pub size: u64,
}

/// One dispatch: a vertex chunk of a group of consecutive instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedDispatch {
    /// Output buffer index.
    pub buffer: usize,
    /// Index of the dispatch's first instance in the whole group (not within its output
    /// buffer).
    pub first_instance: u32,
    /// Instances the dispatch skins (its workgroup count in y).
    pub instance_count: u32,
    /// First vertex of the chunk, an index into the model's concatenated skinning input.
    pub first_vertex: u32,
    /// Vertices in the chunk (at most [`SkinningPlan::vertex_chunk`]).
    pub vertex_count: u32,
    /// The chunk's range of the model's skinning input ([`SkinVertex`] array).
    pub input: ByteRange,
    /// The range of the palette buffer holding these instances' palettes.
    pub palette: ByteRange,
    /// Range in output buffer `buffer`.
    pub output: ByteRange,
}

/// How N instances of a V-vertex, P-matrix model are laid out and dispatched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkinningPlan {
    /// Output vertices between instances (V padded to 16).
    pub instance_stride: u32,
    /// Palette matrices between instances (P padded to 4).
    pub palette_stride: u32,
    /// Vertices per dispatch chunk (a multiple of 16, or all of them).
    pub vertex_chunk: u32,
    /// `(first instance, instance count)` of each output buffer.
    pub buffers: Vec<(u32, u32)>,
    /// Every dispatch: by output buffer, then instance group, then vertex chunk.
    pub dispatches: Vec<PlannedDispatch>,
}

/// Plans buffers and dispatches so every storage binding fits `limits` (see the module
/// docs). Errors when even the smallest unit does not fit.
pub fn plan_skinning(
    vertex_count: u32,
    palette_len: u32,
    instance_count: u32,
    limits: &SkinningLimits,
) -> Result<SkinningPlan, RenderError> {
    if instance_count == 0 {
        return Err(RenderError::InvalidInput(
            "a skinned instance group needs at least one instance".into(),
        ));
    }
    let v = vertex_count as u64;
    let vp = round_up(v.max(1), VERTEX_ALIGN);
    let pp = round_up((palette_len as u64).max(1), PALETTE_ALIGN);
    let n = instance_count as u64;
    let limit = limits.max_storage_binding;
    let too_large =
        |what: String, bytes: u64, limit: u64, hint: &'static str| RenderError::TooLarge {
            what,
            bytes,
            limit,
            hint,
        };
    if pp * MATRIX_BYTES > limit {
        return Err(too_large(
            format!("the skinning palette of one instance ({pp} matrices)"),
            pp * MATRIX_BYTES,
            limit,
            "the model has too many joints for one storage binding",
        ));
    }
    if v * INPUT_BYTES > limits.max_buffer {
        return Err(too_large(
            format!("the skinning input ({v} vertices)"),
            v * INPUT_BYTES,
            limits.max_buffer,
            "split the model into smaller files or use a GPU with a larger max_buffer_size",
        ));
    }
    if n * pp * MATRIX_BYTES > limits.max_buffer {
        return Err(too_large(
            format!("the palettes of {n} instances"),
            n * pp * MATRIX_BYTES,
            limits.max_buffer,
            "draw fewer instances per group",
        ));
    }
    let per_instance_out = vp * OUTPUT_BYTES;
    if per_instance_out > limits.max_buffer {
        return Err(too_large(
            format!("the skinned vertices of one instance ({v} vertices)"),
            per_instance_out,
            limits.max_buffer,
            "the model is too large for this device",
        ));
    }
    let max_groups = limits.max_workgroups_per_dimension.max(1) as u64;
    let chunk_cap =
        ((limit / INPUT_BYTES).min(max_groups * WORKGROUP_SIZE) / VERTEX_ALIGN) * VERTEX_ALIGN;
    if chunk_cap == 0 {
        return Err(too_large(
            "a skinning chunk of 16 vertices".into(),
            VERTEX_ALIGN * INPUT_BYTES,
            limit,
            "the device's storage binding limit is below what skinning needs",
        ));
    }
    let vertex_chunk = chunk_cap.min(vp);
    let per_buffer = (limits.max_buffer / per_instance_out).min(n);
    let per_dispatch = if vertex_chunk >= v {
        (limit / per_instance_out)
            .min(limit / (pp * MATRIX_BYTES))
            .min(max_groups)
            .min(per_buffer)
            .max(1)
    } else {
        1
    };

    let mut buffers = Vec::new();
    let mut first = 0u64;
    while first < n {
        let count = per_buffer.min(n - first);
        buffers.push((first as u32, count as u32));
        first += count;
    }
    let mut dispatches = Vec::new();
    for (b, &(b0, bn)) in buffers.iter().enumerate() {
        let (b0, bn) = (b0 as u64, bn as u64);
        let mut i = b0;
        while i < b0 + bn {
            let group = per_dispatch.min(b0 + bn - i);
            let mut c = 0u64;
            while c < v {
                let len = vertex_chunk.min(v - c);
                dispatches.push(PlannedDispatch {
                    buffer: b,
                    first_instance: i as u32,
                    instance_count: group as u32,
                    first_vertex: c as u32,
                    vertex_count: len as u32,
                    input: ByteRange {
                        offset: c * INPUT_BYTES,
                        size: len * INPUT_BYTES,
                    },
                    palette: ByteRange {
                        offset: i * pp * MATRIX_BYTES,
                        size: group * pp * MATRIX_BYTES,
                    },
                    output: ByteRange {
                        offset: ((i - b0) * vp + c) * OUTPUT_BYTES,
                        size: ((group - 1) * vp + len) * OUTPUT_BYTES,
                    },
                });
                c += len;
            }
            i += group;
        }
    }
    Ok(SkinningPlan {
        instance_stride: vp as u32,
        palette_stride: pp as u32,
        vertex_chunk: vertex_chunk as u32,
        buffers,
        dispatches,
    })
}

/// The skinning compute pipeline (long-lived, one per device).
#[derive(Clone, Debug)]
pub struct SkinningPipeline {
    pub(crate) layout: wgpu::BindGroupLayout,
    pub(crate) pipeline: wgpu::ComputePipeline,
}

impl SkinningPipeline {
    /// Compiles `skinning.wgsl` and creates its bind-group layout and compute pipeline on
    /// `device`.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("skinning.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/skinning.wgsl").into()),
        });
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skinning"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(
                            std::mem::size_of::<SkinParams>() as u64
                        ),
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, true),
                storage(3, false),
                storage(4, true),
                storage(5, true),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skinning"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("skinning"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("skin"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self { layout, pipeline }
    }
}

fn binding(buffer: &wgpu::Buffer, range: ByteRange) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset: range.offset,
        size: wgpu::BufferSize::new(range.size),
    })
}

#[derive(Debug)]
struct OutputBuffer {
    buffer: wgpu::Buffer,
    first_instance: u32,
    instance_count: u32,
}

#[derive(Debug)]
struct SkinDispatch {
    bind_group: wgpu::BindGroup,
    workgroups: [u32; 3],
}

/// N instances of one [`GpuModel`], each with its own palette, skinned on the GPU.
///
/// Per frame: [`SkinnedInstances::write_poses`] (or [`SkinnedInstances::write_palette`])
/// uploads the palettes, then the renderer (or [`SkinnedInstances::encode`]) records the
/// dispatches before the mesh pass draws [`SkinnedInstances::vertex_buffer`].
#[derive(Debug)]
pub struct SkinnedInstances {
    pipeline: wgpu::ComputePipeline,
    plan: SkinningPlan,
    vertex_count: u32,
    palette_len: u32,
    palette: wgpu::Buffer,
    /// Morph weights of every instance, `weight_stride` apart.
    morph_weights: wgpu::Buffer,
    morph: super::MorphLayout,
    weight_stride: u32,
    outputs: Vec<OutputBuffer>,
    dispatches: Vec<SkinDispatch>,
    _params: wgpu::Buffer,
    staging: Vec<Mat4>,
    weight_staging: Vec<f32>,
}

impl SkinnedInstances {
    /// Buffers for `instance_count` instances of `model`, planned for the device's limits.
    pub fn new(
        ctx: &GpuContext,
        skinning: &SkinningPipeline,
        model: &GpuModel,
        instance_count: u32,
    ) -> Result<Self, RenderError> {
        Self::with_limits(ctx, skinning, model, instance_count, None)
    }

    /// Like [`SkinnedInstances::new`] with limits tightened to `limits` (tests use this
    /// to exercise chunking on small data).
    pub fn with_limits(
        ctx: &GpuContext,
        skinning: &SkinningPipeline,
        model: &GpuModel,
        instance_count: u32,
        limits: Option<SkinningLimits>,
    ) -> Result<Self, RenderError> {
        let device_limits = SkinningLimits::of(&ctx.device);
        let limits = limits
            .map(|l| l.min(&device_limits))
            .unwrap_or(device_limits);
        let vertex_count = model.vertex_count();
        let palette_len = model.palette_layout().len;
        let plan = plan_skinning(vertex_count, palette_len, instance_count, &limits)?;
        ctx.scoped(|| {
            let device = &ctx.device;
            let palette_bytes = instance_count as u64 * plan.palette_stride as u64 * MATRIX_BYTES;
            let palette = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("skinning palettes"),
                size: palette_bytes,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let morph = model.morph_layout().clone();
            let weight_stride = morph.len.max(1);
            let weight_bytes = instance_count as u64 * weight_stride as u64 * 4;
            if weight_bytes > limits.max_storage_binding {
                return Err(RenderError::TooLarge {
                    what: format!("the morph weights of {instance_count} instances"),
                    bytes: weight_bytes,
                    limit: limits.max_storage_binding,
                    hint: "draw fewer instances per group",
                });
            }
            let morph_weights = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("morph weights"),
                size: weight_bytes.max(16),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let outputs: Vec<OutputBuffer> = plan
                .buffers
                .iter()
                .map(|&(first_instance, count)| OutputBuffer {
                    buffer: device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("skinned vertices"),
                        size: count as u64 * plan.instance_stride as u64 * OUTPUT_BYTES,
                        usage: wgpu::BufferUsages::STORAGE
                            | wgpu::BufferUsages::VERTEX
                            | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    }),
                    first_instance,
                    instance_count: count,
                })
                .collect();
            let align = (device.limits().min_uniform_buffer_offset_alignment as u64).max(16);
            let params_count = plan.dispatches.len().max(1) as u64;
            let params_buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("skinning params"),
                size: params_count * align,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut params_bytes = vec![0u8; (params_count * align) as usize];
            let mut dispatches = Vec::with_capacity(plan.dispatches.len());
            for (k, d) in plan.dispatches.iter().enumerate() {
                let params = SkinParams {
                    vertex_count: d.vertex_count,
                    instance_count: d.instance_count,
                    instance_stride: plan.instance_stride,
                    palette_stride: plan.palette_stride,
                    first_instance: d.first_instance,
                    weight_stride,
                    _pad: [0; 2],
                };
                let at = k * align as usize;
                params_bytes[at..at + PARAMS_BYTES as usize]
                    .copy_from_slice(bytemuck::bytes_of(&params));
                let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("skinning dispatch"),
                    layout: &skinning.layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: binding(
                                &params_buffer,
                                ByteRange {
                                    offset: at as u64,
                                    size: PARAMS_BYTES,
                                },
                            ),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: binding(model.skin_input(), d.input),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: binding(&palette, d.palette),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: binding(&outputs[d.buffer].buffer, d.output),
                        },
                        wgpu::BindGroupEntry {
                            binding: 4,
                            resource: model.morph_deltas().as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 5,
                            resource: morph_weights.as_entire_binding(),
                        },
                    ],
                });
                dispatches.push(SkinDispatch {
                    bind_group,
                    workgroups: [
                        d.vertex_count.div_ceil(WORKGROUP_SIZE as u32),
                        d.instance_count,
                        1,
                    ],
                });
            }
            ctx.queue.write_buffer(&params_buffer, 0, &params_bytes);
            if morph.len > 0 {
                // Every instance starts at the meshes' default weights.
                let stride = weight_stride as usize;
                let mut initial = vec![0.0f32; instance_count as usize * stride];
                for block in initial.chunks_exact_mut(stride) {
                    fill_morph_weights(model.default_morph_weights(), &morph, &[], block);
                }
                ctx.queue
                    .write_buffer(&morph_weights, 0, bytemuck::cast_slice(&initial));
            }
            Ok(Self {
                pipeline: skinning.pipeline.clone(),
                plan: plan.clone(),
                vertex_count,
                palette_len,
                palette,
                morph_weights,
                morph,
                weight_stride,
                outputs,
                dispatches,
                _params: params_buffer,
                staging: Vec::new(),
                weight_staging: Vec::new(),
            })
        })
    }

    /// Instances in the group, over every output buffer.
    pub fn instance_count(&self) -> u32 {
        self.outputs.iter().map(|o| o.instance_count).sum()
    }

    /// Vertices skinned per instance.
    pub fn vertex_count(&self) -> u32 {
        self.vertex_count
    }

    /// The dispatch plan (for inspection and tests).
    pub fn plan(&self) -> &SkinningPlan {
        &self.plan
    }

    /// Uploads one instance's model palette (`palette_len` matrices, see
    /// [`PaletteLayout`]).
    pub fn write_palette(
        &self,
        queue: &wgpu::Queue,
        instance: u32,
        palette: &[Mat4],
    ) -> Result<(), RenderError> {
        if instance >= self.instance_count() {
            return Err(RenderError::InvalidInput(format!(
                "instance {instance} of a group of {}",
                self.instance_count()
            )));
        }
        if palette.len() != self.palette_len as usize {
            return Err(RenderError::InvalidInput(format!(
                "palette has {} matrices, the model needs {}",
                palette.len(),
                self.palette_len
            )));
        }
        if palette.is_empty() {
            return Ok(());
        }
        let offset = instance as u64 * self.plan.palette_stride as u64 * MATRIX_BYTES;
        queue.write_buffer(&self.palette, offset, bytemuck::cast_slice(palette));
        Ok(())
    }

    /// Uploads the palettes of instances `0..poses.len()` from their poses in one write.
    pub fn write_poses<P: PoseMatrices>(
        &mut self,
        queue: &wgpu::Queue,
        model: &GpuModel,
        poses: &[&P],
    ) -> Result<(), RenderError> {
        if poses.len() > self.instance_count() as usize {
            return Err(RenderError::InvalidInput(format!(
                "{} poses for a group of {} instances",
                poses.len(),
                self.instance_count()
            )));
        }
        let stride = self.plan.palette_stride as usize;
        let len = self.palette_len as usize;
        self.staging.clear();
        self.staging.resize(poses.len() * stride, Mat4::IDENTITY);
        for (i, pose) in poses.iter().enumerate() {
            model
                .palette_layout()
                .fill(*pose, &mut self.staging[i * stride..i * stride + len])?;
        }
        if !self.staging.is_empty() {
            queue.write_buffer(&self.palette, 0, bytemuck::cast_slice(&self.staging));
        }
        if self.morph.len > 0 {
            let stride = self.weight_stride as usize;
            self.weight_staging.clear();
            self.weight_staging.resize(poses.len() * stride, 0.0);
            for (i, pose) in poses.iter().enumerate() {
                fill_morph_weights(
                    model.default_morph_weights(),
                    &self.morph,
                    pose.morph_weights(),
                    &mut self.weight_staging[i * stride..(i + 1) * stride],
                );
            }
            queue.write_buffer(
                &self.morph_weights,
                0,
                bytemuck::cast_slice(&self.weight_staging),
            );
        }
        Ok(())
    }

    /// Palette matrix `index` of `instance` as last uploaded by
    /// [`SkinnedInstances::write_poses`] (`None` before, or out of range): the renderer
    /// places blended primitives with it to sort them by depth.
    pub fn palette_matrix(&self, instance: u32, index: u32) -> Option<Mat4> {
        let at = instance as usize * self.plan.palette_stride as usize + index as usize;
        (index < self.palette_len)
            .then(|| self.staging.get(at).copied())
            .flatten()
    }

    /// Uploads one instance's morph weights (per mesh, one per target; missing entries
    /// take the mesh defaults).
    pub fn write_morph_weights(
        &mut self,
        queue: &wgpu::Queue,
        model: &GpuModel,
        instance: u32,
        weights: &[Vec<f32>],
    ) -> Result<(), RenderError> {
        if instance >= self.instance_count() {
            return Err(RenderError::InvalidInput(format!(
                "instance {instance} of a group of {}",
                self.instance_count()
            )));
        }
        if self.morph.len == 0 {
            return Ok(());
        }
        let stride = self.weight_stride as usize;
        self.weight_staging.clear();
        self.weight_staging.resize(stride, 0.0);
        fill_morph_weights(
            model.default_morph_weights(),
            &self.morph,
            weights,
            &mut self.weight_staging,
        );
        let offset = instance as u64 * stride as u64 * 4;
        queue.write_buffer(
            &self.morph_weights,
            offset,
            bytemuck::cast_slice(&self.weight_staging),
        );
        Ok(())
    }

    /// Records every skinning dispatch into a compute pass.
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        if self.dispatches.is_empty() {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        for d in &self.dispatches {
            pass.set_bind_group(0, &d.bind_group, &[]);
            pass.dispatch_workgroups(d.workgroups[0], d.workgroups[1], d.workgroups[2]);
        }
    }

    /// Number of dispatches per frame.
    pub fn dispatch_count(&self) -> usize {
        self.dispatches.len()
    }

    /// The skinned vertices of `instance` as a vertex-buffer slice for the mesh pass.
    pub fn vertex_buffer(&self, instance: u32) -> Option<wgpu::BufferSlice<'_>> {
        let (buffer, offset) = self.locate(instance)?;
        let size = (self.vertex_count.max(1) as u64) * OUTPUT_BYTES;
        Some(buffer.slice(offset..offset + size))
    }

    fn locate(&self, instance: u32) -> Option<(&wgpu::Buffer, u64)> {
        let out = self.outputs.iter().find(|o| {
            instance >= o.first_instance && instance < o.first_instance + o.instance_count
        })?;
        let offset = (instance - out.first_instance) as u64
            * self.plan.instance_stride as u64
            * OUTPUT_BYTES;
        Some((&out.buffer, offset))
    }

    /// Reads one instance's skinned vertices back (tests and tools; waits for the GPU).
    pub fn read_back(
        &self,
        ctx: &GpuContext,
        instance: u32,
    ) -> Result<Vec<SkinnedVertex>, RenderError> {
        let (buffer, offset) = self
            .locate(instance)
            .ok_or_else(|| RenderError::InvalidInput(format!("no instance {instance}")))?;
        if self.vertex_count == 0 {
            return Ok(Vec::new());
        }
        let bytes = read_buffer(ctx, buffer, offset, self.vertex_count as u64 * OUTPUT_BYTES)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}

/// One instance's weight block: per mesh its weights from `weights`, or its defaults
/// where `weights` has no (or a short) entry for it.
fn fill_morph_weights(
    defaults: &[Vec<f32>],
    layout: &super::MorphLayout,
    weights: &[Vec<f32>],
    out: &mut [f32],
) {
    for (m, (&at, default)) in layout.mesh_offsets.iter().zip(defaults).enumerate() {
        let n = default.len();
        if n == 0 {
            continue;
        }
        let src = match weights.get(m) {
            Some(w) if w.len() == n => w,
            _ => default,
        };
        out[at as usize..at as usize + n].copy_from_slice(src);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_plan(v: u32, p: u32, n: u32, limits: SkinningLimits) -> SkinningPlan {
        let plan = plan_skinning(v, p, n, &limits).unwrap();
        let vp = plan.instance_stride as u64;
        // Every (instance, vertex) is covered exactly once.
        let mut covered = vec![0u8; (v as usize) * (n as usize)];
        for d in &plan.dispatches {
            for range in [d.input, d.palette, d.output] {
                assert_eq!(range.offset % 256, 0, "{d:?}");
                assert!(range.size <= limits.max_storage_binding, "{d:?}");
                assert!(range.size > 0 && range.size % 4 == 0, "{d:?}");
            }
            let (b0, _) = plan.buffers[d.buffer];
            for i in d.first_instance..d.first_instance + d.instance_count {
                for vtx in d.first_vertex..d.first_vertex + d.vertex_count {
                    covered[i as usize * v as usize + vtx as usize] += 1;
                    // The shader writes at (i - first) * stride + local vertex inside the
                    // output binding.
                    let local = (i - d.first_instance) as u64 * vp + (vtx - d.first_vertex) as u64;
                    let byte = d.output.offset + local * OUTPUT_BYTES;
                    assert_eq!(byte, ((i - b0) as u64 * vp + vtx as u64) * OUTPUT_BYTES);
                    assert!(local * OUTPUT_BYTES + OUTPUT_BYTES <= d.output.size);
                }
            }
        }
        assert!(covered.iter().all(|&c| c == 1));
        plan
    }

    #[test]
    fn plans_fit_limits_and_cover_everything() {
        let big = SkinningLimits {
            max_storage_binding: 128 << 20,
            max_buffer: 256 << 20,
            max_workgroups_per_dimension: 65535,
        };
        let plan = check_plan(7218, 43, 100, big);
        assert_eq!(plan.dispatches.len(), 1, "one dispatch for 100 robots");
        assert_eq!(plan.instance_stride, 7232);
        let tiny = SkinningLimits {
            max_storage_binding: 4096,
            max_buffer: 1 << 20,
            max_workgroups_per_dimension: 65535,
        };
        let plan = check_plan(1000, 43, 5, tiny);
        assert_eq!(plan.vertex_chunk, 32);
        let small_buffers = SkinningLimits {
            max_storage_binding: 1 << 16,
            max_buffer: 1 << 16,
            max_workgroups_per_dimension: 3,
        };
        let plan = check_plan(300, 10, 50, small_buffers);
        assert!(plan.buffers.len() > 1);
        check_plan(0, 0, 3, big);
    }

    #[test]
    fn impossible_limits_are_errors_not_panics() {
        let limits = SkinningLimits {
            max_storage_binding: 1024,
            max_buffer: 1 << 20,
            max_workgroups_per_dimension: 65535,
        };
        assert!(matches!(
            plan_skinning(100, 4, 1, &limits),
            Err(RenderError::TooLarge { .. })
        ));
        let limits = SkinningLimits {
            max_storage_binding: 1 << 20,
            max_buffer: 1 << 20,
            max_workgroups_per_dimension: 65535,
        };
        assert!(matches!(
            plan_skinning(100, 100_000, 1, &limits),
            Err(RenderError::TooLarge { .. })
        ));
        assert!(matches!(
            plan_skinning(100_000, 4, 1, &limits),
            Err(RenderError::TooLarge { .. })
        ));
        assert!(matches!(
            plan_skinning(10, 4, 0, &limits),
            Err(RenderError::InvalidInput(_))
        ));
    }
}
