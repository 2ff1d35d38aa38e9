// The text report of `tilesight-cli predict`, in the manner of llvm-mca's summary view:
//
//   TileSight prediction: gemm M=4096 N=4096 K=4096 bf16 on h200 (datasheet profile)
//
//   Latency            187 us  (launch overhead 4.8 us)
//   Envelope           prologue 1.9 us | steady 178 us | epilogue 2.2 us
//   Blocks             1024 in 4 waves, 2 resident per SM (limited by shared memory)
//   Throughput         737 TFLOP/s
//   L2                 hit rate 97% (first-touch (infinite L2)), DRAM 101 MB
//
//   Resource         Busy (us)   Util
//   tensor core          171.2    91%  <- bottleneck
//   shared memory         41.0    22%
//   ...
//
//   Loop k: 64 iterations per SM, depth 5, 2.7 us per iteration (throughput)
//     order: load_a -> load_b -> mma   (1 legal order; ...)
//
//   Diagnosis
//     - tensor core 91% busy: the bottleneck; next is L2 at 38%.
//
// Busy is the device-average time each pipeline works; Util is Busy over the latency.
#pragma once

#include <string>

#include "tilesight/report/prediction.h"

namespace tilesight::report {

std::string to_text(const Prediction& p);

}  // namespace tilesight::report
