#!/usr/bin/env python3
"""SASS of the corpus kernel for unaligned configs that stage B through registers, at 2 and 5
stages (3000x5000x2048 64x64x128 w8: 1050 us and 1801 us in triton_gemm.csv), and instruction
counts of each: what the extra stages of A change in the loop around the staged B load.

Usage: python3 staged_sass.py --out DIR   (DIR/staged_<cfg>.sass, DIR/staged_sass.csv)"""
import argparse
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch  # noqa: E402
from triton_gemm_sweep import launch  # noqa: E402

CASES = [(3000, 5000, 2048, 64, 64, 128, 1, 2, 8), (3000, 5000, 2048, 64, 64, 128, 1, 5, 8),
         (3000, 5000, 2048, 64, 64, 128, 1, 3, 4), (3000, 5000, 2048, 64, 64, 64, 8, 3, 4)]
OPS = ["LDG", "LDGSTS", "STS", "LDS", "HGMMA", "BAR.SYNC", "DEPBAR", "WARPGROUP.DEPBAR",
       "WARPGROUP.ARRIVE", "BRA", "STL", "LDL", "PRMT", "IMAD", "ISETP", "SEL"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rows = []
    for (M, N, K, bm, bn, bk, g, s, w) in CASES:
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        k = launch(a, b, c, dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, stages=s, warps=w))
        torch.cuda.synchronize()
        name = f"{M}x{N}x{K}_{bm}x{bn}x{bk}_g{g}_s{s}_w{w}"
        cub = f"/tmp/{name}.cubin"
        open(cub, "wb").write(k.asm["cubin"])
        sass = subprocess.run(["cuobjdump", "-sass", cub], capture_output=True, text=True).stdout
        open(os.path.join(args.out, f"staged_{name}.sass"), "w").write(sass)
        counts = {op: len(re.findall(r"\b" + re.escape(op) + r"\b", sass)) for op in OPS}
        rows.append(dict(config=name, n_regs=k.n_regs, smem=k.metadata.shared, lines=sass.count("\n"), **counts))
        print(rows[-1], flush=True)
    with open(os.path.join(args.out, "staged_sass.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        wr.writeheader()
        wr.writerows(rows)


if __name__ == "__main__":
    main()
