#include "ui/utilization_model.h"

#include <QColor>
#include <QFont>
#include <algorithm>

#include "ui/format.h"
#include "ui/profile_pipelines.h"

namespace tilesight::ui {

UtilizationModel::UtilizationModel(QObject* parent) : QAbstractTableModel(parent) {}

// Predictions while the user edits one plan give the same rows with new figures: the table
// keeps its rows and only its cells change (dataChanged), so the view neither lays itself
// out again nor jumps. A row once listed on this hardware stays (idle, "–") until the
// hardware changes; only then, or when a pipeline outside the profile starts work, is the
// model reset.
void UtilizationModel::setPrediction(const report::Prediction& p) {
  std::vector<Resource> rows = profile_pipelines(p.hardware);
  if (p.hardware == hardware_)
    for (Resource r : rows_)  // listed before on this hardware: stays listed
      if (std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
  for (Resource r : kAllResources)  // a pipeline with work is listed whatever the profile says
    if (p.busy_us[tilesight::index(r)] > 0 && std::find(rows.begin(), rows.end(), r) == rows.end())
      rows.push_back(r);
  std::sort(rows.begin(), rows.end(),
            [](Resource a, Resource b) { return tilesight::index(a) < tilesight::index(b); });
  const bool same_rows = rows == rows_;
  if (!same_rows) beginResetModel();
  rows_ = std::move(rows);
  hardware_ = p.hardware;
  busy_us_ = p.busy_us;
  utilization_ = p.utilization;
  bottleneck_ = p.bottleneck;
  if (!same_rows) endResetModel();
  else if (!rows_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1));
}

void UtilizationModel::clear() {
  beginResetModel();
  rows_.clear();
  hardware_.clear();
  endResetModel();
}

void UtilizationModel::setShortNames(bool on) {
  if (on == short_names_) return;
  short_names_ = on;
  if (!rows_.empty())
    emit dataChanged(index(0, kResource), index(rowCount() - 1, kResource), {Qt::DisplayRole});
}

int UtilizationModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int UtilizationModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant UtilizationModel::data(const QModelIndex& idx, int role) const {
  if (!checkIndex(idx, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Resource resource = rows_.at(static_cast<std::size_t>(idx.row()));
  const std::size_t r = tilesight::index(resource);
  const bool idle = busy_us_[r] <= 0;
  switch (role) {
    case Qt::DisplayRole:
      if (idx.column() == kResource)
        return to_qstring(short_names_ ? resource_lane(resource) : resource_label(resource));
      if (idx.column() == kBusy) return idle ? QStringLiteral("–") : format_time_us(busy_us_[r]);
      if (idle) return QString();
      // Busy, if briefly: "<1%", never a "0%" beside a busy time.
      return utilization_[r] < 0.005 ? QStringLiteral("<1%") : format_percent(utilization_[r]);
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
