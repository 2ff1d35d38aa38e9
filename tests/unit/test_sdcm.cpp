// SDCM hit probability (§3.5.2): the Gaussian approximation (eqs. 8-10, DESIGN.md's
// correction) against the exact binomial (eq. 7), both against a brute-force set-associative
// LRU cache simulated here, and the cache model built on them (sdcm_cache_model.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <list>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <random>
#include <unordered_map>
#include <vector>

#include "tilesight/cache/sdcm.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/model/occupancy.h"
#include "tilesight/model/resource_vector.h"

using namespace tilesight;
using cache::sdcm_hit_exact;
using cache::sdcm_hit_gaussian;

namespace {

// A set-associative LRU cache: `sets` sets of `ways` lines; a block goes to the set a random
// (seeded) hash gives it, the mapping SDCM assumes.
class LruCache {
 public:
  LruCache(int sets, int ways, std::uint64_t seed) : sets_(static_cast<std::size_t>(sets)), ways_(ways), seed_(seed) {}
  bool access(std::uint64_t block) {
    auto& set = sets_[set_of(block)];
    const auto it = std::find(set.begin(), set.end(), block);
    const bool hit = it != set.end();
    if (hit) set.erase(it);
    set.push_front(block);
    if (static_cast<int>(set.size()) > ways_) set.pop_back();
    return hit;
  }

 private:
  std::size_t set_of(std::uint64_t block) const {
    std::uint64_t z = block * 0x9e3779b97f4a7c15ULL + seed_;
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
    return static_cast<std::size_t>((z ^ (z >> 29)) % sets_.size());
  }
  std::vector<std::list<std::uint64_t>> sets_;
  int ways_;
  std::uint64_t seed_;
};

// Hit fraction of a block re-touched after `distance` distinct other blocks, over many trials.
double simulated_hit(int sets, int ways, int distance, int trials) {
  int hits = 0;
  std::uint64_t next = 1;
  for (int t = 0; t < trials; ++t) {
    LruCache c(sets, ways, static_cast<std::uint64_t>(t) * 7919);
    const std::uint64_t x = next++;
    c.access(x);
    for (int i = 0; i < distance; ++i) c.access(next++);
    hits += c.access(x) ? 1 : 0;
  }
  return static_cast<double>(hits) / trials;
}

hw::HardwareSpec h200_like() {
  hw::HardwareSpec hw;
  hw.name = "h200-test";
  hw.sm_count = 132;
  hw.limits = {.smem_bytes_per_sm = 233472, .smem_bytes_per_block = 232448, .smem_reserved_per_block = 1024,
               .registers_per_sm = 65536, .registers_per_thread = 255, .register_alloc_unit = 256,
               .max_warps_per_sm = 64, .max_blocks_per_sm = 32, .max_threads_per_block = 1024};
  hw.tensor_core.flops_per_s = {{DType::kBF16, 850e12}};
  hw.smem_bandwidth_per_sm = 250e9;
  hw.l2 = {.bytes = 56e6, .bandwidth = 8.7e12, .per_sm_bandwidth = 65.9e9, .associativity = 16, .line_bytes = 128,
           .partitions = 2, .latency_ns = 207.5};
  hw.dram_bandwidth = 4.4e12;
  hw.dram_latency_ns = 400;
  return hw;
}

kernels::GemmParams gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t bm, std::int64_t bn,
                         std::int64_t group_m, std::int64_t stages, std::int64_t warps) {
  kernels::GemmParams p;
  p.M = m, p.N = n, p.K = k;
  p.block_m = bm, p.block_n = bn, p.block_k = 64, p.group_m = group_m, p.stages = stages, p.warps = warps;
  return p;
}

}  // namespace

TEST_CASE("Zelen-Severo normal CDF", "[cache][sdcm]") {
  CHECK(cache::normal_cdf(0) == Approx(0.5).margin(1e-7));
  CHECK(cache::normal_cdf(1.959964) == Approx(0.975).margin(1e-6));
  CHECK(cache::normal_cdf(-1) == Approx(0.158655).margin(1e-6));
  for (double x : {0.3, 1.1, 2.5, 4.0}) CHECK(cache::normal_cdf(-x) == Approx(1 - cache::normal_cdf(x)).margin(1e-12));
  CHECK(cache::normal_cdf(40) == 1.0);
  CHECK(cache::normal_cdf(-40) == 0.0);
}

TEST_CASE("SDCM edges: no reuse distance hits, an infinite one misses", "[cache][sdcm]") {
  CHECK(sdcm_hit_exact(0, 16, 1000) == 1.0);
  CHECK(sdcm_hit_gaussian(0, 16, 1000) == 1.0);
  CHECK(sdcm_hit_exact(15, 16, 1000) == 1.0);  // fewer blocks than ways cannot evict it
  CHECK(sdcm_hit_gaussian(std::numeric_limits<double>::infinity(), 16, 1000) == 0.0);
  // A cache of one set (B_T = A, sigma = 0): a hit while fewer than A blocks came in between.
  CHECK(sdcm_hit_gaussian(15, 16, 16) == 1.0);
  CHECK(sdcm_hit_gaussian(16, 16, 16) == 0.0);
  CHECK(sdcm_hit_exact(16, 16, 16) == 0.0);
  // D_T far past the capacity: no overflow in eq. 7, no NaN.
  CHECK(sdcm_hit_exact(10'000'000, 16, 4096) == Approx(0.0).margin(1e-12));
  CHECK(sdcm_hit_gaussian(1e9, 16, 4096) == 0.0);
  // Falls with D_T.
  double prev = 1.0;
  for (int d = 64; d <= 4096; d *= 2) {
    const double p = sdcm_hit_exact(d, 16, 1024);
    CHECK(p <= prev);
    prev = p;
  }
}

TEST_CASE("Gaussian SDCM (eqs. 8-10) tracks the exact binomial (eq. 7)", "[cache][sdcm]") {
  // Grid of A in {4, 8, 16, 32}, B_T in {64 .. 16384}, D_T from 0.1 to 4 B_T. Tolerance from
  // this grid: worst |difference| 0.034 (A = 4, where the binomial is most skewed), mean 0.006.
  double worst = 0, sum = 0;
  int n = 0;
  for (double a : {4.0, 8.0, 16.0, 32.0})
    for (double b : {64.0, 256.0, 1024.0, 4096.0, 16384.0})
      for (double f : {0.1, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0}) {
        const auto d = std::max<std::int64_t>(1, static_cast<std::int64_t>(f * b));
        const double diff = std::fabs(sdcm_hit_gaussian(static_cast<double>(d), a, b) - sdcm_hit_exact(d, a, b));
        worst = std::max(worst, diff);
        sum += diff;
        ++n;
      }
  CHECK(worst < 0.035);
  CHECK(sum / n < 0.007);
  // With DESIGN.md's correction the Gaussian goes below 1/2 (eq. 8 as printed never does).
  CHECK(sdcm_hit_gaussian(2048, 16, 1024) < 0.01);
}

TEST_CASE("both SDCM forms match a brute-force set-associative LRU cache", "[cache][sdcm]") {
  // 64 sets x 8 ways = 512 blocks; a block re-touched after D distinct others, 3000 trials
  // each with its own random set mapping: sampling error about 0.01, allowed 0.03 + the
  // Gaussian's own gap to eq. 7.
  const int sets = 64, ways = 8, capacity = sets * ways;
  for (int d : {128, 256, 384, 512, 640, 1024}) {
    const double sim = simulated_hit(sets, ways, d, 3000);
    INFO("D_T = " << d << ", simulated " << sim);
    CHECK(sdcm_hit_exact(d, ways, capacity) == Approx(sim).margin(0.03));
    CHECK(sdcm_hit_gaussian(d, ways, capacity) == Approx(sim).margin(0.05));
  }
}

TEST_CASE("SDCM predicts the hits of a random trace through an LRU cache", "[cache][sdcm]") {
  // A random trace over 600 blocks; each access's reuse distance (distinct blocks since its
  // last touch) counted by brute force, hits summed from eq. 7 and eqs. 8-10, against the
  // simulated cache averaged over 20 random set mappings.
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::uint64_t> block(0, 599);
  std::vector<std::uint64_t> trace(4000);
  for (auto& b : trace) b = block(rng);
  const int sets = 32, ways = 8, capacity = sets * ways;
  double exact = 0, gauss = 0;
  std::unordered_map<std::uint64_t, std::size_t> last;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if (auto it = last.find(trace[i]); it != last.end()) {
      std::vector<std::uint64_t> between(trace.begin() + static_cast<std::ptrdiff_t>(it->second) + 1,
                                         trace.begin() + static_cast<std::ptrdiff_t>(i));
      std::sort(between.begin(), between.end());
      const auto d = std::unique(between.begin(), between.end()) - between.begin();
      exact += sdcm_hit_exact(d, ways, capacity);
      gauss += sdcm_hit_gaussian(static_cast<double>(d), ways, capacity);
    }
    last[trace[i]] = i;
  }
  double simulated = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    LruCache c(sets, ways, seed);
    for (auto b : trace) simulated += c.access(b) ? 1 : 0;
  }
  simulated /= 20;
  CHECK(exact == Approx(simulated).epsilon(0.03));
  CHECK(gauss == Approx(simulated).epsilon(0.05));
}

TEST_CASE("grouped launch lifts the L2 hit rate of a wide GEMM (VALIDATION.md)", "[cache][sdcm]") {
  // 1024 x 28672 x 8192 bf16, 128 x 128 tiles: ncu measures 31% row-major, 79% with
  // GROUP_M 16, DRAM reads 3.83 GB vs 0.71 GB (tests/validation/h200/l2_hit.csv).
  const auto hw = h200_like();
  const cache::SdcmCacheModel sdcm;
  const auto rows = sdcm.analyze(kernels::lift_gemm(gemm(1024, 28672, 8192, 128, 128, 1, 4, 4)), hw);
  const auto grouped = sdcm.analyze(kernels::lift_gemm(gemm(1024, 28672, 8192, 128, 128, 16, 4, 4)), hw);
  CHECK(rows.l2_hit_rate() == Approx(0.31).margin(0.12));
  CHECK(grouped.l2_hit_rate() == Approx(0.79).margin(0.10));
  CHECK(rows.dram_read_bytes() == Approx(3.83e9).epsilon(0.10));
  CHECK(grouped.dram_read_bytes() == Approx(0.71e9).epsilon(0.10));
}

TEST_CASE("inter-SM skew closes the deep-K gap of §5.3", "[cache][sdcm]") {
  // 8192 x 8192 x 28672, 128 x 256 tiles, row-major: the lockstep model predicts about 75%,
  // ncu measures 40.6% (the paper: 82% vs 43%); the drift derived from the profile brings it
  // near. A 4096^3 GEMM's few iterations leave little room for drift.
  const auto hw = h200_like();
  const auto deep = kernels::lift_gemm(gemm(8192, 8192, 28672, 128, 256, 1, 3, 8));
  // (The paper's lockstep model: without misses in flight, which lockstep would make pend.)
  const double lockstep =
      cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 0.0}).analyze(deep, hw).l2_hit_rate();
  const double skewed = cache::SdcmCacheModel().analyze(deep, hw).l2_hit_rate();
  CHECK(lockstep > 0.65);
  CHECK(skewed == Approx(0.406).margin(0.10));
  CHECK(lockstep - skewed > 0.2);
}

TEST_CASE("misses in flight: touches within one DRAM round trip of a miss hit the pending fill or merge", "[cache][sdcm]") {
  const auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096, 128, 128, 8, 3, 8));
  // The window by hand: an iteration of one tile is the longer of 2*128*128*64 flops at the
  // SM's share of 850 TFLOP/s (325.7 ns) and (128 + 128) * 64 * 2 bytes at 65.9 GB/s (497.2
  // ns), times the tiles resident on the SM. A fill's round trip is the longer of the DRAM
  // latency (400 ns) and the time the SM's path from L2 takes to drain what the 3-stage
  // pipelines keep in flight, two stages of each resident tile (994.4 ns per tile): two
  // iterations.
  const auto occ = model::compute_occupancy(prog.resources, hw);
  REQUIRE(occ);
  const double iteration_ns = occ->resident_blocks * (128.0 + 128) * 64 * 2 / 65.9e9 * 1e9;
  const double round_trip_ns = std::max(400.0, 2 * iteration_ns);
  const double window = round_trip_ns / iteration_ns;
  CHECK(window == Approx(2.0));
  const auto derived = cache::SdcmCacheModel().analyze(prog, hw);
  const auto by_hand = cache::SdcmCacheModel({.fill_window = window}).analyze(prog, hw);
  CHECK(derived.l2_hit_rate() == Approx(by_hand.l2_hit_rate()).epsilon(1e-12));
  // Off, no touch is pending and every request is looked up; on, DRAM reads stay (a pending
  // touch rides on the fill already under way) and the merged requests leave the lookups.
  const auto off = cache::SdcmCacheModel({.fill_window = 0.0}).analyze(prog, hw);
  for (const auto& a : off.accesses) CHECK(a.l2_pending_bytes == 0);
  for (const auto& a : off.accesses) CHECK(a.l2_merged_bytes == 0);
  CHECK(derived.dram_read_bytes() == Approx(off.dram_read_bytes()).epsilon(1e-9));
  // A window past every reuse in one wave of one partition, no skew: 2048^2 bf16 A and B, 8 x 8
  // tiles of 256 x 256 (one wave on 132 SMs), so every block of A (B) is touched by the 8 tiles
  // of its row (column), back to back. The first touch misses (cold), the 7 after it find the
  // fill in flight: by ncu_pending.csv's burst rows the first of them and then every fourth
  // reach L2 as hits (followers 1 and 5), the other 5 merge. Per block of 8 requests: 3
  // lookups, 2 hits, 7 pending, 5 merged, one DRAM read.
  auto one = hw;
  one.l2.partitions = 1;
  const auto small = kernels::lift_gemm(gemm(2048, 2048, 2048, 256, 256, 1, 2, 8));
  const auto all = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e9}).analyze(small, one);
  for (const auto& a : all.accesses) {
    if (a.write) continue;
    CHECK(a.requested_bytes == Approx(8 * 2048.0 * 2048 * 2));
    CHECK(a.l2_lookup_bytes == Approx(3 * 2048.0 * 2048 * 2));
    CHECK(a.l2_hit_bytes == Approx(2 * 2048.0 * 2048 * 2));
    CHECK(a.l2_pending_bytes == Approx(7 * 2048.0 * 2048 * 2));
    CHECK(a.l2_merged_bytes == Approx(5 * 2048.0 * 2048 * 2));
    CHECK(a.dram_bytes == Approx(2048.0 * 2048 * 2));
  }
  // Every request looked up (merge_per_lookup 1): the 7 followers all hit the pending fill, as
  // ncu counts the second CTA's read in the 2-CTA burst (32768 hits of 65536 lookups).
  const auto unmerged =
      cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e9, .merge_per_lookup = 1}).analyze(small, one);
  for (const auto& a : unmerged.accesses) {
    if (a.write) continue;
    CHECK(a.l2_lookup_bytes == Approx(a.requested_bytes));
    CHECK(a.l2_hit_bytes == Approx(7 * 2048.0 * 2048 * 2));
    CHECK(a.dram_bytes == Approx(2048.0 * 2048 * 2));
  }
}

TEST_CASE("wrapped rows of a tile wider than the tensor: each repeat a request, in flight by the burst rule",
          "[cache][sdcm]") {
  // 16 x 2048 x 1024 bf16, 64 x 256 x 64 tiles: one row of 8 tiles, all reading the same
  // 16 x 64 block of A per k-step (2 KiB) and asking for it 4 times each (64 rows wrapped
  // modulo 16, in cp.async copies of their own). One partition, no skew, a window past every
  // reuse. Per k-step the 32 requests of A's block: tile 0's first misses (cold), its 3
  // repeats are followers 0-2 (0 looked up); then each tile's touch and 3 repeats are
  // followers 4t-1 .. 4t+2 (4t looked up). So 9 lookups (1 miss, 8 hits), 1 DRAM read,
  // 23 merged, 31 served by the fill in flight. B's blocks are each tile's own.
  auto one = h200_like();
  one.l2.partitions = 1;
  const auto prog = kernels::lift_gemm(gemm(16, 2048, 1024, 64, 256, 1, 2, 4));
  const auto t = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e9}).analyze(prog, one);
  const double block = 16.0 * 64 * 2, steps = 1024 / 64;
  const auto& a = t.accesses[0];
  REQUIRE(a.tensor == "A");
  CHECK(a.requested_bytes == Approx(32 * block * steps));
  CHECK(a.l2_lookup_bytes == Approx(9 * block * steps));
  CHECK(a.l2_hit_bytes == Approx(8 * block * steps));
  CHECK(a.l2_merged_bytes == Approx(23 * block * steps));
  CHECK(a.l2_pending_bytes == Approx(31 * block * steps));
  CHECK(a.dram_bytes == Approx(block * steps));
  // Without a fill window the repeats stay inside the SM: only the clamped block is looked up.
  const auto off = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 0.0}).analyze(prog, one);
  CHECK(off.accesses[0].l2_lookup_bytes == Approx(8 * block * steps));
}

TEST_CASE("cache model bookkeeping: lookups, hits and DRAM bytes add up", "[cache][sdcm]") {
  const auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096, 128, 128, 8, 3, 8));
  const auto t = cache::SdcmCacheModel().analyze(prog, hw);
  REQUIRE(t.accesses.size() == 3);
  for (const auto& a : t.accesses) {
    CHECK(a.l2_hit_bytes <= a.l2_lookup_bytes * (1 + 1e-9));
    if (a.write) {
      CHECK(a.l2_hit_bytes == Approx(a.requested_bytes));  // stores hit (write-back)
      CHECK(a.dram_bytes == Approx(4096.0 * 4096 * 2));
      continue;
    }
    // Requests end in a near hit (a pending fill's included), a far hit, a merge into a fill in
    // flight, or DRAM; the merged ones are no lookups.
    const double near_lookups = a.l2_lookup_bytes - a.l2_far_lookup_bytes;
    CHECK(a.l2_merged_bytes <= a.l2_pending_bytes);
    CHECK(near_lookups == Approx(a.requested_bytes - a.l2_merged_bytes).epsilon(1e-9));
    CHECK(a.dram_bytes == Approx(a.requested_bytes - a.l2_hit_bytes - a.l2_merged_bytes).epsilon(1e-6));
    CHECK(a.dram_bytes >= 4096.0 * 4096 * 2 * 0.999);  // at least every block once
    CHECK(a.requested_bytes == Approx(1024.0 * 64 * 128 * 64 * 2));
  }
  CHECK(t.l2_hit_rate() > 0.5);
  CHECK(t.l2_hit_rate() < 1.0);
}

TEST_CASE("per-tile hit-rate maps cover the grid", "[cache][sdcm]") {
  const auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(2048, 4096, 2048, 128, 128, 1, 3, 8));
  const auto t = cache::SdcmCacheModel().analyze(prog, hw);
  REQUIRE(t.tile_maps.size() == 3);  // all tensors, A, B
  CHECK(t.tile_maps[0].tensor.empty());
  CHECK(t.tile_maps[1].tensor == "A");
  for (const auto& m : t.tile_maps) {
    CHECK(m.level == "l2");
    REQUIRE(m.hit_rate.size() == 16u * 32u);
    for (double h : m.hit_rate) CHECK((h >= 0 && h <= 1));
  }
  // Batch runs skip them.
  CHECK(cache::SdcmCacheModel({.tile_maps = false}).analyze(prog, hw).tile_maps.empty());
  // And evaluate() turns them into the report's m x n maps.
  const auto pred = model::evaluate(prog, hw);
  REQUIRE(pred);
  REQUIRE(pred->hit_rate_maps.size() == 3);
  CHECK(pred->hit_rate_maps[0].rows == 16);
  CHECK(pred->hit_rate_maps[0].cols == 32);
  CHECK(pred->hit_rate_maps[0].row_dim == "m");
}

TEST_CASE("an L1.5 tier serves part of the loads and the resource vector charges it", "[cache][sdcm]") {
  auto hw = h200_like();
  hw.l15 = {.bytes = 28e6, .bandwidth = 20e12, .associativity = 16, .partitions = 2};
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096, 128, 128, 8, 3, 8));
  const auto t = cache::SdcmCacheModel().analyze(prog, hw);
  CHECK(t.l15_hit_rate() > 0.5);
  CHECK(t.l15_fraction("A") > 0.5);
  const auto u = model::resource_vector(prog.actions[0], hw, model::sm_rates(hw, 132, 1.0), t);
  CHECK(u[Resource::kL15] > 0);
  CHECK(t.tile_maps.back().level == "l15");
}

TEST_CASE("the memos give what a fresh walk gives across pipeline stages", "[cache][sdcm]") {
  // Stages change the fill window (the bytes the pipeline keeps in flight), not the stream:
  // the memo reuses the first pass (the touches) and redoes the runs of misses in flight.
  const auto hw = h200_like();
  const cache::SdcmCacheModel fresh({.tile_maps = false, .memo = false});
  const cache::SdcmCacheModel memo({.tile_maps = false});
  std::vector<double> pending;
  for (int stages : {2, 4, 2, 4}) {
    const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096, 128, 128, 8, stages, 8));
    const auto a = fresh.analyze(prog, hw), b = memo.analyze(prog, hw);
    REQUIRE(a.accesses.size() == b.accesses.size());
    for (std::size_t i = 0; i < a.accesses.size(); ++i) {
      const auto &x = a.accesses[i], &y = b.accesses[i];
      CHECK(x.dram_bytes == y.dram_bytes);
      CHECK(x.l2_lookup_bytes == y.l2_lookup_bytes);
      CHECK(x.l2_hit_bytes == y.l2_hit_bytes);
      CHECK(x.l2_far_lookup_bytes == y.l2_far_lookup_bytes);
      CHECK(x.l2_far_hit_bytes == y.l2_far_hit_bytes);
      CHECK(x.l2_pending_bytes == y.l2_pending_bytes);
      CHECK(x.l2_merged_bytes == y.l2_merged_bytes);
    }
    pending.push_back(a.accesses[0].l2_pending_bytes);
  }
  CHECK(pending[0] != pending[1]);  // the fill window did change the result
}

TEST_CASE("first-touch stays selectable through EvaluateOptions", "[cache][sdcm]") {
  const auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096, 128, 128, 1, 3, 8));
  const auto ft = model::evaluate(prog, hw, {.cache = model::CacheModelKind::kFirstTouch});
  const auto sdcm = model::evaluate(prog, hw);
  REQUIRE(ft);
  REQUIRE(sdcm);
  CHECK(ft->cache_model.find("first-touch") != std::string::npos);
  CHECK(sdcm->cache_model.find("sdcm") != std::string::npos);
  CHECK(ft->hit_rate_maps.empty());
  CHECK(sdcm->dram_read_bytes > ft->dram_read_bytes);  // a finite L2 misses more than an infinite one
}

namespace {

std::vector<std::vector<std::string>> read_csv(const std::string& path, std::vector<std::string>& header) {
  std::ifstream f(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (header.empty()) header = cells;
    else rows.push_back(cells);
  }
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
}

}  // namespace

TEST_CASE("L2 hit rate and DRAM reads against the ncu corpus of the H200", "[cache][validation]") {
  // tests/validation/h200: 1160 Triton GEMM launches under ncu (cold L2). Rows whose shapes
  // are not 16-element aligned (narrow loads, README there) or that spill registers (local
  // memory traffic through L2) are outside what the model sees. Regression bounds, not goals:
  // the model stands at 6.89 pp MAE and 0.13% median DRAM-read error on the other 828 rows
  // (7.07 pp before the tiles' own speeds, tile_rate_sd; tests/validation/h200/l2_residuals.py).
  const std::string dir = std::string(TILESIGHT_TEST_SOURCE_DIR) + "/tests/validation/h200/";
  std::vector<std::string> th;
  std::map<std::string, long> spills;
  auto key_of = [](const std::vector<std::string>& h, const std::vector<std::string>& r) {
    std::string k;
    for (const char* c : {"M", "N", "K", "block_m", "block_n", "block_k", "group_m", "stages", "warps"})
      k += r[column(h, c)] + ",";
    return k;
  };
  for (const auto& r : read_csv(dir + "triton_gemm.csv", th)) spills[key_of(th, r)] = std::stol(r[column(th, "n_spills")]);
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  const cache::SdcmCacheModel sdcm({.tile_maps = false});
  std::vector<double> abs_err, dram_err;
  for (const char* file : {"l2_hit_sweep.csv", "l2_hit_corpus.csv"}) {
    std::vector<std::string> h;
    for (const auto& r : read_csv(dir + file, h)) {
      auto at = [&](const char* c) { return std::stoll(r[column(h, c)]); };
      const auto p = gemm(at("M"), at("N"), at("K"), at("block_m"), at("block_n"), at("group_m"), at("stages"), at("warps"));
      if (p.M % 16 || p.N % 16 || p.K % 16 || spills[key_of(h, r)] != 0) continue;
      auto q = p;
      q.block_k = at("block_k");
      const auto t = sdcm.analyze(kernels::lift_gemm(q), *hw);
      abs_err.push_back(std::fabs(100 * t.l2_hit_rate() - std::stod(r[column(h, "l2_hit_pct")])));
      dram_err.push_back(std::fabs(t.dram_read_bytes() / std::stod(r[column(h, "dram_read_bytes")]) - 1));
    }
  }
  if (abs_err.empty()) {
    WARN("no ncu corpus under " << dir);
    return;
  }
  std::sort(dram_err.begin(), dram_err.end());
  const double mae = std::accumulate(abs_err.begin(), abs_err.end(), 0.0) / static_cast<double>(abs_err.size());
  INFO(abs_err.size() << " rows: MAE " << mae << " pp, median DRAM error " << dram_err[dram_err.size() / 2]);
  CHECK(abs_err.size() > 800);
  CHECK(mae < 7.2);
  CHECK(dram_err[dram_err.size() / 2] < 0.03);
}
