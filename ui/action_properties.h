// The plan editor's property panel: the selected action's fields, each one edit away from
// a new prediction. With no action selected, one line saying to select one. Two fields a row
// where the panel is at least kTwoColumnWidth wide (a dock of the default window), one a row
// when narrower:
//
//   name    [mma          ]      op      [mma_tc ▾]
//   FLOPs   [2,097,152    ]      bytes   [32,768  ]
//   result  [register ▾]         loop    [k ▾]
//   deps    [x] load_a  [x] load_b  [ ] store_c
#pragma once

#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "ui/tile_dag.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace tilesight::ui {

class ActionProperties : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kTwoColumnWidth = 330;

  explicit ActionProperties(QWidget* parent = nullptr);

  // Shows action `name` of the DAG (nothing when it is not there); `loops` are the plan's
  // loop names for the loop selector.
  void showAction(const TileDag& dag, const QString& name, const QStringList& loops);
  QString action() const { return action_; }

  QLineEdit* nameEdit() const { return name_; }
  QComboBox* opBox() const { return op_; }
  QDoubleSpinBox* flopsBox() const { return flops_; }
  QDoubleSpinBox* bytesBox() const { return bytes_; }
  QComboBox* resultBox() const { return result_; }
  QComboBox* loopBox() const { return loop_; }
  QListWidget* depsList() const { return deps_; }
  int columns() const { return columns_; }

 signals:
  // key as in the plan format: "name", "op", "flops", "bytes", "result", "loop".
  void fieldEdited(const QString& action, const QString& key, const nlohmann::json& value);
  void depToggled(const QString& from, const QString& to, bool depends);

 protected:
  void resizeEvent(QResizeEvent* event) override;  // two columns or one

 private:
  void arrange(int columns);
  QDoubleSpinBox* amountBox(const QString& key, const QString& tip);

  QString action_;
  QLabel* title_ = nullptr;
  QLineEdit* name_ = nullptr;
  QComboBox* op_ = nullptr;
  QDoubleSpinBox* flops_ = nullptr;
  QDoubleSpinBox* bytes_ = nullptr;
  QComboBox* result_ = nullptr;
  QComboBox* loop_ = nullptr;
  QListWidget* deps_ = nullptr;
  QList<QPair<QLabel*, QWidget*>> fields_;  // in reading order, deps last
  int columns_ = 0;
  bool updating_ = false;
};

}  // namespace tilesight::ui
