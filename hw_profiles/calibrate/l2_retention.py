#!/usr/bin/env python3
"""Reads l2_retention.cu's CSV: how long each L2 partition keeps a line, and SDCM's (A, C) fitted
to it (no GPU).

  python3 l2_retention.py [h200/l2_retention.csv.gz]          tables by reuse distance, the fit
  python3 l2_retention.py --json [CSV]                         the profile's l2.partition_bytes
  python3 l2_retention.py --promote h200/l2_retention_promote.csv.gz
      whether a hit renews a line's stay: the near partition's kept share of the 8 MiB read,
      `before` MiB of other lines, read again (or not), `after` MiB of fresh lines

Each probe line is classed by its latency from the probe SM: homed next to it, near (< 400
cycles) or from DRAM; homed across, near (a copy next to the probe SM), far (< 640: only its
home kept it) or from DRAM. Its reuse distance is what the fill read after it (the fill's stream
has 2^20 lines of 128 B). Which stream a partition sees:
  - the probe SM's own partition, fill by its side or by both sides: every line the fill read
    (homed there, or a copy of one homed across): distance = the stream after the line;
  - a line's home partition when only the other side read it: the lines homed there, half the
    stream: distance = half the stream after the line.
The fit: SDCM (eq. 7, Gaussian form), P(kept | D) = Phi((A - 1/2 - D A / C) / sqrt(D A / C (1 -
A / C))), D and C in lines, by maximum likelihood over the probes of the orders where a window
of the stream is a random set of lines ("random") or a GEMM operand's tiles ("columns"). "seq"
(front to back) spreads a window evenly over the sets: its edge is sharper than SDCM's.
"""
import argparse
import csv
import gzip
import json
import math
import os
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
LINES = 1 << 20
MIB_LINES = (1 << 20) // 128


def read(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return list(csv.DictReader(f))


def probes(rows):
    """(order, stream, distance in lines, kept) for every probe whose partition's stream is known."""
    out = []
    for r in rows:
        side, home, cycles = int(r["probe_side"]), int(r["home"]), int(r["cycles"])
        after = LINES - 1 - int(r["position"])
        own = home == side
        if r["fill"] == "both" or (r["fill"] == "side0" and side == 0):
            out.append((r["order"], "near", after, cycles < 400))  # the probe SM's partition
        if r["fill"] == "side0" and home == 1:  # homed across from side 0: only its home could keep it
            kept = cycles < 400 if own else cycles < 640
            out.append((r["order"], "home", after / 2, kept))
    return out


def promote(path):
    """The near partition's kept share of R by (reads, before, after): SM 0's lines of R homed next
    to it found near (< 400 cycles), and those homed across found near (a copy kept beside it)."""
    cells = defaultdict(Counter)
    for r in read(path):
        key = (int(r["reads"]), int(r["before_mib"]), int(r["after_mib"]))
        cells[key]["n"] += 1
        cells[key]["kept"] += int(r["cycles"]) < 400
    afters = sorted({k[2] for k in cells})
    print("kept share of R (8 MiB) in SM 0's partition; rows: R read once or again after `before` MiB;")
    print("columns: MiB of fresh lines after that (LRU keeps R while after + 8 is short of the partition;")
    print("with no renewal on a hit it goes by before + after + 8)")
    print(f"{'reads before':>13s} " + " ".join(f"{a:6d}" for a in afters))
    for reads in (1, 2):
        for before in sorted({k[1] for k in cells}):
            row = [cells[(reads, before, a)] for a in afters]
            print(f"{reads:5d} {before:7d} " + " ".join(f"{c['kept'] / c['n']:6.2f}" if c["n"] else f"{'':6s}" for c in row))


def phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def sdcm(d, ways, capacity):
    if d <= 0:
        return 1.0
    q = min(1.0, ways / capacity)
    mu = d * q
    return phi((ways - 0.5 - mu) / math.sqrt(mu * (1 - q)))


def log_likelihood(pts, ways, capacity):
    total = 0.0
    for d, kept in pts:
        p = min(1 - 1e-6, max(1e-6, sdcm(d, ways, capacity)))
        total += math.log(p if kept else 1 - p)
    return total


def fit(pts, ways_set):
    """Best (log-likelihood, A, C in MiB) over A in ways_set and C in 0.1 MiB steps."""
    best = None
    for ways in ways_set:
        lo, hi = 20.0, 40.0
        for step in (1.0, 0.1):  # coarse then fine
            grid = [lo + i * step for i in range(int((hi - lo) / step) + 1)]
            ll, c = max((log_likelihood(pts, ways, c * MIB_LINES), c) for c in grid)
            lo, hi = c - step, c + step
        if best is None or ll > best[0]:
            best = (ll, ways, c)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="?", default=os.path.join(HERE, "h200", "l2_retention.csv.gz"))
    ap.add_argument("--json", action="store_true", help="print the profile's l2.partition_bytes value")
    ap.add_argument("--promote", metavar="CSV", help="l2_retention.cu's promote CSV: whether a hit renews a line")
    args = ap.parse_args()
    if args.promote:
        promote(args.promote)
        return
    pts = probes(read(args.csv))
    fitted = [(o, s) for o in ("random", "columns") for s in ("near", "home")]
    results = {}
    for o, s in fitted:
        sel = [(d, k) for oo, ss, d, k in pts if oo == o and ss == s]
        results[(o, s)] = (len(sel), fit(sel, [16]), fit(sel, [8, 10, 12, 14, 16, 20, 24, 32]))
    both = [(d, k) for o, s, d, k in pts if o in ("random", "columns")]
    ll16, _, c16 = fit(both, [16])
    if args.json:
        print(json.dumps({"value": round(c16 * 1048576 / 1e5) * 1e5, "ways": 16}))
        return
    print("kept share by reuse distance (MiB of the partition's stream), per fill order")
    print(f"{'MiB':>5s} " + " ".join(f"{o + ' ' + s:>13s}" for o in ("seq", "random", "columns") for s in ("near", "home")))
    bins = defaultdict(Counter)
    for o, s, d, k in pts:
        b = int(d / MIB_LINES // 2) * 2
        bins[(o, s, b)]["n"] += 1
        bins[(o, s, b)]["kept"] += k
    for b in range(12, 46, 2):
        cells = []
        for o in ("seq", "random", "columns"):
            for s in ("near", "home"):
                c = bins[(o, s, b)]
                cells.append(f"{c['kept'] / c['n']:13.2f}" if c["n"] else f"{'':13s}")
        print(f"{b:5d} " + " ".join(cells))
    print("\nSDCM fit (maximum likelihood): probes, C at A = 16, best A and its C")
    for (o, s), (n, (ll16_, _, c), (llb, ways, cb)) in results.items():
        print(f"  {o:8s} {s:5s} {n:6d} probes: A 16 C {c:5.1f} MiB (log-lik {ll16_:9.1f}); "
              f"best A {ways:2d} C {cb:5.1f} MiB (log-lik {llb:9.1f})")
    print(f"  random + columns, A 16: C {c16:.1f} MiB = {c16 * 1048576 / 1e6:.1f} MB a partition (log-lik {ll16:.1f})")


if __name__ == "__main__":
    main()
