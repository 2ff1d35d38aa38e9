#include "ui/recovery_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include "tilesight/util/json_input.h"

namespace tilesight::ui {

RecoveryFile::RecoveryFile(QString file) : file_(std::move(file)) {}

QString RecoveryFile::default_path() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/recovery.json");
}

QString RecoveryFile::write(const nlohmann::json& plan, const QString& path) const {
  QDir().mkpath(QFileInfo(file_).absolutePath());
  const nlohmann::json doc = {
      {"path", path.toStdString()},
      {"saved_at", QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()},
      {"plan", plan}};
  QSaveFile out(file_);
  if (!out.open(QIODevice::WriteOnly)) return out.errorString();
  const std::string text = doc.dump() + "\n";
  out.write(text.data(), static_cast<qint64>(text.size()));
  return out.commit() ? QString() : out.errorString();
}

std::optional<RecoveredWork> RecoveryFile::read() const {
  QFile in(file_);
  if (!in.open(QIODevice::ReadOnly)) return std::nullopt;
  const QByteArray bytes = in.readAll();
  auto doc = parse_json_text(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
  if (!doc || !doc->is_object() || !doc->contains("plan") || !(*doc)["plan"].is_object())
    return std::nullopt;
  RecoveredWork work;
  work.plan = (*doc)["plan"];
  work.path = QString::fromStdString(doc->value("path", std::string()));
  work.saved_at = QDateTime::fromString(QString::fromStdString(doc->value("saved_at", std::string())),
                                        Qt::ISODate);
  return work;
}

void RecoveryFile::remove() const {
  QFile::remove(file_);
}

}  // namespace tilesight::ui
