#!/usr/bin/env python3
"""TileSight's L2 hit rate against ncu on the cuBLAS corpus's kernels (l2_hit_cublas.csv,
written by ncu_cublas_l2.py): persistent warp-specialised TMA kernels with clusters.

  python3 tests/validation/h200/l2_cublas.py [--cli build/bin/tilesight-cli] [--worst 20]
          [--out rows.csv]

Each row's gemm parameters are the ones cublas_params.py read from the recorded kernel name
(cublas_gemm_params.csv for torch.matmul, cublas_gemm_linear_params.csv for F.linear); one
`tilesight-cli predict --jsonl` batch predicts them all. Prints the mean absolute error and bias
of `l2_hit_rate` against ncu's lookups (all L2 sectors, loads and stores, split-K reductions
included), by class of shape, and the worst rows; also DRAM read bytes. Plain Python.
"""
import argparse
import csv
import json
import os
import signal
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
INT = ("block_m", "block_n", "block_k", "stages", "warps", "cluster_m", "cluster_n", "split_k")


def read(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def params_by_key():
    out = {}
    for name, set_name in (("cublas_gemm_params.csv", "matmul"), ("cublas_gemm_linear_params.csv", "linear")):
        for r in read(os.path.join(HERE, name)):
            p = {"M": int(r["M"]), "N": int(r["N"]), "K": int(r["K"]), "dtype": r["dtype"],
                 "persistent": r["persistent"] == "1", "raster": r["raster"], "schedule": r["schedule"]}
            p.update({c: int(r[c]) for c in INT})
            if r.get("layout"):
                p["layout"] = r["layout"]
            elif r["dtype"] == "fp8":
                p["layout"] = "nt"  # torch._scaled_mm takes B column-major (cublas_sweep.py)
            out[(set_name, r["dtype"], p["M"], p["N"], p["K"])] = p
    return out


def shape_class(m, n, k):
    if min(m, n) <= 128:
        return "skinny (M or N <= 128)"
    if k >= 4 * max(m, n):
        return "deep-K"
    return "square/LLM"


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    ap.add_argument("--csv", default=os.path.join(HERE, "l2_hit_cublas.csv"))
    ap.add_argument("--worst", type=int, default=20)
    ap.add_argument("--out", help="per-row CSV: key, measured and predicted")
    a = ap.parse_args()
    params = params_by_key()
    rows = []
    for r in read(a.csv):
        key = (r["set"], r["dtype"], int(r["M"]), int(r["N"]), int(r["K"]))
        if r["same_kernel"] != "1" or not r["l2_hit_pct"] or key not in params:
            continue
        rows.append({"key": key, "ncu": float(r["l2_hit_pct"]), "dram": float(r["dram_read_bytes"]),
                     "kernel": r["kernel"], "p": params[key]})
    plans = "".join(json.dumps({"kernel": "gemm", "hardware": "h200", "params": x["p"]}) + "\n" for x in rows)
    res = subprocess.run([a.cli, "predict", "--jsonl", "-"], input=plans, capture_output=True, text=True)
    preds = [json.loads(ln) for ln in res.stdout.splitlines() if ln.strip()]
    if len(preds) != len(rows):
        raise SystemExit(f"{len(preds)} predictions for {len(rows)} rows: {res.stderr[-500:]}")
    for x, p in zip(rows, preds):
        if "l2_hit_rate" not in p:
            raise SystemExit(f"no prediction for {x['key']}: {json.dumps(p)[:300]}")
        x["pred"] = 100.0 * p["l2_hit_rate"]
        x["err"] = x["pred"] - x["ncu"]
        x["pred_dram"] = p.get("dram_read_bytes", float("nan"))
    e = [x["err"] for x in rows]
    print(f"{len(rows)} rows: L2 hit rate MAE {statistics.fmean(abs(v) for v in e):.2f} pp, "
          f"bias {statistics.fmean(e):+.2f} pp, median abs {statistics.median(abs(v) for v in e):.2f} pp")
    dr = [abs(x["pred_dram"] / x["dram"] - 1) for x in rows if x["dram"] > 0]
    print(f"DRAM read bytes: median abs error {100 * statistics.median(dr):.1f}%")
    groups = {}
    for x in rows:
        groups.setdefault((x["key"][0], shape_class(*x["key"][2:])), []).append(x)
    print("\nset, shape class: rows  MAE  bias (pp)")
    for k in sorted(groups):
        g = groups[k]
        print(f"  {k[0]:>6} {k[1]:<24} {len(g):3d}  {statistics.fmean(abs(x['err']) for x in g):5.2f}  "
              f"{statistics.fmean(x['err'] for x in g):+6.2f}")
    print(f"\nworst {a.worst}:")
    for x in sorted(rows, key=lambda x: -abs(x["err"]))[:a.worst]:
        s, d, m, n, k = x["key"]
        print(f"  {s:>6} {d} {m}x{n}x{k} {x['kernel'][11:]:<44} ncu {x['ncu']:5.1f} model {x['pred']:5.1f} "
              f"({x['err']:+5.1f}); DRAM read {x['pred_dram'] / 1e6:8.1f} / {x['dram'] / 1e6:8.1f} MB")
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["set", "dtype", "M", "N", "K", "kernel", "ncu_hit_pct", "pred_hit_pct", "ncu_dram_read",
                        "pred_dram_read"])
            for x in rows:
                w.writerow([*x["key"], x["kernel"], f"{x['ncu']:.3f}", f"{x['pred']:.3f}", f"{x['dram']:.0f}",
                            f"{x['pred_dram']:.0f}"])


if __name__ == "__main__":
    main()
