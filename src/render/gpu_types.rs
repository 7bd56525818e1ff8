//! Rust mirrors of the WGSL structs in `shaders/*.wgsl`.
//!
//! Each type is `#[repr(C)]` + [`bytemuck::Pod`] and its size is asserted at compile time;
//! `tests/shaders.rs` also compares these sizes with the layouts naga computes from the
//! shader sources, so the two sides cannot drift apart silently.

use bytemuck::{Pod, Zeroable};

/// One bind-pose vertex, input of the skinning compute shader (`SkinVertex` in
/// `shaders/skinning.wgsl`). Positions and normals are in the mesh's bind space (model
/// space for skinned meshes, the node's space for unskinned ones).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SkinVertex {
    pub position: [f32; 3],
    /// Index of this vertex's mesh palette in the model palette (see
    /// [`super::GpuModel::palette_layout`]); joint indices are relative to it.
    pub palette_offset: u32,
    pub normal: [f32; 3],
    /// 1 when `tangent` is meaningful (xyz skinned, w kept), else 0.
    pub has_tangent: u32,
    pub tangent: [f32; 4],
    /// Eight u16 joint indices packed two per u32, low half first.
    pub joints: [u32; 4],
    /// Eight weights, any non-negative scale (the shader normalises).
    pub weights: [f32; 8],
    /// Morph targets of the vertex: `[delta of target 0 (index into the model's
    /// [`MorphDelta`] buffer), deltas between targets (the primitive's vertex count),
    /// this mesh's first weight in an instance's morph weights, target count]`; all 0
    /// without morph targets.
    pub morph: [u32; 4],
}
const _: () = assert!(std::mem::size_of::<SkinVertex>() == 112);

/// One vertex's deltas for one morph target (`MorphDelta` in `shaders/skinning.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MorphDelta {
    pub position: [f32; 3],
    pub _pad0: u32,
    pub normal: [f32; 3],
    pub _pad1: u32,
    pub tangent: [f32; 3],
    pub _pad2: u32,
}
const _: () = assert!(std::mem::size_of::<MorphDelta>() == 48);

impl SkinVertex {
    /// Packs eight u16 joint indices two per u32 (low half first).
    pub fn pack_joints(joints: &[u16; 8]) -> [u32; 4] {
        std::array::from_fn(|i| joints[2 * i] as u32 | ((joints[2 * i + 1] as u32) << 16))
    }
}

/// One skinned vertex, output of the compute shader and vertex buffer 0 of the mesh pass
/// (`SkinnedVertex` in `shaders/skinning.wgsl`). World (model) space.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SkinnedVertex {
    pub position: [f32; 3],
    pub _pad0: u32,
    /// Unit normal (zero when degenerate).
    pub normal: [f32; 3],
    pub _pad1: u32,
    /// xyz skinned unit tangent and w handedness; all zero when the vertex has none.
    pub tangent: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<SkinnedVertex>() == 48);

/// Per-dispatch parameters of the skinning shader (`SkinParams`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct SkinParams {
    pub vertex_count: u32,
    pub instance_count: u32,
    pub instance_stride: u32,
    pub palette_stride: u32,
    /// Group-wide index of this dispatch's first instance (morph weights are bound whole).
    pub first_instance: u32,
    /// Morph weights between consecutive instances.
    pub weight_stride: u32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<SkinParams>() == 32);

/// Per-frame uniforms shared by the mesh, overlay and background shaders
/// (`FrameUniforms`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FrameUniforms {
    pub clip_from_world: [[f32; 4]; 4],
    pub camera_position: [f32; 4],
    /// xyz unit direction towards the light, w intensity.
    pub key_light: [f32; 4],
    pub fill_light: [f32; 4],
    /// width, height, 1/width, 1/height (pixels).
    pub viewport: [f32; 4],
    /// Linear RGB.
    pub background_top: [f32; 4],
    pub background_bottom: [f32; 4],
    /// 1 when the target format is not sRGB and the shaders must encode.
    pub encode_srgb: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<FrameUniforms>() == 176);

/// Material parameters of the mesh shader (`MaterialUniforms`, bound as a read-only storage
/// buffer: see mesh.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MaterialUniforms {
    /// Linear RGBA.
    pub base_color_factor: [f32; 4],
    /// Linear RGB emission (xyz; w unused).
    pub emissive_factor: [f32; 4],
    /// MASK: fragments with alpha below it are discarded.
    pub alpha_cutoff: f32,
    /// 0 OPAQUE, 1 MASK, 2 BLEND.
    pub alpha_mode: u32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<MaterialUniforms>() == 48);

/// A line-list vertex of the overlay pass (`LineIn`): position + sRGB bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LineVertex {
    pub position: [f32; 3],
    pub color: [u8; 4],
}
const _: () = assert!(std::mem::size_of::<LineVertex>() == 16);

/// One overlay point (`PointIn`, per instance): a screen-space square.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PointInstance {
    pub position: [f32; 3],
    /// Edge length of the square in pixels.
    pub size_px: f32,
    pub color: [u8; 4],
}
const _: () = assert!(std::mem::size_of::<PointInstance>() == 20);
