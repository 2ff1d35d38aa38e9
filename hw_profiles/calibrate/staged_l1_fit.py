#!/usr/bin/env python3
"""The L1 rules of staged loads (resource_vector.cpp, gemm.cpp), checked against staged_l1.csv.

Reads h200/staged_l1.csv (staged_l1.py: ncu of Triton GEMMs staging B through registers, on
2048 x 3000 x 2048, outside the corpus) and prints, for its unspilled configs:

  1. misses per element-wise load instruction, measured (ldg_sectors x (1 - hit)) against the
     rule with no capacity loss: the tile's row sectors (each row's run plus the sector half
     of the rows cross into, for a row stride of 16 mod 32 bytes) plus one per sector the
     cp.async copies of A pass through L1;
  2. where the resident tiles outgrow L1 (launch__shared_mem_config_size: L1 is 256 KiB less
     the carve-out), the reuses lost against the window rule (each of BLOCK_K rows holds
     160 bytes while a sector's reuses run);
  3. cycles of each SM per missed sector, where misses exceed 7 an instruction
     (l1_miss_sector_cycles in hw_profiles/h200.json is their median).

Usage: python3 hw_profiles/calibrate/staged_l1_fit.py [CSV]
"""
import csv
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CLOCK_GHZ, SMS, WINDOW_BYTES_PER_ROW = 1.98, 132, 160.0


def rows(path):
    with open(path) as f:
        return [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "h200", "staged_l1.csv")
    base_err, lost, per_miss = [], [], []
    for r in rows(path):
        if r["n_spills"] != "0" or r["K"] != "2048":  # the B-staged problem, unspilled
            continue
        bm, bn, bk = int(r["block_m"]), int(r["block_n"]), int(r["block_k"])
        stride = int(r["N"]) * 2
        tile = bk * (bn * 2 / 32 + 1 - math.gcd(stride, 32) / 32)
        copied = bm * bk * 2 / 32
        instructions = bk * bn / 32
        inst = float(r["ldg_inst"])
        measured = float(r["ldg_sectors"]) / inst * (1 - float(r["ldg_l1_hit_pct"]) / 100)
        base = (tile + copied) / instructions
        l1 = 256 * 1024 - float(r["smem_config_bytes"])
        resident = min(float(r["ctas_per_sm_regs"]), float(r["ctas_per_sm_smem"]),
                       math.ceil(float(r["grid"]) / SMS))
        window = resident * bk * WINDOW_BYTES_PER_ROW
        touches = float(r["ldg_sectors"]) / inst
        cfg = f"{bm}x{bn}x{bk} s{r['stages']} w{r['warps']} {int(resident)}/SM L1 {l1 / 1024:.0f} KiB"
        if l1 >= 60 * 1024:  # room for every window: the rule without capacity loss
            base_err.append(abs(base / measured - 1))
            print(f"{cfg:34s} misses/instr {measured:5.2f}  rule {base:5.2f}")
        else:  # the smallest L1 (the largest carve-out): reuses lost, measured and by the rule
            got = (measured - base) / (touches - base)
            lost.append(abs(got - max(0.0, 1 - l1 / window)))
            print(f"{cfg:34s} reuses lost {got:5.2f}  window rule {max(0.0, 1 - l1 / window):5.2f}")
        cycles = float(r["duration_ns"]) * CLOCK_GHZ / (inst / SMS)
        if measured > 7:
            per_miss.append(cycles / measured)
    print(f"L1 of 60 KiB or more: {len(base_err)} configs, misses per instruction within "
          f"{100 * statistics.mean(base_err):.1f}% of the rule (mean), {100 * max(base_err):.1f}% (worst)")
    print(f"L1 of 28 KiB: {len(lost)} configs, reuses lost within {statistics.mean(lost):.3f} of the window "
          f"rule (mean), {max(lost):.3f} (worst)")
    q = statistics.quantiles(per_miss, n=4)
    print(f"cycles per missed sector over {len(per_miss)} configs: median {statistics.median(per_miss):.2f}, "
          f"quartiles {q[0]:.2f}-{q[2]:.2f}")


if __name__ == "__main__":
    main()
