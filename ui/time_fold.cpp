#include "ui/time_fold.h"

#include <algorithm>
#include <cmath>

namespace tilesight::ui {

namespace {
constexpr double kFoldShare = 0.25;  // the band's width, relative to the unfolded rest
}

double TimeFold::to_view(double t) const {
  if (!active() || t <= from) return t;
  if (t >= to) return t - (to - from) + width;
  return from + (t - from) / (to - from) * width;
}

double TimeFold::to_time(double x) const {
  if (!active() || x <= from) return x;
  if (x >= from + width) return x - width + (to - from);
  return from + (x - from) / width * (to - from);
}

TimeFold TimeFold::largest_gap(std::vector<std::pair<double, double>> intervals) {
  if (intervals.empty()) return {};
  std::sort(intervals.begin(), intervals.end());
  double covered_to = intervals.front().second, end = covered_to;
  TimeFold best;
  for (const auto& [start, stop] : intervals) {
    if (start > covered_to && start - covered_to > best.to - best.from)
      best = {covered_to, start, 0};
    covered_to = std::max(covered_to, stop);
    end = std::max(end, stop);
  }
  if (best.to - best.from <= 0.5 * end) return {};
  best.width = kFoldShare * (end - (best.to - best.from));
  return best;
}

void FoldedTimeTicker::addSegmentTicks(double from_time, double to_time, QVector<double>& ticks) {
  if (to_time <= from_time) return;
  const double step = getTickStep(QCPRange(from_time, to_time));
  if (step <= 0) return;
  for (double t = std::ceil(from_time / step) * step; t <= to_time + step * 1e-9; t += step)
    ticks << fold_.to_view(t);
}

// Nice ticks for each side of the fold on its own: round real times on both sides.
QVector<double> FoldedTimeTicker::createTickVector(double tick_step, const QCPRange& range) {
  if (!fold_.active()) return QCPAxisTicker::createTickVector(tick_step, range);
  QVector<double> ticks;
  const double left_end = std::min(range.upper, fold_.from);
  const double right_start = std::max(range.lower, fold_.from + fold_.width);
  const double visible =
      std::max(0.0, left_end - range.lower) + std::max(0.0, range.upper - right_start);
  const int count = tickCount();
  // Each side gets a share of the ticks as wide as its share of the view.
  auto side = [&](double view_from, double view_to) {
    if (view_to <= view_from || visible <= 0) return;
    setTickCount(
        std::max(1, static_cast<int>(std::lround(count * (view_to - view_from) / visible))));
    addSegmentTicks(fold_.to_time(view_from), fold_.to_time(view_to), ticks);
  };
  side(range.lower, left_end);
  side(right_start, range.upper);
  setTickCount(count);
  return ticks;
}

QString FoldedTimeTicker::getTickLabel(double tick, const QLocale& locale, QChar format,
                                       int precision) {
  double t = fold_.to_time(tick);
  if (std::abs(t) < 1e-9) t = 0;
  return QCPAxisTicker::getTickLabel(t, locale, format, precision);
}

}  // namespace tilesight::ui
