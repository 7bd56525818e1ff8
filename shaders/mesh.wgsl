// Lit, textured mesh pass. Draws the compute-skinned vertex buffer (positions and normals
// in world space) plus a static UV buffer. Lighting in linear space: a key light, a fill
// light and a hemisphere ambient term. Base colour = material factor * vertex colour *
// sRGB texture; emission (factor * sRGB texture) is added; alpha per the material's mode
// (MASK discards below the cutoff, BLEND outputs it for the blended pipelines).

// FrameUniforms and `frame` (group 0, binding 0) come from frame.wgsl, prepended.

struct MaterialUniforms {
    // Linear RGBA multiplier (glTF baseColorFactor).
    base_color_factor: vec4<f32>,
    // Linear RGB emission (glTF emissiveFactor); w unused.
    emissive_factor: vec4<f32>,
    alpha_cutoff: f32,
    // 0 OPAQUE, 1 MASK, 2 BLEND.
    alpha_mode: u32,
    _pad0: u32,
    _pad1: u32,
}

// A read-only storage buffer, not a uniform buffer: with Mesa's lavapipe (22.3, what CI
// and machines without a GPU run) every draw that bound this as a uniform buffer, whose
// `alpha_mode` steers a branch below, left about 0.3 MB in the driver for good (issue 17:
// the window grew by 146 MB/s on the Robot), most likely a shader variant from its
// uniform inlining, which storage buffers never get. Same data, same images.
@group(1) @binding(0) var<storage, read> material: MaterialUniforms;
@group(1) @binding(1) var base_color_texture: texture_2d<f32>;
@group(1) @binding(2) var base_color_sampler: sampler;
// White where the material has no emissive texture (the factor alone then).
@group(1) @binding(3) var emissive_texture: texture_2d<f32>;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // COLOR_0 (linear RGBA), white when the primitive has none.
    @location(3) color: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) color: vec4<f32>,
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    var out: VertexOut;
    out.clip_position = frame.clip_from_world * vec4<f32>(in.position, 1.0);
    out.world_position = in.position;
    out.normal = in.normal;
    out.uv = in.uv;
    out.color = in.color;
    return out;
}

fn linear_to_srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c * 12.92;
    let hi = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c <= vec3<f32>(0.0031308));
}

fn encode_output(linear: vec3<f32>) -> vec3<f32> {
    let c = clamp(linear, vec3<f32>(0.0), vec3<f32>(1.0));
    if frame.encode_srgb != 0u {
        return linear_to_srgb(c);
    }
    return c;
}

// The lit colour (linear, before output encoding) and alpha of a fragment.
fn shade(in: VertexOut, front_facing: bool) -> vec4<f32> {
    let base = material.base_color_factor * in.color
        * textureSample(base_color_texture, base_color_sampler, in.uv);
    let emission = material.emissive_factor.rgb
        * textureSample(emissive_texture, base_color_sampler, in.uv).rgb;
    // MASK: below the cutoff nothing is drawn (after the samples, which need uniform
    // control flow).
    if material.alpha_mode == 1u && base.a < material.alpha_cutoff {
        discard;
    }
    var n = in.normal;
    let len = length(n);
    if len > 0.0 {
        n = n / len;
    } else {
        // Degenerate normal: face the camera.
        n = normalize(frame.camera_position.xyz - in.world_position);
    }
    if !front_facing {
        n = -n;
    }
    let key = max(dot(n, frame.key_light.xyz), 0.0) * frame.key_light.w * vec3<f32>(1.0, 0.96, 0.9);
    let fill = max(dot(n, frame.fill_light.xyz), 0.0) * frame.fill_light.w * vec3<f32>(0.75, 0.85, 1.0);
    let sky = vec3<f32>(0.42, 0.46, 0.52);
    let ground = vec3<f32>(0.16, 0.14, 0.12);
    let ambient = mix(ground, sky, n.y * 0.5 + 0.5);
    // A little rim light separates the silhouette from the dark background.
    let view_dir = normalize(frame.camera_position.xyz - in.world_position);
    let rim = pow(1.0 - max(dot(n, view_dir), 0.0), 3.0) * 0.15;
    let lit = base.rgb * (key + fill + ambient) + vec3<f32>(rim) + emission;
    let alpha = select(1.0, base.a, material.alpha_mode == 2u);
    return vec4<f32>(lit, alpha);
}

@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let c = shade(in, front_facing);
    return vec4<f32>(encode_output(c.rgb), c.a);
}

// Onion-skin ghost: the lit surface's luminance, light enough to read over a dark
// background. The ghost pipelines blend it with the blend constant (tint x opacity per
// channel), so `out = ghost * k + behind * (1 - k)`: a tinted, translucent body.
@fragment
fn fs_ghost(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let c = shade(in, front_facing);
    let luminance = dot(c.rgb, vec3<f32>(0.2126, 0.7152, 0.0722));
    return vec4<f32>(encode_output(vec3<f32>(0.25 + luminance)), 1.0);
}
