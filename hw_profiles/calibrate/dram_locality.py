#!/usr/bin/env python3
"""Does the layout of the streamed operand change a skinny GEMM's time? (DRAM page locality)

The Triton corpus's skinny-N GEMMs (4096x16x4096, 8192x64x4096: A streamed from DRAM, B
tiny) run 10-20% slower than the skinny-M ones with the same tile configs transposed
(16x4096x4096, 64x4096x8192: B streamed), which the model predicts alike. A row-major A tile
reads BLOCK_K x 2 bytes from each of BLOCK_M rows 8 KiB apart; a row-major B tile reads
BLOCK_N x 2 bytes from BLOCK_K rows, and the CTAs in flight together cover whole rows of B.
This times the corpus's kernel (Triton tutorial 03, same code) on the skinny shapes with the
streamed operand in both layouts (A row- or column-major, B row- or column-major, through
strides; the small operand row-major), do_bench median after its L2 flush.

CSV: M, N, K, a_layout, b_layout, block_m, block_n, block_k, group_m, stages, warps, us
Usage: python3 dram_locality.py --out DIR
"""
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

SHAPES = [(8192, 64, 4096), (4096, 16, 4096), (16, 4096, 4096), (64, 4096, 8192), (8192, 128, 8192),
          (128, 8192, 8192)]
# (block_m, block_n, block_k, group_m, stages, warps)
CONFIGS = [(64, 64, 32, 1, 2, 4), (128, 64, 32, 1, 3, 4), (64, 128, 64, 1, 2, 4), (64, 64, 128, 1, 3, 8),
           (128, 128, 64, 1, 4, 8)]


def operand(rows, cols, col_major):
    """A rows x cols bf16 matrix, row-major or as the transpose of a cols x rows one."""
    if col_major:
        return torch.randn(cols, rows, device="cuda", dtype=torch.bfloat16).t()
    return torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from envinfo import header_lines
    with open(os.path.join(args.out, "dram_locality.csv"), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/dram_locality.py"))
        w_ = csv.writer(f)
        w_.writerow(["M", "N", "K", "a_layout", "b_layout", "block_m", "block_n", "block_k", "group_m",
                     "stages", "warps", "us"])
        for (M, N, K) in SHAPES:
            a_streamed = M > N
            for col_major in (False, True):
                a = operand(M, K, col_major and a_streamed)
                b = operand(K, N, col_major and not a_streamed)
                c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
                for (bm, bn, bk, gm, st, w) in CONFIGS:
                    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)

                    def fn():
                        return matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                   b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                                                   BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm, num_stages=st,
                                                   num_warps=w)
                    try:
                        fn()
                        ref = a.float() @ b.float()
                        err = (c.float() - ref).abs().max().item() / max(1e-6, ref.abs().max().item())
                        t = triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median") * 1000.0
                    except Exception as e:  # noqa: BLE001
                        print("skip", M, N, K, col_major, bm, bn, bk, type(e).__name__, e, flush=True)
                        continue
                    row = [M, N, K, "col" if col_major and a_streamed else "row",
                           "col" if col_major and not a_streamed else "row", bm, bn, bk, gm, st, w, round(t, 3)]
                    w_.writerow(row)
                    f.flush()
                    print(*row, f"relerr {err:.1e}", flush=True)


if __name__ == "__main__":
    main()
