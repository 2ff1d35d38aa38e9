// Network lanes: collective stages per link over time (eq. 11), one lane per directed link,
// busiest links first, each bar a stage's β_l·B_{l,k} on that link. Over them one line per
// collective (■ its bars' colour) and one for the links (and the overlap of a fused kernel),
// each cut to the dock's width (ElidedLines), so the lanes keep the height:
//
//   ■ all_reduce 256 MiB on 8 GPUs: ring/Simple, busbw 345 GB/s
//   bottleneck gpu0->nvswitch (16 links carry traffic)
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
class QScrollArea;

namespace tilesight::ui {

class ElidedLines;
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
  // The collectives, links and overlap lines over the lanes (shown when there is traffic).
  ElidedLines* summary() const { return summary_; }
  QWidget* lanesArea() const;  // the lanes' scroll area

 private:
  QLabel* headline_ = nullptr;  // no traffic: the message, centred
  QLabel* details_ = nullptr;   // and why; with traffic (hidden), the summary's detail lines
  ElidedLines* summary_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  NetworkLanes* lanes_ = nullptr;
  QString collectives_;  // one line per collective, as summarised
};

}  // namespace tilesight::ui
