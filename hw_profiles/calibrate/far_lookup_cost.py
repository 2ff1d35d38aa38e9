#!/usr/bin/env python3
"""What a lookup in the home partition costs the copy loop GEMMs use: gpc_path.cu under ncu.

A near miss of a line homed in the other L2 partition is looked up again there (ncu:
`lts__t_sectors_srcunit_ltcfabric`). For the bandwidth sweep's register loads
`l2_cyclic_ncu.py` counts them (h200/l2_cyclic_ncu.csv, `shared`): 0.26 of the read sectors at
40 MB for 4.8% more time than at 24 MB (0.03), so there they cost at most 0.2 of a read. Those
loads may be held by the SM's load path (65.9 GB/s an SM) with the slices to spare. This script
asks the same of the cp.async copy loop (`gpc_path.cu`: sm_path.cu's loop of 16 KiB stages, 5
stages, one block on every SM, each streaming the whole buffer from its own offset), which
moves 126-127 GB/s an SM from 8 MiB and 80-83 from 32 MiB (docs/cache-model.md, "reads crossing
the partitions"): ncu's read sectors, home lookups and their hits, DRAM bytes and time at
buffers of 4-48 MiB, the launch after the warm-up (--cache-control none). If the home lookups
are f a read sector where DRAM reads stay nil, the time's rise over the 8 MiB one is the
weight times f.

  python3 hw_profiles/calibrate/far_lookup_cost.py --out DIR    (on the GPU, about 1 min)

Writes DIR/far_lookup_copy.csv (buffer bytes, blocks, bytes copied, then the metrics below) and
DIR/far_lookup_copy_raw.csv, ncu's logs.
"""
import argparse
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

METRICS = ["gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second", "dram__bytes_read.sum",
           "lts__t_sectors.sum", "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum",
           "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed"]
COLS = ["duration_ns", "sm_hz", "dram_read_bytes", "l2_sectors", "l2_sectors_pct", "read_sectors",
        "read_hit_sectors", "fabric_sectors", "fabric_hit_sectors", "lts2xbar_pct"]


COPY_MIB = (4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 48)
COPY_BYTES = 20000 * 16384  # gpc_path.cu: kIters stages of kStageBytes a block


def copy_sets(args):
    """gpc_path.cu's copy loop on every SM at 5 stages under ncu, one buffer size at a time."""
    from envinfo import header_lines
    from ncu_run import parse_ncu
    import torch
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    binary = os.path.join("/tmp", "gpc_path_far")
    subprocess.run(["nvcc", "-O3", "-arch=sm_90a", "-o", binary, os.path.join(HERE, "gpc_path.cu")], check=True)
    ncu = os.environ.get("NCU", "ncu")
    path = os.path.join(args.out, "far_lookup_copy.csv")
    raw_all = []
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/far_lookup_cost.py", {
            "method": "ncu --clock-control none --cache-control none, gpc_path.cu pull<5> on every SM, the launch after its warm-up",
            "metrics": ",".join(METRICS)}))
        w = csv.writer(f)
        w.writerow(["set_bytes", "blocks", "read_bytes"] + COLS)
        for mib in COPY_MIB:
            raw = os.path.join(args.out, f"copy_{mib}.csv")
            cmd = [ncu, "--clock-control", "none", "--cache-control", "none", "--kernel-name", "regex:pull",
                   "--launch-skip", "1", "--launch-count", "1", "--csv", "--page", "raw", "--print-units", "base",
                   "--log-file", raw, "--metrics", ",".join(METRICS), binary, "5", str(mib), "1" * 256, "1"]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            rows = parse_ncu(open(raw).read()) if os.path.exists(raw) else []
            if not rows:
                print(f"copy {mib} MiB: no ncu row (rc {p.returncode})", p.stderr[-400:], flush=True)
                continue
            d = rows[-1]
            w.writerow([mib << 20, sms, sms * COPY_BYTES] + [d.get(m, "") for m in METRICS])
            f.flush()
            raw_all.append(open(raw).read())
            os.remove(raw)
            t = d.get("gpu__time_duration.sum", float("nan"))
            rd = d.get("lts__t_sectors_srcunit_tex_op_read.sum", float("nan"))
            fab = d.get("lts__t_sectors_srcunit_ltcfabric.sum", float("nan"))
            print(f"copy {mib:3d} MiB: {sms * COPY_BYTES / t:7.0f} GB/s, home lookups {fab / rd:.3f} a read sector, "
                  f"DRAM {d.get('dram__bytes_read.sum', 0) / 1e6:.0f} MB", flush=True)
    with open(os.path.join(args.out, "far_lookup_copy_raw.csv"), "w") as f:
        f.write("\n".join(raw_all))
    print(f"wrote {path}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "h200"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    copy_sets(a)


if __name__ == "__main__":
    main()
