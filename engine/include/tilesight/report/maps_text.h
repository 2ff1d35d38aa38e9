// The cache model's per-tile L2 hit-rate maps as text (`tilesight-cli predict --maps`): the
// all-tensors map drawn in characters over the tile grid, at most 64 columns by 32 rows (each
// character the mean of the cells it covers), and each tensor's spread:
//
//   L2 hit rate per tile (all tensors), 64 x 64 tiles (rows: m, columns: n),
//   one character 1 x 1 tiles: ' ' 0-10% . 10-20% : 20-30% ... @ 90-100%
//     +----------------------------------------------------------------+
//     |@@@@@@@@%%%%%%%%@@@@@@@@...                                     |
//     ...
//     all tensors: mean over the tiles 89%, min 1%, max 100%
//     A: mean over the tiles 96%, min 0%, max 100%
//     ...
#pragma once

#include <string>

#include "tilesight/report/prediction.h"

namespace tilesight::report {

// Empty when the prediction carries no maps.
std::string maps_text(const Prediction& p);

}  // namespace tilesight::report
