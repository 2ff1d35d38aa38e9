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

--hitmiss adds a rule with no free window: a read of a block no SM read within the L2's reach
(30 MB at the launch's DRAM read rate under ncu) misses and stays open for the fill (DRAM
latency plus queue, 675 ns), any other for a hit's 34 ns, each open read serving at most four.

  python3 tests/validation/h200/merge_traced.py [--window 34 100 300] [--hitmiss] [--min-waves 1.5]
          [--cli build/bin/tilesight-cli]
  python3 tests/validation/h200/merge_traced.py --layouts [--config "256 64 64 1" ...]

--layouts keeps the hit/miss rule and moves the starts instead, to ask which feature of the
traced starts the lookups need: `traced` (as measured), `samepace` (every tile at the launch's
median pace), `smear` (each wave's tiles evenly over its measured width, p10-p90 over 0.8, in
launch order, as the model lays them out), `gpcruns` (each run of neighbouring launch positions on
one GPC started together at its median, 2 ns apart), `evenruns` (runs of 16 neighbouring
positions evenly over the width, 2 ns apart). --config keeps the launches whose tile, group,
stages and warps start with one of the strings.
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

# The hit/miss rule's constants, all measured (hw_profiles/h200.json and its microbenchmarks):
# a read of a present line stays open in the coalescer l2.hit_merge_ns (lrc_window.py --fine);
# a fill for the DRAM's latency plus its queue under load (dram_latency_ns + dram_queue_ns);
# one lookup serves four readers of a GPC (ncu_share.csv: 2 and 4 readers 1.01-1.02 lookups a
# sector, 8 readers 2.05); a line stays in its partition while the launch reads the near
# partition's 30 MB from DRAM (l2.partition_bytes).
HIT_NS, FILL_NS, CAP = 34.0, 400.0 + 275.0, 4

KEY = ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps")


def ncu_lookups():
    """Per config of the ncu sets (l2_measured_starts.measured) that is aligned: ncu's read
    lookups (tex) per requested sector of A and B, and its DRAM read bytes a ns."""
    import l2_residuals
    from l2_measured_starts import measured
    out = {}
    for key, r in measured().items():
        x = {c: int(v) for c, v in zip(KEY, key)}
        tex = float(r.get("l2_tex_read_sectors") or "nan")
        if tex != tex or l2_residuals.shape_class(x) == "unaligned":
            continue
        grid = -(-x["M"] // x["block_m"]) * -(-x["N"] // x["block_n"])
        duration = float(r.get("duration_ns") or 0)
        rate = float(r["dram_read_bytes"]) / duration if duration > 0 else 0.0
        out[tuple(x[c] for c in KEY)] = (tex / (grid * (x["block_m"] + x["block_n"]) * x["K"] * 2 / 32), rate)
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


def lookups(tiles, key, gpc, window, stride, hitmiss=None):
    """Lookups per requested sector of one traced launch under the rule (module docstring).
    hitmiss (reach_ns, hit_ns, fill_ns, cap): a read of a block no SM read within reach_ns
    misses; a looked-up read stays open hit_ns after a hit, fill_ns after a miss, and serves at
    most `cap` reads."""
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
        if hitmiss:
            reach, hit_ns, fill_ns, cap = hitmiss
            by_block = collections.defaultdict(list)
            for (g, b, s), times in blocks.items():
                by_block[(b, s)] += [(t, g) for t in times]
            for events in by_block.values():
                events.sort()
                last_any = float("-inf")
                open_until, served = {}, {}
                for t, g in events:
                    total += 1
                    if t <= open_until.get(g, float("-inf")) and served[g] < cap:
                        served[g] += 1
                    else:
                        looked += 1
                        open_until[g] = t + (hit_ns if t - last_any <= reach else fill_ns)
                        served[g] = 1
                    last_any = t
            share[op] = looked / total
            continue
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


def laid_out(tiles, slots, kind, gpc, run=16):
    """The traced launch with its starts moved (--layouts): {pid: (start, end, sm)}."""
    n = len(tiles)
    pace = statistics.median(e - s for s, e, _ in tiles.values())
    if kind == "traced":
        return tiles
    if kind == "samepace":
        return {p: (s, s + pace, sm) for p, (s, e, sm) in tiles.items()}
    out = {}
    for first in range(0, n, slots):
        wave = list(range(first, min(n, first + slots)))
        at = sorted(tiles[p][0] for p in wave)
        width = (at[int(0.9 * (len(at) - 1))] - at[int(0.1 * (len(at) - 1))]) / 0.8
        mid = statistics.median(at)
        if kind == "smear":
            for i, p in enumerate(wave):
                t = mid + width * ((i + 0.5) / len(wave) - 0.5)
                out[p] = (t, t + pace, tiles[p][2])
        elif kind == "gpcruns":
            runs = [[wave[0]]]
            for a, b in zip(wave, wave[1:]):
                if gpc[tiles[b][2]] == gpc[tiles[a][2]]:
                    runs[-1].append(b)
                else:
                    runs.append([b])
            for r in runs:
                t0 = statistics.median(tiles[p][0] for p in r)
                for j, p in enumerate(r):
                    out[p] = (t0 + 2 * j, t0 + 2 * j + pace, tiles[p][2])
        elif kind == "evenruns":
            count = -(-len(wave) // run)
            for i, p in enumerate(wave):
                t = mid + width * ((i // run + 0.5) / count - 0.5) + 2 * (i % run)
                out[p] = (t, t + pace, tiles[p][2])
    return out


LAYOUTS = ("traced", "samepace", "smear", "gpcruns", "evenruns")


def layouts(launches, ncu_rows, gpc, near_bytes):
    """--layouts: lookups under the hit/miss rule for each layout of each launch's starts."""
    errors = collections.defaultdict(list)
    for config, (tiles, waves, slots) in sorted(launches.items()):
        stride = max(1, config[2] // config[5] // 32)
        rate = ncu_rows[config][1]
        rule = (near_bytes / rate if rate > 0 else float("inf"), HIT_NS, FILL_NS, CAP)
        got = {k: lookups(laid_out(tiles, slots, k, gpc), config, gpc, 0, stride, rule) for k in LAYOUTS}
        ncu = ncu_rows[config][0]
        for k, v in got.items():
            errors[k].append(abs(v - ncu))
        print(" ".join(map(str, config)), f"waves {waves:5.1f}  ncu {ncu:.3f}  " +
              "  ".join(f"{k} {v:.3f}" for k, v in got.items()), flush=True)
    if errors:
        print(f"{len(errors['traced'])} launches: lookups a requested sector, mean abs error against ncu: " +
              ", ".join(f"{k} {statistics.fmean(v):.3f}" for k, v in errors.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--window", type=float, nargs="+", default=[34, 100, 300], help="ns a read stays open")
    ap.add_argument("--min-waves", type=float, default=1.5)
    ap.add_argument("--hitmiss", action="store_true",
                    help="also the rule that tells hits from misses (the profile's windows, every 4th read looked up)")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    ap.add_argument("--layouts", action="store_true", help="the hit/miss rule over rearranged starts (no model)")
    ap.add_argument("--config", nargs="+", help="with --layouts: launches whose 'block_m block_n block_k "
                    "group_m stages warps' starts with one of these")
    a = ap.parse_args()
    from cta_skew import read_launches
    from sm_partition import gpc_of_sm
    gpc = gpc_of_sm(os.path.join(CALIBRATE, "h200"))
    from l2_measured_starts import NEAR_BYTES, spilled
    spills = {tuple(int(v) for v in k) for k in spilled()}
    ncu_rows = {k: v for k, v in ncu_lookups().items() if k not in spills}
    ncu = {k: v[0] for k, v in ncu_rows.items()}
    launches = {}
    for path in sorted(glob.glob(os.path.join(CALIBRATE, "h200", "cta_skew*.csv.gz"))):
        for key, tiles in read_launches(path, smid=True).items():
            config = key[:9]
            if key[9] != 0 or config not in ncu or config in launches:
                continue
            tile = statistics.median(e - s for s, e, _ in tiles.values())
            slots = sum(1 for s, _, _ in tiles.values() if s < 0.05 * tile)
            if a.config and not any(" ".join(map(str, config[3:9])).startswith(c) for c in a.config):
                continue
            if len(tiles) >= a.min_waves * slots:
                launches[config] = (tiles, len(tiles) / slots, slots)
    if a.layouts:
        layouts(launches, ncu_rows, gpc, NEAR_BYTES)
        return
    launches = {k: v[:2] for k, v in launches.items()}
    model = model_lookups(a.cli, launches)
    rows = []
    for config, (tiles, waves) in sorted(launches.items()):
        if config not in model:
            continue
        stride = max(1, config[2] // config[5] // 32)
        got = [lookups(tiles, config, gpc, w, stride) for w in a.window]
        if a.hitmiss:
            rate = ncu_rows[config][1]  # bytes a ns read from DRAM under ncu
            reach = NEAR_BYTES / rate if rate > 0 else float("inf")
            got.append(lookups(tiles, config, gpc, 0, stride, (reach, HIT_NS, FILL_NS, CAP)))
        rows.append((config, waves, ncu[config], model[config], got))
        names = [f"W {w:g} ns" for w in a.window] + (["hit/miss"] if a.hitmiss else [])
        print(" ".join(map(str, config)), f"waves {waves:5.1f}  ncu {ncu[config]:.3f}  model {model[config]:.3f}  " +
              "  ".join(f"{n} {g:.3f}" for n, g in zip(names, got)), flush=True)
    if not rows:
        print("no traced launch with an ncu row")
        return
    for lo, hi in ((0, 1.5), (1.5, 4), (4, float("inf"))):
        g = [r for r in rows if lo <= r[1] < hi]
        if g:
            print(f"  {lo:g}-{hi:g} waves, {len(g)} launches: the model {statistics.fmean(abs(r[3] - r[2]) for r in g):.3f}, " +
                  ", ".join(f"{n} {statistics.fmean(abs(r[4][i] - r[2]) for r in g):.3f}" for i, n in enumerate(names)))
    mae = lambda i: statistics.fmean(abs(r[4][i] - r[2]) for r in rows)
    bias = lambda i: statistics.fmean(r[4][i] - r[2] for r in rows)
    print(f"{len(rows)} launches of {a.min_waves}+ waves: lookups a requested sector, mean abs error against ncu: "
          f"the model {statistics.fmean(abs(r[3] - r[2]) for r in rows):.3f} "
          f"(bias {statistics.fmean(r[3] - r[2] for r in rows):+.3f}); " +
          "; ".join(f"{n} {mae(i):.3f} (bias {bias(i):+.3f})" for i, n in enumerate(names)))


if __name__ == "__main__":
    main()
