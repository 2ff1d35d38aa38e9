// The table-valued leaves of a profile's l2 group (docs/hardware-profiles.md), private to the
// profile loader: cyclic_hit, async_per_sm, short_row_lookups and hit_merge_load, points [x, y] that must
// follow each other, and
// slot_partition, slot_gpc, grid_partition and grid_gpc, one digit per launch slot, checked against
// sm_count and l2.partitions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/util/result.h"

namespace tilesight::hw::detail {

// The l2 keys read here, not by the loader's scalar fields.
inline const std::vector<std::string> kL2Tables = {"cyclic_hit",     "async_per_sm",   "short_row_lookups",
                                                    "hit_merge_load", "slot_partition", "grid_partition",
                                                    "grid_gpc",       "slot_gpc"};

// Shortest text that reads back as the same double: 4.2e+12, 0.84, -1 (every profile error).
std::string format_number(double v);

// Reads whichever of the tables the l2 object holds into `spec`, each error with its path.
void read_l2_tables(const nlohmann::json& l2, HardwareSpec& spec, Errors& errors);

// What the tables must agree on with the rest of the profile (the slot maps' lengths and
// digits), once it is all read.
void check_l2_tables(const HardwareSpec& spec, Errors& errors);

}  // namespace tilesight::hw::detail
