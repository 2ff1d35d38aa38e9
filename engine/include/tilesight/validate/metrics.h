// Accuracy metrics of VALIDATION.md: MAPE, wMAPE, Spearman rank correlation, top-k% retention.
#pragma once

#include <cstddef>
#include <vector>

namespace tilesight::validate {

// mean(|pred - meas| / meas)
double mape(const std::vector<double>& predicted, const std::vector<double>& measured);
// sum |pred - meas| / sum meas
double wmape(const std::vector<double>& predicted, const std::vector<double>& measured);
// Share of rows whose |pred - meas| / meas is at most `tolerance` (0.1: within 10%).
double share_within(const std::vector<double>& predicted, const std::vector<double>& measured, double tolerance);

// The error figures of a set of rows (VALIDATION.md), as the multi-GPU validation reports them.
struct Accuracy {
  std::size_t rows = 0;
  double mape = 0, wmape = 0, within10 = 0, within20 = 0;
};
Accuracy accuracy(const std::vector<double>& predicted, const std::vector<double>& measured);

// Spearman's rho with average ranks for ties; 0 for fewer than 2 points.
double spearman(const std::vector<double>& a, const std::vector<double>& b);
// Best measured latency among the `fraction` of configs the model ranks fastest (at least
// one), over the best measured latency overall: 1.0 means the model's top picks include the
// true best; 1.2 means they are 20% slower than it.
double top_retention(const std::vector<double>& predicted, const std::vector<double>& measured,
                     double fraction = 0.05);

}  // namespace tilesight::validate
