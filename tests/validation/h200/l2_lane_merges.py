#!/usr/bin/env python3
"""The timing with ncu's merges: is the L2 lane right once the cache model's merges are?

The cache model says which share of the loads' requests merge before an L2 lookup, and the L2
lane of the timing saves l2.merge_saving of their time (resource_vector.cpp). Where the model's
merges are wrong, the timing may be right for the wrong reason. `tilesight-cli predict
--l2-merged S` times a launch with the share S given instead (EvaluateOptions::l2_merged_share,
the hit rates kept); this script gives it ncu's, 1 - the read lookups a requested sector
(l2_residuals.py's `merge`: tex read sectors over the sectors the tiles' loads of A and B ask
for), for every timed Triton GEMM (triton_gemm*.csv, bf16) that has a clean ncu row in one of
the L2 sets (l2_measured_starts.measured; aligned, no register spills), and prints the timing
MAPE three ways: the model's own merges, ncu's, and none.

  python3 tests/validation/h200/l2_lane_merges.py [--cli build/bin/tilesight-cli] [--worst 12] [--out rows.csv]

Plain Python, no packages; no GPU (one tilesight-cli call a row and a way: about 30 s).
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)

KEY = ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps")
TIMED = ("triton_gemm.csv", "triton_gemm_heldout.csv", "triton_gemm_heldout3.csv", "triton_gemm_heldout4.csv",
         "triton_gemm_heldout5.csv", "triton_gemm_heldout6.csv")


def rows_of(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def ncu_merged():
    """Per aligned config with an ncu row and no spills: ncu's merged share of the loads'
    requests (1 - read lookups a requested sector, at least 0), and the launch's waves."""
    import l2_residuals
    from l2_measured_starts import measured, spilled
    spills = spilled()
    out = {}
    for key, r in measured().items():
        x = {c: int(v) for c, v in zip(KEY, key)}
        tex = float(r.get("l2_tex_read_sectors") or "nan")
        if tex != tex or key in spills or l2_residuals.shape_class(x) == "unaligned":
            continue
        tiles = -(-x["M"] // x["block_m"]) * -(-x["N"] // x["block_n"])
        requested = tiles * (x["block_m"] + x["block_n"]) * x["K"] * 2 / 32
        out[key] = max(0.0, 1 - tex / requested)
    return out


def latency(cli, key, merged=None):
    plan = json.dumps({"kernel": "gemm", "hardware": "h200", "params": {**{k: int(v) for k, v in zip(KEY, key)},
                                                                       "dtype": "bf16"}})
    cmd = [cli, "predict", "--format", "json", "-"] + ([] if merged is None else ["--l2-merged", f"{merged:.6f}"])
    res = subprocess.run(cmd, input=plan, capture_output=True, text=True, check=True)
    d = json.loads(res.stdout)
    return d["latency_us"], d["loops"][0]["steady_bottleneck"] if d.get("loops") else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    ap.add_argument("--worst", type=int, default=12, help="rows that ncu's merges move furthest from the measurement")
    ap.add_argument("--out", help="per-row CSV")
    a = ap.parse_args()
    merged = ncu_merged()
    timed = {}
    for name in TIMED:
        path = os.path.join(HERE, name)
        if os.path.exists(path):
            for r in rows_of(path):
                key = tuple(r[k] for k in KEY)
                if r.get("dtype") == "bf16" and key in merged and key not in timed:
                    timed[key] = (name, 1000 * float(r["ms"]))
    rows = []
    for key, (name, measured_us) in sorted(timed.items(), key=lambda kv: tuple(int(v) for v in kv[0])):
        own, bottleneck = latency(a.cli, key)
        ncu, _ = latency(a.cli, key, merged[key])
        none, _ = latency(a.cli, key, 0.0)
        rows.append({"config": " ".join(key), "set": name, "measured_us": measured_us, "model_us": own,
                     "ncu_merges_us": ncu, "no_merges_us": none, "ncu_merged": merged[key], "bottleneck": bottleneck})
    if not rows:
        print("no timed config with an ncu row")
        return
    ape = lambda x, c: abs(x[c] / x["measured_us"] - 1)  # noqa: E731

    def line(label, sel):
        g = [x for x in rows if sel(x)]
        if g:
            print(f"{label:>34}: {len(g):4d} rows, MAPE with the model's merges {100 * statistics.fmean(ape(x, 'model_us') for x in g):5.2f}%, "
                  f"ncu's {100 * statistics.fmean(ape(x, 'ncu_merges_us') for x in g):5.2f}%, "
                  f"none {100 * statistics.fmean(ape(x, 'no_merges_us') for x in g):5.2f}%")

    line("all", lambda x: True)
    for name in TIMED:
        line(name, lambda x, n=name: x["set"] == n)
    for b in sorted({x["bottleneck"] for x in rows}):
        line(f"steady bottleneck {b}", lambda x, b=b: x["bottleneck"] == b)
    rows.sort(key=lambda x: ape(x, "ncu_merges_us") - ape(x, "model_us"))
    print(f"\nrows ncu's merges move furthest from the measurement (time / measured - 1):")
    for x in rows[-a.worst:][::-1]:
        print(f"  {x['config']:>36}  ncu merged {x['ncu_merged']:.2f}  model {100 * (x['model_us'] / x['measured_us'] - 1):+6.1f}%"
              f"  ncu's merges {100 * (x['ncu_merges_us'] / x['measured_us'] - 1):+6.1f}%  ({x['bottleneck']})")
    print(f"rows they bring closest:")
    for x in rows[:a.worst]:
        print(f"  {x['config']:>36}  ncu merged {x['ncu_merged']:.2f}  model {100 * (x['model_us'] / x['measured_us'] - 1):+6.1f}%"
              f"  ncu's merges {100 * (x['ncu_merges_us'] / x['measured_us'] - 1):+6.1f}%  ({x['bottleneck']})")
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
