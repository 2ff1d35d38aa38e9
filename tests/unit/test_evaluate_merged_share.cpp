// EvaluateOptions::l2_merged_share (tilesight-cli predict --l2-merged): the timing with the
// loads' merges before L2 given, the cache model's hit rates kept.
#include <catch2/catch.hpp>

#include "sdcm_test_spec.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/model/evaluate.h"

using namespace tilesight;

TEST_CASE("a given merged share replaces the cache model's and moves only the timing", "[model][cache]") {
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  // 8192 x 8192 x 28672, 256 x 64 x 64 tiles, row-major, 4 stages: one tile an SM, its L2 lane
  // the steady bottleneck (each iteration 32 KiB of A and 8 KiB of B over one SM's path).
  const auto program = kernels::lift_gemm(test::sdcm::gemm(8192, 8192, 28672, 256, 64, 1, 4, 4));
  const auto own = model::evaluate(program, *hw, {.timeline = false, .diagnosis = false});
  const auto none = model::evaluate(program, *hw, {.timeline = false, .diagnosis = false, .l2_merged_share = 0.0});
  const auto half = model::evaluate(program, *hw, {.timeline = false, .diagnosis = false, .l2_merged_share = 0.5});
  REQUIRE(own);
  REQUIRE(none);
  REQUIRE(half);
  REQUIRE(half->tensors.size() == own->tensors.size());
  for (std::size_t t = 0; t < own->tensors.size(); ++t) {
    const auto& a = half->tensors[t];
    // Every loaded tensor merges half of its requests; the stores none; hits and DRAM as before.
    CHECK(a.l2_merged_bytes == Approx(a.tensor == "C" ? 0.0 : 0.5 * a.requested_bytes));
    CHECK(a.l2_hit_bytes == Approx(own->tensors[t].l2_hit_bytes));
    CHECK(a.dram_bytes == Approx(own->tensors[t].dram_bytes));
  }
  CHECK(half->l2_hit_rate == Approx(own->l2_hit_rate));
  // The merged requests save l2.merge_saving (0.75) of their time on the L2 lane: with none
  // merged the loop is slower than with the model's 5-6% of A, with half of them faster.
  CHECK(none->latency_us > own->latency_us);
  CHECK(half->latency_us < own->latency_us);
  CHECK(half->busy_us[index(Resource::kL2)] < none->busy_us[index(Resource::kL2)]);
}
