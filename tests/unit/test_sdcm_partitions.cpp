// Where a launch's slots sit and what their L2 partition keeps (sdcm_cache_model.h): the
// measured slot-to-partition maps of full and small grids, the GPCs whose reads merge (small
// grids' and one-wave full grids'), and a partition's capacity.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "sdcm_test_spec.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/kernels/gemm.h"

using namespace tilesight;
using tilesight::test::sdcm::gemm;
using tilesight::test::sdcm::h200_like;

namespace {

// A's traffic when two 128 x 128 tiles of a 128 x 256 x 4096 GEMM read the same 1 MB of A, in
// lockstep, from launch slots 0 and 1 (half of A's lines homed in each partition).
cache::AccessTraffic a_of_two_tiles(const hw::HardwareSpec& hw) {
  const auto prog = kernels::lift_gemm(gemm(128, 256, 4096, 128, 128, 1, 3, 4));
  return cache::SdcmCacheModel().analyze(prog, hw).accesses[0];
}

// A full grid's map with every slot next to partition 0.
hw::SlotPartition all_on_partition_0() {
  return {.resident = 1, .partition = std::vector<std::int8_t>(132, 0)};
}

}  // namespace

TEST_CASE("the measured slot partitions put tiles launched side by side next to one partition", "[cache][sdcm]") {
  // Two 128 x 128 tiles of a 128 x 256 x 4096 GEMM read the same 1 MB of A, in lockstep, from
  // launch slots 0 and 1. Half of A's lines are homed in each partition.
  auto hw = h200_like();
  // Without a map the SMs alternate: slot 1 is next to the other partition. Tile 0 misses its
  // near partition (1 MB of lookups) and, for the half homed in the other, that one too
  // (0.5 MB), which keeps those lines; tile 1 then hits that half near (1 MB of lookups, 0.5
  // MB of hits) and looks the other half up in its far partition, where tile 0 put it (0.5 MB,
  // all hits): 3 MB of lookups, 1 MB of them far, 1 MB of hits.
  const auto alternate = a_of_two_tiles(hw);
  REQUIRE(alternate.tensor == "A");
  CHECK(alternate.requested_bytes == Approx(2.0 * 128 * 4096 * 2));
  CHECK(alternate.l2_lookup_bytes == Approx(3 * 1048576.0));
  CHECK(alternate.l2_far_lookup_bytes == Approx(1048576.0));
  CHECK(alternate.l2_far_hit_bytes == Approx(524288.0));
  CHECK(alternate.l2_hit_bytes == Approx(1048576.0));
  // The H200's slots 0-15 sit next to one partition (sm_partition.cu): tile 1 shares tile 0's
  // near partition and finds every line in flight (pending), a quarter of them looked up (hits)
  // and the rest merged: 1.75 MB of lookups, only tile 0's 0.5 MB far, 0.25 MB of hits. DRAM
  // reads A once either way.
  hw.l2.slot_partition = {all_on_partition_0()};
  for (std::size_t s = 16; s < 64; ++s) hw.l2.slot_partition[0].partition[s] = 1;
  const auto measured = a_of_two_tiles(hw);
  CHECK(measured.l2_lookup_bytes == Approx(1.75 * 1048576.0));
  CHECK(measured.l2_far_lookup_bytes == Approx(524288.0));
  CHECK(measured.l2_far_hit_bytes == 0);
  CHECK(measured.l2_hit_bytes == Approx(0.25 * 1048576.0));
  CHECK(measured.l2_pending_bytes == Approx(1048576.0));
  CHECK(measured.dram_bytes == Approx(alternate.dram_bytes));
  CHECK(measured.dram_bytes == Approx(1048576.0));
}

TEST_CASE("a line's home side reads it first while the other side's miss crosses over", "[cache][sdcm]") {
  // The two tiles above on alternating SMs, tile 0 first in the stream. Within
  // l2.home_race_ns of tile 0's read (lrc_window.py --cross), tile 1's read of the half homed
  // next to it reaches that partition before tile 0's miss crosses over: it misses there
  // (0.5 MB, where the cascade had hits), and tile 0's crossing read finds its fill in flight,
  // a hit (0.5 MB, where it had misses). The other half as before: tile 1 misses near and hits
  // far (0.5 MB). Lookups 3 MB, 1 MB of them far, 1 MB of hits, all far; DRAM 1 MB.
  auto hw = h200_like();
  hw.l2.home_race_ns = 1e6;  // longer than the pair's gap: every read of tile 1 races
  const auto raced = a_of_two_tiles(hw);
  CHECK(raced.l2_lookup_bytes == Approx(3 * 1048576.0));
  CHECK(raced.l2_far_lookup_bytes == Approx(1048576.0));
  CHECK(raced.l2_far_hit_bytes == Approx(1048576.0));
  CHECK(raced.l2_hit_bytes == Approx(1048576.0));
  CHECK(raced.dram_bytes == Approx(1048576.0));
  // A window shorter than the gap between the two tiles: the stream order's 0.5 MB far hits.
  hw.l2.home_race_ns = 1e-9;
  const auto ordered = a_of_two_tiles(hw);
  CHECK(ordered.l2_far_hit_bytes == Approx(524288.0));
  CHECK(ordered.l2_hit_bytes == Approx(1048576.0));
}

TEST_CASE("a grid smaller than the GPU takes the small grids' slot map", "[cache][sdcm]") {
  // The two tiles above, with the full grid's map putting both next to partition 0 (1.75 MB of
  // lookups of A). The block scheduler deals a small grid out over the GPCs in runs of its own
  // (l2.grid_partition, ncu_tpc.py --dispatch): a map for grids of 2 CTAs that puts slot 1
  // next to the other partition gives the alternating SMs' 3 MB of lookups, 1 MB of them far
  // and 1 MB of hits, by the same hand count.
  auto hw = h200_like();
  hw.l2.slot_partition = {all_on_partition_0()};
  hw.l2.grid_partition = {{.ctas = 1, .partition = {0}}, {.ctas = 4, .partition = {0, 1, 1, 0}}};
  const auto split = a_of_two_tiles(hw);
  CHECK(split.l2_lookup_bytes == Approx(3 * 1048576.0));
  CHECK(split.l2_far_lookup_bytes == Approx(1048576.0));
  CHECK(split.l2_hit_bytes == Approx(1048576.0));
  // Grids past the largest measured one keep the full grid's map: both tiles side by side.
  hw.l2.grid_partition.pop_back();
  const auto together = a_of_two_tiles(hw);
  CHECK(together.l2_lookup_bytes == Approx(1.75 * 1048576.0));
  CHECK(together.l2_far_lookup_bytes == Approx(524288.0));
}

TEST_CASE("where a small grid's GPCs are known, only one GPC's reads merge", "[cache][sdcm]") {
  // The two tiles above, both next to partition 0, reading the same 1 MB of A in lockstep:
  // tile 0 misses near (1 MB of lookups) and far for the half homed in the other partition
  // (0.5 MB). The request coalescer merges only one GPC's reads (lrc_window.py --domains):
  //  - tile 1 on another GPC looks every line up itself, finding it pending (a hit): 2.5 MB of
  //    lookups, 1 MB of hits, nothing merged;
  //  - tile 1 on the same GPC is the first follower of the GPC's four (ncu_share.csv: 2 readers
  //    make 1.01 lookups a sector): merged whole, 1.5 MB of lookups, no hits, 1 MB merged,
  //    where without the GPCs one follower in four is looked up (1.75 MB).
  auto hw = h200_like();
  hw.l2.slot_partition = {all_on_partition_0()};
  hw.l2.grid_partition = {{.ctas = 2, .partition = {0, 0}}};
  hw.l2.grid_gpc = {{.ctas = 2, .partition = {0, 1}}};
  const auto apart = a_of_two_tiles(hw);
  CHECK(apart.l2_lookup_bytes == Approx(2.5 * 1048576.0));
  CHECK(apart.l2_far_lookup_bytes == Approx(524288.0));
  CHECK(apart.l2_hit_bytes == Approx(1048576.0));
  CHECK(apart.l2_merged_bytes == Approx(0).margin(1));
  hw.l2.grid_gpc = {{.ctas = 2, .partition = {0, 0}}};
  const auto together = a_of_two_tiles(hw);
  CHECK(together.l2_lookup_bytes == Approx(1.5 * 1048576.0));
  CHECK(together.l2_hit_bytes == Approx(0).margin(1));
  CHECK(together.l2_merged_bytes == Approx(1048576.0));
  CHECK(together.dram_bytes == Approx(apart.dram_bytes));
}

TEST_CASE("a one-wave grid past the SMs merges by the full grid's GPCs, a longer one by partition", "[cache][sdcm]") {
  // The two tiles above on a GPU of one SM that holds both (two CTAs resident: slots 0 and 1 on
  // the same SM, the grid one wave of more CTAs than SMs): their slots' GPCs come from the full
  // grid's measured map, l2.slot_gpc for two CTAs an SM, and the counts are the small grid's.
  auto hw = h200_like();
  hw.sm_count = 1;
  hw.l2.slot_partition = {{.resident = 2, .partition = {0, 0}}};
  const auto by_partition = a_of_two_tiles(hw);
  CHECK(by_partition.l2_lookup_bytes == Approx(1.75 * 1048576.0));  // one follower in four looked up
  hw.l2.slot_gpc = {{.resident = 2, .partition = {0, 1}}};
  const auto apart = a_of_two_tiles(hw);
  CHECK(apart.l2_lookup_bytes == Approx(2.5 * 1048576.0));
  CHECK(apart.l2_hit_bytes == Approx(1048576.0));
  CHECK(apart.l2_merged_bytes == Approx(0).margin(1));
  hw.l2.slot_gpc = {{.resident = 2, .partition = {0, 0}}};
  const auto together = a_of_two_tiles(hw);
  CHECK(together.l2_lookup_bytes == Approx(1.5 * 1048576.0));
  CHECK(together.l2_merged_bytes == Approx(1048576.0));
  // Four tiles (128 x 512) on the two slots: two waves. The second wave's CTAs go to the SM
  // slots as they free, in an order the model does not know: merges by partition, as without
  // the GPCs' map.
  const auto four = kernels::lift_gemm(gemm(128, 512, 4096, 128, 128, 1, 3, 4));
  hw.l2.slot_gpc = {{.resident = 2, .partition = {0, 1}}};
  const auto waves = cache::SdcmCacheModel().analyze(four, hw).accesses[0];
  hw.l2.slot_gpc.clear();
  const auto unmapped = cache::SdcmCacheModel().analyze(four, hw).accesses[0];
  CHECK(waves.l2_merged_bytes > 0);
  CHECK(waves.l2_lookup_bytes == unmapped.l2_lookup_bytes);
  CHECK(waves.l2_merged_bytes == unmapped.l2_merged_bytes);
}

TEST_CASE("each partition keeps l2.partition_bytes of its stream", "[cache][sdcm]") {
  // 8192^3 bf16, 128 x 128 tiles, row-major: a row of B's tiles is 64 columns of 2 MiB, so B
  // comes back after the whole of it (128 MiB) and A's row block after 64 tiles.
  auto hw = h200_like();
  const auto prog = kernels::lift_gemm(gemm(8192, 8192, 8192, 128, 128, 1, 3, 4));
  const auto halves = cache::SdcmCacheModel().analyze(prog, hw);
  hw.l2.partition_bytes = hw.l2.bytes / 2;  // what an absent value stands for
  const auto same = cache::SdcmCacheModel().analyze(prog, hw);
  CHECK(same.dram_read_bytes() == halves.dram_read_bytes());
  CHECK(same.l2_hit_rate() == halves.l2_hit_rate());
  // A partition holding every operand: each line comes from DRAM once, A and B 128 MiB each,
  // walking every wave (sampled waves stand for their neighbours: a sample with 5 new rows of
  // A where the waves it stands for average 4.1 gives 281 MB).
  hw.l2.partition_bytes = 1e12;
  const auto all = cache::SdcmCacheModel({.max_waves = 0}).analyze(prog, hw);
  CHECK(all.dram_read_bytes() == Approx(2.0 * 8192 * 8192 * 2).epsilon(0.001));
  // The measured 30.5 MB (l2_retention.cu) keeps more than 28 MB, less than everything.
  hw.l2.partition_bytes = 30.5e6;
  const auto measured = cache::SdcmCacheModel().analyze(prog, hw);
  CHECK(measured.dram_read_bytes() < halves.dram_read_bytes());
  CHECK(measured.dram_read_bytes() > all.dram_read_bytes());
}

TEST_CASE("a tile's wrapped copies fill its GPC's merges", "[cache][sdcm]") {
  // Two 64 x 64 tiles of a 16 x 128 x 1024 GEMM, BLOCK_K 64, next to partition 0 on one GPC:
  // both read A's 16 x 64 block (2 KB, rows of a whole line) 4 times a k-step (64 rows over
  // 16), of which a lone CTA looks one up. Tile 0 misses near (1 block) and far for the half
  // homed in the other partition (0.5). The coalescer merges about four requests a sector
  // (ncu_share.csv), and tile 1's four copies are four requests: they fill the merge, so tile 1
  // is looked up as a follower past the GPC's first four, 1 in 4 of its first request and 3/4
  // of a copy, one lookup a tile (ncu_wrapped_grid.csv: 1.00-1.02 a CTA on 2-8 CTAs at 2
  // stages), a hit; where its first request merged whole as a lone follower's, it made none.
  auto hw = h200_like();
  hw.l2.slot_partition = {all_on_partition_0()};
  hw.l2.grid_partition = {{.ctas = 2, .partition = {0, 0}}};
  hw.l2.grid_gpc = {{.ctas = 2, .partition = {0, 0}}};
  auto p = gemm(16, 128, 1024, 64, 64, 1, 2, 4);
  p.block_k = 64;
  const auto a = cache::SdcmCacheModel().analyze(kernels::lift_gemm(p), hw).accesses[0];
  REQUIRE(a.tensor == "A");
  const double block = 16.0 * 64 * 2, steps = 1024 / 64;
  CHECK(a.requested_bytes == Approx(2 * 4 * block * steps));
  CHECK(a.l2_lookup_bytes == Approx(2.5 * block * steps));
  CHECK(a.l2_far_lookup_bytes == Approx(0.5 * block * steps));
  CHECK(a.l2_hit_bytes == Approx(1 * block * steps));
  CHECK(a.dram_bytes == Approx(block * steps));
}
