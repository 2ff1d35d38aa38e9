// `tilesight-cli bench`: how fast the engine predicts, the way a search loop or a JSONL batch
// uses it (parse the plan, lift the template, evaluate, serialise the result).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "cli_commands.h"
#include "cli_ordered_batch.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/model/distributed.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/report/json_report.h"
#include "tilesight/util/json_input.h"

namespace tilesight::cli {

namespace {

// A spread of GEMM tile configs over LLM-like shapes, as a tile-config search would issue.
std::vector<std::string> default_plans() {
  std::vector<std::string> lines;
  const int shapes[][3] = {{4096, 4096, 4096}, {1024, 28672, 8192}, {8192, 8192, 8192}, {16, 4096, 4096},
                           {4096, 14336, 4096}, {3000, 5000, 2048}};
  const int tiles[][3] = {{128, 128, 64}, {128, 256, 64}, {64, 64, 32}, {256, 128, 64}, {64, 128, 128}};
  for (auto& s : shapes)
    for (auto& t : tiles)
      for (int stages : {2, 3, 4})
        for (int group : {1, 8}) {
          std::ostringstream o;
          o << R"({"kernel":"gemm","hardware":"h200","params":{"M":)" << s[0] << R"(,"N":)" << s[1] << R"(,"K":)"
            << s[2] << R"(,"block_m":)" << t[0] << R"(,"block_n":)" << t[1] << R"(,"block_k":)" << t[2]
            << R"(,"stages":)" << stages << R"(,"group_m":)" << group << R"(,"warps":8,"dtype":"bf16"}})";
          lines.push_back(o.str());
        }
  return lines;
}

}  // namespace

void add_bench(CLI::App& app, BenchOptions& o) {
  auto* cmd = app.add_subcommand("bench", "Measure prediction speed (JSONL batch path; one thread unless --threads)");
  cmd->add_option("input", o.input, "JSONL file of plans (default: 180 GEMM tile configs on h200)");
  cmd->add_option("--iterations", o.iterations, "Predictions to time")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--threads", o.threads, "Plans predicted at once (0: one per core); the time is the batch's over its plans")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

int run_bench(const BenchOptions& o) {
  std::vector<std::string> lines;
  if (o.input.empty()) {
    lines = default_plans();
  } else {
    std::ifstream f(o.input);
    if (!f) {
      std::cerr << "tilesight-cli: cannot open " << o.input << "\n";
      return 2;
    }
    for (std::string l; std::getline(f, l);)
      if (!l.empty()) lines.push_back(l);
  }
  if (lines.empty()) {
    std::cerr << "tilesight-cli: no plans to time\n";
    return 2;
  }
  auto hw = hw::load_profile("h200");
  std::vector<double> batch_us;
  std::size_t done = 0, failed = 0, bytes = 0;
  std::string first_error;
  using clock = std::chrono::steady_clock;
  const unsigned threads = batch_threads(static_cast<unsigned>(o.threads), lines.size());
  struct Outcome {
    std::size_t bytes = 0;
    std::string error;  // empty: predicted
  };
  while (done < static_cast<std::size_t>(o.iterations)) {
    const auto t0 = clock::now();
    const std::size_t n = std::min(lines.size(), static_cast<std::size_t>(o.iterations) - done);
    run_in_order(
        n, threads,
        [&](std::size_t i, unsigned) {
          auto doc = parse_json_text(lines[i]);
          // Plans of several kernels or GPUs (llm_decode, collectives, fused) load their system.
          auto pred = [&]() -> Result<report::Prediction> {
            if (!doc) return doc.errors();
            if (model::is_distributed_plan(*doc))
              return model::predict_distributed(*doc, "", {.timeline = false, .diagnosis = false});
            auto plan = kernels::read_plan(*doc);
            if (!plan) return plan.errors();
            if (!hw) return hw.errors();
            return model::evaluate(plan->program, *hw, {.timeline = false, .diagnosis = false});
          }();
          if (!pred) return Outcome{.bytes = 0, .error = "line " + std::to_string(i + 1) + ": " + pred.error_text("; ")};
          return Outcome{.bytes = report::to_json(*pred, {.detail = false}).dump().size(), .error = ""};
        },
        [&](std::size_t, const Outcome& out) {
          bytes += out.bytes;
          if (out.error.empty()) return;
          if (failed++ == 0) first_error = out.error;
        });
    const double us = std::chrono::duration<double, std::micro>(clock::now() - t0).count();
    batch_us.push_back(us / static_cast<double>(n));
    done += n;
  }
  std::sort(batch_us.begin(), batch_us.end());
  std::cout << "predictions: " << done << " (" << failed << " failed), output " << bytes << " bytes\n"
            << "per prediction: median " << batch_us[batch_us.size() / 2] << " us, best " << batch_us.front()
            << " us, worst " << batch_us.back() << " us (batches of " << lines.size() << ", " << threads << (threads == 1 ? " thread" : " threads") << ")\n";
  if (failed > 0) std::cerr << "tilesight-cli: first failure, " << first_error << "\n";
  return failed == 0 ? 0 : 1;
}

void add_profiles(CLI::App& app) {
  app.add_subcommand("profiles", "List the hardware profiles that ship with TileSight");
}

int run_profiles() {
  for (const auto& name : hw::list_profiles()) {
    auto hw = hw::load_profile(name);
    std::cout << name;
    if (hw) std::cout << "\t" << hw->display_name << "\t" << hw::profile_source_name(hw->profile_source);
    else std::cout << "\t(invalid: " << hw.error_text("; ") << ")";
    std::cout << "\n";
  }
  return 0;
}

int run_selected(CLI::App& app, const Commands& c) {
  if (app.got_subcommand("predict")) return run_predict(c.predict);
  if (app.got_subcommand("validate")) return run_validate(c.validate);
  if (app.got_subcommand("bench")) return run_bench(c.bench);
  if (app.got_subcommand("profiles")) return run_profiles();
  return 2;
}

}  // namespace tilesight::cli
