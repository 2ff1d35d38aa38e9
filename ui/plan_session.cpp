#include "ui/plan_session.h"

namespace tilesight::ui {

namespace {
constexpr int kDebounceMs = 150;
}

PlanSession::PlanSession(QObject* parent) : QObject(parent), worker_(this) {
  debounce_.setSingleShot(true);
  debounce_.setInterval(kDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, &PlanSession::submit);
  connect(&worker_, &PredictionWorker::predicted, this,
          [this](quint64, const PredictionOutcome& o) { onPredicted(o); });
  connect(&worker_, &PredictionWorker::failed, this,
          [this](quint64, const PredictionOutcome& o) { onFailed(o); });
  connect(&worker_, &PredictionWorker::busyChanged, this,
          [this](bool) { emit busyChanged(busy()); });
}

void PlanSession::open(nlohmann::json doc, const QString& path, bool modified) {
  plan_ = std::move(doc);
  path_ = path;
  debounce_.stop();
  setModified(modified);
  emit planReplaced(plan_);
  emit planChanged(plan_);
  submit();
}

void PlanSession::edit(nlohmann::json doc) {
  if (doc == plan_) return;
  plan_ = std::move(doc);
  setModified(true);
  emit planChanged(plan_);
  debounce_.start();
  emit busyChanged(true);
}

void PlanSession::markSaved(const QString& path) {
  path_ = path;
  setModified(false);
}

void PlanSession::submit() {
  since_submit_.start();
  worker_.submit(plan_);
  emit busyChanged(true);
}

void PlanSession::onPredicted(const PredictionOutcome& outcome) {
  prediction_ = outcome.prediction;
  errors_.clear();
  emit predictionReady(*prediction_);  // the views redraw before this returns
  last_latency_ms_ = static_cast<double>(since_submit_.nsecsElapsed()) / 1e6;
  emit timingMeasured(last_latency_ms_, outcome.engine_ms);
}

void PlanSession::onFailed(const PredictionOutcome& outcome) {
  errors_ = outcome.errors;
  emit predictionFailed(errors_);
}

void PlanSession::setModified(bool modified) {
  if (modified_ == modified) return;
  modified_ = modified;
  emit modifiedChanged(modified_);
}

}  // namespace tilesight::ui
