// File > Open recent: the last plans opened or saved, newest first, kept in QSettings
// ("recent/files"); files that have disappeared are dropped when the menu opens.
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace tilesight::ui {

class RecentFiles : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMax = 8;

  explicit RecentFiles(QObject* parent = nullptr);

  void add(const QString& path);
  QStringList paths() const;
  void clear();
  // Fills `menu` each time it is about to show; picking an entry emits openRequested.
  void attach(QMenu* menu);

 signals:
  void openRequested(const QString& path);

 private:
  void fill(QMenu* menu);
};

}  // namespace tilesight::ui
