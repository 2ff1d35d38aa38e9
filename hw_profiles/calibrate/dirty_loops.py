#!/usr/bin/env python3
"""What do_bench's dirty flush costs a pipelined GEMM loop, by how much of it reads DRAM.

dirty_l2.py measured the write-back of the flush's dirty lines on a DRAM-bound streaming read
(up to 32 MiB written back at about the DRAM rate). The corpus's Triton GEMM loops are mostly
bound by their round trip, not by DRAM: this times the loops of pipeline_active.py (grids of
`active` tiles, M = active x BLOCK_M, N = BLOCK_N: A streamed from DRAM, more of it with more
SMs) and of pipeline_iteration.py (132 x r tiles on operands that stay in L2), at K 2048 and
6144, each by CUDA events around one launch after:
  dirty  - zero_() of 256 MB, as triton.testing.do_bench does before every launch
  clean  - a read-only pass over another 256 MB (the L2 full of clean lines), dirty_l2.py's
  dirty2 - that pass, then the zero_() (both flushes: the same kernels ran before the launch)
Median of 21 for each. The difference is the dirty write-back's cost to that loop. None of
these shapes is in a corpus.

CSV: set, block_m, block_n, block_k, stages, warps, active, M, N, K, dirty_us, clean_us, dirty2_us
Usage: python3 dirty_loops.py --out DIR
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

from bw_sweep import read_kernel  # noqa: E402
from dirty_l2 import median_after  # noqa: E402
from triton_gemm_sweep import matmul_kernel  # noqa: E402

# (set, block_m, block_n, block_k, stages, warps, active SMs or -r for 132 x r tiles)
LOOPS = [("active", 128, 128, 32, 3, 4, a) for a in (8, 33, 66, 132)] + \
        [("active", 64, 64, 32, 4, 4, a) for a in (16, 66, 132)] + \
        [("active", 64, 128, 64, 2, 4, a) for a in (33, 132)] + \
        [("iteration", 64, 64, 32, 2, 4, -1), ("iteration", 64, 64, 64, 5, 4, -1),
         ("iteration", 128, 128, 64, 3, 4, -1), ("iteration", 128, 128, 64, 5, 8, -2),
         ("iteration", 128, 256, 64, 3, 8, -1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from envinfo import header_lines
    flush = torch.empty(256 * 2 ** 20 // 4, device="cuda", dtype=torch.int32)
    other = torch.randn(256 * 2 ** 20 // 4, device="cuda", dtype=torch.float32)
    nprog = 4 * torch.cuda.get_device_properties(0).multi_processor_count
    partial = torch.empty(nprog, device="cuda", dtype=torch.float32)
    nblk = other.numel() // 4096

    def clean():  # dirty_l2.py's read-only pass (bw_sweep.py's reduce, ld.global.cg)
        read_kernel[(nprog,)](other, partial, nblk, -(-nblk // nprog), BLOCK=4096, CG=True, num_warps=8)

    prepare = {"dirty": lambda: flush.zero_(), "clean": clean, "dirty2": lambda: (clean(), flush.zero_())}

    def timed(fn, how, reps=21):
        fn()
        return median_after(prepare[how], fn, reps)

    path = os.path.join(args.out, "dirty_loops.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/dirty_loops.py"))
        w_ = csv.writer(f)
        w_.writerow(["set", "block_m", "block_n", "block_k", "stages", "warps", "active", "M", "N", "K",
                     "dirty_us", "clean_us", "dirty2_us"])
        for (name, bm, bn, bk, st, w, act) in LOOPS:
            for K in (2048, 6144):
                if act > 0:
                    M, N, active = act * bm, bn, act
                else:
                    M, N, active = 12 * (-act) * bm, 11 * bn, 132
                a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
                b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
                c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
                grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)

                def fn():
                    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                        b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                                        BLOCK_N=bn, BLOCK_K=bk, GROUP_M=1, num_stages=st,
                                        num_warps=w)
                d, cl, d2 = timed(fn, "dirty"), timed(fn, "clean"), timed(fn, "dirty2")
                w_.writerow([name, bm, bn, bk, st, w, active, M, N, K, f"{d:.2f}", f"{cl:.2f}", f"{d2:.2f}"])
                f.flush()
                print(name, bm, bn, bk, st, w, active, M, N, K, f"dirty {d:.2f} clean {cl:.2f} dirty2 {d2:.2f} us", flush=True)
                del a, b, c
    print("wrote", path)


if __name__ == "__main__":
    main()
