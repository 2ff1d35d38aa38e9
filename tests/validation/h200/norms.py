#!/usr/bin/env python3
"""Memory-bound kernel corpus through PyTorch on the H200: RMSNorm, LayerNorm, softmax,
SiLU(gate)*up and add, bf16, row-major rows x cols, torch.randn data.

  rmsnorm   F.rms_norm(x, (cols,), weight, eps=1e-6)          bytes 2*R*C*2 + C*2
  layernorm F.layer_norm(x, (cols,), weight, bias, eps=1e-5)  bytes 2*R*C*2 + 2*C*2
  softmax   torch.softmax(x, dim=-1)                          bytes 2*R*C*2
  silu_mul  F.silu(gate) * up  (eager: two kernels)           bytes 3*R*C*2 (fused ideal)
  add       x + y                                             bytes 3*R*C*2
  ms     - triton.testing.do_bench(warmup=25, rep=100, return_mode="median"), L2 flushed
  gbps   - the compulsory bytes above / time (for silu_mul this is the fused op's traffic;
           eager PyTorch runs silu and mul as two kernels, which move 5*R*C*2 bytes)
  kernels, grids, blocks, kernel_us - one call's kernels (torch.profiler chrome trace)

Usage: python3 norms.py --out DIR [--budget-s 40] [--shapes RxC,... --name norms_heldout]
"""
import argparse
import csv
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402

from attention_common import header, safe_profile  # noqa: E402

SHAPES = [(1, 4096), (32, 4096), (4096, 4096), (16384, 8192), (65536, 4096),
          (128, 8192), (1024, 4096), (2048, 14336)]
KERNELS = ["rmsnorm", "layernorm", "softmax", "silu_mul", "add"]


def make(kernel, R, C):
    dt = torch.bfloat16
    x = torch.randn(R, C, device="cuda", dtype=dt)
    e = 2  # bytes per bf16
    if kernel == "rmsnorm":
        wt = torch.randn(C, device="cuda", dtype=dt)
        return (lambda: F.rms_norm(x, (C,), wt, eps=1e-6)), 2 * R * C * e + C * e
    if kernel == "layernorm":
        wt = torch.randn(C, device="cuda", dtype=dt)
        bs = torch.randn(C, device="cuda", dtype=dt)
        return (lambda: F.layer_norm(x, (C,), wt, bs, eps=1e-5)), 2 * R * C * e + 2 * C * e
    if kernel == "softmax":
        return (lambda: torch.softmax(x, dim=-1)), 2 * R * C * e
    if kernel == "silu_mul":
        up = torch.randn(R, C, device="cuda", dtype=dt)
        return (lambda: F.silu(x) * up), 3 * R * C * e
    if kernel == "add":
        y = torch.randn(R, C, device="cuda", dtype=dt)
        return (lambda: x + y), 3 * R * C * e
    raise ValueError(kernel)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget-s", type=float, default=40.0)
    ap.add_argument("--shapes", default="", help="comma list of RxC (default: SHAPES)")
    ap.add_argument("--name", default="norms", help="CSV base name")
    args = ap.parse_args()
    shapes = [tuple(int(x) for x in t.split("x")) for t in args.shapes.split(",")] if args.shapes else SHAPES
    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{args.name}.csv")
    n = 0
    with open(path, "w", newline="") as f:
        f.write(header("tests/validation/h200/norms.py", {
            "timing": "triton.testing.do_bench(warmup=25, rep=100, return_mode='median'), "
                      "L2 flushed before each launch, torch.randn data",
            "gbps": "compulsory bytes of the fused op (see script docstring) / time",
            "kernels": "torch.profiler CUDA activity of one call, grid/block x;y;z, '|'-joined",
        }))
        w = csv.writer(f)
        w.writerow(["kernel", "rows", "cols", "dtype", "ms", "gbps", "kernels", "grids",
                    "blocks", "kernel_us"])
        f.flush()
        for (R, C) in shapes:
            for kernel in KERNELS:
                if time.time() - t0 > args.budget_s:
                    break
                try:
                    torch.manual_seed(0)
                    fn, nbytes = make(kernel, R, C)
                    fn()
                    torch.cuda.synchronize()
                    ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
                    names, grids, blocks, durs = safe_profile(fn)
                    gbps = nbytes / (ms * 1e-3) / 1e9
                    w.writerow([kernel, R, C, "bf16", f"{ms:.6f}", f"{gbps:.1f}", names, grids,
                                blocks, durs])
                    f.flush()
                    n += 1
                    print(f"{kernel:9s} {R}x{C}: {ms * 1e3:.1f} us {gbps:.0f} GB/s | "
                          f"{names[:100]} grid {grids} block {blocks}", flush=True)
                except Exception as exc:
                    print(f"{kernel} {R}x{C} failed: {type(exc).__name__}: {exc}", flush=True)
                finally:
                    torch.cuda.empty_cache()
            if time.time() - t0 > args.budget_s:
                print("norms: time budget reached", flush=True)
                break
    print(f"norms done: {n} rows, {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
