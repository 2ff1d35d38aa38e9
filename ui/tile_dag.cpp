#include "ui/tile_dag.h"

#include <array>
#include <map>

#include "ui/plan_edits.h"

namespace tilesight::ui {

namespace {

double number_or_zero(const nlohmann::json& action, const char* key) {
  const auto it = action.find(key);
  return it != action.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string string_or(const nlohmann::json& action, const char* key, const char* fallback) {
  const auto it = action.find(key);
  return it != action.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// Seconds of bars per action and lane: the largest is the dominant component of u(o).
std::map<std::string, Resource> predicted_pipelines(
    const std::vector<report::TimelineEvent>& timeline) {
  std::map<std::string, std::array<double, kResourceCount>> time;
  for (const auto& e : timeline) time[e.action][index(e.resource)] += e.end_us - e.start_us;
  std::map<std::string, Resource> out;
  for (const auto& [action, t] : time) {
    std::size_t best = 0;
    for (std::size_t r = 1; r < kResourceCount; ++r)
      if (t[r] > t[best]) best = r;
    out[action] = kAllResources[best];
  }
  return out;
}

}  // namespace

int TileDag::find(const std::string& name) const {
  for (std::size_t i = 0; i < actions.size(); ++i)
    if (actions[i].name == name) return static_cast<int>(i);
  return -1;
}

Resource guess_pipeline(const std::string& op) {
  if (op == "mma_tc") return Resource::kTC;
  if (op == "exp") return Resource::kSfu;
  if (op == "load" || op == "store") return Resource::kDram;
  if (op == "remote") return Resource::kNet;
  return Resource::kCuda;
}

// Read leniently from the JSON (not through the parser): a program being edited may be
// invalid for a moment (an action without deps resolved yet), and should still be drawn.
TileDag tile_dag(const nlohmann::json& doc, const std::vector<report::TimelineEvent>& timeline) {
  TileDag dag;
  auto program = as_tile_program(doc);
  if (!program) {
    dag.errors = program.errors();
    return dag;
  }
  dag.lifted = is_template_instance(doc);
  dag.kernel = string_or(*program, "kernel", "custom");
  const auto actions = program->find("actions");
  if (actions == program->end() || !actions->is_array()) return dag;
  const auto pipelines = predicted_pipelines(timeline);
  for (const auto& a : *actions) {
    if (!a.is_object()) continue;
    DagAction node;
    node.name = string_or(a, "name", "?");
    node.op = string_or(a, "op", "?");
    node.loop = string_or(a, "loop", "");
    node.result_level = string_or(a, "result", "register");
    node.flops = number_or_zero(a, "flops");
    node.bytes = number_or_zero(a, "bytes");
    const auto it = pipelines.find(node.name);
    node.pipeline_predicted = it != pipelines.end();
    node.pipeline = node.pipeline_predicted ? it->second : guess_pipeline(node.op);
    dag.actions.push_back(std::move(node));
  }
  std::size_t i = 0;
  for (const auto& a : *actions) {
    if (!a.is_object()) continue;
    if (const auto deps = a.find("deps"); deps != a.end() && deps->is_array())
      for (const auto& d : *deps) {
        const int from = d.is_string() ? dag.find(d.get<std::string>()) : -1;
        if (from >= 0) dag.actions[i].deps.push_back(static_cast<std::size_t>(from));
      }
    ++i;
  }
  return dag;
}

bool same_dag(const TileDag& a, const TileDag& b) {
  if (a.actions != b.actions || a.kernel != b.kernel || a.lifted != b.lifted || a.errors.size() != b.errors.size())
    return false;
  for (std::size_t i = 0; i < a.errors.size(); ++i)
    if (a.errors[i].to_string() != b.errors[i].to_string()) return false;
  return true;
}

}  // namespace tilesight::ui
