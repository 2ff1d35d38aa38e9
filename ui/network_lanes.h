// The Network lanes' canvas: one lane per directed link (at most kMaxLanes, busiest first),
// each stage of a collective a bar from its start to its end on that link, the link's
// utilisation at the right, the time axis under the lanes:
//
//   gpu0->nvswitch  |██ ██ ██ ██ ██ ██ ██|  96%
//   nvswitch->gpu0  |██ ██ ██ ██ ██ ██ ██|  96%
//                   0               1.36 ms
//
// Drawn in the Network lanes dock and, for plans without a one-SM timeline (a collective),
// in the timeline's place.
#pragma once

#include <QWidget>
#include <vector>

#include "tilesight/report/prediction.h"

namespace tilesight::ui {

class NetworkLanes : public QWidget {
 public:
  static constexpr int kMaxLanes = 16;
  static constexpr int kLaneHeight = 18;

  explicit NetworkLanes(QWidget* parent = nullptr);

  void setNetwork(const report::NetworkReport& network, double latency_us);
  int lanes() const { return static_cast<int>(links_.size()); }
  // Pixels of the time axis, between the link names and the percentages.
  int barWidth() const { return std::max(10, width() - util_width_ - label_width_); }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<report::LinkUtilization> links_;
  std::vector<report::NetworkStageEvent> events_;
  double latency_us_ = 0;
  int label_width_ = 0, util_width_ = 0;
};

}  // namespace tilesight::ui
