#!/usr/bin/env python3
"""The K-iteration time of a Triton software-pipelined GEMM loop against the number of SMs
that run it: pipeline_iteration.py measures it with every SM busy (grids of 132 x r tiles);
skinny GEMMs (M = 16-128 with 64-row tiles) leave most SMs idle, and their loads meet less
traffic on the way. Grids of exactly `active` tiles (M = active x BLOCK_M, N = BLOCK_N: one
tile per SM, A and B L2-resident after the first touch), K1 and K2 as pipeline_iteration.py.
No corpus shape.

CSV: block_m, block_n, block_k, stages, warps, active_sms, K1, K2, t1_us, t2_us, iter_us
Usage: python3 pipeline_active.py --out DIR"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

import torch  # noqa: E402
import triton  # noqa: E402

from triton_gemm_sweep import matmul_kernel  # noqa: E402

CONFIGS = [(64, 64, 32, 2, 4), (64, 64, 32, 4, 4), (128, 128, 32, 3, 4), (128, 128, 64, 3, 8),
           (64, 128, 64, 2, 4), (64, 256, 32, 5, 8)]
ACTIVE = [8, 16, 33, 66, 99, 132]


def run(bm, bn, bk, st, w, active, K):
    M, N = active * bm, bn
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)

    def fn():
        return matmul_kernel[(active,)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                        b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                                        BLOCK_N=bn, BLOCK_K=bk, GROUP_M=1, num_stages=st,
                                        num_warps=w)
    fn()
    return triton.testing.do_bench(fn, warmup=10, rep=40, return_mode="median") * 1000.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from envinfo import header_lines
    with open(os.path.join(args.out, "pipeline_active.csv"), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/pipeline_active.py"))
        w_ = csv.writer(f)
        w_.writerow(["block_m", "block_n", "block_k", "stages", "warps", "active_sms", "K1", "K2", "t1_us",
                     "t2_us", "iter_us"])
        for (bm, bn, bk, st, w) in CONFIGS:
            for act in ACTIVE:
                K1, K2 = 2048, 6144
                t1 = run(bm, bn, bk, st, w, act, K1)
                t2 = run(bm, bn, bk, st, w, act, K2)
                row = [bm, bn, bk, st, w, act, K1, K2, round(t1, 2), round(t2, 2), round((t2 - t1) / ((K2 - K1) // bk), 4)]
                w_.writerow(row)
                f.flush()
                print(*row, flush=True)


if __name__ == "__main__":
    main()
