// The plan editor's edits of a tile program, as functions from one plan document to the
// next (Qt-free; the undo stack keeps the documents). A template instance is lifted to the
// full tile program first: a DAG edit cannot be expressed in template parameters, and the
// lifted program is exactly what the engine predicted, so nothing changes until the edit
// itself (undo brings the template back). Errors name the field, as the engine's do.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tilesight/util/result.h"

namespace tilesight::ui {

// {"kernel": ..., "params": ...} without "actions": what kernels::read_plan lifts.
bool is_template_instance(const nlohmann::json& doc);

// The document itself for a tile program; the lifted program (with the plan's hardware) for
// a template instance.
Result<nlohmann::json> as_tile_program(const nlohmann::json& doc);

// Adds an action of kind `op` named after it ("exp", "exp_2", ...), in the loop of `after`
// and depending on it when `after` names an action; returns the new document.
Result<nlohmann::json> add_action(const nlohmann::json& doc, const std::string& op,
                                  const std::string& after = {});
// The name add_action gave the last action it added (the last action of the document).
std::string last_action_name(const nlohmann::json& doc);

// Removes an action and every dep on it. The last action cannot go (a plan needs one).
Result<nlohmann::json> remove_action(const nlohmann::json& doc, const std::string& name);

// Makes `to` depend on `from`; refused when that would close a cycle.
Result<nlohmann::json> connect_actions(const nlohmann::json& doc, const std::string& from,
                                       const std::string& to);
Result<nlohmann::json> disconnect_actions(const nlohmann::json& doc, const std::string& from,
                                          const std::string& to);

// Sets one field of an action ("op", "flops", "bytes", "result", "loop", "name"); a rename
// follows through every dep. A null value removes the field (its default applies).
Result<nlohmann::json> set_action_field(const nlohmann::json& doc, const std::string& name,
                                        const std::string& key, const nlohmann::json& value);

}  // namespace tilesight::ui
