#!/usr/bin/env python3
"""The bandwidth sweep's cyclic reads under ncu: how much of a working set read over and over
the two L2 partitions serve, near and far, against its size (no flush between passes).

bw_sweep.py's kernel (528 persistent programs, 4 an SM, 16 KiB blocks, ld.global.cg) reads a
working set of 24-96 MB about 1 GB a launch. "shared": its own block order, where every block
is read by SMs of both sides over the passes; "private": the block count rounded to a multiple
of the programs, so each block is read by the same program every pass. "own" and "own_rw":
each program reads (and, own_rw, writes back) a region of its own, 4 KiB at a time, over and
over, 16-80 MB in all in steps of 4 MB: the pattern of the resident tiles' register spills.
ncu counts the SMs' read lookups and hits in their near partition (srcunit_tex) and the lookups
a near miss makes in the line's home partition (srcunit_ltcfabric), with hits, and the DRAM
bytes read and written.

  python3 l2_cyclic_ncu.py --out DIR     runs ncu on `python3 l2_cyclic_ncu.py target`, writes
                                         DIR/l2_cyclic_ncu.csv
  python3 l2_cyclic_ncu.py --show CSV    prints it (no GPU)
  python3 l2_cyclic_ncu.py --json CSV    the profile's l2.cyclic_hit from the own_rw rows: points
                                         (working set / l2.bytes, share of reads that hit, the
                                         launch's cold first pass taken out)
"""
import argparse
import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

METRICS = ["lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum",
           "dram__bytes_read.sum", "gpu__time_duration.sum", "dram__bytes_write.sum"]
OWN_MB = list(range(16, 81, 4))
OWN_BLOCK = 1024  # fp32: 4 KiB
SIZES_MB = [24, 32, 36, 40, 44, 48, 52, 56, 60, 64, 72, 80, 96]
BLOCK = 4096  # fp32: 16 KiB
PROGS_PER_SM = 4


def cases(nprog):
    """(layout, MB asked, blocks: of 16 KiB for shared / private, of 4 KiB a program for own)."""
    out = []
    for layout in ("shared", "private"):
        for mb in SIZES_MB:
            nblk = int(mb * 1e6) // (BLOCK * 4)
            if layout == "private":
                nblk = max(nprog, nblk // nprog * nprog)
            out.append((layout, mb, nblk))
    for layout in ("own", "own_rw"):
        for mb in OWN_MB:
            out.append((layout, mb, max(1, round(mb * 1e6 / (OWN_BLOCK * 4) / nprog))))
    return out


def working_set(layout, nblk, nprog):
    return nblk * nprog * OWN_BLOCK * 4 if layout.startswith("own") else nblk * BLOCK * 4


def target():
    import torch
    import triton
    import triton.language as tl
    from bw_sweep import read_kernel

    @triton.jit
    def own_kernel(x_ptr, out_ptr, per_prog, iters, BLOCK: tl.constexpr, RW: tl.constexpr):
        pid = tl.program_id(0)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for i in range(iters):
            offs = (pid * per_prog + i % per_prog).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, cache_modifier=".cg")
            acc += x
            if RW:
                tl.store(x_ptr + offs, x * 0.5)
        tl.store(out_ptr + pid, tl.sum(acc, axis=0))

    from ncu_run import run_marked
    nprog = torch.cuda.get_device_properties(0).multi_processor_count * PROGS_PER_SM
    buf = torch.randn(256 * 2 ** 20 // 4, device="cuda", dtype=torch.float32)
    out = torch.empty(nprog, device="cuda", dtype=torch.float32)
    iters = max(1, math.ceil(1e9 / (BLOCK * 4) / nprog))
    own_iters = max(1, math.ceil(1e9 / (OWN_BLOCK * 4) / nprog))

    def case(layout, nblk):
        if layout.startswith("own"):
            return lambda: own_kernel[(nprog,)](buf, out, nblk, own_iters, BLOCK=OWN_BLOCK, RW=layout == "own_rw",
                                                num_warps=8)
        return lambda: read_kernel[(nprog,)](buf, out, nblk, iters, BLOCK=BLOCK, CG=True, num_warps=8)

    # Each launch runs once before its marker too (warm, then dropped: one per case).
    run_marked([(lambda lay=lay, n=n: case(lay, n)) for lay, _, n in cases(nprog)])


def run(out_dir):
    from ncu_run import num, profile_marked
    import torch
    os.makedirs(out_dir, exist_ok=True)
    nprog = torch.cuda.get_device_properties(0).multi_processor_count * PROGS_PER_SM
    raw = os.path.join(out_dir, "l2_cyclic_ncu_raw.csv")
    # Each case's first kernel after its marker; the next case's warm-up launch comes after it.
    ok, calls, cmd = profile_marked(__file__, METRICS, "regex:read_kernel|own_kernel|ncu_case_marker", raw, 600)
    from envinfo import header_lines
    path = os.path.join(out_dir, "l2_cyclic_ncu.csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/l2_cyclic_ncu.py", {"ncu": " ".join(cmd[:-3])}))
        w = csv.writer(f)
        w.writerow(["layout", "mb", "blocks", "working_set_bytes", "tex_read", "tex_read_hits", "fabric", "fabric_hits",
                    "dram_read_bytes", "duration_ns", "dram_write_bytes"])
        for i, (layout, mb, nblk) in enumerate(cases(nprog)):
            if i not in ok or i >= len(calls) or not calls[i]:
                continue
            w.writerow([layout, mb, nblk, working_set(layout, nblk, nprog)] +
                       [f"{num(calls[i][0], m):.0f}" for m in METRICS])
    print(f"wrote {path}", flush=True)


def show(path):
    with open(path) as f:
        rows = list(csv.DictReader(ln for ln in f if not ln.startswith("#")))
    print(f"{'layout':8s} {'MB':>6s} {'near hit':>9s} {'far lookups/tex':>16s} {'far hit':>8s} {'served in L2':>13s}"
          f" {'DRAM/read':>10s} {'TB/s':>6s}")
    for r in rows:
        mb = float(r["working_set_bytes"]) / 1e6 if "working_set_bytes" in r else float(r["mb"])
        tex, th = float(r["tex_read"]), float(r["tex_read_hits"])
        fab, fh = float(r["fabric"]), float(r["fabric_hits"])
        served = (th + fh) / tex
        print(f"{r['layout']:8s} {mb:6.1f} {th / tex:9.2f} {fab / tex:16.2f} {fh / max(fab, 1):8.2f} {served:13.2f}"
              f" {float(r['dram_read_bytes']) / (tex * 32):10.2f} {tex * 32 / float(r['duration_ns']) / 1e3:6.2f}")


def steady_hit(r):
    """The share of a row's reads that hit once the set is in L2: ncu's DRAM reads less the
    launch's first pass (cold: ncu flushes the caches before it), of the reads after it."""
    ws, reads = float(r["working_set_bytes"]), float(r["tex_read"]) * 32
    cold = ws / reads
    missed = float(r["dram_read_bytes"]) / reads
    return 1 - max(0.0, (missed - cold) / (1 - cold))


def table(path):
    import json
    with open(path) as f:
        rows = [r for r in csv.DictReader(ln for ln in f if not ln.startswith("#")) if r["layout"] == "own_rw"]
    with open(os.path.join(HERE, "..", "h200.json")) as f:
        capacity = json.load(f)["l2"]["bytes"]["value"]
    points, last = [], None
    for r in rows:
        w, h = round(float(r["working_set_bytes"]) / capacity, 3), round(steady_hit(r), 3)
        if last and last[1] >= 0.9995 and h >= 0.9995:
            points[-1] = [w, 1.0]  # the largest set that all hits starts the curve
        elif not (last and last[1] <= 0.0005):
            h = min(h, last[1]) if last else h
            points.append([w, 1.0 if h >= 0.9995 else max(0.0, h)])
        last = points[-1]
    print(json.dumps(points))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", choices=["run", "target"], default="run")
    ap.add_argument("--out", default=".")
    ap.add_argument("--show")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.show:
        show(args.show)
    elif args.json:
        table(args.json)
    elif args.mode == "target":
        target()
    else:
        run(args.out)


if __name__ == "__main__":
    main()
