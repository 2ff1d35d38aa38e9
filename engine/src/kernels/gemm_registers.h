// Inside the gemm template (gemm.cpp, gemm_registers.cpp): the warp groups a tile's
// accumulators live in, and what the compiler's register allocation makes a K iteration do.
#pragma once

#include <cstdint>

#include "tilesight/kernels/gemm.h"

namespace tilesight::kernels {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Blocks of 12 or more warps are warp-specialised (DESIGN.md: cuBLAS/CUTLASS run 3 warp
// groups, one a TMA producer that keeps ~40 registers): the accumulators live in the
// consumer warps only, and their epilogue goes out through shared memory without a
// register copy.
inline constexpr std::int64_t kProducerWarps = 4;
inline bool warp_specialised(const GemmParams& p) { return p.warps >= 12; }
// Warps that hold one tile's accumulators: a ping-pong consumer warp group holds a whole tile
// by itself; cooperative consumers split it.
inline std::int64_t consumer_warps(const GemmParams& p) {
  if (!warp_specialised(p)) return p.warps;
  return p.schedule == "pingpong" ? kProducerWarps : p.warps - kProducerWarps;
}

// The fp32 accumulators and the base alone do not fit in 255 registers (gemm_registers.cpp).
bool gemm_accumulators_overflow(const GemmParams& p);
// Spilled registers a K iteration reloads one after another, in a loop that stages an operand
// through registers (gemm_registers.cpp).
double gemm_loop_reloads(const GemmParams& p);

}  // namespace tilesight::kernels
