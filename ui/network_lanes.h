// The Network lanes' canvas: one lane per directed link (at most kMaxLanes, busiest first),
// each stage of a collective a bar from its start to its end on that link, the link's
// utilisation at the right, the time axis under the lanes:
//
//   gpu0->nvswitch  |██ ██ ██ ██ ██ ██ ██|  96%
//   nvswitch->gpu0  |██ ██ ██ ██ ██ ██ ██|  96%
//                   0               1.36 ms
//
// A fused kernel (ag_gemm, gemm_rs, ulysses_attention) first gets its overlap schedule as the
// engine predicted it (NetworkReport::schedule), two lanes over the links on the same axis:
//
//   compute (SMs)   |▓▓▓▓|▓▓▓▓|▓▓▓▓|▓▓▓▓|▓▓▓▓|▓▓▓▓|▓▓▓▓|▓▓▓▓|   pieces: row shards of the GEMM
//   collective      |███|███|███|███|███|███|███|                 steps: one shard each
//   ------------------------------------------------------
//   gpu0->nvswitch  |██ ██ ██ ██ ██ ██ ██|  47%
//
// In a dock too narrow for names, bars and percentages side by side, each lane's name and
// percentage go on a line above its bars (stacked), so every lane stays readable.
// A collective that runs once per layer (a decode step's all-reduces) is drawn at every run,
// a layer apart. Drawn in the Network lanes dock and, for plans without a one-SM timeline
// (a collective), in the timeline's place.
#pragma once

#include <QCoreApplication>
#include <QWidget>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tilesight/report/prediction.h"

namespace tilesight::ui {

class NetworkLanes : public QWidget {
  Q_DECLARE_TR_FUNCTIONS(NetworkLanes)

 public:
  static constexpr int kMaxLanes = 16;
  static constexpr int kLaneHeight = 18;
  static constexpr int kMinBarWidth = 160;       // narrower: names above the bars (stacked)
  static constexpr int kStackedBarHeight = 12;

  explicit NetworkLanes(QWidget* parent = nullptr);

  void setNetwork(const report::NetworkReport& network, double latency_us);
  int lanes() const { return static_cast<int>(links_.size()); }
  // The overlap schedule's spans as drawn, [start, end] in µs in order: the compute pieces
  // (compute) or the collective steps; empty for plans without one.
  std::vector<std::pair<double, double>> scheduleBars(bool compute) const;
  // The bars of lane `row` (from the top) as drawn: [start, end] in µs, every run of a
  // recurring stage (NetworkStageEvent::runs) its own bar, in time order.
  std::vector<std::pair<double, double>> barsOf(int row) const;
  // Pixels of the time axis: between the link names and the percentages, or the whole
  // width when the names stand above the bars (stacked).
  int barWidth() const { return geometry().x1 - geometry().x0; }
  bool stacked() const;
  // The colour of a collective's bars ("all_reduce"); invalid when it has none drawn.
  QColor colourOf(const std::string& collective) const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Bar {
    int row = 0, colour = 0;
    double start_us = 0, end_us = 0;
  };
  struct Geometry {
    bool stacked = false;
    int lane_h = kLaneHeight, label_h = 0;  // a lane's height; its name's line, stacked
    int x0 = 0, x1 = 0;                     // the time axis
  };
  Geometry geometry() const;
  int linkTop() const;  // y of the first link lane: under the schedule's lanes
  void fitHeight();     // the minimum height of every lane, as laid out at this width

  std::vector<report::LinkUtilization> links_;
  std::vector<report::OverlapSpan> schedule_;
  std::vector<Bar> bars_;
  std::map<std::string, int> colour_;  // collective -> index into kColours
  double latency_us_ = 0;
  int label_width_ = 0, util_width_ = 0;
  bool fitted_stacked_ = false;
};

}  // namespace tilesight::ui
