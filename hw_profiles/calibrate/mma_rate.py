#!/usr/bin/env python3
"""Tensor-core rate of Triton's wgmma loop per tile shape, with no global loads in the loop.

Each program loads one BLOCK_M x BLOCK_K tile of A and one BLOCK_K x BLOCK_N tile of B once,
then runs `acc = tl.dot(a, b, acc)` ITERS times (the operands stay in shared memory, so the
loop is the MMAs, their operand reads from shared memory and the loop's own overhead), and
stores the accumulator. Grids of 132 x R programs (R = 1, 2 resident per SM where they fit).
Per config: the time per iteration per SM and the rate as a share of the bf16 peak at the
clock read during the run (4096 FLOP per SM-clock, the wgmma peak), plus HGMMA facts of the
SASS (instruction shape, whether A comes from shared memory).

Usage: python3 mma_rate.py --out DIR [--dtype fp8] [--layout nt]
Output: DIR/mma_rate.csv (DIR/mma_rate_fp8.csv: e4m3 operands, B stored N x K as the fp8
corpus stores it; DIR/mma_rate_nt.csv: bf16 with B stored N x K; `serialized` says whether
ptxas serialised the loop's wgmma, warning C7515)
"""
import argparse
import csv
import os
import re
import subprocess
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


@triton.jit
def mma_loop(a_ptr, b_ptr, c_ptr, iters, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             BLOCK_K: tl.constexpr, B_KMAJOR: tl.constexpr = False):
    pid = tl.program_id(0)
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])
    if B_KMAJOR:
        b = tl.load(b_ptr + rn[None, :] * BLOCK_K + rk[:, None])
    else:
        b = tl.load(b_ptr + rk[:, None] * BLOCK_N + rn[None, :])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(iters):
        acc = tl.dot(a, b, acc)
    c = c_ptr + pid * BLOCK_M * BLOCK_N + rm[:, None] * BLOCK_N + rn[None, :]
    tl.store(c, acc.to(tl.bfloat16))


TILES = [(64, 64, 32), (64, 64, 64), (64, 64, 128), (64, 128, 32), (64, 128, 64), (64, 256, 32),
         (64, 256, 64), (128, 64, 32), (128, 64, 64), (128, 64, 128), (128, 128, 32), (128, 128, 64),
         (128, 256, 32), (128, 256, 64), (256, 64, 32), (256, 64, 64), (256, 128, 32), (256, 128, 64)]


def sass_facts(kernel):
    try:
        path = "/tmp/mma_rate.cubin"
        open(path, "wb").write(kernel.asm["cubin"])
        sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True).stdout
    except Exception:
        return "", -1
    shapes = sorted(set(re.findall(r"[HQ]GMMA\.(\d+x\d+x\d+)", sass)))
    return "/".join(shapes), len(re.findall(r"[HQ]GMMA", sass))


def serialized(kernel):
    """1 where ptxas serialises the wgmma (its C7515 warning on Triton's PTX), 0 if not, -1 unknown."""
    try:
        open("/tmp/mma_rate.ptx", "w").write(kernel.asm["ptx"])
        r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", "/tmp/mma_rate.ptx", "-o", "/tmp/mma_rate_ptxas.cubin"],
                           capture_output=True, text=True)
        return int("C7515" in r.stdout + r.stderr)
    except Exception:
        return -1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", default="bf16", choices=("bf16", "fp8"))
    ap.add_argument("--layout", default="nn", choices=("nn", "nt"), help="nt: B stored N x K (fp8: always)")
    args = ap.parse_args()
    fp8 = args.dtype == "fp8"
    kmajor = fp8 or args.layout == "nt"
    os.makedirs(args.out, exist_ok=True)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    iters = 4096
    rows = []
    tiles = TILES + ([(64, 256, 128), (128, 128, 128), (128, 256, 128), (256, 64, 128)] if kmajor else [])
    for (bm, bn, bk) in tiles:
        for warps in (4, 8):
            if fp8:
                a = torch.randn(bm, bk, device="cuda").to(torch.float8_e4m3fn)
                b = torch.randn(bn, bk, device="cuda").to(torch.float8_e4m3fn)
            else:
                a = torch.randn(bm, bk, device="cuda", dtype=torch.bfloat16)
                b = torch.randn(bn if kmajor else bk, bk if kmajor else bn, device="cuda", dtype=torch.bfloat16)
            for r in (1, 2, 4):
                grid = sms * r
                c = torch.empty(grid * bm * bn, device="cuda", dtype=torch.bfloat16)
                try:
                    k = mma_loop[(grid,)](a, b, c, iters, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, B_KMAJOR=kmajor,
                                          num_warps=warps)
                    torch.cuda.synchronize()
                    fn = lambda: mma_loop[(grid,)](a, b, c, iters, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                                   B_KMAJOR=kmajor, num_warps=warps)
                    # two iteration counts: their difference has no launch, prologue or store
                    t_full = triton.testing.do_bench(fn, warmup=5, rep=40, return_mode="median")
                    fn_half = lambda: mma_loop[(grid,)](a, b, c, iters // 2, BLOCK_M=bm, BLOCK_N=bn,
                                                        BLOCK_K=bk, B_KMAJOR=kmajor, num_warps=warps)
                    t_half = triton.testing.do_bench(fn_half, warmup=5, rep=40, return_mode="median")
                except Exception as exc:  # out of resources
                    print(f"skip {bm}x{bn}x{bk} w{warps} r{r}: {type(exc).__name__}", flush=True)
                    continue
                per_iter_us = (t_full - t_half) * 1e3 / (iters - iters // 2)
                # per SM: r programs each run one iteration in per_iter_us (if they are resident at once)
                flops_per_sm_iter = 2.0 * bm * bn * bk * r
                tflops = flops_per_sm_iter * sms / (per_iter_us * 1e-6) / 1e12
                shapes, n_hgmma = sass_facts(k)
                row = dict(block_m=bm, block_n=bn, block_k=bk, warps=warps, per_sm=r, grid=grid,
                           n_regs=k.n_regs, smem_bytes=k.metadata.shared, us_per_iter=round(per_iter_us, 5),
                           tflops=round(tflops, 1), hgmma=shapes, hgmma_count=n_hgmma,
                           ms_full=round(t_full, 4), ms_half=round(t_half, 4))
                if kmajor:
                    row["serialized"] = serialized(k)
                rows.append(row)
                print(row, flush=True)
    name = "mma_rate_fp8.csv" if fp8 else "mma_rate_nt.csv" if kmajor else "mma_rate.csv"
    with open(os.path.join(args.out, name), "w", newline="") as f:
        from envinfo import header_lines
        f.write(header_lines("hw_profiles/calibrate/mma_rate.py",
                             {"method": "per-iteration time = (t(4096 iterations) - t(2048)) / 2048, "
                                        "do_bench medians; tflops over all SMs at r programs per SM",
                              "dtype": args.dtype, "b_layout": "N x K" if kmajor else "K x N"}))
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
