#!/usr/bin/env python3
"""A reference, not the model: the H200's two L2 partitions as plain LRU caches over a traced GEMM
launch's own access stream, beside ncu's DRAM reads and the cache model's with the same starts
(docs/cache-model.md, "Later waves start as convoys of one GPC").

Each tile of the traced launch (hw_profiles/calibrate/h200/cta_skew*.csv.gz, first repeat) reads
its block of A (its row of tiles) and of B (its column) at every k-step, at start + (k + 0.5) x
its own iteration (its time over the k-steps). Each block's lines are homed half in each
partition (the address hash interleaves lines; sm_partition.cu). A read goes to the partition
next to its SM (sm_partition.partitions): a hit there is a hit; a miss of a line homed there
goes to DRAM; a miss of a line homed across is looked up in its home partition (a hit there,
or DRAM, the home then holding it too), and the near partition keeps a copy. Both partitions
hold l2.partition_bytes (30.5 MB) under LRU.

Where this reference and the model (walked with the same starts, `tilesight-cli predict
--tile-starts`) agree and both miss ncu, what is left is outside the cache arithmetic: how
the tiles' reads spread inside a tile (the reference and the model both take each tile at its
own even pace) and the hardware's replacement.

--phases takes a skinny_phases.py CSV with the same launches' quarter timestamps (K/4, K/2, 3K/4)
and paces each tile piecewise between them too (another launch than the cta_skew trace's).

  python3 tests/validation/h200/lru_traced.py "M N K BM BN BK G S W" ... [--cap-mb 30.5]
          [--phases hw_profiles/calibrate/h200/onetile_phases.csv.gz] [--cli build/bin/tilesight-cli]
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
CALIBRATE = os.path.join(ROOT, "hw_profiles", "calibrate")
sys.path.insert(0, CALIBRATE)
sys.path.insert(0, HERE)
KEY = ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps")


def traced(config):
    """The first traced launch of the config: {pid: (t_start_ns, t_end_ns, smid)}, or None."""
    from cta_skew import read_launches
    for path in sorted(glob.glob(os.path.join(CALIBRATE, "h200", "cta_skew*.csv.gz"))):
        launch = read_launches(path, smid=True).get(config + (0,))
        if launch:
            return launch
    return None


def phased(config, path):
    """The first launch of the config in a skinny_phases.py CSV (quarter timestamps): {pid:
    (t_start, t_q1, t_q2, t_q3, t_end, smid)}, or None."""
    import csv
    import gzip
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#"))
                if tuple(int(r[c]) for c in KEY) == config and r["rep"] == "0"]
    return {int(r["pid"]): tuple(int(r[c]) for c in ("t_start_ns", "t_q1_ns", "t_q2_ns", "t_q3_ns", "t_end_ns", "smid"))
            for r in rows} or None


def when(times, s, steps):
    """Time of k-step s (its middle) from a tile's anchors: (start, end) at an even pace, or
    (start, K/4, K/2, 3K/4, end) piecewise linear between them."""
    x = (s + 0.5) / steps * (len(times) - 1)
    i = min(int(x), len(times) - 2)
    return int(times[i] + (x - i) * (times[i + 1] - times[i]))


def reads(config, tiles, side):
    """Every tile's reads of its A and B blocks, k-step by k-step, in time order: (t, side,
    block), block = (index * k-steps + k) * 2 + (0 for A, 1 for B). A tile is (start, end, SM)
    or (start, K/4, K/2, 3K/4, end, SM)."""
    from merge_traced import tile_coord
    m, n, k, bm, bn, bk, group_m = config[:7]
    steps = k // bk
    out = []
    for p, tile in tiles.items():
        anchors, sm = tile[:-1], tile[-1]
        row, col = tile_coord(p, m, n, bm, bn, group_m)
        for s in range(steps):
            t = when(anchors, s, steps)
            out.append((t, side[sm], (row * steps + s) * 2))
            out.append((t, side[sm], (col * steps + s) * 2 + 1))
    out.sort()
    return out


def simulate(config, stream, cap):
    """DRAM bytes and the hit rate of all lookups (near and home) under the partitions' LRU."""
    bm, bn, bk = config[3:6]
    half = (bm * bk, bn * bk)  # half a block of bf16: its lines homed in one partition
    parts = [collections.OrderedDict(), collections.OrderedDict()]
    held = [0, 0]

    def keep(q, line, size):
        parts[q][line] = size
        held[q] += size
        while held[q] > cap:
            held[q] -= parts[q].popitem(last=False)[1]

    dram = lookups = hits = 0
    for _, s, block in stream:
        size = half[block & 1]
        for home in (0, 1):
            line = block * 2 + home
            lookups += size
            if line in parts[s]:
                parts[s].move_to_end(line)
                hits += size
                continue
            if home != s:
                lookups += size
                if line in parts[home]:
                    parts[home].move_to_end(line)
                    hits += size
                else:
                    dram += size
                    keep(home, line, size)
            else:
                dram += size
            keep(s, line, size)
    return dram, hits / lookups


def model_with_starts(cli, config, tiles):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("pid,t_start_ns,t_end_ns\n")
        for p in range(len(tiles)):
            f.write(f"{p},{tiles[p][0]},{tiles[p][1]}\n")
        trace = f.name
    try:
        plan = json.dumps({"kernel": "gemm", "hardware": "h200", "params": {**dict(zip(KEY, config)), "dtype": "bf16"}})
        out = subprocess.run([cli, "predict", "--format", "json", "-", "--tile-starts", trace], input=plan,
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(trace)
    d = json.loads(out)
    return d["dram_read_bytes"], d["l2_hit_rate"]


def ncu_row(config):
    """ncu's DRAM read bytes and L2 hit rate (0..1) for the config, or None."""
    from l2_measured_starts import measured
    r = measured().get(tuple(str(v) for v in config))
    return (float(r["dram_read_bytes"]), float(r["l2_hit_pct"]) / 100) if r else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="+", help='"M N K block_m block_n block_k group_m stages warps"')
    ap.add_argument("--cap-mb", type=float, default=30.5, help="each partition's bytes (l2.partition_bytes)")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    ap.add_argument("--phases", help="a skinny_phases.py CSV (quarter timestamps): pace each tile between them "
                    "as well, beside the even pace")
    a = ap.parse_args()
    from sm_partition import partitions, read
    side = partitions(read(os.path.join(CALIBRATE, "h200", "sm_partition.csv.gz")))[0]
    for text in a.configs:
        config = tuple(int(v) for v in text.split())
        tiles = traced(config)
        ncu = ncu_row(config)
        if not tiles or not ncu:
            print(text, ": no trace" if not tiles else ": no ncu row")
            continue
        dram, hit = simulate(config, reads(config, tiles, side), a.cap_mb * 1e6)
        model_dram, model_hit = model_with_starts(a.cli, config, tiles)
        print(f"{text}: DRAM GB ncu {ncu[0] / 1e9:.2f}, LRU {dram / 1e9:.2f}, model {model_dram / 1e9:.2f}; "
              f"L2 hit rate ncu {100 * ncu[1]:.1f}, LRU {100 * hit:.1f}, model {100 * model_hit:.1f} "
              f"(LRU and model with the traced starts)", flush=True)
        quarters = phased(config, a.phases) if a.phases else None
        if quarters:
            dram_q, hit_q = simulate(config, reads(config, quarters, side), a.cap_mb * 1e6)
            print(f"{text}: LRU paced by the quarter timestamps of {os.path.basename(a.phases)}: DRAM GB "
                  f"{dram_q / 1e9:.2f}, L2 hit rate {100 * hit_q:.1f}", flush=True)


if __name__ == "__main__":
    main()
