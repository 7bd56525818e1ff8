// Shared by mesh.wgsl, lines.wgsl and background.wgsl: the renderer prepends this file to
// each of them (WGSL has no include), so the per-frame uniforms are declared once.
// Rust mirror: `FrameUniforms` in src/render/gpu_types.rs (sizes checked by tests/shaders.rs).

struct FrameUniforms {
    clip_from_world: mat4x4<f32>,
    // xyz: camera position (world).
    camera_position: vec4<f32>,
    // xyz: unit direction towards the light (world); w: intensity.
    key_light: vec4<f32>,
    fill_light: vec4<f32>,
    // width, height, 1/width, 1/height in pixels.
    viewport: vec4<f32>,
    // Linear RGB background gradient, top and bottom of the view.
    background_top: vec4<f32>,
    background_bottom: vec4<f32>,
    // 1 when the colour target is not an sRGB format and the shader must encode.
    encode_srgb: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
