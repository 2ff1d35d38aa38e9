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
  bool timeline = false;    // include timeline events in JSON
  std::string trace;        // write a Chrome trace (Perfetto) of the timeline here
};

struct BenchOptions {
  std::string input;
  int iterations = 2000;
};

void add_predict(CLI::App& app, PredictOptions& options);
void add_bench(CLI::App& app, BenchOptions& options);
void add_profiles(CLI::App& app);

int run_predict(const PredictOptions& options);
int run_bench(const BenchOptions& options);
int run_profiles();

int run_selected(CLI::App& app, const PredictOptions& predict, const BenchOptions& bench);

}  // namespace tilesight::cli
