// Per-pipeline timeline of one SM during the first wave, for the CLI's trace export and the
// GUI's timeline view. Each action becomes one bar per pipeline it occupies:
//
//   TC    |        [mma 0][mma 1][mma 2] ...          [mma N-1]
//   SMEM  |[a0][b0][a1][b1][a2][b2] ...
//   L2    |[load_a 0][load_b 0][load_a 1] ...
//   DRAM  |[load_a 0]   [load_a 1] ...
//         0        prologue | steady ...        | epilogue (store_c)
//
// Only the first `iterations` iterations and the last one of each loop are drawn; the
// steady state between them repeats.
#pragma once

#include <vector>

#include "tilesight/model/wave_model.h"
#include "tilesight/report/prediction.h"

namespace tilesight::model {

std::vector<report::TimelineEvent> build_timeline(const plan::TileProgram& program,
                                                  const WaveTime& wave, int iterations);

}  // namespace tilesight::model
