#!/usr/bin/env python3
"""Fit the software-pipeline law's loop constants of the H200 profile to the loop
microbenchmarks, through the model itself (no corpus row is used).

pipeline_round_trip_ns: the issue-to-use time of one stage whose data is in L2;
dram_queue_ns: what DRAM traffic adds to it per unit of the DRAM bandwidth share the SM's
loop keeps busy (engine/src/model/loop_analysis.cpp solves the resulting quadratic);
pipeline_mma_exposure: the part of the shorter of a stage's round-trip share and the MMA
that the two do not overlap with one stage in flight; over (stages in flight) to the power
pipeline_mma_exposure_power beyond.

Data: h200/pipeline_iteration.csv (54 loops, every SM busy, operands L2-resident after their
first touch), h200/pipeline_active.csv (36 loops on 8-132 SMs streaming A from DRAM) and
h200/pipeline_depth.csv (23 loops of 2 and 3 stages, BLOCK_K 32-128, short and long MMAs).
For each point of a grid the script writes a copy of hw_profiles/h200.json with the values,
predicts every loop at K1 and K2 with `tilesight-cli predict --jsonl` and compares
(t(K2) - t(K1)) / extra iterations with the measured per-iteration time. It prints the mean
absolute error per file and overall for every point, best last.

Usage: python3 fit_pipeline_law.py [--cli build/bin/tilesight-cli] [--rt 560:700:10] [--q 0:500:25] [--c 0:1:0.1]
                                  [--p 2:2:1]
"""
import argparse
import csv
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def rows(name):
    with open(os.path.join(HERE, "h200", name)) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def cases():
    out = []
    for r in rows("pipeline_iteration.csv"):
        bm, bn, bk, st, w, c = (int(r[k]) for k in ("block_m", "block_n", "block_k", "stages", "warps", "ctas_per_sm"))
        out.append(("pipeline_iteration", dict(M=12 * c * bm, N=11 * bn, block_m=bm, block_n=bn, block_k=bk, stages=st,
                                               warps=w, registers=int(r["n_regs"])),
                    int(r["K1"]), int(r["K2"]), float(r["iter_us"])))
    for r in rows("pipeline_depth.csv"):
        bm, bn, bk, st, w = (int(r[k]) for k in ("block_m", "block_n", "block_k", "stages", "warps"))
        out.append(("pipeline_depth", dict(M=12 * bm, N=11 * bn, block_m=bm, block_n=bn, block_k=bk, stages=st,
                                           warps=w, registers=int(r["n_regs"])),
                    int(r["K1"]), int(r["K2"]), float(r["iter_us"])))
    for r in rows("pipeline_active.csv"):
        bm, bn, bk, st, w, a = (int(r[k]) for k in ("block_m", "block_n", "block_k", "stages", "warps", "active_sms"))
        out.append(("pipeline_active", dict(M=a * bm, N=bn, block_m=bm, block_n=bn, block_k=bk, stages=st, warps=w),
                    int(r["K1"]), int(r["K2"]), float(r["iter_us"])))
    return out


def errors(cli, profile, cs):
    lines = []
    for _, p, k1, k2, _ in cs:
        for k in (k1, k2):
            lines.append(json.dumps({"kernel": "gemm", "params": dict(p, K=k, group_m=1)}))
    res = subprocess.run([cli, "predict", "--hw", profile, "--jsonl", "-"], input="\n".join(lines),
                         capture_output=True, text=True, check=True).stdout.split("\n")
    lat = [json.loads(x)["latency_us"] for x in res if x.strip()]
    err = {}
    for i, (src, p, k1, k2, meas) in enumerate(cs):
        it = (lat[2 * i + 1] - lat[2 * i]) / ((k2 - k1) / p["block_k"])
        err.setdefault(src, []).append(abs(it / meas - 1))
    return err


def span(text):
    lo, hi, step = (float(x) for x in text.split(":"))
    n = int(round((hi - lo) / step))
    return [lo + i * step for i in range(n + 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    ap.add_argument("--rt", default="560:700:10")
    ap.add_argument("--q", default="0:500:25")
    ap.add_argument("--c", default="0:1:0.1")
    ap.add_argument("--p", default="2:2:1")
    args = ap.parse_args()
    with open(os.path.join(ROOT, "hw_profiles", "h200.json")) as f:
        base = json.load(f)
    cs = cases()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        profile = os.path.join(tmp, "h200.json")
        for rt in span(args.rt):
            for q in span(args.q):
                for c in span(args.c):
                    for pw in span(args.p):
                        prof = json.loads(json.dumps(base))
                        prof["pipeline_round_trip_ns"]["value"] = rt
                        prof["dram_queue_ns"]["value"] = q
                        prof["pipeline_mma_exposure"]["value"] = c
                        prof["pipeline_mma_exposure_power"] = {"value": pw, "source": "fit grid"}
                        with open(profile, "w") as f:
                            json.dump(prof, f)
                        err = errors(args.cli, profile, cs)
                        allv = [e for v in err.values() for e in v]
                        results.append((sum(allv) / len(allv), rt, q, c, pw,
                                        {k: sum(v) / len(v) for k, v in err.items()}))
    results.sort(reverse=True)
    print("round_trip_ns,dram_queue_ns,pipeline_mma_exposure,pipeline_mma_exposure_power,pipeline_iteration_err,"
          "pipeline_depth_err,pipeline_active_err,all_err")
    for mean, rt, q, c, pw, per in results:
        print(f"{rt:g},{q:g},{c:g},{pw:g},{per['pipeline_iteration']:.4f},{per['pipeline_depth']:.4f},"
              f"{per['pipeline_active']:.4f},{mean:.4f}")


if __name__ == "__main__":
    main()
