// A shipped hardware profile as JSON, for tests that break it, and the check that a parse
// reports one exact error (the profile tests: test_profiles.cpp, test_profile_tables.cpp).
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tilesight/util/result.h"
#include "tilesight/util/json_input.h"

namespace tilesight::test {

inline nlohmann::json shipped_doc(const std::string& name) {
  auto doc = read_json_file((std::filesystem::path(TILESIGHT_TEST_SOURCE_DIR) / "hw_profiles" / (name + ".json")).string());
  REQUIRE(doc.ok());
  return *doc;
}

inline bool has_error(const Errors& errors, const std::string& text) {
  return std::any_of(errors.begin(), errors.end(), [&](const Error& e) { return e.to_string() == text; });
}

}  // namespace tilesight::test
