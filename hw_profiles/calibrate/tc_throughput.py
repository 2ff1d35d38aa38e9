#!/usr/bin/env python3
"""Tensor-core throughput through PyTorch/cuBLAS(Lt): bf16, fp16 (torch.matmul), fp8 e4m3
(torch._scaled_mm, B column-major, fp32 scalar scales, bf16 out) and tf32 (fp32 matmul with
allow_tf32) at 2048^3, 4096^3, 8192^3 and 16384x16384x8192 (M x N x K).

Modes (one CSV row each):
  single    - the GPU idles 0.3 s, two warm-up launches, then one launch timed with CUDA
              events; median of 3 such samples (close to a short/one-off launch, e.g. ncu)
  do_bench  - triton.testing.do_bench(warmup=100, rep=500, return_mode="median")
              (L2 flushed before each launch, as the validation corpora are timed)
  sustained - ~1.5 s of back-to-back launches between two events: mean per launch; the SM
              clock and board power sampled by NVML every 50 ms over that window
Plus tc_ramp.csv: bf16 8192^3 launched back-to-back for 4 s, each launch timed, with NVML
clock/power samples: how the rate falls as the power limit bites.

Usage: python3 tc_throughput.py --out DIR [--budget-s 90]
"""
import argparse
import csv
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import triton  # noqa: E402


class Sampler:
    """Background NVML sampler of SM clock (MHz) and power (W)."""

    def __init__(self, period=0.05):
        self.period = period
        self.samples = []  # (t, mhz, watts)
        self._stop = threading.Event()
        self._h = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self._nv = pynvml
            idx = int(os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0] or 0)
            self._h = pynvml.nvmlDeviceGetHandleByIndex(idx)
        except Exception as exc:
            print(f"NVML unavailable: {exc}", flush=True)

    def read(self):
        if self._h is None:
            return float("nan"), float("nan")
        try:
            mhz = self._nv.nvmlDeviceGetClockInfo(self._h, self._nv.NVML_CLOCK_SM)
            w = self._nv.nvmlDeviceGetPowerUsage(self._h) / 1000.0
            return mhz, w
        except Exception:
            return float("nan"), float("nan")

    def _run(self):
        while not self._stop.is_set():
            mhz, w = self.read()
            self.samples.append((time.time(), mhz, w))
            time.sleep(self.period)

    def __enter__(self):
        self.samples = []
        self._stop.clear()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def __exit__(self, *a):
        self._stop.set()
        self._t.join()

    def mean(self, skip_frac=0.2):
        s = self.samples[int(len(self.samples) * skip_frac):]
        if not s:
            return float("nan"), float("nan")
        return statistics.mean(x[1] for x in s), statistics.mean(x[2] for x in s)


def make_fn(dtype, M, N, K):
    dev = "cuda"
    if dtype in ("bf16", "fp16"):
        dt = torch.bfloat16 if dtype == "bf16" else torch.float16
        a = torch.randn(M, K, device=dev, dtype=dt)
        b = torch.randn(K, N, device=dev, dtype=dt)
        return lambda: torch.matmul(a, b)
    if dtype == "tf32":
        a = torch.randn(M, K, device=dev, dtype=torch.float32)
        b = torch.randn(K, N, device=dev, dtype=torch.float32)
        return lambda: torch.matmul(a, b)
    if dtype == "fp8":
        a = torch.randn(M, K, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device=dev).to(torch.float8_e4m3fn)
        sa = torch.tensor(1.0, device=dev, dtype=torch.float32)
        sb = torch.tensor(1.0, device=dev, dtype=torch.float32)
        bt = b.t()
        return lambda: torch._scaled_mm(a, bt, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    raise ValueError(dtype)


def time_single(fn, samples=3, idle=0.3):
    vals = []
    for _ in range(samples):
        torch.cuda.synchronize()
        time.sleep(idle)
        fn()
        fn()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        vals.append(s.elapsed_time(e))
    return statistics.median(vals)


def time_sustained(fn, est_ms, seconds, sampler):
    n = max(5, int(seconds * 1e3 / max(est_ms, 1e-3)))
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with sampler:
        s.record()
        for _ in range(n):
            fn()
        e.record()
        torch.cuda.synchronize()
    return s.elapsed_time(e) / n, sampler.mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget-s", type=float, default=90.0)
    ap.add_argument("--sustain-s", type=float, default=1.5)
    args = ap.parse_args()
    t0 = time.time()
    from envinfo import header_lines

    sampler = Sampler()
    shapes = [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048), (16384, 16384, 8192)]
    dtypes = ["bf16", "fp16", "fp8", "tf32"]
    path = os.path.join(args.out, "tc_throughput.csv")
    ramp_path = os.path.join(args.out, "tc_ramp.csv")
    hdr = header_lines("hw_profiles/calibrate/tc_throughput.py", {
        "modes": "single = 1 launch after 0.3 s idle + 2 warm-ups (median of 3); do_bench = "
                 "triton do_bench median (L2 flushed); sustained = ~1.5 s back-to-back, mean; "
                 "sm_mhz/power_w = NVML means over the sustained window (first 20% dropped), "
                 "or an NVML read just before the launch for single/do_bench",
        "fp8": "torch._scaled_mm e4m3 x e4m3 -> bf16, B column-major, scalar fp32 scales",
        "tf32": "fp32 tensors, torch.backends.cuda.matmul.allow_tf32=True",
    })
    with open(path, "w", newline="") as f:
        f.write(hdr)
        w = csv.writer(f)
        w.writerow(["dtype", "M", "N", "K", "mode", "ms", "tflops", "sm_mhz", "power_w"])
        f.flush()
        # bf16 8192^3 first (the reference point), then the rest
        order = [(d, s) for s in shapes for d in dtypes]
        for dtype, (M, N, K) in order:
            if time.time() - t0 > args.budget_s - 8:
                print("tc_throughput: budget reached", flush=True)
                break
            try:
                torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
                fn = make_fn(dtype, M, N, K)
                flop = 2.0 * M * N * K
                fn()
                torch.cuda.synchronize()
                mhz, pw = sampler.read()
                ms = time_single(fn)
                w.writerow([dtype, M, N, K, "single", f"{ms:.5f}", f"{flop / ms / 1e9:.1f}",
                            f"{mhz:.0f}", f"{pw:.0f}"])
                mhz, pw = sampler.read()
                ms_b = triton.testing.do_bench(fn, warmup=100, rep=500, return_mode="median")
                w.writerow([dtype, M, N, K, "do_bench", f"{ms_b:.5f}",
                            f"{flop / ms_b / 1e9:.1f}", f"{mhz:.0f}", f"{pw:.0f}"])
                ms_s, (mhz, pw) = time_sustained(fn, ms_b, args.sustain_s, sampler)
                w.writerow([dtype, M, N, K, "sustained", f"{ms_s:.5f}",
                            f"{flop / ms_s / 1e9:.1f}", f"{mhz:.0f}", f"{pw:.0f}"])
                f.flush()
                print(f"{dtype} {M}x{N}x{K}: single {flop / ms / 1e9:.0f}, do_bench "
                      f"{flop / ms_b / 1e9:.0f}, sustained {flop / ms_s / 1e9:.0f} TFLOP/s "
                      f"({mhz:.0f} MHz, {pw:.0f} W)", flush=True)
            except Exception as exc:
                print(f"{dtype} {M}x{N}x{K} failed: {type(exc).__name__}: {exc}", flush=True)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = False
                torch.cuda.empty_cache()

    # Ramp: bf16 8192^3 back-to-back for 4 s after 2 s idle, each launch timed.
    try:
        M = N = K = 8192
        fn = make_fn("bf16", M, N, K)
        fn()
        torch.cuda.synchronize()
        time.sleep(2.0)
        n = 2800  # ~4 s at ~1.4 ms
        evs = [torch.cuda.Event(enable_timing=True) for _ in range(n + 1)]
        with sampler:
            t_host0 = time.time()
            evs[0].record()
            for i in range(n):
                fn()
                evs[i + 1].record()
            torch.cuda.synchronize()
        with open(ramp_path, "w", newline="") as f:
            f.write(header_lines("hw_profiles/calibrate/tc_throughput.py (ramp)", {
                "method": "bf16 torch.matmul 8192^3, back-to-back after 2 s idle; kind=launch "
                          "rows: t_ms = event time since first launch, ms, tflops; kind=nvml "
                          "rows: t_ms = host time since start, sm_mhz, power_w",
            }))
            w = csv.writer(f)
            w.writerow(["kind", "index", "t_ms", "ms", "tflops", "sm_mhz", "power_w"])
            flop = 2.0 * M * N * K
            for i in range(n):
                t = evs[0].elapsed_time(evs[i])
                ms = evs[i].elapsed_time(evs[i + 1])
                w.writerow(["launch", i, f"{t:.3f}", f"{ms:.5f}", f"{flop / ms / 1e9:.1f}", "", ""])
            for j, (ts, mhz, pw) in enumerate(sampler.samples):
                w.writerow(["nvml", j, f"{(ts - t_host0) * 1e3:.1f}", "", "", f"{mhz:.0f}",
                            f"{pw:.1f}"])
        first = [evs[i].elapsed_time(evs[i + 1]) for i in range(1, 6)]
        last = [evs[i].elapsed_time(evs[i + 1]) for i in range(n - 200, n)]
        print(f"ramp: first launches {statistics.median(first):.3f} ms "
              f"({2 * 8192 ** 3 / statistics.median(first) / 1e9:.0f} TFLOP/s), last 200 "
              f"{statistics.median(last):.3f} ms "
              f"({2 * 8192 ** 3 / statistics.median(last) / 1e9:.0f} TFLOP/s)", flush=True)
    except Exception as exc:
        print(f"ramp failed: {type(exc).__name__}: {exc}", flush=True)
    print(f"tc_throughput done in {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
