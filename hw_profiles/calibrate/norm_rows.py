#!/usr/bin/env python3
"""Where the time of PyTorch's row-wise kernels goes on the H200 (issue 6, memory_bound.cpp).

tests/validation/h200/norms.csv's small rows read 2-3x the model: rmsnorm 1x4096 takes 10.85 us
under do_bench while the profiler's kernel takes 3.9 us. This separates, at row lengths and
row counts that are NOT in that corpus, three parts of a do_bench time:
  kernel_cold - the profiler's duration of the op's kernel(s) launched right after do_bench's
                flush (a 256 MiB zero_), median of 15: the kernel as do_bench runs it
  kernel_warm - the same without the flush (operands L2-resident), median of 15
  do_bench    - triton.testing.do_bench(warmup=25, rep=100, return_mode="median"), as the corpus
do_bench - kernel_cold is the floor of the launch path (events, launch, flush drain) for this
op; the slope of kernel_cold over cols at one row gives the per-thread serial loop's cost per
element (each thread of the norm kernels walks its row in vector loads, one after another).
Ops: rmsnorm (F.rms_norm), layernorm (F.layer_norm), softmax (torch.softmax), add (x + y),
silu_mul (F.silu(x) * y, two kernels),
bf16, torch.randn data. Shapes: rows 1 and 132 (one block per SM) x cols 1024..24576 without
4096/8192/14336, plus a few large shapes whose rows per SM do or do not fit the L2.

CSV: op, rows, cols, do_bench_us, kernel_cold_us, kernel_warm_us, kernels
Usage: python3 norm_rows.py --out DIR [--budget-s 150]
"""
import argparse
import csv
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

OPS = ["rmsnorm", "layernorm", "softmax", "add", "silu_mul"]
SMALL = [(r, c) for r in (1, 132) for c in (1024, 2048, 3072, 6144, 12288, 16384, 24576)]
LARGE = [(32768, 2048), (8192, 6144), (8192, 12288), (4096, 24576), (2048, 32768)]


def make(op, R, C):
    dt = torch.bfloat16
    x = torch.randn(R, C, device="cuda", dtype=dt)
    if op == "rmsnorm":
        wt = torch.randn(C, device="cuda", dtype=dt)
        return lambda: F.rms_norm(x, (C,), wt, eps=1e-6)
    if op == "layernorm":
        wt = torch.randn(C, device="cuda", dtype=dt)
        bs = torch.randn(C, device="cuda", dtype=dt)
        return lambda: F.layer_norm(x, (C,), wt, bs, eps=1e-5)
    if op == "softmax":
        return lambda: torch.softmax(x, dim=-1)
    y = torch.randn(R, C, device="cuda", dtype=dt)
    if op == "silu_mul":
        return lambda: F.silu(x) * y
    return lambda: x + y


def kernel_durations(fn, flush, reps=15):
    """Median per-call sum of the op's kernel durations (us) and the kernel names, from a
    chrome trace of `reps` calls (each after flush.zero_() when flush is given)."""
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            if flush is not None:
                flush.zero_()
            fn()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as fh:
            trace = json.load(fh)
    finally:
        os.unlink(path)
    evs = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    kern = [e for e in evs if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel")
            and "FillFunctor" not in e.get("name", "")]
    kern.sort(key=lambda e: e.get("ts", 0))
    per = len(kern) // reps
    if per == 0:
        return float("nan"), ""
    sums = [sum(float(e.get("dur", 0)) for e in kern[i * per:(i + 1) * per]) for i in range(reps)]
    return statistics.median(sums), "|".join(e.get("name", "?")[:70] for e in kern[:per])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=150)
    args = ap.parse_args()
    from envinfo import header_lines
    t0 = time.time()
    flush = torch.empty(256 * 2 ** 20 // 4, device="cuda", dtype=torch.int32)
    path = os.path.join(args.out, "norm_rows.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/norm_rows.py", {
            "timing": "do_bench(warmup=25, rep=100, median); kernel_* = torch.profiler kernel "
                      "durations, median of 15 calls, after a 256 MiB zero_ (cold) or not (warm)"}))
        w = csv.writer(f)
        w.writerow(["op", "rows", "cols", "do_bench_us", "kernel_cold_us", "kernel_warm_us",
                    "kernels"])
        for (R, C) in SMALL + LARGE:
            for op in OPS:
                if time.time() - t0 > args.budget_s:
                    break
                try:
                    torch.manual_seed(0)
                    fn = make(op, R, C)
                    fn()
                    torch.cuda.synchronize()
                    ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
                    cold, names = kernel_durations(fn, flush)
                    warm, _ = kernel_durations(fn, None)
                    w.writerow([op, R, C, f"{ms * 1e3:.3f}", f"{cold:.3f}", f"{warm:.3f}", names])
                    f.flush()
                    print(f"{op:9s} {R}x{C}: do_bench {ms * 1e3:.2f} cold {cold:.2f} "
                          f"warm {warm:.2f} us", flush=True)
                except Exception as exc:
                    print(f"{op} {R}x{C} failed: {type(exc).__name__}: {exc}", flush=True)
                finally:
                    torch.cuda.empty_cache()
    print(f"norm_rows done, {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
