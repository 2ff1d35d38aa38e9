#include "ui/json_tree.h"

#include <QHeaderView>
#include <QObject>
#include <QStringList>
#include <QStandardItemModel>
#include <QTreeView>

#include <nlohmann/json.hpp>

namespace tilesight::ui {

namespace {

constexpr int kCompactChars = 240;  // the column elides the rest; the tooltip has it all

QString scalar_text(const nlohmann::json& v) {
  return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString::fromStdString(v.dump());
}

const nlohmann::json* element_name(const nlohmann::json& element) {
  for (const char* field : {"name", "tensor"})
    if (element.is_object() && element.contains(field) && element[field].is_string()) return &element[field];
  return nullptr;
}

// What a branch holds, to read without opening it: a list of named elements by their names
// ("4: load_a, load_b, mma, store_c"; "[m, n]" as a field), an object by its fields ("op load, bytes 16384, deps
// [load_a, load_b], ..."; a nested object "{…}"), plain arrays and scalars as JSON.
QString value_text(const nlohmann::json& v, bool nested = false) {
  if (!v.is_structured()) return scalar_text(v);
  QStringList parts;
  if (v.is_array()) {
    bool plain = true;
    for (const auto& e : v) plain = plain && (!e.is_structured() || element_name(e));
    if (!plain) return v.size() == 1 ? QObject::tr("1 item") : QObject::tr("%1 items").arg(v.size());
    for (const auto& e : v) parts << (e.is_structured() ? scalar_text(*element_name(e)) : scalar_text(e));
    const QString list = QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
    return nested || v.empty() || !v.front().is_structured() ? list.left(kCompactChars)
                                                   : QStringLiteral("%1: %2").arg(v.size()).arg(parts.join(QStringLiteral(", "))).left(kCompactChars);
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() == "name") continue;  // beside the index already
    const QString key = QString::fromStdString(it.key());
    parts << key + QLatin1Char(' ') +
                 (it->is_object() ? QStringLiteral("{…}") : value_text(*it, true));
  }
  return parts.join(QStringLiteral(", ")).left(kCompactChars);
}

// "[2] mma" for an element that has a name: actions, tensors, loops read at a glance.
QString element_key(std::size_t i, const nlohmann::json& element) {
  const QString key = QStringLiteral("[%1]").arg(i);
  const nlohmann::json* name = element_name(element);
  return name ? key + QLatin1Char(' ') + scalar_text(*name) : key;
}

void add_children(QStandardItem* parent, const nlohmann::json& v) {
  auto add = [&](const QString& key, const nlohmann::json& child) {
    auto* field = new QStandardItem(key);
    auto* value = new QStandardItem(value_text(child));
    field->setEditable(false);
    value->setEditable(false);
    value->setToolTip(QString::fromStdString(child.dump(2)).left(2000));
    if (child.is_structured()) add_children(field, child);  // before the row goes in: one insert
    parent->appendRow({field, value});
  };
  if (v.is_object())
    for (auto it = v.begin(); it != v.end(); ++it)
      add(QString::fromStdString(it.key()), it.value());
  else if (v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i) add(element_key(i, v[i]), v[i]);
}

}  // namespace

void fill_json_model(QStandardItemModel& model, const nlohmann::json& doc) {
  model.clear();
  model.setColumnCount(2);
  model.setHorizontalHeaderLabels({QObject::tr("Field"), QObject::tr("Value")});
  add_children(model.invisibleRootItem(), doc);
}

void show_json_tree(QTreeView& tree) {
  const QAbstractItemModel* model = tree.model();
  for (int i = 0; model && i < model->rowCount(); ++i) tree.expand(model->index(i, 0));
  tree.header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
}

}  // namespace tilesight::ui
