#!/usr/bin/env python3
"""Kernel launch overhead and per-wave fixed cost.

Kernels: a trivial Triton kernel (each program stores one int32; num_warps=4, 128 threads)
launched with 1, 66, 132, 264, ..., 1320, 2640, 6600, 13200 programs, and a tiny torch op
(x.add_(1) on a 1-element tensor).
Modes:
  do_bench  - triton.testing.do_bench(warmup=25, rep=100, return_mode="median"): what the
              validation corpora's smallest kernels measure (events around one launch,
              L2 flushed before it)
  graph     - 100 launches captured in one CUDA graph; graph replay time / 100 (GPU-side
              cost per kernel with launch gaps minimised)
  stream    - 2000 back-to-back launches from Python between two events / 2000 (bounded
              by the host's launch rate when the kernel is short)
Output columns: kernel, blocks, threads, mode, us

Usage: python3 launch_overhead.py --out DIR [--budget-s 30]
"""
import argparse
import csv
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def tiny_kernel(p):
    pid = tl.program_id(0)
    tl.store(p + pid, pid)


def per_launch_stream(fn, n=2000):
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    vals = []
    for _ in range(3):
        s.record()
        for _ in range(n):
            fn()
        e.record()
        torch.cuda.synchronize()
        vals.append(s.elapsed_time(e) * 1e3 / n)
    return statistics.median(vals)


def per_launch_graph(fn, n=100):
    fn()
    torch.cuda.synchronize()
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        fn()
    torch.cuda.current_stream().wait_stream(st)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(n):
            fn()
    g.replay()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    vals = []
    for _ in range(5):
        s.record()
        g.replay()
        e.record()
        torch.cuda.synchronize()
        vals.append(s.elapsed_time(e) * 1e3 / n)
    return statistics.median(vals)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget-s", type=float, default=30.0)
    args = ap.parse_args()
    t0 = time.time()
    from envinfo import header_lines

    nsm = torch.cuda.get_device_properties(0).multi_processor_count
    blocks_list = [1, nsm // 2] + [nsm * k for k in range(1, 11)] + [nsm * 20, nsm * 50,
                                                                      nsm * 100]
    buf = torch.zeros(nsm * 100 + 16, device="cuda", dtype=torch.int32)
    x = torch.randn(1, device="cuda")
    path = os.path.join(args.out, "launch_overhead.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/launch_overhead.py", {
            "modes": "do_bench = triton do_bench median (L2 flush before each launch); graph = "
                     "CUDA graph of 100 launches, replay time/100; stream = 2000 back-to-back "
                     "Python launches between events / 2000",
        }))
        w = csv.writer(f)
        w.writerow(["kernel", "blocks", "threads", "mode", "us"])
        f.flush()
        jobs = [("torch_add_1elem", 1, 1, lambda: x.add_(1.0))]
        for nb in blocks_list:
            jobs.append(("triton_store1", nb, 128,
                         (lambda nb=nb: tiny_kernel[(nb,)](buf, num_warps=4))))
        for name, nb, th, fn in jobs:
            if time.time() - t0 > args.budget_s:
                print("launch_overhead: budget reached", flush=True)
                break
            for mode in ("do_bench", "graph", "stream"):
                try:
                    if mode == "do_bench":
                        us = triton.testing.do_bench(fn, warmup=25, rep=100,
                                                     return_mode="median") * 1e3
                    elif mode == "graph":
                        us = per_launch_graph(fn)
                    else:
                        us = per_launch_stream(fn)
                    w.writerow([name, nb, th, mode, f"{us:.3f}"])
                    f.flush()
                    print(f"{name:16s} blocks {nb:6d} {mode:8s} {us:8.2f} us", flush=True)
                except Exception as exc:
                    print(f"{name} {nb} {mode} failed: {type(exc).__name__}: {exc}", flush=True)
    print(f"launch_overhead done in {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
