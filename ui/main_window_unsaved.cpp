// The main window's side of unsaved work: the recovery file written a moment after each edit
// and offered back at the next start, the last plan file reopened, and the question asked
// before an action would drop edits that are not saved.
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "ui/file_commands.h"
#include "ui/main_window.h"
#include "ui/plan_document.h"

namespace tilesight::ui {

namespace {
const char* const kPathKey = "plan/last_path";
}  // namespace

bool MainWindow::restoreLastPlan() {
  if (auto work = recovery_.read()) {
    session_.open(work->plan, work->path, true);
    return true;
  }
  const QString path = QSettings().value(kPathKey).toString();
  if (path.isEmpty() || !QFileInfo::exists(path)) return false;
  return files_->openPath(path, true).isEmpty();
}

bool MainWindow::offerRecovery() {
  const auto work = recovery_.read();
  if (!work) return restoreLastPlan();
  const QString source = work->path.isEmpty() ? tr("a new plan") : QFileInfo(work->path).fileName();
  const auto answer = QMessageBox::question(
      this, tr("Recover unsaved work?"),
      tr("TileSight was closed with unsaved edits of <b>%1</b> (%2, last edit %3).<p>Recover "
         "them? <i>Discard</i> deletes them.")
          .arg(source.toHtmlEscaped(), plan_title(work->plan).toHtmlEscaped(),
               QLocale().toString(work->saved_at.toLocalTime(), QLocale::ShortFormat)),
      QMessageBox::Yes | QMessageBox::Discard, QMessageBox::Yes);
  if (answer == QMessageBox::Yes) return restoreLastPlan();
  recovery_.remove();
  return restoreLastPlan();
}

// Unsaved work goes to the recovery file a moment after each edit; saved work removes it.
void MainWindow::writeRecoveryNow() {
  autosave_.stop();
  if (!session_.modified()) return recovery_.remove();
  if (const QString error = recovery_.write(session_.plan(), session_.path()); !error.isEmpty())
    statusBar()->showMessage(tr("Cannot write the recovery file: %1").arg(error), 8000);
}

// The last plan file for the next start (the edited document itself is in the recovery
// file while it differs from the file).
void MainWindow::saveSettings() const {
  QSettings().setValue(kPathKey, session_.path());
}

bool MainWindow::keepOrDropUnsavedWork(const QString& action) {
  if (!session_.modified()) return true;
  const auto answer = unsaved_prompt_ ? unsaved_prompt_(action) : askAboutUnsavedWork(action);
  if (answer == QMessageBox::Save) {
    files_->save();  // may ask for a file (an example, a new plan); a failure is reported
    return !session_.modified();
  }
  return answer == QMessageBox::Discard;
}

QMessageBox::StandardButton MainWindow::askAboutUnsavedWork(const QString& action) {
  const QString name = session_.path().isEmpty() ? plan_title(session_.plan())
                                                 : QFileInfo(session_.path()).fileName();
  QMessageBox box(QMessageBox::Warning, tr("Unsaved edits"),
                  tr("<b>%1</b> has edits that are not saved.").arg(name.toHtmlEscaped()),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
  box.setInformativeText(tr("Save them before %1?").arg(action));
  box.setDefaultButton(QMessageBox::Save);
  box.setEscapeButton(QMessageBox::Cancel);
  box.setObjectName(QStringLiteral("unsaved_dialog"));
  return static_cast<QMessageBox::StandardButton>(box.exec());
}

}  // namespace tilesight::ui
