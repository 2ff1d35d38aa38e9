#!/usr/bin/env python3
"""The L2's hit rate under cyclic reuse, from the bandwidth sweep (no GPU needed).

bw_sweep.py reads a working set of W bytes over and over (loads with .cg, no flush between
passes): every line is reused after all W bytes have passed, the pattern of spilled registers
that every resident thread stores and reloads each loop iteration. Where the set fits, reads
run at the L2 plateau; past the L2 capacity a share h of them still hits, and a pass takes
    1 / bw = h / l2_bandwidth + (1 - h) / dram_bandwidth,
so h = (1/bw - 1/dram) / (1/l2 - 1/dram), with the plateaus and the capacity of
hw_profiles/h200.json. Prints the median h in bins of W / capacity, made non-increasing: the
value of l2.cyclic_hit in the profile (pairs [W / capacity, h]; h is 1 up to the capacity).

Superseded on the H200 (2026-12-02) by l2_cyclic_ncu.py, which counts the misses under ncu:
the pass time above assumes the L2's hits and the DRAM's misses take turns, but the DRAM serves
misses beside the hits, so the sweep holds its plateau with a fifth of its reads from DRAM
(40 MB) and this curve says all hit up to the capacity. Kept for profiles measured only by a
bandwidth sweep.

Usage: python3 hw_profiles/calibrate/cyclic_hit.py [h200]
"""
import csv
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EDGES = [1.0, 1.02, 1.05, 1.1, 1.2, 1.3, 1.45, 1.6, 1.8, 2.0, 2.4, 3.0]


def value(leaf):
    return leaf["value"] if isinstance(leaf, dict) else leaf


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "h200"
    profile = json.load(open(os.path.join(HERE, "..", name + ".json")))
    capacity = value(profile["l2"]["bytes"])
    l2, dram = value(profile["l2"]["bandwidth"]), value(profile["dram_bandwidth"])
    rows = csv.DictReader(l for l in open(os.path.join(HERE, name, "bw_sweep.csv")) if not l.startswith("#"))
    bins = [[] for _ in EDGES[1:]]
    for r in rows:
        if r["mode"] != "read_cg":
            continue
        w = float(r["bytes"]) / capacity
        h = (1 / (float(r["gbps"]) * 1e9) - 1 / dram) / (1 / l2 - 1 / dram)
        for i in range(len(EDGES) - 1):
            if EDGES[i] < w <= EDGES[i + 1]:
                bins[i].append(min(1.0, max(0.0, h)))
    points, last = [[1.0, 1.0]], 1.0
    for i, b in enumerate(bins):
        if not b:
            continue
        mid = round((EDGES[i] + EDGES[i + 1]) / 2, 3)
        last = min(last, statistics.median(b))
        points.append([mid, round(last, 3)])
        print(f"W/capacity {EDGES[i]:.2f}-{EDGES[i + 1]:.2f}: {len(b)} sizes, hit {statistics.median(b):.3f}", file=sys.stderr)
    print(json.dumps(points))


if __name__ == "__main__":
    main()
