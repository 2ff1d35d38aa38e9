#!/usr/bin/env python3
"""How much of the GPU's memory bandwidth a reduce-scatter needs, and how it shares it
(issue 7: beside cuBLAS's GEMM a reduce-scatter runs 1.1-1.3x longer than alone).

Each rank runs NCCL's reduce-scatter (a CUDA graph of back-to-back calls) alone, a
memory-streaming load alone, and the two at once on two streams (load launched first and
sized to last about twice as long as the reduce-scatters, so they run beside it all along).
The loads leave SMs free for NCCL's 24 CTAs, so only memory is shared:

  dram  a persistent Triton kernel of `programs` CTAs (at most one per SM, 8 warps) reading
        a 2 GiB buffer in 32 KiB blocks (reads only; its rate set by how many CTAs read)
  l2    the same kernel on a 16 MiB buffer (L2-resident: 60 MB of L2)
  copy  torch's copy_ of 1 GiB (a grid of many waves: NCCL's CTAs take SMs as its blocks
        retire; read + write, DRAM-bound)

  rs_contention.csv  rs_bytes (nccl-tests size: the input per rank), load, programs,
                     load_alone_gbps (bytes moved / time, alone), rs_alone_us (one call),
                     rs_beside_us, load_beside_gbps (the load's rate while the reduce-scatters
                     ran: its bytes less what it moved at its alone rate outside their span,
                     over that span), load_alone_us, load_beside_us; medians of 5 trials,
                     maximum over ranks for the times, minimum for the rates
rs_contention.csv (2026-11-30) was made before size_load grew its first timing: the 8 MiB
rows' loads lasted 0.4-1.1 ms, shorter than the reduce-scatters' graph, so those rows'
rs_beside_us averages calls inside and after the load (docs/network-model.md separates them);
the 64 MiB rows' loads (2.1-2.7 ms) covered it.
Usage (repo root, 2-GPU machine):
  torchrun --nproc_per_node=2 tests/validation/h200x2/rs_contention.py --out DIR
"""
import argparse
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402
import timeline as T  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

BLOCK = 16384  # bf16 elements a CTA reads an iteration: 32 KiB, 64 B a thread of 8 warps
TRIALS = 5


@triton.jit
def _read_stream(x_ptr, out_ptr, n_blocks, iters, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    b = pid
    for _ in range(iters):
        acc += tl.load(x_ptr + b.to(tl.int64) * BLOCK + offs).to(tl.float32)
        b = b + nprog
        b = tl.where(b >= n_blocks, b - n_blocks, b)
    tl.store(out_ptr + pid * BLOCK + offs, acc)


class ReadLoad:
    def __init__(self, buf, programs):
        self.buf, self.programs = buf, programs
        self.n_blocks = buf.numel() // BLOCK
        self.sink = torch.empty(programs * BLOCK, device="cuda", dtype=torch.float32)
        self.iters = 16

    def bytes(self):
        return 2.0 * BLOCK * self.iters * self.programs

    def launch(self):
        _read_stream[(self.programs,)](self.buf, self.sink, self.n_blocks, self.iters, BLOCK=BLOCK, num_warps=8)


class CopyLoad:
    def __init__(self, src, dst):
        self.src, self.dst, self.programs, self.iters = src, dst, 0, 1

    def bytes(self):
        return 2.0 * self.src.numel() * self.src.element_size() * self.iters

    def launch(self):
        for _ in range(self.iters):
            self.dst.copy_(self.src)


def event_us(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1000.0


def size_load(load, target_us):
    """Set the load's work so that it lasts about target_us alone (grown until a timing is
    long enough that the launch does not dominate it, then scaled)."""
    load.launch()
    torch.cuda.synchronize()
    t = event_us(load.launch)
    while t < target_us / 4:
        load.iters *= 4
        t = event_us(load.launch)
    load.iters = max(1, int(math.ceil(load.iters * target_us / t)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rank, n = T.init(args.out)
    sink = C.Sink(os.path.join(args.out, "rs_contention.csv"),
                  ["rs_bytes", "load", "programs", "load_alone_gbps", "rs_alone_us", "rs_beside_us",
                   "load_beside_gbps", "load_alone_us", "load_beside_us"], rank)
    dt = torch.bfloat16
    dram = torch.randn(1 << 30, device="cuda", dtype=dt)  # 2 GiB
    l2 = torch.randn(8 << 20, device="cuda", dtype=dt)  # 16 MiB
    src, dst = torch.randn(1 << 29, device="cuda", dtype=dt), torch.empty(1 << 29, device="cuda", dtype=dt)
    side = torch.cuda.Stream()
    loads = [("none", None)] + [("dram", ReadLoad(dram, p)) for p in (8, 27, 54, 108)] + \
            [("l2", ReadLoad(l2, p)) for p in (27, 108)] + [("copy", CopyLoad(src, dst))]
    for rs_bytes, calls in ((8 << 20, 30), (64 << 20, 6)):
        inp = torch.randn(rs_bytes // 2, device="cuda", dtype=dt)
        outp = torch.empty(rs_bytes // 2 // n, device="cuda", dtype=dt)

        def rs():
            dist.reduce_scatter_tensor(outp, inp)

        g = T.graph_of(rs, calls, warm_replays=2)
        rs_alone = T.timed_replays(g, calls)
        for name, load in loads:
            if load is None:
                sink.row(rs_bytes=rs_bytes, load=name, programs=0, load_alone_gbps=0, rs_alone_us=round(rs_alone, 3),
                         rs_beside_us=round(rs_alone, 3), load_beside_gbps=0, load_alone_us=0, load_beside_us=0)
                continue
            size_load(load, 2.0 * rs_alone * calls + 300.0)
            alone = statistics.median(event_us(load.launch) for _ in range(TRIALS))
            r0 = load.bytes() / (alone * 1e-6)
            rs_t, load_t, rates = [], [], []
            for _ in range(TRIALS):
                ev = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
                dist.barrier()
                torch.cuda.synchronize()
                ev[0].record()
                load.launch()
                ev[1].record()
                with torch.cuda.stream(side):
                    ev[2].record(side)
                    g.replay()
                    ev[3].record(side)
                torch.cuda.synchronize()
                t_load = ev[0].elapsed_time(ev[1]) * 1000.0
                r_from, r_to = ev[0].elapsed_time(ev[2]) * 1000.0, ev[0].elapsed_time(ev[3]) * 1000.0
                span = r_to - r_from
                rs_t.append(span / calls)
                load_t.append(t_load)
                # the load's bytes less those moved at its alone rate outside the span, over the span
                inside = min(r_to, t_load) - r_from
                rates.append((load.bytes() - r0 * 1e-6 * (t_load - inside)) / (inside * 1e-6) if inside > 0 else 0.0)
            rs_beside = C.agree_max(statistics.median(rs_t))
            load_beside = -C.agree_max(-statistics.median(rates))
            sink.row(rs_bytes=rs_bytes, load=name, programs=load.programs,
                     load_alone_gbps=round(-C.agree_max(-r0) / 1e9, 1), rs_alone_us=round(rs_alone, 3),
                     rs_beside_us=round(rs_beside, 3), load_beside_gbps=round(load_beside / 1e9, 1),
                     load_alone_us=round(C.agree_max(alone), 1), load_beside_us=round(C.agree_max(statistics.median(load_t)), 1))
        del g, inp, outp
    T.finish()


if __name__ == "__main__":
    main()
