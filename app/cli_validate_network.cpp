// `tilesight-cli validate` on a multi-GPU corpus (collectives.csv, p2p.csv, fused.csv of
// tests/validation/<system>/, validate/network_corpus.h): every row through the
// cross-device model on the system profile `--hw`; MAPE, wMAPE and the share of rows within
// 10% and 20%, over all rows and per band (message size, or fused kind and mode), then the
// worst rows. --max-mape / --max-wmape make it exit 3 when the figure is worse.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "cli_commands.h"
#include "tilesight/model/distributed.h"
#include "tilesight/net/system_profile.h"
#include "tilesight/validate/metrics.h"
#include "tilesight/validate/network_corpus.h"

namespace tilesight::cli {

namespace {

constexpr std::size_t kWorstRows = 8;

struct Scored {
  const validate::CorpusRow* row;
  double predicted_us;
};

// "all_reduce bytes=8192 devices=2 protocol=LL": the plan's kernel and parameters, tile
// parameters left out.
std::string describe(const nlohmann::json& plan) {
  std::string s = plan["kernel"].get<std::string>();
  for (const char* k : {"M", "N", "K", "heads", "seq_q", "head_dim", "causal", "bytes", "devices", "protocol", "overlap"})
    if (plan["params"].contains(k)) {
      const auto& v = plan["params"][k];
      s += std::string(" ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    }
  return s;
}

void print_line(const char* label, const validate::Accuracy& a) {
  std::printf("  %-22s %4zu rows  MAPE %6.2f%%  wMAPE %6.2f%%  within 10%% %5.1f%%  within 20%% %5.1f%%\n", label, a.rows,
              100 * a.mape, 100 * a.wmape, 100 * a.within10, 100 * a.within20);
}

validate::Accuracy accuracy_of(const std::vector<Scored>& rows) {
  std::vector<double> p, m;
  for (const auto& x : rows) p.push_back(x.predicted_us), m.push_back(x.row->measured_us);
  return validate::accuracy(p, m);
}

}  // namespace

int run_validate_network(const ValidateOptions& o) {
  auto system = net::load_system(o.hw);
  if (!system) {
    std::cerr << "--hw: " << system.error_text("; ") << "\n";
    return 2;
  }
  auto corpus = validate::read_network_corpus(o.corpus, o.hw);
  if (!corpus) {
    std::cerr << corpus.error_text() << "\n";
    return 2;
  }
  std::vector<Scored> scored;
  std::size_t rejected = 0;
  for (const auto& row : corpus->rows) {
    auto pred = model::predict_distributed(row.plan, "", {.timeline = false});
    if (!pred) {
      if (rejected++ < 5) std::cerr << o.corpus << ":" << row.line << ": " << pred.error_text("; ") << "\n";
      continue;
    }
    scored.push_back({&row, pred->latency_us});
  }
  if (!o.out.empty()) {
    std::ofstream out(o.out);
    out << "line,band,plan,measured_us,predicted_us,ape\n";
    for (const auto& x : scored)
      out << x.row->line << ",\"" << x.row->group << "\",\"" << describe(x.row->plan) << "\"," << x.row->measured_us
          << "," << x.predicted_us << "," << std::fabs(x.predicted_us - x.row->measured_us) / x.row->measured_us << "\n";
  }
  std::printf("corpus %s on %s (%s profile): %zu rows predicted, %zu rejected by the model, %zu skipped\n",
              o.corpus.c_str(), system->name.c_str(), hw::profile_source_name(system->profile_source), scored.size(),
              rejected, corpus->skipped.size());
  const validate::Accuracy all = accuracy_of(scored);
  print_line("all", all);
  std::map<std::string, std::vector<Scored>> bands;
  for (const auto& x : scored) bands[x.row->group].push_back(x);
  for (const auto& [band, rows] : bands) print_line(band.c_str(), accuracy_of(rows));

  std::vector<Scored> worst = scored;
  auto ape = [](const Scored& x) { return std::fabs(x.predicted_us - x.row->measured_us) / x.row->measured_us; };
  std::sort(worst.begin(), worst.end(), [&](const Scored& a, const Scored& b) { return ape(a) > ape(b); });
  if (worst.size() > kWorstRows) worst.resize(kWorstRows);
  std::printf("worst rows:\n");
  for (const auto& x : worst)
    std::printf("  line %4zu  %-58s measured %10.1f us  predicted %10.1f us  %+6.1f%%\n", x.row->line,
                describe(x.row->plan).c_str(), x.row->measured_us, x.predicted_us,
                100 * (x.predicted_us - x.row->measured_us) / x.row->measured_us);

  bool fail = scored.empty();
  if (scored.empty()) std::printf("FAIL: no row could be predicted\n");
  if (o.max_mape > 0 && all.mape > o.max_mape) fail = true, std::printf("FAIL: MAPE above %.2f%%\n", 100 * o.max_mape);
  if (o.max_wmape > 0 && all.wmape > o.max_wmape)
    fail = true, std::printf("FAIL: wMAPE above %.2f%%\n", 100 * o.max_wmape);
  return fail ? 3 : 0;
}

}  // namespace tilesight::cli
