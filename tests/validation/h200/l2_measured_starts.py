#!/usr/bin/env python3
"""The cache model with the skew each launch really had: where is the L2 error of many-wave GEMMs?

The CTA traces of hw_profiles/calibrate/cta_skew.py (%globaltimer at the start and end of every
CTA of the corpus's Triton GEMM, h200/cta_skew*.csv.gz) say when each tile of a launch started.
`tilesight-cli predict --tile-starts TRACE` walks the cache model with those starts instead of
its own wave widths (SdcmOptions::tile_starts): what is left of the error against ncu
(l2_hit_corpus.csv and the held-out sets) is the cache model's reuse, capacity and merging;
what the starts take away is the model of the skew (docs/cache-model.md, "The measured starts").

  python3 tests/validation/h200/l2_measured_starts.py [--cli build/bin/tilesight-cli]
          [--min-waves 2.5] [--shape measured|smear|core-smear|tail-smear] [--traces NAME ...] [--out rows.csv]
  python3 tests/validation/h200/l2_measured_starts.py --fit-shape [--traces NAME ...]

--shape rearranges each wave's measured starts before the walk, to ask which of their features
the hit rate needs: `smear` spreads a wave's tiles evenly over its measured width (p10-p90 over
0.8, centred on its median) in launch order, as the model does; `core-smear` keeps the tiles
that started more than the L2 reach after the wave's first (the near partition, 30 MB, over the
bytes all slots load an iteration) where they were and spreads the rest (the core) evenly over
their span; `tail-smear` keeps the core and spreads the later ones (the tail) evenly instead.
One launch a trace: the first repeat of each case; configs that spill registers are left out,
as l2_residuals.py leaves them out of its clean rows. Plain Python, no packages; no GPU.
"""
import argparse
import csv
import gzip
import json
import os
import statistics
import subprocess
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
TRACES = ["cta_skew_big", "cta_skew_coherence", "cta_skew_heldout", "cta_skew_wide", "cta_skew", "cta_skew_sample",
          "cta_skew_heldout5", "cta_skew_heldout6", "cta_skew_waves"]
CORPORA = ["l2_hit_corpus", "l2_hit_sweep", "l2_hit_heldout", "l2_hit_calib", "l2_hit_heldout4", "l2_hit_heldout5",
           "l2_hit_heldout6", "l2_hit_waves"]
KEY = ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps")
NEAR_BYTES = 30e6  # one L2 partition of the H200 (hw_profiles/h200.json)


def rows_of(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def measured():
    out = {}
    for name in CORPORA:
        path = os.path.join(HERE, name + ".csv")
        if os.path.exists(path):
            for r in rows_of(path):
                out[tuple(r[k] for k in KEY)] = r
    return out


def spilled():
    """Configs that spill registers (the timed corpora's n_spills: local memory goes through L2,
    l2_residuals.py leaves them out of its clean rows)."""
    out = set()
    for name in ("triton_gemm.csv", "triton_gemm_heldout3.csv", "triton_gemm_heldout4.csv"):
        out |= {tuple(r[k] for k in KEY) for r in rows_of(os.path.join(HERE, name)) if int(r.get("n_spills") or 0) > 0}
    return out


def traces(names=TRACES):
    launches = defaultdict(dict)
    for name in names:
        for x in rows_of(os.path.join(ROOT, "hw_profiles", "calibrate", "h200", name + ".csv.gz")):
            if x["rep"] == "0":
                launches[tuple(x[k] for k in KEY)][int(x["pid"])] = (float(x["t_start_ns"]), float(x["t_end_ns"]))
    return launches


def waves_of(starts, slots):
    return [list(range(w, min(len(starts), w + slots))) for w in range(0, len(starts), slots)]


def reshape(key, ctas, shape):
    """Start times (ns) by launch position after the --shape rearrangement."""
    n = len(ctas)
    starts = [ctas[p][0] for p in range(n)]
    if shape == "measured":
        return starts
    tile = statistics.median(e - s for s, e in ctas.values())
    slots = sum(1 for s in starts if s < 0.3 * tile)
    m, nn, k, bm, bn, bk = (int(v) for v in key[:6])
    iteration = tile / (k // bk)
    reach = NEAR_BYTES / (slots * (bm + bn) * bk * 2) * iteration  # ns
    out = list(starts)
    for wave in waves_of(starts, slots):
        s = sorted(starts[p] for p in wave)
        if shape == "smear":
            width = (s[int(0.9 * (len(s) - 1))] - s[int(0.1 * (len(s) - 1))]) / 0.8
            mid = statistics.median(s)
            spread = [mid + width * ((i + 0.5) / len(s) - 0.5) for i in range(len(s))]
        else:  # the core (within the reach of the wave's first) and the tail after it, one of them evened out
            lo = s[int(0.02 * (len(s) - 1))]
            core = [x for x in s if x - lo <= reach]
            tail = [x for x in s if x - lo > reach]
            if shape == "core-smear":
                top = max(core) if core else lo
                core = [lo + (top - lo) * (i + 0.5) / len(core) for i in range(len(core))]
            elif tail:
                tail = [lo + reach + (max(tail) - lo - reach) * (i + 0.5) / len(tail) for i in range(len(tail))]
            spread = [x for x in s if x < lo] + core + tail
        for p, x in zip(sorted(wave, key=lambda p: starts[p]), spread):
            out[p] = x
    return out


def predict(cli, key, trace=None):
    plan = json.dumps({"kernel": "gemm", "hardware": "h200", "params": {**{k: int(v) for k, v in zip(KEY, key)}, "dtype": "bf16"}})
    cmd = [cli, "predict", "--format", "json", "-"] + (["--tile-starts", trace] if trace else [])
    res = subprocess.run(cmd, input=plan, capture_output=True, text=True, check=True)
    d = json.loads(res.stdout)
    return 100 * d["l2_hit_rate"], d["dram_read_bytes"]


def fit_shape(names):
    """Each wave's sorted starts, from its first to its last, against u^p (u the tile's share of the
    wave): the least-squares p over 0.5-6 in steps of 0.1, for waves that spread 2+ iterations."""
    ps = []
    for key, ctas in traces(names).items():
        n = len(ctas)
        if sorted(ctas) != list(range(n)):
            continue
        tile = statistics.median(e - s for s, e in ctas.values())
        slots = sum(1 for s, _ in ctas.values() if s < 0.3 * tile)
        iteration = tile / (int(key[2]) // int(key[5]))
        if n / slots < 2.5:
            continue
        for w in range(1, n // slots):
            s = sorted(ctas[p][0] for p in range(w * slots, (w + 1) * slots))
            lo, hi, m = s[0], s[-1], len(s)
            if (hi - lo) / iteration < 2:
                continue  # a locked wave has no shape to fit
            err = lambda p: sum(((x - lo) / (hi - lo) - ((i + 0.5) / m) ** p) ** 2 for i, x in enumerate(s))
            ps.append(min((p10 / 10 for p10 in range(5, 61)), key=err))
    ps.sort()
    print(f"{len(ps)} waves of {', '.join(names)}: u^p with p median {statistics.median(ps):.2f}, "
          f"p25 {ps[len(ps) // 4]:.2f}, p75 {ps[3 * len(ps) // 4]:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    ap.add_argument("--min-waves", type=float, default=2.5, help="launches of at least this many waves")
    ap.add_argument("--shape", default="measured", choices=["measured", "smear", "core-smear", "tail-smear"])
    ap.add_argument("--out", help="per-launch CSV")
    ap.add_argument("--traces", nargs="+", default=TRACES, choices=TRACES,
                    help="which of hw_profiles/calibrate/h200/cta_skew*.csv.gz (cta_skew_sample: the unbiased sample)")
    ap.add_argument("--fit-shape", action="store_true",
                    help="no model: fit each traced wave's starts to u^p (how concentrated they are)")
    a = ap.parse_args()
    if a.fit_shape:
        fit_shape(a.traces)
        return
    ncu = measured()
    spills = spilled()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.csv")
        for key, ctas in traces(a.traces).items():
            n = len(ctas)
            if key not in ncu or key in spills or sorted(ctas) != list(range(n)):
                continue
            tile = statistics.median(e - s for s, e in ctas.values())
            slots = sum(1 for s, _ in ctas.values() if s < 0.3 * tile)
            if n / slots < a.min_waves:
                continue
            starts = reshape(key, ctas, a.shape)
            with open(trace, "w") as f:
                f.write("pid,t_start_ns,t_end_ns\n")
                for p in range(n):
                    f.write(f"{p},{starts[p]},{starts[p] + ctas[p][1] - ctas[p][0]}\n")
            model, model_dram = predict(a.cli, key)
            walked, walked_dram = predict(a.cli, key, trace)
            r = ncu[key]
            meas, dram = float(r["l2_hit_pct"]), float(r["dram_read_bytes"])
            rows.append({"config": " ".join(key), "waves": round(n / slots, 1), "ncu": meas, "model": round(model, 2),
                         "starts": round(walked, 2), "dram_model": round(model_dram / dram, 3),
                         "dram_starts": round(walked_dram / dram, 3)})
            x = rows[-1]
            print(f"{x['config']:>34}  waves {x['waves']:5.1f}  ncu {meas:5.1f}  model {model:5.1f}  with the starts "
                  f"{walked:5.1f}   DRAM / ncu's: model {x['dram_model']:5.2f}, with the starts {x['dram_starts']:5.2f}")
    if not rows:
        print("no launch with a trace and an ncu row")
        return
    n = len(rows)
    mae = lambda c: sum(abs(x[c] - x["ncu"]) for x in rows) / n
    dram = lambda c: sum(abs(x[c] - 1) for x in rows) / n
    print(f"{n} launches of {a.min_waves}+ waves, starts {a.shape}: L2 hit rate MAE, model {mae('model'):.2f} pp, "
          f"with the starts {mae('starts'):.2f} pp; DRAM read mean abs error, model {100 * dram('dram_model'):.0f}%, "
          f"with the starts {100 * dram('dram_starts'):.0f}%")
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
