#!/usr/bin/env python3
"""How far ncu's L2 hit rate of one Triton GEMM config moves between launches and between days:
the noise floor under the L2 MAE of l2_residuals.py (docs/cache-model.md, "Noise floor").

  python3 tests/validation/h200/l2_repeat.py

Reads l2_hit_repeat.csv (ncu_l2.py --set repeat: 50 clean corpus configs, each profiled once
in each of three ncu processes) and the corpus rows of the same configs (l2_hit_sweep.csv,
l2_hit_corpus.csv, measured on an earlier day) and prints, over all 50 and over the two halves
of the set (the 20 rows the model missed most when the set was drawn, and 30 drawn at random):
  - launch to launch: the mean absolute deviation of a launch from its config's mean;
  - day to day: |the three launches' mean - the corpus value|;
  - the configs whose corpus value lies more than 5 points from the day's mean.
A model that predicted each config's mean exactly would score the day-to-day figure as its MAE
against the corpus. Plain Python, no packages.
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from l2_residuals import KEY, read  # noqa: E402

WORST = 20  # REPEAT_CONFIGS lists the worst rows first (ncu_l2.py)


def key(r):
    return tuple(int(r[k]) for k in KEY)


def main():
    launches = {}
    for r in read(os.path.join(HERE, "l2_hit_repeat.csv")):
        launches.setdefault(key(r), []).append(float(r["l2_hit_pct"]))
    corpus = {}
    for name in ("l2_hit_sweep.csv", "l2_hit_corpus.csv"):
        for r in read(os.path.join(HERE, name)):
            corpus[key(r)] = float(r["l2_hit_pct"])
    configs = list(launches)
    missing = [c for c in configs if c not in corpus]
    if missing:
        sys.exit(f"l2_repeat: {len(missing)} repeated configs are not corpus rows, e.g. {missing[0]}")

    def figures(cs):
        within = [statistics.mean(abs(x - statistics.mean(launches[c])) for x in launches[c]) for c in cs]
        across = [abs(statistics.mean(launches[c]) - corpus[c]) for c in cs]
        return statistics.mean(within), statistics.mean(across)

    print(f"{len(configs)} configs, {min(len(v) for v in launches.values())}-"
          f"{max(len(v) for v in launches.values())} launches each (pp of L2 hit rate)")
    print(f"{'rows':>28}  launch to launch  day to day")
    for label, cs in (("all", configs), (f"{WORST} worst of the model", configs[:WORST]),
                      (f"{len(configs) - WORST} at random", configs[WORST:])):
        w, a = figures(cs)
        print(f"{label:>28}  {w:16.2f}  {a:10.2f}")
    print("\ncorpus value more than 5 points from the day's mean:")
    for c in configs:
        m = statistics.mean(launches[c])
        if abs(m - corpus[c]) > 5:
            shape = "x".join(str(x) for x in c[:3])
            tile = "x".join(str(x) for x in c[3:6])
            print(f"  {shape:>16} {tile:>11} g{c[6]} s{c[7]} w{c[8]}: corpus {corpus[c]:5.1f}, "
                  f"launches {' '.join(f'{x:5.1f}' for x in launches[c])}")


if __name__ == "__main__":
    main()
