#!/usr/bin/env python3
"""How the copies of a Triton GEMM tile wider than the tensor reach L2 (issues 3 and 5).

The corpus kernel (triton_gemm_sweep.py, the tutorial matmul) wraps its row and column
indices modulo M and N, so a tile wider than the tensor asks for the same rows (A, wrapped
along its strided dim) or columns (B, wrapped along its contiguous dim) again. This script
launches the corpus kernel on

  single   one-tile grids (no other CTA shares the operand): M = 16 or 64 under BLOCK_M
           64-256 (A's rows wrapped), N = 16, 32, 64 or 128 under BLOCK_N 64-256 (B's
           columns wrapped), over BLOCK_K, stages and warps;
  corpus   a few wrapped configs of the corpus (l2_hit_corpus.csv rows), many CTAs;
  grid     (--set grid) M = 16 under 64-row tiles (4 copies of each row) on grids of 1-64
           CTAs side by side along N, each CTA its own B, all reading A's 16 rows: BLOCK_K 32
           (64-byte rows, part of a line) and 64 (whole lines) at 2 and 5 stages; 8 copies at
           2-5 stages on 64 CTAs; 2 copies (M = 32) on 64; and unwrapped A (M = 64) on 8 and 64 CTAs
           as the control;
  gridwide (--set gridwide) the 64-byte rows on 64-344 CTAs (M = 16 and 32), 2 and 5 stages;
  shared   (--set shared) no copies: A's 64 rows (one row of 64 x 64 tiles) read by 8-264 CTAs
           at once, BLOCK_K 32, 64 and 128, 2, 3 and 5 stages: how the share of a shared block's
           requests that reach a lookup moves with the row's bytes, the stages and the readers;

under Nsight Compute (cold L2, --clock-control none), and reads per launch: the LDGSTS
instructions and their L1TEX requests and sectors (bypass), the sectors L1TEX received from
the crossbar, L2's tex read requests, sectors (lookups), lookup hits and misses, DRAM reads
and the duration. Before profiling it compiles every config once without ncu and records the
TTGIR blocked layout of the A and B copies (sizePerThread, threadsPerWarp, warpsPerCTA,
order), so that each row says which copies share a warp instruction.

  python3 tests/validation/h200/ncu_wrapped.py --out DIR [--set grid]     (on the H200, ~2 min)
      -> DIR/ncu_wrapped.csv, DIR/ncu_wrapped_raw.csv (ncu's CSV; ncu_wrapped_grid*.csv with --set grid)
  python3 tests/validation/h200/ncu_wrapped.py target [grid]             (what ncu runs)
  python3 tests/validation/h200/ncu_wrapped.py --law [--json | --check hw_profiles/h200.json]
      (no GPU: l2.short_row_lookups, below)
  python3 tests/validation/h200/ncu_wrapped.py --compare [CSV] [--cli PATH]    (no GPU: the grid
      set, or ncu_wrapped_gridwide.csv / ncu_wrapped_shared.csv, against tilesight-cli's lookups,
      with the mean abs error and bias over the rows)

l2.short_row_lookups (--law): the rows of 64 bytes (BLOCK_K 32) of the grid, gridwide and shared
sets, each launch's lookups of A a CTA over its requests of each sector (its copies: 4, 2 or 1)
against the bytes its CTAs keep in flight (CTAs x (stages - 1) x the tile's A and B bytes a
stage); the median of each octave of bytes (2^18 and below in one), at the median bytes of its
launches. Copies and other CTAs' reads of the block fall on one curve.
"""
import argparse
import csv
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

from ncu_run import blocked_layouts, metric_cells, profile_cases  # noqa: E402

K_SINGLE = 4096
COPY = r"ttg\.async_copy_global_to_local"  # the copies whose layouts each row records


def grid_cases():
    """--set grid: how a wrapped row's lookups grow with the CTAs that share it."""
    out = []
    for n in (1, 2, 4, 8, 16, 32, 64):
        for bk in (32, 64):
            for st in (2, 5):
                out.append(("grid", 16, 64 * n, K_SINGLE, 64, 64, bk, 1, st, 4))
    for st in (2, 3, 4, 5):
        out.append(("grid", 16, 4096, K_SINGLE, 128, 64, 32, 1, st, 4))
    for m in (32, 64):  # 2 copies of each row; unwrapped
        for n in ((64,) if m == 32 else (8, 64)):
            for bk in (32, 64):
                for st in (2, 5):
                    out.append(("grid", m, 64 * n, K_SINGLE, 64, 64, bk, 1, st, 4))
    return out


def gridwide_cases():
    """--set gridwide: the grid set's 64-byte rows past 64 CTAs (held out 4's 32 x 11008 x 4096 looks
    up 2.6 a CTA at 2 stages where 64 CTAs look up 1.1): 64-344 CTAs, 2 and 5 stages, with
    whole-line (BLOCK_K 64) controls."""
    out = []
    for m in (16, 32):
        for n in (64, 96, 128, 172, 256, 344):
            for st in (2, 5):
                out.append(("gridwide", m, 64 * n, K_SINGLE, 64, 64, 32, 1, st, 4))
    for n in (172, 344):
        out.append(("gridwide", 32, 64 * n, K_SINGLE, 64, 64, 64, 1, 2, 4))
        out.append(("gridwide", 64, 64 * n, K_SINGLE, 64, 64, 32, 1, 2, 4))
    return out


def shared_cases():
    """--set shared: A unwrapped (M = BLOCK_M = 64), one row of CTAs along N, each its own B."""
    return [("shared", 64, 64 * n, K_SINGLE, 64, 64, bk, 1, st, 4)
            for n in (8, 32, 64, 132, 264) for bk in (32, 64, 128) for st in (2, 3, 5)]


def cases(which="wrapped"):
    """(label, M, N, K, block_m, block_n, block_k, group_m, stages, warps)."""
    if which == "shared":
        return shared_cases()
    if which == "grid":
        return grid_cases()
    if which == "gridwide":
        return gridwide_cases()
    out = []
    # A's rows wrapped (strided dim): M = 16 under one tile of BLOCK_M rows, N = BLOCK_N = 64.
    for bm in (64, 128, 256):
        for bk in (32, 64, 128):
            out.append(("single", 16, 64, K_SINGLE, bm, 64, bk, 1, 3, 4))
    for st, w in ((2, 4), (5, 4), (3, 8)):
        out.append(("single", 16, 64, K_SINGLE, 256, 64, 32, 1, st, w))
    out.append(("single", 16, 64, K_SINGLE, 256, 64, 64, 1, 2, 8))
    for bm in (128, 256):
        for bk in (32, 64):
            out.append(("single", 64, 64, K_SINGLE, bm, 64, bk, 1, 3, 4))
    # B's columns wrapped (contiguous dim): one tile of 64 rows of A.
    for n, bns in ((16, (64, 128, 256)), (32, (64, 128, 256)), (64, (128, 256)), (128, (256,))):
        for bn in bns:
            for bk in (32, 64):
                out.append(("single", 64, n, K_SINGLE, 64, bn, bk, 1, 3, 4))
    for st, w in ((2, 4), (5, 8)):
        out.append(("single", 64, 16, K_SINGLE, 64, 128, 64, 1, st, w))
    # Corpus rows (many CTAs), l2_hit_corpus.csv.
    out += [("corpus", 4096, 16, 4096, 64, 128, 64, 1, 2, 4),
            ("corpus", 4096, 16, 4096, 64, 64, 64, 8, 2, 4),
            ("corpus", 16, 4096, 4096, 128, 64, 32, 1, 3, 4),
            ("corpus", 16, 4096, 4096, 256, 64, 64, 1, 3, 4),
            ("corpus", 8192, 64, 4096, 64, 256, 64, 1, 2, 4),
            ("corpus", 8192, 64, 4096, 64, 128, 64, 1, 2, 4),
            ("corpus", 8192, 128, 8192, 64, 256, 64, 1, 2, 4)]
    return out


def cfg_of(c):
    return dict(block_m=c[4], block_n=c[5], block_k=c[6], group_m=c[7], stages=c[8], warps=c[9])


def target(record, ttgir_dir=None, which="wrapped"):
    import torch
    from triton_gemm_sweep import launch
    rows = []
    for c in cases(which):
        label, M, N, K = c[:4]
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        torch.cuda.synchronize()
        try:
            k = launch(a, b, out, cfg_of(c))
            torch.cuda.synchronize()
            print("CASE_OK", *c, flush=True)
            if record and ttgir_dir:
                with open(os.path.join(ttgir_dir, "_".join(str(x) for x in c) + ".ttgir"), "w") as f:
                    f.write(k.asm.get("ttgir", ""))
            if record:
                rows.append(list(c) + [getattr(k, "n_regs", ""), getattr(k, "n_spills", ""),
                                       blocked_layouts(k.asm.get("ttgir", ""), COPY)])
        except Exception as exc:  # keep going: the row says it failed
            print("CASE_FAIL", *c, type(exc).__name__, str(exc)[:100], flush=True)
    return rows


METRICS = ["gpu__time_duration.sum", "launch__grid_size", "dram__bytes_read.sum",
           "smsp__inst_executed_op_ldgsts.sum", "l1tex__m_xbar2l1tex_read_sectors.sum",
           "lts__t_requests_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
           "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
           "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"]
SASS_METRICS = ["sm__sass_inst_executed_op_ldgsts_cache_bypass.sum",
                "sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
                "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum"]
COLS = ["ldgsts_inst", "l1_ldgsts_requests", "l1_ldgsts_sectors", "xbar2l1tex_sectors",
        "l2_read_requests", "l2_read_sectors", "l2_read_hit", "l2_read_miss", "dram_read_bytes",
        "duration_ns", "grid"]
SOURCE = ["smsp__inst_executed_op_ldgsts.sum",
          "sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
          "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
          "l1tex__m_xbar2l1tex_read_sectors.sum", "lts__t_requests_srcunit_tex_op_read.sum",
          "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
          "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", "dram__bytes_read.sum",
          "gpu__time_duration.sum", "launch__grid_size"]


def run(args):
    from envinfo import header_lines
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    os.makedirs(os.path.join(args.out, "ttgir"), exist_ok=True)
    layouts = target(record=True, ttgir_dir=os.path.join(args.out, "ttgir"), which=args.set)  # compiles every config outside ncu; records the layouts
    print(f"compiled {len(layouts)} configs in {time.time() - t0:.1f} s", flush=True)
    ncu = os.environ.get("NCU", "ncu")
    stem = "ncu_wrapped" if args.set == "wrapped" else "ncu_wrapped_" + args.set
    raw = os.path.join(args.out, stem + "_raw.csv")
    for metrics in (METRICS + SASS_METRICS, METRICS):  # without the SASS metrics where ncu lacks them
        ok, rows = profile_cases(__file__, metrics, raw, args.timeout, extra=(args.set,))
        print(f"at {time.time() - t0:.1f} s", flush=True)
        if rows:
            break
    by_case = {tuple(r[:10]): r[10:] for r in layouts}
    path = os.path.join(args.out, stem + ".csv")
    with open(path, "w", newline="") as f:
        f.write(header_lines("tests/validation/h200/ncu_wrapped.py", {
            "method": "ncu --clock-control none --cache-control all (default) --page raw, one launch "
                      "per case (Triton tutorial matmul, bf16, wrapped rows/columns), cold L2",
            "metrics": ",".join(metrics),
            "ncu": subprocess.run(f"{ncu} --version | tail -1", shell=True, capture_output=True,
                                  text=True).stdout.strip()}))
        w = csv.writer(f)
        w.writerow(["set", "M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps"]
                   + COLS + ["n_regs", "n_spills", "copy_layouts"])
        for case, d in zip(ok, rows):
            key = (case[0],) + tuple(int(x) for x in case[1:])
            w.writerow(list(key) + metric_cells(d, SOURCE) + list(by_case.get(key, ["", "", ""])))
    print(f"wrote {path}: {min(len(ok), len(rows))} rows in {time.time() - t0:.1f} s", flush=True)


def compare(cli, name="ncu_wrapped_grid.csv"):
    """--compare (no GPU): each row of ncu_wrapped_grid.csv, the wrapped (or shared) operand A's L2
    lookups a CTA per distinct sector as ncu counts them (tex read sectors less B's, each CTA's B
    its own, read once) and as `tilesight-cli predict` does (A's requested less merged bytes)."""
    import json
    with open(os.path.join(HERE, name)) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    print("    M     N  block_m block_k stages CTAs copies   A lookups a CTA a sector: ncu  model")
    errors = []
    for r in rows:
        x = {k: int(r[k]) for k in ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps")}
        plan = json.dumps({"kernel": "gemm", "hardware": "h200", "params": {**x, "dtype": "bf16"}})
        out = subprocess.run([cli, "predict", "--format", "json", "-"], input=plan, capture_output=True, text=True,
                             check=True).stdout
        a = next(t for t in json.loads(out)["tensors"] if t["tensor"] == "A")
        ctas, distinct = int(float(r["grid"])), x["M"] * x["K"] * 2 / 32
        ncu = (float(r["l2_read_sectors"]) - x["K"] * x["N"] * 2 / 32) / distinct / ctas
        model = (a["requested_bytes"] - a.get("l2_merged_bytes", 0)) / 32 / distinct / ctas
        copies = -(-x["block_m"] // x["M"])
        print(f"{x['M']:5d} {x['N']:5d} {x['block_m']:8d} {x['block_k']:7d} {x['stages']:6d} {ctas:4d} {copies:6d}"
              f"   {ncu:34.2f} {model:6.2f}")
        errors.append(model - ncu)
    if errors:
        print(f"{len(errors)} rows: mean abs error {sum(map(abs, errors)) / len(errors):.3f} lookups a CTA a sector, "
              f"bias {sum(errors) / len(errors):+.3f}")


LAW_SETS = ("ncu_wrapped_grid.csv", "ncu_wrapped_gridwide.csv", "ncu_wrapped_shared.csv")


def law_points():
    """l2.short_row_lookups: [[bytes in flight, share of the requests looked up], ...]."""
    import math
    import statistics
    octaves = {}
    for name in LAW_SETS:
        with open(os.path.join(HERE, name)) as f:
            for r in csv.DictReader(line for line in f if not line.startswith("#")):
                m, n, k, bm, bn, bk, st = (int(float(r[c])) for c in ("M", "N", "K", "block_m", "block_n", "block_k", "stages"))
                if bk * 2 >= 128:  # rows of whole lines
                    continue
                ctas, copies = int(float(r["grid"])), -(-bm // m)
                per_cta = (float(r["l2_read_sectors"]) - k * n * 2 / 32) / (m * k * 2 / 32) / ctas
                in_flight = ctas * (st - 1) * (bm * bk + bk * bn) * 2
                octaves.setdefault(max(18, round(math.log2(in_flight))), []).append((in_flight, per_cta / copies))
    return [[round(statistics.median(b for b, _ in v)), round(statistics.median(s for _, s in v), 3)]
            for _, v in sorted(octaves.items())]


def law(as_json, check):
    import json
    points = law_points()
    if check:
        with open(check) as f:
            have = json.load(f)["l2"]["short_row_lookups"]["value"]
        if have != points:
            sys.exit(f"{check}: l2.short_row_lookups is {have}, the sets give {points}")
        print(f"{check}: l2.short_row_lookups matches the sets")
    elif as_json:
        print(json.dumps(points))
    else:
        for b, share in points:
            print(f"{b / 1024:8.0f} KB in flight: {share:.3f} of the requests looked up")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "target"])
    ap.add_argument("which", nargs="?", default="wrapped", choices=["wrapped", "grid", "gridwide", "shared"], help="target's set")
    ap.add_argument("--set", default="wrapped", choices=["wrapped", "grid", "gridwide", "shared"])
    ap.add_argument("--compare", nargs="?", const="ncu_wrapped_grid.csv", metavar="CSV",
                    help="no GPU: ncu_wrapped_grid.csv (or ncu_wrapped_gridwide.csv) against the model")
    ap.add_argument("--law", action="store_true", help="no GPU: l2.short_row_lookups from the 64-byte rows")
    ap.add_argument("--json", action="store_true", help="with --law: the profile's value")
    ap.add_argument("--check", metavar="PROFILE", help="with --law: fail unless PROFILE holds the sets' value")
    ap.add_argument("--cli", default=os.path.join(HERE, "..", "..", "..", "build", "bin", "tilesight-cli"))
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--timeout", type=float, default=400)
    a = ap.parse_args()
    if a.law:
        law(a.json, a.check)
    elif a.compare:
        compare(a.cli, a.compare)
    elif a.mode == "target":
        target(record=False, which=a.which)
    else:
        run(a)


if __name__ == "__main__":
    main()
