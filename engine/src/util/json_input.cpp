#include "tilesight/util/json_input.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

namespace tilesight {
namespace {

using nlohmann::json;

// A plan or profile is a few kilobytes; anything this large is not one (and reading stops
// here, so a path such as /dev/zero cannot hang the program).
constexpr std::size_t kMaxJsonFileBytes = 64u << 20;

// 1-based line and column of the character at `offset`.
struct TextPosition {
  int line = 1;
  int column = 1;
};

TextPosition position_of(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  TextPosition pos;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      line_start = i + 1;
    }
  }
  pos.column = static_cast<int>(offset - line_start) + 1;
  return pos;
}

// nlohmann's recursive-descent parser has no depth limit, so 100000 '[' would overflow the
// stack. A linear pre-scan (skipping string contents and escapes) finds the depth first.
// Returns the offset of the bracket that goes past kMaxJsonDepth, if any.
std::optional<std::size_t> find_too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      depth = std::max(depth - 1, 0);  // unbalanced closers are the parser's to report
    }
  }
  return std::nullopt;
}

// "[json.exception.parse_error.101] parse error at line 2, column 7: syntax error ..." ->
// "syntax error ...": the position is recomputed from the byte offset, in our own words.
std::string exception_detail(const std::string& what) {
  std::string s = what;
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find("] ");
    if (close != std::string::npos) s = s.substr(close + 2);
  }
  if (s.rfind("parse error", 0) == 0) {
    const auto colon = s.find(": ");
    if (colon != std::string::npos) s = s.substr(colon + 2);
  }
  return s;
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return json(v).dump();
}

// Amounts in range messages: "got -1", "at most 1e+21", "got 0.5".
std::string format_amount(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<std::int64_t>(v));
  return format_double(v);
}

std::string describe(const json& v) {
  if (v.is_number_float()) return format_double(v.get<double>());
  if (v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
  return json_type_phrase(v);
}

// Edit distance with adjacent transpositions counted as one edit ("blokc" vs "block" is 1),
// the commonest typo in hand-written JSON.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::optional<std::string_view> closest_name(std::string_view key,
                                             std::initializer_list<std::string_view> known) {
  std::optional<std::string_view> best;
  std::size_t best_distance = 3;  // suggest only within two edits
  for (std::string_view candidate : known) {
    const std::size_t dist = edit_distance(key, candidate);
    // A distance equal to the name's length means nothing in common ("x" vs "op").
    if (dist < best_distance && dist < candidate.size()) {
      best = candidate;
      best_distance = dist;
    }
  }
  return best;
}

}  // namespace

Result<json> parse_json_text(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return Error{"", "empty input", position_of(text, text.size()).line};
  if (auto deep = find_too_deep(text)) {
    return Error{"", "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                 position_of(text, *deep).line};
  }
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte counts characters read, so the offending character is at e.byte - 1.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    const TextPosition pos = position_of(text, offset);
    return Error{
        "",
        "invalid JSON at column " + std::to_string(pos.column) + ": " + exception_detail(e.what()),
        pos.line};
  } catch (const json::exception& e) {
    // Number overflow ("1e400") carries no position; report the whole message.
    return Error{"", "invalid JSON: " + exception_detail(e.what())};
  }
}

Result<json> read_json_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Error{"", "cannot open " + path + ": " + std::strerror(EISDIR)};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"", "cannot open " + path + ": " + std::strerror(errno)};
  std::string text;
  std::vector<char> chunk(1u << 16);
  while (in && text.size() <= kMaxJsonFileBytes) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return Error{"", "cannot read " + path + ": " + std::strerror(errno)};
  if (text.size() > kMaxJsonFileBytes) {
    return Error{"", "cannot read " + path + ": larger than " +
                         std::to_string(kMaxJsonFileBytes >> 20) + " MiB"};
  }
  auto doc = parse_json_text(text);
  if (doc) return doc;
  Errors errors = doc.errors();
  for (auto& e : errors) e.message = path + ": " + e.message;
  return errors;
}

std::optional<std::string> integer_range_problem(std::int64_t value, std::int64_t min,
                                                 std::int64_t max) {
  if (value < min) {
    if (min == 1) return "must be positive, got " + std::to_string(value);
    if (min == 0) return "must not be negative, got " + std::to_string(value);
    return "must be at least " + std::to_string(min) + ", got " + std::to_string(value);
  }
  if (value > max)
    return "must be at most " + std::to_string(max) + ", got " + std::to_string(value);
  return std::nullopt;
}

std::optional<std::string> number_range_problem(double value, double min, double max) {
  if (!std::isfinite(value)) return "must be a finite number, got " + format_double(value);
  if (value < min) {
    if (min == 0) return "must not be negative, got " + format_amount(value);
    return "must be at least " + format_amount(min) + ", got " + format_amount(value);
  }
  if (value > max) return "must be at most " + format_amount(max) + ", got " + format_amount(value);
  return std::nullopt;
}

std::optional<std::int64_t> json_integer(const json& v, const std::string& path, std::int64_t min,
                                         std::int64_t max, Errors& errors) {
  if (v.is_number_unsigned()) {
    // Above INT64_MAX the value cannot be converted; it is out of any range we accept.
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      errors.push_back({path, "must be at most " + std::to_string(max) + ", got " + v.dump()});
      return std::nullopt;
    }
  }
  if (!v.is_number_integer()) {
    // 64.0 is rejected too: a float where a count belongs is usually a unit mistake.
    errors.push_back({path, "must be an integer, got " + describe(v)});
    return std::nullopt;
  }
  const auto value = v.get<std::int64_t>();
  if (auto problem = integer_range_problem(value, min, max)) {
    errors.push_back({path, *problem});
    return std::nullopt;
  }
  return value;
}

std::optional<double> json_number(const json& v, const std::string& path, double min, double max,
                                  Errors& errors) {
  if (!v.is_number()) {
    errors.push_back({path, "must be a number, got " + json_type_phrase(v)});
    return std::nullopt;
  }
  const auto value = v.get<double>();
  if (auto problem = number_range_problem(value, min, max)) {
    errors.push_back({path, *problem});
    return std::nullopt;
  }
  return value;
}

std::string json_type_phrase(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::binary:
      return "binary data";
    case json::value_t::discarded:
      return "nothing";
  }
  return "an unknown value";
}

bool FieldReader::present(const char* key, bool required) {
  if (has(key)) return true;
  if (required) errors.push_back({field_path(key), "missing required field"});
  return false;
}

std::optional<std::int64_t> FieldReader::integer(const char* key, std::int64_t min,
                                                 std::int64_t max,
                                                 std::optional<std::int64_t> fallback) {
  if (!present(key, !fallback)) return fallback;
  return json_integer(obj.at(key), field_path(key), min, max, errors);
}

std::optional<double> FieldReader::number(const char* key, double min, double max,
                                          std::optional<double> fallback) {
  if (!present(key, !fallback)) return fallback;
  return json_number(obj.at(key), field_path(key), min, max, errors);
}

std::optional<std::string> FieldReader::string(const char* key,
                                               std::optional<std::string> fallback) {
  if (!present(key, !fallback)) return fallback;
  const json& v = obj.at(key);
  if (!v.is_string()) {
    errors.push_back({field_path(key), "must be a string, got " + json_type_phrase(v)});
    return std::nullopt;
  }
  return v.get<std::string>();
}

std::optional<bool> FieldReader::boolean(const char* key, std::optional<bool> fallback) {
  if (!present(key, !fallback)) return fallback;
  const json& v = obj.at(key);
  if (!v.is_boolean()) {
    errors.push_back({field_path(key), "must be true or false, got " + describe(v)});
    return std::nullopt;
  }
  return v.get<bool>();
}

const json* FieldReader::array(const char* key, bool required) {
  if (!present(key, required)) return nullptr;
  const json& v = obj.at(key);
  if (!v.is_array()) {
    errors.push_back({field_path(key), "must be an array, got " + json_type_phrase(v)});
    return nullptr;
  }
  return &v;
}

const json* FieldReader::object(const char* key, bool required) {
  if (!present(key, required)) return nullptr;
  const json& v = obj.at(key);
  if (!v.is_object()) {
    errors.push_back({field_path(key), "must be an object, got " + json_type_phrase(v)});
    return nullptr;
  }
  return &v;
}

void FieldReader::reject_unknown(std::initializer_list<std::string_view> known) {
  if (!obj.is_object()) return;
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string message = "unknown field \"" + key + "\"";
    if (auto guess = closest_name(key, known))
      message += " (did you mean \"" + std::string(*guess) + "\"?)";
    errors.push_back({nest(path, key), message});
  }
}

bool expect_object(const json& v, const std::string& path, Errors& errors) {
  if (v.is_object()) return true;
  errors.push_back({path, "must be an object, got " + json_type_phrase(v)});
  return false;
}

}  // namespace tilesight
