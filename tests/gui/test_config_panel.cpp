// Editing the plan in the config panel re-predicts (debounced, off the UI thread); a bad
// value shows its error with the JSON path and keeps the last good prediction.
#include <QComboBox>
#include <QSpinBox>
#include <QTreeWidget>
#include <QtTest>

#include "gui_test_util.h"
#include "ui/config_panel.h"
#include "ui/file_commands.h"
#include "ui/main_window.h"
#include "ui/report_view.h"

using namespace tilesight::ui;

class ConfigPanelTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;

  ConfigPanel& panel() { return *window_->configPanel(); }
  PlanSession& session() { return window_->session(); }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void init() {
    window_ = std::make_unique<MainWindow>(MainWindowOptions{.persist = false});
    test::ResultWaiter waiter(session());
    session().open(test::example(), test::example_path());
    QVERIFY(waiter.waitReady());
  }

  void cleanup() { window_.reset(); }

  void showsTheTemplateParameters() {
    QVERIFY(panel().editable());
    QCOMPARE(panel().spinBox("block_m")->value(), 128);
    QCOMPARE(panel().spinBox("group_m")->value(), 8);
    QCOMPARE(panel().spinBox("block_m")->maximum(), 1024);
    QCOMPARE(panel().comboBox("dtype")->currentText(), QString("bf16"));
    QCOMPARE(panel().hardwareSelector()->currentText(), QString("h200"));
    QVERIFY(panel().hardwareSelector()->count() >= 6);  // hw_profiles/
  }

  void editingBlockMGivesANewPrediction() {
    const double before = session().prediction()->latency_us;
    const QString shown = window_->reportView()->latencyText();
    test::ResultWaiter waiter(session());
    panel().spinBox("block_m")->setValue(64);
    QVERIFY(session().busy());  // debounced, not yet run
    QVERIFY(waiter.waitReady());
    QCOMPARE(session().plan()["params"]["block_m"].get<int>(), 64);
    QVERIFY(session().prediction()->latency_us != before);
    QVERIFY(window_->reportView()->latencyText() != shown);
    QVERIFY(session().modified());
    QVERIFY(window_->isWindowModified());
    qInfo("end of debounce to views redrawn: %.1f ms", session().lastUpdateMs());
    QVERIFY(session().lastUpdateMs() < 1000);
  }

  void aBurstOfEditsRunsOnce() {
    test::ResultWaiter waiter(session());
    for (int v : {64, 96, 160, 192}) panel().spinBox("block_n")->setValue(v);
    QVERIFY(waiter.waitReady());
    QTest::qWait(300);
    QCOMPARE(waiter.ready.count(), 1);
    QVERIFY(QString::fromStdString(session().prediction()->name).contains("128x192x64"));
  }

  void aBadValueShowsAnErrorAndKeepsThePrediction() {
    const double before = session().prediction()->latency_us;
    const QString shown = window_->reportView()->latencyText();
    test::ResultWaiter waiter(session());
    panel().spinBox("warps")->setValue(64);  // 2048 threads: more than a block may have
    QVERIFY(waiter.waitFailed());
    QVERIFY(!session().errors().empty());
    const QString error = window_->reportView()->errorText();
    QVERIFY2(error.contains("warps"), qPrintable(error));
    QCOMPARE(session().prediction()->latency_us, before);
    QCOMPARE(window_->reportView()->latencyText(), shown);
    // Fixing the value clears the error.
    test::ResultWaiter again(session());
    panel().spinBox("warps")->setValue(8);
    QVERIFY(again.waitReady());
    QVERIFY(window_->reportView()->errorText().isEmpty());
  }

  void changingHardwareRepredicts() {
    const double before = session().prediction()->latency_us;
    test::ResultWaiter waiter(session());
    panel().hardwareSelector()->setCurrentText("a100");
    QVERIFY(waiter.waitReady());
    QCOMPARE(QString::fromStdString(session().plan()["hardware"].get<std::string>()),
             QString("a100"));
    QVERIFY(session().prediction()->latency_us != before);
  }

  void aTileProgramIsShownReadOnlyAndPredicted() {
    test::ResultWaiter waiter(session());
    QVERIFY(window_->files().openPath(test::example_path("custom_gemm_h200.json"), true).isEmpty());
    QVERIFY(waiter.waitReady());
    QVERIFY(!panel().editable());
    auto* tree = panel().findChild<QTreeWidget*>();
    QVERIFY(tree && tree->isVisibleTo(&panel()));
    QVERIFY(tree->topLevelItemCount() >= 5);  // name, hardware, tensors, grid, accesses, ...
    QVERIFY(!panel().spinBox("block_m")->isVisibleTo(&panel()));
    QCOMPARE(QString::fromStdString(session().prediction()->kernel), QString("custom"));
  }
};

QTEST_MAIN(ConfigPanelTest)
#include "test_config_panel.moc"
