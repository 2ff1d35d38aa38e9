#include "tilesight/validate/corpus.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "attention_rows.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/util/csv.h"

namespace tilesight::validate {

namespace {

// Template parameters a corpus column may carry, with whether the value is a number.
const std::set<std::string>& integer_params() {
  static const std::set<std::string> s = {"M", "N", "K", "block_m", "block_n", "block_k", "group_m",
                                          "stages", "warps", "batch", "split_k", "cluster_m", "cluster_n",
                                          // attention and memory-bound templates (DESIGN.md)
                                          "heads", "kv_heads", "seq", "seq_q", "seq_kv", "head_dim", "split_kv",
                                          "rows", "cols",
                                          // llm_decode (its model's dimensions go into params.model)
                                          "layers", "hidden", "ffn", "vocab", "experts", "experts_per_token",
                                          "expert_ffn", "ctx", "tp", "ep", "dp"};
  return s;
}
const std::set<std::string>& string_params() {
  static const std::set<std::string> s = {"dtype", "layout", "raster", "schedule", "variant", "mma"};
  return s;
}

bool is_template(const std::string& name) {
  const auto names = kernels::template_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool parse_number(const std::string& s, double& out) {
  const auto x = csv_number(s);
  if (x) out = *x;
  return x.has_value();
}

std::string group_key(const std::string& kernel, const nlohmann::json& params) {
  std::ostringstream k;
  k << kernel;
  for (const char* dim : {"batch", "M", "N", "K", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim", "causal",
                          "rows", "cols", "ctx", "tp"})
    if (params.contains(dim)) k << " " << dim << "=" << params[dim];
  if (params.contains("dtype")) k << " " << params["dtype"].get<std::string>();
  return k.str();
}

// Columns a template reads in its own way (the attention corpora's backend and kernel names,
// attention_rows.h); "" or why the row cannot be mapped.
std::string map_template_row(const std::string& kernel, const std::vector<std::string>& header,
                             const std::vector<std::string>& cells, nlohmann::json& params,
                             bool recorded_registers) {
  std::map<std::string, std::string> named;
  for (std::size_t c = 0; c < header.size(); ++c) named[header[c]] = cells[c];
  // norms.csv's silu_mul is eager `F.silu(g) * u`: its kernels column lists the two kernels.
  if (kernel == "silu_mul" && named["kernels"].find('|') != std::string::npos) params["fused"] = false;
  // The Triton corpora (GEMM, attention) record the compiled kernel's registers per thread
  // (n_regs): occupancy then follows what the compiler did, as a kernel author's run would.
  if ((kernel == "gemm" || kernel == "attention") && recorded_registers) {
    double regs = 0;
    if (auto it = named.find("n_regs"); it != named.end() && parse_number(it->second, regs) && regs >= 1 &&
                                        regs <= 255 && std::floor(regs) == regs)
      params["registers"] = static_cast<std::int64_t>(regs);
    // Triton's spill count (n_spills, 4-byte slots per thread) says how much local memory
    // each iteration stores and reloads.
    double spills = 0;
    if (auto it = named.find("n_spills"); it != named.end() && parse_number(it->second, spills) && spills >= 1 &&
                                            std::floor(spills) == spills && spills < 1e6)
        params["spills"] = static_cast<std::int64_t>(spills);
  }
  if (kernel == "llm_decode") {
    // A decode corpus row names the model's dimensions beside the step's batch and context.
    nlohmann::json model = nlohmann::json::object();
    for (const char* key : {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "experts",
                            "experts_per_token", "expert_ffn"})
      if (params.contains(key)) {
        model[key] = params[key];
        params.erase(key);
      }
    params["model"] = model;
    return "";
  }
  if (kernel != "attention") return "";
  return map_attention_row(named, params);
}

}  // namespace

Result<Corpus> read_corpus(const std::string& path, const std::string& hardware, const std::string& kernel,
                           bool recorded_registers) {
  std::ifstream f(path);
  if (!f) return Error{"", "cannot open " + path};
  Corpus corpus{.path = path};
  std::vector<std::string> header;
  std::string line;
  std::size_t number = 0;
  while (std::getline(f, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    auto cells = split_csv(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (cells.size() != header.size()) {
      corpus.skipped.push_back({"", "expected " + std::to_string(header.size()) + " columns", static_cast<int>(number)});
      continue;
    }
    CorpusRow row{.line = number};
    nlohmann::json params = nlohmann::json::object();
    std::string row_kernel = kernel;
    bool ok = true;
    for (std::size_t c = 0; c < header.size(); ++c) {
      const auto& name = header[c];
      const auto& cell = cells[c];
      double x = 0;
      if (integer_params().count(name) && !cell.empty()) {
        if (!parse_number(cell, x)) ok = false;
        else params[name] = static_cast<std::int64_t>(x);
      } else if (string_params().count(name) && !cell.empty()) {
        params[name] = cell;
      } else if ((name == "persistent" || name == "causal") && !cell.empty()) {
        params[name] = cell == "1" || cell == "true" || cell == "True";
      } else if (name == "kernel_template" || (name == "kernel" && is_template(cell))) {
        row_kernel = cell;  // a `kernel` column naming a template (norms.csv), not a library kernel
      } else if (name == "ms" || name == "us" || name == "latency_us") {
        if (!parse_number(cell, x) || x <= 0) ok = false;
        else row.measured_us = name == "ms" ? x * 1000 : x;
      }
    }
    if (!ok || row.measured_us <= 0) {
      corpus.skipped.push_back({"", "unreadable number or no measured time", static_cast<int>(number)});
      continue;
    }
    if (auto why = map_template_row(row_kernel, header, cells, params, recorded_registers); !why.empty()) {
      corpus.skipped.push_back({"", why, static_cast<int>(number)});
      continue;
    }
    row.group = group_key(row_kernel, params);
    row.plan = {{"kernel", row_kernel}, {"hardware", hardware}, {"params", params}};
    corpus.rows.push_back(std::move(row));
  }
  if (header.empty()) return Error{"", path + ": no header line"};
  return corpus;
}

}  // namespace tilesight::validate
