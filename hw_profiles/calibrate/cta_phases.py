#!/usr/bin/env python3
"""A tile's fixed cost, split: the corpus's Triton GEMM kernel with %globaltimer read at the
start of each CTA, right after its k-loop (the accumulator complete) and after its store of C.

`cta_skew.py --set fixed` finds one-wave tiles of 1024x1024 taking 0.1-1.3 us longer than the
model outside their k-steps (the intercept of time against k-steps). This splits each CTA's
time into its loop (prologue, k-steps, the wait for the last MMA) and its epilogue (the
conversion and store of C): K of 1, 2, 4, 48 and 96 k-steps, eight tile configs, one cold
launch after do_bench's 256 MiB flush, three repeats.

CSV: M, N, K, block_m, block_n, block_k, group_m, stages, warps, rep, pid, smid,
     t_start_ns, t_loop_ns, t_end_ns   (relative to the earliest start of the launch)
Usage: python3 cta_phases.py --out DIR   (DIR/cta_phases.csv)
       python3 cta_phases.py --summary h200/cta_phases.csv.gz   (no GPU needed): per tile
              config, the first wave's median loop time against k-steps (least squares: fixed
              part and time per k-step) and its median epilogue
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import collections  # noqa: E402
import gzip  # noqa: E402
import statistics  # noqa: E402


def summary(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    launches = collections.defaultdict(list)
    for r in rows:
        key = tuple(int(r[k]) for k in ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps", "rep"))
        launches[key].append(tuple(int(r[k]) for k in ("t_start_ns", "t_loop_ns", "t_end_ns")))
    per_config = collections.defaultdict(lambda: collections.defaultdict(list))
    for key, ctas in launches.items():
        first_end = min(c[2] for c in ctas)
        wave = [c for c in ctas if c[0] < first_end]  # the CTAs that started before any ended
        steps = key[2] // key[5]
        per_config[key[3:9]][steps].append((statistics.median((c[1] - c[0]) / 1e3 for c in wave),
                                            statistics.median((c[2] - c[1]) / 1e3 for c in wave)))
    print("block_m,block_n,block_k,group_m,stages,warps,loop_fixed_us,us_per_k_step,epilogue_us")
    for conf, by_steps in per_config.items():
        n = sorted(by_steps)
        loop = [statistics.median(x[0] for x in by_steps[k]) for k in n]
        epi = statistics.median(x[1] for k in n for x in by_steps[k])
        mn, ml = sum(n) / len(n), sum(loop) / len(loop)
        slope = sum((a - mn) * (b - ml) for a, b in zip(n, loop)) / sum((a - mn) ** 2 for a in n)
        print(",".join(str(v) for v in conf) + f",{ml - slope * mn:.2f},{slope:.3f},{epi:.2f}")


if "--summary" not in sys.argv:
    import torch  # noqa: E402
    import triton  # noqa: E402
    import triton.language as tl  # noqa: E402

    from cta_skew import FIXED_CASES, _globaltimer, _smid  # noqa: E402
else:
    class _NoJit:  # the summary needs no GPU: the kernel below is never built
        @staticmethod
        def jit(f):
            return f
    class _NoLang:
        constexpr = int
    triton, tl = _NoJit(), _NoLang()


@triton.jit
def phased_matmul_kernel(a_ptr, b_ptr, c_ptr, t_ptr, M, N, K,
                         stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_M: tl.constexpr):
    t0 = _globaltimer()
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
    t_loop = _globaltimer()
    c = accumulator.to(tl.bfloat16)

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)
    t1 = _globaltimer()
    tl.store(t_ptr + pid * 4, t0)
    tl.store(t_ptr + pid * 4 + 1, t_loop)
    tl.store(t_ptr + pid * 4 + 2, t1)
    tl.store(t_ptr + pid * 4 + 3, _smid().to(tl.int64))


def run_case(case, writer, flush_buf):
    _, M, N, K, bm, bn, bk, gm, st, w = case
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    t = torch.zeros(tiles * 4, device="cuda", dtype=torch.int64)

    def launch():
        return phased_matmul_kernel[(tiles,)](a, b, c, t, M, N, K, a.stride(0), a.stride(1),
                                              b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                                              BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
                                              num_stages=st, num_warps=w)
    k = launch()
    torch.cuda.synchronize()
    for rep in range(3):
        flush_buf.zero_()
        t.zero_()
        launch()
        torch.cuda.synchronize()
        v = t.view(tiles, 4).cpu().tolist()
        base = min(r[0] for r in v)
        for pid, (t0, tl_, t1, sm) in enumerate(v):
            writer.writerow([M, N, K, bm, bn, bk, gm, st, w, rep, pid, sm, t0 - base, tl_ - base, t1 - base])
    print(M, N, K, f"{bm}x{bn}x{bk}", "g", gm, "s", st, "w", w, "regs", k.n_regs, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--summary")
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
        return
    if not args.out:
        ap.error("--out DIR or --summary FILE")
    from envinfo import header_lines  # noqa: E402
    flush_buf = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    with open(os.path.join(args.out, "cta_phases.csv"), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/cta_phases.py"))
        writer = csv.writer(f)
        writer.writerow(["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps", "rep",
                         "pid", "smid", "t_start_ns", "t_loop_ns", "t_end_ns"])
        for case in FIXED_CASES:
            run_case(case, writer, flush_buf)


if __name__ == "__main__":
    main()
