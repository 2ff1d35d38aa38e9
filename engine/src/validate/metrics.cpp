#include "tilesight/validate/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tilesight::validate {

double mape(const std::vector<double>& p, const std::vector<double>& m) {
  if (p.empty() || p.size() != m.size()) return 0;
  double s = 0;
  for (std::size_t i = 0; i < p.size(); ++i) s += std::fabs(p[i] - m[i]) / m[i];
  return s / static_cast<double>(p.size());
}

double wmape(const std::vector<double>& p, const std::vector<double>& m) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < p.size() && i < m.size(); ++i) {
    num += std::fabs(p[i] - m[i]);
    den += m[i];
  }
  return den > 0 ? num / den : 0;
}

double share_within(const std::vector<double>& p, const std::vector<double>& m, double tolerance) {
  if (p.empty() || p.size() != m.size()) return 0;
  std::size_t in = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (std::fabs(p[i] - m[i]) <= tolerance * m[i]) ++in;
  return static_cast<double>(in) / static_cast<double>(p.size());
}

Accuracy accuracy(const std::vector<double>& p, const std::vector<double>& m) {
  return {.rows = p.size(), .mape = mape(p, m), .wmape = wmape(p, m), .within10 = share_within(p, m, 0.10),
          .within20 = share_within(p, m, 0.20)};
}

namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](auto a, auto b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) r[idx[k]] = avg;
    i = j + 1;
  }
  return r;
}

}  // namespace

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2 || a.size() != b.size()) return 0;
  const auto ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

double top_retention(const std::vector<double>& p, const std::vector<double>& m, double fraction) {
  if (p.empty() || p.size() != m.size()) return 0;
  std::vector<std::size_t> idx(p.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](auto a, auto b) { return p[a] < p[b]; });
  const auto k = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(p.size()))));
  double best_pick = m[idx[0]];
  for (std::size_t i = 0; i < k; ++i) best_pick = std::min(best_pick, m[idx[i]]);
  const double best = *std::min_element(m.begin(), m.end());
  return best > 0 ? best_pick / best : 0;
}

}  // namespace tilesight::validate
