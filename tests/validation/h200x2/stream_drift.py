#!/usr/bin/env python3
"""Why a gemm_rs `stream` iteration slows in a long CUDA graph (issue 7).

stream_graph_length.csv: the same iteration takes 303 us at the start of a 30-iteration graph
and ~700 us at its end (2048 rows), growing ~13 us an iteration. This script records every
kernel of one replay of 30-iteration graphs (start and duration on the GPU's clock, both
ranks), so that the growth can be put on the GEMM chunks, the reduce-scatters or the gaps,
for these variants of collectives.py's gemm_rs code (4 chunks):

  stream        as collectives.py (random A)
  stream_zeros  the same on an all-zero A (cuBLAS draws less power on zeros)
  pieces        the 4 chunk GEMMs alone
  comm_pieces   the 4 chunk reduce-scatters alone
  serial        each chunk's GEMM then its reduce-scatter on one stream

  stream_drift.csv  (stream_drift_r{rank}.csv, concatenated) tag (--tag: the NCCL environment
                    the run was started with, `default` when none), M, N, K, variant, graph_iters,
                    rank, timed_us (per iteration: median of 5 replays, max over ranks), seq,
                    stream, kernel, grid, block, regs, smem, start_us, dur_us
Usage (repo root, 2-GPU machine; rows are appended):
  [NCCL_...=...] torchrun --nproc_per_node=2 tests/validation/h200x2/stream_drift.py --out DIR \
      [--tag NAME] [--rows 2048,8192] [--variants stream,comm_pieces]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timeline as T  # noqa: E402

import torch  # noqa: E402

ITERS = 30


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--tag", default="default")
    ap.add_argument("--rows", default="2048,8192")
    ap.add_argument("--variants", default="")
    args = ap.parse_args()
    rank, n = T.init(args.out)
    path = os.path.join(args.out, f"stream_drift_r{rank}.csv")
    new = not os.path.exists(path)
    out = open(path, "a")
    if new:
        out.write("tag,M,N,K,variant,graph_iters,rank,timed_us,seq," + ",".join(T.ACTIVITY_COLUMNS) + "\n")
    rows = [int(r) for r in args.rows.split(",")]
    only = set(args.variants.split(",")) - {""}
    comm = torch.cuda.Stream()
    t_start = time.time()
    for (M, N, K), variants in (((2048, 8192, 8192), ("stream", "stream_zeros", "pieces", "comm_pieces", "serial")),
                                ((8192, 8192, 8192), ("stream",))):
        variants = [v for v in variants if not only or v in only]
        if M not in rows or not variants:
            continue
        rs, rs0 = T.GemmRs(M, N, K, n, comm), T.GemmRs(M, N, K, n, comm, zeros=True)
        for v in variants:
            fn = {"stream": rs.stream, "stream_zeros": rs0.stream, "pieces": rs.pieces,
                  "comm_pieces": rs.comm_pieces, "serial": rs.serial}[v]
            g = T.graph_of(fn, ITERS, warm_replays=2)
            t = T.timed_replays(g, ITERS)
            ks = T.profiled_replay(g)
            del g
            t0 = ks[0]["ts"] if ks else 0
            for i, e in enumerate(ks):
                out.write(f"{args.tag},{M},{N},{K},{v},{ITERS},{rank},{t:.3f},{i},{T.activity_fields(e, t0)}\n")
            out.flush()
            if rank == 0:
                print(f"# {M} rows {v}: {t:.1f} us/iter at {time.time() - t_start:.1f} s", file=sys.stderr, flush=True)
        del rs, rs0
        torch.cuda.empty_cache()
    T.finish()


if __name__ == "__main__":
    main()
