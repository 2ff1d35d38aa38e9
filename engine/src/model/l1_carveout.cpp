#include "tilesight/model/l1_carveout.h"

#include <algorithm>
#include <cmath>

namespace tilesight::model {

namespace {

constexpr double kKiB = 1024.0;
// A block may use 48 KiB of dynamic shared memory without opting in (CUDA C++ Programming
// Guide, compute capability 9.0); a kernel that opts in for more is launched with the largest
// carve-out: all 58 such configs of hw_profiles/calibrate/h200/staged_l1.csv ran with 228 KiB
// (launch__shared_mem_config_size), whatever their occupancy needed.
constexpr double kOptInThreshold = 48 * kKiB;
// Below it the driver's choice was never under 100 KiB for two or more blocks (staged_l1.csv:
// 100, 132, 164 or 196 KiB), and the carve-outs above 100 KiB come in 32 KiB steps (the
// guide's list for 9.0: 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 KiB). It is sometimes a step
// more than the blocks need (132 KiB for two of 48 KiB), and one small block got 32 or 64 KiB;
// this takes 100 KiB there too, which leaves 156 KiB of L1 against 192-224, more than any staged
// tile's window needs either way.
constexpr double kSmallestCarveout = 100 * kKiB;
constexpr double kCarveoutStep = 32 * kKiB;

}  // namespace

double l1_bytes_beside_smem(const hw::HardwareSpec& hw, std::int64_t smem_per_block, std::int64_t resident) {
  const auto& lim = hw.limits;
  if (lim.l1_smem_bytes_per_sm <= 0 || lim.smem_bytes_per_sm <= 0) return 0;
  const double block = static_cast<double>(smem_per_block);
  double carveout = lim.smem_bytes_per_sm;
  if (block <= kOptInThreshold) {
    const double need = static_cast<double>(std::max<std::int64_t>(resident, 1)) * (block + lim.smem_reserved_per_block);
    const double steps = std::ceil(std::max(0.0, need - kSmallestCarveout) / kCarveoutStep);
    carveout = std::min(lim.smem_bytes_per_sm, kSmallestCarveout + steps * kCarveoutStep);
  }
  return std::max(0.0, lim.l1_smem_bytes_per_sm - carveout);
}

}  // namespace tilesight::model
