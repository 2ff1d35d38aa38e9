// The SDCM cache model on Hopper TMA kernels (sdcm_cache_model.h): clusters sharing a TMA
// multicast, boxes that run past the tensor's edge, and the memo telling such programs apart
// (tests/validation/h200/tma_multicast.cu, tma_oob.cu).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/plan/plan_json.h"

using namespace tilesight;

namespace {

// A persistent bf16 GEMM in clusters of `cluster_m` tiles along M sharing B by TMA multicast,
// 256 x 256 x 64 tiles walked down M (a plain raster), or the same with every tile loading B
// itself (`multicast` false).
plan::TileProgram clustered_gemm(std::int64_t m, std::int64_t n, std::int64_t cluster_m, bool multicast) {
  kernels::GemmParams g;
  g.M = m, g.N = n, g.K = 4096, g.block_m = g.block_n = 256, g.block_k = 64, g.stages = 3, g.warps = 12;
  g.persistent = true, g.cluster_m = cluster_m, g.swizzle = 1;
  auto program = kernels::lift_gemm(g);
  if (!multicast)
    for (auto& a : program.actions)
      if (a.name == "load_b") a.multicast = 1;
  return program;
}

}  // namespace

TEST_CASE("a cluster's TMA multicast is one lookup, and never merges", "[cache][sdcm]") {
  // ncu_tma_multicast.csv (tma_multicast.cu on the H200, and again on an H100): clusters of 2
  // or 4 CTAs copying by multicast make one lookup a sector a cluster, whether each cluster
  // reads lines of its own (all misses) or every cluster the same lines at once (every
  // cluster's a lookup, all but the first of a partition hits: 64 and 32 lookups a sector for
  // 64 and 32 clusters, 97.2% and 94.3% hits), where the same copies without multicast merge
  // three in four (0.25 lookups a request).
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  const cache::SdcmCacheModel sdcm(cache::SdcmOptions{.skew_per_iteration = 0.0});
  const auto near = [](const cache::AccessTraffic& a) {
    return std::pair{a.l2_lookup_bytes - a.l2_far_lookup_bytes, a.l2_hit_bytes - a.l2_far_hit_bytes};
  };
  const double b_bytes = 4096.0 * 4096 * 2;
  SECTION("each cluster its own blocks: one lookup a sector, every one a miss") {
    // 512 x 4096: two rows of tiles, one cluster a column: each block of B is the column's.
    const auto with = sdcm.analyze(clustered_gemm(512, 4096, 2, true), *hw);
    const auto without = sdcm.analyze(clustered_gemm(512, 4096, 2, false), *hw);
    REQUIRE(with.accesses[1].tensor == "B");
    const auto [lookups, hits] = near(with.accesses[1]);
    CHECK(lookups == Approx(b_bytes).epsilon(1e-6));
    CHECK(hits == Approx(0).margin(1e-3 * b_bytes));
    CHECK(with.accesses[1].dram_bytes == Approx(b_bytes).epsilon(1e-6));
    // Without the multicast both tiles of a column ask, the second in the first's fill.
    CHECK(near(without.accesses[1]).first > 1.2 * b_bytes);
  }
  SECTION("every cluster the same blocks: one lookup a cluster, all but a partition's first hit") {
    // 4096 x 256: 16 rows of tiles, 8 clusters of 2, all reading the one column of B (8 MiB
    // unique of the 32 MiB above's shape: 4096 x 256 x 2 bytes), in one wave on launch slots
    // 0-15, all next to one partition (hw_profiles/h200.json, l2.slot_partition).
    const auto with = sdcm.analyze(clustered_gemm(4096, 256, 2, true), *hw);
    const double unique = 4096.0 * 256 * 2;
    const auto [lookups, hits] = near(with.accesses[1]);
    CHECK(lookups == Approx(8 * unique).epsilon(0.01));
    CHECK(hits / lookups == Approx(7.0 / 8).margin(0.01));
    // A is not multicast (cluster_n 1): every tile reads its own rows, once.
    const auto without = sdcm.analyze(clustered_gemm(4096, 256, 2, false), *hw);
    CHECK(with.accesses[0].l2_lookup_bytes == Approx(without.accesses[0].l2_lookup_bytes));
  }
  SECTION("the heatmap still shows the followers' tiles") {
    // A follower asks nothing, yet its tile has a hit rate in B's map: its own touch's (the
    // leader's block, just fetched: pending or there), not an empty cell.
    const cache::SdcmCacheModel maps(cache::SdcmOptions{.skew_per_iteration = 0.0, .tile_maps = true});
    const auto traffic = maps.analyze(clustered_gemm(4096, 256, 2, true), *hw);
    const auto b_map = std::find_if(traffic.tile_maps.begin(), traffic.tile_maps.end(),
                                    [](const cache::TileHitMap& m) { return m.tensor == "B"; });
    REQUIRE(b_map != traffic.tile_maps.end());
    REQUIRE(b_map->hit_rate.size() == 16u);
    for (std::size_t row = 1; row < 16; row += 2) CHECK(b_map->hit_rate[row] > 0.5);  // the followers
  }
}

namespace {

// tma_oob.cu as a tile program: one tile copies an R x C bf16 matrix in 64 TMA boxes of
// box_rows x 64 columns, walking the columns (C = 4096) or the rows (R = 4096, C <= 64).
plan::TileProgram tma_edge_probe(std::int64_t rows, std::int64_t cols, std::int64_t box_rows) {
  nlohmann::json doc = {
      {"name", "tma_oob"}, {"hardware", "h200"},
      {"tensors", {{{"name", "X"}, {"shape", {rows, cols}}}, {{"name", "Y"}, {"shape", {1, 64}}}}},
      {"grid", {{"dims", {{{"name", "m"}, {"extent", 1}}, {{"name", "n"}, {"extent", 1}}}}}},
      {"accesses",
       {{{"tensor", "X"}, {"tile_shape", {box_rows, 64}}, {"placement", "ddr"},
         {"reuse_dims", nlohmann::json::array()}, {"loop", "k"}, {"tma_box", true}},
        {{"tensor", "Y"}, {"tile_shape", {1, 64}}, {"placement", "ddr"}, {"reuse_dims", nlohmann::json::array()},
         {"write", true}}}},
      {"loops", {{{"name", "k"}, {"trip_count", 64}, {"stages", 2}}}},
      {"actions",
       {{{"name", "copy"}, {"op", "load"}, {"operands", {"X"}}, {"bytes", box_rows * 128}, {"loop", "k"}},
        {{"name", "out"}, {"op", "store"}, {"operands", {"Y"}}, {"bytes", 128}, {"deps", {"copy"}}}}},
      {"resources", {{"smem_bytes", box_rows * 128}, {"registers_per_thread", 32}, {"warps", 4}}}};
  auto program = plan::parse_tile_program(doc);
  REQUIRE(program.ok());
  return program.value();
}

}  // namespace

TEST_CASE("a TMA box past the tensor's edge looks its rows up, as ncu counts them", "[cache][sdcm]") {
  // ncu_tma_oob.csv (tma_oob.cu on the H200): one CTA, 64 boxes of 64 bf16 columns; the SMs'
  // L2 read lookups a box, of which all but the rows inside hit. The model's near lookups
  // (its far ones are the cascade's second lookups, not the SMs'): within 0.9 of a line
  // request (3.6 sectors) of the count, where Triton's wrap rule would ask for the rows again.
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  const cache::SdcmCacheModel sdcm;
  struct Probe {
    std::int64_t rows, box_rows;
    double ncu_lookups_per_box;  // lts__t_sectors_srcunit_tex_op_read / 64
  };
  for (const Probe& c : {Probe{1, 8, 28.5}, Probe{1, 16, 32.0}, Probe{2, 8, 29.0}, Probe{4, 16, 44.0},
                         Probe{8, 32, 60.0}, Probe{16, 64, 124.0}, Probe{32, 128, 224.0}, Probe{64, 128, 320.0}}) {
    const auto traffic = sdcm.analyze(tma_edge_probe(c.rows, 4096, c.box_rows), *hw);
    const auto& x = traffic.accesses[0];
    INFO(c.rows << " rows in boxes of " << c.box_rows);
    const double near = (x.l2_lookup_bytes - x.l2_far_lookup_bytes) / 32 / 64;
    CHECK(near == Approx(c.ncu_lookups_per_box).margin(3.6));
    // The rows inside miss (their sectors); every lookup past the edge hits.
    CHECK((x.l2_lookup_bytes - x.l2_hit_bytes - x.l2_far_lookup_bytes + x.l2_far_hit_bytes) / 32 / 64 ==
          Approx(4.0 * static_cast<double>(c.rows)).margin(0.5));
  }
  // Past the edge along the columns: 8, 16 and 32 of a box row's 64 columns inside, boxes of 64
  // rows walked down 4096: 309.5, 166.6 and 184.3 lookups a box.
  for (const auto& [cols, ncu] : {std::pair{8, 309.5}, std::pair{16, 166.6}, std::pair{32, 184.3}}) {
    const auto& x = sdcm.analyze(tma_edge_probe(4096, cols, 64), *hw).accesses[0];
    INFO(cols << " columns");
    CHECK((x.l2_lookup_bytes - x.l2_far_lookup_bytes) / 32 / 64 == Approx(ncu).margin(3.6));
  }
}


TEST_CASE("the memo tells apart programs that differ only in clusters, multicasts or TMA boxes", "[cache][sdcm]") {
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  const cache::SdcmCacheModel fresh({.tile_maps = false, .memo = false});
  const cache::SdcmCacheModel memo({.tile_maps = false});
  auto unclustered = clustered_gemm(512, 4096, 2, true);
  unclustered.schedule.cluster_rows = 1;
  auto plain_edges = clustered_gemm(128, 4096, 1, false);  // 128 rows under 256-row tiles
  plain_edges.accesses[0].tma_box = false;
  for (const auto& prog : {clustered_gemm(512, 4096, 2, true), clustered_gemm(512, 4096, 2, false), unclustered,
                           clustered_gemm(128, 4096, 1, false), plain_edges}) {
    const auto a = fresh.analyze(prog, *hw), b = memo.analyze(prog, *hw);
    for (std::size_t i = 0; i < a.accesses.size(); ++i) {
      CHECK(a.accesses[i].l2_lookup_bytes == b.accesses[i].l2_lookup_bytes);
      CHECK(a.accesses[i].l2_hit_bytes == b.accesses[i].l2_hit_bytes);
    }
  }
}

