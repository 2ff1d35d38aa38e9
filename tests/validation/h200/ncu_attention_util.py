#!/usr/bin/env python3
"""Utilisations of attention kernels under Nsight Compute on the H200 (issue 6: check the
report's Table-4 utilisations - L2 hit, L2, SMEM, tensor core, SFU - against hardware).

Cases: the Triton FlashAttention kernel of attention_triton.py (one tile config per problem)
and torch SDPA under the FLASH_ATTENTION (FA2, mma.sync) and CUDNN_ATTENTION (Hopper wgmma)
backends. Each case runs once in its own `ncu --clock-control none` process; every kernel
whose name matches the attention kernels is profiled (ncu flushes caches between replays).
Metrics are those of WANTED that this ncu knows (`ncu --query-metrics`).

CSV (ncu_attention_util.csv): case, backend, batch, heads, seq, head_dim, causal, block_m,
block_n, warps, stages, kernel, then one column per metric (percent or ns as ncu gives).
Usage: python3 ncu_attention_util.py --out DIR
"""
import argparse
import csv
import io
import math
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

WANTED = [
    "gpu__time_duration.sum",
    "lts__t_sector_hit_rate.pct",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "lts__t_sectors.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
]

# (backend, batch, heads, seq, head_dim, causal, block_m, block_n, warps, stages)
CASES = [
    ("triton", 4, 32, 2048, 128, False, 128, 64, 8, 3),
    ("triton", 4, 32, 2048, 128, True, 128, 64, 8, 3),
    ("triton", 4, 32, 2048, 64, False, 128, 64, 4, 3),
    ("triton", 8, 16, 4096, 128, False, 64, 64, 4, 2),
    ("triton", 1, 16, 16384, 128, False, 128, 128, 8, 2),
    ("flash", 4, 32, 2048, 128, False, 0, 0, 0, 0),
    ("flash", 4, 32, 2048, 128, True, 0, 0, 0, 0),
    ("flash", 8, 16, 4096, 64, False, 0, 0, 0, 0),
    ("cudnn", 4, 32, 2048, 128, False, 0, 0, 0, 0),
    ("cudnn", 4, 32, 2048, 128, True, 0, 0, 0, 0),
    ("cudnn", 8, 16, 4096, 64, False, 0, 0, 0, 0),
]
KERNELS = "regex:attn_fwd|flash|fmha|cudnn|sm90|sm80"


def target(i):
    import torch
    import torch.nn.functional as F
    backend, B, H, S, D, causal, bm, bn, w, st = CASES[i]
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    if backend == "triton":
        from attention_triton import launch
        o = torch.empty_like(q)
        launch(q, k, v, o, causal, dict(block_m=bm, block_n=bn, warps=w, stages=st))
    else:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        be = SDPBackend.FLASH_ATTENTION if backend == "flash" else SDPBackend.CUDNN_ATTENTION
        with sdpa_kernel(be):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    torch.cuda.synchronize()


def parse(text):
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, data = rows[0], rows[2:]
    return [dict(zip(header, r)) for r in data if len(r) == len(header)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--target", type=int)
    args = ap.parse_args()
    if args.target is not None:
        target(args.target)
        return
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    known = subprocess.run([ncu, "--query-metrics", "--csv"], capture_output=True, text=True).stdout
    bases = {ln.split(",")[0].strip('"') for ln in known.splitlines()}
    metrics = [m for m in WANTED if m.split(".")[0] in bases]
    print("metrics:", metrics, "missing:", [m for m in WANTED if m not in metrics], flush=True)
    out_path = os.path.join(args.out, "ncu_attention_util.csv")
    fields = ["case", "backend", "batch", "heads", "seq", "head_dim", "causal", "block_m",
              "block_n", "warps", "stages", "kernel"] + metrics
    with open(out_path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=fields)
        wr.writeheader()
        for i, c in enumerate(CASES):
            log = os.path.join(args.out, f"ncu_attn_{i}.log")
            cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name",
                   KERNELS, "--csv", "--page", "raw", "--log-file", log, "--metrics",
                   ",".join(metrics), sys.executable, os.path.abspath(__file__), "--target", str(i)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            try:
                rows = parse(open(log).read())
                os.remove(log)
            except OSError:
                rows = []
            print(i, c, "rc", p.returncode, "kernels", len(rows), p.stderr[-300:], flush=True)
            for r in rows:
                d = dict(zip(fields[1:11], c), case=i, kernel=r.get("Kernel Name", ""))
                d["causal"] = int(c[5])
                for m in metrics:
                    d[m] = r.get(m, "")
                wr.writerow(d)
                f.flush()


if __name__ == "__main__":
    main()
