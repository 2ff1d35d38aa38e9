// The parameters of each template the config panel has a form for, as the engine's parsers
// read them (engine/src/kernels: attention.cpp, mla_decode.cpp, memory_bound.cpp,
// llm_decode.cpp, collective.cpp, fused_comm.cpp, ulysses.cpp): key, kind, legal range,
// whether the template has a default, the legal choices and a tooltip. Plus what the
// engine makes of an optional field left out ("auto (128)") and which collective
// algorithms can run the plan's collective on its device count.
//
//   kernel        groups
//   attention     Problem · Kernel
//   mla_decode    Problem · Kernel
//   rmsnorm ...   Problem
//   llm_decode    Model · Serving
//   all_reduce    Collective          (also all_gather, reduce_scatter, all_to_all)
//   ag_gemm       Problem · Tile · Communication   (also gemm_rs)
//   ulysses_attention  Problem · Kernel · Communication
#pragma once

#include <QStringList>
#include <cstdint>
#include <map>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "tilesight/report/prediction.h"

namespace tilesight::ui {

enum class ParamKind {
  kInt,     // an integer in [min, max]; optional ones read "auto" below min
  kBytes,   // a byte count (BytesSpinBox)
  kBool,
  kChoice,  // one of `choices` ("a|b|c"), or the legal_choices() of the plan
  kSplit,   // split_kv: "auto" (true), or a count; absent reads as `absent_auto` says
};

struct ParamSpec {
  const char* key;  // "model.layers" nests under params.model
  ParamKind kind;
  std::int64_t min = 0, max = 0, step = 1;
  bool optional = false;    // the template has a default: the editor offers "auto"
  const char* choices = "";  // "|"-separated; empty for a kChoice: legal_choices()
  const char* tip = "";
  const char* group = "";
  bool absent_auto = false;  // kSplit: a missing field means the automatic count
};

// The form's fields for `kernel`, grouped in order; empty when there is no form.
std::span<const ParamSpec> template_params(const std::string& kernel);

// The value at `key` ("model.layers") of a params object, or nullptr.
const nlohmann::json* param_at(const nlohmann::json& params, const std::string& key);
// Sets (null: removes) the value at `key`, creating the objects on the way.
void set_param(nlohmann::json& params, const std::string& key, const nlohmann::json& value);

// Choices computed from the plan: the collective algorithms that run the kernel's
// collective on params.devices GPUs (net::all_algorithms()).
QStringList legal_choices(const std::string& kernel, const ParamSpec& spec, const nlohmann::json& params);

// What the engine makes of the optional fields of `params`: key -> value as text
// ("block_m" -> "128", "split_kv" -> "8", "variant" -> "fa2"). Empty when the parameters
// do not parse (the report shows why).
std::map<std::string, QString> resolved_params(const std::string& kernel, const nlohmann::json& params);
// What the engine chose where a plan may leave the choice to it, read from its prediction:
// "algorithm" and "protocol" of the plan's collectives ("ring", "Simple"; the two
// all-to-alls of ulysses_attention give one value when they agree, "direct, pairwise" when
// not), and a fused kernel's "comm_sms" (NCCL's channels on its system: 24 on h200x2).
// Empty for a plan without collectives.
std::map<std::string, QString> engine_choices(const report::Prediction& prediction);

// What "auto" would give for the field `spec` of this plan: the engine's value with the field
// removed (split_kv: set to true), "" when the rest does not parse.
QString auto_value(const std::string& kernel, const ParamSpec& spec, const nlohmann::json& params);

}  // namespace tilesight::ui
