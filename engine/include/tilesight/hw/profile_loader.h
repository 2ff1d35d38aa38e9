// Loads hardware profiles (hw_profiles/<name>.json). Each numeric field is either a number or
// {"value": number, "source": "where it came from"}; the profile's "default_source" applies
// to plain numbers. Errors name the file and the JSON path.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/util/result.h"

namespace tilesight::hw {

// Parses a profile document already read from JSON.
Result<HardwareSpec> parse_profile(const nlohmann::json& doc);

// `name_or_path` is a profile name ("h200", looked up as <data>/hw_profiles/h200.json) or a
// path to a JSON file (contains '/' or ends in ".json").
Result<HardwareSpec> load_profile(const std::string& name_or_path);

// Names of the shipped profiles (file stems in <data>/hw_profiles), sorted.
std::vector<std::string> list_profiles();

}  // namespace tilesight::hw
