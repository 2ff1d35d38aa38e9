#!/usr/bin/env python3
"""What Triton's 64-row FlashAttention tile on 8 warps (the column split) and num_stages 2 run
on the H200 (docs/attention-model.md: both read 1.2-1.36x and 0.9x of the model's time on the
corpus and on attention_triton_heldout.csv).

One problem outside the corpora (2 x 16 heads x 2048, head_dim 64, non-causal), nine configs:
the column split (BLOCK_M 64, 8 warps) at BLOCK_N 32/64/128 and 2/3 stages, against row-split
tiles (BLOCK_M 64 on 4 warps, BLOCK_M 128 on 4 and 8). Two outputs:

  --ptx DIR     each config's PTX and TTGIR (DIR/<config>.ptx, .ttgir) and a summary,
                DIR/ncu_attention_split_ptx.csv: the wgmma instructions of the loop by shape, its
                cp.async copies and bar.syncs (--summarize DIR redoes the summary)
  --out DIR     one launch per config under `ncu --set full` (counters of every section, raw
                page) -> DIR/ncu_attention_split_raw.csv, and a compact CSV of the counters
                named in KEEP -> DIR/ncu_attention_split.csv

Usage: python3 ncu_attention_split.py --ptx DIR ; python3 ncu_attention_split.py --out DIR
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

PROBLEM = (2, 16, 2048, 64)  # batch, heads, seq, head_dim; non-causal
# (block_m, block_n, warps, stages)
CONFIGS = [(64, 32, 8, 2), (64, 32, 8, 3), (64, 64, 8, 2), (64, 64, 8, 3), (64, 128, 8, 3),
           (64, 64, 4, 3), (128, 64, 4, 2), (128, 64, 4, 3), (128, 64, 8, 3)]
KEEP = ["gpu__time_duration.sum", "sm__cycles_elapsed.avg", "launch__registers_per_thread",
        "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
        "sm__warps_active.avg.per_cycle_active", "smsp__inst_executed.sum",
        "sm__inst_executed_pipe_tensor_op_gmma.sum", "sm__pipe_tensor_op_gmma_cycles_active.sum",
        "sm__inst_executed_pipe_tensor_op_hmma.sum", "sm__pipe_tensor_op_hmma_cycles_active.sum",
        "smsp__inst_executed_pipe_xu.sum", "sm__pipe_fma_cycles_active.sum", "sm__pipe_alu_cycles_active.sum",
        "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "smsp__inst_executed_op_ldgsts.sum",
        "smsp__average_warp_latency_issue_stalled_barrier", "smsp__average_warp_latency_issue_stalled_long_scoreboard",
        "smsp__average_warp_latency_issue_stalled_wait", "smsp__average_warp_latency_issue_stalled_math_pipe_throttle",
        "smsp__average_warp_latency_issue_stalled_short_scoreboard", "smsp__average_warp_latency_issue_stalled_mio_throttle",
        "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio",
        "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
        "smsp__issue_active.avg.per_cycle_active"]


def name(c):
    return "bm%d_bn%d_w%d_s%d" % c


def tensors():
    import torch
    B, H, S, D = PROBLEM
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    return q, k, v, torch.empty_like(q)


def target():
    import torch
    from attention_triton import launch
    q, k, v, o = tensors()
    for bm, bn, w, s in CONFIGS:
        launch(q, k, v, o, False, dict(block_m=bm, block_n=bn, warps=w, stages=s))
        torch.cuda.synchronize()


def dump_ptx(out):
    import torch
    from attention_triton import launch
    os.makedirs(out, exist_ok=True)
    q, k, v, o = tensors()
    for c in CONFIGS:
        bm, bn, w, s = c
        kern = launch(q, k, v, o, False, dict(block_m=bm, block_n=bn, warps=w, stages=s))
        torch.cuda.synchronize()
        for ext in ("ptx", "ttgir"):
            with open(os.path.join(out, name(c) + "." + ext), "w") as f:
                f.write(kern.asm[ext])
    summarize_ptx(out)


def summarize_ptx(out):
    """DIR/ncu_attention_split_ptx.csv: per config, the loop's wgmma instructions by shape (static
    count in the PTX, one warp group's per key block) and its cp.async copies and bar.syncs."""
    import re
    with open(os.path.join(out, "ncu_attention_split_ptx.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["block_m", "block_n", "warps", "stages", "wgmma_shapes", "cp_async", "bar_sync"])
        for c in CONFIGS:
            ptx = open(os.path.join(out, name(c) + ".ptx")).read()
            shapes = {}
            for m in re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", ptx):
                shapes[m] = shapes.get(m, 0) + 1
            w.writerow(list(c) + [" ".join(f"{n}x{s}" for s, n in sorted(shapes.items())),
                                  ptx.count("cp.async.cg") + ptx.count("cp.async.ca"), ptx.count("bar.sync")])


def profile(out):
    os.makedirs(out, exist_ok=True)
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    raw = os.path.join(out, "ncu_attention_split_raw.csv")
    cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name", "regex:attn_fwd",
           "--set", "full", "--csv", "--page", "raw", "--log-file", raw, sys.executable,
           os.path.abspath(__file__), "--target"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=500)
    print("rc", p.returncode, p.stderr[-1500:], flush=True)
    from ncu_run import parse_ncu
    rows = parse_ncu(open(raw).read())
    from envinfo import header_lines
    with open(os.path.join(out, "ncu_attention_split.csv"), "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/ncu_attention_split.py"))
        f.write("# problem: batch 2, heads 16, seq 2048, head_dim 64, non-causal, bf16; one launch per "
                "config under ncu --set full\n")
        wr = csv.writer(f)
        wr.writerow(["block_m", "block_n", "warps", "stages"] + KEEP)
        for c, r in zip(CONFIGS, rows):
            wr.writerow(list(c) + [f"{r[m]:.6g}" if isinstance(r.get(m), float) else r.get(m, "") for m in KEEP])
    print("kernels", len(rows), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--ptx")
    ap.add_argument("--summarize")
    ap.add_argument("--target", action="store_true")
    a = ap.parse_args()
    if a.target:
        target()
    elif a.summarize:
        summarize_ptx(a.summarize)
    elif a.ptx:
        dump_ptx(a.ptx)
    else:
        profile(a.out)


if __name__ == "__main__":
    main()
