#!/usr/bin/env python3
"""Residuals of TileSight's L2 hit rate against the ncu corpus of the H200 (docs/cache-model.md).

  python3 tests/validation/h200/l2_residuals.py [--cli build-cache/bin/tilesight-cli]
          [--out rows.csv] [--all] [--worst 25] [--hand | --calib | --heldout | --heldout4 | --heldout5 | --heldout6 | --waves]

Predicts every row of l2_hit_sweep.csv + l2_hit_corpus.csv (or l2_hit.csv with --hand, or the
calibration set outside the corpus's shapes, l2_hit_calib.csv, with --calib) in
one `tilesight-cli predict --jsonl` batch and prints the mean absolute error and bias of
`l2_hit_rate` against ncu's lts__t_sector_hit_rate, grouped by shape class, tile, group_m,
stages, K depth (iterations of the K loop), waves, and the worst rows. The clean rows are
the ones the [validation] unit test scores: M, N, K multiples of 16 (else Triton falls back
to narrow loads) and no register spills (triton_gemm.csv's n_spills; local memory goes
through L2). --all scores every row. Besides the hit rate it compares DRAM read bytes and
shows ncu's L2 read lookups per requested sector (`merge`: tex read sectors over the sectors
the tiles' loads ask for, A and B; 1 = no merging). The load-only line sets the model's
`l2_load_hit_rate` (loads in both partitions) beside ncu's tex reads (the SMs' own partition):
a rough view. --lookups predicts, row by row (one `tilesight-cli predict --format json` a row,
for its per-tensor bytes: slower), that share (`pred_merge` in --out) and the near partition's
load hit rate as ncu's tex reads count it (`pred_near_load`: A's and B's hits and lookups less
the far partition's), and prints their errors against ncu's, the share by waves and stages.
Plain Python, no packages.
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
KEY = ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps")
CONFIG = KEY[3:]  # the tile config: block sizes, group_m, stages, warps
SMS = 132


def read(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def shape_class(r):
    m, n, k = r["M"], r["N"], r["K"]
    if m % 16 or n % 16 or k % 16:
        return "unaligned"
    if m <= 128 or n <= 128:
        return "skinny"
    if k >= 4 * max(m, n):
        return "deep-K"
    return "square/LLM"


def k_depth(r):
    it = math.ceil(r["K"] / r["block_k"])
    return "<=32" if it <= 32 else "33-128" if it <= 128 else ">128"


def wave_class(p):
    w = p["waves"]
    return "1 wave" if w <= 1 else "2-4" if w <= 4 else "5-16" if w <= 16 else ">16"


def params(x):
    """The plan's params: the tile config, and Triton's spill count where the compiler reported
    one (triton_gemm.csv's n_spills: a compile-time fact, as `tilesight-cli validate` passes it)."""
    p = {**{c: x[c] for c in KEY}, "dtype": "bf16"}
    if x["spills"] > 0:
        p["spills"] = x["spills"]
    return p


def predicted_lookups(cli, x):
    """The model's L2 lookups and hits per requested sector of A and B, split as ncu counts them:
    `near` the SMs' loads in their own partition (ncu's tex reads: A's and B's lookups less the
    far partition's), `other` the rest (a near miss looked up again in its home partition, and
    the stores); and `merge`, the near lookups a requested sector (1 - merged / requested)."""
    plan = json.dumps({"kernel": "gemm", "hardware": "h200", "params": params(x)})
    out = subprocess.run([cli, "predict", "--format", "json", "-"], input=plan, capture_output=True, text=True,
                         check=True).stdout
    tensors = json.loads(out)["tensors"]
    loads = [t for t in tensors if t["tensor"] in ("A", "B")]
    requested = sum(t["requested_bytes"] for t in loads)
    if requested <= 0:
        return None
    near = sum(t["l2_lookup_bytes"] - t["l2_far_lookup_bytes"] for t in loads)
    near_hits = sum(t["l2_hit_bytes"] - t["l2_far_hit_bytes"] for t in loads)
    lookups = sum(t["l2_lookup_bytes"] for t in tensors)
    hits = sum(t["l2_hit_bytes"] for t in tensors)
    return {"merge": 1 - sum(t.get("l2_merged_bytes", 0) for t in loads) / requested,
            "near": near / requested, "near_hits": near_hits / requested,
            "other": (lookups - near) / requested, "other_hits": (hits - near_hits) / requested}


def measured_split(x):
    """ncu's lookups and hits per requested sector, split as predicted_lookups splits the model's."""
    req = x["requested"]
    return {"near": x["tex"] / req, "near_hits": x["tex_hit"] / req,
            "other": (x["sectors"] - x["tex"]) / req, "other_hits": (x["hit_sectors"] - x["tex_hit"]) / req}


def print_swap(rows):
    """Which half of the near partition's hit rate (its lookups less its misses) carries the error:
    the near load hit rate's MAE with the model's own figures, with ncu's lookups and the model's
    misses, and with the model's lookups and ncu's misses, per requested sector, row by row, by
    one wave or more (docs/cache-model.md, "Where the rest of the corpus's error is")."""
    print("near load hit rate MAE (pp): the model / ncu's lookups, the model's misses / the model's lookups, "
          "ncu's misses; near misses a requested sector, ncu / model")
    classes = {}
    for x in rows:
        if math.isnan(x["pred_near_load"]) or math.isnan(x["meas_load"]) or not x["merge"] > 0 or not x["pred_merge"] > 0:
            continue
        classes.setdefault("1 wave" if x["waves"] <= 1 else "more", []).append(x)
    for k, g in sorted(classes.items()):
        miss = [x["merge"] * (1 - x["meas_load"] / 100) for x in g]
        pred_miss = [x["pred_merge"] * (1 - x["pred_near_load"] / 100) for x in g]
        own = statistics.fmean(abs(x["pred_near_load"] - x["meas_load"]) for x in g)
        ncu_lookups = statistics.fmean(abs(100 * (1 - m / x["merge"]) - x["meas_load"]) for x, m in zip(g, pred_miss))
        ncu_misses = statistics.fmean(abs(100 * (1 - m / x["pred_merge"]) - x["meas_load"]) for x, m in zip(g, miss))
        print(f"  {k:>6}  {len(g):4d} rows   {own:5.2f} / {ncu_lookups:5.2f} / {ncu_misses:5.2f}   "
              f"{statistics.fmean(miss):.3f} / {statistics.fmean(pred_miss):.3f}")


def print_split(rows):
    """Where the hit rate's error sits: lookups and hits per requested sector in the SMs' own
    partition and the rest (home partition and stores), model against ncu, by waves."""
    print("lookups and hits a requested sector, ncu / model: near partition's loads (tex reads), the rest "
          "(home partition, stores)")
    print("  waves    rows   near lookups   near hits     near hit rate   rest lookups   rest hits      rest hit rate")
    classes = {}
    for x in rows:
        classes.setdefault(wave_class(x), []).append(x)
    for k, g in list(sorted(classes.items())) + [("all", rows)]:
        m = [measured_split(x) for x in g]
        p = [x["split"] for x in g]
        mean = lambda v, key: statistics.fmean(d[key] for d in v)
        cells = [f"{mean(m, c):.3f}/{mean(p, c):.3f}" for c in ("near", "near_hits")]
        cells.append(f"{mean(m, 'near_hits') / mean(m, 'near'):.3f}/{mean(p, 'near_hits') / mean(p, 'near'):.3f}")
        cells += [f"{mean(m, c):.3f}/{mean(p, c):.3f}" for c in ("other", "other_hits")]
        cells.append(f"{mean(m, 'other_hits') / mean(m, 'other'):.3f}/{mean(p, 'other_hits') / mean(p, 'other'):.3f}")
        print(f"  {k:>6}  {len(g):4d}   " + "   ".join(f"{c:>12}" for c in cells))


def summary(rows):
    e = [x["err"] for x in rows]
    return len(e), statistics.fmean(abs(v) for v in e), statistics.fmean(e)


def table(title, rows, key):
    groups = {}
    for x in rows:
        groups.setdefault(key(x), []).append(x)
    print(f"\n{title}:  rows  MAE  bias  (pp)   share of total abs error")
    total = sum(abs(x["err"]) for x in rows)
    for k in sorted(groups, key=lambda k: (str(type(k)), k)):
        n, mae, bias = summary(groups[k])
        share = sum(abs(x["err"]) for x in groups[k]) / total
        print(f"  {str(k):>14}  {n:4d}  {mae:5.1f}  {bias:+5.1f}   {100 * share:4.0f}%")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # piped into head: stop quietly
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build-cache", "bin", "tilesight-cli"))
    ap.add_argument("--out", help="per-row CSV: the key, measured and predicted figures")
    ap.add_argument("--all", action="store_true", help="score every row, not only the clean ones")
    ap.add_argument("--hand", action="store_true", help="l2_hit.csv (29 hand-picked rows) instead")
    ap.add_argument("--calib", action="store_true",
                    help="l2_hit_calib.csv (the calibration set outside the corpus's shapes) instead")
    ap.add_argument("--heldout", action="store_true",
                    help="l2_hit_heldout.csv (three many-wave shapes measured 2026-12-02, after the model was fixed) instead")
    ap.add_argument("--heldout4", action="store_true",
                    help="l2_hit_heldout4.csv (five LLM-like shapes measured 2026-12-02) instead")
    ap.add_argument("--heldout5", action="store_true",
                    help="l2_hit_heldout5.csv (five more LLM-like shapes measured 2026-12-04) instead")
    ap.add_argument("--heldout6", action="store_true",
                    help="l2_hit_heldout6.csv (five shapes measured 2026-12-05) instead")
    ap.add_argument("--waves", action="store_true",
                    help="l2_hit_waves.csv (held out 6's 512 x 16384 x 16384 at 2-8x the rows, measured 2026-12-06) instead")
    ap.add_argument("--worst", type=int, default=25)
    ap.add_argument("--lookups", action="store_true",
                    help="also predict the lookups per requested sector, row by row, against ncu's")
    a = ap.parse_args()

    timed_rows = [r for timed in ("triton_gemm.csv", "triton_gemm_heldout3.csv", "triton_gemm_heldout4.csv",
                                  "triton_gemm_heldout5.csv", "triton_gemm_heldout6.csv")
                  if os.path.exists(os.path.join(HERE, timed)) for r in read(os.path.join(HERE, timed))]
    spills = {tuple(int(r[c]) for c in KEY): int(r["n_spills"]) for r in timed_rows}
    # A shape no timing corpus holds takes its config's count on aligned shapes (M, N, K are
    # runtime arguments: one binary for every shape of multiples of 16; the counts agree there).
    config_spills = {tuple(int(r[c]) for c in CONFIG): int(r["n_spills"]) for r in timed_rows
                     if all(int(r[d]) % 16 == 0 for d in ("M", "N", "K"))}

    def spills_of(x):
        if tuple(x[c] for c in KEY) in spills:
            return spills[tuple(x[c] for c in KEY)]
        aligned = all(x[d] % 16 == 0 for d in ("M", "N", "K"))
        return config_spills.get(tuple(x[c] for c in CONFIG), 0) if aligned else 0

    files = (["l2_hit.csv"] if a.hand else ["l2_hit_calib.csv"] if a.calib
             else ["l2_hit_heldout.csv"] if a.heldout else ["l2_hit_heldout4.csv"] if a.heldout4
             else ["l2_hit_heldout5.csv"] if a.heldout5
             else ["l2_hit_heldout6.csv"] if a.heldout6
             else ["l2_hit_waves.csv"] if a.waves
             else ["l2_hit_sweep.csv", "l2_hit_corpus.csv"])
    rows = []
    for f in files:
        for r in read(os.path.join(HERE, f)):
            x = {c: int(r[c]) for c in KEY}
            x.update(meas=float(r["l2_hit_pct"]), dram=float(r["dram_read_bytes"]),
                     tex=float(r.get("l2_tex_read_sectors") or "nan"),
                     tex_hit=float(r.get("l2_tex_read_hit_sectors") or "nan"),
                     sectors=float(r.get("l2_sectors") or "nan"), hit_sectors=float(r.get("l2_hit_sectors") or "nan"))
            x["spills"] = spills_of(x)
            x["cls"] = shape_class(x)
            x["clean"] = x["cls"] != "unaligned" and x["spills"] == 0
            rows.append(x)

    plans = "".join(json.dumps({"kernel": "gemm", "hardware": "h200",
                                "params": params(x)}) + "\n" for x in rows)
    res = subprocess.run([a.cli, "predict", "--jsonl", "-"], input=plans, capture_output=True, text=True, check=True)
    preds = [json.loads(l) for l in res.stdout.splitlines() if l.strip()]
    assert len(preds) == len(rows), (len(preds), len(rows), res.stderr[:500])
    for x, p in zip(rows, preds):
        x["pred"] = 100 * p["l2_hit_rate"]
        x["pred_load"] = 100 * p["l2_load_hit_rate"]
        x["pred_dram"] = p["dram_read_bytes"]
        x["waves"] = p["waves"]
        x["err"] = x["pred"] - x["meas"]
        x["dram_err"] = p["dram_read_bytes"] / x["dram"] - 1
        grid = math.ceil(x["M"] / x["block_m"]) * math.ceil(x["N"] / x["block_n"])
        x["requested"] = grid * (x["block_m"] + x["block_n"]) * x["K"] * 2 / 32  # bf16 A and B sectors
        x["merge"] = x["tex"] / x["requested"]
        x["meas_load"] = 100 * x["tex_hit"] / x["tex"] if x["tex"] > 0 else float("nan")

    scored = rows if a.all else [x for x in rows if x["clean"]]
    n, mae, bias = summary(scored)
    dram = sorted(abs(x["dram_err"]) for x in scored)
    print(f"{n} rows ({'all' if a.all else 'clean'} of {len(rows)}): L2 hit rate MAE {mae:.2f} pp, bias {bias:+.2f} pp; "
          f"DRAM read error median {100 * dram[len(dram) // 2]:.1f}%, mean {100 * statistics.fmean(dram):.1f}%")
    load = [x for x in scored if not math.isnan(x["meas_load"])]
    if load:
        print(f"load-only hit rate (tex reads, near partition): MAE "
              f"{statistics.fmean(abs(x['pred_load'] - x['meas_load']) for x in load):.2f} pp, bias "
              f"{statistics.fmean(x['pred_load'] - x['meas_load'] for x in load):+.2f} pp (the model's loads in both "
              f"partitions: --lookups scores its near partition's); "
              f"ncu read lookups per requested sector: median {statistics.median(x['merge'] for x in load):.2f}")
    if a.lookups:
        rows_ = [x for x in scored if not math.isnan(x["merge"])]
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            for x, split in zip(rows_, pool.map(lambda x: predicted_lookups(a.cli, x), rows_)):
                x["split"] = split
        rows_ = [x for x in rows_ if x["split"]]
        for x in rows_:
            x["pred_merge"] = x["split"]["merge"]
            x["pred_near_load"] = 100 * x["split"]["near_hits"] / x["split"]["near"]
        err = [x["pred_merge"] - x["merge"] for x in rows_]
        print(f"L2 read lookups per requested sector, model against ncu ({len(rows_)} rows): mean abs error "
              f"{statistics.fmean(abs(e) for e in err):.3f}, bias {statistics.fmean(err):+.3f}")
        near = [x["pred_near_load"] - x["meas_load"] for x in rows_ if not math.isnan(x["pred_near_load"])]
        print(f"load hit rate in the near partition (tex reads), model against ncu ({len(near)} rows): MAE "
              f"{statistics.fmean(abs(e) for e in near):.2f} pp, bias {statistics.fmean(near):+.2f} pp")
        groups = {}
        for x, e in zip(rows_, err):
            groups.setdefault((x["stages"], "1 wave" if x["waves"] <= 1 else "more"), []).append((x, e))
        for k in sorted(groups):
            g = groups[k]
            print(f"  stages {k[0]}, {k[1]:>6}: {len(g):4d} rows, ncu {statistics.fmean(x['merge'] for x, _ in g):.2f}, "
                  f"model {statistics.fmean(x['pred_merge'] for x, _ in g):.2f}")
        print_split([x for x in rows_ if not math.isnan(x["sectors"])])
        print_swap(rows_)
    table("shape class", scored, lambda x: x["cls"])
    table("tile (block_m x block_n)", scored, lambda x: f"{x['block_m']}x{x['block_n']}")
    table("group_m", scored, lambda x: x["group_m"])
    table("stages", scored, lambda x: x["stages"])
    table("block_k", scored, lambda x: x["block_k"])
    table("K iterations", scored, lambda x: k_depth(x))
    table("waves (grid / resident slots)", scored, wave_class)
    table("ncu lookups per requested sector", scored,
          lambda x: "nan" if math.isnan(x["merge"]) else f"{min(1.0, math.floor(x['merge'] * 5) / 5):.1f}+")
    table("shape", scored, lambda x: f"{x['M']}x{x['N']}x{x['K']}")

    print(f"\nworst {a.worst} rows (pred - meas):")
    print("  M x N x K            tile        gm st w  waves  meas  pred   err  load m/p   merge  dram err")
    for x in sorted(scored, key=lambda x: -abs(x["err"]))[: a.worst]:
        print(f"  {x['M']:>5}x{x['N']:>5}x{x['K']:>5}  {x['block_m']:>3}x{x['block_n']:>3}x{x['block_k']:>3} "
              f"{x['group_m']:>2} {x['stages']} {x['warps']}  {x['waves']:5.1f}  {x['meas']:5.1f} {x['pred']:5.1f} "
              f"{x['err']:+6.1f}  {x['meas_load']:4.0f}/{x['pred_load']:3.0f}  {x['merge']:5.2f}  {100 * x['dram_err']:+6.1f}%")

    if a.out:
        cols = list(KEY) + ["cls", "clean", "spills", "waves", "meas", "pred", "err", "meas_load", "pred_load",
                            "merge", "dram", "pred_dram", "dram_err"] + (["pred_merge", "pred_near_load"] if a.lookups else [])
        with open(a.out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            for x in rows:
                w.writerow([f"{x.get(c, float('nan')):.6g}" if isinstance(x.get(c, 0.0), float) else x[c] for c in cols])


if __name__ == "__main__":
    main()
