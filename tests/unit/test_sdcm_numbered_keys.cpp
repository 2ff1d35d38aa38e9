// The cache walk numbers the blocks it meets where an access has more than
// SdcmOptions::dense_keys of them (stream_walker.cpp, number_keys): the same traffic to the
// last bit, in memory that grows with the blocks the sampled waves touch, not with the tensor.
#include <catch2/catch.hpp>

#include <cstdint>

#include "sdcm_test_spec.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/kernels/memory_bound.h"

using namespace tilesight;
using tilesight::test::sdcm::gemm;
using tilesight::test::sdcm::h200_like;

namespace {

void check_same(const cache::CacheTraffic& a, const cache::CacheTraffic& b) {
  REQUIRE(a.accesses.size() == b.accesses.size());
  for (std::size_t i = 0; i < a.accesses.size(); ++i) {
    CHECK(a.accesses[i].l2_lookup_bytes == b.accesses[i].l2_lookup_bytes);
    CHECK(a.accesses[i].l2_hit_bytes == b.accesses[i].l2_hit_bytes);
    CHECK(a.accesses[i].l2_merged_bytes == b.accesses[i].l2_merged_bytes);
    CHECK(a.accesses[i].l2_far_hit_bytes == b.accesses[i].l2_far_hit_bytes);
    CHECK(a.accesses[i].dram_bytes == b.accesses[i].dram_bytes);
  }
  REQUIRE(a.tile_maps.size() == b.tile_maps.size());
  for (std::size_t m = 0; m < a.tile_maps.size(); ++m) {
    CHECK(a.tile_maps[m].hit_rate == b.tile_maps[m].hit_rate);
    CHECK(a.tile_maps[m].reuse_distance == b.tile_maps[m].reuse_distance);
  }
}

}  // namespace

TEST_CASE("numbering the blocks a walk meets changes no figure", "[cache][sdcm]") {
  const auto hw = h200_like();
  // Every access numbered (dense_keys 0) against none: a wide grouped GEMM (whose grouped order
  // reads B's blocks again a group later) and a grid of many waves with few sampled.
  for (const auto& params : {gemm(1024, 28672, 8192, 128, 128, 16, 4, 4), gemm(8192, 8192, 8192, 128, 128, 8, 3, 8),
                             gemm(5120, 5120, 1536, 64, 64, 8, 3, 8)}) {
    const auto program = kernels::lift_gemm(params);
    const auto slots = cache::SdcmCacheModel({.memo = false}).analyze(program, hw);
    const auto numbered = cache::SdcmCacheModel({.dense_keys = 0, .memo = false}).analyze(program, hw);
    check_same(slots, numbered);
  }
}

TEST_CASE("an rmsnorm of 10^8 rows walks as one of 1.6 M rows does", "[cache][sdcm]") {
  // Each row is read twice (the sum of squares, then the scaled output) and the weight by every
  // row: past the first waves no row's hit rate depends on how many rows follow, so 70 times
  // the rows keep the hit rate. The 114.7 M rows' blocks of X once took the walk a slot each
  // (1.6 M rows: 0.76 s and 210 MB a prediction, now 0.03 s and 11 MB).
  const auto hw = h200_like();
  const auto rmsnorm = [&](std::int64_t rows) {
    return cache::SdcmCacheModel({.tile_maps = false})
        .analyze(kernels::lift_memory_bound({.kernel = "rmsnorm", .rows = rows, .cols = 4096}), hw)
        .l2_hit_rate();
  };
  const double many = rmsnorm(1638400);
  CHECK(many > 0.5);
  CHECK(rmsnorm(114688000) == Approx(many).margin(0.001));
}
