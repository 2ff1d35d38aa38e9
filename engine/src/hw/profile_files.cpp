// Finding hardware profiles on disk: a name looked up in <data>/hw_profiles/, or a path; a
// system profile (device plus links) stands for its device. Parsing is profile_loader.cpp's.
#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/util/data_dir.h"
#include "tilesight/util/json_input.h"

namespace tilesight::hw {
namespace {

namespace fs = std::filesystem;

bool names_a_file(const std::string& s) {
  return s.find('/') != std::string::npos ||
         (s.size() >= 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

std::string known_list() {
  const auto names = list_profiles();
  if (names.empty()) return "none found";
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// <data>/hw_profiles/<name>.json, or an error naming the known profiles.
Result<fs::path> profile_file(const std::string& name) {
  const auto dir = data_dir();
  if (!dir) {
    return Error{"", "unknown hardware \"" + name +
                         "\": no data folder with hw_profiles/ found (set TILESIGHT_DATA)"};
  }
  const fs::path file = *dir / "hw_profiles" / (name + ".json");
  std::error_code ec;
  const bool plain_name =
      name.find_first_of("/\\") == std::string::npos && !name.empty() && name.front() != '.';
  if (!plain_name || !fs::is_regular_file(file, ec))
    return Error{"", "unknown hardware \"" + name + "\"; known: " + known_list()};
  return file;
}

Result<HardwareSpec> load_device_profile(const std::string& name_or_path, bool allow_system) {
  fs::path file = name_or_path;
  if (!names_a_file(name_or_path)) {
    auto found = profile_file(name_or_path);
    if (!found) return found.errors();
    file = *found;
  }
  auto doc = read_json_file(file.string());
  if (!doc) return doc.errors();
  // A system profile (net/system_profile.h: "device" plus "links"): single-device kernels run
  // on one GPU of it.
  if (allow_system && doc->is_object() && doc->contains("device") && doc->contains("links") &&
      (*doc)["device"].is_string())
    return load_device_profile((*doc)["device"].get<std::string>(), false);
  auto spec = parse_profile(*doc);
  if (spec) return spec;
  // As read_json_file does: the message starts with the file, the path stays a JSON path.
  Errors errors = spec.errors();
  for (auto& e : errors) e.message = file.string() + ": " + e.message;
  return errors;
}

}  // namespace

Result<HardwareSpec> load_profile(const std::string& name_or_path) { return load_device_profile(name_or_path, true); }

std::vector<std::string> list_profiles() {
  std::vector<std::string> names;
  const auto dir = data_dir();
  if (!dir) return names;
  std::error_code ec;
  for (fs::directory_iterator it(*dir / "hw_profiles", ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code file_ec;
    if (p.extension() == ".json" && fs::is_regular_file(p, file_ec))
      names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tilesight::hw
