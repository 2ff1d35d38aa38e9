#include "tilesight/validate/network_corpus.h"

#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "tilesight/util/csv.h"

namespace tilesight::validate {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr int kGemmRsStreamChunks = 4;  // `chunks = 4` in collectives.py's gemm_rs stream2()

bool has_all(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  const std::set<std::string> cols(header.begin(), header.end());
  for (const char* n : names)
    if (!cols.count(n)) return false;
  return true;
}

std::optional<double> number(const std::map<std::string, std::string>& row, const std::string& key) {
  const auto it = row.find(key);
  if (it == row.end() || it->second.empty()) return std::nullopt;
  return csv_number(it->second);
}

const std::string& cell(const std::map<std::string, std::string>& row, const std::string& key) {
  static const std::string empty;
  const auto it = row.find(key);
  return it == row.end() ? empty : it->second;
}

std::int64_t whole(double x) { return static_cast<std::int64_t>(std::llround(x)); }

// One row's plan parameters and band; "" or why the row has no plan.
std::string map_row(NetworkCorpusKind kind, const std::map<std::string, std::string>& row, std::string& kernel,
                    nlohmann::json& params, std::string& band) {
  const auto bytes = number(row, "bytes");
  switch (kind) {
    case NetworkCorpusKind::kCollectives: {
      const auto devices = number(row, "devices");
      if (!bytes || !devices) return "bytes and devices must be numbers";
      kernel = cell(row, "collective");
      params = {{"bytes", whole(*bytes)}, {"devices", whole(*devices)}};
      if (cell(row, "proto") != "default" && !cell(row, "proto").empty()) params["protocol"] = cell(row, "proto");
      band = size_band(*bytes);
      return "";
    }
    case NetworkCorpusKind::kPointToPoint: {
      if (!bytes) return "bytes must be a number";
      if (cell(row, "direction") != "uni") return "direction \"" + cell(row, "direction") + "\": only one-way (uni) rows have a template";
      kernel = "send_recv";
      params = {{"bytes", whole(*bytes)}, {"devices", 2}};
      band = size_band(*bytes);
      return "";
    }
    case NetworkCorpusKind::kFused: {
      kernel = cell(row, "kind");
      const std::string& mode = cell(row, "mode");
      if (mode != "none" && mode != "stream") return "mode \"" + mode + "\" is a component (compute or comm alone)";
      const auto devices = number(row, "devices");
      if (!devices) return "devices must be a number";
      if (kernel == "ulysses_attention") {
        const auto batch = number(row, "batch"), heads = number(row, "heads"), seq = number(row, "seq"),
                   head_dim = number(row, "head_dim");
        if (!batch || !heads || !seq || !head_dim) return "batch, heads, seq and head_dim must be numbers";
        params = {{"batch", whole(*batch)},   {"heads", whole(*heads)},  {"kv_heads", whole(*heads)},
                  {"seq_q", whole(*seq)},     {"seq_kv", whole(*seq)},   {"head_dim", whole(*head_dim)},
                  {"causal", cell(row, "causal") == "1"}, {"dtype", "bf16"}};
        params.update(cudnn_attention_params());
      } else if (kernel == "ag_gemm" || kernel == "gemm_rs") {
        const auto m = number(row, "M"), n = number(row, "N"), k = number(row, "K");
        if (!m || !n || !k) return "M, N and K must be numbers";
        params = cublas_tile_params();
        params.update({{"M", whole(*m)}, {"N", whole(*n)}, {"K", whole(*k)}, {"dtype", "bf16"}});
        // collectives.py's gemm_rs stream: 4 row chunks, each reduce-scattered after its GEMM
        if (kernel == "gemm_rs" && mode == "stream") params["chunks"] = kGemmRsStreamChunks;
      } else {
        return "unknown kind \"" + kernel + "\"; known: ag_gemm, gemm_rs, ulysses_attention";
      }
      params["devices"] = whole(*devices);
      params["overlap"] = mode;
      band = kernel + " " + mode;
      return "";
    }
  }
  return "unknown corpus kind";
}

}  // namespace

std::optional<NetworkCorpusKind> network_corpus_kind(const std::vector<std::string>& header) {
  if (has_all(header, {"collective", "devices", "bytes", "proto", "time_us"})) return NetworkCorpusKind::kCollectives;
  if (has_all(header, {"direction", "bytes", "time_us"})) return NetworkCorpusKind::kPointToPoint;
  if (has_all(header, {"kind", "devices", "mode", "time_us"})) return NetworkCorpusKind::kFused;
  return std::nullopt;
}

std::optional<NetworkCorpusKind> network_corpus_kind(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line))
    if (!line.empty() && line[0] != '#') return network_corpus_kind(split_csv(line));
  return std::nullopt;
}

std::string size_band(double bytes) {
  if (bytes < kMiB) return "< 1 MiB";
  if (bytes < 64 * kMiB) return "1-64 MiB";
  return ">= 64 MiB";
}

nlohmann::json cudnn_attention_params() {
  return {{"variant", "fa3"}, {"mma", "wgmma"}, {"block_m", 128}, {"block_n", 128}, {"warps", 12}};
}

nlohmann::json cublas_tile_params() {
  return {{"block_m", 128}, {"block_n", 256}, {"block_k", 64},    {"stages", 4},     {"warps", 12},
          {"group_m", 1},   {"persistent", true}, {"cluster_m", 2}, {"cluster_n", 1}, {"raster", "m"},
          {"schedule", "cooperative"}};
}

Result<Corpus> read_network_corpus(const std::string& path, const std::string& hardware) {
  std::ifstream f(path);
  if (!f) return Error{"", "cannot open " + path};
  Corpus corpus{.path = path};
  std::vector<std::string> header;
  std::optional<NetworkCorpusKind> kind;
  std::string line;
  std::size_t number_of_line = 0;
  while (std::getline(f, line)) {
    ++number_of_line;
    if (line.empty() || line[0] == '#') continue;
    auto cells = split_csv(line);
    if (header.empty()) {
      header = cells;
      kind = network_corpus_kind(header);
      if (!kind)
        return Error{"", path + ": not a multi-GPU corpus (expected the columns of collectives.csv, p2p.csv or fused.csv)"};
      continue;
    }
    const int at = static_cast<int>(number_of_line);
    if (cells.size() != header.size()) {
      corpus.skipped.push_back({"", "expected " + std::to_string(header.size()) + " columns", at});
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size(); ++c) row[header[c]] = cells[c];
    const auto measured = number(row, "time_us");
    if (!measured || *measured <= 0) {
      corpus.skipped.push_back({"", "time_us must be a positive number", at});
      continue;
    }
    std::string kernel, band;
    nlohmann::json params;
    if (auto why = map_row(*kind, row, kernel, params, band); !why.empty()) {
      corpus.skipped.push_back({"", why, at});
      continue;
    }
    corpus.rows.push_back({.line = number_of_line,
                           .plan = {{"kernel", kernel}, {"hardware", hardware}, {"params", params}},
                           .measured_us = *measured,
                           .group = band});
  }
  if (header.empty()) return Error{"", path + ": no header line"};
  return corpus;
}

}  // namespace tilesight::validate
