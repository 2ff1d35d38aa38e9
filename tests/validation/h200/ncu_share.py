#!/usr/bin/env python3
"""Which CTAs' concurrent requests for the same sectors merge before an L2 lookup (docs/cache-model.md).

One microbenchmark, each row one launch under ncu (cold L2, --cache-control all):

  share_dot  128 CTAs (one wave, one CTA an SM) run Triton's pipelined dot loop (cp.async
             copies into shared memory, as the corpus's GEMMs load) over a 64 x 4096 bf16 block
             of A, BLOCK_K 64. SHARE CTAs read the same block: CTA p reads block
             (p % STRIDE) + STRIDE * (p // (STRIDE * SHARE)), so a block's readers are launch
             slots STRIDE apart. B is one 64 x 64 tile, loaded once before the loop. ncu's tex
             read lookups per distinct sector of A say how many of a block's SHARE requests
             reach an L2 lookup, against how far apart the readers sit in the launch order
             (the burst_dot rows of ncu_pending.py: every CTA reading the same operands, 2 / 8 /
             132 CTAs give 1.00 / 2.05 / 34.5 lookups per sector). Each CTA also writes the SM
             it ran on (%smid), kept in ncu_share_smid.csv.

Run on the H200 from the repository root (~1 min):

  ncu --clock-control none --kernel-name regex:share --csv --page raw --print-units base \\
      --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,\\
lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,\\
gpu__time_duration.sum \\
      python3 tests/validation/h200/ncu_share.py --smid DIR/ncu_share_smid.csv > DIR/ncu_share_raw.csv
  python3 tests/validation/h200/ncu_share.py --parse DIR/ncu_share_raw.csv > tests/validation/h200/ncu_share.csv

Launches go in the order of CONFIGS; --parse pairs ncu's rows with them by launch order.
"""
import csv
import io
import sys

CTAS = 128
BM, BK, BN, K = 64, 64, 64, 4096
SECTORS_PER_BLOCK = BM * K * 2 // 32
CONFIGS = [(share, stride, stages) for stages in (2, 4) for share in (2, 4, 8, 16, 32)
           for stride in (1, 2, 4, 8, 16, 32, 64) if share * stride <= CTAS]


def run(smid_path):
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def share_dot(a, b, out, smid_out, K, SHARE: tl.constexpr, STRIDE: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid = tl.program_id(0)
        block = (pid % STRIDE) + STRIDE * (pid // (STRIDE * SHARE))
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        bt = tl.load(b + rk[:, None] * BN + rn[None, :])
        a_ptrs = a + (block * BM + rm)[:, None] * K + rk[None, :]
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for _ in range(0, K, BK):
            acc += tl.dot(tl.load(a_ptrs), bt)
            a_ptrs += BK
        tl.store(out + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)
        sm = tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=tl.int32, is_pure=False,
                                       pack=1)
        tl.store(smid_out + pid, sm)

    dev = "cuda"
    b = torch.randn(BK, BN, device=dev, dtype=torch.bfloat16)
    out = torch.empty(CTAS * BM * BN, device=dev, dtype=torch.float32)
    smid = torch.full((CTAS,), -1, device=dev, dtype=torch.int32)
    rows = []
    for share, stride, stages in CONFIGS:
        a = torch.randn(CTAS // share * BM, K, device=dev, dtype=torch.bfloat16)
        share_dot[(CTAS,)](a, b, out, smid, K, SHARE=share, STRIDE=stride, BM=BM, BN=BN, BK=BK,
                           num_warps=4, num_stages=stages)
        torch.cuda.synchronize()
        rows.append([share, stride, stages] + smid.tolist())
    if smid_path:
        with open(smid_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["share", "stride", "stages"] + [f"cta{i}" for i in range(CTAS)])
            w.writerows(rows)


def parse(path, kernel="share", configs=CONFIGS, third="stages"):
    """ncu's raw CSV at `path` as this script's CSV on stdout: the `kernel` launches, paired with
    `configs` (share, stride, and a third field named `third`) by launch order. ncu_tpc.py's
    --parse uses it too."""
    lines = [l for l in open(path).read().splitlines() if l.startswith('"')]
    rows = [r for r in csv.DictReader(io.StringIO("\n".join(lines))) if r.get("Kernel Name", "").startswith(kernel)]
    w = csv.writer(sys.stdout)
    w.writerow(["share", "stride", third, "tex_read_sectors", "tex_read_hit", "tex_read_miss", "l2_hit_pct",
                "dram_read_bytes", "duration_ns", "requested_sectors", "distinct_sectors"])
    for (share, stride, other), r in zip(configs, rows):
        g = lambda m: r.get(m, "").replace(",", "")
        w.writerow([share, stride, other, g("lts__t_sectors_srcunit_tex_op_read.sum"),
                    g("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"),
                    g("lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"), g("lts__t_sector_hit_rate.pct"),
                    g("dram__bytes_read.sum"), g("gpu__time_duration.sum"),
                    CTAS * SECTORS_PER_BLOCK, CTAS // share * SECTORS_PER_BLOCK])

if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--parse":
        parse(sys.argv[2])
    else:
        run(sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--smid" else "")
