// Background: one full-screen triangle with a vertical gradient (neutral dark grey).

// FrameUniforms and `frame` (group 0, binding 0) come from frame.wgsl, prepended.

struct BackgroundOut {
    @builtin(position) clip_position: vec4<f32>,
    // 0 at the top of the view, 1 at the bottom.
    @location(0) v: f32,
}

@vertex
fn vs_background(@builtin(vertex_index) index: u32) -> BackgroundOut {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: BackgroundOut;
    // Depth 1 (the far plane): everything else draws in front.
    out.clip_position = vec4<f32>(uv * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0), 1.0, 1.0);
    out.v = uv.y;
    return out;
}

fn linear_to_srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c * 12.92;
    let hi = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c <= vec3<f32>(0.0031308));
}

@fragment
fn fs_background(in: BackgroundOut) -> @location(0) vec4<f32> {
    let c = mix(frame.background_top.rgb, frame.background_bottom.rgb, clamp(in.v, 0.0, 1.0));
    if frame.encode_srgb != 0u {
        return vec4<f32>(linear_to_srgb(c), 1.0);
    }
    return vec4<f32>(c, 1.0);
}
