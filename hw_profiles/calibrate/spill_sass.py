#!/usr/bin/env python3
"""SASS of spilling GEMM configs that load operands through registers, for the shape of their
spill reloads inside the K loop (calibration set: triton_registers_unaligned.csv's spilling
configs, shapes and configs outside the corpus).

Compiles each config on its unaligned problem (2048 x 2040 x 2048: B through registers;
2048 x 2040 x 2040: A and B) and writes DIR/spill_sass/<config>.sass; `--analyse DIR` then reads
the loop body (the block that ends in the backward branch) of each and counts its local
loads (LDL) and the groups they are issued in: a group is a run of LDLs whose results are not
read before the run ends, i.e. one L1/L2 round trip of waiting on the loop's path.
It also issues the loop body in order, one instruction a cycle, each LDL's result ready 400
cycles (an L2 round trip) after it: the stall cycles / 400 are the round trips the reloads add
to an iteration on the loop's path (waits_at_400_cycles).
CSV: DIR/spill_sass.csv (config, n_regs, n_spills, loop_instructions, ldl, stl, groups,
ldl_per_group, waits_at_400_cycles)

Usage: python3 spill_sass.py --out DIR [--overflow | --a-only]  (on the GPU machine; --overflow:
              configs whose accumulators alone pass 255 registers; --a-only: A alone staged,
              2048 x 3072 x 2040, the configs of staged_a_timing.csv that spill; appends to
              spill_sass_regs.csv; its analysis is kept as h200/spill_sass_a_only.csv)
       python3 spill_sass.py --analyse DIR  (anywhere)
"""
import argparse
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

CASES = [  # M, N, K, block_m, block_n, block_k, stages, warps
    (2048, 2040, 2048, 64, 128, 128, 2, 4), (2048, 2040, 2048, 64, 256, 64, 3, 4),
    (2048, 2040, 2048, 128, 128, 32, 2, 4), (2048, 2040, 2048, 128, 128, 64, 3, 4),
    (2048, 2040, 2048, 128, 256, 32, 2, 8), (2048, 2040, 2048, 256, 64, 32, 4, 4),
    (2048, 2040, 2048, 256, 64, 64, 2, 4), (2048, 2040, 2048, 256, 128, 64, 3, 8),
    (2048, 2040, 2040, 64, 128, 128, 3, 4), (2048, 2040, 2040, 64, 256, 64, 4, 4),
    (2048, 2040, 2040, 128, 64, 64, 3, 4), (2048, 2040, 2040, 128, 64, 128, 3, 4),
    (2048, 2040, 2040, 128, 128, 32, 2, 4), (2048, 2040, 2040, 128, 128, 64, 3, 4),
    (2048, 2040, 2040, 256, 64, 32, 4, 4), (2048, 2040, 2040, 256, 64, 64, 2, 4),
    (2048, 2040, 2040, 256, 128, 64, 2, 8), (2048, 2040, 2040, 128, 256, 32, 3, 8),
]

# Configs whose fp32 accumulators alone pass 255 registers (4 warps on 128x256 and 256x128,
# 8 on 256x256), B or A and B staged.
OVERFLOW_CASES = [
    (2048, 2040, 2048, 128, 256, 32, 4, 4), (2048, 2040, 2048, 128, 256, 64, 3, 4),
    (2048, 2040, 2048, 256, 128, 32, 3, 4), (2048, 2040, 2048, 256, 128, 128, 2, 4),
    (2048, 2040, 2048, 256, 256, 32, 2, 8), (2048, 2040, 2048, 128, 256, 128, 2, 4),
    (2048, 2040, 2040, 128, 256, 32, 4, 4), (2048, 2040, 2040, 128, 256, 64, 3, 4),
    (2048, 2040, 2040, 256, 128, 32, 3, 4), (2048, 2040, 2040, 256, 128, 128, 2, 4),
    (2048, 2040, 2040, 256, 256, 32, 2, 8), (2048, 2040, 2040, 128, 256, 128, 2, 4),
    (2048, 2040, 2040, 256, 64, 128, 2, 4),
]


# A alone staged (lda 2040, B copied): staged_a_timing.csv's spilling configs (18-934 slots),
# whose ncu local loads per warp and iteration equal the spill count (staged_a_l1.csv), and two
# unspilled neighbours at 254-255 registers.
A_ONLY_CASES = [
    (2048, 3072, 2040, 128, 64, 128, 3, 4), (2048, 3072, 2040, 128, 128, 64, 2, 4),
    (2048, 3072, 2040, 128, 128, 64, 3, 4), (2048, 3072, 2040, 128, 128, 128, 3, 4),
    (2048, 3072, 2040, 256, 64, 64, 2, 4), (2048, 3072, 2040, 256, 64, 64, 3, 4),
    (2048, 3072, 2040, 256, 64, 128, 2, 8), (2048, 3072, 2040, 256, 128, 64, 2, 8),
    (2048, 3072, 2040, 256, 128, 128, 2, 8), (2048, 3072, 2040, 256, 64, 128, 2, 4),
    (2048, 3072, 2040, 128, 64, 64, 3, 4), (2048, 3072, 2040, 128, 64, 128, 3, 8),
]


def name_of(c):
    M, N, K, bm, bn, bk, s, w = c
    return f"{M}x{N}x{K}_{bm}x{bn}x{bk}_s{s}_w{w}"


def compile_all(out, cases=CASES):
    import torch
    from triton_gemm_sweep import launch, kernel_info
    os.makedirs(os.path.join(out, "spill_sass"), exist_ok=True)
    exists = os.path.exists(os.path.join(out, "spill_sass_regs.csv"))
    with open(os.path.join(out, "spill_sass_regs.csv"), "a", newline="") as f:
        w_ = csv.writer(f)
        if not exists:
            w_.writerow(["config", "n_regs", "n_spills"])
        for c in cases:
            M, N, K, bm, bn, bk, s, w = c
            a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
            o = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            k = launch(a, b, o, dict(block_m=bm, block_n=bn, block_k=bk, group_m=1, stages=s, warps=w))
            torch.cuda.synchronize()
            cub = "/tmp/spill.cubin"
            open(cub, "wb").write(k.asm["cubin"])
            sass = subprocess.run(["cuobjdump", "-sass", cub], capture_output=True, text=True).stdout
            open(os.path.join(out, "spill_sass", name_of(c) + ".sass"), "w").write(sass)
            regs, spills, _ = kernel_info(k)
            w_.writerow([name_of(c), regs, spills])
            print(name_of(c), regs, spills, flush=True)


INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")


def loop_body(lines):
    """Instructions (addr, op, operands) of the longest block that a backward branch closes."""
    ins = []
    for line in lines:
        m = INSTR.search(line)
        if m:
            ins.append((int(m.group(1), 16), m.group(3), m.group(4)))
    best = []
    for i, (addr, op, args) in enumerate(ins):
        if op.startswith("BRA"):
            t = re.search(r"0x([0-9a-f]+)", args)
            if t and int(t.group(1), 16) < addr:
                start = int(t.group(1), 16)
                body = [x for x in ins[:i + 1] if x[0] >= start]
                if len(body) > len(best):
                    best = body
    return best


def regs_of(text):
    return set(re.findall(r"\bR(\d+)\b", text))


def operands(op, args):
    """Registers an instruction reads and writes: a store reads all of its operands, anything
    else writes its first and reads the rest."""
    parts = [p.strip() for p in args.split(",")]
    if op.startswith("ST"):
        return set().union(*[regs_of(p) for p in parts]), set()
    return set().union(set(), *[regs_of(p) for p in parts[1:]]), regs_of(parts[0]) if parts else set()


def analyse(body):
    ldl = stl = groups = 0
    pending = set()  # destination registers of LDLs not yet read
    in_run = False
    for _, op, args in body:
        srcs, dests = operands(op, args)
        if op.startswith("LDL"):
            ldl += 1
            if not in_run:
                groups += 1
                in_run = True
            pending |= dests
            continue
        stl += op.startswith("STL")
        if pending & srcs:
            pending -= srcs
            in_run = False
    return ldl, stl, groups


def simulated_waits(body, latency=400):
    ready, t, stall = {}, 0, 0
    for _, op, args in body:
        srcs, dests = operands(op, args)
        need = max([ready.get(r, 0) for r in srcs] + [0])
        stall += max(0, need - (t + 1))
        t = max(t + 1, need)
        for r in dests:
            ready[r] = t + (latency if op.startswith("LDL") else 0)
    return stall / latency


def analyse_dir(out):
    regs = {}
    path = os.path.join(out, "spill_sass_regs.csv")
    if os.path.exists(path):
        regs = {r["config"]: r for r in csv.DictReader(open(path))}
    rows = []
    for fn in sorted(os.listdir(os.path.join(out, "spill_sass"))):
        name = fn[:-5]
        body = loop_body(open(os.path.join(out, "spill_sass", fn)).read().split("\n"))
        ldl, stl, groups = analyse(body)
        r = regs.get(name, {})
        rows.append(dict(config=name, n_regs=r.get("n_regs", ""), n_spills=r.get("n_spills", ""),
                         loop_instructions=len(body), ldl=ldl, stl=stl, groups=groups,
                         ldl_per_group=round(ldl / groups, 2) if groups else 0,
                         waits_at_400_cycles=round(simulated_waits(body), 1)))
        print(rows[-1])
    with open(os.path.join(out, "spill_sass.csv"), "w", newline="") as f:
        f.write("# script: hw_profiles/calibrate/spill_sass.py --analyse (SASS of Triton's tutorial-03 "
                "kernel for triton_registers_unaligned.csv's spilling configs)\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--analyse")
    ap.add_argument("--overflow", action="store_true", help="the accumulator-overflow configs")
    ap.add_argument("--a-only", action="store_true", help="A alone staged (2048 x 3072 x 2040)")
    args = ap.parse_args()
    if args.analyse:
        analyse_dir(args.analyse)
    else:
        compile_all(args.out, OVERFLOW_CASES if args.overflow else A_ONLY_CASES if args.a_only else CASES)


if __name__ == "__main__":
    main()
