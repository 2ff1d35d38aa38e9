#!/usr/bin/env python3
"""How long a read stays open to merges in the L2 request coalescer: lrc_window.cu under ncu.

On the H200, from hw_profiles/calibrate (~2 min):
  python3 lrc_window.py --run DIR
    builds lrc_window.cu, runs it under ncu (--cache-control none: the program flushes and warms
    the L2 itself; only `lrc_pair` is profiled, in one pass) -> DIR/lrc_window_raw.csv and the
    launch list DIR/lrc_window_configs.csv; then parses both into DIR/lrc_window.csv
Anywhere:
  python3 lrc_window.py --domain DIR
    every other SM as the follower of SM 0, no delay and no load, cold and warm lines: which SMs'
    reads merge at all -> DIR/lrc_domain.csv (the same columns)
  python3 lrc_window.py --fine DIR
    SM 1 behind SM 0 only, no load, cold and warm lines, delays of 0-500 ns in finer steps
    -> DIR/lrc_fine.csv
  python3 lrc_window.py --cross DIR
    SM 2 (next to the other partition) and SM 8 (the same one) behind SM 0, no load, cold
    and warm lines, delays 0-1000 ns, with the lookups and hits by source (the SMs' own partition,
    srcunit_tex; the home partition, srcunit_ltcfabric): where both sides read a line within
    the crossing, does the home side's own request miss first? -> DIR/lrc_cross.csv
  python3 lrc_window.py --fine-load DIR
    SM 1 behind SM 0, warm lines, delays of 0-600 ns in finer steps, with no load and with the
    other SMs re-reading their 32 MiB of hits (one in four of them, half, all), beside the L2
    slices' busy share under ncu (lts__t_sectors, lts__t_tag_requests as % of peak): how long
    a hit's read stays open as the slices get busier -> DIR/lrc_fineload.csv
    Measured 2026-12-07 on an H100 (an H200 was asked for): h100/lrc_fineload.csv, the
    profile's l2.hit_merge_load
  python3 lrc_window.py --windows h100/lrc_fineload.csv
    per load: the window (the merged share above the tail's, integrated over the delay) and the
    slices' busy share, beside the window at no load over 1 - that share (a queue's sojourn)
  python3 lrc_window.py --cross-table h200/lrc_cross.csv
  python3 lrc_window.py --parse RAW CONFIGS > h200/lrc_window.csv
  python3 lrc_window.py --table h200/lrc_window.csv
    the follower's merged share by delay, one column per pair, lines and load

CSV: leader_sm, follower_sm, lines, load, delay_ns, xbar2gpc_sectors, lts2lrc_sectors, tex_read_sectors,
     merged_share (of the follower's 8192 sectors: (xbar2gpc - lts2lrc) / 8192), duration_ns;
     --cross adds tex_read_hit_sectors, fabric_sectors, fabric_hit_sectors (and has no coalescer
     counters: nan)
"""
import argparse
import collections
import csv
import gzip
import io
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = ("lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,"
           "lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum")
# --cross's own set. ncu collects it in passes: replayed by application (the whole program again,
# its flush included), as a kernel replay would find the lines warm
CROSS_METRICS = ("lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,"
                 "lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum,"
                 "gpu__time_duration.sum")
# --fine-load's: the slices' busy share beside the coalescer's counters
LOAD_METRICS = METRICS + ",lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed"
FOLLOWER_SECTORS = 256 * 32


def run(out, domain=None, fine=False, cross=False, fineload=False):
    exe = os.path.join(out, "lrc_window")
    subprocess.run(["nvcc", "-O3", "-arch=sm_90a", "-o", exe, os.path.join(HERE, "lrc_window.cu")], check=True)
    name = ("lrc_domain" if domain else "lrc_fine" if fine else "lrc_cross" if cross else "lrc_fineload" if fineload
            else "lrc_window")
    configs = os.path.join(out, f"{name}_configs.csv")
    raw = os.path.join(out, f"{name}_raw.csv")
    with open(raw, "w") as f:
        subprocess.run(["ncu", "--clock-control", "none", "--cache-control", "none", "--kernel-name", "regex:lrc_pair"]
                       + (["--replay-mode", "application"] if cross else []) + [
                        "--metrics", CROSS_METRICS if cross else LOAD_METRICS if fineload else METRICS, "--csv", "--page", "raw",
                        "--print-units", "base", exe, configs]
                       + (["domain", domain] if domain else ["fine"] if fine else ["cross"] if cross
                          else ["fineload"] if fineload else []),
                       stdout=f, check=True)
    with open(os.path.join(out, f"{name}.csv"), "w", newline="") as f:
        parse(raw, configs, f)
    os.remove(exe)


def parse(raw, configs, out=sys.stdout):
    text = (gzip.open(raw, "rt") if raw.endswith(".gz") else open(raw)).read()
    rows = [r for r in csv.DictReader(io.StringIO("\n".join(l for l in text.splitlines() if l.startswith('"'))))
            if "lrc_pair" in r.get("Kernel Name", "")]
    with open(configs) as f:
        launches = list(csv.DictReader(f))
    if len(rows) != len(launches):
        raise SystemExit(f"{len(rows)} profiled launches, {len(launches)} configs")
    num = lambda r, m: float(r[m].replace(",", ""))  # noqa: E731
    cross = bool(rows) and "lts__t_sectors_srcunit_ltcfabric.sum" in rows[0]
    busy = bool(rows) and "lts__t_sectors.avg.pct_of_peak_sustained_elapsed" in rows[0]
    w = csv.writer(out)
    w.writerow(["leader_sm", "follower_sm", "lines", "load", "delay_ns", "xbar2gpc_sectors", "lts2lrc_sectors",
                "tex_read_sectors", "merged_share", "duration_ns"]
               + (["tex_read_hit_sectors", "fabric_sectors", "fabric_hit_sectors"] if cross else [])
               + (["l2_lookups_pct", "l2_tags_pct"] if busy else []))
    for c, r in zip(launches, rows):
        xbar, lts = ((num(r, "lrc__xbar2gpc_sectors_op_read.sum"), num(r, "lrc__lts2lrc_sectors_op_read.sum"))
                     if not cross else (float("nan"), float("nan")))
        w.writerow([c.get("leader_sm", "0"), c["follower_sm"], c["lines"], c["load"], c["delay_ns"], f"{xbar:.0f}", f"{lts:.0f}",
                    f"{num(r, 'lts__t_sectors_srcunit_tex_op_read.sum'):.0f}",
                    f"{(xbar - lts) / FOLLOWER_SECTORS:.3f}", f"{num(r, 'gpu__time_duration.sum'):.0f}"]
                   + ([f"{num(r, m + '.sum'):.0f}" for m in ("lts__t_sectors_srcunit_tex_op_read_lookup_hit",
                                                             "lts__t_sectors_srcunit_ltcfabric",
                                                             "lts__t_sectors_srcunit_ltcfabric_lookup_hit")]
                      if cross else [])
                   + ([f"{num(r, m + '.avg.pct_of_peak_sustained_elapsed'):.2f}" for m in ("lts__t_sectors", "lts__t_tag_requests")]
                      if busy else []))


def cross_table(path):
    """Per follower and delay, in units of the 8192 probe sectors: the SMs' own-partition lookups
    and hits, the home partition's (a near miss crossing over) and their hits."""
    with open(path) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    print("both SMs' reads of 8192 cold sectors, in units of 8192: near lookups / hits, home-partition lookups / hits")
    print(f"{'lines':>5} {'follower':>8} {'delay':>6} | {'near':>5} {'hit':>5} | {'home':>5} {'hit':>5}")
    for r in rows:
        v = lambda c: float(r[c]) / FOLLOWER_SECTORS  # noqa: E731
        print(f"{r['lines']:>5} {'SM ' + r['follower_sm']:>8} {r['delay_ns']:>6} | {v('tex_read_sectors'):5.2f} {v('tex_read_hit_sectors'):5.2f}"
              f" | {v('fabric_sectors'):5.2f} {v('fabric_hit_sectors'):5.2f}")
    print(f"home side first: {race_ns(rows):.0f} ns (l2.home_race_ns)")


def race_ns(rows, follower="2", settled_ns=300):
    """How long after the other side's read a line's home side still gets there first, in ns:
    of the follower's reads of the lines homed by it (half of them), the share that missed
    where they hit once the leader's request had arrived (cold lines, follower SM 2, the
    near hits at `settled_ns` and later), integrated over the delay (trapezoids)."""
    cold = sorted(((int(r["delay_ns"]), float(r["tex_read_hit_sectors"])) for r in rows
                   if r["lines"] == "cold" and r["follower_sm"] == follower), key=lambda x: x[0])
    settled = [h for d, h in cold if d >= settled_ns]
    full = sum(settled) / len(settled)  # the follower's hits of its home half, no race
    share = [(d, min(1.0, max(0.0, 1 - h / full))) for d, h in cold]
    return sum((d1 - d0) * (s0 + s1) / 2 for (d0, s0), (d1, s1) in zip(share, share[1:]))


def table(path):
    with open(path) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    cols = collections.OrderedDict()
    for r in rows:
        cols.setdefault((r["load"], r["lines"], r["follower_sm"]), {})[int(r["delay_ns"])] = float(r["merged_share"])
    delays = sorted({int(r["delay_ns"]) for r in rows})
    print("merged share of the follower's sectors, by its delay behind the leader (SM 0)")
    print(f"{'load':>4} {'lines':>5} {'follower':>8} | " + " ".join(f"{d:>5}" for d in delays) + " ns")
    for (load, lines, sm), v in cols.items():
        print(f"{load:>4} {lines:>5} {'SM ' + sm:>8} | " + " ".join(f"{v.get(d, float('nan')):5.2f}" for d in delays))


def windows(path, tail_ns=300):
    """Per load of a --fine-load CSV: how long the leader's read of a present line stays open to
    the follower's, in ns (the merged share above its tail's, the median at `tail_ns` and later,
    clipped to 0-1 and integrated over the delay by trapezoids, as l2.hit_merge_ns is), and the
    slices' busy share; beside it the no-load window over 1 - that share, a queue's sojourn."""
    with open(path) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    by = collections.OrderedDict()
    for r in rows:
        by.setdefault(r["load"], []).append(r)
    base = None
    print(f"{'load':>9} | {'window':>6} | {'lookups':>7} {'tags':>5} (% of peak) | idle window / (1 - lookups)")
    for load, rs in by.items():
        rs.sort(key=lambda r: int(r["delay_ns"]))
        tail = sorted(float(r["merged_share"]) for r in rs if int(r["delay_ns"]) >= tail_ns)
        floor = tail[len(tail) // 2] if tail else 0.0
        pts = [(int(r["delay_ns"]), min(1.0, max(0.0, float(r["merged_share"]) - floor))) for r in rs]
        ns = sum((d1 - d0) * (s0 + s1) / 2 for (d0, s0), (d1, s1) in zip(pts, pts[1:]))
        lookups = statistics.median(float(r["l2_lookups_pct"]) for r in rs)
        tags = statistics.median(float(r["l2_tags_pct"]) for r in rs)
        if base is None:
            base = ns
        print(f"{load:>9} | {ns:4.0f} ns | {lookups:6.1f}% {tags:4.1f}% | {base / (1 - lookups / 100):4.0f} ns")


def merge_domains(path):
    """Per leader of a --domain CSV, in the CSV's order: the SMs whose reads merged with its own
    (share above 0.5), the leader included, sorted (sm_partition.py --gpcs numbers them)."""
    with open(path) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    by = collections.OrderedDict()
    for r in rows:
        by.setdefault(r.get("leader_sm", "0"), [])
        if float(r["merged_share"]) > 0.5:
            by[r.get("leader_sm", "0")].append(int(r["follower_sm"]))
    return [(leader, sorted(sms + [int(leader)])) for leader, sms in by.items()]


def domains(path):
    """Prints merge_domains."""
    for leader, group in merge_domains(path):
        print(f"SM {leader}: {len(group)} SMs merge together: {' '.join(map(str, group))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", metavar="DIR")
    ap.add_argument("--domain", metavar="DIR", help="every SM as each leader's follower, no delay -> DIR/lrc_domain.csv")
    ap.add_argument("--leaders", default="0", help="--domain's leader SMs, comma-separated")
    ap.add_argument("--fine", metavar="DIR", help="SM 1 behind SM 0, no load, 0-500 ns -> DIR/lrc_fine.csv")
    ap.add_argument("--cross", metavar="DIR", help="SM 2 and SM 8 behind SM 0, sources' hits -> DIR/lrc_cross.csv")
    ap.add_argument("--fine-load", metavar="DIR", help="SM 1 behind SM 0, warm lines, the L2 loaded in steps -> DIR/lrc_fineload.csv")
    ap.add_argument("--windows", metavar="CSV", help="per load of lrc_fineload.csv: the hit window and the slices' busy share")
    ap.add_argument("--cross-table", metavar="CSV")
    ap.add_argument("--parse", nargs=2, metavar=("RAW", "CONFIGS"))
    ap.add_argument("--table", metavar="CSV")
    ap.add_argument("--domains", metavar="CSV", help="print each leader's merge domain from lrc_domain.csv")
    a = ap.parse_args()
    if a.run:
        run(a.run)
        table(os.path.join(a.run, "lrc_window.csv"))
    elif a.domain:
        run(a.domain, domain=a.leaders)
        domains(os.path.join(a.domain, "lrc_domain.csv"))
    elif a.domains:
        domains(a.domains)
    elif a.fine:
        run(a.fine, fine=True)
        table(os.path.join(a.fine, "lrc_fine.csv"))
    elif a.cross:
        run(a.cross, cross=True)
        cross_table(os.path.join(a.cross, "lrc_cross.csv"))
    elif a.fine_load:
        run(a.fine_load, fineload=True)
        table(os.path.join(a.fine_load, "lrc_fineload.csv"))
        windows(os.path.join(a.fine_load, "lrc_fineload.csv"))
    elif a.windows:
        windows(a.windows)
    elif a.cross_table:
        cross_table(a.cross_table)
    elif a.parse:
        parse(*a.parse)
    elif a.table:
        table(a.table)
    else:
        ap.print_help()


if __name__ == "__main__":
    main()
