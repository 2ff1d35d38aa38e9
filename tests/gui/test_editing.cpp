// Undo/redo of every kind of edit, the modified marker, atomic save, the recovery file,
// recent files, dropping a plan on the window, exporting views and the non-blocking report
// of a bad file; and the edit -> updated views latency of the default GEMM (logged).
#include <QComboBox>
#include <QXmlStreamReader>
#include <QMimeData>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "gui_test_util.h"
#include "ui/config_panel.h"
#include "ui/dag_scene.h"
#include "ui/file_commands.h"
#include "ui/help_pages.h"
#include "ui/report_view.h"
#include "ui/template_form.h"
#include "ui/main_window.h"
#include "ui/plan_editor.h"
#include "ui/recent_files.h"
#include "ui/recovery_file.h"
#include "ui/timeline_view.h"
#include "ui/view_export.h"

using namespace tilesight::ui;

class EditingTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;
  QTemporaryDir dir_;

  PlanSession& session() { return window_->session(); }
  QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }
  static QByteArray read(const QString& p) {
    QFile f(p);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
  }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void init() {
    window_ = test::quiet_window();
    window_->resize(1400, 900);
    window_->show();
    test::ResultWaiter wait(session());
    session().open(test::example(), test::example_path());
    QVERIFY(wait.waitReady());
  }
  void cleanup() { window_.reset(); }

  void undoRestoresAParameterAndItsPrediction() {
    const double before = session().prediction()->latency_us;
    {
      test::ResultWaiter wait(session());
      window_->configPanel()->spinBox("block_n")->setValue(64);
      QVERIFY(wait.waitReady());
    }
    QVERIFY(session().prediction()->latency_us != before);
    QVERIFY(window_->isWindowModified());
    QVERIFY(window_->windowTitle().contains(QLatin1String("[*]")));
    test::ResultWaiter wait(session());
    session().undoStack().undo();
    QCOMPARE(window_->configPanel()->spinBox("block_n")->value(), 128);
    QVERIFY(wait.waitReady());
    QCOMPARE(session().prediction()->latency_us, before);
    QVERIFY(!session().modified());
    QVERIFY(!window_->isWindowModified());
    session().undoStack().redo();
    QCOMPARE(session().plan()["params"]["block_n"].get<int>(), 64);
    QVERIFY(session().modified());
  }

  void hardwareAndDagEditsUndoToo() {
    const auto original = session().plan();
    window_->configPanel()->hardwareSelector()->setCurrentText(QStringLiteral("h100"));
    QCOMPARE(session().plan()["hardware"].get<std::string>(), std::string("h100"));
    window_->planEditor()->selectAction(QStringLiteral("mma"));
    window_->planEditor()->addTileAction(QStringLiteral("exp"));
    QCOMPARE(session().undoStack().count(), 2);
    session().undoStack().undo();
    session().undoStack().undo();
    QCOMPARE(session().plan(), original);
    QCOMPARE(window_->configPanel()->hardwareSelector()->currentText(), QStringLiteral("h200"));
  }

  void arrowClicksMergeIntoOneUndoStep() {
    for (int v : {64, 80, 96}) window_->configPanel()->spinBox("block_k")->setValue(v);
    QCOMPARE(session().undoStack().count(), 1);
  }

  void saveIsAtomicAndClearsTheMarker() {
    auto plan = session().plan();
    plan["params"]["stages"] = 4;
    session().edit(plan, QStringLiteral("Set stages"));
    QVERIFY(session().modified());
    QVERIFY(window_->files().savePath(path("saved.json")).isEmpty());
    QVERIFY(!session().modified());
    QCOMPARE(nlohmann::json::parse(read(path("saved.json")).toStdString())["params"]["stages"], 4);
    QVERIFY(QDir(dir_.path()).entryList(QDir::Files).size() == 1);  // no temporary left over
    QCOMPARE(window_->recentFiles().paths().value(0), QFileInfo(path("saved.json")).absoluteFilePath());
  }

  void recoveryFileRoundTrips() {
    RecoveryFile recovery(path("recovery.json"));
    QVERIFY(!recovery.read());
    QVERIFY(recovery.write(session().plan(), QStringLiteral("/x/plan.json")).isEmpty());
    const auto work = recovery.read();
    QVERIFY(work);
    QCOMPARE(work->plan, session().plan());
    QCOMPARE(work->path, QStringLiteral("/x/plan.json"));
    QVERIFY(work->saved_at.isValid());
    recovery.remove();
    QVERIFY(!recovery.read());
  }

  void unsavedWorkIsRecoveredAfterAKill() {
    RecoveryFile(RecoveryFile::default_path()).remove();
    {
      MainWindow first({.persist = true});
      first.session().open(test::example(), test::example_path());
      auto plan = first.session().plan();
      plan["params"]["warps"] = 4;
      first.session().edit(plan, QStringLiteral("Set warps"));
      QTRY_VERIFY2(first.recovery().read().has_value(), qPrintable(first.recovery().file()));  // autosaved, not closed
    }
    MainWindow again({.persist = true});
    QVERIFY(again.restoreLastPlan());
    QCOMPARE(again.session().plan()["params"]["warps"].get<int>(), 4);
    QVERIFY(again.session().modified());
    RecoveryFile().remove();
  }

  void droppingAPlanOpensIt() {
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(test::example_path("custom_gemm_h200.json"))});
    QVERIFY(window_->acceptDrops());
    QVERIFY(window_->openDroppedPlan(mime));
    QVERIFY(session().path().endsWith(QLatin1String("custom_gemm_h200.json")));
    QVERIFY(!session().plan().contains("params"));
    delete mime;
  }

  void aBadFileIsReportedWithoutBlocking() {
    QFile bad(path("bad.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\n  \"kernel\": \"gemm\",\n  \"hardware\": \"h200\",\n  \"params\": {\n"
              "    \"M\": 64, \"N\": 64, \"K\": 64,\n    \"blokc_m\": 3\n  }\n}\n");
    bad.close();
    QSignalSpy problems(&window_->files(), &FileCommands::problemReported);
    const auto before = session().plan();
    window_->files().openPath(path("bad.json"));  // not quiet: the dialog opens, non-modal
    QCOMPARE(problems.count(), 1);
    const QString message = problems.front().at(1).toString();
    QVERIFY2(message.contains("bad.json") && message.contains("line 6") &&
                 message.contains("params.blokc_m"),
             qPrintable(message));
    QCOMPARE(session().plan(), before);
    auto* dialog = window_->findChild<QWidget*>(QStringLiteral("problem_dialog"));
    QVERIFY(dialog && dialog->isVisible());
    dialog->close();
  }

  void exportsEveryFormat() {
    QList<QWidget*> views{window_.get(), window_->timelineView()};
    for (auto* dock : window_->findChildren<QDockWidget*>()) views << dock->widget();  // every view
    QVERIFY(views.size() >= 9);
    for (QWidget* view : views) {
      QVERIFY(export_view(*view, path("v.png")).isEmpty());
      QVERIFY(read(path("v.png")).startsWith("\x89PNG\r\n\x1a\n"));
      QVERIFY(export_view(*view, path("v.pdf")).isEmpty());
      QVERIFY(read(path("v.pdf")).startsWith("%PDF"));
      QVERIFY(export_view(*view, path("v.svg")).isEmpty());
      QXmlStreamReader svg(read(path("v.svg")));
      QString root;
      while (!svg.atEnd())
        if (svg.readNext() == QXmlStreamReader::StartElement && root.isEmpty())
          root = svg.name().toString();
      QVERIFY2(!svg.hasError(), qPrintable(svg.errorString()));
      QCOMPARE(root, QStringLiteral("svg"));
    }
    QVERIFY(!export_view(*window_, path("v.bmpx")).isEmpty());
  }

  void newExamplesPopulateEveryView() {
    for (const char* name : {"attention_prefill_h200.json", "attention_decode_h200.json",
                             "rmsnorm_h200.json"}) {
      test::ResultWaiter wait(session());
      QVERIFY(window_->files().openPath(test::example_path(name), true).isEmpty());
      QVERIFY2(wait.waitReady(), name);
      QVERIFY2(window_->timelineView()->barCount() > 0, name);
      QVERIFY2(window_->planEditor()->scene()->nodeCount() > 1, name);
      QVERIFY2(!window_->reportView()->latencyText().isEmpty(), name);
    }
  }

  void attentionAndNormFormsEditTheirTemplates() {
    {
      test::ResultWaiter wait(session());
      QVERIFY(window_->files().openPath(test::example_path("attention_prefill_h200.json"), true).isEmpty());
      QVERIFY(wait.waitReady());
    }
    QVERIFY(window_->configPanel()->editable());
    auto* seq = qobject_cast<QSpinBox*>(window_->configPanel()->templateForm()->editor("seq_kv"));
    QVERIFY(seq);
    QCOMPARE(seq->value(), 4096);
    const double before = session().prediction()->latency_us;
    test::ResultWaiter wait(session());
    seq->setValue(8192);
    QVERIFY(wait.waitReady());
    QCOMPARE(session().plan()["params"]["seq_kv"].get<int>(), 8192);
    QVERIFY(session().prediction()->latency_us > before);
    auto* block = qobject_cast<QSpinBox*>(window_->configPanel()->templateForm()->editor("block_m"));
    // Optional: the template's default, FA2's 128x64 tile at head_dim 128 (attention.cpp).
    QCOMPARE(block->text(), QStringLiteral("auto (128)"));
    QVERIFY(window_->files().openPath(test::example_path("rmsnorm_h200.json"), true).isEmpty());
    QVERIFY(window_->configPanel()->templateForm()->editor("cols"));
  }

  void everyViewHasAHelpPage() {
    for (const char* page : {"plan-editor", "configuration", "timeline", "report", "envelope",
                             "cache-heatmap", "network", "what-if"})
      QVERIFY2(!help_page_path(QString::fromLatin1(page)).isEmpty(), page);
  }

  // Not a timed assertion: the figure goes to the test log (issue 4 asks for <= 100 ms).
  void editToUpdatedViewsLatency() {
    session().setDebounceMs(0);
    QList<double> ms;
    int block = 128;
    for (int i = 0; i < 10; ++i) {
      test::ResultWaiter wait(session());
      QElapsedTimer clock;
      clock.start();
      window_->configPanel()->spinBox("block_m")->setValue(block = block == 64 ? 128 : 64);
      QVERIFY(wait.waitReady());
      ms << static_cast<double>(clock.nsecsElapsed()) / 1e6;
    }
    std::sort(ms.begin(), ms.end());
    qInfo("edit -> updated views, default GEMM, no debounce: median %.1f ms, max %.1f ms "
          "(engine+views as the session measures: %.1f ms last); tilesight --bench-edit measures it "
          "on the whole window",
          ms[ms.size() / 2], ms.back(), session().lastUpdateMs());
  }
};

QTEST_MAIN(EditingTest)
#include "test_editing.moc"
