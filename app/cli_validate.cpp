// `tilesight-cli validate CORPUS.csv`: predicts every measured row of a corpus and reports
// MAPE, wMAPE, per-problem Spearman and top-5% retention (VALIDATION.md). With thresholds it
// exits 3 when accuracy is worse than them, which is how the accuracy tests guard regressions.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>

#include "cli_commands.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/validate/corpus.h"
#include "tilesight/validate/metrics.h"
#include "tilesight/validate/network_corpus.h"

namespace tilesight::cli {

namespace {

struct Scored {
  const validate::CorpusRow* row;
  double predicted_us;
};

struct Summary {
  std::size_t rows = 0, rejected = 0, skipped = 0, groups = 0;
  double mape = 0, wmape = 0, median_ape = 0, spearman = 0, top5 = 0;
};

Summary summarize(const std::vector<Scored>& scored, std::size_t rejected, std::size_t skipped) {
  Summary s{.rows = scored.size(), .rejected = rejected, .skipped = skipped};
  std::vector<double> p, m, ape;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (const auto& x : scored) {
    p.push_back(x.predicted_us);
    m.push_back(x.row->measured_us);
    ape.push_back(std::fabs(x.predicted_us - x.row->measured_us) / x.row->measured_us);
    auto& g = groups[x.row->group];
    g.first.push_back(x.predicted_us);
    g.second.push_back(x.row->measured_us);
  }
  s.mape = validate::mape(p, m);
  s.wmape = validate::wmape(p, m);
  if (!ape.empty()) {
    std::nth_element(ape.begin(), ape.begin() + static_cast<long>(ape.size() / 2), ape.end());
    s.median_ape = ape[ape.size() / 2];
  }
  for (const auto& [key, g] : groups) {
    if (g.first.size() < 5) continue;  // too few configs to rank
    s.spearman += validate::spearman(g.first, g.second);
    s.top5 += validate::top_retention(g.first, g.second, 0.05);
    ++s.groups;
  }
  if (s.groups) {
    s.spearman /= static_cast<double>(s.groups);
    s.top5 /= static_cast<double>(s.groups);
  }
  return s;
}

void write_predictions(const std::string& path, const std::vector<Scored>& scored) {
  std::ofstream out(path);
  out << "line,group,measured_us,predicted_us,ape\n";
  for (const auto& x : scored)
    out << x.row->line << ",\"" << x.row->group << "\"," << x.row->measured_us << "," << x.predicted_us << ","
        << std::fabs(x.predicted_us - x.row->measured_us) / x.row->measured_us << "\n";
}

}  // namespace

void add_validate(CLI::App& app, ValidateOptions& o) {
  auto* cmd = app.add_subcommand("validate", "Predict every row of a measured corpus and report accuracy");
  cmd->add_option("corpus", o.corpus, "CSV corpus (tests/validation/<gpu>/*.csv)")->required();
  cmd->add_option("--hw", o.hw, "Hardware profile the corpus was measured on")->capture_default_str();
  cmd->add_option("--kernel", o.kernel, "Template of rows without a kernel_template column")->capture_default_str();
  cmd->add_option("--out", o.out, "Write per-row predictions to this CSV");
  cmd->add_option("--max-mape", o.max_mape, "Fail (exit 3) when MAPE exceeds this fraction");
  cmd->add_option("--max-wmape", o.max_wmape, "Fail (exit 3) when wMAPE exceeds this fraction");
  cmd->add_option("--min-spearman", o.min_spearman, "Fail (exit 3) when mean per-problem Spearman is below this");
  cmd->add_option("--max-top5", o.max_top5, "Fail (exit 3) when mean top-5% retention exceeds this");
  cmd->add_option("--launch-overhead-us", o.launch_overhead_us,
                  "Launch overhead of the corpus's launch path (e.g. 4.54 for torch ops, "
                  "hw_profiles/calibrate/h200/launch_overhead.csv), instead of the profile's");
  cmd->add_flag("--estimate-registers", o.estimate_registers,
                "Ignore the corpus's recorded registers (n_regs): occupancy from the model's own estimate");
}

int run_validate(const ValidateOptions& o) {
  // Multi-GPU corpora (their own columns) go through the cross-device model.
  if (validate::network_corpus_kind(o.corpus)) return run_validate_network(o);
  auto hw = hw::load_profile(o.hw);
  if (!hw) {
    std::cerr << "--hw: " << hw.error_text("; ") << "\n";
    return 2;
  }
  if (o.launch_overhead_us >= 0) hw.value().launch_overhead_us = o.launch_overhead_us;
  auto corpus = validate::read_corpus(o.corpus, o.hw, o.kernel, !o.estimate_registers);
  if (!corpus) {
    std::cerr << corpus.error_text() << "\n";
    return 2;
  }
  std::vector<Scored> scored;
  std::size_t rejected = 0;
  for (const auto& row : corpus->rows) {
    auto plan = kernels::read_plan(row.plan);
    auto pred = plan ? model::evaluate(plan->program, *hw, {.timeline = false})
                     : Result<report::Prediction>(plan.errors());
    if (!pred) {
      if (rejected++ < 5) std::cerr << o.corpus << ":" << row.line << ": " << pred.error_text("; ") << "\n";
      continue;
    }
    scored.push_back({&row, pred->latency_us});
  }
  const Summary s = summarize(scored, rejected, corpus->skipped.size());
  if (!o.out.empty()) write_predictions(o.out, scored);
  std::printf("corpus %s on %s (%s profile): %zu rows predicted, %zu rejected by the model, %zu unreadable\n",
              o.corpus.c_str(), o.hw.c_str(), hw::profile_source_name(hw->profile_source), s.rows, s.rejected,
              s.skipped);
  std::printf("MAPE %.2f%%  wMAPE %.2f%%  median APE %.2f%%\n", 100 * s.mape, 100 * s.wmape, 100 * s.median_ape);
  std::printf("per-problem ranking over %zu problems: mean Spearman %.3f, mean top-5%% retention %.3f\n", s.groups,
              s.spearman, s.top5);
  bool fail = false;
  if (o.max_mape > 0 && s.mape > o.max_mape) fail = true, std::printf("FAIL: MAPE above %.2f%%\n", 100 * o.max_mape);
  if (o.max_wmape > 0 && s.wmape > o.max_wmape) fail = true, std::printf("FAIL: wMAPE above %.2f%%\n", 100 * o.max_wmape);
  if (o.min_spearman > -1 && s.spearman < o.min_spearman)
    fail = true, std::printf("FAIL: Spearman below %.3f\n", o.min_spearman);
  if (o.max_top5 > 0 && s.top5 > o.max_top5) fail = true, std::printf("FAIL: top-5%% retention above %.3f\n", o.max_top5);
  if (s.rows == 0) fail = true, std::printf("FAIL: no row could be predicted\n");
  return fail ? 3 : 0;
}

}  // namespace tilesight::cli
