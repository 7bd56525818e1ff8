// ozz-animation's IKTwoBoneJob on the exact input stridescope's `examples/ik_bench.rs
// --export` writes (the demo's left leg at Walk 0.3 s, target 5 cm forward of the foot),
// timed like the Rust side: one warm-up batch, then 15 batches of 10,000 calls; prints the
// median ns/call and the end joint's position after the corrections (to check both
// solve the same problem). Built by benches/ozz_ik/run.sh.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"

using namespace ozz::math;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ik_bench INPUT\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  float v[57];
  for (float& x : v) {
    if (!(in >> x)) {
      std::fprintf(stderr, "%s: expected 57 numbers\n", argv[1]);
      return 2;
    }
  }
  Float4x4 m[3];
  for (int j = 0; j < 3; ++j)
    for (int c = 0; c < 4; ++c) m[j].cols[c] = simd_float4::LoadPtrU(v + 16 * j + 4 * c);
  SimdQuaternion start_correction, mid_correction;
  bool reached = false;
  ozz::animation::IKTwoBoneJob job;
  job.target = simd_float4::Load(v[48], v[49], v[50], 1.f);
  job.pole_vector = simd_float4::Load(v[51], v[52], v[53], 0.f);
  job.mid_axis = simd_float4::Load(v[54], v[55], v[56], 0.f);
  job.start_joint = &m[0];
  job.mid_joint = &m[1];
  job.end_joint = &m[2];
  job.start_joint_correction = &start_correction;
  job.mid_joint_correction = &mid_correction;
  job.reached = &reached;
  if (!job.Validate()) {
    std::fprintf(stderr, "invalid IKTwoBoneJob input\n");
    return 1;
  }
  const int kBatches = 15, kCalls = 10000;
  std::vector<double> ns;
  volatile float sink = 0.f;
  for (int b = -1; b < kBatches; ++b) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) {
      job.Run();
      sink = sink + GetX(start_correction.xyzw);
    }
    auto t1 = std::chrono::steady_clock::now();
    if (b >= 0) ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kCalls);
  }
  std::sort(ns.begin(), ns.end());
  Float4x4 s2 = m[0] * Float4x4::FromQuaternion(start_correction.xyzw);
  Float4x4 mid2 = s2 * Invert(m[0]) * m[1] * Float4x4::FromQuaternion(mid_correction.xyzw);
  Float4x4 end2 = mid2 * Invert(m[1]) * m[2];
  float e[4];
  StorePtrU(end2.cols[3], e);
  std::printf("ozz two_bone_ik %.2f ns/call end %.6f %.6f %.6f reached %d\n", ns[ns.size() / 2],
              e[0], e[1], e[2], reached ? 1 : 0);
  return 0;
}
