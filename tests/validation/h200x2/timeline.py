"""What the timeline scripts of this folder share (stream_timeline.py, ulysses_timeline.py,
stream_graph_length.py, stream_drift.py, rs_contention.py): one process per GPU under
torchrun, a function captured G times in one CUDA graph, its replays timed as collectives.py
times, and one replay recorded under torch.profiler (CUPTI: each kernel's start and duration
on the GPU's clock, grid, block, registers, shared memory).
"""
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402  (sets NCCL_NVLS_ENABLE=0 and the multicast switches)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

# The columns activity_fields() fills, in order (each script writes its own key columns first).
ACTIVITY_COLUMNS = ["stream", "kernel", "grid", "block", "regs", "smem", "start_us", "dur_us"]


def init(out):
    """torchrun's rank and world size; the GPU, NCCL's process group, the output folder, a seed."""
    rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(rank)
    return rank, n


def finish():
    dist.barrier()
    dist.destroy_process_group()


def graph_of(fn, iters, warm_replays=1):
    """fn captured `iters` times in one CUDA graph (after one eager warm-up on a side stream,
    as torch's graph capture asks), replayed `warm_replays` times."""
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
    for _ in range(warm_replays):
        g.replay()
    torch.cuda.synchronize()
    return g


def timed_replays(g, per, trials=5):
    """Median over `trials` replays (after a barrier) of the replay's time / per, in us; the
    maximum over ranks (collectives.py's rule)."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(trials):
        dist.barrier()
        torch.cuda.synchronize()
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1000.0 / per)
    return C.agree_max(statistics.median(ts))


def profiled_replay(g, cats=("kernel",)):
    """One replay of g under torch.profiler, after a barrier: its activities of the given
    categories ("kernel", "gpu_memcpy"), in start order."""
    dist.barrier()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        g.replay()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    prof.export_chrome_trace(path)
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    os.unlink(path)
    return sorted((e for e in ev if e.get("cat") in cats), key=lambda e: e["ts"])


def replay_activities(fn, iters, cats=("kernel",)):
    """A graph of `iters` iterations of fn, replayed twice to warm up, then one profiled replay."""
    g = graph_of(fn, iters, warm_replays=2)
    ks = profiled_replay(g, cats)
    del g
    return ks


def activity_fields(e, t0):
    """ACTIVITY_COLUMNS of one profiler activity, its start in us from t0, as CSV text."""
    a = e.get("args", {})
    name = e["name"].split("(")[0].replace(",", ";")[:120]
    return (f"{a.get('stream', '')},{name},{'x'.join(str(x) for x in a.get('grid', []))},"
            f"{'x'.join(str(x) for x in a.get('block', []))},{a.get('registers per thread', '')},"
            f"{a.get('shared memory', '')},{e['ts'] - t0:.3f},{e['dur']:.3f}")


class GemmRs:
    """gemm_rs as collectives.py's phase_fused runs it on each of n ranks: A [M, K/n] times
    B [K/n, N] into a partial C [M, N], reduce-scattered by rows into res [M/n, N]; `stream`
    cuts the GEMM into `chunks` row chunks, each reduce-scattered on the `comm` stream once
    done. `zeros`: A all zero (cuBLAS's GEMM draws less power on zeros)."""

    def __init__(self, M, N, K, n, comm, chunks=4, zeros=False, dtype=torch.bfloat16):
        self.a = (torch.zeros if zeros else torch.randn)(M, K // n, device="cuda", dtype=dtype)
        self.b = torch.randn(K // n, N, device="cuda", dtype=dtype)
        self.part = torch.empty(M, N, device="cuda", dtype=dtype)
        self.res = torch.empty(M // n, N, device="cuda", dtype=dtype)
        self.n, self.side, self.chunks, self.cr = n, comm, chunks, M // chunks

    def _chunk_gemm(self, i):
        cr = self.cr
        torch.matmul(self.a[i * cr:(i + 1) * cr], self.b, out=self.part[i * cr:(i + 1) * cr])

    def _chunk_rs(self, i, async_op=False):
        cr, n = self.cr, self.n
        return dist.reduce_scatter_tensor(self.res[i * cr // n:(i + 1) * cr // n], self.part[i * cr:(i + 1) * cr],
                                          async_op=async_op)

    def compute(self):
        torch.matmul(self.a, self.b, out=self.part)

    def comm(self):
        """The whole partial C reduce-scattered (collectives.py's `comm` row)."""
        dist.reduce_scatter_tensor(self.res, self.part)

    def pieces(self):
        for i in range(self.chunks):
            self._chunk_gemm(i)

    def comm_pieces(self):
        for i in range(self.chunks):
            self._chunk_rs(i)

    def serial(self):
        """Each chunk's GEMM then its reduce-scatter, on one stream."""
        for i in range(self.chunks):
            self._chunk_gemm(i)
            self._chunk_rs(i)

    def stream(self):
        works = []
        for i in range(self.chunks):
            self._chunk_gemm(i)
            self.side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.side):
                works.append(self._chunk_rs(i, async_op=True))
        for w in works:
            w.wait()
        torch.cuda.current_stream().wait_stream(self.side)


class AgGemm:
    """ag_gemm as collectives.py's phase_fused runs it on rank `rank` of n: A [M, K] row-sharded
    and all-gathered, B [K, N/n] local; `stream` multiplies the own shard while the others'
    arrive on the `comm` stream, then the other shards. `a_zero`: an all-zero A for
    compute_zeros."""

    def __init__(self, M, N, K, rank, n, comm, dtype=torch.bfloat16):
        self.a_shard = torch.randn(M // n, K, device="cuda", dtype=dtype)
        self.a_full = torch.randn(M, K, device="cuda", dtype=dtype)
        self.b = torch.randn(K, N // n, device="cuda", dtype=dtype)
        self.c = torch.empty(M, N // n, device="cuda", dtype=dtype)
        self.a_zero = torch.zeros(M, K, device="cuda", dtype=dtype)
        self.rank, self.n, self.side, self.rows = rank, n, comm, M // n

    def _shard_gemm(self, r):
        rows = self.rows
        torch.matmul(self.a_full[r * rows:(r + 1) * rows], self.b, out=self.c[r * rows:(r + 1) * rows])

    def compute(self):
        torch.matmul(self.a_full, self.b, out=self.c)

    def compute_zeros(self):
        torch.matmul(self.a_zero, self.b, out=self.c)

    def comm(self):
        dist.all_gather_into_tensor(self.a_full, self.a_shard)

    def pieces(self):
        for r in range(self.n):
            self._shard_gemm(r)

    def stream(self):
        rows = self.rows
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            w = dist.all_gather_into_tensor(self.a_full, self.a_shard, async_op=True)
        torch.matmul(self.a_shard, self.b, out=self.c[self.rank * rows:(self.rank + 1) * rows])
        w.wait()
        for r in range(self.n):
            if r != self.rank:
                self._shard_gemm(r)
        torch.cuda.current_stream().wait_stream(self.side)
