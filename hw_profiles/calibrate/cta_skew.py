#!/usr/bin/env python3
"""When does each CTA of a Triton GEMM start and end? Inter-SM skew against pipeline depth.

The L2 hit rate of deep-K, group-1 GEMMs collapses with the number of stages
(tests/validation/h200/l2_hit_corpus.csv: 8192x8192x28672 with 64x128x32 tiles reads 9 GB from
DRAM at 2 stages and 54 GB at 3-5). The cache model's reuse gaps depend on how far apart in
time the tiles that share a block run (docs/cache-model.md, inter-SM skew). This records it
directly: the corpus's kernel (Triton tutorial 03, same code) with %globaltimer read at the
start and the end of every CTA, plus %smid. One cold launch per case (L2 flushed by writing
a 256 MiB buffer first, as do_bench does), three repeats.

Cases: one-wave grids (2048x2048 output, 512 tiles of 64x128) at K 8192 and 32768, 2-5
stages: the spread of end times after k iterations (the random walk of the drift, and whether
a latency-bound loop holds its CTAs together); and multi-wave grids (8192x8192x28672 and
4096x4096x14336, group 1 and 8): the start times of tiles by launch position (wave width, the
gap between tiles sharing a B column).

CSV: case, M, N, K, block_m, block_n, block_k, group_m, stages, warps, rep, pid, smid,
     t_start_ns, t_end_ns   (times relative to the earliest start of the launch)
Usage: python3 cta_skew.py --out DIR          (then gzip -9 DIR/cta_skew.csv: 150k rows)
       python3 cta_skew.py --out DIR --set big   (cta_skew_big.csv: the multi-wave
              8192x8192x28672 tiles whose L2 hit rate the model misses most, 64x64 to 128x256)
       python3 cta_skew.py --out DIR --set wide  (cta_skew_wide.csv: 24 multi-wave tile configs, not the corpus's,
              on six of its shapes, 3-4 stages, 4 and 8 warps, group 1 and 8: data for a model of
              the tiles' own speeds)
       python3 cta_skew.py --out DIR --set small  (cta_skew_small.csv: the one- and two-wave 1024^3
              and 2048^3 tiles of cold_start.py, whose time the model misses by 1-2 us)
       python3 cta_skew.py --out DIR --set fixed  (cta_skew_fixed.csv: eight tile configs on
              1024x1024 with K of 1-96 k-steps: a tile's fixed cost and its iteration)
       python3 cta_skew.py --fit h200/cta_skew.csv.gz [--profile ../h200.json]   (no GPU needed)
       python3 cta_skew.py --out DIR --set heldout  (cta_skew_heldout.csv: the ten held-out many-wave
              configs whose L2 hit rate the model misses most, l2_hit_heldout.csv)
       python3 cta_skew.py --out DIR --set coherence  (cta_skew_coherence.csv: 36 group-1 many-wave
              launches, mostly 2 stages, on 8192^3, 4096x14336x4096 and 4096x28672x8192)
       python3 cta_skew.py --out DIR --set heldout5  (cta_skew_heldout5.csv: the ten configs the model
              misses most on l2_hit_heldout5.csv)
       python3 cta_skew.py --out DIR --set heldout6  (cta_skew_heldout6.csv: 2-stage group-1 loops on
              M x 16384 x 16384, M = 512-4096 (2-16 waves, one footprint), and the held-out-6 rows the
              model misses most)
       python3 cta_skew.py --out DIR --set waves  (cta_skew_waves.csv: the waves set's rows the model
              misses most, M = 2048 and 4096 x 16384 x 16384, one launch each)
       python3 cta_skew.py --gaps h200/cta_skew_big.csv.gz   (no GPU needed): per group-1 launch,
              how far apart the tiles sharing a column of B start, in iterations
       python3 cta_skew.py --widths h200/cta_skew_coherence.csv.gz   (no GPU needed): per
              multi-wave launch, the p10-p90 spread of each wave's start times, wave after wave
       python3 cta_skew.py --gpcs h200/cta_skew*.csv.gz   (no GPU needed): per many-wave launch, how far
              each GPC's SMs fall behind, and the GPCs' share of the SMs' spread
       python3 cta_skew.py --convoys h200/cta_skew*.csv.gz   (no GPU needed): per many-wave launch, whether
              neighbouring launch positions of the later waves start together on one GPC
       python3 cta_skew.py --transitions h200/cta_skew_coherence.csv.gz ...   (no GPU needed): per
              multi-wave launch, the odds a tile of a wave's core hands its SM to one past the
              L2's reach, and back
       python3 cta_skew.py --coupling h200/cta_skew*.csv.gz [--cli build/bin/tilesight-cli]   (no GPU
              needed): per group-1 2-stage launch of 3+ waves, whether the tiles sharing a column of B
              start together, against the wave's footprint over the L2 and the model's own speed
       python3 cta_skew.py --by-wave h200/cta_skew*.csv.gz [--cli build/bin/tilesight-cli]   (no GPU needed):
              per wave of those launches (2+ waves), whether its B column's tiles start together, against
              x sqrt(w): the share parted by x sqrt(w) and by x
       python3 cta_skew.py --wave-times h200/cta_skew_big.csv.gz ...   (no GPU needed): per group-1 2-stage
              launch of 2+ waves, each wave's time an iteration and its B column's start gap
       python3 cta_skew.py --out DIR --set sample  (cta_skew_sample.csv, one launch each: 130 corpus
              and held-out-4 configs of 4+ CTAs an SM drawn at random, for l2_measured_starts.py)

--fit derives the profile's `tile_rate_sd`: for each one-wave case, the relative standard
deviation of the first wave's tile times on the SMs holding the most tiles (an SM with fewer tiles gives
each a larger share of its path), against the model's queued share of a load's time in
flight (engine/src/cache/stream_shape.cpp, derived_rate_sd): 1 - (pipeline_round_trip_ns
+ dram_queue_ns) / ((stages - 1) x the resident tiles' loads of an iteration at
l2.per_sm_bandwidth). tile_rate_sd is the least-squares slope through the origin over the
cases with a queued share (3-5 stages; 2-stage loops queue nothing).
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import torch  # noqa: E402
    import triton  # noqa: E402
    import triton.language as tl  # noqa: E402
except ImportError:  # --fit needs neither
    triton = None


if triton is not None:  # the kernels (the measurement needs a GPU)
    @triton.jit
    def _globaltimer():
        return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64,
                                         is_pure=False, pack=1)


    @triton.jit
    def _smid():
        return tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=tl.int32,
                                         is_pure=True, pack=1)


    # PHASES (cta_phases.py): a third timestamp after the k-loop; per CTA t_ptr then holds
    # start, loop end, end and SM (4 slots) instead of start, end and SM (3).
    @triton.jit
    def timed_matmul_kernel(a_ptr, b_ptr, c_ptr, t_ptr, M, N, K,
                            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                            GROUP_M: tl.constexpr, PHASES: tl.constexpr):
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
        if PHASES:
            t_loop = _globaltimer()
        c = accumulator.to(tl.bfloat16)

        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)
        t1 = _globaltimer()
        if PHASES:
            tl.store(t_ptr + pid * 4, t0)
            tl.store(t_ptr + pid * 4 + 1, t_loop)
            tl.store(t_ptr + pid * 4 + 2, t1)
            tl.store(t_ptr + pid * 4 + 3, _smid().to(tl.int64))
        else:
            tl.store(t_ptr + pid * 3, t0)
            tl.store(t_ptr + pid * 3 + 1, t1)
            tl.store(t_ptr + pid * 3 + 2, _smid().to(tl.int64))


# (case, M, N, K, block_m, block_n, block_k, group_m, stages, warps)
CASES = []
for K in (8192, 32768):
    for st in (2, 3, 4, 5):
        CASES.append(("one_wave", 2048, 2048, K, 64, 128, 32, 1, st, 4))
for st in (2, 3, 5):
    CASES.append(("multi_wave", 8192, 8192, 28672, 64, 128, 32, 1, st, 4))
CASES.append(("multi_wave", 8192, 8192, 28672, 64, 128, 32, 8, 3, 4))
for st in (2, 3, 5):
    CASES.append(("multi_wave", 4096, 4096, 14336, 64, 64, 128, 1, st, 4))


# Multi-wave tiles of 8192x8192x28672 that l2_hit_corpus.csv measures far from the model
# (ncu hit rate vs the model's, 2026-11-30): 64x256x128 s2 58.5 vs 15.3, 64x256x64 s2 30 vs 17,
# 256x64x32 g8 s3 88.9 vs 47.9, 256x128x32 g8 s4 w8 77.0 vs 52.3, 128x256x128 s2 w8 49.1 vs 25.2,
# 64x64x32 s2 42.4 vs 74.5.
BIG_CASES = [("big", 8192, 8192, 28672, 64, 256, 128, 1, 2, 4),
             ("big", 8192, 8192, 28672, 64, 256, 64, 1, 2, 4),
             ("big", 8192, 8192, 28672, 256, 64, 32, 8, 3, 4),
             ("big", 8192, 8192, 28672, 256, 128, 32, 8, 4, 8),
             ("big", 8192, 8192, 28672, 128, 256, 128, 1, 2, 8),
             ("big", 8192, 8192, 28672, 64, 64, 32, 1, 2, 4),
             ("big", 8192, 8192, 28672, 64, 128, 32, 1, 2, 4)]


WIDE_CASES = [("wide", M, N, K, bm, bn, bk, g, s, w)
              for (M, N, K) in [(8192, 8192, 8192), (4096, 14336, 4096), (4096, 28672, 8192),
                                (4096, 4096, 14336), (1024, 28672, 8192), (8192, 8192, 28672)]
              for (bm, bn, bk, g, s, w) in [(128, 128, 64, 8, 3, 8), (128, 256, 64, 8, 3, 8),
                                            (64, 128, 64, 1, 4, 4), (256, 128, 64, 8, 4, 8)]]

# Group-1 many-wave 2-stage tiles of three more corpus shapes, and 256x64x64 at 3 and 5 stages:
# whether the tiles sharing a column of B stay together (--gaps), where the cache model's
# start spread keeps the small ones together and scatters the wide ones (docs/cache-model.md).
COHERENCE_CASES = [("coherence", M, N, K, bm, bn, bk, 1, s, w)
                   for (M, N, K) in [(8192, 8192, 8192), (4096, 14336, 4096), (4096, 28672, 8192)]
                   for (bm, bn, bk, s, w) in [(64, 64, 32, 2, 4), (64, 128, 32, 2, 4), (64, 128, 32, 2, 8),
                                              (64, 128, 64, 2, 4), (64, 256, 64, 2, 4), (64, 256, 128, 2, 4),
                                              (128, 128, 64, 2, 8), (128, 256, 128, 2, 8), (128, 64, 32, 2, 4),
                                              (64, 64, 128, 2, 8), (256, 64, 64, 3, 4), (256, 64, 64, 5, 4)]]

def named(name, configs):
    """Cases of a set: the set's name before each (M, N, K, block_m, block_n, block_k, group_m,
    stages, warps)."""
    return [(name,) + c for c in configs]


# The configs whose L2 hit rate the model misses most on the held-out many-wave shapes
# (tests/validation/h200/l2_hit_heldout.csv, 2026-12-02): group-1 2-stage loops of 1-4 tiles an SM
# it reads 14-31 pp low (their waves hold together) and 4-5-stage ones it reads 12-16 pp high.
HELDOUT_CASES = named("heldout", [
    (12288, 12288, 4096, 64, 256, 64, 1, 2, 4), (12288, 12288, 4096, 64, 256, 128, 1, 2, 4),
    (12288, 12288, 4096, 64, 128, 64, 1, 2, 4), (12288, 12288, 4096, 128, 128, 64, 1, 2, 8),
    (12288, 12288, 4096, 64, 128, 32, 1, 4, 8), (12288, 12288, 4096, 64, 128, 32, 1, 5, 4),
    (12288, 12288, 4096, 64, 64, 32, 1, 5, 8), (4096, 8192, 16384, 64, 256, 64, 1, 2, 4),
    (3072, 20480, 6144, 64, 256, 64, 1, 2, 4), (3072, 20480, 6144, 256, 64, 64, 1, 5, 4)])

# The ten configs whose L2 hit rate the model misses most on the fifth held-out set
# (tests/validation/h200/l2_hit_heldout5.csv, 2026-12-04, against main 44edd21): group-1 2-stage
# loops of wide tiles it reads 16-23 pp low, 3-5-stage ones and 64 x 64 x 32 at 2 stages 14-18 high.
HELDOUT5_CASES = named("heldout5", [
    (4608, 14336, 3584, 64, 256, 64, 1, 2, 4), (6144, 17920, 5120, 64, 256, 64, 1, 2, 4),
    (4608, 14336, 3584, 64, 128, 32, 1, 4, 8), (768, 24576, 6144, 64, 128, 64, 1, 2, 4),
    (768, 24576, 6144, 64, 256, 64, 1, 2, 4), (4608, 14336, 3584, 64, 128, 32, 1, 5, 4),
    (768, 24576, 6144, 256, 64, 64, 1, 4, 4), (10240, 4096, 11008, 64, 64, 32, 1, 2, 4),
    (6144, 17920, 5120, 64, 256, 128, 1, 2, 4), (4608, 14336, 3584, 64, 64, 32, 1, 5, 8)])

# Whether a convoy's parting grows with the waves at a fixed footprint (tests/validation/h200/
# l2_hit_heldout6.csv, 2026-12-05, against main 71f273d): group-1 2-stage 64 x 256 x 64 and 64 x 128 x 64
# loops on M x 16384 x 16384 for M = 512 (2 waves: ncu 57.0% and 54.3% against the model's 32.9 and
# 36.4, which parts them at once), 1024, 2048 and 4096 (the first wave's footprint and the model's
# x the same on all four), and the held-out rows the model misses most besides: 4096 x 8192 x 16384
# 64 x 128 x 64, four group-1 2-stage loops on 8192 x 5120 x 13824 (14-22 pp high) and 1024 x 28672 x
# 8192 64 x 256 x 64 (7 waves, 22.5 pp low).
HELDOUT6_CASES = named("heldout6", [
    (m, 16384, 16384, 64, bn, 64, 1, 2, 4) for m in (512, 1024, 2048, 4096) for bn in (256, 128)] + [
    (4096, 8192, 16384, 64, 128, 64, 1, 2, 4), (8192, 5120, 13824, 64, 128, 64, 1, 2, 4),
    (8192, 5120, 13824, 64, 64, 128, 1, 2, 8), (8192, 5120, 13824, 64, 64, 32, 1, 2, 4),
    (8192, 5120, 13824, 64, 256, 64, 1, 2, 4), (1024, 28672, 8192, 64, 256, 64, 1, 2, 4)])

# The configs whose L2 hit rate the model misses most on the waves set (l2_hit_waves.csv,
# 2026-12-06, against main 3d9db95): M x 16384 x 16384 at M = 2048 and 4096 (4-63 waves), errors
# of 5-35 pp; group-1 2-stage loops whose convoys part over the waves, and grouped 3-5-stage loops
# the model reads 5-19 pp high. The two heldout6 traces already hold (64 x 256 x 64 and
# 64 x 128 x 64, group 1, 2 stages) are left out. One cold launch each.
WAVES_CASES = named("waves", [(4096, 16384, 16384) + c for c in [
    (64, 128, 32, 1, 2, 8), (64, 64, 32, 1, 2, 4), (64, 128, 32, 1, 2, 4), (64, 256, 128, 1, 2, 4),
    (256, 64, 64, 8, 5, 4), (128, 64, 32, 8, 3, 8), (256, 64, 32, 8, 3, 4), (128, 64, 32, 1, 2, 4),
    (64, 128, 64, 8, 4, 4), (256, 64, 64, 1, 4, 4), (128, 128, 64, 1, 2, 8), (256, 64, 64, 1, 5, 4),
    (256, 64, 32, 8, 4, 8), (128, 256, 32, 8, 4, 8), (64, 64, 64, 8, 3, 4), (128, 256, 128, 1, 2, 8),
    (256, 64, 32, 8, 2, 4), (64, 256, 64, 8, 5, 8), (128, 128, 64, 8, 5, 4)]] +
    [(2048, 16384, 16384) + c for c in [
    (64, 64, 32, 1, 2, 4), (64, 128, 32, 1, 2, 8), (256, 64, 64, 8, 5, 4), (64, 256, 128, 1, 2, 4),
    (256, 64, 64, 1, 5, 4), (128, 64, 32, 1, 2, 4), (64, 256, 64, 8, 2, 8), (256, 64, 64, 1, 4, 4),
    (128, 64, 128, 8, 4, 8), (128, 256, 32, 8, 4, 8), (128, 64, 32, 8, 3, 8), (128, 64, 128, 8, 3, 8),
    (64, 128, 64, 8, 5, 8), (64, 128, 64, 8, 4, 4), (128, 256, 128, 1, 2, 8), (64, 128, 32, 1, 3, 4)]])

# The small one- and two-wave GEMMs of cold_start.py, whose time the model misses by 1-2 us.
SMALL_CASES = named("small", [
    (1024, 1024, 1024, 64, 64, 128, 1, 5, 8), (1024, 1024, 1024, 128, 64, 128, 8, 4, 8),
    (1024, 1024, 1024, 128, 128, 64, 8, 5, 4), (1024, 1024, 1024, 64, 128, 32, 1, 3, 4),
    (1024, 1024, 1024, 128, 128, 32, 1, 4, 8), (2048, 2048, 2048, 128, 128, 64, 1, 5, 4),
    (1024, 1024, 4096, 64, 64, 128, 1, 5, 8), (1024, 1024, 4096, 128, 128, 64, 8, 5, 4)])

# A tile's fixed cost: one-wave-per-SM grids of 1024x1024 with K of 1, 2, 4, 48 and 96 k-steps
# (never the corpus's K), so that each CTA's time is fixed + k-steps x iteration.
FIXED_CASES = [("fixed", 1024, 1024, bk * n, bm, bn, bk, g, s, w)
               for (bm, bn, bk, g, s, w) in [(64, 64, 128, 1, 5, 8), (128, 64, 128, 8, 4, 8),
                                              (128, 128, 64, 8, 5, 4), (64, 128, 32, 1, 3, 4),
                                              (128, 128, 32, 1, 4, 8), (64, 64, 64, 8, 3, 4),
                                              (128, 256, 64, 1, 3, 8), (256, 128, 32, 8, 4, 8)]
               for n in (1, 2, 4, 48, 96)]


# An unbiased look at the corpus's launches of four CTAs an SM or more (not picked by the model's
# error, as the sets above were): a seeded sample of 100 rows of l2_hit_corpus.csv and 30 of
# l2_hit_heldout4.csv whose configs have no trace yet, one cold launch each
# (tests/validation/h200/l2_measured_starts.py then walks the cache model with their starts).
def sample_cases(traced):
    import random
    val = os.path.join(HERE, "..", "..", "tests", "validation", "h200")
    cases = []
    for name, count in (("l2_hit_corpus.csv", 100), ("l2_hit_heldout4.csv", 30)):
        with open(os.path.join(val, name)) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        keys = sorted({tuple(int(r[k]) for k in ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages",
                                                   "warps")) for r in rows if int(r["grid"]) >= 4 * 132})
        keys = [k for k in keys if k not in traced and all(v % 16 == 0 for v in k[:3])]
        cases += [("sample",) + k for k in random.Random(26).sample(keys, min(count, len(keys)))]
    return cases


def timed_launches(case, flush_buf, phases=False, reps=3):
    """Three cold launches of the case's timed kernel (do_bench's flush before each): yields
    (rep, compiled kernel, per-CTA rows [t_start, (t_loop with phases,) t_end, smid]), times in
    ns after the launch's earliest start."""
    _, M, N, K, bm, bn, bk, gm, st, w = case
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    slots = 4 if phases else 3
    t = torch.zeros(tiles * slots, device="cuda", dtype=torch.int64)

    def launch():
        return timed_matmul_kernel[(tiles,)](a, b, c, t, M, N, K, a.stride(0), a.stride(1),
                                             b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                                             BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm, PHASES=phases,
                                             num_stages=st, num_warps=w)
    k = launch()  # compile and warm up
    torch.cuda.synchronize()
    for rep in range(reps):
        flush_buf.zero_()
        t.zero_()
        launch()
        torch.cuda.synchronize()
        v = t.view(tiles, slots).cpu().tolist()
        base = min(r[0] for r in v)
        yield rep, k, [[x - base for x in r[:-1]] + [r[-1]] for r in v]
    del a, b, c, t
    torch.cuda.empty_cache()


def run_case(case, writer, flush_buf, reps=3):
    name, M, N, K, bm, bn, bk, gm, st, w = case
    for rep, k, rows in timed_launches(case, flush_buf, reps=reps):
        for pid, (t0, t1, sm) in enumerate(rows):
            writer.writerow([name, M, N, K, bm, bn, bk, gm, st, w, rep, pid, sm, t0, t1])
        span = max(r[1] for r in rows) / 1000.0
        print(name, M, N, K, f"{bm}x{bn}x{bk}", "g", gm, "s", st, "rep", rep, "regs", k.n_regs,
              "smem", k.metadata.shared, f"span {span:.1f} us", flush=True)


def fit(path, profile):
    import collections
    import json
    import statistics
    with open(profile) as f:
        hw = json.load(f)
    value = lambda v: v["value"] if isinstance(v, dict) else v  # noqa: E731
    per_sm = value(hw["l2"]["per_sm_bandwidth"])
    transit = (value(hw["pipeline_round_trip_ns"]) + value(hw["dram_queue_ns"])) * 1e-9
    import gzip
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    runs = collections.defaultdict(list)
    for r in rows:
        if r["case"] == "one_wave":
            runs[tuple(r[c] for c in ("M", "N", "K", "block_m", "block_n", "block_k", "stages", "rep"))].append(r)
    points = []
    for key, v in sorted(runs.items()):
        _, _, _, bm, bn, bk, st, rep = (int(x) for x in key)
        by_sm = collections.defaultdict(list)
        first_end = min(int(r["t_end_ns"]) for r in v)
        for r in v:
            if int(r["t_start_ns"]) < first_end:  # the first wave only
                by_sm[r["smid"]].append(int(r["t_end_ns"]) - int(r["t_start_ns"]))
        resident = max(len(t) for t in by_sm.values())
        times = [x for t in by_sm.values() if len(t) == resident for x in t]
        sd = statistics.pstdev(times) / statistics.mean(times)
        load_s = resident * (bm + bn) * bk * 2 / per_sm  # bf16 A and B tiles of an iteration
        queued = max(0.0, 1 - transit / ((st - 1) * load_s))
        points.append((sd, queued))
        print(f"K {key[2]:>5} stages {st} rep {rep}: {resident} tiles per SM, time sd {100 * sd:.2f}%, "
              f"queued share {queued:.3f}")
    num = sum(sd * q for sd, q in points if q > 0)
    den = sum(q * q for sd, q in points if q > 0)
    print(f"tile_rate_sd = {num / den:.4f}")


def read_launches(path, smid=False):
    """The launches of a cta_skew CSV: {(M, N, K, block_m, block_n, block_k, group_m, stages,
    warps, rep): {pid: (t_start_ns, t_end_ns)}}, with smid: (t_start_ns, t_end_ns, smid)."""
    import collections
    import gzip
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    runs = collections.defaultdict(dict)
    for r in rows:
        key = tuple(int(r[k]) for k in ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps", "rep"))
        runs[key][int(r["pid"])] = (int(r["t_start_ns"]), int(r["t_end_ns"])) + ((int(r["smid"]),) if smid else ())
    return runs


def gaps(path):
    """Per group-1 launch of a multi-wave set: how far apart in time the tiles that share a
    column of B start (launch positions N / BLOCK_N apart), in iterations of the median tile,
    beside the tiles' own spread of times. The cache model's wave width makes those gaps grow
    with the waves (docs/cache-model.md)."""
    import collections
    import statistics
    runs = read_launches(path)
    per_config = collections.defaultdict(list)
    for key, tiles in sorted(runs.items()):
        m, n, k, bm, bn, bk, group_m = key[:7]
        if group_m != 1:
            continue
        times = [e - s for s, e in tiles.values()]
        iteration = statistics.median(times) / (k // bk)
        across = n // bn  # tiles of one row of C: the next tile down shares this one's B column
        gap = [abs(tiles[p + across][0] - tiles[p][0]) / iteration for p in tiles if p + across in tiles]
        gap.sort()
        per_config[key[:-1]].append((statistics.pstdev(times) / statistics.median(times), gap[len(gap) // 2],
                                     gap[3 * len(gap) // 4], iteration))
    for key, reps in per_config.items():
        sd, med, p75, it = (statistics.median(x[i] for x in reps) for i in range(4))
        print(f"{key[0]}x{key[1]}x{key[2]} {key[3]}x{key[4]}x{key[5]} stages {key[7]} warps {key[8]}: "
              f"iteration {it:.0f} ns, tile time sd {100 * sd:.1f}%, B column's tiles start {med:.2f} "
              f"iterations apart (median; 75th percentile {p75:.1f}), {len(reps)} launches")


def two_stage_launches(paths, profile, cli, min_waves):
    """The traced group-1 2-stage launches of `min_waves` waves or more (first repeat, each config
    once, a wave at least 1.5 rows of tiles), with what the cache model says of them: per launch,
    (key, tiles, iteration, slots, across, own speed, footprint ratio). The own speed is
    `cache_stream.own_rate_sd` of `tilesight-cli predict`; the ratio its first wave's footprint
    over the loop (`wave_footprint_bytes`) over the profile's L2 bytes (0 without an own speed)."""
    import json
    import subprocess
    with open(profile) as f:
        l2 = json.load(f)["l2"]["bytes"]
    l2 = l2["value"] if isinstance(l2, dict) else l2
    seen = set()
    for path in paths:
        for key, tiles in sorted(read_launches(path).items()):
            m, n, k, bm, bn, bk, group_m, stages, warps, rep = key
            if group_m != 1 or stages != 2 or rep != 0 or key[:-1] in seen:
                continue
            _, iteration, slots = launch_shape(tiles, k, bk)
            across = -(-n // bn)
            if len(tiles) < min_waves * slots or slots < 1.5 * across:
                continue
            seen.add(key[:-1])
            plan = {"kernel": "gemm", "hardware": "h200", "params": dict(
                zip(("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps"), key[:-1]), dtype="bf16")}
            stream = json.loads(subprocess.run([cli, "predict", "--format", "json", "-"], input=json.dumps(plan),
                                               capture_output=True, text=True, check=True).stdout)["cache_stream"]
            rate = stream["own_rate_sd"]
            ratio = stream["wave_footprint_bytes"] / l2 if rate > 0 else 0.0
            yield key, tiles, iteration, slots, across, rate, ratio


def wave_gap(starts, w, slots, across, iteration, pairs=1):
    """The median start gap of wave w's tiles sharing a column of B (launch positions `across`
    apart), in iterations, from the launch's start times in launch order; None where the wave has
    fewer than `pairs` such pairs."""
    import statistics
    lo, hi = w * slots, min(len(starts), (w + 1) * slots)
    gap = [abs(starts[p + across] - starts[p]) / iteration for p in range(lo, hi - across)]
    return statistics.median(gap) if len(gap) >= max(1, pairs) else None


def coupling(paths, profile, cli):
    """Which group-1 2-stage launches of 3+ waves keep their tiles together (docs/cache-model.md,
    "Convoys that hold or part"): per traced launch (first repeat), the cache model's own speed
    before its wave holds it, the footprint ratio (two_stage_launches), the tiles an SM, and the
    median over waves 2+ of the median start gap of tiles sharing a column of B (wave_gap), in
    iterations. Sorted by own speed x footprint ratio, the x of stream_shape.cpp's coupled_rate_sd."""
    import statistics
    out = []
    for key, tiles, iteration, slots, across, rate, ratio in two_stage_launches(paths, profile, cli, 3):
        waves = len(tiles) / slots
        starts = [tiles[p][0] for p in sorted(tiles)]
        per_wave = [g for g in (wave_gap(starts, w, slots, across, iteration) for w in range(2, int(waves))) if g is not None]
        out.append((rate * ratio, rate, ratio, key, slots / 132, waves, statistics.median(per_wave)))
    print("own speed x ratio  own speed  ratio  launch                         tiles/SM  waves  B column's start gap (it)")
    for x, rate, ratio, key, per_sm, waves, gap in sorted(out):
        m, n, k, bm, bn, bk, _, _, warps, _ = key
        print(f"{x:17.3f}  {rate:9.4f}  {ratio:5.1f}  {m}x{n}x{k} {bm}x{bn}x{bk} w{warps}".ljust(66) +
              f"{per_sm:8.0f}  {waves:5.1f}  {gap:6.1f}")


def by_wave(paths, profile, cli):
    """Whether convoys part by the waves they have run (docs/cache-model.md, "Held out 6, and three
    leads it left"): per group-1 2-stage launch of 2+ waves (two_stage_launches) and per wave w >= 1
    with 20 pairs or more, the median start gap of the tiles sharing a column of B (wave_gap)
    against the cache model's x (own speed times footprint ratio) times sqrt(w), the own speed's
    accumulated spread over the L2's reach; then the share of waves parted (gap over 10 iterations)
    by x sqrt(w), by x alone, and by the iterations the launch has run before the wave starts (w x
    the loop's iterations)."""
    import math
    import statistics
    points, launches = [], 0
    for key, tiles, iteration, slots, across, rate, ratio in two_stage_launches(paths, profile, cli, 2):
        x = rate * ratio
        if x <= 0:
            continue
        launches += 1
        starts = [tiles[p][0] for p in sorted(tiles)]
        steps = -(-key[2] // key[5])
        for w in range(1, len(tiles) // slots):
            gap = wave_gap(starts, w, slots, across, iteration, pairs=20)
            if gap is not None:
                points.append((x * math.sqrt(w), x, gap, w * steps))
    print(f"{len(points)} waves of {launches} launches; parted: a median gap over 10 iterations")
    for col, name, edges in ((0, "x sqrt(w)", (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.5, 3.0)),
                             (1, "x", (0, 0.05, 0.08, 0.10, 0.12, 0.15, 0.20, 0.30, 0.50)),
                             (3, "iterations run before the wave", (0, 250, 500, 750, 1000, 1500, 2000, 3000, 5000, 1e9))):
        for lo, hi in zip(edges, edges[1:]):
            sel = [p for p in points if lo <= p[col] < hi]
            if sel:
                print(f"  {name} {lo:4.2f}-{hi:4.2f}: {len(sel):4d} waves, median gap "
                      f"{statistics.median(p[2] for p in sel):6.1f} it, parted {sum(p[2] > 10 for p in sel) / len(sel):.2f}")


def wave_times(paths):
    """Per group-1 2-stage launch of 2+ waves (first repeat): wave by wave, the median time an
    iteration of its tiles (ns: tile time over the loop's iterations) and the median start gap of
    its tiles sharing a column of B (wave_gap, iterations). A launch whose convoys hold for some
    waves and part later runs the holding waves at the SM's path and the parted ones at the
    DRAM's bandwidth (docs/cache-model.md, "Held out 6, and three leads it left"): what a timing
    model that evaluates each wave at its own L2/DRAM split has to reproduce."""
    import statistics
    for path in paths:
        for key, tiles in sorted(read_launches(path).items()):
            m, n, k, bm, bn, bk, group_m, stages, warps, rep = key
            steps, iteration, slots = launch_shape(tiles, k, bk)
            if group_m != 1 or stages != 2 or rep != 0 or len(tiles) < 2 * slots:
                continue
            across = -(-n // bn)
            starts = [tiles[p][0] for p in sorted(tiles)]
            cells = []
            for w in range(len(tiles) // slots):
                t = [(tiles[p][1] - tiles[p][0]) / steps for p in range(w * slots, (w + 1) * slots) if p in tiles]
                gap = wave_gap(starts, w, slots, across, iteration) if w > 0 else None
                cells.append(f"{statistics.median(t):.0f}" + ("" if gap is None else f"/{gap:.0f}"))
            print(f"{m}x{n}x{k} {bm}x{bn}x{bk} w{warps} ({slots / 132:.0f} an SM): ns an iteration / B column's "
                  f"start gap, by wave: {' '.join(cells)}")


def p10_p90(starts):
    """The 10th to 90th percentile spread of sorted start times (the width --widths reports)."""
    return starts[int(0.9 * len(starts))] - starts[int(0.1 * len(starts))]


def launch_shape(tiles, k, bk):
    """A recorded launch's loop iterations, its median tile's iteration (ns) and its slots (the
    tiles that start before the first one ends)."""
    import statistics
    steps = -(-k // bk)
    iteration = statistics.median(e - s for s, e in tiles.values()) / steps
    first_end = min(e for _, e in tiles.values())
    return steps, iteration, sum(1 for s, _ in tiles.values() if s < first_end)


def widths(path):
    """Per multi-wave launch (first repeat): how far apart the tiles of each wave start, wave after
    wave. The launch's slots are the tiles that start before the first one ends; wave g is launch
    positions g x slots to (g + 1) x slots - 1, and its width the 10th to 90th percentile of their
    start times, in iterations of the median tile. The cache model's start spread (engine/src/
    cache/stream_walker.cpp, wave_width) grows with the waves through each tile's own speed; the
    measured widths stay within a few iterations for 2-stage loops with one tile an SM and grow
    for the others (docs/cache-model.md)."""
    import statistics
    runs = read_launches(path)
    for key, tiles in sorted(runs.items()):
        m, n, k, bm, bn, bk, group_m, stages, warps, rep = key
        if rep != 0:
            continue
        times = [e - s for s, e in tiles.values()]
        _, iteration, slots = launch_shape(tiles, k, bk)
        waves = len(tiles) // slots
        if waves < 3:
            continue
        out = []
        for g in (1, 2, 4, 8, 16, 32, 64):
            if g >= waves:
                break
            starts = sorted(tiles[p][0] for p in range(g * slots, (g + 1) * slots) if p in tiles)
            out.append(f"{g}: {p10_p90(starts) / iteration:.1f}")
        print(f"{m}x{n}x{k} {bm}x{bn}x{bk} group {group_m} stages {stages} warps {warps}: {slots} slots "
              f"({slots / 132:.0f} an SM), {waves} waves, tile time sd "
              f"{100 * statistics.pstdev(times) / statistics.median(times):.1f}%; wave width (p10-p90, "
              f"iterations) by wave: {', '.join(out)}")


def transitions(paths):
    """Per multi-wave launch (first repeat, 2.5+ waves): how often a tile of a wave's core (started
    within the L2's reach of the wave's first: one partition, 30 MB, over what all slots load an
    iteration, in iterations of the median tile; the wave's first is its 2nd-percentile start)
    hands its SM to a successor past the reach, and how often one past it hands over to one back
    in the core (the successor: the next tile to start on the same SM as it ends). The odds a
    model of convoys would need (docs/cache-model.md, "The measured starts")."""
    import bisect
    import collections
    import gzip
    dram = {}  # ncu's DRAM read rate (TB/s) of the configs in the L2 corpora
    val = os.path.join(HERE, "..", "..", "tests", "validation", "h200")
    for name in ("l2_hit_sweep.csv", "l2_hit_corpus.csv", "l2_hit_heldout.csv", "l2_hit_calib.csv", "l2_hit_heldout4.csv"):
        with open(os.path.join(val, name)) as f:
            for r in csv.DictReader(l for l in f if not l.startswith("#")):
                dram[tuple(int(r[k]) for k in ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages",
                                               "warps"))] = float(r["dram_read_bytes"]) / float(r["duration_ns"]) / 1e3
    for path in paths:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#")) if r["rep"] == "0"]
        runs = collections.defaultdict(dict)
        for r in rows:
            key = tuple(int(r[k]) for k in ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps"))
            runs[key][int(r["pid"])] = (int(r["t_start_ns"]), int(r["t_end_ns"]), int(r["smid"]))
        for key, tiles in sorted(runs.items()):
            m, n, k, bm, bn, bk, group_m, stages, warps = key
            tile, iteration, slots = launch_shape({p: v[:2] for p, v in tiles.items()}, k, bk)
            if len(tiles) < 2.5 * slots:
                continue
            reach = 30e6 / (slots * (bm + bn) * bk * 2)
            lag = {}
            for g in range(len(tiles) // slots):
                wave = [p for p in range(g * slots, (g + 1) * slots) if p in tiles]
                starts = sorted(tiles[p][0] for p in wave)
                first = starts[int(0.02 * len(starts))]
                lag.update({p: (tiles[p][0] - first) / iteration for p in wave})
            on_sm = collections.defaultdict(list)
            for p, (t0, _, sm) in tiles.items():
                on_sm[sm].append((t0, p))
            for v in on_sm.values():
                v.sort()
            core = escaped = tail = back = 0
            for p, a in lag.items():
                v = on_sm[tiles[p][2]]
                i = bisect.bisect_left(v, (tiles[p][1] - 0.02 * tile, -1))
                if i == len(v) or v[i][1] not in lag or v[i][1] // slots != p // slots + 1:
                    continue
                b = lag[v[i][1]]
                if a <= reach:
                    core, escaped = core + 1, escaped + (b > reach)
                else:
                    tail, back = tail + 1, back + (b <= reach)
            rate = f", DRAM {dram[key]:.2f} TB/s (ncu)" if key in dram else ""
            print(f"{m}x{n}x{k} {bm}x{bn}x{bk} group {group_m} stages {stages} warps {warps}: {slots / 132:.0f} an "
                  f"SM{rate}, reach {reach:.1f} iterations; core to tail {escaped / max(1, core):.2f} a wave, tail back to "
                  f"the core {back / max(1, tail):.2f}")


def neighbours(paths):
    """Per group-1 multi-wave launch (first repeat), from the 3rd wave on: how far apart in time
    the tiles next to each other in launch order that share a block of A (one row of C's tiles)
    start and end, in iterations of the median tile, and the spread of their tile times'
    difference. The cache model lays a wave's starts out evenly and gives each tile a bounded
    drift of its own (stream_walker.cpp); who merges depends on how close sharers run."""
    import statistics
    for path in paths:
        for key, tiles in sorted(read_launches(path).items()):
            m, n, k, bm, bn, bk, group_m, stages, warps, rep = key
            if rep != 0 or group_m != 1:
                continue
            steps, iteration, slots = launch_shape(tiles, k, bk)
            row = -(-n // bn)
            starts, ends, diffs = [], [], []
            for p in range(2 * slots, len(tiles) - 1):
                if p // row == (p + 1) // row and p in tiles and p + 1 in tiles:
                    (s0, e0), (s1, e1) = tiles[p], tiles[p + 1]
                    starts.append(abs(s1 - s0) / iteration)
                    ends.append(abs(e1 - e0) / iteration)
                    diffs.append(((e1 - s1) - (e0 - s0)) / iteration)
            if len(diffs) < 20:
                continue
            print(f"{m}x{n}x{k} {bm}x{bn}x{bk} stages {stages} warps {warps} ({slots // 132} an SM, {steps} "
                  f"iterations): A's neighbours start {statistics.median(starts):.3f} apart (median; "
                  f"{sum(1 for x in starts if x < 0.05) / len(starts):.0%} within 0.05), end "
                  f"{statistics.median(ends):.2f} apart, tile times differ by {statistics.pstdev(diffs):.2f} (sd)")


def growth(paths):
    """The profile's `tile_wave_growth`: for every multi-wave launch with one tile an SM and 3-5
    stages (first repeat), the p10-p90 width of each wave's starts (as --widths) over the tile's
    iterations, its least-squares slope through the origin over the waves from the 2nd on; the
    median slope over the launches, over 0.8 (the p10-p90 share of a uniform spread's width,
    the spread stream_walker.cpp lays a wave's starts out in)."""
    import statistics
    slopes = []
    for path in paths:
        for key, tiles in sorted(read_launches(path).items()):
            m, n, k, bm, bn, bk, group_m, stages, warps, rep = key
            if rep != 0 or stages < 3:
                continue
            steps, iteration, slots = launch_shape(tiles, k, bk)
            waves = len(tiles) // slots
            if waves < 3 or slots > 132:
                continue
            pts = []
            for g in range(1, waves):
                starts = sorted(tiles[p][0] for p in range(g * slots, (g + 1) * slots) if p in tiles)
                pts.append((g, p10_p90(starts) / iteration / steps))
            slope = sum(g * w for g, w in pts) / sum(g * g for g, _ in pts)
            slopes.append(slope)
            print(f"{m}x{n}x{k} {bm}x{bn}x{bk} group {group_m} stages {stages} warps {warps}: {waves} waves of "
                  f"{steps} iterations, p10-p90 width {100 * slope:.2f}% of a tile a wave")
    if slopes:
        med = statistics.median(slopes)
        print(f"{len(slopes)} launches: median {100 * med:.2f}% a wave (p10-p90); uniform width {med / 0.8:.4f} "
              f"of a tile a wave (tile_wave_growth)")


def slopes(paths):
    """Per launch of 5+ waves (first repeat): the first wave's tile-time sd (over its mean), and
    how fast each wave's start width grows: the p10-p90 width over 0.8 (a uniform spread's
    width), in tiles, its least-squares slope through the origin over waves 1-8, and that slope
    over the sd (a walk of independent tile times would widen as sqrt(w) x sqrt(12) x sd)."""
    import statistics
    for path in paths:
        for key, tiles in sorted(read_launches(path).items()):
            m, n, k, bm, bn, bk, group_m, stages, warps, rep = key
            if rep != 0 or len(tiles) != -(-m // bm) * -(-n // bn):
                continue
            steps, iteration, slots = launch_shape(tiles, k, bk)
            waves = len(tiles) // slots
            if waves < 5:
                continue
            first = [tiles[p][1] - tiles[p][0] for p in range(slots)]
            sd = statistics.pstdev(first) / statistics.fmean(first)
            widths = []
            for g in range(1, min(waves, 9)):
                starts = sorted(tiles[p][0] for p in range(g * slots, (g + 1) * slots))
                widths.append(p10_p90(starts) / 0.8 / iteration / steps)
            slope = sum((g + 1) * w for g, w in enumerate(widths)) / sum((g + 1) ** 2 for g in range(len(widths)))
            print(f"{m}x{n}x{k} {bm}x{bn}x{bk} group {group_m} stages {stages} warps {warps}: {slots // 132} an SM, "
                  f"{waves} waves; first wave's tile sd {sd:.3f}, width {slope:.3f} of a tile a wave "
                  f"({slope / sd:.1f} sd); waves 1-6: {' '.join(f'{w:.2f}' for w in widths[:6])}")


def sharers(paths, launch):
    """One launch (first repeat; `launch` M,N,K,block_m,block_n,block_k,group_m,stages,warps), wave
    by wave: the p10-p90 width of the starts, and how far apart (max - min, iterations of the
    median tile) the wave's tiles that read one column of B start, and those that read one row of
    A (median over the wave's columns and rows; p90 for B)."""
    import collections
    import statistics
    from skinny_phases import tile_of
    want = tuple(int(x) for x in launch.split(","))
    for path in paths:
        for key, tiles in read_launches(path).items():
            if key[:9] != want or key[9] != 0:
                continue
            m, n, k, bm, bn, bk, group_m = key[:7]
            steps, iteration, slots = launch_shape(tiles, k, bk)
            print(f"{path}: {len(tiles)} tiles, {slots} slots, {steps} iterations of {iteration:.0f} ns")
            for g in range(len(tiles) // slots):
                cols, rows = collections.defaultdict(list), collections.defaultdict(list)
                for p in range(g * slots, (g + 1) * slots):
                    r, c = tile_of(p, m, n, bm, bn, group_m)
                    cols[c].append(tiles[p][0])
                    rows[r].append(tiles[p][0])
                starts = sorted(tiles[p][0] for p in range(g * slots, (g + 1) * slots))
                b = sorted((max(v) - min(v)) / iteration for v in cols.values() if len(v) > 1)
                a = [(max(v) - min(v)) / iteration for v in rows.values() if len(v) > 1]
                print(f"  wave {g:3d}: width {p10_p90(starts) / iteration:6.1f}, "
                      f"B's readers {statistics.median(b) if b else 0:5.1f} (p90 {b[int(0.9 * len(b))] if b else 0:5.1f}), "
                      f"A's readers {statistics.median(a) if a else 0:6.1f}")
            return
    print(f"no launch {launch} in {paths}")


def many_wave_launches(paths):
    """The first repeat of each traced launch of 4+ full waves (slots a multiple of the 132 SMs),
    with its SMs: (key, {pid: (t_start_ns, t_end_ns, smid)}, median tile time, slots)."""
    import statistics
    for path in paths:
        for key, tiles in sorted(read_launches(path, smid=True).items()):
            tile = statistics.median(e - s for s, e, _ in tiles.values())
            slots = sum(1 for s, _, _ in tiles.values() if s < 0.05 * tile)
            if key[9] == 0 and slots % 132 == 0 and len(tiles) >= 4 * slots:
                yield key, tiles, tile, slots


def gpcs(paths):
    """Which SMs fall behind in a many-wave launch, and whether whole GPCs do: per launch (first
    repeat) of 4+ full waves, each SM's mean start in its tiles of wave min(8, waves - 1), in
    tiles after the earliest; the GPCs' share of the SMs' variance (between GPCs over the total)
    and the GPCs' mean lateness, GPCs from lrc_window.py's merge domains (sm_partition.gpc_of_sm,
    h200/lrc_domain.csv: six GPCs of 16 SMs, GPCs 6 and 7 of 18). Launches whose SMs spread
    over more than a tenth of a tile."""
    import collections
    import statistics
    from sm_partition import gpc_of_sm
    gpc = gpc_of_sm(os.path.join(HERE, "h200"))
    shares, ranks = [], collections.defaultdict(list)
    for key, tiles, tile, slots in many_wave_launches(paths):
        m, n, k, bm, bn, bk, group_m, stages, warps, rep = key
        w = min(8, len(tiles) // slots - 1)
        per_sm = collections.defaultdict(list)
        for p in range(w * slots, (w + 1) * slots):
            per_sm[tiles[p][2]].append(tiles[p][0] / tile)
        late = {sm: statistics.fmean(v) for sm, v in per_sm.items()}
        mean, total = statistics.fmean(late.values()), statistics.pvariance(late.values())
        if max(late.values()) - min(late.values()) <= 0.1 or len(late) < 132:
            continue
        by_gpc = collections.defaultdict(list)
        for sm, v in late.items():
            by_gpc[gpc[sm]].append(v)
        gpc_mean = {g: statistics.fmean(v) for g, v in by_gpc.items()}
        shares.append(sum(len(by_gpc[g]) * (gpc_mean[g] - mean) ** 2 for g in by_gpc) / len(late) / total)
        for r, g in enumerate(sorted(gpc_mean, key=gpc_mean.get)):
            ranks[g].append(r)
        first = min(gpc_mean.values())
        print(f"{m}x{n}x{k} {bm}x{bn}x{bk} group {group_m} stages {stages} warps {warps}, wave {w}: SMs spread "
              f"{max(late.values()) - min(late.values()):.2f} tiles, GPCs' share {shares[-1]:.2f}, GPCs behind the "
              f"first " + " ".join(f"{gpc_mean[g] - first:.2f}" for g in sorted(gpc_mean)))
    if shares:
        q = statistics.quantiles(shares, n=4)
        print(f"{len(shares)} launches: the GPCs' share of the SMs' variance median {statistics.median(shares):.2f} "
              f"(p25 {q[0]:.2f}, p75 {q[2]:.2f}); mean rank by GPC (0 first .. 7 last): " +
              " ".join(f"{g}: {statistics.fmean(r):.2f}" for g, r in sorted(ranks.items())))


def convoys(paths):
    """Whether a many-wave launch's later waves start as convoys of one GPC: per launch (first
    repeat) of 4+ full waves, over every launch position from the third wave on, the share of
    neighbouring positions whose SMs share a GPC (sm_partition.gpc_of_sm; 1/8 where the GPCs
    are dealt at random), the median start gap of those neighbours, and the gap a wave spread
    evenly over its width would give (its p10-p90 spread over 0.8, over the slots), in
    iterations of the median tile. The model's resident tiles: one an SM with 3-5 stages is
    where the model lets each SM keep a speed of its own (derived_wave_growth)."""
    import collections
    import statistics
    from sm_partition import gpc_of_sm
    gpc = gpc_of_sm(os.path.join(HERE, "h200"))
    classes = collections.defaultdict(list)
    for key, tiles, tile, slots in many_wave_launches(paths):
        m, n, k, bm, bn, bk, group_m, stages, warps, rep = key
        iteration = tile / (k // bk)
        last = len(tiles) // slots * slots
        same, gaps, even = 0, [], []
        for p in range(2 * slots, last - 1):
            if gpc[tiles[p][2]] == gpc[tiles[p + 1][2]]:
                same += 1
                gaps.append(abs(tiles[p + 1][0] - tiles[p][0]) / iteration)
        for w in range(2, last // slots):
            starts = sorted(tiles[p][0] for p in range(w * slots, (w + 1) * slots))
            even.append((starts[int(0.9 * slots)] - starts[int(0.1 * slots)]) / 0.8 / slots / iteration)
        share = same / (last - 1 - 2 * slots)
        cls = ("one tile an SM, 3-5 stages" if slots == 132 and stages >= 3
               else "one tile an SM, 2 stages" if slots == 132 else "2+ tiles an SM")
        classes[cls].append(share)
        print(f"{m}x{n}x{k} {bm}x{bn}x{bk} group {group_m} stages {stages} warps {warps}, {len(tiles) / slots:.1f} "
              f"waves, {slots // 132} an SM: neighbours on one GPC {share:.2f}, their median gap "
              f"{statistics.median(gaps) if gaps else float('nan'):.3f} iterations, an even wave's "
              f"{statistics.median(even):.3f}")
    for cls, v in sorted(classes.items()):
        q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
        print(f"{cls}: {len(v)} launches, neighbours on one GPC median {statistics.median(v):.2f} "
              f"(p25 {q[0]:.2f}, p75 {q[2]:.2f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--fit")
    ap.add_argument("--gaps", help="a multi-wave CSV (cta_skew_big.csv.gz): start gaps of tiles sharing B")
    ap.add_argument("--widths", help="a multi-wave CSV: how far apart each wave's tiles start, wave after wave")
    ap.add_argument("--neighbours", nargs="+", help="multi-wave CSVs: how close the tiles sharing a block of A run")
    ap.add_argument("--transitions", nargs="+", help="multi-wave CSVs: odds a tile of a wave's core hands its SM "
                    "to one past the L2's reach, and back")
    ap.add_argument("--gpcs", nargs="+", help="multi-wave CSVs: which SMs fall behind, and how much of it is whole GPCs")
    ap.add_argument("--convoys", nargs="+", help="multi-wave CSVs: whether later waves start as convoys of one GPC")
    ap.add_argument("--growth", nargs="+", help="multi-wave CSVs: the profile's tile_wave_growth (one tile an SM, 3-5 stages)")
    ap.add_argument("--coupling", nargs="+", help="multi-wave CSVs: which group-1 2-stage launches keep the tiles "
                    "sharing a column of B together, against the footprint and the model's own speed")
    ap.add_argument("--by-wave", nargs="+", help="multi-wave CSVs: whether group-1 2-stage launches part by the waves "
                    "they have run (x sqrt(w)) or by x alone")
    ap.add_argument("--wave-times", nargs="+", help="multi-wave CSVs: each wave's time an iteration and B column's "
                    "start gap (group-1 2-stage launches)")
    ap.add_argument("--slopes", nargs="+", help="multi-wave CSVs: each launch's first-wave tile-time sd and how fast "
                    "its waves' start widths grow")
    ap.add_argument("--sharers", nargs="+", help="multi-wave CSVs and --launch: per wave, how far apart the tiles "
                    "reading one block of B and of A start")
    ap.add_argument("--launch", help="M,N,K,block_m,block_n,block_k,group_m,stages,warps for --sharers")
    ap.add_argument("--cli", default=os.path.join(HERE, "..", "..", "build", "bin", "tilesight-cli"))
    ap.add_argument("--profile", default=os.path.join(HERE, "..", "h200.json"))
    ap.add_argument("--set", choices=["corpus", "big", "wide", "small", "fixed", "coherence", "heldout", "heldout5", "heldout6", "waves",
                                          "sample"],
                    default="corpus")
    args = ap.parse_args()
    if args.fit:
        fit(args.fit, args.profile)
        return
    if args.coupling:
        coupling(args.coupling, args.profile, args.cli)
        return
    if args.by_wave:
        by_wave(args.by_wave, args.profile, args.cli)
        return
    if args.sharers:
        sharers(args.sharers, args.launch)
        return
    for given, analysis in ((args.gaps, gaps), (args.widths, widths), (args.growth, growth),
                            (args.transitions, transitions), (args.gpcs, gpcs), (args.convoys, convoys),
                            (args.neighbours, neighbours), (args.wave_times, wave_times),
                            (args.slopes, slopes)):
        if given:
            analysis(given)
            return
    from envinfo import header_lines
    flush_buf = torch.empty(256 * 2**20, device="cuda", dtype=torch.int8)
    name = {"big": "cta_skew_big.csv", "wide": "cta_skew_wide.csv", "small": "cta_skew_small.csv",
                "fixed": "cta_skew_fixed.csv", "coherence": "cta_skew_coherence.csv",
                "heldout": "cta_skew_heldout.csv", "heldout5": "cta_skew_heldout5.csv",
                "heldout6": "cta_skew_heldout6.csv", "waves": "cta_skew_waves.csv",
                "sample": "cta_skew_sample.csv"}.get(args.set, "cta_skew.csv")
    with open(os.path.join(args.out, name), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/cta_skew.py"))
        w_ = csv.writer(f)
        w_.writerow(["case", "M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages",
                     "warps", "rep", "pid", "smid", "t_start_ns", "t_end_ns"])
        cases = {"big": BIG_CASES, "wide": WIDE_CASES, "small": SMALL_CASES, "fixed": FIXED_CASES,
                 "coherence": COHERENCE_CASES, "heldout": HELDOUT_CASES, "heldout5": HELDOUT5_CASES,
                 "heldout6": HELDOUT6_CASES, "waves": WAVES_CASES}
        if args.set == "sample":
            traced = {c[1:] for group in (CASES, BIG_CASES, WIDE_CASES, COHERENCE_CASES, HELDOUT_CASES) for c in group}
            cases["sample"] = sample_cases(traced)
        for case in cases.get(args.set, CASES):
            try:
                run_case(case, w_, flush_buf, reps=1 if args.set in ("sample", "waves") else 3)
            except Exception as e:  # noqa: BLE001
                print("skip", case, type(e).__name__, e, flush=True)
            f.flush()


if __name__ == "__main__":
    main()
