#include "ui/edit_bench.h"

#include <QElapsedTimer>
#include <QCoreApplication>
#include <QEvent>
#include <QEventLoop>
#include <QTimer>
#include <QWidget>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <iterator>
#include <optional>

#include "ui/config_panel.h"
#include "ui/envelope_view.h"
#include "ui/heatmap_view.h"
#include "ui/main_window.h"
#include "ui/network_view.h"
#include "ui/plan_editor.h"
#include "ui/plan_session.h"
#include "ui/report_view.h"
#include "ui/timeline_view.h"

namespace tilesight::ui {

namespace {

constexpr int kTimeoutMs = 30000;
constexpr int kPauseMs = 100;  // before each measured edit: longer than the debounce interval

double ms_since(const QElapsedTimer& t) {
  return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

// CPU time of the calling thread: the UI's own work, whatever else the machine runs (on a
// loaded machine the wall times above stretch while the thread waits for a core).
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// The i-th edit of `doc`: a gemm template walks tile sizes, stages and group_m (values that
// change the prediction); any other plan gets a new name.
nlohmann::json edited(const nlohmann::json& doc, int i) {
  nlohmann::json out = doc;
  if (out.value("kernel", std::string()) == "gemm" && out.contains("params") && out["params"].is_object()) {
    static const struct {
      const char* key;
      int value;
    } kCycle[] = {{"block_n", 64}, {"block_n", 128}, {"stages", 4}, {"stages", 3}, {"block_m", 64},
                  {"block_m", 128}, {"group_m", 4},  {"group_m", 8}, {"block_k", 32}, {"block_k", 64}};
    const auto& e = kCycle[static_cast<std::size_t>(i) % std::size(kCycle)];
    out["params"][e.key] = e.value;
  } else {
    out["name"] = "bench edit " + std::to_string(i);
  }
  return out;
}

// Runs `edit` and the event loop until the session shows the prediction of the plan as
// edited (a burst's earlier results are passed over): "ready", "failed" or "timed out".
template <class Edit>
QString edit_and_wait(PlanSession& session, Edit&& edit) {
  QEventLoop loop;
  QString outcome = QStringLiteral("timed out");
  const auto ready = QObject::connect(&session, &PlanSession::predictionReady, &loop, [&] {
    if (session.predictedPlan() != session.plan()) return;
    outcome = QStringLiteral("ready");
    loop.quit();
  });
  const auto failed = QObject::connect(&session, &PlanSession::predictionFailed, &loop, [&] {
    outcome = QStringLiteral("failed");
    loop.quit();
  });
  QTimer::singleShot(kTimeoutMs, &loop, &QEventLoop::quit);
  edit();
  loop.exec();
  QObject::disconnect(ready);
  QObject::disconnect(failed);
  return outcome;
}

// The event loop for `ms`: the user looks at the views.
void idle(int ms) {
  QEventLoop loop;
  QTimer::singleShot(ms, &loop, &QEventLoop::quit);
  loop.exec();
}

// One measured edit, from the call to its frame drawn.
struct EditSample {
  double edit_ms = 0;     // the edit's own work on the UI thread (undo command, panel, DAG)
  double engine_ms = 0;   // in the worker thread
  double views_ms = 0;    // every view's setPrediction
  double frame_ms = 0;    // the frame after: layouts and paint
  double frame_cpu = 0;   // the same, UI thread CPU
  double total_ms = 0;    // the edit to its frame drawn, wall (debounce included)
  double ui_cpu = 0;      // UI thread CPU from the edit to its frame
};

std::optional<EditSample> measure_edit(PlanSession& session, const nlohmann::json& doc, QString* outcome) {
  EditSample s;
  QMetaObject::Connection timing = QObject::connect(&session, &PlanSession::timingMeasured, &session,
                                                    [&](double, double engine_ms) { s.engine_ms = engine_ms; });
  const double cpu0 = thread_cpu_ms();
  QElapsedTimer clock;
  clock.start();
  *outcome = edit_and_wait(session, [&] {
    session.edit(doc, QStringLiteral("bench"));  // as typed
    s.edit_ms = ms_since(clock);
  });
  QObject::disconnect(timing);
  if (*outcome != QLatin1String("ready")) return std::nullopt;
  const double frame_cpu0 = thread_cpu_ms();
  QElapsedTimer frame;
  frame.start();
  // The next frame now, as the event loop would run it: whatever the views posted (queued
  // replots), pending layouts, then the dirty widgets drawn (views the edit did not touch
  // are not redrawn). Each pass may post more (a layout asks for a repaint).
  for (int pass = 0; pass < 3; ++pass) {
    QCoreApplication::sendPostedEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
  }
  s.frame_ms = ms_since(frame);
  s.total_ms = ms_since(clock);
  s.frame_cpu = thread_cpu_ms() - frame_cpu0;
  s.ui_cpu = thread_cpu_ms() - cpu0;
  s.views_ms = session.lastViewsMs();
  return s;
}

}  // namespace

LatencyStats latency_stats(std::vector<double> ms) {
  if (ms.empty()) return {};
  std::sort(ms.begin(), ms.end());
  const auto at = [&](double q) {  // nearest rank
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ms.size())));
    return ms[std::clamp<std::size_t>(rank, 1, ms.size()) - 1];
  };
  const std::size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return {median, at(0.95), ms.back()};
}

std::vector<EditBenchRow> bench_edits(MainWindow& window, int edits, QString* error) {
  PlanSession& session = window.session();
  const nlohmann::json base = session.plan();
  std::vector<EditSample> lone, burst;
  std::vector<report::Prediction> predictions;
  std::vector<std::pair<QString, std::vector<double>>> stages;  // per view, lone edits
  QString outcome;
  const auto fail = [&](int i) {
    if (error) *error = QStringLiteral("edit %1 %2").arg(i).arg(outcome);
    return std::vector<EditBenchRow>{};
  };
  for (int i = 0; i < edits; ++i) {  // lone edits: predicted at once
    idle(kPauseMs);
    auto s = measure_edit(session, edited(base, i), &outcome);
    if (!s) return fail(i);
    lone.push_back(*s);
    predictions.push_back(*session.prediction());
    for (const auto& [view, ms] : window.lastUpdateStages()) {
      auto it = std::find_if(stages.begin(), stages.end(), [&](const auto& st) { return st.first == view; });
      if (it == stages.end()) it = stages.insert(stages.end(), {QString::fromLatin1(view), {}});
      it->second.push_back(ms);
    }
  }
  // Bursts of two edits back to back: the first is predicted at once, the second after the
  // debounce interval, the first one's update running meanwhile.
  for (int i = 0; i < edits; ++i) {
    idle(kPauseMs);
    session.edit(edited(base, 2 * i), QStringLiteral("bench"));  // differs from the last burst's end
    auto s = measure_edit(session, edited(base, 2 * i + 1), &outcome);
    if (!s) return fail(i);
    burst.push_back(*s);
  }
  const auto stats = [](const std::vector<EditSample>& samples, double EditSample::*field) {
    std::vector<double> v;
    for (const auto& s : samples) v.push_back(s.*field);
    return latency_stats(std::move(v));
  };
  std::vector<EditBenchRow> rows = {
      {QStringLiteral("edit itself (undo, panel, DAG)"), stats(lone, &EditSample::edit_ms)},
      {QStringLiteral("engine (worker thread)"), stats(lone, &EditSample::engine_ms)},
      {QStringLiteral("views' setPrediction"), stats(lone, &EditSample::views_ms)}};
  for (const auto& [view, ms] : stages)  // the same, view by view
    rows.push_back({QStringLiteral("  %1").arg(view), latency_stats(ms)});
  rows.insert(rows.end(),
              {{QStringLiteral("frame: layout + paint"), stats(lone, &EditSample::frame_ms)},
               {QStringLiteral("  the same, UI thread CPU"), stats(lone, &EditSample::frame_cpu)},
               {QStringLiteral("lone edit -> painted"), stats(lone, &EditSample::total_ms)},
               {QStringLiteral("  its UI thread CPU"), stats(lone, &EditSample::ui_cpu)},
               {QStringLiteral("end of a burst -> painted (debounce)"), stats(burst, &EditSample::total_ms)}});
  // Each view alone, in CPU time: its setPrediction, its layout and its paint.
  const auto each = [&](const QString& name, QWidget* view, auto&& set) {
    std::vector<double> ms;
    for (const auto& p : predictions) {
      const double t = thread_cpu_ms();
      set(p);
      QCoreApplication::sendPostedEvents();
      QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
      view->repaint();
      ms.push_back(thread_cpu_ms() - t);
    }
    rows.push_back({QStringLiteral("  %1 alone (set, layout, paint; CPU)").arg(name), latency_stats(ms)});
  };
  each(QStringLiteral("report"), window.reportView(), [&](const auto& p) { window.reportView()->setPrediction(p); });
  each(QStringLiteral("timeline"), window.timelineView(), [&](const auto& p) { window.timelineView()->setPrediction(p); });
  each(QStringLiteral("envelope"), window.envelopeView(), [&](const auto& p) { window.envelopeView()->setPrediction(p); });
  each(QStringLiteral("heatmap"), window.heatmapView(), [&](const auto& p) { window.heatmapView()->setPrediction(p); });
  each(QStringLiteral("network"), window.networkView(), [&](const auto& p) { window.networkView()->setPrediction(p); });
  each(QStringLiteral("plan editor"), window.planEditor(), [&](const auto& p) { window.planEditor()->setPrediction(p); });
  return rows;
}

QString format_edit_bench(const std::vector<EditBenchRow>& rows) {
  QString out = QStringLiteral("%1 %2 %3 %4\n").arg(QString(), -40).arg(QStringLiteral("median"), 8)
                    .arg(QStringLiteral("p95"), 8).arg(QStringLiteral("max (ms)"), 9);
  for (const auto& r : rows)
    out += QStringLiteral("%1 %2 %3 %4\n")
               .arg(r.what, -40)
               .arg(r.stats.median, 8, 'f', 1)
               .arg(r.stats.p95, 8, 'f', 1)
               .arg(r.stats.max, 9, 'f', 1);
  return out;
}

}  // namespace tilesight::ui
