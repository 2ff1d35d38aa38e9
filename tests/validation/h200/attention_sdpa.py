#!/usr/bin/env python3
"""Attention corpus through torch SDPA on the H200: FlashAttention-2 vs cuDNN backends.

For each (backend, batch, heads, kv_heads, seq_q, seq_kv, head_dim, causal):
torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
enable_gqa=kv_heads != heads) under torch.nn.attention.sdpa_kernel(backend), bf16,
q (b, heads, seq_q, d), k/v (b, kv_heads, seq_kv, d), contiguous, torch.randn data.
  ms      - triton.testing.do_bench(warmup=25, rep=100, return_mode="median")
            (do_bench flushes L2 before every timed launch)
  tflops  - 4*b*heads*seq_q*seq_kv*d (halved when causal and seq_q == seq_kv) / time
  gbps    - compulsory bytes (q + k + v + o, bf16) / time (the decode rows' figure)
  kernels, grids, blocks, kernel_us - kernels of one call (torch.profiler chrome trace),
            grid/block "x;y;z", several kernels joined with '|'
Cases a backend refuses go to attention_sdpa_skips.csv with the reason torch gave.

Rows, in priority order (the sweep stops at its time budget): prefill head_dim 128
(6 shapes x causal), decode seq_q=1 with KV caches 4K-32K at batch 1/8/32 (MHA), GQA
prefill (32 query heads, 8 KV heads), prefill head_dim 64, GQA decode, head_dim 64 decode.
Each case runs under FLASH_ATTENTION then CUDNN_ATTENTION.

Usage: python3 attention_sdpa.py --out DIR [--budget-s 160]
"""
import argparse
import csv
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from attention_common import header, safe_profile  # noqa: E402

BACKENDS = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]
PREFILL = [(1, 32, 1024), (4, 32, 2048), (8, 16, 4096), (2, 32, 8192), (1, 16, 16384),
           (16, 32, 512)]
GQA = [(4, 32, 2048), (2, 32, 8192), (1, 32, 16384)]
DECODE_KV = [4096, 8192, 16384, 32768]
DECODE_B = [1, 8, 32]


def cases():
    """(batch, heads, kv_heads, seq_q, seq_kv, head_dim, causal) in priority order."""
    out = []
    for b, h, s in PREFILL:
        for causal in (False, True):
            out.append((b, h, h, s, s, 128, causal))
    for b in DECODE_B:
        for skv in DECODE_KV:
            out.append((b, 32, 32, 1, skv, 128, False))
    for b, h, s in GQA:
        for causal in (False, True):
            out.append((b, h, 8, s, s, 128, causal))
    for b, h, s in PREFILL:
        for causal in (False, True):
            out.append((b, h, h, s, s, 64, causal))
    for b in DECODE_B:
        for skv in DECODE_KV:
            out.append((b, 32, 8, 1, skv, 128, False))
    for b in (1, 8):
        for skv in (8192, 32768):
            out.append((b, 32, 32, 1, skv, 64, False))
    return out


def flops(b, h, sq, skv, d, causal):
    f = 4.0 * b * h * sq * skv * d
    if causal and sq == skv:
        f /= 2
    return f


def nbytes(b, h, hkv, sq, skv, d):
    return 2.0 * (2 * b * h * sq * d + 2 * b * hkv * skv * d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget-s", type=float, default=160.0)
    ap.add_argument("--warmup", type=float, default=25.0)
    ap.add_argument("--rep", type=float, default=100.0)
    args = ap.parse_args()
    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    hdr = header("tests/validation/h200/attention_sdpa.py", {
        "timing": f"triton.testing.do_bench(warmup={args.warmup}, rep={args.rep}, "
                  "return_mode='median'), L2 flushed before each launch, torch.randn data",
        "op": "F.scaled_dot_product_attention(q,k,v,is_causal,enable_gqa) under "
              "sdpa_kernel(FLASH_ATTENTION|CUDNN_ATTENTION), bf16, (b,h,s,d) contiguous",
        "flops": "4*b*heads*seq_q*seq_kv*d, halved when causal and seq_q==seq_kv",
        "kernels": "torch.profiler CUDA activity of one call, chrome-trace grid/block x;y;z, "
                   "several kernels joined with '|'",
    })
    cols = ["backend", "batch", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim", "causal",
            "dtype", "ms", "tflops", "kernels", "grids", "blocks", "kernel_us", "gbps"]
    f = open(os.path.join(args.out, "attention_sdpa.csv"), "w", newline="")
    f.write(hdr)
    w = csv.writer(f)
    w.writerow(cols)
    f.flush()
    fs = open(os.path.join(args.out, "attention_sdpa_skips.csv"), "w", newline="")
    fs.write(hdr)
    ws = csv.writer(fs)
    ws.writerow(["backend", "batch", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim",
                 "causal", "reason"])
    fs.flush()

    n_ok = n_skip = 0
    for (b, h, hkv, sq, skv, d, causal) in cases():
        if time.time() - t0 > args.budget_s:
            print("attention_sdpa: time budget reached", flush=True)
            break
        try:
            torch.manual_seed(0)
            q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(b, hkv, skv, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(b, hkv, skv, d, device="cuda", dtype=torch.bfloat16)
        except Exception as exc:
            print(f"alloc failed {(b, h, hkv, sq, skv, d)}: {exc}", flush=True)
            torch.cuda.empty_cache()
            continue
        gqa = hkv != h
        for bname, backend in BACKENDS:
            if time.time() - t0 > args.budget_s:
                break
            key = [bname, b, h, hkv, sq, skv, d, int(causal)]

            def fn():
                if gqa:
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                          enable_gqa=True)
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

            with warnings.catch_warnings(record=True) as wlist:
                warnings.simplefilter("always")
                try:
                    with sdpa_kernel(backend):
                        fn()
                        torch.cuda.synchronize()
                        ms = triton.testing.do_bench(fn, warmup=args.warmup, rep=args.rep,
                                                     return_mode="median")
                        names, grids, blocks, durs = safe_profile(fn)
                    fl = flops(b, h, sq, skv, d, causal)
                    tfl = fl / (ms * 1e-3) / 1e12
                    gbps = nbytes(b, h, hkv, sq, skv, d) / (ms * 1e-3) / 1e9
                    w.writerow(key[:8] + ["bf16", f"{ms:.6f}", f"{tfl:.2f}", names, grids,
                                          blocks, durs, f"{gbps:.1f}"])
                    f.flush()
                    n_ok += 1
                    print(f"{bname:5s} b{b} h{h}/{hkv} sq{sq} skv{skv} d{d} c{int(causal)}: "
                          f"{ms:.4f} ms {tfl:.1f} TF/s {gbps:.0f} GB/s | {names[:120]} "
                          f"grid {grids} block {blocks}", flush=True)
                except Exception as exc:
                    why = " / ".join(str(x.message) for x in wlist)[:600]
                    msg = f"{type(exc).__name__}: {str(exc)[:200]}"
                    if why:
                        msg += f" [warnings: {why}]"
                    msg = msg.replace("\n", " ")
                    ws.writerow(key + [msg])
                    fs.flush()
                    n_skip += 1
                    print(f"{bname:5s} b{b} h{h}/{hkv} sq{sq} skv{skv} d{d} c{int(causal)}: "
                          f"SKIP {msg[:300]}", flush=True)
                    try:
                        torch.cuda.synchronize()
                    except Exception:
                        pass
        del q, k, v
        torch.cuda.empty_cache()
    f.close()
    fs.close()
    print(f"attention_sdpa done: {n_ok} rows, {n_skip} skipped, {time.time() - t0:.1f} s",
          flush=True)


if __name__ == "__main__":
    main()
