#!/usr/bin/env python3
"""cuBLAS(Lt) GEMM corpus through PyTorch on the H200: latency plus the kernels it ran.

For each (dtype, M, N, K): C = A @ B with A row-major MxK, B row-major KxN
(torch.matmul; bf16 and fp16), or fp8 e4m3 through torch._scaled_mm (B column-major,
i.e. b.t() of a row-major NxK tensor, fp32 scalar scales, bf16 out).
  ms      - triton.testing.do_bench(warmup=25, rep=100, return_mode="median"), random data
  kernel  - names of the CUDA kernels one call launched (torch.profiler, chrome trace),
            joined with '|' when there are several (e.g. a split-K reduction)
  grid, block - from the trace's "args" of each kernel event ("x;y;z"), joined with '|'
Remember cuBLAS's names are in the transposed (column-major) frame: see VALIDATION.md.

With --linear: bf16 and fp16 through torch.nn.functional.linear(a, w), w an NxK row-major
weight (B = w.t(), K contiguous: layout "nt"), the Linear layer's path, into
cublas_gemm_linear.csv.

Usage: python3 cublas_sweep.py --out DIR [--budget-s 120] [--linear]
"""
import argparse
import csv
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

import torch  # noqa: E402
import triton  # noqa: E402

LLM_NK = [(4096, 4096), (14336, 4096), (4096, 14336), (28672, 8192), (1024, 8192)]
SQUARE = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)]
OTHER = [(16, 4096, 4096), (64, 4096, 8192), (128, 8192, 8192),
         (4096, 16, 4096), (8192, 64, 4096), (8192, 128, 8192),
         (1024, 1024, 16384), (2048, 2048, 32768),
         (3000, 5000, 2048), (2500, 7000, 3000), (1024, 28672, 8192), (8192, 8192, 28672)]
MS = [1, 8, 32, 128, 512, 2048, 4096, 8192]

FP_SUBSET = [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048), (1024, 1024, 1024),
             (4096, 14336, 4096), (4096, 4096, 14336), (4096, 28672, 8192),
             (128, 8192, 8192), (1, 4096, 4096), (32, 14336, 4096), (3000, 5000, 2048),
             (2048, 2048, 32768)]


def shapes_bf16():
    out = list(SQUARE)
    for m in MS:
        for n, k in LLM_NK:
            out.append((m, n, k))
    out += OTHER
    seen, res = set(), []
    for s in out:
        if s not in seen:
            seen.add(s)
            res.append(s)
    return res


def make_fn(dtype, M, N, K, linear=False):
    dev = "cuda"
    if dtype in ("bf16", "fp16") and linear:
        dt = torch.bfloat16 if dtype == "bf16" else torch.float16
        a = torch.randn(M, K, device=dev, dtype=dt)
        w = torch.randn(N, K, device=dev, dtype=dt)
        return lambda: torch.nn.functional.linear(a, w)
    if dtype in ("bf16", "fp16"):
        dt = torch.bfloat16 if dtype == "bf16" else torch.float16
        a = torch.randn(M, K, device=dev, dtype=dt)
        b = torch.randn(K, N, device=dev, dtype=dt)
        return lambda: torch.matmul(a, b)
    if dtype == "fp8":
        # _scaled_mm wants dims divisible by 16
        a = torch.randn(M, K, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device=dev).to(torch.float8_e4m3fn)
        sa = torch.tensor(1.0, device=dev, dtype=torch.float32)
        sb = torch.tensor(1.0, device=dev, dtype=torch.float32)
        bt = b.t()
        return lambda: torch._scaled_mm(a, bt, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    raise ValueError(dtype)


def profile_kernels(fn):
    """Kernel names and grid/block of one call, from a chrome trace."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    finally:
        os.unlink(path)
    evs = trace.get("traceEvents", trace if isinstance(trace, list) else [])
    kern = [e for e in evs if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel")]
    kern.sort(key=lambda e: e.get("ts", 0))
    names, grids, blocks, durs = [], [], [], []
    for e in kern:
        a = e.get("args", {})
        names.append(e.get("name", "?"))
        g = a.get("grid", "")
        b = a.get("block", "")
        grids.append(";".join(str(x) for x in g) if isinstance(g, list) else str(g))
        blocks.append(";".join(str(x) for x in b) if isinstance(b, list) else str(b))
        durs.append(f"{e.get('dur', 0)}")
    return names, grids, blocks, durs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget-s", type=float, default=120.0)
    ap.add_argument("--linear", action="store_true", help="F.linear with an NxK weight (layout nt)")
    args = ap.parse_args()
    t0 = time.time()
    from envinfo import header_lines

    jobs = [("bf16", s) for s in shapes_bf16()]
    jobs += [("fp16", s) for s in FP_SUBSET]
    jobs += [("fp8", s) for s in FP_SUBSET if all(x % 16 == 0 for x in s[1:]) and s[0] % 16 == 0]
    if args.linear:
        jobs = [(d, s) for d, s in jobs if d != "fp8"]
    path = os.path.join(args.out, "cublas_gemm_linear.csv" if args.linear else "cublas_gemm.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/cublas_sweep.py", {
            "timing": "triton.testing.do_bench(warmup=25, rep=100, return_mode='median'), "
                      "L2 flushed before each launch, torch.randn data",
            "kernels": "torch.profiler CUDA activity of one call (after warm-up), chrome-trace "
                       "args grid/block as x;y;z; several kernels joined with '|'; kernel_us = "
                       "profiled duration of each",
            "frame": "cuBLAS names are column-major: first tile number runs along torch's N",
            "call": ("torch.nn.functional.linear(a, w), w NxK row-major (layout nt)" if args.linear
                     else "torch.matmul(a, b), b KxN row-major; fp8 torch._scaled_mm with b column-major"),
        }))
        w = csv.writer(f)
        w.writerow(["dtype", "M", "N", "K", "ms", "tflops", "kernel", "grid", "block",
                    "kernel_us", "n_kernels"])
        f.flush()
        for dtype, (M, N, K) in jobs:
            if time.time() - t0 > args.budget_s:
                print("cublas_sweep: budget reached", flush=True)
                break
            try:
                fn = make_fn(dtype, M, N, K, args.linear)
                fn()
                torch.cuda.synchronize()
                ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
                names, grids, blocks, durs = profile_kernels(fn)
                tfl = 2.0 * M * N * K / (ms * 1e-3) / 1e12
                w.writerow([dtype, M, N, K, f"{ms:.6f}", f"{tfl:.2f}", "|".join(names),
                            "|".join(grids), "|".join(blocks), "|".join(durs), len(names)])
                f.flush()
                print(f"{dtype} {M}x{N}x{K}: {ms:.4f} ms {tfl:.0f} TFLOP/s  "
                      f"{'|'.join(names)[:110]} grid {'|'.join(grids)} block "
                      f"{'|'.join(blocks)}", flush=True)
            except Exception as exc:
                print(f"{dtype} {M}x{N}x{K} failed: {type(exc).__name__}: {exc}", flush=True)
            finally:
                torch.cuda.empty_cache()
    print(f"cublas_sweep done in {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
