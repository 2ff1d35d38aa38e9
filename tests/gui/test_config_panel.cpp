// Editing the plan in the config panel re-predicts (debounced, off the UI thread); a bad
// value shows its error with the JSON path and keeps the last good prediction.
#include <QComboBox>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTreeView>
#include <QMap>
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

  // Typed edits run at most once per debounce interval: after a pause the first edit of a
  // burst runs at once, the rest together when the interval has passed (a long interval
  // here, so that the burst surely falls within it). The first one's result comes while the
  // rest wait: stale, never shown.
  void aBurstRunsItsFirstEditAtOnceAndTheRestTogether() {
    session().setDebounceMs(400);
    QTest::qWait(450);  // a pause since the last run
    test::ResultWaiter waiter(session());
    QStringList shown;
    QObject scope;  // the connection ends with this test
    connect(&session(), &PlanSession::predictionReady, &scope,
            [&](const tilesight::report::Prediction& p) { shown << QString::fromStdString(p.name); });
    QSignalSpy runs(&session().worker(), &PredictionWorker::predicted);
    panel().spinBox("block_n")->setValue(64);
    QVERIFY(!session().debouncing());  // after a pause: predicted at once
    for (int v : {96, 160, 192}) {
      panel().spinBox("block_n")->setValue(v);
      QVERIFY(session().debouncing());  // within the interval: waits
    }
    QVERIFY(waiter.waitReady());
    QTest::qWait(450);
    QCOMPARE(shown.size(), 1);  // 64 ran but was stale when it came; 96 and 160 never ran
    QVERIFY2(shown[0].contains("128x192x64"), qPrintable(shown[0]));
    QCOMPARE(runs.count(), 2);  // 64 at once, 192 when the interval had passed
    QCOMPARE(session().plan()["params"]["block_n"].get<int>(), 192);
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

  // Cross-field checks show under the form as the value is typed, before the engine runs;
  // the value stays in the plan and the named fields are tinted.
  void stagesTimesTileOverTheSharedMemoryIsShownInline() {
    QVERIFY(panel().problemText().isEmpty());
    panel().spinBox("stages")->setValue(8);  // 8 x (128x64 + 64x128) x 2 B = 256 KiB > 227 KiB
    QCOMPARE(session().plan()["params"]["stages"].get<int>(), 8);  // the edit is kept
    const QString text = panel().problemText();
    QVERIFY2(text.contains("stages") && text.contains("shared memory") && text.contains("227 KiB"),
             qPrintable(text));
    for (const char* key : {"block_m", "block_n", "block_k", "stages", "dtype"})
      QCOMPARE(panel().fieldProblem(key), QString("error"));
    QCOMPARE(panel().fieldProblem("M"), QString());
    QVERIFY(panel().fieldEditor("stages")->toolTip().startsWith("needs"));
    panel().spinBox("stages")->setValue(3);
    QVERIFY(panel().problemText().isEmpty());
    QCOMPARE(panel().fieldProblem("stages"), QString());
  }

  void aTileLargerThanTheProblemIsAWarning() {
    panel().spinBox("M")->setValue(100);
    const QString text = panel().problemText();
    QCOMPARE(text, QString("block_m: block_m 128 is larger than M 100: most of each tile is padding"));
    QCOMPARE(panel().fieldProblem("block_m"), QString("warning"));
    test::ResultWaiter waiter(session());
    QVERIFY(waiter.waitReady());  // a warning: the engine still predicts it
  }

  void headsNotAMultipleOfKvHeadsIsShownOnTheField() {
    test::ResultWaiter waiter(session());
    QVERIFY(window_->files().openPath(test::example_path("attention_prefill_h200.json"), true).isEmpty());
    QVERIFY(waiter.waitReady());
    auto* heads = qobject_cast<QSpinBox*>(panel().fieldEditor("heads"));
    auto* kv_heads = qobject_cast<QSpinBox*>(panel().fieldEditor("kv_heads"));
    QVERIFY(heads && kv_heads);
    kv_heads->setValue(8);
    heads->setValue(12);
    QCOMPARE(session().plan()["params"]["heads"].get<int>(), 12);
    QVERIFY2(panel().problemText().contains("heads: 12 heads are not a multiple of kv_heads 8"),
             qPrintable(panel().problemText()));
    QCOMPARE(panel().fieldProblem("heads"), QString("error"));
    heads->setValue(16);
    QVERIFY(panel().problemText().isEmpty());
  }

  // The hardware box offers single GPUs for a GEMM and systems of GPUs for a collective;
  // the others stay listed, greyed, with the reason in their tooltip.
  void hardwareOffersOnlyProfilesThatFitThePlan() {
    auto* box = panel().hardwareSelector();
    auto* model = qobject_cast<QStandardItemModel*>(box->model());
    QVERIFY(model);
    auto enabled = [&](const char* name) {
      const int i = box->findText(QString::fromLatin1(name));
      return i >= 0 && model->item(i)->isEnabled();
    };
    QVERIFY(enabled("h200") && enabled("a100") && enabled("mi210"));
    QVERIFY(!enabled("h200x8") && !enabled("b200x32"));
    test::ResultWaiter waiter(session());
    QVERIFY(window_->files().openPath(test::example_path("all_reduce_h200x8.json"), true).isEmpty());
    QVERIFY(waiter.waitReady());
    QVERIFY(enabled("h200x8") && enabled("b200x32") && enabled("h200x2"));
    QVERIFY(!enabled("h200") && !enabled("a100"));
    QVERIFY(model->item(box->findText("h200"))->toolTip().contains("needs a system of GPUs"));
    // A decode step runs on a system or, without parallelism, on one GPU: both are offered.
    QVERIFY(window_->files().openPath(test::example_path("llm_decode_h200x8.json"), true).isEmpty());
    QVERIFY(waiter.waitReady());
    QVERIFY(enabled("h200x8") && enabled("h200") && enabled("a100"));
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
    auto* tree = panel().programTree();
    QVERIFY(tree && tree->isVisibleTo(&panel()));
    QVERIFY(tree->model()->rowCount() >= 5);  // name, hardware, tensors, grid, accesses, ...
    // A branch says what it holds without being opened: names, or an object's fields.
    QMap<QString, QString> values;
    for (int r = 0; r < tree->model()->rowCount(); ++r)
      values[tree->model()->index(r, 0).data().toString()] = tree->model()->index(r, 1).data().toString();
    QCOMPARE(values["actions"], QString("4: load_a, load_b, mma, store_c"));
    QCOMPARE(values["tensors"], QString("3: A, B, C"));
    QVERIFY2(values["grid"].startsWith("dims [m, n], launch_order {…}"), qPrintable(values["grid"]));
    const QModelIndex actions = tree->model()->match(tree->model()->index(0, 0), Qt::DisplayRole, "actions").value(0);
    const QString mma = tree->model()->index(2, 1, actions).data().toString();
    QVERIFY2(mma.contains("deps [load_a, load_b]") && mma.contains("op mma_tc"), qPrintable(mma));
    QVERIFY(!panel().spinBox("block_m")->isVisibleTo(&panel()));
    QCOMPARE(QString::fromStdString(session().prediction()->kernel), QString("custom"));
  }
};

QTEST_MAIN(ConfigPanelTest)
#include "test_config_panel.moc"
