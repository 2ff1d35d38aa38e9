#!/usr/bin/env python3
"""What k forced NCCL channels send per second across message sizes (4 MiB - 4 GiB).

nccl_channels.py measured each collective with k channels at 64 MiB and 512 MiB only; the
collectives corpus shows NCCL's achieved rate still rising past 512 MiB and falling below
it at 4-32 MiB. This sweep measures the channel rate at the sizes in between and beyond, at
channel counts other than NCCL's own 24 ring channels (so the corpus's default rows stay a
check: the model interpolates 24 between 16 and 32).

One process per GPU (torchrun), NCCL_NVLS_ENABLE=0, CUDA-graph replay timed as
collectives.py does. Rows (channel_sizes.csv): collective, channels, bytes, proto, time_us,
busbw_gbps (nccl-tests busbw: what a GPU sends per second, launch included).
  Simple  k = 4, 8, 16, 32; all_gather, reduce_scatter, all_reduce, all_to_all;
          4 MiB, 16 MiB, 64 MiB, 256 MiB, 1 GiB, 4 GiB
  LL      k = 4, 16; all_gather, all_reduce; 1, 4, 16 MiB  (where NCCL switches protocol)
  LL128   k = 4, 16; all_gather, all_reduce; 1, 4, 16 MiB
  start   k = 1, 16, 32, Simple; all_gather, all_reduce; 64 KiB (launch of k CTAs)
Usage (repo root, 2-GPU machine):
  torchrun --standalone --nproc_per_node=2 tests/validation/h200x2/channel_sizes.py --out DIR
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402  (timing protocol, Sink; sets the NVLS-off variables)
import nccl_channels as N  # noqa: E402  (op, group_with)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

MiB = 1 << 20
PLAN = (
    [(k, "Simple", N.COLLS, (4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, 1024 * MiB, 4096 * MiB))
     for k in (4, 8, 16, 32)]
    + [(k, p, ("all_gather", "all_reduce"), (1 * MiB, 4 * MiB, 16 * MiB))
       for p in ("LL", "LL128") for k in (4, 16)]
    + [(k, "Simple", ("all_gather", "all_reduce"), (64 << 10,)) for k in (1, 16, 32)]
)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rank = int(os.environ["RANK"])
    n = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl")
    os.makedirs(args.out, exist_ok=True)
    big = 4096 * MiB
    buf_a = torch.randn(big // 2, device="cuda", dtype=torch.bfloat16)
    buf_b = torch.empty(big // 2, device="cuda", dtype=torch.bfloat16)
    sink = C.Sink(os.path.join(args.out, "channel_sizes.csv"),
                  ["collective", "channels", "bytes", "proto", "time_us", "busbw_gbps"], rank)
    t0 = time.time()
    for k, proto, colls, sizes in PLAN:
        g = N.group_with(k, proto)
        for coll in colls:
            for b in sizes:
                t = C.timed_graph(N.op(coll, b, n, buf_a, buf_b, g), trials=3)
                f = N.FACTOR.get(coll, lambda m: (m - 1) / m)(n)
                sink.row(collective=coll, channels=k, bytes=b, proto=proto, time_us=round(t, 3),
                         busbw_gbps=round(b / t / 1e3 * f, 3))
        dist.destroy_process_group(g)
        N.mark(rank, f"k={k} {proto} done at {time.time() - t0:.1f} s")
    os.environ.pop("NCCL_PROTO", None)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
