#include "ui/main_window.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <algorithm>
#include <filesystem>

#include "tilesight/util/data_dir.h"
#include "tilesight/util/json_input.h"
#include "ui/config_panel.h"
#include "ui/envelope_view.h"
#include "ui/file_commands.h"
#include "ui/heatmap_view.h"
#include "ui/network_view.h"
#include "ui/plan_document.h"
#include "ui/plan_editor.h"
#include "ui/help_pages.h"
#include "ui/recent_files.h"
#include "ui/view_export.h"
#include "tilesight/hw/profile_loader.h"
#include "ui/report_view.h"
#include "ui/timeline_view.h"
#include "ui/validation_view.h"
#include "ui/what_if_view.h"

// resources/tilesight.qrc is compiled into the static tilesight_ui library, so it has to be
// registered by hand (outside any namespace, as Q_INIT_RESOURCE requires).
static void init_tilesight_resources() {
  Q_INIT_RESOURCE(tilesight);
}

namespace tilesight::ui {

namespace {

constexpr int kLayoutVersion = 2;  // 2: the What-if topology dock
const char* const kGeometryKey = "window/geometry";
const char* const kStateKey = "window/state";
constexpr int kAutosaveMs = 500;

// A local .json file among dragged URLs.
QString dropped_plan(const QMimeData* mime) {
  if (!mime || !mime->hasUrls()) return {};
  for (const QUrl& url : mime->urls())
    if (url.isLocalFile() && url.toLocalFile().endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
      return url.toLocalFile();
  return {};
}

}  // namespace

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), options_(options), session_(this) {
  init_tilesight_resources();
  setWindowIcon(QIcon(QStringLiteral(":/icons/tilesight.svg")));
  timeline_ = new TimelineView(this);
  setCentralWidget(timeline_);
  files_ = new FileCommands(session_, this);
  recent_ = new RecentFiles(this);
  setAcceptDrops(true);
  autosave_.setSingleShot(true);
  autosave_.setInterval(kAutosaveMs);
  connect(&autosave_, &QTimer::timeout, this, &MainWindow::writeRecoveryNow);
  files_->setReplaceGuard([this](const QString& path) {
    return keepOrDropUnsavedWork(tr("opening %1").arg(QFileInfo(path).fileName()));
  });
  createDocks();
  createMenus();
  createStatusBar();
  connectSession();
  default_layout_ = saveState(kLayoutVersion);
  resize(1600, 1000);
  restoreLayout();
  updateTitle();
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& name, QWidget* view,
                                 Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name);  // saveState/restoreState key
  dock->setWidget(view);
  addDockWidget(area, dock);
  return dock;
}

void MainWindow::createDocks() {
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  setDockNestingEnabled(true);
  config_ = new ConfigPanel(this);
  report_ = new ReportView(this);
  // In a small window (1280x800) the timeline gives up width, not the report: narrower, its
  // latency broke over two lines and its labels mid-word ("Envel ope").
  report_->setMinimumWidth(kReportMinWidth);
  envelope_ = new EnvelopeView(this);
  heatmap_ = new HeatmapView(this);
  network_ = new NetworkView(this);
  editor_ = new PlanEditor(this);
  addDock(tr("Configuration"), QStringLiteral("config"), config_, Qt::LeftDockWidgetArea);
  auto* report = addDock(tr("Report"), QStringLiteral("report"), report_, Qt::RightDockWidgetArea);
  auto* editor =
      addDock(tr("Plan editor"), QStringLiteral("plan_editor"), editor_, Qt::RightDockWidgetArea);
  splitDockWidget(report, editor, Qt::Vertical);
  auto* envelope =
      addDock(tr("Envelope"), QStringLiteral("envelope"), envelope_, Qt::BottomDockWidgetArea);
  auto* heatmap =
      addDock(tr("Cache heatmap"), QStringLiteral("heatmap"), heatmap_, Qt::BottomDockWidgetArea);
  auto* network =
      addDock(tr("Network lanes"), QStringLiteral("network"), network_, Qt::BottomDockWidgetArea);
  splitDockWidget(envelope, heatmap, Qt::Horizontal);
  splitDockWidget(heatmap, network, Qt::Horizontal);
  what_if_ = new WhatIfView(this);
  auto* what_if = addDock(tr("What-if topology"), QStringLiteral("what_if"), what_if_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(network, what_if);
  network->raise();
  applyDefaultSizes();
}

// The default layout's shares of the window, as pixels of the default 1600x1000 one, fewer
// in a narrower window. Set again once the window is shown at its size: set before, they
// were shared out of a window not laid out yet, and the configuration came out 225 px wide
// (its sliders 40 px), the report 375.
void MainWindow::applyDefaultSizes() {
  const auto dock = [this](const char* name) {
    return findChild<QDockWidget*>(QLatin1String(name));
  };
  const double narrower = std::min(1.0, width() / 1600.0);
  const auto px = [narrower](int pixels) { return static_cast<int>(pixels * narrower); };
  // The configuration keeps room for its sliders beside the spin boxes.
  resizeDocks({dock("config"), dock("report")}, {std::max(kConfigWidth, px(290)), px(440)},
              Qt::Horizontal);
  // The network lanes need room for link names, a time axis and percentages (narrower, they
  // put each name above its bars: NetworkLanes).
  resizeDocks({dock("envelope"), dock("heatmap"), dock("network")}, {px(400), px(340), px(300)},
              Qt::Horizontal);
  resizeDocks({dock("envelope")}, {330}, Qt::Vertical);
  // The report's utilisation table whole above the editor (its diagnosis scrolls), the
  // editor's drawing and its property form below it.
  resizeDocks({dock("report"), dock("plan_editor")}, {510, 440}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (sized_) return;
  sized_ = true;
  if (!layout_restored_) applyDefaultSizes();
}

void MainWindow::createMenus() {
  createFileMenu();
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = session_.undoStack().createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = session_.undoStack().createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);

  files_->fillExamplesMenu(menuBar()->addMenu(tr("E&xamples")));
  createHardwareMenu();

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  fill_help_menu(help->addMenu(tr("&Views")), this);
  help->addSeparator();
  help->addAction(tr("&About TileSight"), this, &MainWindow::showAbout);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createFileMenu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open plan…"), QKeySequence::Open, files_, &FileCommands::open);
  recent_->attach(file->addMenu(tr("Open &recent")));
  connect(recent_, &RecentFiles::openRequested, files_,
          [this](const QString& path) { files_->openPath(path); });
  connect(files_, &FileCommands::fileUsed, recent_, &RecentFiles::add);
  file->addAction(tr("&Save plan"), QKeySequence::Save, files_, &FileCommands::save);
  file->addAction(tr("Save plan &as…"), QKeySequence::SaveAs, files_, &FileCommands::saveAs);
  file->addSeparator();
  file->addAction(tr("Open &validation corpus…"), this, [this] {
    const auto root = data_dir();
    const QString start = root && std::filesystem::exists(*root / "tests" / "validation")
                              ? QString::fromStdString((*root / "tests" / "validation").string())
                              : QDir::currentPath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open validation corpus"), start,
                                                      tr("Measured corpora (*.csv);;All files (*)"));
    if (!path.isEmpty()) openValidationCorpus(path);
  });
  file->addSeparator();
  file->addAction(tr("Export &report…"), files_, &FileCommands::exportReport);
  file->addAction(tr("Export &timeline trace…"), files_, &FileCommands::exportTrace);
  QMenu* views = file->addMenu(tr("Export &view (PNG, SVG, PDF)"));
  views->addAction(tr("Main window…"), this, [this] { exportView(this, tr("TileSight")); });
  views->addAction(tr("Timeline…"), this, [this] { exportView(timeline_, tr("Timeline")); });
  for (auto* dock : findChildren<QDockWidget*>())
    views->addAction(dock->windowTitle() + QStringLiteral("…"), this,
                     [this, dock] { exportView(dock->widget(), dock->windowTitle()); });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

// One checkable entry per profile of hw_profiles/; picking one is an undoable edit.
void MainWindow::createHardwareMenu() {
  QMenu* menu = menuBar()->addMenu(tr("&Hardware"));
  auto* group = new QActionGroup(menu);
  for (const auto& name : hw::list_profiles()) {
    QAction* action = menu->addAction(QString::fromStdString(name));
    action->setCheckable(true);
    action->setActionGroup(group);
    connect(action, &QAction::triggered, this, [this, name] {
      session_.edit(with_hardware(session_.plan(), name),
                    tr("Hardware %1").arg(QString::fromStdString(name)));
    });
  }
  connect(&session_, &PlanSession::planChanged, menu, [group](const nlohmann::json& plan) {
    const QString hw = QString::fromStdString(plan_hardware(plan));
    for (QAction* action : group->actions()) action->setChecked(action->text() == hw);
  });
}

void MainWindow::createStatusBar() {
  busy_ = new QProgressBar(this);
  busy_->setRange(0, 0);  // indeterminate: the engine is running
  busy_->setMaximumWidth(120);
  busy_->setMaximumHeight(14);
  busy_->setTextVisible(false);
  busy_->hide();
  timing_ = new QLabel(this);
  statusBar()->addPermanentWidget(busy_);
  statusBar()->addPermanentWidget(timing_);
}

void MainWindow::connectSession() {
  connect(&session_, &PlanSession::planReplaced, config_, &ConfigPanel::setPlan);
  connect(&session_, &PlanSession::planChanged, config_, [this](const nlohmann::json& plan) {
    if (plan != config_->plan()) config_->setPlan(plan);  // an edit from elsewhere than the panel
  });
  connect(&session_, &PlanSession::planReplaced, this, &MainWindow::updateTitle);
  connect(&session_, &PlanSession::modifiedChanged, this, &MainWindow::updateTitle);
  connect(config_, &ConfigPanel::planEdited, &session_,
          [this](const nlohmann::json& doc, const QString& label, bool merge) { session_.edit(doc, label, merge); });
  connect(&session_, &PlanSession::planChanged, editor_, &PlanEditor::setPlan);
  connect(editor_, &PlanEditor::planEdited, &session_,
          [this](const nlohmann::json& doc, const QString& label) { session_.edit(doc, label); });
  // Linked selection: an action picked in the DAG outlines its bars, a bar picks its action.
  connect(editor_, &PlanEditor::actionSelected, timeline_, &TimelineView::highlightAction);
  connect(timeline_, &TimelineView::actionClicked, editor_, &PlanEditor::selectAction);
  connect(editor_, &PlanEditor::editRefused, this,
          [this](const QString& why) { statusBar()->showMessage(why, 8000); });
  connect(&session_, &PlanSession::predictionReady, this, [this](const report::Prediction& p) {
    update_stages_.clear();
    QElapsedTimer clock;
    const auto stage = [&](const char* view, auto&& set) {
      clock.start();
      set();
      update_stages_.push_back({view, static_cast<double>(clock.nsecsElapsed()) / 1e6});
    };
    stage("report", [&] { report_->setPrediction(p); });
    stage("timeline", [&] { timeline_->setPrediction(p); });
    stage("envelope", [&] { envelope_->setPrediction(p); });
    stage("heatmap", [&] { heatmap_->setPrediction(p); });
    stage("network", [&] { network_->setPrediction(p); });
    stage("plan editor", [&] { editor_->setPrediction(p); });
    stage("what-if", [&] { what_if_->setPrediction(p, session_.predictedPlan()); });
    stage("config panel", [&] { config_->showEngineChoices(p, session_.predictedPlan()); });
    statusBar()->clearMessage();
  });
  connect(&session_, &PlanSession::predictionFailed, report_, &ReportView::showErrors);
  connect(&session_, &PlanSession::predictionFailed, this, [this](const Errors& errors) {
    statusBar()->showMessage(
        tr("The plan cannot run: %1").arg(QString::fromStdString(errors.front().to_string())),
        8000);
  });
  connect(&session_, &PlanSession::busyChanged, busy_, &QWidget::setVisible);
  connect(&session_, &PlanSession::timingMeasured, this,
          [this](double update_ms, double engine_ms) {
            timing_->setText(tr("updated in %1 ms (engine %2 ms)")
                                 .arg(update_ms, 0, 'f', 1)
                                 .arg(engine_ms, 0, 'f', 1));
          });
  connect(files_, &FileCommands::problemReported, this,
          [this](const QString& title) { statusBar()->showMessage(title, 8000); });
  if (options_.persist) {
    connect(&session_, &PlanSession::planChanged, this, [this] { saveSettings(); });
    connect(&session_, &PlanSession::planChanged, &autosave_, qOverload<>(&QTimer::start));
    connect(&session_, &PlanSession::modifiedChanged, &autosave_, qOverload<>(&QTimer::start));
  }
}

void MainWindow::updateTitle() {
  QString title = plan_title(session_.plan());
  if (!session_.path().isEmpty())
    title += QStringLiteral(" (%1)").arg(QFileInfo(session_.path()).fileName());
  setWindowTitle(tr("%1[*] — TileSight").arg(title));
  setWindowModified(session_.modified());
}

void MainWindow::exportView(QWidget* view, const QString& title) {
  QString name = title.toLower().replace(QLatin1Char(' '), QLatin1Char('_'));
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export %1").arg(title), QDir::current().filePath(name + QStringLiteral(".png")),
      export_view_filter());
  if (path.isEmpty()) return;
  if (const QString error = export_view(*view, path, title); !error.isEmpty())
    QMessageBox::warning(this, tr("Cannot export"), tr("Cannot write %1: %2").arg(path, error));
  else
    statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!dropped_plan(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  if (openDroppedPlan(event->mimeData())) event->acceptProposedAction();
}

bool MainWindow::openDroppedPlan(const QMimeData* mime) {
  const QString path = dropped_plan(mime);
  if (path.isEmpty()) return false;
  files_->openPath(path);  // a bad file is reported, the current plan kept
  return true;
}

void MainWindow::restoreLayout() {
  if (!options_.persist) return;
  QSettings settings;
  restoreGeometry(settings.value(kGeometryKey).toByteArray());
  layout_restored_ = restoreState(settings.value(kStateKey).toByteArray(), kLayoutVersion);
}

void MainWindow::resetLayout() {
  restoreState(default_layout_, kLayoutVersion);
  for (auto* dock : findChildren<QDockWidget*>()) dock->show();
  applyDefaultSizes();
}

ValidationView* MainWindow::openValidationCorpus(const QString& path) {
  if (!validation_) {
    validation_ = new ValidationView(this);
    validation_->setWindowFlag(Qt::Window);
    connect(validation_, &ValidationView::configurationRequested, this,
            [this](const nlohmann::json& plan, const QString& label) {
              if (!keepOrDropUnsavedWork(tr("opening %1").arg(label))) return;
              session_.open(plan, QString());
              statusBar()->showMessage(tr("Opened %1 from the validation corpus").arg(label), 5000);
              raise();
              activateWindow();
            });
  }
  validation_->open(guess_setup(path, plan_hardware(session_.plan())));
  validation_->show();
  validation_->raise();
  return validation_;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!keepOrDropUnsavedWork(tr("closing TileSight"))) return event->ignore();
  if (options_.persist) {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState(kLayoutVersion));
    saveSettings();
    // Saved or discarded on purpose: nothing to recover at the next start (the recovery
    // file is for a crash or a kill).
    autosave_.stop();
    recovery_.remove();
  }
  event->accept();
}

void MainWindow::showAbout() {
  QMessageBox::about(
      this, tr("About TileSight"),
      tr("<h3>TileSight %1</h3><p>Predicts how a tiled GPU kernel performs before it runs, and "
         "shows why: latency, the prologue/steady/epilogue envelope, per-pipeline utilisation, "
         "waves, cache behaviour and the bottleneck.</p>"
         "<p>Licence: GPL-3.0-or-later. This program comes with ABSOLUTELY NO WARRANTY.</p>"
         "<p>Built with Qt %2 and QCustomPlot.</p>")
          .arg(QStringLiteral(TILESIGHT_VERSION), QString::fromLatin1(qVersion())));
}

}  // namespace tilesight::ui
