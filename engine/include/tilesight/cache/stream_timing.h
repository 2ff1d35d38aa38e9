// StreamTiming: the cache model's access stream in time, shared by the cache model's result
// (cache_model.h) and the prediction (report/prediction.h) without either depending on the other.
#pragma once

#include <cstdint>

namespace tilesight::cache {

// How a cache model laid its access stream out in time (the SDCM model, docs/cache-model.md):
// what sets the tiles' reuse gaps and which of their reads merge. Times in iterations of the
// reduction loop, the stream's unit.
struct StreamTiming {
  std::int64_t tiles_in_flight = 0;  // the launch's slots (not `slots`: Qt's macro)
  std::int64_t steps = 0;            // iterations of the reduction loop per tile
  double drift_sd = 0;               // a tile's drift from its wave's pace by the end of its loop (sd)
  double tile_rate_sd = 0;           // relative sd of a tile's own speed, across waves (0: tiles keep pace)
  double own_rate_sd = 0;            // a loop one stage ahead: that speed, which its waves hold back at first
  double wave_footprint = 0;         // ... the bytes its first wave reads over the loop
  std::int64_t held_waves = 0;       // ... the waves after the first that hold together wholly
  std::int64_t parted_wave = 0;      // ... and the first wave that parts wholly (SkewModel::coupling)
  double wave_growth = 0;            // share of a tile each wave's start spread widens by (0: the rate walk)
  double fill_window = 0;            // a miss in flight, open to other SMs' reads of its block (0: none)
  double hit_window = 0;             // a hit's read, open to merges in the request coalescer (0: none)
};

}  // namespace tilesight::cache
