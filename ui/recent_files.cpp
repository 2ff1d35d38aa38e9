#include "ui/recent_files.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace tilesight::ui {

namespace {
const char* const kKey = "recent/files";
}

RecentFiles::RecentFiles(QObject* parent) : QObject(parent) {}

void RecentFiles::add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList list = paths();
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMax) list.removeLast();
  QSettings().setValue(kKey, list);
}

QStringList RecentFiles::paths() const {
  return QSettings().value(kKey).toStringList();
}

void RecentFiles::clear() {
  QSettings().remove(kKey);
}

void RecentFiles::attach(QMenu* menu) {
  connect(menu, &QMenu::aboutToShow, this, [this, menu] { fill(menu); });
  fill(menu);
}

void RecentFiles::fill(QMenu* menu) {
  menu->clear();
  QStringList kept;
  for (const QString& path : paths())
    if (QFileInfo::exists(path)) kept << path;
  if (kept != paths()) QSettings().setValue(kKey, kept);
  int n = 0;
  for (const QString& path : kept) {
    const QString text = QStringLiteral("&%1 %2").arg(++n).arg(QDir::toNativeSeparators(path));
    menu->addAction(text, this, [this, path] { emit openRequested(path); });
  }
  if (kept.isEmpty()) menu->addAction(tr("(none)"))->setEnabled(false);
  menu->addSeparator();
  menu->addAction(tr("Clear list"), this, &RecentFiles::clear)->setEnabled(!kept.isEmpty());
}

}  // namespace tilesight::ui
