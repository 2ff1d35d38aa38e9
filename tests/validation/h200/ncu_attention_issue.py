#!/usr/bin/env python3
"""CUDA-core work per score of Triton's FlashAttention loop on the H200 (issue 6: the
template's softmax cost, engine/src/kernels/attention_lift.cpp).

One problem outside attention_triton.csv's (2 x 16 heads x 2048, non-causal), twelve tile
configs at 3 stages that vary block_n (32-128), head_dim (64, 128), block_m and warps apart,
so that a per-score term and a per-O-element term (head_dim / block_n per score) separate.
Each config's kernel runs once under one `ncu --clock-control none` process; counters are
absolute sums (pipe cycles and instructions over all SM sub-partitions) and the elapsed SM
cycles, so no clock is assumed.

CSV (ncu_attention_issue.csv): batch, heads, seq, head_dim, block_m, block_n, warps, stages,
then one column per metric as ncu gives it, then per_32_scores_fma_alu (FMA plus ALU pipe
cycles active per 32 scores: the metric the template reads), per_32_scores_xu (XU
instructions per 32 scores) and per_32_scores_inst (all warp instructions per 32 scores).
Usage: python3 ncu_attention_issue.py --out DIR
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

METRICS = [
    "gpu__time_duration.sum",
    "sm__cycles_elapsed.avg",
    "sm__pipe_fma_cycles_active.sum",
    "sm__pipe_alu_cycles_active.sum",
    "smsp__inst_executed_pipe_fma.sum",
    "smsp__inst_executed_pipe_alu.sum",
    "smsp__inst_executed_pipe_xu.sum",
    "smsp__inst_executed.sum",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
]
PROBLEM = (2, 16, 2048)  # batch, heads, seq; non-causal
# (head_dim, block_m, block_n, warps), stages 3
CONFIGS = [
    (64, 128, 32, 4), (64, 128, 64, 4), (64, 128, 128, 4), (64, 64, 128, 4), (64, 64, 64, 8),
    (128, 128, 32, 4), (128, 128, 64, 4), (128, 64, 128, 4), (128, 64, 32, 4),
    (128, 128, 128, 8), (128, 64, 64, 8), (128, 128, 64, 8),
]


def target():
    import torch
    from attention_triton import launch
    B, H, S = PROBLEM
    for d, bm, bn, w in CONFIGS:
        q, k, v = (torch.randn(B, H, S, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = torch.empty_like(q)
        launch(q, k, v, o, False, dict(block_m=bm, block_n=bn, warps=w, stages=3))
        torch.cuda.synchronize()


def parse(text):
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, data = rows[0], rows[2:]
    return [dict(zip(header, r)) for r in data if len(r) == len(header)]


def num(s):
    return float(str(s).replace(",", ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--target", action="store_true")
    args = ap.parse_args()
    if args.target:
        target()
        return
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    log = os.path.join(args.out, "ncu_attention_issue.log")
    cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name",
           "regex:attn_fwd", "--csv", "--page", "raw", "--log-file", log, "--metrics",
           ",".join(METRICS), sys.executable, os.path.abspath(__file__), "--target"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
    print("rc", p.returncode, p.stderr[-2000:], flush=True)
    rows = parse(open(log).read())
    print("kernels", len(rows), flush=True)
    from envinfo import header_lines
    B, H, S = PROBLEM
    out = os.path.join(args.out, "ncu_attention_issue.csv")
    with open(out, "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/ncu_attention_issue.py"))
        f.write("# problem: batch 2, heads 16, seq 2048, non-causal, bf16, stages 3; one launch per config under ncu\n")
        fields = ["batch", "heads", "seq", "head_dim", "block_m", "block_n", "warps", "stages"] + METRICS + [
            "per_32_scores_fma_alu", "per_32_scores_xu", "per_32_scores_inst"]
        wr = csv.DictWriter(f, fieldnames=fields)
        wr.writeheader()
        for (d, bm, bn, w), r in zip(CONFIGS, rows):
            rows32 = B * H * S * S / 32.0
            row = dict(batch=B, heads=H, seq=S, head_dim=d, block_m=bm, block_n=bn, warps=w, stages=3)
            for m in METRICS:
                row[m] = r.get(m, "")
            try:
                row["per_32_scores_fma_alu"] = "%.3f" % ((num(r["sm__pipe_fma_cycles_active.sum"]) +
                                                          num(r["sm__pipe_alu_cycles_active.sum"])) / rows32)
                row["per_32_scores_xu"] = "%.3f" % (num(r["smsp__inst_executed_pipe_xu.sum"]) / rows32)
                row["per_32_scores_inst"] = "%.3f" % (num(r["smsp__inst_executed.sum"]) / rows32)
            except (KeyError, ValueError):
                pass
            wr.writerow(row)
            print(row, flush=True)


if __name__ == "__main__":
    main()
