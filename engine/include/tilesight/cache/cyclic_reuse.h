// Hit rate of a working set that is reused cyclically: every block touched once per pass, a
// block reused only after the whole set (spilled registers stored and reloaded by all resident
// threads each loop iteration). Up to the cache's effective capacity all of it hits; past it,
// the profile's measured curve (l2.cyclic_hit, from a bandwidth sweep); without one, none.
#pragma once

#include "tilesight/hw/hardware_spec.h"

namespace tilesight::cache {

double cyclic_hit_rate(const hw::CacheLevel& level, double working_set_bytes);

}  // namespace tilesight::cache
