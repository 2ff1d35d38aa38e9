// A time axis with the steady state folded away. A kernel's timeline is a short prologue,
// a long steady state that repeats one iteration, and a short epilogue; drawn to scale, the
// prologue and epilogue would be slivers at both ends. Folded, both are drawn to scale and
// the repeated middle is squeezed into a fixed band:
//
//   |  prologue (to scale)  |// steady state, 29 µs folded //|  epilogue (to scale)  |
//   0 µs            2.5 µs   ^ fold                          ^ 31.8 µs          34 µs
//
// to_view maps a time to the axis coordinate and back; FoldedTimeTicker labels the ticks in
// real time on both sides of the fold.
#pragma once

#include <qcustomplot.h>

#include <utility>
#include <vector>

namespace tilesight::ui {

struct TimeFold {
  double from = 0, to = 0;  // the folded interval (µs); from == to: nothing folded
  double width = 0;         // its width on the axis, in axis units

  bool active() const { return to > from; }
  double to_view(double t) const;
  double to_time(double x) const;

  // The widest gap the intervals leave uncovered, when it is more than half of [0, end]
  // (the steady state the engine does not draw); else no fold.
  static TimeFold largest_gap(std::vector<std::pair<double, double>> intervals);
};

class FoldedTimeTicker : public QCPAxisTicker {
 public:
  void setFold(const TimeFold& fold) { fold_ = fold; }

 protected:
  QVector<double> createTickVector(double tick_step, const QCPRange& range) override;
  QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override;

 private:
  void addSegmentTicks(double from_time, double to_time, QVector<double>& ticks);
  TimeFold fold_;
};

}  // namespace tilesight::ui
