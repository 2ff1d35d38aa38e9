#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "cli_commands.h"
#include "cli_ordered_batch.h"
#include "tilesight/cache/sdcm_cache_model.h"
#include "tilesight/cache/tile_starts.h"
#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/model/distributed.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/report/chrome_trace.h"
#include "tilesight/report/json_report.h"
#include "tilesight/report/maps_text.h"
#include "tilesight/report/text_report.h"
#include "tilesight/util/json_input.h"

namespace tilesight::cli {

namespace {

constexpr int kOk = 0, kBadInput = 2;

// Profiles loaded once per run: a JSONL batch names the same GPU on every line.
class ProfileCache {
 public:
  Result<hw::HardwareSpec> get(const std::string& name) {
    auto it = cache_.find(name);
    if (it == cache_.end()) it = cache_.emplace(name, hw::load_profile(name)).first;
    return it->second;
  }

 private:
  std::map<std::string, Result<hw::HardwareSpec>> cache_;
};

// --what-if: a JSON object, or the file that holds one (net/what_if.h says what it may name).
Result<nlohmann::json> what_if_option(const std::string& text) {
  auto doc = text.find('{') != std::string::npos ? parse_json_text(text) : read_json_file(text);
  if (!doc) return prefixed("--what-if", doc.errors());
  if (!doc->is_object()) return Error{"--what-if", "must be a JSON object, got " + json_type_phrase(*doc)};
  return doc;
}

// One plan document -> a prediction, or the errors (paths inside the plan).
Result<report::Prediction> predict_one(const nlohmann::json& doc, const PredictOptions& opt, ProfileCache& profiles) {
  // Collectives and fused compute-communication kernels run on a system profile (§3.6).
  if (model::is_distributed_plan(doc)) {
    if (!opt.tile_starts.empty())
      return Error{"--tile-starts", "a CTA trace is one GPU's launch; this plan runs on several"};
    if (opt.l2_merged >= 0) return Error{"--l2-merged", "applies to plans on one GPU; this plan runs on several"};
    if (opt.what_if.empty())
      return model::predict_distributed(doc, opt.hw, {.timeline = opt.timeline || !opt.trace.empty()});
    auto what_if = what_if_option(opt.what_if);
    if (!what_if) return what_if.errors();
    nlohmann::json changed = doc;
    if (!changed.contains("what_if") || !changed["what_if"].is_object()) changed["what_if"] = nlohmann::json::object();
    changed["what_if"].merge_patch(*what_if);
    return model::predict_distributed(changed, opt.hw, {.timeline = opt.timeline || !opt.trace.empty()});
  }
  if (!opt.what_if.empty())
    return Error{"--what-if", "what-if topologies apply to plans over several GPUs (collectives, fused kernels, "
                              "llm_decode); this plan runs on one"};
  auto plan = kernels::read_plan(doc);
  if (!plan) return plan.errors();
  const std::string hw_name = !opt.hw.empty() ? opt.hw : plan->hardware;
  if (hw_name.empty())
    return Error{"hardware", "missing: name a profile in the plan (\"hardware\": \"h200\") or pass --hw"};
  auto hw = profiles.get(hw_name);
  if (!hw) return prefixed(opt.hw.empty() ? "hardware" : "--hw", hw.errors());
  // One-line results (--jsonl) carry no diagnosis: skip writing it.
  const bool lines = opt.jsonl || opt.format == "jsonl";
  model::EvaluateOptions evaluate{.timeline = opt.timeline || !opt.trace.empty(), .diagnosis = !lines, .tile_maps = opt.maps};
  if (opt.l2_merged >= 0) evaluate.l2_merged_share = opt.l2_merged;
  std::optional<cache::SdcmCacheModel> measured;  // the cache model with a trace's start times
  if (!opt.tile_starts.empty()) {
    auto starts = cache::read_tile_starts_file(opt.tile_starts);
    if (!starts) {  // the lines are the trace's, not the plan's
      Errors errors;
      for (const Error& e : starts.errors())
        errors.push_back({"--tile-starts", opt.tile_starts + (e.line > 0 ? ", line " + std::to_string(e.line) : "") +
                                               ": " + (e.path.empty() ? "" : e.path + ": ") + e.message});
      return errors;
    }
    const std::int64_t tiles = plan->program.grid.tiles();
    if (static_cast<std::int64_t>(starts->size()) != tiles)
      return Error{"--tile-starts", "the trace has " + std::to_string(starts->size()) + " CTAs, the plan's grid " +
                                        std::to_string(tiles) + " tiles: a trace of another launch?"};
    measured.emplace(
        cache::SdcmOptions{.tile_maps = evaluate.timeline || opt.maps, .tile_starts = std::move(starts).value()});
    evaluate.cache_model = &*measured;
  }
  auto prediction = model::evaluate(plan->program, *hw, evaluate);
  if (!prediction) return plan->explain(prediction.errors());
  return prediction;
}

bool read_input(const std::string& input, std::string& text) {
  if (input == "-") {
    std::ostringstream s;
    s << std::cin.rdbuf();
    text = s.str();
    return true;
  }
  std::ifstream f(input, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  text = s.str();
  return true;
}

std::string display_name(const std::string& input) { return input == "-" ? "<stdin>" : input; }

int predict_document(const std::string& text, const PredictOptions& opt) {
  ProfileCache profiles;
  auto doc = parse_json_text(text);
  auto result = doc ? predict_one(*doc, opt, profiles) : Result<report::Prediction>(doc.errors());
  if (!result) {
    for (const auto& e : result.errors()) std::cerr << display_name(opt.input) << ": " << e.to_string() << "\n";
    return kBadInput;
  }
  if (!opt.trace.empty()) {
    std::ofstream t(opt.trace);
    t << report::to_chrome_trace(*result).dump() << "\n";
    if (!t) std::cerr << "tilesight-cli: cannot write trace to " << opt.trace << "\n";
  }
  if (opt.format == "json") std::cout << report::to_json(*result, {.timeline = opt.timeline, .maps = opt.maps}).dump(2) << "\n";
  else std::cout << report::to_text(*result) << (opt.maps ? report::maps_text(*result) : "");
  return kOk;
}

// One plan per line, one result per line in the same order; a bad line gives an error object
// and the rest still run. The lines run on `--threads` threads (each with its own profiles),
// their results written in order as they come in.
int predict_lines(const std::string& text, const PredictOptions& opt) {
  struct Line {
    int number;
    std::string text;
  };
  std::vector<Line> lines;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back({number, std::move(line)});
  }
  const unsigned threads = batch_threads(static_cast<unsigned>(opt.threads), lines.size());
  std::vector<ProfileCache> profiles(threads);
  struct Output {
    std::string json, error;  // the result's line; the message for stderr, where the line was bad
  };
  int status = kOk;
  run_in_order(
      lines.size(), threads,
      [&](std::size_t i, unsigned worker) {
        auto doc = parse_json_text(lines[i].text);
        auto result = doc ? predict_one(*doc, opt, profiles[worker]) : Result<report::Prediction>(doc.errors());
        if (result)
          return Output{report::to_json(*result, {.timeline = opt.timeline, .detail = false, .maps = opt.maps}).dump(), ""};
        std::string message;
        for (auto e : result.errors()) {
          e.line = 0;  // the line of the batch is the useful one here
          message += (message.empty() ? "" : "; ") + e.to_string();
        }
        return Output{nlohmann::json{{"error", message}, {"line", lines[i].number}}.dump(), message};
      },
      [&](std::size_t i, const Output& out) {
        std::cout << out.json << "\n";
        if (out.error.empty()) return;
        std::cerr << display_name(opt.input) << ":" << lines[i].number << ": " << out.error << "\n";
        status = kBadInput;
      });
  return status;
}

}  // namespace

void add_predict(CLI::App& app, PredictOptions& o) {
  auto* cmd = app.add_subcommand("predict", "Predict latency, envelope, utilisation and bottleneck of a plan");
  cmd->add_option("input", o.input, "Plan JSON file, or - for standard input")->capture_default_str();
  cmd->add_option("--hw", o.hw, "Hardware profile name (h200, ...) or path; overrides the plan's");
  cmd->add_option("--format", o.format, "Output format")->check(CLI::IsMember({"text", "json", "jsonl"}))->capture_default_str();
  cmd->add_flag("--jsonl", o.jsonl, "Batch: one plan per input line, one JSON result per output line");
  cmd->add_option("--threads", o.threads, "Batch: plans predicted at once (0: one per core); results keep the input's order")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--timeline", o.timeline, "Include per-action timeline events in JSON output");
  cmd->add_flag("--maps", o.maps,
                "The cache model's per-tile L2 hit rates over the tile grid: hit_rate_maps in JSON, a character map in text");
  cmd->add_option("--trace", o.trace, "Write the timeline as a Chrome trace (open in Perfetto)");
  cmd->add_option("--tile-starts", o.tile_starts,
                  "A measured launch's CTA trace (CSV: pid, t_start_ns, t_end_ns; cta_skew.py writes them): the "
                  "cache model takes its start times for the model's skew")
      ->check(CLI::ExistingFile);
  cmd->add_option("--l2-merged", o.l2_merged,
                  "A diagnostic: the share (0-1) of every load's requests that merge before an L2 lookup, in place of "
                  "the cache model's (e.g. 1 - ncu's read lookups a requested sector): the timing with the merges known")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--what-if", o.what_if,
                  "What-if topology for multi-GPU plans, merged into the plan's \"what_if\": JSON or a file, e.g. "
                  "'{\"add_rail\": {\"ib_ndr\": 1}}' (docs/network-model.md)");
}

int run_predict(const PredictOptions& opt) {
  std::string text;
  if (!read_input(opt.input, text)) {
    std::cerr << "tilesight-cli: cannot open " << opt.input << "\n";
    return kBadInput;
  }
  if (opt.jsonl || opt.format == "jsonl") return predict_lines(text, opt);
  return predict_document(text, opt);
}

}  // namespace tilesight::cli
