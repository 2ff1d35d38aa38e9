#!/usr/bin/env python3
"""ncu facts of the copy kernels torch runs around Ulysses' all-to-alls (issue 7).

collectives.py's Ulysses code (and ulysses_timeline.py) runs four strided copies per layer,
each PyTorch's non-vectorized elementwise_kernel<128, 4> (direct_copy_kernel_cuda, one
OffsetCalculator per operand), and one contiguous copy_ (cudaMemcpyAsync, not a kernel
here). On one GPU (no NCCL: the buffers are the same shapes), one call of each, warmed up,
under `ncu --profile-from-start off`; the order of the profiled kernels is CASES below.
Usage (repo root, on the H200; the metrics are ulysses_copies_ncu.csv's columns):
  M=smsp__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,...
  CUDA_VISIBLE_DEVICES=0 ncu --profile-from-start off --metrics $M --csv --page raw \
      python3 tests/validation/h200x2/ulysses_copies_ncu.py > raw.txt
The CASE lines printed before each profiled launch name the rows of ncu's raw page in order.
"""
import torch

N = 2  # devices of the corpus
SHAPES = [(32, 128, 16384), (64, 64, 16384)]  # heads, head_dim, seq


def cases(H, D, S):
    dt = torch.bfloat16
    qkv = torch.randn(3, S // N, H, D, device="cuda", dtype=dt)
    qkv_t = torch.randn(3, S // N, H, D, device="cuda", dtype=dt)
    o = torch.randn(1, H // N, S, D, device="cuda", dtype=dt)
    o_heads = torch.empty(S, H // N, D, device="cuda", dtype=dt)
    tmp = torch.randn(N, S // N, H // N, D, device="cuda", dtype=dt)
    return [
        ("in_permute", lambda: qkv.view(3, S // N, N, H // N, D).permute(2, 0, 1, 3, 4).contiguous()),
        ("heads_permute", lambda: qkv_t.view(N, 3, S // N, H // N, D).permute(1, 3, 0, 2, 4).reshape(3, H // N, S, D)),
        ("out_transpose", lambda: o_heads.copy_(o[0].transpose(0, 1))),
        ("out_permute", lambda: tmp.permute(1, 0, 2, 3).reshape(S // N, H, D)),
    ]


def main():
    for (H, D, S) in SHAPES:
        for name, fn in cases(H, D, S):
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            print(f"CASE {H} {D} {S} {name}", flush=True)
            torch.cuda.profiler.start()
            fn()
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
