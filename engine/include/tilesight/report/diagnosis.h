// The diagnosis in words: which pipeline bounds the kernel and why, most important first.
//   "tensor core 78% busy: the bottleneck."
//   "Loop k is bound by memory latency in the steady state: 0.41 us per iteration against
//    0.22 us of throughput work, with 2 loads in flight per SM; more stages or resident
//    blocks would hide it."
#pragma once

#include <string>
#include <vector>

#include "tilesight/report/prediction.h"

namespace tilesight::report {

std::vector<std::string> diagnose(const Prediction& p);

// Helpers shared by the text and JSON writers.
std::string format_us(double us);       // "12.3 us", "1.25 ms", "460 s"
std::string format_percent(double x);   // 0.784 -> "78%"
std::string format_bytes(double b);     // 268e6 -> "256 MiB" (binary, IEC names)

}  // namespace tilesight::report
