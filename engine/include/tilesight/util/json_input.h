// Reading JSON input safely: nesting depth checked before parsing (no stack overflow on
// hostile input), syntax errors with line and column, and typed field access that reports
// the JSON path and why a value is rejected.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tilesight/util/result.h"

namespace tilesight {

inline constexpr int kMaxJsonDepth = 64;

// Parses text; errors carry the line: "empty input", "nesting deeper than 64 levels",
// "invalid JSON at column 7: syntax error while parsing value - unexpected end of input; ...".
Result<nlohmann::json> parse_json_text(std::string_view text);

// Reads and parses a file; errors name the file ("cannot open plan.json: No such file or
// directory", "plan.json: invalid JSON at column 7: ...").
Result<nlohmann::json> read_json_file(const std::string& path);

// Typed access to a field of an object. Each returns an error with `path` when the field is
// missing (required ones), of the wrong type, or out of range.
struct FieldReader {
  const nlohmann::json& obj;
  std::string path;  // path of obj itself ("" for the root)
  Errors& errors;

  bool has(const char* key) const { return obj.is_object() && obj.contains(key); }
  std::string field_path(const char* key) const { return nest(path, key); }

  // Integers: a float such as 64.5 or 64.0 is rejected ("must be an integer"); values
  // outside [min, max] are rejected before any arithmetic.
  std::optional<std::int64_t> integer(const char* key, std::int64_t min, std::int64_t max,
                                      std::optional<std::int64_t> fallback = std::nullopt);
  std::optional<double> number(const char* key, double min, double max,
                               std::optional<double> fallback = std::nullopt);
  std::optional<std::string> string(const char* key,
                                    std::optional<std::string> fallback = std::nullopt);
  std::optional<bool> boolean(const char* key, std::optional<bool> fallback = std::nullopt);
  // Arrays and objects: nullptr (and an error when required) if missing or of another type.
  const nlohmann::json* array(const char* key, bool required = true);
  const nlohmann::json* object(const char* key, bool required = true);
  // Reports keys of obj not in `known` as errors ("unknown field"), so typos are not ignored;
  // a known key within two edits is suggested: `unknown field "blokc_m" (did you mean
  // "block_m"?)`.
  void reject_unknown(std::initializer_list<std::string_view> known);

  // True when the key is there; otherwise records "missing required field" if `required`.
  bool present(const char* key, bool required);
};

// Integer from a JSON value at `path` (used for array elements).
std::optional<std::int64_t> json_integer(const nlohmann::json& v, const std::string& path,
                                         std::int64_t min, std::int64_t max, Errors& errors);

// Number from a JSON value at `path`: NaN, infinities and non-numbers are rejected.
std::optional<double> json_number(const nlohmann::json& v, const std::string& path, double min,
                                  double max, Errors& errors);

// Why `value` is outside [min, max] ("must be positive, got 0", "must be at most 1048576,
// got 99999999999"), or nullopt when inside: the same words for parsed and C++-built values.
std::optional<std::string> integer_range_problem(std::int64_t value, std::int64_t min,
                                                 std::int64_t max);
std::optional<std::string> number_range_problem(double value, double min, double max);

// True if v is an object; else records "must be an object, got an array" at `path`.
bool expect_object(const nlohmann::json& v, const std::string& path, Errors& errors);

// "a string", "a number", "an object", ...: the type of a JSON value for messages.
std::string json_type_phrase(const nlohmann::json& v);

}  // namespace tilesight
