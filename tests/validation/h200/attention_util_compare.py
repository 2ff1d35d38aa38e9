#!/usr/bin/env python3
"""Table 4's utilisations of the model against Nsight Compute for the eleven launches of
ncu_attention_util.csv (issue 6; docs/attention-model.md prints the table this writes).

Each case becomes the plan that `tilesight-cli validate` builds for its corpus row (Triton:
the corpus row's registers and spills; FA2: the library's traits; cuDNN: the sm90 kernel's
128-row block of two 64-row consumer groups), predicted by `tilesight-cli predict`.
Utilisation = busy time / kernel time (the prediction less its launch overhead), as a percent;
ncu's columns are its percent-of-peak metrics (tensor: sm__pipe_tensor_op_hmma_cycles_active,
SFU: sm__inst_executed_pipe_xu, SMEM: l1tex__data_pipe_lsu_wavefronts_mem_shared, L2:
lts__t_sectors, L2 hit: lts__t_sector_hit_rate).

Two columns restate the model in ncu's own terms:
- tensor pipe %: ncu's hmma cycles active are the FLOPs over the pipe's peak per cycle at the
  clock the kernel ran at: 4096 bf16 FLOP/clk/SM for wgmma (Hopper's dense rate), 2/3 of it
  for mma.sync (ncu_attention_clock.csv: FA2 does 2731 per active cycle). The model's clock
  there: 1.98 GHz x its clock factor x MMA_CLOCK (the SM clock while tensor cores run,
  hw_profiles/calibrate/h200/power_mix_probe.csv). The model's own
  tensor share is busy time at the profile's achievable rate (850 TFLOP/s, 0.79-0.87 of that
  peak), so it reads higher by construction.
- L2 lookups GB: the sectors the L2 slices serve (lts__t_sectors x 32 B) against the model's
  requested bytes less those it merges before a lookup (l2_merged_bytes).
Usage: python3 attention_util_compare.py [--cli build/bin/tilesight-cli]
"""
import argparse
import csv
import json
import os
import subprocess

# mma.sync loads run at 1788-1813 MHz inside the kernel where FFMA/ex2 loads run at 1980
# (hw_profiles/calibrate/h200/power_mix.csv, power_mix_probe.csv): 1800 / 1980.
MMA_CLOCK = 0.909
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def num(s):
    return float(s.replace(",", ""))


def plan(case, triton_rows):
    b, h, s, d = (int(case[k]) for k in ("batch", "heads", "seq", "head_dim"))
    causal = case["causal"] == "1"
    p = dict(batch=b, heads=h, kv_heads=h, seq_q=s, seq_kv=s, head_dim=d, causal=causal,
             dtype="bf16")
    be = case["backend"]
    if be == "triton":
        key = (case["batch"], case["heads"], case["seq"], case["head_dim"], case["causal"],
               case["block_m"], case["block_n"], case["warps"], case["stages"])
        row = next(r for r in triton_rows if (r["batch"], r["heads"], r["seq"], r["head_dim"],
                   r["causal"], r["block_m"], r["block_n"], r["warps"], r["stages"]) == key)
        p.update(variant="fa2", mma="wgmma", block_m=int(row["block_m"]),
                 block_n=int(row["block_n"]), warps=int(row["warps"]),
                 stages=int(row["stages"]), registers=int(row["n_regs"]))
        if int(row["n_spills"]):
            p["spills"] = int(row["n_spills"])
    elif be == "flash":
        p.update(variant="fa2", mma="mma_sync", block_m=128, block_n=64 if d == 128 else 128,
                 warps=4)
    else:
        p.update(variant="fa3", mma="wgmma", block_m=128, block_n=128, warps=12)
    return {"name": f"ncu case {case['case']}", "kernel": "attention", "hardware": "h200",
            "params": p}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    args = ap.parse_args()
    triton_rows = rows(os.path.join(HERE, "attention_triton.csv"))
    print("| case | time µs ncu / model | L2 hit % | tensor % | tensor pipe % | SFU (XU) % "
          "| SMEM % | L2 sectors % | L2 lookups GB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case in rows(os.path.join(HERE, "ncu_attention_util.csv")):
        out = subprocess.run([args.cli, "predict", "-", "--format", "json"], check=True,
                             input=json.dumps(plan(case, triton_rows)), capture_output=True,
                             text=True).stdout
        r = json.loads(out)
        t = r["latency_us"] - r["launch_overhead_us"]
        u = {k: 100 * v / t for k, v in r["busy_us"].items()}
        m = lambda k: num(case[k])
        label = (f"{case['backend']} {case['batch']}×{case['heads']}×{case['seq']} "
                 f"d{case['head_dim']}{' causal' if case['causal'] == '1' else ''}")
        p = plan(case, triton_rows)["params"]
        peak = 4096 * (2 / 3 if p["mma"] == "mma_sync" else 1)
        clock_hz = 1.98e9 * r["clock_factor"] * MMA_CLOCK
        pipe = 100 * r["flops"] / (peak * 132 * clock_hz * t * 1e-6)
        lookups = sum(x["requested_bytes"] - x["l2_merged_bytes"] for x in r["tensors"]) / 1e9
        cells = [
            (m("gpu__time_duration.sum") / 1e3, t),
            (m("lts__t_sector_hit_rate.pct"), 100 * r["l2_hit_rate"]),
            (m("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"),
             u["tc"]),
            (m("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"), pipe),
            (m("sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed"), u["sfu"]),
            (m("l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"),
             u["smem"]),
            (m("lts__t_sectors.avg.pct_of_peak_sustained_elapsed"), u["l2"]),
        ]
        gb = f"{m('lts__t_sectors.sum') * 32 / 1e9:.2f} / {lookups:.2f}"
        print(f"| {label} | " + " | ".join(f"{a:.0f} / {b:.0f}" for a, b in cells) + f" | {gb} |")


if __name__ == "__main__":
    main()
