// The What-if topology view: the engine's what-if support swept over a link type's bandwidth
// in the background, drawn as latency against the factor.
#include <QComboBox>
#include <QDockWidget>
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
