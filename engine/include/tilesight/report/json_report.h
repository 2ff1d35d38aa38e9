// The Prediction as JSON (CLI contract, DESIGN.md): flat keys other tools rely on first
// (latency_us, prologue_us, steady_us, epilogue_us, waves, resident_blocks_per_sm,
// bottleneck, utilization{tc..net}, profile_source, l2_hit_rate, dram_bytes), then detail;
// on request the timeline and the hit-rate maps over the tile grid.
#pragma once

#include <nlohmann/json.hpp>

#include "tilesight/report/prediction.h"

namespace tilesight::report {

struct JsonOptions {
  bool timeline = false;  // include the per-action timeline events
  bool detail = true;     // loops, waves, tensors, diagnosis
  bool maps = false;      // include the per-tile hit-rate maps (hit_rate_maps)
};

nlohmann::json to_json(const Prediction& p, const JsonOptions& options = {});

}  // namespace tilesight::report
