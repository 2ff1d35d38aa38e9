// Model terms that no template owns: the write-back of the dirty L2 lines the timing
// protocol's flush leaves (DRAM lane), and barrier phases on a loop's in-order chain. Hand
// calculations on specs built here.
#include <catch2/catch.hpp>

#include "tilesight/cache/cache_model.h"
#include "tilesight/model/loop_analysis.h"
#include "tilesight/model/resource_vector.h"

using namespace tilesight;

TEST_CASE("a kernel timed after do_bench's flush writes back the L2's dirty lines", "[model][dram]") {
  // hw_profiles/calibrate/dirty_l2.py: the L2 keeps 32 MiB of the flush's dirty lines. A
  // read-only stream of 64 MiB writes back min(32, 64) MiB more: 1 + 32/64 = 1.5x the DRAM time
  // (the microbenchmark: 25.5 us dirty against 19.5 clean, 1.31x; 1.25x predicted and 1.21x
  // measured at 128 MiB). A kernel that writes 48 MiB of its 64+48 leaves 32 MiB of its own
  // lines dirty at the end instead: no extra write-back. No dirty budget, no change.
  hw::HardwareSpec hw;
  hw.dirty_l2_bytes = 32.0 * 1024 * 1024;
  const double mib = 1024.0 * 1024.0;
  cache::CacheTraffic read_only;
  read_only.accesses = {{.tensor = "x", .requested_bytes = 64 * mib, .dram_bytes = 64 * mib}};
  CHECK(model::dirty_writeback_factor(hw, read_only) == Approx(1.5));
  read_only.accesses[0].dram_bytes = read_only.accesses[0].requested_bytes = 128 * mib;
  CHECK(model::dirty_writeback_factor(hw, read_only) == Approx(1.25));
  cache::CacheTraffic add;
  add.accesses = {{.tensor = "x", .requested_bytes = 64 * mib, .dram_bytes = 64 * mib},
                  {.tensor = "y", .write = true, .requested_bytes = 48 * mib, .dram_bytes = 48 * mib}};
  CHECK(model::dirty_writeback_factor(hw, add) == Approx(1.0));
  // 16 MiB read, 8 written: 16 - 8 = 8 MiB more over 24 moved.
  add.accesses[0].dram_bytes = 16 * mib, add.accesses[1].dram_bytes = 8 * mib;
  CHECK(model::dirty_writeback_factor(hw, add) == Approx(1.0 + 8.0 / 24.0));
  hw.dirty_l2_bytes = 0;
  CHECK(model::dirty_writeback_factor(hw, read_only) == Approx(1.0));
}

TEST_CASE("barrier phases add half a block reduction each to the chain, shared by resident tiles", "[model]") {
  // One CUDA-core action of 100 ns with 2 barrier phases; the profile's block reduction takes
  // 232 ns (block_reduce.csv), so the chain is 100 + 2 x 116 = 332 ns. Two resident tiles whose
  // chains take turns (overlap_resident false) still overlap their waits: 100 + 232 / 2 = 216 ns
  // per tile iteration.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.cuda_fp32_flops_per_s = 67e12;  // any rate: the action's flops are 100 ns of it
  hw.block_reduce_ns = 232;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.loops = {{"k", 10, 1, ""}};
  prog.loops[0].overlap_resident = false;
  prog.actions = {{.name = "reduce", .op = plan::OpKind::kReduce, .flops = 100e-9 * rates.cuda_flops,
                   .barriers = 2, .loop = "k", .dtype = DType::kFP32}};
  const cache::CacheTraffic traffic;
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = rates};
  const auto one = model::analyze_loop(prog.loops[0], 1, ctx);
  CHECK(one.chain == Approx(332e-9).epsilon(1e-6));
  CHECK(one.envelope.steady == Approx(332e-9).epsilon(1e-6));
  const auto two = model::analyze_loop(prog.loops[0], 2, ctx);
  CHECK(two.envelope.steady == Approx(216e-9).epsilon(1e-6));
  hw.block_reduce_ns = 0;  // not measured: no barrier cost
  const auto none = model::analyze_loop(prog.loops[0], 1, ctx);
  CHECK(none.envelope.steady == Approx(100e-9).epsilon(1e-6));
}
