// Register spills in the cache's counts. A spilled value lives in local memory, which misses
// L1 (ncu: 0-0.6% local load hits on the H200's spilling GEMMs), so every spilled sector is
// an L2 lookup of its own: ncu's lts__t_sector_hit_rate counts them beside the tensors' reads
// (tests/validation/h200/ncu_spills_facts.csv), and on a spilling GEMM they are most of the
// lookups.
#pragma once

#include <cstdint>
#include <vector>

#include "tilesight/cache/cache_model.h"
#include "tilesight/hw/hardware_spec.h"
#include "tilesight/plan/tile_program.h"

namespace tilesight::cache {

// L2 hit rate of action a's spilled values: each iteration every resident tile of the GPU
// stores and reloads its spilled slots and loads its operand tiles, a working set reused
// cyclically (cyclic_hit_rate over the profile's l2.cyclic_hit). `resident`: tiles an SM.
double spill_hit_rate(const plan::TileProgram& p, const plan::TileAction& a, const hw::HardwareSpec& hw,
                      std::int64_t resident);

// The names of those accesses in the prediction's tensors.
inline constexpr const char* kSpillStores = "spill stores";
inline constexpr const char* kSpillLoads = "spill loads";

// The launch's spill traffic as two accesses, kSpillStores (write) and kSpillLoads, in the
// units of the cache model's (AccessTraffic): none where nothing spills.
std::vector<AccessTraffic> local_traffic(const plan::TileProgram& p, const hw::HardwareSpec& hw,
                                         std::int64_t resident);

}  // namespace tilesight::cache
