#!/usr/bin/env python3
"""NCCL collectives, point-to-point and fused compute-communication on the H200s of one host.

One process per GPU (torchrun), NCCL backend, NCCL_NVLS_ENABLE=0. Timing as nccl-tests does:
after a barrier, `iters` back-to-back operations between two CUDA events, `trials` such
timings, the median per rank, then the maximum over ranks (one all_reduce(MAX) of the
medians). Collectives and point-to-point are timed twice: eager (`eager_us`: Python and
ProcessGroupNCCL launch costs, ~35 us a call, bound small messages) and with the `iters`
operations captured in one CUDA graph (`time_us`: device time, what nccl-tests reports). `iters` is chosen from one timed operation so a trial lasts about 20 ms, and
agreed between ranks (every rank must issue the same collectives in the same order).

Phases (each writes one CSV into --out, rows appended as they are measured):
  collectives.csv  collective, devices, bytes (nccl-tests "size": all_reduce buffer,
                   all_gather output, reduce_scatter input, all_to_all send buffer), proto
                   (NCCL_PROTO or "default"), time_us, algbw_gbps (bytes/time), busbw_gbps
                   (algbw x 2(n-1)/n for all_reduce, x (n-1)/n for the others)
  p2p.csv          direction (uni: rank 0 -> rank 1, bi: both ways at once), bytes, time_us,
                   gbps per direction
  fused.csv        kind (ag_gemm, gemm_rs, ulysses_attention), shape, mode (compute: the
                   local compute alone; comm: the collectives alone; none: collective then
                   compute, serially; stream: the collective on a second stream overlapping
                   the compute of another shard), time_us (CUDA graph replay), eager_us
Usage (from the repo root, on the multi-GPU machine):
  torchrun --nproc_per_node=2 tests/validation/h200x2/collectives.py --out DIR \
      [--phases coll,p2p,fused] [--max-bytes 4294967296] [--colls all_reduce,...]
"""
import argparse
import csv
import os
import statistics
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402

TRIAL_US = 20000.0


def agree_max(x):
    t = torch.tensor([float(x)], device="cuda", dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def _iters_for(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    one = agree_max(s.elapsed_time(e) * 1000.0)
    return int(max(3, min(1000, TRIAL_US / max(one, 1.0))))


def _median_of_trials(body, per, trials):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(trials):
        dist.barrier()
        torch.cuda.synchronize()
        s.record()
        body()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1000.0 / per)
    return agree_max(statistics.median(times))


def timed(fn, trials=5):
    """Eager: median over trials of the per-operation time (us) of `iters` back-to-back
    calls, max over ranks. Host launch costs show for small operations."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    dist.barrier()
    iters = _iters_for(fn)

    def body():
        for _ in range(iters):
            fn()
    return _median_of_trials(body, iters, trials)


def timed_graph(fn, trials=5):
    """The same with the `iters` operations captured in one CUDA graph and replayed, so the
    host's launch cost stays out (as nccl-tests' C loop mostly does). None if capture fails."""
    iters = _iters_for(fn)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(iters):
            fn()
    torch.cuda.synchronize()
    g.replay()
    torch.cuda.synchronize()
    t = _median_of_trials(g.replay, iters, trials)
    del g
    return t


class Sink:
    def __init__(self, path, fields, rank):
        self.rank = rank
        self.fields = fields
        if rank == 0:
            new = not os.path.exists(path)
            self.f = open(path, "a", newline="")
            self.w = csv.DictWriter(self.f, fieldnames=fields)
            if new:
                self.w.writeheader()

    def row(self, **kw):
        if self.rank == 0:
            self.w.writerow(kw)
            self.f.flush()
            print(",".join(str(kw[k]) for k in self.fields), flush=True)


def sizes(lo, hi):
    b = lo
    while b <= hi:
        yield b
        b *= 2


def phase_collectives(args, rank, n, out):
    sink = Sink(os.path.join(out, "collectives.csv"),
                ["collective", "devices", "bytes", "proto", "time_us", "algbw_gbps",
                 "busbw_gbps", "eager_us"], rank)
    proto = os.environ.get("NCCL_PROTO", "default")
    el = 2  # bf16
    big = args.max_bytes
    buf_a = torch.randn(big // el, device="cuda", dtype=torch.bfloat16)
    buf_b = torch.empty(big // el, device="cuda", dtype=torch.bfloat16)
    for coll in args.colls.split(","):
        for b in sizes(args.min_bytes, big):
            count = b // el
            if count % n:
                continue
            if coll == "all_reduce":
                x = buf_a[:count]
                fn = lambda x=x: dist.all_reduce(x)  # noqa: E731
                factor = 2.0 * (n - 1) / n
            elif coll == "all_gather":
                out_t, in_t = buf_b[:count], buf_a[:count // n]
                fn = lambda o=out_t, i=in_t: dist.all_gather_into_tensor(o, i)  # noqa: E731
                factor = (n - 1) / n
            elif coll == "reduce_scatter":
                out_t, in_t = buf_b[:count // n], buf_a[:count]
                fn = lambda o=out_t, i=in_t: dist.reduce_scatter_tensor(o, i)  # noqa: E731
                factor = (n - 1) / n
            elif coll == "all_to_all":
                out_t, in_t = buf_b[:count], buf_a[:count]
                fn = lambda o=out_t, i=in_t: dist.all_to_all_single(o, i)  # noqa: E731
                factor = (n - 1) / n
            else:
                raise SystemExit(f"unknown collective {coll}")
            te = timed(fn)
            t = timed_graph(fn)
            alg = b / t / 1e3
            sink.row(collective=coll, devices=n, bytes=b, proto=proto, time_us=round(t, 3),
                     algbw_gbps=round(alg, 3), busbw_gbps=round(alg * factor, 3),
                     eager_us=round(te, 3))
    del buf_a, buf_b
    torch.cuda.empty_cache()


def phase_p2p(args, rank, n, out):
    sink = Sink(os.path.join(out, "p2p.csv"),
                ["direction", "src", "dst", "bytes", "time_us", "gbps", "eager_us"], rank)
    el = 2
    big = args.max_bytes
    sbuf = torch.randn(big // el, device="cuda", dtype=torch.bfloat16)
    rbuf = torch.empty(big // el, device="cuda", dtype=torch.bfloat16)
    for direction in ("uni", "bi"):
        for b in sizes(max(2, args.min_bytes // 1024), big):
            count = b // el

            def fn(count=count, direction=direction):
                ops = []
                if direction == "bi" or rank == 0:
                    ops.append(dist.P2POp(dist.isend, sbuf[:count], 1 - rank if n == 2 else 1))
                if direction == "bi" or rank == 1:
                    ops.append(dist.P2POp(dist.irecv, rbuf[:count], 1 - rank if n == 2 else 0))
                if rank in (0, 1):
                    for w in dist.batch_isend_irecv(ops):
                        w.wait()
            te = timed(fn)
            t = timed_graph(fn)
            sink.row(direction=direction, src=0, dst=1, bytes=b, time_us=round(t, 3),
                     gbps=round(b / t / 1e3, 3), eager_us=round(te, 3))
    del sbuf, rbuf
    torch.cuda.empty_cache()


def gemm_shapes():
    # LLM layer shapes (M tokens, N, K): attention projection / MLP up / MLP down
    return [(2048, 8192, 8192), (4096, 8192, 8192), (8192, 8192, 8192),
            (16384, 8192, 8192), (8192, 28672, 8192), (8192, 8192, 28672)]


def phase_fused(args, rank, n, out):
    sink = Sink(os.path.join(out, "fused.csv"),
                ["kind", "devices", "M", "N", "K", "batch", "heads", "seq", "head_dim",
                 "causal", "mode", "time_us", "eager_us"], rank)
    dt = torch.bfloat16
    comm = torch.cuda.Stream()
    for (M, N, K) in gemm_shapes():
        common = dict(kind="ag_gemm", devices=n, M=M, N=N, K=K, batch="", heads="", seq="",
                      head_dim="", causal="")
        # ag_gemm: A (M x K) row-sharded and all-gathered; B (K x N/n) local.
        a_shard = torch.randn(M // n, K, device="cuda", dtype=dt)
        # random, not torch.empty: the `compute` rows run before any gather fills it, and
        # cuBLAS runs 9-20% faster on the zeros of fresh memory (stream_timeline.py)
        a_full = torch.randn(M, K, device="cuda", dtype=dt)
        b_loc = torch.randn(K, N // n, device="cuda", dtype=dt)
        c = torch.empty(M, N // n, device="cuda", dtype=dt)
        rows = M // n

        def compute():
            torch.matmul(a_full, b_loc, out=c)

        def gather():
            dist.all_gather_into_tensor(a_full, a_shard)

        def none():
            gather()
            compute()

        def stream():
            # own shard computes while the others' shards arrive on the second stream
            comm.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(comm):
                w = dist.all_gather_into_tensor(a_full, a_shard, async_op=True)
            torch.matmul(a_shard, b_loc, out=c[rank * rows:(rank + 1) * rows])
            w.wait()
            for r in range(n):
                if r != rank:
                    torch.matmul(a_full[r * rows:(r + 1) * rows], b_loc,
                                 out=c[r * rows:(r + 1) * rows])
            torch.cuda.current_stream().wait_stream(comm)

        for mode, fn in (("compute", compute), ("comm", gather), ("none", none),
                         ("stream", stream)):
            sink.row(mode=mode, time_us=round(timed_graph(fn), 3),
                     eager_us=round(timed(fn), 3), **common)
        del a_shard, a_full, b_loc, c

        # gemm_rs: A (M x K/n) and B (K/n x N) local; the partial M x N is reduce-scattered
        # by rows (each device keeps M/n x N).
        common["kind"] = "gemm_rs"
        a = torch.randn(M, K // n, device="cuda", dtype=dt)
        b = torch.randn(K // n, N, device="cuda", dtype=dt)
        part = torch.empty(M, N, device="cuda", dtype=dt)
        res = torch.empty(M // n, N, device="cuda", dtype=dt)
        chunks = 4
        cr = M // chunks

        def compute2():
            torch.matmul(a, b, out=part)

        def rs():
            dist.reduce_scatter_tensor(res, part)

        def none2():
            compute2()
            rs()

        def stream2():
            works = []
            for i in range(chunks):
                torch.matmul(a[i * cr:(i + 1) * cr], b, out=part[i * cr:(i + 1) * cr])
                comm.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(comm):
                    works.append(dist.reduce_scatter_tensor(
                        res[i * cr // n:(i + 1) * cr // n], part[i * cr:(i + 1) * cr],
                        async_op=True))
            for w in works:
                w.wait()
            torch.cuda.current_stream().wait_stream(comm)

        for mode, fn in (("compute", compute2), ("comm", rs), ("none", none2),
                         ("stream", stream2)):
            sink.row(mode=mode, time_us=round(timed_graph(fn), 3),
                     eager_us=round(timed(fn), 3), **common)
        del a, b, part, res
        torch.cuda.empty_cache()

    # Ulysses attention: Q/K/V sequence-sharded (S/n, H, D) -> all-to-all to head shards
    # (S, H/n, D) -> SDPA (cuDNN/flash as torch picks) -> all-to-all back.
    for (H, D, S, causal) in [(32, 128, 8192, False), (32, 128, 16384, False),
                              (32, 128, 32768, False), (32, 128, 16384, True),
                              (64, 64, 16384, False)]:
        common = dict(kind="ulysses_attention", devices=n, M="", N="", K="", batch=1,
                      heads=H, seq=S, head_dim=D, causal=int(causal))
        qkv = torch.randn(3, S // n, H, D, device="cuda", dtype=dt)
        qkv_t = torch.empty(3, S // n, H, D, device="cuda", dtype=dt)
        o_heads = torch.empty(S, H // n, D, device="cuda", dtype=dt)
        o_seq = torch.empty(S // n, H, D, device="cuda", dtype=dt)

        def a2a_in():
            # send rank r the heads r*H/n..: (3, S/n, n, H/n, D) -> dim n first
            src = qkv.view(3, S // n, n, H // n, D).permute(2, 0, 1, 3, 4).contiguous()
            dist.all_to_all_single(qkv_t.view(n, 3, S // n, H // n, D), src)

        def attn():
            x = qkv_t.view(n, 3, S // n, H // n, D).permute(1, 3, 0, 2, 4).reshape(
                3, H // n, S, D)
            o = F.scaled_dot_product_attention(x[0][None], x[1][None], x[2][None],
                                               is_causal=causal)
            o_heads.copy_(o[0].transpose(0, 1))

        def a2a_out():
            src = o_heads.view(n, S // n, H // n, D).contiguous()
            tmp = torch.empty_like(src)
            dist.all_to_all_single(tmp, src)
            o_seq.copy_(tmp.permute(1, 0, 2, 3).reshape(S // n, H, D))

        def comm_only():
            a2a_in()
            a2a_out()

        def none3():
            a2a_in()
            attn()
            a2a_out()

        for mode, fn in (("compute", attn), ("comm", comm_only), ("none", none3)):
            sink.row(mode=mode, time_us=round(timed_graph(fn), 3),
                     eager_us=round(timed(fn), 3), **common)
        del qkv, qkv_t, o_heads, o_seq
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--phases", default="coll,p2p,fused")
    ap.add_argument("--colls", default="all_reduce,all_gather,reduce_scatter,all_to_all")
    ap.add_argument("--min-bytes", type=int, default=8192)
    ap.add_argument("--max-bytes", type=int, default=4 << 30)
    args = ap.parse_args()
    rank = int(os.environ["RANK"])
    n = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(rank)
    t0 = time.time()
    for ph in args.phases.split(","):
        {"coll": phase_collectives, "p2p": phase_p2p, "fused": phase_fused}[ph](
            args, rank, n, args.out)
        if rank == 0:
            print(f"# phase {ph} done at {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
