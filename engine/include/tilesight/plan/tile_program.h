// The tile execution plan of §3.1 (Table 2) as plain immutable values: tensors and tensor
// accesses (intra-tile footprint and placement, reuse dimensions), the tile grid and its
// launch order, the DAG of tile actions, the loop nest with software-pipeline stages and the
// per-block resources that bound occupancy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilesight/plan/dtype.h"

namespace tilesight::plan {

// Where a tensor tile is produced or resides (§3.1). Remote shard/replica come with the
// cross-device model.
enum class Placement { kRegister, kTmem, kSmem, kL15, kL2, kDdr };
inline constexpr Placement kAllPlacements[] = {Placement::kRegister, Placement::kTmem,
                                               Placement::kSmem,     Placement::kL15,
                                               Placement::kL2,       Placement::kDdr};

std::string_view placement_name(Placement p);  // "register", "tmem", "smem", "l15", "l2", "ddr"
std::optional<Placement> placement_from_name(std::string_view s);

struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;  // elements per dimension
  DType dtype = DType::kBF16;

  double bytes() const;
};

// How the tiles of the grid touch one tensor (§3.5.1).
struct TensorAccess {
  std::string tensor;                     // a name in TileProgram::tensors
  std::vector<std::int64_t> tile_shape;   // per-tile footprint, elements per tensor dimension
  Placement placement = Placement::kDdr;  // where the tensor lives (source of loads)
  std::vector<std::string> reuse_dims;    // grid dims along which the same block is reused
  std::string loop;                       // loop that walks new blocks (e.g. "k"); "" = none
  bool write = false;                     // the tile writes this tensor (e.g. GEMM's C)
  // A second read of blocks the tile read before (another access of the same tensor read
  // them first): this many iterations of `loop` after that read (of the tile's whole time
  // when loop is ""): the norms' second pass over their row, half a tile after the first.
  // 0: a read of its own. The cache model takes the reuse gap from it.
  double revisit = 0;
  // The tile's loads are TMA tensor copies (cuBLAS's and CUTLASS's Hopper kernels): rows of a
  // tile past the tensor's edge are filled with zeros, not wrapped (Triton's `% M` pointer
  // loads read them again), and still looked up in L2 (cache model, ncu_tma_oob.csv).
  bool tma_box = false;
};

// Launch orders (§3.5.3): a concrete sequence of tile coordinates. Row-major has the last
// grid dim fastest; grouped is Triton's GROUP_M swizzle over the grid's first two dims; Z-order
// (Morton) interleaves the bits of the last two dims' coordinates.
enum class LaunchOrderKind { kRowMajor, kColumnMajor, kGrouped, kZOrder };
inline constexpr LaunchOrderKind kAllLaunchOrders[] = {
    LaunchOrderKind::kRowMajor, LaunchOrderKind::kColumnMajor, LaunchOrderKind::kGrouped, LaunchOrderKind::kZOrder};

struct LaunchOrder {
  LaunchOrderKind kind = LaunchOrderKind::kRowMajor;
  std::int64_t group_m = 1;  // for kGrouped
};

std::string_view launch_order_name(LaunchOrderKind k);  // "row_major", "column_major", "grouped", "z_order"
std::optional<LaunchOrderKind> launch_order_from_name(std::string_view s);

struct GridDim {
  std::string name;  // "m", "n", "batch", "head", ...
  std::int64_t extent = 1;
};

struct TileGrid {
  std::vector<GridDim> dims;
  LaunchOrder order;

  std::int64_t tiles() const;  // product of extents
  std::optional<std::size_t> dim_index(std::string_view name) const;
};

// What a tile action does (§3.1).
enum class OpKind { kLoad, kStore, kMmaTc, kMmaCuda, kReduce, kExp, kRescale, kRemote, kFused };
inline constexpr OpKind kAllOps[] = {OpKind::kLoad,    OpKind::kStore,  OpKind::kMmaTc,
                                     OpKind::kMmaCuda, OpKind::kReduce, OpKind::kExp,
                                     OpKind::kRescale, OpKind::kRemote, OpKind::kFused};

std::string_view op_name(OpKind op);  // "load", "store", "mma_tc", "mma_cuda", "reduce", "exp",
                                      // "rescale", "remote", "fused"
std::optional<OpKind> op_from_name(std::string_view s);

// One node of the tile-action DAG. Costs are per execution of the action (one loop iteration
// of its loop, or once per tile when loop is empty).
struct TileAction {
  std::string name;
  OpKind op = OpKind::kLoad;
  std::vector<std::string> operands;      // tensor names it reads (load: the tensor it loads)
  double flops = 0;                       // per execution
  double bytes = 0;                       // per execution: bytes moved (load/store/remote) or
                                          // read from the scratchpad (compute)
  double sfu_ops = 0;                     // transcendental ops (exp), per execution
  double local_bytes = 0;                 // register spills: local-memory bytes stored and
                                          // reloaded per execution (served by L1/L2)
  double local_reloads = 0;               // of those, 4-byte reloads per thread that wait in
                                          // turn for L2 (one round trip each) on the loop's chain
  double chained_l2_loads = 0;            // loads: further loads, each issued once the one before
                                          // arrived, of data the program wrote just before (a
                                          // combine walking split-KV partials): an L2 latency each
  bool accumulator_spills = false;        // the spilled registers are the action's own MMA
                                          // accumulators, stored and reloaded around its MMA
                                          // steps: it waits for the tile's traffic on the path
  double multicast = 1;                   // loads: CTAs of a cluster sharing one TMA multicast
                                          // (L2/DRAM carry bytes / multicast; SMEM all of them)
  bool revisit = false;                   // loads: through the tensor's revisit access
                                          // (TensorAccess::revisit), re-reading blocks an
                                          // earlier load of the tile fetched
  bool via_registers = false;             // loads: element-wise ld.global + st.shared through
                                          // registers (no cp.async/TMA): single-buffered, not
                                          // prefetched by the software pipeline
  double barriers = 0;                    // block-wide barrier phases on the action's path
                                          // (warps exchanging values through SMEM)
  double lane_sectors = 0;                // via_registers loads: 32-byte sectors one warp load
                                          // instruction touches (0: 16, a 512-byte span)
  double lane_lines = 0;                  // ... and the 128-byte cache lines they lie in
  double l1_tile_sectors = 0;             // via_registers loads whose lanes spread over rows:
                                          // sectors of the tile's rows, fetched into L1 at
                                          // least once an iteration and reused from there
  double l1_window_bytes = 0;             // ... the L1 bytes its rows hold while one sector's
                                          // reuses run (0: the tile's sectors)
  double l1_displacing_sectors = 0;       // ... and sectors the iteration's cp.async copies of
                                          // other operands pass through L1, evicting as many
  double l1_beside_bytes = 0;             // ... and the shared-memory bytes other actions of
                                          // the iteration move (copies, MMA operand reads)
                                          // while its L1 lookups and misses run
  double dram_run_bytes = 0;              // loads: contiguous bytes the tiles in flight read
                                          // together from each row (0: long runs)
  std::vector<std::size_t> deps;          // indices of actions in the same iteration
  Placement result_level = Placement::kRegister;  // scratchpad level of the result
  std::string loop;                       // innermost loop it runs in; "" = tile body
  DType dtype = DType::kBF16;
  MmaInstruction mma = MmaInstruction::kWgmma;  // for kMmaTc
  double mma_n = 0;                       // kMmaTc wgmma: N of one instruction (m64nNk16);
                                          // below 64 its operand reads from SMEM bound it
                                          // (hw/mma_rate.h); 0: full rate
};

// A loop of the tile body. The loops form a tree through `parent` ("" = the tile body).
struct Loop {
  std::string name;
  std::int64_t trip_count = 1;
  std::int64_t stages = 1;  // software-pipeline stages (Triton's num_stages)
  std::string parent;
  // Trip counts that differ along one grid dim (causal attention: query block i walks about
  // i + 1 key blocks): trips[k] for coordinate k of grid dim `trips_dim`, and trip_count holds
  // their mean. Empty: every tile runs trip_count. The block scheduler's makespan over these
  // unequal tiles is the wave model's imbalance (model/tile_imbalance.h).
  std::string trips_dim;
  std::vector<std::int64_t> trips;
  // Whether the dependency chains of the tiles resident on one SM overlap (eq. 3's
  // interleave). false: they take turns, as in FlashAttention-2-structured kernels without warp
  // specialisation (FA3 §3.1: their softmax and GEMMs run sequentially), so an SM's iteration
  // costs the whole chain, not chain / resident.
  bool overlap_resident = true;
  // Whether the body's loads go straight to registers (plain ld.global, no cp.async stage, no
  // barrier), as in PyTorch's row kernels: a load nothing prefetches then waits its memory
  // latency alone, not the software pipeline's stage round trip (pipeline_round_trip_ns).
  // hw_profiles/calibrate/h200/norm_rows.csv: F.rms_norm's loop costs about one DRAM latency
  // per vector load after do_bench's flush and one L2 latency warm.
  bool register_loads = false;
  // Whether a producer warp group issues the loads (TMA, warp specialisation: cuBLAS, cuDNN,
  // FA3): the consumers' MMAs never hold up the next stage's load issue, so the software
  // pipeline's MMA exposure (HardwareSpec::pipeline_mma_exposure) does not apply.
  bool producer_warps = false;
  // Whether a warp's CUDA-core and SFU work in one action wait on each other (the online
  // softmax: scale-subtract, ex2, sum and pack of each score in turn), so that they overlap
  // only across warps sharing a scheduler. With one warp per scheduler (4 warps of a tile
  // alone on the SM) such an action lasts the sum of the two pipes' times, with two or more
  // their max. Triton's FlashAttention loop (ncu_attention_issue.csv): 5-9 FMA/ALU warp
  // instructions per 32 scores beside ex2's 8 cycles of the SFU; a 4-warp tile alone on an SM
  // runs its iteration 0.2-0.7 us past the chain that overlaps them.
  bool warp_serial_sfu = false;
  // Consumer warp groups that each run the whole chain on their share of the tile's rows, their
  // chains interleaved (cuDNN's sm90 SDPA kernel: two warp groups of 64 rows each wait on their
  // QK^T, run the softmax and wait on their PV in turn, and named barriers let one group's
  // softmax run while the other's GEMMs do, tests/validation/h200/cudnn_sdpa_sass_d64.csv). The
  // SM's iteration then lasts one group's chain (the tile's / chain_groups), and with
  // warp_serial_sfu the softmax runs one warp per scheduler at a time.
  std::int64_t chain_groups = 1;
  // Whether the loop issues its next stage's copies after its chain rather than before it
  // (Triton's FlashAttention loop: cp.async after the body's last bar.sync, waited first thing
  // in the next iteration; ncu_attention_split_ptx.csv). At 2 stages each iteration then waits
  // for them (HardwareSpec::pipeline_late_copy_wait_ns); with more stages a whole iteration
  // covers them.
  bool copies_after_chain = false;
  // FlashAttention-2's library kernel keeps one K or V tile in flight per block: it issues V
  // before QK^T and waits for it before PV, issues the next K before PV and waits for it at the
  // top of the next iteration. Each load waits its own round trip behind one GEMM phase: two
  // round trips an iteration, half the loads in flight of a 2-stage pipeline.
  bool loads_wait_apart = false;
  // Whether the compiler waits for each wgmma to finish before the warps go on (ptxas warning
  // C7515: its SASS puts WARPGROUP.DEPBAR 0 behind every wgmma, hw_profiles/calibrate/h200/
  // wgmma_sass_fp8.txt; Triton's 256-wide tiles on 8 warps with B K-major, kernels::lift_gemm).
  // The warps that issue the MMAs then issue the next stage's copies and pass the loop's barrier
  // only after them: the stage's fill waits behind the MMA, on top of what a pipelined loop
  // exposes (hw_profiles/calibrate/h200/pipeline_serial_*.csv).
  bool serial_mma = false;
};

// How blocks map to tiles. A persistent kernel launches one block per resident slot and each
// block walks its tiles one after another with the pipeline kept full across them (Hopper
// warp-specialised GEMMs, DESIGN.md); with epilogue_overlap (ping-pong consumers) a tile's
// epilogue hides under the next tile's main loop.
enum class Raster { kM, kN };

struct TileSchedule {
  bool persistent = false;
  bool epilogue_overlap = false;
  // persistent: each block takes its next tile from a global counter (one atomic add per tile,
  // cuDNN's sm90 SDPA kernel: tests/validation/h200/cudnn_sdpa_sass_d64.csv), so the tiles are
  // list-scheduled on whichever block frees first, not dealt out round-robin.
  bool dynamic = false;
  // persistent: each tile loads its head operands (the tile-body loads before the loops, e.g.
  // attention's Q) into a buffer the previous tile releases only at its end, so every round
  // of tiles waits for them again (cuDNN's sm90 SDPA kernel: the consumers release Q after the
  // loop, cudnn_sdpa_sass_d64.csv), not only the first.
  bool head_per_tile = false;
  Raster raster = Raster::kM;  // persistent: consecutive tiles walk down M (kM) or along N
  // persistent: tiles across a group of the raster, the groups walked serpentine (cuBLAS's
  // nvjet kernels, cache::nvjet_swizzle); 1: a plain raster; 0: that rule, from the written
  // tile's shape and the CTAs resident.
  std::int64_t swizzle = 1;
  // Thread-block clusters (Hopper): rows x columns of the tile grid whose CTAs run together and
  // share their TMA multicasts (TensorAccess::multicast): a cluster's first tile asks L2 for a
  // block its cluster shares, the others receive it (cache model, ncu_tma_multicast.csv).
  std::int64_t cluster_rows = 1, cluster_cols = 1;
};

struct BlockResources {
  std::int64_t smem_bytes = 0;
  std::int64_t registers_per_thread = 0;
  std::int64_t warps = 4;
};

struct TileProgram {
  std::string name;
  std::string kernel = "custom";  // template it was lifted from, or "custom"
  std::vector<Tensor> tensors;
  std::vector<TensorAccess> accesses;
  TileGrid grid;
  std::vector<TileAction> actions;
  std::vector<Loop> loops;
  TileSchedule schedule;
  BlockResources resources;
  std::int64_t launches = 1;  // kernels the plan runs back to back (split-K adds a reduction)
  std::string hardware;  // profile name or path, may be empty (then --hw is required)

  const Tensor* find_tensor(std::string_view name) const;
  const Loop* find_loop(std::string_view name) const;
  // Product of trip counts from the tile body down to `loop` (1 for "").
  std::int64_t executions_per_tile(std::string_view loop) const;
};

}  // namespace tilesight::plan
