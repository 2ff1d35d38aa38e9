// The File menu's commands on the session's plan and prediction: open a plan (a dialog
// names the file, line and field of what is wrong), save the plan as JSON (atomically),
// export the report (text or JSON, as the CLI writes them) and the timeline as a Chrome
// trace that Perfetto opens.
#pragma once

#include <QObject>
#include <QString>
#include <functional>

class QMenu;
class QWidget;

namespace tilesight::ui {

class PlanSession;

class FileCommands : public QObject {
  Q_OBJECT

 public:
  FileCommands(PlanSession& session, QWidget* window);

  // Opens a plan file into the session. A bad file leaves the current plan alone and is
  // reported in a dialog naming the file, line and field (not with `quiet`); the message
  // is also returned as plain text. A good file replaces the plan only if the replace guard
  // agrees (unsaved edits saved or discarded); else the message says it was kept. Returns
  // "" on success.
  QString openPath(const QString& path, bool quiet = false);
  // Asked before an opened file replaces the plan: true to go ahead (the main window asks
  // the user about unsaved edits).
  void setReplaceGuard(std::function<bool(const QString& path)> guard) { guard_ = std::move(guard); }

  void open();
  void save();    // to the plan's file; asks for one when it has none or is an example
  void saveAs();
  // Writes the plan atomically to `path` and marks it saved there: "" on success.
  QString savePath(const QString& path);
  void exportReport();
  void exportTrace();
  void fillExamplesMenu(QMenu* menu);

  // Writers behind the dialogs, for tests: "" on success, else why it failed.
  QString writeReport(const QString& path) const;  // .json: JSON report, else text
  QString writeTrace(const QString& path) const;

 signals:
  void fileUsed(const QString& path);  // opened or saved: for the recent-files list
  // A problem the user must hear of (bad file, failed save). The window shows it in a
  // non-modal dialog, so nothing blocks (tests listen here instead).
  void problemReported(const QString& title, const QString& message);

 private:
  QString startFolder() const;
  void complain(const QString& title, const QString& message);

  PlanSession& session_;
  QWidget* window_;
  std::function<bool(const QString&)> guard_;
};

}  // namespace tilesight::ui
