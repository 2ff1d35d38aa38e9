#include "ui/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>

#include "tilesight/util/json_input.h"
#include "ui/config_panel.h"
#include "ui/envelope_view.h"
#include "ui/file_commands.h"
#include "ui/heatmap_view.h"
#include "ui/network_view.h"
#include "ui/plan_document.h"
#include "ui/report_view.h"
#include "ui/timeline_view.h"

// resources/tilesight.qrc is compiled into the static tilesight_ui library, so it has to be
// registered by hand (outside any namespace, as Q_INIT_RESOURCE requires).
static void init_tilesight_resources() {
  Q_INIT_RESOURCE(tilesight);
}

namespace tilesight::ui {

namespace {

constexpr int kLayoutVersion = 1;
const char* const kGeometryKey = "window/geometry";
const char* const kStateKey = "window/state";
const char* const kPlanKey = "plan/last_document";
const char* const kPathKey = "plan/last_path";
const char* const kModifiedKey = "plan/last_modified";

}  // namespace

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), options_(options), session_(this) {
  init_tilesight_resources();
  setWindowIcon(QIcon(QStringLiteral(":/icons/tilesight.svg")));
  timeline_ = new TimelineView(this);
  setCentralWidget(timeline_);
  files_ = new FileCommands(session_, this);
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
  envelope_ = new EnvelopeView(this);
  heatmap_ = new HeatmapView(this);
  network_ = new NetworkView(this);
  auto* config =
      addDock(tr("Configuration"), QStringLiteral("config"), config_, Qt::LeftDockWidgetArea);
  auto* report = addDock(tr("Report"), QStringLiteral("report"), report_, Qt::RightDockWidgetArea);
  auto* envelope =
      addDock(tr("Envelope"), QStringLiteral("envelope"), envelope_, Qt::BottomDockWidgetArea);
  auto* heatmap =
      addDock(tr("Cache heatmap"), QStringLiteral("heatmap"), heatmap_, Qt::BottomDockWidgetArea);
  auto* network =
      addDock(tr("Network lanes"), QStringLiteral("network"), network_, Qt::BottomDockWidgetArea);
  splitDockWidget(envelope, heatmap, Qt::Horizontal);
  splitDockWidget(heatmap, network, Qt::Horizontal);
  resizeDocks({config, report}, {290, 440}, Qt::Horizontal);
  resizeDocks({envelope, heatmap, network}, {420, 380, 260}, Qt::Horizontal);
  resizeDocks({envelope}, {330}, Qt::Vertical);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open plan…"), QKeySequence::Open, files_, &FileCommands::open);
  files_->fillExamplesMenu(file->addMenu(tr("Open &example")));
  file->addAction(tr("&Save plan as…"), QKeySequence::SaveAs, files_, &FileCommands::saveAs);
  file->addSeparator();
  file->addAction(tr("Export &report…"), files_, &FileCommands::exportReport);
  file->addAction(tr("Export &timeline trace…"), files_, &FileCommands::exportTrace);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About TileSight"), this, &MainWindow::showAbout);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
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
  connect(config_, &ConfigPanel::planEdited, &session_, &PlanSession::edit);
  connect(&session_, &PlanSession::predictionReady, this, [this](const report::Prediction& p) {
    report_->setPrediction(p);
    timeline_->setPrediction(p);
    envelope_->setPrediction(p);
    heatmap_->setPrediction(p);
    network_->setPrediction(p);
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
  if (options_.persist)
    connect(&session_, &PlanSession::planChanged, this, [this] { saveSettings(); });
}

void MainWindow::updateTitle() {
  QString title = plan_title(session_.plan());
  if (!session_.path().isEmpty())
    title += QStringLiteral(" (%1)").arg(QFileInfo(session_.path()).fileName());
  setWindowTitle(tr("%1[*] — TileSight").arg(title));
  setWindowModified(session_.modified());
}

bool MainWindow::restoreLastPlan() {
  QSettings settings;
  const QString text = settings.value(kPlanKey).toString();
  if (text.isEmpty()) return false;
  auto doc = parse_json_text(text.toStdString());
  if (!doc) return false;
  session_.open(*doc, settings.value(kPathKey).toString(), settings.value(kModifiedKey).toBool());
  return true;
}

// The edited plan goes to the settings on every change: an edit is never lost, even when
// the app is killed before the user saves.
void MainWindow::saveSettings() const {
  QSettings settings;
  settings.setValue(kPlanKey, QString::fromStdString(session_.plan().dump()));
  settings.setValue(kPathKey, session_.path());
  settings.setValue(kModifiedKey, session_.modified());
}

void MainWindow::restoreLayout() {
  if (!options_.persist) return;
  QSettings settings;
  restoreGeometry(settings.value(kGeometryKey).toByteArray());
  restoreState(settings.value(kStateKey).toByteArray(), kLayoutVersion);
}

void MainWindow::resetLayout() {
  restoreState(default_layout_, kLayoutVersion);
  for (auto* dock : findChildren<QDockWidget*>()) dock->show();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (options_.persist) {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState(kLayoutVersion));
    saveSettings();
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
