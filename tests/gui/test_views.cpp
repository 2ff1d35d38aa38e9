// Each view draws what the prediction holds: one timeline bar per event, one envelope stack
// per loop and wave kind, the heatmap's cells (or its message), the network placeholder and
// the utilisation table (checked by QAbstractItemModelTester).
#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QLabel>
#include <QToolButton>
#include <QWheelEvent>
#include <QtTest>

#include "gui_test_util.h"
#include "ui/envelope_view.h"
#include "ui/heatmap_view.h"
#include "ui/network_view.h"
#include "ui/prediction_worker.h"
#include "ui/time_fold.h"
#include "ui/timeline_view.h"
#include "ui/utilization_model.h"

using namespace tilesight;
using namespace tilesight::ui;

class ViewsTest : public QObject {
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
        view.plot()->yAxis->coordToPixel(static_cast<double>(index(e.resource))));
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
    QVERIFY(view.findChild<QLabel*>("timeline_hint")->isHidden());
    view.setPrediction(prediction_);
    for (QToolButton* b : view.findChildren<QToolButton*>()) QVERIFY(b->isEnabled());
    QVERIFY(!view.plot()->isHidden());
    QVERIFY(view.emptyText().isEmpty());
  }

  void envelopeHasAStackPerLoopAndWaveKind() {
    EnvelopeView view;
    view.setPrediction(prediction_);
    QCOMPARE(view.stackCount(),
             static_cast<int>(prediction_.loops.size() + prediction_.wave_reports.size()));
    QCOMPARE(view.plot()->plottableCount(), 3);  // prologue, steady, epilogue stacked
    auto* steady = qobject_cast<QCPBars*>(view.plot()->plottable(1));
    QVERIFY(steady && steady->barBelow() != nullptr);
    QCOMPARE(steady->data()->size(), view.stackCount());
    QVERIFY(view.message().isEmpty());
    QVERIFY(!view.plot()->isHidden());
  }

  // A collective has no loop and no wave: a sentence saying so, not empty axes.
  void envelopeSaysWhenThePlanHasNoPipelinedLoop() {
    auto outcome = predict_plan(test::example("all_reduce_h200x8.json"));
    QVERIFY2(outcome.prediction, join(outcome.errors).c_str());
    EnvelopeView view;
    view.setPrediction(*outcome.prediction);
    QCOMPARE(view.stackCount(), 0);
    QVERIFY(view.plot()->isHidden());
    QVERIFY2(view.message().startsWith("No pipelined loop in this plan."), qPrintable(view.message()));
    QVERIFY2(view.message().contains("collective"), qPrintable(view.message()));
    view.setPrediction(prediction_);  // a GEMM again: the bars come back
    QVERIFY(view.message().isEmpty());
    QVERIFY(!view.plot()->isHidden());
  }

  void heatmapSaysWhenThereIsNoMap() {
    HeatmapView view;
    auto p = prediction_;
    p.hit_rate_maps.clear();
    p.cache_model = "first-touch (infinite L2)";
    view.setPrediction(p);
    QCOMPARE(view.cellCount(), 0);
    QCOMPARE(view.message(), QString("the first-touch cache model gives no per-tile map"));
  }

  void heatmapDrawsOneCellPerTile() {
    HeatmapView view;
    auto p = prediction_;
    p.hit_rate_maps = {{"A", "l2", "m", "n", 3, 4, std::vector<double>(12, 0.5), {}},
                       {"B", "l2", "m", "n", 2, 2, {0, 0.25, 0.5, 1}, {1, 2, 3, 4}}};
    view.setPrediction(p);
    QCOMPARE(view.mapSelector()->count(), 2);
    QCOMPARE(view.cellCount(), 12);
    QVERIFY(view.message().isEmpty());
    view.mapSelector()->setCurrentIndex(1);
    QCOMPARE(view.cellCount(), 4);
    auto* map = qobject_cast<QCPColorMap*>(view.plot()->plottable(0));
    QVERIFY(map);
    QCOMPARE(map->data()->cell(1, 1), 100.0);  // row 1, col 1: 1.0 as percent
  }

  // Tiles are counted: a one-wide grid (decode's single query block) ticks "0", never
  // -0.4 ... 0.4, and no axis ticks between tiles.
  void heatmapTicksWholeTilesOnly() {
    HeatmapView view;
    view.resize(380, 330);
    auto p = prediction_;
    p.hit_rate_maps = {{"K", "l2", "kv_head", "q_block", 8, 1, std::vector<double>(8, 0.0), {}}};
    view.setPrediction(p);
    view.plot()->replot();
    for (QCPAxis* axis : {view.plot()->xAxis, view.plot()->yAxis}) {
      const QVector<double> ticks = axis->tickVector();
      QVERIFY(!ticks.isEmpty());
      for (double t : ticks) QVERIFY2(t == std::round(t), qPrintable(QString::number(t)));
    }
    QVERIFY(view.plot()->xAxis->tickVector().contains(0.0));
  }

  void networkViewSaysNoCrossDeviceTraffic() {
    NetworkView view;
    view.setPrediction(prediction_);
    QCOMPARE(view.headline(), QString("no cross-device traffic"));
  }

  void utilizationModelPassesTheTester() {
    UtilizationModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setPrediction(prediction_);
    QCOMPARE(model.rowCount(), static_cast<int>(kResourceCount));
    const int bottleneck = static_cast<int>(index(prediction_.bottleneck));
    QVERIFY(model.index(bottleneck, 0).data(Qt::FontRole).value<QFont>().bold());
    QCOMPARE(model.index(bottleneck, UtilizationModel::kUtilization)
                 .data(UtilizationModel::kFractionRole)
                 .toDouble(),
             prediction_.utilization[static_cast<std::size_t>(bottleneck)]);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(ViewsTest)
#include "test_views.moc"
