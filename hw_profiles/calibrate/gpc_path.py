#!/usr/bin/env python3
"""What each SM's path from L2 carries, by the GPC it sits in (gpc_path.cu).

The traced GEMM launches (cta_skew.py) run their tiles slower on some GPCs than on others, most
often the two GPCs of 18 SMs (GPCs 6 and 7, sm_partition.gpc_of_sm; the other six have 16): in
8192^3 64 x 64 x 32 tiles at 2 stages, 1.069 of the median tile time on GPC 6, 0.964 on GPCs 1-3
(docs/cache-model.md, "The GPCs of a full grid"). If a GPC's SMs share one port to the L2, an
18-SM GPC gives each SM 16/18 of what a 16-SM one does once every SM pulls. gpc_path.cu runs
sm_path.cu's cp.async loop on the SMs a mask names, one block an SM, each timed on its own
between a quarter and three quarters of its 20000 stages of 16 KiB (while all still pull):

  all       every SM, 3 and 5 stages, an 8 MiB and a 32 MiB buffer
  gpc<g>    the 16 or 18 SMs of GPC g alone (5 stages, 8 MiB)
  sixteen   16 SMs of every GPC (two of GPCs 6 and 7 idle)
  g67       GPCs 6 and 7 alone (36 SMs), g01: GPCs 0 and 1 (32 SMs)
  spread16  2 SMs of every GPC, spread64: 8 of every GPC; gpc0again: GPC 0 alone, last

On the H200, from the repository root (~1 min):
  python3 hw_profiles/calibrate/gpc_path.py --out DIR      -> DIR/gpc_path.csv
Anywhere:
  python3 hw_profiles/calibrate/gpc_path.py [--csv h200/gpc_path.csv.gz]
    per run: each GPC's SMs' mean rate (GB/s an SM) and the GPC's total, and the SMs' clock
"""
import argparse
import collections
import csv
import gzip
import os
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sm_partition import gpc_of_sm  # noqa: E402

STAGE_BYTES = 16384
ITERS = 20000
REPS = 3


def runs(gpc):
    """(name, stages, buffer MiB, set of active SMs) for every run."""
    sms = sorted(gpc)
    by_gpc = collections.defaultdict(list)
    for sm in sms:
        by_gpc[gpc[sm]].append(sm)
    out = [("all", s, mib, set(sms)) for s in (3, 5) for mib in (8, 32)]
    out += [(f"gpc{g}", 5, 8, set(by_gpc[g])) for g in sorted(by_gpc)]
    out.append(("sixteen", 5, 8, {sm for g in by_gpc for sm in by_gpc[g][:16]}))
    out.append(("g67", 5, 8, set(by_gpc[6] + by_gpc[7])))
    out.append(("g01", 5, 8, set(by_gpc[0] + by_gpc[1])))
    out.append(("spread16", 5, 8, {sm for g in by_gpc for sm in by_gpc[g][:2]}))
    out.append(("spread64", 5, 8, {sm for g in by_gpc for sm in by_gpc[g][:8]}))
    out.append(("gpc0again", 5, 8, set(by_gpc[0])))
    return out


def measure(out_dir):
    gpc = gpc_of_sm(os.path.join(HERE, "h200"))
    binary = os.path.join(out_dir, "gpc_path")
    subprocess.run(["nvcc", "-O3", "-arch=sm_90a", "-o", binary, os.path.join(HERE, "gpc_path.cu")], check=True)
    path = os.path.join(out_dir, "gpc_path.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "stages", "buffer_mib", "rep", "smid", "gpc", "active", "t_start", "t_q1", "t_q3", "t_end",
                    "c_q1", "c_q3"])
        for name, stages, mib, active in runs(gpc):
            mask = "".join("1" if sm in active else "0" for sm in range(max(gpc) + 1))
            res = subprocess.run([binary, str(stages), str(mib), mask, str(REPS)], capture_output=True, text=True,
                                 check=True)
            for r in csv.DictReader(res.stdout.splitlines()):
                sm = int(r["smid"])
                w.writerow([name, stages, mib, r["rep"], sm, gpc.get(sm, -1), r["active"], r["t_start"], r["t_q1"],
                            r["t_q3"], r["t_end"], r["c_q1"], r["c_q3"]])
            print(f"{name} s{stages} {mib} MiB: {len(active)} SMs", flush=True)
    print(f"wrote {path}")


def analyse(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = [r for r in csv.DictReader(f) if r["active"] == "1"]
    launches = collections.defaultdict(list)
    for r in rows:
        launches[(r["run"], int(r["stages"]), int(r["buffer_mib"]), int(r["rep"]))].append(r)
    per_run = collections.defaultdict(lambda: collections.defaultdict(list))  # run -> gpc -> rates
    clock = collections.defaultdict(list)  # run -> GHz of each SM between the quarters
    overlap = {}
    for key, rs in launches.items():
        q1 = max(int(r["t_q1"]) for r in rs)
        q3 = min(int(r["t_q3"]) for r in rs)
        overlap[key] = q3 > q1
        for r in rs:
            gbps = ITERS / 2 * STAGE_BYTES / (int(r["t_q3"]) - int(r["t_q1"]))
            per_run[key[:3]][int(r["gpc"])].append(gbps)
            if r.get("c_q1"):
                clock[key[:3]].append((int(r["c_q3"]) - int(r["c_q1"])) / (int(r["t_q3"]) - int(r["t_q1"])))
    print("GB/s an SM between a quarter and three quarters of each SM's stages (mean over the GPC's SMs and "
          f"{REPS} launches), the GPC's total in brackets; '!' where the SMs' windows did not all overlap")
    for key in sorted(per_run, key=lambda k: (k[0] != "all", k)):
        gpcs = per_run[key]
        ok = all(overlap[k] for k in overlap if k[:3] == key)
        cells = []
        for g in sorted(gpcs):
            n = len(gpcs[g]) // REPS
            mean = statistics.fmean(gpcs[g])
            cells.append(f"{g}:{mean:6.1f} ({n:2d}, {mean * n / 1e3:.2f} TB/s)")
        name = f"{key[0]} s{key[1]} {key[2]} MiB"
        ghz = f"{statistics.median(clock[key]):.2f} GHz " if clock[key] else ""
        print(f"{name:18s}{'' if ok else '!'} {ghz}" + "  ".join(cells))
    return 0


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # piped into head: stop quietly
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="measure on the GPU, write OUT/gpc_path.csv")
    ap.add_argument("--csv", default=os.path.join(HERE, "h200", "gpc_path.csv.gz"))
    a = ap.parse_args()
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        measure(a.out)
        return 0
    return analyse(a.csv)


if __name__ == "__main__":
    sys.exit(main())
