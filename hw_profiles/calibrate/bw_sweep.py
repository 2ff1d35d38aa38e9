#!/usr/bin/env python3
"""Read bandwidth vs working-set size (L2 plateau, the capacity where it falls, DRAM plateau)
and device-to-device copy bandwidth.

Kernel: a persistent Triton sum-reduce (read-only; one fp32 partial vector per program)
over a float32 buffer of `bytes`, loads with cache_modifier=".cg" (L2, not L1). One launch
reads max(1 GB, bytes) (reps = passes over the set per launch), so a set that fits in L2 is
read from L2 after the first pass; launches are issued back-to-back (no cache flush) and
timed with CUDA events: gbps = bytes read per launch / time.

Also: torch copy_ of 4 GiB device-to-device (gbps counts read + write) and a read-only
pass with the default cache modifier for comparison (mode column).

Usage: python3 bw_sweep.py --out DIR [--budget-s 60]
"""
import argparse
import csv
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def read_kernel(x_ptr, out_ptr, nblk, iters, BLOCK: tl.constexpr, CG: tl.constexpr):
    # Global block index g = pid + i * nprog runs over 0 .. iters*nprog-1 exactly once;
    # block g % nblk is read, so every block of the set is read equally often and a set
    # smaller than the grid's footprint is re-read (from L2) by several programs.
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(iters):
        bb = (pid + i * nprog) % nblk
        offs = bb.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        if CG:
            x = tl.load(x_ptr + offs, cache_modifier=".cg")
        else:
            x = tl.load(x_ptr + offs)
        acc += x
    tl.store(out_ptr + pid, tl.sum(acc, axis=0))


def time_launches(fn, target_ms=25.0, repeats=5):
    """Median per-launch ms over `repeats` groups of back-to-back launches (no flush)."""
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    one = max(s.elapsed_time(e), 1e-3)
    n = max(1, min(2000, int(target_ms / one)))
    vals = []
    for _ in range(repeats):
        s.record()
        for _ in range(n):
            fn()
        e.record()
        torch.cuda.synchronize()
        vals.append(s.elapsed_time(e) / n)
    vals.sort()
    return vals[len(vals) // 2], n


def sizes():
    out = set()
    # log steps, 4 per octave, 1 MiB .. 4 GiB
    for i in range(0, 12 * 4 + 1):
        out.add(int(round(2 ** (20 + i / 4.0) / 16384)) * 16384)
    # fine 2 MB steps 24..80 MB (MB = 1e6 bytes); all sizes are multiples of 16 KiB
    # (one BLOCK of 4096 fp32)
    for mb in range(24, 81, 2):
        out.add(int(mb * 1e6) // 16384 * 16384)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget-s", type=float, default=60.0)
    args = ap.parse_args()
    t0 = time.time()
    from envinfo import header_lines

    dev = torch.cuda.get_device_properties(0)
    nsm = dev.multi_processor_count
    BLOCK = 4096
    PROGS_PER_SM = 4
    nprog = nsm * PROGS_PER_SM
    max_bytes = 4 * 2 ** 30
    buf = torch.randn(max_bytes // 4, device="cuda", dtype=torch.float32)
    out = torch.empty(nprog, device="cuda", dtype=torch.float32)

    path = os.path.join(args.out, "bw_sweep.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/bw_sweep.py", {
            "method": f"Triton persistent sum-reduce, {nprog} programs ({PROGS_PER_SM}/SM), "
                      f"BLOCK={BLOCK} fp32, num_warps=8, in-kernel reps so one launch reads "
                      "~1 GB, back-to-back launches timed by CUDA events (no flush), median "
                      "of 5; mode read_cg = ld.global.cg (L1 bypass), read_ca = default "
                      "loads; copy_d2d = torch copy_, gbps counts read+write",
        }))
        w = csv.writer(f)
        w.writerow(["mode", "bytes", "gbps", "reps", "ms_per_launch"])
        f.flush()

        # device-to-device copy, 4 GiB
        try:
            n = 2 ** 30  # floats
            src = buf[:n]
            dst = torch.empty_like(src)
            ms, _ = time_launches(lambda: dst.copy_(src), target_ms=100, repeats=5)
            gbps = 2 * n * 4 / (ms * 1e-3) / 1e9
            w.writerow(["copy_d2d", n * 4, f"{gbps:.1f}", 1, f"{ms:.5f}"])
            f.flush()
            print(f"copy_d2d 4 GiB: {gbps:.0f} GB/s (read+write)", flush=True)
            del dst
            torch.cuda.empty_cache()
        except Exception as exc:
            print(f"copy failed: {exc}", flush=True)

        for mode, cg in (("read_cg", True), ("read_ca", False)):
            szs = sizes() if mode == "read_cg" else [s for s in sizes()
                                                      if abs(math.log2(s) - round(math.log2(s))) < 1e-9]
            for nbytes in szs:
                if time.time() - t0 > args.budget_s:
                    print("bw_sweep: time budget reached", flush=True)
                    break
                try:
                    nblk = nbytes // (BLOCK * 4)
                    iters = max(1, math.ceil(max(nbytes, 1e9) / (BLOCK * 4) / nprog))
                    reps = iters * nprog / nblk  # passes over the set per launch
                    fn = lambda: read_kernel[(nprog,)](buf, out, nblk, iters,  # noqa: E731
                                                       BLOCK=BLOCK, CG=cg, num_warps=8)
                    ms, _ = time_launches(fn)
                    gbps = iters * nprog * BLOCK * 4 / (ms * 1e-3) / 1e9
                    w.writerow([mode, nbytes, f"{gbps:.1f}", f"{reps:.3f}", f"{ms:.5f}"])
                    f.flush()
                    print(f"{mode} {nbytes / 1e6:10.2f} MB  {gbps:9.1f} GB/s", flush=True)
                except Exception as exc:
                    print(f"{mode} {nbytes} failed: {exc}", flush=True)
    print(f"bw_sweep done in {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
