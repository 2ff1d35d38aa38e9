#!/usr/bin/env python3
"""Launches for ncu: skinny-N against skinny-M GEMMs with the same tile configs transposed.

The corpus's skinny-N rows (4096x16x4096: A streamed, B 16 columns wide, tiles BLOCK_N > N
wrapping B's columns) run 15-40% slower than the skinny-M rows with the tile config
transposed (16x4096x4096: B streamed, BLOCK_M > M wrapping A's rows); the model predicts
them alike. Each case is warmed up outside the profiled range, then launched once between
cudaProfilerStart/Stop (run under `ncu --profile-from-start off`, run_ncu_skinny.sh).
Cases 2 and 5 store the streamed operand the other way (A column-major / B row-major...):
the layout alone (dram_locality.py).
Output (stdout): "CASE <index> <label>" lines before each profiled launch.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import triton  # noqa: E402

from triton_gemm_sweep import matmul_kernel  # noqa: E402

# M, N, K, block_m, block_n, block_k, group_m, stages, warps, a_col_major, b_col_major
CASES = [
    (4096, 16, 4096, 64, 128, 64, 1, 2, 4, False, False),
    (16, 4096, 4096, 128, 64, 64, 1, 2, 4, False, False),
    (4096, 16, 4096, 64, 128, 64, 1, 2, 4, True, False),
    (4096, 16, 4096, 128, 128, 64, 1, 5, 4, False, False),
    (16, 4096, 4096, 128, 128, 64, 1, 5, 4, False, False),
    (4096, 16, 4096, 64, 64, 64, 1, 2, 4, False, False),
    (16, 4096, 4096, 64, 64, 64, 1, 2, 4, False, False),
]


def operand(rows, cols, col_major):
    if col_major:
        return torch.randn(cols, rows, device="cuda", dtype=torch.bfloat16).t()
    return torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)


def main():
    for i, (M, N, K, bm, bn, bk, gm, st, w, acm, bcm) in enumerate(CASES):
        a, b = operand(M, K, acm), operand(K, N, bcm)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)

        def fn():
            matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
                                num_stages=st, num_warps=w)
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        print(f"CASE {i} {M}x{N}x{K} {bm}x{bn}x{bk} g{gm} s{st} w{w} a_col={acm} b_col={bcm}", flush=True)
        torch.cuda.profiler.start()
        fn()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
