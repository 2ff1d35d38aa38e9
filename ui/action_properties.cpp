#include "ui/action_properties.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QResizeEvent>

#include "tilesight/plan/plan_json.h"
#include "tilesight/plan/tile_program.h"

namespace tilesight::ui {

ActionProperties::ActionProperties(QWidget* parent)
    : QWidget(parent),
      title_(new QLabel(this)),
      name_(new QLineEdit(this)),
      op_(new QComboBox(this)),
      result_(new QComboBox(this)),
      loop_(new QComboBox(this)),
      deps_(new QListWidget(this)) {
  for (auto op : plan::kAllOps) op_->addItem(QString::fromUtf8(plan::op_name(op).data()));
  for (auto p : plan::kAllPlacements)
    result_->addItem(QString::fromUtf8(plan::placement_name(p).data()));
  op_->setToolTip(tr("What the action does (§3.1): load, store, mma_tc, exp, ..."));
  result_->setToolTip(tr("Scratchpad level its result lands in"));
  loop_->setToolTip(tr("Innermost loop it runs in; the tile body runs once per tile"));
  deps_->setToolTip(tr("Actions of the same iteration it waits for"));
  // The other actions side by side, as many a row as fit ("[x] load_a  [x] load_b  [ ] ..."),
  // not one a line: a list of eight took 80 px of the editor's drawing.
  deps_->setFlow(QListView::LeftToRight);
  deps_->setWrapping(true);
  deps_->setResizeMode(QListView::Adjust);
  deps_->setSpacing(1);
  deps_->setMaximumHeight(64);
  deps_->setMinimumHeight(44);
  flops_ = amountBox(QStringLiteral("flops"), tr("Floating-point operations per execution"));
  bytes_ = amountBox(QStringLiteral("bytes"),
                     tr("Bytes moved (load/store) or read from the scratchpad (compute), per "
                        "execution"));
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(6, 2, 6, 2);
  grid->setVerticalSpacing(3);
  grid->setHorizontalSpacing(6);
  for (auto [label, field] : {std::pair<QString, QWidget*>{tr("name"), name_}, {tr("op"), op_},
                              {tr("FLOPs"), flops_}, {tr("bytes"), bytes_}, {tr("result in"), result_},
                              {tr("loop"), loop_}, {tr("deps"), deps_}})
  {
    fields_.append({new QLabel(label, this), field});
    field->setMinimumWidth(70);  // not the spin boxes' width of their largest value
  }
  arrange(1);

  connect(name_, &QLineEdit::editingFinished, this, [this] {
    if (!updating_ && name_->text() != action_ && !name_->text().isEmpty())
      emit fieldEdited(action_, QStringLiteral("name"), name_->text().toStdString());
  });
  for (auto [box, key] : {std::pair{op_, QStringLiteral("op")},
                          std::pair{result_, QStringLiteral("result")}})
    connect(box, &QComboBox::currentTextChanged, this, [this, key = key](const QString& v) {
      if (!updating_) emit fieldEdited(action_, key, v.toStdString());
    });
  connect(loop_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (updating_) return;
    emit fieldEdited(action_, QStringLiteral("loop"),
                     i <= 0 ? nlohmann::json() : nlohmann::json(loop_->currentText().toStdString()));
  });
  connect(deps_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    if (!updating_) emit depToggled(item->text(), action_, item->checkState() == Qt::Checked);
  });
  showAction(TileDag{}, {}, {});
}

// The title over the fields, two (or one) label-field pairs a row, the deps list on a row of
// its own across the panel.
void ActionProperties::arrange(int columns) {
  if (columns == columns_) return;
  columns_ = columns;
  auto* grid = static_cast<QGridLayout*>(layout());
  while (grid->count() > 0) delete grid->takeAt(0);  // the items, not the widgets
  grid->addWidget(title_, 0, 0, 1, 2 * columns);
  int i = 0;
  for (auto [label, field] : fields_) {
    const bool last = field == deps_;
    const int row = 1 + (last ? (i + columns - 1) / columns : i / columns);
    const int col = last ? 0 : 2 * (i % columns);
    grid->addWidget(label, row, col, last ? Qt::AlignTop : Qt::Alignment());
    grid->addWidget(field, row, col + 1, 1, last ? 2 * columns - 1 : 1);
    ++i;
  }
  for (int c = 0; c < 4; ++c) grid->setColumnStretch(c, c % 2 == 1 && c < 2 * columns ? 1 : 0);
}

void ActionProperties::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  arrange(event->size().width() >= kTwoColumnWidth ? 2 : 1);
}

QDoubleSpinBox* ActionProperties::amountBox(const QString& key, const QString& tip) {
  auto* box = new QDoubleSpinBox(this);
  box->setRange(0, plan::kMaxAmount);
  box->setDecimals(0);
  box->setGroupSeparatorShown(true);
  box->setKeyboardTracking(false);  // one edit when typing ends, not one per digit
  box->setToolTip(tip);
  connect(box, &QDoubleSpinBox::valueChanged, this, [this, key](double v) {
    if (!updating_) emit fieldEdited(action_, key, v);
  });
  return box;
}

void ActionProperties::showAction(const TileDag& dag, const QString& name, const QStringList& loops) {
  updating_ = true;
  const int i = dag.find(name.toStdString());
  action_ = i >= 0 ? name : QString();
  // No action: the title alone ("Select an action to edit it"), one line, so the drawing
  // above keeps the room that empty fields took.
  for (auto [label, field] : fields_) {
    label->setVisible(i >= 0);
    field->setVisible(i >= 0);
  }
  deps_->clear();
  loop_->clear();
  loop_->addItem(tr("(tile body)"));
  loop_->addItems(loops);
  if (i < 0) {
    title_->setText(dag.actions.empty() ? tr("<i>No plan</i>")
                                        : tr("<i>Select an action to edit it</i>"));
    name_->clear();
    flops_->setValue(0);
    bytes_->setValue(0);
    updating_ = false;
    return;
  }
  const DagAction& a = dag.actions[static_cast<std::size_t>(i)];
  title_->setText(tr("<b>%1</b>").arg(name.toHtmlEscaped()));
  name_->setText(name);
  op_->setCurrentText(QString::fromStdString(a.op));
  flops_->setValue(a.flops);
  bytes_->setValue(a.bytes);
  result_->setCurrentText(QString::fromStdString(a.result_level));
  loop_->setCurrentIndex(a.loop.empty() ? 0 : std::max(0, loop_->findText(QString::fromStdString(a.loop))));
  for (std::size_t j = 0; j < dag.actions.size(); ++j) {
    if (static_cast<int>(j) == i) continue;
    auto* item = new QListWidgetItem(QString::fromStdString(dag.actions[j].name), deps_);
    item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
    const bool dep = std::find(a.deps.begin(), a.deps.end(), j) != a.deps.end();
    item->setCheckState(dep ? Qt::Checked : Qt::Unchecked);
  }
  updating_ = false;
}

}  // namespace tilesight::ui
