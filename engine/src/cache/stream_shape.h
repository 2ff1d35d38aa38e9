// The shape in time of a launch's access stream: slots and partitions, skew, merge windows
// (stream_shape.cpp). Private to the SDCM cache model (sdcm_cache_model.cpp).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "cascade.h"
#include "sdcm_tally.h"
#include "tilesight/cache/launch_order.h"
#include "tilesight/cache/reuse_distance.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/hw/hardware_spec.h"
#include "tilesight/plan/tile_program.h"

namespace tilesight::cache::detail {


// y at x on a profile table of points [x, y], x increasing: read linearly between the points,
// the end values past them (l2.short_row_lookups, l2.hit_merge_load).
double table_at(const std::vector<std::array<double, 2>>& points, double x);

// Slots, steps, skew and merge windows of the program's stream under `order` (groups of the
// slots are left to assign_groups).
StreamShape stream_shape(const plan::TileProgram& p, const hw::HardwareSpec& hw, const TileLaunchOrder& order,
                         const std::vector<AccessPlan>& plans, const Levels& lv, const SdcmOptions& options);

// The L2 partition (SM group) next to the SM of each launch slot of a launch of `ctas` CTAs.
void assign_groups(StreamShape& shape, const hw::HardwareSpec& hw, const Levels& lv, std::int64_t ctas);

}  // namespace tilesight::cache::detail
