// The SDCM cache model on GEMM tile programs (sdcm_cache_model.h): launch orders, inter-SM
// skew, misses in flight, bookkeeping, tile maps, the L1.5 tier and the memos (the L2
// partitions and GPCs a launch's slots sit by: test_sdcm_partitions.cpp; tiles wider than the
// tensor: test_sdcm_wrapped.cpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sdcm_test_spec.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/model/occupancy.h"
#include "tilesight/model/resource_vector.h"

using namespace tilesight;
using tilesight::test::sdcm::gemm;
using tilesight::test::sdcm::h200_like;

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

TEST_CASE("every block's first read comes from DRAM, however few waves are sampled", "[cache][sdcm]") {
  // 5120 x 5120 x 1536 bf16, 64 x 64 x 128 tiles, group 8: 6400 tiles in 24 waves, of which
  // the walk samples a few; A's rows are first read in the waves where a group starts, which
  // the samples can miss (A came 1.6 MB from DRAM, a tenth of its 15.7 MB). The L2 starts
  // cold (ncu flushes it before each launch): each tensor's bytes are read at least once.
  auto params = gemm(5120, 5120, 1536, 64, 64, 8, 3, 8);
  params.block_k = 128;
  const auto t = cache::SdcmCacheModel().analyze(kernels::lift_gemm(params), h200_like());
  const double tensor = 5120.0 * 1536 * 2;
  for (std::size_t a : {0, 1}) {
    CHECK(t.accesses[a].dram_bytes >= tensor * 0.999);
    CHECK(t.accesses[a].l2_hit_bytes <= t.accesses[a].l2_lookup_bytes - t.accesses[a].dram_bytes + 1);
  }
}

TEST_CASE("a plan's Z-order launch is the cache model's Z-order walk", "[cache][sdcm]") {
  // The same walk whether the plan names it or SdcmOptions overrides the order; on a grid of
  // 8 x 224 tiles it keeps a wave's tiles within squares of rows and columns, not one row of B.
  const auto hw = h200_like();
  auto program = kernels::lift_gemm(gemm(1024, 28672, 8192, 128, 128, 1, 4, 4));
  const auto rows = cache::SdcmCacheModel().analyze(program, hw);
  const auto forced = cache::SdcmCacheModel({.order = cache::LaunchOrderSpec{.kind = cache::LaunchOrderSpec::Kind::kZOrder}})
                          .analyze(program, hw);
  program.grid.order = {plan::LaunchOrderKind::kZOrder, 1};
  const auto named = cache::SdcmCacheModel().analyze(program, hw);
  CHECK(named.l2_hit_rate() == forced.l2_hit_rate());
  CHECK(named.dram_read_bytes() == forced.dram_read_bytes());
  CHECK(named.l2_hit_rate() != rows.l2_hit_rate());
}

TEST_CASE("inter-SM skew closes the deep-K gap of §5.3", "[cache][sdcm]") {
  // 8192 x 8192 x 28672, 128 x 256 tiles, row-major: the lockstep model predicts about 75%,
  // ncu measures 40.6% (the paper: 82% vs 43%). Tiles that share blocks catch up with each
  // other (the drift within a tile is bounded); what spreads the waves is the tiles' own
  // speeds, which a 3-stage loop's queued loads give them (the profile's measured
  // tile_rate_sd, pipeline round trip and DRAM queueing, hw_profiles/h200.json).
  auto hw = h200_like();
  hw.tile_rate_sd = 0.107;
  hw.pipeline_round_trip_ns = 600;
  hw.dram_queue_ns = 225;
  const auto deep = kernels::lift_gemm(gemm(8192, 8192, 28672, 128, 256, 1, 3, 8));
  // (The paper's lockstep model: without misses in flight, which lockstep would make pend.)
  const double lockstep =
      cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 0.0}).analyze(deep, hw).l2_hit_rate();
  const double skewed = cache::SdcmCacheModel().analyze(deep, hw).l2_hit_rate();
  const double no_speeds = cache::SdcmCacheModel().analyze(deep, h200_like()).l2_hit_rate();
  CHECK(lockstep > 0.65);
  // It lands at 24.7%: 16 pp too skewed (the same with hw_profiles/h200.json; l2_hit.csv).
  CHECK(skewed == Approx(0.406).margin(0.17));
  CHECK(lockstep - skewed > 0.2);
  // Bounded drift alone keeps the waves near lockstep.
  CHECK(no_speeds - skewed > 0.2);
}

TEST_CASE("misses in flight: touches within one DRAM round trip of a miss hit the pending fill or merge", "[cache][sdcm]") {
  const auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096, 128, 128, 8, 3, 8));
  // The window by hand: an iteration of one tile is the longer of 2*128*128*64 flops at the
  // SM's share of 850 TFLOP/s (325.7 ns) and (128 + 128) * 64 * 2 bytes at 65.9 GB/s (497.2
  // ns), times the tiles resident on the SM. The window is the longer of the DRAM latency under
  // the launch's load and the tiles' lockstep spread, 1.75 iterations, whatever the stages (3
  // here; 2 before, two stages in flight). The load: A and B once, 2 x 4096^2 x 2 bytes, over
  // 1024 tiles of 64 iterations on 132 SMs at 497.2 ns a tile-iteration (247 us) take 0.062 of
  // the DRAM's 4.4 TB/s, so a miss waits 400 / (1 - 0.062) = 426 ns: 0.86 iterations or less.
  const auto occ = model::compute_occupancy(prog.resources, hw);
  REQUIRE(occ);
  const double iteration_ns = occ->resident_blocks * (128.0 + 128) * 64 * 2 / 65.9e9 * 1e9;
  const double launch_s = 1024.0 / 132 * 64 * (128.0 + 128) * 64 * 2 / 65.9e9;
  const double rho = 2 * 4096.0 * 4096 * 2 / (launch_s * 4.4e12);
  CHECK(rho == Approx(0.0618).epsilon(1e-3));
  CHECK(400.0 / (1 - rho) / iteration_ns <= Approx(0.858).epsilon(1e-3));
  const double window = std::max(400.0 / (1 - rho) / iteration_ns, 1.75);
  CHECK(window == Approx(1.75));
  const auto derived = cache::SdcmCacheModel().analyze(prog, hw);
  const auto by_hand = cache::SdcmCacheModel({.fill_window = window}).analyze(prog, hw);
  CHECK(derived.l2_hit_rate() == Approx(by_hand.l2_hit_rate()).epsilon(1e-12));
  // Five stages keep four in flight, yet the window stays the lockstep spread (ncu: one-wave
  // lookups flat in the stages).
  const auto deep = kernels::lift_gemm(gemm(4096, 4096, 4096, 128, 128, 8, 5, 8));
  CHECK(cache::SdcmCacheModel().analyze(deep, hw).l2_hit_rate() ==
        Approx(cache::SdcmCacheModel({.fill_window = 1.75}).analyze(deep, hw).l2_hit_rate()).epsilon(1e-12));
  // Off, no touch is pending and every request is looked up; on, DRAM reads stay (a pending
  // touch rides on the fill already under way) and the merged requests leave the lookups.
  const auto off = cache::SdcmCacheModel({.fill_window = 0.0}).analyze(prog, hw);
  for (const auto& a : off.accesses) CHECK(a.l2_pending_bytes == 0);
  for (const auto& a : off.accesses) CHECK(a.l2_merged_bytes == 0);
  CHECK(derived.dram_read_bytes() == Approx(off.dram_read_bytes()).epsilon(1e-9));
  // A window past every reuse in one wave of one partition, no skew: 2048^2 bf16 A and B, 8 x 8
  // tiles of 256 x 256 (one wave on 132 SMs), so every block of A (B) is touched by the 8 tiles
  // of its row (column), back to back. The first touch misses (cold), the 7 after it find the
  // fill in flight: by ncu_pending.csv's burst rows each of them reaches L2 (a hit) with odds
  // 1 in 4, and merges otherwise. Per block of 8 requests: 1 + 7 / 4 = 2.75 lookups, 1.75
  // hits, 7 pending, 5.25 merged, one DRAM read.
  auto one = hw;
  one.l2.partitions = 1;
  const auto small = kernels::lift_gemm(gemm(2048, 2048, 2048, 256, 256, 1, 2, 8));
  const auto all = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e9}).analyze(small, one);
  for (const auto& a : all.accesses) {
    if (a.write) continue;
    CHECK(a.requested_bytes == Approx(8 * 2048.0 * 2048 * 2));
    CHECK(a.l2_lookup_bytes == Approx(2.75 * 2048.0 * 2048 * 2));
    CHECK(a.l2_hit_bytes == Approx(1.75 * 2048.0 * 2048 * 2));
    CHECK(a.l2_pending_bytes == Approx(7 * 2048.0 * 2048 * 2));
    CHECK(a.l2_merged_bytes == Approx(5.25 * 2048.0 * 2048 * 2));
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

TEST_CASE("reads of a present block within the hit window merge like followers of a fill", "[cache][sdcm]") {
  // 4096 x 256 x 4096 bf16 in 256 x 256 tiles on 8 SMs, one tile each, one partition, no skew:
  // two waves of 8 tiles (rows of tiles 0-7, then 8-15), all reading the same 2 MB of B, block
  // by block in lockstep. Wave 0 finds each block cold: the first touch misses, the 7 after it
  // find the fill in flight, 1 + 7 / 4 = 2.75 lookups per 8 requests (5.25 merged). A fill
  // window of 2 iterations has closed by wave 1 (64 iterations later), whose first touch of a
  // block hits (2 MB of B and 16 MB of A a wave fit in the 56 MB L2; SDCM gives 1 - 2e-6).
  auto hw = h200_like();
  hw.sm_count = 8;
  hw.l2.partitions = 1;
  const auto prog = kernels::lift_gemm(gemm(4096, 256, 4096, 256, 256, 1, 3, 8));
  const double b_bytes = 256.0 * 4096 * 2;
  const auto b_of = [](const cache::CacheTraffic& t) { return t.accesses[1]; };
  // Without a hit window the 7 followers in wave 1 are looked up, all hits: 8 lookups.
  const auto closed = b_of(cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 2.0, .hit_window = 0.0})
                               .analyze(prog, hw));
  REQUIRE(closed.tensor == "B");
  CHECK(closed.requested_bytes == Approx(16 * b_bytes));
  CHECK(closed.l2_lookup_bytes == Approx((2.75 + 8) * b_bytes));
  CHECK(closed.l2_merged_bytes == Approx(5.25 * b_bytes).epsilon(1e-4));
  CHECK(closed.l2_hit_bytes == Approx((1.75 + 8) * b_bytes).epsilon(1e-4));
  CHECK(closed.dram_bytes == Approx(b_bytes).epsilon(1e-4));
  // Within a hit window of 2 iterations they merge with odds 3 in 4 as well: wave 1 makes 2.75
  // lookups, all hits, and merges 5.25 more; DRAM still reads B once.
  const auto open = b_of(cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 2.0, .hit_window = 2.0})
                             .analyze(prog, hw));
  CHECK(open.l2_lookup_bytes == Approx((2.75 + 2.75) * b_bytes));
  CHECK(open.l2_merged_bytes == Approx((5.25 + 5.25) * b_bytes).epsilon(1e-4));
  CHECK(open.l2_hit_bytes == Approx((1.75 + 2.75) * b_bytes).epsilon(1e-4));
  CHECK(open.dram_bytes == Approx(b_bytes).epsilon(1e-4));
  // Derived, the window is the profile's l2.hit_merge_ns over the iteration, (256 + 256) x 64 x
  // 2 bytes at 65.9 GB/s (994 ns). The H200's 34 ns (lrc_window.py) is 0.034 iteration, less
  // than the 1/8 iteration between the tiles of a wave: nothing merges in wave 1. 200 ns would
  // be 0.20 iteration: the first follower merges, 0.75. Without the field, no window.
  const double iteration_ns = (256.0 + 256) * 64 * 2 / 65.9e9 * 1e9;
  CHECK(34.0 / iteration_ns == Approx(0.0342).epsilon(1e-2));
  const auto derived_with = [&](double ns) {
    auto h = hw;
    h.l2.hit_merge_ns = ns;
    return b_of(cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 2.0}).analyze(prog, h));
  };
  CHECK(derived_with(0).l2_merged_bytes == Approx(5.25 * b_bytes).epsilon(1e-4));
  CHECK(derived_with(34).l2_merged_bytes == Approx(5.25 * b_bytes).epsilon(1e-4));
  CHECK(derived_with(200).l2_merged_bytes == Approx((5.25 + 0.75) * b_bytes).epsilon(1e-4));
  // Under load the window is l2.hit_merge_load's multiple of it at the launch's load, its copy
  // rate over every SM's at its path's limit. Here the 8 tiles in flight copy at their 8 SMs'
  // full rate (each iteration is its loads at 65.9 GB/s): load 1, the table's last point. 120 ns
  // idle is 0.121 iteration, short of the first follower (nothing merges); at 2.5 times it, 300
  // ns, 0.302 iteration, the followers 1/8 and 2/8 of an iteration behind merge, 0.75 each; a
  // table that reaches 2.5 only past the launch's load (at load 1: 1.75, 210 ns, 0.211) merges
  // the first alone.
  const auto loaded_with = [&](std::vector<std::array<double, 2>> law) {
    auto h = hw;
    h.l2.hit_merge_ns = 120;
    h.l2.hit_merge_load = std::move(law);
    return b_of(cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 2.0}).analyze(prog, h));
  };
  CHECK(120.0 / iteration_ns == Approx(0.1207).epsilon(1e-2));
  CHECK(120.0 * 2.5 / iteration_ns == Approx(0.3018).epsilon(1e-2));
  CHECK(loaded_with({}).l2_merged_bytes == Approx(5.25 * b_bytes).epsilon(1e-4));
  CHECK(loaded_with({{0, 1}, {1, 2.5}}).l2_merged_bytes == Approx((5.25 + 2 * 0.75) * b_bytes).epsilon(1e-4));
  CHECK(loaded_with({{0, 1}, {1, 2.5}}).dram_bytes == Approx(b_bytes).epsilon(1e-4));
  CHECK(loaded_with({{0, 1}, {0.5, 1}, {1, 1.75}}).l2_merged_bytes == Approx((5.25 + 0.75) * b_bytes).epsilon(1e-4));
}

TEST_CASE("cache model bookkeeping: lookups, hits and DRAM bytes add up", "[cache][sdcm]") {
  const auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(4096, 4096, 4096, 128, 128, 8, 3, 8));
  const auto t = cache::SdcmCacheModel().analyze(prog, hw);
  REQUIRE(t.accesses.size() == 3);
  for (const auto& a : t.accesses) {
    CHECK(a.l2_hit_bytes <= a.l2_lookup_bytes * (1 + 1e-9));
    if (a.write) {
      // Stores hit (write-back), in the SM's partition and, for the half of the lines homed
      // in the other one, there again.
      CHECK(a.l2_lookup_bytes - a.l2_far_lookup_bytes == Approx(a.requested_bytes));
      CHECK(a.l2_far_lookup_bytes == Approx(0.5 * a.requested_bytes));
      CHECK(a.l2_hit_bytes == Approx(a.l2_lookup_bytes));
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
