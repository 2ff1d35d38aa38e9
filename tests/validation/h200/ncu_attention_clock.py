#!/usr/bin/env python3
"""The SM clock inside attention kernels, and their L2 lookups after the request coalescer,
under Nsight Compute (issue 6).

power_mix.py's probe reads the clock a kernel leaves behind, not the one it ran at; ncu's
sm__cycles_elapsed.avg.per_second is the clock during the launch (`--clock-control none`).
Cases: SDPA's FA2 kernels (d128, d64, a small prefill, the plain decode kernel at batch 8),
cuDNN's and Triton's d128 kernels of ncu_attention_util.csv, and cuBLAS bf16 2048^3 / 8192^3.
Each runs once in its own ncu process (ncu flushes the caches before the launch).
The LRC columns: sectors the L2 request coalescer hands the GPCs (lrc__xbar2gpc) against those
it reads from the L2 slices (lrc__lts2lrc): what it merges never becomes an L2 lookup.

CSV (ncu_attention_clock.csv): case, backend, batch, heads, seq_q, seq_kv, head_dim, kernel,
then one column per metric as ncu gives it.
Usage: python3 ncu_attention_clock.py --out DIR   (about a minute on the H200)
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
    "sm__cycles_elapsed.avg.per_second",
    "sm__cycles_elapsed.avg",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "lts__t_sectors.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "lts__cycles_elapsed.avg.per_second",
    "lrc__xbar2gpc_sectors_op_read.sum",
    "lrc__lts2lrc_sectors_op_read.sum",
    "dram__bytes_read.sum",
]

# (backend, batch, heads, seq_q, seq_kv, head_dim)
CASES = [
    ("flash", 4, 32, 2048, 2048, 128),
    ("flash", 8, 16, 4096, 4096, 64),
    ("flash", 8, 16, 4096, 4096, 128),
    ("flash", 1, 32, 1024, 1024, 128),
    ("flash", 8, 32, 1, 8192, 128),
    ("cudnn", 4, 32, 2048, 2048, 128),
    ("triton", 4, 32, 2048, 2048, 128),
    ("cublas", 2048, 0, 0, 0, 0),
    ("cublas", 8192, 0, 0, 0, 0),
]
KERNELS = "regex:attn_fwd|flash|fmha|cudnn|nvjet|gemm|xmma"


def target(i):
    import torch
    backend, b, h, sq, skv, d = CASES[i]
    if backend == "cublas":
        x = torch.randn(b, b, device="cuda", dtype=torch.bfloat16)
        torch.matmul(x, x)
    elif backend == "triton":
        from attention_triton import launch
        q, k, v = (torch.randn(b, h, sq, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        launch(q, k, v, torch.empty_like(q), False, dict(block_m=128, block_n=64, warps=8, stages=3))
    else:
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
        q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(b, h, skv, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        be = SDPBackend.FLASH_ATTENTION if backend == "flash" else SDPBackend.CUDNN_ATTENTION
        with sdpa_kernel(be):
            F.scaled_dot_product_attention(q, k, v)
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
    from envinfo import header_lines
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    fields = ["case", "backend", "batch", "heads", "seq_q", "seq_kv", "head_dim", "kernel"] + METRICS
    with open(os.path.join(args.out, "ncu_attention_clock.csv"), "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/ncu_attention_clock.py",
                             {"method": "ncu --clock-control none, one launch per case in its own process"}))
        wr = csv.DictWriter(f, fieldnames=fields)
        wr.writeheader()
        for i, c in enumerate(CASES):
            log = os.path.join(args.out, f"ncu_clock_{i}.log")
            cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name",
                   KERNELS, "--csv", "--page", "raw", "--log-file", log, "--metrics",
                   ",".join(METRICS), sys.executable, os.path.abspath(__file__), "--target", str(i)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
            try:
                rows = parse(open(log).read())
                os.remove(log)
            except OSError:
                rows = []
            print(i, c, "rc", p.returncode, "kernels", len(rows), p.stderr[-300:], flush=True)
            for r in rows:
                d = dict(zip(fields[1:7], c), case=i, kernel=r.get("Kernel Name", ""))
                for m in METRICS:
                    d[m] = r.get(m, "")
                wr.writerow(d)
                f.flush()


if __name__ == "__main__":
    main()
