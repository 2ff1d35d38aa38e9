#include "ui/plan_edits.h"

#include <functional>
#include <set>

#include "tilesight/kernels/plan_input.h"
#include "tilesight/plan/plan_json.h"

namespace tilesight::ui {

namespace {

using nlohmann::json;

json* find_action(json& program, const std::string& name) {
  for (auto& a : program["actions"])
    if (a.is_object() && a.value("name", std::string()) == name) return &a;
  return nullptr;
}

std::string action_path(const json& program, const std::string& name) {
  std::size_t i = 0;
  for (const auto& a : program["actions"]) {
    if (a.is_object() && a.value("name", std::string()) == name)
      return "actions[" + std::to_string(i) + "]";
    ++i;
  }
  return "actions";
}

std::vector<std::string> dep_names(const json& action) {
  std::vector<std::string> names;
  if (const auto it = action.find("deps"); it != action.end() && it->is_array())
    for (const auto& d : *it)
      if (d.is_string()) names.push_back(d.get<std::string>());
  return names;
}

// True when `target` is reachable from `start` along deps (start depends on target).
bool depends_on(const json& program, const std::string& start, const std::string& target) {
  std::set<std::string> seen;
  std::function<bool(const std::string&)> visit = [&](const std::string& name) {
    if (name == target) return true;
    if (!seen.insert(name).second) return false;
    for (const auto& a : program["actions"])
      if (a.is_object() && a.value("name", std::string()) == name)
        for (const auto& d : dep_names(a))
          if (visit(d)) return true;
    return false;
  };
  return visit(start);
}

// Lifts, then checks that the program has an actions array to edit.
Result<json> editable_program(const json& doc) {
  auto program = as_tile_program(doc);
  if (!program) return program;
  if (!program->contains("actions") || !(*program)["actions"].is_array())
    return Error{"actions", "the plan has no actions array to edit"};
  return program;
}

}  // namespace

bool is_template_instance(const json& doc) {
  return doc.is_object() &&
         (doc.contains("params") || (doc.contains("kernel") && !doc.contains("actions")));
}

Result<json> as_tile_program(const json& doc) {
  if (!is_template_instance(doc)) return doc;
  auto input = kernels::read_plan(doc);
  if (!input) return input.errors();
  json program = plan::to_json(input->program);
  if (!input->hardware.empty()) program["hardware"] = input->hardware;
  if (doc.contains("name") && doc["name"].is_string()) program["name"] = doc["name"];
  return program;
}

Result<json> add_action(const json& doc, const std::string& op, const std::string& after) {
  auto program = editable_program(doc);
  if (!program) return program;
  json p = std::move(program).value();
  std::string name = op;
  for (int n = 2; find_action(p, name); ++n) name = op + "_" + std::to_string(n);
  json action = {{"name", name}, {"op", op}};
  if (op == "load" || op == "store") action["bytes"] = 16384;
  else action["flops"] = 1048576;
  if (const json* prev = after.empty() ? nullptr : find_action(p, after)) {
    action["deps"] = json::array({after});
    if (prev->contains("loop")) action["loop"] = (*prev)["loop"];
  }
  p["actions"].push_back(std::move(action));
  return p;
}

std::string last_action_name(const json& doc) {
  if (!doc.is_object() || !doc.contains("actions") || !doc["actions"].is_array() ||
      doc["actions"].empty() || !doc["actions"].back().is_object())
    return {};
  return doc["actions"].back().value("name", std::string());
}

Result<json> remove_action(const json& doc, const std::string& name) {
  auto program = editable_program(doc);
  if (!program) return program;
  json p = std::move(program).value();
  if (!find_action(p, name)) return Error{"actions", "no action named \"" + name + "\""};
  if (p["actions"].size() <= 1)
    return Error{action_path(p, name), "a plan needs at least one action"};
  json kept = json::array();
  for (auto& a : p["actions"]) {
    if (a.is_object() && a.value("name", std::string()) == name) continue;
    if (a.is_object() && a.contains("deps")) {
      json deps = json::array();
      for (const auto& d : dep_names(a))
        if (d != name) deps.push_back(d);
      if (deps.empty()) a.erase("deps");
      else a["deps"] = deps;
    }
    kept.push_back(a);
  }
  p["actions"] = std::move(kept);
  return p;
}

Result<json> connect_actions(const json& doc, const std::string& from, const std::string& to) {
  auto program = editable_program(doc);
  if (!program) return program;
  json p = std::move(program).value();
  json* target = find_action(p, to);
  if (!find_action(p, from) || !target)
    return Error{"actions", "no action named \"" + (target ? from : to) + "\""};
  const std::string path = action_path(p, to) + ".deps";
  if (from == to) return Error{path, "an action cannot depend on itself"};
  if (depends_on(p, from, to))
    return Error{path, "\"" + to + "\" depending on \"" + from + "\" would close a cycle (\"" +
                           from + "\" already waits for \"" + to + "\")"};
  const auto deps = dep_names(*target);
  if (std::find(deps.begin(), deps.end(), from) != deps.end()) return p;
  if (!target->contains("deps") || !(*target)["deps"].is_array())
    (*target)["deps"] = json::array();
  (*target)["deps"].push_back(from);
  return p;
}

Result<json> disconnect_actions(const json& doc, const std::string& from, const std::string& to) {
  auto program = editable_program(doc);
  if (!program) return program;
  json p = std::move(program).value();
  json* target = find_action(p, to);
  if (!target) return Error{"actions", "no action named \"" + to + "\""};
  json deps = json::array();
  for (const auto& d : dep_names(*target))
    if (d != from) deps.push_back(d);
  if (deps.empty()) target->erase("deps");
  else (*target)["deps"] = deps;
  return p;
}

Result<json> set_action_field(const json& doc, const std::string& name, const std::string& key,
                              const json& value) {
  auto program = editable_program(doc);
  if (!program) return program;
  json p = std::move(program).value();
  json* action = find_action(p, name);
  if (!action) return Error{"actions", "no action named \"" + name + "\""};
  const std::string path = action_path(p, name) + "." + key;
  if (key == "name") {
    if (!value.is_string() || value.get<std::string>().empty())
      return Error{path, "a name must be a non-empty string"};
    const std::string renamed = value.get<std::string>();
    if (renamed != name && find_action(p, renamed))
      return Error{path, "another action is already named \"" + renamed + "\""};
    for (auto& a : p["actions"])
      if (a.is_object() && a.contains("deps") && a["deps"].is_array())
        for (auto& d : a["deps"])
          if (d.is_string() && d.get<std::string>() == name) d = renamed;
  }
  if (value.is_null()) action->erase(key);
  else (*action)[key] = value;
  return p;
}

}  // namespace tilesight::ui
