#include "tilesight/report/maps_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

namespace tilesight::report {

namespace {

constexpr std::int64_t kMaxCols = 64, kMaxRows = 32;
constexpr const char kRamp[] = " .:-=+*#%@";  // tenths of the hit rate, 0-10% to 90-100%

char shade(double hit_rate) {
  const auto tenth = static_cast<std::size_t>(std::clamp(hit_rate, 0.0, 1.0) * 10.0);
  return kRamp[std::min<std::size_t>(tenth, 9)];
}

// Cells [first, last) of a dim drawn by character i of n, the dim's `extent` cells spread evenly.
std::pair<std::int64_t, std::int64_t> span(std::int64_t i, std::int64_t n, std::int64_t extent) {
  return {i * extent / n, std::max(i * extent / n + 1, (i + 1) * extent / n)};
}

std::string percent(double x) { return std::to_string(static_cast<int>(std::lround(x * 100))) + "%"; }

}  // namespace

std::string maps_text(const Prediction& p) {
  const auto all = std::find_if(p.hit_rate_maps.begin(), p.hit_rate_maps.end(),
                                [](const HitRateMap& m) { return m.tensor.empty() && m.level == "l2"; });
  if (all == p.hit_rate_maps.end() || all->rows <= 0 || all->cols <= 0 ||
      all->hit_rate.size() != static_cast<std::size_t>(all->rows * all->cols))
    return "";
  const HitRateMap& m = *all;
  const std::int64_t cols = std::min(m.cols, kMaxCols), rows = std::min(m.rows, kMaxRows);
  std::ostringstream out;
  out << "\nL2 hit rate per tile (all tensors), " << m.rows << " x " << m.cols << " tiles (rows: "
      << (m.row_dim.empty() ? "-" : m.row_dim) << ", columns: " << (m.col_dim.empty() ? "-" : m.col_dim) << "),\n"
      << "one character " << (m.rows + rows - 1) / rows << " x " << (m.cols + cols - 1) / cols << " tiles:";
  for (std::size_t t = 0; t < 10; ++t) out << " '" << kRamp[t] << "' " << t * 10 << "-" << (t + 1) * 10 << "%";
  out << "\n  +" << std::string(static_cast<std::size_t>(cols), '-') << "+\n";
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto [r0, r1] = span(r, rows, m.rows);
    out << "  |";
    for (std::int64_t c = 0; c < cols; ++c) {
      const auto [c0, c1] = span(c, cols, m.cols);
      double sum = 0;
      for (std::int64_t i = r0; i < r1; ++i)
        for (std::int64_t j = c0; j < c1; ++j) sum += m.hit_rate[static_cast<std::size_t>(i * m.cols + j)];
      out << shade(sum / static_cast<double>((r1 - r0) * (c1 - c0)));
    }
    out << "|\n";
  }
  out << "  +" << std::string(static_cast<std::size_t>(cols), '-') << "+\n";
  for (const HitRateMap& t : p.hit_rate_maps) {
    if (t.hit_rate.empty()) continue;
    double sum = 0;
    for (const double v : t.hit_rate) sum += v;
    const auto [lo, hi] = std::minmax_element(t.hit_rate.begin(), t.hit_rate.end());
    out << "  " << (t.tensor.empty() ? "all tensors" : t.tensor) << (t.level == "l2" ? "" : " (" + t.level + ")")
        << ": mean over the tiles " << percent(sum / static_cast<double>(t.hit_rate.size())) << ", min " << percent(*lo)
        << ", max " << percent(*hi) << "\n";
  }
  return out.str();
}

}  // namespace tilesight::report
