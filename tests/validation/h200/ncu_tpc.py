#!/usr/bin/env python3
"""Do two CTAs that read the same block merge their requests when one falls behind, and does it
matter whether they share a TPC? (docs/cache-model.md, "Partners that drift apart")

One microbenchmark, each row one launch under ncu (cold L2, --cache-control all), built on
ncu_share.py's kernel:

  pair_drift  128 CTAs (one wave, one CTA an SM: the block scheduler deals a small grid
              out over the SMs first, ncu_share_smid.csv) run Triton's
              pipelined dot loop (cp.async copies into shared memory) over a 64 x 4096 bf16
              block of A, BLOCK_K 64. SHARE CTAs read the same block from launch slots STRIDE
              apart (CTA p reads block (p % STRIDE) + STRIDE * (p // (STRIDE * SHARE))); the
              block scheduler deals two consecutive slots to the two SMs of one TPC
              (ncu_share_smid.csv), so STRIDE 1 pairs share a TPC and STRIDE 2, 8 and 16 pairs
              do not (8: the same batch of 16 slots; 16: the next batch). Every reader but the
              first of its block runs EXTRA more 64 x 64 x 64 dots an iteration on the tile it
              loaded, so it falls behind its partner by EXTRA dots an iteration: with EXTRA 0
              the readers stay in lockstep (ncu_share.csv: one lookup a distinct sector for 2
              readers), with EXTRA 2 or 8 the follower reaches each k-block after its partner's
              fill has landed and looks it up itself (two lookups a sector, one of them a hit),
              unless something between the SMs and the L2 serves it. ncu's tex read lookups
              per distinct sector of A say which.

Run on the H200 from the repository root (~1 min): ncu_share.py's ncu command (its docstring),
with --kernel-name regex:pair_drift and ncu_tpc.py (--smid DIR/ncu_tpc_smid.csv) in place of
ncu_share.py, into DIR/ncu_tpc_raw.csv; then

  python3 tests/validation/h200/ncu_tpc.py --parse DIR/ncu_tpc_raw.csv > tests/validation/h200/ncu_tpc.csv

Launches go in the order of CONFIGS; --parse pairs ncu's rows with them by launch order.

  python3 tests/validation/h200/ncu_tpc.py --dispatch DIR/sm_dispatch_small.csv
  ncu --clock-control none --kernel-name regex:pair_drift --metrics gpu__time_duration.sum \
      python3 tests/validation/h200/ncu_tpc.py --dispatch DIR/sm_dispatch_small_ncu.csv
      the SM of every CTA of one-wave grids of 8-264 CTAs (GRIDS), without and under ncu: do
      grids smaller than the GPU fill the GPCs and partitions in the full grid's order
      (ncu_fabric_skinny_lrc.csv)? They do not: hw_profiles/calibrate/h200/sm_dispatch_small*.csv,
      sm_partition.py --grids, the profile's l2.grid_partition.
"""
import csv
import os
import sys

CTAS = 128
BM, BK, BN, K = 64, 64, 64, 4096
SECTORS_PER_BLOCK = BM * K * 2 // 32
CONFIGS = ([(2, stride, extra) for extra in (0, 2, 8) for stride in (1, 2, 8, 16)]
           + [(4, stride, extra) for extra in (0, 8) for stride in (1, 8)])


GRIDS = (8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 132, 160, 200, 264)
KERNEL = [None]


def run(smid_path, dispatch_path=""):
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def pair_drift(a, b, out, smid_out, K, EXTRA, SHARE: tl.constexpr, STRIDE: tl.constexpr,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid = tl.program_id(0)
        block = (pid % STRIDE) + STRIDE * (pid // (STRIDE * SHARE))
        follower = (pid // STRIDE) % SHARE != 0
        reps = tl.where(follower, EXTRA, 0)
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        bt = tl.load(b + rk[:, None] * BN + rn[None, :])
        a_ptrs = a + (block * BM + rm)[:, None] * K + rk[None, :]
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for _ in range(0, K, BK):
            at = tl.load(a_ptrs)
            acc += tl.dot(at, bt)
            for _r in range(0, reps):
                acc += tl.dot(at, bt)
            a_ptrs += BK
        tl.store(out + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)
        sm = tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=tl.int32, is_pure=False,
                                       pack=1)
        tl.store(smid_out + pid, sm)

    KERNEL[0] = pair_drift
    if dispatch_path:
        dispatch(dispatch_path)
        return
    dev = "cuda"
    b = torch.randn(BK, BN, device=dev, dtype=torch.bfloat16)
    out = torch.empty(CTAS * BM * BN, device=dev, dtype=torch.float32)
    smid = torch.full((CTAS,), -1, device=dev, dtype=torch.int32)
    rows = []
    for share, stride, extra in CONFIGS:
        a = torch.randn(CTAS // share * BM, K, device=dev, dtype=torch.bfloat16)
        pair_drift[(CTAS,)](a, b, out, smid, K, extra, SHARE=share, STRIDE=stride, BM=BM, BN=BN, BK=BK,
                            num_warps=4, num_stages=3)
        torch.cuda.synchronize()
        rows.append([share, stride, extra] + smid.tolist())
    if smid_path:
        with open(smid_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["share", "stride", "extra"] + [f"cta{i}" for i in range(CTAS)])
            w.writerows(rows)


def dispatch(path):
    """Which SM each CTA of a small one-wave grid runs on: pair_drift (SHARE 1) over grids of
    GRIDS CTAs, three launches each, no ncu; the SMs' partitions and GPCs are in
    hw_profiles/calibrate/h200/sm_partition.csv.gz and lrc_domain.csv."""
    import torch
    dev = "cuda"
    b = torch.randn(BK, BN, device=dev, dtype=torch.bfloat16)
    rows = []
    for grid in GRIDS:
        a = torch.randn(grid * BM, K, device=dev, dtype=torch.bfloat16)
        out = torch.empty(grid * BM * BN, device=dev, dtype=torch.float32)
        for rep in range(3):
            smid = torch.full((grid,), -1, device=dev, dtype=torch.int32)
            KERNEL[0][(grid,)](a, b, out, smid, K, 0, SHARE=1, STRIDE=1, BM=BM, BN=BN, BK=BK, num_warps=4, num_stages=3)
            torch.cuda.synchronize()
            rows += [[grid, rep, cta, sm] for cta, sm in enumerate(smid.tolist())]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["grid", "rep", "cta", "smid"])
        w.writerows(rows)


def parse(path):
    """ncu's raw CSV as ncu_tpc.csv: ncu_share.py's columns, EXTRA in place of the stages."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import ncu_share  # same CTAs and blocks (CTAS, BM, K)
    ncu_share.parse(path, kernel="pair_drift", configs=CONFIGS, third="extra")

if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--parse":
        parse(sys.argv[2])
    elif len(sys.argv) > 2 and sys.argv[1] == "--dispatch":
        run("", sys.argv[2])
    else:
        run(sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--smid" else "")
