// Shared by the GUI tests: the example plans, and waiting for the session's next result.
#pragma once

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <memory>

#include <nlohmann/json.hpp>

#include "ui/main_window.h"
#include "ui/plan_document.h"
#include "ui/plan_session.h"

namespace tilesight::ui::test {

constexpr int kTimeoutMs = 20000;

// A main window that keeps nothing in QSettings and never blocks on unsaved work: asked what
// to do with it, it discards it.
inline std::unique_ptr<MainWindow> quiet_window() {
  auto window = std::make_unique<MainWindow>(MainWindowOptions{.persist = false});
  window->setUnsavedPrompt([](const QString&) { return QMessageBox::Discard; });
  return window;
}

inline QString example_path(const char* name = "gemm_h200.json") {
  const auto dir = default_plan_path();
  if (!dir) return {};
  return QFileInfo(*dir).absolutePath() + QLatin1Char('/') + QLatin1String(name);
}

inline nlohmann::json example(const char* name = "gemm_h200.json") {
  auto doc = load_plan_file(example_path(name));
  return doc ? *doc : nlohmann::json();
}

// Waits for the next predictionReady (true) or predictionFailed (false) of the session.
struct ResultWaiter {
  explicit ResultWaiter(PlanSession& s)
      : ready(&s, &PlanSession::predictionReady), failed(&s, &PlanSession::predictionFailed) {}
  bool waitReady() { return ready.count() > 0 || ready.wait(kTimeoutMs); }
  bool waitFailed() { return failed.count() > 0 || failed.wait(kTimeoutMs); }
  QSignalSpy ready, failed;
};

}  // namespace tilesight::ui::test
