// Resident blocks per SM (§3.4; Algorithm 1, ResidentTilesPerSM): the p in d = stages * p - 1
// (eq. 3) and in the wave size sm_count * p (Algorithm 2).
#include "tilesight/model/occupancy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

namespace tilesight::model {

namespace {

constexpr double kThreadsPerWarp = 32;

// Integral values without decimals ("65536"), others with ("1.5"): hardware limits are
// doubles in the spec but almost always whole numbers.
std::string count_text(double value) {
  char buf[64];
  if (value == std::floor(value) && std::abs(value) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", value);
  else
    std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

// The GPU as messages name it: the profile name, "h200".
std::string gpu(const hw::HardwareSpec& hw) {
  return hw.name.empty() ? "the GPU" : hw.name;
}

// How many blocks of `per_block` fit in `capacity`; a block that needs none never limits.
int blocks_that_fit(double capacity, double per_block) {
  if (per_block <= 0) return kNotLimiting;
  const double fit = std::floor(capacity / per_block);
  if (fit <= 0) return 0;
  return fit >= kNotLimiting ? kNotLimiting : static_cast<int>(fit);
}

// Registers one warp of the block takes from the register file: allocation is per warp, in
// units of register_alloc_unit (256 on NVIDIA GPUs), so 250 per thread costs 8192, not 8000.
double registers_per_warp(std::int64_t registers_per_thread, const hw::SmLimits& limits) {
  const double raw = static_cast<double>(registers_per_thread) * kThreadsPerWarp;
  const double unit = limits.register_alloc_unit > 0 ? limits.register_alloc_unit : 1;
  return std::ceil(raw / unit) * unit;
}

void check_shared_memory(const plan::BlockResources& block, const hw::HardwareSpec& hw,
                         Errors& errors) {
  const auto& lim = hw.limits;
  const auto smem = static_cast<double>(block.smem_bytes);
  if (block.smem_bytes < 0) {
    errors.push_back(
        {"resources.smem_bytes", "must not be negative, got " + std::to_string(block.smem_bytes)});
  } else if (smem > lim.smem_bytes_per_block) {
    errors.push_back({"resources.smem_bytes",
                      "needs " + format_bytes(smem) + " of shared memory per block; " + gpu(hw) +
                          " allows " + format_bytes(lim.smem_bytes_per_block)});
  } else if (smem + lim.smem_reserved_per_block > lim.smem_bytes_per_sm) {
    errors.push_back({"resources.smem_bytes",
                      "needs " + format_bytes(smem) + " of shared memory per block plus " +
                          format_bytes(lim.smem_reserved_per_block) + " reserved; " + gpu(hw) +
                          " has " + format_bytes(lim.smem_bytes_per_sm) + " per SM"});
  }
}

void check_registers(const plan::BlockResources& block, const hw::HardwareSpec& hw,
                     Errors& errors) {
  const auto& lim = hw.limits;
  if (block.registers_per_thread < 0) {
    errors.push_back({"resources.registers_per_thread",
                      "must not be negative, got " + std::to_string(block.registers_per_thread)});
    return;
  }
  if (static_cast<double>(block.registers_per_thread) > lim.registers_per_thread)
    errors.push_back(
        {"resources.registers_per_thread", "needs " + std::to_string(block.registers_per_thread) +
                                               " registers per thread; " + gpu(hw) + " allows " +
                                               count_text(lim.registers_per_thread)});
  if (block.warps <= 0) return;
  // A separate limit from the per-thread one: the whole block must fit in one register file.
  const double per_warp = registers_per_warp(block.registers_per_thread, lim);
  const double per_block = per_warp * static_cast<double>(block.warps);
  if (per_block > lim.registers_per_sm)
    errors.push_back({"resources.registers_per_thread",
                      "needs " + count_text(per_block) + " registers per block (" +
                          std::to_string(block.warps) + " warps of " + count_text(per_warp) +
                          "); " + gpu(hw) + " has " + count_text(lim.registers_per_sm) +
                          " per SM"});
}

void check_warps(const plan::BlockResources& block, const hw::HardwareSpec& hw, Errors& errors) {
  const auto& lim = hw.limits;
  const auto warps = static_cast<double>(block.warps);
  if (block.warps <= 0) {
    errors.push_back({"resources.warps", "must be positive, got " + std::to_string(block.warps)});
  } else if (warps * kThreadsPerWarp > lim.max_threads_per_block) {
    errors.push_back({"resources.warps", "needs " + std::to_string(block.warps) + " warps (" +
                                             count_text(warps * kThreadsPerWarp) +
                                             " threads) per block; " + gpu(hw) + " allows " +
                                             count_text(lim.max_threads_per_block) + " threads"});
  } else if (warps > lim.max_warps_per_sm) {
    errors.push_back({"resources.warps", "needs " + std::to_string(block.warps) +
                                             " warps per block; " + gpu(hw) + " holds " +
                                             count_text(lim.max_warps_per_sm) + " per SM"});
  }
}

}  // namespace

std::string format_bytes(double bytes) {
  constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  const double magnitude = std::abs(bytes);
  std::size_t unit = 0;
  double scaled = magnitude;
  while (unit + 1 < kUnits.size() && std::round(scaled * 10) / 10 >= 1024) {
    scaled /= 1024;
    ++unit;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", bytes < 0 ? -scaled : scaled);
  std::string number = buf;
  if (number.size() > 2 && number.compare(number.size() - 2, 2, ".0") == 0)
    number.resize(number.size() - 2);
  return number + " " + kUnits[unit];
}

Result<Occupancy> compute_occupancy(const plan::BlockResources& block, const hw::HardwareSpec& hw) {
  // Every broken limit is reported, not only the first (DESIGN.md, CLI contract).
  Errors errors;
  check_shared_memory(block, hw, errors);
  check_registers(block, hw, errors);
  check_warps(block, hw, errors);
  if (!errors.empty()) return errors;

  const auto& lim = hw.limits;
  Occupancy occ;
  // Hopper reserves 1 KiB per resident block even when the kernel uses no shared memory.
  occ.by_smem = blocks_that_fit(
      lim.smem_bytes_per_sm, static_cast<double>(block.smem_bytes) + lim.smem_reserved_per_block);
  occ.by_registers = block.registers_per_thread == 0
                         ? kNotLimiting
                         : blocks_that_fit(lim.registers_per_sm,
                                           static_cast<double>(block.warps) *
                                               registers_per_warp(block.registers_per_thread, lim));
  occ.by_warps = blocks_that_fit(lim.max_warps_per_sm, static_cast<double>(block.warps));
  occ.by_block_limit = blocks_that_fit(lim.max_blocks_per_sm, 1);

  // Ties go to the first limiter in this order.
  const std::array<std::pair<int, const char*>, 4> limits = {{{occ.by_smem, "shared memory"},
                                                              {occ.by_registers, "registers"},
                                                              {occ.by_warps, "warps"},
                                                              {occ.by_block_limit, "block limit"}}};
  const auto* smallest = &limits[0];
  for (const auto& l : limits)
    if (l.first < smallest->first) smallest = &l;
  occ.resident_blocks = smallest->first;
  occ.limiter = smallest->second;

  if (occ.resident_blocks == 0)  // only an inconsistent spec gets here: say which limit
    return Error{"resources",
                 "no block fits on one SM of " + gpu(hw) + " (limited by " + occ.limiter + ")"};
  return occ;
}

}  // namespace tilesight::model
