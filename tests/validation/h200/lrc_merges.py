#!/usr/bin/env python3
"""Requests merged before L2 in Triton GEMM loops: ncu's request coalescer counts against the
model's l2_merged_bytes (docs/cache-model.md, "What the coalescer merges in GEMM loops").

  python3 tests/validation/h200/lrc_merges.py [--cli build/bin/tilesight-cli]

Reads ncu_{lane,stages}_lrc_facts.csv and their *_cases.txt (ncu_kernel_facts.py --set lane /
--set stages under `ncu --profile-from-start off --clock-control none --cache-control all
--metrics lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,
lts__t_sectors_srcunit_tex_op_read.sum,...`, 2026-12-02). Per case: the sectors the SMs asked
for (xbar2gpc) against the model's requested bytes of A and B, the share the coalescer merged
(1 - lts2lrc / xbar2gpc), L2 read lookups per requested sector, and the model's merged share
and hit rate (one `tilesight-cli predict --format json` a case). Plain Python.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ncu_run import parse_ncu  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(HERE, "..", "..", "..", "build", "bin", "tilesight-cli"))
    a = ap.parse_args()
    print("case                                               asked/model  merged ncu/model  lookups ncu/model  hit% ncu/model")
    for s in ("lane", "stages"):
        cases = open(os.path.join(HERE, f"ncu_{s}_lrc_cases.txt")).read().splitlines()
        rows = parse_ncu(open(os.path.join(HERE, f"ncu_{s}_lrc_facts.csv")).read())
        for c, r in zip(cases, rows):
            M, N, K, bm, bn, bk, g, st, w = map(int, re.search(
                r"M=(\d+) N=(\d+) K=(\d+) (\d+)x(\d+)x(\d+) g(\d+) s(\d+) w(\d+)", c).groups())
            plan = json.dumps({"kernel": "gemm", "hardware": "h200", "params": dict(
                M=M, N=N, K=K, block_m=bm, block_n=bn, block_k=bk, group_m=g, stages=st, warps=w, dtype="bf16")})
            d = json.loads(subprocess.run([a.cli, "predict", "--format", "json", "-"], input=plan,
                                          capture_output=True, text=True, check=True).stdout)
            ab = [t for t in d["tensors"] if t["tensor"] in ("A", "B")]
            req = sum(t["requested_bytes"] for t in ab)
            merged = sum(t.get("l2_merged_bytes", 0) for t in ab) / req
            asked = r["lrc__xbar2gpc_sectors_op_read.sum"]
            ncu_merged = 1 - r["lrc__lts2lrc_sectors_op_read.sum"] / asked
            lookups = r["lts__t_sectors_srcunit_tex_op_read.sum"] / asked
            hit = 100 * r["lts__t_sectors_lookup_hit.sum"] / r["lts__t_sectors.sum"]
            label = " ".join(c.split()[3:])
            print(f"{label:50s} {32 * asked / req:5.2f}       {ncu_merged:4.2f} / {merged:4.2f}      "
                  f"{lookups:4.2f} / {1 - merged:4.2f}       {hit:3.0f} / {100 * d['l2_hit_rate']:3.0f}")


if __name__ == "__main__":
    main()
