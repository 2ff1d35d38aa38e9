#include "ui/json_tree.h"

#include <QHeaderView>
#include <QStandardItemModel>
#include <QTreeView>

#include <nlohmann/json.hpp>

namespace tilesight::ui {

namespace {

constexpr int kCompactChars = 240;  // the column elides the rest; the tooltip has it all

QString value_text(const nlohmann::json& v) {
  if (v.is_string()) return QString::fromStdString(v.get<std::string>());
  return QString::fromStdString(v.dump()).left(kCompactChars);
}

// "[2] mma" for an element that has a name: actions, tensors, loops read at a glance.
QString element_key(std::size_t i, const nlohmann::json& element) {
  QString key = QStringLiteral("[%1]").arg(i);
  for (const char* field : {"name", "tensor"})
    if (element.is_object() && element.contains(field) && element[field].is_string())
      return key + QLatin1Char(' ') + QString::fromStdString(element[field].get<std::string>());
  return key;
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
