// Two kernels on two streams (overlap "stream", §3.6): a library kernel (cuBLAS's GEMM, an
// attention kernel) and NCCL's, which runs one CTA per channel. Whether they run at the same
// time is a question of occupancy (§3.4): an NCCL CTA needs an SM with room for it.
//
//   beside   the compute grid leaves SMs free, or room beside its resident CTAs, for every
//            NCCL CTA: NCCL takes no SM from it, only the HBM bandwidth its shards move;
//   serial   the grid is one wave that holds every SM NCCL could use until it ends (a
//            persistent GEMM: one CTA per SM looping over a fixed share of the tiles). NCCL's
//            CTAs wait for SMs until the compute ends; or, posted first, they take SMs whose
//            compute CTAs then start only when NCCL's end, still owing their whole share, so
//            the compute ends a collective later all the same. No progress while a step runs;
//   shared   a grid of many waves: NCCL's CTAs take SMs as compute blocks retire at the next
//            wave boundary, and the compute runs on SMs − channels while a step runs.
//
// Measured on two H200s (tests/validation/h200x2/fused.csv): cuBLAS's persistent GEMM beside
// an NCCL all-gather on a second stream takes as long as the two in series (8192×8192×8192:
// 1027 us vs 1021 us serial; compute 655, all-gather 300).
#pragma once

#include <cstdint>
#include <string>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/plan/tile_program.h"

namespace tilesight::model {

// One CTA of NCCL's collective kernel: NCCL_SIMPLE_MAX_NTHREADS = 512 threads (16 warps);
// NCCL's kernels are built with __launch_bounds__(NCCL_MAX_NTHREADS = 640, 1), which caps
// them at 65536 / 640 -> 96 registers a thread; shared memory: its small ncclShmem only.
inline constexpr plan::BlockResources kNcclCta{.smem_bytes = 0, .registers_per_thread = 96, .warps = 16};

// The compute kernel's grid as occupancy sees it.
struct ComputeGrid {
  std::int64_t blocks = 0;  // tiles (CTAs of a non-persistent grid)
  std::int64_t resident_per_sm = 1;
  bool persistent = false;  // one CTA per resident slot, each looping over its tiles
  plan::BlockResources block;
};

enum class SmSharing { kBeside, kSerial, kShared };
const char* sm_sharing_name(SmSharing s);  // "beside", "serial", "shared"

struct StreamShare {
  SmSharing sharing = SmSharing::kBeside;
  double held_sms = 0;       // SMs the compute grid holds in its first wave
  double nccl_room = 0;      // NCCL CTAs that fit on free SMs and beside the compute's CTAs
  double sm_slowdown = 1;    // shared: SMs / (SMs − NCCL CTAs that had no room); serial: ∞
  std::string why;           // one sentence for the report
};

// Whether one CTA of `guest` fits on an SM that runs `resident` CTAs of `host`.
bool fits_beside(const plan::BlockResources& host, std::int64_t resident, const plan::BlockResources& guest,
                 const hw::SmLimits& limits);

// How `channels` NCCL CTAs share the SMs with `grid`.
StreamShare share_sms(const ComputeGrid& grid, std::int64_t channels, const hw::HardwareSpec& hw);

}  // namespace tilesight::model
