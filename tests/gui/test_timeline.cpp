// The timeline draws what the prediction holds: one bar per event on the hardware's pipeline
// lanes, its tooltips, time-only zoom and pan, the folded steady state, the legend in the
// engine's order, and a fused kernel's or a collective's link stages on its Net lane.
#include <qcustomplot.h>

#include <QWheelEvent>
#include <QtTest>
#include <algorithm>

#include "gui_test_util.h"
#include "ui/format.h"
#include "ui/prediction_worker.h"
#include "ui/time_fold.h"
#include "ui/timeline_view.h"

using namespace tilesight;
using namespace tilesight::ui;

class TimelineTest : public QObject {
  Q_OBJECT

  report::Prediction prediction_;

 private slots:
  void initTestCase() {
    auto outcome = predict_plan(test::example());
    QVERIFY2(outcome.prediction, join(outcome.errors).c_str());
    prediction_ = *outcome.prediction;
    QVERIFY(!prediction_.timeline.empty());
  }

  void timelineHasOneBarPerEvent() {
    TimelineView view;
    view.resize(1000, 500);
    view.show();
    view.setPrediction(prediction_);
    QCOMPARE(view.barCount(), static_cast<int>(prediction_.timeline.size()));
    QCOMPARE(view.plot()->itemCount() > view.barCount(), true);  // + labels, phases
    // A second prediction replaces the bars, never adds to them.
    view.setPrediction(prediction_);
    QCOMPARE(view.barCount(), static_cast<int>(prediction_.timeline.size()));
  }

  void timelineTooltipNamesTheBarUnderTheMouse() {
    TimelineView view;
    view.resize(1000, 500);
    view.show();
    view.setPrediction(prediction_);
    view.plot()->replot();
    const auto& e = prediction_.timeline.front();
    const QPointF centre(
        view.plot()->xAxis->coordToPixel(view.fold().to_view((e.start_us + e.end_us) / 2)),
        view.plot()->yAxis->coordToPixel(static_cast<double>(
            std::find(view.lanes().begin(), view.lanes().end(), e.resource) - view.lanes().begin())));
    const auto hit = view.eventAt(centre);
    QVERIFY(hit.has_value());
    const QString tip = view.toolTipFor(*hit);
    QVERIFY2(tip.contains(QString::fromStdString(prediction_.timeline[*hit].action)),
             qPrintable(tip));
    QVERIFY(tip.contains("time:"));
    QVERIFY(tip.contains("bytes:") || tip.contains("FLOPs:"));
    QVERIFY(!view.eventAt(QPointF(-50, -50)).has_value());
  }

  void timelineZoomsAndPansTimeOnly() {
    TimelineView view;
    view.resize(1000, 500);
    view.show();
    view.setPrediction(prediction_);
    const QCPRange lanes = view.plot()->yAxis->range();
    view.zoomTo(0, 0.5);
    QVERIFY(view.plot()->xAxis->range().size() < 1.0);
    QCOMPARE(view.plot()->yAxis->range().lower, lanes.lower);
    QCOMPARE(view.plot()->axisRect()->rangeZoom(), Qt::Horizontal);
    QCOMPARE(view.plot()->axisRect()->rangeDrag(), Qt::Horizontal);
    view.setFoldSteadyState(false);
    QVERIFY(!view.fold().active());
    QCOMPARE(view.barCount(), static_cast<int>(prediction_.timeline.size()));
  }

  void timeFoldMapsBothWays() {
    const auto fold = TimeFold::largest_gap({{0, 1}, {0.5, 2}, {30, 31}, {31, 32}});
    QVERIFY(fold.active());
    QCOMPARE(fold.from, 2.0);
    QCOMPARE(fold.to, 30.0);
    for (double t : {0.0, 1.5, 2.0, 10.0, 30.0, 31.5})
      QVERIFY(qAbs(fold.to_time(fold.to_view(t)) - t) < 1e-9);
    QVERIFY(fold.to_view(32) < 10);
    QVERIFY(!TimeFold::largest_gap({{0, 1}, {1.2, 2}}).active());  // no long gap: linear
  }

  // Ctrl+wheel zooms the time axis like the plain wheel; Ctrl++ steps in and Ctrl+0 fits.
  void timelineCtrlWheelZoomsAndCtrlZeroFits() {
    TimelineView view;
    view.resize(1000, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setPrediction(prediction_);
    view.plot()->replot();
    const QCPRange fitted = view.plot()->xAxis->range();
    const QPointF at = view.plot()->axisRect()->rect().center();
    QWheelEvent wheel(at, view.plot()->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(view.plot(), &wheel);
    QVERIFY2(view.plot()->xAxis->range().size() < fitted.size() * 0.9,
             qPrintable(QString("%1 -> %2").arg(fitted.size()).arg(view.plot()->xAxis->range().size())));
    auto* fit = view.findChild<QAction*>("timeline_fit");
    auto* zoom_in = view.findChild<QAction*>("timeline_zoom_in");
    QVERIFY(fit && zoom_in);
    QCOMPARE(fit->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_0));
    fit->trigger();
    QVERIFY(qAbs(view.plot()->xAxis->range().size() - fitted.size()) < 1e-9 * fitted.size());
    zoom_in->trigger();
    QVERIFY(qAbs(view.plot()->xAxis->range().size() - fitted.size() / 1.5) < 1e-6 * fitted.size());
  }

  // One lane per pipeline the hardware has (hw_profiles/*.json): an MI210 and an H200 have
  // no tensor memory and no L1.5 tier, one GPU no network; a B200 has both; ag_gemm runs on
  // a system of eight H200s, whose links are its Net lane.
  void timelineLanesAreTheHardwaresPipelines() {
    auto lanes = [](const char* example) {
      auto outcome = predict_plan(test::example(example));
      if (!outcome.prediction) return QStringList{QString::fromStdString(join(outcome.errors))};
      TimelineView view;
      view.resize(1000, 500);
      view.setPrediction(*outcome.prediction);
      QStringList names;
      for (Resource r : view.lanes()) names << QString::fromUtf8(resource_lane(r).data());
      // The axis has a row per lane and a tick label per row, nothing for the others.
      const auto ticker = view.plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
      if (!ticker || ticker->ticks().size() != names.size()) return QStringList{"ticks differ"};
      if (view.plot()->yAxis->range().size() != static_cast<double>(names.size())) return QStringList{"range differs"};
      return names;
    };
    const QStringList gpu{"TC", "CUDA", "SFU", "SMEM", "L2", "DRAM"};
    QCOMPARE(lanes("gemm_mi210.json"), gpu);
    QCOMPARE(lanes("gemm_h200.json"), gpu);
    QCOMPARE(lanes("gemm_b200.json"), (QStringList{"TC", "CUDA", "SFU", "TMEM", "SMEM", "L1.5", "L2", "DRAM"}));
    QCOMPARE(lanes("ag_gemm_h200x8.json"), gpu + QStringList{"Net"});
  }

  // ag_gemm overlaps its all-gather with the GEMM: the Net lane shows the ring steps of the
  // busiest link on the SM's clock, those that start while the SM's bars run.
  void fusedKernelsNetLaneShowsItsLinkStages() {
    auto outcome = predict_plan(test::example("ag_gemm_h200x8.json"));
    QVERIFY2(outcome.prediction, join(outcome.errors).c_str());
    const report::Prediction& p = *outcome.prediction;
    TimelineView view;
    view.resize(1000, 500);
    view.show();
    view.setPrediction(p);
    view.plot()->replot();
    double sm_end = 0;
    for (const auto& e : p.timeline) sm_end = std::max(sm_end, e.end_us);
    std::vector<double> starts;  // the engine's stages of that link, by hand
    for (const auto& e : p.network.events)
      if (e.link == p.network.links.front().link)
        report::for_each_stage_run(e, [&](std::int64_t, double start, double) {
          if (start < sm_end) starts.push_back(start);
        });
    std::sort(starts.begin(), starts.end());
    QVERIFY(!starts.empty());
    QCOMPARE(view.linkStages().size(), starts.size());
    QCOMPARE(view.linkStages().front().start_us, starts.front());
    QCOMPARE(view.linkStages().front().link, p.network.links.front().link);
    // Hovering the first stage's bar on the Net lane (the last row) names it and its link.
    const auto& first = view.linkStages().front();
    const double row = static_cast<double>(view.lanes().size() - 1);
    QCOMPARE(view.lanes().back(), Resource::kNet);
    const double mid = std::min((first.start_us + first.end_us) / 2, sm_end * 0.99);
    const QPointF at(view.plot()->xAxis->coordToPixel(view.fold().to_view(mid)), view.plot()->yAxis->coordToPixel(row));
    QVERIFY(view.linkStageAt(at) == std::optional<std::size_t>(0));
    const QString tip = view.toolTipForStage(0);
    QVERIFY2(tip.contains("all_gather") && tip.contains(QString::fromStdString(first.link).toHtmlEscaped()), qPrintable(tip));
    QCOMPARE(view.barCount(), static_cast<int>(p.timeline.size()));  // the SM's bars as before
    // The last stage runs on past the SM's bars: drawn to their end, its label says where it
    // ends (on its part after the fold, the steady state being folded).
    const auto& last = view.linkStages().back();
    QVERIFY(last.end_us > sm_end);
    const QString label = view.stageLabel(view.linkStages().size() - 1);
    QVERIFY2(label.contains(QString::fromUtf8("→ ") + format_time_us(last.end_us)), qPrintable(label));
  }

  // The legend and the colours follow the engine's order of the actions, as the report's
  // "order:" line gives the loop: rmsnorm's walk reduces X before it loads the weights and
  // reads X again, though its loads' bars come first; the block combine after the walk comes last.
  void timelineLegendFollowsTheEnginesOrder() {
    auto outcome = predict_plan(test::example("rmsnorm_h200.json"));
    QVERIFY2(outcome.prediction, join(outcome.errors).c_str());
    const std::vector<std::string> loop{"load_x", "reduce", "load_w", "reload_x", "apply", "store_out"};
    QVERIFY(outcome.prediction->loops.at(0).best_order == loop);
    TimelineView view;
    view.setPrediction(*outcome.prediction);
    auto expected = loop;
    expected.push_back("combine");
    QVERIFY(view.legendActions() == expected);
    QCOMPARE(view.plot()->plottable(1)->name(), QString("reduce"));  // the legend's second swatch
  }

  // A collective has no one-SM timeline: the view says so and draws its link stages over
  // time in the plot's place; a GEMM brings the plot back.
  void timelineOfACollectiveShowsItsLinks() {
    auto outcome = predict_plan(test::example("all_reduce_h200x8.json"));
    QVERIFY2(outcome.prediction, join(outcome.errors).c_str());
    TimelineView view;
    view.resize(1000, 500);
    view.setPrediction(*outcome.prediction);
    QVERIFY(view.plot()->isHidden());
    QVERIFY2(view.emptyText().contains("runs on the network"), qPrintable(view.emptyText()));
    QCOMPARE(view.networkLaneCount(), 16);  // 8 GPUs to the switch and back
    for (QToolButton* b : view.findChildren<QToolButton*>()) QVERIFY(!b->isEnabled());  // Fit, Prologue...
    QVERIFY(view.findChild<QWidget*>("timeline_hint")->isHidden());
    view.setPrediction(prediction_);
    for (QToolButton* b : view.findChildren<QToolButton*>()) QVERIFY(b->isEnabled());
    QVERIFY(!view.plot()->isHidden());
    QVERIFY(view.emptyText().isEmpty());
  }
};

QTEST_MAIN(TimelineTest)
#include "test_timeline.moc"
