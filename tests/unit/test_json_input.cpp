// Safe JSON reading: depth limit, positions in syntax errors, typed fields with paths.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tilesight/util/json_input.h"

using nlohmann::json;
using tilesight::Errors;
using tilesight::FieldReader;

namespace {

bool contains(const Errors& errors, const std::string& text) {
  return std::any_of(errors.begin(), errors.end(),
                     [&](const tilesight::Error& e) { return e.to_string() == text; });
}

// Reads one integer field of `doc` and returns the errors.
Errors integer_errors(const json& doc, std::int64_t min, std::int64_t max) {
  Errors errors;
  FieldReader r{doc, "params", errors};
  r.integer("block_m", min, max);
  return errors;
}

}  // namespace

TEST_CASE("empty input is reported with a line", "[json]") {
  auto r = tilesight::parse_json_text("");
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors()[0].message == "empty input");
  CHECK(r.errors()[0].line == 1);
  CHECK_FALSE(tilesight::parse_json_text("  \n\t ").ok());
}

TEST_CASE("truncated and malformed text gives line and column", "[json]") {
  auto r = tilesight::parse_json_text("{\"a\": 1,\n \"b\": ");
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors()[0].line == 2);
  CHECK(r.errors()[0].message.rfind("invalid JSON at column 7: ", 0) == 0);
  CHECK(r.errors()[0].message.find("unexpected end of input") != std::string::npos);

  auto bad = tilesight::parse_json_text("{\"a\":\n\n  tru}");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors()[0].line == 3);
  CHECK(bad.errors()[0].message.rfind("invalid JSON at column 6: ", 0) == 0);

  auto overflow = tilesight::parse_json_text("[1e400]");
  REQUIRE_FALSE(overflow.ok());
  CHECK(overflow.error_text().find("number overflow") != std::string::npos);
}

TEST_CASE("deep nesting is rejected before parsing", "[json]") {
  auto r = tilesight::parse_json_text(std::string(100000, '['));
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors()[0].message == "nesting deeper than 64 levels");
  CHECK(r.errors()[0].line == 1);

  // Brackets inside strings (and escaped quotes) do not count.
  std::string in_string = "{\"s\": \"\\\"" + std::string(1000, '[') + "\"}";
  CHECK(tilesight::parse_json_text(in_string).ok());
  // Exactly the limit parses.
  std::string at_limit = std::string(64, '[') + std::string(64, ']');
  CHECK(tilesight::parse_json_text(at_limit).ok());
  CHECK_FALSE(tilesight::parse_json_text("[" + at_limit + "]").ok());
}

TEST_CASE("read_json_file names the file", "[json]") {
  auto missing = tilesight::read_json_file("no_such_dir/plan.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error_text() == "cannot open no_such_dir/plan.json: No such file or directory");

  auto dir = tilesight::read_json_file(TILESIGHT_TEST_SOURCE_DIR);
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error_text().find("Is a directory") != std::string::npos);

  const auto path = std::filesystem::temp_directory_path() / "tilesight_truncated_plan.json";
  std::ofstream(path) << "{\n  \"name\": ";
  auto truncated = tilesight::read_json_file(path.string());
  std::filesystem::remove(path);
  REQUIRE_FALSE(truncated.ok());
  CHECK(truncated.errors()[0].line == 2);
  CHECK(truncated.errors()[0].message.rfind(path.string() + ": invalid JSON at column 11", 0) == 0);

  auto ok = tilesight::read_json_file(std::string(TILESIGHT_TEST_SOURCE_DIR) +
                                      "/resources/examples/custom_gemm_h200.json");
  CHECK(ok.ok());
}

TEST_CASE("integer fields reject floats, other types and out-of-range values", "[json]") {
  CHECK(contains(integer_errors({{"block_m", 64.5}}, 1, 1048576),
                 "params.block_m: must be an integer, got 64.5"));
  CHECK(contains(integer_errors({{"block_m", 64.0}}, 1, 1048576),
                 "params.block_m: must be an integer, got 64.0"));
  CHECK(contains(integer_errors({{"block_m", "64"}}, 1, 1048576),
                 "params.block_m: must be an integer, got a string"));
  CHECK(contains(integer_errors({{"block_m", true}}, 1, 1048576),
                 "params.block_m: must be an integer, got true"));
  CHECK(contains(integer_errors({{"block_m", 0}}, 1, 1048576),
                 "params.block_m: must be positive, got 0"));
  CHECK(contains(integer_errors({{"block_m", -2}}, 0, 10),
                 "params.block_m: must not be negative, got -2"));
  CHECK(contains(integer_errors({{"block_m", 3}}, 16, 256),
                 "params.block_m: must be at least 16, got 3"));
  CHECK(contains(integer_errors({{"block_m", 99999999999}}, 1, 1048576),
                 "params.block_m: must be at most 1048576, got 99999999999"));
  CHECK(contains(integer_errors(json::parse(R"({"block_m": 18446744073709551615})"), 1, 1048576),
                 "params.block_m: must be at most 1048576, got 18446744073709551615"));
  CHECK(contains(integer_errors(json::object(), 1, 8), "params.block_m: missing required field"));

  Errors errors;
  json doc = {{"block_m", 128}};
  FieldReader r{doc, "params", errors};
  CHECK(r.integer("block_m", 1, 1048576) == 128);
  CHECK(r.integer("block_n", 1, 1048576, 64) == 64);
  CHECK(errors.empty());
}

TEST_CASE("number, string and boolean fields", "[json]") {
  Errors errors;
  json doc = {{"x", 1.5}, {"nan", std::nan("")}, {"big", 1e30},
              {"s", 3},   {"b", "yes"},          {"neg", -1}};
  FieldReader r{doc, "", errors};
  CHECK(r.number("x", 0, 10) == 1.5);
  CHECK_FALSE(r.number("nan", 0, 10));
  CHECK_FALSE(r.number("big", 0, 1e21));
  CHECK_FALSE(r.number("neg", 0, 1e21));
  CHECK(r.number("s", 0, 10) == 3.0);  // an integer is a number
  CHECK_FALSE(r.string("s"));
  CHECK_FALSE(r.boolean("b"));
  CHECK(r.string("missing", "dflt") == "dflt");
  CHECK(contains(errors, "nan: must be a finite number, got nan"));
  CHECK(contains(errors, "big: must be at most 1e+21, got 1e+30"));
  CHECK(contains(errors, "neg: must not be negative, got -1"));
  CHECK(contains(errors, "s: must be a string, got an integer"));
  CHECK(contains(errors, "b: must be true or false, got a string"));
}

TEST_CASE("unknown fields are reported with a suggestion", "[json]") {
  Errors errors;
  json doc = {{"blokc_m", 1}, {"block_n", 2}, {"zzz", 3}};
  FieldReader r{doc, "params", errors};
  r.reject_unknown({"block_m", "block_n", "block_k"});
  REQUIRE(errors.size() == 2);
  CHECK(contains(errors, "params.blokc_m: unknown field \"blokc_m\" (did you mean \"block_m\"?)"));
  CHECK(contains(errors, "params.zzz: unknown field \"zzz\""));
}

TEST_CASE("json_type_phrase names each type", "[json]") {
  CHECK(tilesight::json_type_phrase("x") == "a string");
  CHECK(tilesight::json_type_phrase(1.5) == "a number");
  CHECK(tilesight::json_type_phrase(2) == "an integer");
  CHECK(tilesight::json_type_phrase(json::array()) == "an array");
  CHECK(tilesight::json_type_phrase(json::object()) == "an object");
  CHECK(tilesight::json_type_phrase(false) == "a boolean");
  CHECK(tilesight::json_type_phrase(nullptr) == "null");
}
