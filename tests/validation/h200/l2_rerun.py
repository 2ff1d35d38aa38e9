#!/usr/bin/env python3
"""The whole L2 corpus measured on a second day: how much of the model's L2 MAE is the measurement's.

  python3 tests/validation/h200/l2_rerun.py [--cli build/bin/tilesight-cli] [--out rows.csv]

Reads the corpus (l2_hit_sweep.csv + l2_hit_corpus.csv, ncu_l2.py, 2026-11-29/30) and its rerun
(l2_hit_sweep_rerun.csv, l2_hit_corpus_rerun.csv: `ncu_l2.py --set sweep` and `--set corpus` again on another machine and day,
the same script and kernel), keeps the clean rows as l2_residuals.py does (M, N, K multiples of
16, no register spills), predicts them in one `tilesight-cli predict --jsonl` batch and prints:
  - day to day: the mean, median and 90th percentile of |day 1 - day 2| over the clean rows, by
    waves and by group_m x stages, and the rows that moved most;
  - the model's MAE against day 1, day 2 and the two days' mean.
If the two days scatter independently and normally around a config's true value, a model that
predicted that value exactly would score about |day 1 - day 2| / sqrt 2 against one day and
|day 1 - day 2| / 2 against their mean: the floor under the issue's 2 pp. Plain Python, no
packages; no GPU.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from l2_residuals import CONFIG, KEY, ROOT, params, read, shape_class, wave_class  # noqa: E402


def key(r):
    return tuple(int(r[k]) for k in KEY)


def spill_counts():
    timed = [r for name in ("triton_gemm.csv",) for r in read(os.path.join(HERE, name))]
    return {key(r): int(r["n_spills"]) for r in timed}


def day(names):
    out = {}
    for name in names:
        for r in read(os.path.join(HERE, name)):
            if r.get("l2_hit_pct", "") not in ("", "nan"):
                out[key(r)] = r
    return out


def stats(values):
    v = sorted(values)
    return statistics.fmean(v), v[len(v) // 2], v[min(len(v) - 1, int(0.9 * len(v)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    ap.add_argument("--out", help="per-row CSV: the key, both days, the model")
    ap.add_argument("--worst", type=int, default=20)
    a = ap.parse_args()

    first = day(["l2_hit_sweep.csv", "l2_hit_corpus.csv"])
    second = day(["l2_hit_sweep_rerun.csv", "l2_hit_corpus_rerun.csv"])
    spills = spill_counts()
    rows = []
    for k, r2 in second.items():
        if k not in first:
            continue
        x = dict(zip(KEY, k))
        x["cls"] = shape_class(x)
        if x["cls"] == "unaligned" or spills.get(k, 0) != 0:
            continue
        x["spills"] = 0
        x["d1"], x["d2"] = float(first[k]["l2_hit_pct"]), float(r2["l2_hit_pct"])
        x["dram1"], x["dram2"] = float(first[k]["dram_read_bytes"]), float(r2["dram_read_bytes"])
        rows.append(x)
    if not rows:
        sys.exit("l2_rerun: no clean row is in both days (are the _rerun files there?)")

    plans = "".join(json.dumps({"kernel": "gemm", "hardware": "h200", "params": params(x)}) + "\n" for x in rows)
    res = subprocess.run([a.cli, "predict", "--jsonl", "-"], input=plans, capture_output=True, text=True, check=True)
    preds = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    assert len(preds) == len(rows), (len(preds), len(rows), res.stderr[:500])
    for x, p in zip(rows, preds):
        x["pred"] = 100 * p["l2_hit_rate"]
        x["waves"] = p["waves"]
        x["diff"] = x["d2"] - x["d1"]

    n = len(rows)
    mean, med, p90 = stats(abs(x["diff"]) for x in rows)
    print(f"{n} clean rows in both days (day 1: {len(first)} rows, day 2: {len(second)})")
    print(f"day to day |day 2 - day 1|: mean {mean:.2f} pp, median {med:.2f}, p90 {p90:.2f}; "
          f"day 2 - day 1 mean {statistics.fmean(x['diff'] for x in rows):+.2f} pp")
    dram = [abs(x["dram2"] / x["dram1"] - 1) for x in rows if x["dram1"] > 0]
    print(f"DRAM read bytes, |day 2 / day 1 - 1|: mean {100 * statistics.fmean(dram):.1f}%, "
          f"median {100 * sorted(dram)[len(dram) // 2]:.1f}%")
    for label, ref in (("day 1 (the corpus)", lambda x: x["d1"]), ("day 2 (the rerun)", lambda x: x["d2"]),
                       ("the two days' mean", lambda x: (x["d1"] + x["d2"]) / 2)):
        err = [x["pred"] - ref(x) for x in rows]
        print(f"model against {label:>20}: MAE {statistics.fmean(abs(e) for e in err):.2f} pp, "
              f"bias {statistics.fmean(err):+.2f}")
    print(f"floor: a model exact on each config's true value scores about {mean / 2 ** 0.5:.2f} pp against one "
          f"day and {mean / 2:.2f} against the two days' mean (days scattered independently and normally "
          f"around it: E|day - true| = E|day 2 - day 1| / sqrt 2)")

    def table(title, group):
        groups = defaultdict(list)
        for x in rows:
            groups[group(x)].append(x)
        print(f"\n{title}:  rows  day-to-day  model vs day 1  model vs mean  (pp)")
        for g in sorted(groups, key=str):
            xs = groups[g]
            print(f"  {str(g):>14}  {len(xs):4d}  {statistics.fmean(abs(x['diff']) for x in xs):10.2f}  "
                  f"{statistics.fmean(abs(x['pred'] - x['d1']) for x in xs):14.2f}  "
                  f"{statistics.fmean(abs(x['pred'] - (x['d1'] + x['d2']) / 2) for x in xs):13.2f}")

    table("waves", lambda x: wave_class(x))
    table("group_m x stages", lambda x: f"g{x['group_m']} s{x['stages']}")

    print(f"\nthe {a.worst} rows that moved most (day 1, day 2, model):")
    for x in sorted(rows, key=lambda x: -abs(x["diff"]))[: a.worst]:
        shape = "x".join(str(x[d]) for d in ("M", "N", "K"))
        tile = "x".join(str(x[c]) for c in CONFIG[:3])
        print(f"  {shape:>16} {tile:>11} g{x['group_m']} s{x['stages']} w{x['warps']}  waves {x['waves']:5.1f}: "
              f"{x['d1']:5.1f} {x['d2']:5.1f}  model {x['pred']:5.1f}")

    if a.out:
        cols = list(KEY) + ["waves", "d1", "d2", "pred", "dram1", "dram2"]
        with open(a.out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            for x in rows:
                w.writerow([x[c] for c in cols])


if __name__ == "__main__":
    main()
