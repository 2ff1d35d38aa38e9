// Launch orders (§3.5.3): each a concrete sequence of tile ids (cache/launch_order.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

#include "tilesight/cache/launch_order.h"

using namespace tilesight;
using cache::LaunchOrderSpec;

namespace {

plan::TileGrid grid(std::vector<std::int64_t> extents) {
  plan::TileGrid g;
  const char* names[] = {"batch", "m", "n"};
  const std::size_t first = 3 - extents.size();
  for (std::size_t i = 0; i < extents.size(); ++i) g.dims.push_back({names[first + i], extents[i]});
  return g;
}

bool is_permutation_of_tiles(const std::vector<std::int64_t>& seq, std::int64_t tiles) {
  std::vector<std::int64_t> sorted = seq;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> ids(static_cast<std::size_t>(tiles));
  std::iota(ids.begin(), ids.end(), std::int64_t{0});
  return sorted == ids;
}

// The Triton tutorial's formula, written out per pid as the tutorial does.
std::int64_t triton_grouped(std::int64_t pid, std::int64_t num_pid_m, std::int64_t num_pid_n, std::int64_t group_m) {
  const std::int64_t num_pid_in_group = group_m * num_pid_n;
  const std::int64_t group_id = pid / num_pid_in_group;
  const std::int64_t first_pid_m = group_id * group_m;
  const std::int64_t group_size_m = std::min(num_pid_m - first_pid_m, group_m);
  const std::int64_t pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m;
  const std::int64_t pid_n = (pid % num_pid_in_group) / group_size_m;
  return pid_m * num_pid_n + pid_n;
}

}  // namespace

TEST_CASE("raster orders of a 3 x 4 grid", "[cache][launch_order]") {
  const auto g = grid({3, 4});
  CHECK(cache::RowMajorOrder().sequence(g) == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(cache::ColumnMajorOrder().sequence(g) == std::vector<std::int64_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  CHECK(cache::GroupedOrder(2).sequence(g) == std::vector<std::int64_t>{0, 4, 1, 5, 2, 6, 3, 7, 8, 9, 10, 11});
}

TEST_CASE("grouped order is Triton's GROUP_M swizzle", "[cache][launch_order]") {
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{8, 224}, {7, 5}, {33, 17}, {1, 9}, {64, 64}})
    for (std::int64_t group_m : {1, 2, 3, 8, 16, 100}) {
      const auto seq = cache::GroupedOrder(group_m).sequence(grid({m, n}));
      REQUIRE(seq.size() == static_cast<std::size_t>(m * n));
      bool same = true;
      for (std::int64_t pid = 0; pid < m * n; ++pid)
        same = same && seq[static_cast<std::size_t>(pid)] == triton_grouped(pid, m, n, group_m);
      INFO(m << " x " << n << " group_m " << group_m);
      CHECK(same);
    }
  // group_m 1 is row-major; a group covering every row walks column by column.
  CHECK(cache::GroupedOrder(1).sequence(grid({5, 6})) == cache::RowMajorOrder().sequence(grid({5, 6})));
  CHECK(cache::GroupedOrder(5).sequence(grid({5, 6})) == cache::ColumnMajorOrder().sequence(grid({5, 6})));
}

TEST_CASE("Z-order interleaves row and column bits", "[cache][launch_order]") {
  CHECK(cache::ZOrder().sequence(grid({4, 4})) ==
        std::vector<std::int64_t>{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15});
  // Extents that are not powers of two: every tile once, in Morton order.
  const auto seq = cache::ZOrder().sequence(grid({3, 5}));
  CHECK(is_permutation_of_tiles(seq, 15));
  CHECK(std::vector<std::int64_t>(seq.begin(), seq.begin() + 4) == std::vector<std::int64_t>{0, 1, 5, 6});
}

TEST_CASE("persistent schedules walk a raster with a fixed set of CTAs", "[cache][launch_order]") {
  const auto g = grid({3, 4});
  const cache::PersistentOrder along_m(plan::Raster::kM, 5), along_n(plan::Raster::kN, 0);
  CHECK(along_m.sequence(g) == cache::ColumnMajorOrder().sequence(g));
  CHECK(along_n.sequence(g) == cache::RowMajorOrder().sequence(g));
  CHECK(along_m.resident_ctas() == 5);
  CHECK(along_n.resident_ctas() == 0);
  plan::TileProgram p;
  p.grid = g;
  p.schedule.persistent = true;
  p.schedule.raster = plan::Raster::kN;
  const auto spec = cache::launch_order_spec(p);
  CHECK(spec.kind == LaunchOrderSpec::Kind::kPersistent);
  CHECK(spec.raster == plan::Raster::kN);
}

TEST_CASE("a swizzled persistent walk goes down the raster in serpentine groups", "[cache][launch_order]") {
  // 4 x 5 tiles (m, n), groups of 2. Raster m: columns {0, 1} walked down M a row at a time,
  // {2, 3} walked back up, {4} down again.
  const auto g = grid({4, 5});
  const cache::PersistentOrder along_m(plan::Raster::kM, 0, 2), along_n(plan::Raster::kN, 0, 2);
  CHECK(along_m.sequence(g) ==
        std::vector<std::int64_t>{0, 1, 5, 6, 10, 11, 15, 16, 17, 18, 12, 13, 7, 8, 2, 3, 4, 9, 14, 19});
  // Raster n: rows {0, 1} walked along N a column at a time, rows {2, 3} walked back.
  CHECK(along_n.sequence(g) ==
        std::vector<std::int64_t>{0, 5, 1, 6, 2, 7, 3, 8, 4, 9, 14, 19, 13, 18, 12, 17, 11, 16, 10, 15});
  CHECK(along_m.name() == "persistent(raster m, swizzle 2)");
  // The closed form the cache model walks agrees with the sequence, from any position, leading
  // dims included; swizzle 1 is the plain raster.
  for (const auto& gr : {grid({4, 5}), grid({3, 7, 11}), grid({13, 29})})
    for (const auto raster : {plan::Raster::kM, plan::Raster::kN})
      for (std::int64_t sw : {2, 3, 11, 40}) {
        const cache::PersistentOrder order(raster, 0, sw);
        const auto seq = order.sequence(gr);
        REQUIRE(is_permutation_of_tiles(seq, gr.tiles()));
        std::vector<cache::TileCoord> c(static_cast<std::size_t>(gr.tiles() - 3));
        order.coordinates(gr, 3, gr.tiles() - 3, c.data());
        const auto p = cache::detail::planes(gr);
        bool same = true;
        for (std::size_t i = 0; i < c.size(); ++i)
          same = same && (c[i].plane * p.rows + c[i].row) * p.cols + c[i].col == seq[i + 3];
        INFO(order.name() << " over " << gr.tiles() << " tiles");
        CHECK(same);
      }
  CHECK(cache::PersistentOrder(plan::Raster::kM, 0, 1).sequence(g) == cache::ColumnMajorOrder().sequence(g));
}

TEST_CASE("cuBLAS's group width follows the tile's aspect", "[cache][launch_order]") {
  // hw_profiles/calibrate/h200/cublas_order.csv.gz: 132 CTAs; the group widths measured.
  CHECK(cache::nvjet_swizzle(132, 192.0 / 192.0) == 8);   // 192 x 192, v
  CHECK(cache::nvjet_swizzle(132, 144.0 / 128.0) == 9);   // 128 x 144 (rows x cols), h
  CHECK(cache::nvjet_swizzle(132, 256.0 / 160.0) == 10);  // 256 x 160, v
  CHECK(cache::nvjet_swizzle(132, 256.0 / 128.0) == 11);  // 128 x 256, h
  CHECK(cache::nvjet_swizzle(132, 320.0 / 128.0) == 13);  // 128 x 320, h
  CHECK(cache::nvjet_swizzle(1, 2.0) == 1);
  // A persistent program asks for the rule (swizzle 0) with its written tile's aspect.
  plan::TileProgram p;
  p.grid = grid({8, 8});
  p.schedule = {.persistent = true, .raster = plan::Raster::kM, .swizzle = 0};
  p.accesses = {{.tensor = "C", .tile_shape = {128, 320}, .write = true}};
  const auto m = cache::launch_order_spec(p);
  CHECK(m.swizzle == 0);
  CHECK(m.tile_aspect == Approx(2.5));
  p.schedule.raster = plan::Raster::kN;
  CHECK(cache::launch_order_spec(p).tile_aspect == Approx(0.4));
}

TEST_CASE("leading grid dims (batch) iterate outermost", "[cache][launch_order]") {
  const auto g = grid({2, 2, 3});  // batch, m, n
  CHECK(cache::ColumnMajorOrder().sequence(g) == std::vector<std::int64_t>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11});
  CHECK(cache::GroupedOrder(2).sequence(g) == cache::ColumnMajorOrder().sequence(g));
  // A 1-D grid is one row.
  CHECK(cache::ColumnMajorOrder().sequence(grid({4})) == std::vector<std::int64_t>{0, 1, 2, 3});
}

TEST_CASE("every order is a permutation of the tiles", "[cache][launch_order]") {
  using K = LaunchOrderSpec::Kind;
  for (K kind : {K::kRowMajor, K::kColumnMajor, K::kGrouped, K::kZOrder, K::kPersistent}) {
    const auto order = cache::make_launch_order({.kind = kind, .group_m = 8});
    for (const auto& g : {grid({13, 29}), grid({3, 7, 5}), grid({1, 1})}) {
      INFO(order->name());
      CHECK(is_permutation_of_tiles(order->sequence(g), g.tiles()));
    }
  }
  CHECK(cache::make_launch_order({.kind = K::kGrouped, .group_m = 8})->name() == "grouped(8)");
}

TEST_CASE("the plan's launch order picks the algorithm", "[cache][launch_order]") {
  CHECK(cache::launch_order_spec(plan::LaunchOrder{}).kind == LaunchOrderSpec::Kind::kRowMajor);
  const auto grouped = cache::launch_order_spec(plan::LaunchOrder{plan::LaunchOrderKind::kGrouped, 16});
  CHECK(grouped.kind == LaunchOrderSpec::Kind::kGrouped);
  CHECK(grouped.group_m == 16);
  CHECK(cache::launch_order_spec(plan::LaunchOrder{plan::LaunchOrderKind::kColumnMajor, 1}).kind ==
        LaunchOrderSpec::Kind::kColumnMajor);
  CHECK(cache::launch_order_spec(plan::LaunchOrder{plan::LaunchOrderKind::kZOrder, 1}).kind ==
        LaunchOrderSpec::Kind::kZOrder);
}
