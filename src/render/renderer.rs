//! The renderer: long-lived pipelines plus per-frame buffers, drawing a scene into any
//! texture view it is given (the window's egui viewport texture or an offscreen target).
//!
//! One frame = one compute pass (skin every instance) and one render pass (background,
//! lit meshes, depth-tested overlay incl. the grid, on-top overlay incl. the skeleton),
//! recorded into the caller's encoder. MSAA 4x when the formats allow it.

use glam::{Vec3, Vec4};

use super::camera::OrbitCamera;
use super::gpu_types::{FrameUniforms, LineVertex, PointInstance, SkinnedVertex};
use super::model::MaterialResources;
use super::overlay::{DepthTest, Grid, OverlayBatch, Rgba8};
use super::skinning::{SkinnedInstances, SkinningPipeline};
use super::{GpuContext, GpuModel, RenderError};
use crate::asset::Model;

/// Depth buffer format.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Background gradient (sRGB colours, top to bottom of the view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Background {
    /// Colour at the top edge of the view.
    pub top: Rgba8,
    /// Colour at the bottom edge of the view.
    pub bottom: Rgba8,
}

impl Default for Background {
    /// Neutral dark grey, slightly lighter at the top.
    fn default() -> Self {
        Self {
            top: Rgba8::rgb(62, 64, 68),
            bottom: Rgba8::rgb(30, 31, 34),
        }
    }
}

/// One character group to draw: a model and its skinned instances.
#[derive(Clone, Copy, Debug)]
pub struct CharacterDraw<'a> {
    /// The model's static GPU data (skinning input, materials, draw list).
    pub model: &'a GpuModel,
    /// The skinned instances to draw, each with `model`'s draw list.
    pub instances: &'a SkinnedInstances,
    /// Draw as an onion-skin ghost (translucent, tinted, behind nothing it overlaps)
    /// instead of a lit character; `None`: a character.
    pub ghost: Option<GhostTint>,
}

/// How a ghost character is blended over what is behind it: per channel
/// `out = ghost x opacity x tint + behind x (1 - opacity x tint)`, in the target's linear
/// space, where `ghost` is the surface's luminance (the `fs_ghost` entry of mesh.wgsl).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GhostTint {
    /// Linear RGB tint, each 0..1.
    pub tint: [f32; 3],
    /// 0 (invisible) to 1.
    pub opacity: f32,
}

/// Everything one frame draws.
#[derive(Clone, Copy, Debug)]
pub struct SceneView<'a> {
    /// The camera the scene is seen from.
    pub camera: OrbitCamera,
    /// Character groups to draw: lit characters and onion-skin ghosts.
    pub characters: &'a [CharacterDraw<'a>],
    /// Ground grid; `None` hides it.
    pub grid: Option<Grid>,
    /// Debug geometry (skeleton, trails, IK targets...).
    pub overlay: Option<&'a OverlayBatch>,
    /// The gradient behind everything.
    pub background: Background,
}

#[derive(Debug)]
struct ViewTargets {
    size: [u32; 2],
    depth: wgpu::TextureView,
    msaa: Option<wgpu::TextureView>,
}

#[derive(Debug)]
struct GrowBuffer {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buffer: Option<wgpu::Buffer>,
}

impl GrowBuffer {
    fn new(label: &'static str, usage: wgpu::BufferUsages) -> Self {
        Self {
            label,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            buffer: None,
        }
    }

    fn write(&mut self, ctx: &GpuContext, bytes: &[u8]) -> Option<&wgpu::Buffer> {
        if bytes.is_empty() {
            return None;
        }
        let needed = (bytes.len() as u64).next_power_of_two().max(1024);
        if self
            .buffer
            .as_ref()
            .is_none_or(|b| b.size() < bytes.len() as u64)
        {
            self.buffer = Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(self.label),
                size: needed,
                usage: self.usage,
                mapped_at_creation: false,
            }));
        }
        let buffer = self.buffer.as_ref()?;
        ctx.queue.write_buffer(buffer, 0, bytes);
        Some(buffer)
    }
}

/// Pipelines and per-frame state for one colour format.
#[derive(Debug)]
pub struct Renderer {
    color_format: wgpu::TextureFormat,
    sample_count: u32,
    skinning: SkinningPipeline,
    materials: MaterialResources,
    frame_buffer: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    background_pipeline: wgpu::RenderPipeline,
    /// `[blend][double_sided]`.
    mesh_pipelines: [[wgpu::RenderPipeline; 2]; 2],
    /// Onion-skin ghosts: [single-sided, double-sided]; depth tested, not written,
    /// blended with the blend constant.
    ghost_pipelines: [wgpu::RenderPipeline; 2],
    /// Blended draws of this frame, sorted back to front (reused).
    blend_order: Vec<(f32, usize, u32, usize)>,
    /// Ghost characters, farthest first `(depth, character)`, reused every frame.
    ghost_order: Vec<(f32, usize)>,
    line_pipelines: [wgpu::RenderPipeline; 2],
    point_pipelines: [wgpu::RenderPipeline; 2],
    line_buffer: GrowBuffer,
    point_buffer: GrowBuffer,
    scratch: OverlayBatch,
    /// Overlay vertex bytes, reused every frame.
    line_bytes: Vec<u8>,
    point_bytes: Vec<u8>,
    targets: Option<ViewTargets>,
}

fn srgb_u8_to_linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_rgba(c: Rgba8) -> [f32; 4] {
    [
        srgb_u8_to_linear(c.0[0]),
        srgb_u8_to_linear(c.0[1]),
        srgb_u8_to_linear(c.0[2]),
        c.0[3] as f32 / 255.0,
    ]
}

impl Renderer {
    /// Builds every pipeline for targets of `color_format` (an sRGB format is best; a
    /// linear one works too, the shaders then encode).
    pub fn new(ctx: &GpuContext, color_format: wgpu::TextureFormat) -> Result<Self, RenderError> {
        ctx.scoped(|| Ok(Self::build(ctx, color_format)))
    }

    fn build(ctx: &GpuContext, color_format: wgpu::TextureFormat) -> Self {
        let device = &ctx.device;
        let sample_count = choose_sample_count(ctx, color_format);
        let skinning = SkinningPipeline::new(device);

        let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("frame"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(
                        std::mem::size_of::<FrameUniforms>() as u64
                    ),
                },
                count: None,
            }],
        });
        let frame_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frame uniforms"),
            size: std::mem::size_of::<FrameUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("frame"),
            layout: &frame_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: frame_buffer.as_entire_binding(),
            }],
        });
        // Base colour (1) and emissive (3) textures.
        let texture = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let material_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    // Storage, not uniform: see the binding's comment in mesh.wgsl
                    // (a uniform here leaked a shader variant per draw on lavapipe).
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                texture(1),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
                texture(3),
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("base colour"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            address_mode_w: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        let white = {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("white"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8UnormSrgb,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            ctx.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                &[255; 4],
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(4),
                    rows_per_image: Some(1),
                },
                wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
            );
            texture.create_view(&wgpu::TextureViewDescriptor::default())
        };

        let shader = |label: &'static str| {
            let source = shader_source(label).expect("a shader of this renderer");
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        };
        let mesh_module = shader("mesh.wgsl");
        let lines_module = shader("lines.wgsl");
        let background_module = shader("background.wgsl");

        let frame_only = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("frame only"),
            bind_group_layouts: &[Some(&frame_layout)],
            immediate_size: 0,
        });
        let mesh_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("mesh"),
            bind_group_layouts: &[Some(&frame_layout), Some(&material_layout)],
            immediate_size: 0,
        });
        let multisample = wgpu::MultisampleState {
            count: sample_count,
            mask: !0,
            alpha_to_coverage_enabled: false,
        };
        let depth = |write: bool, compare: wgpu::CompareFunction| {
            Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(write),
                depth_compare: Some(compare),
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            })
        };
        let opaque_target = [Some(wgpu::ColorTargetState {
            format: color_format,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        })];
        let blended_target = [Some(wgpu::ColorTargetState {
            format: color_format,
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
            write_mask: wgpu::ColorWrites::ALL,
        })];

        let background_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("background"),
            layout: Some(&frame_only),
            vertex: wgpu::VertexState {
                module: &background_module,
                entry_point: Some("vs_background"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: depth(false, wgpu::CompareFunction::Always),
            multisample,
            fragment: Some(wgpu::FragmentState {
                module: &background_module,
                entry_point: Some("fs_background"),
                compilation_options: Default::default(),
                targets: &opaque_target,
            }),
            multiview_mask: None,
            cache: None,
        });

        let mesh_buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<SkinnedVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &[
                    wgpu::VertexAttribute {
                        format: wgpu::VertexFormat::Float32x3,
                        offset: 0,
                        shader_location: 0,
                    },
                    wgpu::VertexAttribute {
                        format: wgpu::VertexFormat::Float32x3,
                        offset: 16,
                        shader_location: 1,
                    },
                ],
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: 8,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &[wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x2,
                    offset: 0,
                    shader_location: 2,
                }],
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: 16,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &[wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x4,
                    offset: 0,
                    shader_location: 3,
                }],
            }),
        ];
        // [opaque or mask, blend] x [single-sided (back faces culled), double-sided]. Blend
        // draws test depth but do not write it, so blended layers do not hide each other.
        let ghost_target = [Some(wgpu::ColorTargetState {
            format: color_format,
            blend: Some(wgpu::BlendState {
                color: wgpu::BlendComponent {
                    src_factor: wgpu::BlendFactor::Constant,
                    dst_factor: wgpu::BlendFactor::OneMinusConstant,
                    operation: wgpu::BlendOperation::Add,
                },
                alpha: wgpu::BlendComponent::OVER,
            }),
            write_mask: wgpu::ColorWrites::ALL,
        })];
        // kind: 0 opaque or mask, 1 blend, 2 ghost.
        let mesh_pipeline = |kind: u32, double_sided: bool| {
            let blend = kind != 0;
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("mesh"),
                layout: Some(&mesh_layout),
                vertex: wgpu::VertexState {
                    module: &mesh_module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &mesh_buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    front_face: wgpu::FrontFace::Ccw,
                    // Double-sided materials: the shader flips back-face normals.
                    cull_mode: (!double_sided).then_some(wgpu::Face::Back),
                    ..Default::default()
                },
                depth_stencil: depth(!blend, wgpu::CompareFunction::Less),
                multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &mesh_module,
                    entry_point: Some(if kind == 2 { "fs_ghost" } else { "fs_main" }),
                    compilation_options: Default::default(),
                    targets: match kind {
                        0 => &opaque_target,
                        1 => &blended_target,
                        _ => &ghost_target,
                    },
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let ghost_pipelines = [mesh_pipeline(2, false), mesh_pipeline(2, true)];
        let mesh_pipelines = [
            [mesh_pipeline(0, false), mesh_pipeline(0, true)],
            [mesh_pipeline(1, false), mesh_pipeline(1, true)],
        ];

        let line_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<LineVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &[
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x3,
                    offset: 0,
                    shader_location: 0,
                },
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Unorm8x4,
                    offset: 12,
                    shader_location: 1,
                },
            ],
        })];
        let point_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<PointInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &[
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x3,
                    offset: 0,
                    shader_location: 0,
                },
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32,
                    offset: 12,
                    shader_location: 1,
                },
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Unorm8x4,
                    offset: 16,
                    shader_location: 2,
                },
            ],
        })];
        let overlay_pipeline =
            |label: &str, entry: &str, buffers, topology, depth_test: DepthTest| {
                let compare = match depth_test {
                    DepthTest::Tested => wgpu::CompareFunction::LessEqual,
                    DepthTest::OnTop => wgpu::CompareFunction::Always,
                };
                device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some(label),
                    layout: Some(&frame_only),
                    vertex: wgpu::VertexState {
                        module: &lines_module,
                        entry_point: Some(entry),
                        compilation_options: Default::default(),
                        buffers,
                    },
                    primitive: wgpu::PrimitiveState {
                        topology,
                        ..Default::default()
                    },
                    depth_stencil: depth(false, compare),
                    multisample,
                    fragment: Some(wgpu::FragmentState {
                        module: &lines_module,
                        entry_point: Some("fs_color"),
                        compilation_options: Default::default(),
                        targets: &blended_target,
                    }),
                    multiview_mask: None,
                    cache: None,
                })
            };
        let line_pipelines = [DepthTest::Tested, DepthTest::OnTop].map(|d| {
            overlay_pipeline(
                "overlay lines",
                "vs_line",
                &line_buffers[..],
                wgpu::PrimitiveTopology::LineList,
                d,
            )
        });
        let point_pipelines = [DepthTest::Tested, DepthTest::OnTop].map(|d| {
            overlay_pipeline(
                "overlay points",
                "vs_point",
                &point_buffers[..],
                wgpu::PrimitiveTopology::TriangleList,
                d,
            )
        });

        Self {
            color_format,
            sample_count,
            skinning,
            materials: MaterialResources {
                layout: material_layout,
                sampler,
                white,
            },
            frame_buffer,
            frame_bind_group,
            background_pipeline,
            mesh_pipelines,
            ghost_pipelines,
            blend_order: Vec::new(),
            ghost_order: Vec::new(),
            line_pipelines,
            point_pipelines,
            line_buffer: GrowBuffer::new("overlay lines", wgpu::BufferUsages::VERTEX),
            point_buffer: GrowBuffer::new("overlay points", wgpu::BufferUsages::VERTEX),
            scratch: OverlayBatch::new(),
            line_bytes: Vec::new(),
            point_bytes: Vec::new(),
            targets: None,
        }
    }

    /// The colour format the pipelines were built for.
    pub fn color_format(&self) -> wgpu::TextureFormat {
        self.color_format
    }

    /// MSAA samples per pixel (4, or 1 where the formats do not allow 4).
    pub fn sample_count(&self) -> u32 {
        self.sample_count
    }

    /// The skinning compute pipeline (for [`SkinnedInstances::new`]).
    pub fn skinning(&self) -> &SkinningPipeline {
        &self.skinning
    }

    /// Uploads a model's static data (vertices, indices, textures, materials).
    pub fn upload_model(&self, ctx: &GpuContext, model: &Model) -> Result<GpuModel, RenderError> {
        GpuModel::new(ctx, &self.materials, model)
    }

    /// GPU buffers for `count` instances of `model`, each with its own palette.
    pub fn create_instances(
        &self,
        ctx: &GpuContext,
        model: &GpuModel,
        count: u32,
    ) -> Result<SkinnedInstances, RenderError> {
        SkinnedInstances::new(ctx, &self.skinning, model, count)
    }

    fn ensure_targets(&mut self, ctx: &GpuContext, size: [u32; 2]) {
        if self.targets.as_ref().is_some_and(|t| t.size == size) {
            return;
        }
        let extent = wgpu::Extent3d {
            width: size[0],
            height: size[1],
            depth_or_array_layers: 1,
        };
        let make = |label, format, usage| {
            ctx.device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: extent,
                    mip_level_count: 1,
                    sample_count: self.sample_count,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default())
        };
        let depth = make(
            "depth",
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let msaa = (self.sample_count > 1).then(|| {
            make(
                "msaa colour",
                self.color_format,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
        });
        self.targets = Some(ViewTargets { size, depth, msaa });
    }

    /// Records one frame into `encoder`: skinning dispatches, then the render pass into
    /// `target` (a view of a `size` texture in [`Renderer::color_format`], single-sampled).
    ///
    /// Uploads go through `ctx.queue.write_buffer`, so submit `encoder` before the next
    /// `render` call on this renderer. Returns [`RenderError::DeviceLost`] (rebuild
    /// everything) or the first uncaptured GPU error of earlier frames.
    pub fn render(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: [u32; 2],
        scene: &SceneView<'_>,
    ) -> Result<(), RenderError> {
        ctx.check()?;
        if size[0] == 0 || size[1] == 0 {
            return Err(RenderError::InvalidInput(format!(
                "target size {}x{}",
                size[0], size[1]
            )));
        }
        self.ensure_targets(ctx, size);
        let aspect = size[0] as f32 / size[1] as f32;
        let camera = &scene.camera;
        let (right, up) = camera.right_up();
        let back = camera.back();
        let key = (-0.55 * right + 0.75 * up + 0.55 * back).normalize();
        let fill = (0.8 * right + 0.1 * up + 0.3 * back - 0.3 * Vec3::Y).normalize();
        let uniforms = FrameUniforms {
            clip_from_world: camera.clip_from_world(aspect).to_cols_array_2d(),
            camera_position: camera.eye().extend(1.0).to_array(),
            key_light: key.extend(0.85).to_array(),
            fill_light: fill.extend(0.3).to_array(),
            viewport: Vec4::new(
                size[0] as f32,
                size[1] as f32,
                1.0 / size[0] as f32,
                1.0 / size[1] as f32,
            )
            .to_array(),
            background_top: linear_rgba(scene.background.top),
            background_bottom: linear_rgba(scene.background.bottom),
            encode_srgb: (!self.color_format.is_srgb()) as u32,
            _pad: [0; 3],
        };
        ctx.queue
            .write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&uniforms));

        // Overlay: grid + caller's batch, split by depth mode.
        self.scratch.clear();
        if let Some(grid) = &scene.grid {
            grid.append_to(&mut self.scratch);
        }
        if let Some(overlay) = scene.overlay {
            self.scratch.extend(overlay);
        }
        let modes = [DepthTest::Tested, DepthTest::OnTop];
        let line_bytes = &mut self.line_bytes;
        let point_bytes = &mut self.point_bytes;
        line_bytes.clear();
        point_bytes.clear();
        let mut line_ranges = [0..0u32, 0..0];
        let mut point_ranges = [0..0u32, 0..0];
        for (k, mode) in modes.into_iter().enumerate() {
            let lines = self.scratch.lines(mode);
            let start = (line_bytes.len() / std::mem::size_of::<LineVertex>()) as u32;
            line_bytes.extend_from_slice(bytemuck::cast_slice(lines));
            line_ranges[k] = start..start + lines.len() as u32;
            let points = self.scratch.points(mode);
            let start = (point_bytes.len() / std::mem::size_of::<PointInstance>()) as u32;
            point_bytes.extend_from_slice(bytemuck::cast_slice(points));
            point_ranges[k] = start..start + points.len() as u32;
        }
        let line_buffer = self.line_buffer.write(ctx, &self.line_bytes).cloned();
        let point_buffer = self.point_buffer.write(ctx, &self.point_bytes).cloned();

        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("skinning"),
                timestamp_writes: None,
            });
            for character in scene.characters {
                character.instances.encode(&mut pass);
            }
        }

        let Some(targets) = self.targets.as_ref() else {
            return Err(RenderError::InvalidInput("no view targets".into()));
        };
        let (view, resolve_target) = match &targets.msaa {
            Some(msaa) => (msaa, Some(target)),
            None => (target, None),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &targets.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.frame_bind_group, &[]);
        pass.set_pipeline(&self.background_pipeline);
        pass.draw(0..3, 0..1);

        // Opaque and masked primitives first, then the blended ones back to front, by the
        // depth along the view of each primitive's bind-space centroid carried by its
        // mesh's first palette matrix (the first skin joint, or an unskinned mesh's node),
        // so the instance's pose and placement count; a primitive whose vertices bend
        // away from that joint is sorted where the joint carries its centre.
        let forward = -camera.back();
        self.blend_order.clear();
        for (c, character) in scene.characters.iter().enumerate() {
            let model = character.model;
            if model.draws().is_empty() || character.ghost.is_some() {
                continue;
            }
            pass.set_vertex_buffer(1, model.uvs.slice(..));
            pass.set_vertex_buffer(2, model.colors.slice(..));
            pass.set_index_buffer(model.indices.slice(..), wgpu::IndexFormat::Uint32);
            for instance in 0..character.instances.instance_count() {
                let Some(vertices) = character.instances.vertex_buffer(instance) else {
                    continue;
                };
                pass.set_vertex_buffer(0, vertices);
                for (d, draw) in model.draws().iter().enumerate() {
                    if draw.blend {
                        let carry = character
                            .instances
                            .palette_matrix(
                                instance,
                                model.palette_layout().mesh_offsets[draw.mesh],
                            )
                            .unwrap_or(glam::Mat4::IDENTITY);
                        let depth = carry.transform_point3(draw.centroid).dot(forward);
                        self.blend_order.push((depth, c, instance, d));
                        continue;
                    }
                    pass.set_pipeline(&self.mesh_pipelines[0][draw.double_sided as usize]);
                    pass.set_bind_group(1, &model.materials[draw.material], &[]);
                    pass.draw_indexed(draw.indices.clone(), draw.base_vertex, 0..1);
                }
            }
        }
        // Ghosts after the opaque characters, farthest first (by each ghost's first
        // palette matrix, its root or first skin joint), so a nearer ghost blends over a
        // farther one.
        self.ghost_order.clear();
        self.ghost_order.extend(
            scene
                .characters
                .iter()
                .enumerate()
                .filter(|(_, c)| c.ghost.is_some_and(|g| g.opacity > 0.0))
                .map(|(c, character)| {
                    let carry = character
                        .instances
                        .palette_matrix(0, 0)
                        .unwrap_or(glam::Mat4::IDENTITY);
                    (carry.w_axis.truncate().dot(forward), c)
                }),
        );
        self.ghost_order
            .sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(_, c) in &self.ghost_order {
            let character = &scene.characters[c];
            let (Some(tint), model) = (character.ghost, character.model) else {
                continue;
            };
            let k = |t: f32| f64::from((t * tint.opacity).clamp(0.0, 1.0));
            pass.set_blend_constant(wgpu::Color {
                r: k(tint.tint[0]),
                g: k(tint.tint[1]),
                b: k(tint.tint[2]),
                a: k(1.0),
            });
            pass.set_vertex_buffer(1, model.uvs.slice(..));
            pass.set_vertex_buffer(2, model.colors.slice(..));
            pass.set_index_buffer(model.indices.slice(..), wgpu::IndexFormat::Uint32);
            for instance in 0..character.instances.instance_count() {
                let Some(vertices) = character.instances.vertex_buffer(instance) else {
                    continue;
                };
                pass.set_vertex_buffer(0, vertices);
                for draw in model.draws() {
                    pass.set_pipeline(&self.ghost_pipelines[draw.double_sided as usize]);
                    pass.set_bind_group(1, &model.materials[draw.material], &[]);
                    pass.draw_indexed(draw.indices.clone(), draw.base_vertex, 0..1);
                }
            }
        }
        self.blend_order.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then((a.1, a.2, a.3).cmp(&(b.1, b.2, b.3)))
        });
        for &(_, c, instance, d) in &self.blend_order {
            let character = &scene.characters[c];
            let model = character.model;
            let Some(vertices) = character.instances.vertex_buffer(instance) else {
                continue;
            };
            let draw = &model.draws()[d];
            pass.set_vertex_buffer(0, vertices);
            pass.set_vertex_buffer(1, model.uvs.slice(..));
            pass.set_vertex_buffer(2, model.colors.slice(..));
            pass.set_index_buffer(model.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.set_pipeline(&self.mesh_pipelines[1][draw.double_sided as usize]);
            pass.set_bind_group(1, &model.materials[draw.material], &[]);
            pass.draw_indexed(draw.indices.clone(), draw.base_vertex, 0..1);
        }

        for k in 0..2 {
            if let Some(buffer) = &line_buffer {
                if !line_ranges[k].is_empty() {
                    pass.set_pipeline(&self.line_pipelines[k]);
                    pass.set_vertex_buffer(0, buffer.slice(..));
                    pass.draw(line_ranges[k].clone(), 0..1);
                }
            }
            if let Some(buffer) = &point_buffer {
                if !point_ranges[k].is_empty() {
                    pass.set_pipeline(&self.point_pipelines[k]);
                    pass.set_vertex_buffer(0, buffer.slice(..));
                    pass.draw(0..6, point_ranges[k].clone());
                }
            }
        }
        Ok(())
    }
}

/// 4x MSAA when both the colour and depth formats guarantee it on this device (and the
/// adapter agrees, when known), else 1.
fn choose_sample_count(ctx: &GpuContext, color_format: wgpu::TextureFormat) -> u32 {
    let features = ctx.device.features();
    let guaranteed = |f: wgpu::TextureFormat| {
        f.guaranteed_format_features(features)
            .flags
            .sample_count_supported(4)
    };
    let adapter_ok = |f: wgpu::TextureFormat| {
        ctx.adapter.as_ref().is_none_or(|a| {
            a.get_texture_format_features(f)
                .flags
                .sample_count_supported(4)
        })
    };
    if guaranteed(color_format)
        && guaranteed(DEPTH_FORMAT)
        && adapter_ok(color_format)
        && adapter_ok(DEPTH_FORMAT)
    {
        4
    } else {
        1
    }
}

/// `shaders/frame.wgsl`: the per-frame uniforms, declared once and prepended to each
/// render shader (WGSL has no include).
pub const FRAME_PRELUDE: &str = include_str!("../../shaders/frame.wgsl");

/// The WGSL the renderer compiles for `shaders/<name>`: the render shaders with
/// [`FRAME_PRELUDE`] in front, the skinning compute shader as it is. `None` for a name
/// the renderer does not use. The shader tests validate exactly these sources.
pub fn shader_source(name: &str) -> Option<String> {
    let body = match name {
        "mesh.wgsl" => include_str!("../../shaders/mesh.wgsl"),
        "lines.wgsl" => include_str!("../../shaders/lines.wgsl"),
        "background.wgsl" => include_str!("../../shaders/background.wgsl"),
        "skinning.wgsl" => return Some(include_str!("../../shaders/skinning.wgsl").to_string()),
        "frame.wgsl" => return Some(FRAME_PRELUDE.to_string()),
        _ => return None,
    };
    Some(format!("{FRAME_PRELUDE}\n{body}"))
}
