#!/usr/bin/env python3
"""Copy-engine peer copies between GPU 0 and GPU 1 (one process, both GPUs visible):
x.copy_ from cuda:0 to cuda:1, one direction, and both directions at once on two streams.
Timing: CUDA events around `iters` back-to-back copies, median of 5 trials.
CSV columns: direction (uni|bi), bytes (per direction), time_us, gbps (per direction).
Usage: python3 peer_copy.py --out DIR
"""
import argparse
import csv
import os
import statistics

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-bytes", type=int, default=1 << 30)
    args = ap.parse_args()
    if torch.cuda.device_count() < 2:
        raise SystemExit("needs two GPUs")
    print("can_device_access_peer(0,1):", torch.cuda.can_device_access_peer(0, 1))
    big = args.max_bytes // 2
    a0 = torch.randn(big, device="cuda:0", dtype=torch.bfloat16)
    a1 = torch.randn(big, device="cuda:1", dtype=torch.bfloat16)
    b0 = torch.empty_like(a0)
    b1 = torch.empty_like(a1)
    s0 = torch.cuda.Stream(device=0)
    s1 = torch.cuda.Stream(device=1)
    path = os.path.join(args.out, "peer_copy.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["direction", "bytes", "time_us", "gbps"])
        b = 1024
        while b <= args.max_bytes:
            n = b // 2
            for direction in ("uni", "bi"):
                def op():
                    with torch.cuda.stream(s0):
                        b1[:n].copy_(a0[:n], non_blocking=True)
                    if direction == "bi":
                        with torch.cuda.stream(s1):
                            b0[:n].copy_(a1[:n], non_blocking=True)
                for _ in range(3):
                    op()
                torch.cuda.synchronize(0)
                torch.cuda.synchronize(1)
                e = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
                with torch.cuda.stream(s0):
                    e[0].record()
                    op()
                    e[1].record()
                torch.cuda.synchronize(0)
                torch.cuda.synchronize(1)
                one = e[0].elapsed_time(e[1]) * 1000.0
                iters = int(max(3, min(1000, 20000.0 / max(one, 1.0))))
                ts = []
                for _ in range(5):
                    torch.cuda.synchronize(0)
                    torch.cuda.synchronize(1)
                    s0.wait_stream(s1)
                    with torch.cuda.stream(s0):
                        e[0].record()
                    for _ in range(iters):
                        op()
                    s0.wait_stream(s1)
                    with torch.cuda.stream(s0):
                        e[1].record()
                    torch.cuda.synchronize(0)
                    torch.cuda.synchronize(1)
                    ts.append(e[0].elapsed_time(e[1]) * 1000.0 / iters)
                t = statistics.median(ts)
                w.writerow([direction, b, round(t, 3), round(b / t / 1e3, 3)])
                print(direction, b, round(t, 3), round(b / t / 1e3, 3), flush=True)
            b *= 4


if __name__ == "__main__":
    main()
