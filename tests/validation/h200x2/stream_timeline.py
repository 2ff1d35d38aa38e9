#!/usr/bin/env python3
"""What overlaps when NCCL runs beside cuBLAS on a second stream (issue 7).

The fused corpus (collectives.py, phase fused) times gemm_rs `stream` (4 row chunks, each
reduce-scattered on a second stream once its GEMM is done) and ag_gemm `stream` (own shard's
GEMM while the all-gather runs) as one number. This script takes the same shapes, the same
tensors and the same code and records, per kernel, where it ran on the GPU's clock:

  stream_timeline.csv  (stream_timeline_r{rank}.csv, concatenated) kind, M, N, K, mode, rank, iter, seq (kernel order on the GPU), stream,
                       kernel (name), grid, block, regs, smem, start_us (from the first kernel
                       of the profiled replay), dur_us
  stream_pieces.csv    kind, M, N, K, mode, time_us: the parts of `stream` alone, CUDA-graph
                       replay timed as collectives.py does (median of 5, max over ranks):
                       compute (the whole local GEMM), compute_zeros (ag_gemm: the same on an
                       all-zero A, as collectives.py's torch.empty A may hold), pieces (gemm_rs: the 4 chunk GEMMs back to
                       back; ag_gemm: the n row-shard GEMMs), comm_pieces (gemm_rs: the 4 chunk
                       reduce-scatters back to back), stream (as collectives.py)

Kernels come from torch.profiler (CUPTI) over one replay of a CUDA graph of 3 iterations of
each mode; the kernel names give cuBLAS's tile configuration (nvjet_sm90_tst_MxN_KxSTAGES_...).
Usage (repo root, 2-GPU machine):
  torchrun --nproc_per_node=2 tests/validation/h200x2/stream_timeline.py --out DIR
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402  (sets NCCL_NVLS_ENABLE=0 and the multicast switches)
import timeline as T  # noqa: E402

import torch  # noqa: E402

ITERS = 3


class Timeline:
    def __init__(self, path):
        self.f = open(path, "w")
        self.f.write("kind,M,N,K,mode,rank,iter,seq," + ",".join(T.ACTIVITY_COLUMNS) + "\n")

    def write(self, common, mode, rank, ks, per_iter):
        if not ks:
            return
        t0 = ks[0]["ts"]
        for i, e in enumerate(ks):
            self.f.write(f"{common['kind']},{common['M']},{common['N']},{common['K']},{mode},{rank},"
                         f"{i // per_iter if per_iter else ''},{i},{T.activity_fields(e, t0)}\n")
        self.f.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rank, n = T.init(args.out)
    sink = C.Sink(os.path.join(args.out, "stream_pieces.csv"), ["kind", "M", "N", "K", "mode", "time_us"], rank)
    tl = Timeline(os.path.join(args.out, f"stream_timeline_r{rank}.csv"))
    comm = torch.cuda.Stream()
    t_start = time.time()
    for (M, N, K) in C.gemm_shapes():
        # ag_gemm, as collectives.py's phase_fused
        common = dict(kind="ag_gemm", M=M, N=N, K=K)
        ag = T.AgGemm(M, N, K, rank, n, comm)
        for mode, fn, per in (("compute", ag.compute, 1), ("compute_zeros", ag.compute_zeros, 1),
                              ("pieces", ag.pieces, n), ("stream", ag.stream, n + 1)):
            sink.row(mode=mode, time_us=round(C.timed_graph(fn), 3), **common)
            tl.write(common, mode, rank, T.replay_activities(fn, ITERS), per)
        del ag

        # gemm_rs, as collectives.py's phase_fused (4 chunks in stream)
        common = dict(kind="gemm_rs", M=M, N=N, K=K)
        rs = T.GemmRs(M, N, K, n, comm, chunks=4)
        for mode, fn, per in (("compute", rs.compute, 1), ("pieces", rs.pieces, rs.chunks),
                              ("comm_pieces", rs.comm_pieces, rs.chunks), ("stream", rs.stream, 2 * rs.chunks)):
            sink.row(mode=mode, time_us=round(C.timed_graph(fn), 3), **common)
            tl.write(common, mode, rank, T.replay_activities(fn, ITERS), per)
        del rs
        torch.cuda.empty_cache()
        if rank == 0:
            print(f"# {M}x{N}x{K} done at {time.time() - t_start:.1f} s", file=sys.stderr, flush=True)
    T.finish()


if __name__ == "__main__":
    main()
