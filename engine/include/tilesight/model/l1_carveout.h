// What L1 keeps beside the shared memory of the resident blocks. Hopper's SMs split one
// unified array (limits.l1_smem_bytes_per_sm, 256 KiB) into a shared-memory carve-out and L1;
// the driver picks the carve-out at launch.
#pragma once

#include <cstdint>

#include "tilesight/hw/hardware_spec.h"

namespace tilesight::model {

// L1 bytes left on an SM running `resident` blocks of `smem_per_block` shared-memory bytes;
// 0 when the profile does not know its unified size.
double l1_bytes_beside_smem(const hw::HardwareSpec& hw, std::int64_t smem_per_block, std::int64_t resident);

}  // namespace tilesight::model
