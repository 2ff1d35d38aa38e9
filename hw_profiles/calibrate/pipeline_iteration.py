#!/usr/bin/env python3
"""Time of one K iteration of a Triton software-pipelined GEMM loop on the H200, by stages.

The corpus's kernel (tests/validation/h200/triton_gemm_sweep.py, Triton tutorial 03) on
grids of exactly 132 x r tiles (r CTAs per SM: M = 12 r BLOCK_M, N = 11 BLOCK_N), A and B
small enough to stay in L2 after their first touch. Each config runs at K1 and K2; the
difference divided by the extra iterations is the steady per-iteration time of one CTA,
free of launch, prologue and epilogue. This is the time the model's latency floor and
pipeline envelope must give for a loop whose tile work is small: with 2 stages one load is
in flight while the previous tile is consumed, so the iteration is a load round trip plus
the loop's synchronisation (cp.async wait, barrier, wgmma wait).
Shapes and grids here are not in the validation corpus.

CSV: block_m, block_n, block_k, stages, warps, ctas_per_sm, K1, K2, t1_us, t2_us,
     iter_us (per CTA iteration), n_regs, smem_bytes
Usage: python3 pipeline_iteration.py --out DIR                  (1 and 2 CTAs per SM)
       python3 pipeline_iteration.py --out DIR --resident 3,4   (pipeline_resident.csv: the
              tiles small enough for 3 and 4 CTAs per SM, where the round trips of more
              resident tiles overlap)
       python3 pipeline_iteration.py --out DIR --configs 128x64x128x4,... --name NAME
              (NAME.csv: those tiles, BMxBNxBKxWARPS, at 1 and 2 CTAs per SM)
       [--layout nt] [--dtype fp8]: B stored N x K (fp8: e4m3, always so), as
              triton_gemm_sweep.py stores it (the serialised-wgmma tiles, Loop::serial_mma)
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

import torch  # noqa: E402
import triton  # noqa: E402

from triton_gemm_sweep import matmul_kernel, operands  # noqa: E402

CONFIGS = [(64, 64, 32, 4), (64, 64, 64, 4), (64, 128, 32, 4), (128, 128, 32, 4),
           (128, 128, 64, 4), (128, 128, 64, 8), (128, 256, 64, 8)]
# Tiles whose registers and shared memory leave room for 3-4 CTAs per SM at 2-3 stages
RESIDENT_CONFIGS = [(64, 64, 32, 4), (64, 64, 64, 4), (64, 128, 32, 4), (128, 64, 32, 4),
                    (64, 64, 32, 8), (64, 128, 32, 8)]


def run(bm, bn, bk, st, w, r, K, dtype="bf16", layout="nn"):
    M, N = 12 * r * bm, 11 * bn
    a, b, c = operands(M, N, K, dtype, layout)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)

    def fn():
        return matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                   b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                                   BLOCK_N=bn, BLOCK_K=bk, GROUP_M=1, num_stages=st,
                                   num_warps=w)
    k = fn()
    t = triton.testing.do_bench(fn, warmup=10, rep=40, return_mode="median") * 1000.0
    return t, k.n_regs, k.metadata.shared


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--resident", default="", help="CTAs per SM to run instead of 1,2, e.g. 3,4")
    ap.add_argument("--configs", default="", help="tiles BMxBNxBKxWARPS,... instead of the built-in list")
    ap.add_argument("--name", default="", help="CSV name (without .csv) for --configs")
    ap.add_argument("--dtype", default="bf16", choices=("bf16", "fp8"))
    ap.add_argument("--layout", default="nn", choices=("nn", "nt"))
    args = ap.parse_args()
    elem = 1 if args.dtype == "fp8" else 2
    resident = [int(x) for x in args.resident.split(",")] if args.resident else [1, 2]
    configs = ([tuple(int(v) for v in c.split("x")) for c in args.configs.split(",")] if args.configs
               else RESIDENT_CONFIGS if args.resident else CONFIGS)
    name = args.name or ("pipeline_resident" if args.resident else "pipeline_iteration")
    path = os.path.join(args.out, name + ".csv")
    with open(path, "w", newline="") as f:
        w_ = csv.writer(f)
        w_.writerow(["block_m", "block_n", "block_k", "stages", "warps", "ctas_per_sm", "K1",
                     "K2", "t1_us", "t2_us", "iter_us", "n_regs", "smem_bytes"]
                    + (["dtype", "layout"] if args.dtype != "bf16" or args.layout != "nn" else []))
        for (bm, bn, bk, w) in configs:
            for st in (2, 3, 4, 5):
                if st * (bm + bn) * bk * elem * max(resident) > 232448 and args.resident:
                    continue
                if st * (bm + bn) * bk * elem > 232448:
                    continue
                for r in resident:
                    K1, K2 = 2048, 6144
                    try:
                        t1, regs, smem = run(bm, bn, bk, st, w, r, K1, args.dtype, args.layout)
                        t2, _, _ = run(bm, bn, bk, st, w, r, K2, args.dtype, args.layout)
                    except Exception as e:  # noqa: BLE001
                        print("skip", bm, bn, bk, st, w, r, type(e).__name__, e, flush=True)
                        continue
                    it = (t2 - t1) / ((K2 - K1) // bk)
                    row = [bm, bn, bk, st, w, r, K1, K2, round(t1, 2), round(t2, 2),
                           round(it, 4), regs, smem]
                    if args.dtype != "bf16" or args.layout != "nn":
                        row += [args.dtype, "nt"]
                    w_.writerow(row)
                    f.flush()
                    print(*row, flush=True)


if __name__ == "__main__":
    main()
