#!/usr/bin/env python3
"""What holds the 256 x 64 x 64 group-1 4-5 stage loops at their unmerged L2 rate?

docs/cache-model.md, "The timing with ncu's merges": given the merges ncu counts, the model
times every family of Triton GEMMs better, except one. 256 x 64 x 64 at group 1 and 4-5 stages
(one tile an SM) on the large shapes measures 0.596 us an iteration on 8192 x 8192 x 28672,
where ncu merges 0.38 of its requests and the model's lanes with those merges allow 0.474 (the
shared memory's). The same tile on 4096 x 4096 x 14336 runs at 0.497 with about half its
requests merged: there the merges pay. This script profiles the family and its contrasts under
Nsight Compute with the throughput breakdowns of the memory system and the SM (every unit's
share of its peak), the L2 lookups, fills and fabric traffic, the crossbar's deliveries to the
SMs and the warps' stall reasons, to see which unit is busy where the model has none.

  python3 tests/validation/h200/ncu_lane_limit.py --out DIR    (on the GPU, ~3 min)
  python3 tests/validation/h200/ncu_lane_limit.py target       (what ncu runs)

Writes DIR/ncu_lane_limit.csv: one row a case, the case's key then every metric ncu gave
(the breakdowns' sub-metrics included, in base units), and DIR/ncu_lane_limit_raw.csv, ncu's
log. Where ncu refuses a metric the run is repeated with fewer (EXTRA, then the breakdowns, left
out), so that one unknown name cannot cost the run.
"""
import argparse
import csv
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

# (M, N, K, block_m, block_n, block_k, group_m, stages, warps)
CASES = [
    (8192, 8192, 28672, 256, 64, 64, 1, 4, 4),   # the family: ncu's merges time it 12-18% fast
    (8192, 8192, 28672, 256, 64, 64, 1, 5, 4),
    (4096, 28672, 8192, 256, 64, 64, 1, 5, 4),
    (12288, 12288, 4096, 256, 64, 64, 1, 5, 4),
    (4096, 4096, 14336, 256, 64, 64, 1, 4, 4),   # the same tile where the merges pay
    (4096, 4096, 14336, 256, 64, 64, 1, 5, 4),
    (8192, 8192, 28672, 256, 64, 64, 8, 4, 4),   # grouped: B reused within the wave
    (8192, 8192, 28672, 128, 128, 64, 1, 4, 4),  # another one-tile loop on the same shape
]

BREAKDOWNS = ["breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
              "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed"]
# Metrics earlier scripts ran on the H200 (ncu_l2, ncu_fabric, ncu_hot_columns, ncu_attention_*).
METRICS = ["gpu__time_duration.sum", "launch__grid_size", "sm__cycles_elapsed.avg.per_second",
           "dram__bytes_read.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
           "lts__t_sectors.avg.pct_of_peak_sustained_elapsed", "lts__t_sectors.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "lts__t_requests_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_ltcfabric.sum",
           "lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum", "l1tex__m_xbar2l1tex_read_sectors.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
           "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
           "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
           "smsp__warp_issue_stalled_barrier_per_warp_active.pct",
           "smsp__warp_issue_stalled_wait_per_warp_active.pct",
           "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct",
           "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct",
           "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct",
           "smsp__warp_issue_stalled_sleeping_per_warp_active.pct"]
# Not run here before: the L2's data banks (fills included) and the crossbar's ports. If ncu
# refuses one of them (or a breakdown), the run is repeated without.
EXTRA = ["lts__d_sectors.sum", "lts__d_sectors.avg.pct_of_peak_sustained_elapsed",
         "lts__d_sectors_fill_device.sum", "lts__d_sectors_fill_sysmem.sum",
         "l1tex__m_xbar2l1tex_read_bytes.sum.per_second",
         "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed",
         "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed"]


def target():
    import torch
    from triton_gemm_sweep import launch
    for c in CASES:
        M, N, K, bm, bn, bk, g, st, w = c
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
        del a, b, out
        torch.cuda.empty_cache()


def run(args):
    from envinfo import header_lines
    from ncu_run import profile_cases
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    target()  # compile every case outside ncu
    raw = os.path.join(args.out, "ncu_lane_limit_raw.csv")
    for metrics in (METRICS + EXTRA + BREAKDOWNS, METRICS + BREAKDOWNS, METRICS):
        ok, rows = profile_cases(__file__, metrics, raw, args.timeout, fields=9)
        if rows:
            break
        print("no rows with", len(metrics), "metrics: again with fewer", flush=True)
    cols = []
    for d in rows:
        for k, v in d.items():
            if isinstance(v, float) and k not in cols and "__" in k:
                cols.append(k)
    path = os.path.join(args.out, "ncu_lane_limit.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/ncu_lane_limit.py", {
            "method": "ncu --clock-control none --page raw, one launch per case (cold L2)",
            "metrics": ",".join(metrics)}))
        w = csv.writer(f)
        w.writerow(["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps"] + cols)
        for case, d in zip(ok, rows):
            w.writerow(case + [d.get(k, "") for k in cols])
    print(f"wrote {path}: {min(len(ok), len(rows))} rows, {len(cols)} metrics at {time.time() - t0:.1f} s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "target"])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--timeout", type=float, default=480)
    a = ap.parse_args()
    if a.mode == "target":
        target()
    else:
        run(a)


if __name__ == "__main__":
    main()
