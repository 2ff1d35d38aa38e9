#!/usr/bin/env python3
"""Do TMA loads merge in L2 the way cp.async copies do? (docs/cache-model.md, issue 3)

The cache model's burst rule (ncu_pending.py, burst and burst_dot): n CTAs of one L2 partition
reading the same sectors at once make 1 + (n - 1) / 4 lookups a sector; the rest merge before
a lookup. It was measured with cp.async copies (Triton's pipelined tl.load). cuBLAS's kernels
load with TMA, and the model's cuBLAS set looks up 0.86 of what ncu counts (ncu_fabric.py).

Here CTAS CTAs (one an SM, launched together) each multiply the same 128 x 4096 and 4096 x 128
bf16 operands (2 MiB, 65536 sectors), BLOCK_K 64, three stages, once with pointer loads
(cp.async, `lsu`: ncu_pending.py's burst_dot kernel, the same measurement again beside TMA) and
once through host tensor descriptors (TMA, `tma`). ncu counts the SMs'
L2 read lookups and hits (srcunit_tex, read) and the DRAM bytes; requested sectors are
CTAS x 65536.

  python3 ncu_tma_burst.py --out DIR     runs ncu on `python3 ncu_tma_burst.py target`, writes
                                         DIR/ncu_tma_burst.csv
  python3 ncu_tma_burst.py --show CSV    lookups a sector beside the burst rule (no GPU)
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

METRICS = ["lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "dram__bytes_read.sum", "gpu__time_duration.sum"]
CTAS = (1, 2, 4, 8, 16, 32, 66, 132)
K, BM, BN, BK = 4096, 128, 128, 64
SECTORS = (BM * K + K * BN) * 2 // 32


def cases():
    return [(path, c) for path in ("lsu", "tma") for c in CTAS]


def target():
    import torch
    import triton
    import triton.language as tl
    from triton.tools.tensor_descriptor import TensorDescriptor

    @triton.jit
    def burst_lsu(a, b, out, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid = tl.program_id(0)  # every CTA reads the same a (BM x K) and b (K x BN)
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a_ptrs = a + rm[:, None] * K + rk[None, :]
        b_ptrs = b + rk[:, None] * BN + rn[None, :]
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for _ in range(0, K, BK):
            acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
            a_ptrs += BK
            b_ptrs += BK * BN
        tl.store(out + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)

    @triton.jit
    def burst_tma(a_desc, b_desc, out, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid = tl.program_id(0)
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for k in range(0, K, BK):
            acc += tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]))
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        tl.store(out + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)

    from ncu_run import run_marked
    a = torch.randn(BM, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, BN, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(max(CTAS) * BM * BN, device="cuda", dtype=torch.float32)
    a_desc = TensorDescriptor.from_tensor(a, block_shape=[BM, BK])
    b_desc = TensorDescriptor.from_tensor(b, block_shape=[BK, BN])

    def case(path, c):
        if path == "lsu":
            return lambda: burst_lsu[(c,)](a, b, out, K, BM=BM, BN=BN, BK=BK, num_stages=3, num_warps=4)
        return lambda: burst_tma[(c,)](a_desc, b_desc, out, K, BM=BM, BN=BN, BK=BK, num_stages=3, num_warps=4)

    run_marked([(lambda p=p, c=c: case(p, c)) for p, c in cases()])


def run(out_dir):
    from ncu_run import num, profile_marked
    from envinfo import header_lines
    os.makedirs(out_dir, exist_ok=True)
    raw = os.path.join(out_dir, "ncu_tma_burst_raw.csv")
    # Each case's first kernel after its marker; the next case's warm-up launch comes after it.
    ok, calls, cmd = profile_marked(__file__, METRICS, "regex:burst_lsu|burst_tma|ncu_case_marker", raw, 600)
    path = os.path.join(out_dir, "ncu_tma_burst.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/ncu_tma_burst.py", {
            "ncu": " ".join(cmd[:10]) + " --metrics " + ",".join(METRICS),
            "cases": "one launch each after a marker kernel (cold L2: ncu flushes it)"}))
        w = csv.writer(f)
        w.writerow(["path", "ctas", "kernel", "requested_sectors", "tex_read", "tex_read_hits", "dram_read_bytes",
                    "duration_ns"])
        for i, (p, c) in enumerate(cases()):
            if i not in ok or i >= len(calls) or not calls[i]:
                continue
            k = calls[i][0]
            w.writerow([p, c, str(k.get("Kernel Name", "")).split("(")[0], c * SECTORS] +
                       [f"{num(k, m):.0f}" for m in METRICS])
    print(f"wrote {path}", flush=True)


def show(path):
    with open(path) as f:
        rows = list(csv.DictReader(ln for ln in f if not ln.startswith("#")))
    print(f"{'path':4s} {'CTAs':>5s} {'lookups/sector':>15s} {'burst rule':>11s} {'hit rate':>9s} {'DRAM/unique':>12s}")
    for r in rows:
        c = int(r["ctas"])
        # one CTA an SM: launch slots 0-15 and 64-113 next to one partition, 16-63 and 114-131
        # the other (hw_profiles/h200.json, l2.slot_partition); each partition's readers make
        # 1 + (n - 1) / 4 lookups a sector
        sides = [sum(1 for s in range(c) if (s < 16 or 64 <= s < 114) == near) for near in (True, False)]
        rule = sum(1 + (n - 1) / 4 for n in sides if n)
        look = float(r["tex_read"]) / SECTORS
        print(f"{r['path']:4s} {c:5d} {look:15.2f} {rule:11.2f} {float(r['tex_read_hits']) / float(r['tex_read']):9.2f}"
              f" {float(r['dram_read_bytes']) / (SECTORS * 32):12.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", choices=["run", "target"], default="run")
    ap.add_argument("--out", default=".")
    ap.add_argument("--show")
    args = ap.parse_args()
    if args.show:
        show(args.show)
    elif args.mode == "target":
        target()
    else:
        run(args.out)


if __name__ == "__main__":
    main()
