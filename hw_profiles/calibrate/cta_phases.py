#!/usr/bin/env python3
"""A tile's fixed cost, split: the corpus's Triton GEMM kernel with %globaltimer read at the
start of each CTA, right after its k-loop (the accumulator complete) and after its store of C
(cta_skew.py's timed kernel with PHASES).

`cta_skew.py --set fixed` finds one-wave tiles of 1024x1024 taking 0.1-1.3 us longer than the
model outside their k-steps (the intercept of time against k-steps). This splits each CTA's
time into its loop (prologue, k-steps, the wait for the last MMA) and its epilogue (the
conversion and store of C): K of 1, 2, 4, 48 and 96 k-steps, eight tile configs, one cold
launch after do_bench's 256 MiB flush, three repeats.

CSV: M, N, K, block_m, block_n, block_k, group_m, stages, warps, rep, pid, smid,
     t_start_ns, t_loop_ns, t_end_ns   (relative to the earliest start of the launch)
Usage: python3 cta_phases.py --out DIR   (DIR/cta_phases.csv)
       python3 cta_phases.py --summary h200/cta_phases.csv.gz   (no GPU needed): per tile
              config, the first wave's median loop time against k-steps (least squares: fixed
              part and time per k-step) and its median epilogue
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import collections  # noqa: E402
import gzip  # noqa: E402
import statistics  # noqa: E402


def summary(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    launches = collections.defaultdict(list)
    for r in rows:
        key = tuple(int(r[k]) for k in ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps", "rep"))
        launches[key].append(tuple(int(r[k]) for k in ("t_start_ns", "t_loop_ns", "t_end_ns")))
    per_config = collections.defaultdict(lambda: collections.defaultdict(list))
    for key, ctas in launches.items():
        first_end = min(c[2] for c in ctas)
        wave = [c for c in ctas if c[0] < first_end]  # the CTAs that started before any ended
        steps = key[2] // key[5]
        per_config[key[3:9]][steps].append((statistics.median((c[1] - c[0]) / 1e3 for c in wave),
                                            statistics.median((c[2] - c[1]) / 1e3 for c in wave)))
    print("block_m,block_n,block_k,group_m,stages,warps,loop_fixed_us,us_per_k_step,epilogue_us")
    for conf, by_steps in per_config.items():
        n = sorted(by_steps)
        loop = [statistics.median(x[0] for x in by_steps[k]) for k in n]
        epi = statistics.median(x[1] for k in n for x in by_steps[k])
        mn, ml = sum(n) / len(n), sum(loop) / len(loop)
        slope = sum((a - mn) * (b - ml) for a, b in zip(n, loop)) / sum((a - mn) ** 2 for a in n)
        print(",".join(str(v) for v in conf) + f",{ml - slope * mn:.2f},{slope:.3f},{epi:.2f}")


if "--summary" not in sys.argv:
    import torch  # noqa: E402

    from cta_skew import FIXED_CASES, timed_launches  # noqa: E402


def run_case(case, writer, flush_buf):
    _, M, N, K, bm, bn, bk, gm, st, w = case
    for rep, k, rows in timed_launches(case, flush_buf, phases=True):
        for pid, (t0, t_loop, t1, sm) in enumerate(rows):
            writer.writerow([M, N, K, bm, bn, bk, gm, st, w, rep, pid, sm, t0, t_loop, t1])
    print(M, N, K, f"{bm}x{bn}x{bk}", "g", gm, "s", st, "w", w, "regs", k.n_regs, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--summary")
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
        return
    if not args.out:
        ap.error("--out DIR or --summary FILE")
    from envinfo import header_lines  # noqa: E402
    flush_buf = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    with open(os.path.join(args.out, "cta_phases.csv"), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/cta_phases.py"))
        writer = csv.writer(f)
        writer.writerow(["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps", "rep",
                         "pid", "smid", "t_start_ns", "t_loop_ns", "t_end_ns"])
        for case in FIXED_CASES:
            run_case(case, writer, flush_buf)


if __name__ == "__main__":
    main()
