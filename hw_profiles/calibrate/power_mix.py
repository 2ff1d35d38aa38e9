#!/usr/bin/env python3
"""Sustained SM clock against what a kernel keeps busy (issue 6; power_mix.cu).

Part `load`: synthetic loads (mma.sync only, ex2 only, FFMA only, mixes, fewer warps), each run
back to back in ~5 ms launches for LOAD_S seconds; every launch measures its own SM clock
(clock64 / %globaltimer of block 0) and how busy it kept each pipe (work per SM per cycle over
the pipe's peak: mma.sync bf16 4096 FLOP/clk/SM = the wgmma peak, 2686 = what mma.sync reaches,
compute.cu; ex2 16/clk; FFMA 128/clk). Rows: the median over the second half of the launches
(settled), NVML board power at the phase's end.
Part `duty`: the mma.sync load at kernel lengths 25 us - 3 ms under do_bench's protocol (a
256 MiB memset before each launch), for DUTY_S seconds each: the clock against the kernel's
share of the time.
Part `lib`: torch's SDPA (cuDNN d64/d128, FA2 d128, 8 x 16 x 4096) and cuBLAS bf16 8192^3 under
the same protocol, a probe kernel after each call reading the clock the kernel left: the check
against the corpus's kernels (not used to fit anything).
Part `libdur` (--parts libdur --csv power_mix_lib.csv): the probe after shorter cuBLAS GEMMs and
SDPA rows, causal ones too: the clock against a library kernel's length.
Part `triton` (--parts triton --csv power_mix_triton.csv): the probe after long Triton GEMMs of
the corpus's kernel (tests/validation/h200/triton_gemm_sweep.py) that the model calls bound by
DRAM, by the SM's path from L2 and by the tensor cores, and after plain copies from DRAM and
within L2: whether kernels that keep the memory system busy also run at a power-limited clock.
Part `probecheck` (--parts probecheck --csv power_mix_probe.csv): whether the probe sees the
clock a kernel ran at. The synthetic loads (mma, mma_ex2_16, ex2) at 0.3-3 ms under do_bench's
protocol, each followed by the probe: rows `NAME_in` give the load's own clock (block 0), rows
`NAME_after` what the probe read right after it.

Caveat (2026-11-30 run): the 4 x 256-thread blocks per SM did not all fit at once, so block 0's
work per cycle (tc, sfu, fma) overstates the kernel's utilisation; its sm_mhz is exact.

Usage: python3 power_mix.py --out DIR      (~40 s on the H200 plus the nvcc build)
"""
import argparse
import ctypes
import csv
import os
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envinfo import header_lines  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LOAD_S = 0.6
DUTY_S = 0.4
LIB_S = 0.8


class Nvml:
    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libnvidia-ml.so.1")
            self.lib.nvmlInit_v2()
            self.h = ctypes.c_void_p()
            self.lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(self.h))
        except OSError:
            self.lib = None

    def power_w(self):
        if not self.lib:
            return float("nan")
        mw = ctypes.c_uint()
        self.lib.nvmlDeviceGetPowerUsage(self.h, ctypes.byref(mw))
        return mw.value / 1000.0

    def sm_mhz(self):
        if not self.lib:
            return float("nan")
        c = ctypes.c_uint()
        self.lib.nvmlDeviceGetClockInfo(self.h, 1, ctypes.byref(c))  # NVML_CLOCK_SM
        return float(c.value)


class Lib:
    def __init__(self, build):
        so = os.path.join(build, "libpower_mix.so")
        subprocess.run(["nvcc", "-O3", "-arch=sm_90a", "-shared", "-Xcompiler", "-fPIC", "-o", so,
                        os.path.join(HERE, "power_mix.cu")], check=True)
        self.lib = ctypes.CDLL(so)
        assert self.lib.pm_init() == 0
        self.slot = 0

    def stream(self):
        return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

    def load(self, chains, n_mma, n_ex2, n_fma, blocks, threads, iters):
        s = self.slot
        rc = self.lib.pm_load(chains, n_mma, n_ex2, n_fma, blocks, threads, ctypes.c_longlong(iters), s,
                              self.stream())
        assert rc == 0, rc
        self.slot += 1
        return s

    def probe(self):
        s = self.slot
        assert self.lib.pm_probe(s, self.stream()) == 0
        self.slot += 1
        return s

    def read(self, slots):
        n = max(slots) + 1
        cyc = (ctypes.c_longlong * n)()
        ns = (ctypes.c_ulonglong * n)()
        assert self.lib.pm_read(n, cyc, ns) == 0
        return [(cyc[i], ns[i]) for i in slots]

    def reset(self):
        torch.cuda.synchronize()
        self.slot = 0


# name, chains, n_mma (per warp), n_ex2, n_fma (per thread), blocks per SM, threads
LOADS = [
    ("spin", 4, 0, 0, 0, 4, 256),
    ("fma", 4, 0, 0, 64, 4, 256),
    ("ex2", 4, 0, 32, 0, 4, 256),
    ("ex2_fma", 4, 0, 16, 32, 4, 256),
    ("mma", 4, 16, 0, 0, 4, 256),
    ("mma_ex2_8", 4, 16, 8, 0, 4, 256),
    ("mma_ex2_16", 4, 16, 16, 0, 4, 256),
    ("mma_ex2_32", 4, 16, 32, 0, 4, 256),
    ("mma_fma_16", 4, 16, 0, 16, 4, 256),
    ("mma_ch1_w4", 1, 16, 0, 0, 1, 128),
    ("mma_ch2_w4", 2, 16, 0, 0, 1, 128),
    ("mma_ch4_w4", 4, 16, 0, 0, 1, 128),
    ("mma_ch1_w4_ex2_8", 1, 16, 8, 0, 1, 128),
]


def mhz(rec):
    return rec[0] / rec[1] * 1e3 if rec[1] else float("nan")


def shares(load, iters, rec, sms):
    _, ch, n_mma, n_ex2, n_fma, bps, thr = load
    warps_per_sm = bps * thr // 32
    cyc = rec[0]
    tc = n_mma * 4096.0 * warps_per_sm * iters / cyc / 4096.0 if n_mma else 0.0
    sfu = n_ex2 * bps * thr * iters / cyc / 16.0
    fma = n_fma * bps * thr * iters / cyc / 128.0
    return tc, sfu, fma


def calibrate_iters(lib, load, target_ms, sms):
    _, ch, n_mma, n_ex2, n_fma, bps, thr = load
    iters = 64
    for _ in range(8):
        lib.reset()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        lib.load(ch, n_mma, n_ex2, n_fma, bps * sms, thr, iters)
        e.record()
        torch.cuda.synchronize()
        ms = s.elapsed_time(e)
        if ms > 0.5:
            break
        iters *= 8
    return max(1, int(iters * target_ms / ms))


def part_load(lib, nvml, sms, w):
    for load in LOADS:
        name, ch, n_mma, n_ex2, n_fma, bps, thr = load
        iters = calibrate_iters(lib, load, 5.0, sms)
        torch.cuda.synchronize()
        time.sleep(0.3)  # cool down between phases
        lib.reset()
        slots = []
        t0 = time.time()
        while time.time() - t0 < LOAD_S:
            slots.append(lib.load(ch, n_mma, n_ex2, n_fma, bps * sms, thr, iters))
            if len(slots) % 8 == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        power = nvml.power_w()
        nv_mhz = nvml.sm_mhz()
        recs = lib.read(slots)
        late = recs[len(recs) // 2:]
        clocks = sorted(mhz(r) for r in late)
        first = mhz(recs[0])
        med = late[len(late) // 2]
        tc, sfu, fma = shares(load, iters, med, sms)
        row = [name, "load", bps * sms, thr, ch, n_mma, n_ex2, n_fma, iters, f"{med[1] / 1e3:.1f}", len(recs),
               f"{first:.0f}", f"{statistics.median(clocks):.0f}", f"{clocks[len(clocks) // 10]:.0f}",
               f"{tc:.3f}", f"{sfu:.3f}", f"{fma:.3f}", f"{power:.1f}", f"{nv_mhz:.0f}"]
        w.writerow(row)
        print(*row, flush=True)


def part_duty(lib, nvml, sms, w):
    flush = torch.empty(256 * 2**20, dtype=torch.int8, device="cuda")
    for name in ("mma", "mma_ex2_16"):
        load = next(x for x in LOADS if x[0] == name)
        _, ch, n_mma, n_ex2, n_fma, bps, thr = load
        per_ms = calibrate_iters(lib, load, 1.0, sms)
        for us in (25, 100, 300, 1000, 3000):
            iters = max(1, int(per_ms * us / 1000.0))
            torch.cuda.synchronize()
            time.sleep(0.3)
            lib.reset()
            slots = []
            t0 = time.time()
            while time.time() - t0 < DUTY_S:
                flush.zero_()
                slots.append(lib.load(ch, n_mma, n_ex2, n_fma, bps * sms, thr, iters))
                if len(slots) % 8 == 0:
                    torch.cuda.synchronize()
            torch.cuda.synchronize()
            power = nvml.power_w()
            recs = lib.read(slots)
            late = recs[len(recs) // 2:]
            clocks = sorted(mhz(r) for r in late)
            med = late[len(late) // 2]
            tc, sfu, fma = shares(load, iters, med, sms)
            row = [f"{name}_{us}us", "duty", bps * sms, thr, ch, n_mma, n_ex2, n_fma, iters,
                   f"{med[1] / 1e3:.1f}", len(recs), f"{mhz(recs[0]):.0f}", f"{statistics.median(clocks):.0f}",
                   f"{clocks[len(clocks) // 10]:.0f}", f"{tc:.3f}", f"{sfu:.3f}", f"{fma:.3f}", f"{power:.1f}",
                   f"{nvml.sm_mhz():.0f}"]
            w.writerow(row)
            print(*row, flush=True)


def part_probecheck(lib, nvml, sms, w):
    flush = torch.empty(256 * 2**20, dtype=torch.int8, device="cuda")
    for name in ("mma", "mma_ex2_16", "ex2"):
        load = next(x for x in LOADS if x[0] == name)
        _, ch, n_mma, n_ex2, n_fma, bps, thr = load
        per_ms = calibrate_iters(lib, load, 1.0, sms)
        for us in (300, 1000, 3000):
            iters = max(1, int(per_ms * us / 1000.0))
            torch.cuda.synchronize()
            time.sleep(0.3)
            lib.reset()
            pairs = []
            t0 = time.time()
            while time.time() - t0 < DUTY_S:
                flush.zero_()
                pairs.append((lib.load(ch, n_mma, n_ex2, n_fma, bps * sms, thr, iters), lib.probe()))
                if len(pairs) % 8 == 0:
                    torch.cuda.synchronize()
            torch.cuda.synchronize()
            power = nvml.power_w()
            late = pairs[len(pairs) // 2:]
            for part, idx in (("in", 0), ("after", 1)):
                recs = lib.read([p[idx] for p in late])
                clocks = sorted(mhz(r) for r in recs)
                med = recs[len(recs) // 2]
                row = [f"{name}_{us}us_{part}", "probecheck", bps * sms, thr, ch, n_mma, n_ex2, n_fma, iters,
                       f"{med[1] / 1e3:.1f}", len(recs), "", f"{statistics.median(clocks):.0f}",
                       f"{clocks[len(clocks) // 10]:.0f}", "", "", "", f"{power:.1f}", f"{nvml.sm_mhz():.0f}"]
                w.writerow(row)
                print(*row, flush=True)


def sdpa_case(backend, b, h, s, d, causal):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    be = SDPBackend.CUDNN_ATTENTION if backend == "cudnn" else SDPBackend.FLASH_ATTENTION

    def call():
        with sdpa_kernel(be):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return (f"sdpa_{backend}_d{d}_{b}x{h}x{s}" + ("_causal" if causal else ""), call)


def gemm_case(n):
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    return (f"cublas_bf16_{n}", lambda: torch.matmul(a, b))


def part_lib(lib, nvml, w):
    cases = [sdpa_case(be, 8, 16, 4096, d, False) for be, d in
             (("cudnn", 128), ("cudnn", 64), ("flash", 128), ("flash", 64))]
    cases += [gemm_case(8192), ("flush_only", lambda: None)]
    run_lib(lib, nvml, w, cases)


# Part `libdur`: the same probe on shorter library kernels (the clock against a kernel's length
# under do_bench's protocol) and on causal rows.
def part_libdur(lib, nvml, w):
    cases = [gemm_case(n) for n in (2048, 4096)]
    cases += [sdpa_case("cudnn", 8, 16, 4096, 128, True), sdpa_case("cudnn", 4, 32, 2048, 128, False),
              sdpa_case("cudnn", 4, 32, 2048, 128, True), sdpa_case("cudnn", 1, 32, 1024, 128, False),
              sdpa_case("flash", 4, 32, 2048, 128, False), sdpa_case("flash", 1, 32, 1024, 128, False),
              ("flush_only", lambda: None)]
    run_lib(lib, nvml, w, cases)


# Part `triton`: long corpus-kernel GEMMs and plain copies (none of it fits anything by itself).
TRITON_CASES = [  # M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, stages, warps
    (8192, 8192, 8192, 128, 64, 128, 8, 2, 4), (4096, 4096, 14336, 128, 64, 128, 8, 2, 4),
    (4096, 4096, 4096, 128, 64, 128, 8, 2, 4), (4096, 28672, 8192, 64, 128, 32, 1, 3, 4),
    (8192, 8192, 28672, 64, 64, 32, 1, 5, 8), (8192, 8192, 8192, 128, 256, 64, 8, 3, 8),
    (8192, 8192, 8192, 128, 128, 32, 8, 4, 8), (4096, 4096, 4096, 128, 256, 64, 8, 3, 8),
]


def triton_case(cfg):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))
    import triton
    from triton_gemm_sweep import matmul_kernel, operands
    M, N, K, bm, bn, bk, g, st, wp = cfg
    a, b, c = operands(M, N, K, "bf16")
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)

    def call():
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=g, num_stages=st, num_warps=wp)
    return ("triton_" + "x".join(str(v) for v in cfg[:3]) + "_" + "x".join(str(v) for v in cfg[3:6]) +
            f"_g{g}_s{st}_w{wp}", call)


def copy_case(mib, repeats):
    x = torch.empty(mib * 2**20, dtype=torch.int8, device="cuda")
    y = torch.empty_like(x)

    def call():
        for _ in range(repeats):
            y.copy_(x)
    return (f"copy_{mib}MiB_x{repeats}", call)


def part_triton(lib, nvml, w):
    run_lib(lib, nvml, w, [triton_case(c) for c in TRITON_CASES] +
            [copy_case(2048, 1), copy_case(16, 200), ("flush_only", lambda: None)])


def run_lib(lib, nvml, w, cases):
    flush = torch.empty(256 * 2**20, dtype=torch.int8, device="cuda")
    for name, call in cases:
        call()
        torch.cuda.synchronize()
        time.sleep(0.3)
        lib.reset()
        slots = []
        ev = []
        t0 = time.time()
        while time.time() - t0 < LIB_S:
            flush.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            call()
            e.record()
            ev.append((s, e))
            slots.append(lib.probe())
            if len(slots) % 8 == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        power = nvml.power_w()
        recs = lib.read(slots)
        late = recs[len(recs) // 2:]
        clocks = sorted(mhz(r) for r in late)
        times = sorted(s.elapsed_time(e) * 1e3 for s, e in ev[len(ev) // 2:])
        row = [name, "lib", "", "", "", "", "", "", "", f"{statistics.median(times):.1f}", len(recs),
               f"{mhz(recs[0]):.0f}", f"{statistics.median(clocks):.0f}", f"{clocks[len(clocks) // 10]:.0f}",
               "", "", "", f"{power:.1f}", f"{nvml.sm_mhz():.0f}"]
        w.writerow(row)
        print(*row, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "h200"))
    ap.add_argument("--parts", default="load,duty,lib")
    ap.add_argument("--csv", default="power_mix.csv")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    build = "/tmp/power_mix_build"
    os.makedirs(build, exist_ok=True)
    lib = Lib(build)
    nvml = Nvml()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    path = os.path.join(args.out, args.csv)
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/power_mix.py", {
            "method": "sm_mhz = clock64 / %globaltimer of block 0 per launch (load, duty) or of a probe kernel "
                      "launched right after each library call (lib); median (and 10th percentile) over the second "
                      "half of the phase; tc = mma.sync FLOP per SM-cycle / 4096 (the wgmma bf16 peak), sfu = ex2 "
                      "per SM-cycle / 16, fma = FFMA per SM-cycle / 128, from the median launch; power_w and "
                      "nvml_mhz from NVML at the phase's end; duty and lib phases zero a 256 MiB buffer before "
                      "each launch (do_bench's flush)"}))
        w = csv.writer(f)
        w.writerow(["name", "part", "blocks", "threads", "chains", "n_mma", "n_ex2", "n_fma", "iters", "kernel_us",
                    "launches", "first_mhz", "sm_mhz", "sm_mhz_p10", "tc", "sfu", "fma", "power_w", "nvml_mhz"])
        for part in args.parts.split(","):
            t = time.time()
            {"load": lambda: part_load(lib, nvml, sms, w), "duty": lambda: part_duty(lib, nvml, sms, w),
             "lib": lambda: part_lib(lib, nvml, w), "libdur": lambda: part_libdur(lib, nvml, w),
             "triton": lambda: part_triton(lib, nvml, w),
             "probecheck": lambda: part_probecheck(lib, nvml, sms, w)}[part]()
            f.flush()
            print(f"part {part}: {time.time() - t:.1f} s", flush=True)


if __name__ == "__main__":
    main()
