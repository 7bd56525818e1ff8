#!/usr/bin/env bash
# The animation pipeline side by side: ozz-animation 0.16 vs stridescope (this checkout),
# same glTF data, one interleaved run (ozz, ss, ozz, ss, ...), issue 23. Started from
# ../shared/bench/ozz/run.sh; here stridescope blends with its BlendingJob (not a harness
# loop) and row (e) times a whole pose-graph frame against ozz's frame plus palette. The
# Rust side is `examples/ozz_pipeline.rs`. Builds whatever is missing under /tmp (never
# in the checkout), then prints the table.
#
#   benches/ozz_pipeline/run.sh        # 5 rounds each
#   ROUNDS=9 OZZ_MIRROR=/path/to/ozz-animation.git benches/ozz_pipeline/run.sh
#   PIN="taskset -c 1" benches/ozz_pipeline/run.sh   # optional CPU pinning of both binaries
#   REBUILD=1 ...                     # force rebuilding the two harness binaries
#   FTZ=1 ...                         # both harnesses set flush-to-zero/denormals-are-zero
#
# Needs: cmake, g++, cargo, python3, and the ozz-animation 0.16 sources: either already in
# $OZZ_SRC, or a bare git mirror of github.com/guillaumeblanc/ozz-animation at $OZZ_MIRROR,
# or network for git clone.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROUNDS="${ROUNDS:-5}"
JOBS="${JOBS:-2}"
PIN="${PIN:-}"
MAIN="$(cd "$HERE/../.." && pwd)"
ASSETS="${ASSETS:-$(cd "$MAIN/../shared/assets" && pwd)}"
OZZ_MIRROR="${OZZ_MIRROR:-}"
OZZ_SRC="${OZZ_SRC:-/tmp/ozz-src}"          # ozz work tree
OZZ_BUILD="${OZZ_BUILD:-/tmp/ozz-build}"    # cmake build of ozz
OZZ_DATA="${OZZ_DATA:-/tmp/ozz-data}"       # gltf2ozz output, one folder per model
HARNESS="${HARNESS:-/tmp/ozz-pipeline}"     # C++ harness binary, meshes, round outputs
mkdir -p "$HARNESS"
log() { echo "[ozz-bench] $*" >&2; }

# 1. ozz-animation sources (media/ is left out: large files, not needed).
if [ ! -f "$OZZ_SRC/CMakeLists.txt" ]; then
  mkdir -p "$OZZ_SRC"
  if [ -n "$OZZ_MIRROR" ] && [ -d "$OZZ_MIRROR" ]; then
    log "extracting ozz-animation from $OZZ_MIRROR"
    git --git-dir="$OZZ_MIRROR" archive HEAD -- . ':!media' 2>"$HARNESS/archive.log" | tar -x -C "$OZZ_SRC"
  else
    log "cloning ozz-animation 0.16.0"
    rm -rf "$OZZ_SRC"
    git clone -q --depth 1 --branch 0.16.0 https://github.com/guillaumeblanc/ozz-animation "$OZZ_SRC"
  fi
fi
grep -q "0.16.0" "$OZZ_SRC/CHANGES.md" || log "warning: $OZZ_SRC does not look like ozz-animation 0.16.0"

# 2. ozz libraries + gltf2ozz (Release: -O3 -DNDEBUG, ozz's default SSE2 flags).
GLTF2OZZ="$OZZ_BUILD/src/animation/offline/gltf/gltf2ozz"
OZZ_LIBS=("$OZZ_BUILD/src/geometry/runtime/libozz_geometry.a"
          "$OZZ_BUILD/src/animation/runtime/libozz_animation.a"
          "$OZZ_BUILD/src/base/libozz_base.a")
if [ ! -x "$GLTF2OZZ" ] || ! ls "${OZZ_LIBS[@]}" >/dev/null 2>&1; then
  log "building ozz-animation in $OZZ_BUILD (-j$JOBS)"
  mkdir -p "$OZZ_BUILD"
  (cd "$OZZ_BUILD" &&
   cmake "$OZZ_SRC" -DCMAKE_BUILD_TYPE=Release -Dozz_build_samples=OFF -Dozz_build_tests=OFF \
     -Dozz_build_howtos=OFF -Dozz_build_tools=ON -Dozz_build_gltf=ON -Dozz_build_fbx=OFF \
     -Dozz_build_postfix=OFF >"$HARNESS/ozz-cmake.log" 2>&1 &&
   make -j"$JOBS" gltf2ozz ozz_animation ozz_base ozz_geometry >"$HARNESS/ozz-make.log" 2>&1) ||
   { log "ozz build failed, see $HARNESS/ozz-*.log"; exit 1; }
fi

# 3. gltf2ozz: skeleton + unoptimised (noopt_*) and default-optimised (opt_*) clips.
convert() { # label file
  local out="$OZZ_DATA/$1"
  if [ ! -f "$out/skeleton.ozz" ] || [ "$HERE/gltf2ozz_config.json" -nt "$out/skeleton.ozz" ]; then
    log "gltf2ozz $2"
    mkdir -p "$out"
    (cd "$out" && "$GLTF2OZZ" --file="$ASSETS/$2" --config_file="$HERE/gltf2ozz_config.json" \
      --log_level=verbose >convert.log 2>&1) || { log "gltf2ozz failed, see $out/convert.log"; exit 1; }
  fi
}
convert Robot Robot/robot.glb
convert Fox Fox/Fox.glb

# 4. C++ harness.
OZZ_BIN="$HARNESS/ozz_bench"
if [ -n "${REBUILD:-}" ] || [ ! -x "$OZZ_BIN" ] || [ "$HERE/ozz_bench.cc" -nt "$OZZ_BIN" ]; then
  log "compiling the C++ harness"
  g++ -std=c++17 -O3 -DNDEBUG -Wall -Wno-ignored-attributes -I"$OZZ_SRC/include" \
    "$HERE/ozz_bench.cc" -o "$OZZ_BIN" "${OZZ_LIBS[@]}"
fi

# 5. Rust harness: the checkout's example, release profile.
log "cargo build --release --example ozz_pipeline"
(cd "$MAIN" && cargo build --release --example ozz_pipeline -j"$JOBS" -q) >"$HARNESS/ss-build.log" 2>&1 ||
  { log "cargo build failed, see $HARNESS/ss-build.log"; tail -20 "$HARNESS/ss-build.log"; exit 1; }
SS_BIN="${CARGO_TARGET_DIR:-$MAIN/target}/release/examples/ozz_pipeline"

# 6. Identical skinning meshes for both sides (real mesh + synthetic 10k x 4 influences).
"$SS_BIN" --assets "$ASSETS" --export "$HARNESS/meshes"

# 7. Interleaved rounds.
RUN_DIR="$HARNESS/rounds"
rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
log "load before: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds, ozz then stridescope"
for r in $(seq 1 "$ROUNDS"); do
  $PIN "$OZZ_BIN" "$OZZ_DATA" "$HARNESS/meshes" >"$RUN_DIR/ozz_$r.txt"
  $PIN "$SS_BIN" --assets "$ASSETS" >"$RUN_DIR/ss_$r.txt"
  log "round $r done (load $(cut -d' ' -f1 /proc/loadavg))"
done
log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "stridescope: $MAIN @ $(git --no-optional-locks -C "$MAIN" rev-parse --short HEAD 2>/dev/null || echo '?')$(git --no-optional-locks -C "$MAIN" diff --quiet 2>/dev/null || echo ' (dirty)')"
echo "ozz-animation: $(grep -m1 'Release version' "$OZZ_SRC/CHANGES.md")"
python3 "$HERE/summarize.py" "$RUN_DIR"
