// Serialised wgmma (plan::Loop::serial_mma): which Triton tiles the compiler serialises, what
// the loop pays for it, and how the report says so.
#include <algorithm>

#include <catch2/catch.hpp>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/model/loop_analysis.h"
#include "tilesight/plan/plan_json.h"

using namespace tilesight;

TEST_CASE("serialised wgmma take turns with the stage's fill, shared by resident tiles", "[model]") {
  // A 4-stage loop: one 20000-byte copy (fill 200 ns at 100 GB/s an SM, round trip 400 ns over
  // 3 stages in flight) and an fp8 MMA of 1000 ns. Pipelined, the MMA hides the rest: 1000 ns.
  // With serial_mma the warps copy the next stage only after their MMAs: 1000 + min(200, 1000)
  // = 1200 ns; with two resident tiles the other's MMAs run meanwhile: 1000 + 200 / 2 = 1100 ns.
  hw::HardwareSpec hw;
  hw.sm_count = 132;
  hw.tensor_core.flops_per_s = {{DType::kFP8, 132 * 1e12}};
  hw.pipeline_round_trip_ns = 400;
  hw.smem_fill_bandwidth_per_sm = 100e9;
  const auto rates = model::sm_rates(hw, 132, 1.0);
  plan::TileProgram prog;
  prog.loops = {{"k", 16, 4, ""}};
  prog.actions = {{.name = "load", .op = plan::OpKind::kLoad, .operands = {"A"}, .bytes = 20000,
                   .result_level = plan::Placement::kSmem, .loop = "k", .dtype = DType::kFP8},
                  {.name = "mma", .op = plan::OpKind::kMmaTc, .flops = 1000e-9 * 1e12, .deps = {0},
                   .loop = "k", .dtype = DType::kFP8}};
  const cache::CacheTraffic traffic;
  model::LoopContext ctx{.program = prog, .hw = hw, .traffic = traffic, .rates = rates};
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(1000e-9).epsilon(1e-6));
  prog.loops[0].serial_mma = true;
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(1200e-9).epsilon(1e-6));
  CHECK(model::analyze_loop(prog.loops[0], 2, ctx).envelope.steady == Approx(1100e-9).epsilon(1e-6));
  // A producer warp group issues the copies whatever the consumers wait on.
  prog.loops[0].producer_warps = true;
  CHECK(model::analyze_loop(prog.loops[0], 1, ctx).envelope.steady == Approx(1000e-9).epsilon(1e-6));
}

TEST_CASE("Triton's tiles 256 wide on 8 warps with B K-major have their wgmma serialised", "[model][gemm]") {
  // mma_rate_fp8.csv, mma_rate_nt.csv and the corpora's SASS: with B stored N x K (or 8-bit,
  // whose wgmma takes B K-major), 64x256 and 128x256 on 8 warps serialise; 128x128 on 8 warps,
  // 128x256 on 4, 256x256 on 8 and every tile with B stored K x N in bf16 do not.
  auto serial = [](std::int64_t bm, std::int64_t bn, std::int64_t warps, DType dtype, const char* layout = "nn") {
    kernels::GemmParams p;
    p.M = p.N = p.K = 4096;
    p.block_m = bm, p.block_n = bn, p.block_k = 64, p.warps = warps, p.stages = 3, p.dtype = dtype;
    p.layout = layout;
    return kernels::lift_gemm(p).loops[0].serial_mma;
  };
  CHECK(serial(128, 256, 8, DType::kFP8));
  CHECK(serial(64, 256, 8, DType::kFP8));
  CHECK(serial(128, 256, 8, DType::kBF16, "nt"));
  CHECK(serial(64, 256, 8, DType::kBF16, "nt"));
  CHECK_FALSE(serial(128, 128, 8, DType::kFP8));
  CHECK_FALSE(serial(128, 256, 4, DType::kFP8));
  CHECK_FALSE(serial(256, 256, 8, DType::kFP8));
  CHECK_FALSE(serial(128, 256, 8, DType::kBF16));
  CHECK_FALSE(serial(128, 128, 8, DType::kBF16, "nt"));
  // The plan format carries it (docs/plan-format.md).
  kernels::GemmParams p;
  p.M = p.N = p.K = 4096;
  p.block_m = 128, p.block_n = 256, p.block_k = 64, p.warps = 8, p.dtype = DType::kFP8;
  const auto j = plan::to_json(kernels::lift_gemm(p));
  CHECK(j["loops"][0]["serial_mma"] == true);
  auto back = plan::parse_tile_program(j);
  REQUIRE(back);
  CHECK(back->loops[0].serial_mma);
}

TEST_CASE("a serialised wgmma loop says so in the report", "[model][gemm]") {
  // fp8 128x256x128 on 8 warps, 4 stages, on the H200 profile: the loop's report carries
  // serial_mma and the diagnosis names the cause and what avoids it.
  auto hw = hw::load_profile("h200");
  REQUIRE(hw.ok());
  kernels::GemmParams g;
  g.M = g.N = g.K = 8192;
  g.block_m = 128, g.block_n = 256, g.block_k = 128, g.stages = 4, g.warps = 8, g.registers = 185;
  g.dtype = DType::kFP8, g.layout = "nt";
  auto p = model::evaluate(kernels::lift_gemm(g), *hw);
  REQUIRE(p.ok());
  REQUIRE(p->loops.size() == 1);
  CHECK(p->loops[0].serial_mma);
  CHECK(p->loops[0].mma_exposed_us > 0.02 * p->loops[0].steady_us);
  CHECK(std::any_of(p->diagnosis.begin(), p->diagnosis.end(),
                    [](const std::string& d) { return d.find("serialises this tile's wgmma") != std::string::npos; }));
}
