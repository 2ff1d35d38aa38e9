#!/usr/bin/env python3
"""How cuDNN's Hopper SDPA kernel spends its time on the H200 (issue 6: the cuDNN prefill rows
of attention_sdpa.csv, predicted 0.59-0.87x at head dim 64 and 1.02-1.12x at 128).

Three parts, each logged on its own so that one failing leaves the others:

1. clock: do_bench (the corpus's protocol: warmup 25, rep 100, median, L2 flushed) of cuDNN
   and FA2 prefill at 8 x 16 x 4096 (d 64 and 128) and 2 x 32 x 8192 (d 64), and of a cuBLAS
   bf16 8192^3 GEMM (a power-limited reference), then the same call timed for ~1.5 s while
   `nvidia-smi -lms 20` samples the SM clock and the board power. Says whether these kernels
   run at the full 1980 MHz or at the power-limited clock. -> cudnn_sdpa_clock.csv
2. head dims: do_bench of cuDNN at 8 x 16 x 4096 non-causal for d 32, 64, 96, 128 with the
   kernel names (tile per warp group from the name). -> same CSV, part "hdim"
3. ncu (`--clock-control none`, `--set full`, one launch each of the cuDNN d64 and d128
   kernels at 8 x 16 x 4096): the raw metrics (clock, pipe instructions, L2 sectors, launch
   facts) and the SASS with its per-instruction counters (source page): whether the two
   consumer warp groups take turns at named barriers (ping-pong), whether a warp group issues
   the next QK^T before its softmax (intra-warp-group overlap). -> cudnn_sdpa_ncu_raw.csv,
   cudnn_sdpa_sass_d64.csv, cudnn_sdpa_sass_d128.csv

4. small: cuDNN and FA2 at 1 x 32 x 1024 (d 64, 128, causal or not): do_bench against a CUDA
   graph replay (GPU time alone), host issue time, and every GPU activity of one call.
   -> cudnn_sdpa_small.csv

Usage: python3 cudnn_sdpa_structure.py --out DIR      (about 2 minutes)
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

NCU_SHAPES = [(8, 16, 4096, 64), (8, 16, 4096, 128)]


def sdpa_call(backend, B, H, S, D, causal=False):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    be = SDPBackend.CUDNN_ATTENTION if backend == "cudnn" else SDPBackend.FLASH_ATTENTION
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))

    def fn():
        with sdpa_kernel(be):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return fn


def gemm_call(n=8192):
    import torch
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    return lambda: a @ b


def sample_clock(fn, seconds=1.5):
    """Call fn back to back (do_bench's flush between calls) while nvidia-smi samples."""
    import torch
    flush = torch.empty(256 * 2**20, dtype=torch.int8, device="cuda")
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw",
                            "--format=csv,noheader,nounits", "-lms", "20"],
                           stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    t0 = time.time()
    n = 0
    while time.time() - t0 < seconds:
        for _ in range(20):
            flush.zero_()
            fn()
            n += 1
        torch.cuda.synchronize()
    smi.terminate()
    out, _ = smi.communicate(timeout=10)
    clocks, powers = [], []
    for ln in out.splitlines():
        parts = [p.strip() for p in ln.split(",")]
        try:
            clocks.append(float(parts[0]))
            powers.append(float(parts[1]))
        except (ValueError, IndexError):
            pass
    # The first 0.3 s is idle; keep the samples of the loaded part (upper two thirds).
    k = len(clocks) // 4
    c, p = clocks[k:], powers[k:]
    q = lambda xs, f: sorted(xs)[int(f * (len(xs) - 1))] if xs else float("nan")
    return dict(calls=n, samples=len(c), clock_mhz_median=statistics.median(c) if c else float("nan"),
                clock_mhz_p10=q(c, 0.1), clock_mhz_p90=q(c, 0.9),
                power_w_median=statistics.median(p) if p else float("nan"), power_w_max=max(p) if p else float("nan"))


def part_clock(args):
    import torch
    import triton
    from attention_common import header, safe_profile
    rows = []
    cases = [("cudnn", 8, 16, 4096, 64), ("cudnn", 8, 16, 4096, 128), ("cudnn", 2, 32, 8192, 64),
             ("flash", 8, 16, 4096, 64), ("flash", 8, 16, 4096, 128), ("gemm", 8192, 0, 0, 0)]
    for c in cases:
        fn = gemm_call() if c[0] == "gemm" else sdpa_call(*c)
        fn()
        torch.cuda.synchronize()
        ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
        names, grids, blocks, durs = safe_profile(fn)
        row = dict(part="clock", backend=c[0], batch=c[1], heads=c[2], seq=c[3], head_dim=c[4],
                   do_bench_us="%.2f" % (ms * 1000), kernels=names, grids=grids, blocks=blocks, kernel_us=durs)
        row.update(sample_clock(fn))
        print(row, flush=True)
        rows.append(row)
        del fn
        torch.cuda.empty_cache()
    for d in (32, 64, 96, 128):
        try:
            fn = sdpa_call("cudnn", 8, 16, 4096, d)
            fn()
            torch.cuda.synchronize()
            ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
            names, grids, blocks, durs = safe_profile(fn)
            row = dict(part="hdim", backend="cudnn", batch=8, heads=16, seq=4096, head_dim=d,
                       do_bench_us="%.2f" % (ms * 1000), kernels=names, grids=grids, blocks=blocks, kernel_us=durs)
        except Exception as exc:  # a head dim this cuDNN does not run
            row = dict(part="hdim", backend="cudnn", batch=8, heads=16, seq=4096, head_dim=d,
                       kernels=f"failed: {str(exc)[:200]}")
        print(row, flush=True)
        rows.append(row)
        torch.cuda.empty_cache()
    fields = ["part", "backend", "batch", "heads", "seq", "head_dim", "do_bench_us", "calls", "samples",
              "clock_mhz_median", "clock_mhz_p10", "clock_mhz_p90", "power_w_median", "power_w_max", "kernels", "grids", "blocks", "kernel_us"]
    with open(os.path.join(args.out, "cudnn_sdpa_clock.csv"), "w", newline="") as f:
        f.write(header("tests/validation/h200/cudnn_sdpa_structure.py"))
        f.write("# clock: nvidia-smi -lms 20 while the call runs back to back for 1.5 s with a 256 MiB "
                "memset (do_bench's flush) before each call; non-causal, bf16\n")
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def target():
    import torch
    for (B, H, S, D) in NCU_SHAPES:
        fn = sdpa_call("cudnn", B, H, S, D)
        fn()
        torch.cuda.synchronize()


def part_ncu(args):
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    rep = os.path.join("/tmp", "cudnn_sdpa")
    cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name",
           "regex:sdpa_sm90", "--launch-count", str(len(NCU_SHAPES)), "--set", "full",
           "--import-source", "no", "-f", "-o", rep, sys.executable, os.path.abspath(__file__), "--target"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print("ncu rc", p.returncode, p.stdout[-1500:], p.stderr[-1500:], flush=True)
    r = subprocess.run([ncu, "-i", rep + ".ncu-rep", "--page", "raw", "--csv"], capture_output=True, text=True)
    open(os.path.join(args.out, "cudnn_sdpa_ncu_raw.csv"), "w").write(r.stdout)
    print("raw", len(r.stdout), r.stderr[-500:], flush=True)
    for i, (B, H, S, D) in enumerate(NCU_SHAPES):
        r = subprocess.run([ncu, "-i", rep + ".ncu-rep", "--page", "source", "--print-source", "sass", "--csv",
                            "--launch-skip", str(i), "--launch-count", "1"], capture_output=True, text=True)
        open(os.path.join(args.out, f"cudnn_sdpa_sass_d{D}.csv"), "w").write(r.stdout)
        print("sass", D, len(r.stdout), r.stderr[-500:], flush=True)


def graph_us(fn, reps=20):
    import torch
    from attention_common import capture_graph
    g = capture_graph(fn, reps)
    g.replay()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    g.replay()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1000 / reps


def gpu_activities(fn):
    """Every GPU activity of one call (kernels, memsets, copies): category, name, duration."""
    import json
    import tempfile
    import torch
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        fn()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    prof.export_chrome_trace(path)
    evs = json.load(open(path))
    os.unlink(path)
    evs = evs.get("traceEvents", []) if isinstance(evs, dict) else evs
    gpu = [e for e in evs if e.get("ph") == "X" and str(e.get("cat", "")).lower().startswith(("kernel", "gpu_"))]
    gpu.sort(key=lambda e: e.get("ts", 0))
    return ";".join(f"{e.get('cat')}:{e.get('name', '?')[:60]}:{e.get('dur', 0)}" for e in gpu)


def part_small(args):
    """cuDNN's short calls: do_bench against the GPU time of a CUDA-graph replay and the
    profiler's activities (does the call add GPU work beside its kernel, or host time?)."""
    import torch
    import triton
    from attention_common import header
    rows = []
    for backend in ("cudnn", "flash"):
        for D in (64, 128):
            for causal in (False, True):
                fn = sdpa_call(backend, 1, 32, 1024, D, causal)
                fn()
                torch.cuda.synchronize()
                ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
                try:
                    g = "%.2f" % graph_us(fn)
                except Exception as exc:
                    g = f"failed {type(exc).__name__}"
                t0 = time.perf_counter()
                for _ in range(200):
                    fn()
                host = (time.perf_counter() - t0) / 200 * 1e6
                torch.cuda.synchronize()
                row = dict(backend=backend, batch=1, heads=32, seq=1024, head_dim=D, causal=int(causal),
                           do_bench_us="%.2f" % (ms * 1000), graph_us=g, host_us="%.2f" % host,
                           activities=gpu_activities(fn))
                print(row, flush=True)
                rows.append(row)
    with open(os.path.join(args.out, "cudnn_sdpa_small.csv"), "w", newline="") as f:
        f.write(header("tests/validation/h200/cudnn_sdpa_structure.py"))
        f.write("# do_bench as the corpus; graph_us: 20 calls captured in a CUDA graph, replay / 20; host_us: "
                "200 calls issued back to back, host wall time per call; activities: category:name:us\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow(r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--target", action="store_true")
    ap.add_argument("--parts", default="small,clock,ncu")
    args = ap.parse_args()
    if args.target:
        target()
        return
    for part in args.parts.split(","):
        t0 = time.time()
        try:
            {"clock": part_clock, "ncu": part_ncu, "small": part_small}[part](args)
        except Exception as exc:
            print(f"part {part} failed: {exc!r}", flush=True)
        print(f"part {part}: {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
