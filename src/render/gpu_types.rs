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
    /// Bind-pose position in bind space, metres (`position: vec3<f32>`).
    pub position: [f32; 3],
    /// Index of this vertex's mesh palette in the model palette (see
    /// [`super::GpuModel::palette_layout`]); joint indices are relative to it.
    pub palette_offset: u32,
    /// Bind-pose normal in bind space (`normal`); `has_tangent` fills the rest of its 16
    /// bytes.
    pub normal: [f32; 3],
    /// 1 when `tangent` is meaningful (xyz skinned, w kept), else 0.
    pub has_tangent: u32,
    /// Bind-pose tangent (`tangent`): xyz direction in bind space, w handedness (+1 or -1);
    /// all 0 when `has_tangent` is 0.
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
    /// Position delta of this target, bind space, metres (`position`).
    pub position: [f32; 3],
    /// Padding (`_pad0`): WGSL puts the next `vec3<f32>` on a 16-byte boundary.
    pub _pad0: u32,
    /// Normal delta of this target, bind space (`normal`).
    pub normal: [f32; 3],
    /// Padding (`_pad1`) to the next 16-byte boundary.
    pub _pad1: u32,
    /// Tangent delta, xyz only (`tangent`; the handedness is not morphed).
    pub tangent: [f32; 3],
    /// Padding (`_pad2`) that rounds the struct to 48 bytes.
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
    /// Skinned position in world space, the model's space (`position`), metres.
    pub position: [f32; 3],
    /// Padding (`_pad0`): `normal` starts at byte 16.
    pub _pad0: u32,
    /// Unit normal (zero when degenerate).
    pub normal: [f32; 3],
    /// Padding (`_pad1`): `tangent` starts at byte 32.
    pub _pad1: u32,
    /// xyz skinned unit tangent and w handedness; all zero when the vertex has none.
    pub tangent: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<SkinnedVertex>() == 48);

/// Per-dispatch parameters of the skinning shader (`SkinParams`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct SkinParams {
    /// Vertices in this dispatch's chunk (`vertex_count`); invocations past it do nothing.
    pub vertex_count: u32,
    /// Instances in this dispatch (`instance_count`, the dispatch's y extent).
    pub instance_count: u32,
    /// Output vertices between consecutive instances (`instance_stride`): the vertex count
    /// padded to a multiple of 16.
    pub instance_stride: u32,
    /// Palette matrices between consecutive instances (`palette_stride`): the palette length
    /// padded to a multiple of 4.
    pub palette_stride: u32,
    /// Group-wide index of this dispatch's first instance (morph weights are bound whole).
    pub first_instance: u32,
    /// Morph weights between consecutive instances.
    pub weight_stride: u32,
    /// Padding (`_pad0`, `_pad1`) that rounds the uniform to 32 bytes.
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<SkinParams>() == 32);

/// Per-frame uniforms shared by the mesh, overlay and background shaders
/// (`FrameUniforms`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FrameUniforms {
    /// The camera's view-projection (`clip_from_world`), column-major: world space to clip
    /// space, depth 0..1.
    pub clip_from_world: [[f32; 4]; 4],
    /// Eye position in world space, metres (xyz; w = 1).
    pub camera_position: [f32; 4],
    /// xyz unit direction towards the light, w intensity.
    pub key_light: [f32; 4],
    /// xyz unit direction towards the fill light (world), w its intensity.
    pub fill_light: [f32; 4],
    /// width, height, 1/width, 1/height (pixels).
    pub viewport: [f32; 4],
    /// Linear RGB.
    pub background_top: [f32; 4],
    /// Linear RGB at the bottom of the view (`background_bottom`); w unused by the shader.
    pub background_bottom: [f32; 4],
    /// 1 when the target format is not sRGB and the shaders must encode.
    pub encode_srgb: u32,
    /// Padding (`_pad0` to `_pad2`) that rounds the uniform to 176 bytes.
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
    /// Padding (`_pad0`, `_pad1`) that rounds the struct to 48 bytes.
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<MaterialUniforms>() == 48);

/// A line-list vertex of the overlay pass (`LineIn`): position + sRGB bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct LineVertex {
    /// World-space position, metres (`LineIn.position`, location 0).
    pub position: [f32; 3],
    /// sRGB RGBA bytes (`LineIn.color`, location 1, read as `Unorm8x4`: 0..1).
    pub color: [u8; 4],
}
const _: () = assert!(std::mem::size_of::<LineVertex>() == 16);

/// One overlay point (`PointIn`, per instance): a screen-space square.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PointInstance {
    /// World-space centre of the square, metres (`PointIn.position`, location 0).
    pub position: [f32; 3],
    /// Edge length of the square in pixels.
    pub size_px: f32,
    /// sRGB RGBA bytes (`PointIn.color`, location 2, read as `Unorm8x4`: 0..1).
    pub color: [u8; 4],
}
const _: () = assert!(std::mem::size_of::<PointInstance>() == 20);
