// Unsaved work kept on disk while the app runs, so that a crash or a kill loses nothing:
// the edited plan and the file it came from, written atomically (QSaveFile) to
// <AppDataLocation>/recovery.json a moment after each edit, removed once the plan is saved
// or the edits are undone back to the saved state. On the next start the app offers it.
//
//   {"path": "/home/me/plans/gemm.json", "saved_at": "2026-11-29T17:02:11Z",
//    "plan": {"kernel": "gemm", ...}}
#pragma once

#include <QDateTime>
#include <QString>
#include <optional>

#include <nlohmann/json.hpp>

namespace tilesight::ui {

struct RecoveredWork {
  nlohmann::json plan;
  QString path;  // the plan's file, "" when it never had one
  QDateTime saved_at;
};

class RecoveryFile {
 public:
  // The default location, or another file (tests).
  explicit RecoveryFile(QString file = default_path());
  static QString default_path();

  QString write(const nlohmann::json& plan, const QString& path) const;  // "" on success
  std::optional<RecoveredWork> read() const;  // nullopt when there is none or it is unreadable
  void remove() const;
  const QString& file() const { return file_; }

 private:
  QString file_;
};

}  // namespace tilesight::ui
