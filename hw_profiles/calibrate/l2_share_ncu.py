#!/usr/bin/env python3
"""How many of the shared requests of `l2_requests distance` reach an L2 lookup (ncu), beside
what they cost in time (the same program timed without ncu).

On the H200, from hw_profiles/calibrate (builds l2_requests.cu, ~1 min):
  python3 l2_share_ncu.py --run DIR
    writes DIR/l2_requests_distance.csv (the timing, no profiler) and DIR/l2_share_ncu_raw.csv
    (ncu --csv --page raw of every launch: tex read sectors looked up, their hits, requests)
Anywhere:
  python3 l2_share_ncu.py --parse DIR/l2_share_ncu_raw.csv DIR/l2_requests_distance.csv > h200/l2_share_lookups.csv
(the raw CSV of 2026-12-01 is kept as h200/l2_share_ncu_raw.csv.gz, the timing as h200/l2_requests_distance.csv)
  python3 l2_share_ncu.py --slices DIR   (on the H200, ~2 min)
    runs `l2_requests share` (whole-line rows, 1-16 readers side by side or over the grid, 2,
    3 and 5 stages) timed and under ncu with the L2 slices' load: DIR/l2_requests_share_timing.csv
    and DIR/l2_slices_ncu_raw.csv; then
  python3 l2_share_ncu.py --parse-slices DIR/l2_slices_ncu_raw.csv DIR/l2_requests_share_timing.csv > h200/l2_share_slices.csv
    how busy the slices are (lts__t_sectors, % of peak sustained over the launch) while each
    SM's copies carry what they carry: the ceiling the L2 lane meets when every SM copies
    (grouped GEMM loops run their slices at 54-61%, ncu_lane_facts.csv)
  python3 l2_share_ncu.py --saving h200/l2_share_lookups.csv
    the profile's l2.merge_saving: per row with readers that merge (lookups per sector below
    0.95), the share of the merged requests' L2-path time the merge saved, (1 - r1 / r) /
    (1 - lookups), r the row's GB/s an SM and r1 the unshared row's at the same stages (1: the
    path time fell with the lookups); the median over those rows

Each row of the timing CSV is one L2 fill launch and five timed launches, in that order, under
ncu too; the parse takes the median of the five. Lookups per requested sector: ncu's tex read
sectors over the sectors the blocks copy (132 blocks x 8000 stages x 512 sectors); 1 means
every request looked up, 1 / share every reader but one merged.
CSV: share, distance, stages, gbps_per_sm, lookups_per_sector, hit_pct, lookup_requests_per_line_request
"""
import argparse
import csv
import gzip
import io
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = ("lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,"
           "lts__t_requests_srcunit_tex_op_read.sum,gpu__time_duration.sum")
BLOCKS, ITERS, SECTORS_PER_STAGE, REQUESTS_PER_STAGE = 132, 8000, 512, 128
LAUNCHES_PER_ROW = 6
SLICE_METRICS = ("lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,"
                 "lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,"
                 "gpu__time_duration.sum")


def run(out, mode, timing_name, raw_name, metrics):
    """Builds l2_requests.cu, runs `l2_requests MODE` timed (out/timing_name), then under ncu with
    `metrics` (out/raw_name)."""
    exe = os.path.join(out, "l2_requests")
    subprocess.run(["nvcc", "-O3", "-arch=sm_90a", "-o", exe, os.path.join(HERE, "l2_requests.cu")], check=True)
    with open(os.path.join(out, timing_name), "w") as f:
        subprocess.run([exe, mode], stdout=f, check=True)
    with open(os.path.join(out, raw_name), "w") as f:
        subprocess.run(["ncu", "--clock-control", "none", "--cache-control", "none", "--metrics", metrics,
                        "--csv", "--page", "raw", "--print-units", "base", exe, mode], stdout=f, check=True)


def raw_rows(raw_path):
    text = (gzip.open(raw_path, "rt") if raw_path.endswith(".gz") else open(raw_path)).read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    head, data = rows[0], [r for r in rows[2:] if r and r[0].isdigit()]
    return {h: i for i, h in enumerate(head)}, data


def parse_slices(raw_path, timing_path):
    col, data = raw_rows(raw_path)
    timing = [r for r in csv.DictReader(l for l in open(timing_path) if not l.startswith("#"))]
    assert len(data) == LAUNCHES_PER_ROW * len(timing), (len(data), len(timing))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["row_a", "row_b", "share", "spread", "stages", "gbps_per_sm", "lookups_per_sector", "read_hit_pct",
                "all_sectors_per_requested", "slice_pct_of_peak"])
    for i, t in enumerate(timing):
        timed = data[LAUNCHES_PER_ROW * i + 1:LAUNCHES_PER_ROW * (i + 1)]
        med = lambda name: statistics.median(number(r[col[name]]) for r in timed)  # noqa: E731
        reads = med("lts__t_sectors_srcunit_tex_op_read.sum")
        asked = BLOCKS * ITERS * SECTORS_PER_STAGE
        w.writerow([t["row_a"], t["row_b"], t["share"], t["spread"], t["stages"], t["gbps_per_sm"],
                    f"{reads / asked:.3f}", f"{100 * med('lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum') / reads:.1f}",
                    f"{med('lts__t_sectors.sum') / asked:.3f}",
                    f"{med('lts__t_sectors.avg.pct_of_peak_sustained_elapsed'):.1f}"])


def number(v):
    return float(v.replace(",", ""))


def parse(raw_path, timing_path):
    col, data = raw_rows(raw_path)
    timing = [r for r in csv.DictReader(l for l in open(timing_path) if not l.startswith("#"))]
    assert len(data) == LAUNCHES_PER_ROW * len(timing), (len(data), len(timing))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["share", "distance", "stages", "gbps_per_sm", "lookups_per_sector", "hit_pct",
                "lookup_requests_per_line_request"])
    for i, t in enumerate(timing):
        timed = data[LAUNCHES_PER_ROW * i + 1:LAUNCHES_PER_ROW * (i + 1)]
        sectors = statistics.median(number(r[col["lts__t_sectors_srcunit_tex_op_read.sum"]]) for r in timed)
        hits = statistics.median(number(r[col["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"]]) for r in timed)
        reqs = statistics.median(number(r[col["lts__t_requests_srcunit_tex_op_read.sum"]]) for r in timed)
        asked = BLOCKS * ITERS * SECTORS_PER_STAGE
        w.writerow([t["share"], t["spread"], t["stages"], t["gbps_per_sm"], f"{sectors / asked:.3f}",
                    f"{100 * hits / sectors:.1f}", f"{reqs / (BLOCKS * ITERS * REQUESTS_PER_STAGE):.3f}"])


def saving(lookups_path):
    rows = list(csv.DictReader(l for l in open(lookups_path) if not l.startswith("#")))
    alone = {r["stages"]: float(r["gbps_per_sm"]) for r in rows if r["share"] == "1"}
    shares = []
    for r in rows:
        looked = float(r["lookups_per_sector"])
        if r["share"] == "1" or looked >= 0.95:
            continue
        shares.append((1 - alone[r["stages"]] / float(r["gbps_per_sm"])) / (1 - looked))
        print(f"share {r['share']} distance {r['distance']:>2} stages {r['stages']}: lookups {looked:.3f}, "
              f"{float(r['gbps_per_sm']):.1f} GB/s an SM against {alone[r['stages']]:.1f} alone: saves {shares[-1]:.2f}")
    print(f"median over {len(shares)} rows: {statistics.median(shares):.3f} "
          f"(range {min(shares):.2f}-{max(shares):.2f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", metavar="DIR")
    ap.add_argument("--parse", nargs=2, metavar=("RAW", "TIMING"))
    ap.add_argument("--saving", metavar="LOOKUPS_CSV")
    ap.add_argument("--slices", metavar="DIR")
    ap.add_argument("--parse-slices", nargs=2, metavar=("RAW", "TIMING"))
    a = ap.parse_args()
    if a.run:
        os.makedirs(a.run, exist_ok=True)
        run(a.run, "distance", "l2_requests_distance.csv", "l2_share_ncu_raw.csv", METRICS)
    elif a.parse:
        parse(*a.parse)
    elif a.saving:
        saving(a.saving)
    elif a.slices:
        os.makedirs(a.slices, exist_ok=True)
        run(a.slices, "share", "l2_requests_share_timing.csv", "l2_slices_ncu_raw.csv", SLICE_METRICS)
    elif a.parse_slices:
        parse_slices(*a.parse_slices)
    else:
        ap.error("--run DIR, --parse RAW TIMING, --saving LOOKUPS_CSV, --slices DIR or --parse-slices RAW TIMING")


if __name__ == "__main__":
    main()
