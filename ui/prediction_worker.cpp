#include "ui/prediction_worker.h"

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/model/distributed.h"
#include "tilesight/model/evaluate.h"

namespace tilesight::ui {

namespace {

Result<report::Prediction> run_engine(const nlohmann::json& doc) {
  // Collectives, fused compute-communication kernels and llm_decode run on system profiles.
  if (model::is_distributed_plan(doc)) return model::predict_distributed(doc, "", {.timeline = true});
  auto plan = kernels::read_plan(doc);
  if (!plan) return plan.errors();
  if (plan->hardware.empty())
    return Error{"hardware", "missing: pick a hardware profile (\"hardware\": \"h200\")"};
  auto hw = hw::load_profile(plan->hardware);
  if (!hw) return prefixed("hardware", hw.errors());
  auto prediction = model::evaluate(plan->program, *hw, {.timeline = true});
  if (!prediction) return plan->explain(prediction.errors());
  return prediction;
}

}  // namespace

PredictionOutcome predict_plan(const nlohmann::json& doc) {
  PredictionOutcome out;
  QElapsedTimer clock;
  clock.start();
  try {
    auto result = run_engine(doc);
    if (result)
      out.prediction = std::move(result).value();
    else
      out.errors = result.errors();
  } catch (const std::exception& e) {
    // The engine reports bad input as values; anything thrown is a bug, shown, never fatal.
    out.errors = {Error{"", std::string("internal error: ") + e.what()}};
  }
  out.engine_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  return out;
}

PredictionWorker::PredictionWorker(QObject* parent) : QObject(parent) {
  pool_.setMaxThreadCount(1);
  connect(&watcher_, &QFutureWatcher<PredictionOutcome>::finished, this,
          &PredictionWorker::onFinished);
}

PredictionWorker::~PredictionWorker() {
  watcher_.disconnect(this);
  watcher_.waitForFinished();
}

quint64 PredictionWorker::submit(nlohmann::json doc) {
  const quint64 generation = ++latest_;
  if (running_)
    pending_.emplace(std::move(doc), generation);
  else
    start(std::move(doc), generation);
  return generation;
}

void PredictionWorker::start(nlohmann::json doc, quint64 generation) {
  const bool was_running = running_;
  running_ = true;
  watcher_.setFuture(QtConcurrent::run(&pool_, [doc = std::move(doc), generation] {
    PredictionOutcome out = predict_plan(doc);
    out.generation = generation;
    return out;
  }));
  if (!was_running) emit busyChanged(true);
}

void PredictionWorker::onFinished() {
  PredictionOutcome out = watcher_.result();
  if (pending_) {
    auto [doc, generation] = std::move(*pending_);
    pending_.reset();
    start(std::move(doc), generation);
  } else {
    running_ = false;
  }
  if (out.generation != latest_)
    emit discarded(out.generation);
  else if (out.prediction)
    emit predicted(out.generation, out);
  else
    emit failed(out.generation, out);
  if (!running_) emit busyChanged(false);
}

}  // namespace tilesight::ui
