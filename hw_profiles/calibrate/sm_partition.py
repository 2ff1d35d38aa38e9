#!/usr/bin/env python3
"""The H200's SM-to-L2-partition map and where a launch's CTAs run, from sm_partition.cu's CSVs.

sm_partition.cu (run on the GPU) writes two CSVs, kept in h200/ gzipped:
  sm_partition.csv.gz  mode,target_sm,line,cycles: SM t's first read of 512 random lines,
                       after SM 0 read them ("filled") or from a flushed L2 ("cold")
  sm_dispatch.csv.gz   resident,rep,cta,smid: the SM of every CTA of grids of 132 x R CTAs
                       that stay resident, R CTAs an SM
and tests/validation/h200/ncu_tpc.py --dispatch (under ncu) writes
  sm_dispatch_small_ncu.csv  grid,rep,cta,smid: the SM of every CTA of one-wave grids of
                       8-264 CTAs (sm_dispatch_small.csv and _rerun.csv: the same without ncu)

This reads them and prints:
  - each SM's partition: an SM that finds about half the filled lines slow (far, ~500 cycles
    against ~320) sits next to the other partition than SM 0;
  - a check that the lines' homes agree between all SMs, and the cold reads' cost of a far home;
  - per R, the partition of the SM each launch slot (CTA index) ran on, and how far the slots
    of one launch stay on one partition;
  - the profile's l2.slot_partition value (--json), or a check of hw_profiles/h200.json against
    it (--check PROFILE); with --grids, l2.grid_partition's (grids of at most 128 CTAs, one an
    SM: past that the full grid's map serves); with --gpcs, l2.grid_gpc's (the same grids, the
    GPC of each CTA's SM: lrc_window.py's merge domains in h200/lrc_domain.csv, numbered by
    their lowest SM); with --slot-gpcs, l2.slot_gpc's (as l2.slot_partition, per R, the GPC
    of each launch slot's SM: the full grids' merge domains).

Usage: python3 sm_partition.py [--dir h200] [--grids | --gpcs | --slot-gpcs] [--json | --check ../h200.json]
"""
import argparse
import collections
import csv
import gzip
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SLOW_CYCLES = 420  # between the near (~320) and far (~500) reads of the filled mode


def read(path):
    with gzip.open(path, "rt") as f:
        return list(csv.DictReader(f))


def partitions(rows):
    """SM -> 0 (SM 0's side) or 1, and the lines' homes, from the filled reads."""
    lat = {(int(r["target_sm"]), int(r["line"])): int(r["cycles"]) for r in rows if r["mode"] == "filled"}
    sms = sorted({s for s, _ in lat})
    lines = sorted({l for _, l in lat})
    slow = {s: sum(lat[s, l] > SLOW_CYCLES for l in lines) for s in sms}
    part = {s: int(slow[s] > len(lines) // 4) for s in sms}
    ref = next(s for s in sms if part[s] == 1)
    home = {l: 0 if lat[ref, l] > SLOW_CYCLES else 1 for l in lines}  # slow from side 1: homed on side 0
    agree = statistics.fmean((lat[s, l] > SLOW_CYCLES) == (home[l] == 0) for s in sms if part[s] for l in lines)
    return part, home, slow, agree, lat


GRID_MAX = 128  # l2.grid_partition: one-wave grids up to this many CTAs


def gpc_of_sm(directory):
    """SM -> its GPC: lrc_window.py's merge domains, numbered by their lowest SM."""
    from lrc_window import merge_domains
    groups = sorted(g for _, g in merge_domains(os.path.join(directory, "lrc_domain.csv")))
    return {sm: i for i, g in enumerate(groups) for sm in g}


def grid_value(directory, part):
    """l2.grid_partition's value: per grid size, the digit `part` gives each CTA's SM (the
    partition, or with gpc_of_sm the GPC), first launch."""
    seqs = collections.defaultdict(list)
    with open(os.path.join(directory, "sm_dispatch_small_ncu.csv")) as f:
        for r in csv.DictReader(f):
            if r["rep"] == "0" and int(r["grid"]) <= GRID_MAX:
                seqs[int(r["grid"])].append(int(r["smid"]))
    return [[g, "".join(str(part[s]) for s in seq)] for g, seq in sorted(seqs.items())]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(HERE, "h200"))
    ap.add_argument("--json", action="store_true", help="print the profile's l2.slot_partition value")
    ap.add_argument("--check", metavar="PROFILE", help="check the profile's l2.slot_partition against the CSVs")
    ap.add_argument("--grids", action="store_true", help="l2.grid_partition instead (sm_dispatch_small_ncu.csv)")
    ap.add_argument("--gpcs", action="store_true", help="l2.grid_gpc instead (sm_dispatch_small_ncu.csv, lrc_domain.csv)")
    ap.add_argument("--slot-gpcs", action="store_true", help="l2.slot_gpc instead (sm_dispatch.csv.gz, lrc_domain.csv)")
    a = ap.parse_args()

    rows = read(os.path.join(a.dir, "sm_partition.csv.gz"))
    part, home, slow, agree, lat = partitions(rows)
    sms = sorted(part)
    dispatch = read(os.path.join(a.dir, "sm_dispatch.csv.gz"))
    slots = collections.defaultdict(list)
    for r in dispatch:
        if r["rep"] == "0":
            slots[int(r["resident"])].append(int(r["smid"]))
    digit = gpc_of_sm(a.dir) if a.slot_gpcs else part
    value = [[res, "".join(str(digit[s]) for s in seq)] for res, seq in sorted(slots.items())]
    key = "slot_gpc" if a.slot_gpcs else "grid_gpc" if a.gpcs else "grid_partition" if a.grids else "slot_partition"
    if a.grids or a.gpcs:
        value = grid_value(a.dir, gpc_of_sm(a.dir) if a.gpcs else part)

    if a.json:
        print(json.dumps(value, separators=(", ", ": ")))
        return 0
    if a.check:
        with open(a.check) as f:
            have = json.load(f)["l2"].get(key, {}).get("value")
        ok = have == value
        print(f"{a.check}: l2.{key} {'matches' if ok else 'DIFFERS FROM'} the CSVs")
        return 0 if ok else 1

    print(f"{len(sms)} SMs: {sum(part.values())} next to the partition SM 0 is not next to; "
          f"slow lines per SM: {sorted(collections.Counter(slow.values()).items())}")
    print("partition by SM id: " + "".join(str(part[s]) for s in sms))
    print(f"line homes agree between the SMs of the other side: {100 * agree:.1f}%; "
          f"{sum(1 for h in home.values() if h == 0)} of {len(home)} lines homed on SM 0's side")
    near = [lat[s, l] for s in sms for l in home if part[s] == 1 and home[l] == 1]
    far = [lat[s, l] for s in sms for l in home if part[s] == 1 and home[l] == 0]
    print(f"filled reads from the other side: homed near median {statistics.median(near)} cycles, "
          f"far {statistics.median(far)}")
    cold = {(int(r["target_sm"]), int(r["line"])): int(r["cycles"]) for r in rows if r["mode"] == "cold"}
    for p in (0, 1):
        same = [cold[s, l] for s in sms for l in home if part[s] == p and home[l] == p]
        other = [cold[s, l] for s in sms for l in home if part[s] == p and home[l] != p]
        print(f"cold reads (DRAM) from side {p}: homed near median {statistics.median(same)} cycles, "
              f"far {statistics.median(other)}")
    for res, seq in sorted(slots.items()):
        digits = "".join(str(part[s]) for s in seq)
        changes = sum(x != y for x, y in zip(digits, digits[1:]))
        print(f"R={res:2d}: {len(seq)} slots, {changes} changes of partition between neighbouring slots "
              f"(alternating SMs would give {len(seq) - 1}); first 64: {digits[:64]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
