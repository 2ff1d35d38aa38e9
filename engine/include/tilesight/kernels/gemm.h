// The `gemm` template (DESIGN.md): C = A x B as a tile program. Each block owns a
// block_m x block_n tile of C and walks K in block_k steps: per iteration it loads an A tile
// and a B tile into shared memory and runs one tensor-core MMA; after the loop it stores C.
//
//   tile body:  loop k (ceil(K/block_k) iterations, `stages` deep)
//                 load_a (smem) ─┐
//                 load_b (smem) ─┴─> mma (registers)
//               store_c <─ mma
//
// Split-K adds a leading grid dim "split" (each block reduces over K/split_k), stores fp32
// partials, and a reduction kernel reads them back and writes C.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/plan/tile_program.h"
#include "tilesight/util/result.h"

namespace tilesight::kernels {

struct GemmParams {
  std::int64_t M = 0, N = 0, K = 0;
  std::int64_t block_m = 128, block_n = 128, block_k = 64;
  std::int64_t group_m = 1;
  std::int64_t stages = 3;
  std::int64_t warps = 4;
  std::int64_t batch = 1;
  DType dtype = DType::kBF16;
  std::string layout = "nn";  // nn | nt | tn | tt: A then B, n = row-major as torch.matmul
  // Hopper persistent warp-specialised kernels (cuBLAS nvjet, CUTLASS): one block per SM
  // walks tiles; clusters share A/B tiles by TMA multicast; `warps` counts the producer warp
  // group too (3 warp groups = 12).
  bool persistent = false;
  std::int64_t cluster_m = 1, cluster_n = 1;
  std::string raster = "m";             // m: consecutive tiles walk down M; n: along N
  std::string schedule = "cooperative"; // cooperative | pingpong
  std::int64_t split_k = 1;             // K split over blocks, partials reduced by a 2nd kernel
  // Tiles across a group of the raster, the groups walked serpentine; 0: cuBLAS's rule
  // (cache::nvjet_swizzle), 1: a plain raster.
  std::int64_t swizzle = 0;
  // Registers per thread the compiler reported (Triton's n_regs, ptxas -v); 0: estimate them.
  // Occupancy follows them; the estimate still decides what spills.
  std::int64_t registers = 0;
  // 4-byte spill slots per thread the compiler reported (Triton's n_spills); 0: estimate
  // them from the registers the tile needs beyond 255.
  std::int64_t spills = 0;
  // Leading dimensions (row strides in elements) of A and B as stored, BLAS-style: 0 means
  // packed (A: K for "n", M for "t"; B: N for "n", K for "t"). A padded or sliced operand has
  // a larger one, which decides whether its rows are 16-byte aligned.
  std::int64_t lda = 0, ldb = 0;
};

// Reads `params` (path "params"): every error names its field, all of them at once.
Result<GemmParams> parse_gemm_params(const nlohmann::json& params, const std::string& path = "params");

// Shared memory and registers a compiler allocates for this tile config (Triton-like):
// stages * (A tile + B tile) of shared memory. Registers: the fp32 accumulators spread over
// the block's threads, half as many again for the epilogue's converted copy, plus a fixed
// working set (addresses, loop state); past 255 per thread the rest spills.
bool gemm_a_via_registers(const GemmParams& p);  // leading dimension not a multiple of 16
std::int64_t gemm_lda(const GemmParams& p);       // lda, or the packed leading dimension
std::int64_t gemm_ldb(const GemmParams& p);
bool gemm_b_via_registers(const GemmParams& p);
std::int64_t gemm_smem_bytes(const GemmParams& p);
std::int64_t gemm_registers_needed(const GemmParams& p);
std::int64_t gemm_registers_per_thread(const GemmParams& p);
// Local-memory bytes one K iteration stores and reloads when the accumulators spill.
double gemm_spill_bytes_per_iteration(const GemmParams& p);

plan::TileProgram lift_gemm(const GemmParams& p);

}  // namespace tilesight::kernels
