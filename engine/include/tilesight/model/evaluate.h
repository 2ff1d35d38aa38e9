// model::evaluate: the one composition root (Algorithm 1, §3.7).
#pragma once

#include <cstddef>

#include "tilesight/cache/cache_model.h"
#include "tilesight/hw/hardware_spec.h"
#include "tilesight/plan/tile_program.h"
#include "tilesight/report/prediction.h"
#include "tilesight/util/result.h"

namespace tilesight::model {

struct EvaluateOptions {
  const cache::CacheModel* cache_model = nullptr;  // nullptr: first-touch model
  std::size_t max_orders = 50000;                   // cap of the order search per loop
  bool timeline = true;                             // fill Prediction::timeline
  int timeline_iterations = 4;                      // loop iterations drawn per loop
};

Result<report::Prediction> evaluate(const plan::TileProgram& program, const hw::HardwareSpec& hw,
                                    const EvaluateOptions& options = {});

}  // namespace tilesight::model
