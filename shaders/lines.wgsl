// Overlay pass: world-space lines (LineList) and points (screen-space squares, one
// instanced quad per point). Colours arrive as sRGB bytes; they are decoded to linear so
// an sRGB target re-encodes them exactly, or passed through when the shader must encode.

// FrameUniforms and `frame` (group 0, binding 0) come from frame.wgsl, prepended.

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

// `srgb` is the colour as authored (sRGB, 0..1).
fn output_color(srgb: vec4<f32>) -> vec4<f32> {
    if frame.encode_srgb != 0u {
        return srgb;
    }
    return vec4<f32>(srgb_to_linear(srgb.rgb), srgb.a);
}

struct LineIn {
    @location(0) position: vec3<f32>,
    @location(1) color: vec4<f32>,
}

struct ColorOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_line(in: LineIn) -> ColorOut {
    var out: ColorOut;
    out.clip_position = frame.clip_from_world * vec4<f32>(in.position, 1.0);
    out.color = in.color;
    return out;
}

struct PointIn {
    @location(0) position: vec3<f32>,
    @location(1) size_px: f32,
    @location(2) color: vec4<f32>,
}

@vertex
fn vs_point(in: PointIn, @builtin(vertex_index) corner_index: u32) -> ColorOut {
    // Two triangles: (0,1,2) (2,1,3) over corners (-1,-1) (1,-1) (-1,1) (1,1).
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(-1.0, 1.0),
        vec2<f32>(-1.0, 1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
    );
    let corner = corners[corner_index % 6u];
    var clip = frame.clip_from_world * vec4<f32>(in.position, 1.0);
    // Half the size in pixels -> NDC (2 / viewport per pixel), scaled by w to stay fixed
    // in screen space after the perspective divide.
    let half_ndc = corner * in.size_px * frame.viewport.zw;
    clip = vec4<f32>(clip.xy + half_ndc * clip.w, clip.zw);
    var out: ColorOut;
    out.clip_position = clip;
    out.color = in.color;
    return out;
}

@fragment
fn fs_color(in: ColorOut) -> @location(0) vec4<f32> {
    return output_color(in.color);
}
