// Runs the engine off the UI thread. At most one run is in flight; a newer request
// supersedes an older pending one, and a result whose generation is not the latest is
// dropped, so the views never show a stale prediction after a newer edit:
//
//   submit(plan A)  -> generation 1 starts
//   submit(plan B)  -> generation 2 waits         (the UI keeps going)
//   submit(plan C)  -> generation 3 replaces 2    (2 never runs)
//   1 finishes      -> discarded(1); 3 starts
//   3 finishes      -> predicted(3, prediction)
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <optional>

#include <nlohmann/json.hpp>

#include "tilesight/report/prediction.h"
#include "tilesight/util/result.h"

namespace tilesight::ui {

// What one run produced: the prediction or the errors (JSON paths inside the plan).
struct PredictionOutcome {
  quint64 generation = 0;
  std::optional<report::Prediction> prediction;
  Errors errors;
  double engine_ms = 0;  // wall time of parse + lift + evaluate
};

// The whole engine path for one plan document, as `tilesight-cli predict` runs it, with the
// timeline requested. Pure and thread-safe: the worker calls it on its own thread.
PredictionOutcome predict_plan(const nlohmann::json& doc);

class PredictionWorker : public QObject {
  Q_OBJECT

 public:
  explicit PredictionWorker(QObject* parent = nullptr);
  ~PredictionWorker() override;

  // Queues a run of `doc` and returns its generation; supersedes any earlier request.
  quint64 submit(nlohmann::json doc);
  bool busy() const { return running_; }
  quint64 latestGeneration() const { return latest_; }

 signals:
  void predicted(quint64 generation, const tilesight::ui::PredictionOutcome& outcome);
  void failed(quint64 generation, const tilesight::ui::PredictionOutcome& outcome);
  void discarded(quint64 generation);  // a stale result that was dropped
  void busyChanged(bool busy);

 private:
  void start(nlohmann::json doc, quint64 generation);
  void onFinished();

  QThreadPool pool_;
  QFutureWatcher<PredictionOutcome> watcher_;
  std::optional<std::pair<nlohmann::json, quint64>> pending_;
  quint64 latest_ = 0;
  bool running_ = false;
};

}  // namespace tilesight::ui
