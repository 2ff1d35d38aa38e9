#!/usr/bin/env python3
"""What NCCL's channels do on the H200s of one host: the channel count and protocol NCCL picks
per collective and size, and what one channel (one CTA) moves per second per collective.

Not a collectives corpus: these are the facts the network model takes its per-collective
bandwidth from (issue 7: "NCCL's achieved bandwidth differs by collective and protocol");
tests/validation/h200x2/collectives.csv stays the check.

Two phases, one process per GPU (torchrun), NCCL_NVLS_ENABLE=0:
  tuning    one eager call of all_gather, reduce_scatter, all_reduce and all_to_all per size
            (8 KiB - 1 GiB, x2) with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING set
            by the caller: NCCL prints "<Coll>: <bytes> Bytes -> Algo <a> proto <p>
            channel{Lo..Hi}={lo..hi}" per call and its ring graph (nChannels, bw) at init.
            The log is parsed here, off the machine (channels_tuning.csv).
  channels  each collective at a forced channel count k (a process group whose NCCL config
            has min_ctas = max_ctas = k), 64 MiB and 512 MiB, CUDA-graph replay as
            collectives.py times it: channels.csv (collective, channels, bytes, proto,
            time_us, busbw_gbps). LL and LL128 (NCCL_PROTO set before the group's
            communicator is made) for all_gather and all_reduce at a few k.
Usage (repo root, on the 2-GPU machine; output in DIR):
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING torchrun --standalone --nproc_per_node=2 \
      tests/validation/h200x2/nccl_channels.py --out DIR > DIR/nccl_channels.log 2>&1
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402  (timing protocol, Sink; sets the NVLS-off variables)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

COLLS = ("all_gather", "reduce_scatter", "all_reduce", "all_to_all")
FACTOR = {"all_reduce": lambda n: 2.0 * (n - 1) / n}


def op(coll, b, n, buf_a, buf_b, group):
    count = b // 2  # bf16
    if coll == "all_reduce":
        return lambda: dist.all_reduce(buf_a[:count], group=group)
    if coll == "all_gather":
        return lambda: dist.all_gather_into_tensor(buf_b[:count], buf_a[:count // n], group=group)
    if coll == "reduce_scatter":
        return lambda: dist.reduce_scatter_tensor(buf_b[:count // n], buf_a[:count], group=group)
    return lambda: dist.all_to_all_single(buf_b[:count], buf_a[:count], group=group)


def mark(rank, text):
    if rank == 0:
        print(f"# MARK {text}", flush=True)


def phase_tuning(rank, n, buf_a, buf_b):
    b = 8192
    while b <= (1 << 30):
        for coll in COLLS:
            mark(rank, f"tuning {coll} {b}")
            op(coll, b, n, buf_a, buf_b, None)()
            torch.cuda.synchronize()
        b *= 2


def group_with(k, proto):
    if proto == "default":
        os.environ.pop("NCCL_PROTO", None)
    else:
        os.environ["NCCL_PROTO"] = proto
    opts = dist.ProcessGroupNCCL.Options()
    opts.config.min_ctas = k
    opts.config.max_ctas = k
    g = dist.new_group(list(range(dist.get_world_size())), pg_options=opts)
    # make the communicator now, while NCCL_PROTO holds this group's value
    t = torch.ones(1, device="cuda")
    dist.all_reduce(t, group=g)
    torch.cuda.synchronize()
    return g


def phase_channels(rank, n, out, buf_a, buf_b):
    sink = C.Sink(os.path.join(out, "channels.csv"),
                  ["collective", "channels", "bytes", "proto", "time_us", "busbw_gbps"], rank)
    plan = [(k, "default", COLLS, (64 << 20, 512 << 20)) for k in (1, 2, 4, 8, 16, 32)]
    plan += [(k, p, ("all_gather", "all_reduce"), (64 << 20,)) for p in ("LL128", "LL") for k in (1, 4, 16)]
    for k, proto, colls, sizes in plan:
        g = group_with(k, proto)
        for coll in colls:
            for b in sizes:
                mark(rank, f"channels {coll} {b} k={k} proto={proto}")
                t = C.timed_graph(op(coll, b, n, buf_a, buf_b, g), trials=3)
                f = FACTOR.get(coll, lambda m: (m - 1) / m)(n)
                sink.row(collective=coll, channels=k, bytes=b, proto=proto, time_us=round(t, 3),
                         busbw_gbps=round(b / t / 1e3 * f, 3))
        dist.destroy_process_group(g)
    os.environ.pop("NCCL_PROTO", None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--phases", default="tuning,channels")
    args = ap.parse_args()
    rank = int(os.environ["RANK"])
    n = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl")
    os.makedirs(args.out, exist_ok=True)
    big = 1 << 30
    buf_a = torch.randn(big // 2, device="cuda", dtype=torch.bfloat16)
    buf_b = torch.empty(big // 2, device="cuda", dtype=torch.bfloat16)
    t0 = time.time()
    for ph in args.phases.split(","):
        if ph == "tuning":
            phase_tuning(rank, n, buf_a, buf_b)
        else:
            phase_channels(rank, n, args.out, buf_a, buf_b)
        mark(rank, f"phase {ph} done at {time.time() - t0:.1f} s")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
