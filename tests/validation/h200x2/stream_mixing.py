#!/usr/bin/env python3
"""The fused corpus's `stream` and `comm` rows with and without NCCL's graph-mixing support
(issue 7).

stream_drift.csv: in a CUDA graph, every NCCL kernel that follows another NCCL kernel starts
later than the last (gemm_rs 2048 rows: 0.5 us after it with NCCL_GRAPH_MIXING_SUPPORT=0,
3 us at the 5th call of the graph and 48 us at the 117th by default): the event-record and
event-wait nodes NCCL adds to each captured launch so that a graph may run beside uncaptured
NCCL calls. collectives.py times a row as one replay of a graph of `iters` iterations, so
those rows carry that growth, more the more iterations the graph has. Here the same code
(collectives.py's phase_fused) is timed the same way, recording `iters`; run once as is and
once with NCCL_GRAPH_MIXING_SUPPORT=0 (--tag names the setting):

  stream_mixing.csv  tag, kind, M, N, K, mode (stream, comm), iters, time_us (median of 5
                     replays, per iteration, max over ranks)
Usage (repo root, 2-GPU machine; rows are appended):
  [NCCL_GRAPH_MIXING_SUPPORT=0] torchrun --nproc_per_node=2 tests/validation/h200x2/stream_mixing.py --out DIR --tag NAME
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402
import timeline as T  # noqa: E402

import torch  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--tag", default="default")
    args = ap.parse_args()
    rank, n = T.init(args.out)
    sink = C.Sink(os.path.join(args.out, "stream_mixing.csv"), ["tag", "kind", "M", "N", "K", "mode", "iters", "time_us"],
                  rank)
    comm = torch.cuda.Stream()
    t_start = time.time()
    for (M, N, K) in C.gemm_shapes():
        ag, rs = T.AgGemm(M, N, K, rank, n, comm), T.GemmRs(M, N, K, n, comm, chunks=4)
        for kind, mode, fn in (("ag_gemm", "stream", ag.stream), ("ag_gemm", "comm", ag.comm),
                               ("gemm_rs", "stream", rs.stream), ("gemm_rs", "comm", rs.comm)):
            iters = int(C.agree_max(C._iters_for(fn)))
            g = T.graph_of(fn, iters)
            t = T.timed_replays(g, iters)
            del g
            sink.row(tag=args.tag, kind=kind, M=M, N=N, K=K, mode=mode, iters=iters, time_us=round(t, 3))
        del ag, rs
        torch.cuda.empty_cache()
        if rank == 0:
            print(f"# {M}x{N}x{K} done at {time.time() - t_start:.1f} s", file=sys.stderr, flush=True)
    T.finish()


if __name__ == "__main__":
    main()
