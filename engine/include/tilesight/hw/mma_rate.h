#pragma once

#include <algorithm>

#include "tilesight/hw/hardware_spec.h"

namespace tilesight::hw {

// Share of the tensor-core rate a wgmma instruction of width n keeps. One m64nNk16 (k32 for
// 8-bit types, k8 for tf32: 32 bytes of K per row either way) reads its 64 x 32-byte slice of A
// and its 32-byte x N slice of B from shared memory and runs n / 2 peak clocks: it needs
// 64 + 4096 / n bytes per clock. Shared memory delivers smem_bandwidth_per_sm / clock (128 on
// Hopper), so n = 32 runs at two thirds of the rate and n >= 64 at all of it. Measured
// (hw_profiles/calibrate/h200/mma_rate.csv: Triton wgmma loops with their operands resident
// in shared memory): m64n32k16 loops 640-650 TFLOP/s against 880-1020 for n = 64-256.
// n <= 0 (unknown) or a profile without the rates: 1.
inline double wgmma_width_efficiency(const HardwareSpec& hw, double n) {
  if (n <= 0 || hw.smem_bandwidth_per_sm <= 0 || hw.clock_ghz <= 0) return 1.0;
  const double smem_bytes_per_clock = hw.smem_bandwidth_per_sm / (hw.clock_ghz * 1e9);
  const double needed = 64.0 + 4096.0 / n;
  return std::min(1.0, smem_bytes_per_clock / needed);
}

}  // namespace tilesight::hw
