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
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402


def graph_of(fn, iters):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(iters):
            fn()
    g.replay()
    torch.cuda.synchronize()
    return g


def timed(g, iters):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(5):
        dist.barrier()
        torch.cuda.synchronize()
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1000.0 / iters)
    return C.agree_max(statistics.median(ts))


def profiled(g):
    dist.barrier()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        g.replay()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    prof.export_chrome_trace(path)
    ev = json.load(open(path))["traceEvents"]
    os.unlink(path)
    return sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(rank)
    out = open(os.path.join(args.out, f"stream_graph_length_r{rank}.csv"), "w")
    out.write("M,N,K,graph_iters,rank,timed_us,iter,span_us,tail_entries\n")
    dt, comm, chunks = torch.bfloat16, torch.cuda.Stream(), 4
    for (M, N, K) in [(2048, 8192, 8192), (8192, 8192, 8192), (16384, 8192, 8192)]:
        a = torch.randn(M, K // n, device="cuda", dtype=dt)
        b = torch.randn(K // n, N, device="cuda", dtype=dt)
        part = torch.empty(M, N, device="cuda", dtype=dt)
        res = torch.empty(M // n, N, device="cuda", dtype=dt)
        cr = M // chunks

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

        full = C._iters_for(stream2)
        for iters in sorted({3, 10, 30, full}):
            g = graph_of(stream2, iters)
            t = timed(g, iters)
            ks = profiled(g)
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
        del a, b, part, res
        torch.cuda.empty_cache()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
