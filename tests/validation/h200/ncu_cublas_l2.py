#!/usr/bin/env python3
"""L2 hit rate and DRAM traffic of the cuBLAS corpus's kernels (persistent, warp-specialised,
TMA, clusters: the kind of kernel the paper's 0.88 pp L2 figure is about), under Nsight Compute.

  python3 ncu_cublas_l2.py --out DIR     runs `ncu --clock-control none --kernel-name
                                         regex:'nvjet|splitKreduce|ncu_case_marker' ...
                                         python3 ncu_cublas_l2.py target`, then writes
                                         DIR/l2_hit_cublas.csv (raw log DIR/ncu_cublas_l2_raw.csv)
  python3 ncu_cublas_l2.py target        launches every row of cublas_gemm.csv (torch.matmul,
                                         fp8 torch._scaled_mm) and cublas_gemm_linear.csv
                                         (F.linear), once each, a marker kernel before each

Every row is one cold call: ncu flushes the caches before each profiled launch (its default
--cache-control all). The marker (a one-element Triton kernel) splits ncu's rows into calls,
so a call that launches a split-K reduction as well counts both kernels' sectors (the model
predicts both launches). The kernel names ncu saw are kept: the model's parameters come from
the names cublas_sweep.py recorded (cublas_params.py), and a row whose main kernel differs is
marked (`same_kernel` 0).
Columns: set (matmul | linear), dtype, M, N, K, kernel, same_kernel, n_kernels, l2_hit_pct
(all L2 lookups of the call's kernels, loads and stores, both partitions: what the model's
l2_hit_rate predicts), l2_sectors, l2_hit_sectors, read_sectors, read_hit_sectors,
dram_read_bytes, dram_write_bytes, duration_ns (sum over the call's kernels).
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

from ncu_run import num, profile_marked, run_marked  # noqa: E402

METRICS = ["lts__t_sectors.sum", "lts__t_sectors_lookup_hit.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
           "lts__t_sector_hit_rate.pct"]
KERNELS = "regex:nvjet|splitKreduce|ncu_case_marker"


def cases():
    """(set, dtype, M, N, K, recorded kernel names) of both cuBLAS corpora, in file order."""
    out = []
    for name, linear in (("cublas_gemm.csv", False), ("cublas_gemm_linear.csv", True)):
        with open(os.path.join(HERE, name)) as f:
            for r in csv.DictReader(ln for ln in f if not ln.startswith("#")):
                out.append(("linear" if linear else "matmul", r["dtype"], int(r["M"]), int(r["N"]),
                            int(r["K"]), r["kernel"]))
    return out


def target():
    from cublas_sweep import make_fn
    run_marked([lambda c=c: make_fn(c[1], c[2], c[3], c[4], linear=c[0] == "linear") for c in cases()], warm=False)


def run(args):
    from envinfo import header_lines
    os.makedirs(args.out, exist_ok=True)
    raw = os.path.join(args.out, "ncu_cublas_l2_raw.csv")
    ok, calls, cmd = profile_marked(__file__, METRICS, KERNELS, raw, args.timeout)
    all_cases = cases()
    path = os.path.join(args.out, "l2_hit_cublas.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/ncu_cublas_l2.py", {
            "ncu": " ".join(cmd[:10]) + " --metrics " + ",".join(METRICS),
            "cases": "cublas_gemm.csv then cublas_gemm_linear.csv, one cold call each (ncu flushes caches)",
        }))
        w = csv.writer(f)
        w.writerow(["set", "dtype", "M", "N", "K", "kernel", "same_kernel", "n_kernels", "l2_hit_pct",
                    "l2_sectors", "l2_hit_sectors", "read_sectors", "read_hit_sectors", "dram_read_bytes",
                    "dram_write_bytes", "duration_ns"])
        for i, (set_name, dtype, M, N, K, recorded) in enumerate(all_cases):
            if i not in ok or i >= len(calls) or not calls[i]:
                continue
            ks = calls[i]
            names = [str(k.get("Kernel Name", "")) for k in ks]
            main = next((n for n in names if n.startswith("nvjet")), names[0])
            rec_main = next((n for n in recorded.split("|") if n.startswith("nvjet")), "")
            sect = sum(num(k, "lts__t_sectors.sum") for k in ks)
            hit = sum(num(k, "lts__t_sectors_lookup_hit.sum") for k in ks)
            w.writerow([set_name, dtype, M, N, K, main, int(main.split("(")[0] == rec_main), len(ks),
                        f"{100.0 * hit / sect:.4f}" if sect else "",
                        f"{sect:.0f}", f"{hit:.0f}",
                        f"{sum(num(k, 'lts__t_sectors_srcunit_tex_op_read.sum') for k in ks):.0f}",
                        f"{sum(num(k, 'lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum') for k in ks):.0f}",
                        f"{sum(num(k, 'dram__bytes_read.sum') for k in ks):.0f}",
                        f"{sum(num(k, 'dram__bytes_write.sum') for k in ks):.0f}",
                        f"{sum(num(k, 'gpu__time_duration.sum') for k in ks):.0f}"])
    print(f"wrote {path}: {len(calls)} calls profiled of {len(all_cases)}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "target"])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--timeout", type=float, default=540)
    args = ap.parse_args()
    if args.mode == "target":
        target()
    else:
        run(args)


if __name__ == "__main__":
    main()
