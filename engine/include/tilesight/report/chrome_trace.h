// The timeline as a Chrome trace (Trace Event Format) that Perfetto (ui.perfetto.dev) and
// chrome://tracing open: one process, the kernel on its hardware, and one thread per
// pipeline slot of one SM in the first wave. A thread's slices must nest, so bars that overlap on one pipeline (loads
// of resident blocks in flight together) take a second slot of that pipeline:
//
//   process "gemm M=4096 N=4096 K=4096 ... on h200"
//     TC        mma 0   mma 1   mma 2 ...
//     L2        load_a 0  load_b 0 ...
//     L2 #2         load_a 1 ...                  (overlapping the first slot's bar)
//     Net (gpu0->nvswitch)  all_gather ring step 0 ...   (the busiest link's stages)
//
// Threads sort in lane order (TC first); times are µs from the kernel's start.
#pragma once

#include <nlohmann/json.hpp>

#include "tilesight/report/prediction.h"

namespace tilesight::report {

nlohmann::json to_chrome_trace(const Prediction& p);

}  // namespace tilesight::report
