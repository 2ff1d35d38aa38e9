#!/usr/bin/env python3
"""L1 hits and cost of operands staged through registers (issue 5), on shapes outside the corpus.

The corpus kernel (tests/validation/h200/triton_gemm_sweep.py, Triton's tutorial matmul) loads
an operand whose leading dimension is not a multiple of 16 elements element by element
(LDG.E.U16), through registers, into one shared-memory buffer. Those loads hit L1 87% of the
time in some configs and 59-65% in others (ncu_staged_facts.csv), and the hit rate sets their
cost. This script measures, for a grid of tile configs on two problems the corpus does not
have,

  B staged        2048 x 3000 x 2048   (ldb 3000: B's rows 6000 bytes apart)
  A and B staged  1536 x 4200 x 2040   (lda 2040, ldb 4200)

  1. the time, as the corpus is timed (do_bench, warmup 20 ms, rep 60 ms, median, L2 flushed
     before each launch), into staged_timing.csv in the corpus's columns, so that
     `tilesight-cli validate` reads it;
  2. one launch of each under Nsight Compute (--clock-control none): the element-wise load
     instructions, their L1 sectors and hit rate, the shared-memory carve-out
     (launch__shared_mem_config_size: L1 is the rest of the SM's 256 KiB), CTAs per SM, L2
     read sectors and the duration, into staged_l1.csv, with the TTGIR layout of each load.

  python3 hw_profiles/calibrate/staged_l1.py --out DIR      (on the H200, ~5 min)
  python3 hw_profiles/calibrate/staged_l1.py target         (what ncu runs)

  --shapes MxNxK,... --name NAME  other problems, into NAME_timing.csv and NAME_l1.csv (the
  A-staged set: --shapes 2048x3072x2040 --name staged_a, lda 2040 with B copied, 2026-12-01)
"""
import argparse
import csv
import itertools
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VAL = os.path.join(HERE, "..", "..", "tests", "validation", "h200")
sys.path.insert(0, HERE)
sys.path.insert(0, VAL)

SHAPES = [(2048, 3000, 2048), (1536, 4200, 2040)]


def configs():
    out = []
    for bm, bn, bk, st, w in itertools.product((64, 128, 256), (64, 128), (32, 64, 128), (2, 3, 5), (4, 8)):
        smem = st * bm * bk * 2 + bk * bn * 2
        if smem <= 227 * 1024 and bm * bn / (32 * w) <= 128:
            out.append(dict(block_m=bm, block_n=bn, block_k=bk, group_m=1, stages=st, warps=w))
    return out


def cases():
    return [(s, c) for s in SHAPES for c in configs()]


def parse_shapes(text):
    return [tuple(int(x) for x in t.split("x")) for t in text.split(",")] if text else SHAPES


def load_layouts(ttgir):
    """The layout of each element-wise load (tt.load), ';'-joined."""
    from ncu_run import blocked_layouts
    return blocked_layouts(ttgir, r"tt\.load ")


def tensors(shape):
    import torch
    M, N, K = shape
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    return a, b, c


def target():
    """One launch per case, in cases() order (ncu profiles each)."""
    import torch
    from triton_gemm_sweep import launch
    for shape, cfg in cases():
        a, b, c = tensors(shape)
        try:
            launch(a, b, c, cfg)
            torch.cuda.synchronize()
            print("CASE_OK", *shape, *cfg.values(), flush=True)
        except Exception as exc:
            print("CASE_FAIL", *shape, *cfg.values(), type(exc).__name__, flush=True)


METRICS = ["gpu__time_duration.sum", "launch__grid_size", "launch__shared_mem_config_size",
           "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
           "launch__registers_per_thread", "sm__warps_active.avg.per_cycle_active",
           "smsp__inst_executed_op_global_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "smsp__inst_executed_op_ldgsts.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sector_hit_rate.pct",
           "smsp__inst_executed_op_local_ld.sum"]
COLS = ["duration_ns", "grid", "smem_config_bytes", "ctas_per_sm_regs", "ctas_per_sm_smem", "ncu_regs",
        "warps_active", "ldg_inst", "ldg_requests", "ldg_sectors", "ldg_l1_hit_pct", "ldgsts_inst",
        "l2_read_sectors", "l2_hit_pct", "local_ld_inst"]


def run(args):
    import torch
    import triton
    from envinfo import header_lines
    from ncu_run import metric_cells, profile_cases
    from triton_gemm_sweep import kernel_info, launch, precompile
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    precompile(configs(), SHAPES, args.workers, t0 + 240)
    timing = os.path.join(args.out, f"{args.name}_timing.csv")
    info = {}
    with open(timing, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/staged_l1.py", {
            "timing": "triton.testing.do_bench(warmup=20, rep=60, return_mode='median'), L2 flushed "
                      "before each launch, torch.randn data"}))
        w = csv.writer(f)
        w.writerow(["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps",
                    "dtype", "ms", "tflops", "n_regs", "n_spills", "smem_bytes", "rel_err"])
        for shape, cfg in cases():
            a, b, c = tensors(shape)
            try:
                k = launch(a, b, c, cfg)
                torch.cuda.synchronize()
            except Exception as exc:
                print("skip", shape, cfg, type(exc).__name__, flush=True)
                continue
            ref = a.float() @ b.float()
            rel = ((c.float() - ref).norm() / ref.norm()).item()
            regs, spills, smem = kernel_info(k)
            info[shape + tuple(cfg.values())] = (regs, spills, load_layouts(k.asm.get("ttgir", "")))
            ms = triton.testing.do_bench(lambda: launch(a, b, c, cfg), warmup=20, rep=60, return_mode="median")
            M, N, K = shape
            w.writerow([M, N, K, *cfg.values(), "bf16", f"{ms:.6f}", f"{2 * M * N * K / ms / 1e9:.2f}",
                        regs, spills, smem, f"{rel:.2e}"])
            f.flush()
    print(f"timed {len(info)} configs at {time.time() - t0:.1f} s", flush=True)
    ok, rows = profile_cases(__file__, METRICS, os.path.join(args.out, f"{args.name}_l1_raw.csv"), args.timeout,
                             fields=9, extra=("--shapes", args.shapes) if args.shapes else ())
    ok = [tuple(int(x) for x in case) for case in ok]
    path = os.path.join(args.out, f"{args.name}_l1.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/staged_l1.py", {
            "method": "ncu --clock-control none --page raw, one launch per config (cold L2)",
            "metrics": ",".join(METRICS)}))
        w = csv.writer(f)
        w.writerow(["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps"] + COLS
                   + ["n_regs", "n_spills", "load_layouts"])
        for key, d in zip(ok, rows):
            w.writerow(list(key) + metric_cells(d, METRICS) + list(info.get(key, ("", "", ""))))
    print(f"wrote {path}: {min(len(ok), len(rows))} rows at {time.time() - t0:.1f} s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "target"])
    ap.add_argument("--out", default=os.path.join(HERE, "h200"))
    ap.add_argument("--workers", type=int, default=14)
    ap.add_argument("--timeout", type=float, default=420)
    ap.add_argument("--shapes", default="", help="MxNxK,... (default: SHAPES)")
    ap.add_argument("--name", default="staged", help="CSV base name: NAME_timing.csv, NAME_l1.csv")
    a = ap.parse_args()
    global SHAPES
    SHAPES = parse_shapes(a.shapes)
    if a.mode == "target":
        target()
    else:
        run(a)


if __name__ == "__main__":
    main()
