// Errors as values (STYLE.md, rule 8): every failure names the JSON path of the field that
// caused it, and the line where the parser knows it.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tilesight {

struct Error {
  std::string path;     // JSON path, e.g. "params.block_k" or "actions[3].deps[0]"; may be empty
  std::string message;  // why, e.g. "must be positive, got 0"
  int line = 0;         // 1-based line in the input when known, else 0

  // "params.block_k: must be positive, got 0"
  std::string to_string() const {
    std::string s = path.empty() ? message : path + ": " + message;
    if (line > 0) s = "line " + std::to_string(line) + ": " + s;
    return s;
  }
};

// A list of errors: validation reports every broken limit, not only the first.
using Errors = std::vector<Error>;

inline std::string join(const Errors& errors, const std::string& sep = "\n") {
  std::string out;
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (i) out += sep;
    out += errors[i].to_string();
  }
  return out;
}

// Either a value or the errors that prevented it.
template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}
  Result(Error error) : data_(Errors{std::move(error)}) {}
  Result(Errors errors) : data_(std::move(errors)) {}

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<T>(data_); }
  T& value() & { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  const Errors& errors() const { return std::get<Errors>(data_); }
  std::string error_text(const std::string& sep = "\n") const { return join(errors(), sep); }

 private:
  std::variant<T, Errors> data_;
};

// Prefixes a path: nest("params", {"block_k", ...}) gives "params.block_k".
inline std::string nest(const std::string& parent, const std::string& child) {
  if (parent.empty()) return child;
  if (child.empty()) return parent;
  if (child.front() == '[') return parent + child;
  return parent + "." + child;
}

inline Errors prefixed(const std::string& parent, Errors errors) {
  for (auto& e : errors) e.path = nest(parent, e.path);
  return errors;
}

}  // namespace tilesight
