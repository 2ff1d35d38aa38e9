// Two kernels on two streams (overlap "stream", §3.6): a library kernel (cuBLAS's GEMM, an
// attention kernel) and NCCL's, which runs one CTA per channel. Whether they run at the same
// time is a question of occupancy (§3.4): an NCCL CTA needs an SM with room for it.
//
//   beside   the compute grid leaves SMs free, or room beside its resident CTAs, for every
//            NCCL CTA: NCCL takes no SM from it, only the HBM bandwidth its shards move;
//   tail     the grid is one wave that holds every SM NCCL could use (a persistent GEMM: one
//            CTA per SM looping over its share of the tiles). NCCL's CTAs, posted before or
//            with it, get SMs only as its CTAs retire: in its last, partial round of tiles,
//            1/rounds of its time before it ends, on the SMs that round leaves idle (none if
//            the tiles divide evenly over the CTAs). A compute kernel launched while a step
//            still holds SMs runs on the others: SMs / (SMs − channels) slower;
//   shared   a grid of many waves: NCCL's CTAs take SMs as compute blocks retire at the next
//            wave boundary, and the compute runs on SMs − channels while a step runs.
//
// Measured on two H200s (tests/validation/h200x2/stream_timeline.csv, kernel start and end
// times of one CUDA-graph replay under torch.profiler): beside cuBLAS's persistent GEMM
// (132 CTAs of 384 threads, 168 registers, 208 KiB of shared memory) every NCCL kernel
// (24 CTAs of 544 threads, 96 registers, 101 KiB) starts one round of tiles before the GEMM
// running at its ready time ends (gemm_rs 16384x8192x8192, 4 chunks of 1024 tiles: 45 us of
// a 351 us chunk, 8 rounds), and the next chunk, launched while it runs, takes 394 us.
#pragma once

#include <cstdint>
#include <string>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/plan/tile_program.h"

namespace tilesight::model {

// One CTA of NCCL's collective kernel as torch.profiler reports it on the H200s (NCCL 2.28.9,
// stream_timeline.csv: ncclDevKernel_ReduceScatter/AllGather, block 544, 96 registers a
// thread, 103808 bytes of shared memory): 17 warps; __launch_bounds__(640, 1) caps the
// registers at 65536 / 640 -> 96.
inline constexpr plan::BlockResources kNcclCta{.smem_bytes = 103808, .registers_per_thread = 96, .warps = 17};

// The compute kernel's grid as occupancy sees it.
struct ComputeGrid {
  std::int64_t blocks = 0;  // tiles (CTAs of a non-persistent grid)
  std::int64_t resident_per_sm = 1;
  bool persistent = false;  // one CTA per resident slot, each looping over its tiles
  plan::BlockResources block;
};

enum class SmSharing { kBeside, kTail, kShared };
const char* sm_sharing_name(SmSharing s);  // "beside", "tail", "shared"

struct StreamShare {
  SmSharing sharing = SmSharing::kBeside;
  double held_sms = 0;       // SMs the compute grid holds in its first wave
  double nccl_room = 0;      // NCCL CTAs that fit on free SMs and beside the compute's CTAs
  double sm_slowdown = 1;    // shared, tail: SMs / (SMs − NCCL CTAs that had no room), compute beside a step
  double tail_fraction = 0;  // tail: share of the compute's time in its last round of tiles (0: no partial round)
  double tail_share = 0;     // tail: share of NCCL's CTAs that the last round leaves SMs for (at most 1)
  std::string why;           // one sentence for the report
};

// Whether one CTA of `guest` fits on an SM that runs `resident` CTAs of `host`.
bool fits_beside(const plan::BlockResources& host, std::int64_t resident, const plan::BlockResources& guest,
                 const hw::SmLimits& limits);

// How `channels` NCCL CTAs share the SMs with `grid`.
StreamShare share_sms(const ComputeGrid& grid, std::int64_t channels, const hw::HardwareSpec& hw);

}  // namespace tilesight::model
