#include "ui/network_lanes.h"

#include <QPainter>
#include <QResizeEvent>
#include <algorithm>
#include <array>
#include <map>

#include "ui/format.h"

namespace tilesight::ui {

namespace {
const QColor kColours[] = {QColor(0x4c, 0x78, 0xa8), QColor(0xf5, 0x85, 0x18), QColor(0x54, 0xa2, 0x4b)};
const QString kComputeLane = QObject::tr("compute (SMs)");
const QString kStepsLane = QObject::tr("collective steps");
}  // namespace

NetworkLanes::NetworkLanes(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(kLaneHeight * 2);
}

void NetworkLanes::setNetwork(const report::NetworkReport& n, double latency_us) {
  links_.clear();
  for (const auto& l : n.links) {
    if (static_cast<int>(links_.size()) >= kMaxLanes) break;
    links_.push_back(l);
  }
  std::map<std::string, int> row;
  colour_.clear();
  for (int i = 0; i < lanes(); ++i) row[links_[static_cast<std::size_t>(i)].link] = i;
  bars_.clear();
  for (const auto& e : n.events) {
    const auto it = row.find(e.link);
    if (it == row.end()) continue;
    const int colour = colour_.emplace(e.collective, static_cast<int>(colour_.size()) % 3).first->second;
    report::for_each_stage_run(e, [&](std::int64_t, double start, double end) {
      bars_.push_back({it->second, colour, start, end});
    });
  }
  std::stable_sort(bars_.begin(), bars_.end(), [](const Bar& a, const Bar& b) { return a.start_us < b.start_us; });
  schedule_ = n.schedule;
  latency_us_ = latency_us;
  // The names as wide as the longest needs (not a fixed column that leaves a narrow dock
  // no room for the bars), the percentages as wide as "100%".
  const QFontMetrics fm(font());
  label_width_ = 0;
  for (const auto& l : links_)
    label_width_ =
        std::max(label_width_, fm.horizontalAdvance(QString::fromStdString(l.link)) + 10);
  if (!schedule_.empty())
    for (const QString& name : {kComputeLane, kStepsLane})
      label_width_ = std::max(label_width_, fm.horizontalAdvance(name) + 10);
  util_width_ = fm.horizontalAdvance(QStringLiteral("100%")) + 8;
  fitHeight();
  update();
}

bool NetworkLanes::stacked() const {
  return width() - label_width_ - util_width_ < kMinBarWidth;
}

NetworkLanes::Geometry NetworkLanes::geometry() const {
  Geometry g;
  g.stacked = stacked();
  if (g.stacked) {
    g.label_h = QFontMetrics(font()).height();
    g.lane_h = g.label_h + kStackedBarHeight + 5;
    g.x0 = 4;
    g.x1 = std::max(g.x0 + 10, width() - 4);
  } else {
    g.lane_h = kLaneHeight;
    g.x0 = label_width_;
    g.x1 = std::max(g.x0 + 10, width() - util_width_);
  }
  return g;
}

// The schedule's two lanes and their own time axis (the links' may be scrolled away).
int NetworkLanes::linkTop() const {
  return schedule_.empty() ? 0 : 2 * geometry().lane_h + kLaneHeight + kLaneHeight / 2;
}

// Tall enough for every lane and the axis: the scroll area scrolls the rest.
void NetworkLanes::fitHeight() {
  fitted_stacked_ = stacked();
  setMinimumHeight(linkTop() + geometry().lane_h * static_cast<int>(links_.size()) + 2 * kLaneHeight);
}

void NetworkLanes::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (stacked() != fitted_stacked_) fitHeight();
}

QColor NetworkLanes::colourOf(const std::string& collective) const {
  const auto it = colour_.find(collective);
  return it == colour_.end() ? QColor() : kColours[it->second];
}

std::vector<std::pair<double, double>> NetworkLanes::barsOf(int row) const {
  std::vector<std::pair<double, double>> out;
  for (const Bar& b : bars_)
    if (b.row == row) out.emplace_back(b.start_us, b.end_us);
  return out;
}

std::vector<std::pair<double, double>> NetworkLanes::scheduleBars(bool compute) const {
  std::vector<std::pair<double, double>> out;
  for (const auto& s : schedule_)
    if (s.compute == compute) out.emplace_back(s.start_us, s.end_us);
  return out;
}


// Side by side when the bars keep kMinBarWidth pixels (names | bars | %); in a narrower dock
// each lane's name and % go on a line of their own above its bars, which then span the
// whole width:
//
//   gpu0->nvswitch                 96%
//   ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██
void NetworkLanes::paintEvent(QPaintEvent*) {
  QPainter p(this);
  // White down to the axis: a scroll area taller than the lanes shows its own background
  // under them, not an empty canvas.
  p.fillRect(QRect(0, 0, width(), std::min(height(), minimumHeight())), Qt::white);
  if (links_.empty() || latency_us_ <= 0) return;
  const Geometry g = geometry();
  const QFontMetrics fm(font());
  const int top = linkTop();
  auto x_of = [&](double us) {
    return g.x0 + static_cast<int>((g.x1 - g.x0) * std::clamp(us / latency_us_, 0.0, 1.0));
  };
  // A lane's name (and its %, if any) beside or above its bars; the bars' rectangle.
  auto lane = [&](int y, const QString& name, const QString& percent) {
    p.setPen(Qt::black);
    if (g.stacked) {
      const QRect line(g.x0, y + 2, g.x1 - g.x0, g.label_h);
      p.drawText(line, Qt::AlignVCenter | Qt::AlignLeft, name);
      if (!percent.isEmpty()) p.drawText(line, Qt::AlignVCenter | Qt::AlignRight, percent);
      return QRect(g.x0, y + 2 + g.label_h, g.x1 - g.x0, kStackedBarHeight);
    }
    p.drawText(QRect(4, y, label_width_ - 8, g.lane_h), Qt::AlignVCenter | Qt::AlignLeft, name);
    if (!percent.isEmpty())
      p.drawText(QRect(g.x1 + 4, y, util_width_ - 4, g.lane_h), Qt::AlignVCenter | Qt::AlignLeft, percent);
    return QRect(g.x0, y + 3, g.x1 - g.x0, g.lane_h - 6);
  };
  auto axis = [&](int y) {
    p.setPen(Qt::darkGray);
    p.drawLine(g.x0, y, g.x1, y);
    const QString end = format_time_us(latency_us_);
    if (g.x1 - g.x0 > fm.horizontalAdvance(end) + fm.horizontalAdvance(QStringLiteral("0")) + 24)  // else "0 7.11 ms"
      p.drawText(QRect(g.x0, y + 1, 60, kLaneHeight), Qt::AlignLeft, QStringLiteral("0"));
    p.drawText(QRect(g.x1 - 100, y + 1, 100, kLaneHeight), Qt::AlignRight, end);
  };
  if (!schedule_.empty()) {
    // Pieces and steps alternate two shades of their colour so each one's edges show; each
    // is numbered where it fits, unless it is the only one of its lane.
    const QColor compute[] = {QColor(0x00, 0x9e, 0x73), QColor(0x5f, 0xc4, 0xa4)};
    const QColor steps[] = {QColor(0x4c, 0x78, 0xa8), QColor(0x8f, 0xb0, 0xd6)};
    const QRect lanes[] = {lane(0, kComputeLane, {}), lane(g.lane_h, kStepsLane, {})};
    const auto pieces = std::count_if(schedule_.begin(), schedule_.end(), [](const auto& s) { return s.compute; });
    const auto counts = std::array{static_cast<std::ptrdiff_t>(schedule_.size()) - pieces, pieces};
    for (const auto& s : schedule_) {
      const QRect& row = lanes[s.compute ? 0 : 1];
      const int xa = x_of(s.start_us), xb = std::max(xa + 1, x_of(s.end_us));
      const QRect bar(xa, row.top(), xb - xa, row.height());
      p.fillRect(bar, (s.compute ? compute : steps)[s.index % 2]);
      const QString number = QString::number(s.index);
      if (counts[s.compute ? 1 : 0] > 1 && fm.horizontalAdvance(number) + 4 <= bar.width() &&
          fm.height() <= bar.height() + 4) {
        p.setPen(Qt::white);
        p.drawText(bar, Qt::AlignCenter, number);
      }
    }
    axis(2 * g.lane_h + 1);
    p.setPen(QColor(0xbb, 0xbb, 0xbb));
    p.drawLine(4, top - kLaneHeight / 4, width() - 4, top - kLaneHeight / 4);
  }
  std::vector<QRect> rows;
  for (int i = 0; i < lanes(); ++i) {
    const auto& l = links_[static_cast<std::size_t>(i)];
    const int y = top + i * g.lane_h;
    rows.push_back(lane(y, QString::fromStdString(l.link), format_percent(l.utilization)));
    p.setPen(QColor(0xdd, 0xdd, 0xdd));
    p.drawLine(g.x0, y + g.lane_h - 1, g.x1, y + g.lane_h - 1);
  }
  for (const Bar& b : bars_) {
    const QRect& row = rows[static_cast<std::size_t>(b.row)];
    const int xa = x_of(b.start_us), xb = std::max(xa + 1, x_of(b.end_us));
    p.fillRect(QRect(xa, row.top(), xb - xa, row.height()), kColours[b.colour]);
  }
  axis(top + lanes() * g.lane_h + 2);
}

}  // namespace tilesight::ui
