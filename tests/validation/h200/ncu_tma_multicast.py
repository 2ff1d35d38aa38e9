#!/usr/bin/env python3
"""How does ncu count a TMA multicast's L2 lookups? (docs/cache-model.md, issue 3)

Until 2026-12-02 the cache model took a multicast to all m CTAs of a cluster as one request to
L2 by taking (m - 1) / m of the access's hits and lookups out of a stream of every CTA's
requests: inferred, not measured, and the cuBLAS set (clusters of 2 and 4) read 3.9 pp too few
hits with it. What this measured (one lookup a cluster, never merged) is the model now: the
cluster's first tile asks, the others are followers that ask nothing (StreamWalker::mark_followers).

tma_multicast.cu: 128 CTAs in clusters of m = 1, 2, 4 copy 1 MiB each (32 KiB a step, bulk
copies through the TMA unit) `each` (every CTA its own copy), `slice` (CTA r copies the r-th
m-th of a step and multicasts it to the cluster, as CUTLASS does) or `leader` (CTA 0 copies the
whole step to all); from a region of its cluster's own (`private`) or the same 1 MiB for every
cluster (`shared`). ncu counts the SMs' L2 read lookups and hits (srcunit_tex) and all lookups.

  python3 ncu_tma_multicast.py --out DIR     builds tma_multicast.cu, runs it under ncu, writes
                                             DIR/ncu_tma_multicast.csv (~20 s on the H200)
  python3 ncu_tma_multicast.py --show CSV    lookups and hits a requested sector (no GPU)

--oob: tma_oob.cu instead, one CTA copying an R-row x 4096-column bf16 matrix (R = 1-64) in
tensor boxes of B >= R rows x 64 columns, as cuBLAS's skinny kernels load a 1-32-row activation
in boxes of their tile's 8-64 rows: are the rows past the edge, which the copy fills with
zeros, looked up in L2? (ncu_tma_oob.csv; `--oob --show CSV` prints it)
"""
import argparse
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

METRICS = ["lts__t_sectors.sum", "lts__t_sectors_lookup_hit.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_requests_srcunit_tex_op_read.sum",
           "lrc__xbar2gpc_sectors_op_read.sum", "lrc__lts2lrc_sectors_op_read.sum",
           "dram__bytes_read.sum", "gpu__time_duration.sum"]


def run(out_dir, name="tma_multicast", kernels="mc_case|mc_tensor_case"):
    """Builds NAME.cu, runs it under ncu (one launch a case, in its case list's order) and writes
    DIR/ncu_NAME.csv: the case list's columns, then ncu's."""
    from ncu_run import parse_ncu
    from envinfo import header_lines
    os.makedirs(out_dir, exist_ok=True)
    exe = os.path.join(out_dir, name)
    subprocess.run(["nvcc", "-O3", "-gencode", "arch=compute_90a,code=sm_90a", "-o", exe,
                    os.path.join(HERE, name + ".cu"), "-lcuda"], check=True)
    cases_path = os.path.join(out_dir, name + "_cases.txt")
    raw = os.path.join(out_dir, f"ncu_{name}_raw.csv")
    cmd = [os.environ.get("NCU", "ncu"), "--clock-control", "none", "--kernel-name", "regex:" + kernels, "--csv",
           "--page", "raw", "--print-units", "base", "--log-file", raw, "--metrics", ",".join(METRICS), exe,
           cases_path]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print(p.stdout[-800:], p.stderr[-800:], f"ncu rc={p.returncode}", flush=True)
    with open(cases_path) as f:
        cases = list(csv.DictReader(f))
    rows = parse_ncu(open(raw).read()) if os.path.exists(raw) else []
    path = os.path.join(out_dir, f"ncu_{name}.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines(f"tests/validation/h200/ncu_tma_multicast.py ({name}.cu)", {
            "ncu": " ".join(cmd[:10]) + " --metrics " + ",".join(METRICS),
            "cases": f"one launch each, in the order of {name}.cu's case list (cold L2: ncu flushes it)"}))
        w = csv.writer(f)
        w.writerow(list(cases[0].keys()) + [m.replace(".sum", "") for m in METRICS])
        for c, r in zip(cases, rows):
            w.writerow(list(c.values()) + [f"{float(r.get(m, 'nan')):.0f}" for m in METRICS])
    print(f"wrote {path} ({len(rows)} of {len(cases)} cases profiled)", flush=True)


def read_rows(path):
    """A CSV written by run(): its rows past the `#` header lines."""
    with open(path) as f:
        return list(csv.DictReader(ln for ln in f if not ln.startswith("#")))


def show(path):
    rows = read_rows(path)
    print(f"{'copy':6s} {'m':>2s} {'mode':7s} {'region':8s} {'asked':>8s} {'lookups/asked':>14s} {'hits/lookup':>12s}"
          f" {'lookups/unique':>15s} {'DRAM/unique':>12s}")
    for r in rows:
        m, ctas, region = int(r["cluster"]), int(r["ctas"]), int(r["region_bytes"])
        clusters = ctas // m
        unique = (clusters if r["region"] == "private" else 1) * region / 32
        # sectors the CTAs' copies ask for: every CTA the whole region (each), or the cluster
        # once between its CTAs (slice, leader)
        asked = (ctas if r["mode"] == "each" or m == 1 else clusters) * region / 32
        look = float(r["lts__t_sectors_srcunit_tex_op_read"])
        hits = float(r["lts__t_sectors_srcunit_tex_op_read_lookup_hit"])
        print(f"{r.get('copy', 'bulk'):6s} {m:2d} {r['mode']:7s} {r['region']:8s} {asked:8.0f} {look / asked:14.3f} {hits / max(look, 1):12.3f}"
              f" {look / unique:15.2f} {float(r['dram__bytes_read']) / (unique * 32):12.2f}")


def show_oob(path):
    rows = read_rows(path)
    print(f"{'rows':>4s} {'box rows':>8s} {'cols':>5s} {'swizzle':>7s} {'lookups / sectors inside':>25s}"
          f" {'/ sectors of the boxes':>22s} {'hits/lookup':>12s} {'DRAM/inside':>12s}")
    for r in rows:
        n_rows, box_rows, cols, box_cols = (int(r[k]) for k in ("rows", "box_rows", "cols", "box_cols"))
        down = n_rows > box_rows  # walked down the rows (boxes past the edge along the columns)
        inside = n_rows * cols * 2 / 32
        boxes = n_rows / box_rows if down else cols / box_cols
        look = float(r["lts__t_sectors_srcunit_tex_op_read"])
        hits = float(r["lts__t_sectors_srcunit_tex_op_read_lookup_hit"])
        print(f"{n_rows:4d} {box_rows:8d} {cols:5d} {r.get('swizzle', '0'):>7s} {look / inside:25.2f} {look / (boxes * box_rows * box_cols * 2 / 32):22.2f}"
              f" {hits / max(look, 1):12.3f} {float(r['dram__bytes_read']) / (inside * 32):12.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=".")
    ap.add_argument("--show")
    ap.add_argument("--oob", action="store_true",
                    help="tma_oob.cu instead: boxes taller than the matrix (ncu_tma_oob.csv; --show with it)")
    args = ap.parse_args()
    if args.show:
        (show_oob if args.oob else show)(args.show)
    elif args.oob:
        run(args.out, "tma_oob", "oob_case")
    else:
        run(args.out)


if __name__ == "__main__":
    main()
