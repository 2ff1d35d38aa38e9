#!/usr/bin/env python3
"""Does a long CUDA graph run the gemm_rs `stream` iterations as a short one does? (issue 7)

collectives.py times `stream` as one replay of a graph of `iters` iterations (about 20 ms of
work: 55 for gemm_rs 2048 x 8192 x 8192), stream_timeline.py profiles a graph of 3, and the two
differ (358 vs 306 us an iteration at 2048 rows). Here, for gemm_rs stream (collectives.py's
code, 4 chunks) at 2048, 8192 and 16384 rows, graphs of G = 3, 10, 30 and collectives.py's
`iters` iterations are each timed (median of 5 replays, max over ranks) and profiled (one
replay under torch.profiler); per iteration of the profile: its span (first kernel start to
next iteration's first kernel start), and for each reduce-scatter but the last whether it
started before the GEMM chunk after the one it follows ended (entered in the tail).

  stream_graph_length.csv  (stream_graph_length_r{rank}.csv, concatenated) M, N, K, graph_iters, rank, timed_us (per iteration), iter,
                           span_us, tail_entries (of 3)
Usage (repo root, 2-GPU machine):
  torchrun --nproc_per_node=2 tests/validation/h200x2/stream_graph_length.py --out DIR
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402
import timeline as T  # noqa: E402

import torch  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rank, n = T.init(args.out)
    out = open(os.path.join(args.out, f"stream_graph_length_r{rank}.csv"), "w")
    out.write("M,N,K,graph_iters,rank,timed_us,iter,span_us,tail_entries\n")
    comm = torch.cuda.Stream()
    for (M, N, K) in [(2048, 8192, 8192), (8192, 8192, 8192), (16384, 8192, 8192)]:
        rs = T.GemmRs(M, N, K, n, comm, chunks=4)
        chunks = rs.chunks
        full = C._iters_for(rs.stream)
        for iters in sorted({3, 10, 30, full}):
            g = T.graph_of(rs.stream, iters)
            t = T.timed_replays(g, iters)
            ks = T.profiled_replay(g)
            del g
            gemm = [k for k in ks if "nccl" not in k["name"]]
            nccl = [k for k in ks if "nccl" in k["name"]]
            for it in range(min(len(gemm) // chunks, len(nccl) // chunks)):
                g4, n4 = gemm[it * chunks:(it + 1) * chunks], nccl[it * chunks:(it + 1) * chunks]
                nxt = gemm[(it + 1) * chunks]["ts"] if (it + 1) * chunks < len(gemm) else n4[-1]["ts"] + n4[-1]["dur"]
                tail = sum(1 for i in range(chunks - 1) if n4[i]["ts"] < g4[i + 1]["ts"] + g4[i + 1]["dur"])
                out.write(f"{M},{N},{K},{iters},{rank},{t:.3f},{it},{nxt - g4[0]['ts']:.3f},{tail}\n")
            out.flush()
            if rank == 0:
                print(f"# {M} rows, graph of {iters}: timed {t:.1f} us/iter", file=sys.stderr, flush=True)
        del rs
        torch.cuda.empty_cache()
    T.finish()


if __name__ == "__main__":
    main()
