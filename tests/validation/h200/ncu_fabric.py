#!/usr/bin/env python3
"""Which L2 lookups come from the SMs and which from the other partition, and which of each hit.

The H200's L2 is two partitions; the cache model looks a request up in the SM's near partition
and a near miss again in the line's home partition (docs/cache-model.md, the cascade), and
counts both lookups as ncu's lts__t_sectors does. ncu splits the lookups by source: `tex`
(requests from the SMs) and `ltcfabric` (requests forwarded from the other partition). This
profiles Triton tutorial-03 GEMMs (the corpus's kernel) and cuBLAS calls (persistent, TMA,
clusters) with those counters, to set the model's near and far lookups and hits beside them.

  python3 ncu_fabric.py --out DIR    runs ncu on `python3 ncu_fabric.py target`, writes
                                     DIR/ncu_fabric.csv (raw log DIR/ncu_fabric_raw.csv)
  python3 ncu_fabric.py --lrc --out DIR   the same with the request coalescer's read sectors (in
                                     and out), DIR/ncu_fabric_lrc.csv
  python3 ncu_fabric.py --set skinny --lrc --out DIR   other cases (SETS below), DIR/ncu_fabric_skinny_lrc.csv
  python3 ncu_fabric.py target       the cases, a one-element marker kernel before each
  python3 ncu_fabric.py --compare ncu_fabric.csv [--cli build/bin/tilesight-cli]
                                     (no GPU) the model's lookups and hits per source beside ncu's

Every case is one cold call (ncu flushes the caches before each profiled kernel). Columns:
kind (triton | cublas), label, the gemm parameters (Triton: the config; cuBLAS: set, dtype,
M, N, K and the kernel ncu saw), n_kernels, then sums over the case's kernels: lookups, hits
(all sources), tex lookups, tex hits, tex read lookups, tex read hits, fabric lookups, fabric
hits, fabric misses, DRAM read and write bytes, duration_ns.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

from ncu_run import num, profile_marked, run_marked  # noqa: E402

METRICS = ["lts__t_sectors.sum", "lts__t_sectors_lookup_hit.sum",
           "lts__t_sectors_srcunit_tex.sum", "lts__t_sectors_srcunit_tex_lookup_hit.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum",
           "lts__t_sectors_srcunit_ltcfabric_lookup_miss.sum",
           "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"]
KERNELS = "regex:matmul_kernel|nvjet|splitKreduce|ncu_case_marker"
# --lrc: the request coalescer's read sectors too, in (to the GPCs) and out (from L2): the share a
# GPC's coalescer merged, multicasts included (ncu_tma_multicast.py)
LRC = ["lrc__xbar2gpc_sectors_op_read.sum", "lrc__lts2lrc_sectors_op_read.sum"]

# Triton: M, N, K, block_m, block_n, block_k, group_m, stages, warps
TRITON = [
    (4096, 4096, 4096, 128, 128, 64, 8, 3, 4),
    (4096, 4096, 4096, 128, 128, 64, 1, 3, 4),
    (8192, 8192, 8192, 128, 256, 64, 8, 3, 8),
    (2048, 2048, 2048, 128, 128, 64, 1, 2, 4),
    (1024, 1024, 1024, 64, 64, 64, 1, 2, 4),
    (16, 4096, 4096, 64, 64, 64, 1, 2, 4),
    (128, 8192, 8192, 128, 64, 64, 1, 3, 4),
    (64, 4096, 8192, 64, 128, 64, 1, 3, 4),
    (4096, 16, 4096, 64, 64, 64, 1, 2, 4),
    (8192, 128, 8192, 128, 128, 64, 1, 3, 4),
    (1024, 28672, 8192, 128, 128, 64, 1, 3, 4),
    (1024, 28672, 8192, 128, 128, 64, 16, 3, 4),
    (8192, 8192, 28672, 128, 128, 32, 1, 2, 4),
    (2048, 2048, 32768, 64, 128, 32, 1, 2, 4),
]
# cuBLAS: set, dtype, M, N, K (the corpus's calls, cublas_sweep.make_fn)
CUBLAS = [
    ("matmul", "bf16", 1024, 1024, 1024), ("matmul", "bf16", 2048, 2048, 2048),
    ("matmul", "bf16", 4096, 4096, 4096), ("matmul", "bf16", 8192, 8192, 8192),
    ("matmul", "bf16", 128, 4096, 4096), ("matmul", "bf16", 64, 4096, 8192),
    ("matmul", "bf16", 16, 4096, 4096), ("matmul", "bf16", 1, 4096, 4096),
    ("matmul", "bf16", 512, 4096, 14336), ("matmul", "bf16", 8192, 4096, 4096),
    ("matmul", "bf16", 8192, 28672, 8192), ("matmul", "bf16", 2048, 28672, 8192),
    ("matmul", "bf16", 3000, 5000, 2048), ("linear", "bf16", 4096, 14336, 4096),
    ("linear", "bf16", 128, 28672, 8192), ("matmul", "fp8", 8192, 8192, 8192),
]

# Other sets of cases (--set; the target side reads NCU_FABRIC_SET). skinny: one-wave
# 8192 x 128 x 8192 grids whose hit rate moves with group_m (l2_hit_corpus.csv: 256 x 64 x 64 at
# 5 stages 22.7% with group 1, 42.2% with group 8) where the model's partitions, batches of 16
# slots and GPCs give both orders the same readers (docs/cache-model.md, "Partners that drift
# apart"): where do the extra lookups and hits come from?
SETS = {"skinny": ([(8192, 128, 8192, 256, 64, 64, g, 5, 4) for g in (1, 8)] +
                   [(8192, 128, 8192, 256, 64, 32, g, 2, 4) for g in (1, 8)] +
                   [(8192, 128, 8192, 128, 64, 128, g, 3, 8) for g in (1, 8)] +
                   [(128, 8192, 8192, 64, 256, 64, g, 2, 8) for g in (1, 8)], [])}
if os.environ.get("NCU_FABRIC_SET") in SETS:
    TRITON, CUBLAS = SETS[os.environ["NCU_FABRIC_SET"]]


def target():
    from cublas_sweep import make_fn
    from triton_gemm_sweep import launch, operands

    def triton_case(c):
        M, N, K, bm, bn, bk, g, s, w = c
        a, b, out = operands(M, N, K, "bf16", "nn")
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, stages=s, warps=w)
        return lambda: launch(a, b, out, cfg)

    # Each call runs once before its marker (compiling it, picking cuBLAS's kernel): dropped.
    run_marked([(lambda c=c: triton_case(c)) for c in TRITON] +
               [(lambda c=c: make_fn(c[1], c[2], c[3], c[4], linear=c[0] == "linear")) for c in CUBLAS])


def run(args):
    from envinfo import header_lines
    os.makedirs(args.out, exist_ok=True)
    if args.set:
        os.environ["NCU_FABRIC_SET"] = args.set  # the target side's cases
    name = "ncu_fabric" + (f"_{args.set}" if args.set else "") + ("_lrc" if args.lrc else "")
    metrics = METRICS + (LRC if args.lrc else [])
    raw = os.path.join(args.out, name + "_raw.csv")
    # The warm-up call before each marker lands after the previous case's call: each case
    # keeps its first kernel (and a split-K reduction right after it).
    ok, calls, cmd = profile_marked(__file__, metrics, KERNELS, raw, args.timeout)
    triton, cublas = SETS[args.set] if args.set else (TRITON, CUBLAS)
    cases = [("triton", c) for c in triton] + [("cublas", c) for c in cublas]
    path = os.path.join(args.out, name + ".csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/ncu_fabric.py", {
            "ncu": " ".join(cmd[:10]) + " --metrics " + ",".join(metrics),
            "cases": "one cold call each after a marker kernel; the warm-up call before the marker dropped"}))
        w = csv.writer(f)
        w.writerow(["kind", "params", "kernel", "n_kernels", "lookups", "hits", "tex", "tex_hits", "tex_read",
                    "tex_read_hits", "fabric", "fabric_hits", "fabric_misses", "dram_read_bytes",
                    "dram_write_bytes", "duration_ns"] + (["lrc_to_gpc", "lrc_from_l2"] if args.lrc else []))
        for i, (kind, c) in enumerate(cases):
            if i not in ok or i >= len(calls) or not calls[i]:
                continue
            ks = calls[i]
            # The call is the first kernel (and a split-K reduction right after it); the next
            # case's warm-up kernels come after it.
            keep = ks[:2] if len(ks) > 1 and "splitKreduce" in str(ks[1].get("Kernel Name", "")) else ks[:1]
            if kind == "triton":
                params = dict(zip(["M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps"], c))
            else:
                params = {"set": c[0], "dtype": c[1], "M": c[2], "N": c[3], "K": c[4]}
            w.writerow([kind, json.dumps(params, separators=(",", ":")),
                        "|".join(str(k.get("Kernel Name", "")).split("(")[0] for k in keep), len(keep)] +
                       [f"{sum(num(k, m) for k in keep):.0f}" for m in metrics])
    print(f"wrote {path}: {len(calls)} calls of {len(cases)}", flush=True)


def compare(path, cli):
    """The model's lookups and hits by source (predict --format json, tensors[]) beside ncu's."""
    from l2_cublas import params_by_key
    cublas = params_by_key()
    with open(path) as f:
        rows = list(csv.DictReader(ln for ln in f if not ln.startswith("#")))
    print(f"{'case':46s} {'SM lookups (M sectors)':>24s} {'SM hit rate':>12s} {'far lookups':>16s} {'far hit rate':>13s}"
          f" {'all hit rate':>13s}   (model / ncu)")
    ratios = {}
    for r in rows:
        p = json.loads(r["params"])
        params = p if r["kind"] == "triton" else cublas[(p["set"], p["dtype"], p["M"], p["N"], p["K"])]
        plan = json.dumps({"kernel": "gemm", "hardware": "h200", "params": params})
        out = subprocess.run([cli, "predict", "--format", "json", "-"], input=plan, capture_output=True, text=True)
        d = json.loads(out.stdout)
        look = sum(t["l2_lookup_bytes"] for t in d["tensors"]) / 32
        hit = sum(t["l2_hit_bytes"] for t in d["tensors"]) / 32
        far = sum(t["l2_far_lookup_bytes"] for t in d["tensors"]) / 32
        far_hit = sum(t["l2_far_hit_bytes"] for t in d["tensors"]) / 32
        tex, tex_hit = float(r["tex"]), float(r["tex_hits"])
        fab, fab_hit = float(r["fabric"]), float(r["fabric_hits"])
        name = (f"{r['kind']} {p['M']}x{p['N']}x{p['K']} " +
                (f"{p['block_m']}x{p['block_n']}x{p['block_k']} g{p['group_m']} s{p['stages']}" if r["kind"] == "triton"
                 else f"{p['set']} {p['dtype']} {r['kernel'][12:32]}"))
        print(f"{name:46s} {(look - far) / 1e6:11.2f} / {tex / 1e6:9.2f} {(hit - far_hit) / max(look - far, 1):6.2f}/"
              f"{tex_hit / tex:.2f} {far / 1e6:7.2f}/{fab / 1e6:7.2f} {far_hit / max(far, 1):6.2f}/{fab_hit / max(fab, 1):.2f}"
              f" {hit / look:6.3f}/{(tex_hit + fab_hit) / (tex + fab):.3f}")
        big = "many tiles" if float(r["dram_read_bytes"]) < 0.6 * fab * 32 * 2 else "streamed"
        ratios.setdefault((r["kind"], big), []).append(
            ((look - far) / tex, far / max(fab, 1), far_hit / max(far, 1) - fab_hit / max(fab, 1),
             (hit - far_hit) / max(look - far, 1) - tex_hit / tex))
    print("\nmedian model/ncu: SM lookups, far lookups; mean model - ncu: far hit rate, SM hit rate")
    for k, v in sorted(ratios.items()):
        med = lambda i: sorted(x[i] for x in v)[len(v) // 2]  # noqa: E731
        mean = lambda i: sum(x[i] for x in v) / len(v)  # noqa: E731
        print(f"  {k[0]:6s} {k[1]:10s} {len(v):2d} cases: {med(0):.2f} {med(1):.2f} | {mean(2):+.2f} {mean(3):+.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "target"])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--timeout", type=float, default=540)
    ap.add_argument("--lrc", action="store_true", help="the coalescer's counters too: ncu_fabric_lrc.csv")
    ap.add_argument("--set", choices=sorted(SETS), help="another set of cases (SETS)")
    ap.add_argument("--compare", help="an ncu_fabric.csv: the model beside it (no GPU)")
    ap.add_argument("--cli", default=os.path.join(HERE, "..", "..", "..", "build", "bin", "tilesight-cli"))
    args = ap.parse_args()
    if args.compare:
        compare(args.compare, args.cli)
    elif args.mode == "target":
        target()
    else:
        run(args)


if __name__ == "__main__":
    main()
