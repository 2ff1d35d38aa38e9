#!/usr/bin/env python3
"""Host-side floor of SDPA's decode path on the H200 (issue 6, docs/attention-model.md).

attention_sdpa.csv's split-KV decode rows at batch 1 read 42-53 us under do_bench whatever the
KV length up to 16K, while the profiler's kernel times are 7-22 us (+ 2-9 us combine): the
time is the host side of the call. This measures that floor directly, with KV caches so short
that the GPU work is negligible, for each backend and each decode path of the corpus
(MHA and GQA 32/8, batch 1 and 8, head dim 64/128), three ways:
  do_bench  - triton.testing.do_bench(warmup=25, rep=100, return_mode="median"), as the corpus
  graph     - the same call captured in a CUDA graph, replay time / 100 (no host work)
  stream    - 2000 back-to-back calls between two events / 2000 (host-bound throughput)
plus the profiler's kernels and durations of one call. do_bench - graph is the host floor the
model would add to a decode launch of this path, like --launch-overhead-us.

Usage: python3 sdpa_host_floor.py --out DIR      (about 20 s)
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from attention_common import capture_graph, header, safe_profile  # noqa: E402

BACKENDS = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]
# (batch, heads, kv_heads, head_dim) x seq_kv: the corpus's decode paths at tiny KV lengths.
PATHS = [(1, 32, 32, 128), (1, 32, 8, 128), (8, 32, 8, 128), (8, 32, 32, 128), (1, 32, 32, 64)]
SEQ_KV = [128, 1024]


def graph_us(fn, reps=100):
    g = capture_graph(fn, reps)
    g.replay()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    g.replay()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1000 / reps


def stream_us(fn, reps=2000):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1000 / reps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    hdr = header("tests/validation/h200/sdpa_host_floor.py", {
        "op": "F.scaled_dot_product_attention decode (seq_q=1), bf16, under sdpa_kernel(backend)",
        "modes": "do_bench median (L2 flushed); graph = CUDA graph of 100 calls / 100; "
                 "stream = 2000 back-to-back calls / 2000",
    })
    cols = ["backend", "batch", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim", "do_bench_us",
            "graph_us", "stream_us", "kernels", "grids", "kernel_us"]
    with open(os.path.join(args.out, "sdpa_host_floor.csv"), "w", newline="") as f:
        f.write(hdr)
        w = csv.writer(f)
        w.writerow(cols)
        for (b, h, hkv, d) in PATHS:
            for skv in SEQ_KV:
                torch.manual_seed(0)
                q = torch.randn(b, h, 1, d, device="cuda", dtype=torch.bfloat16)
                k = torch.randn(b, hkv, skv, d, device="cuda", dtype=torch.bfloat16)
                v = torch.randn(b, hkv, skv, d, device="cuda", dtype=torch.bfloat16)
                for name, backend in BACKENDS:
                    def fn():
                        with sdpa_kernel(backend):
                            return F.scaled_dot_product_attention(q, k, v, enable_gqa=hkv != h)
                    try:
                        fn()
                        bench = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median") * 1000
                        try:
                            gr = graph_us(fn)
                        except Exception as exc:  # some paths allocate in ways graphs refuse
                            print(f"  graph failed {name} {(b, h, hkv, skv, d)}: {exc}", flush=True)
                            gr = float("nan")
                        st = stream_us(fn)
                        kn, kg, _, ku = safe_profile(fn)
                    except Exception as exc:
                        print(f"  {name} {(b, h, hkv, skv, d)} refused: {exc}", flush=True)
                        continue
                    w.writerow([name, b, h, hkv, 1, skv, d, f"{bench:.3f}", f"{gr:.3f}", f"{st:.3f}",
                                kn, kg, ku])
                    f.flush()
                    print(f"{name:5s} b{b} h{h}/{hkv} skv {skv} d{d}: do_bench {bench:.1f} us, "
                          f"graph {gr:.1f}, stream {st:.1f}", flush=True)


if __name__ == "__main__":
    main()
