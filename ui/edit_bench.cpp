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

// Runs `edit` and the event loop until the session's next result: "ready", "failed" or
// "timed out".
template <class Edit>
QString edit_and_wait(PlanSession& session, Edit&& edit) {
  QEventLoop loop;
  QString outcome = QStringLiteral("timed out");
  const auto ready = QObject::connect(&session, &PlanSession::predictionReady, &loop, [&] {
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
  std::vector<double> engine, handlers, views, painted, no_debounce, with_debounce, edit_work, ui_cpu;
  std::vector<report::Prediction> predictions;
  double engine_ms = 0, views_ms = 0;
  QObject::connect(&session, &PlanSession::timingMeasured, &window, [&](double update_ms, double e_ms) {
    views_ms = update_ms;
    engine_ms = e_ms;
  });
  for (int i = 0; i < edits; ++i) {
    const double cpu0 = thread_cpu_ms();
    QElapsedTimer clock;
    clock.start();
    double edit_ms = 0;  // the edit's own work on the UI thread (undo command, panel, plan editor)
    const QString outcome = edit_and_wait(session, [&] {
      session.edit(edited(base, i), QStringLiteral("bench"));  // as typed: debounced
      edit_ms = ms_since(clock);
    });
    const double until_views = ms_since(clock);
    if (outcome != QLatin1String("ready")) {
      if (error) *error = QStringLiteral("edit %1 %2").arg(i).arg(outcome);
      return {};
    }
    QElapsedTimer paint;
    paint.start();
    // The next frame now: pending layouts, then the dirty views drawn (what the event loop
    // would do next; views the edit did not touch are not redrawn).
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
    const double paint_ms = ms_since(paint);
    ui_cpu.push_back(thread_cpu_ms() - cpu0);
    engine.push_back(engine_ms);
    handlers.push_back(session.lastViewsMs());
    edit_work.push_back(edit_ms);
    views.push_back(views_ms);
    painted.push_back(views_ms + paint_ms);
    no_debounce.push_back(edit_ms + views_ms + paint_ms);
    with_debounce.push_back(until_views + paint_ms);
    predictions.push_back(*session.prediction());
  }
  std::vector<EditBenchRow> rows = {
      {QStringLiteral("edit itself (undo, panel, DAG)"), latency_stats(edit_work)},
      {QStringLiteral("engine (worker thread)"), latency_stats(engine)},
      {QStringLiteral("views' setPrediction (UI)"), latency_stats(handlers)},
      {QStringLiteral("debounce end -> views set"), latency_stats(views)},
      {QStringLiteral("debounce end -> painted"), latency_stats(painted)},
      {QStringLiteral("edit -> painted, no debounce"), latency_stats(no_debounce)},
      {QStringLiteral("edit -> painted, with debounce"), latency_stats(with_debounce)},
      {QStringLiteral("UI thread CPU per edit"), latency_stats(ui_cpu)}};
  // Each view alone, in CPU time: where the UI thread's time goes.
  const auto each = [&](const QString& name, QWidget* view, auto&& set) {
    std::vector<double> ms;
    for (const auto& p : predictions) {
      const double t = thread_cpu_ms();
      set(p);
      view->repaint();
      ms.push_back(thread_cpu_ms() - t);
    }
    rows.push_back({QStringLiteral("  %1 (set + paint, CPU)").arg(name), latency_stats(ms)});
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
  QString out = QStringLiteral("%1 %2 %3 %4\n").arg(QString(), -34).arg(QStringLiteral("median"), 8)
                    .arg(QStringLiteral("p95"), 8).arg(QStringLiteral("max (ms)"), 9);
  for (const auto& r : rows)
    out += QStringLiteral("%1 %2 %3 %4\n")
               .arg(r.what, -34)
               .arg(r.stats.median, 8, 'f', 1)
               .arg(r.stats.p95, 8, 'f', 1)
               .arg(r.stats.max, 9, 'f', 1);
  return out;
}

}  // namespace tilesight::ui
