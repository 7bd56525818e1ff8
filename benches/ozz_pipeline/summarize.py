#!/usr/bin/env python3
"""Summarise interleaved rounds: summarize.py DIR (DIR holds ozz_<r>.txt and ss_<r>.txt)."""
import glob, os, re, statistics, sys

d = sys.argv[1]

def parse(path):
    res, info, checks = {}, [], []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "R":
            res[(f[1], f[2])] = float(f[3])
        elif f[0] == "I":
            info.append(" ".join(f[1:]))
        elif f[0] == "C":
            checks.append((f[1], f[2], tuple(map(float, f[3:6]))))
    return res, info, checks

rounds = sorted(int(re.search(r"_(\d+)\.txt$", p).group(1)) for p in glob.glob(os.path.join(d, "ozz_*.txt")))
oz = {r: parse(os.path.join(d, f"ozz_{r}.txt")) for r in rounds}
ss = {r: parse(os.path.join(d, f"ss_{r}.txt")) for r in rounds}
r0 = rounds[0]

print("== ozz-animation info ==")
for l in oz[r0][1]:
    print("  " + l)
print("== stridescope info ==")
for l in ss[r0][1]:
    print("  " + l)
print("== sanity check: skinned real-mesh centroid at t=0.3 s (unoptimised ozz clips) ==")
for (m, what, a), (_, _, b) in zip(oz[r0][2], ss[r0][2]):
    print(f"  {m:5} {what:24} ozz ({a[0]:.4f}, {a[1]:.4f}, {a[2]:.4f})  ss ({b[0]:.4f}, {b[1]:.4f}, {b[2]:.4f})")

# ozz op -> stridescope op
PAIRS = [
    ("sample[raw]", "sample", "(a) sample 1 clip, ozz unoptimised"),
    ("sample[opt]", "sample", "(a) sample 1 clip, ozz optimised"),
    ("sample_b[raw]", "sample_b", "(a') sample clip B, ozz unoptimised"),
    ("sample_b[opt]", "sample_b", "(a') sample clip B, ozz optimised"),
    ("full[raw]", "full", "(b) 2x sample+blend+L2M, ozz unopt"),
    ("full[opt]", "full", "(b) 2x sample+blend+L2M, ozz opt"),
    ("frame[raw]", "frame", "(e) frame: (b)+palette; ss: pose graph"),
    ("frame[opt]", "frame", "(e) same, ozz optimised"),
    ("blend", "blend", "(b') blend 2 layers only"),
    ("l2m", "l2m", "(c) LocalToModel"),
    ("sample[opt]", "sample_aos", "(a) per-joint SamplingJob, ozz opt"),
    ("full[opt]", "full_aos", "(b) per-joint jobs, ozz opt"),
    ("blend", "blend_aos", "(b') per-joint BlendingJob"),
    ("l2m", "l2m_aos", "(c) per-joint LocalToModelJob"),
    ("skin_synth4", "skin_synth4", "(d) skin 10k verts x4 inf, P+N"),
    ("skin_synth4[it]", "skin_synth4", "(d) same, ozz with inv-transpose N"),
    ("skin_real", "skin_real", "(d') skin real mesh, P+N"),
]

def rng(v):
    return f"{min(v):.0f}-{max(v):.0f}"

def fmt_ns(v):
    return f"{statistics.median(v):9.0f} ({rng(v)})"

print(f"\n== {len(rounds)} interleaved rounds; per round: median of 15 batches; ns per call ==")
print("  stridescope blends with its BlendingJob; (e) is its whole pose-graph frame (clocks, root")
print("  motion, 2 samples, blend, local-to-model, palettes) against ozz's (b) plus the palette.")
print("  Last column: the fastest round of each side, divided. On a shared machine a whole process")
print("  sometimes runs 1.3-1.5x slower (another tenant on its core), so a round's ratio can pair")
print("  a slow side with a fast one; the minima compare both sides at their undisturbed speed.")
hdr = (f"{'model':5} | {'operation':37} | {'ozz ns (min-max)':22} | {'stridescope ns (min-max)':24} | "
       f"ratio ss/ozz (min-max) | min/min")
print(hdr)
print("-" * len(hdr))
models = []
for (m, _op) in oz[r0][0]:
    if m not in models:
        models.append(m)
for m in models:
    for o_op, s_op, label in PAIRS:
        if (m, o_op) not in oz[r0][0] or (m, s_op) not in ss[r0][0]:
            continue
        ov = [oz[r][0][(m, o_op)] for r in rounds]
        sv = [ss[r][0][(m, s_op)] for r in rounds]
        ratios = [s / o for s, o in zip(sv, ov)]
        print(f"{m:5} | {label:37} | {fmt_ns(ov):22} | {fmt_ns(sv):24} | "
              f"{statistics.median(ratios):5.2f} ({min(ratios):.2f}-{max(ratios):.2f})      | "
              f"{min(sv) / min(ov):5.2f}")
