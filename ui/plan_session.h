// The plan being edited and its latest prediction: the one place the views, the config
// panel and the file commands meet. Every edit is a command on the undo stack (the whole
// document before and after: plans are a few kB), debounced and handed to the
// PredictionWorker; on an error the last good prediction stays and the errors are reported
// beside it. The plan is modified while the stack is away from its clean (saved) state.
//
//   typed edit 30 ms or more after the last run ─(at once)──────┐
//   typed edits sooner (a burst) ─(together, 30 ms after it)────┼─> worker (thread) ─┐
//   slider release, undo, redo ─(at once)────────────────────────┘                   │
//     views <- predictionReady(prediction) <─┬───────────────────────────────────────┘
//     report view <- predictionFailed(errors) ┘
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QUndoStack>
#include <optional>

#include <nlohmann/json.hpp>

#include "tilesight/report/prediction.h"
#include "tilesight/util/result.h"
#include "ui/prediction_worker.h"

namespace tilesight::ui {

class PlanSession : public QObject {
  Q_OBJECT

 public:
  explicit PlanSession(QObject* parent = nullptr);
  // ~QUndoStack emits cleanChanged; nothing may hear it while the window is torn down.
  ~PlanSession() override { undo_.blockSignals(true); }

  // Replaces the plan (opened file, example, restored edit) and predicts it at once;
  // `modified` is true for an unsaved edit restored from the last session.
  void open(nlohmann::json doc, const QString& path, bool modified = false);
  // An edit of the current plan, undoable: predicted after the debounce interval; marks it
  // modified. Consecutive edits with the same label (a spin box's arrow held down) merge
  // into one undo step unless `merge` is false (a committed slider drag: a step of its own).
  // A mergeable edit within the debounce interval of the last run waits for the interval to
  // pass (more keystrokes may follow); a mergeable one after it, a committed one, an undo and
  // a redo are predicted at once.
  void edit(nlohmann::json doc, const QString& label = {}, bool merge = true);
  void markSaved(const QString& path);
  QUndoStack& undoStack() { return undo_; }
  void setDebounceMs(int ms) { debounce_ms_ = ms; }
  int debounceMs() const { return debounce_ms_; }

  const nlohmann::json& plan() const { return plan_; }
  const QString& path() const { return path_; }
  bool modified() const { return modified_; }
  bool busy() const { return worker_.busy() || debounce_.isActive(); }
  bool debouncing() const { return debounce_.isActive(); }  // an edit waits to be predicted
  const std::optional<report::Prediction>& prediction() const { return prediction_; }
  // The plan that prediction() was made from: plan() itself unless an edit is waiting out
  // the debounce or running.
  const nlohmann::json& predictedPlan() const { return predicted_plan_; }
  const Errors& errors() const { return errors_; }  // of the latest run; empty when it succeeded
  // From the end of the debounce to the views redrawn with the result (the engine's time
  // included), for the status bar and the 100 ms budget.
  double lastUpdateMs() const { return last_latency_ms_; }
  // Of that, the views' own work: predictionReady's handlers (every view's setPrediction).
  double lastViewsMs() const { return last_views_ms_; }
  PredictionWorker& worker() { return worker_; }

 signals:
  void planReplaced(const nlohmann::json& plan);  // open(): the panel shows the new plan
  void planChanged(const nlohmann::json& plan);   // open() or edit(): settings keep a copy
  void predictionReady(const tilesight::report::Prediction& prediction);
  void predictionFailed(const tilesight::Errors& errors);
  void busyChanged(bool busy);
  void modifiedChanged(bool modified);
  void timingMeasured(double update_ms, double engine_ms);

 private:
  friend class PlanEditCommand;
  void apply(const nlohmann::json& doc);  // the undo stack's way in: no new command
  void submit();
  void onPredicted(const PredictionOutcome& outcome);
  void onFailed(const PredictionOutcome& outcome);
  void setModified(bool modified);

  PredictionWorker worker_;
  QUndoStack undo_;
  QTimer debounce_;
  int debounce_ms_;  // typed edits: at most one run per interval
  QElapsedTimer since_submit_;
  nlohmann::json plan_;
  nlohmann::json submitted_plan_;  // of the latest generation: the only one whose result shows
  nlohmann::json predicted_plan_;
  QString path_;
  bool modified_ = false;
  bool debounce_next_ = false;  // the next apply() comes from a mergeable edit
  std::optional<report::Prediction> prediction_;
  Errors errors_;
  double last_latency_ms_ = 0;
  double last_views_ms_ = 0;
};

}  // namespace tilesight::ui
