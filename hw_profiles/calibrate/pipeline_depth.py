#!/usr/bin/env python3
"""Time of one K iteration of 2- and 3-stage Triton GEMM loops against BLOCK_K and the tile's
MMA time: does the next stage's load overlap the current MMA?

pipeline_iteration.py shows 2-stage loops with BLOCK_K 32-64 costing about one stage round
trip plus a little (the MMA hidden behind the next load), while loop_variants.py's one
2-stage BLOCK_K 128 loop (128x128x128) costs the round trip plus the whole MMA. This sweep
separates BLOCK_K from the MMA's length: small and large tiles at BLOCK_K 32, 64 and 128,
2 and 3 stages, one CTA per SM. Same method as pipeline_iteration.py (the corpus's Triton
tutorial-03 kernel on a grid of 132 tiles, M = 12 BLOCK_M, N = 11 BLOCK_N, operands
L2-resident after their first touch, K1 = 2048 and K2 = 6144, the difference over the extra
iterations). No corpus shape.

CSV: block_m, block_n, block_k, stages, warps, K1, K2, t1_us, t2_us, iter_us, n_regs, n_spills, smem_bytes
Usage: python3 pipeline_depth.py --out DIR [--ir DIR]
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

SMEM_LIMIT = 232448
IR_DIR = None  # --ir DIR: also write each kernel's TTGIR there (the loop's waits and buffers)
# (block_m, block_n, block_k, warps)
CONFIGS = [(64, 64, 128, 4), (64, 128, 128, 4), (128, 64, 128, 4), (128, 128, 128, 4),
           (128, 128, 128, 8), (128, 256, 128, 8), (64, 64, 64, 8), (128, 128, 64, 8),
           (256, 128, 64, 8), (128, 256, 32, 8), (256, 128, 32, 8), (128, 128, 32, 8)]


def run(bm, bn, bk, st, w, K):
    M, N = 12 * bm, 11 * bn
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)

    def fn():
        return matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                   b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                                   BLOCK_N=bn, BLOCK_K=bk, GROUP_M=1, num_stages=st,
                                   num_warps=w)
    k = fn()
    if IR_DIR:
        with open(os.path.join(IR_DIR, f"ttgir_{bm}x{bn}x{bk}_s{st}_w{w}.mlir"), "w") as f:
            f.write(k.asm["ttgir"])
    t = triton.testing.do_bench(fn, warmup=10, rep=40, return_mode="median") * 1000.0
    return t, k.n_regs, k.n_spills, k.metadata.shared


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--ir", default=None)
    args = ap.parse_args()
    global IR_DIR
    IR_DIR = args.ir
    from envinfo import header_lines
    with open(os.path.join(args.out, "pipeline_depth.csv"), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/pipeline_depth.py"))
        w_ = csv.writer(f)
        w_.writerow(["block_m", "block_n", "block_k", "stages", "warps", "K1", "K2", "t1_us", "t2_us",
                     "iter_us", "n_regs", "n_spills", "smem_bytes"])
        for (bm, bn, bk, w) in CONFIGS:
            for st in (2, 3):
                if st * (bm + bn) * bk * 2 > SMEM_LIMIT:
                    continue
                K1, K2 = 2048, 6144
                try:
                    t1, regs, spills, smem = run(bm, bn, bk, st, w, K1)
                    t2, _, _, _ = run(bm, bn, bk, st, w, K2)
                except Exception as e:  # noqa: BLE001
                    print("skip", bm, bn, bk, st, w, type(e).__name__, e, flush=True)
                    continue
                it = (t2 - t1) / ((K2 - K1) // bk)
                row = [bm, bn, bk, st, w, K1, K2, round(t1, 2), round(t2, 2), round(it, 4), regs, spills, smem]
                w_.writerow(row)
                f.flush()
                print(*row, flush=True)


if __name__ == "__main__":
    main()
