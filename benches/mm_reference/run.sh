#!/usr/bin/env bash
# Motion-matching search: orangeduck/Motion-Matching's box search (database.h's
# motion_matching_search: 64- and 16-frame bounding boxes, a running cost that stops at the
# best so far) vs stridescope's brute force (eight frames per step) and box search (the
# same boxes, early exit per block of eight frames), on the same normalised features of
# the same database: every Bandai take and its mirror retargeted onto the demo character
# (about 149,000 frames), random and steady queries, top 1. One interleaved run:
# reference, stridescope, reference, ... (ROUNDS, default 5); medians and ratios, and
# whether every answer is the same frame.
#
# Builds what is missing under /tmp (never in the checkout): the reference's sources in
# $MM_SRC (from MM_MIRROR, a git directory, else cloned from GitHub) and the C++ harness in
# $OUT. Both sides target the same instruction set: the baseline x86-64 of a default
# `cargo build --release`, and for the reference -O3 -ffast-math -DNDEBUG (its Makefile's
# release flags, without -march=native).
#
#   MM_MIRROR=/path/to/Motion-Matching.git benches/mm_reference/run.sh
#   ROUNDS=7 benches/mm_reference/run.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MAIN="$(cd "$HERE/../.." && pwd)"
ROUNDS="${ROUNDS:-5}"
MM_SRC="${MM_SRC:-/tmp/mm-ref-src}"
OUT="${OUT:-/tmp/mm-ref}"
mkdir -p "$OUT"
log() { echo "[mm-ref] $*" >&2; }

if [ ! -f "$MM_SRC/database.h" ]; then
  mkdir -p "$MM_SRC"
  if [ -n "${MM_MIRROR:-}" ] && [ -d "$MM_MIRROR" ]; then
    log "extracting orangeduck/Motion-Matching from $MM_MIRROR"
    for file in database.h character.h common.h vec.h quat.h array.h LICENSE; do
      git --git-dir="$MM_MIRROR" show "HEAD:$file" >"$MM_SRC/$file"
    done
  else
    log "cloning orangeduck/Motion-Matching"
    rm -rf "$MM_SRC"
    git clone -q --depth 1 https://github.com/orangeduck/Motion-Matching "$MM_SRC"
  fi
fi
CXXFLAGS=(-std=c++17 -O3 -ffast-math -DNDEBUG -w)
TARGET_DIR="${CARGO_TARGET_DIR:-$MAIN/target}"
BIN="$OUT/mm_bench"
if [ ! -x "$BIN" ] || [ "$HERE/mm_bench.cc" -nt "$BIN" ]; then
  log "compiling the C++ harness (${CXXFLAGS[*]})"
  g++ "${CXXFLAGS[@]}" -I"$MM_SRC" "$HERE/mm_bench.cc" -o "$BIN"
fi
log "building the Rust harness (release)"
(cd "$MAIN" && CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release --example mm_bench \
   >"$OUT/cargo.log" 2>&1) ||
  { log "cargo build failed, see $OUT/cargo.log"; exit 1; }
RS="$TARGET_DIR/release/examples/mm_bench"
log "exporting the database and the queries"
"$RS" --export "$OUT"
: >"$OUT/rounds.txt"
for r in $(seq 1 "$ROUNDS"); do
  log "round $r of $ROUNDS"
  "$BIN" "$OUT" | tee -a "$OUT/rounds.txt"
  "$RS" "$OUT" | tee -a "$OUT/rounds.txt"
done
python3 - "$OUT" <<'PY'
import statistics, sys
out = sys.argv[1]
rows = [l.split() for l in open(f"{out}/rounds.txt") if l.strip()]
def ns(name, qset):
    return [float(r[2]) for r in rows if r[0] == name and r[1] == qset]
answers = {n: open(f"{out}/answers_{n}.txt").read().split("\n")
           for n in ("reference", "stridescope_brute", "stridescope_box")}
print("| queries | reference box search (us) | stridescope brute force (us) | stridescope box search (us) | box / reference | brute / reference |")
print("|---|---|---|---|---|---|")
for qset in ("random", "steady"):
    ref, brute, box = ns("reference", qset), ns("stridescope_brute", qset), ns("stridescope_box", qset)
    rb = [b / r for r, b in zip(ref, box)]
    rf = [b / r for r, b in zip(ref, brute)]
    print(f"| {qset} | {statistics.median(ref)/1000:.1f} | {statistics.median(brute)/1000:.1f} | "
          f"{statistics.median(box)/1000:.1f} | {statistics.median(rb):.2f} ({min(rb):.2f}-{max(rb):.2f}) | "
          f"{statistics.median(rf):.2f} |")
visited = {}
for r in rows:
    if r[0] == "visited":
        visited[r[1]] = (int(r[2]), int(r[3]))
for qset, (v, n) in visited.items():
    print(f"stridescope box search, {qset}: scores {v} of {n} frames per query ({100 * v / n:.1f}%)")
for name in ("stridescope_brute", "stridescope_box"):
    same = sum(a == b for a, b in zip(answers["reference"], answers[name]) if a)
    total = sum(1 for a in answers["reference"] if a)
    print(f"{name}: {same} of {total} answers the reference's frame")
PY
