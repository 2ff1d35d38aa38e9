// Subcommands of tilesight-cli, one file each.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace tilesight::cli {

struct PredictOptions {
  std::string input = "-";
  std::string hw;           // overrides the plan's "hardware"
  std::string format = "text";
  bool jsonl = false;
  int threads = 0;          // --jsonl: plans predicted at once (0: one per core)
  bool timeline = false;    // include timeline events in JSON
  bool maps = false;        // include the per-tile L2 hit-rate maps (JSON), or draw them (text)
  std::string trace;        // write a Chrome trace (Perfetto) of the timeline here
  std::string what_if;      // a "what_if" object (JSON text or a file) merged into each multi-GPU plan's
  std::string tile_starts;  // a measured launch's CTA trace: the cache model takes its start times
  double l2_merged = -1;    // >= 0: the loads' merged share before L2 (EvaluateOptions::l2_merged_share)
};

struct BenchOptions {
  std::string input;
  int iterations = 2000;
  int threads = 1;  // plans predicted at once (0: one per core)
};

struct ValidateOptions {
  std::string corpus;
  std::string hw = "h200";
  std::string kernel = "gemm";
  std::string out;
  double max_mape = 0;        // 0: no threshold
  double max_wmape = 0;       // 0: no threshold
  double min_spearman = -2;   // below -1: no threshold
  double min_problem_spearman = -2;  // the least of any ranked problem; below -1: no threshold
  double max_top5 = 0;        // 0: no threshold
  double launch_overhead_us = -1;  // < 0: the profile's; else the corpus's launch path
  bool estimate_registers = false;  // ignore recorded n_regs: the model's own register estimate
};

void add_predict(CLI::App& app, PredictOptions& options);
void add_validate(CLI::App& app, ValidateOptions& options);
int run_validate(const ValidateOptions& options);
// A multi-GPU corpus (collectives.csv, p2p.csv, fused.csv) on a system profile.
int run_validate_network(const ValidateOptions& options);
void add_bench(CLI::App& app, BenchOptions& options);
void add_profiles(CLI::App& app);

int run_predict(const PredictOptions& options);
int run_bench(const BenchOptions& options);
int run_profiles();

struct Commands {
  PredictOptions predict;
  BenchOptions bench;
  ValidateOptions validate;
};

int run_selected(CLI::App& app, const Commands& commands);

}  // namespace tilesight::cli
