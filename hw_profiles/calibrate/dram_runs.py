#!/usr/bin/env python3
"""DRAM read bandwidth against the length of the contiguous runs the SMs read together.

A row-major GEMM operand tile of BLOCK_K = 32 bf16 columns reads 64 contiguous bytes from
each of its rows, and the CTAs in flight read other rows at the same columns: DRAM sees
64-byte runs a row pitch apart (dram_locality.py: such loops run 9-20% slower than the same
bytes in long runs). Here a Triton kernel streams a 1 GiB bf16 matrix (R rows x C columns,
no corpus shape) through tiles of 64 rows x W columns, each program walking its 64 rows
column chunk by column chunk (3-stage pipelined loads, summed so they are not dropped):
runs of W x 2 bytes. W = C is one long run per row. do_bench median after its L2 flush.

CSV: rows, cols, run_bytes, programs, us, gbps
Usage: python3 dram_runs.py --out DIR
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def stream_rows(x_ptr, out_ptr, C, BR: tl.constexpr, W: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BR + tl.arange(0, BR)
    cols = tl.arange(0, W)
    ptrs = x_ptr + rows[:, None] * C + cols[None, :]
    acc = tl.zeros((BR, W), dtype=tl.float32)
    for c in range(0, C // W):
        acc += tl.load(ptrs).to(tl.float32)
        ptrs += W
    tl.store(out_ptr + pid, tl.sum(acc))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from envinfo import header_lines
    with open(os.path.join(args.out, "dram_runs.csv"), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/dram_runs.py"))
        w_ = csv.writer(f)
        w_.writerow(["rows", "cols", "run_bytes", "programs", "us", "gbps"])
        for cols in (4096, 8192):
            rows = 2**29 // cols  # 1 GiB of bf16
            x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
            for w in (16, 32, 64, 128, 256):
                br = 64
                programs = rows // br
                out = torch.empty(programs, device="cuda", dtype=torch.float32)

                def fn():
                    return stream_rows[(programs,)](x, out, cols, BR=br, W=w, num_warps=4, num_stages=3)
                fn()
                t = triton.testing.do_bench(fn, warmup=5, rep=30, return_mode="median") * 1000.0
                gbps = x.numel() * 2 / (t * 1e-6) / 1e9
                row = [rows, cols, w * 2, programs, round(t, 2), round(gbps, 1)]
                w_.writerow(row)
                f.flush()
                print(*row, flush=True)
            del x
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
