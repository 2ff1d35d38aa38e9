#!/usr/bin/env python3
"""The SM clock inside the corpus's Triton GEMMs, under the corpus's timing protocol.

The model holds a long tensor-core kernel to a power-limited clock (the profile's `power`
group: full rate up to short_kernel_us, falling log-linearly to sustained_fraction at
long_kernel_us). ncu's cycles come from its own replayed launch, and a probe kernel after a
call sees only the idle clock (docs/attention-model.md), so neither says what clock a
corpus GEMM ran at while do_bench timed it. This reads it inside the kernel: the corpus's
kernel (Triton tutorial 03, cta_skew.py's copy) with %clock64 and %globaltimer read at the start
and the end of every CTA; a CTA's clock is its cycles over its nanoseconds.

Protocol (triton_gemm_sweep.py's do_bench): each launch preceded by zeroing a 256 MiB buffer,
WARMUP_MS of launches untimed, then REP_MS of launches, each timed with CUDA events; nothing
synchronises between them. Every launch writes its own per-CTA slots, read back at the end.

CSV (one row a timed launch): case, M, N, K, block_m, block_n, block_k, group_m, stages, warps,
launch, event_us, span_us (first CTA start to last CTA end), clock_mhz (the CTAs' cycles over
their nanoseconds, summed), cta_cycles (mean), cta_us (mean), regs, nvml_mhz and power_w (NVML's
SM clock and board power sampled every 2 ms over the case's timed launches, medians: whether
NVML sees the clock the kernels run at, so that library kernels can be read the same way).
NVML does not see it (2026-12-02: NVML read 1980 MHz over launches that ran at 1317), so library
kernels, which cannot be instrumented, are not measured here.
--set wide: 36 more corpus configs (18 tile configs at 2-5 stages on 4096 x 4096 x 14336 and
8192^3), gemm_clock_wide.csv.
--set family: the eight 256 x 64 x 64 group-1 4-5 stage loops of ncu_lane_limit.py and the two of
8192^3 in the main set, gemm_clock_family.csv.
Usage: python3 gemm_clock.py --out DIR [--set main|wide|family]   (~15-25 s each on the H200)
       python3 gemm_clock.py --table h200/gemm_clock.csv [--cli build/bin/tilesight-cli]
           (no GPU: per case the median clock of the settled launches, its share of the
            clock of the shortest case, and the model's clock_factor and latency beside the
            corpus's time)
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)

# (M, N, K, block_m, block_n, block_k, group_m, stages, warps): rows of triton_gemm.csv, from
# the short (the clock's reference) to the long ones the model calls bound by the tensor
# cores, by the L2 lane and by DRAM at once.
CASES = [(1024, 1024, 1024, 128, 128, 64, 8, 5, 4), (2048, 2048, 2048, 128, 128, 64, 8, 5, 4),
         (4096, 4096, 4096, 128, 128, 64, 8, 5, 4), (4096, 4096, 14336, 128, 128, 64, 8, 5, 4),
         (8192, 8192, 8192, 128, 128, 64, 8, 5, 4), (4096, 28672, 8192, 128, 128, 64, 8, 5, 4),
         (4096, 4096, 14336, 128, 128, 64, 1, 5, 4), (8192, 8192, 8192, 128, 128, 64, 1, 5, 4),
         (4096, 4096, 4096, 64, 256, 64, 8, 5, 8), (4096, 4096, 14336, 64, 256, 64, 8, 5, 8),
         (8192, 8192, 8192, 64, 256, 64, 8, 5, 8), (4096, 4096, 14336, 256, 64, 64, 1, 4, 4),
         (8192, 8192, 8192, 256, 64, 64, 1, 4, 4), (8192, 8192, 8192, 256, 64, 64, 1, 5, 4),
         (4096, 4096, 14336, 128, 64, 128, 8, 3, 8), (8192, 8192, 8192, 128, 64, 128, 8, 3, 8),
         (8192, 8192, 8192, 256, 128, 64, 8, 4, 4), (4096, 4096, 14336, 64, 64, 32, 1, 2, 4),
         (8192, 8192, 8192, 64, 64, 32, 1, 2, 4), (8192, 8192, 8192, 128, 64, 32, 1, 2, 4),
         (8192, 8192, 8192, 64, 128, 32, 1, 5, 4), (8192, 128, 8192, 128, 64, 32, 1, 2, 4),
         (128, 8192, 8192, 64, 128, 64, 8, 5, 8), (1024, 1024, 16384, 128, 128, 64, 8, 5, 4)]
WIDE_CASES = [(M, N, K, bm, bn, bk, g, s, w) for (M, N, K) in [(4096, 4096, 14336), (8192, 8192, 8192)]
              for (bm, bn, bk, g, s, w) in [(64, 64, 32, 1, 5, 8), (64, 128, 32, 1, 3, 4), (64, 128, 64, 8, 5, 8),
                                            (64, 256, 64, 1, 2, 4), (128, 64, 64, 1, 3, 8), (128, 128, 32, 1, 4, 8),
                                            (128, 128, 64, 1, 2, 8), (128, 256, 64, 8, 2, 4), (256, 64, 32, 8, 3, 4),
                                            (256, 128, 32, 8, 5, 8), (64, 64, 128, 1, 3, 4), (128, 64, 128, 8, 4, 8),
                                            (64, 128, 32, 1, 4, 8), (256, 64, 64, 8, 5, 4), (128, 256, 32, 8, 4, 8),
                                            (64, 64, 64, 8, 3, 4), (128, 64, 32, 8, 3, 8), (64, 256, 32, 8, 2, 8)]]
# --set family: the 256 x 64 x 64 group-1 loops at 4-5 stages that run 12-18% slower in the corpus
# than the model's lanes allow with ncu's merges, and 1.17-1.22x their ncu time on the large shapes
# (docs/cache-model.md, "The family under ncu's breakdowns on the H200"): the clock they run at.
FAMILY_CASES = [(M, N, K, 256, 64, 64, 1, s, 4) for (M, N, K) in [(8192, 8192, 28672), (4096, 28672, 8192),
                                                                  (12288, 12288, 4096), (4096, 4096, 14336)]
                for s in (4, 5)] + [(8192, 8192, 8192, 256, 64, 64, 1, s, 4) for s in (4, 5)]  # gemm_clock.csv's, again
FIELDS = ["case", "M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps", "launch",
          "event_us", "span_us", "clock_mhz", "cta_cycles", "cta_us", "regs", "nvml_mhz", "power_w"]


class Sampler:
    """NVML's SM clock and board power every 2 ms on a thread of its own, between start() and stop()."""

    def __init__(self):
        import threading
        from power_mix import Nvml
        self.nvml, self.threading, self.samples = Nvml(), threading, []

    def start(self):
        self.samples, self.running = [], True

        def run():
            import time
            while self.running:
                self.samples.append((self.nvml.sm_mhz(), self.nvml.power_w()))
                time.sleep(0.002)
        self.thread = self.threading.Thread(target=run, daemon=True)
        self.thread.start()

    def stop(self):
        self.running = False
        self.thread.join()
        if not self.samples:
            return float("nan"), float("nan")
        return (statistics.median(m for m, _ in self.samples), statistics.median(p for _, p in self.samples))


def timed_calls(call, flush, warmup_ms, rep_ms, sampler):
    """do_bench's protocol around `call(r)` (r: the timed launch's index; no argument untimed): the
    per-launch times (us), NVML's median clock and power over the timed launches."""
    import torch
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    call()
    torch.cuda.synchronize()
    flush.zero_()
    e0.record()
    call()
    e1.record()
    torch.cuda.synchronize()
    one_ms = max(e0.elapsed_time(e1), 0.005)
    for _ in range(max(1, int(warmup_ms / one_ms))):
        flush.zero_()
        call()
    n = max(4, min(400, int(rep_ms / one_ms)))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    sampler.start()
    for r in range(n):
        flush.zero_()
        starts[r].record()
        call(r)
        ends[r].record()
    torch.cuda.synchronize()
    mhz, watts = sampler.stop()
    return [s.elapsed_time(e) * 1000 for s, e in zip(starts, ends)], mhz, watts


def measure(out_dir, warmup_ms, rep_ms, cases=CASES, name="gemm_clock.csv"):
    import torch
    import triton
    import triton.language as tl
    from cta_skew import _globaltimer

    @triton.jit
    def _clock():
        return tl.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)

    @triton.jit
    def clocked_matmul_kernel(a_ptr, b_ptr, c_ptr, t_ptr, M, N, K,
                              stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                              GROUP_M: tl.constexpr):
        t0 = _globaltimer()
        c0 = _clock()
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c = accumulator.to(tl.bfloat16)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))
        c1 = _clock()
        t1 = _globaltimer()
        tl.store(t_ptr + pid * 4, t0)
        tl.store(t_ptr + pid * 4 + 1, t1)
        tl.store(t_ptr + pid * 4 + 2, c0)
        tl.store(t_ptr + pid * 4 + 3, c1)

    from envinfo import header_lines
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    sampler = Sampler()
    path = os.path.join(out_dir, name)
    with open(path, "w", newline="") as f:
        f.write(header_lines("gemm_clock.py"))
        w = csv.writer(f)
        w.writerow(FIELDS)
        for i, (M, N, K, bm, bn, bk, gm, st, wp) in enumerate(cases):
            a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)

            def launch(t):
                return clocked_matmul_kernel[(tiles,)](a, b, c, t, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                       b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn,
                                                       BLOCK_K=bk, GROUP_M=gm, num_stages=st, num_warps=wp)
            scratch = torch.zeros(tiles * 4, device="cuda", dtype=torch.int64)
            kernel = launch(scratch)
            torch.cuda.synchronize()
            slots = torch.zeros(400, tiles * 4, device="cuda", dtype=torch.int64)  # timed_calls makes at most 400
            times, mhz, watts = timed_calls(lambda r=None: launch(scratch if r is None else slots[r]), flush,
                                            warmup_ms, rep_ms, sampler)
            n_rep = len(times)
            v = slots[:n_rep].view(n_rep, tiles, 4).cpu()
            for r in range(n_rep):
                t0, t1, c0, c1 = (v[r, :, j].double() for j in range(4))
                ns, cyc = (t1 - t0), (c1 - c0)
                w.writerow(["gemm", M, N, K, bm, bn, bk, gm, st, wp, r, f"{times[r]:.2f}",
                            f"{(t1.max() - t0.min()).item() / 1000:.2f}", f"{cyc.sum().item() / ns.sum().item() * 1000:.1f}",
                            f"{cyc.mean().item():.0f}", f"{ns.mean().item() / 1000:.3f}", kernel.n_regs, f"{mhz:.0f}",
                            f"{watts:.1f}"])
            med = statistics.median(times)
            clk = statistics.median(((v[r, :, 3] - v[r, :, 2]).double().sum() / (v[r, :, 1] - v[r, :, 0]).double().sum()).item()
                                    for r in range(n_rep // 2, n_rep)) * 1000
            print(f"{i:2d} {M}x{N}x{K} {bm}x{bn}x{bk} g{gm} s{st} w{wp}: {n_rep} launches, median {med:.1f} us, "
                  f"clock {clk:.0f} MHz (NVML {mhz:.0f}, {watts:.0f} W), regs {kernel.n_regs}", flush=True)
            f.flush()
            del a, b, c, slots, scratch
            torch.cuda.empty_cache()
    print("wrote", path)


def table(path, cli):
    """Per case: the settled launches' median clock, beside the model's power rule."""
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    key = ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps")
    cases = {}
    for r in rows:
        cases.setdefault(tuple(int(r[k]) for k in key), []).append(r)
    corpus = {}
    with open(os.path.join(ROOT, "tests", "validation", "h200", "triton_gemm.csv")) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            corpus[tuple(int(r[k]) for k in key)] = r
    med = {}
    for k, v in cases.items():
        settled = v[len(v) // 2:]
        med[k] = (statistics.median(float(r["clock_mhz"]) for r in settled),
                  statistics.median(float(r["event_us"]) for r in settled), int(v[0]["regs"]))
    ref = max(m[0] for m in med.values())
    plans = "".join(json.dumps({"kernel": "gemm", "hardware": "h200",
                                "params": {**dict(zip(key, k)), "dtype": "bf16", "registers": med[k][2]}}) + "\n"
                    for k in cases)
    out = subprocess.run([cli, "predict", "--jsonl"], input=plans, capture_output=True, text=True).stdout.splitlines()
    print(f"reference clock (the fastest case's) {ref:.0f} MHz")
    print(f"{'case':40s} {'time us':>8s} {'corpus':>8s} {'MHz':>6s} {'share':>6s} {'model':>6s} {'pred us':>8s}")
    for (k, (clk, us, _)), o in zip(med.items(), out):
        p = json.loads(o)
        c = corpus.get(k)
        name = f"{k[0]}x{k[1]}x{k[2]} {k[3]}x{k[4]}x{k[5]} g{k[6]} s{k[7]} w{k[8]}"
        print(f"{name:40s} {us:8.1f} {float(c['ms']) * 1000 if c else float('nan'):8.1f} {clk:6.0f} {clk / ref:6.3f} "
              f"{p.get('clock_factor', float('nan')):6.3f} {p.get('latency_us', float('nan')):8.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out")
    ap.add_argument("--set", choices=["main", "wide", "family"], default="main")
    ap.add_argument("--warmup-ms", type=float, default=20.0)
    ap.add_argument("--rep-ms", type=float, default=60.0)
    ap.add_argument("--table")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    args = ap.parse_args()
    if args.table:
        table(args.table, args.cli)
    elif args.out:
        os.makedirs(args.out, exist_ok=True)
        measure(args.out, args.warmup_ms, args.rep_ms,
                *{"wide": (WIDE_CASES, "gemm_clock_wide.csv"), "family": (FAMILY_CASES, "gemm_clock_family.csv"),
                  "main": (CASES, "gemm_clock.csv")}[args.set])
    else:
        ap.error("--out DIR or --table CSV")


if __name__ == "__main__":
    main()
