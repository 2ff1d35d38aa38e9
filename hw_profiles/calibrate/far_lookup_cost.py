#!/usr/bin/env python3
"""What a lookup in the home partition costs the L2: the bandwidth sweep's read kernel under ncu.

bw_sweep.py's persistent read (every SM re-reading a working set with ld.global.cg, blocks
handed round the programs so that every SM reads every block in turn) reads 8.5-8.7 TB/s on the
H200 up to 32 MB and 7.8-8.5 TB/s from 34 to 56 MB. Past about half the L2 a partition cannot
hold its home lines and near copies of all the other side's, so part of the reads miss the near
partition and are looked up again at home (ncu: `lts__t_sectors_srcunit_ltcfabric`). This
script counts them beside the time: the same kernel at working sets from 10% to 95% of the
device's L2, one warm launch each (launches before it fill the L2; ncu run with
--cache-control none), so that sectors read a second time per read sector (f) and the read rate
can be set side by side. If a home lookup cost the lane what a read does, the rate would fall
as 1 / (1 + f) where DRAM reads stay nil.

The same for the copy loop GEMMs use (`gpc_path.cu`, sm_path.cu's cp.async loop of 16 KiB
stages, 5 stages, one block on every SM, each streaming the whole buffer from its own offset):
docs/cache-model.md reads 126-127 GB/s an SM from 8 MiB and 80-83 from 32 MiB, "reads crossing
the partitions". Under ncu at buffers of 4-48 MiB (the launch after its warm-up), with the same
counters -> DIR/far_lookup_copy.csv.

  python3 hw_profiles/calibrate/far_lookup_cost.py --out DIR    (on the GPU, about 2 min)
  python3 hw_profiles/calibrate/far_lookup_cost.py target       (what ncu runs)

Writes DIR/far_lookup_cost.csv: working set (bytes and share of the L2), ncu's duration, read
sectors and their hits, home (fabric) lookups and their hits, DRAM bytes read, L2 port and
lookup utilisation, SM clock; DIR/far_lookup_cost_raw.csv, ncu's log.
"""
import argparse
import csv
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

SHARES = (0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
WARM = 3  # launches before the profiled one, to fill the L2
BLOCK = 4096  # fp32 elements a block (16 KiB)
READ_BYTES = 1 << 30  # one launch reads about 1 GiB (passes over the set)

METRICS = ["gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second", "dram__bytes_read.sum",
           "lts__t_sectors.sum", "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum",
           "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed"]
COLS = ["duration_ns", "sm_hz", "dram_read_bytes", "l2_sectors", "l2_sectors_pct", "read_sectors",
        "read_hit_sectors", "fabric_sectors", "fabric_hit_sectors", "lts2xbar_pct"]


def sizes():
    import torch
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    blk = BLOCK * 4
    return l2, [max(1, int(s * l2 / blk)) * blk for s in SHARES]


def target():
    import torch
    from bw_sweep import read_kernel
    l2, sets = sizes()
    progs = torch.cuda.get_device_properties(0).multi_processor_count * 4
    out = torch.empty(progs, device="cuda", dtype=torch.float32)
    for b in sets:
        x = torch.ones(b // 4, device="cuda", dtype=torch.float32)
        nblk = b // (BLOCK * 4)
        iters = max(1, READ_BYTES // (BLOCK * 4) // progs)
        for _ in range(WARM + 1):
            read_kernel[(progs,)](x, out, nblk, iters, BLOCK=BLOCK, CG=True, num_warps=8)
        torch.cuda.synchronize()
        print("CASE_OK", b, f"{b / l2:.3f}", iters * progs * BLOCK * 4, flush=True)
        del x
        torch.cuda.empty_cache()


def run(args):
    from envinfo import header_lines
    from ncu_run import parse_ncu
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    target()  # compile outside ncu
    raw = os.path.join(args.out, "far_lookup_cost_raw.csv")
    ncu = os.environ.get("NCU", "ncu")
    cmd = [ncu, "--clock-control", "none", "--cache-control", "none", "--kernel-name", "regex:read_kernel",
           "--csv", "--page", "raw", "--print-units", "base", "--log-file", raw, "--metrics", ",".join(METRICS),
           sys.executable, os.path.abspath(__file__), "target"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    print(p.stdout[-1500:], p.stderr[-800:], f"ncu rc={p.returncode}", flush=True)
    ok = [ln.split()[1:4] for ln in p.stdout.splitlines() if ln.startswith("CASE_OK")]
    rows = parse_ncu(open(raw).read()) if os.path.exists(raw) else []
    per = WARM + 1
    path = os.path.join(args.out, "far_lookup_cost.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/far_lookup_cost.py", {
            "method": f"ncu --clock-control none --cache-control none, bw_sweep.read_kernel (.cg), the launch after {WARM} warm ones",
            "metrics": ",".join(METRICS)}))
        w = csv.writer(f)
        w.writerow(["set_bytes", "l2_share", "read_bytes"] + COLS)
        for i, case in enumerate(ok):
            if (i + 1) * per - 1 < len(rows):
                d = rows[(i + 1) * per - 1]
                w.writerow(case + [d.get(m, "") for m in METRICS])
    print(f"wrote {path}: {len(ok)} sets, {len(rows)} profiled launches at {time.time() - t0:.1f} s", flush=True)


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
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "target"])
    ap.add_argument("--out", default=os.path.join(HERE, "h200"))
    ap.add_argument("--timeout", type=float, default=400)
    a = ap.parse_args()
    if a.mode == "target":
        target()
    else:
        run(a)
        copy_sets(a)


if __name__ == "__main__":
    main()
