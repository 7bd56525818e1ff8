#!/usr/bin/env bash
# Regenerates the README's window screenshots (assets/screenshots/*.png) with the app's own
# --screenshot, at 1024x640 and 1400x860. Needs a built binary (cargo build), Xvfb and
# ../shared beside the repository. Usage: bash .ci/screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/debug/stridescope
out=assets/screenshots
shared=../shared
mkdir -p "$out"
display=:93
Xvfb "$display" -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb' EXIT
sleep 1
config=$(mktemp -d)
shot() { # name size args...
  local name=$1 size=$2
  shift 2
  DISPLAY=$display XDG_RUNTIME_DIR=$config STRIDESCOPE_CONFIG_DIR=$config \
    "$bin" "$@" --screenshot "$out/$name-$size.png" --after-frames 30 --size "$size" >/dev/null
}
for size in 1024x640 1400x860; do
  shot walk "$size" --clip Walk --play
  shot pose-graph "$size" --graph
  shot motion-matching "$size" --motion-matching
  shot retarget "$size" "$shared/assets/Robot/robot.glb" \
    --retarget-from "$shared/mocap/bandai/dataset-2_walk_normal_002.bvh"
  shot drive "$size" --clip Walk --drive --play
  shot curves "$size" --clip Walk --select thigh_l --onion 2
  shot library "$size" "$shared/assets/Robot/robot.glb" --library-view
done
# 256 colours (ImageMagick, when installed): a third smaller, the UI reads the same.
if command -v convert >/dev/null; then
  for f in "$out"/*.png; do convert "$f" -colors 256 "PNG8:$f"; done
fi
ls -l "$out"
