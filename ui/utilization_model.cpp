#include "ui/utilization_model.h"

#include <QColor>
#include <QFont>

#include "ui/format.h"

namespace tilesight::ui {

UtilizationModel::UtilizationModel(QObject* parent) : QAbstractTableModel(parent) {}

void UtilizationModel::setPrediction(const report::Prediction& p) {
  beginResetModel();
  has_data_ = true;
  busy_us_ = p.busy_us;
  utilization_ = p.utilization;
  bottleneck_ = p.bottleneck;
  endResetModel();
}

void UtilizationModel::clear() {
  beginResetModel();
  has_data_ = false;
  endResetModel();
}

int UtilizationModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !has_data_ ? 0 : static_cast<int>(kResourceCount);
}

int UtilizationModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant UtilizationModel::data(const QModelIndex& idx, int role) const {
  if (!checkIndex(idx, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const auto r = static_cast<std::size_t>(idx.row());
  const Resource resource = kAllResources[r];
  const bool idle = busy_us_[r] <= 0;
  switch (role) {
    case Qt::DisplayRole:
      if (idx.column() == kResource) return to_qstring(resource_label(resource));
      if (idx.column() == kBusy) return idle ? QStringLiteral("–") : format_time_us(busy_us_[r]);
      return idle ? QString() : format_percent(utilization_[r]);
    case kFractionRole:
      return utilization_[r];
    case Qt::TextAlignmentRole:
      return idx.column() == kResource ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                       : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole: {
      if (resource != bottleneck_) return {};
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    case Qt::ForegroundRole:
      return idle ? QVariant(QColor(Qt::gray)) : QVariant();
    case Qt::ToolTipRole:
      return tr("%1: busy %2 of the kernel's time%3")
          .arg(to_qstring(resource_label(resource)), format_percent(utilization_[r]),
               resource == bottleneck_ ? tr(" (the bottleneck)") : QString());
    default:
      return {};
  }
}

QVariant UtilizationModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kResource:
      return tr("Resource");
    case kBusy:
      return tr("Busy");
    case kUtilization:
      return tr("Utilisation");
    default:
      return {};
  }
}

}  // namespace tilesight::ui
