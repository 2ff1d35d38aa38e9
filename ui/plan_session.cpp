#include "ui/plan_session.h"

#include <chrono>

namespace tilesight::ui {

namespace {
// Typed edits (keystrokes, a held arrow key) are predicted at most once per this interval: an
// edit after a pause at once, the edits that follow within it together when it has passed.
// Short enough that the end of a burst reaches the screen within 100 ms (the interval +
// engine ~1 ms + views and frame ~20 ms; `tilesight --bench-edit`, README); long enough that
// a held key leaves the UI thread time between updates.
constexpr int kDebounceMs = 30;
constexpr int kPlanEditId = 0x7153;  // QUndoCommand::id(): edits that may merge
constexpr auto kMergeWindow = std::chrono::milliseconds(1500);
}  // namespace

// One edit: the documents before and after.
class PlanEditCommand : public QUndoCommand {
 public:
  PlanEditCommand(PlanSession& session, nlohmann::json before, nlohmann::json after,
                  const QString& label, bool mergeable)
      : QUndoCommand(label.isEmpty() ? QObject::tr("Edit plan") : label),
        session_(session),
        before_(std::move(before)),
        after_(std::move(after)),
        mergeable_(mergeable && !label.isEmpty()),
        at_(std::chrono::steady_clock::now()) {}

  void redo() override { session_.apply(after_); }
  void undo() override { session_.apply(before_); }
  int id() const override { return mergeable_ ? kPlanEditId : -1; }
  bool mergeWith(const QUndoCommand* other) override {
    if (other->id() != id() || other->text() != text()) return false;
    const auto* next = static_cast<const PlanEditCommand*>(other);
    if (next->at_ - at_ > kMergeWindow) return false;  // a later, separate edit of the field
    after_ = next->after_;
    at_ = next->at_;
    return true;
  }

 private:
  PlanSession& session_;
  nlohmann::json before_, after_;
  bool mergeable_;
  std::chrono::steady_clock::time_point at_;
};

PlanSession::PlanSession(QObject* parent) : QObject(parent), worker_(this), debounce_ms_(kDebounceMs) {
  debounce_.setSingleShot(true);
  debounce_.setTimerType(Qt::PreciseTimer);
  connect(&debounce_, &QTimer::timeout, this, &PlanSession::submit);
  connect(&worker_, &PredictionWorker::predicted, this,
          [this](quint64, const PredictionOutcome& o) { onPredicted(o); });
  connect(&worker_, &PredictionWorker::failed, this,
          [this](quint64, const PredictionOutcome& o) { onFailed(o); });
  connect(&worker_, &PredictionWorker::busyChanged, this,
          [this](bool) { emit busyChanged(busy()); });
  connect(&undo_, &QUndoStack::cleanChanged, this,
          [this](bool clean) { setModified(!clean); });
}

void PlanSession::open(nlohmann::json doc, const QString& path, bool modified) {
  plan_ = std::move(doc);
  path_ = path;
  debounce_.stop();
  {
    const QSignalBlocker block(undo_);  // a new document: its history starts here
    undo_.clear();
    if (modified) undo_.resetClean();   // restored unsaved work: no state of it is saved
  }
  setModified(modified);
  emit planReplaced(plan_);
  emit planChanged(plan_);
  submit();
}

void PlanSession::edit(nlohmann::json doc, const QString& label, bool merge) {
  if (doc == plan_) return;
  debounce_next_ = merge;
  undo_.push(new PlanEditCommand(*this, plan_, std::move(doc), label, merge));  // redo() applies it
  debounce_next_ = false;
}

// The modified flag follows the stack's cleanChanged, which QUndoStack emits after this.
// A committed edit is predicted at once, and so is a typed one when the last prediction was
// started at least the debounce interval ago. A typed edit sooner than that waits for the
// interval to pass and is predicted then, with the edits that came while it waited (a
// throttle: a held key updates the views every interval, and its last value within one).
void PlanSession::apply(const nlohmann::json& doc) {
  plan_ = doc;
  emit planChanged(plan_);
  if (!debounce_next_) {  // committed: nothing to wait for
    debounce_.stop();
    return submit();
  }
  if (debounce_.isActive()) return;  // the burst's run is due: it takes the plan as it is then
  const qint64 since = since_submit_.isValid() ? since_submit_.elapsed() : debounce_ms_;
  if (since >= debounce_ms_) return submit();
  debounce_.start(static_cast<int>(debounce_ms_ - since));
  emit busyChanged(true);
}

void PlanSession::markSaved(const QString& path) {
  path_ = path;
  undo_.setClean();
  setModified(false);
}

void PlanSession::submit() {
  since_submit_.start();
  submitted_plan_ = plan_;
  worker_.submit(plan_);
  emit busyChanged(true);
}

// A result that arrives while a newer edit waits for its run is stale: dropped, as the worker
// drops one whose generation is not the latest, so the views update once, for the newer edit
// (the end of a burst then costs the interval and one update, not two updates).
void PlanSession::onPredicted(const PredictionOutcome& outcome) {
  if (debounce_.isActive()) return;
  prediction_ = outcome.prediction;
  predicted_plan_ = submitted_plan_;
  errors_.clear();
  QElapsedTimer views;
  views.start();
  emit predictionReady(*prediction_);  // the views redraw before this returns
  last_views_ms_ = static_cast<double>(views.nsecsElapsed()) / 1e6;
  last_latency_ms_ = static_cast<double>(since_submit_.nsecsElapsed()) / 1e6;
  emit timingMeasured(last_latency_ms_, outcome.engine_ms);
}

void PlanSession::onFailed(const PredictionOutcome& outcome) {
  if (debounce_.isActive()) return;
  errors_ = outcome.errors;
  emit predictionFailed(errors_);
}

void PlanSession::setModified(bool modified) {
  if (modified_ == modified) return;
  modified_ = modified;
  emit modifiedChanged(modified_);
}

}  // namespace tilesight::ui
