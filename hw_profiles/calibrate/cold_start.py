#!/usr/bin/env python3
"""What a small GEMM pays for starting cold after do_bench's L2 flush, split into its parts.

The corpus's one-wave 1024^3 Triton GEMMs (10-25 us) are predicted 1-3 us short. Each is timed
as do_bench does: a 256 MiB zero_ (the flush), then events around one launch. Here, for some
of those configs (the corpus kernel, tests/validation/h200/triton_gemm_sweep.py) and an empty
Triton kernel, the same launch is timed four ways (median of --reps each):
  flush     do_bench's protocol: flush, event, launch, event;
  data      flush, then A and B read into L2 by torch sums (clean lines), event, launch, event:
            without the cold operand reads and the dirty lines they write back;
  code      flush, then one launch of the same kernel on other buffers of the same shape
            (its code and the launch's constants warm, A, B, C cold), event, launch, event;
  warm      no flush: the kernel again right after itself (everything warm);
  do_bench  triton.testing.do_bench itself (warmup 25, rep 100, median), as the corpus.
Before each timed launch a ~100 us GPU sleep lets the host enqueue it, so that no mode times
the host's launch.
Output (stdout, CSV): M,N,K,block_m,block_n,block_k,group_m,stages,warps,mode,us

Usage: python3 cold_start.py [--reps 200]
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from triton_gemm_sweep import launch  # noqa: E402

# (M, N, K, block_m, block_n, block_k, group_m, stages, warps): corpus rows of 1024^3 and 2048^3
CONFIGS = [
    (1024, 1024, 1024, 64, 64, 128, 1, 5, 8),
    (1024, 1024, 1024, 128, 64, 128, 8, 4, 8),
    (1024, 1024, 1024, 128, 128, 64, 8, 5, 4),
    (1024, 1024, 1024, 64, 128, 32, 1, 3, 4),
    (1024, 1024, 1024, 64, 64, 32, 1, 2, 4),
    (1024, 1024, 1024, 128, 128, 32, 1, 4, 8),
    (2048, 2048, 2048, 128, 128, 64, 1, 5, 4),
    (2048, 2048, 2048, 64, 128, 32, 1, 3, 4),
]


@triton.jit
def empty_kernel(x_ptr):
    pass


def median_us(setup, fn, reps):
    out = []
    for _ in range(reps):
        setup()
        torch.cuda._sleep(200000)  # ~100 us of GPU time: the host enqueues the launch meanwhile
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        out.append(s.elapsed_time(e) * 1e3)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    sink = torch.empty(4, dtype=torch.float32, device="cuda")
    print("M,N,K,block_m,block_n,block_k,group_m,stages,warps,mode,us")
    x = torch.empty(1, device="cuda")
    empty = lambda: empty_kernel[(132,)](x)  # noqa: E731
    empty()
    for mode, setup in (("flush", lambda: flush.zero_()), ("warm", empty)):
        print(f"0,0,0,0,0,0,0,0,0,empty_{mode},{median_us(setup, empty, args.reps):.2f}", flush=True)
    for (M, N, K, bm, bn, bk, g, st, w) in CONFIGS:
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, stages=st, warps=w)
        a, b = torch.randn(M, K, device="cuda", dtype=torch.bfloat16), torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        a2, b2, c2 = torch.randn_like(a), torch.randn_like(b), torch.empty_like(c)
        run = lambda: launch(a, b, c, cfg)  # noqa: E731
        run()
        torch.cuda.synchronize()

        def data():
            flush.zero_()
            sink[0] = a.sum()
            sink[1] = b.sum()

        def code():
            flush.zero_()
            launch(a2, b2, c2, cfg)

        for mode, setup in (("flush", lambda: flush.zero_()), ("data", data), ("code", code), ("warm", run)):
            us = median_us(setup, run, args.reps)
            print(f"{M},{N},{K},{bm},{bn},{bk},{g},{st},{w},{mode},{us:.2f}", flush=True)
        us = triton.testing.do_bench(run, warmup=25, rep=100, return_mode="median") * 1e3
        print(f"{M},{N},{K},{bm},{bn},{bk},{g},{st},{w},do_bench,{us:.2f}", flush=True)


if __name__ == "__main__":
    main()
