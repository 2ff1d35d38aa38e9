// The cache model of §3.5: tile reuse distance over the real launch order (reuse_distance.h),
// SDCM hit probability (sdcm.h) and a two-level cascade, near cache then far cache then DRAM
// (§3.5.3). The default CacheModel of model::evaluate.
//
// Levels, from the hardware profile:
//   - l15 present (B200): L1.5 within each SM group (l15.bytes each, l15.partitions groups),
//     then the whole L2 (l2.bytes) over every group's stream, then DRAM.
//   - L2 in partitions (H200: two): each SM group's near partition (l2.bytes / partitions) is
//     looked up first; a line homed in another partition that misses there is looked up again
//     in its home partition ("far"), and lines homed near go straight to DRAM. ncu's
//     lts__t_sector_hit_rate counts both lookups (VALIDATION.md), so l2_hit_rate does too.
//   - otherwise one L2.
// Stores are written into L2 and count as hits (write-back). The SMs alternate between the
// groups; the inter-SM skew per iteration is (DRAM - L2 latency) / DRAM latency from the
// profile (reuse_distance.h, §5.3). docs/cache-model.md has the whole story and the figures
// against ncu.
//
// What it gives, e.g. 1024 x 28672 x 8192 bf16, 128 x 128 tiles on the H200 profile:
//   launch order      l2_hit_rate   DRAM read      (ncu: hit rate, DRAM read)
//   row-major         0.37          3.81 GB        (0.31, 3.83 GB)
//   grouped(16)       0.81          0.71 GB        (0.79, 0.71 GB)
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tilesight/cache/cache_model.h"
#include "tilesight/cache/launch_order.h"
#include "tilesight/cache/reuse_distance.h"

namespace tilesight::cache {

struct SdcmOptions {
  std::optional<LaunchOrderSpec> order;          // overrides the plan's launch order
  std::optional<double> skew_per_iteration;      // overrides the derived inter-SM skew (§5.3); 0: lockstep
  std::optional<double> fill_window;             // overrides the derived miss-in-flight window (0: off)
  std::optional<double> hit_window;              // overrides the derived window of a hit's open read (0: off)
  // The derived window's floor, in iterations: the lockstep spread of the tiles that share a
  // block, over which a miss stays pending for them. Chosen on l2_hit_calib.csv (372 ncu rows
  // on six shapes outside the corpus) with the measured hit window (l2.hit_merge_ns) and the
  // DRAM latency under load: 1.5 / 1.6 / 1.75 / 1.9 / 2 iterations give 6.08 / 5.80 / 5.54 /
  // 5.67 / 5.85 pp; checked on the 828-row corpus (4.73 pp; docs/cache-model.md).
  double lockstep_iterations = 1.75;
  // Requests that find a fill in flight reach an L2 lookup with odds 1 in this many
  // (ncu_pending.csv, burst rows; docs/cache-model.md); 1: every request is looked up.
  std::int64_t merge_per_lookup = 4;
  int k_samples = 1;                             // k-slices sampled along the reduction axis
  // Full waves evaluated besides the first (0: all; see sample_waves): at least max_waves, and
  // as many more as fit in wave_budget_tiles tiles. A grouped order's first touches come in
  // the waves where a group starts; two waves standing for 24 missed them (5120 x 5120 x 1536,
  // 64 x 128 tiles, group 8: A read at a tenth of its bytes from DRAM, B at 10x).
  // l2_residuals.py, budget 0 / 768 / 1024 / 2048 tiles / every wave: held out 4 3.72 / 3.68 /
  // 3.63 / 3.27 / 3.12 pp, cuBLAS 3.48 / 3.24 / 3.24 / 3.17 / 3.15, held out 4.59 / 4.51 / 4.74 /
  // 4.67 / 4.78, corpus 4.13-4.15 throughout; callgrind over the bench's 180 plans: 1.00 / 1.11 /
  // 1.21 / 1.57 / 3.2x the instructions (docs/cache-model.md, "Which waves the walk samples").
  // Three since 2-stage loops keep pace while their wave's footprint allows it (stream_shape.cpp,
  // coupled_rate_sd): a wave's width grows with the waves, and two samples standing for 7-8 waves
  // each read it at the ends. max_waves 2 / 3 / 4 with that rule: corpus 3.87 / 3.84 / 3.85 pp,
  // calibration 4.79 / 4.79 / 4.76, held out 4.00 / 3.95 / 3.84, held out 4 2.95 / 2.65 / 2.53,
  // held out 5 4.12 / 3.78 / 3.72; 8192^3's cache model 75 / 102 / 160 us on the 2-core box
  // (Google Benchmark): four would take a whole prediction past 200 us.
  std::int64_t max_waves = 3;
  std::int64_t wave_budget_tiles = 768;
  bool tile_maps = true;                         // fill CacheTraffic::tile_maps
  bool exact = false;                            // eq. 7 instead of eqs. 8-10 (slow)
  // Blocks of an access (ReuseKeys::count) past which the walk numbers those it meets instead
  // of keeping a slot for each: the same traffic, memory and time that grow with the blocks the
  // sampled waves touch, not with the tensor. An rmsnorm of 8 M rows of 4096 spent 3.1 s and
  // 1 GB on slots no wave touched (0.04 s, 11 MB numbered); 1.6 M rows 0.76 s -> 0.03 s. The
  // corpus's GEMMs have at most 115 k blocks an access.
  std::int64_t dense_keys = std::int64_t{1} << 18;
  // Reuse this thread's last few analyses of the same inputs (exact; not with tile_maps): a
  // tile-config search varies warps, which the cache model does not see (stages it sees
  // through the fill window: what the pipeline keeps in flight).
  bool memo = true;
  // Measured start of each launch position (a %globaltimer trace of the CTAs), in tile times
  // after the launch's first start: the walk takes them for the model's wave widths, and walks
  // every wave (read_tile_starts reads a trace). What the hit rate would be with the skew the
  // launch really had: the cache model's reuse and capacity on their own (docs/cache-model.md).
  std::vector<double> tile_starts;
};

class SdcmCacheModel final : public CacheModel {
 public:
  SdcmCacheModel() = default;
  explicit SdcmCacheModel(SdcmOptions options) : options_(std::move(options)) {}
  std::string name() const override { return "sdcm (tile reuse distance, §3.5)"; }
  CacheTraffic analyze(const plan::TileProgram& program, const hw::HardwareSpec& hw) const override;

 private:
  SdcmOptions options_;
};

}  // namespace tilesight::cache
