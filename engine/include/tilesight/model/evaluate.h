// model::evaluate: the one composition root (Algorithm 1, §3.7).
#pragma once

#include <cstddef>
#include <optional>

#include "tilesight/cache/cache_model.h"
#include "tilesight/hw/hardware_spec.h"
#include "tilesight/plan/tile_program.h"
#include "tilesight/report/prediction.h"
#include "tilesight/util/result.h"

namespace tilesight::model {

// Which built-in cache model fills the L2/DRAM split (§3.5).
enum class CacheModelKind {
  kSdcm,        // tile reuse distance + SDCM cascade (cache/sdcm_cache_model.h), the default
  kFirstTouch,  // infinite L2: first touch from DRAM, every repeat a hit
};

struct EvaluateOptions {
  CacheModelKind cache = CacheModelKind::kSdcm;
  const cache::CacheModel* cache_model = nullptr;  // overrides `cache` when set
  std::size_t max_orders = 50000;                   // cap of the order search per loop
  bool timeline = true;                             // fill Prediction::timeline
  int timeline_iterations = 4;                      // loop iterations drawn per loop
  bool diagnosis = true;                            // fill Prediction::diagnosis (the batch paths skip it)
  bool tile_maps = false;                           // fill Prediction::hit_rate_maps without a timeline too
  // A diagnostic: where set (0..1), every loaded tensor's requests merge before an L2 lookup at
  // this share (a measured one: 1 - ncu's read lookups a requested sector) in place of the cache
  // model's, so that the timing can be checked with the merges known. The hit rates are the
  // cache model's still.
  std::optional<double> l2_merged_share;
};

Result<report::Prediction> evaluate(const plan::TileProgram& program, const hw::HardwareSpec& hw,
                                    const EvaluateOptions& options = {});

}  // namespace tilesight::model
