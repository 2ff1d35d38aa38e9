#!/usr/bin/env python3
"""Fit pipeline_late_copy_wait_ns of the H200 profile through the model, on a calibration set of
FlashAttention problems that no corpus holds.

Triton's FlashAttention loop issues the next key block's K and V copies after its chain, behind
the body's last bar.sync, and waits for them first thing in the next iteration
(tests/validation/h200/ncu_attention_split_ptx.csv: cp.async.wait_group 0 at 2 stages, 2 at 3).
At 2 stages each iteration therefore waits for its copies; at 3 a whole iteration covers them.
In the model pipeline_late_copy_wait_ns is the copies' round trip: each tile of such a loop
waits, after its chain at 2 stages, what of it the chain's last action (the PV, left running
while the copies fly) does not cover, while the other resident tiles' chains run: the SM's
iteration is max(chain, (chain + wait) / resident tiles) (engine/src/model/loop_analysis.cpp,
Loop::copies_after_chain; until 2026-12-01 the whole value was divided by the resident tiles
and added, which fit 318 ns).

Data: h200/attention_stage_calib.csv, from tests/validation/h200/attention_triton.py --name
attention_stage_calib --problems "2,16,2048,64,0;4,16,1536,128,0;2,24,3072,64,0;3,16,2048,128,0"
(the corpus's 36 configs on four non-causal problems in neither attention corpus; 136 rows).

The wait sets only how much slower a 2-stage config runs than the same config at 3 stages, so
the fit matches that: for every config measured at both, the model's time ratio t(2)/t(3) over
the measured one, and the value where the median of those crosses 1. Each grid point writes a
copy of hw_profiles/h200.json with the value and runs `tilesight-cli validate --out`.

Usage: python3 late_copy_wait.py [--cli build/bin/tilesight-cli] [--grid 0:400:25]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
DATA = os.path.join(HERE, "h200", "attention_stage_calib.csv")
KEY = ("batch", "heads", "seq", "head_dim", "causal", "block_m", "block_n", "warps")


def rows_by_line():
    """The data rows of DATA keyed by their line number in the file (validate --out's `line`)."""
    with open(DATA) as f:
        lines = f.read().splitlines()
    first = next(i for i, line in enumerate(lines) if line and not line.startswith("#"))
    header = lines[first].split(",")
    return {i + 1: dict(zip(header, line.split(","))) for i, line in enumerate(lines)
            if i > first and line and not line.startswith("#")}


def stage_ratios(cli, profile, rows):
    """Per config measured at 2 and 3 stages: (model t2/t3) / (measured t2/t3)."""
    with tempfile.NamedTemporaryFile("r", suffix=".csv") as out:
        subprocess.run([cli, "validate", DATA, "--hw", profile, "--kernel", "attention", "--out", out.name],
                       check=True, capture_output=True)
        pairs = {}
        for o in csv.DictReader(out):
            r = rows[int(o["line"])]
            pairs.setdefault(tuple(r[k] for k in KEY), {})[r["stages"]] = (float(o["measured_us"]), float(o["predicted_us"]))
    ratios = []
    for v in pairs.values():
        if "2" in v and "3" in v:
            (m2, p2), (m3, p3) = v["2"], v["3"]
            ratios.append((p2 / p3) / (m2 / m3))
    return ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    ap.add_argument("--grid", default="0:400:25", help="first:last:step, ns")
    a = ap.parse_args()
    first, last, step = (float(x) for x in a.grid.split(":"))
    with open(os.path.join(ROOT, "hw_profiles", "h200.json")) as f:
        base = json.load(f)
    rows = rows_by_line()
    print("wait_ns  pairs  median  mean   ((model t2/t3) / (measured t2/t3))")
    points = []
    value = first
    while value <= last + 1e-9:
        base["pipeline_late_copy_wait_ns"] = {"value": value, "source": "late_copy_wait.py grid point"}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as p:
            json.dump(base, p)
        try:
            q = stage_ratios(a.cli, p.name, rows)
        finally:
            os.unlink(p.name)
        med = statistics.median(q)
        points.append((value, med))
        print(f"{value:7.0f}  {len(q):5d}  {med:.3f}  {statistics.fmean(q):.3f}")
        value += step
    for (v0, r0), (v1, r1) in zip(points, points[1:]):
        if r0 <= 1.0 <= r1:
            print(f"median crosses 1 at {v0 + (1.0 - r0) / (r1 - r0) * (v1 - v0):.0f} ns")


if __name__ == "__main__":
    main()
