#!/usr/bin/env python3
"""Whether the H200's two L2 partition sides run a GEMM launch at speeds of their own.

The traced group-1 2-stage launches (cta_skew.py) part by partition side: the SMs next to one
partition (sm_partition.csv.gz) take longer a tile than the other side's, wave after wave, and the
side that lags changes between launches of one allocation (docs/cache-model.md, session 41). This
launches each config of CASES REPS times, cold (cta_skew.timed_launches: do_bench's flush before
each), with fresh buffers for every group of three, and records each CTA's start, end and SM in
cta_skew's CSV format; offline it prints, per launch, the side difference wave by wave (side 1's
mean tile time less side 0's, over the launch's median tile).

On the H200, from the repository root (~15 s):
  python3 hw_profiles/calibrate/side_lag.py --out DIR     -> DIR/side_lag.csv.gz
  python3 hw_profiles/calibrate/side_lag.py --out DIR --case 8192,8192,8192,128,128,64,1,2,4 ...
                                                          -> DIR/side_lag_cases.csv.gz
Anywhere:
  python3 hw_profiles/calibrate/side_lag.py --csv h200/side_lag.csv.gz
"""
import argparse
import collections
import csv
import gzip
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# 8192^3, group 1, 2 stages: a loop that leans from its first wave (64 x 64 x 32, 8 tiles an SM),
# one that runs away after some waves (64 x 128 x 64, 4), two that hold (64 x 128 x 32, 4 tiles
# whose loads do not queue; 128 x 128 x 64 with 8 warps, 2).
CASES = [("side", 8192, 8192, 8192, 64, 64, 32, 1, 2, 4),
         ("side", 8192, 8192, 8192, 64, 128, 64, 1, 2, 4),
         ("side", 8192, 8192, 8192, 64, 128, 32, 1, 2, 4),
         ("side", 8192, 8192, 8192, 128, 128, 64, 1, 2, 8)]
ALLOCATIONS = 3  # fresh buffers for each
REPS = 3         # cold launches of each allocation


def measure(out_dir, cases, name):
    import torch
    from cta_skew import timed_launches
    from envinfo import header_lines
    flush = torch.empty(256 * 2**20, device="cuda", dtype=torch.int8)
    path = os.path.join(out_dir, name)
    with gzip.open(path, "wt", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/side_lag.py"))
        w = csv.writer(f)
        w.writerow(["case", "M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps", "rep",
                    "pid", "smid", "t_start_ns", "t_end_ns"])
        for case in cases:
            _, M, N, K, bm, bn, bk, gm, st, wp = case
            for alloc in range(ALLOCATIONS):
                for rep, _, rows in timed_launches(case, flush, reps=REPS):
                    for pid, (t0, t1, sm) in enumerate(rows):
                        w.writerow([f"alloc{alloc}", M, N, K, bm, bn, bk, gm, st, wp, alloc * REPS + rep, pid, sm, t0, t1])
                    print(case[1:], "alloc", alloc, "rep", rep, flush=True)
    print("wrote", path)


def report(path):
    from cta_skew import launch_shape, read_launches
    from sm_partition import partitions, read
    side_of = partitions(read(os.path.join(HERE, "h200", "sm_partition.csv.gz")))[0]
    for key, tiles in sorted(read_launches(path, smid=True).items()):
        m, n, k, bm, bn, bk, g, st, w, rep = key
        steps, _, slots = launch_shape({p: v[:2] for p, v in tiles.items()}, k, bk)
        median = statistics.median(e - s for s, e, _ in tiles.values())
        diffs = []
        for wave in range(len(tiles) // slots):
            side = collections.defaultdict(list)
            for p in range(wave * slots, (wave + 1) * slots):
                s, e, sm = tiles[p]
                side[side_of[sm]].append(e - s)
            diffs.append((statistics.fmean(side[1]) - statistics.fmean(side[0])) / median)
        print(f"{m}x{n}x{k} {bm}x{bn}x{bk} g{g} s{st} w{w} launch {rep} (allocation {rep // REPS}): "
              + " ".join(f"{d:+.3f}" for d in diffs))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="measure on this machine's GPU into DIR/side_lag.csv.gz")
    ap.add_argument("--csv", help="print the side differences of a recorded CSV")
    ap.add_argument("--case", action="append", metavar="M,N,K,BM,BN,BK,GROUP_M,STAGES,WARPS",
                    help="measure these configs instead of CASES (into side_lag_cases.csv.gz)")
    a = ap.parse_args()
    if a.out:
        cases = [("side",) + tuple(int(x) for x in c.split(",")) for c in a.case or []]
        measure(a.out, cases or CASES, "side_lag_cases.csv.gz" if cases else "side_lag.csv.gz")
    if a.csv:
        report(a.csv if os.path.isabs(a.csv) else os.path.join(HERE, a.csv))
    if not (a.out or a.csv):
        ap.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
