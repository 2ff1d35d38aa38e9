#include "ui/file_commands.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>

#include "tilesight/report/chrome_trace.h"
#include "tilesight/report/json_report.h"
#include "tilesight/report/text_report.h"
#include "ui/plan_document.h"
#include "ui/plan_session.h"

namespace tilesight::ui {

namespace {

QString plan_filter() {
  return QObject::tr("TileSight plans (*.json);;All files (*)");
}

QString write_text(const QString& path, const std::string& text) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return file.errorString();
  file.write(text.data(), static_cast<qint64>(text.size()));
  return file.commit() ? QString() : file.errorString();
}

QString errors_html(const Errors& errors) {
  QString s;
  for (const auto& e : errors)
    s += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(e.to_string()).toHtmlEscaped());
  return QStringLiteral("<ul>") + s + QStringLiteral("</ul>");
}

}  // namespace

FileCommands::FileCommands(PlanSession& session, QWidget* window)
    : QObject(window), session_(session), window_(window) {}

QString FileCommands::openPath(const QString& path, bool quiet) {
  // A bad file never replaces the current plan: the user keeps what they were editing.
  auto doc = read_plan_file(path);
  if (doc) {
    if (guard_ && !guard_(path))
      return tr("%1 not opened: the unsaved edits of the current plan were kept")
          .arg(QFileInfo(path).fileName());
    session_.open(*doc, QFileInfo(path).absoluteFilePath());
    emit fileUsed(QFileInfo(path).absoluteFilePath());
    return {};
  }
  const QString name = QFileInfo(path).fileName();
  if (!quiet)
    complain(tr("Cannot open plan"),
             tr("<b>%1</b> is not a plan TileSight can read:%2<p>Folder: %3</p>")
                 .arg(name.toHtmlEscaped(), errors_html(doc.errors()),
                      QFileInfo(path).absolutePath().toHtmlEscaped()));
  return name + QStringLiteral(": ") + QString::fromStdString(doc.error_text("; "));
}

void FileCommands::open() {
  const QString path =
      QFileDialog::getOpenFileName(window_, tr("Open plan"), startFolder(), plan_filter());
  if (!path.isEmpty()) openPath(path);
}

void FileCommands::save() {
  const QString path = session_.path();
  const bool example = example_plan_paths().contains(path);
  if (path.isEmpty() || example || !QFileInfo(path).isWritable()) return saveAs();
  if (const QString error = savePath(path); !error.isEmpty())
    complain(tr("Cannot save plan"), tr("Cannot write %1: %2").arg(path, error));
}

QString FileCommands::savePath(const QString& path) {
  if (const QString error = save_plan_file(session_.plan(), path); !error.isEmpty()) return error;
  session_.markSaved(QFileInfo(path).absoluteFilePath());
  emit fileUsed(QFileInfo(path).absoluteFilePath());
  return {};
}

void FileCommands::saveAs() {
  QString suggested = session_.path();
  if (suggested.isEmpty() || !QFileInfo(suggested).isWritable())
    suggested = startFolder() + QStringLiteral("/plan.json");
  const QString path =
      QFileDialog::getSaveFileName(window_, tr("Save plan as"), suggested, plan_filter());
  if (path.isEmpty()) return;
  if (const QString error = savePath(path); !error.isEmpty())
    complain(tr("Cannot save plan"), tr("Cannot write %1: %2").arg(path, error));
}

QString FileCommands::writeReport(const QString& path) const {
  const auto& p = session_.prediction();
  if (!p) return tr("there is no prediction yet");
  if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
    return write_text(path, report::to_json(*p, {.timeline = true}).dump(2) + "\n");
  return write_text(path, report::to_text(*p));
}

QString FileCommands::writeTrace(const QString& path) const {
  const auto& p = session_.prediction();
  if (!p) return tr("there is no prediction yet");
  return write_text(path, report::to_chrome_trace(*p).dump() + "\n");
}

void FileCommands::exportReport() {
  QString filter;
  const QString path = QFileDialog::getSaveFileName(
      window_, tr("Export report"), startFolder() + QStringLiteral("/report.txt"),
      tr("Text report (*.txt);;JSON report (*.json)"), &filter);
  if (path.isEmpty()) return;
  if (const QString error = writeReport(path); !error.isEmpty())
    complain(tr("Cannot export report"), tr("Cannot write %1: %2").arg(path, error));
}

void FileCommands::exportTrace() {
  const QString path = QFileDialog::getSaveFileName(
      window_, tr("Export timeline trace"), startFolder() + QStringLiteral("/timeline.trace.json"),
      tr("Chrome trace for Perfetto (*.json)"));
  if (path.isEmpty()) return;
  if (const QString error = writeTrace(path); !error.isEmpty())
    complain(tr("Cannot export trace"), tr("Cannot write %1: %2").arg(path, error));
}

void FileCommands::fillExamplesMenu(QMenu* menu) {
  const QStringList paths = example_plan_paths();
  for (const QString& path : paths)
    menu->addAction(QFileInfo(path).completeBaseName(), this, [this, path] { openPath(path); });
  menu->setEnabled(!paths.isEmpty());
}

QString FileCommands::startFolder() const {
  if (!session_.path().isEmpty()) return QFileInfo(session_.path()).absolutePath();
  return QDir::currentPath();
}

// Window-modal but not blocking: the event loop (and the worker's results) keep running.
void FileCommands::complain(const QString& title, const QString& message) {
  emit problemReported(title, message);
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, window_);
  box->setObjectName(QStringLiteral("problem_dialog"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

}  // namespace tilesight::ui
