#!/usr/bin/env python3
"""Spill reloads against the L1 beside the shared-memory carve-out: l1_frame.cu timed and under
Nsight Compute.

  python3 l1_frame.py --run DIR    (on the H200, from hw_profiles/calibrate, ~3 min)
      builds l1_frame.cu, runs it (the timing of each config), runs it again under ncu with one
      launch a config (the carve-out ncu reports and the L1 hit rate of the local loads), and
      joins both into DIR/l1_frame.csv
  python3 l1_frame.py --table h200/l1_frame.csv    (anywhere)
      per carve-out: the local loads' L1 hit rate against the bytes the two blocks of an SM
      keep in their frames and stream through L1 each iteration, over the L1 the carve-out
      leaves (256 KiB less the carve-out)
  python3 l1_frame.py --chain DIR   (on the H200, ~1 min)
      the latency of dependent local loads (each thread walks its frame as a chain) with the L1's
      room (a 132 KiB carve-out or less) and without (228 KiB), timed and under ncu for the hit
      rate -> DIR/l1_chain.csv

CSV: smem_per_block, carveout_pct, words, frame_bytes_per_sm, stream_bytes_per_sm, iters, us,
     ns_per_iteration, carveout_bytes, l1_bytes, local_ld_hit_pct, local_ld_sectors,
     global_ld_hit_pct
"""
import argparse
import csv
import io
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

METRICS = ("launch__shared_mem_config_size,l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct,"
           "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,"
           "launch__occupancy_limit_shared_mem")


def run(out, mode=""):
    from envinfo import header_lines
    from ncu_run import parse_ncu
    exe = os.path.join(out, "l1_frame")
    subprocess.run(["nvcc", "-O3", "-arch=sm_90a", "-o", exe, os.path.join(HERE, "l1_frame.cu")], check=True)
    name = "l1_chain" if mode else "l1_frame"
    args = [exe] + ([mode] if mode else [])
    timed = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    env = dict(os.environ, L1F_ONCE="1")
    raw = subprocess.run(["ncu", "--metrics", METRICS, "--csv", "--page", "raw", "--print-units", "base"] + args,
                         capture_output=True, text=True, env=env, check=True).stdout
    with open(os.path.join(out, f"{name}_raw.csv"), "w") as f:
        f.write(raw)
    prof = [r for r in parse_ncu(raw)]
    if mode:  # the chain runs each config twice (a warm-up, then the timed launch): keep the second
        prof = prof[1::2]
    rows = list(csv.DictReader(io.StringIO(timed)))
    if len(prof) != len(rows):
        raise SystemExit(f"{len(rows)} timed configs but {len(prof)} profiled launches")
    with open(os.path.join(out, f"{name}.csv"), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/l1_frame.py"))
        w = csv.writer(f)
        w.writerow(list(rows[0].keys()) + ["carveout_bytes", "l1_bytes", "local_ld_hit_pct", "local_ld_sectors",
                                           "global_ld_hit_pct"])
        for r, p in zip(rows, prof):
            carve = p.get("launch__shared_mem_config_size", 0)
            w.writerow(list(r.values()) + [int(carve), int(256 * 1024 - carve),
                                           p.get("l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct", ""),
                                           int(p.get("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 0)),
                                           p.get("l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "")])


def table(path):
    with open(path) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    print("carve-out KiB, stream KiB/SM, frame KiB/SM, (frame + stream) / L1, local L1 hit %, ns an iteration")
    for r in rows:
        l1 = int(r["l1_bytes"])
        ws = int(r["frame_bytes_per_sm"]) + int(r["stream_bytes_per_sm"])
        print(f"{int(r['carveout_bytes']) // 1024:4d} {int(r['stream_bytes_per_sm']) // 1024:4d} "
              f"{int(r['frame_bytes_per_sm']) / 1024:6.1f} {ws / l1 if l1 else float('inf'):6.2f} "
              f"{float(r['local_ld_hit_pct']):6.1f} {float(r['ns_per_iteration']):8.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", metavar="DIR")
    ap.add_argument("--table", metavar="CSV")
    ap.add_argument("--chain", metavar="DIR", help="the latency of dependent local loads, L1 hits and misses -> DIR/l1_chain.csv")
    a = ap.parse_args()
    if a.chain:
        os.makedirs(a.chain, exist_ok=True)
        run(a.chain, "c")
        print(open(os.path.join(a.chain, "l1_chain.csv")).read())
    elif a.run:
        os.makedirs(a.run, exist_ok=True)
        run(a.run)
        table(os.path.join(a.run, "l1_frame.csv"))
    elif a.table:
        table(a.table)
    else:
        ap.print_help()


if __name__ == "__main__":
    main()
