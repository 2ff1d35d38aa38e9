// tilesight: the desktop app (issue 4).
//
//   tilesight [PLAN.json] [--screenshot FILE.png] [--size WxH] [--hw NAME]
//   tilesight --bench-edit [--edits N] [PLAN.json]
//
// Without a display (no DISPLAY or WAYLAND_DISPLAY, or QT_QPA_PLATFORM=offscreen) it runs
// offscreen: prints the CLI's text report of the plan, writes a PNG of the main window
// (tilesight-main-window.png here, or the --screenshot path) and exits. With a display and
// --screenshot it writes the PNG and exits too. The default plan is
// resources/examples/gemm_h200.json. --bench-edit measures the edit-to-views latency of the
// plan offscreen (ui/edit_bench.h) and prints it. Exit status as the CLI's: 0 good, 2 bad input.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSize>
#include <QStyleFactory>
#include <algorithm>
#include <iostream>
#include <string_view>

#include "tilesight/report/text_report.h"
#include "tilesight/util/allocator.h"
#include "ui/edit_bench.h"
#include "ui/file_commands.h"
#include "ui/main_window.h"
#include "ui/plan_document.h"
#include "ui/snapshot.h"

namespace {

constexpr int kOk = 0, kBadInput = 2;
constexpr int kSnapshotTimeoutMs = 60000;

struct AppArgs {
  QString plan, screenshot, hw;
  QSize size;  // --size: the window's, else MainWindow's default (1600x1000)
  int bench_edits = 0;  // --bench-edit: edits to time, 0: no bench
};

constexpr int kDefaultBenchEdits = 50;

// The offscreen platform warns about what it cannot do (window size hints, no runtime
// folder); harmless for a snapshot, so kept out of the report's way.
void quiet_offscreen_messages(QtMsgType type, const QMessageLogContext& context,
                              const QString& message) {
  if (message.contains(QLatin1String("propagateSizeHints")) ||
      message.contains(QLatin1String("XDG_RUNTIME_DIR")))
    return;
  std::cerr << qFormatLogMessage(type, context, message).toStdString() << "\n";
}

bool headless_environment() {
  if (qgetenv("QT_QPA_PLATFORM") == "offscreen") return true;
  return qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

std::optional<AppArgs> parse_args(const QApplication& app) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QObject::tr("TileSight: predict how a tiled GPU kernel performs, and see why"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      "plan", QObject::tr("Plan JSON (default: resources/examples/gemm_h200.json)"), "[PLAN.json]");
  // --snapshot is the name for the same option.
  const QCommandLineOption screenshot(QStringList{"screenshot", "snapshot"},
                                      QObject::tr("Write a PNG of the main window and exit"),
                                      "FILE.png");
  const QCommandLineOption hw(
      "hw", QObject::tr("Hardware profile name or path; overrides the plan's"), "NAME");
  const QCommandLineOption bench("bench-edit",
                                 QObject::tr("Time edits of the plan to the views updated, offscreen, and exit"));
  const QCommandLineOption edits("edits", QObject::tr("Edits --bench-edit applies (default 50)"), "N");
  const QCommandLineOption size("size", QObject::tr("Window size, e.g. 1280x800 (default 1600x1000)"), "WxH");
  parser.addOptions({screenshot, hw, bench, edits, size});
  if (!parser.parse(app.arguments()) || parser.positionalArguments().size() > 1) {
    std::cerr << "tilesight: "
              << (parser.errorText().isEmpty() ? "at most one plan"
                                               : parser.errorText().toStdString())
              << "\n"
              << parser.helpText().toStdString();
    return std::nullopt;
  }
  if (parser.isSet("help")) parser.showHelp(kOk);
  if (parser.isSet("version")) parser.showVersion();
  AppArgs args{parser.positionalArguments().value(0), parser.value(screenshot), parser.value(hw)};
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    bool ok_w = false, ok_h = false;
    if (wh.size() == 2) args.size = QSize(wh[0].toInt(&ok_w), wh[1].toInt(&ok_h));
    if (!ok_w || !ok_h || args.size.width() < 640 || args.size.height() < 480 || args.size.width() > 8192 ||
        args.size.height() > 8192) {
      std::cerr << "tilesight: --size must be WxH, from 640x480 to 8192x8192, got " << parser.value(size).toStdString()
                << "\n";
      return std::nullopt;
    }
  }
  if (parser.isSet(bench)) {
    bool ok = true;
    args.bench_edits = parser.isSet(edits) ? parser.value(edits).toInt(&ok) : kDefaultBenchEdits;
    if (!ok || args.bench_edits < 1 || args.bench_edits > 100000) {
      std::cerr << "tilesight: --edits must be a count from 1 to 100000, got " << parser.value(edits).toStdString() << "\n";
      return std::nullopt;
    }
  }
  return args;
}

// The plan to start with: the one named, else (interactive) unsaved work left by the last
// session (the user is asked) or the last file, else the default example.
bool open_initial_plan(tilesight::ui::MainWindow& window, const AppArgs& args, bool interactive) {
  using namespace tilesight::ui;
  if (args.plan.isEmpty() && args.hw.isEmpty() && interactive && window.offerRecovery())
    return true;
  QString path = args.plan.isEmpty() ? default_plan_path().value_or(QString()) : args.plan;
  if (path.isEmpty()) {
    std::cerr << "tilesight: cannot find resources/examples/gemm_h200.json; set TILESIGHT_DATA\n";
    return false;
  }
  auto doc = read_plan_file(path);
  if (!doc) {
    for (const auto& e : doc.errors())
      std::cerr << path.toStdString() << ": " << e.to_string() << "\n";
    if (!interactive) return false;
    window.files().openPath(path);  // the dialog naming the file, line and field
    if (auto fallback = default_plan_path()) window.files().openPath(*fallback);
    return true;
  }
  window.session().open(args.hw.isEmpty() ? *doc : with_hardware(*doc, args.hw.toStdString()),
                        QFileInfo(path).absoluteFilePath());
  return true;
}

int snapshot(tilesight::ui::MainWindow& window, const QString& path, bool print_report) {
  auto& session = window.session();
  if (!tilesight::ui::wait_for_result(session, kSnapshotTimeoutMs)) {
    std::cerr << "tilesight: the prediction did not finish in time\n";
    return 1;
  }
  if (!session.errors().empty())
    std::cerr << "tilesight: " << tilesight::join(session.errors(), "\ntilesight: ") << "\n";
  else if (print_report)
    std::cout << tilesight::report::to_text(*session.prediction());
  if (const QString error = tilesight::ui::write_snapshot(window, path); !error.isEmpty()) {
    std::cerr << "tilesight: cannot write " << path.toStdString() << ": " << error.toStdString()
              << "\n";
    return 1;
  }
  std::cerr << "tilesight: wrote " << path.toStdString() << "\n";
  return session.errors().empty() ? kOk : kBadInput;
}

}  // namespace

int bench(tilesight::ui::MainWindow& window, int edits) {
  if (!tilesight::ui::wait_for_result(window.session(), kSnapshotTimeoutMs) || !window.session().errors().empty()) {
    std::cerr << "tilesight: the plan does not predict; nothing to time\n";
    return kBadInput;
  }
  QString error;
  const auto rows = tilesight::ui::bench_edits(window, edits, &error);
  if (rows.empty()) {
    std::cerr << "tilesight: " << error.toStdString() << "\n";
    return 1;
  }
  std::cout << "edit to views updated: " << edits << " edits of "
            << window.session().path().toStdString() << " (offscreen, window " << window.width() << "x"
            << window.height() << ")\n"
            << tilesight::ui::format_edit_bench(rows).toStdString();
  return kOk;
}

int main(int argc, char** argv) {
  tilesight::keep_freed_memory();
  const bool headless = headless_environment() || std::any_of(argv, argv + argc, [](const char* a) {
                          return std::string_view(a) == "--bench-edit";
                        });
  if (headless) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    qInstallMessageHandler(quiet_offscreen_messages);
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName("TileSight");
  QApplication::setApplicationName("tilesight");
  QApplication::setApplicationVersion(TILESIGHT_VERSION);
  QApplication::setStyle(QStyleFactory::create("Fusion"));
  const auto args = parse_args(app);
  if (!args) return kBadInput;

  const bool grab = headless || !args->screenshot.isEmpty();
  if (args->bench_edits > 0) {
    tilesight::ui::MainWindow window({.persist = false});
    if (args->size.isValid()) window.resize(args->size);
    if (!open_initial_plan(window, *args, false)) return kBadInput;
    window.show();
    return bench(window, args->bench_edits);
  }
  tilesight::ui::MainWindow window({.persist = !grab});
  if (args->size.isValid()) window.resize(args->size);
  if (!open_initial_plan(window, *args, !grab)) return kBadInput;
  window.show();
  if (!grab) return QApplication::exec();
  const QString path =
      args->screenshot.isEmpty() ? QStringLiteral("tilesight-main-window.png") : args->screenshot;
  return snapshot(window, path, headless);
}
