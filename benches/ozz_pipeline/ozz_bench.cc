// ozz-animation 0.16 side of stridescope's pipeline comparison (benches/ozz_pipeline/run.sh;
// started from ../shared/bench/ozz/cpp/ozz_bench.cc, with row (e): the frame plus palette).
//
// Usage: ozz_bench <ozz data dir> <mesh dir>
//   <ozz data dir>/<Model>/{skeleton,noopt_<clip>,opt_<clip>}.ozz  (gltf2ozz output)
//   <mesh dir>/<Model>_{real,synth}.mesh               (examples/ozz_pipeline --export)
//
// Output lines (parsed by run.sh), same format as the Rust harness:
//   I <model> <key> <value...>   C <model> <check> x y z   R <model> <op> <ns/call>
//
// Timing: each op runs one warm-up batch, then kBatches batches of `calls` calls;
// ns/call of each batch, median reported. Playback ops advance each clip's time by
// kStep s per call and wrap at the clip's duration (ratio = t / duration).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <xmmintrin.h>

#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/containers/vector.h"
#include "ozz/base/io/archive.h"
#include "ozz/base/io/stream.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/span.h"
#include "ozz/geometry/runtime/skinning_job.h"

namespace {

const float kStep = 0.0137f;
const int kBatches = 15;
const int kCalls = 10000;
const int kSkinCalls = 200;
const float kCheckTime = 0.3f;

struct ModelDesc {
  const char* label;
  const char* clip_a;
  const char* clip_b;
};
const ModelDesc kModels[] = {{"Robot", "Robot_Walking", "Robot_Running"},
                             {"Fox", "Walk", "Run"}};

template <typename T>
inline void Escape(T* p) {
  asm volatile("" : : "g"(p) : "memory");
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "ozz_bench: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
void Load(const std::string& path, T* object) {
  ozz::io::File file(path.c_str(), "rb");
  if (!file.opened()) Die("cannot open " + path);
  ozz::io::IArchive archive(&file);
  if (!archive.TestTag<T>()) Die("wrong archive type in " + path);
  archive >> *object;
}

// Mesh written by `ss-bench --export` (see the Rust harness for the layout).
struct Mesh4 {
  std::vector<std::string> joint_names;      // skin joint names (palette order)
  std::vector<ozz::math::Float4x4> inv_bind;  // per skin joint
  std::vector<float> positions, normals;      // 3 per vertex
  std::vector<uint16_t> joints;               // 4 per vertex
  std::vector<float> weights;                 // 4 per vertex, sum 1, descending
  std::vector<uint32_t> counts;               // non-zero influences (1..4)
  size_t vertex_count() const { return counts.size(); }
};

Mesh4 ReadMesh(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) Die("cannot open " + path + " (run ss-bench --export first)");
  auto rd = [&](void* dst, size_t n) {
    if (std::fread(dst, 1, n, f) != n) Die("truncated " + path);
  };
  char magic[4];
  rd(magic, 4);
  if (std::memcmp(magic, "SSM1", 4) != 0) Die("bad magic in " + path);
  Mesh4 m;
  uint32_t p;
  rd(&p, 4);
  for (uint32_t i = 0; i < p; ++i) {
    uint32_t len;
    rd(&len, 4);
    std::string name(len, '\0');
    rd(&name[0], len);
    float c[16];
    rd(c, sizeof(c));
    ozz::math::Float4x4 mat;
    for (int k = 0; k < 4; ++k) {
      mat.cols[k] = ozz::math::simd_float4::LoadPtrU(c + 4 * k);
    }
    m.joint_names.push_back(name);
    m.inv_bind.push_back(mat);
  }
  uint32_t v;
  rd(&v, 4);
  m.positions.resize(3 * v);
  m.normals.resize(3 * v);
  m.joints.resize(4 * v);
  m.weights.resize(4 * v);
  m.counts.resize(v);
  for (uint32_t i = 0; i < v; ++i) {
    rd(&m.positions[3 * i], 12);
    rd(&m.normals[3 * i], 12);
    rd(&m.joints[4 * i], 8);
    rd(&m.weights[4 * i], 16);
    rd(&m.counts[i], 4);
  }
  std::fclose(f);
  return m;
}

// One ozz SkinningJob input: vertices with exactly `influences` influences, in ozz's
// layout (influences joint indices, influences - 1 weights per vertex).
struct Part {
  int influences = 0;
  std::vector<uint16_t> joints;
  std::vector<float> weights;
  std::vector<float> positions, normals, out_positions, out_normals;
  int vertex_count() const { return static_cast<int>(positions.size() / 3); }
};

// influences == 0: ozz's idiom of one part per influence count (what fbx2mesh does);
// otherwise one part, every vertex with `influences` influences (zero weights kept).
std::vector<Part> MakeParts(const Mesh4& m, int influences) {
  std::vector<Part> parts;
  for (int k = 1; k <= 4; ++k) {
    if (influences != 0 && k != influences) continue;
    Part part;
    part.influences = k;
    for (size_t v = 0; v < m.vertex_count(); ++v) {
      if (influences == 0 && static_cast<int>(m.counts[v]) != k) continue;
      for (int i = 0; i < k; ++i) part.joints.push_back(m.joints[4 * v + i]);
      for (int i = 0; i < k - 1; ++i) part.weights.push_back(m.weights[4 * v + i]);
      for (int i = 0; i < 3; ++i) {
        part.positions.push_back(m.positions[3 * v + i]);
        part.normals.push_back(m.normals[3 * v + i]);
      }
    }
    if (part.positions.empty()) continue;
    part.out_positions.resize(part.positions.size());
    part.out_normals.resize(part.normals.size());
    parts.push_back(std::move(part));
  }
  return parts;
}

// `palette_it`: optional inverse-transpose matrices, used by ozz for the normals.
void Skin(const ozz::vector<ozz::math::Float4x4>& palette, Part* p,
          const ozz::vector<ozz::math::Float4x4>* palette_it = nullptr) {
  ozz::geometry::SkinningJob job;
  if (palette_it) {
    job.joint_inverse_transpose_matrices = ozz::make_span(*palette_it);
  }
  job.vertex_count = p->vertex_count();
  job.influences_count = p->influences;
  job.joint_matrices = ozz::make_span(palette);
  job.joint_indices = ozz::make_span(p->joints);
  job.joint_indices_stride = sizeof(uint16_t) * p->influences;
  if (p->influences > 1) {
    job.joint_weights = ozz::make_span(p->weights);
    job.joint_weights_stride = sizeof(float) * (p->influences - 1);
  }
  job.in_positions = ozz::make_span(p->positions);
  job.in_positions_stride = sizeof(float) * 3;
  job.in_normals = ozz::make_span(p->normals);
  job.in_normals_stride = sizeof(float) * 3;
  job.out_positions = ozz::make_span(p->out_positions);
  job.out_positions_stride = sizeof(float) * 3;
  job.out_normals = ozz::make_span(p->out_normals);
  job.out_normals_stride = sizeof(float) * 3;
  if (!job.Run()) Die("SkinningJob failed");
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <typename F>
double Measure(int calls, F&& f) {
  for (int i = 0; i < calls; ++i) f();
  std::vector<double> per_call;
  for (int b = 0; b < kBatches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(
        std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
  }
  return Median(per_call);
}

void Advance(float* t, float duration) {
  *t += kStep;
  if (*t >= duration) *t = std::fmod(*t, duration);
}

struct Clip {
  ozz::animation::Animation anim;
  ozz::animation::SamplingJob::Context ctx;
};

void Sample(Clip* c, float t, ozz::vector<ozz::math::SoaTransform>* out) {
  ozz::animation::SamplingJob job;
  job.animation = &c->anim;
  job.context = &c->ctx;
  job.ratio = t / c->anim.duration();
  job.output = ozz::make_span(*out);
  if (!job.Run()) Die("SamplingJob failed");
}

void Blend(const ozz::animation::Skeleton& sk,
           const ozz::vector<ozz::math::SoaTransform>& a,
           const ozz::vector<ozz::math::SoaTransform>& b, float wa, float wb,
           ozz::vector<ozz::math::SoaTransform>* out) {
  ozz::animation::BlendingJob::Layer layers[2];
  layers[0].weight = wa;
  layers[0].transform = ozz::make_span(a);
  layers[1].weight = wb;
  layers[1].transform = ozz::make_span(b);
  ozz::animation::BlendingJob job;
  job.layers = layers;
  job.rest_pose = sk.joint_rest_poses();
  job.output = ozz::make_span(*out);
  if (!job.Run()) Die("BlendingJob failed");
}

void LocalToModel(const ozz::animation::Skeleton& sk,
                  const ozz::vector<ozz::math::SoaTransform>& local,
                  ozz::vector<ozz::math::Float4x4>* model) {
  ozz::animation::LocalToModelJob job;
  job.skeleton = &sk;
  job.input = ozz::make_span(local);
  job.output = ozz::make_span(*model);
  if (!job.Run()) Die("LocalToModelJob failed");
}

void Palette(const ozz::vector<ozz::math::Float4x4>& model,
             const std::vector<int>& remap, const Mesh4& mesh,
             ozz::vector<ozz::math::Float4x4>* palette) {
  for (size_t i = 0; i < remap.size(); ++i) {
    (*palette)[i] = model[remap[i]] * mesh.inv_bind[i];
  }
}

void BenchModel(const ModelDesc& d, const std::string& data_dir,
                const std::string& mesh_dir) {
  const std::string dir = data_dir + "/" + d.label + "/";
  const char* label = d.label;
  ozz::animation::Skeleton sk;
  Load(dir + "skeleton.ozz", &sk);
  // clips[0..1] = unoptimised A, B; clips[2..3] = optimised A, B.
  std::vector<Clip> clips(4);
  const char* prefix[2] = {"noopt_", "opt_"};
  for (int o = 0; o < 2; ++o) {
    Load(dir + prefix[o] + d.clip_a + ".ozz", &clips[2 * o].anim);
    Load(dir + prefix[o] + d.clip_b + ".ozz", &clips[2 * o + 1].anim);
  }
  for (Clip& c : clips) {
    if (c.anim.num_tracks() != sk.num_joints()) Die("track count mismatch");
    c.ctx.Resize(c.anim.num_tracks());
  }
  const Mesh4 real = ReadMesh(mesh_dir + "/" + label + "_real.mesh");
  const Mesh4 synth = ReadMesh(mesh_dir + "/" + label + "_synth.mesh");

  // Skin joint -> ozz joint, by name.
  std::vector<int> remap;
  const auto names = sk.joint_names();
  for (const std::string& n : real.joint_names) {
    int found = -1;
    for (int j = 0; j < sk.num_joints(); ++j) {
      if (n == names[j]) found = j;
    }
    if (found < 0) Die(std::string("skin joint ") + n + " not in ozz skeleton");
    remap.push_back(found);
  }

  std::printf("I %s skeleton_joints %d\n", label, sk.num_joints());
  std::printf("I %s skin_joints %zu\n", label, remap.size());
  for (int o = 0; o < 2; ++o) {
    for (int c = 0; c < 2; ++c) {
      const ozz::animation::Animation& a = clips[2 * o + c].anim;
      std::printf(
          "I %s %s_%s %s duration %.6f tracks %d size_bytes %zu\n", label,
          o ? "opt" : "noopt", c ? "b" : "a", a.name(), a.duration(),
          a.num_tracks(), a.size());
    }
  }

  const int soa = sk.num_soa_joints();
  ozz::vector<ozz::math::SoaTransform> local_a(soa), local_b(soa), blended(soa);
  ozz::vector<ozz::math::Float4x4> model(sk.num_joints());
  ozz::vector<ozz::math::Float4x4> palette(remap.size());

  std::vector<Part> real_parts = MakeParts(real, 0);
  std::vector<Part> synth_parts = MakeParts(synth, 4);
  {
    std::string hist;
    for (const Part& p : real_parts) {
      hist += " " + std::to_string(p.influences) + ":" +
              std::to_string(p.vertex_count());
    }
    std::printf("I %s real_mesh_vertices %zu parts%s\n", label,
                real.vertex_count(), hist.c_str());
  }

  // Sanity checks: skinned real-mesh centroid at kCheckTime (unoptimised clips).
  for (int blend = 0; blend < 2; ++blend) {
    for (Clip& c : clips) c.ctx.Invalidate();
    Sample(&clips[0], kCheckTime, &local_a);
    if (blend) {
      Sample(&clips[1], kCheckTime, &local_b);
      Blend(sk, local_a, local_b, .5f, .5f, &blended);
      LocalToModel(sk, blended, &model);
    } else {
      LocalToModel(sk, local_a, &model);
    }
    Palette(model, remap, real, &palette);
    double c[3] = {0, 0, 0};
    size_t n = 0;
    for (Part& p : real_parts) {
      Skin(palette, &p);
      for (int v = 0; v < p.vertex_count(); ++v, ++n) {
        for (int k = 0; k < 3; ++k) c[k] += p.out_positions[3 * v + k];
      }
    }
    std::printf("C %s %s %.5f %.5f %.5f\n", label,
                blend ? "skinned_centroid_blend" : "skinned_centroid_a",
                c[0] / n, c[1] / n, c[2] / n);
  }
  // The skinning ops use the palette of clip A at kCheckTime.
  Sample(&clips[0], kCheckTime, &local_a);
  LocalToModel(sk, local_a, &model);
  Palette(model, remap, real, &palette);
  ozz::vector<ozz::math::Float4x4> palette_it(palette.size());
  for (size_t i = 0; i < palette.size(); ++i) {
    palette_it[i] = ozz::math::Transpose(ozz::math::Invert(palette[i]));
  }
  for (Clip& c : clips) c.ctx.Invalidate();

  for (int o = 0; o < 2; ++o) {
    Clip* ca = &clips[2 * o];
    Clip* cb = &clips[2 * o + 1];
    const char* variant = o ? "opt" : "raw";
    // (a) one clip, SamplingJob with its Context.
    float t = 0.f;
    double ns = Measure(kCalls, [&] {
      Advance(&t, ca->anim.duration());
      Sample(ca, t, &local_a);
      Escape(local_a.data());
    });
    std::printf("R %s sample[%s] %.1f\n", label, variant, ns);
    // (a') clip B alone, for the decomposition of (b).
    t = 0.f;
    ns = Measure(kCalls, [&] {
      Advance(&t, cb->anim.duration());
      Sample(cb, t, &local_b);
      Escape(local_b.data());
    });
    std::printf("R %s sample_b[%s] %.1f\n", label, variant, ns);
    // (b) 2 clips + BlendingJob (0.5/0.5) + LocalToModelJob.
    float ta = 0.f, tb = 0.f;
    ns = Measure(kCalls, [&] {
      Advance(&ta, ca->anim.duration());
      Advance(&tb, cb->anim.duration());
      Sample(ca, ta, &local_a);
      Sample(cb, tb, &local_b);
      Blend(sk, local_a, local_b, .5f, .5f, &blended);
      LocalToModel(sk, blended, &model);
      Escape(model.data());
    });
    std::printf("R %s full[%s] %.1f\n", label, variant, ns);
    // (e) the same frame with the skinning palette (model x inverse bind), the ozz side
    // of stridescope's pose-graph frame (its graph adds clocks and root motion).
    ta = 0.f;
    tb = 0.f;
    ns = Measure(kCalls, [&] {
      Advance(&ta, ca->anim.duration());
      Advance(&tb, cb->anim.duration());
      Sample(ca, ta, &local_a);
      Sample(cb, tb, &local_b);
      Blend(sk, local_a, local_b, .5f, .5f, &blended);
      LocalToModel(sk, blended, &model);
      Palette(model, remap, real, &palette);
      Escape(palette.data());
    });
    std::printf("R %s frame[%s] %.1f\n", label, variant, ns);
  }
  // (b') BlendingJob alone, on the two (optimised-clip) poses (b) sampled last.
  double ns = Measure(kCalls, [&] {
    Escape(local_a.data());
    Escape(local_b.data());
    Blend(sk, local_a, local_b, .5f, .5f, &blended);
    Escape(blended.data());
  });
  std::printf("R %s blend %.1f\n", label, ns);
  // (c) LocalToModelJob alone (on the last blended pose).
  ns = Measure(kCalls, [&] {
    Escape(blended.data());
    LocalToModel(sk, blended, &model);
    Escape(model.data());
  });
  std::printf("R %s l2m %.1f\n", label, ns);
  // (d) SkinningJob, positions + normals (joint_matrices only: normals use the
  // blended matrix, not renormalised).
  ns = Measure(kSkinCalls, [&] {
    Escape(palette.data());
    for (Part& p : synth_parts) Skin(palette, &p);
    Escape(synth_parts.data());
  });
  std::printf("R %s skin_synth4 %.1f\n", label, ns);
  // Same, with inverse-transpose matrices for the normals (correct under non-uniform
  // scale, as stridescope's cofactor normals are).
  ns = Measure(kSkinCalls, [&] {
    Escape(palette.data());
    for (Part& p : synth_parts) Skin(palette, &p, &palette_it);
    Escape(synth_parts.data());
  });
  std::printf("R %s skin_synth4[it] %.1f\n", label, ns);
  ns = Measure(kSkinCalls, [&] {
    Escape(palette.data());
    for (Part& p : real_parts) Skin(palette, &p);
    Escape(real_parts.data());
  });
  std::printf("R %s skin_real %.1f\n", label, ns);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <ozz data dir> <mesh dir>\n", argv[0]);
    return 2;
  }
  // FTZ=1: set flush-to-zero and denormals-are-zero (MXCSR 0x8040), as the Rust side.
  const char* ftz_env = std::getenv("FTZ");
  const bool ftz = ftz_env && *ftz_env && std::strcmp(ftz_env, "0") != 0;
  if (ftz) _mm_setcsr(_mm_getcsr() | 0x8040);
  for (const ModelDesc& d : kModels) {
    std::printf("I %s ftz_daz %s\n", d.label, ftz ? "on" : "off");
    BenchModel(d, argv[1], argv[2]);
  }
  return 0;
}
