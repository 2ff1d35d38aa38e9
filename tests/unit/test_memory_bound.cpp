// Memory-bound templates (issue 6): rmsnorm, layernorm, softmax, silu_mul, add.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/memory_bound.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/model/wave_model.h"
#include "tilesight/plan/plan_json.h"

using namespace tilesight;
using nlohmann::json;

namespace {

const plan::TileAction& action(const plan::TileProgram& p, const std::string& name) {
  for (const auto& a : p.actions)
    if (a.name == name) return a;
  FAIL("no action " << name);
  return p.actions.front();
}

kernels::MemoryBoundParams params(const std::string& kernel, std::int64_t rows, std::int64_t cols) {
  auto p = kernels::parse_memory_bound_params(kernel, {{"rows", rows}, {"cols", cols}});
  REQUIRE(p);
  return *p;
}

double kernel_us(const plan::TileProgram& prog, const hw::HardwareSpec& hw) {
  const auto pred = model::evaluate(prog, hw);
  REQUIRE(pred.ok());
  return pred->latency_us - pred->launch_overhead_us;
}

}  // namespace

TEST_CASE("memory-bound templates move the bytes of the op", "[memory_bound]") {
  const auto rms = params("rmsnorm", 1024, 4096);
  const auto prog = kernels::lift_memory_bound(rms);
  CHECK(prog.grid.tiles() == 1024);
  // The row walk: 128 threads x 4 elements per step, 4096 / 512 = 8 steps of 1 KiB each.
  REQUIRE(prog.loops.size() == 1);
  CHECK(prog.loops[0].trip_count == 8);
  CHECK(prog.loops[0].register_loads);
  CHECK(action(prog, "load_x").bytes == 512 * 2);
  CHECK(action(prog, "load_w").bytes == 512 * 2);
  CHECK(action(prog, "store_out").bytes == 512 * 2);
  // Issue slots from ncu's instruction counts (memory_bound.cpp): half of the 11.76
  // instructions per element in the reduction, half in the apply, 15 892 per row in the
  // block combine; 2 FLOP per slot.
  CHECK(action(prog, "reduce").flops == Approx(2 * 5.88 * 512));
  CHECK(action(prog, "apply").flops == Approx(2 * 5.88 * 512));
  CHECK(action(prog, "combine").flops == Approx(2 * 15892.0));
  CHECK(action(prog, "combine").loop.empty());
  CHECK(kernels::memory_bound_bytes(rms) == 2.0 * 1024 * 4096 * 2 + 4096 * 2);
  // The second pass waits for the first: the weight load follows the reduction.
  CHECK(action(prog, "load_w").deps == std::vector<std::size_t>{1});
  const auto ln = kernels::lift_memory_bound(params("layernorm", 2, 8192));
  CHECK(ln.loops[0].trip_count == 16);
  CHECK(action(ln, "load_w").bytes == 2 * 512 * 2);  // weight and bias chunks
  const auto add = kernels::lift_memory_bound(params("add", 2, 4096));
  CHECK(add.grid.tiles() == 2 * 4);  // 1024-element chunks
  CHECK(add.loops.empty());
  auto r = kernels::read_plan(json{{"kernel", "softmax"}, {"params", {{"rows", 0}, {"cols", 8}}}});
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error_text(), Catch::Contains("params.rows"));
}

TEST_CASE("a norm's row walk waits a memory latency per load step", "[memory_bound][model]") {
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  // One row of 24 576: 48 steps, each a DRAM latency for X and one for the weight chunk (the L2
  // holds neither after do_bench's flush): 48 x 2 x 400 ns = 38.4 us, plus per step the issue
  // of 2 x 5.88 x 512 instructions and three 1 KiB transfers through one SM's L2 path (65.9
  // GB/s: 3 x 15.5 ns): under 100 ns. hw_profiles/calibrate/h200/norm_rows.csv measured
  // 38.62 us for this kernel after the flush (a shape outside the corpus).
  const auto prog = kernels::lift_memory_bound(params("rmsnorm", 1, 24576));
  const double us = kernel_us(prog, *hw);
  const double latencies_us = 48 * 2 * hw->dram_latency_ns * 1e-3;
  CHECK(us > latencies_us);
  CHECK(us < latencies_us + 48 * 0.1);
  CHECK(us == Approx(38.62).epsilon(0.1));
  // Without register_loads the same loop would wait the cp.async stage round trip (654 ns)
  // per step instead of the load's latency.
  auto staged = prog;
  staged.loops[0].register_loads = false;
  CHECK(kernel_us(staged, *hw) > 1.3 * us);
}

TEST_CASE("plan JSON keeps a loop's register_loads", "[memory_bound][plan_json]") {
  const auto prog = kernels::lift_memory_bound(params("layernorm", 4, 1024));
  const json j = plan::to_json(prog);
  CHECK(j["loops"][0]["register_loads"] == true);
  CHECK(j["accesses"][1]["revisit"] == 0.5);
  CHECK_FALSE(j["accesses"][0].contains("revisit"));
  auto back = plan::parse_tile_program(j);
  REQUIRE(back);
  CHECK(back->loops[0].register_loads);
  CHECK(back->accesses[1].revisit == 0.5);
  json bad = j;
  bad["accesses"][1]["revisit"] = -1;
  auto r = plan::parse_tile_program(bad);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error_text(), Catch::Contains("accesses[1].revisit"));
}

TEST_CASE("a norm's second pass finds its row in L2 while the rows in flight fit", "[memory_bound][cache]") {
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  // The second pass re-reads X (reload_x) half a tile after the first read. In between, the
  // 132 x 16 rows in flight touch 1.5 rows each: 2112 x 1.5 x 8 KiB = 26 MB at 4096 columns,
  // under one 30 MB L2 partition; 2112 x 1.5 x 28 KiB = 91 MB at 14336. ncu
  // (tests/validation/h200/ncu_norms_facts.csv, the corpus's launches) reads from DRAM 553 MB
  // at 65536 x 4096 (X is 537 MB: the re-read hits), 467 MB at 16384 x 8192 (X 268 MB: 74% of
  // the re-read misses) and 117.4 MB at 2048 x 14336 (X 58.7 MB: all of it misses).
  const auto prog = kernels::lift_memory_bound(params("rmsnorm", 65536, 4096));
  CHECK(action(prog, "reload_x").bytes == 512 * 2);
  CHECK(action(prog, "reload_x").deps == std::vector<std::size_t>{1});
  const double x_mb = 65536.0 * 4096 * 2 / 1e6;
  auto dram_mb = [&](std::int64_t rows, std::int64_t cols) {
    const auto pred = model::evaluate(kernels::lift_memory_bound(params("rmsnorm", rows, cols)), *hw);
    REQUIRE(pred.ok());
    return pred->dram_read_bytes / 1e6;
  };
  CHECK(dram_mb(65536, 4096) == Approx(553).epsilon(0.1));
  CHECK(dram_mb(65536, 4096) < 1.15 * x_mb);
  CHECK(dram_mb(16384, 8192) == Approx(467).epsilon(0.12));
  CHECK(dram_mb(2048, 14336) == Approx(117.4).epsilon(0.05));
}

TEST_CASE("a norm's timeline draws the block combine after the walk it combines", "[memory_bound][timeline]") {
  // combine (the block-wide sum and the rsqrt) depends on every step's reduce: in the
  // timeline it starts after the last iteration's bars, not inside the walk's last step.
  auto hw = hw::load_profile("h200");
  REQUIRE(hw);
  const auto pred = model::evaluate(kernels::lift_memory_bound(params("rmsnorm", 16384, 4096)), *hw);
  REQUIRE(pred.ok());
  double walk_end = 0, combine_start = -1;
  for (const auto& e : pred->timeline) {
    if (e.iteration >= 0) walk_end = std::max(walk_end, e.end_us);
    if (e.action == "combine") combine_start = e.start_us;
  }
  REQUIRE(combine_start >= 0);
  CHECK(combine_start >= walk_end);
  CHECK(pred->timeline.back().action == "combine");  // the last bar, sorted by start
}

TEST_CASE("softmax's register kernel past 4096 columns holds one block per SM", "[memory_bound]") {
  // ncu_norms_facts.csv: cunn_SoftMaxForwardReg<..., 8> (8192 columns) 37 registers, 1024
  // threads: 37888 of 65536 registers, one block; <..., 4> (4096 columns) 30, two blocks.
  CHECK(kernels::lift_memory_bound(params("softmax", 16384, 8192)).resources.registers_per_thread == 37);
  CHECK(kernels::lift_memory_bound(params("softmax", 16384, 4096)).resources.registers_per_thread == 30);
  CHECK(kernels::lift_memory_bound(params("softmax", 2048, 14336)).resources.registers_per_thread == 32);
}

TEST_CASE("softmax of rows up to 2048 runs a warp a row", "[memory_bound]") {
  // ncu_softmaxw_facts.csv: softmax_warp_forward, blocks of 128 threads holding 4 rows (grid
  // rows / 4), 80 registers at 2048 columns; 38.0 instructions an element and 1406 a row,
  // issued in 53.8% of the cycles at 2048 columns: per block of 4 rows x 2048,
  // (38.0 x 8192 + 4 x 1406) / 0.538 instructions, 2 FLOP each.
  const auto prog = kernels::lift_memory_bound(params("softmax", 65536, 2048));
  CHECK(prog.grid.dims[0].extent == 16384);
  CHECK(prog.resources.warps == 4);
  CHECK(prog.resources.registers_per_thread == 80);
  const double flops = action(prog, "reduce").flops + action(prog, "apply").flops;
  CHECK(flops == Approx(2.0 * (38.0 * 8192 + 4 * 1406) / 0.538));
  CHECK(action(prog, "load_x").bytes == 4 * 2048 * 2);
  // Rows of 4 KiB or more (bf16 past 2048, fp32 past 1024) take the 1024-thread block kernel.
  CHECK(kernels::lift_memory_bound(params("softmax", 65536, 4096)).resources.warps == 32);
  auto fp32 = params("softmax", 65536, 2048);
  fp32.dtype = DType::kFP32;
  CHECK(kernels::lift_memory_bound(fp32).resources.warps == 32);
  // Up to 128 columns a warp holds two rows: 8 rows a block.
  CHECK(kernels::lift_memory_bound(params("softmax", 4096, 128)).grid.dims[0].extent == 512);
}

TEST_CASE("SiLU x up on a GEMM output's two halves runs PyTorch's non-vectorised kernels", "[memory_bound]") {
  // ncu_stridedew_facts.csv: elementwise_kernel<128, 4> (512 elements a block), SiLU 66.0
  // instructions an element at 75.1% issue, the multiply 55.75 at 64.4%.
  auto p = kernels::parse_memory_bound_params("silu_mul",
                                              {{"rows", 2048}, {"cols", 14336}, {"fused", false}, {"strided", true}});
  REQUIRE(p);
  const auto prog = kernels::lift_memory_bound(*p);
  CHECK(prog.grid.tiles() == 2048 * 14336 / 512);
  CHECK(action(prog, "silu").flops == Approx(2.0 * 66.0 / 0.751 * 512));
  CHECK(action(prog, "apply").flops == Approx(2.0 * 55.75 / 0.644 * 512));
  // Issue-bound at this size: ncu times the two kernels at 80.0 + 79.4 us.
  const auto h200 = hw::load_profile("h200");
  REQUIRE(h200);
  CHECK(kernel_us(prog, *h200) == Approx(80.0 + 79.4).epsilon(0.05));
  // One row's halves are contiguous: the vectorised kernels.
  auto one = *p;
  one.rows = 1;
  CHECK(kernels::lift_memory_bound(one).grid.tiles() == 14);  // 1024-element chunks
  // Strided halves are an eager op: fused with strided is an error on the field.
  auto bad = kernels::parse_memory_bound_params("silu_mul", {{"rows", 8}, {"cols", 64}, {"strided", true}});
  REQUIRE_FALSE(bad);
  CHECK(bad.errors()[0].path == "params.strided");
}

TEST_CASE("a tile alone on its SM runs its segment's actions in turn", "[memory_bound][model]") {
  // Two tile-body actions, 200 ns of CUDA-core work then 300 ns of SFU work: one tile per SM
  // lasts 500 ns (nothing fills one pipe while the other works); two resident tiles keep the
  // SFU busy 600 ns, longer than one tile's 500 in order.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.cuda_fp32_flops_per_s = 64e12;
  hw.sfu_ops_per_s = 4e12;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.grid.dims = {{"row", 132}};
  prog.actions = {{.name = "reduce", .op = plan::OpKind::kReduce, .flops = 200e-9 * rates.cuda_flops, .dtype = DType::kFP32},
                  {.name = "apply", .op = plan::OpKind::kExp, .sfu_ops = 300e-9 * rates.sfu_ops, .deps = {0},
                   .dtype = DType::kFP32}};
  const cache::CacheTraffic traffic;
  CHECK(model::evaluate_wave(prog, hw, traffic, 132, 1, 1.0, 100).head == Approx(500e-9).epsilon(1e-6));
  CHECK(model::evaluate_wave(prog, hw, traffic, 132, 2, 1.0, 100).head == Approx(600e-9).epsilon(1e-6));
}
