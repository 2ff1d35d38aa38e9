// Template instances that cross devices: read the instance, load the system profile, hand
// the parameters to the matching evaluation.
#include <functional>
#include <map>

#include <nlohmann/json.hpp>

#include "tilesight/model/distributed.h"
#include "tilesight/net/what_if.h"
#include "tilesight/util/json_input.h"

namespace tilesight::model {

namespace {

using Predictor = std::function<Result<report::Prediction>(const std::string& kernel, const nlohmann::json& params,
                                                           const net::SystemSpec& system, const EvaluateOptions& o)>;

Result<report::Prediction> collective(const std::string& kernel, const nlohmann::json& params,
                                      const net::SystemSpec& system, const EvaluateOptions&) {
  auto p = kernels::parse_collective_params(kernel, params);
  if (!p) return p.errors();
  return evaluate_collective(*p, system);
}

Result<report::Prediction> fused_comm(const std::string& kernel, const nlohmann::json& params,
                                      const net::SystemSpec& system, const EvaluateOptions& o) {
  auto p = kernels::parse_fused_comm_params(kernel, params);
  if (!p) return p.errors();
  return evaluate_fused_comm(*p, system, o);
}

Result<report::Prediction> ulysses(const std::string&, const nlohmann::json& params, const net::SystemSpec& system,
                                   const EvaluateOptions& o) {
  auto p = kernels::parse_ulysses_params(params);
  if (!p) return p.errors();
  return evaluate_ulysses(*p, system, o);
}

Result<report::Prediction> llm_decode(const std::string&, const nlohmann::json& params, const net::SystemSpec& system,
                                      const EvaluateOptions&) {
  auto p = kernels::parse_llm_decode_params(params);
  if (!p) return p.errors();
  return evaluate_llm_decode(*p, system);
}

const std::map<std::string, Predictor>& predictors() {
  static const std::map<std::string, Predictor> all = {
      {"all_gather", collective}, {"reduce_scatter", collective}, {"all_reduce", collective},
      {"all_to_all", collective}, {"send_recv", collective}, {"ag_gemm", fused_comm}, {"gemm_rs", fused_comm},
      {"ulysses_attention", ulysses}, {"llm_decode", llm_decode},
  };
  return all;
}

// What-if topologies (net/what_if.h): the system's network transformed as the plan's
// "what_if" says; the prediction then names the system "h200x8 (what-if)".
Errors apply_what_if(const nlohmann::json& w, net::SystemSpec& system) {
  auto parsed = net::parse_what_if(w);
  if (!parsed) return parsed.errors();
  auto changed = net::apply_what_if(system.network, *parsed);
  if (!changed) return changed.errors();
  system.network = std::move(changed).value();
  system.name += " (what-if)";
  return {};
}

}  // namespace

bool is_distributed_plan(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("kernel") && doc["kernel"].is_string() &&
         predictors().count(doc["kernel"].get<std::string>()) > 0;
}

std::vector<std::string> distributed_template_names() {
  std::vector<std::string> names;
  for (const auto& [name, f] : predictors()) names.push_back(name);
  return names;
}

Result<report::Prediction> predict_distributed(const nlohmann::json& doc, const std::string& hw_override,
                                               const EvaluateOptions& options) {
  Errors errors;
  FieldReader f{doc, "", errors};
  f.reject_unknown({"kernel", "hardware", "params", "name", "what_if"});
  const auto kernel = f.string("kernel");
  const auto hardware = f.string("hardware", "");
  const auto name = f.string("name", "");
  if (!doc.contains("params")) errors.push_back({"params", "missing (the template's parameters)"});
  if (!errors.empty()) return errors;
  const std::string hw = hw_override.empty() ? *hardware : hw_override;
  const std::string hw_path = hw_override.empty() ? "hardware" : "--hw";
  if (hw.empty())
    return Error{"hardware", "missing: name a system profile in the plan (\"hardware\": \"h200x8\") or pass --hw"};
  auto system = net::load_system(hw);
  // A decode step may run on one GPU: a single-GPU profile is a system of that GPU (its
  // parallelism then has to be 1, which evaluate_llm_decode checks).
  if (!system && *kernel == "llm_decode") {
    if (auto one = net::load_one_gpu_system(hw)) system = std::move(one);
  }
  if (!system) return prefixed(hw_path, system.errors());
  if (doc.contains("what_if")) {
    auto changed = apply_what_if(doc["what_if"], system.value());
    if (!changed.empty()) return changed;
  }
  auto pred = predictors().at(*kernel)(*kernel, doc["params"], *system, options);
  if (pred && !name->empty()) pred.value().name = *name;
  return pred;
}

}  // namespace tilesight::model
