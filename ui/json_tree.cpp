#include "ui/json_tree.h"

#include <QHeaderView>
#include <QTreeWidget>

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

void add_children(QTreeWidgetItem* parent, const nlohmann::json& v) {
  auto add = [&](const QString& key, const nlohmann::json& child) {
    auto* item = new QTreeWidgetItem(parent, {key, value_text(child)});
    item->setToolTip(1, QString::fromStdString(child.dump(2)).left(2000));
    if (child.is_structured()) add_children(item, child);
  };
  if (v.is_object())
    for (auto it = v.begin(); it != v.end(); ++it)
      add(QString::fromStdString(it.key()), it.value());
  else if (v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i) add(element_key(i, v[i]), v[i]);
}

}  // namespace

void fill_json_tree(QTreeWidget& tree, const nlohmann::json& doc) {
  tree.clear();
  tree.setColumnCount(2);
  tree.setHeaderLabels({QObject::tr("Field"), QObject::tr("Value")});
  auto* root = tree.invisibleRootItem();
  add_children(root, doc);
  for (int i = 0; i < root->childCount(); ++i) root->child(i)->setExpanded(true);
  tree.header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
}

}  // namespace tilesight::ui
