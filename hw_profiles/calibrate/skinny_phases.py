#!/usr/bin/env python3
"""How far apart are the tiles of a one-wave skinny GEMM inside their K loop, and how many of
their requests does the L2 request coalescer merge?

The cache model misses the one-wave skinny grids most among one-wave rows (docs/cache-model.md,
"Reads of present blocks merge too"): every tile reads the one block of the narrow operand, and
ncu counts most of those reads merged (8192 x 128 x 8192 64 x 128 x 64 at 5 stages: 0.37 lookups
a requested sector of B), where the model's tiles spread past its merge windows. Two
measurements of the corpus's configs (tests/validation/h200/l2_hit_corpus.csv):

  phases  the corpus kernel (Triton tutorial 03) with %globaltimer read at the start, after
          the MMA of iterations K/4, K/2 and 3K/4 (read every iteration, kept at those three:
          no branch in the loop) and at the end, plus %smid; three cold launches each (L2
          flushed by writing 256 MiB first). The registers and time of each config are
          printed beside the corpus's (triton_gemm.csv) to show how little the timer moves
          them. -> DIR/skinny_phases.csv
  lrc     the corpus kernel itself under ncu (cold L2, --cache-control all): the sectors the
          request coalescer returns to the GPCs (lrc__xbar2gpc_sectors_op_read), those it reads
          from the L2 slices (lrc__lts2lrc_sectors_op_read), the slices' tex read lookups and
          hits, the hit rate and DRAM reads. -> DIR/skinny_lrc_raw.csv, parsed to
          skinny_lrc.csv

On the H200, from the repository root (~1 min):
  python3 hw_profiles/calibrate/skinny_phases.py --out DIR
Anywhere:
  python3 hw_profiles/calibrate/skinny_phases.py --parse-lrc DIR/skinny_lrc_raw.csv > skinny_lrc.csv
  python3 hw_profiles/calibrate/skinny_phases.py --spread h200/skinny_phases.csv.gz
    per config: the iteration, and how far apart the tiles are after each quarter (sd and
    p10-p90 of their times there less the median, in iterations), beside the same at the start
  python3 hw_profiles/calibrate/skinny_phases.py --compare h200/skinny_lrc.csv h200/skinny_phases.csv.gz
    [--cli build/bin/tilesight-cli]: the tiles' spread at K/2 beside ncu's lookups and hit rate
    and the model's (docs/cache-model.md, "Where the tiles of a one-wave grid are")
Measured 2026-12-01: h200/skinny_phases.csv.gz, h200/skinny_lrc.csv (raw: skinny_lrc_raw.csv.gz;
an earlier ncu run of the first 15 configs: skinny_lrc_run1_raw.csv.gz).
  python3 hw_profiles/calibrate/skinny_phases.py --set stages --out DIR
    the same two measurements on one-wave 2048 x 2048 grids at 2-5 stages (and two more)
    -> DIR/stages_phases.csv, DIR/stages_lrc.csv (~45 s)
  python3 hw_profiles/calibrate/skinny_phases.py --pairs h200/stages_phases.csv.gz
    per launch: how far apart the tiles that read one block of A (a row of C's tiles) and of B
    (a column) are after each quarter, and at K/2 by where they ran (same SM, same GPC: the
    request coalescer's merge domains of h200/lrc_domain.csv, another GPC)
Measured 2026-12-02: h200/stages_phases.csv.gz, h200/stages_lrc.csv (raw: stages_lrc_raw.csv.gz).
  python3 hw_profiles/calibrate/skinny_phases.py --set grid --out DIR
    a row of 64 x 64 tiles sharing A (M = 64), each its own B, on 8-128 CTAs at 2 and 5 stages
    -> DIR/grid_phases.csv, DIR/grid_lrc.csv (~40 s)

  python3 hw_profiles/calibrate/skinny_phases.py --set onetile --out DIR
    many-wave group-1 loops of one tile an SM at 3-5 stages (and a group-8 twin)
    -> DIR/onetile_phases.csv, DIR/onetile_lrc.csv (~30 s)
  python3 hw_profiles/calibrate/skinny_phases.py --gaps h200/onetile_phases.csv.gz h200/onetile_lrc.csv
    per launch: the time since the nearest earlier reader of each block (all, and in the same
    GPC), beside the coalescer's merged share (docs/cache-model.md, "Convoys of one-tile loops")
Measured 2026-12-04: h200/onetile_phases.csv.gz, h200/onetile_lrc.csv (raw: onetile_lrc_raw.csv.gz).
  python3 hw_profiles/calibrate/skinny_phases.py --set square --out DIR
    one-wave 2-D grids on 1024 x 1024 whose lookups the model reads high, and the 256-tile skinny
    grids of 64 x 64 tiles -> DIR/square_phases.csv, DIR/square_lrc.csv (~30 s)
  python3 hw_profiles/calibrate/skinny_phases.py --set rows --out DIR
    one-wave grids of 128 CTAs whose rows hold 2, 8, 32 or 128 tiles, BLOCK_K 32 at 2 and 3 stages, 64 at 2:
    A's 64-byte rows merging by the row's length -> DIR/rows_phases.csv, DIR/rows_lrc.csv
  python3 hw_profiles/calibrate/skinny_phases.py --wave-spread h200/convoys_phases.csv.gz
    per many-wave launch, the spread of waves 1-8 at their CTAs' start, quarters and end: a
    wave that starts spread out does not close up inside its tiles (2026-12-06, H200: the spread
    grows by a median 0.035 tile from start to end, 3 of 29 waves shrink, by 0.016 at most;
    H100, h100/convoys_phases.csv.gz: 0.056, none of 29 shrinks)
  python3 hw_profiles/calibrate/skinny_phases.py --sm-load h200/stages_phases.csv.gz [--cli ...]
    per one-wave launch: the tile time of CTAs on SMs that ran one CTA fewer (their lead), and
    how far the most loaded SMs' CTAs part by their end, beside the model's own speeds
  python3 hw_profiles/calibrate/skinny_phases.py --set convoys --out DIR
    many-wave group-1 2-stage loops (deep K, and the waves set's M x 16384 x 16384): whether a
    tile that starts behind catches up inside its tile -> DIR/convoys_phases.csv,
    DIR/convoys_lrc.csv
Measured 2026-12-06: h200/convoys_phases.csv.gz, h200/convoys_lrc.csv (raw: convoys_lrc_raw.csv.gz);
an H100 run of the same (asked for an H200): h100/convoys_phases.csv.gz, h100/convoys_lrc.csv.

CSV (phases): M, N, K, block_m, block_n, block_k, group_m, stages, warps, rep, pid, smid,
              t_start_ns, t_q1_ns, t_q2_ns, t_q3_ns, t_end_ns (after the launch's earliest start)
CSV (lrc):    M, N, K, block_m, block_n, block_k, group_m, stages, warps, xbar2gpc_sectors,
              lts2lrc_sectors, tex_read_sectors, tex_read_hit_sectors, l2_hit_pct,
              dram_read_bytes, duration_ns, requested_sectors (A and B tiles, bf16)
"""
import argparse
import collections
import csv
import gzip
import io
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# (M, N, K, block_m, block_n, block_k, group_m, stages, warps): one-wave skinny corpus rows, the
# model's hit rate against ncu's (2026-12-01) in the comment, and two square grids to compare.
CONFIGS = [
    (8192, 128, 8192, 64, 128, 64, 8, 5, 8),    # ncu 28.4%, model 53.6
    (8192, 128, 8192, 64, 128, 64, 1, 2, 4),    # 46.4, 51.1
    (8192, 128, 8192, 64, 128, 32, 1, 2, 4),    # 51.7, 50.8 (BLOCK_K 32: few merges)
    (8192, 128, 8192, 64, 128, 32, 1, 5, 4),    # 47.5, 51.1
    (8192, 128, 8192, 128, 64, 128, 8, 4, 8),   # 21.8, 41.6
    (8192, 128, 8192, 128, 64, 32, 1, 2, 4),    # 37.0, 39.2
    (8192, 128, 8192, 256, 64, 32, 8, 3, 4),    # 43.0, 29.5 (the other way)
    (128, 8192, 8192, 128, 64, 128, 8, 4, 8),   # 32.8, 53.6
    (128, 8192, 8192, 256, 64, 64, 1, 3, 4),    # 52.6, 53.6
    (8192, 64, 4096, 64, 64, 128, 1, 3, 4),     # 17.4, 35.8
    (8192, 64, 4096, 64, 64, 32, 1, 2, 4),      # 35.5, 34.3
    (16, 4096, 4096, 64, 64, 32, 1, 2, 4),      # 16.1, 34.3
    (64, 4096, 8192, 256, 64, 64, 1, 3, 4),     # 50.1, 34.0 (the other way)
    (4096, 4096, 4096, 128, 128, 64, 8, 4, 4),  # square, four waves
    (4096, 4096, 4096, 64, 128, 32, 1, 2, 4),   # square, group 1
    (4096, 16, 4096, 128, 64, 32, 1, 2, 4),     # 18.9, 18.4 (right)
    (4096, 16, 4096, 64, 256, 64, 1, 2, 4),     # 57.5, 67.2
    (128, 8192, 8192, 64, 128, 32, 1, 2, 4),    # 44.5, 41.6
    (64, 4096, 8192, 128, 64, 32, 1, 2, 4),     # 42.2, 50.5
    (1024, 1024, 1024, 64, 128, 64, 8, 5, 8),   # 61.8, 77.3
]
# --set stages: one-wave and few-wave grids of the corpus kernel at 2-5 stages, where the request
# coalescer merges 0.26-0.38 of the reads at 2-3 stages and 0.05-0.14 at 4-5
# (tests/validation/h200/ncu_stages_lrc_facts.csv) and the model 0.48-0.50 at every depth.
STAGE_CONFIGS = (
    [(2048, 2048, 32768, 128, 128, 32, 1, s, 4) for s in (2, 3, 4, 5)]
    + [(2048, 2048, 32768, 64, 128, 32, 1, s, 8) for s in (2, 3, 4, 5)]
    + [(2048, 2048, 32768, 64, 128, 32, 1, s, 4) for s in (2, 3, 4, 5)]
    + [(2048, 2048, 8192, 64, 128, 32, 1, s, 4) for s in (2, 3, 4, 5)]
    + [(2048, 2048, 32768, 128, 128, 64, 1, s, 4) for s in (2, 3, 4)]
    + [(4096, 4096, 4096, 128, 128, 64, 1, s, 4) for s in (3, 5)]
    + [(16, 4096, 4096, 64, 128, 32, 1, s, 4) for s in (2, 5)]
)
# --set grid: tiles that share A's one block (M = 64, one row of 64 x 64 tiles), each its own B,
# on 8-128 CTAs: ncu counts 8 CTAs merging as one burst and 64 merging half as well
# (tests/validation/h200/ncu_wrapped_grid.csv); how far apart do they run, and does it grow with
# the CTAs (the DRAM's load) or with k? Plus the wrapped 64-byte rows (M = 16, BLOCK_K 32) at 5
# stages, whose lookups double on 64 CTAs.
GRID_CONFIGS = (
    [(64, 64 * n, 4096, 64, 64, 64, 1, s, 4) for n in (8, 16, 32, 64, 128) for s in (2, 5)]
    + [(64, 64 * n, 16384, 64, 64, 64, 1, 2, 4) for n in (8, 64)]
    + [(16, 64 * n, 4096, 64, 64, 32, 1, 5, 4) for n in (8, 64)]
)
# --set gridwide: held out 4's 32-row A (64-byte rows wrapped twice under 64-row tiles) on 64-344
# CTAs, whose L2 lookups a CTA grow with the CTAs (tests/validation/h200/ncu_wrapped_gridwide.csv).
GRIDWIDE_CONFIGS = [(32, 64 * n, 4096, 64, 64, 32, 1, s, 4) for n in (64, 172, 344) for s in (2, 5)]
# --set onetile: many-wave group-1 loops of one tile an SM at 3-5 stages. Under ncu the 256 x 64 x 64
# ones look up 0.60-0.73 of their requested sectors (A, read by the whole wave, 0.8 of them) where the
# model looks up 0.79-0.95; 128 x 128 x 64 at 5 stages 0.85-0.95, as the model. How close in time do
# the tiles sharing a block of A read it, and how much does the request coalescer merge? With a
# group-8 twin, whose merges the model gets right.
ONETILE_CONFIGS = (
    [(8192, 8192, 8192, 256, 64, 64, 1, s, 4) for s in (3, 4, 5)]
    + [(8192, 8192, 8192, 128, 128, 64, 1, 5, 4), (8192, 8192, 8192, 64, 256, 64, 1, 5, 4),
       (8192, 8192, 8192, 256, 64, 64, 8, 5, 4)]
    + [(4096, 14336, 4096, 256, 64, 64, 1, s, 4) for s in (3, 5)]
    + [(4096, 14336, 4096, 128, 128, 64, 1, 5, 4), (768, 24576, 6144, 256, 64, 64, 1, 4, 4)]
)
# --set convoys: many-wave group-1 2-stage loops whose DRAM reads ncu counts 20-30% under what two
# LRU partitions give over their traced starts at an even pace within each tile
# (tests/validation/h200/lru_traced.py), and the waves set's loops whose convoys part over the waves
# (l2_hit_waves.csv). Does a tile that starts behind its column's partners catch up inside its
# tile (their blocks hit), as the quarter timestamps would show?
CONVOY_CONFIGS = (
    [(8192, 8192, 28672, 128, 256, 128, 1, 2, 8), (4096, 16384, 16384, 64, 256, 64, 1, 2, 4)]
    + [(m, 16384, 16384, 64, 64, 32, 1, 2, 4) for m in (2048, 4096)]
    + [(m, 16384, 16384, 64, 128, 32, 1, 2, w) for m in (2048, 4096) for w in (4, 8)]
)
# --set square: one-wave 2-D grids on 1024 x 1024 (64-128 CTAs, both operands shared) whose read
# lookups ncu counts flat in the stages and K (l2_hit_corpus.csv, day 1 and day 2 within 0.02 a
# requested sector) and 0.1-0.28 under the model's (session 49: 128 x 128 x 32 ncu 0.65, model
# 0.84-0.86; 128 x 64 x 32 0.51 / 0.73-0.79; 64 x 256 x 64 0.46 / 0.67; 256 x 64 x 64 0.44 /
# 0.53-0.60), with 128 x 128 x 64 at 2 stages as a control the model reads right (0.65 / 0.70);
# and the 256-tile skinny grids of 64 x 64 tiles (two CTAs an SM) whose shared operand's reads
# stay merged where the model's own speeds would part them (session 48).
SQUARE_CONFIGS = (
    [(1024, 1024, 16384, 128, 128, 32, 1, 3, 4), (1024, 1024, 16384, 128, 128, 32, 1, 5, 4),
     (1024, 1024, 16384, 128, 64, 32, 1, 2, 4), (1024, 1024, 16384, 128, 64, 32, 1, 3, 4),
     (1024, 1024, 16384, 64, 256, 64, 1, 2, 4), (1024, 1024, 16384, 256, 64, 64, 1, 3, 4),
     (1024, 1024, 16384, 128, 128, 64, 1, 2, 8), (1024, 1024, 16384, 64, 128, 64, 1, 2, 4)]
    + [(8192, 128, 8192, 64, 64, 32, 1, 2, 4), (8192, 128, 8192, 64, 64, 128, 1, 3, 4),
       (128, 8192, 8192, 64, 64, 32, 1, 2, 4), (128, 8192, 8192, 64, 64, 128, 1, 3, 4)]
)
# --set rows: one-wave grids of 128 CTAs (one an SM) whose rows of C hold 2, 8, 32 or 128 tiles (M x N =
# 8192 x 128 ... 128 x 8192 under 128 x 64 tiles): how A's 64-byte rows (BLOCK_K 32) merge among a
# row's neighbours, by the row's length, at 2 and 3 stages; BLOCK_K 64 (whole lines) beside them at 2.
# B's readers, a column 2-64 launch positions apart, part (--set square), so A's share is what is
# left of the lookups after one lookup for each of B's requests.
ROWS_CONFIGS = (
    [(128 * 128 // gn, 64 * gn, 16384, 128, 64, bk, 1, s, 4) for gn in (2, 8, 32, 128)
     for bk, s in ((32, 2), (32, 3), (64, 2))]
)
SETS = {"skinny": CONFIGS, "stages": STAGE_CONFIGS, "grid": GRID_CONFIGS, "gridwide": GRIDWIDE_CONFIGS,
        "onetile": ONETILE_CONFIGS, "convoys": CONVOY_CONFIGS, "square": SQUARE_CONFIGS,
        "rows": ROWS_CONFIGS}
LRC_METRICS = ("lrc__xbar2gpc_sectors_op_read.sum,lrc__lts2lrc_sectors_op_read.sum,"
               "lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,"
               "lts__t_sector_hit_rate.pct,dram__bytes_read.sum,gpu__time_duration.sum,launch__grid_size")
KEY = ("M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps")


def kernels():
    """The quartered kernel (needs a GPU and Triton)."""
    import triton
    import triton.language as tl
    sys.path.insert(0, HERE)
    from cta_skew import _globaltimer, _smid  # the same %globaltimer and %smid reads

    # The tutorial kernel of tests/validation/h200/triton_gemm_sweep.py with timestamps after
    # a quarter, half and three quarters of its K loop; t_ptr holds start, q1, q2, q3, end and
    # SM per CTA.
    @triton.jit
    def quartered_matmul_kernel(a_ptr, b_ptr, c_ptr, t_ptr, M, N, K,
                                stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                GROUP_M: tl.constexpr):
        t0 = _globaltimer()
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        steps = tl.cdiv(K, BLOCK_K)
        t1 = t0
        t2 = t0
        t3 = t0
        for k in range(0, steps):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
            now = _globaltimer()
            t1 = tl.where(k == steps // 4, now, t1)
            t2 = tl.where(k == steps // 2, now, t2)
            t3 = tl.where(k == 3 * steps // 4, now, t3)
        c = accumulator.to(tl.bfloat16)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)
        tl.store(t_ptr + pid * 6, t0)
        tl.store(t_ptr + pid * 6 + 1, t1)
        tl.store(t_ptr + pid * 6 + 2, t2)
        tl.store(t_ptr + pid * 6 + 3, t3)
        tl.store(t_ptr + pid * 6 + 4, _globaltimer())
        tl.store(t_ptr + pid * 6 + 5, _smid().to(tl.int64))

    return quartered_matmul_kernel


def phases(out, configs=CONFIGS, prefix="skinny"):
    import torch
    import triton
    sys.path.insert(0, HERE)
    from envinfo import header_lines
    kernel = kernels()
    flush = torch.empty(256 * 2**20, device="cuda", dtype=torch.int8)
    with open(os.path.join(out, f"{prefix}_phases.csv"), "w", newline="") as f:
        f.write(header_lines("hw_profiles/calibrate/skinny_phases.py"))
        w = csv.writer(f)
        w.writerow(list(KEY) + ["rep", "pid", "smid", "t_start_ns", "t_q1_ns", "t_q2_ns", "t_q3_ns", "t_end_ns"])
        for cfg in configs:
            M, N, K, bm, bn, bk, gm, st, wp = cfg
            a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
            t = torch.zeros(tiles * 6, device="cuda", dtype=torch.int64)

            def launch():
                return kernel[(tiles,)](a, b, c, t, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                        c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=gm,
                                        num_stages=st, num_warps=wp)
            try:
                k = launch()
                torch.cuda.synchronize()
                for rep in range(3):
                    flush.zero_()
                    t.zero_()
                    launch()
                    torch.cuda.synchronize()
                    v = t.view(tiles, 6).cpu().tolist()
                    base = min(r[0] for r in v)
                    for pid, r in enumerate(v):
                        w.writerow(list(cfg) + [rep, pid, r[5]] + [x - base for x in r[:5]])
                    span = (max(r[4] for r in v) - base) / 1000
                    print(cfg, "rep", rep, "regs", k.n_regs, "spills", getattr(k, "n_spills", "?"), f"span {span:.1f} us", flush=True)
            except Exception as e:  # noqa: BLE001
                print("skip", cfg, type(e).__name__, e, flush=True)
            f.flush()
            del a, b, c, t
            torch.cuda.empty_cache()


def target(configs=CONFIGS):
    """Launches each config once with the corpus kernel, in the set's order (under ncu)."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tests", "validation", "h200"))
    from triton_gemm_sweep import launch
    for M, N, K, bm, bn, bk, gm, st, wp in configs:
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        launch(a, b, c, dict(block_m=bm, block_n=bn, block_k=bk, group_m=gm, stages=st, warps=wp))
        torch.cuda.synchronize()
        del a, b, c


def lrc(out, name="skinny"):
    raw = os.path.join(out, f"{name}_lrc_raw.csv")
    with open(raw, "w") as f:
        subprocess.run(["ncu", "--clock-control", "none", "--kernel-name", "regex:matmul_kernel", "--metrics",
                        LRC_METRICS, "--csv", "--page", "raw", "--print-units", "base",
                        sys.executable, os.path.abspath(__file__), "--target", "--set", name], stdout=f, check=True)
    with open(os.path.join(out, f"{name}_lrc.csv"), "w", newline="") as f:
        parse_lrc(raw, f, SETS[name])


def parse_lrc(path, out=sys.stdout, configs=CONFIGS):
    text = (gzip.open(path, "rt") if path.endswith(".gz") else open(path)).read()
    rows = list(csv.DictReader(io.StringIO("\n".join(l for l in text.splitlines() if l.startswith('"')))))
    rows = [r for r in rows if r.get("Kernel Name", "").startswith("matmul_kernel")]
    w = csv.writer(out)
    w.writerow(list(KEY) + ["xbar2gpc_sectors", "lts2lrc_sectors", "tex_read_sectors", "tex_read_hit_sectors",
                            "l2_hit_pct", "dram_read_bytes", "duration_ns", "requested_sectors"])
    num = lambda r, m: r.get(m, "").replace(",", "")  # noqa: E731
    for cfg, r in zip(configs, rows):
        M, N, K, bm, bn = cfg[:5]
        grid = -(-M // bm) * -(-N // bn)
        if num(r, "launch__grid_size") not in ("", str(grid)):
            raise SystemExit(f"launch order mismatch at {cfg}: grid {num(r, 'launch__grid_size')}")
        w.writerow(list(cfg) + [num(r, m) for m in (
            "lrc__xbar2gpc_sectors_op_read.sum", "lrc__lts2lrc_sectors_op_read.sum",
            "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
            "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "gpu__time_duration.sum")]
            + [grid * (bm + bn) * K * 2 // 32])


def spread(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    runs = collections.defaultdict(list)
    for r in rows:
        runs[tuple(int(r[k]) for k in KEY + ("rep",))].append([int(r[c]) for c in (
            "t_start_ns", "t_q1_ns", "t_q2_ns", "t_q3_ns", "t_end_ns")])
    walks = {True: [], False: []}  # 2 stages or more: each one-wave launch's walk coefficient
    for key, tiles in sorted(runs.items()):
        steps = -(-key[2] // key[5])
        iteration = statistics.median((t[3] - t[1]) / (steps / 2) for t in tiles)
        cols, sds = [], []
        for q in range(5):
            at = sorted(t[q] for t in tiles)
            mid = at[len(at) // 2]
            off = [(x - mid) / iteration for x in at]
            sds.append(statistics.pstdev(off))
            cols.append(f"{sds[-1]:5.2f}/{off[int(0.9 * len(off))] - off[int(0.1 * len(off))]:5.2f}")
        # A random walk's sd grows as a sqrt(k): a by least squares of sd^2 = a^2 k over the
        # quarters (k = steps / 4 .. steps iterations into the loop).
        ks = [steps * q / 4 for q in range(1, 5)]
        walk = (sum(sd * sd * k for sd, k in zip(sds[1:], ks)) / sum(k * k for k in ks)) ** 0.5
        if len(tiles) >= 16 and key[9] == 0 and sds[0] < 1:  # one wave: its tiles start at once
            walks[key[7] == 2].append(walk)
        print(f"{key[0]}x{key[1]}x{key[2]} {key[3]}x{key[4]}x{key[5]} g{key[6]} s{key[7]} w{key[8]} rep {key[9]}: "
              f"{len(tiles)} tiles, iteration {iteration:.0f} ns; sd/p10-p90 (iterations) start {cols[0]} "
              f"q1 {cols[1]} q2 {cols[2]} q3 {cols[3]} end {cols[4]}; a walk of {walk:.3f} sqrt(k)")
    for two, name in ((True, "2 stages"), (False, "3-5 stages")):
        if walks[two]:
            print(f"{name}: {len(walks[two])} one-wave launches of 16+ tiles, walk coefficient median "
                  f"{statistics.median(walks[two]):.3f}, range {min(walks[two]):.3f}-{max(walks[two]):.3f}")


def tile_of(pid, M, N, bm, bn, gm):
    """(pid_m, pid_n) of a program id in the tutorial kernel's grouped order."""
    num_m, num_n = -(-M // bm), -(-N // bn)
    group = pid // (gm * num_n)
    first_m = group * gm
    size_m = min(num_m - first_m, gm)
    return first_m + (pid % (gm * num_n)) % size_m, (pid % (gm * num_n)) // size_m


def gpc_of_sm():
    """SM -> its GPC (the lowest SM of its merge domain), from h200/lrc_domain.csv."""
    groups = collections.defaultdict(set)
    with open(os.path.join(HERE, "h200", "lrc_domain.csv")) as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            leader = int(r.get("leader_sm", "0"))
            groups[leader].add(leader)
            if float(r["merged_share"]) > 0.5:
                groups[leader].add(int(r["follower_sm"]))
    return {sm: min(g) for g in groups.values() for sm in g}


def pairs(path):
    """Per launch: how far apart, in iterations of the median tile, the tiles that read the same
    block of A (one row of C's tiles) and of B (one column) are after K/4, K/2 and 3K/4 of their
    loop (median and 75th percentile of |t_i - t_j| over every pair), the share of pairs within
    1 and 2 iterations at K/2, and the tiles' time spread (sd of end - start over the median)."""
    import itertools
    gpc = gpc_of_sm()
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    runs = collections.defaultdict(list)
    for r in rows:
        runs[tuple(int(r[k]) for k in KEY + ("rep",))].append(
            (int(r["pid"]), int(r["smid"]), *(int(r[c]) for c in ("t_start_ns", "t_q1_ns", "t_q2_ns", "t_q3_ns", "t_end_ns"))))
    print("config rep: tiles/SM, iteration ns, tile time sd %; A sharers |dt| median/p75 at K/4, K/2, 3K/4 (iterations), "
          "share within 1 / 2 at K/2, median at K/2 on one SM / one GPC / other GPCs; the same for B sharers")
    for key, tiles in sorted(runs.items()):
        M, N, K, bm, bn, bk, gm = key[:7]
        steps = -(-K // bk)
        it = statistics.median((t[5] - t[3]) / (steps / 2) for t in tiles)
        first_end = min(t[6] for t in tiles)
        wave = [t for t in tiles if t[2] < first_end]  # started before any ended: the first wave
        per_sm = len(wave) / max(1, len({t[1] for t in wave}))
        dur = [t[6] - t[2] for t in tiles]
        sd = 100 * statistics.pstdev(dur) / statistics.median(dur)
        out = []
        for axis in (0, 1):
            groups = collections.defaultdict(list)
            for t in tiles:
                groups[tile_of(t[0], M, N, bm, bn, gm)[axis]].append(t)
            cols, near, where = [], "", {"SM": [], "GPC": [], "other": []}
            for g in groups.values():
                for x, y in itertools.combinations(g, 2):
                    k = "SM" if x[1] == y[1] else "GPC" if gpc.get(x[1]) == gpc.get(y[1]) else "other"
                    where[k].append(abs(x[4] - y[4]) / it)
            for q in (3, 4, 5):
                d = sorted(abs(x[q] - y[q]) / it for g in groups.values() for x, y in itertools.combinations(g, 2))
                if not d:
                    cols.append("-")
                    continue
                cols.append(f"{d[len(d) // 2]:.1f}/{d[int(0.75 * len(d))]:.1f}")
                if q == 4:
                    near = f"{sum(x < 1 for x in d) / len(d):.2f}/{sum(x < 2 for x in d) / len(d):.2f}"
            by = " ".join(f"{k} {statistics.median(v):.1f}" for k, v in where.items() if v)
            out.append(" ".join(cols) + f" [{near}] at K/2 by place: {by}")
        print(f"{M}x{N}x{K} {bm}x{bn}x{bk} g{gm} s{key[7]} w{key[8]} rep {key[9]}: {per_sm:.1f}/SM, {it:.0f} ns, "
              f"sd {sd:.1f}%; A {out[0]}; B {out[1]}")


def compare(lrc_path, phases_path, cli):
    """Per config of the lrc CSV: the tiles' spread at K/2 (phases CSV), ncu's lookups a
    requested sector and hit rate, and TileSight's (`tilesight-cli predict`)."""
    import json
    with open(phases_path, "rb") as f:
        raw = f.read()
    text = gzip.decompress(raw).decode() if phases_path.endswith(".gz") else raw.decode()
    runs = collections.defaultdict(list)
    for r in csv.DictReader(l for l in text.splitlines() if not l.startswith("#")):
        runs[tuple(int(r[k]) for k in KEY)].append((r["rep"], int(r["t_q1_ns"]), int(r["t_q2_ns"]), int(r["t_q3_ns"])))
    with open(lrc_path) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    print("config: iteration, tiles apart at K/2 (sd over the launch's tiles: iterations, us); ncu and model "
          "lookups a requested sector; ncu and model hit rate")
    for r in rows:
        key = tuple(int(r[k]) for k in KEY)
        steps = -(-key[2] // key[5])
        sds, its = [], []
        for rep in sorted({t[0] for t in runs[key]}):
            tiles = [t for t in runs[key] if t[0] == rep]
            it = statistics.median((t[3] - t[1]) / (steps / 2) for t in tiles)
            mid = statistics.median(t[2] for t in tiles)
            sds.append(statistics.pstdev([(t[2] - mid) / it for t in tiles]))
            its.append(it)
        plan = {"kernel": "gemm", "hardware": "h200", "params": {**dict(zip(KEY, key)), "dtype": "bf16"}}
        out = json.loads(subprocess.run([cli, "predict", "--format", "json", "-"], input=json.dumps(plan),
                                        capture_output=True, text=True, check=True).stdout)
        ab = [t for t in out["tensors"] if t["tensor"] in ("A", "B")]
        model = 1 - sum(t.get("l2_merged_bytes", 0) for t in ab) / sum(t["requested_bytes"] for t in ab)
        it = statistics.median(its) if its else float("nan")
        spread_ = f"{min(sds):.2f}-{max(sds):.2f} it ({min(sds) * it / 1000:.2f}-{max(sds) * it / 1000:.2f} us)" if sds else "-"
        print(f"{key[0]}x{key[1]}x{key[2]} {key[3]}x{key[4]}x{key[5]} g{key[6]} s{key[7]} w{key[8]}: {it:.0f} ns, "
              f"{spread_}; lookups {int(r['lts2lrc_sectors']) / int(r['requested_sectors']):.2f} / {model:.2f}; "
              f"hit {float(r['l2_hit_pct']):.1f} / {100 * out['l2_hit_rate']:.1f}")


def gaps(path, lrc_path=None):
    """Per launch: for each tile that reads a block of A (B) after another tile did, the time since
    the nearest earlier reader of that block (its t_q - theirs, at K/4, K/2 and 3K/4), pooled: the
    share within 34 ns (the hit window, lrc_window.py --fine), 100, 300 and 1000 ns, and the median;
    the same for readers in the same GPC as that earlier one (the coalescer's merge domain). Beside
    it, with an lrc CSV of the same set, the share the coalescer merged (1 - lts2lrc / xbar2gpc)."""
    gpc = gpc_of_sm()
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    merged = {}
    if lrc_path:
        with open(lrc_path) as f:
            for r in csv.DictReader(l for l in f if not l.startswith("#")):
                if r["xbar2gpc_sectors"] and float(r["xbar2gpc_sectors"]) > 0:
                    merged[tuple(int(r[k]) for k in KEY)] = (
                        1 - float(r["lts2lrc_sectors"]) / float(r["xbar2gpc_sectors"]),
                        float(r["tex_read_sectors"]) / float(r["requested_sectors"]), float(r["l2_hit_pct"]))
    runs = collections.defaultdict(list)
    for r in rows:
        runs[tuple(int(r[k]) for k in KEY + ("rep",))].append(
            (int(r["pid"]), int(r["smid"]), *(int(r[c]) for c in ("t_q1_ns", "t_q2_ns", "t_q3_ns"))))
    print("config: nearest earlier reader of the same block at K/4, K/2, 3K/4, all reps pooled: share within "
          "34 / 100 / 300 / 1000 ns, median ns; [the same GPC only]; ncu: merged share, lookups a requested sector, hits")
    pooled = collections.defaultdict(lambda: ([[], []], [[], []]))
    for key, tiles in sorted(runs.items()):
        M, N, K, bm, bn, bk, gm = key[:7]
        for axis in (0, 1):
            groups = collections.defaultdict(list)
            for t in tiles:
                groups[tile_of(t[0], M, N, bm, bn, gm)[axis]].append(t)
            for g in groups.values():
                for q in (2, 3, 4):
                    order = sorted(g, key=lambda t: t[q])
                    for i in range(1, len(order)):
                        d = order[i][q] - order[i - 1][q]
                        pooled[key[:9]][axis][0].append(d)
                        same = [order[i][q] - x[q] for x in order[:i] if gpc.get(x[1]) == gpc.get(order[i][1])]
                        if same:
                            pooled[key[:9]][axis][1].append(min(same))
    for key, axes in sorted(pooled.items()):
        out = []
        for name, (all_gaps, gpc_gaps) in zip("AB", axes):
            def stats(v):
                if not v:
                    return "-"
                v = sorted(v)
                return ("/".join(f"{sum(x <= w for x in v) / len(v):.2f}" for w in (34, 100, 300, 1000))
                        + f" med {v[len(v) // 2]}")
            out.append(f"{name} {stats(all_gaps)} [{stats(gpc_gaps)}]")
        m = merged.get(key)
        tail = f"; ncu merged {m[0]:.2f}, lookups {m[1]:.2f}, hits {m[2]:.1f}%" if m else ""
        print(f"{key[0]}x{key[1]}x{key[2]} {key[3]}x{key[4]}x{key[5]} g{key[6]} s{key[7]} w{key[8]}: "
              + "; ".join(out) + tail)


def wave_spread(path):
    """Whether a tile that starts behind its wave catches up inside its tile: per launch (first
    repeat), the p10-p90 spread of the wave's CTAs at their start, quarters and end (in tiles,
    the median tile time), for waves 1, 2, 4 and 8 (0: the first). A spread that shrinks from the
    start to the end is a catch-up; one that grows, a divergence inside the tile."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    runs = collections.defaultdict(dict)
    for r in rows:
        if r["rep"] == "0":
            runs[tuple(int(r[k]) for k in KEY)][int(r["pid"])] = [int(r[c]) for c in (
                "t_start_ns", "t_q1_ns", "t_q2_ns", "t_q3_ns", "t_end_ns")]
    growth = []
    for key, tiles in sorted(runs.items()):
        tile = statistics.median(t[4] - t[0] for t in tiles.values())
        slots = sum(1 for t in tiles.values() if t[0] < 0.05 * tile)
        cols = []
        for w in (1, 2, 4, 8):
            if (w + 1) * slots > len(tiles):
                break
            spreads = []
            for q in range(5):
                at = sorted(tiles[p][q] for p in range(w * slots, (w + 1) * slots))
                spreads.append((at[int(0.9 * (len(at) - 1))] - at[int(0.1 * (len(at) - 1))]) / tile)
            growth.append(spreads[4] - spreads[0])
            cols.append(f"wave {w}: " + "/".join(f"{x:.2f}" for x in spreads))
        print(f"{key[0]}x{key[1]}x{key[2]} {key[3]}x{key[4]}x{key[5]} g{key[6]} s{key[7]} w{key[8]}: "
              f"{len(tiles) / slots:.1f} waves; p10-p90 at start/q1/q2/q3/end (tiles) " + "  ".join(cols))
    if growth:
        print(f"{len(growth)} waves: the spread from start to end grows by {statistics.median(growth):+.3f} tiles "
              f"(median; range {min(growth):+.3f} to {max(growth):+.3f}); {sum(g < 0 for g in growth)} shrink")


def sm_load(path, cli=None):
    """Whether a tile runs faster on an SM that holds one CTA fewer, and how far the tiles of a
    one-wave launch part by their end: per one-wave launch (all CTAs start within 5% of a tile),
    its CTAs grouped by how many CTAs their SM ran (%smid), each group's mean tile time and its
    lead on the most loaded group (1 - its time over theirs), and the p10-p90 spread of the most
    loaded group's ends in iterations; beside it, with --cli, the spread the model's own speeds
    would give by the end (2.563 sd, sd = the reported tile_rate_sd x the loop's iterations),
    which the model lays out only between waves."""
    import json
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    runs = collections.defaultdict(list)
    for r in rows:
        runs[tuple(int(r[k]) for k in KEY)].append(r)
    for key, cta in sorted(runs.items()):
        steps = -(-key[2] // key[5])
        leads, spreads, groups = collections.defaultdict(list), [], None
        for rep in sorted({r["rep"] for r in cta}):
            tiles = [r for r in cta if r["rep"] == rep]
            time = {id(r): int(r["t_end_ns"]) - int(r["t_start_ns"]) for r in tiles}
            if max(int(r["t_start_ns"]) for r in tiles) > 0.05 * statistics.median(time.values()):
                break  # a later wave: its CTAs start when others end
            on_sm = collections.Counter(r["smid"] for r in tiles)
            by = collections.defaultdict(list)
            for r in tiles:
                by[on_sm[r["smid"]]].append(r)
            heavy = max(by)
            heavy_time = statistics.fmean(time[id(r)] for r in by[heavy])
            for n, g in by.items():
                leads[n].append(1 - statistics.fmean(time[id(r)] for r in g) / heavy_time)
            ends = sorted(int(r["t_end_ns"]) for r in by[heavy])
            spreads.append((ends[int(0.9 * (len(ends) - 1))] - ends[int(0.1 * (len(ends) - 1))]) / (heavy_time / steps))
            groups = {n: len(g) for n, g in by.items()}
        if not spreads:
            continue
        model = ""
        if cli:
            plan = {"kernel": "gemm", "hardware": "h200", "params": {**dict(zip(KEY, key)), "dtype": "bf16"}}
            out = json.loads(subprocess.run([cli, "predict", "--format", "json", "-"], input=json.dumps(plan),
                                            capture_output=True, text=True, check=True).stdout)
            rate = out.get("cache_stream", {}).get("tile_rate_sd", 0.0)
            model = f"; own speeds {rate:.3f} a tile: {2.563 * rate * steps:.0f}"
        cells = "  ".join(f"{n}/SM: {groups[n]} CTAs, lead {100 * statistics.fmean(leads[n]):+.1f}%" for n in sorted(groups))
        print(f"{key[0]}x{key[1]}x{key[2]} {key[3]}x{key[4]}x{key[5]} g{key[6]} s{key[7]} w{key[8]}: {cells}; "
              f"the {max(groups)}/SM CTAs' ends p10-p90 {min(spreads):.0f}-{max(spreads):.0f} iterations{model}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="run both measurements on the GPU, writing into this folder")
    ap.add_argument("--target", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--parse-lrc", metavar="RAW")
    ap.add_argument("--spread", metavar="CSV")
    ap.add_argument("--wave-spread", metavar="CSV",
                    help="phases CSV of many-wave launches: does a wave's spread shrink inside its tiles")
    ap.add_argument("--compare", nargs=2, metavar=("LRC_CSV", "PHASES_CSV"))
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    ap.add_argument("--set", choices=sorted(SETS), default="skinny",
                    help="skinny (default): one-wave skinny grids; stages: one-wave grids at 2-5 stages; "
                         "grid: a row of tiles sharing A on 8-128 CTAs; gridwide: 32-row A on 64-344 CTAs; "
                         "onetile: many-wave group-1 loops of one tile an SM at 3-5 stages; square: one-wave "
                         "2-D grids on 1024 x 1024 and the 256-tile skinny grids")
    ap.add_argument("--sm-load", metavar="CSV",
                    help="phases CSV: one-wave launches' tile times by the CTAs their SM ran, and their end spread")
    ap.add_argument("--pairs", metavar="CSV", help="phases CSV: how far apart the tiles sharing a block are")
    ap.add_argument("--gaps", nargs="+", metavar="CSV",
                    help="phases CSV [lrc CSV]: the time since the nearest earlier reader of each block")
    a = ap.parse_args()
    if a.target:
        target(SETS[a.set])
    elif a.sm_load:
        sm_load(a.sm_load, a.cli if os.path.exists(a.cli) else None)
    elif a.pairs:
        pairs(a.pairs)
    elif a.gaps:
        gaps(a.gaps[0], a.gaps[1] if len(a.gaps) > 1 else None)
    elif a.parse_lrc:
        parse_lrc(a.parse_lrc, configs=SETS[a.set])
    elif a.spread:
        spread(a.spread)
    elif a.wave_spread:
        wave_spread(a.wave_spread)
    elif a.compare:
        compare(a.compare[0], a.compare[1], a.cli)
    elif a.out:
        phases(a.out, SETS[a.set], a.set)
        lrc(a.out, a.set)
    else:
        ap.print_help()


if __name__ == "__main__":
    main()
