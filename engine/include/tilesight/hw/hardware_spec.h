// A GPU as the model sees it (§3.8, Table 3): SM count and clocks, per-SM occupancy limits,
// pipeline rates and the memory hierarchy. Plain immutable value, loaded from
// hw_profiles/<name>.json by hw/profile_loader.h. Rates are device-wide unless named per_sm.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>
#include <string>

#include "tilesight/plan/dtype.h"

namespace tilesight::hw {

// Whether the profile's key numbers were calibrated on the real GPU or read off a datasheet.
enum class ProfileSource { kMeasured, kDatasheet };

constexpr const char* profile_source_name(ProfileSource s) {
  return s == ProfileSource::kMeasured ? "measured" : "datasheet";
}

struct SmLimits {
  double smem_bytes_per_sm = 0;        // shared memory usable by blocks on one SM
  double smem_bytes_per_block = 0;     // opt-in maximum for one block (227 KiB on H100/H200)
  double smem_reserved_per_block = 0;  // driver-reserved bytes per resident block (1 KiB)
  double registers_per_sm = 0;         // 32-bit registers
  double registers_per_thread = 0;     // maximum per thread (255)
  double register_alloc_unit = 256;    // registers are allocated per warp in units of this
  double max_warps_per_sm = 0;
  double max_blocks_per_sm = 0;
  double max_threads_per_block = 1024;
  double tmem_bytes_per_sm = 0;        // Blackwell tensor memory (256 KiB on B200); 0: none
  double l1_smem_bytes_per_sm = 0;     // the SM's unified L1 and shared memory (256 KiB on
                                       // H100/H200); L1 keeps what the carve-out leaves. 0: unknown
};

// Tensor-core peak (FLOP/s, dense, whole device) per dtype for the best instruction
// (wgmma on Hopper); mma_sync_fraction scales it for mma.sync.
struct TensorCoreRates {
  std::map<DType, double> flops_per_s;
  double mma_sync_fraction = 1.0;
};

// Long tensor-core-bound kernels run slower than short ones (power limit; VALIDATION.md):
// the rate is full up to short_kernel_us, falls log-linearly to sustained_fraction at
// long_kernel_us, and stays there.
struct PowerLimit {
  double short_kernel_us = 0;
  double long_kernel_us = 0;
  double sustained_fraction = 1.0;
};

// Where the CTAs of a launch run, by the L2 partition next to their SM: with `resident` CTAs an
// SM, launch slot s (of sm_count x resident) lands on an SM next to partition[s]. Measured: the
// block scheduler deals the slots out by TPC over the GPCs, and which partition a TPC sits next
// to is a fact of the chip (hw_profiles/calibrate/sm_partition.cu).
struct SlotPartition {
  int resident = 1;
  std::vector<std::int8_t> partition;
};

// The same for a one-wave grid of `ctas` CTAs, at most one an SM: a grid smaller than the GPU
// is not dealt out in the full grid's order. After the first 8 CTAs the scheduler gives each
// GPC a run of about (ctas - 8) / 8 consecutive slots (hw_profiles/calibrate/h200/
// sm_dispatch_small_ncu.csv), so slots 8 apart sit in different GPCs, often in different
// partitions, where the full grid's map has slots 0-15 on one GPC.
struct GridPartition {
  int ctas = 1;
  std::vector<std::int8_t> partition;
};

struct CacheLevel {
  double bytes = 0;          // capacity (effective, as calibrated from the bandwidth sweep)
  double bandwidth = 0;      // bytes/s, whole device
  double per_sm_bandwidth = 0;  // bytes/s one SM can pull at most (0: no per-SM cap)
  double async_bandwidth = 0;   // bytes/s, whole device, of copies into shared memory
                                // (cp.async, TMA); 0: `bandwidth`
  // What one SM's copies into shared memory carry at most while `active` SMs copy: points
  // (active SMs, bytes/s), active increasing, interpolated log-log (a microbenchmark of the
  // SM's path, sm_path.cu). Empty: per_sm_bandwidth scaled by async / bandwidth.
  std::vector<std::array<double, 2>> async_per_sm;
  double requests_per_s = 0;    // line requests/s the SMs can have served, whole device:
                                // a request asks for the sectors of one line a warp's copy
                                // touches (0: no limit but the bytes)
  // Of a merged request's time on the SM's path from L2 (the L2 lane), the share the merge
  // saves: the slice never looks it up, but its data still travels to the SM. 1: all of it.
  double merge_saving = 1;
  // How long after another SM's read of a sector already in L2 a read of the same sector from
  // the SM's GPC still merges into it in the request coalescer (ns). 0: only reads of a fill in
  // flight merge.
  double hit_merge_ns = 0;
  // How long after one side's read of a line the line's home partition still gets its own
  // side's read of it first (ns): the other side's miss is still crossing over, so the home
  // side's read misses and the crossing one finds its fill in flight. 0: in stream order.
  double home_race_ns = 0;
  double associativity = 16;
  double line_bytes = 128;
  double partitions = 1;     // H200's L2 is two partitions (VALIDATION.md)
  // What one partition keeps: a line is lost once about this many bytes of its partition's
  // stream came after it (LRU stack distance, the middle of SDCM's edge). 0: bytes / partitions.
  double partition_bytes = 0;
  double latency_ns = 0;     // pointer-chasing latency of a hit
  // Hit rate when a working set is reused cyclically: points (working set / bytes, hit rate),
  // w increasing from 0, the rate falling from 1 at w = 0 to the first point (on the H200 ncu's
  // counts, l2_cyclic_ncu.py, start below the capacity). Empty: all hit up to bytes, none past it.
  std::vector<std::array<double, 2>> cyclic_hit;
  // Per CTAs resident an SM (increasing), the partition each launch slot's SM sits next to.
  // Empty: the SMs alternate between the partitions.
  std::vector<SlotPartition> slot_partition;
  // Per one-wave grid size (increasing, at most sm_count CTAs), the partition of each launch
  // slot's SM; a launch of fewer tiles takes the smallest grid at or above its own. Empty, or a
  // grid past them all: slot_partition.
  std::vector<GridPartition> grid_partition;
  // The same grids' GPC of each launch slot's SM (digits, GPC index): the request coalescer
  // merges only the reads of one GPC's SMs (hw_profiles/calibrate/lrc_window.py --domains).
  // Empty: reads merge across a partition's SMs.
  std::vector<GridPartition> grid_gpc;
  // Per CTAs resident an SM (as slot_partition), the GPC of each launch slot's SM in a grid that
  // fills the GPU: the full grid's merge domains. Empty: reads merge across a partition's SMs.
  std::vector<SlotPartition> slot_gpc;
  // Where a tile's rows of an operand are part of a line (64-byte rows: BLOCK_K 32 in bf16),
  // points (bytes the launch keeps in flight, the share of a shared block's requests looked
  // up): the share rises with the load, where rows of whole lines keep the coalescer's one in
  // merge_per_lookup (hw_profiles' source says which microbenchmark). Bytes increasing from 0,
  // shares in (0, 1]. Empty: one in merge_per_lookup for every row.
  std::vector<std::array<double, 2>> short_row_lookups;
  // The hit window under load: the L2 slices' load (their busy share over what every SM copying
  // at its path's limit keeps them at, increasing from 0 to 1) and the window as a multiple of
  // hit_merge_ns, measured with the L2 idle (lrc_window.py --fine-load). Empty: the idle window.
  std::vector<std::array<double, 2>> hit_merge_load;
};

struct HardwareSpec {
  std::string name;          // profile name, e.g. "h200"
  std::string display_name;  // "NVIDIA H200 SXM 141GB"
  std::string arch;          // "sm_90"
  ProfileSource profile_source = ProfileSource::kDatasheet;

  double sm_count = 0;
  double clock_ghz = 0;      // clock the rates below refer to

  SmLimits limits;
  TensorCoreRates tensor_core;
  PowerLimit power;
  double cuda_fp32_flops_per_s = 0;  // FMA = 2 FLOP
  double sfu_ops_per_s = 0;          // exp2 and friends
  double smem_bandwidth_per_sm = 0;  // bytes/s
  double tmem_bandwidth_per_sm = 0;  // bytes/s; 0 where the GPU has no TMEM

  CacheLevel l15;  // bytes == 0: no L1.5 tier
  CacheLevel l2;
  double dram_bytes = 0;
  double dram_bandwidth = 0;      // bytes/s achievable
  double dram_latency_ns = 0;     // pointer-chasing latency of a miss to DRAM
  // Dirty bytes the L2 holds after the timing protocol's flush (do_bench zeroes 256 MB before
  // each launch): the kernel's first DRAM reads write them back. 0: the L2 starts clean.
  double dirty_l2_bytes = 0;
  double launch_overhead_us = 0;  // empty-kernel time as CUDA events measure it
  double dependent_launch_us = 0; // each further kernel queued behind the first (CUDA graph
                                  // or stream): its start-up, the launch itself being hidden
  // A compiler-pipelined K loop (Triton's num_stages; hw_profiles/calibrate/
  // pipeline_iteration.py): one iteration of a CTA takes round_trip / (stages - 1) plus its
  // loaded bytes at the SM's fill rate. 0: the profile has not measured it (the loop model
  // then uses the pointer-chase latency and the L2 lane alone).
  double pipeline_round_trip_ns = 0;      // issue-to-use of a stage whose data is in L2
  // What DRAM traffic adds to that round trip: dram_queue_ns per unit of the DRAM bandwidth
  // share the SM's loop keeps busy (hw_profiles/calibrate/pipeline_active.py: loops that
  // stream an operand from DRAM on 8 to 132 SMs). 0: not measured (the round trip then adds
  // the pointer-chase difference of DRAM and L2 latency for a DRAM-sourced load).
  double dram_queue_ns = 0;
  // The part of the shorter of a stage's share of the round trip and the iteration's MMA that
  // the two do not overlap, with one stage in flight; over (stages in flight) to the power
  // pipeline_mma_exposure_power beyond (hw_profiles/calibrate/fit_pipeline_law.py). 0: not
  // measured (full overlap).
  double pipeline_mma_exposure = 0;
  double pipeline_mma_exposure_power = 2;
  // What a compiler-pipelined loop's prologue takes beyond its first round trip and stage:
  // this, plus the bytes of the stages it prefetches (stages - 1 of every resident tile) at
  // smem_fill_bandwidth_per_sm (hw_profiles/calibrate/cta_phases.py). 0: not measured.
  double pipeline_prologue_ns = 0;
  // A 2-stage loop that issues its next stage's copies after its chain (Loop::
  // copies_after_chain) waits this long for them at the top of each iteration, once per
  // round of its resident tiles (hw_profiles/calibrate/attention_stage_calib.py). 0: no wait.
  double pipeline_late_copy_wait_ns = 0;
  // Tiles of a K loop whose loads queue behind the SM's path from L2 run at different speeds
  // (hw_profiles/calibrate/cta_skew.py: per-CTA start and end times): the relative standard
  // deviation of a tile's time is tile_rate_sd times the share of a load's time in flight
  // spent queued. 0: not measured (tiles keep pace).
  double tile_rate_sd = 0;
  // Where a tile has its SM to itself and loads 2+ stages ahead (3-5-stage loops, one CTA an
  // SM), a launch's waves start this share of a tile's iterations further apart each wave, a
  // uniform spread (hw_profiles/calibrate/cta_skew.py --growth: the p10-p90 width of each
  // wave's starts grows linearly, each SM keeping a speed of its own). 0: not measured (the
  // tile_rate_sd walk instead).
  double tile_wave_growth = 0;
  // Reads that reach DRAM in runs of half an L2 line (64 bytes: a row-major bf16 tile 32
  // columns wide, the other tiles in flight at the same columns of other rows) move at this
  // fraction of dram_bandwidth (hw_profiles/calibrate/dram_runs.py). 0: not measured (1).
  double dram_half_line_efficiency = 0;
  double smem_fill_bandwidth_per_sm = 0;  // bytes/s async copies move into one SM
  // Element-wise register loads (hw_profiles/calibrate/l1_sectors.cu): a warp load instruction
  // takes at least lsu_instruction_cycles of the SM's load/store path, more when its lanes
  // touch many sectors, which the L1 serves at l1_sectors_per_clk. 0: not measured.
  double l1_sectors_per_clk = 0;
  // ... and at least lanes' cache lines / l1_lines_per_clk (hw_profiles/calibrate/l1_rows.cu:
  // a warp whose 32 lanes read 32 rows). 0: not measured.
  double l1_lines_per_clk = 0;
  // ... and, where their misses take longer than that, this many cycles per sector that misses
  // L1 (hw_profiles/calibrate/staged_l1.py). 0: not measured.
  double l1_miss_sector_cycles = 0;
  // A block-wide reduction through shared memory (warp shuffles, two barrier phases; 256
  // threads): the latency of warps exchanging values. 0: not measured.
  double block_reduce_ns = 0;
  // The online softmax of a warp group's score tile run by one warp per scheduler (a warp alone
  // on its scheduler issues the row max, scale-subtract, ex2, sum and pack of each score in
  // turn): its duration over its exps' SFU time. 0: not measured (then its CUDA-core plus SFU time).
  double lone_warp_softmax_sfu_multiple = 0;
  double lsu_instruction_cycles = 0;

  // Where each number came from, keyed by the JSON path in the profile:
  // {"l2.bandwidth": "measured on H200, hw_profiles/calibrate/bw_sweep.py", ...}
  std::map<std::string, std::string> sources;

  bool has_l15() const { return l15.bytes > 0; }
  bool has_tmem() const { return tmem_bandwidth_per_sm > 0; }
  // Tensor-core FLOP/s for a dtype and instruction, whole device; 0 if unsupported.
  double tensor_flops(DType dtype, MmaInstruction mma) const {
    auto it = tensor_core.flops_per_s.find(dtype);
    if (it == tensor_core.flops_per_s.end()) return 0.0;
    return mma == MmaInstruction::kMmaSync ? it->second * tensor_core.mma_sync_fraction
                                           : it->second;
  }
};

}  // namespace tilesight::hw
