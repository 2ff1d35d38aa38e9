#include "tilesight/kernels/plan_input.h"

#include <functional>
#include <map>

#include "tilesight/kernels/attention.h"
#include "tilesight/kernels/gemm.h"
#include "tilesight/kernels/memory_bound.h"
#include "tilesight/kernels/mla_decode.h"
#include "tilesight/plan/plan_json.h"
#include "tilesight/util/json_input.h"

namespace tilesight::kernels {

namespace {

using Lift = std::function<Result<plan::TileProgram>(const nlohmann::json& params)>;

const std::map<std::string, Lift>& templates() {
  static const std::map<std::string, Lift> all = [] {
    std::map<std::string, Lift> registry = {
        {"gemm",
         [](const nlohmann::json& params) -> Result<plan::TileProgram> {
           auto p = parse_gemm_params(params);
           if (!p) return p.errors();
           return lift_gemm(*p);
         }},
        {"attention",
         [](const nlohmann::json& params) -> Result<plan::TileProgram> {
           auto p = parse_attention_params(params);
           if (!p) return p.errors();
           return lift_attention(*p);
         }},
        {"mla_decode",
         [](const nlohmann::json& params) -> Result<plan::TileProgram> {
           auto p = parse_mla_decode_params(params);
           if (!p) return p.errors();
           return lift_mla_decode(*p);
         }},
    };
    for (const auto& name : memory_bound_names())
      registry.emplace(name, [name](const nlohmann::json& params) -> Result<plan::TileProgram> {
        auto p = parse_memory_bound_params(name, params);
        if (!p) return p.errors();
        return lift_memory_bound(*p);
      });
    return registry;
  }();
  return all;
}

std::string known_list() {
  std::string s;
  for (const auto& name : template_names()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

Result<PlanInput> read_instance(const nlohmann::json& doc) {
  Errors errors;
  FieldReader f{doc, "", errors};
  f.reject_unknown({"kernel", "hardware", "params", "name"});
  const auto kernel = f.string("kernel");
  const auto hardware = f.string("hardware", "");
  const auto name = f.string("name", "");
  if (!doc.contains("params")) errors.push_back({"params", "missing (the template's parameters)"});
  if (!errors.empty()) return errors;
  auto it = templates().find(*kernel);
  if (it == templates().end())
    return Error{"kernel", "unknown kernel \"" + *kernel + "\"; known: " + known_list()};
  auto program = it->second(doc["params"]);
  if (!program) return program.errors();
  PlanInput in{std::move(program).value(), *hardware, {}};
  if (*kernel == "gemm")
    in.path_aliases = {{"resources.smem_bytes", "params (block_m, block_n, block_k, stages, dtype)"},
                       {"resources.registers_per_thread", "params (block_m, block_n, warps)"},
                       {"resources.warps", "params.warps"}};
  if (*kernel == "attention")
    in.path_aliases = {{"resources.smem_bytes", "params (block_m, block_n, head_dim, stages, dtype)"},
                       {"resources.registers_per_thread", "params (block_m, block_n, head_dim, warps)"},
                       {"resources.warps", "params.warps"}};
  if (*kernel == "mla_decode")
    in.path_aliases = {{"resources.smem_bytes", "params (kv_lora_rank, rope_dim, block_n, dtype)"},
                       {"resources.registers_per_thread", "params (kv_lora_rank, block_n)"}};
  if (!name->empty()) in.program.name = *name;
  in.program.hardware = in.hardware;
  return in;
}

}  // namespace

Errors PlanInput::explain(Errors errors) const {
  for (auto& e : errors)
    if (auto it = path_aliases.find(e.path); it != path_aliases.end()) e.path = it->second;
  return errors;
}

std::vector<std::string> template_names() {
  std::vector<std::string> names;
  for (const auto& [name, lift] : templates()) names.push_back(name);
  return names;
}

Result<PlanInput> read_plan(const nlohmann::json& doc) {
  if (!doc.is_object()) return Error{"", "a plan must be a JSON object, got " + json_type_phrase(doc)};
  // A template instance has "params"; a full tile program has "actions" (and may name the
  // kernel it describes in "kernel").
  if (doc.contains("params") || (doc.contains("kernel") && !doc.contains("actions"))) return read_instance(doc);
  auto program = plan::parse_tile_program(doc);
  if (!program) return program.errors();
  PlanInput in{std::move(program).value(), "", {}};
  in.hardware = in.program.hardware;
  return in;
}

}  // namespace tilesight::kernels
