// Compute morphing and skinning: morph targets (weighted deltas), then linear blend
// skinning with up to 8 influences per vertex, in one pass.
//
// One invocation skins one vertex of one instance. The input holds every primitive of a
// model concatenated (bind space = model space); `palette_offset` says where that
// vertex's mesh starts in the model palette (skins first, then one entry per unskinned
// mesh). The output is STORAGE | VERTEX: the mesh pass draws it directly.
//
// Mirrors the CPU oracle `anim::SkinningJob`: weights normalised per vertex, all-zero (or
// non-finite) weights keep the bind pose, normals use the cofactor of the blended 3x3.
// Rust mirrors of these structs live in src/render/gpu_types.rs (sizes asserted there and
// checked against this file by tests/shaders.rs).

struct SkinVertex {
    position: vec3<f32>,
    palette_offset: u32,
    normal: vec3<f32>,
    // 1 when the vertex has a tangent (xyz skinned, w kept), else 0.
    has_tangent: u32,
    tangent: vec4<f32>,
    // Eight u16 skin-joint indices, two per u32 (low half first).
    joints: vec4<u32>,
    weights0: vec4<f32>,
    weights1: vec4<f32>,
    // Morph targets: x = delta of target 0 in `morph_deltas`, y = deltas between targets,
    // z = the mesh's first weight in an instance's `morph_weights`, w = target count.
    morph: vec4<u32>,
}

struct MorphDelta {
    position: vec3<f32>,
    _pad0: u32,
    normal: vec3<f32>,
    _pad1: u32,
    tangent: vec3<f32>,
    _pad2: u32,
}

struct SkinnedVertex {
    position: vec3<f32>,
    _pad0: u32,
    normal: vec3<f32>,
    _pad1: u32,
    tangent: vec4<f32>,
}

struct SkinParams {
    // Vertices in this dispatch's input range.
    vertex_count: u32,
    // Instances in this dispatch (global_invocation_id.y).
    instance_count: u32,
    // Output vertices between consecutive instances.
    instance_stride: u32,
    // Palette matrices between consecutive instances.
    palette_stride: u32,
    // Group-wide index of instance 0 of this dispatch (morph weights are bound whole).
    first_instance: u32,
    // Morph weights between consecutive instances.
    weight_stride: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: SkinParams;
@group(0) @binding(1) var<storage, read> vertices: array<SkinVertex>;
@group(0) @binding(2) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(3) var<storage, read_write> skinned: array<SkinnedVertex>;
@group(0) @binding(4) var<storage, read> morph_deltas: array<MorphDelta>;
@group(0) @binding(5) var<storage, read> morph_weights: array<f32>;

const MAX_FINITE: f32 = 3.40282347e+38;

// det(m) * inverse(m)^T, never flipping a normal for mirrored (negative determinant) joints.
fn cofactor(m: mat3x3<f32>) -> mat3x3<f32> {
    let c = mat3x3<f32>(
        cross(m[1], m[2]),
        cross(m[2], m[0]),
        cross(m[0], m[1]),
    );
    if determinant(m) < 0.0 {
        return c * -1.0;
    }
    return c;
}

fn normalize_or_zero(v: vec3<f32>) -> vec3<f32> {
    let len = length(v);
    if len > 0.0 && len <= MAX_FINITE {
        return v / len;
    }
    return vec3<f32>(0.0);
}

@compute @workgroup_size(64)
fn skin(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    let instance = id.y;
    if v >= params.vertex_count || instance >= params.instance_count {
        return;
    }
    let src = vertices[v];
    let dst = instance * params.instance_stride + v;

    // Morph targets first (glTF: deltas are added in bind space, before skinning), like
    // the CPU `anim::MorphJob`. Targets of weight 0 read no deltas.
    var position = src.position;
    var normal = src.normal;
    var tangent = src.tangent.xyz;
    let targets = src.morph.w;
    if targets > 0u {
        let first_weight = (params.first_instance + instance) * params.weight_stride + src.morph.z;
        for (var k = 0u; k < targets; k++) {
            let w = morph_weights[first_weight + k];
            if w != 0.0 {
                let d = morph_deltas[src.morph.x + k * src.morph.y];
                position += d.position * w;
                normal += d.normal * w;
                tangent += d.tangent * w;
            }
        }
    }

    let sum = dot(src.weights0, vec4<f32>(1.0)) + dot(src.weights1, vec4<f32>(1.0));
    // `!(sum > 0.0)` also catches NaN, like the CPU job.
    if !(sum > 0.0) || sum > MAX_FINITE {
        var rest: SkinnedVertex;
        rest.position = position;
        rest.normal = normal;
        rest.tangent = select(vec4<f32>(0.0), vec4<f32>(tangent, src.tangent.w), src.has_tangent != 0u);
        skinned[dst] = rest;
        return;
    }
    let inv_sum = 1.0 / sum;
    let base = instance * params.palette_stride + src.palette_offset;
    // Unrolled over the 8 influences (much faster than a loop with dynamic vector
    // indexing on some drivers); zero weights are skipped like the CPU job does, so
    // their joint index is never read.
    let w0 = src.weights0 * inv_sum;
    let w1 = src.weights1 * inv_sum;
    let j = src.joints;
    var m = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    if w0.x != 0.0 { m += palette[base + (j.x & 0xffffu)] * w0.x; }
    if w0.y != 0.0 { m += palette[base + (j.x >> 16u)] * w0.y; }
    if w0.z != 0.0 { m += palette[base + (j.y & 0xffffu)] * w0.z; }
    if w0.w != 0.0 { m += palette[base + (j.y >> 16u)] * w0.w; }
    if w1.x != 0.0 { m += palette[base + (j.z & 0xffffu)] * w1.x; }
    if w1.y != 0.0 { m += palette[base + (j.z >> 16u)] * w1.y; }
    if w1.z != 0.0 { m += palette[base + (j.w & 0xffffu)] * w1.z; }
    if w1.w != 0.0 { m += palette[base + (j.w >> 16u)] * w1.w; }

    var out: SkinnedVertex;
    out.position = (m * vec4<f32>(position, 1.0)).xyz;
    let m3 = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
    out.normal = normalize_or_zero(cofactor(m3) * normal);
    if src.has_tangent != 0u {
        out.tangent = vec4<f32>(normalize_or_zero(m3 * tangent), src.tangent.w);
    } else {
        out.tangent = vec4<f32>(0.0);
    }
    skinned[dst] = out;
}
