// File > Open validation corpus: a measured corpus predicted off the UI thread, plotted
// against its measurements with the CLI's figures; a clicked point opens its configuration.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <memory>
#include <vector>
#include <QtTest>
#include <qcustomplot.h>

#include <QTableWidget>

#include "gui_test_util.h"
#include "ui/main_window.h"
#include "ui/validation_runner.h"
#include "ui/validation_view.h"

using namespace tilesight::ui;

namespace {

// Six Triton-style GEMM rows on two problems, measured times made up (the figures are checked
// against the engine's own report of the same rows).
const char* kCorpus =
    "# a test corpus\n"
    "M,N,K,block_m,block_n,block_k,group_m,stages,warps,dtype,ms\n"
    "4096,4096,4096,128,128,64,8,3,8,bf16,0.210\n"
    "4096,4096,4096,128,256,64,8,3,8,bf16,0.190\n"
    "4096,4096,4096,64,128,32,1,4,4,bf16,0.300\n"
    "4096,4096,4096,128,64,64,8,4,4,bf16,0.260\n"
    "4096,4096,4096,256,128,64,8,3,8,bf16,0.200\n"
    "1024,1024,1024,64,64,32,1,2,4,bf16,0.027\n";

}  // namespace

class ValidationTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::unique_ptr<MainWindow> window_;

  QString write(const QString& name, const QByteArray& text) {
    QDir(dir_.path()).mkpath(QStringLiteral("h200"));
    const QString path = dir_.path() + QStringLiteral("/h200/") + name;
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(text);
    return path;
  }

  // Opens the corpus in the window's validation view and waits for it to be shown.
  ValidationView* shown(const QString& path) {
    ValidationView* view = window_->openValidationCorpus(path);
    QSignalSpy spy(view, &ValidationView::resultShown);
    if (!QTest::qWaitFor([&] { return spy.count() > 0 && !view->busy(); }, test::kTimeoutMs)) return nullptr;
    return view;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
  }
  void init() {
    window_ = test::quiet_window();
  }
  void cleanup() { window_.reset(); }

  void theFileSuggestsItsSetup() {
    const ValidationSetup sdpa = guess_setup(QStringLiteral("/x/tests/validation/h200/attention_sdpa.csv"), "b200");
    QCOMPARE(sdpa.hardware, std::string("h200"));  // the folder names a profile
    QCOMPARE(sdpa.kernel, std::string("attention"));
    QCOMPARE(sdpa.launch_overhead_us, 4.54);  // torch's launch path
    const ValidationSetup other = guess_setup(QStringLiteral("/x/mine/runs.csv"), "b200");
    QCOMPARE(other.hardware, std::string("b200"));  // no such profile: the plan's
    QCOMPARE(other.kernel, std::string("gemm"));
    QVERIFY(other.launch_overhead_us < 0);  // the profile's
    // A decode corpus of two GPUs: its system, whose GPU the runner reads.
    const ValidationSetup tp2 = guess_setup(QStringLiteral("/x/tests/validation/h200x2/llm_decode_tp2.csv"), "h200");
    QCOMPARE(tp2.kernel, std::string("llm_decode"));
    QCOMPARE(tp2.hardware, std::string("h200x2"));
  }

  void aDecodeCorpusOfTwoGpusIsPredicted() {
    // The corpus beside the examples' data folder (resources/examples -> tests/validation).
    const QString path = QDir::cleanPath(QFileInfo(test::example_path()).absolutePath() +
                                         QStringLiteral("/../../tests/validation/h200x2/llm_decode_tp2.csv"));
    ValidationSetup setup = guess_setup(path, "h200");
    const ValidationResult r = run_validation(setup);
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QCOMPARE(r.report.scored.size(), std::size_t(12));
    QVERIFY(r.report.mape < 0.068);  // the CTest guard's bound
  }

  void theViewShowsTheEnginesFigures() {
    const QString path = write(QStringLiteral("mini.csv"), kCorpus);
    ValidationView* view = shown(path);
    QVERIFY(view);
    const ValidationResult& r = view->result();
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QCOMPARE(r.report.scored.size(), std::size_t(6));
    // The same rows through the engine directly: the same figures.
    const ValidationResult direct = run_validation(r.setup);
    QCOMPARE(direct.report.mape, r.report.mape);
    QVERIFY(view->summaryText().contains(QStringLiteral("6 rows")));
    QVERIFY(view->summaryText().contains(QStringLiteral("MAPE %1%").arg(100 * r.report.mape, 0, 'f', 1)));
    QCOMPARE(view->plot()->graph(0)->dataCount(), 6);
    QCOMPARE(view->problems()->rowCount(), 2);  // 4096^3 (five configs, ranked) and 1024^3
    QCOMPARE(view->problems()->item(0, 1)->text(), QStringLiteral("5"));
    QVERIFY(view->problems()->item(0, 3)->text() != QStringLiteral("–"));  // ranked
    QCOMPARE(view->problems()->item(1, 3)->text(), QStringLiteral("–"));
    view->highlightProblem(0);
    QCOMPARE(view->plot()->graph(1)->dataCount(), 5);
    // Points run by measured time: the 1024^3 row (27 us) comes first.
    QCOMPARE(view->pointRow(0)->row->measured_us, 27.0);
  }

  void aClickedPointOpensItsConfiguration() {
    ValidationView* view = shown(write(QStringLiteral("mini.csv"), kCorpus));
    QVERIFY(view);
    const int last = view->plot()->graph(0)->dataCount() - 1;  // the slowest: 64x128x32, 300 us
    test::ResultWaiter waiter(window_->session());
    view->activatePoint(last);
    QVERIFY(waiter.waitReady());
    const auto& params = window_->session().plan()["params"];
    QCOMPARE(params["block_m"].get<int>(), 64);
    QCOMPARE(params["block_n"].get<int>(), 128);
    QCOMPARE(params["stages"].get<int>(), 4);
    QCOMPARE(window_->session().plan()["hardware"].get<std::string>(), std::string("h200"));
  }

  void aBadCorpusIsReportedNotFatal() {
    ValidationView* view = shown(write(QStringLiteral("bad.csv"), "M,N,K\n1,2,3\n"));
    QVERIFY(view);
    QVERIFY(!view->result().error.isEmpty());
    QVERIFY(view->summaryText().contains(QStringLiteral("bad.csv")));
    QCOMPARE(view->plot()->graph(0)->dataCount(), 0);
    // The window still works: a good corpus afterwards.
    QVERIFY(shown(write(QStringLiteral("mini.csv"), kCorpus)));
    QCOMPARE(window_->validationView()->result().report.scored.size(), std::size_t(6));
  }

  // QAbstractItemModelTester on the view's item models (the problems table, the hardware and
  // kernel selectors) while corpora replace one another: a good one, a bad one, a real one.
  void itsItemModelsPassTheTester() {
    ValidationView* view = shown(write(QStringLiteral("mini.csv"), kCorpus));
    QVERIFY(view);
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    for (QAbstractItemModel* model : {view->problems()->model(), view->hardwareSelector()->model(),
                                      view->kernelSelector()->model()})
      testers.push_back(std::make_unique<QAbstractItemModelTester>(
          model, QAbstractItemModelTester::FailureReportingMode::QtTest));
    QVERIFY(view->hardwareSelector()->count() >= 6 && view->kernelSelector()->count() >= 2);
    QVERIFY(shown(write(QStringLiteral("bad.csv"), "M,N,K\n1,2,3\n")));
    QCOMPARE(view->problems()->rowCount(), 0);
    const QString norms = qEnvironmentVariable("TILESIGHT_DATA") + QStringLiteral("/tests/validation/h200/norms.csv");
    QVERIFY(shown(norms));
    QVERIFY(view->problems()->rowCount() > 5);
    QVERIFY(shown(write(QStringLiteral("mini.csv"), kCorpus)));
    QCOMPARE(view->problems()->rowCount(), 2);
  }

  void aRealCorpusOpensWithItsLaunchPath() {
    const QString norms = qEnvironmentVariable("TILESIGHT_DATA") + QStringLiteral("/tests/validation/h200/norms.csv");
    ValidationView* view = shown(norms);
    QVERIFY(view);
    QCOMPARE(view->result().setup.launch_overhead_us, 4.54);
    QCOMPARE(view->result().report.scored.size(), std::size_t(40));
    QVERIFY(view->result().report.problems.size() > 5);
  }
};

QTEST_MAIN(ValidationTest)
#include "test_validation.moc"
