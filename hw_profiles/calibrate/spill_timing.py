#!/usr/bin/env python3
"""Times spill_sass.py's 31 spilling configs on their unaligned problems (2048 x 2040 x 2048:
B through registers; 2048 x 2040 x 2040: A and B), shapes and configs outside the validation
corpus: a held-out check of the spill-reload rules that spill_sass.py derived from their SASS.
Same timing as the corpus (triton.testing.do_bench, warmup 20 ms, rep 60 ms, median, L2
flushed before each launch) and the corpus's CSV columns, so `tilesight-cli validate` reads it.

Usage: python3 spill_timing.py --out DIR   -> DIR/spill_timing.csv
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
from spill_sass import CASES, OVERFLOW_CASES  # noqa: E402
from triton_gemm_sweep import launch, kernel_info  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from envinfo import header_lines
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "spill_timing.csv"), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/spill_timing.py", {
            "timing": "triton.testing.do_bench(warmup=20, rep=60, return_mode='median'), L2 flushed "
                      "before each launch, torch.randn data"}))
        w = csv.writer(f)
        w.writerow(["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps",
                    "dtype", "ms", "tflops", "n_regs", "n_spills", "smem_bytes", "rel_err"])
        for (M, N, K, bm, bn, bk, s, wp) in CASES + OVERFLOW_CASES:
            torch.manual_seed(0)
            a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=1, stages=s, warps=wp)
            k = launch(a, b, c, cfg)
            torch.cuda.synchronize()
            ref = a.float() @ b.float()
            rel = ((c.float() - ref).norm() / ref.norm()).item()
            regs, spills, smem = kernel_info(k)
            ms = triton.testing.do_bench(lambda: launch(a, b, c, cfg), warmup=20, rep=60, return_mode="median")
            w.writerow([M, N, K, bm, bn, bk, 1, s, wp, "bf16", f"{ms:.6f}",
                        f"{2.0 * M * N * K / (ms * 1e-3) / 1e12:.2f}", regs, spills, smem, f"{rel:.2e}"])
            f.flush()
            print(M, N, K, bm, bn, bk, s, wp, regs, spills, f"{ms:.4f} ms", flush=True)


if __name__ == "__main__":
    main()
