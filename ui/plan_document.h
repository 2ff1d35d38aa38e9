// The plan being edited, kept as the JSON document the user opened: a template instance
// ({"kernel": "gemm", "hardware": "h200", "params": {...}}) or a full tile program. The
// document is the single source of truth: the config panel writes fields into it, the
// worker predicts from a copy, and Save writes it back with every other field untouched.
#pragma once

#include <QString>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tilesight/util/result.h"

namespace tilesight::ui {

enum class PlanKind {
  kGemmTemplate,   // editable in the config panel
  kOtherTemplate,  // a template the panel has no form for yet: shown read-only
  kTileProgram,    // a full tile program: shown read-only
};

PlanKind plan_kind(const nlohmann::json& doc);

// Reads and parses a plan file; syntax errors carry the line (the caller names the file).
Result<nlohmann::json> load_plan_file(const QString& path);

// load_plan_file, then checks that it reads as a plan (a template instance or a tile
// program); errors carry the JSON path and line. Limits of the GPU are checked later, by
// the prediction.
Result<nlohmann::json> read_plan_file(const QString& path);

// Writes the document atomically (a temporary file renamed over the target), indented.
// Returns an empty string on success, else why it failed.
QString save_plan_file(const nlohmann::json& doc, const QString& path);

// resources/examples/gemm_h200.json in the data folder, or nullopt when none is found.
std::optional<QString> default_plan_path();

// The examples shipped in resources/examples/, sorted by file name.
QStringList example_plan_paths();

// The hardware profile the plan names ("" when none), and the document with another one.
std::string plan_hardware(const nlohmann::json& doc);
nlohmann::json with_hardware(nlohmann::json doc, const std::string& hardware);

// A short title for the window and reports: the plan's name, or the kernel and its shape.
QString plan_title(const nlohmann::json& doc);

}  // namespace tilesight::ui
