// Per-resource utilisation of a prediction as a table model (KDAB Hotspot's pattern: setData
// is reset + store). One row per pipeline of eq. 1 the hardware has (ui/profile_pipelines.h:
// no TMEM or L1.5 row on an H200, no network row on one GPU); the bottleneck's row is bold:
//
//   Resource        Busy      Utilisation
//   tensor core     159 µs    ██████▏      62%
//   shared memory   150 µs    █████▊       58%
//   L2              245 µs    █████████▌   95%   (bold: the bottleneck)
//
// In a narrow report the names are the timeline's lane names (TC, SMEM, L2: setShortNames),
// the full name in the tooltip.
//
// Busy is the device-average time the pipeline works; utilisation is busy over the latency.
// Column kUtilization returns the fraction 0..1 under kFractionRole for the bar delegate.
// A new prediction on the same hardware changes cells (dataChanged), not rows: the report
// does not jump while the user edits.
#pragma once

#include <QAbstractTableModel>
#include <array>
#include <string>
#include <vector>

#include "tilesight/report/prediction.h"

namespace tilesight::ui {

class UtilizationModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kResource, kBusy, kUtilization, kColumnCount };
  static constexpr int kFractionRole = Qt::UserRole + 1;

  explicit UtilizationModel(QObject* parent = nullptr);

  void setPrediction(const report::Prediction& prediction);
  void clear();
  // The timeline's lane names ("SMEM") instead of the full ones ("shared memory").
  void setShortNames(bool on);
  bool shortNames() const { return short_names_; }
  Resource resourceAt(int row) const { return rows_.at(static_cast<std::size_t>(row)); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<Resource> rows_;  // empty: no prediction
  std::string hardware_;        // the profile rows_ were listed for
  std::array<double, kResourceCount> busy_us_{};
  std::array<double, kResourceCount> utilization_{};
  Resource bottleneck_ = Resource::kTC;
  bool short_names_ = false;
};

}  // namespace tilesight::ui
