// Register spills in the cache's counts (tilesight/cache/local_traffic.h): every spilled sector
// an L2 lookup, as ncu counts them (tests/validation/h200/ncu_spills_facts.csv).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "sdcm_test_spec.h"
#include "tilesight/cache/local_traffic.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/report/diagnosis.h"

using namespace tilesight;

namespace {

// 4096^3 with 128 x 256 x 64 tiles on 4 warps, Triton's 196 spill slots: 200704 B stored and
// reloaded per K iteration of each tile (test_gemm_registers.cpp), 64 iterations, 512 tiles.
kernels::GemmParams spilling() {
  auto p = test::sdcm::gemm(4096, 4096, 4096, 128, 256, 8, 3, 4);
  p.registers = 255, p.spills = 196;
  return p;
}

}  // namespace

TEST_CASE("spilled sectors are L2 lookups: stores hit, loads as the cyclic working set", "[cache]") {
  // One pass of a tile: 100352 B of spills reloaded + A 128 x 64 x 2 + B 64 x 256 x 2 = 149504 B;
  // one tile on each of 132 SMs: 19734528 B. An L2 of 2/3 of that and a cyclic curve falling
  // from 1 at the capacity to 0 at twice it: the pass is 1.5 capacities, half of it hits.
  auto hw = test::sdcm::h200_like();
  hw.l2.bytes = 19734528.0 / 1.5;
  hw.l2.cyclic_hit = {{{1.0, 1.0}}, {{2.0, 0.0}}};
  const auto program = kernels::lift_gemm(spilling());
  CHECK(cache::spill_hit_rate(program, program.actions[2], hw, 1) == Approx(0.5));
  const auto local = cache::local_traffic(program, hw, 1);
  REQUIRE(local.size() == 2);
  // Stored (and reloaded): 100352 B x 64 iterations x 512 tiles.
  const double stored = 100352.0 * 64 * 512, missed = 0.5 * stored;
  const auto& st = local[0];
  CHECK(st.tensor == "spill stores");
  CHECK(st.write);
  CHECK(st.requested_bytes == Approx(stored));
  // Two partitions: the half homed across is looked up again at home, a hit.
  CHECK(st.l2_lookup_bytes == Approx(1.5 * stored));
  CHECK(st.l2_hit_bytes == Approx(1.5 * stored));
  CHECK(st.l2_far_lookup_bytes == Approx(0.5 * stored));
  CHECK(st.dram_bytes == Approx(missed));  // the dirty lines a missed reload displaced
  const auto& ld = local[1];
  CHECK(ld.tensor == "spill loads");
  CHECK_FALSE(ld.write);
  CHECK(ld.l2_hit_bytes == Approx(0.5 * stored));
  CHECK(ld.l2_lookup_bytes == Approx(stored + 0.5 * missed));  // a miss homed across: looked up again
  CHECK(ld.l2_far_lookup_bytes == Approx(0.5 * missed));
  CHECK(ld.dram_bytes == Approx(missed));
  // Within the capacity every reload hits and nothing reaches DRAM; nothing spilled, nothing counted.
  CHECK(cache::local_traffic(program, test::sdcm::h200_like(), 1)[1].dram_bytes == 0);
  auto fits = spilling();
  fits.warps = 8, fits.registers = 208, fits.spills = 0;
  CHECK(cache::local_traffic(kernels::lift_gemm(fits), hw, 1).empty());
}

TEST_CASE("a spilling GEMM's L2 hit rate counts its spilled sectors, as ncu does", "[cache]") {
  // ncu_spills_facts.csv, 4096^3 128 x 256 x 64 g8 s4 w4 (196 slots): 103 M local load and 104 M
  // local store sectors of 302 M L2 lookups, 96.1% hits (l2_hit_sweep.csv), where A, B and C
  // alone are ~37 M. The prediction lists the spills beside the tensors and its hit rate is
  // the hits over the lookups of all of them.
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  auto p = spilling();
  p.stages = 4;
  auto pred = model::evaluate(kernels::lift_gemm(p), *hw, {.timeline = false, .diagnosis = false});
  REQUIRE(pred);
  double hits = 0, lookups = 0, spilled = 0;
  for (const auto& t : pred->tensors) {
    hits += t.l2_hit_bytes, lookups += t.l2_lookup_bytes;
    if (t.tensor == "spill loads") spilled = t.requested_bytes;
  }
  CHECK(spilled == Approx(100352.0 * 64 * 512));
  CHECK(pred->l2_hit_rate == Approx(hits / lookups));
  CHECK(pred->l2_hit_rate > 0.93);
  CHECK(pred->l2_hit_rate < 0.99);
  // The diagnosis says how much of that is spills: (1.5 + 1) x the spilled bytes of the lookups.
  auto told = model::evaluate(kernels::lift_gemm(p), *hw, {.timeline = false, .diagnosis = true});
  REQUIRE(told);
  const std::string share = report::format_percent(2.5 * spilled / lookups);
  CHECK(std::any_of(told->diagnosis.begin(), told->diagnosis.end(), [&](const std::string& line) {
    return line.find(", " + share + " of its lookups register spills") != std::string::npos;
  }));
}
