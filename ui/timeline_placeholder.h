// What the timeline shows for a plan without a one-SM timeline, in the plot's place: why
// (a collective runs on the network; a decode step is many kernels), and what it does have,
// its collective stages per link over time (the Network lanes at full size):
//
//   all_reduce runs on the network: it has no one-SM timeline.
//   Its collective stages per link over time (1.36 ms, busiest links first):
//   gpu0->nvswitch  |██ ██ ██ ██ ██ ██ ██|  96%
//   ...
#pragma once

#include <QString>
#include <QWidget>

#include "tilesight/report/prediction.h"

class QLabel;
class QScrollArea;

namespace tilesight::ui {

class NetworkLanes;

class TimelinePlaceholder : public QWidget {
 public:
  explicit TimelinePlaceholder(QWidget* parent = nullptr);

  void setPrediction(const report::Prediction& prediction);
  QString text() const;
  int networkLaneCount() const;  // 0 when no lanes are shown
  QScrollArea* lanesArea() const { return lanes_area_; }

 private:
  QLabel* why_ = nullptr;
  NetworkLanes* lanes_ = nullptr;
  QScrollArea* lanes_area_ = nullptr;  // the lanes scroll in a short window
};

}  // namespace tilesight::ui
