#!/usr/bin/env python3
"""What an NCCL all-reduce costs between compute kernels, against back to back (docs/llm-decode.md).

A decode step with tensor parallelism runs each all-reduce between two GEMMs inside one CUDA
graph. There it costs about half what back-to-back all-reduces in a graph measure
(llm_decode_tp2.csv against collectives.csv). This measures both on the same GPUs, one
process per GPU (torchrun), NCCL_NVLS_ENABLE=0:

  alone    N all-reduces of S bytes back to back in one graph
  compute  N GEMMs (64 x 4096 x 4096 bf16, a decode projection) back to back
  between  N times (GEMM, all-reduce of S bytes)

Each graph is replayed R times between two CUDA events; per op: time / (R N). Reported per
size: alone_us (per all-reduce), compute_us (per GEMM), between_us (per pair) and
ar_between_us = between_us - compute_us (what the all-reduce adds between kernels); the
slower rank's medians of 5 rounds.

  NCCL_NVLS_ENABLE=0 torchrun --standalone --nproc_per_node=2 \\
      tests/validation/h200x2/ar_in_graph.py --out DIR [--ops N --replays R --name NAME]
writes DIR/ar_in_graph.csv (N 20, R 20). `--ops 570 --replays 1 --name ar_in_graph_long` times
graphs as long as collectives.py's (~20 ms of operations, one replay a round).
"""
import argparse
import csv
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "h200"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

from attention_common import capture_graph, header, replay_us  # noqa: E402

SIZES = [8 << 10, 64 << 10, 256 << 10, 1 << 20, 2 << 20, 8 << 20]
N, REPLAYS, ROUNDS = 20, 20, 5  # --ops and --replays change the first two


def per_op_us(fn, ops):
    g = capture_graph(fn)
    g.replay()
    torch.cuda.synchronize()
    rounds = []
    for _ in range(ROUNDS):
        dist.barrier()
        rounds.append(replay_us(g, REPLAYS) / ops)
    t = torch.tensor([statistics.median(rounds)], device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def main():
    global N, REPLAYS
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--ops", type=int, default=N, help="operations a graph")
    ap.add_argument("--replays", type=int, default=REPLAYS, help="replays a round")
    ap.add_argument("--name", default="ar_in_graph")
    args = ap.parse_args()
    N, REPLAYS = args.ops, args.replays
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    x = torch.randn(64, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    y = torch.empty(64, 4096, device="cuda", dtype=torch.bfloat16)
    dist.all_reduce(torch.ones(1, device="cuda"))  # the communicator, before any capture
    with torch.no_grad():
        compute = per_op_us(lambda: [torch.matmul(x, w, out=y) for _ in range(N)], N)
        rows = []
        for size in SIZES:
            buf = torch.randn(size // 2, device="cuda", dtype=torch.bfloat16)
            alone = per_op_us(lambda: [dist.all_reduce(buf) for _ in range(N)], N)

            def pairs():
                for _ in range(N):
                    torch.matmul(x, w, out=y)
                    dist.all_reduce(buf)
            between = per_op_us(pairs, N)
            rows.append([size, f"{alone:.2f}", f"{compute:.2f}", f"{between:.2f}", f"{between - compute:.2f}"])
            if rank == 0:
                print(f"{size} B: alone {alone:.2f} us, gemm {compute:.2f}, pair {between:.2f}, "
                      f"all-reduce between {between - compute:.2f}", flush=True)
    if rank == 0:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, f"{args.name}.csv"), "w", newline="") as f:
            f.write(header("tests/validation/h200x2/ar_in_graph.py", {
                "timing": f"CUDA graphs of {N} ops replayed {REPLAYS} times between events, median of {ROUNDS} "
                          "rounds, the slower rank's",
                "gemm": "torch.matmul 64 x 4096 x 4096 bf16",
            }))
            wr = csv.writer(f)
            wr.writerow(["bytes", "alone_us", "compute_us", "between_us", "ar_between_us"])
            wr.writerows(rows)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
