#!/usr/bin/env python3
"""A prototype, not the model: L2 read lookups per requested sector of traced GEMM launches from
their own tile starts and SMs under a merge rule in time, against ncu's (docs/cache-model.md,
"Later waves start as convoys of one GPC").

Each traced launch (hw_profiles/calibrate/h200/cta_skew*.csv.gz, first repeat, with a clean ncu
row in one of l2_residuals.py's sets, no register spills) has every tile's start, end and SM. A tile reads its
blocks of A (its row of tiles) and B (its column) at k-step k at start + (k + 0.5) x its own
iteration (its time over the k-steps), every `stride`-th k-step. The reads of one block at one
k-step by the SMs of one GPC (the request coalescer's merge domain, lrc_window.py --domains;
sm_partition.gpc_of_sm) are taken in time order: a read more than W ns after the GPC's last
looked-up read of it is looked up, the others merge. A and B weigh by their rows (block_m and
block_n sectors a k-step). The model's own lookups (`tilesight-cli`, l2_residuals.py
--lookups) beside it.

W stands for the time a read stays open in the coalescer: 34 ns after a hit
(lrc_window.py --fine), 160-800 ns for a fill in flight (lrc_window.py). The prototype does not
tell hits from misses; it prints every W given.

  python3 tests/validation/h200/merge_traced.py [--window 34 100 300] [--min-waves 1.5]
          [--cli build/bin/tilesight-cli]
"""
import argparse
import collections
import csv
import glob
import gzip
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
CALIBRATE = os.path.join(ROOT, "hw_profiles", "calibrate")
sys.path.insert(0, CALIBRATE)
sys.path.insert(0, HERE)

KEY = ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps")
SETS = ["l2_hit_sweep.csv", "l2_hit_corpus.csv", "l2_hit_calib.csv", "l2_hit_heldout.csv", "l2_hit_heldout4.csv",
        "l2_hit_heldout5.csv", "l2_hit_heldout6.csv", "l2_hit_waves.csv"]


def ncu_lookups():
    """Per clean config (aligned, no spills) of the ncu sets: ncu's read lookups (tex) per
    requested sector of A and B, the first set's row where a config repeats."""
    import l2_residuals
    out = {}
    for name in SETS:
        for r in l2_residuals.read(os.path.join(HERE, name)):
            x = {c: int(r[c]) for c in KEY}
            key = tuple(x[c] for c in KEY)
            tex = float(r.get("l2_tex_read_sectors") or "nan")
            if key in out or tex != tex or l2_residuals.shape_class(x) == "unaligned":
                continue
            grid = -(-x["M"] // x["block_m"]) * -(-x["N"] // x["block_n"])
            out[key] = tex / (grid * (x["block_m"] + x["block_n"]) * x["K"] * 2 / 32)
    return out


def model_lookups(cli, keys):
    """The model's lookups of A and B per requested sector (1 - merged / requested), as
    l2_residuals.py --lookups compares them with ncu's."""
    import l2_residuals
    out = {}
    for key in keys:
        x = dict(zip(KEY, key), spills=0)
        split = l2_residuals.predicted_lookups(cli, x)
        if split:
            out[key] = split["merge"]
    return out


def tile_coord(p, m, n, bm, bn, group_m):
    """Triton's grouped launch order: launch position -> (row, column) of the tile grid."""
    rows, cols = -(-m // bm), -(-n // bn)
    per_group = group_m * cols
    first = p // per_group * group_m
    size = min(rows - first, group_m)
    return first + (p % per_group) % size, (p % per_group) // size


def lookups(tiles, key, gpc, window, stride):
    """Lookups per requested sector of one traced launch under the rule (module docstring)."""
    m, n, k, bm, bn, bk, group_m = key[:7]
    steps = k // bk
    reads = {"A": collections.defaultdict(list), "B": collections.defaultdict(list)}
    for p, (start, end, sm) in tiles.items():
        row, col = tile_coord(p, m, n, bm, bn, group_m)
        it = (end - start) / steps
        for s in range(0, steps, stride):
            t = start + (s + 0.5) * it
            reads["A"][(gpc[sm], row, s)].append(t)
            reads["B"][(gpc[sm], col, s)].append(t)
    share = {}
    for op, blocks in reads.items():
        looked = total = 0
        for times in blocks.values():
            times.sort()
            open_until = float("-inf")
            for t in times:
                total += 1
                if t > open_until:
                    looked += 1
                    open_until = t + window
        share[op] = looked / total
    return (share["A"] * bm + share["B"] * bn) / (bm + bn)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--window", type=float, nargs="+", default=[34, 100, 300], help="ns a read stays open")
    ap.add_argument("--min-waves", type=float, default=1.5)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    a = ap.parse_args()
    from cta_skew import read_launches
    from sm_partition import gpc_of_sm
    gpc = gpc_of_sm(os.path.join(CALIBRATE, "h200"))
    from l2_measured_starts import spilled
    spills = {tuple(int(v) for v in k) for k in spilled()}
    ncu = {k: v for k, v in ncu_lookups().items() if k not in spills}
    launches = {}
    for path in sorted(glob.glob(os.path.join(CALIBRATE, "h200", "cta_skew*.csv.gz"))):
        for key, tiles in read_launches(path, smid=True).items():
            config = key[:9]
            if key[9] != 0 or config not in ncu or config in launches:
                continue
            tile = statistics.median(e - s for s, e, _ in tiles.values())
            slots = sum(1 for s, _, _ in tiles.values() if s < 0.05 * tile)
            if len(tiles) >= a.min_waves * slots:
                launches[config] = (tiles, len(tiles) / slots)
    model = model_lookups(a.cli, launches)
    rows = []
    for config, (tiles, waves) in sorted(launches.items()):
        if config not in model:
            continue
        stride = max(1, config[2] // config[5] // 32)
        got = [lookups(tiles, config, gpc, w, stride) for w in a.window]
        rows.append((config, waves, ncu[config], model[config], got))
        print(" ".join(map(str, config)), f"waves {waves:5.1f}  ncu {ncu[config]:.3f}  model {model[config]:.3f}  " +
              "  ".join(f"W {w:g} ns {g:.3f}" for w, g in zip(a.window, got)), flush=True)
    if not rows:
        print("no traced launch with an ncu row")
        return
    mae = lambda i: statistics.fmean(abs(r[4][i] - r[2]) for r in rows)
    bias = lambda i: statistics.fmean(r[4][i] - r[2] for r in rows)
    print(f"{len(rows)} launches of {a.min_waves}+ waves: lookups a requested sector, mean abs error against ncu: "
          f"the model {statistics.fmean(abs(r[3] - r[2]) for r in rows):.3f} "
          f"(bias {statistics.fmean(r[3] - r[2] for r in rows):+.3f}); " +
          "; ".join(f"W {w:g} ns {mae(i):.3f} (bias {bias(i):+.3f})" for i, w in enumerate(a.window)))


if __name__ == "__main__":
    main()
