// The What-if topology view: the engine's what-if support swept over a link type's bandwidth
// in the background, drawn as latency against the factor, and the plan on each topology
// variant of its system (a rail more, a level less), drawn as bars.
#include <QComboBox>
#include <QDockWidget>
#include <QTabWidget>
#include <QtTest>
#include <qcustomplot.h>

#include "gui_test_util.h"
#include "ui/file_commands.h"
#include "ui/main_window.h"
#include "ui/prediction_worker.h"
#include "ui/rich_text_block.h"
#include "ui/what_if_runner.h"
#include "ui/what_if_view.h"

using namespace tilesight::ui;

class WhatIfTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;
  WhatIfView& view() { return *window_->whatIfView(); }

  bool open(const char* example) {
    test::ResultWaiter waiter(window_->session());
    if (!window_->files().openPath(test::example_path(example), true).isEmpty()) return false;
    return waiter.waitReady();
  }

  // Shows the view (its dock raised) and waits for the sweep of the current plan.
  bool sweepShown() {
    bool done = false;
    auto c = connect(&view().runner(), &WhatIfRunner::swept, this, [&] { done = true; });
    window_->show();
    view().parentWidget()->show();
    qobject_cast<QDockWidget*>(view().parentWidget())->raise();
    const bool ok = QTest::qWaitFor([&] { return done && !view().runner().busy(); }, test::kTimeoutMs);
    disconnect(c);
    return ok;
  }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void init() {
    window_ = test::quiet_window();
  }
  void cleanup() { window_.reset(); }

  void aSingleGpuPlanHasNoLinks() {
    QVERIFY(open("gemm_h200.json"));
    QVERIFY(view().message().contains("one GPU"));
    QVERIFY(!view().linkTypeSelector()->isEnabled());
    QCOMPARE(qobject_cast<QCPBars*>(view().variantPlot()->plottable(0))->dataCount(), 0);
  }

  // b200x32's 1 GiB all-reduce over its 4 nodes is bound by the one NIC per GPU: a second
  // InfiniBand rail halves the NICs' bytes (tests/unit/test_what_if.cpp: 6.54 -> 3.40 ms as
  // the tuner runs it), a second NVLink rail gains nothing, NVLink over all 32 GPUs most.
  void topologyVariantsArePredictedAndDrawn() {
    QVERIFY(open("all_reduce_b200x32.json"));
    QCOMPARE(view().linkTypeSelector()->currentText(), QString("ib_ndr"));
    QVERIFY(sweepShown());
    const auto& v = view().sweep().variants;
    QStringList labels;
    for (const auto& p : v) labels << QString::fromStdString(p.label);
    QCOMPARE(labels, QStringList({"as specified", "+1 ib_ndr rail", "+1 nvlink5 rail", "without nvlink5",
                                  "nvlink5 over all 32 GPUs"}));
    for (const auto& p : v) QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
    const double base = window_->session().prediction()->latency_us;
    QVERIFY(qAbs(v[0].latency_us - base) <= 1e-9 * base);
    QVERIFY2(v[1].latency_us < 0.55 * base, qPrintable(QString("%1 vs %2").arg(v[1].latency_us).arg(base)));
    QVERIFY(qAbs(v[2].latency_us - base) <= 1e-3 * base);  // NVLink is not the bottleneck
    QVERIFY(v[3].latency_us > 5 * base);                   // every byte over the NICs
    QVERIFY(v[4].latency_us < v[1].latency_us);
    // Drawn: a bar per variant, its label on the axis, the axes labelled, the legend shown.
    auto* bars = qobject_cast<QCPBars*>(view().variantPlot()->plottable(0));
    QVERIFY(bars);
    QCOMPARE(bars->dataCount(), static_cast<int>(v.size()));
    auto* ticker = dynamic_cast<QCPAxisTickerText*>(view().variantPlot()->yAxis->ticker().data());
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().value(1), QString("+1 ib_ndr rail"));
    QCOMPARE(view().variantPlot()->xAxis->label(), QString::fromUtf8("latency (µs)"));
    QVERIFY(view().variantPlot()->legend->visible());
    QVERIFY(view().variantPlot()->legend->itemCount() >= 1);
    QVERIFY2(view().summary().contains("fastest topology, nvlink5 over all 32 GPUs"), qPrintable(view().summary()));
    // Both summary lines fit; the slow variant's bar runs off the range (2.5x the plan's).
    view().tabs()->setCurrentIndex(1);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const auto* summary = view().findChild<RichTextBlock*>();
    QVERIFY(summary->height() >= summary->heightForWidth(summary->width()));
    QVERIFY(view().variantPlot()->xAxis->range().upper < v[3].latency_us);
    QVERIFY(view().variantPlot()->xAxis->range().upper > v[0].latency_us);
    if (qEnvironmentVariableIsSet("TILESIGHT_TEST_GRABS")) {
      view().grab().save(qEnvironmentVariable("TILESIGHT_TEST_GRABS") + "/what_if_b200x32_topology.png");
      view().tabs()->setCurrentIndex(0);
      view().grab().save(qEnvironmentVariable("TILESIGHT_TEST_GRABS") + "/what_if_b200x32_bandwidth.png");
    }
  }

  // The variants carry the plan's own what_if along (theirs win where both name a field).
  void variantsKeepThePlansWhatIf() {
    nlohmann::json plan = {{"what_if", {{"bandwidth_scale", {{"nvlink5", 2}}}}}};
    const auto out = with_what_if(plan, {{"add_rail", {{"ib_ndr", 1}}}});
    QCOMPARE(out["what_if"]["bandwidth_scale"]["nvlink5"].get<double>(), 2.0);
    QCOMPARE(out["what_if"]["add_rail"]["ib_ndr"].get<int>(), 1);
  }

  // ×1 is the plan as predicted; a collective alone is α + β·B: twice the bandwidth halves
  // the β·B part only, so T(1)/2 < T(2) < T(1), and half of it more than doubles nothing
  // but β·B: T(0.5) > T(1).
  void aCollectiveScalesWithTheBandwidth() {
    QVERIFY(open("all_reduce_h200x8.json"));
    QCOMPARE(view().linkTypeSelector()->currentText(), QString("nvlink4"));  // the bottleneck's
    QVERIFY(sweepShown());
    const auto& points = view().sweep().points;
    QCOMPARE(points.size(), WhatIfView::factors().size());
    const double base = window_->session().prediction()->latency_us;
    auto at = [&](double f) {
      for (const auto& p : points)
        if (p.factor == f) return p.latency_us;
      return -1.0;
    };
    QVERIFY2(qAbs(at(1) - base) <= 1e-9 * base, qPrintable(QString("%1 vs %2").arg(at(1)).arg(base)));
    QVERIFY(at(2) < at(1) && at(2) > at(1) / 2);
    QVERIFY(at(0.5) > at(1) && at(0.5) < 2 * at(1));
    for (std::size_t i = 1; i < points.size(); ++i) QVERIFY(points[i].latency_us <= points[i - 1].latency_us);
    QCOMPARE(view().plot()->graph(0)->dataCount(), static_cast<int>(points.size()));
    QVERIFY(view().summary().startsWith(QString::fromUtf8("×2 bandwidth:")));
    QVERIFY(view().message().isEmpty());
    if (qEnvironmentVariableIsSet("TILESIGHT_TEST_GRABS"))
      view().grab().save(qEnvironmentVariable("TILESIGHT_TEST_GRABS") + "/what_if_all_reduce.png");
  }

  // A fused kernel hides its communication under the GEMM: scaling the links moves the
  // communication, the latency much less (ag_gemm on h200x8: 100% hidden at ×1).
  void aFusedKernelHidesItsCommunication() {
    QVERIFY(open("ag_gemm_h200x8.json"));
    QVERIFY(sweepShown());
    const auto& points = view().sweep().points;
    QCOMPARE(points.size(), WhatIfView::factors().size());
    const auto& slow = points.front();  // ×0.5
    const auto& fast = points.back();   // ×4
    QVERIFY(slow.comm_us > fast.comm_us * 4);  // β·B scales 8x, α does not
    QVERIFY(slow.latency_us - fast.latency_us < slow.comm_us - fast.comm_us);
    // Nothing cut in the narrow dock: the summary as tall as its wrapped text, the legend
    // (a row above the plot) no wider than the plot, the latency axis labelled.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    view().plot()->replot();
    const auto* summary = view().findChild<RichTextBlock*>();
    QVERIFY(summary);
    QVERIFY2(summary->plainText().startsWith(QString::fromUtf8("×2 bandwidth:")), qPrintable(summary->plainText()));
    QVERIFY(summary->height() >= summary->heightForWidth(summary->width()));
    QVERIFY(view().plot()->legend->outerRect().right() <= view().plot()->width());
    QCOMPARE(view().plot()->yAxis->label(), QString::fromUtf8("latency (µs)"));
    if (qEnvironmentVariableIsSet("TILESIGHT_TEST_GRABS"))  // for looking at the view by eye
      view().grab().save(qEnvironmentVariable("TILESIGHT_TEST_GRABS") + "/what_if_ag_gemm.png");
  }

  void theSweepKeepsOtherWhatIfs() {
    nlohmann::json plan = {{"what_if", {{"bandwidth_scale", {{"pcie5", 2}}}}}};
    const auto out = with_bandwidth_scale(plan, "nvlink4", 0.5);
    QCOMPARE(out["what_if"]["bandwidth_scale"]["pcie5"].get<double>(), 2.0);
    QCOMPARE(out["what_if"]["bandwidth_scale"]["nvlink4"].get<double>(), 0.5);
  }

  void anUnknownLinkTypeIsReportedNotFatal() {
    const auto sweep = sweep_bandwidth(test::example("all_reduce_h200x8.json"), "warp_drive", {1, 2});
    QVERIFY(sweep.points.empty());
    QVERIFY2(sweep.error.contains("what_if.bandwidth_scale"), qPrintable(sweep.error));
  }
};

QTEST_MAIN(WhatIfTest)
#include "test_what_if.moc"
