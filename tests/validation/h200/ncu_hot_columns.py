#!/usr/bin/env python3
"""Why a GEMM whose N is narrower than its tile runs slower than its mirror (issue 5).

4096 x 16 x 4096 with 64 x 256 x 64 tiles takes 62-108 us in triton_gemm.csv where its
mirror 16 x 4096 x 4096 with the same tiles takes 28-72 us, and the time grows with BLOCK_N
past N. Triton's tutorial kernel wraps B's columns modulo N, so every CTA copies the same
N x 2 bytes of each row BLOCK_N / N times, and all 64 CTAs read the same few lines of B each
iteration. This script launches the corpus kernel once per case under Nsight Compute and
reads the duration, L2 read requests and sectors (with their per-slice maximum: hot slices),
the LDGSTS requests L1 sends, and the warps' stall reasons:

  skinny-N   M = 4096 or 8192, N = 16, 32, 64, BLOCK_M 64, BLOCK_N 64-256, BLOCK_K 64,
             2 and 5 stages, 4 and 8 warps
  mirror     the same with M and N swapped (A's rows wrapped instead)

  depth      (--set depth, ncu_hot_columns_depth.csv) 4096 x 16 x 4096 at BLOCK_N 128 and 256,
             BLOCK_K 32-128, 2-5 stages, 8 warps: how far ahead the loop's copies run

  python3 tests/validation/h200/ncu_hot_columns.py --out DIR [--set depth]   (on the H200, ~30 s)
  python3 tests/validation/h200/ncu_hot_columns.py target        (what ncu runs)
"""
import argparse
import csv
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))


def cases():
    """(set, M, N, K, block_m, block_n, block_k, group_m, stages, warps)."""
    out = []
    for n in (16, 32, 64):
        for bn in (64, 128, 256):
            if bn <= n:
                continue
            for st, w in ((2, 4), (5, 8)):
                out.append(("skinny-N", 4096, n, 4096, 64, bn, 64, 1, st, w))
                out.append(("mirror", n, 4096, 4096, bn, 64, 64, 1, st, w))
    for bn in (64, 128, 256):
        out.append(("skinny-N", 8192, 16, 4096, 64, bn, 64, 1, 5, 8))
    return out


def depth_cases():
    """--set depth: how deep the loop runs ahead, 4096 x 16 x 4096, BLOCK_N 128 and 256,
    BLOCK_K 32-128, 2-5 stages, 8 warps."""
    return [("depth", 4096, 16, 4096, 64, bn, bk, 1, st, 8)
            for bn in (128, 256) for bk in (32, 64, 128) for st in (2, 3, 4, 5)]


CASES = {"main": cases, "depth": depth_cases}


def target(which="main"):
    import torch
    from triton_gemm_sweep import launch
    for c in CASES[which]():
        _, M, N, K, bm, bn, bk, g, st, w = c
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, stages=st, warps=w)
        try:
            launch(a, b, out, cfg)
            torch.cuda.synchronize()
            print("CASE_OK", *c, flush=True)
        except Exception as exc:
            print("CASE_FAIL", *c, type(exc).__name__, flush=True)


METRICS = ["gpu__time_duration.sum", "launch__grid_size",
           "lts__t_requests_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
           "lts__t_sectors_srcunit_tex_op_read.max", "lts__t_sectors_srcunit_tex_op_read.avg",
           "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "smsp__inst_executed_op_ldgsts.sum",
           "sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
           "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
           "smsp__warp_issue_stalled_barrier_per_warp_active.pct",
           "smsp__warp_issue_stalled_wait_per_warp_active.pct",
           "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct",
           "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct",
           "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct",
           "smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct",
           "smsp__warp_issue_stalled_sleeping_per_warp_active.pct",
           "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"]
COLS = ["duration_ns", "grid", "l2_read_requests", "l2_read_sectors", "l2_read_sectors_slice_max",
        "l2_read_sectors_slice_avg", "l2_read_hits", "ldgsts_inst", "ldgsts_requests",
        "stall_long_scoreboard", "stall_barrier", "stall_wait", "stall_lg_throttle", "stall_mio_throttle",
        "stall_math_pipe", "stall_dispatch", "stall_sleeping", "gmma_active_pct", "smem_wavefronts",
        "smem_bank_conflicts"]


def run(args):
    from envinfo import header_lines
    from ncu_run import metric_cells, profile_cases
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    target(args.set)  # compile every case outside ncu
    name = "ncu_hot_columns" if args.set == "main" else f"ncu_hot_columns_{args.set}"
    ok, rows = profile_cases(__file__, METRICS, os.path.join(args.out, f"{name}_raw.csv"), args.timeout,
                             extra=["--set", args.set])
    path = os.path.join(args.out, f"{name}.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/ncu_hot_columns.py", {
            "method": "ncu --clock-control none --page raw, one launch per case (cold L2)",
            "metrics": ",".join(METRICS)}))
        w = csv.writer(f)
        w.writerow(["set", "M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps"] + COLS)
        for case, d in zip(ok, rows):
            w.writerow(case + metric_cells(d, METRICS))
    print(f"wrote {path}: {min(len(ok), len(rows))} rows at {time.time() - t0:.1f} s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "target"])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--timeout", type=float, default=500)
    ap.add_argument("--set", default="main", choices=sorted(CASES))
    a = ap.parse_args()
    if a.mode == "target":
        target(a.set)
    else:
        run(a)


if __name__ == "__main__":
    main()
