#!/usr/bin/env python3
"""Turns cublas_gemm.csv (torch.matmul timings with the cuBLAS kernel names and grids) into
gemm template parameters: cublas_gemm_params.csv, which `tilesight-cli validate` reads.

The rule is the one of VALIDATION.md. cuBLAS is column-major, so a name like
nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT is in the transposed frame:
  tile AxB      -> block_n = A, block_m = B
  BKxS          -> block_k = BK, stages = S
  cluster CNxCM -> cluster_n = CN, cluster_m = CM
  h / v         -> raster "m" / "n"
  coopA / coopB -> schedule "cooperative"; neither -> "pingpong"
  warps 12 (three warp groups, one a TMA producer), persistent: true
A splitK kernel runs with a reduction kernel; its split count is not in the name, so it is
taken from the persistent grid: blocks launched / output tiles (at least 2).
Runs anywhere (no GPU): python3 tests/validation/h200/cublas_params.py [--linear]
(--linear: cublas_gemm_linear.csv -> cublas_gemm_linear_params.csv, F.linear's rows, layout nt)
"""
import argparse
import csv
import math
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = re.compile(r"nvjet_sm90_[a-z]+_(\d+)x(\d+)_(\d+)x(\d+)_(\d+)x(\d+)_([hv])_")


def params(row):
    kernels = row["kernel"].split("|")
    grids = row["grid"].split("|")
    main = next((k for k in kernels if k.startswith("nvjet")), None)
    if main is None:
        return None
    m = NAME.search(main)
    if not m:
        return None
    tile_n, tile_m, bk, stages, cl_n, cl_m, raster = m.groups()
    M, N, K = int(row["M"]), int(row["N"]), int(row["K"])
    p = {
        "M": M, "N": N, "K": K, "dtype": row["dtype"],
        "block_m": int(tile_m), "block_n": int(tile_n), "block_k": int(bk), "stages": int(stages),
        "warps": 12, "persistent": 1, "cluster_m": int(cl_m), "cluster_n": int(cl_n),
        "raster": "m" if raster == "h" else "n",
        "schedule": "cooperative" if ("coopA" in main or "coopB" in main) else "pingpong",
        "split_k": 1,
    }
    if "splitK" in main:
        g = [int(x) for x in grids[kernels.index(main)].split(";")]
        blocks = g[0] * g[1] * g[2]
        tiles = math.ceil(M / p["block_m"]) * math.ceil(N / p["block_n"])
        p["split_k"] = max(2, min(round(blocks / tiles), math.ceil(K / p["block_k"])))
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--linear", action="store_true")
    args = ap.parse_args()
    base = "cublas_gemm_linear" if args.linear else "cublas_gemm"
    src = os.path.join(HERE, base + ".csv")
    dst = os.path.join(HERE, base + "_params.csv")
    header = [l for l in open(src) if l.startswith("#")]
    rows = list(csv.DictReader(l for l in open(src) if not l.startswith("#")))
    cols = ["M", "N", "K", "dtype", "block_m", "block_n", "block_k", "stages", "warps", "persistent",
            "cluster_m", "cluster_n", "raster", "schedule", "split_k", "ms", "kernel"]
    if args.linear:
        cols.insert(4, "layout")
    kept = 0
    with open(dst, "w", newline="") as f:
        f.write(f"# derived by tests/validation/h200/cublas_params.py from {base}.csv\n")
        f.writelines(header)
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            p = params(r)
            if p is None:
                continue
            p["ms"] = r["ms"]
            if args.linear:
                p["layout"] = "nt"
            p["kernel"] = r["kernel"].split("|")[0]
            w.writerow(p)
            kept += 1
    print(f"{kept} of {len(rows)} rows -> {dst}")


if __name__ == "__main__":
    main()
