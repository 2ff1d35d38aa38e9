// The `mla_decode` template (DESIGN.md "Template parameter names"; paper §3.3, §3.5.1):
// FlashMLA-style multi-head latent attention decode (DeepSeek-V3: 128 query heads, one
// 576-wide latent KV row per token = kv_lora_rank 512 + rope_dim 64, shared by every head of a
// batch element; the value is the latent part of the same row). A block owns 64 query heads of
// one batch element (FlashMLA's block_m; 128 heads = 2 head blocks) and walks its share of the
// KV cache in block_n-token tiles, double-buffered in SMEM. Two warp groups: WG0 computes the
// scores and the softmax and keeps P in registers for its half of O += P V; WG1 reads P through
// SMEM for the other half. Split-KV blocks store fp32 partials, merged by a combine kernel.
//
//   tile body:  load_q (64 heads x 576, smem)
//               loop kv (block_n tokens, 2 stages)
//                 load_kv_latent ─> gemm_qk_latent ─> gemm_qk_rope ─> rowmax ─> exp ─┬─> rowsum
//                 load_kv_rope ──────────────────────────┘                  │         ├─> share_p ─> gemm_pv_wg1
//                                                               rescale_o <─┘─────────┴──────────> gemm_pv_wg0
//                 (load_kv_latent is V too: both PV halves wait for it)
//               store_o (or store_partial + combine kernel)
//
// The KV tiles are reused by both head blocks of a batch element (reuse_dims "head_block",
// eq. 6): the head blocks are the grid's fastest dim, so the second read hits L2.
// Not validated on hardware (FlashMLA does not run on the measuring machine); checked against
// the authors' published H800 figures (docs/plan-format.md).
#pragma once

#include <cstdint>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/plan/tile_program.h"
#include "tilesight/util/result.h"

namespace tilesight::kernels {

struct MlaDecodeParams {
  std::int64_t batch = 1, seq_kv = 1, heads = 128, kv_lora_rank = 512, rope_dim = 64;
  std::int64_t block_n = 64;  // KV tokens per tile (FlashMLA's page block)
  std::int64_t split_kv = 1;  // KV tiles of a batch element split over this many blocks
  DType dtype = DType::kBF16;
};

// Query heads one block computes (FlashMLA: 64 rows of heads x seq_q, padded).
inline constexpr std::int64_t kMlaBlockM = 64;
inline constexpr std::int64_t kMlaStages = 2;
inline constexpr std::int64_t kMlaWarps = 8;  // two consumer warp groups

// Reads `params` (path "params"): every error names its field, all of them at once.
// `split_kv: true` picks a split count (mla_split_count).
Result<MlaDecodeParams> parse_mla_decode_params(const nlohmann::json& params,
                                                const std::string& path = "params");

std::int64_t mla_head_blocks(const MlaDecodeParams& p);
// FlashMLA's scheduler spreads the KV tiles of all batch elements over about one block per SM;
// `true` aims at ~128 blocks (the template does not know the GPU, as for `attention`).
std::int64_t mla_split_count(const MlaDecodeParams& p);
std::int64_t mla_smem_bytes(const MlaDecodeParams& p);
std::int64_t mla_registers_per_thread(const MlaDecodeParams& p);

plan::TileProgram lift_mla_decode(const MlaDecodeParams& p);

}  // namespace tilesight::kernels
