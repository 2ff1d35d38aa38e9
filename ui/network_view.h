// Network lanes: collective stages per link over time (eq. 11), one lane per directed link,
// busiest links first, each bar a stage's β_l·B_{l,k} on that link:
//
//   all_reduce 256 MiB on 8 GPUs: ring/Simple, busbw 345 GB/s, bottleneck gpu0->nvswitch
//   gpu0->nvswitch  |██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██|  96%
//   nvswitch->gpu0  |██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██|  96%
//                   0                                  1.36 ms
//
// A single-GPU plan has no lanes; the view says so ("no cross-device traffic").
#pragma once

#include <QWidget>
#include <utility>
#include <vector>

#include "tilesight/report/prediction.h"

class QLabel;

namespace tilesight::ui {

class NetworkLanes;

class NetworkView : public QWidget {
  Q_OBJECT

 public:
  explicit NetworkView(QWidget* parent = nullptr);

  void setPrediction(const report::Prediction& prediction);
  QString headline() const;
  int laneCount() const;  // links drawn
  int laneBarWidth() const;  // pixels of the time axis, between the link names and the %
  bool lanesStacked() const;  // each lane's name above its bars (a narrow dock)
  std::vector<std::pair<double, double>> laneBars(int row) const;  // NetworkLanes::barsOf
  // A fused kernel's overlap schedule as drawn (NetworkLanes::scheduleBars).
  std::vector<std::pair<double, double>> scheduleBars(bool compute) const;
  QString details() const;

 private:
  QLabel* headline_ = nullptr;
  QLabel* details_ = nullptr;
  NetworkLanes* lanes_ = nullptr;
};

}  // namespace tilesight::ui
