#!/usr/bin/env bash
# Two-bone IK: ozz-animation 0.16's IKTwoBoneJob vs stridescope's TwoBoneIkJob on the same
# input (exported by the Rust side), in one interleaved run: ozz, stridescope, ozz, ...
# (ROUNDS, default 7). Builds what is missing under /tmp (never in the checkout):
# ozz sources /tmp/ozz-src and its cmake build /tmp/ozz-build (shared with
# ../shared/bench/ozz/run.sh), the C++ harness in /tmp/ozz-ik.
#
#   OZZ_MIRROR=/path/to/ozz-animation.git benches/ozz_ik/run.sh     # from the checkout
#   CARGO_TARGET_DIR=... ROUNDS=9 JOBS=2 benches/ozz_ik/run.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MAIN="$(cd "$HERE/../.." && pwd)"
ROUNDS="${ROUNDS:-7}"
JOBS="${JOBS:-2}"
OZZ_SRC="${OZZ_SRC:-/tmp/ozz-src}"
OZZ_BUILD="${OZZ_BUILD:-/tmp/ozz-build}"
OUT="${OUT:-/tmp/ozz-ik}"
mkdir -p "$OUT"
log() { echo "[ozz-ik] $*" >&2; }

if [ ! -f "$OZZ_SRC/CMakeLists.txt" ]; then
  mkdir -p "$OZZ_SRC"
  if [ -n "${OZZ_MIRROR:-}" ] && [ -d "$OZZ_MIRROR" ]; then
    log "extracting ozz-animation from $OZZ_MIRROR"
    git --git-dir="$OZZ_MIRROR" archive HEAD -- . ':!media' | tar -x -C "$OZZ_SRC"
  else
    log "cloning ozz-animation 0.16.0"
    rm -rf "$OZZ_SRC"
    git clone -q --depth 1 --branch 0.16.0 https://github.com/guillaumeblanc/ozz-animation "$OZZ_SRC"
  fi
fi
LIBS=("$OZZ_BUILD/src/animation/runtime/libozz_animation.a" "$OZZ_BUILD/src/base/libozz_base.a")
if ! ls "${LIBS[@]}" >/dev/null 2>&1; then
  log "building ozz_animation and ozz_base in $OZZ_BUILD (-j$JOBS)"
  mkdir -p "$OZZ_BUILD"
  (cd "$OZZ_BUILD" &&
   cmake "$OZZ_SRC" -DCMAKE_BUILD_TYPE=Release -Dozz_build_samples=OFF -Dozz_build_tests=OFF \
     -Dozz_build_howtos=OFF -Dozz_build_tools=OFF -Dozz_build_gltf=OFF -Dozz_build_fbx=OFF \
     -Dozz_build_postfix=OFF -DCMAKE_POLICY_VERSION_MINIMUM=3.5 >"$OUT/cmake.log" 2>&1 &&
   make -j"$JOBS" ozz_animation ozz_base >"$OUT/make.log" 2>&1) ||
   { log "ozz build failed, see $OUT/*.log"; exit 1; }
fi
if [ ! -x "$OUT/ik_bench" ] || [ "$HERE/ik_bench.cc" -nt "$OUT/ik_bench" ]; then
  log "compiling the C++ harness"
  g++ -std=c++17 -O3 -DNDEBUG -Wall -I"$OZZ_SRC/include" "$HERE/ik_bench.cc" -o "$OUT/ik_bench" "${LIBS[@]}"
fi
log "building the Rust harness (release)"
(cd "$MAIN" && cargo build --release --example ik_bench >"$OUT/cargo.log" 2>&1) ||
  { log "cargo build failed, see $OUT/cargo.log"; exit 1; }
RS="${CARGO_TARGET_DIR:-$MAIN/target}/release/examples/ik_bench"
"$RS" --export "$OUT/input.txt"
: >"$OUT/rounds.txt"
for r in $(seq 1 "$ROUNDS"); do
  "$OUT/ik_bench" "$OUT/input.txt" | tee -a "$OUT/rounds.txt"
  "$RS" | tee -a "$OUT/rounds.txt"
done
python3 - "$OUT/rounds.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
ozz = [float(r[2]) for r in rows if r[0] == "ozz"]
ss = [float(r[2]) for r in rows if r[0] == "stridescope"]
ratios = [s / o for o, s in zip(ozz, ss)]
print(f"two_bone_ik  ozz {statistics.median(ozz):.1f} ns  stridescope {statistics.median(ss):.1f} ns  "
      f"ratio {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}) over {len(ratios)} rounds")
ends = {r[0]: tuple(float(x) for x in r[5:8]) for r in rows}
d = max(abs(a - b) for a, b in zip(ends["ozz"], ends["stridescope"]))
print(f"end joint after the corrections: ozz {ends['ozz']}  stridescope {ends['stridescope']}  (max diff {d:.2e} m)")
PY
