#!/usr/bin/env python3
"""Time of one K iteration of Triton GEMM loops that pipeline_iteration.py does not cover:
large tiles (BLOCK_K 128, 2-3 stages), operands whose rows are not 16-byte aligned (loaded
element by element through registers), and tiles that spill registers.

Same method as pipeline_iteration.py: the corpus's kernel (Triton tutorial 03) on grids of
exactly 132 x r tiles (M = 12 r BLOCK_M, N = 11 BLOCK_N), run at K1 and K2; the difference
divided by the extra iterations is the steady time of one CTA iteration. None of these
shapes is in the validation corpus.

Variants:
  aligned  - plain row-major A (M x K) and B (K x N)
  b_unal   - B is a view of a K x (N + 8) buffer: its row stride is not a multiple of 16
             elements, so Triton cannot vectorise B's loads (as for N = 5000 in the corpus)
  a_unal   - A is a view of an M x (K + 8) buffer (as for K = 3000)
  ab_unal  - both
Spilling configs record Triton's n_spills; their local-memory footprint is
resident CTAs x threads x n_spills x 4 bytes (r = 1 keeps it in L2, r = 2 for the larger).

CSV: variant, block_m, block_n, block_k, stages, warps, ctas_per_sm, K1, K2, t1_us, t2_us,
     iter_us, n_regs, n_spills, smem_bytes
Usage: python3 loop_variants.py --out DIR [--budget-s 240]
"""
import argparse
import csv
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

import torch  # noqa: E402
import triton  # noqa: E402

from triton_gemm_sweep import matmul_kernel  # noqa: E402

SMEM_LIMIT = 232448

# (block_m, block_n, block_k, warps, stages, variants, ctas_per_sm values)
BIG = [(128, 256, 128, 8, 2), (64, 256, 128, 4, 2), (64, 256, 128, 8, 2), (128, 128, 128, 4, 2),
       (128, 128, 128, 8, 3), (128, 256, 64, 8, 3), (256, 128, 64, 8, 3), (64, 256, 64, 8, 3),
       (256, 64, 128, 8, 2), (128, 64, 128, 4, 3)]
SPILL = [(128, 256, 64, 4, 2), (128, 256, 64, 4, 4), (256, 128, 32, 4, 2), (256, 128, 32, 4, 5),
         (256, 128, 64, 4, 3), (128, 256, 32, 4, 3), (256, 256, 64, 8, 2)]
UNAL = [(128, 64, 32, 4, 3), (128, 128, 32, 4, 3), (64, 128, 64, 4, 3), (64, 64, 32, 4, 2),
        (128, 128, 64, 8, 3), (64, 64, 64, 4, 4), (256, 64, 32, 8, 3), (64, 256, 32, 8, 2)]


def smem_bytes(bm, bn, bk, st, variant):
    a = bm * bk * (1 if variant in ("a_unal", "ab_unal") else st)
    b = bk * bn * (1 if variant in ("b_unal", "ab_unal") else st)
    return 2 * (a + b)


def run(bm, bn, bk, st, w, r, K, variant):
    M, N = 12 * r * bm, 11 * bn
    pad_a = 8 if variant in ("a_unal", "ab_unal") else 0
    pad_b = 8 if variant in ("b_unal", "ab_unal") else 0
    a = torch.randn(M, K + pad_a, device="cuda", dtype=torch.bfloat16)[:, :K]
    b = torch.randn(K, N + pad_b, device="cuda", dtype=torch.bfloat16)[:, :N]
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)

    def fn():
        return matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                   b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                                   BLOCK_N=bn, BLOCK_K=bk, GROUP_M=1, num_stages=st,
                                   num_warps=w)
    k = fn()
    t = triton.testing.do_bench(fn, warmup=10, rep=40, return_mode="median") * 1000.0
    return t, k


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=240)
    ap.add_argument("--ir-dir", default="", help="also write the TTGIR of the first b_unal config here")
    args = ap.parse_args()
    t0 = time.time()
    jobs = []
    for (bm, bn, bk, w, st) in UNAL:
        for variant in ("b_unal", "a_unal", "ab_unal", "aligned"):
            for r in (1, 2):
                jobs.append((variant, bm, bn, bk, w, st, r))
    for (bm, bn, bk, w, st) in SPILL:
        for r in (1, 2):
            jobs.append(("aligned", bm, bn, bk, w, st, r))
    for (bm, bn, bk, w, st) in BIG:
        jobs.append(("aligned", bm, bn, bk, w, st, 1))
    path = os.path.join(args.out, "loop_variants.csv")
    dumped = False
    sys.path.insert(0, HERE)
    from envinfo import header_lines
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/loop_variants.py"))
        out = csv.writer(f)
        out.writerow(["variant", "block_m", "block_n", "block_k", "stages", "warps", "ctas_per_sm",
                      "K1", "K2", "t1_us", "t2_us", "iter_us", "n_regs", "n_spills", "smem_bytes"])
        for (variant, bm, bn, bk, w, st, r) in jobs:
            if time.time() - t0 > args.budget_s:
                print("budget reached, stopping", flush=True)
                break
            if r * smem_bytes(bm, bn, bk, st, variant) > SMEM_LIMIT:
                continue
            K1, K2 = 2048, 4096
            try:
                t1, k = run(bm, bn, bk, st, w, r, K1, variant)
                t2, _ = run(bm, bn, bk, st, w, r, K2, variant)
            except Exception as e:  # noqa: BLE001
                print("skip", variant, bm, bn, bk, st, w, r, type(e).__name__, e, flush=True)
                continue
            it = (t2 - t1) / ((K2 - K1) // bk)
            row = [variant, bm, bn, bk, st, w, r, K1, K2, round(t1, 2), round(t2, 2), round(it, 4),
                   k.n_regs, k.n_spills, k.metadata.shared]
            out.writerow(row)
            f.flush()
            print(*row, flush=True)
            if args.ir_dir and variant == "b_unal" and not dumped:
                for kind in ("ttgir", "ptx"):
                    with open(os.path.join(args.ir_dir, f"b_unal_{bm}x{bn}x{bk}.{kind}"), "w") as g:
                        g.write(k.asm[kind])
                dumped = True


if __name__ == "__main__":
    main()
