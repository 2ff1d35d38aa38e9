// `tilesight-cli validate CORPUS.csv`: predicts every measured row of a corpus and reports
// MAPE, wMAPE, the share within 10% and 20%, per-problem Spearman and top-5% retention, a
// per-problem table and the worst rows (VALIDATION.md). With thresholds it
// exits 3 when accuracy is worse than them, which is how the accuracy tests guard regressions.
#include <algorithm>
#include <fstream>
#include <iostream>

#include "cli_commands.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/validate/corpus.h"
#include "tilesight/validate/corpus_report.h"
#include "tilesight/validate/network_corpus.h"

namespace tilesight::cli {

namespace {

void write_predictions(const std::string& path, const validate::CorpusReport& r) {
  std::ofstream out(path);
  out << "line,group,measured_us,predicted_us,ape\n";
  for (const auto& x : r.scored)
    out << x.row->line << ",\"" << x.row->group << "\"," << x.row->measured_us << "," << x.predicted_us << ","
        << x.ape() << "\n";
}

// The per-problem table and the worst rows (VALIDATION.md), after the summary lines.
void print_tables(const validate::CorpusReport& r) {
  if (r.problems.size() > 1) {
    int width = 7;
    for (const auto& p : r.problems) width = std::max(width, static_cast<int>(p.group.size()));
    std::printf("\n%-*s %5s %7s %9s %7s\n", width, "problem", "rows", "MAPE", "Spearman", "top-5%");
    for (const auto& p : r.problems) {
      if (p.ranked)
        std::printf("%-*s %5zu %6.1f%% %9.3f %7.3f\n", width, p.group.c_str(), p.rows, 100 * p.mape, p.spearman, p.top5);
      else
        std::printf("%-*s %5zu %6.1f%% %9s %7s\n", width, p.group.c_str(), p.rows, 100 * p.mape, "-", "-");
    }
  }
  const auto worst = r.worst(10);
  if (worst.empty()) return;
  std::printf("\nworst rows (line: problem, config: measured -> predicted us)\n");
  for (const auto* w : worst) {
    const std::string config = validate::row_config(*w->row);
    std::printf("  %5zu: %s%s%s: %.4g -> %.4g (%+.0f%%)\n", w->row->line, w->row->group.c_str(),
                config.empty() ? "" : ", ", config.c_str(), w->row->measured_us, w->predicted_us,
                100 * (w->predicted_us / w->row->measured_us - 1));
  }
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
  cmd->add_option("--min-problem-spearman", o.min_problem_spearman,
                  "Fail (exit 3) when any ranked problem's Spearman is below this");
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
  const validate::CorpusReport s = validate::predict_corpus(*corpus, *hw);
  for (const auto& msg : s.rejections) std::cerr << msg << "\n";
  if (!o.out.empty()) write_predictions(o.out, s);
  std::printf("corpus %s on %s (%s profile): %zu rows predicted, %zu rejected by the model, %zu unreadable\n",
              o.corpus.c_str(), o.hw.c_str(), hw::profile_source_name(hw->profile_source), s.scored.size(),
              s.rejected, corpus->skipped.size());
  std::printf("MAPE %.2f%%  wMAPE %.2f%%  median APE %.2f%%  within 10%% %.1f%%  within 20%% %.1f%%\n", 100 * s.mape,
              100 * s.wmape, 100 * s.median_ape, 100 * s.within10, 100 * s.within20);
  if (s.ranked_problems)
    std::printf("per-problem ranking over %zu problems: mean Spearman %.3f, mean top-5%% retention %.3f\n",
                s.ranked_problems, s.spearman, s.top5);
  else
    std::printf("per-problem ranking: no problem has 5 configs or more\n");
  print_tables(s);
  bool fail = false;
  if (o.max_mape > 0 && s.mape > o.max_mape) fail = true, std::printf("FAIL: MAPE above %.2f%%\n", 100 * o.max_mape);
  if (o.max_wmape > 0 && s.wmape > o.max_wmape) fail = true, std::printf("FAIL: wMAPE above %.2f%%\n", 100 * o.max_wmape);
  if (o.min_spearman > -1 && s.spearman < o.min_spearman)
    fail = true, std::printf("FAIL: Spearman below %.3f\n", o.min_spearman);
  if (o.min_problem_spearman > -1)
    for (const auto& p : s.problems)
      if (p.ranked && p.spearman < o.min_problem_spearman)
        fail = true, std::printf("FAIL: %s Spearman %.3f below %.3f\n", p.group.c_str(), p.spearman, o.min_problem_spearman);
  if (o.max_top5 > 0 && s.top5 > o.max_top5) fail = true, std::printf("FAIL: top-5%% retention above %.3f\n", o.max_top5);
  if (s.scored.empty()) fail = true, std::printf("FAIL: no row could be predicted\n");
  return fail ? 3 : 0;
}

}  // namespace tilesight::cli
