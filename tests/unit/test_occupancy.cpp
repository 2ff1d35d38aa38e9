// Resident blocks per SM (§3.4, the p of eq. 3) on an H200-like spec, by hand, and the
// errors for blocks that cannot run at all.
#include <catch2/catch.hpp>

#include <string>

#include "tilesight/model/occupancy.h"

using tilesight::model::compute_occupancy;
using tilesight::model::format_bytes;
using tilesight::model::kNotLimiting;
using tilesight::plan::BlockResources;

namespace {

// H100/H200 SM (CUDA programming guide, compute capability 9.0).
tilesight::hw::HardwareSpec h200() {
  tilesight::hw::HardwareSpec hw;
  hw.name = "h200";
  hw.sm_count = 132;
  hw.limits = {.smem_bytes_per_sm = 228 * 1024,
               .smem_bytes_per_block = 227 * 1024,
               .smem_reserved_per_block = 1024,
               .registers_per_sm = 65536,
               .registers_per_thread = 255,
               .register_alloc_unit = 256,
               .max_warps_per_sm = 64,
               .max_blocks_per_sm = 32,
               .max_threads_per_block = 1024};
  return hw;
}

BlockResources block(std::int64_t smem, std::int64_t regs, std::int64_t warps) {
  return {.smem_bytes = smem, .registers_per_thread = regs, .warps = warps};
}

}  // namespace

TEST_CASE("occupancy limited by shared memory", "[model]") {
  // 228 KiB per SM = 233472 B; a block takes 72 KiB + 1 KiB reserved = 74752 B;
  // floor(233472 / 74752) = floor(3.12) = 3.
  // Registers: 128 * 32 = 4096 per warp, x 4 warps = 16384; 65536 / 16384 = 4.
  const auto occ = compute_occupancy(block(72 * 1024, 128, 4), h200());
  REQUIRE(occ.ok());
  CHECK(occ->by_smem == 3);
  CHECK(occ->by_registers == 4);
  CHECK(occ->by_warps == 16);
  CHECK(occ->by_block_limit == 32);
  CHECK(occ->resident_blocks == 3);
  CHECK(occ->limiter == "shared memory");
}

TEST_CASE("occupancy limited by registers", "[model]") {
  // 128 * 32 = 4096 per warp, x 8 warps = 32768; 65536 / 32768 = 2.
  // Shared memory: 233472 / (32768 + 1024) = 6.9 -> 6; warps: 64 / 8 = 8.
  const auto occ = compute_occupancy(block(32 * 1024, 128, 8), h200());
  REQUIRE(occ.ok());
  CHECK(occ->by_registers == 2);
  CHECK(occ->by_smem == 6);
  CHECK(occ->resident_blocks == 2);
  CHECK(occ->limiter == "registers");

  // Allocation rounds each warp up to 256 registers: 250 * 32 = 8000 -> 8192, x 8 = 65536,
  // exactly one register file (Triton's 256-wide tiles).
  const auto triton = compute_occupancy(block(0, 250, 8), h200());
  REQUIRE(triton.ok());
  CHECK(triton->by_registers == 1);
  CHECK(triton->limiter == "registers");
  // 255 * 32 = 8160 -> 8192 too; but 9 * 8192 > 65536 does not fit 9 warps.
  CHECK(compute_occupancy(block(0, 255, 8), h200()).ok());
  CHECK_FALSE(compute_occupancy(block(0, 255, 9), h200()).ok());
}

TEST_CASE("occupancy limited by warps and by the block limit", "[model]") {
  // 16 warps: 64 / 16 = 4. Registers 16 * 32 = 512 per warp, x 16 = 8192 -> 8;
  // shared memory 0 + 1 KiB reserved -> 233472 / 1024 = 228.
  const auto warps = compute_occupancy(block(0, 16, 16), h200());
  REQUIRE(warps.ok());
  CHECK(warps->by_warps == 4);
  CHECK(warps->by_registers == 8);
  CHECK(warps->by_smem == 228);  // the reservation counts even without shared memory
  CHECK(warps->resident_blocks == 4);
  CHECK(warps->limiter == "warps");

  // 1 warp: 64 by warps, 65536 / 512 = 128 by registers, 228 by shared memory, 32 by limit.
  const auto tiny = compute_occupancy(block(0, 16, 1), h200());
  REQUIRE(tiny.ok());
  CHECK(tiny->resident_blocks == 32);
  CHECK(tiny->limiter == "block limit");
}

TEST_CASE("occupancy: ties and resources that never limit", "[model]") {
  // cuBLAS: 12 warps (384 threads), 168 registers, 200 KiB shared memory.
  // Shared memory 233472 / (204800 + 1024) = 1.13 -> 1; registers 168 * 32 = 5376 (a multiple
  // of 256), x 12 = 64512 -> 1. The tie goes to shared memory.
  const auto cublas = compute_occupancy(block(200 * 1024, 168, 12), h200());
  REQUIRE(cublas.ok());
  CHECK(cublas->by_smem == 1);
  CHECK(cublas->by_registers == 1);
  CHECK(cublas->by_warps == 5);
  CHECK(cublas->resident_blocks == 1);
  CHECK(cublas->limiter == "shared memory");

  // 227 KiB + 1 KiB reserved = 228 KiB: exactly one block.
  const auto full = compute_occupancy(block(227 * 1024, 128, 4), h200());
  REQUIRE(full.ok());
  CHECK(full->resident_blocks == 1);

  // No registers given and no reservation: neither limits.
  auto hw = h200();
  hw.limits.smem_reserved_per_block = 0;
  const auto free = compute_occupancy(block(0, 0, 4), hw);
  REQUIRE(free.ok());
  CHECK(free->by_smem == kNotLimiting);
  CHECK(free->by_registers == kNotLimiting);
  CHECK(free->resident_blocks == 16);
  CHECK(free->limiter == "warps");
}

TEST_CASE("occupancy errors name the broken limit", "[model]") {
  const auto smem = compute_occupancy(block(1024 * 1024, 128, 4), h200());
  REQUIRE_FALSE(smem.ok());
  REQUIRE(smem.errors().size() == 1);
  CHECK(smem.errors()[0].to_string() ==
        "resources.smem_bytes: needs 1 MiB of shared memory per block; h200 allows 227 KiB");

  const auto regs = compute_occupancy(block(0, 300, 1), h200());
  REQUIRE_FALSE(regs.ok());
  REQUIRE(regs.errors().size() == 1);
  CHECK(regs.errors()[0].to_string() ==
        "resources.registers_per_thread: needs 300 registers per thread; h200 allows 255");

  const auto warps = compute_occupancy(block(0, 32, 40), h200());
  REQUIRE_FALSE(warps.ok());
  REQUIRE(warps.errors().size() == 1);
  CHECK(warps.errors()[0].to_string() ==
        "resources.warps: needs 40 warps (1280 threads) per block; h200 allows 1024 threads");

  // 168 * 32 = 5376 per warp, x 16 warps = 86016 > 65536.
  const auto file = compute_occupancy(block(0, 168, 16), h200());
  REQUIRE_FALSE(file.ok());
  CHECK(file.error_text() ==
        "resources.registers_per_thread: needs 86016 registers per block (16 warps of 5376); "
        "h200 has 65536 per SM");

  const auto zero = compute_occupancy(block(0, 32, 0), h200());
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error_text() == "resources.warps: must be positive, got 0");
}

TEST_CASE("occupancy reports every broken limit at once", "[model]") {
  // 1 MiB, 300 registers, 40 warps: three per-block limits, and the block's registers
  // (300 * 32 = 9600 -> 9728 per warp, x 40 = 389120) overflow the register file too.
  const auto occ = compute_occupancy(block(1024 * 1024, 300, 40), h200());
  REQUIRE_FALSE(occ.ok());
  const auto& errors = occ.errors();
  REQUIRE(errors.size() == 4);
  CHECK(errors[0].path == "resources.smem_bytes");
  CHECK(errors[1].message == "needs 300 registers per thread; h200 allows 255");
  CHECK(errors[2].path == "resources.registers_per_thread");
  CHECK(errors[2].message ==
        "needs 389120 registers per block (40 warps of 9728); h200 has "
        "65536 per SM");
  CHECK(errors[3].path == "resources.warps");

  const auto negative = compute_occupancy(block(-1, -2, -3), h200());
  REQUIRE_FALSE(negative.ok());
  CHECK(negative.errors().size() == 3);
}

TEST_CASE("occupancy: an inconsistent spec fits no block", "[model]") {
  auto hw = h200();
  hw.limits.max_blocks_per_sm = 0;
  const auto occ = compute_occupancy(block(0, 32, 4), hw);
  REQUIRE_FALSE(occ.ok());
  CHECK(occ.error_text() == "resources: no block fits on one SM of h200 (limited by block limit)");
}

TEST_CASE("format_bytes uses binary units", "[model]") {
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1024) == "1 KiB");
  CHECK(format_bytes(227 * 1024) == "227 KiB");
  CHECK(format_bytes(1024 * 1024) == "1 MiB");
  CHECK(format_bytes(1.5 * 1024 * 1024) == "1.5 MiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(1023.99 * 1024) == "1 MiB");  // rounds up into the next unit
  CHECK(format_bytes(141.0 * 1024 * 1024 * 1024) == "141 GiB");
}
