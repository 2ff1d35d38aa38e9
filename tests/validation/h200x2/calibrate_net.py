#!/usr/bin/env python3
"""Network parameters of hw_profiles/h200x2.json from point-to-point and small-message results
only (issue 8's rule); the larger collectives rows stay a check (tilesight-cli validate).

  efficiency  least-squares slope of p2p.csv `uni` time against bytes for bytes >= 64 MiB
              (NCCL send/recv rank 0 -> 1): achieved bytes/s over the datasheet 450 GB/s.
  alpha_us    per hop and protocol: half the per-ring-step latency, where a ring step is the
              difference of the small-message medians of all_reduce (2 ring steps on two
              ranks) and all_gather (1 step) with that protocol forced (NCCL_PROTO); a step
              through the NVSwitch crosses two hops (gpu -> nvswitch -> gpu).
  launch_us   per protocol: the all_gather small-message median less its one ring step.
Small messages: the rows of 8-64 KiB of collectives.csv, where the bandwidth term of the
model is below 0.3 us and is subtracted anyway. Medians, because single rows scatter by
+-5 us (graph replay of back-to-back NCCL kernels).
Usage: python3 tests/validation/h200x2/calibrate_net.py  (stdlib only; prints the values)
"""
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
DATASHEET = 450e9      # NVLink 4 per direction per GPU (18 x 25 GB/s)
SMALL_MAX = 64 * 1024  # bytes
# Share of the Simple bandwidth each protocol reaches (engine/src/net/protocol.cpp, NCCL
# tuning.cc): LL 1/4 for all_reduce, 1/3 otherwise; LL128 0.92.
FRACTION = {("all_reduce", "LL"): 0.25, ("all_gather", "LL"): 1 / 3, "LL128": 0.92, "Simple": 1.0}


def rows(name):
    with open(os.path.join(HERE, name)) as f:
        return list(csv.DictReader(f))


def p2p_bandwidth():
    pts = [(float(r["bytes"]), float(r["time_us"]) * 1e-6) for r in rows("p2p.csv")
           if r["direction"] == "uni" and int(r["bytes"]) >= 64 << 20]
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return 1.0 / slope, (my - slope * mx) * 1e6, n


def small_median(coll, proto, bw):
    frac = FRACTION.get((coll, proto), FRACTION.get(proto))
    # two ranks: all_gather sends bytes/2 once, all_reduce bytes/2 twice (ring steps)
    steps = 2 if coll == "all_reduce" else 1
    t = [float(r["time_us"]) - steps * int(r["bytes"]) / 2 / (bw * frac) * 1e6
         for r in rows("collectives.csv")
         if r["collective"] == coll and r["proto"] == proto and int(r["bytes"]) <= SMALL_MAX]
    return statistics.median(t), len(t)


def main():
    bw, intercept, n = p2p_bandwidth()
    print(f"p2p uni >= 64 MiB ({n} rows): {bw / 1e9:.1f} GB/s (intercept {intercept:.1f} us)"
          f" -> efficiency {bw / DATASHEET:.4f}")
    for proto in ("LL", "LL128", "Simple"):
        ar, na = small_median("all_reduce", proto, bw)
        ag, ng = small_median("all_gather", proto, bw)
        step = ar - ag
        print(f"{proto:6s} all_reduce {ar:6.2f} us ({na} rows), all_gather {ag:6.2f} us ({ng} rows):"
              f" step {step:5.2f} us -> alpha {step / 2:5.2f} us per hop, launch {ag - step:6.2f} us")
    t = [float(r["time_us"]) for r in rows("p2p.csv")
         if r["direction"] == "uni" and int(r["bytes"]) <= SMALL_MAX]
    print(f"check: p2p uni <= 64 KiB median {statistics.median(t):.2f} us ({len(t)} rows)")


if __name__ == "__main__":
    main()
