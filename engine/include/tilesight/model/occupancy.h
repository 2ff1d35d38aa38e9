// Resident blocks per SM (§3.4 "Resident tiles and waves"): the minimum over shared memory,
// registers, warps and the architecture's block limit.
#pragma once

#include <limits>
#include <string>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/plan/tile_program.h"
#include "tilesight/util/result.h"

namespace tilesight::model {

// by_* value of a resource the block does not use (no registers given, no shared memory and
// no per-block reservation): it never limits.
inline constexpr int kNotLimiting = std::numeric_limits<int>::max();

struct Occupancy {
  int resident_blocks = 0;
  std::string limiter;  // "shared memory", "registers", "warps" or "block limit"
  int by_smem = 0;
  int by_registers = 0;
  int by_warps = 0;
  int by_block_limit = 0;
};

// Errors (one per broken limit, path "resources.<field>") when one block cannot fit on an SM,
// e.g. "resources.smem_bytes: needs 1 MiB of shared memory per block; h200 allows 227 KiB".
Result<Occupancy> compute_occupancy(const plan::BlockResources& block, const hw::HardwareSpec& hw);

// "227 KiB", "1 MiB", "512 B": for messages.
std::string format_bytes(double bytes);

}  // namespace tilesight::model
