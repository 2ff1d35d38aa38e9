// `llm_decode` (DESIGN.md): one decode step of a transformer served with tensor (tp), expert
// (ep) and data (dp) parallelism, composed from the engine's kernel predictions and the
// network model's collectives. Per layer, on one GPU of a replica:
//
//   rmsnorm ─ qkv GEMM ─ attention (seq_q 1, ctx keys) ─ o GEMM ─ all_reduce(tp)
//   rmsnorm ─ dense: gate_up GEMM ─ silu_mul ─ down GEMM ─ all_reduce(tp)
//             MoE:   router GEMM ─ all_to_all(ep) ─ expert GEMMs ─ silu_mul ─ all_to_all(ep)
//   ... layers times, then the lm_head GEMM.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/plan/dtype.h"
#include "tilesight/util/result.h"

namespace tilesight::kernels {

struct LlmModel {
  std::int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0;
  std::int64_t experts = 0, experts_per_token = 0, expert_ffn = 0;  // 0 experts: dense
  bool moe() const { return experts > 0; }
};

struct LlmDecodeParams {
  LlmModel model;
  std::int64_t batch = 1;  // sequences decoded together per replica
  std::int64_t ctx = 1;    // tokens of context per sequence
  std::int64_t tp = 1, ep = 1, dp = 1;
  DType dtype = DType::kBF16;
  // GPUs of one replica: tp for attention and dense layers; MoE experts spread over ep of them.
  std::int64_t replica_devices() const { return tp > ep ? tp : ep; }
};

Result<LlmDecodeParams> parse_llm_decode_params(const nlohmann::json& params, const std::string& path = "params");

}  // namespace tilesight::kernels
