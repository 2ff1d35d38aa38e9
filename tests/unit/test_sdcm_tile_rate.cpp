// The tiles' own speeds (SkewModel::rate_sd, hw tile_rate_sd): loops whose loads queue behind
// the SM's path from L2 let their tiles drift apart, and waves of a deep-K grid dissolve.
#include <algorithm>

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

// Group-1 64 x 256 x 64 tiles at 2 stages and 4 warps: two tiles an SM, one stage ahead.
kernels::GemmParams wide_b(std::int64_t m, std::int64_t n, std::int64_t k) {
  kernels::GemmParams p;
  p.M = m, p.N = n, p.K = k;
  p.block_m = 64, p.block_n = 256, p.block_k = 64, p.group_m = 1, p.stages = 2, p.warps = 4;
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

TEST_CASE("tiles with their SM to themselves widen their waves linearly, not as a walk", "[cache][sdcm]") {
  // 4096 x 4096 x 14336, 128 x 128 x 64 tiles, group 1, 5 stages: one tile an SM (160 KiB of
  // shared memory), 8 waves of 224 iterations. cta_skew.py --growth: such launches widen each
  // wave's starts by 1.4-2.2% of a tile a wave (p10-p90), a speed of each SM's own, where the
  // tile_rate_sd walk spread them over most of a tile by the 4th wave and lost B's reuse
  // across rows. ncu (tests/validation/h200/l2_hit_corpus.csv): 68.26% L2 hits, 1.0828 GB read
  // from DRAM; the walk read 51.5% and 2.48 GB.
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  REQUIRE(hw->tile_wave_growth == Approx(0.0192));
  auto walk = *hw;
  walk.tile_wave_growth = 0;
  kernels::GemmParams p;
  p.M = 4096, p.N = 4096, p.K = 14336;
  p.block_m = 128, p.block_n = 128, p.block_k = 64, p.group_m = 1, p.stages = 5, p.warps = 4;
  const auto prog = kernels::lift_gemm(p);
  const cache::SdcmCacheModel sdcm({.tile_maps = false, .memo = false});
  const auto linear = sdcm.analyze(prog, *hw), walked = sdcm.analyze(prog, walk);
  const auto dram_read = [](const cache::CacheTraffic& t) {
    double b = 0;
    for (const auto& a : t.accesses)
      if (!a.write) b += a.dram_bytes;
    return b;
  };
  INFO("linear " << linear.l2_hit_rate() << ", " << dram_read(linear) << " B; walk " << walked.l2_hit_rate() << ", "
                 << dram_read(walked) << " B");
  CHECK(linear.l2_hit_rate() == Approx(0.6826).margin(0.03));
  CHECK(dram_read(linear) == Approx(1.0828e9).epsilon(0.05));
  CHECK(dram_read(walked) > 2 * 1.0828e9);
}

TEST_CASE("the cache model reports its stream in time as it laid it out", "[cache][sdcm]") {
  // 8192 x 8192 x 28672, 64 x 256 x 64 tiles, group 1, 2 stages: two tiles an SM (80 KiB of
  // shared memory each), 264 slots, 448 iterations a tile. By hand from the H200 profile:
  // - drift: per_iteration = (DRAM 400 - L2 207.5) / 400 ns = 0.48125, bounded after 448
  //   iterations at 0.48125 / sqrt(0.48125 x 1.51875) = 0.56291 iterations;
  // - own speed: two tiles' copies an iteration, 2 x 40960 B at 69.3 GB/s (l2.async_per_sm with
  //   all 132 SMs busy) = 1182.1 ns (the tensor cores' 2 x 651 ns is shorter), one stage ahead
  //   of a 560 + 275 ns loaded round trip: queued 1 - 835 / 1182.1 = 0.29363, x tile_rate_sd
  //   0.107 = 0.031419; the first wave's footprint (9 rows of A, 32 columns of B over 448
  //   k-steps: 502.8 MB) is 9.0 L2s, x = 0.2821: waves w with x sqrt(w) <= 0.5 would hold, 1-3
  //   (waves 2-4 counted from 1), and from (0.8 / x)^2 = 8.04 on part wholly, 9 (the next test
  //   case); but x is past 0.10 and the launch has run 1000 iterations by wave 1000 / 448 =
  //   2.23, so from wave 3 on the whole own speed counts: waves 1-2 hold, 3 on part;
  // - windows: the fill window's floor, 1.75 iterations (the DRAM latency is 0.34 of one);
  //   a hit's read 34 ns idle, under the launch's load l2.hit_merge_load's multiple of it: its
  //   264 tiles copy 2 x 40960 B an SM every 1182.1 ns, 132 SMs at their paths' full 69.3 GB/s,
  //   load 1, 2.286 times: 77.724 ns / 1182.1 ns = 0.065751.
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  auto p = wide_b(8192, 8192, 28672);
  const cache::SdcmCacheModel sdcm({.tile_maps = false, .memo = false});
  const auto two = sdcm.analyze(kernels::lift_gemm(p), *hw).stream;
  REQUIRE(two);
  CHECK(two->tiles_in_flight == 264);
  CHECK(two->steps == 448);
  CHECK(two->drift_sd == Approx(0.56291).epsilon(1e-4));
  CHECK(two->tile_rate_sd == Approx(0.031419).epsilon(1e-3));
  CHECK(two->own_rate_sd == Approx(0.031419).epsilon(1e-3));
  CHECK(two->held_waves == 2);
  CHECK(two->parted_wave == 3);
  CHECK(two->wave_growth == 0);
  CHECK(two->fill_window == Approx(1.75));
  CHECK(two->hit_window == Approx(0.065751).epsilon(1e-3));
  // 4096 x 4096 x 14336, 128 x 128 x 64 tiles, 5 stages: one tile an SM, its waves widen
  // linearly (tile_wave_growth 0.0192) in place of the own-speed walk. Its copies, 32768 B an
  // iteration at 69.3 GB/s = 472.84 ns, are issued 4 stages ahead: queued 1 - 835 / 1891.4 =
  // 0.55852, so the drift's step is the exposed 0.44148 of 0.48125, 0.21246, bounded at
  // sqrt(0.21246 / 1.78754) = 0.34476 iterations.
  p.M = 4096, p.N = 4096, p.K = 14336;
  p.block_m = 128, p.block_n = 128, p.block_k = 64, p.stages = 5;
  const auto five = sdcm.analyze(kernels::lift_gemm(p), *hw).stream;
  REQUIRE(five);
  CHECK(five->tiles_in_flight == 132);
  CHECK(five->steps == 224);
  CHECK(five->wave_growth == Approx(0.0192));
  CHECK(five->tile_rate_sd == 0);
  CHECK(five->drift_sd == Approx(0.34476).epsilon(1e-3));
  // The first-touch model has no stream in time.
  CHECK_FALSE(cache::FirstTouchCacheModel().analyze(kernels::lift_gemm(p), *hw).stream);
}

TEST_CASE("loops one stage ahead hold together for waves while a laggard finds its partners' blocks in L2", "[cache][sdcm]") {
  // Group-1 GEMMs of 64 x 256 x 64 tiles at 2 stages, two tiles an SM, own speed 0.031419 (the
  // test above). Wave w adds the share clamp((x sqrt(w) - 0.5) / 0.3) of the own speed to the
  // walk, x = own speed x the first wave's footprint over the L2's 56 MB (cta_skew.py
  // --by-wave: traced waves hold below x sqrt(w) = 0.4 and all part from 0.8). By hand, 264
  // slots, A panels 8192 B and B panels 32768 B a k-step:
  // - 12288 x 12288 x 4096: 6 rows of A and 48 columns of B over 64 k-steps, 3.15 + 100.7 MB,
  //   x = 0.0582: waves 1-73 hold, the launch's 34 all; ncu 69.1% L2 hits (l2_hit_heldout.csv);
  // - 4096 x 8192 x 16384: 9 rows and 32 columns over 256 k-steps, 18.9 + 268.4 MB, x = 0.1612:
  //   the ramp would hold 1-9 (the launch's 7 all), but x is past 0.10 and by wave 1000 / 256 =
  //   3.9 the launch has run 1000 iterations: 1-3 hold, from 4 on the whole own speed; ncu
  //   59.8%, the model 56.8% (73.6% with the ramp alone): its traced convoys part, by partition
  //   side, one side lagging from the start (cta_skew_heldout.csv.gz: the span of a B column's
  //   readers 0.09 -> 0.64 of a tile by wave 6; docs/cache-model.md, session 41);
  // - 8192 x 8192 x 28672: 9 and 32 over 448, 33.0 + 469.8 MB, x = 0.2821: 1-2 hold (1000 /
  //   448 = 2.23), from 3 on they part (9 by the ramp alone); ncu 30.2%.
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  REQUIRE(hw->l2.bytes == Approx(56e6));
  const cache::SdcmCacheModel sdcm({.tile_maps = false, .memo = false});
  const auto stream = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const auto t = sdcm.analyze(kernels::lift_gemm(wide_b(m, n, k)), *hw);
    REQUIRE(t.stream);
    CHECK(t.stream->own_rate_sd == Approx(0.031419).epsilon(1e-3));
    return std::tuple{*t.stream, t.l2_hit_rate()};
  };
  const auto [held, held_hits] = stream(12288, 12288, 4096);
  CHECK(held.wave_footprint == Approx(103.8e6).epsilon(1e-3));
  CHECK(held.held_waves == 73);
  CHECK(held.parted_wave == 189);
  CHECK(held_hits == Approx(0.691).margin(0.03));
  const auto [part, part_hits] = stream(4096, 8192, 16384);
  CHECK(part.wave_footprint == Approx(287.3e6).epsilon(1e-3));
  CHECK(part.held_waves == 3);
  CHECK(part.parted_wave == 4);
  CHECK(part_hits == Approx(0.598).margin(0.04));
  const auto [most, most_hits] = stream(8192, 8192, 28672);
  CHECK(most.wave_footprint == Approx(502.8e6).epsilon(1e-3));
  CHECK(most.held_waves == 2);
  CHECK(most.parted_wave == 3);
  CHECK(most_hits < part_hits);
  // The ramp itself at x = 0.2821: wave 3 adds none (0.4886), wave 4 (0.5642 - 0.5) / 0.3 =
  // 0.214 of it, wave 9 all.
  const cache::SkewModel skew{.per_iteration = 0, .rate_sd = 0.031419, .wave_growth = 0, .coupling = 0.2821};
  CHECK(cache::held_rate_share(skew, 3) == 0);
  CHECK(cache::held_rate_share(skew, 4) == Approx(0.2140).epsilon(1e-3));
  CHECK(cache::held_rate_share(skew, 9) == 1);
  CHECK(cache::held_rate_share(cache::SkewModel{}, 1) == 1);
  // With the onset (x past 0.10, 1000 iterations over 448 a tile: wave 2.23), wave 2 still adds
  // none and wave 3 all of it.
  const cache::SkewModel late{.per_iteration = 0, .rate_sd = 0.031419, .wave_growth = 0, .coupling = 0.2821,
                              .onset_waves = 1000.0 / 448};
  CHECK(cache::held_rate_share(late, 2) == 0);
  CHECK(cache::held_rate_share(late, 3) == 1);
  CHECK(cache::held_waves(late) == 2);
  CHECK(cache::parted_wave(late) == 3);
}

TEST_CASE("the cache model keeps each sampled wave's DRAM bytes for the timing", "[cache][sdcm]") {
  // 8192 x 8192 x 28672, 64 x 256 x 64, group 1, 2 stages: 16 waves of 264 tiles, its first 3
  // holding together (above). The sampled waves stand for all 16: their DRAM bytes, each
  // weighed by the tiles it stands for, add up to the kernel's; a wave that holds reads B
  // from L2 where a parted one reads it from DRAM.
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  const auto t =
      cache::SdcmCacheModel({.tile_maps = false, .memo = false}).analyze(kernels::lift_gemm(wide_b(8192, 8192, 28672)), *hw);
  REQUIRE(t.stream);
  REQUIRE(t.stream->tiles_in_flight == 264);
  REQUIRE(t.wave_traffic.size() >= 3);
  CHECK(t.wave_traffic.front().wave == 0);
  double waves = 0;
  for (const auto& w : t.wave_traffic) waves += w.waves;
  CHECK(waves == 16);  // 15 full waves and the tail
  for (std::size_t a = 0; a < t.accesses.size(); ++a) {
    double sum = 0;
    for (const auto& w : t.wave_traffic) {
      const double tiles = std::min(264.0, 4096.0 - 264.0 * static_cast<double>(w.wave)) * w.waves;
      sum += w.dram_bytes[a] * tiles / 4096;
    }
    CHECK(sum == Approx(t.accesses[a].dram_bytes).epsilon(1e-9));
  }
  // B (access 1): the second wave holds, the last full one has parted.
  const auto& second = t.wave_traffic[1];
  const auto& last = *std::find_if(t.wave_traffic.rbegin(), t.wave_traffic.rend(), [](const auto& w) { return w.wave < 15; });
  REQUIRE(second.wave == 1);
  REQUIRE(last.wave >= 9);
  CHECK(last.dram_bytes[1] > 2 * second.dram_bytes[1]);
}
