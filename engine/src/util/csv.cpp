#include "tilesight/util/csv.h"

#include <cmath>

namespace tilesight {

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') cur += c;
  }
  out.push_back(cur);
  return out;
}

std::optional<double> csv_number(const std::string& cell) {
  try {
    std::size_t used = 0;
    const double x = std::stod(cell, &used);
    if (used != cell.size() || !std::isfinite(x)) return std::nullopt;
    return x;
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace tilesight
