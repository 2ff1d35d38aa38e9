#!/usr/bin/env python3
"""Write the TTGIR Triton 3.6 compiles the corpus kernel (tutorial 03) to, for a few configs:
how the loads of an operand with unaligned rows are laid out across a warp's lanes, and where
the wgmma waits and the next stage's loads sit in 2-stage loops with BLOCK_K 64 and 128.
Usage: python3 ir_facts.py --out DIR"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))
import torch  # noqa: E402
from triton_gemm_sweep import matmul_kernel  # noqa: E402

CASES = [(3000, 5000, 2048, 128, 64, 32, 3, 4), (3000, 5000, 2048, 64, 64, 128, 3, 4),
         (2048, 2048, 2048, 128, 128, 128, 2, 4), (2048, 2048, 2048, 128, 128, 64, 2, 4)]

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
args = ap.parse_args()
for (M, N, K, bm, bn, bk, st, w) in CASES:
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    grid = ((M + bm - 1) // bm * ((N + bn - 1) // bn),)
    k = matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=1,
                            num_stages=st, num_warps=w)
    name = f"{M}x{N}x{K}_{bm}x{bn}x{bk}_s{st}_w{w}"
    with open(os.path.join(args.out, name + ".ttgir"), "w") as f:
        f.write(k.asm["ttgir"])
    print(name, "n_regs", k.n_regs, "spills", k.n_spills, "smem", k.metadata.shared, flush=True)
