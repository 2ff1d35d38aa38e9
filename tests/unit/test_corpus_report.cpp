// The corpus report behind `tilesight-cli validate` and the app's validation view: its figures
// by hand on a few scored rows, the worst rows and a row's configuration text.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tilesight/validate/corpus_report.h"

using namespace tilesight::validate;

namespace {

CorpusRow row(std::size_t line, const std::string& group, double measured, int block_m) {
  CorpusRow r;
  r.line = line;
  r.group = group;
  r.measured_us = measured;
  r.plan = {{"kernel", "gemm"},
            {"hardware", "h200"},
            {"params", {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"block_m", block_m}, {"block_n", 128},
                        {"block_k", 64}, {"stages", 3}, {"warps", 8}, {"dtype", "bf16"}}}};
  return r;
}

}  // namespace

TEST_CASE("corpus report figures by hand", "[validate]") {
  // Problem a: five configs measured 10..50 us, predicted in the same order, each 5% or 15% off;
  // problem b: one config 25% off (too few to rank).
  std::vector<CorpusRow> rows;
  const double meas[] = {10, 20, 30, 40, 50};
  const double pred[] = {10.5, 23, 28.5, 46, 52.5};  // +5%, +15%, -5%, +15%, +5%
  for (int i = 0; i < 5; ++i) rows.push_back(row(static_cast<std::size_t>(10 + i), "a", meas[i], 64 * (i + 1)));
  rows.push_back(row(20, "b", 100, 128));
  CorpusReport r;
  for (int i = 0; i < 5; ++i) r.scored.push_back({&rows[static_cast<std::size_t>(i)], pred[i]});
  r.scored.push_back({&rows[5], 125});
  score(r);
  // APE: 0.05 0.15 0.05 0.15 0.05 0.25 -> MAPE 0.70 / 6; median (4th smallest of 6) 0.15.
  CHECK(r.mape == Approx(0.70 / 6));
  // wMAPE: (0.5 + 3 + 1.5 + 6 + 2.5 + 25) / 250 = 38.5 / 250.
  CHECK(r.wmape == Approx(38.5 / 250));
  CHECK(r.median_ape == Approx(0.15));
  CHECK(r.within10 == Approx(3.0 / 6));
  CHECK(r.within20 == Approx(5.0 / 6));
  REQUIRE(r.problems.size() == 2);
  CHECK(r.problems[0].group == "a");
  CHECK(r.problems[0].ranked);
  CHECK(r.problems[0].spearman == Approx(1.0));  // same order
  CHECK(r.problems[0].top5 == Approx(1.0));      // its fastest pick is the best
  CHECK(r.problems[0].mape == Approx(0.09));
  CHECK_FALSE(r.problems[1].ranked);
  CHECK(r.ranked_problems == 1);
  CHECK(r.spearman == Approx(1.0));
  const auto worst = r.worst(2);
  REQUIRE(worst.size() == 2);
  CHECK(worst[0]->row->line == 20);
  CHECK(worst[0]->ape() == Approx(0.25));
  CHECK(worst[1]->ape() == Approx(0.15));
  CHECK(r.worst(100).size() == 6);
}

TEST_CASE("a row's configuration leaves out the problem's own dims", "[validate]") {
  const auto r = row(1, "a", 10, 256);
  CHECK(row_config(r) == "256x128x64 stages=3 warps=8");
}
