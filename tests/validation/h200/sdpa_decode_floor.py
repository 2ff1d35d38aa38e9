#!/usr/bin/env python3
"""The do_bench floor of SDPA's decode calls on the H200, timed as attention_sdpa.py times them
(issue 6, docs/attention-model.md "SDPA decode host floor").

attention_sdpa.csv's decode rows at batch 1 read 42-53 us under do_bench whatever the KV length
up to 16K while their kernels take 9-32 us: the host side of the call sets the time. do_bench
flushes the L2 (a 256 MiB memset) before each timed call and times it between two CUDA events;
when the host needs longer to issue the call than the GPU needs for the flush, the GPU idles
inside the timed window, and the median reads the host's time, not the kernel's.

sdpa_host_floor.py measured this with sdpa_kernel() entered inside the timed function (an
extra context manager per call, not the corpus's protocol). This script keeps the corpus's
protocol exactly: sdpa_kernel(backend) around do_bench, fn = the bare
F.scaled_dot_product_attention call (enable_gqa where kv_heads < heads), bf16 randn data, and
KV lengths below the corpus's decode rows (1024, 2048; the corpus starts at 4096) whose GPU
work is small, on the decode paths the corpus runs (same kernels, split or not). Five rounds
over all paths, interleaved, so that the host's speed at the time shows as spread.

Columns per (round, path, seq_kv):
  do_bench_us - triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
  graph_us    - the call captured 20 times in a CUDA graph, replay / 20: its GPU time
                (kernels and gaps) with no host work; empty where capture fails
  host_us     - host wall time per call, 200 calls back to back without synchronising
  flush_us    - GPU time of do_bench's flush (zeroing its 256 MiB buffer), median of 20
  add_us      - do_bench of a 1-element bf16 add in the same round: the torch launch path
  kernels, grids, kernel_us - one call's kernels (torch.profiler), first round only

With --protocol warnings the timed calls run, as attention_sdpa.py ran them, inside
warnings.catch_warnings(record=True) with simplefilter("always"): every warning a call raises is
then built and recorded on the host (the `warnings` column: warnings per call, and the first
message). --protocol both runs the two in turn each round.

Usage: python3 sdpa_decode_floor.py --out DIR [--protocol plain|warnings|both]   (about 60 s)
"""
import argparse
import csv
import os
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from attention_common import capture_graph  # noqa: E402
import triton  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from attention_common import header, safe_profile  # noqa: E402

BACKENDS = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]
# (batch, heads, kv_heads, head_dim): the decode paths of attention_sdpa.csv.
PATHS = [(1, 32, 32, 128), (1, 32, 8, 128), (8, 32, 8, 128), (8, 32, 32, 128),
         (32, 32, 8, 128), (32, 32, 32, 128), (1, 32, 32, 64), (8, 32, 32, 64)]
SEQ_KV = [1024, 2048]
ROUNDS = int(os.environ.get("ROUNDS", "5"))


def graph_us(fn, reps=20):
    g = capture_graph(fn, reps)
    g.replay()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    g.replay()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1000 / reps


def host_us(fn, reps=200):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    dt = time.perf_counter() - t
    torch.cuda.synchronize()
    return dt * 1e6 / reps


def flush_us(reps=20):
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        cache.zero_()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) * 1000)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--protocol", default="plain", choices=["plain", "warnings", "both"])
    args = ap.parse_args()
    protocols = ["plain", "warnings"] if args.protocol == "both" else [args.protocol]
    os.makedirs(args.out, exist_ok=True)
    hdr = header("tests/validation/h200/sdpa_decode_floor.py", {
        "op": "F.scaled_dot_product_attention decode (seq_q=1), bf16, sdpa_kernel(backend) "
              "around do_bench as in attention_sdpa.py",
        "modes": "do_bench median (L2 flushed); graph = 20 calls in a CUDA graph / 20; "
                 "host = host wall time per call, 200 back to back; flush = do_bench's 256 MiB "
                 "memset on the GPU; add = do_bench of a 1-element add",
        "rounds": str(ROUNDS),
        "protocols": " ".join(protocols),
    })
    cols = ["round", "protocol", "backend", "batch", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim",
            "do_bench_us", "graph_us", "host_us", "flush_us", "add_us", "warnings", "kernels",
            "grids", "kernel_us"]
    x1 = torch.randn(1, device="cuda", dtype=torch.bfloat16)
    y1 = torch.randn(1, device="cuda", dtype=torch.bfloat16)
    tensors = {}
    for (b, h, hkv, d) in PATHS:
        for skv in SEQ_KV:
            torch.manual_seed(0)
            tensors[(b, h, hkv, d, skv)] = (
                torch.randn(b, h, 1, d, device="cuda", dtype=torch.bfloat16),
                torch.randn(b, hkv, skv, d, device="cuda", dtype=torch.bfloat16),
                torch.randn(b, hkv, skv, d, device="cuda", dtype=torch.bfloat16))
    with open(os.path.join(args.out, "sdpa_decode_floor.csv"), "w", newline="") as f:
        f.write(hdr)
        w = csv.writer(f)
        w.writerow(cols)
        for rnd in range(ROUNDS):
            fl = flush_us()
            add = triton.testing.do_bench(lambda: x1 + y1, warmup=25, rep=100,
                                          return_mode="median") * 1000
            for (b, h, hkv, d) in PATHS:
                for skv in SEQ_KV:
                    q, k, v = tensors[(b, h, hkv, d, skv)]
                    gqa = hkv != h

                    def fn():
                        if gqa:
                            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
                        return F.scaled_dot_product_attention(q, k, v)

                    for (bname, backend) in BACKENDS:
                        for proto in protocols:
                            row = measure(fn, backend, proto, rnd == 0)
                            if row is None:
                                print(f"  {bname} {(b, h, hkv, skv, d)} refused", flush=True)
                                continue
                            bench, gr, hu, nw, kn, kg, ku = row
                            w.writerow([rnd, proto, bname, b, h, hkv, 1, skv, d, f"{bench:.3f}", gr,
                                        f"{hu:.3f}", f"{fl:.3f}", f"{add:.3f}", nw, kn, kg, ku])
                            f.flush()
                            print(f"r{rnd} {proto:8s} {bname:5s} b{b} h{h}/{hkv} skv {skv} d{d}: "
                                  f"do_bench {bench:.1f} us, graph {gr}, host {hu:.1f}, flush "
                                  f"{fl:.1f}, add {add:.1f}, warnings {nw}", flush=True)


def measure(fn, backend, proto, profile):
    """do_bench, graph, host time and warnings of fn under sdpa_kernel(backend)."""
    try:
        with warnings.catch_warnings(record=True) as wlist:
            if proto == "warnings":
                warnings.simplefilter("always")
            with sdpa_kernel(backend):
                fn()
                torch.cuda.synchronize()
                n0 = len(wlist)
                fn()
                per_call = len(wlist) - n0
                first = str(wlist[-1].message)[:80].replace(",", ";") if per_call else ""
                bench = triton.testing.do_bench(fn, warmup=25, rep=100,
                                                return_mode="median") * 1000
                try:
                    gr = f"{graph_us(fn):.3f}"
                except Exception as exc:
                    print(f"  graph failed: {exc}", flush=True)
                    gr = ""
                hu = host_us(fn)
                kn = kg = ku = ""
                if profile:
                    kn, kg, _, ku = safe_profile(fn)
            nw = f"{per_call} {first}".strip() if proto == "warnings" else ""
            return bench, gr, hu, nw, kn, kg, ku
    except Exception as exc:
        print(f"  refused: {exc}", flush=True)
        return None


if __name__ == "__main__":
    main()
