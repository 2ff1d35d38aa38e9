// The main window: the timeline in the centre, dock widgets around it, menus and a status
// bar with the busy indicator and how long the last update took. Its dock layout and the
// plan being edited survive a restart (QSettings).
//
//   ┌ Configuration ┐┌ Timeline ───────────────────────────┐┌ Report ──────────┐
//   │ hardware      ││ TC   ▮▮ ▮▮ ▮▮          ▮▮          ││ 256 µs           │
//   │ M N K         ││ SMEM ▮▮▮▮▮▮            ▮▮          ││ envelope, waves  │
//   │ block_m ...   ││ L2   ▮▮▮▮▮▮▮▮          ▮▮▮▮        ││ utilisation bars │
//   └───────────────┘└─────────────────────────────────────┘│ diagnosis        │
//   ┌ Envelope ─────────────┐┌ Cache heatmap ──┐┌ Network ─┐└──────────────────┘
#pragma once

#include <QMainWindow>

#include <QMessageBox>
#include <QTimer>
#include <functional>
#include <vector>

#include "ui/plan_session.h"
#include "ui/recovery_file.h"

class QDockWidget;
class QMimeData;
class QLabel;
class QProgressBar;

namespace tilesight::ui {

class ConfigPanel;
class EnvelopeView;
class FileCommands;
class HeatmapView;
class NetworkView;
class PlanEditor;
class RecentFiles;
class ReportView;
class TimelineView;
class ValidationView;
class WhatIfView;

// Asks what to do with unsaved edits before `action` ("closing TileSight", "opening
// gemm_b200.json") would lose them: QMessageBox::Save, Discard or Cancel. The window's
// default shows a dialog; tests inject the answer so nothing blocks.
using UnsavedPrompt = std::function<QMessageBox::StandardButton(const QString& action)>;

struct MainWindowOptions {
  bool persist = true;  // keep layout and the edited plan in QSettings (off for snapshots)
};

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  static constexpr int kReportMinWidth = 250;  // the report and plan editor column
  static constexpr int kConfigWidth = 250;     // the configuration's default width, at least
  explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);

  PlanSession& session() { return session_; }
  FileCommands& files() { return *files_; }
  ConfigPanel* configPanel() const { return config_; }
  ReportView* reportView() const { return report_; }
  TimelineView* timelineView() const { return timeline_; }
  EnvelopeView* envelopeView() const { return envelope_; }
  HeatmapView* heatmapView() const { return heatmap_; }
  NetworkView* networkView() const { return network_; }
  PlanEditor* planEditor() const { return editor_; }
  WhatIfView* whatIfView() const { return what_if_; }

  // What the last prediction's update cost on the UI thread, per view (wall ms, in the order
  // the views were set): where the edit-to-views time goes (`tilesight --bench-edit`).
  struct StageTime {
    const char* view;
    double ms;
  };
  const std::vector<StageTime>& lastUpdateStages() const { return update_stages_; }

  RecentFiles& recentFiles() { return *recent_; }
  RecoveryFile& recovery() { return recovery_; }

  // Opens what the last session was editing: its unsaved work from the recovery file (marked
  // modified), else the last plan file. Returns false when there is neither (the caller then
  // opens the default example).
  bool restoreLastPlan();
  // Interactive start: when unsaved work was left behind, asks whether to recover it; else
  // as restoreLastPlan.
  bool offerRecovery();
  void writeRecoveryNow();
  // What a drop does: opens the first local .json file among the URLs. False if none.
  bool openDroppedPlan(const QMimeData* mime);
  // File > Export view: asks for a file and writes the view (a dock's widget or the window).
  void exportView(QWidget* view, const QString& title);
  // File > Open validation corpus: the corpus's rows predicted and plotted against their
  // measurements in the validation window (created on first use); a clicked point opens its
  // configuration here. The setup (hardware, template, launch path) is guessed from the file.
  ValidationView* openValidationCorpus(const QString& path);
  ValidationView* validationView() const { return validation_; }

  // No lost work: before the document is closed or replaced with unsaved edits, asks
  // whether to save them (Save runs File > Save and goes ahead only if that saved), discard
  // them, or cancel. True: go ahead.
  bool keepOrDropUnsavedWork(const QString& action);
  void setUnsavedPrompt(UnsavedPrompt prompt) { unsaved_prompt_ = std::move(prompt); }

 protected:
  void showEvent(QShowEvent* event) override;  // the default dock sizes, at the window's size
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  QDockWidget* addDock(const QString& title, const QString& name, QWidget* view,
                       Qt::DockWidgetArea area);
  void createDocks();
  void applyDefaultSizes();
  void createMenus();
  void createFileMenu();
  void createHardwareMenu();
  void createStatusBar();
  void connectSession();
  void updateTitle();
  void saveSettings() const;
  void restoreLayout();
  void resetLayout();
  void showAbout();
  QMessageBox::StandardButton askAboutUnsavedWork(const QString& action);

  MainWindowOptions options_;
  bool sized_ = false;            // shown once: the default dock sizes were applied
  bool layout_restored_ = false;  // the last session's layout, from QSettings
  PlanSession session_;
  FileCommands* files_ = nullptr;
  ConfigPanel* config_ = nullptr;
  ReportView* report_ = nullptr;
  TimelineView* timeline_ = nullptr;
  EnvelopeView* envelope_ = nullptr;
  HeatmapView* heatmap_ = nullptr;
  NetworkView* network_ = nullptr;
  PlanEditor* editor_ = nullptr;
  WhatIfView* what_if_ = nullptr;
  ValidationView* validation_ = nullptr;
  RecentFiles* recent_ = nullptr;
  RecoveryFile recovery_;
  QTimer autosave_;
  QProgressBar* busy_ = nullptr;
  QLabel* timing_ = nullptr;
  QByteArray default_layout_;
  UnsavedPrompt unsaved_prompt_;
  std::vector<StageTime> update_stages_;
};

}  // namespace tilesight::ui
