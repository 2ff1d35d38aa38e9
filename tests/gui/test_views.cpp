// Each view draws what the prediction holds: one envelope stack per loop and wave kind, the
// heatmap's cells (or its message), the network placeholder and the utilisation table
// (checked by QAbstractItemModelTester). The timeline has test_timeline.cpp.
#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QLabel>
#include <QToolButton>
#include <QtTest>
#include <algorithm>

#include "gui_test_util.h"
#include "ui/envelope_view.h"
#include "ui/heatmap_view.h"
#include "ui/network_view.h"
#include "ui/prediction_worker.h"
#include "ui/report_view.h"
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

  // The envelope dock of a 1280x800 window is 200 px wide: "full waves" and "tail wave" ran
  // into each other and the legend lost "prologue". Narrow, the ticks take their short form
  // ("full\n×15") and each line fits its stack's slot; the legend goes to two columns. Wide,
  // the long ticks come back.
  void envelopeTicksFitANarrowDock() {
    EnvelopeView view;
    view.resize(200, 330);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setPrediction(prediction_);
    QCoreApplication::processEvents();
    const QFontMetrics fm(view.plot()->xAxis->tickLabelFont());
    const double slot = view.plot()->axisRect()->width() / static_cast<double>(view.stackCount());
    QStringList ticks = view.tickLabels();
    QCOMPARE(ticks.size(), view.stackCount());
    for (const QString& tick : ticks)
      for (const QString& line : tick.split('\n'))
        QVERIFY2(fm.horizontalAdvance(line) < slot, qPrintable(QString("%1 in %2 px").arg(line).arg(slot)));
    QVERIFY2(ticks.last().startsWith("tail\n") || ticks.last().startsWith("full\n"), qPrintable(ticks.last()));
    QCOMPARE(view.plot()->legend->wrap(), 2);
    // The totals over the stacks fit their slots: with their unit where every one of them
    // does, else the numbers alone ("48.7 µs50.7 µs" ran together), never a mix.
    QStringList totals = view.totalLabels();
    QCOMPARE(totals.size(), view.stackCount());
    const bool units = totals.first().contains(' ');
    for (const QString& total : totals) {
      QVERIFY2(total.contains(' ') == units, qPrintable(totals.join(" | ")));
      QVERIFY2(units || total.toDouble() > 0, qPrintable(total));
      QVERIFY2(fm.horizontalAdvance(total) < slot,
               qPrintable(QString("%1 in %2 px").arg(total).arg(slot)));
    }
    view.resize(600, 330);
    QCoreApplication::processEvents();
    QVERIFY2(view.totalLabels().front().endsWith(QString::fromUtf8(" µs")),
             qPrintable(view.totalLabels().front()));
    ticks = view.tickLabels();
    QVERIFY2(ticks.last().contains("wave"), qPrintable(ticks.last()));
    QCOMPARE(view.plot()->legend->wrap(), 3);
  }

  // A 1280x800 window stays 1280x800 (the docks' minimum widths add up to 1258 px) and the
  // report keeps kReportMinWidth: it shrank to 123 px, the latency broken over two lines.
  // The timeline's hint gives up its width instead.
  void aSmallWindowKeepsTheReportReadable() {
    auto window = test::quiet_window();
    window->resize(1280, 800);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    test::ResultWaiter wait(window->session());
    window->session().open(test::example("attention_prefill_h200.json"), test::example_path("attention_prefill_h200.json"));
    QVERIFY(wait.waitReady());
    QCoreApplication::processEvents();
    QCOMPARE(window->width(), 1280);
    QVERIFY2(window->minimumSizeHint().width() <= 1280, qPrintable(QString::number(window->minimumSizeHint().width())));
    QVERIFY(window->reportView()->width() >= MainWindow::kReportMinWidth);
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

  // Ulysses' 8 x 256 grid in a 200 px dock: fewer tile ticks, so that their labels keep apart
  // ("0 50100150200250" ran together); wider, the four come back.
  void heatmapTickLabelsKeepApart() {
    HeatmapView view;
    view.resize(200, 330);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto p = prediction_;
    p.hit_rate_maps = {
        {"Q", "l2", "group", "q_block", 8, 256, std::vector<double>(8 * 256, 1.0), {}}};
    view.setPrediction(p);
    const auto apart = [&view] {
      QCPAxis* x = view.plot()->xAxis;
      const QVector<double> ticks = x->tickVector();
      const QFontMetrics fm(x->tickLabelFont());
      double least = 1e9;
      for (qsizetype i = 1; i < ticks.size(); ++i)
        least = std::min(least, x->coordToPixel(ticks[i]) - x->coordToPixel(ticks[i - 1]) -
                                    fm.horizontalAdvance(QString::number(ticks[i])));
      return std::pair{static_cast<int>(ticks.size()), least};
    };
    QTRY_VERIFY2(
        apart().second >= 8,
        qPrintable(QString("%1 ticks, %2 px apart").arg(apart().first).arg(apart().second)));
    QVERIFY(apart().first >= 2);
    QVERIFY(view.plot()->xAxis->tickVector().contains(0.0));
    view.resize(600, 330);
    QTRY_VERIFY2(apart().first >= 5,
                 qPrintable(QString::number(apart().first)));  // 0, 50, ..., 250
  }

  // A one-wide grid (rmsnorm: 16,384 row blocks in one column) is a hit-rate profile along
  // its long dimension, not one column of colour; a flat profile says its value.
  void heatmapDrawsAOneWideGridAsAProfile() {
    HeatmapView view;
    view.resize(380, 330);
    auto p = prediction_;
    p.hit_rate_maps = {{"", "l2", "", "row", 1, 5, {0.1, 0.2, 0.3, 0.4, 0.5}, {}},
                       {"K", "l2", "kv_head", "q_block", 8, 1, std::vector<double>(8, 0.0), {}}};
    view.setPrediction(p);
    QVERIFY(view.profileShown());
    QCOMPARE(view.cellCount(), 5);
    QCOMPARE(view.plot()->graph(0)->dataCount(), 5);
    QCOMPARE(view.plot()->graph(0)->data()->at(2)->value, 30.0);  // 0.3 as percent
    QCOMPARE(view.plot()->xAxis->label(), QString("row tile (5 tiles)"));
    QVERIFY(view.message().isEmpty());
    view.mapSelector()->setCurrentIndex(1);
    QCOMPARE(view.plot()->xAxis->label(), QString::fromUtf8("kv_head tile (8 × 1 grid)"));
    QCOMPARE(view.message(), QString("every tile: 0% hit rate"));
    p.hit_rate_maps = {{"A", "l2", "m", "n", 3, 4, std::vector<double>(12, 0.5), {}}};
    view.setPrediction(p);
    QVERIFY(!view.profileShown());
    QCOMPARE(view.cellCount(), 12);
  }

  void networkViewSaysNoCrossDeviceTraffic() {
    NetworkView view;
    view.setPrediction(prediction_);
    QCOMPARE(view.headline(), QString("no cross-device traffic"));
  }

  // A decode step's all-reduces run once per layer: the lanes draw every run where it
  // happens, a layer apart, not all of them at the step's start.
  void networkLanesSpreadADecodeStepsCollectivesOverItsLayers() {
    auto outcome = predict_plan(test::example("llm_decode_h200x8.json"));
    QVERIFY2(outcome.prediction, join(outcome.errors).c_str());
    const report::Prediction& p = *outcome.prediction;
    const auto& attention = p.network.collectives.at(0);  // all_reduce (attention, tp)
    QCOMPARE(attention.runs, std::int64_t{80});             // one per layer
    // Its first run follows the layer's first kernels; a layer later comes the next.
    double before = 0, layer = 0;
    for (const auto& [op, us] : p.serve.per_layer_us) {
      if (op == "input rmsnorm" || op == "qkv projection" || op == "attention (decode)" || op == "o projection")
        before += us;
      if (op != "final rmsnorm" && op != "lm_head") layer += us;
    }
    QVERIFY2(qAbs(attention.start_us - before) < 1e-6 * before, qPrintable(QString::number(attention.start_us)));
    QVERIFY2(qAbs(attention.period_us - layer) < 1e-6 * layer, qPrintable(QString::number(attention.period_us)));
    NetworkView view;
    view.resize(900, 500);
    view.setPrediction(p);
    std::size_t drawn = 0;
    for (const auto& e : p.network.events)
      if (e.link == p.network.links.front().link) drawn += static_cast<std::size_t>(e.runs * e.repeat);
    const auto bars = view.laneBars(0);
    QCOMPARE(bars.size(), drawn);
    QVERIFY(bars.front().first >= attention.start_us);
    QVERIFY(bars.back().first >= 79 * layer);  // the last layer's
    QVERIFY(bars.back().second <= p.latency_us);
  }

  void utilizationModelPassesTheTester() {
    UtilizationModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setPrediction(prediction_);
    // The H200's pipelines: no TMEM, no L1.5, no network on one GPU.
    QStringList rows;
    for (int r = 0; r < model.rowCount(); ++r) rows << model.index(r, 0).data().toString();
    QCOMPARE(rows, (QStringList{"tensor core", "CUDA core", "SFU", "shared memory", "L2", "DRAM"}));
    int bottleneck = -1;
    for (int r = 0; r < model.rowCount(); ++r)
      if (model.resourceAt(r) == prediction_.bottleneck) bottleneck = r;
    QVERIFY(bottleneck >= 0);
    QVERIFY(model.index(bottleneck, 0).data(Qt::FontRole).value<QFont>().bold());
    QCOMPARE(model.index(bottleneck, UtilizationModel::kUtilization)
                 .data(UtilizationModel::kFractionRole)
                 .toDouble(),
             prediction_.utilization[index(prediction_.bottleneck)]);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(ViewsTest)
#include "test_views.moc"
