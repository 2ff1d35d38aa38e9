// Reuse keys (eq. 6), the footprint over a window, wave sampling and the concurrent stream's
// reuse gaps (cache/reuse_distance.h).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "tilesight/cache/launch_order.h"
#include "tilesight/cache/reuse_distance.h"

using namespace tilesight;
using cache::kNever;

namespace {

plan::TileGrid gemm_grid(std::int64_t m, std::int64_t n) {
  plan::TileGrid g;
  g.dims = {{"m", m}, {"n", n}};
  return g;
}

plan::TensorAccess access(std::vector<std::string> reuse_dims, std::string loop = "k") {
  plan::TensorAccess a;
  a.reuse_dims = std::move(reuse_dims);
  a.loop = std::move(loop);
  return a;
}

// Every access of every sampled wave, in the order walk_stream hands them out.
std::vector<cache::StreamAccess> walk(const std::vector<std::int64_t>& order, const cache::StreamInput& in,
                                      const cache::StreamShape& shape, const std::vector<cache::WaveSample>& waves) {
  std::vector<cache::StreamAccess> all;
  cache::walk_stream(order, in, shape, 0.5, waves, [&](const cache::WaveStream& w) {
    all.insert(all.end(), w.accesses.begin(), w.accesses.end());
  });
  return all;
}

}  // namespace

TEST_CASE("reuse keys project the tile coordinate off reuse_dims (eq. 6)", "[cache][reuse]") {
  const auto g = gemm_grid(3, 4);
  const cache::ReuseKeys a(g, access({"n"})), b(g, access({"m"})), c(g, access({}, ""));
  CHECK(a.count() == 3);
  CHECK(b.count() == 4);
  CHECK(c.count() == 12);
  for (std::int64_t t = 0; t < 12; ++t) {
    CHECK(a.of_tile(t) == t / 4);  // A: the tile's row
    CHECK(b.of_tile(t) == t % 4);  // B: the tile's column
    CHECK(c.of_tile(t) == t);      // C: every tile its own block
  }
  // A batched grid: A's key keeps the batch and the row.
  plan::TileGrid batched;
  batched.dims = {{"batch", 2}, {"m", 3}, {"n", 4}};
  const cache::ReuseKeys ab(batched, access({"n"}));
  CHECK(ab.count() == 6);
  CHECK(ab.of_tile(1 * 12 + 2 * 4 + 3) == 1 * 3 + 2);
  // A reuse dim the grid does not have changes nothing.
  CHECK(cache::ReuseKeys(g, access({"head"})).count() == 12);
}

TEST_CASE("footprint over a window: sum r * min(gap, window)", "[cache][reuse]") {
  cache::WaveFootprint fp;
  fp.add(0.25, 100);   // reused a quarter iteration ago
  fp.add(4.0, 100);    // four iterations ago
  fp.add(kNever, 50);  // never before
  fp.add_unreused(10); // a store
  fp.finish();
  // window 1: 0.25*100 + 1*100 + 1*50 + 1*10 = 185
  CHECK(fp.bytes(1.0) == Approx(185).epsilon(0.02));
  // window 8: 25 + 400 + 8*50 + 8*10 = 905
  CHECK(fp.bytes(8.0) == Approx(905).epsilon(0.02));
  CHECK(fp.bytes(0) == 0);
  CHECK(std::isinf(fp.bytes(kNever)));
  // Monotone in the window.
  double prev = 0;
  for (double w = 0.01; w < 100; w *= 1.3) {
    CHECK(fp.bytes(w) >= prev);
    prev = fp.bytes(w);
  }
}

TEST_CASE("wave sampling stands the sampled waves for all of them", "[cache][reuse]") {
  auto all = cache::sample_waves(1000, 100, 0);
  CHECK(all.size() == 10);
  auto few = cache::sample_waves(1050, 100, 3);  // 10 full waves + a tail of 50
  REQUIRE(few.size() == 5);
  CHECK(few.front().wave == 0);  // the cold first wave stands for itself only
  CHECK(few.front().weight == 1);
  CHECK(few[1].wave == 1);  // then waves 1, 5, 9 for waves 1-3, 4-7, 8-9
  CHECK(few[1].weight == 3);
  CHECK(few[2].wave == 5);
  CHECK(few[2].weight == 4);
  CHECK(few[3].wave == 9);
  CHECK(few[3].weight == 2);
  CHECK(few.back().wave == 10);
  CHECK(few.back().weight == 1);
  double full = 0;
  for (std::size_t i = 0; i + 1 < few.size(); ++i) full += few[i].weight;
  CHECK(full == 10);
}

TEST_CASE("lockstep stream: gaps inside a wave are a share of an iteration, across waves a tile", "[cache][reuse]") {
  // A 2 x 4 GEMM grid, row-major, 4 slots in 2 groups (slot % 2), 8 iterations per tile.
  const auto g = gemm_grid(2, 4);
  const cache::ReuseKeys a(g, access({"n"})), b(g, access({"m"}));
  const auto order = cache::RowMajorOrder().sequence(g);
  cache::StreamInput in{.keys = {&a, &b}, .bytes_per_iteration = {1000, 1000}};
  cache::StreamShape shape{.slots = 4, .groups = 2, .steps = 8};
  const auto s = walk(order, in, shape, cache::sample_waves(8, 4, 0));
  REQUIRE(s.size() == 16);
  // Wave 0 (row 0): tile 0 first touches A row 0; tile 1 (group 1) first for its group. A first
  // wave starts within 0.1 iteration (kFirstWaveSpread): tile 1 starts 0.025 iteration after
  // tile 0 and tile 2 (group 0) 0.05 after, both gaps floored at one request slot of an
  // iteration (1/4 here; 1/132 or less on an H200).
  CHECK(std::isinf(s[0].gap_same));
  CHECK(std::isinf(s[2].gap_same));
  CHECK(s[2].gap_other == Approx(0.25));
  CHECK(s[4].gap_same == Approx(0.25));
  // Wave 1 (row 1): B column 0 again, one tile (8 iterations) after wave 0 touched it.
  CHECK(s[9].access == 1);
  CHECK(s[9].gap_same == Approx(8.0));
  CHECK(std::isinf(s[8].gap_same));  // A row 1: new
}

TEST_CASE("footprints of a wave: own stream plus the foreign share", "[cache][reuse]") {
  const auto g = gemm_grid(1, 4);
  const cache::ReuseKeys b(g, access({"m"}));
  const auto order = cache::RowMajorOrder().sequence(g);
  cache::StreamInput in{.keys = {&b}, .bytes_per_iteration = {1000}, .unreused_bytes_per_iteration = 10};
  cache::StreamShape shape{.slots = 4, .groups = 2, .steps = 8, .foreign_share = 0.5};
  double near0 = 0;
  cache::walk_stream(order, in, shape, 0.5, cache::sample_waves(4, 4, 0), [&](const cache::WaveStream& w) {
    near0 = w.near(0).bytes(1.0);
  });
  // Four new columns: two in group 0 (1000 + 10 each per iteration), two in group 1 at half.
  CHECK(near0 == Approx(2 * 1010 + 0.5 * 2 * 1010).epsilon(0.01));
}

TEST_CASE("a block both groups read adds nothing twice to a partition's footprint", "[cache][reuse]") {
  // A 1 x 4 grid whose four tiles read one block of A, slots alternating between two groups,
  // starting 0.025 iteration apart (gaps floored at one request slot, 1/4 iteration).
  const auto g = gemm_grid(1, 4);
  const cache::ReuseKeys a(g, access({"n"}));
  const auto order = cache::RowMajorOrder().sequence(g);
  cache::StreamInput in{.keys = {&a}, .bytes_per_iteration = {1000}, .unreused_bytes_per_iteration = 10};
  cache::StreamShape shape{.slots = 4, .groups = 2, .steps = 8, .foreign_share = 0.5};
  double near0 = 0;
  cache::walk_stream(order, in, shape, 0.5, cache::sample_waves(4, 4, 0), [&](const cache::WaveStream& w) {
    near0 = w.near(0).bytes(1.0);
  });
  // Group 0's own touches: the first (never touched before: the whole window, 1000) and tile 2's
  // (gap 0.25: 250), plus 10 unreused bytes a tile (20). Group 1's touches come after group 0's
  // (gaps 0.25 since any group's touch: 250 + 250 + 20), half of them homed here. Counting group
  // 1's gaps since its own touches (1000 + 250 + 20), as before, gave 1270 + 635 = 1905.
  CHECK(near0 == Approx(1270 + 0.5 * 520));
}

TEST_CASE("inter-SM skew spreads later waves over more iterations", "[cache][reuse]") {
  // One key shared by every tile of a wave: the gaps between consecutive sharers grow with
  // the drift the slots accumulated (§5.3).
  const auto g = gemm_grid(1, 4000);
  const cache::ReuseKeys shared(g, access({"m", "n"}));
  const auto order = cache::RowMajorOrder().sequence(g);
  cache::StreamInput in{.keys = {&shared}, .bytes_per_iteration = {1000}};
  cache::StreamShape shape{.slots = 100, .groups = 1, .steps = 64, .skew = {.per_iteration = 0.5}};
  auto mean_gap = [&](std::int64_t wave) {
    double sum = 0;
    int n = 0;
    for (const auto& sa : walk(order, in, shape, {{wave, 1}}))
      if (sa.pos % 100 != 0 && std::isfinite(sa.gap_same)) sum += sa.gap_same, ++n;
    return sum / n;
  };
  const double first = mean_gap(0), late = mean_gap(30);
  CHECK(late > 3 * first);
  // Without skew, every wave issues within one iteration.
  shape.skew.per_iteration = 0;
  CHECK(mean_gap(30) == Approx(0.01).epsilon(0.01));
}

TEST_CASE("a block the other group touched since counts its home share from that touch", "[cache][reuse]") {
  // A 1 x 3 grid whose tiles read one block of A, slots 0 and 2 in group 0, slot 1 in group 1,
  // started at 0, 2 and 4 iterations (measured starts, in tiles of 8 iterations).
  const auto g = gemm_grid(1, 3);
  const cache::ReuseKeys a(g, access({"n"}));
  const auto order = cache::RowMajorOrder().sequence(g);
  const std::vector<double> starts = {0.0, 0.25, 0.5};
  cache::StreamInput in{.keys = {&a}, .bytes_per_iteration = {1000}};
  cache::StreamShape shape{.slots = 3, .groups = 2, .group_of_slot = {0, 1, 0}, .steps = 8, .foreign_share = 0.5,
                           .tile_starts = &starts};
  double near0 = 0;
  cache::walk_stream(order, in, shape, 0.5, cache::sample_waves(3, 3, 0), [&](const cache::WaveStream& w) {
    near0 = w.near(0).bytes(8.0);
  });
  // Group 0 over a window of 8 iterations: its first touch, never before (8 x 1000); its second,
  // 4 iterations after its first and 2 after group 1's: the half homed here was brought by
  // group 1's miss, (0.5 x 4 + 0.5 x 2) x 1000; and half of group 1's touch, 2 after group 0's
  // (0.5 x 2 x 1000). Counting the second touch from group 0's own first, as before: 13000.
  CHECK(near0 == Approx(8000 + 3000 + 1000));
}
