#include "ui/action_properties.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>

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
  deps_->setMaximumHeight(80);
  flops_ = amountBox(QStringLiteral("flops"), tr("Floating-point operations per execution"));
  bytes_ = amountBox(QStringLiteral("bytes"),
                     tr("Bytes moved (load/store) or read from the scratchpad (compute), per "
                        "execution"));
  auto* form = new QFormLayout(this);
  form->setContentsMargins(6, 2, 6, 2);
  form->setVerticalSpacing(3);
  form->addRow(title_);
  form->addRow(tr("name"), name_);
  form->addRow(tr("op"), op_);
  form->addRow(tr("FLOPs"), flops_);
  form->addRow(tr("bytes"), bytes_);
  form->addRow(tr("result in"), result_);
  form->addRow(tr("loop"), loop_);
  form->addRow(tr("deps"), deps_);

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
  setEnabled(i >= 0);
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
