// File commands: a bad file is reported (file, line, field) and the current plan kept;
// save writes the edited plan; exports write valid report, JSON and Chrome-trace files.
#include <QDockWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <map>
#include <vector>
#include <fstream>

#include "gui_test_util.h"
#include "ui/file_commands.h"
#include "ui/main_window.h"

using namespace tilesight::ui;

class FilesTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;
  QTemporaryDir dir_;

  QString path(const char* name) const { return dir_.filePath(QLatin1String(name)); }
  static QByteArray read(const QString& p) {
    QFile f(p);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
  }
  static void write(const QString& p, const QByteArray& bytes) {
    QFile f(p);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
  }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void init() {
    window_ = std::make_unique<MainWindow>(MainWindowOptions{.persist = false});
    test::ResultWaiter waiter(window_->session());
    QVERIFY(window_->files().openPath(test::example_path(), true).isEmpty());
    QVERIFY(waiter.waitReady());
  }

  void cleanup() { window_.reset(); }

  void aBadFileIsReportedNotFatal() {
    const auto before = window_->session().plan();
    write(path("syntax.json"), "{\n  \"kernel\": \"gemm\",\n  \"params\": {\"M\": }\n}\n");
    QString message = window_->files().openPath(path("syntax.json"), true);
    QVERIFY2(message.contains("syntax.json") && message.contains("line 3"), qPrintable(message));
    write(
        path("field.json"),
        R"({"kernel": "gemm", "hardware": "h200", "params": {"M": 64, "N": 64, "K": 64, "blokc_m": 3}})");
    message = window_->files().openPath(path("field.json"), true);
    QVERIFY2(message.contains("field.json") && message.contains("params.blokc_m"),
             qPrintable(message));
    // A value of the wrong type or range, on its own line: the file, the line and the field.
    write(path("type.json"), "{\n  \"kernel\": \"gemm\",\n  \"hardware\": \"h200\",\n  \"params\": {\n"
                             "    \"M\": 64, \"N\": 64, \"K\": 64,\n    \"stages\": \"three\"\n  }\n}\n");
    message = window_->files().openPath(path("type.json"), true);
    QVERIFY2(message.contains("type.json") && message.contains("line 6") && message.contains("params.stages"),
             qPrintable(message));
    // A collective's file too (the engine reads it as it predicts).
    write(path("collective.json"), "{\n  \"kernel\": \"all_reduce\",\n  \"hardware\": \"h200x8\",\n"
                                   "  \"params\": {\n    \"bytes\": \"lots\",\n    \"devices\": 8\n  }\n}\n");
    message = window_->files().openPath(path("collective.json"), true);
    QVERIFY2(message.contains("collective.json") && message.contains("line 5") && message.contains("params.bytes"),
             qPrintable(message));
    QVERIFY(!window_->files().openPath(path("missing.json"), true).isEmpty());
    QCOMPARE(window_->session().plan(), before);
  }

  void saveWritesTheEditedPlan() {
    auto plan = window_->session().plan();
    plan["params"]["stages"] = 4;
    window_->session().edit(plan);
    QVERIFY(window_->session().modified());
    QVERIFY(save_plan_file(window_->session().plan(), path("saved.json")).isEmpty());
    auto saved = load_plan_file(path("saved.json"));
    QVERIFY(saved);
    QCOMPARE((*saved)["params"]["stages"].get<int>(), 4);
    QCOMPARE((*saved)["hardware"].get<std::string>(), std::string("h200"));
  }

  // The dock layout and the last plan file survive closing the app (QSettings; the tests'
  // HOME is a folder of the build). Edits the user discarded at the prompt are not offered
  // again (the recovery file is for a crash: test_editing, test_unsaved).
  void theLayoutAndLastFileSurviveARestart() {
    int stages = 0;
    {
      MainWindow first({.persist = true});
      first.setUnsavedPrompt([](const QString&) { return QMessageBox::Discard; });
      QVERIFY(first.files().openPath(test::example_path(), true).isEmpty());
      auto plan = first.session().plan();
      stages = plan["params"]["stages"].get<int>();
      plan["params"]["stages"] = stages + 2;
      first.session().edit(plan);
      first.findChild<QDockWidget*>("heatmap")->hide();
      QVERIFY(first.close());
    }
    MainWindow again({.persist = true});
    QVERIFY(!again.recovery().read().has_value());
    QVERIFY(again.restoreLastPlan());
    QCOMPARE(again.session().path(), QFileInfo(test::example_path()).absoluteFilePath());
    QCOMPARE(again.session().plan()["params"]["stages"].get<int>(), stages);
    QVERIFY(!again.session().modified());
    QVERIFY(again.findChild<QDockWidget*>("heatmap")->isHidden());
    QVERIFY(!again.findChild<QDockWidget*>("report")->isHidden());
  }

  void exportsValidReportsAndTrace() {
    auto& files = window_->files();
    QVERIFY(files.writeReport(path("report.txt")).isEmpty());
    QVERIFY(read(path("report.txt")).startsWith("TileSight prediction:"));
    QVERIFY(files.writeReport(path("report.json")).isEmpty());
    const auto report = nlohmann::json::parse(read(path("report.json")).toStdString());
    QVERIFY(report.contains("latency_us") && report.contains("timeline"));
    QVERIFY(files.writeTrace(path("trace.json")).isEmpty());
    const auto trace = nlohmann::json::parse(read(path("trace.json")).toStdString());
    QVERIFY(trace["traceEvents"].size() > window_->session().prediction()->timeline.size());
    // As Perfetto reads it: the process and every thread with a bar named, and the bars of
    // one thread in sequence (a pipeline's overlapping bars take their own slots), so they nest.
    bool process_named = false;
    std::map<int, std::string> threads;
    std::map<int, std::vector<std::pair<double, double>>> bars;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "process_name") process_named = !e["args"]["name"].get<std::string>().empty();
      if (e["ph"] == "M" && e["name"] == "thread_name") threads[e["tid"].get<int>()] = e["args"]["name"];
      if (e["ph"] == "X") {
        QVERIFY(e["dur"].get<double>() >= 0);
        bars[e["tid"].get<int>()].emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
      }
    }
    QVERIFY(process_named);
    QVERIFY(bars.size() >= 4);  // TC, SMEM, L2, DRAM at least
    for (auto& [tid, spans] : bars) {
      QVERIFY2(threads.count(tid) && !threads[tid].empty(), qPrintable(QString::number(tid)));
      std::sort(spans.begin(), spans.end());
      for (std::size_t i = 1; i < spans.size(); ++i)
        QVERIFY2(spans[i].first >= spans[i - 1].second - 1e-9, threads[tid].c_str());
    }
  }
};

QTEST_MAIN(FilesTest)
#include "test_files.moc"
