#include "ui/what_if_runner.h"

#include <QtConcurrent/QtConcurrentRun>

#include "tilesight/net/system_profile.h"
#include "tilesight/net/what_if.h"
#include "ui/prediction_worker.h"

namespace tilesight::ui {

nlohmann::json with_bandwidth_scale(const nlohmann::json& plan, const std::string& type, double factor) {
  nlohmann::json out = plan;
  if (!out.contains("what_if") || !out["what_if"].is_object()) out["what_if"] = nlohmann::json::object();
  out["what_if"]["bandwidth_scale"][type] = factor;
  return out;
}

nlohmann::json with_what_if(const nlohmann::json& plan, const nlohmann::json& what_if) {
  nlohmann::json out = plan;
  if (!out.contains("what_if") || !out["what_if"].is_object()) out["what_if"] = nlohmann::json::object();
  out["what_if"].merge_patch(what_if);
  return out;
}

std::vector<VariantPoint> sweep_variants(const nlohmann::json& plan) {
  std::vector<VariantPoint> out;
  const std::string hardware = plan.is_object() ? plan.value("hardware", std::string()) : std::string();
  auto system = net::load_system(hardware);
  if (!system || system->devices() < 2) return out;
  auto predict = [&](std::string label, const nlohmann::json& doc) {
    VariantPoint v{.label = std::move(label)};
    const PredictionOutcome result = predict_plan(doc);
    if (result.prediction) {
      v.latency_us = result.prediction->latency_us;
      v.comm_us = result.prediction->network.comm_us;
    } else if (!result.errors.empty()) {
      v.error = QString::fromStdString(result.errors.front().to_string());
    }
    out.push_back(std::move(v));
  };
  predict("as specified", plan);
  for (const auto& variant : net::topology_variants(system->network))
    predict(variant.label, with_what_if(plan, variant.what_if));
  return out;
}

WhatIfSweep sweep_bandwidth(const nlohmann::json& plan, const std::string& type, const std::vector<double>& factors) {
  WhatIfSweep sweep;
  sweep.link_type = type;
  for (double f : factors) {
    const PredictionOutcome out = predict_plan(with_bandwidth_scale(plan, type, f));
    if (!out.prediction) {
      if (sweep.error.isEmpty() && !out.errors.empty())
        sweep.error = QStringLiteral("× %1: %2").arg(f).arg(QString::fromStdString(out.errors.front().to_string()));
      continue;
    }
    const auto& p = *out.prediction;
    sweep.points.push_back({f, p.latency_us, p.network.comm_us, p.network.overlap_rate});
  }
  return sweep;
}

WhatIfRunner::WhatIfRunner(QObject* parent) : QObject(parent) {
  pool_.setMaxThreadCount(1);
  connect(&watcher_, &QFutureWatcher<WhatIfSweep>::finished, this, &WhatIfRunner::onFinished);
}

WhatIfRunner::~WhatIfRunner() {
  watcher_.disconnect(this);
  watcher_.waitForFinished();
}

quint64 WhatIfRunner::request(nlohmann::json plan, std::string type, std::vector<double> factors) {
  Request r{std::move(plan), std::move(type), std::move(factors), ++latest_};
  if (running_)
    pending_ = std::move(r);
  else
    start(std::move(r));
  return latest_;
}

void WhatIfRunner::start(Request r) {
  running_ = true;
  watcher_.setFuture(QtConcurrent::run(&pool_, [r = std::move(r)] {
    WhatIfSweep sweep = sweep_bandwidth(r.plan, r.type, r.factors);
    sweep.variants = sweep_variants(r.plan);
    sweep.generation = r.generation;
    return sweep;
  }));
}

void WhatIfRunner::onFinished() {
  WhatIfSweep sweep = watcher_.result();
  if (pending_) {
    Request next = std::move(*pending_);
    pending_.reset();
    start(std::move(next));
  } else {
    running_ = false;
  }
  if (sweep.generation == latest_) emit swept(sweep);
}

}  // namespace tilesight::ui
