#!/usr/bin/env python3
"""What Triton compiled for each config of the GEMM corpus: load widths, cp.async / TMA,
wgmma or mma.sync, barriers — read from the PTX of the compiled kernel.

For every (tile config, divisibility specialisation) of tests/validation/h200/triton_gemm.csv
(the 58 configs of triton_gemm_sweep.py, shapes grouped by Triton's specialisation on
divisibility by 16 of M, N, K), compile the tutorial kernel once on the smallest shape of
that specialisation and count PTX instructions:
  ld_v4 ld_v2 ld_b32 ld_b16  - ld.global by width (16, 8, 4, 2 bytes per thread)
  cp_async_16 cp_async_8 cp_async_4 - cp.async by bytes per thread
  tma                        - cp.async.bulk.tensor (TMA loads)
  wgmma mma_sync             - wgmma.mma_async / mma.sync.aligned instructions
  st_shared_v4 st_shared_b16 - st.shared writes of register-staged operands
  bar_sync                   - bar.sync / barrier.sync
Counts are static (instructions in the PTX text), not executed counts.
Output: triton_ptx_facts.csv with M,N,K (every corpus shape of the specialisation) and the
config columns, so rows join the corpus.

Usage: python3 triton_ptx_facts.py --out DIR [--workers 12] [--budget-s 200]
"""
import argparse
import csv
import math
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

PATTERNS = {
    "ld_v4": r"ld\.global(?:\.[A-Za-z0-9:_]+)*\.v4\.(?:b32|u32|f32|s32)",
    "ld_v2": r"ld\.global(?:\.[A-Za-z0-9:_]+)*\.v2\.(?:b32|u32|f32|s32)",
    "ld_b32": r"ld\.global(?:\.(?!v2|v4)[A-Za-z0-9:_]+)*\.(?:b32|u32|f32|s32)\s",
    "ld_b16": r"ld\.global(?:\.[A-Za-z0-9:_]+)*\.(?:b16|u16|s16)\s",
    "tma": r"cp\.async\.bulk\.tensor",
    "wgmma": r"wgmma\.mma_async",
    "mma_sync": r"mma\.sync\.aligned",
    "st_shared_v4": r"st\.shared(?:\.[A-Za-z0-9:_]+)*\.v4\.",
    "st_shared_b16": r"st\.shared(?:\.[A-Za-z0-9:_]+)*\.(?:b16|u16)\s",
    "bar_sync": r"\bbar\.sync\b|\bbarrier\.sync\b",
}


CP_ASYNC = re.compile(r"cp\.async\.(?:cg|ca)\.shared\.global[^;]*?,\s*(0x[0-9a-f]+|\d+)\s*(?:,[^;]*)?;")


def count(ptx):
    out = {k: len(re.findall(p, ptx)) for k, p in PATTERNS.items()}
    sizes = [int(s, 0) for s in CP_ASYNC.findall(ptx)]
    for n in (16, 8, 4):
        out[f"cp_async_{n}"] = sum(1 for s in sizes if s == n)
    return out


def job(args):
    cfg, shape = args
    import torch
    from triton_gemm_sweep import launch
    torch.cuda.set_device(0)
    M, N, K = shape
    try:
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        k = launch(a, b, c, cfg)
        torch.cuda.synchronize()
        ptx = k.asm.get("ptx", "") if hasattr(k, "asm") else ""
        out = count(ptx)
        out["ptx_bytes"] = len(ptx)
        return cfg, shape, out, ""
    except Exception as exc:  # keep going: a config that fails is recorded
        return cfg, shape, None, f"{type(exc).__name__}: {str(exc)[:120]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--workers", type=int, default=12)
    ap.add_argument("--budget-s", type=float, default=200)
    args = ap.parse_args()
    t0 = time.time()
    from triton_gemm_sweep import SHAPES, sample_configs, spec_key
    configs = sample_configs(58)
    groups = {}
    for s in SHAPES:
        groups.setdefault(spec_key(s), []).append(s)
    reps = {k: min(v, key=math.prod) for k, v in groups.items()}
    jobs = [(c, reps[k]) for k in reps for c in configs]
    print(f"{len(jobs)} compile jobs over {len(reps)} specialisations", flush=True)
    import multiprocessing as mp
    ctx = mp.get_context("spawn")
    results = []
    with ctx.Pool(args.workers) as pool:
        for r in pool.imap_unordered(job, jobs):
            results.append(r)
            if time.time() - t0 > args.budget_s:
                print("budget reached", flush=True)
                pool.terminate()
                break
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "triton_ptx_facts.csv")
    keys = list(PATTERNS) + ["cp_async_16", "cp_async_8", "cp_async_4", "ptx_bytes"]
    with open(path, "w", newline="") as f:
        f.write("# script: tests/validation/h200/triton_ptx_facts.py\n")
        f.write("# counts: static PTX instruction counts of the compiled tutorial-03 kernel\n")
        w = csv.writer(f)
        w.writerow(["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages",
                    "warps"] + keys + ["error"])
        for cfg, shape, out, err in results:
            for s in groups[spec_key(shape)]:
                row = list(s) + [cfg["block_m"], cfg["block_n"], cfg["block_k"],
                                 cfg["group_m"], cfg["stages"], cfg["warps"]]
                row += [out[k] for k in keys] if out else [""] * len(keys)
                w.writerow(row + [err])
    print(f"wrote {path}: {len(results)} compiled in {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
