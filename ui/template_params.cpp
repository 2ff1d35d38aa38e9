#include "ui/template_params.h"

#include <climits>

#include "tilesight/kernels/attention.h"
#include "tilesight/kernels/fused_comm.h"
#include "tilesight/kernels/llm_decode.h"
#include "tilesight/kernels/mla_decode.h"
#include "tilesight/kernels/ulysses.h"
#include "tilesight/net/collective_algorithm.h"
#include "tilesight/net/protocol.h"

namespace tilesight::ui {

namespace {

using K = ParamKind;
constexpr std::int64_t kDim = INT_MAX;      // kMaxDim of the gemm/attention parsers
constexpr std::int64_t kModelDim = 1 << 24;  // llm_decode's kMaxDim
constexpr std::int64_t kBytes = std::int64_t{1} << 50;

// The attention problem and kernel config (attention.cpp); ulysses_attention reads the same.
#define TILESIGHT_ATTENTION_FIELDS                                                                     \
  {"batch", K::kInt, 1, 65535, 1, false, "", "sequences", "Problem"},                                  \
  {"heads", K::kInt, 1, 65535, 1, false, "", "query heads", "Problem"},                                \
  {"kv_heads", K::kInt, 1, 65535, 1, true, "", "key/value heads (auto: as many as heads); heads must " \
                                               "be a multiple", "Problem"},                            \
  {"seq_q", K::kInt, 1, kDim, 128, false, "", "query tokens per sequence; 1 = decode", "Problem"},     \
  {"seq_kv", K::kInt, 1, kDim, 128, false, "", "key/value tokens per sequence", "Problem"},            \
  {"head_dim", K::kInt, 8, 256, 8, false, "", "elements per head: a multiple of 8 up to 256",          \
   "Problem"},                                                                                         \
  {"causal", K::kBool, 0, 1, 1, false, "", "mask the keys after each query", "Problem"},               \
  {"dtype", K::kChoice, 0, 0, 1, true, "bf16|fp16", "element type", "Problem"},                        \
  {"variant", K::kChoice, 0, 0, 1, true, "fa2|fa3|fa4",                                                \
   "kernel structure: fa2 (FlashAttention-2), fa3 (Hopper, warp-specialised), fa4 (Blackwell)",       \
   "Kernel"},                                                                                          \
  {"mma", K::kChoice, 0, 0, 1, true, "", "tensor-core instruction (fa4: tcgen05 only)", "Kernel"},      \
  {"block_m", K::kInt, 16, 512, 16, true, "", "query rows per tile (fa4: 128 to 256)", "Kernel"},      \
  {"block_n", K::kInt, 16, 512, 16, true, "", "keys per inner step (fa4: 64 to 256)", "Kernel"},       \
  {"warps", K::kInt, 1, 32, 1, true, "", "warps per block (fa3: more than 4; fa4: 8 to 32)", "Kernel"}, \
  {"stages", K::kInt, 1, 8, 1, true, "", "K/V pipeline stages", "Kernel"}

#define TILESIGHT_COMM_FIELDS                                                                          \
  {"devices", K::kInt, 2, 4096, 1, false, "", "GPUs: the first N of the system", "Communication"},     \
  {"overlap", K::kChoice, 0, 0, 1, true, "none|stream|fused",                                          \
   "none: communicate, then compute; stream: NCCL on a side stream; fused: in the kernel's tiles",     \
   "Communication"},                                                                                   \
  {"algorithm", K::kChoice, 0, 0, 1, true, "", "collective algorithm (auto: NCCL's tuner picks)",      \
   "Communication"},                                                                                   \
  {"comm_sms", K::kInt, 0, 1024, 1, true, "", "SMs NCCL's kernels hold in stream mode", "Communication"}

constexpr ParamSpec kAttention[] = {
    TILESIGHT_ATTENTION_FIELDS,
    {"split_kv", K::kSplit, 1, 1024, 1, true, "",
     "key blocks split over this many blocks and combined after; auto: enough tiles for ~128 SMs",
     "Kernel", false}};

constexpr ParamSpec kUlysses[] = {TILESIGHT_ATTENTION_FIELDS, TILESIGHT_COMM_FIELDS};

constexpr ParamSpec kMlaDecode[] = {
    {"batch", K::kInt, 1, 65535, 1, false, "", "sequences", "Problem"},
    {"seq_kv", K::kInt, 1, kDim, 128, false, "", "tokens in the KV cache per sequence", "Problem"},
    {"heads", K::kInt, 1, 1024, 1, true, "", "query heads (DeepSeek-V3: 128)", "Problem"},
    {"kv_lora_rank", K::kInt, 128, 1024, 128, true, "", "latent KV dim: a multiple of 128", "Problem"},
    {"rope_dim", K::kInt, 16, 256, 16, true, "", "rotary part of each key: a multiple of 16", "Problem"},
    {"dtype", K::kChoice, 0, 0, 1, true, "bf16|fp16", "element type", "Problem"},
    {"block_n", K::kInt, 16, 256, 16, true, "", "KV tokens per tile (FlashMLA's page block)", "Kernel"},
    {"split_kv", K::kSplit, 1, 1024, 1, true, "",
     "KV tiles of a sequence split over this many blocks; auto: enough tiles for the SMs", "Kernel",
     true}};

constexpr ParamSpec kMemoryBound[] = {
    {"rows", K::kInt, 1, kDim, 256, false, "", "rows (tokens)", "Problem"},
    {"cols", K::kInt, 1, kDim, 256, false, "", "columns (hidden size)", "Problem"},
    {"dtype", K::kChoice, 0, 0, 1, true, "bf16|fp16|fp32", "element type", "Problem"}};

constexpr ParamSpec kSiluMul[] = {
    {"rows", K::kInt, 1, kDim, 256, false, "", "rows (tokens)", "Problem"},
    {"cols", K::kInt, 1, kDim, 256, false, "", "columns of the output (the input has twice as many)",
     "Problem"},
    {"dtype", K::kChoice, 0, 0, 1, true, "bf16|fp16|fp32", "element type", "Problem"},
    {"fused", K::kBool, 0, 1, 1, false, "", "gate and up read from one [rows, 2·cols] tensor", "Problem"}};

constexpr ParamSpec kLlmDecode[] = {
    {"model.layers", K::kInt, 1, 4096, 1, false, "", "transformer layers", "Model"},
    {"model.hidden", K::kInt, 1, kModelDim, 256, false, "", "hidden size", "Model"},
    {"model.heads", K::kInt, 1, 4096, 1, false, "", "query heads; a multiple of tp", "Model"},
    {"model.kv_heads", K::kInt, 1, 4096, 1, true, "", "key/value heads (auto: as many as heads)", "Model"},
    {"model.head_dim", K::kInt, 1, 1024, 1, true, "", "elements per head (auto: hidden / heads)", "Model"},
    {"model.ffn", K::kInt, 1, kModelDim, 256, false, "", "dense MLP width; a multiple of tp", "Model"},
    {"model.vocab", K::kInt, 1, kModelDim, 256, false, "", "vocabulary (the lm_head GEMM); a multiple of tp",
     "Model"},
    {"model.experts", K::kInt, 0, 4096, 1, false, "", "MoE experts; 0 = a dense model", "Model"},
    {"model.experts_per_token", K::kInt, 1, 4096, 1, true, "", "experts each token is routed to (auto: 2)",
     "Model"},
    {"model.expert_ffn", K::kInt, 1, kModelDim, 256, true, "", "MLP width of one expert (auto: ffn)", "Model"},
    {"batch", K::kInt, 1, 1 << 20, 1, false, "", "sequences decoded together per replica", "Serving"},
    {"ctx", K::kInt, 1, 1 << 24, 1024, false, "", "tokens of context per sequence", "Serving"},
    {"tp", K::kInt, 1, 4096, 1, false, "", "tensor parallelism: GPUs sharing each layer", "Serving"},
    {"ep", K::kInt, 1, 4096, 1, false, "", "expert parallelism: GPUs the experts spread over", "Serving"},
    {"dp", K::kInt, 1, 4096, 1, false, "", "data parallelism: replicas", "Serving"},
    {"dtype", K::kChoice, 0, 0, 1, true, "bf16|fp16", "weights and activations", "Serving"}};

constexpr ParamSpec kCollective[] = {
    {"bytes", K::kBytes, 1, kBytes, 1, false, "", "buffer size as nccl-tests' \"size\"", "Collective"},
    {"devices", K::kInt, 2, 4096, 1, false, "", "GPUs: the first N of the system", "Collective"},
    {"algorithm", K::kChoice, 0, 0, 1, true, "", "collective algorithm (auto: NCCL's tuner picks)",
     "Collective"},
    {"protocol", K::kChoice, 0, 0, 1, true, "LL|LL128|Simple", "NCCL protocol (auto: the tuner picks)",
     "Collective"}};

constexpr ParamSpec kFusedGemm[] = {
    {"M", K::kInt, 1, kDim, 256, false, "", "rows of A and C; a multiple of devices", "Problem"},
    {"N", K::kInt, 1, kDim, 256, false, "", "columns of B and C (ag_gemm: a multiple of devices)", "Problem"},
    {"K", K::kInt, 1, kDim, 256, false, "", "the reduction dimension (gemm_rs: a multiple of devices)",
     "Problem"},
    {"dtype", K::kChoice, 0, 0, 1, true, "bf16|fp16|fp8|tf32|fp32", "element type; fp8 is e4m3 in, bf16 out",
     "Problem"},
    {"layout", K::kChoice, 0, 0, 1, true, "nn|nt|tn|tt", "A then B: n = row-major, t = transposed", "Problem"},
    {"block_m", K::kInt, 1, 1024, 16, true, "", "rows of the C tile one block computes", "Tile"},
    {"block_n", K::kInt, 1, 1024, 16, true, "", "columns of the C tile one block computes", "Tile"},
    {"block_k", K::kInt, 1, 1024, 16, true, "", "K step of one pipeline iteration", "Tile"},
    {"group_m", K::kInt, 1, 65536, 1, true, "", "grouped launch order (Triton's GROUP_M)", "Tile"},
    {"stages", K::kInt, 1, 16, 1, true, "", "software-pipeline stages", "Tile"},
    {"warps", K::kInt, 1, 64, 1, true, "", "warps per block", "Tile"},
    TILESIGHT_COMM_FIELDS};

#undef TILESIGHT_ATTENTION_FIELDS
#undef TILESIGHT_COMM_FIELDS

// The collective a kernel runs (the fused ones: the one they overlap with compute).
std::optional<net::Collective> collective_of(const std::string& kernel) {
  if (kernel == "ag_gemm") return net::Collective::kAllGather;
  if (kernel == "gemm_rs") return net::Collective::kReduceScatter;
  if (kernel == "ulysses_attention") return net::Collective::kAllToAll;
  return net::collective_from_name(kernel);
}

QString num(std::int64_t v) {
  return QString::number(v);
}

void put_attention(std::map<std::string, QString>& out, const kernels::AttentionParams& a) {
  out["kv_heads"] = num(a.kv_heads);
  out["dtype"] = QString::fromUtf8(dtype_name(a.dtype).data());
  out["variant"] = QString::fromStdString(a.variant);
  out["mma"] = QString::fromUtf8(mma_name(a.mma).data());
  out["block_m"] = num(a.block_m);
  out["block_n"] = num(a.block_n);
  out["warps"] = num(a.warps);
  out["stages"] = num(a.stages);
  out["split_kv"] = num(a.split_kv);
}

void put_comm(std::map<std::string, QString>& out, const kernels::CommFields& c) {
  out["overlap"] = QString::fromLatin1(kernels::overlap_name(c.overlap));
  // Left out, comm_sms is NCCL's channel count for the collective on the plan's system
  // (model/cross_device.h): the engine names it in its prediction (engine_choices).
  if (c.comm_sms_given) out["comm_sms"] = num(c.comm_sms);
}

}  // namespace

std::span<const ParamSpec> template_params(const std::string& kernel) {
  if (kernel == "attention") return kAttention;
  if (kernel == "mla_decode") return kMlaDecode;
  if (kernel == "ulysses_attention") return kUlysses;
  if (kernel == "llm_decode") return kLlmDecode;
  if (kernel == "ag_gemm" || kernel == "gemm_rs") return kFusedGemm;
  if (kernel == "silu_mul") return kSiluMul;
  for (const char* k : {"rmsnorm", "layernorm", "softmax", "add"})
    if (kernel == k) return kMemoryBound;
  for (const char* k : {"all_gather", "reduce_scatter", "all_reduce", "all_to_all"})
    if (kernel == k) return kCollective;
  return {};
}

const nlohmann::json* param_at(const nlohmann::json& params, const std::string& key) {
  const nlohmann::json* node = &params;
  std::size_t from = 0;
  while (true) {
    if (!node->is_object()) return nullptr;
    const auto dot = key.find('.', from);
    const auto it = node->find(key.substr(from, dot == std::string::npos ? dot : dot - from));
    if (it == node->end()) return nullptr;
    node = &*it;
    if (dot == std::string::npos) return node;
    from = dot + 1;
  }
}

void set_param(nlohmann::json& params, const std::string& key, const nlohmann::json& value) {
  if (!params.is_object()) params = nlohmann::json::object();
  nlohmann::json* node = &params;
  std::size_t from = 0;
  for (auto dot = key.find('.'); dot != std::string::npos; from = dot + 1, dot = key.find('.', from)) {
    nlohmann::json& next = (*node)[key.substr(from, dot - from)];
    if (!next.is_object()) next = nlohmann::json::object();
    node = &next;
  }
  const std::string leaf = key.substr(from);
  if (value.is_null()) node->erase(leaf);
  else (*node)[leaf] = value;
}

QStringList legal_choices(const std::string& kernel, const ParamSpec& spec, const nlohmann::json& params) {
  const std::string key = spec.key;
  if (key == "mma") {
    const nlohmann::json* v = param_at(params, "variant");
    if (v && v->is_string() && v->get<std::string>() == "fa4") return {QStringLiteral("tcgen05")};
    return {QStringLiteral("mma_sync"), QStringLiteral("wgmma")};
  }
  if (key == "algorithm") {
    const auto collective = collective_of(kernel);
    if (!collective) return {};
    const nlohmann::json* d = param_at(params, "devices");
    const std::size_t ranks = d && d->is_number_integer() && d->get<std::int64_t>() >= 2
                                  ? static_cast<std::size_t>(d->get<std::int64_t>())
                                  : 2;
    QStringList names;
    for (const auto& a : net::all_algorithms())
      if (a->supports(*collective, ranks)) names << QString::fromUtf8(a->name().data(), static_cast<qsizetype>(a->name().size()));
    return names;
  }
  return QString::fromLatin1(spec.choices).split(QLatin1Char('|'), Qt::SkipEmptyParts);
}

std::map<std::string, QString> resolved_params(const std::string& kernel, const nlohmann::json& params) {
  std::map<std::string, QString> out;
  if (kernel == "attention") {
    if (auto a = kernels::parse_attention_params(params)) put_attention(out, *a);
  } else if (kernel == "ulysses_attention") {
    if (auto u = kernels::parse_ulysses_params(params)) {
      put_attention(out, u->attention);
      put_comm(out, *u);
    }
  } else if (kernel == "ag_gemm" || kernel == "gemm_rs") {
    if (auto f = kernels::parse_fused_comm_params(kernel, params)) {
      const auto& g = f->gemm;
      out = {{"block_m", num(g.block_m)}, {"block_n", num(g.block_n)}, {"block_k", num(g.block_k)},
             {"group_m", num(g.group_m)}, {"stages", num(g.stages)},   {"warps", num(g.warps)},
             {"dtype", QString::fromUtf8(dtype_name(g.dtype).data())}, {"layout", QString::fromStdString(g.layout)}};
      put_comm(out, *f);
    }
  } else if (kernel == "mla_decode") {
    if (auto m = kernels::parse_mla_decode_params(params))
      out = {{"heads", num(m->heads)},       {"kv_lora_rank", num(m->kv_lora_rank)},
             {"rope_dim", num(m->rope_dim)}, {"block_n", num(m->block_n)},
             {"split_kv", num(m->split_kv)}, {"dtype", QString::fromUtf8(dtype_name(m->dtype).data())}};
  } else if (kernel == "llm_decode") {
    if (auto l = kernels::parse_llm_decode_params(params)) {
      const auto& mo = l->model;
      out = {{"model.kv_heads", num(mo.kv_heads)},
             {"model.head_dim", num(mo.head_dim)},
             {"model.experts_per_token", num(mo.experts_per_token)},
             {"model.expert_ffn", num(mo.expert_ffn)},
             {"dtype", QString::fromUtf8(dtype_name(l->dtype).data())}};
    }
  } else if (!template_params(kernel).empty()) {
    const nlohmann::json* d = param_at(params, "dtype");
    if (!d) out["dtype"] = QStringLiteral("bf16");  // every other template's default
  }
  return out;
}

std::map<std::string, QString> engine_choices(const report::Prediction& prediction) {
  QStringList algorithms, protocols;
  for (const auto& c : prediction.network.collectives) {
    const QString a = QString::fromStdString(c.algorithm), p = QString::fromStdString(c.protocol);
    if (!a.isEmpty() && !algorithms.contains(a)) algorithms << a;
    if (!p.isEmpty() && !protocols.contains(p)) protocols << p;
  }
  std::map<std::string, QString> out;
  if (!algorithms.isEmpty()) out["algorithm"] = algorithms.join(QStringLiteral(", "));
  if (!protocols.isEmpty()) out["protocol"] = protocols.join(QStringLiteral(", "));
  if (prediction.network.comm_sms > 0) out["comm_sms"] = QString::number(prediction.network.comm_sms);
  return out;
}

QString auto_value(const std::string& kernel, const ParamSpec& spec, const nlohmann::json& params) {
  nlohmann::json rest = params;
  set_param(rest, spec.key, spec.kind == ParamKind::kSplit && !spec.absent_auto ? nlohmann::json(true)
                                                                                 : nlohmann::json());
  const auto resolved = resolved_params(kernel, rest);
  const auto it = resolved.find(spec.key);
  return it == resolved.end() ? QString() : it->second;
}

}  // namespace tilesight::ui
