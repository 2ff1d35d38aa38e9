// The prologue-steady-epilogue pipeline envelope of §3.4 (eq. 2):
//   T = T_pro + max(N - d, 0) * T_steady + T_epi,   d = stages * resident - 1   (eq. 3)
#pragma once

#include <algorithm>
#include <cstdint>

namespace tilesight::model {

struct PipelineEnvelope {
  double prologue = 0;      // seconds
  double steady = 0;        // seconds per repeated unit in the steady state
  double epilogue = 0;      // seconds
  std::int64_t iterations = 0;  // N
  std::int64_t depth = 0;       // d

  std::int64_t steady_iterations() const { return std::max<std::int64_t>(iterations - depth, 0); }
  double total() const { return prologue + static_cast<double>(steady_iterations()) * steady + epilogue; }
  double steady_total() const { return static_cast<double>(steady_iterations()) * steady; }
};

// eq. 3: software stages times resident tiles, minus one; never below zero.
constexpr std::int64_t effective_depth(std::int64_t stages, std::int64_t resident) {
  return std::max<std::int64_t>(stages * resident - 1, 0);
}

}  // namespace tilesight::model
