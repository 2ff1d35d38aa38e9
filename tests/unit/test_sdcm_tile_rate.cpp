// The tiles' own speeds (SkewModel::rate_sd, hw tile_rate_sd): loops whose loads queue behind
// the SM's path from L2 let their tiles drift apart, and waves of a deep-K grid dissolve.
#include <catch2/catch.hpp>

#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"

using namespace tilesight;

namespace {

kernels::GemmParams deep_k(std::int64_t stages) {
  kernels::GemmParams p;
  p.M = 8192, p.N = 8192, p.K = 28672;
  p.block_m = 64, p.block_n = 128, p.block_k = 32, p.group_m = 1, p.stages = stages, p.warps = 4;
  return p;
}

}  // namespace

TEST_CASE("tiles whose loads queue drift apart: deep-stage group-1 GEMMs lose the reuse across rows", "[cache][sdcm]") {
  // 8192 x 8192 x 28672, 64 x 128 x 32 tiles, group 1: every row of 64 tiles shares its A
  // blocks, tiles 64 launch positions apart share B. ncu (tests/validation/h200/
  // l2_hit_corpus.csv) measures 28.4% at 3 stages and 27.3% at 5 (54-57 GB read from DRAM):
  // B misses. cta_skew.csv.gz shows why: tiles 64 positions apart start 55-100 iterations
  // apart, the waves dissolved. Their loads queue (4 tiles per SM, 12 KiB an iteration each:
  // 746 ns at 65.9 GB/s, two stages ahead 1.49 us against a 825 ns loaded round trip: 45%
  // queued at 3 stages), so tiles run at speeds of their own (tile_rate_sd 0.107).
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  REQUIRE(hw->tile_rate_sd > 0);
  auto paced = *hw;
  paced.tile_rate_sd = 0;
  const cache::SdcmCacheModel sdcm({.tile_maps = false, .memo = false});
  for (const auto& [stages, measured] : {std::pair{3, 0.284}, std::pair{5, 0.273}}) {
    const auto prog = kernels::lift_gemm(deep_k(stages));
    const double own_speeds = sdcm.analyze(prog, *hw).l2_hit_rate();
    const double keeping_pace = sdcm.analyze(prog, paced).l2_hit_rate();
    INFO(stages << " stages: " << own_speeds << " (keeping pace: " << keeping_pace << ")");
    CHECK(own_speeds == Approx(measured).margin(0.05));
    CHECK(keeping_pace - own_speeds > 0.15);
  }
  // At 2 stages one stage ahead (746 ns) arrives within the round trip: nothing queues, the
  // tiles keep pace and tile_rate_sd changes nothing (ncu: 76.7%, the waves stay together).
  const auto two = kernels::lift_gemm(deep_k(2));
  CHECK(sdcm.analyze(two, *hw).l2_hit_rate() == Approx(sdcm.analyze(two, paced).l2_hit_rate()).epsilon(1e-12));
}
