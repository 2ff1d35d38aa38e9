// The two-level cascade of §3.5.3 for one access of one tile (private to the cache model):
// near cache of the tile's SM group, then far cache, then DRAM, each level's hit probability
// by SDCM over the tile reuse distance of its own stream.
#pragma once

#include <cstdint>

#include "tilesight/cache/reuse_distance.h"
#include "tilesight/hw/hardware_spec.h"

namespace tilesight::cache::detail {

struct Levels {
  bool l15 = false;            // near = L1.5 per SM group, far = the whole L2
  std::int64_t groups = 1;     // SM groups, each with its own near cache
  double near_bytes = 0, near_ways = 16;
  double far_bytes = 0, far_ways = 16;
};

Levels levels_of(const hw::HardwareSpec& hw);

// Shares of the bytes an access looks up in its near cache.
struct Outcome {
  double near_hit = 0;
  double far_lookup = 0;
  double far_hit = 0;
  double near_distance = 0;  // D_T in the near cache, tiles
};

Outcome cascade(const WaveStream& wave, const StreamAccess& access, const Levels& levels, double block_bytes,
                bool exact);

}  // namespace tilesight::cache::detail
