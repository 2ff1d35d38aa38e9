#!/usr/bin/env python3
"""In what order does a cuBLAS persistent GEMM walk its output tiles? Watched from outside.

The cache model needs the order in which a kernel's tiles run (docs/cache-model.md, cuBLAS's
kernels). cuBLAS's nvjet kernels are persistent and clustered, and their names do not say how
their scheduler walks the grid (CUTLASS's sm90 scheduler walks swizzled groups). This watches
one call: the output buffer is filled with a NaN pattern (0xFFFF, which no finite product of
random data writes), and a small Triton "spy" kernel on another stream polls the first element
of every output tile with volatile loads, stamping %globaltimer when it changes. The spy needs
SMs of its own: cuBLAS is asked to leave some free (torch's SM carve-out for cuBLAS, where this
torch has it); without it the spy shares SMs where the GEMM's CTAs fit beside it, and the script
records which tiles it never saw before its deadline.

The call is the corpus's (tests/validation/h200/cublas_sweep.py's make_fn: torch.matmul,
F.linear, torch._scaled_mm). The output buffer is the caching allocator's: a buffer of the
output's size is filled, freed, and the call's output takes the same block (checked by pointer).
The kernel names and grids with and without the carve-out come from torch.profiler.

CSV (cublas_order.csv.gz): case, set, dtype, M, N, K, carveout, kernel, grid, tile_m, tile_n,
     i, j, t_ns   (tile (i, j) covers rows i*tile_m.., columns j*tile_n.. of C in torch's frame;
     t_ns from the spy's first stamp, -1 if never seen)
Summary (cublas_order_cases.csv): one row per case: kernels with and without the carve-out,
     tiles seen, spy SMs, the spy's scan time, the call's span.
Usage: python3 cublas_order.py --out DIR [--carveout 4] [--set extra]
       python3 cublas_order.py --check h200/cublas_order.csv.gz   (no GPU): per call without the
              carve-out, the share of tiles whose measured wave (rank of its stamp over the 124
              CTAs that ran together) is the wave of the rule's order (the cache model's
              PersistentOrder with nvjet_swizzle), for the rule's g and its neighbours
"""
import argparse
import csv
import gzip
import math
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation", "h200"))

try:
    import torch  # noqa: E402
    import triton  # noqa: E402
    import triton.language as tl  # noqa: E402

    from cta_skew import _globaltimer, _smid  # noqa: E402  the same %globaltimer and %smid reads
    from cublas_sweep import make_fn, profile_kernels  # noqa: E402
    from envinfo import header_lines  # noqa: E402
except ImportError:  # --check needs none of them
    triton = None

NAME = re.compile(r"nvjet_sm90_[a-z]+_(\d+)x(\d+)_(\d+)x(\d+)_(\d+)x(\d+)_([hv])_")

# (set, dtype, M, N, K): the corpus's many-wave rows the model misses most, and a few more
CASES = [
    ("matmul", "bf16", 8192, 28672, 8192),
    ("matmul", "bf16", 8192, 4096, 14336),
    ("matmul", "bf16", 8192, 4096, 4096),
    ("matmul", "bf16", 8192, 8192, 8192),
    ("matmul", "bf16", 4096, 4096, 4096),
    ("matmul", "bf16", 2048, 28672, 8192),
    ("matmul", "bf16", 4096, 28672, 8192),
    ("matmul", "bf16", 2048, 4096, 14336),
    ("matmul", "bf16", 2500, 7000, 3000),
    ("matmul", "bf16", 3000, 5000, 2048),
    ("matmul", "bf16", 4096, 14336, 4096),
    ("matmul", "bf16", 8192, 8192, 28672),
    ("linear", "bf16", 1024, 28672, 8192),
    ("linear", "bf16", 8192, 28672, 8192),
    ("matmul", "fp8", 8192, 8192, 8192),
    ("matmul", "fp8", 4096, 28672, 8192),
]
# --set extra: shapes outside the cuBLAS corpus, to check the rule on kernels it was not read from
EXTRA = [
    ("matmul", "bf16", 6144, 6144, 6144),
    ("matmul", "bf16", 5120, 13824, 5120),
    ("matmul", "bf16", 12288, 4096, 4096),
    ("matmul", "bf16", 3072, 24576, 1536),
    ("matmul", "bf16", 16384, 1024, 4096),
    ("matmul", "bf16", 1536, 12288, 6144),
    ("matmul", "bf16", 10240, 10240, 2048),
    ("matmul", "fp16", 6144, 16384, 4096),
    ("linear", "bf16", 512, 28672, 8192),
    ("linear", "bf16", 2048, 11008, 4096),
    ("linear", "bf16", 4096, 5120, 13824),
    ("linear", "fp16", 8192, 3072, 12288),
    ("matmul", "fp8", 6144, 6144, 6144),
    ("matmul", "fp8", 2048, 16384, 8192),
]
SENT = -1  # 0xFFFF as int16: a bf16 NaN


def rule_order(rows, cols, walk_m, g):
    """Launch position -> (row, col): groups of g tiles across the walk, serpentine
    (engine/src/cache/persistent.cpp); g <= 1 is the plain raster."""
    along, across = (rows, cols) if walk_m else (cols, rows)
    seq = []
    for pid in range(rows * cols):
        if g <= 1:
            a, c = pid % along, pid // along
        else:
            grp = pid // (g * along)
            first = grp * g
            w = min(g, across - first)
            a, c = (pid - first * along) // w, first + (pid - first * along) % w
            if grp % 2:
                a = along - 1 - a
        seq.append((a, c) if walk_m else (c, a))
    return seq


def check(path, together=124):
    cases = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["carveout"] != "0":
                continue
            key = (r["set"], r["dtype"], r["M"], r["N"], r["K"], r["kernel"])
            cases.setdefault(key, []).append((int(r["t_ns"]), int(r["i"]), int(r["j"])))
    for key, tiles in cases.items():
        m = NAME.search(key[5])
        tile_n, tile_m, walk_m = int(m.group(1)), int(m.group(2)), m.group(7) == "h"
        rows, cols = max(t[1] for t in tiles) + 1, max(t[2] for t in tiles) + 1
        aspect = tile_n / tile_m if walk_m else tile_m / tile_n
        g = max(1, round(math.sqrt(66 * aspect)))
        tiles.sort()
        measured = {(i, j): n // together for n, (_, i, j) in enumerate(tiles)}
        cells = []
        for gg in (1, g - 2, g - 1, g, g + 1, g + 2):
            if gg < 1:
                continue
            model = {rc: n // together for n, rc in enumerate(rule_order(rows, cols, walk_m, gg))}
            share = sum(measured[t] == model[t] for t in measured) / len(measured)
            cells.append(f"{gg}:{share:.2f}")
        print(f"{key[0]} {key[1]} {key[2]}x{key[3]}x{key[4]} {key[5][11:]}: rule g {g}; same wave "
              + " ".join(cells))


if triton is not None:
    SENT_VALUE = tl.constexpr(SENT)

    @triton.jit
    def _spy(c_ptr, probe_ptr, seen_ptr, info_ptr, n_probes, deadline_ns,
             NPROG: tl.constexpr, CHUNK: tl.constexpr):
        pid = tl.program_id(0)
        t0 = _globaltimer()
        tl.store(info_ptr + pid * 4 + 0, t0)
        tl.store(info_ptr + pid * 4 + 1, _smid().to(tl.int64))
        per = tl.cdiv(n_probes, NPROG)
        lo = pid * per
        hi = tl.minimum(lo + per, n_probes)
        left = hi - lo
        now = t0
        scans = left * 0
        while (left > 0) & (now - t0 < deadline_ns):
            left = left * 0
            for start in range(lo, hi, CHUNK):
                idx = start + tl.arange(0, CHUNK)
                m = idx < hi
                s = tl.load(seen_ptr + idx, mask=m, other=1)
                todo = m & (s == 0)
                off = tl.load(probe_ptr + idx, mask=todo, other=0)
                v = tl.load(c_ptr + off, mask=todo, other=SENT_VALUE, volatile=True)
                now = _globaltimer()
                hit = todo & (v != SENT_VALUE)
                tl.store(seen_ptr + idx, now, mask=hit)
                left += tl.sum((todo & (v == SENT_VALUE)).to(tl.int32), axis=0)
            scans += 1
        tl.store(info_ptr + pid * 4 + 2, now)
        tl.store(info_ptr + pid * 4 + 3, scans.to(tl.int64))


def tiles_of(kernel, M, N):
    """Tile (rows, cols) in torch's frame from an nvjet name (cuBLAS's frame is transposed)."""
    m = NAME.search(kernel)
    if not m:
        return None
    tile_n, tile_m = int(m.group(1)), int(m.group(2))
    return tile_m, tile_n


def set_carveout(n):
    for name in ("_set_sm_carveout_experimental",):
        f = getattr(torch._C, name, None)
        if f is not None:
            f(n if n else None)
            return name
    return None


def run_case(setname, dtype, M, N, K, carveout, nprog, deadline_ms):
    linear = setname == "linear"
    fn = make_fn(dtype, M, N, K, linear)
    fn()
    torch.cuda.synchronize()
    set_carveout(0)
    names0, grids0, _, _ = profile_kernels(fn)
    api = set_carveout(carveout) if carveout else None
    names, grids, _, durs = profile_kernels(fn)
    main = next((k for k in names if k.startswith("nvjet")), None)
    res = {"set": setname, "dtype": dtype, "M": M, "N": N, "K": K, "carveout": carveout if api else 0,
           "carveout_api": api or "", "kernel_plain": "|".join(names0), "grid_plain": "|".join(grids0),
           "kernel": "|".join(names), "grid": "|".join(grids), "kernel_us": "|".join(durs)}
    if main is None:
        set_carveout(0)
        return res, []
    tm, tn = tiles_of(main, M, N)
    gi, gj = math.ceil(M / tm), math.ceil(N / tn)
    ii = torch.arange(gi, device="cuda").repeat_interleave(gj)
    jj = torch.arange(gj, device="cuda").repeat(gi)
    probe = (ii * tm * N + jj * tn).to(torch.int64)
    n = probe.numel()
    seen = torch.zeros(n, dtype=torch.int64, device="cuda")
    info = torch.zeros(nprog * 4, dtype=torch.int64, device="cuda")
    out_bytes = M * N * 2
    spy_stream = torch.cuda.Stream()
    # the call's output block, filled with the NaN pattern; freed so the call takes it again
    buf = torch.empty(out_bytes // 2, dtype=torch.int16, device="cuda")
    buf.fill_(SENT)
    ptr = buf.data_ptr()
    torch.cuda.synchronize()
    with torch.cuda.stream(spy_stream):
        _spy[(nprog,)](buf, probe, seen, info, n, int(deadline_ms * 1e6), NPROG=nprog, CHUNK=256,
                       num_warps=1)
    del buf
    time.sleep(0.002)  # let the spy start before the GEMM takes the SMs
    t_host = time.perf_counter()
    out = fn()
    torch.cuda.synchronize()
    res["host_ms"] = (time.perf_counter() - t_host) * 1e3
    res["same_buffer"] = int(out.data_ptr() == ptr)
    s = seen.cpu().tolist()
    inf = info.cpu().view(nprog, 4).tolist()
    t0 = min(r[0] for r in inf)
    seen_t = [x for x in s if x > 0]
    res.update({"tile_m": tm, "tile_n": tn, "tiles": n, "seen": len(seen_t),
                "spy_sms": ";".join(str(r[1]) for r in inf),
                "spy_span_us": (max(r[2] for r in inf) - t0) / 1e3,
                "scan_us": statistics_scan(inf),
                "first_seen_us": (min(seen_t) - t0) / 1e3 if seen_t else -1,
                "last_seen_us": (max(seen_t) - t0) / 1e3 if seen_t else -1})
    tiles = []
    base = min(seen_t) if seen_t else 0
    for k, t in enumerate(s):
        tiles.append((k // gj, k % gj, t - base if t > 0 else -1))
    set_carveout(0)
    del out
    return res, tiles


def statistics_scan(inf):
    vals = [(r[2] - r[0]) / max(r[3], 1) / 1e3 for r in inf]
    return sum(vals) / len(vals)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--check", help="a cublas_order.csv.gz: measured waves against the rule's order")
    ap.add_argument("--carveout", type=int, default=4, help="SMs cuBLAS is asked to leave free")
    ap.add_argument("--nprog", type=int, default=4, help="spy programs (one warp each)")
    ap.add_argument("--deadline-ms", type=float, default=60.0)
    ap.add_argument("--only", type=int, default=0, help="first N cases only")
    ap.add_argument("--set", choices=["corpus", "extra"], default="corpus",
                    help="corpus: the cuBLAS corpus's calls the model missed most (cublas_order.csv.gz); "
                         "extra: shapes outside it (cublas_order_extra.csv.gz)")
    args = ap.parse_args()
    if args.check:
        check(args.check)
        return
    if not args.out:
        ap.error("--out DIR or --check CSV")
    os.makedirs(args.out, exist_ok=True)
    print("carve-out entry points:", [n for n in dir(torch._C) if "carveout" in n.lower()], flush=True)
    chosen = EXTRA if args.set == "extra" else CASES
    cases = chosen[: args.only] if args.only else chosen
    stem = "cublas_order_extra" if args.set == "extra" else "cublas_order"
    head = header_lines("cublas_order.py")
    summ_cols = ["set", "dtype", "M", "N", "K", "carveout", "carveout_api", "kernel_plain", "grid_plain",
                 "kernel", "grid", "kernel_us", "host_ms", "same_buffer", "tile_m", "tile_n", "tiles",
                 "seen", "spy_sms", "spy_span_us", "scan_us", "first_seen_us", "last_seen_us"]
    with open(os.path.join(args.out, stem + "_cases.csv"), "w", newline="") as fs, \
            gzip.open(os.path.join(args.out, stem + ".csv.gz"), "wt", newline="") as ft:
        fs.write(head)
        ft.write(head)
        ws = csv.DictWriter(fs, fieldnames=summ_cols, extrasaction="ignore")
        ws.writeheader()
        wt = csv.writer(ft)
        wt.writerow(["set", "dtype", "M", "N", "K", "carveout", "kernel", "tile_m", "tile_n", "i", "j", "t_ns"])
        for c in cases:
            for co in ([args.carveout, 0] if args.carveout else [0]):
                try:
                    res, tiles = run_case(*c, co, args.nprog, args.deadline_ms)
                except Exception as exc:  # keep going: one case must not lose the others
                    print("case", c, co, "failed:", repr(exc)[:300], flush=True)
                    continue
                ws.writerow(res)
                fs.flush()
                kern = res["kernel"].split("|")[0]
                for i, j, t in tiles:
                    wt.writerow([c[0], c[1], c[2], c[3], c[4], res["carveout"], kern, res.get("tile_m"),
                                 res.get("tile_n"), i, j, t])
                print({k: res.get(k) for k in ("set", "dtype", "M", "N", "K", "carveout", "kernel", "grid",
                                               "kernel_plain", "same_buffer", "seen", "tiles", "scan_us",
                                               "first_seen_us", "last_seen_us", "spy_span_us", "spy_sms")},
                      flush=True)


if __name__ == "__main__":
    main()
