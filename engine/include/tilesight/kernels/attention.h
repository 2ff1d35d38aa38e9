// The `attention` template (DESIGN.md "Template parameter names"; paper §3, Figure 1):
// FlashAttention forward as a tile program. Each block owns block_m query rows of one head,
// loads its Q tile once and walks the keys in block_n steps with the online softmax:
//
//   tile body:  load_q (smem)
//               loop kv (key blocks, `stages` deep)
//                 load_k ─> gemm_qk (S = Q K^T) ─> rowmax ─> exp (SFU) ─> rescale ─┐
//                 load_v ───────────────────────────────────────────────────────> gemm_pv
//               store_o <─ gemm_pv
//
// K/V tiles are reused by every query block of a head and by every head of a GQA group
// (reuse_dims "q_block" and "group", eq. 6). Decode (seq_q = 1) folds a GQA group's query
// heads into the query rows of one tile, and split_kv splits the key loop over blocks that
// store fp32 partials, combined by a second kernel (launches = 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/plan/tile_program.h"
#include "tilesight/util/result.h"

namespace tilesight::kernels {

struct AttentionParams {
  std::int64_t batch = 1, heads = 1, kv_heads = 1, seq_q = 1, seq_kv = 1, head_dim = 128;
  bool causal = false;
  DType dtype = DType::kBF16;
  // fa2: one warp group computes and loads (FlashAttention-2, Triton's tutorial kernel);
  // fa3: Hopper warp-specialised producer + two ping-pong consumer warp groups.
  std::string variant = "fa2";
  MmaInstruction mma = MmaInstruction::kMmaSync;
  std::int64_t block_m = 128, block_n = 64, warps = 4, stages = 2;
  std::int64_t split_kv = 1;  // key blocks split over this many blocks (+ a combine kernel)
  // Registers per thread the compiler reported (Triton's n_regs); 0: estimate them. Occupancy
  // follows them; the estimate still decides what spills.
  std::int64_t registers = 0;
  std::int64_t spills = 0;  // the compiler's 4-byte spill slots per thread (n_spills); 0: estimate
};

// Reads `params` (path "params"): every error names its field, all of them at once. Defaults
// follow the kernel traits of attention_README.md (FA2: d 128 -> 128x64, d 64 -> 128x128,
// 4 warps; fa3: 128x128, 12 warps). `split_kv: true` picks a split count (attention_split_count).
Result<AttentionParams> parse_attention_params(const nlohmann::json& params,
                                               const std::string& path = "params");

// Query rows one tile computes usefully: a GQA decode tile holds the group's heads.
std::int64_t attention_rows_per_tile(const AttentionParams& p);
// Key blocks one tile walks: all of them, or for causal the grid's average (see .cpp).
std::int64_t attention_kv_blocks(const AttentionParams& p);
// Key blocks query block i walks (all equal unless causal): the tiles' unequal lengths.
std::vector<std::int64_t> attention_kv_blocks_per_q_block(const AttentionParams& p);
// FlashAttention-2's library kernels (variant fa2 on mma.sync, as SDPA's flash backend runs
// them): their own split heuristic and split tiles, one K and one V buffer, loads waited apart.
bool attention_fa2_library(const AttentionParams& p);
// Splits of the other kernels when split_kv is `true`: enough tiles to fill ~128 SMs, at most
// 128 (the FA2 library's own heuristic is in attention.cpp).
std::int64_t attention_split_count(const AttentionParams& p);

std::int64_t attention_smem_bytes(const AttentionParams& p);
std::int64_t attention_registers_needed(const AttentionParams& p);      // before the 255 cap
std::int64_t attention_registers_per_thread(const AttentionParams& p);  // what occupancy sees
// Local-memory bytes one key block stores and reloads when the accumulators spill.
double attention_spill_bytes_per_iteration(const AttentionParams& p);

plan::TileProgram lift_attention(const AttentionParams& p);

}  // namespace tilesight::kernels
