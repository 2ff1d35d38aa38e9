#!/usr/bin/env python3
"""How ncu counts L2 lookups that find a fill already in flight, and repeated rows (docs/cache-model.md).

Two microbenchmarks for the cache model's open questions, each row one launch under ncu (cold
L2, --cache-control all):

  burst   CTAS CTAs (one per SM) each read the same BYTES-byte buffer once, CTA i after a
          dependent spin of i * SPIN iterations (one FMA each, ~2 ns at 1.98 GHz). SPIN 0: every
          CTA asks for every sector within a few hundred ns, while the first miss is still in
          flight. If hit-on-miss-pending counts as a miss, the read hit rate stays near 0 at
          SPIN 0 and rises to (CTAS - 1) / CTAS once the stagger passes the DRAM latency
          (~400 ns, hw_profiles/h200.json); if it counts as a hit it is (CTAS-1)/CTAS
          throughout; if such requests merge before the lookup, tex read sectors fall below
          CTAS * BYTES / 32. The SPIN where the hit rate turns is the fill window in time.
  repeat  one CTA loads a ROWS x BK bf16 tile whose rows wrap modulo M (Triton's tutorial
          matmul with M < BLOCK_M), for BK in {32, 64, 128}: tex read sectors over requested
          sectors says whether repeated rows in separate load instructions reach L2 (and hit)
          or merge before it (the 16 x 4096 rows of l2_hit_corpus.csv: 0.73 at BK 32, 0.40 at
          BK 64).
  burst_dot / repeat_dot  the same two through the copies the corpus's GEMMs use: Triton's
          pipelined loop (num_stages 3) turns loads that feed tl.dot into cp.async copies to
          shared memory, which bypass L1. burst_dot: CTAS CTAs multiply the same 128 x K and
          K x 128 bf16 operands (K 4096, 1 MiB each) at BK 32/64/128 (the corpus's B lookups
          per request fall from ~0.8 at BK 32 to ~0.55 at BK 64, docs/cache-model.md);
          repeat_dot: one CTA, 256 rows wrapped modulo M = 16 or 64, BK 32/64;
          repeat_dot_n: 256 columns of B wrapped modulo N = 16 or 64 (the contiguous dim: do
          the repeats coalesce in the warp's copy? the corpus says yes at N 64, not at N 16).
          Added 2026-11-29, not yet run.

Run on the H200 from the repository root (~1 min):

  ncu --clock-control none --kernel-name regex:'burst|repeat' --csv --page raw --print-units base \\
      --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,\\
lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sector_hit_rate.pct,lts__t_sectors.sum,\\
lts__t_sectors_lookup_hit.sum,dram__bytes_read.sum,gpu__time_duration.sum \\
      python3 tests/validation/h200/ncu_pending.py > ncu_pending_raw.csv
  python3 tests/validation/h200/ncu_pending.py --parse ncu_pending_raw.csv > tests/validation/h200/ncu_pending.csv

Launches go in the order of CONFIGS; --parse pairs ncu's rows with them by launch order.
"""
import csv
import gzip
import io
import sys

BYTES = 1 << 20                      # burst: 1 MiB read by every CTA
CTAS = (2, 8, 32, 132)
SPINS = (0, 25, 50, 100, 200, 400, 800)  # dependent FMAs between consecutive CTAs' starts
REPEAT = [(16, 256, bk) for bk in (32, 64, 128)] + [(64, 256, bk) for bk in (32, 64)] + [(256, 256, 64)]

DOT_K = 4096
DOT_BKS = (32, 64, 128)
REPEAT_DOT = [(m, 256, bk) for m in (16, 64) for bk in (32, 64)]
REPEAT_DOT_N = [(n, 256, bk) for n in (16, 64) for bk in (32, 64)]  # B's columns wrapped modulo N

# New kinds go at the end: --parse pairs ncu's rows with CONFIGS by launch order, so older raw
# files (without them) still parse.
CONFIGS = ([("burst", c, s) for c in CTAS for s in SPINS] + [("repeat",) + r for r in REPEAT]
           + [("burst_dot", c, bk) for c in CTAS for bk in DOT_BKS] + [("repeat_dot",) + r for r in REPEAT_DOT]
           + [("repeat_dot_n",) + r for r in REPEAT_DOT_N])


def run():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def burst(src, out, n_bytes_half, spin, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        acc = pid.to(tl.float32) * 0.0 + 1.0
        for _ in range(pid * spin):          # dependent chain: CTA pid starts pid * spin FMAs late
            acc = acc * 1.0000001 + 1e-7
        dep = (acc < 0).to(tl.int32)         # always 0, but the loads must wait for the spin
        total = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, n_bytes_half, BLOCK):
            offs = start + tl.arange(0, BLOCK) + dep
            total += tl.load(src + offs).to(tl.float32)
        tl.store(out + pid * BLOCK + tl.arange(0, BLOCK), total)

    @triton.jit
    def repeat(a, out, M, K, ROWS: tl.constexpr, BK: tl.constexpr):
        rows = tl.arange(0, ROWS) % M        # wrapped as in the tutorial matmul
        acc = tl.zeros([ROWS, BK], dtype=tl.float32)
        for k in range(0, K, BK):
            acc += tl.load(a + rows[:, None] * K + k + tl.arange(0, BK)[None, :]).to(tl.float32)
        tl.store(out + tl.arange(0, ROWS)[:, None] * BK + tl.arange(0, BK)[None, :], acc)

    @triton.jit
    def burst_dot(a, b, out, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid = tl.program_id(0)               # every CTA reads the same a (BM x K) and b (K x BN)
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a_ptrs = a + rm[:, None] * K + rk[None, :]
        b_ptrs = b + rk[:, None] * BN + rn[None, :]
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for _ in range(0, K, BK):
            acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
            a_ptrs += BK
            b_ptrs += BK * BN
        tl.store(out + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)

    @triton.jit
    def repeat_dot(a, b, out, M, K, ROWS: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rows = tl.arange(0, ROWS) % M        # wrapped as in the tutorial matmul
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a_ptrs = a + rows[:, None] * K + rk[None, :]
        b_ptrs = b + rk[:, None] * BN + rn[None, :]
        acc = tl.zeros([ROWS, BN], dtype=tl.float32)
        for _ in range(0, K, BK):
            acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
            a_ptrs += BK
            b_ptrs += BK * BN
        tl.store(out + tl.arange(0, ROWS)[:, None] * BN + rn[None, :], acc)

    @triton.jit
    def repeat_dot_n(a, b, out, N, K, BM: tl.constexpr, COLS: tl.constexpr, BK: tl.constexpr):
        rm = tl.arange(0, BM)
        cols = tl.arange(0, COLS) % N        # B's columns wrapped, along its contiguous dim
        rk = tl.arange(0, BK)
        a_ptrs = a + rm[:, None] * K + rk[None, :]
        b_ptrs = b + rk[:, None] * N + cols[None, :]
        acc = tl.zeros([BM, COLS], dtype=tl.float32)
        for _ in range(0, K, BK):
            acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
            a_ptrs += BK
            b_ptrs += BK * N
        tl.store(out + rm[:, None] * COLS + tl.arange(0, COLS)[None, :], acc)

    dev = "cuda"
    src = torch.randn(BYTES // 2, device=dev, dtype=torch.bfloat16)
    out = torch.empty(132 * 1024, device=dev, dtype=torch.float32)
    for cfg in CONFIGS:
        if cfg[0] == "burst":
            _, ctas, spin = cfg
            burst[(ctas,)](src, out, BYTES // 2, spin, BLOCK=1024, num_warps=4)
        elif cfg[0] == "repeat":
            _, m, rows, bk = cfg
            k = 4096
            a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            o = torch.empty(rows * bk, device=dev, dtype=torch.float32)
            repeat[(1,)](a, o, m, k, ROWS=rows, BK=bk, num_warps=4)
        elif cfg[0] == "burst_dot":
            _, ctas, bk = cfg
            a = torch.randn(128, DOT_K, device=dev, dtype=torch.bfloat16)
            b = torch.randn(DOT_K, 128, device=dev, dtype=torch.bfloat16)
            o = torch.empty(ctas * 128 * 128, device=dev, dtype=torch.float32)
            burst_dot[(ctas,)](a, b, o, DOT_K, BM=128, BN=128, BK=bk, num_warps=4, num_stages=3)
        elif cfg[0] == "repeat_dot_n":
            _, n, cols, bk = cfg
            a = torch.randn(64, DOT_K, device=dev, dtype=torch.bfloat16)
            b = torch.randn(DOT_K, n, device=dev, dtype=torch.bfloat16)
            o = torch.empty(64 * cols, device=dev, dtype=torch.float32)
            repeat_dot_n[(1,)](a, b, o, n, DOT_K, BM=64, COLS=cols, BK=bk, num_warps=4, num_stages=3)
        else:
            _, m, rows, bk = cfg
            a = torch.randn(m, DOT_K, device=dev, dtype=torch.bfloat16)
            b = torch.randn(DOT_K, 64, device=dev, dtype=torch.bfloat16)
            o = torch.empty(rows * 64, device=dev, dtype=torch.float32)
            repeat_dot[(1,)](a, b, o, m, DOT_K, ROWS=rows, BN=64, BK=bk, num_warps=4, num_stages=3)
    torch.cuda.synchronize()


def parse(path):
    text = (gzip.open(path, "rt") if path.endswith(".gz") else open(path)).read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    rows = [r for r in rows if r.get("Kernel Name", "").startswith(("burst", "repeat"))]  # and the _dot ones
    w = csv.writer(sys.stdout)
    w.writerow(["kind", "a", "b", "tex_read_sectors", "tex_read_hit", "tex_read_miss", "l2_hit_pct",
                "l2_sectors", "l2_hit_sectors", "dram_read_bytes", "duration_ns", "requested_sectors"])
    for cfg, r in zip(CONFIGS, rows):
        if cfg[0] == "burst":
            requested = cfg[1] * BYTES / 32
        elif cfg[0] == "repeat":
            requested = cfg[2] * 4096 * 2 / 32
        elif cfg[0] == "burst_dot":      # A and B, 128 x K and K x 128 bf16, per CTA
            requested = cfg[1] * 2 * 128 * DOT_K * 2 / 32
        elif cfg[0] == "repeat_dot":     # ROWS x K of A (wrapped) and K x 64 of B
            requested = (cfg[2] + 64) * DOT_K * 2 / 32
        else:                            # 64 x K of A and K x COLS of B (wrapped)
            requested = (64 + cfg[2]) * DOT_K * 2 / 32
        g = lambda m: r.get(m, "")
        w.writerow([cfg[0], cfg[1], cfg[2] if cfg[0] in ("burst", "burst_dot") else f"{cfg[2]}x{cfg[3]}",
                    g("lts__t_sectors_srcunit_tex_op_read.sum"), g("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"),
                    g("lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"), g("lts__t_sector_hit_rate.pct"),
                    g("lts__t_sectors.sum"), g("lts__t_sectors_lookup_hit.sum"), g("dram__bytes_read.sum"),
                    g("gpu__time_duration.sum"), f"{requested:.0f}"])


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--parse":
        parse(sys.argv[2])
    else:
        run()
