#include "ui/plan_document.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include "tilesight/model/distributed.h"
#include "tilesight/kernels/plan_input.h"
#include "tilesight/util/data_dir.h"
#include "tilesight/util/json_input.h"
#include "ui/json_locator.h"
#include "ui/plan_edits.h"

namespace tilesight::ui {

PlanKind plan_kind(const nlohmann::json& doc) {
  // A lifted program keeps "kernel" (to_json writes it) but has actions: not a template.
  if (!is_template_instance(doc)) return PlanKind::kTileProgram;
  const auto& kernel = doc["kernel"];
  if (kernel.is_string() && kernel.get<std::string>() == "gemm") return PlanKind::kGemmTemplate;
  return PlanKind::kOtherTemplate;
}

Result<nlohmann::json> load_plan_file(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    return Error{"", "cannot open: " + file.errorString().toStdString()};
  const QByteArray bytes = file.readAll();
  auto doc =
      parse_json_text(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
  return doc;
}

Result<nlohmann::json> read_plan_file(const QString& path) {
  auto doc = load_plan_file(path);
  if (!doc) return doc;
  Errors errors;
  if (model::is_distributed_plan(*doc)) {
    // Plans on system profiles (collectives, fused kernels, llm_decode) have no reader of
    // their own: the engine reads them as it predicts (a few ms, no timeline). A hardware
    // name it does not know still opens, as a tile plan's does: the hardware selector
    // fixes it, and the report says why nothing runs until then.
    auto predicted = model::predict_distributed(*doc, "");
    if (predicted) return doc;
    for (const auto& e : predicted.errors())
      if (e.path != "hardware") errors.push_back(e);
    if (errors.empty()) return doc;
  } else {
    auto plan = kernels::read_plan(*doc);
    if (plan) return doc;
    errors = plan.errors();
  }
  // The reader names the field; the dialog names its line too.
  QFile file(path);
  const QByteArray bytes = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
  const std::string_view text(bytes.constData(), static_cast<std::size_t>(bytes.size()));
  for (auto& e : errors)
    if (e.line == 0 && !e.path.empty()) e.line = line_of_json_path(text, e.path);
  return errors;
}

QString save_plan_file(const nlohmann::json& doc, const QString& path) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return file.errorString();
  const std::string text = doc.dump(2) + "\n";
  file.write(text.data(), static_cast<qint64>(text.size()));
  if (!file.commit()) return file.errorString();
  return {};
}

std::optional<QString> default_plan_path() {
  const auto dir = data_dir();
  if (!dir) return std::nullopt;
  const auto path = *dir / "resources" / "examples" / "gemm_h200.json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  return QString::fromStdString(path.string());
}

QStringList example_plan_paths() {
  const auto dir = data_dir();
  if (!dir) return {};
  QDir examples(QString::fromStdString((*dir / "resources" / "examples").string()));
  QStringList paths;
  for (const QFileInfo& info : examples.entryInfoList({"*.json"}, QDir::Files, QDir::Name))
    paths << info.absoluteFilePath();
  return paths;
}

std::string plan_hardware(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("hardware") || !doc["hardware"].is_string()) return {};
  return doc["hardware"].get<std::string>();
}

nlohmann::json with_hardware(nlohmann::json doc, const std::string& hardware) {
  if (doc.is_object()) doc["hardware"] = hardware;
  return doc;
}

QString plan_title(const nlohmann::json& doc) {
  if (!doc.is_object()) return QStringLiteral("(not a plan)");
  if (doc.contains("name") && doc["name"].is_string() && !doc["name"].get<std::string>().empty())
    return QString::fromStdString(doc["name"].get<std::string>());
  if (plan_kind(doc) != PlanKind::kGemmTemplate || !doc.contains("params") ||
      !doc["params"].is_object())
    return QStringLiteral("tile program");
  const auto& p = doc["params"];
  auto dim = [&](const char* key) {
    return p.contains(key) ? QString::fromStdString(p[key].dump()) : QStringLiteral("?");
  };
  QString dtype = p.contains("dtype") && p["dtype"].is_string()
                      ? QString::fromStdString(p["dtype"].get<std::string>())
                      : QStringLiteral("bf16");
  return QStringLiteral("gemm %1×%2×%3 %4").arg(dim("M"), dim("N"), dim("K"), dtype);
}

}  // namespace tilesight::ui
