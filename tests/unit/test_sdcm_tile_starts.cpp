// Measured CTA start times in the cache model (SdcmOptions::tile_starts, tile_starts.h): the
// trace reader and what the walk makes of the starts.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "sdcm_test_spec.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/cache/tile_starts.h"
#include "tilesight/kernels/gemm.h"

using namespace tilesight;
using tilesight::test::sdcm::gemm;
using tilesight::test::sdcm::h200_like;

namespace {

Result<std::vector<double>> read(const std::string& text) {
  std::istringstream in(text);
  return cache::read_tile_starts(in);
}

}  // namespace

TEST_CASE("a CTA trace becomes start times in tile times", "[cache][tile_starts]") {
  // Four CTAs out of order, with comments and extra columns: tile times 100, 200, 100, 100
  // ns (the median, the upper one of an even count, 100), starts 100, 100, 150, 300 ns after
  // nothing: 0, 0, 0.5 and 2 tile times after the first.
  const auto starts = read("# device: H200\ncase,pid,smid,t_start_ns,t_end_ns\n"
                           "a,2,7,150,250\na,0,3,100,200\n\na,1,4,100,300\na,3,9,300,400\n");
  REQUIRE(starts);
  REQUIRE(starts->size() == 4);
  CHECK((*starts)[0] == 0);
  CHECK((*starts)[1] == 0);
  CHECK((*starts)[2] == Approx(0.5));
  CHECK((*starts)[3] == Approx(2.0));
}

TEST_CASE("a bad CTA trace names the line and the column", "[cache][tile_starts]") {
  const auto no_end = read("pid,t_start_ns\n0,1\n");
  REQUIRE_FALSE(no_end);
  CHECK(no_end.errors().front().path == "t_end_ns");
  CHECK(no_end.errors().front().line == 1);
  const auto twice = read("pid,t_start_ns,t_end_ns\n0,1,5\n0,2,6\n1,x,3\n1,4,2\n");
  REQUIRE_FALSE(twice);
  REQUIRE(twice.errors().size() == 3);  // every bad row, not only the first
  CHECK(twice.errors()[0].line == 3);
  CHECK(twice.errors()[0].message.find("again (first on line 2)") != std::string::npos);
  CHECK(twice.errors()[1].path == "t_start_ns");
  CHECK(twice.errors()[2].message == "must be after t_start_ns");
  const auto gap = read("pid,t_start_ns,t_end_ns\n0,1,5\n2,2,6\n");
  REQUIRE_FALSE(gap);
  CHECK(gap.errors().front().message.find("CTA 1 missing") != std::string::npos);
  CHECK_FALSE(read(""));
  CHECK_FALSE(read("pid,t_start_ns,t_end_ns\n-1,1,2\n"));
}

TEST_CASE("measured starts set who reads a block together", "[cache][tile_starts]") {
  // 2048^2 x 2048 bf16, 8 x 8 tiles of 256 x 256 (one wave), one L2 partition, no drift, a
  // fill window of 4 iterations, no hit window: every block of A is read by the 8 tiles of its
  // row (launch positions 8r .. 8r + 7), every block of B by the 8 of its column (c, c + 8, ...).
  auto hw = h200_like();
  hw.l2.partitions = 1;
  const auto program = kernels::lift_gemm(gemm(2048, 2048, 2048, 256, 256, 1, 2, 8));
  const double operand = 2048.0 * 2048 * 2;
  const auto with = [&](std::vector<double> starts) {
    return cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 4.0, .hit_window = 0.0,
                                  .tile_starts = std::move(starts)})
        .analyze(program, hw);
  };
  // All at once (as the model's first wave): both operands' 8 readers find the fill in flight,
  // 1 + 7 / 4 = 2.75 lookups and 5.25 merged a block of 8 requests (ncu_pending.csv's burst).
  const auto together = with(std::vector<double>(64, 0.0));
  // Each column a quarter of a tile (8 of its 32 iterations) after the one before: a row's
  // readers of A are 8 iterations apart, past the window, and each is looked up on its own;
  // a column's readers of B still start together and merge as before.
  std::vector<double> staggered;
  for (int pos = 0; pos < 64; ++pos) staggered.push_back(0.25 * (pos % 8));
  const auto apart = with(staggered);
  for (const auto* t : {&together, &apart})
    for (const auto& a : t->accesses) {
      if (a.write) continue;
      CHECK(a.requested_bytes == Approx(8 * operand));
      const bool spread = t == &apart && a.tensor == "A";
      CHECK(a.l2_lookup_bytes == Approx((spread ? 8 : 2.75) * operand));
      CHECK(a.l2_merged_bytes == Approx((spread ? 0 : 5.25) * operand));
      CHECK(a.l2_pending_bytes == Approx(spread ? 0 : 7 * operand));
      CHECK(a.dram_bytes >= Approx(operand));
    }
  // The model's own first wave starts within 0.1 iteration: the same as all at once.
  const auto model = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 4.0, .hit_window = 0.0})
                         .analyze(program, hw);
  CHECK(model.l2_hit_rate() == Approx(together.l2_hit_rate()).epsilon(1e-12));
}
