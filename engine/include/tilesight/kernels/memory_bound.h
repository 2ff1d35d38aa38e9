// Memory-bound templates (DESIGN.md "Template parameter names"): `rmsnorm`, `layernorm`,
// `softmax` (over the last dimension), `silu_mul` (fused SiLU(gate) x up) and `add`, with
// params `rows, cols, dtype` (silu_mul also `fused`, default true). Each is a tile program with no loop (paper §3.1): one tile
// per row for the row reductions (PyTorch launches one block per row: 128 threads for the
// norms, 1024 for softmax; attention_README.md), one tile per 1024-element chunk of a row
// for the elementwise ops (PyTorch's vectorized_elementwise_kernel: 128 threads x 8). A
// `copy` (one input, no template of its own: the cross-device templates' torch copies) takes
// 512 elements a tile when strided (elementwise_kernel<128, 4>).
//
//   norms/softmax:  load_x ─> reduce (CUDA cores) ─> normalise ─> store_y
//                   load_w (weights, reused by every row) ──────┘
//   elementwise:    load_a, load_b ─> apply ─> store_y
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/plan/tile_program.h"
#include "tilesight/util/result.h"

namespace tilesight::kernels {

struct MemoryBoundParams {
  std::string kernel;  // rmsnorm | layernorm | softmax | silu_mul | add
  std::int64_t rows = 1, cols = 1;
  DType dtype = DType::kBF16;
  // silu_mul only: false is eager PyTorch's `F.silu(g) * u`, two kernels: SiLU writes a
  // temporary that the multiply reads back (5 tensor passes instead of 3, two launches).
  bool fused = true;
  // silu_mul with fused false only: gate and up are the two halves of one [rows, 2 cols] tensor
  // (a GEMM's gate/up output, chunked), so both kernels take PyTorch's non-vectorised
  // elementwise_kernel<128, 4> path (strided inputs) where one row would be contiguous.
  bool strided = false;
  // copy only (used by the cross-device templates for torch's copies, not a plan template):
  // the copy's dimensions after TensorIterator merges the ones contiguous in both tensors.
  // 1 is a contiguous copy (cudaMemcpyAsync's kernel: bandwidth-bound); more is PyTorch's
  // non-vectorized elementwise_kernel<128, 4> (direct_copy_kernel_cuda) with an
  // OffsetCalculator per operand, whose index arithmetic grows with the dimensions.
  std::int64_t dims = 1;
};

// The template names this file provides.
const std::vector<std::string>& memory_bound_names();

Result<MemoryBoundParams> parse_memory_bound_params(const std::string& kernel,
                                                    const nlohmann::json& params,
                                                    const std::string& path = "params");

// Bytes the fused op must move: inputs + output (+ weights), the corpus's "compulsory bytes".
double memory_bound_bytes(const MemoryBoundParams& p);

plan::TileProgram lift_memory_bound(const MemoryBoundParams& p);

}  // namespace tilesight::kernels
