// Unequal tiles (causal attention: query block i walks about i + 1 key blocks). A tile
// program has one trip count per loop, its mean over the grid, which gets the total work right
// but not the makespan: the grid ends with its longest tiles, wherever the block scheduler put
// them (attention_README.md: FA2's 8 x 32 causal grid at 1024 tokens takes as long as the
// non-causal one). The block scheduler is list scheduling in launch order over
// SMs x resident slots: a plain launch hands the next block to the first slot that frees, a
// persistent kernel walks tiles c, c + slots, ... in slot c, unless it takes them from a
// counter (TileSchedule::dynamic).
#pragma once

#include <cstdint>
#include <vector>

#include "tilesight/plan/tile_program.h"

namespace tilesight::model {

// Makespan of `work` (per tile, in launch order) on `slots` slots.
double list_schedule_makespan(const std::vector<double>& work, std::int64_t slots, bool persistent);

// Makespan of the program's real per-tile trip counts over the makespan with every tile at
// the loop's (mean) trip_count, both under the same scheduler: the factor by which unequal
// tiles stretch the steady state. 1 when no loop has per-tile trips. Grids of more than
// kScheduledTiles tiles schedule their first kScheduledTiles and add the rest's work spread
// evenly over the slots: a list schedule keeps every slot busy until its last tiles, so its
// makespan is the work over the slots plus a tail no longer than one tile, which the first
// tiles' schedule carries (a causal attention of 12.3 M blocks list-scheduled every one: the
// prediction took 2.5 s, 0.06 s now, the latency the same to 6 digits).
inline constexpr std::int64_t kScheduledTiles = std::int64_t{1} << 17;
double tile_imbalance(const plan::TileProgram& p, std::int64_t slots);

}  // namespace tilesight::model
