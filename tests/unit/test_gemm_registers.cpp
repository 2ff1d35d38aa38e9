// What the compiler allocates for a gemm tile (engine/src/kernels/gemm_registers.cpp): the
// register estimate, a recorded count in its place, and the spills of overflowing accumulators,
// checked by hand on the H200-like spec of gemm_test_spec.h.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/kernels/gemm.h"
#include "tilesight/model/occupancy.h"
#include "gemm_test_spec.h"

using namespace tilesight;
using tilesight::test::gemm;
using tilesight::test::h200_like;

TEST_CASE("an estimated register count just past an occupancy boundary lands on it", "[gemm][model]") {
  auto p = gemm(2048, 2048, 2048);
  // 64x64x32 on 4 warps: 1.203 x 32 + 0.278 x 16 + 0.386 x 16 + 18.1 = 67.22 -> 67, three past
  // 64, the most that still fits 8 blocks (65536 / (8 x 4 warps) = 2048 a warp, 64 a thread):
  // 64 (Triton records 60, 8 blocks).
  p.block_m = 64, p.block_n = 64, p.block_k = 32, p.stages = 2, p.warps = 4;
  CHECK(kernels::gemm_registers_per_thread(p) == 64);
  const auto occupancy = model::compute_occupancy(kernels::lift_gemm(p).resources, h200_like());
  REQUIRE(occupancy.ok());
  CHECK(occupancy->by_registers == 8);
  // 64x128x64 on 4 warps: 76.99 + 8.90 + 24.70 + 18.1 = 128.69 -> 129, one past 4 blocks' 128.
  p.block_n = 128, p.block_k = 64;
  CHECK(kernels::gemm_registers_per_thread(p) == 128);
  // 128x64x64 on 8 warps: 38.50 + 8.90 + 6.18 + 18.1 = 71.67 -> 72, eight past 4 blocks' 64 and
  // under 3 blocks' 80: it stays (Triton records 64 there; the rule misses it).
  p.block_m = 128, p.block_n = 64, p.warps = 8;
  CHECK(kernels::gemm_registers_per_thread(p) == 72);
}

TEST_CASE("the compiler's reported registers decide occupancy", "[gemm][model]") {
  // 64x128x32, 4 warps: the Triton fit gives 1.203 x 64 + 0.278 x 16 + 0.386 x 32 + 18.1 =
  // 111.89 -> 112 registers (4 blocks of 128 threads per SM); Triton reports 120 for it
  // (triton_gemm.csv), and a reported count replaces the estimate.
  auto p = gemm(8192, 8192, 8192);
  p.block_m = 64, p.block_n = 128, p.block_k = 32, p.stages = 2, p.warps = 4;
  CHECK(kernels::gemm_registers_per_thread(p) == 112);
  p.registers = 120;
  CHECK(kernels::gemm_registers_per_thread(p) == 120);
  CHECK(kernels::lift_gemm(p).resources.registers_per_thread == 120);
  // fp8 operands take registers by the byte: 1.203 x 64 + (0.278 x 16 + 0.386 x 32) / 2 + 18.1
  // = 103.43 -> 103 (Triton reports 90 for 64x128x32 fp8 on 4 warps, triton_gemm_fp8_heldout.csv).
  p.registers = 0;
  p.dtype = DType::kFP8;
  CHECK(kernels::gemm_registers_per_thread(p) == 103);
  auto bad = kernels::parse_gemm_params(nlohmann::json::parse(R"({"M": 64, "N": 64, "K": 64, "registers": 300})"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].path == "params.registers");
}

TEST_CASE("a tile whose accumulators overflow the registers spills them around its MMAs", "[gemm]") {
  // 128 x 256 on 4 warps: 256 fp32 accumulators per thread + the 40 base > 255. Triton
  // recorded 196 spill slots (4096^3 128x256x64 w4): 2 x 4 x 196 x 128 threads = 200704 B of
  // local traffic per iteration, the MMA's own accumulators. On 8 warps (128 each) or with
  // 128 x 128 tiles nothing overflows.
  auto p = gemm(4096, 4096, 4096);
  p.block_m = 128, p.block_n = 256, p.warps = 4, p.registers = 255, p.spills = 196;
  const auto mma = kernels::lift_gemm(p).actions[2];
  CHECK(mma.local_bytes == Approx(200704));
  CHECK(mma.accumulator_spills);
  p.warps = 8, p.registers = 208, p.spills = 0;
  CHECK_FALSE(kernels::lift_gemm(p).actions[2].accumulator_spills);
  p.block_n = 128, p.warps = 4, p.registers = 0;
  CHECK_FALSE(kernels::lift_gemm(p).actions[2].accumulator_spills);
}
