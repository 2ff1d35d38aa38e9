#include "tilesight/validate/corpus_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "tilesight/kernels/plan_input.h"
#include "tilesight/model/distributed.h"
#include "tilesight/model/evaluate.h"
#include "tilesight/validate/metrics.h"

namespace tilesight::validate {

std::vector<const ScoredRow*> CorpusReport::worst(std::size_t n) const {
  std::vector<const ScoredRow*> out;
  for (const auto& s : scored) out.push_back(&s);
  const std::size_t k = std::min(n, out.size());
  std::partial_sort(out.begin(), out.begin() + static_cast<long>(k), out.end(),
                    [](const ScoredRow* a, const ScoredRow* b) { return a->ape() > b->ape(); });
  out.resize(k);
  return out;
}

void score(CorpusReport& r) {
  std::vector<double> p, m, ape;
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (const auto& s : r.scored) {
    p.push_back(s.predicted_us);
    m.push_back(s.row->measured_us);
    ape.push_back(s.ape());
    auto [it, fresh] = groups.try_emplace(s.row->group);
    if (fresh) order.push_back(s.row->group);
    it->second.first.push_back(s.predicted_us);
    it->second.second.push_back(s.row->measured_us);
  }
  r.mape = mape(p, m);
  r.wmape = wmape(p, m);
  r.within10 = share_within(p, m, 0.10);
  r.within20 = share_within(p, m, 0.20);
  r.median_ape = 0;
  if (!ape.empty()) {
    std::nth_element(ape.begin(), ape.begin() + static_cast<long>(ape.size() / 2), ape.end());
    r.median_ape = ape[ape.size() / 2];
  }
  r.problems.clear();
  r.ranked_problems = 0;
  r.spearman = r.top5 = 0;
  for (const auto& key : order) {
    const auto& [gp, gm] = groups[key];
    ProblemStats s{.group = key, .rows = gp.size(), .mape = mape(gp, gm), .ranked = gp.size() >= 5};
    if (s.ranked) {  // too few configs to rank otherwise
      s.spearman = spearman(gp, gm);
      s.top5 = top_retention(gp, gm, 0.05);
      r.spearman += s.spearman;
      r.top5 += s.top5;
      ++r.ranked_problems;
    }
    r.problems.push_back(std::move(s));
  }
  if (r.ranked_problems) {
    r.spearman /= static_cast<double>(r.ranked_problems);
    r.top5 /= static_cast<double>(r.ranked_problems);
  }
}

CorpusReport predict_corpus(const Corpus& corpus, const hw::HardwareSpec& hw,
                            const std::function<bool(std::size_t, std::size_t)>& progress) {
  CorpusReport r;
  const std::size_t total = corpus.rows.size();
  for (std::size_t i = 0; i < total; ++i) {
    if (progress && i % 16 == 0 && !progress(i, total)) break;
    const auto& row = corpus.rows[i];
    // Plans of many kernels or devices (llm_decode) load their own system profile by name.
    auto pred = model::is_distributed_plan(row.plan)
                    ? model::predict_distributed(row.plan, "", {.timeline = false, .diagnosis = false})
                    : [&]() -> Result<report::Prediction> {
                        auto plan = kernels::read_plan(row.plan);
                        if (!plan) return plan.errors();
                        return model::evaluate(plan->program, hw, {.timeline = false, .diagnosis = false});
                      }();
    if (!pred) {
      if (r.rejected++ < 5)
        r.rejections.push_back(corpus.path + ":" + std::to_string(row.line) + ": " + pred.error_text("; "));
      continue;
    }
    r.scored.push_back({&row, pred->latency_us});
  }
  if (progress) progress(total, total);
  score(r);
  return r;
}

std::string row_config(const CorpusRow& row) {
  // Everything but the problem's own dims (those name the group).
  static const std::set<std::string> shape = {"batch", "M", "N", "K", "heads", "kv_heads", "seq_q", "seq_kv",
                                              "head_dim", "causal", "rows", "cols", "dtype"};
  const auto params = row.plan.value("params", nlohmann::json::object());
  auto num = [&](const char* k) { return params.contains(k) ? params[k].dump() : std::string("?"); };
  std::ostringstream o;
  if (params.contains("block_m") && params.contains("block_n")) {
    o << num("block_m") << "x" << num("block_n");
    if (params.contains("block_k")) o << "x" << num("block_k");
  }
  for (const auto& [k, v] : params.items()) {
    if (shape.count(k) || k == "block_m" || k == "block_n" || k == "block_k") continue;
    if (o.tellp() > 0) o << " ";
    o << k << "=" << (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return o.str();
}

}  // namespace tilesight::validate
