// The SDCM cache model on tiles wider than the tensor (sdcm_cache_model.cpp, wrapped_copies;
// sdcm_tally.cpp): the copies of a wrapped row or column each tile asks for, and how many of
// them L2 looks up, as ncu_wrapped.csv and the corpus count them.
#include <catch2/catch.hpp>

#include "sdcm_test_spec.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/kernels/gemm.h"

using namespace tilesight;
using tilesight::test::sdcm::gemm;
using tilesight::test::sdcm::h200_like;

namespace {

// A row of 8 tiles that each ask for A's block 4 times, all inside the fill window of tile 0's
// cold miss (`bytes`: the block over the k-steps): 32 requests, 1 + 7 lookups (1 miss, 7 hits:
// one lookup a follower), 3 + 7 x 3 = 24 merged, the fill in flight serving the 7 followers'
// first requests and 7 x 0.75 looked-up copies, one DRAM read.
void check_row_of_eight(const cache::AccessTraffic& a, double bytes) {
  CHECK(a.requested_bytes == Approx(32 * bytes));
  CHECK(a.l2_lookup_bytes == Approx(8 * bytes));
  CHECK(a.l2_hit_bytes == Approx(7 * bytes));
  CHECK(a.l2_merged_bytes == Approx(24 * bytes));
  CHECK(a.l2_pending_bytes == Approx(7 * 1.75 * bytes));
  CHECK(a.dram_bytes == Approx(bytes));
}

}  // namespace

TEST_CASE("wrapped rows of whole lines: one copy in four looked up, the rest merged", "[cache][sdcm]") {
  // 16 x 2048 x 1024 bf16, 64 x 256 x 64 tiles: one row of 8 tiles, all reading the same
  // 16 x 64 block of A per k-step (2 KiB, rows of 128 bytes) and asking for it 4 times each
  // (64 rows wrapped modulo 16, in cp.async copies of their own). One CTA alone looks up one
  // copy of such a row in four (ncu_wrapped.csv: 4, 8, 16 copies, 1, 2, 4 lookups per
  // sector). One partition, no skew, a window past every reuse: per k-step tile 0's touch
  // misses (cold) and its 3 copies merge; the other 7 tiles are followers of its fill, and
  // each of their 4 copies is looked up with the burst rule's odds, 1 in 4: one lookup a
  // tile, as ncu counts the corpus's 16 x 4096 rows (0.25-0.28 lookups a requested sector),
  // where a quarter of a lookup a tile had left them at 0.19. So 1 + 7 = 8 lookups (1 miss,
  // 7 hits), 1 DRAM read, 3 + 7 x 3 = 24 merged; the fill in flight serves each follower's
  // first request and its looked-up copies, 7 x 1.75.
  auto one = h200_like();
  one.l2.partitions = 1;
  const auto prog = kernels::lift_gemm(gemm(16, 2048, 1024, 64, 256, 1, 2, 4));
  const auto t = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e9}).analyze(prog, one);
  const double block = 16.0 * 64 * 2, steps = 1024 / 64;
  const auto& a = t.accesses[0];
  REQUIRE(a.tensor == "A");
  check_row_of_eight(a, block * steps);
  // Sixteen copies (256-row tiles, 8 tiles of 256 x 256): 4 looked up per tile, the 3 after
  // its touch hits of its own fill (one CTA: 1 miss and 3 hits per sector), and 16 x 1/4 = 4
  // for each of the 7 others.
  const auto tall = kernels::lift_gemm(gemm(16, 2048, 1024, 256, 256, 1, 2, 8));
  const auto u = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e9}).analyze(tall, one);
  CHECK(u.accesses[0].l2_lookup_bytes == Approx((4 + 7 * 4) * block * steps));
  CHECK(u.accesses[0].l2_hit_bytes == Approx((3 + 7 * 4) * block * steps));
  CHECK(u.accesses[0].dram_bytes == Approx(block * steps));
  // Without a fill window the repeats stay inside the SM: only the clamped block is looked up.
  const auto off = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 0.0}).analyze(prog, one);
  CHECK(off.accesses[0].l2_lookup_bytes == Approx(8 * block * steps));
}

TEST_CASE("wrapped rows of part of a line: merged as whole lines while in flight", "[cache][sdcm]") {
  // As above with BLOCK_K 32: rows of 64 bytes. A lone CTA looks up one copy in four of them
  // too (ncu_wrapped.csv: 16 x 64 x 4096 under 64-256-row tiles, BLOCK_K 32, 2-5 stages: 1, 2,
  // 4 lookups per sector for 4, 8, 16 copies). One tile of 64 x 64, cold: per k-step A's
  // 16 x 32 block is asked for 4 times, 1 lookup (the miss), 3 merged.
  auto one = h200_like();
  one.l2.partitions = 1;
  auto lone = gemm(16, 64, 1024, 64, 64, 1, 2, 4);
  lone.block_k = 32;
  const auto l = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e9}).analyze(kernels::lift_gemm(lone), one);
  const double block = 16.0 * 32 * 2, steps = 1024 / 32;
  CHECK(l.accesses[0].requested_bytes == Approx(4 * block * steps));
  CHECK(l.accesses[0].l2_lookup_bytes == Approx(1 * block * steps));
  CHECK(l.accesses[0].l2_merged_bytes == Approx(3 * block * steps));
  CHECK(l.accesses[0].dram_bytes == Approx(block * steps));
  // 8 tiles of 64 x 256 in a row, all in the fill window of tile 0's miss: each follower's 4
  // copies merge as its first request does, 1 in 4, one lookup a tile (ncu_wrapped_grid.csv:
  // 1.00-1.02 a CTA on 2-8 CTAs at 2 stages). So 1 + 7 = 8 lookups (1 miss, 7 hits), 3 + 7 x 3 =
  // 24 merged; the fill in flight serves 7 first requests and 7 x 0.75 looked-up copies.
  auto p = gemm(16, 2048, 1024, 64, 256, 1, 2, 4);
  p.block_k = 32;
  const auto t = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e9}).analyze(kernels::lift_gemm(p), one);
  const auto& a = t.accesses[0];
  check_row_of_eight(a, block * steps);
  // Where a tile finds the block present (a fill window too short to join: every tile after
  // the first finds tile 0's lines in L2), each of its copies is looked up, a hit: 1 + 7 x 4
  // lookups (ncu_wrapped_gridwide.csv: 2.3-2.8 of 4 copies a CTA where 172-344 CTAs run
  // apart).
  const auto apart = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e-9}).analyze(kernels::lift_gemm(p), one);
  CHECK(apart.accesses[0].l2_lookup_bytes == Approx(29 * block * steps).epsilon(0.01));
  CHECK(apart.accesses[0].l2_hit_bytes == Approx(28 * block * steps).epsilon(0.01));
}

TEST_CASE("rows of part of a line are looked up at the measured share of their requests", "[cache][sdcm]") {
  // l2.short_row_lookups: a block of 64-byte rows (BLOCK_K 32, bf16) shared by a one-wave
  // grid's tiles is looked up at a share of its requests that rises with the bytes in flight
  // (ncu_wrapped.py --law), copies and other tiles' reads alike. A flat share of 0.5 here, one
  // partition, the tiles in lockstep inside one fill window.
  auto one = h200_like();
  one.l2.partitions = 1;
  one.l2.short_row_lookups = {{0, 0.5}};
  const cache::SdcmCacheModel lockstep({.skew_per_iteration = 0.0, .fill_window = 1e9});
  // 8 tiles of 64 x 64 reading A's 64 rows (no copies): tile 0's miss, then each of the other
  // 7 looked up with odds 0.5 (hits on the fill in flight): 4.5 blocks of lookups a k-step,
  // 3.5 of them hits, 3.5 merged. Rows of whole lines keep one in four: 1 + 7 / 4.
  auto p = gemm(64, 512, 1024, 64, 64, 1, 2, 4);
  p.block_k = 32;
  const double block = 64.0 * 32 * 2, steps = 1024 / 32;
  const auto a = lockstep.analyze(kernels::lift_gemm(p), one).accesses[0];
  REQUIRE(a.tensor == "A");
  CHECK(a.l2_lookup_bytes == Approx(4.5 * block * steps));
  CHECK(a.l2_hit_bytes == Approx(3.5 * block * steps));
  CHECK(a.l2_merged_bytes == Approx(3.5 * block * steps));
  p.block_k = 64;
  const auto whole = lockstep.analyze(kernels::lift_gemm(p), one).accesses[0];
  CHECK(whole.l2_lookup_bytes == Approx(2.75 * 2 * block * 1024 / 64));
  // Wrapped copies are requests too: 2 tiles of 64 rows over M = 16 ask for A's 16 x 32 block
  // 4 times each; half of each tile's 4 requests are looked up, 2 a tile: tile 0's miss and
  // one more, tile 1's two (hits). Without the table a lone tile looks up one copy in four.
  auto w = gemm(16, 128, 1024, 64, 64, 1, 2, 4);
  w.block_k = 32;
  const double row_block = 16.0 * 32 * 2;
  const auto c = lockstep.analyze(kernels::lift_gemm(w), one).accesses[0];
  CHECK(c.requested_bytes == Approx(2 * 4 * row_block * steps));
  CHECK(c.l2_lookup_bytes == Approx(4 * row_block * steps));
  CHECK(c.l2_hit_bytes == Approx(3 * row_block * steps));
  CHECK(c.dram_bytes == Approx(row_block * steps));
  // Launches of more than one wave keep the other rules (the table was measured on one-wave
  // grids): 64 tiles on 2 SMs look A up as without it.
  auto few = one;
  few.sm_count = 2;
  auto wide = gemm(64, 4096, 1024, 64, 64, 1, 2, 4);
  wide.block_k = 32;
  const auto many = lockstep.analyze(kernels::lift_gemm(wide), few);
  REQUIRE(many.accesses[0].requested_bytes == Approx(64 * block * steps));
  few.l2.short_row_lookups.clear();
  CHECK(many.accesses[0].l2_lookup_bytes ==
        Approx(lockstep.analyze(kernels::lift_gemm(wide), few).accesses[0].l2_lookup_bytes));
}

TEST_CASE("columns wrapped in copies of whole lines coalesce", "[cache][sdcm]") {
  // 8192 x 64 x 4096 bf16, 64 x 256 tiles: B's 64-column rows (128 bytes) 4 times in each
  // row of the tile; ncu (ncu_wrapped.csv, l2_hit_corpus.csv) looks each up once per tile.
  // Every tile's B lookups are then the clamped block's, its other 3 copies merged.
  auto one = h200_like();
  one.l2.partitions = 1;
  const auto prog = kernels::lift_gemm(gemm(8192, 64, 4096, 64, 256, 1, 2, 4));
  const auto t = cache::SdcmCacheModel({.skew_per_iteration = 0.0, .fill_window = 1e9}).analyze(prog, one);
  const auto& b = t.accesses[1];
  REQUIRE(b.tensor == "B");
  const double clamped = 128.0 * 64 * 4096 * 2;  // 128 tiles x the 64 x 4096 block
  CHECK(b.requested_bytes == Approx(4 * clamped));
  CHECK(b.l2_lookup_bytes <= clamped * (1 + 1e-9));
  CHECK(b.l2_merged_bytes >= 3 * clamped * (1 - 1e-9));
}
