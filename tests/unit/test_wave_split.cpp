// Per-wave timing (model/evaluate.cpp, full_wave_groups): each group of full waves is
// evaluated at its own L2/DRAM split (cache::CacheTraffic::wave_traffic), checked by hand on the
// H200-like spec of gemm_test_spec.h.
#include <catch2/catch.hpp>

#include "tilesight/cache/cache_model.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/model/evaluate.h"
#include "gemm_test_spec.h"

using namespace tilesight;
using tilesight::test::gemm;
using tilesight::test::h200_like;

namespace {

// The first-touch traffic with every load's DRAM bytes at `share` of its requests, and, where
// `waves` is given, per wave of 132 tiles (CacheTraffic::wave_traffic) at those shares.
class SplitCacheModel final : public cache::CacheModel {
 public:
  SplitCacheModel(double share, std::vector<double> waves = {}) : share_(share), waves_(std::move(waves)) {}
  std::string name() const override { return "split"; }
  cache::CacheTraffic analyze(const plan::TileProgram& program, const hw::HardwareSpec& hw) const override {
    cache::CacheTraffic t = cache::FirstTouchCacheModel().analyze(program, hw);
    auto at = [&](double share) {
      std::vector<double> dram;
      for (const auto& a : t.accesses) dram.push_back(a.write ? a.dram_bytes : a.requested_bytes * share);
      return dram;
    };
    for (std::size_t a = 0; a < t.accesses.size(); ++a) t.accesses[a].dram_bytes = at(share_)[a];
    t.stream = cache::StreamTiming{.tiles_in_flight = 132};
    for (std::size_t w = 0; w < waves_.size(); ++w)
      t.wave_traffic.push_back({.wave = static_cast<std::int64_t>(w), .waves = 1, .dram_bytes = at(waves_[w])});
    return t;
  }

 private:
  double share_;
  std::vector<double> waves_;
};

}  // namespace

TEST_CASE("each wave is timed at its own L2/DRAM split", "[gemm][model]") {
  // 1536 x 2816 x 4096 with 128 x 128 x 64 tiles at 6 stages: two full waves of 132 tiles,
  // one an SM. Each iteration of a wave reads 132 x 32 KiB: from DRAM, 4.33 MB at 4.2 TB/s =
  // 1.03 us, longer than the tensor cores' 0.30 us and the L2's 0.28 us; from L2, those bound
  // it. A launch whose first wave reads from DRAM and whose second reads from L2 takes the sum
  // of the two waves' times, each as long as in a launch of two such waves: half of each.
  // At its average split (half from DRAM: 0.52 us an iteration) it would take less.
  const auto hw = h200_like();
  auto p = gemm(1536, 2816, 4096);
  p.stages = 6;
  const auto prog = kernels::lift_gemm(p);
  auto latency = [&](const SplitCacheModel& m) {
    const auto pred = model::evaluate(prog, hw, model::EvaluateOptions{.cache_model = &m, .timeline = false});
    REQUIRE(pred.ok());
    REQUIRE(pred->waves == 2);
    return pred->latency_us - pred->launch_overhead_us;
  };
  const double dram = latency(SplitCacheModel(1.0)), l2 = latency(SplitCacheModel(0.0));
  const double average = latency(SplitCacheModel(0.5));
  const double split = latency(SplitCacheModel(0.5, {1.0, 0.0}));
  CHECK(dram > 2 * l2);
  CHECK(split == Approx((dram + l2) / 2).epsilon(1e-9));
  CHECK(split > 1.2 * average);
  // Waves the walk did not sample as the timing counts them (another slot count) fall back to
  // the average.
  class Elsewhere final : public cache::CacheModel {
   public:
    std::string name() const override { return "elsewhere"; }
    cache::CacheTraffic analyze(const plan::TileProgram& program, const hw::HardwareSpec& hw) const override {
      auto t = SplitCacheModel(0.5, {1.0, 0.0}).analyze(program, hw);
      t.stream->tiles_in_flight = 264;
      return t;
    }
  } elsewhere;
  const auto pred = model::evaluate(prog, hw, model::EvaluateOptions{.cache_model = &elsewhere, .timeline = false});
  REQUIRE(pred.ok());
  CHECK(pred->latency_us - pred->launch_overhead_us == Approx(average).epsilon(1e-9));
}
