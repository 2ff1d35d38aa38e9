#!/usr/bin/env python3
"""Registers, spills and shared memory Triton allocates for GEMM tile configs that are NOT in
the validation corpus: the calibration set for the `gemm` template's register estimate.

Every plausible config of triton_gemm_sweep.py's grid (BLOCK_M/N in {64,128,256}, BLOCK_K in
{32,64,128}, stages 2-5, warps 4/8, group_m 1 — group_m does not change the kernel's
registers) minus the 58 configs of the corpus, compiled (one launch) on an aligned
2048 x 2048 x 2048 problem; n_regs, n_spills (local bytes / 4) and shared bytes read from the
compiled kernel.
Output: triton_registers.csv (block_m, block_n, block_k, stages, warps, n_regs, n_spills,
smem_bytes).   Usage: python3 triton_registers.py --out DIR [--workers 12]

--unaligned: the same configs on two problems whose leading dimensions are not multiples of 16,
so Triton loads B (2048 x 2040 x 2048) or A and B (2048 x 2040 x 2040) element by element
through registers: triton_registers_unaligned.csv (M, N, K first). No corpus shape.
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))


def job(cfg, shape=(2048, 2048, 2048)):
    import torch
    from triton_gemm_sweep import launch, kernel_info
    torch.cuda.set_device(0)
    M, N, K = shape
    try:
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        k = launch(a, b, c, cfg)
        torch.cuda.synchronize()
        return cfg, kernel_info(k), ""
    except Exception as exc:
        return cfg, ("", "", ""), f"{type(exc).__name__}: {str(exc)[:100]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--workers", type=int, default=12)
    ap.add_argument("--unaligned", action="store_true")
    args = ap.parse_args()
    from triton_gemm_sweep import all_configs, plausible, sample_configs
    corpus = {tuple(sorted(c.items())) for c in sample_configs(58)}
    corpus_kernels = {(c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"])
                      for c in sample_configs(58)}
    cands = [c for c in all_configs() if plausible(c) and c["group_m"] == 1
             and (c["block_m"], c["block_n"], c["block_k"], c["stages"], c["warps"]) not in corpus_kernels
             and tuple(sorted(c.items())) not in corpus]
    print(f"{len(cands)} configs outside the corpus", flush=True)
    import multiprocessing as mp
    if args.unaligned:
        shapes = [(2048, 2040, 2048), (2048, 2040, 2040)]
        jobs = [(c, sh) for sh in shapes for c in cands]
        with mp.get_context("spawn").Pool(args.workers) as pool:
            results = pool.starmap(job, jobs)
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "triton_registers_unaligned.csv"), "w", newline="") as f:
            f.write("# script: hw_profiles/calibrate/triton_registers.py --unaligned (Triton tutorial-03 "
                    "kernel, bf16, configs not in tests/validation/h200/triton_gemm.csv, B or A and B "
                    "loaded through registers)\n")
            w = csv.writer(f)
            w.writerow(["M", "N", "K", "block_m", "block_n", "block_k", "stages", "warps", "n_regs",
                        "n_spills", "smem_bytes", "error"])
            for (cfg, sh), (_, (regs, spills, smem), err) in zip(jobs, results):
                w.writerow([*sh, cfg["block_m"], cfg["block_n"], cfg["block_k"], cfg["stages"],
                            cfg["warps"], regs, spills, smem, err])
        print(f"wrote {len(results)} rows", flush=True)
        return
    with mp.get_context("spawn").Pool(args.workers) as pool:
        results = pool.map(job, cands)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "triton_registers.csv"), "w", newline="") as f:
        f.write("# script: hw_profiles/calibrate/triton_registers.py (Triton tutorial-03 kernel, "
                "2048^3 bf16, configs not in tests/validation/h200/triton_gemm.csv)\n")
        w = csv.writer(f)
        w.writerow(["block_m", "block_n", "block_k", "stages", "warps", "n_regs", "n_spills",
                    "smem_bytes", "error"])
        for cfg, (regs, spills, smem), err in results:
            w.writerow([cfg["block_m"], cfg["block_n"], cfg["block_k"], cfg["stages"],
                        cfg["warps"], regs, spills, smem, err])
    print(f"wrote {len(results)} rows", flush=True)


if __name__ == "__main__":
    main()
