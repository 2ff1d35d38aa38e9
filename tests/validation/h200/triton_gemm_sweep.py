#!/usr/bin/env python3
"""Triton GEMM tile-config corpus on the H200 (ground truth for TileSight's `gemm` template).

Kernel: the matmul of Triton's tutorial 03 (grouped launch order with GROUP_M, K-masked
loads, rows/cols wrapped with `% M` / `% N` and masked store at the edges), bf16 in, fp32
accumulate, bf16 out; A row-major MxK, B row-major KxN, C row-major MxN. With --dtype fp16
the same in fp16 (fp16 out); with --dtype fp8, e4m3 in and bf16 out, and B stored NxK
(K contiguous, the tutorial's `b.T` for fp8 on Hopper: layout column "nt"). --layout nt stores
B so in bf16/fp16 too (a Linear layer's x @ W.T).

Every shape runs the same list of tile configs (a fixed-seed sample of
BLOCK_M/N in {64,128,256}, BLOCK_K in {32,64,128}, GROUP_M in {1,8}, num_stages 2..5,
num_warps 4/8). Each point: one launch checked against torch.matmul (rel_err column),
then triton.testing.do_bench(warmup, rep, return_mode="median") on torch.randn data
(do_bench flushes L2 before every timed launch). Registers, spills and shared memory are
read from the compiled kernel. Configs that fail to compile/launch go to *_skips.csv.

Compilation is done first in parallel worker processes (Triton's on-disk cache is then
hit by the timing process), so the timed sweep is not held up by the compiler.

Usage: python3 triton_gemm_sweep.py --out DIR [--budget-s 270] [--configs 58]
       [--shapes 8192x8192x8192,... --name triton_gemm_repeat]   (re-time a subset)
"""
import argparse
import csv
import itertools
import math
import os
import random
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
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
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# (M, N, K) in priority order (the sweep stops at its time budget, so keep the most
# important shapes first).
SHAPES = [
    # square
    (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
    # LLM layer shapes, M = 4096 tokens
    (4096, 14336, 4096), (4096, 4096, 14336), (4096, 28672, 8192), (4096, 1024, 8192),
    # skinny M (decode-like)
    (16, 4096, 4096), (64, 4096, 8192), (128, 8192, 8192),
    # skinny N
    (4096, 16, 4096), (8192, 64, 4096), (8192, 128, 8192),
    # deep K
    (1024, 1024, 16384), (2048, 2048, 32768),
    # non-divisible edges
    (3000, 5000, 2048), (2500, 7000, 3000),
    # L2 / grouping study shapes
    (1024, 28672, 8192), (8192, 8192, 28672),
]

SMEM_LIMIT = 232448  # 227 KiB, the H200's per-block opt-in maximum


def all_configs():
    out = []
    for bm, bn, bk, gm, st, w in itertools.product((64, 128, 256), (64, 128, 256),
                                                   (32, 64, 128), (1, 8), (2, 3, 4, 5),
                                                   (4, 8)):
        out.append(dict(block_m=bm, block_n=bn, block_k=bk, group_m=gm, stages=st, warps=w))
    return out


def plausible(c, elem_bytes=2):
    """Configs worth sampling: fits shared memory (Triton keeps stages A+B tiles of
    elem_bytes elements) and at most 256 fp32 accumulators per thread (256x256 with 4 warps
    would spill hundreds of registers and take minutes per shape)."""
    smem = c["stages"] * (c["block_m"] * c["block_k"] + c["block_k"] * c["block_n"]) * elem_bytes
    acc_per_thread = c["block_m"] * c["block_n"] / (32 * c["warps"])
    return smem <= SMEM_LIMIT and acc_per_thread <= 256


def sample_configs(n, seed=0, elem_bytes=2):
    cands = [c for c in all_configs() if plausible(c, elem_bytes)]
    rng = random.Random(seed)
    # Stratify: make sure every (block_m, block_n) pair appears, then fill at random.
    chosen = []
    pairs = sorted({(c["block_m"], c["block_n"]) for c in cands})
    for p in pairs:
        sub = [c for c in cands if (c["block_m"], c["block_n"]) == p]
        for c in rng.sample(sub, min(2, len(sub))):
            chosen.append(c)
    rest = [c for c in cands if c not in chosen]
    chosen += rng.sample(rest, max(0, n - len(chosen)))
    chosen = chosen[:n]
    chosen.sort(key=lambda c: (c["block_m"], c["block_n"], c["block_k"], c["group_m"],
                               c["stages"], c["warps"]))
    return chosen


def operands(M, N, K, dtype, layout="nn"):
    """A (MxK), B (KxN; a transposed view of an NxK tensor for fp8 or layout "nt") and C."""
    if dtype == "fp8":
        f8 = torch.float8_e4m3fn
        a = torch.randn(M, K, device="cuda").to(f8)
        b = torch.randn(N, K, device="cuda").to(f8).T
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    else:
        t = torch.bfloat16 if dtype == "bf16" else torch.float16
        a = torch.randn(M, K, device="cuda", dtype=t)
        b = (torch.randn(N, K, device="cuda", dtype=t).T if layout == "nt"
             else torch.randn(K, N, device="cuda", dtype=t))
        c = torch.empty(M, N, device="cuda", dtype=t)
    return a, b, c


def launch(a, b, c, cfg):
    M, K = a.shape
    _, N = b.shape
    grid = (triton.cdiv(M, cfg["block_m"]) * triton.cdiv(N, cfg["block_n"]),)
    return matmul_kernel[grid](a, b, c, M, N, K,
                               a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                               c.stride(0), c.stride(1),
                               BLOCK_M=cfg["block_m"], BLOCK_N=cfg["block_n"],
                               BLOCK_K=cfg["block_k"], GROUP_M=cfg["group_m"],
                               num_stages=cfg["stages"], num_warps=cfg["warps"])


def kernel_info(k):
    """n_regs, n_spills, shared bytes from a CompiledKernel, tolerant of API changes."""
    regs = spills = smem = ""
    if k is None:
        return regs, spills, smem
    try:
        if hasattr(k, "_init_handles"):
            k._init_handles()
    except Exception:
        pass
    for name in ("n_regs", "num_regs"):
        v = getattr(k, name, None)
        if v is not None:
            regs = v
            break
    for name in ("n_spills", "num_spills"):
        v = getattr(k, name, None)
        if v is not None:
            spills = v
            break
    md = getattr(k, "metadata", None)
    if md is not None:
        v = md.get("shared") if isinstance(md, dict) else getattr(md, "shared", None)
        if v is not None:
            smem = v
    if smem == "":
        v = getattr(k, "shared", None)
        if v is not None:
            smem = v
    return regs, spills, smem


def spec_key(shape):
    # Triton specialises integer args on divisibility by 16 (and == 1); strides here
    # are K, N, N.
    M, N, K = shape
    return tuple((x % 16 == 0, x == 1) for x in (M, N, K))


def _compile_worker(args):
    """Runs in a spawned process: compile (by launching once) each (cfg, shape) job."""
    jobs, deadline, dtype, layout = args
    torch.cuda.set_device(0)
    done = 0
    for cfg, shape in jobs:
        if time.time() > deadline:
            break
        M, N, K = shape
        try:
            a, b, c = operands(M, N, K, dtype, layout)
            launch(a, b, c, cfg)
            torch.cuda.synchronize()
            done += 1
        except Exception:
            pass
    return done


def precompile(configs, shapes, workers, deadline, dtype, layout):
    reps = {}
    for s in shapes:
        key = spec_key(s)
        # smallest representative shape of this specialisation pattern
        if key not in reps or math.prod(s) < math.prod(reps[key]):
            reps[key] = s
    jobs = [(c, s) for s in reps.values() for c in configs]
    chunks = [jobs[i::workers] for i in range(workers)]
    import multiprocessing as mp
    ctx = mp.get_context("spawn")
    t0 = time.time()
    with ctx.Pool(workers) as pool:
        done = sum(pool.map(_compile_worker, [(ch, deadline, dtype, layout) for ch in chunks]))
    print(f"precompiled {done}/{len(jobs)} (cfg, specialisation) pairs with {workers} "
          f"workers in {time.time() - t0:.1f} s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget-s", type=float, default=270.0)
    ap.add_argument("--configs", type=int, default=58)
    ap.add_argument("--warmup", type=float, default=20.0)
    ap.add_argument("--rep", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=12)
    ap.add_argument("--no-precompile", action="store_true")
    ap.add_argument("--shapes", default="", help="comma list of MxNxK (default: SHAPES)")
    ap.add_argument("--name", default="triton_gemm", help="CSV base name")
    ap.add_argument("--dtype", default="bf16", choices=("bf16", "fp16", "fp8"))
    ap.add_argument("--layout", default="nn", choices=("nn", "nt"), help="nt: B stored NxK (fp8: always)")
    args = ap.parse_args()
    t_start = time.time()
    deadline = t_start + args.budget_s

    from envinfo import header_lines

    configs = sample_configs(args.configs, elem_bytes=1 if args.dtype == "fp8" else 2)
    shapes = SHAPES
    if args.shapes:
        shapes = [tuple(int(x) for x in t.split("x")) for t in args.shapes.split(",")]
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{args.name}.csv")
    skip_path = os.path.join(args.out, f"{args.name}_skips.csv")
    layout = ["nt"] if args.dtype == "fp8" or args.layout == "nt" else []
    hdr = header_lines("tests/validation/h200/triton_gemm_sweep.py", {
        "timing": f"triton.testing.do_bench(warmup={args.warmup}, rep={args.rep}, "
                  f"return_mode='median'), L2 flushed before each launch, torch.randn data",
        "kernel": (f"Triton tutorial-03 matmul, {args.dtype} in, fp32 acc, "
                   f"{'bf16' if args.dtype == 'fp8' else args.dtype} out, A MxK row-major, "
                   + ("B stored NxK (K contiguous, layout nt)" if layout else "B KxN row-major")),
        "configs": f"{len(configs)} configs (same list for every shape), seed 0",
    })
    cols = ["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps",
            "dtype"] + (["layout"] if layout else []) + ["ms", "tflops", "n_regs", "n_spills", "smem_bytes", "rel_err"]
    f = open(path, "w", newline="")
    f.write(hdr)
    w = csv.writer(f)
    w.writerow(cols)
    f.flush()
    fs = open(skip_path, "w", newline="")
    fs.write(hdr)
    ws = csv.writer(fs)
    ws.writerow(["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages",
                 "warps", "reason"])
    fs.flush()

    if not args.no_precompile:
        try:
            precompile(configs, shapes, args.workers, t_start + 0.45 * args.budget_s, args.dtype, args.layout)
        except Exception:
            traceback.print_exc()

    n_ok = n_skip = 0
    for shape in shapes:
        if time.time() > deadline:
            print(f"time budget reached before shape {shape}", flush=True)
            break
        M, N, K = shape
        try:
            torch.manual_seed(0)
            a, b, c = operands(M, N, K, args.dtype, args.layout)
            ref = torch.matmul(a.float(), b.float())
            ref_norm = ref.norm().item()
        except Exception as exc:
            print(f"shape {shape} setup failed: {exc}", flush=True)
            continue
        t_shape = time.time()
        best = math.inf
        for cfg in configs:
            if time.time() > deadline:
                print(f"time budget reached inside shape {shape}", flush=True)
                break
            row = [M, N, K, cfg["block_m"], cfg["block_n"], cfg["block_k"], cfg["group_m"],
                   cfg["stages"], cfg["warps"]]
            try:
                c.fill_(float("nan"))
                k = launch(a, b, c, cfg)
                torch.cuda.synchronize()
                rel = ((c.float() - ref).norm().item() / ref_norm) if ref_norm > 0 else 0.0
                if not math.isfinite(rel):
                    rel = float("inf")
                regs, spills, smem = kernel_info(k)
                ms = triton.testing.do_bench(lambda: launch(a, b, c, cfg),
                                             warmup=args.warmup, rep=args.rep,
                                             return_mode="median")
                tflops = 2.0 * M * N * K / (ms * 1e-3) / 1e12
                best = min(best, ms)
                w.writerow(row + [args.dtype] + layout + [f"{ms:.6f}", f"{tflops:.2f}", regs, spills, smem,
                                  f"{rel:.2e}"])
                f.flush()
                n_ok += 1
            except Exception as exc:
                msg = str(exc).replace("\n", " ")[:200]
                ws.writerow(row + [f"{type(exc).__name__}: {msg}"])
                fs.flush()
                n_skip += 1
                try:
                    torch.cuda.synchronize()
                except Exception:
                    pass
        print(f"shape {M}x{N}x{K}: best {best:.4f} ms "
              f"({2.0 * M * N * K / (best * 1e-3) / 1e12 if best < math.inf else 0:.0f} "
              f"TFLOP/s), {time.time() - t_shape:.1f} s", flush=True)
        del a, b, c, ref
        torch.cuda.empty_cache()
    f.close()
    fs.close()
    print(f"done: {n_ok} points, {n_skip} skipped, {time.time() - t_start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
