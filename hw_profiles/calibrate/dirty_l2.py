#!/usr/bin/env python3
"""What a kernel pays for starting on an L2 full of dirty lines, as every corpus row does.

triton.testing.do_bench, the timing of all corpora in tests/validation/, zeroes a 256 MB
buffer before each timed launch: the L2 is then full of written lines, and the kernel's first
DRAM reads must evict (write back) them. This times one pass of a streaming read (bw_sweep.py's
Triton sum-reduce, each block read once, ld.global.cg) over S bytes, by CUDA events around that
launch alone, after:
  dirty  - buf.zero_() of F bytes (F = 256 MB: do_bench's flush)
  clean  - a read-only pass over another 256 MB buffer (L2 full of clean lines)
  warm   - the same read again (what an L2-sized S finds resident)
Median of 15 for each. None of these kernels is in a corpus.

CSV: condition, flush_bytes, read_bytes, us, gbps
Usage: python3 dirty_l2.py --out DIR
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

from bw_sweep import read_kernel  # noqa: E402

BLOCK = 4096


def median_after(prepare, fn, reps):
    """Median time (us) of fn alone, by CUDA events around it, each run after prepare()."""
    vals = []
    for _ in range(reps):
        prepare()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        vals.append(s.elapsed_time(e) * 1000)
    vals.sort()
    return vals[len(vals) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from envinfo import header_lines
    nsm = torch.cuda.get_device_properties(0).multi_processor_count
    nprog = nsm * 4
    x = torch.randn(512 * 2 ** 20 // 4, device="cuda", dtype=torch.float32)
    other = torch.randn(256 * 2 ** 20 // 4, device="cuda", dtype=torch.float32)
    flush = torch.empty(256 * 2 ** 20 // 4, device="cuda", dtype=torch.int32)
    out = torch.empty(nprog, device="cuda", dtype=torch.float32)

    def read(t, nbytes):
        nblk = nbytes // (4 * BLOCK)
        iters = -(-nblk // nprog)
        read_kernel[(nprog,)](t, out, nblk, iters, BLOCK=BLOCK, CG=True, num_warps=8)

    def timed(prepare, nbytes, reps=15):
        return median_after(prepare, lambda: read(x, nbytes), reps)

    path = os.path.join(args.out, "dirty_l2.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/dirty_l2.py"))
        w = csv.writer(f)
        w.writerow(["condition", "flush_bytes", "read_bytes", "us", "gbps"])
        read(x, 2 ** 20)
        read(other, 256 * 2 ** 20)
        torch.cuda.synchronize()
        rows = []
        for mb in (4, 8, 16, 32, 48, 64, 96, 128, 256, 512):
            nb = mb * 2 ** 20
            rows.append(("dirty", 256 * 2 ** 20, nb, lambda: flush.zero_()))
            rows.append(("clean", 256 * 2 ** 20, nb, lambda: read(other, 256 * 2 ** 20)))
            rows.append(("warm", 0, nb, lambda nb=nb: read(x, nb)))
        for fmb in (8, 16, 32, 48, 64, 128):
            fb = fmb * 2 ** 20
            rows.append(("dirty", fb, 256 * 2 ** 20,
                         lambda fb=fb: (read(other, 256 * 2 ** 20), flush[: fb // 4].zero_())))
        for cond, fb, nb, prep in rows:
            us = timed(prep, nb)
            w.writerow([cond, fb, nb, f"{us:.2f}", f"{nb / us / 1e3:.1f}"])
            f.flush()
            print(cond, fb >> 20, "MiB flush,", nb >> 20, "MiB read:", f"{us:.2f} us", f"{nb / us / 1e3:.0f} GB/s",
                  flush=True)


if __name__ == "__main__":
    main()
