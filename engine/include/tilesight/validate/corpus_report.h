// A measured corpus predicted row by row, and the accuracy figures of VALIDATION.md over it:
// MAPE, wMAPE, median APE, the share within 10% and 20%, per-problem Spearman and top-5%
// retention, a per-problem table and the worst rows. `tilesight-cli validate` prints it; the
// app's validation view plots it.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tilesight/hw/hardware_spec.h"
#include "tilesight/validate/corpus.h"

namespace tilesight::validate {

struct ScoredRow {
  const CorpusRow* row = nullptr;
  double predicted_us = 0;
  double ape() const { return row && row->measured_us > 0 ? std::abs(predicted_us - row->measured_us) / row->measured_us : 0; }
};

// One problem (kernel + shape + dtype): its rows' errors and, with at least five configs,
// how well the model ranks them.
struct ProblemStats {
  std::string group;
  std::size_t rows = 0;
  double mape = 0;
  bool ranked = false;  // five configs or more
  double spearman = 0, top5 = 0;
};

struct CorpusReport {
  std::vector<ScoredRow> scored;
  std::size_t rejected = 0;  // rows the model refused (first messages in `rejections`)
  std::vector<std::string> rejections;
  double mape = 0, wmape = 0, median_ape = 0, within10 = 0, within20 = 0;
  std::vector<ProblemStats> problems;  // in first-seen order
  std::size_t ranked_problems = 0;
  double spearman = 0, top5 = 0;  // means over the ranked problems
  // The rows with the largest error, worst first.
  std::vector<const ScoredRow*> worst(std::size_t n) const;
};

// Predicts every row of `corpus` on `hw` (launch overhead as the profile says) and scores it.
// `progress(done, total)` is called now and then; returning false stops early (the report then
// holds the rows predicted so far).
CorpusReport predict_corpus(const Corpus& corpus, const hw::HardwareSpec& hw,
                            const std::function<bool(std::size_t, std::size_t)>& progress = {});

// The figures over already predicted rows (predict_corpus calls it).
void score(CorpusReport& report);

// A one-line description of a row's configuration from its plan ("128x128x64 g8 s3 w8").
std::string row_config(const CorpusRow& row);

}  // namespace tilesight::validate
