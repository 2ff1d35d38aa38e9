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
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402  (sets NCCL_NVLS_ENABLE=0 and the multicast switches)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

ITERS = 3


def kernels_of_replay(fn):
    """One replay of a graph of ITERS iterations of fn under the profiler: its kernels."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(ITERS):
            fn()
    for _ in range(2):
        g.replay()
    torch.cuda.synchronize()
    dist.barrier()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        g.replay()
        torch.cuda.synchronize()
    del g
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    prof.export_chrome_trace(path)
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    os.unlink(path)
    ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    return ks


class Timeline:
    def __init__(self, path):
        self.f = open(path, "w")
        self.f.write("kind,M,N,K,mode,rank,iter,seq,stream,kernel,grid,block,regs,smem,start_us,dur_us\n")

    def write(self, common, mode, rank, ks, per_iter):
        if not ks:
            return
        t0 = ks[0]["ts"]
        for i, e in enumerate(ks):
            a = e.get("args", {})
            grid = "x".join(str(x) for x in a.get("grid", []))
            block = "x".join(str(x) for x in a.get("block", []))
            name = e["name"].split("(")[0].replace(",", ";")[:120]
            self.f.write(f"{common['kind']},{common['M']},{common['N']},{common['K']},{mode},{rank},"
                         f"{i // per_iter if per_iter else ''},{i},{a.get('stream', '')},{name},{grid},"
                         f"{block},{a.get('registers per thread', '')},{a.get('shared memory', '')},"
                         f"{e['ts'] - t0:.3f},{e['dur']:.3f}\n")
        self.f.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(rank)
    sink = C.Sink(os.path.join(args.out, "stream_pieces.csv"), ["kind", "M", "N", "K", "mode", "time_us"], rank)
    tl = Timeline(os.path.join(args.out, f"stream_timeline_r{rank}.csv"))
    dt = torch.bfloat16
    comm = torch.cuda.Stream()
    t_start = time.time()
    for (M, N, K) in C.gemm_shapes():
        # ag_gemm, as collectives.py's phase_fused
        common = dict(kind="ag_gemm", M=M, N=N, K=K)
        a_shard = torch.randn(M // n, K, device="cuda", dtype=dt)
        a_full = torch.randn(M, K, device="cuda", dtype=dt)
        b_loc = torch.randn(K, N // n, device="cuda", dtype=dt)
        c = torch.empty(M, N // n, device="cuda", dtype=dt)
        a_zero = torch.zeros(M, K, device="cuda", dtype=dt)
        rows = M // n

        def compute():
            torch.matmul(a_full, b_loc, out=c)

        def compute_zeros():
            torch.matmul(a_zero, b_loc, out=c)

        def pieces():
            for r in range(n):
                torch.matmul(a_full[r * rows:(r + 1) * rows], b_loc, out=c[r * rows:(r + 1) * rows])

        def stream():
            comm.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(comm):
                w = dist.all_gather_into_tensor(a_full, a_shard, async_op=True)
            torch.matmul(a_shard, b_loc, out=c[rank * rows:(rank + 1) * rows])
            w.wait()
            for r in range(n):
                if r != rank:
                    torch.matmul(a_full[r * rows:(r + 1) * rows], b_loc, out=c[r * rows:(r + 1) * rows])
            torch.cuda.current_stream().wait_stream(comm)

        for mode, fn, per in (("compute", compute, 1), ("compute_zeros", compute_zeros, 1), ("pieces", pieces, n),
                              ("stream", stream, n + 1)):
            sink.row(mode=mode, time_us=round(C.timed_graph(fn), 3), **common)
            tl.write(common, mode, rank, kernels_of_replay(fn), per)
        del a_shard, a_full, a_zero, b_loc, c

        # gemm_rs, as collectives.py's phase_fused (4 chunks in stream)
        common = dict(kind="gemm_rs", M=M, N=N, K=K)
        a = torch.randn(M, K // n, device="cuda", dtype=dt)
        b = torch.randn(K // n, N, device="cuda", dtype=dt)
        part = torch.empty(M, N, device="cuda", dtype=dt)
        res = torch.empty(M // n, N, device="cuda", dtype=dt)
        chunks = 4
        cr = M // chunks

        def compute2():
            torch.matmul(a, b, out=part)

        def pieces2():
            for i in range(chunks):
                torch.matmul(a[i * cr:(i + 1) * cr], b, out=part[i * cr:(i + 1) * cr])

        def comm_pieces2():
            for i in range(chunks):
                dist.reduce_scatter_tensor(res[i * cr // n:(i + 1) * cr // n], part[i * cr:(i + 1) * cr])

        def stream2():
            works = []
            for i in range(chunks):
                torch.matmul(a[i * cr:(i + 1) * cr], b, out=part[i * cr:(i + 1) * cr])
                comm.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(comm):
                    works.append(dist.reduce_scatter_tensor(
                        res[i * cr // n:(i + 1) * cr // n], part[i * cr:(i + 1) * cr], async_op=True))
            for w in works:
                w.wait()
            torch.cuda.current_stream().wait_stream(comm)

        for mode, fn, per in (("compute", compute2, 1), ("pieces", pieces2, chunks),
                              ("comm_pieces", comm_pieces2, chunks), ("stream", stream2, 2 * chunks)):
            sink.row(mode=mode, time_us=round(C.timed_graph(fn), 3), **common)
            tl.write(common, mode, rank, kernels_of_replay(fn), per)
        del a, b, part, res
        torch.cuda.empty_cache()
        if rank == 0:
            print(f"# {M}x{N}x{K} done at {time.time() - t_start:.1f} s", file=sys.stderr, flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
