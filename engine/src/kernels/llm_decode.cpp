#include "tilesight/kernels/llm_decode.h"

#include <nlohmann/json.hpp>

#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

namespace {
constexpr std::int64_t kMaxDim = std::int64_t{1} << 24;
}

Result<LlmDecodeParams> parse_llm_decode_params(const nlohmann::json& params, const std::string& path) {
  if (!params.is_object()) return Error{path, "must be an object, got " + json_type_phrase(params)};
  Errors errors;
  FieldReader f{params, path, errors};
  f.reject_unknown({"model", "batch", "ctx", "tp", "ep", "dp", "dtype"});
  LlmDecodeParams p;
  if (const nlohmann::json* m = f.object("model")) {
    FieldReader r{*m, f.field_path("model"), errors};
    r.reject_unknown({"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "experts",
                      "experts_per_token", "expert_ffn"});
    LlmModel& mo = p.model;
    mo.layers = r.integer("layers", 1, 4096).value_or(0);
    mo.hidden = r.integer("hidden", 1, kMaxDim).value_or(0);
    mo.heads = r.integer("heads", 1, 4096).value_or(0);
    mo.kv_heads = r.integer("kv_heads", 1, 4096, mo.heads).value_or(0);
    mo.head_dim = r.integer("head_dim", 1, 1024, mo.heads > 0 ? mo.hidden / mo.heads : 128).value_or(0);
    mo.ffn = r.integer("ffn", 1, kMaxDim).value_or(0);
    mo.vocab = r.integer("vocab", 1, kMaxDim).value_or(0);
    mo.experts = r.integer("experts", 0, 4096, 0).value_or(0);
    mo.experts_per_token = r.integer("experts_per_token", 0, 4096, mo.experts > 0 ? 2 : 0).value_or(0);
    mo.expert_ffn = r.integer("expert_ffn", 0, kMaxDim, mo.ffn).value_or(0);
    if (mo.heads > 0 && mo.kv_heads > 0 && mo.heads % mo.kv_heads != 0)
      errors.push_back({r.field_path("heads"), "must be a multiple of kv_heads (" + std::to_string(mo.kv_heads) + ")"});
    if (mo.experts > 0 && (mo.experts_per_token < 1 || mo.experts_per_token > mo.experts))
      errors.push_back({r.field_path("experts_per_token"), "must be in [1, experts]"});
  }
  p.batch = f.integer("batch", 1, 1 << 20).value_or(0);
  p.ctx = f.integer("ctx", 1, 1 << 24).value_or(0);
  p.tp = f.integer("tp", 1, 4096, 1).value_or(0);
  p.ep = f.integer("ep", 1, 4096, 1).value_or(0);
  p.dp = f.integer("dp", 1, 4096, 1).value_or(0);
  if (auto d = f.string("dtype", "bf16")) {
    if (auto t = dtype_from_name(*d); t && (*t == DType::kBF16 || *t == DType::kFP16)) p.dtype = *t;
    else errors.push_back({f.field_path("dtype"), "must be bf16 or fp16, got \"" + *d + "\""});
  }
  if (!errors.empty()) return errors;
  auto divides = [&](const char* key, std::int64_t v, std::int64_t by, const char* what) {
    if (v % by != 0)
      errors.push_back({nest(path, key), "must be a multiple of " + std::string(what) + " (" + std::to_string(by) +
                                             "), got " + std::to_string(v)});
  };
  divides("model.heads", p.model.heads, p.tp, "tp");
  if (p.model.kv_heads >= p.tp) divides("model.kv_heads", p.model.kv_heads, p.tp, "tp");
  divides("model.ffn", p.model.ffn, p.tp, "tp");
  divides("model.vocab", p.model.vocab, p.tp, "tp");
  if (p.model.moe()) divides("model.experts", p.model.experts, p.ep, "ep");
  else if (p.ep > 1) errors.push_back({nest(path, "ep"), "expert parallelism needs model.experts"});
  if (p.replica_devices() % p.ep != 0 || p.replica_devices() % p.tp != 0)
    errors.push_back({nest(path, "ep"), "tp and ep must divide each other (one is the replica's GPU count)"});
  if (!errors.empty()) return errors;
  return p;
}

}  // namespace tilesight::kernels
