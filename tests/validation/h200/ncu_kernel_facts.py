#!/usr/bin/env python3
"""Launches for ncu: what the compiled kernels behind two corpora really do.

Run under `ncu --profile-from-start off` (see run_ncu_facts.sh): each case is warmed up
outside the profiled range, then launched once between cudaProfilerStart/Stop, so the
ncu report holds exactly one profiled launch group per case, in the order printed here.

Sets:
  norms - every (kernel, rows, cols) of norms.csv: PyTorch's rms_norm, layer_norm, softmax,
          silu * up, add (bf16), the same calls as norms.py
  spills - Triton GEMM configs that spill registers, with local-memory metrics
  overflow - B-staged tiles whose accumulators pass the registers, 2-wave grids and one-wave twins
  aonly - A alone staged, unspilled, beside aligned and B-staged twins
  nt - BLOCK_K 32 bf16 tiles with B stored N x K beside their K x N twins
  fp8 - 128x256 fp8 tiles on 8 warps the model reads 0.63-0.75, beside ones it reads right
  lane - grouped launches bound by the L2 lane that run slower than the model once it merges
          their requests as ncu counts (the measured SM-to-partition map), beside group-1 twins
  ranks - the fastest configs of 3000x5000x2048 (256x64, B staged, spilling), which the model
          reads 1.1-1.4x, beside twins and the rows it reads most off the other way
  unaligned - the unaligned held-out set's worst rows (spilling, read 0.31-0.47 and 1.73), with
          unspilled neighbours
  carveout - spilling A-staged tiles at 2 and 3+ stages, where the L1 beside the carve-out
          goes from 124 to 28 KiB and the time doubles
  staged - 3000x5000x2048 and 2500x7000x3000 configs with an operand staged through registers
          whose time the stage count moves 1.7x (64x64x128 w8: 1050 us at 2 stages, 1801 at 5)
  softmaxw - softmax of rows of 512-2048 bf16 (PyTorch's softmax_warp_forward, a warp a row)
  shortrows - rms_norm, layer_norm and add of rows of 512-2048 bf16
  stages - the same BLOCK_K 32 tile configs at 2 to 5 stages, where more stages measure slower
          in triton_gemm.csv on compute-heavy shapes and faster on latency-bound ones
  gemm  - Triton tutorial-03 GEMM configs of triton_gemm.csv whose predictions differ most
          from the measurement, each beside an aligned twin (same tile config, M/N/K rounded
          to multiples of 128), to see what unaligned strides and 2-stage loops compile to
Output (stdout): "CASE <index> <set> <label>" lines before each profiled launch.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

GEMM_CASES = [
    # M, N, K, block_m, block_n, block_k, group_m, stages, warps
    (3000, 5000, 2048, 128, 64, 32, 1, 3, 4),
    (3072, 5120, 2048, 128, 64, 32, 1, 3, 4),
    (2500, 7000, 3000, 128, 64, 32, 1, 2, 4),
    (2560, 7040, 3072, 128, 64, 32, 1, 2, 4),
    (1024, 1024, 16384, 128, 64, 32, 1, 2, 4),
    (1024, 1024, 16384, 128, 128, 64, 8, 5, 4),
    (4096, 4096, 4096, 128, 128, 64, 8, 5, 4),
    (4096, 4096, 4096, 64, 256, 64, 8, 5, 8),
    (8192, 128, 8192, 128, 64, 32, 1, 2, 4),
    (4096, 16, 4096, 64, 128, 64, 1, 2, 4),
]

# Configs whose compiled kernels spill (triton_gemm.csv n_spills 138-1042): what the local
# memory traffic is per iteration, beside an unspilled neighbour.
SPILL_CASES = [
    (4096, 4096, 4096, 128, 256, 64, 8, 4, 4),
    (4096, 4096, 4096, 128, 256, 64, 8, 4, 8),
    (4096, 4096, 4096, 256, 128, 32, 1, 5, 4),
    (4096, 4096, 4096, 256, 128, 32, 8, 5, 8),
    (3000, 5000, 2048, 64, 256, 128, 1, 2, 4),
    (2500, 7000, 3000, 256, 128, 64, 1, 2, 4),
]

# Configs with an operand staged through registers that also spill (n_spills 156-340): is
# their local traffic per iteration 2 x 4 B x n_spills x threads, as for the cp.async ones?
# Beside them, 2-stage BLOCK_K 128 loops (hw_profiles/calibrate/h200/loop_variants.csv: round
# trip + fill + MMA per iteration) and a 3-stage BLOCK_K 64 neighbour.
EXTRA_CASES = [
    (3000, 5000, 2048, 256, 64, 32, 1, 3, 4),
    (2500, 7000, 3000, 256, 64, 32, 1, 2, 4),
    (3000, 5000, 2048, 256, 128, 32, 1, 4, 8),
    (2500, 7000, 3000, 256, 64, 64, 1, 5, 4),
    (3000, 5000, 2048, 128, 128, 32, 1, 3, 4),
    (2500, 7000, 3000, 128, 128, 64, 1, 5, 4),
    (4096, 4096, 4096, 128, 256, 128, 1, 2, 8),
    (4096, 4096, 4096, 128, 128, 128, 1, 2, 4),
    (4096, 4096, 4096, 128, 256, 64, 1, 3, 8),
]

# BLOCK_K 32 configs of triton_gemm.csv at two or three stage counts each: on the large shapes
# the measured time stays flat or grows with stages (8192^3 64x128x32 w4: 3122, 3075, 3495 us
# at 2, 3, 5), on the latency-bound skinny one it falls 3x (16x4096x4096: 98 -> 34 us).
STAGE_CASES = [
    (8192, 8192, 8192, 64, 128, 32, 1, 2, 4),
    (8192, 8192, 8192, 64, 128, 32, 1, 3, 4),
    (8192, 8192, 8192, 64, 128, 32, 1, 5, 4),
    (8192, 8192, 8192, 128, 128, 32, 1, 3, 4),
    (8192, 8192, 8192, 128, 128, 32, 1, 5, 4),
    (2048, 2048, 32768, 128, 128, 32, 1, 3, 4),
    (2048, 2048, 32768, 128, 128, 32, 1, 5, 4),
    (2048, 2048, 32768, 64, 128, 32, 1, 2, 8),
    (2048, 2048, 32768, 64, 128, 32, 1, 4, 8),
    (8192, 8192, 28672, 64, 128, 32, 1, 2, 4),
    (8192, 8192, 28672, 64, 128, 32, 1, 3, 4),
    (4096, 28672, 8192, 128, 128, 32, 1, 3, 4),
    (4096, 28672, 8192, 128, 128, 32, 1, 5, 4),
    (16, 4096, 4096, 64, 128, 32, 1, 2, 4),
    (16, 4096, 4096, 64, 128, 32, 1, 5, 4),
    (4096, 4096, 4096, 128, 128, 64, 1, 3, 4),
    (4096, 4096, 4096, 128, 128, 64, 1, 5, 4),
]

# Unaligned configs (B, or A and B, staged through registers) where the stage count changes
# the time far more than the model's loop allows (triton_gemm.csv).
STAGED_CASES = [
    (3000, 5000, 2048, 64, 64, 128, 1, 2, 8),
    (3000, 5000, 2048, 64, 64, 128, 1, 5, 8),
    (3000, 5000, 2048, 64, 64, 128, 1, 3, 4),
    (3000, 5000, 2048, 64, 64, 64, 8, 3, 4),
    (3000, 5000, 2048, 128, 64, 128, 8, 2, 4),
    (3000, 5000, 2048, 128, 64, 128, 8, 3, 8),
    (2500, 7000, 3000, 64, 64, 128, 1, 3, 4),
    (2500, 7000, 3000, 64, 128, 32, 1, 2, 4),
]


# B staged with accumulators past the registers (3000 x 5000 x 2048: 2 waves, two tiles an SM),
# read 0.48-0.67 by the model, beside their one-wave twins on 2048 x 2040 x 2048
# (spill_timing.csv, read 0.88-1.12): where the local traffic goes (DRAM or L2) and how much.
# The ranks of 3000x5000x2048 (issue 5, per-shape Spearman 0.822): its fastest configs, B staged
# through registers with 162-186 spills (256x64x64: measured 400-494 us, the model 521-660),
# beside the 2500x7000x3000 twin the model reads right (1.02), an aligned twin, and the two
# the model reads most off the other way (128x256x32 g8 w4 0.66; 128x64x128 g8 s2 1.28).
RANKS_CASES = [
    (3000, 5000, 2048, 256, 64, 64, 1, 3, 4),
    (3000, 5000, 2048, 256, 64, 64, 1, 4, 4),
    (3000, 5000, 2048, 256, 64, 32, 8, 3, 4),
    (2500, 7000, 3000, 256, 64, 64, 1, 3, 4),
    (3072, 5120, 2048, 256, 64, 64, 1, 3, 4),
    (3000, 5000, 2048, 128, 256, 32, 8, 2, 4),
    (3000, 5000, 2048, 128, 64, 128, 8, 2, 4),
    (3000, 5000, 2048, 128, 64, 32, 1, 3, 4),
]

# The unaligned held-out set's worst rows (triton_gemm_unaligned_heldout.csv, MAPE 18.6%): spilling
# configs the model reads 0.31-0.47 (3500x6000x2500: 128x128x64 w4 with 30 spills at 0.43) and
# 1.73 (1800x5400x3400 128x256x64 g8 w4), beside unspilled neighbours it reads right.
UNALIGNED_CASES = [
    (3500, 6000, 2500, 128, 128, 64, 1, 5, 4),
    (3500, 6000, 2500, 64, 256, 128, 1, 2, 4),
    (3500, 6000, 2500, 128, 64, 128, 8, 2, 4),
    (3500, 6000, 2500, 128, 256, 128, 1, 2, 8),
    (3500, 6000, 2500, 256, 128, 64, 1, 2, 4),
    (1800, 5400, 3400, 128, 256, 64, 8, 2, 4),
    (3500, 6000, 2500, 128, 64, 32, 1, 3, 4),
    (1800, 5400, 3400, 128, 64, 32, 1, 3, 4),
]

# Spilling A-staged tiles whose time doubles from 2 to 3 stages with the same spills and residency
# (hw_profiles/calibrate/h200/staged_a_timing.csv, 2048x3072x2040: 128x128x64 w4 236 -> 460 us,
# 256x64x64 w4 724 -> 1048 us) where the carve-out goes from 132 to 228 KiB (L1 124 -> 28 KiB):
# whether their spill reloads hit L1 when it has room.
CARVEOUT_CASES = [
    (2048, 3072, 2040, 128, 128, 64, 1, 2, 4),
    (2048, 3072, 2040, 128, 128, 64, 1, 3, 4),
    (2048, 3072, 2040, 256, 64, 64, 1, 2, 4),
    (2048, 3072, 2040, 256, 64, 64, 1, 3, 4),
    (3500, 6000, 2500, 128, 128, 64, 1, 2, 4),
    (3500, 6000, 2500, 128, 128, 64, 1, 5, 4),
]

OVERFLOW_CASES = [
    (3000, 5000, 2048, 128, 256, 64, 8, 2, 4),
    (3000, 5000, 2048, 128, 256, 32, 8, 2, 4),
    (3000, 5000, 2048, 256, 256, 64, 1, 2, 8),
    (3000, 5000, 2048, 256, 128, 64, 1, 2, 4),
    (2048, 2040, 2048, 128, 256, 64, 1, 3, 4),
    (2048, 2040, 2048, 128, 256, 32, 1, 4, 4),
    (2048, 2040, 2048, 256, 256, 32, 1, 2, 8),
    (2048, 2040, 2048, 256, 128, 128, 1, 2, 4),
]


# A alone staged (K 2040, B copied) without spills, which staged_a_timing.csv times at 0.72-0.92
# of the model, beside the same tiles with K aligned (2048) and with B staged (N 3000).
AONLY_CASES = [
    (2048, 3072, 2040, 64, 128, 64, 1, 3, 4),
    (2048, 3072, 2048, 64, 128, 64, 1, 3, 4),
    (2048, 3000, 2048, 64, 128, 64, 1, 3, 4),
    (2048, 3072, 2040, 128, 64, 64, 1, 3, 8),
    (2048, 3072, 2048, 128, 64, 64, 1, 3, 8),
    (2048, 3072, 2040, 128, 128, 128, 1, 3, 8),
    (2048, 3072, 2048, 128, 128, 128, 1, 3, 8),
]


# Grouped (group_m 8) launches of triton_gemm.csv that the model reads 0.71-0.86 once neighbouring
# tiles merge their requests as ncu counts (docs/cache-model.md, "Where a launch's CTAs run"):
# 4096 x 4096 x 14336 128x64x128 g8 s2 moves 8.5 TB/s of requested bytes, the L2's plateau,
# though 19% of them merge. Beside them their group-1 twins and a deeper-pipelined neighbour:
# what holds them, the L2's throughput or the loop's round trip?
LANE_CASES = [
    (4096, 4096, 14336, 128, 64, 128, 8, 2, 4),
    (4096, 4096, 14336, 128, 64, 128, 1, 2, 4),
    (8192, 8192, 8192, 128, 64, 128, 8, 2, 4),
    (8192, 8192, 8192, 128, 64, 128, 8, 4, 8),
    (4096, 28672, 8192, 64, 128, 64, 8, 4, 4),
    (4096, 28672, 8192, 64, 128, 64, 1, 4, 4),
    (8192, 8192, 28672, 64, 64, 64, 8, 2, 4),
    (4096, 4096, 4096, 128, 64, 128, 8, 2, 4),
]


# fp8 (e4m3, B stored N x K) launches of triton_gemm_fp8_heldout.csv: 128x256 tiles on 8 warps
# run at 0.63-0.75 of the model's time (620-960 TFLOP/s measured on 8192^3, where 128x128x128 on
# 4 warps reaches 1141), beside tiles it reads right and the bf16 twin of one of them.
FP8_CASES = [
    (8192, 8192, 8192, 128, 256, 64, 1, 5, 8, "fp8"),
    (8192, 8192, 8192, 128, 256, 128, 1, 4, 8, "fp8"),
    (8192, 8192, 8192, 128, 256, 32, 8, 4, 8, "fp8"),
    (8192, 8192, 8192, 128, 128, 128, 8, 4, 4, "fp8"),
    (8192, 8192, 8192, 256, 64, 128, 8, 3, 8, "fp8"),
    (8192, 8192, 8192, 64, 256, 128, 8, 3, 8, "fp8"),
    (8192, 8192, 8192, 128, 256, 64, 1, 4, 8, "bf16"),
]


# bf16 with B stored N x K (triton_gemm_nt_heldout.csv): BLOCK_K 32 tiles in row-major launch
# order run 1.2-1.6x as long as with B stored K x N on 8192^3 and read 0.68-0.80 of the model,
# while 64x128x32 at 2 stages runs faster; each beside its K x N twin.
NT_CASES = [
    (8192, 8192, 8192, 64, 128, 32, 1, 4, 8, "bf16", "nt"),
    (8192, 8192, 8192, 64, 128, 32, 1, 4, 8, "bf16", "nn"),
    (8192, 8192, 8192, 128, 128, 32, 1, 4, 8, "bf16", "nt"),
    (8192, 8192, 8192, 128, 128, 32, 1, 4, 8, "bf16", "nn"),
    (8192, 8192, 8192, 64, 128, 32, 1, 2, 4, "bf16", "nt"),
    (8192, 8192, 8192, 64, 128, 32, 1, 2, 4, "bf16", "nn"),
]


# PyTorch's softmax of rows up to 2048 bf16 elements (4 KiB) runs softmax_warp_forward, one
# warp a row, not the 1024-thread block of norms.csv's rows (none that short there).
SOFTMAX_WARP_SHAPES = [(16384, 512), (16384, 1024), (16384, 2048), (65536, 512), (65536, 1024),
                       (65536, 2048)]


def softmax_warp_cases():
    from norms import make
    for (R, C) in SOFTMAX_WARP_SHAPES:
        yield f"softmax rows={R} cols={C} bf16", (lambda R=R, C=C: make("softmax", R, C)[0])


# The norms and add on rows of 512-2048 (norms.csv's rows are 4096 and longer): whether the
# per-row instruction count measured there holds for short rows.
SHORT_ROW_SHAPES = [(16384, 512), (16384, 1024), (16384, 2048)]


def short_row_cases():
    from norms import make
    for (R, C) in SHORT_ROW_SHAPES:
        for k in ("rmsnorm", "layernorm", "add"):
            yield f"{k} rows={R} cols={C} bf16", (lambda k=k, R=R, C=C: make(k, R, C)[0])


# SiLU(gate) x up on the two halves of one [rows, 2 cols] tensor, as a decode step's MLP runs it
# (llm_decode.py: `(h @ Wgu).chunk(2)`): strided inputs, so PyTorch's non-vectorised
# elementwise_kernel<128, 4> (llm_decode_kernels.csv at batch 8 and more). Two kernels a case.
STRIDED_EW_SHAPES = [(8, 14336), (128, 14336), (2048, 14336), (128, 4096)]


def strided_ew_cases():
    import torch.nn.functional as F
    for (R, C) in STRIDED_EW_SHAPES:
        def build(R=R, C=C):
            g, u = torch.randn(R, 2 * C, device="cuda", dtype=torch.bfloat16).chunk(2, dim=-1)
            return lambda: F.silu(g) * u
        yield f"silu_mul_strided rows={R} cols={C} bf16", build


def norms_cases():
    from norms import SHAPES, KERNELS, make
    for (R, C) in SHAPES:
        for k in KERNELS:
            yield f"{k} rows={R} cols={C} bf16", (lambda k=k, R=R, C=C: make(k, R, C)[0])


def gemm_cases(cases=None):
    from triton_gemm_sweep import launch, operands
    for case in (cases or GEMM_CASES):
        (M, N, K, bm, bn, bk, g, s, w), dtype = case[:9], (case[9] if len(case) > 9 else "bf16")
        layout = case[10] if len(case) > 10 else "nn"
        def build(M=M, N=N, K=K, dtype=dtype, layout=layout, cfg=dict(block_m=bm, block_n=bn, block_k=bk,
                                                                           group_m=g, stages=s, warps=w)):
            a, b, c = operands(M, N, K, dtype, layout)
            return lambda: launch(a, b, c, cfg)
        suffix = ("" if dtype == "bf16" else f" {dtype}") + ("" if len(case) <= 10 else f" {layout}")
        yield f"gemm M={M} N={N} K={K} {bm}x{bn}x{bk} g{g} s{s} w{w}{suffix}", build


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=["norms", "gemm", "spills", "extra", "stages", "staged", "softmaxw", "shortrows",
                                      "stridedew", "overflow", "aonly", "lane", "fp8", "nt", "ranks", "unaligned", "carveout"], required=True)
    args = ap.parse_args()
    cases = (norms_cases() if args.set == "norms" else
             softmax_warp_cases() if args.set == "softmaxw" else
             short_row_cases() if args.set == "shortrows" else
             strided_ew_cases() if args.set == "stridedew" else
             gemm_cases(SPILL_CASES) if args.set == "spills" else
             gemm_cases(EXTRA_CASES) if args.set == "extra" else
             gemm_cases(STAGE_CASES) if args.set == "stages" else
             gemm_cases(STAGED_CASES) if args.set == "staged" else
             gemm_cases(OVERFLOW_CASES) if args.set == "overflow" else
             gemm_cases(AONLY_CASES) if args.set == "aonly" else
             gemm_cases(LANE_CASES) if args.set == "lane" else
             gemm_cases(FP8_CASES) if args.set == "fp8" else
             gemm_cases(NT_CASES) if args.set == "nt" else
             gemm_cases(RANKS_CASES) if args.set == "ranks" else
             gemm_cases(UNALIGNED_CASES) if args.set == "unaligned" else
             gemm_cases(CARVEOUT_CASES) if args.set == "carveout" else gemm_cases())
    for i, (label, build) in enumerate(cases):
        try:
            torch.manual_seed(0)
            fn = build()
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            print(f"CASE {i} {args.set} {label}", flush=True)
            torch.cuda.profiler.start()
            fn()
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
        except Exception as exc:
            print(f"FAILED {i} {label}: {type(exc).__name__}: {exc}", flush=True)
        finally:
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
