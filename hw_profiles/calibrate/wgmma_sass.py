#!/usr/bin/env python3
"""How ptxas schedules the wgmma of the corpus kernel's K loop for 2-stage tiles with BLOCK_K 64
and 128 (loop_variants.csv: the 128-deep ones take round trip + fill + MMA per iteration).
For each config: ptxas -v on Triton's PTX (its warnings name serialised wgmma), and counts of
HGMMA / WARPGROUP.DEPBAR / WARPGROUP.ARRIVE / LDGSTS / DEPBAR in the SASS, and the HGMMA
instruction shapes.
Usage: python3 wgmma_sass.py --out DIR [--dtype bf16|fp8] [--layout nt] [--cfg BMxBNxBK_sS_wW,... | --corpus CSV]
(--corpus: every tile config of a triton_gemm_sweep.py CSV.)
(--dtype fp8: e4m3 operands, B stored N x K, as triton_gemm_sweep.py --dtype fp8.)"""
import argparse, os, re, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))
import torch  # noqa: E402
from triton_gemm_sweep import matmul_kernel, operands  # noqa: E402
CFG = [(128, 128, 64, 2, 4), (128, 128, 128, 2, 4), (128, 128, 128, 3, 8), (64, 256, 128, 2, 4),
       (128, 256, 64, 2, 8), (128, 256, 128, 2, 8), (256, 64, 128, 2, 8), (128, 64, 128, 3, 4)]
ap = argparse.ArgumentParser(); ap.add_argument("--out", required=True)
ap.add_argument("--dtype", default="bf16", choices=("bf16", "fp16", "fp8")); ap.add_argument("--cfg", default="")
ap.add_argument("--corpus", default="")
ap.add_argument("--layout", default="nn", choices=("nn", "nt"))
args = ap.parse_args()
if args.corpus:
    import csv
    rows = csv.DictReader(line for line in open(args.corpus) if not line.startswith("#"))
    seen = {(int(r["block_m"]), int(r["block_n"]), int(r["block_k"]), int(r["stages"]), int(r["warps"])) for r in rows}
    CFG = sorted(seen)
if args.cfg:
    CFG = [tuple(int(x) for x in re.match(r"(\d+)x(\d+)x(\d+)_s(\d+)_w(\d+)$", t).groups()) for t in args.cfg.split(",")]
M = N = K = 2048
a, b, c = operands(M, N, K, args.dtype, args.layout)
tag = ("" if args.dtype == "bf16" else "_" + args.dtype) + ("_nt" if args.layout == "nt" and args.dtype != "fp8" else "")
with open(os.path.join(args.out, f"wgmma_sass{tag}.txt"), "w") as log:
    for (bm, bn, bk, st, w) in CFG:
        grid = ((M // bm) * (N // bn),)
        k = matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=1,
                                num_stages=st, num_warps=w)
        name = f"{bm}x{bn}x{bk}_s{st}_w{w}{tag}"
        ptx = os.path.join("/tmp", name + ".ptx"); open(ptx, "w").write(k.asm["ptx"])
        r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", ptx, "-o", "/tmp/" + name + ".cubin"], capture_output=True, text=True)
        cub = "/tmp/" + name + ".bin"; open(cub, "wb").write(k.asm["cubin"])
        sass = subprocess.run(["cuobjdump", "-sass", cub], capture_output=True, text=True).stdout
        open(os.path.join(args.out, name + ".sass"), "w").write(sass)
        cnt = {p: len(re.findall(p, sass)) for p in ["[HQ]GMMA", "WARPGROUP.DEPBAR", "WARPGROUP.ARRIVE", "LDGSTS", r"DEPBAR\.LE", "BAR.SYNC", "BRA"]}
        shapes = sorted(set(re.findall(r"[HQ]GMMA\.(\w+)", sass)))
        line = f"{name} regs {k.n_regs} spills {k.n_spills} {cnt} shapes {shapes}\nptxas: {(r.stdout + r.stderr).strip()}\n"
        print(line, flush=True); log.write(line + "\n")
