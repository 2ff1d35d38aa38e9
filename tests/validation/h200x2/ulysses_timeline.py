#!/usr/bin/env python3
"""What Ulysses' `comm` and `compute` rows run (issue 7).

collectives.py's Ulysses rows time torch code, not bare NCCL calls: `comm` is the permute
copy of Q/K/V into per-destination order, the all-to-all, the all-to-all back and the copies
that put the output back in sequence order; `compute` is the copy of the received heads into
[3, heads, seq, head_dim], SDPA, and the copy of its output into the send buffer. This script
runs the same shapes, tensors and code and records each kernel:

  ulysses_timeline.csv  (ulysses_timeline_r{rank}.csv, concatenated) heads, seq, head_dim,
                        causal, mode, rank, seq_no (order on the GPU), cat (kernel or
                        gpu_memcpy), stream,
                        kernel (name), grid, block, regs, smem, start_us, dur_us: one replay of
                        a CUDA graph of 3 iterations under torch.profiler
  ulysses_pieces.csv    heads, seq, head_dim, causal, mode, time_us: CUDA-graph replay timed as
                        collectives.py does (median of 5, max over ranks)
Modes: comm (as collectives.py), compute (as collectives.py's attn), a2a (the two
all_to_all_single calls alone, on buffers already in send order), copies (the three copies
of `comm` alone).
Usage (repo root, 2-GPU machine):
  torchrun --nproc_per_node=2 tests/validation/h200x2/ulysses_timeline.py --out DIR
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives as C  # noqa: E402  (sets NCCL_NVLS_ENABLE=0 and the multicast switches)
import timeline as T  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402

ITERS = 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rank, n = T.init(args.out)
    keys = ["heads", "seq", "head_dim", "causal"]
    sink = C.Sink(os.path.join(args.out, "ulysses_pieces.csv"), keys + ["mode", "time_us"], rank)
    tl = open(os.path.join(args.out, f"ulysses_timeline_r{rank}.csv"), "w")
    tl.write("heads,seq,head_dim,causal,mode,rank,seq_no,cat," + ",".join(T.ACTIVITY_COLUMNS) + "\n")
    dt = torch.bfloat16
    t_start = time.time()
    for (H, D, S, causal) in [(32, 128, 8192, False), (32, 128, 16384, False),
                              (32, 128, 32768, False), (32, 128, 16384, True),
                              (64, 64, 16384, False)]:
        common = dict(heads=H, seq=S, head_dim=D, causal=int(causal))
        qkv = torch.randn(3, S // n, H, D, device="cuda", dtype=dt)
        qkv_t = torch.empty(3, S // n, H, D, device="cuda", dtype=dt)
        o_heads = torch.randn(S, H // n, D, device="cuda", dtype=dt)
        o_seq = torch.empty(S // n, H, D, device="cuda", dtype=dt)
        send_in = torch.randn(n, 3, S // n, H // n, D, device="cuda", dtype=dt)
        tmp_out = torch.empty(n, S // n, H // n, D, device="cuda", dtype=dt)

        def a2a_in():
            src = qkv.view(3, S // n, n, H // n, D).permute(2, 0, 1, 3, 4).contiguous()
            dist.all_to_all_single(qkv_t.view(n, 3, S // n, H // n, D), src)

        def attn():
            x = qkv_t.view(n, 3, S // n, H // n, D).permute(1, 3, 0, 2, 4).reshape(3, H // n, S, D)
            o = F.scaled_dot_product_attention(x[0][None], x[1][None], x[2][None], is_causal=causal)
            o_heads.copy_(o[0].transpose(0, 1))

        def a2a_out():
            src = o_heads.view(n, S // n, H // n, D).contiguous()
            tmp = torch.empty_like(src)
            dist.all_to_all_single(tmp, src)
            o_seq.copy_(tmp.permute(1, 0, 2, 3).reshape(S // n, H, D))

        def comm_only():
            a2a_in()
            a2a_out()

        def a2a_bare():
            dist.all_to_all_single(qkv_t.view(n, 3, S // n, H // n, D), send_in)
            dist.all_to_all_single(tmp_out, o_heads.view(n, S // n, H // n, D))

        def copies():
            send_in.copy_(qkv.view(3, S // n, n, H // n, D).permute(2, 0, 1, 3, 4))
            o_seq.copy_(tmp_out.permute(1, 0, 2, 3).reshape(S // n, H, D))

        for mode, fn in (("comm", comm_only), ("compute", attn), ("a2a", a2a_bare), ("copies", copies)):
            sink.row(mode=mode, time_us=round(C.timed_graph(fn), 3), **common)
            ks = T.replay_activities(fn, ITERS, cats=("kernel", "gpu_memcpy"))
            t0 = ks[0]["ts"] if ks else 0
            for i, e in enumerate(ks):
                tl.write(f"{H},{S},{D},{int(causal)},{mode},{rank},{i},{e['cat']},{T.activity_fields(e, t0)}\n")
            tl.flush()
        del qkv, qkv_t, o_heads, o_seq, send_in, tmp_out
        torch.cuda.empty_cache()
        if rank == 0:
            print(f"# H{H} S{S} D{D} causal {causal} done at {time.time() - t_start:.1f} s", file=sys.stderr, flush=True)
    tl.close()
    T.finish()


if __name__ == "__main__":
    main()
