#!/usr/bin/env python3
"""NCCL's point-to-point path at 8 KiB - 64 MiB: all_to_all and send/recv (issue 7).

The collectives corpus shows all_to_all at 1-16 MiB 10-33% off the model, and the k = 32
forced-channel sweep (channel_sizes.csv) ran faster at 4-16 MiB than the corpus's default
rows (16 MiB: 66 us there, 79 us in collectives.csv). NCCL runs all_to_all as grouped
send/recv: LL for a peer's chunk up to NCCL_P2P_LL_THRESHOLD (16 KiB by default), Simple
above, each peer's bytes cut into chunks spread over the p2p channels. This sweep measures,
in one session, what the model needs to tell those apart:

  variant  default  NCCL as shipped (p2p LL threshold 16 KiB)
           simple   NCCL_P2P_LL_THRESHOLD=0: every p2p op Simple (the p2p Simple start-up)
           k32      the default with the communicator's min/max CTAs = 32, as channel_sizes.py
  ops      all_to_all (nccl-tests size), send/recv rank 0 -> 1 ("uni"), and all_gather
           (a ring collective, to compare the run with collectives.csv)
  pass     each size measured in `--passes` interleaved passes, so the run-to-run spread
           shows next to any difference between variants

NCCL parameters are read once per process, so each variant is its own torchrun launch
(p2p_sizes.sh). Rows (p2p_sizes.csv): variant, op, bytes, pass, time_us (CUDA-graph replay
of back-to-back operations, as collectives.py times them).
Usage (repo root, 2-GPU machine): RES=DIR bash tests/validation/h200x2/p2p_sizes.sh
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402  (timing protocol, Sink; sets the NVLS-off variables)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

KiB, MiB = 1 << 10, 1 << 20


def ops(n, rank, sbuf, rbuf, group):
    def a2a(b):
        return lambda: dist.all_to_all_single(rbuf[:b // 2], sbuf[:b // 2], group=group)

    def ag(b):
        return lambda: dist.all_gather_into_tensor(rbuf[:b // 2], sbuf[:b // 2 // n], group=group)

    def uni(b):
        def fn():
            op = dist.isend if rank == 0 else dist.irecv
            buf = sbuf if rank == 0 else rbuf
            for w in dist.batch_isend_irecv([dist.P2POp(op, buf[:b // 2], 1 - rank, group=group)]):
                w.wait()
        return fn
    return {"all_to_all": a2a, "send_recv": uni, "all_gather": ag}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--max-bytes", type=int, default=64 * MiB)
    args = ap.parse_args()
    rank = int(os.environ["RANK"])
    n = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl")
    group = None
    if args.variant == "k32":
        opts = dist.ProcessGroupNCCL.Options()
        opts.config.min_ctas = opts.config.max_ctas = 32
        group = dist.new_group(list(range(n)), pg_options=opts)
    sbuf = torch.randn(args.max_bytes // 2, device="cuda", dtype=torch.bfloat16)
    rbuf = torch.empty(args.max_bytes // 2, device="cuda", dtype=torch.bfloat16)
    sink = C.Sink(os.path.join(args.out, "p2p_sizes.csv"), ["variant", "op", "bytes", "pass", "time_us"], rank)
    table = ops(n, rank, sbuf, rbuf, group)
    sizes = []
    b = 8 * KiB
    while b <= args.max_bytes:
        sizes.append(b)
        b *= 2
    for p in range(args.passes):
        for name, make in table.items():
            if args.variant == "simple" and name == "all_gather":
                continue  # the threshold touches p2p only
            for b in sizes:
                t = C.timed_graph(make(b), trials=3)
                sink.row(variant=args.variant, op=name, bytes=b, **{"pass": p}, time_us=round(t, 3))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
