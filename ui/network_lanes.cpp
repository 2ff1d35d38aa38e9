#include "ui/network_lanes.h"

#include <QPainter>
#include <algorithm>
#include <map>

#include "ui/format.h"

namespace tilesight::ui {

namespace {
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
  std::map<std::string, int> row, collective_colour;
  for (int i = 0; i < lanes(); ++i) row[links_[static_cast<std::size_t>(i)].link] = i;
  bars_.clear();
  for (const auto& e : n.events) {
    const auto it = row.find(e.link);
    if (it == row.end()) continue;
    const int colour =
        collective_colour.emplace(e.collective, static_cast<int>(collective_colour.size()) % 3).first->second;
    for (std::int64_t k = 0; k < std::max<std::int64_t>(e.runs, 1); ++k) {
      const double shift = static_cast<double>(k) * e.period_us;
      bars_.push_back({it->second, colour, e.start_us + shift, e.end_us + shift});
    }
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
  setMinimumHeight(linkTop() + kLaneHeight * (static_cast<int>(links_.size()) + 2));
  update();
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

// The schedule's two lanes and their own time axis (the links' may be scrolled away).
int NetworkLanes::linkTop() const {
  return schedule_.empty() ? 0 : 3 * kLaneHeight + kLaneHeight / 2;
}

void NetworkLanes::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (links_.empty() || latency_us_ <= 0) return;
  const int top = linkTop();
  const int x0 = label_width_, x1 = std::max(x0 + 10, width() - util_width_);
  auto x_of = [&](double us) {
    return x0 + static_cast<int>((x1 - x0) * std::clamp(us / latency_us_, 0.0, 1.0));
  };
  const QColor colors[] = {QColor(0x4c, 0x78, 0xa8), QColor(0xf5, 0x85, 0x18),
                           QColor(0x54, 0xa2, 0x4b)};
  if (!schedule_.empty()) {
    // Pieces and steps alternate two shades of their colour so each one's edges show.
    const QColor compute[] = {QColor(0x00, 0x9e, 0x73), QColor(0x5f, 0xc4, 0xa4)};
    const QColor steps[] = {QColor(0x4c, 0x78, 0xa8), QColor(0x8f, 0xb0, 0xd6)};
    for (int row = 0; row < 2; ++row) {
      p.setPen(Qt::black);
      p.drawText(QRect(4, row * kLaneHeight, label_width_ - 8, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                 row == 0 ? kComputeLane : kStepsLane);
    }
    const QFontMetrics fm(font());
    for (const auto& s : schedule_) {
      const int xa = x_of(s.start_us), xb = std::max(xa + 1, x_of(s.end_us));
      const QRect bar(xa, (s.compute ? 0 : kLaneHeight) + 2, xb - xa, kLaneHeight - 4);
      p.fillRect(bar, (s.compute ? compute : steps)[s.index % 2]);
      const QString number = QString::number(s.index);  // the piece or step, where it fits
      if (fm.horizontalAdvance(number) + 4 <= bar.width()) {
        p.setPen(Qt::white);
        p.drawText(bar, Qt::AlignCenter, number);
      }
    }
    const int axis = 2 * kLaneHeight + 1;
    p.setPen(Qt::darkGray);
    p.drawLine(x0, axis, x1, axis);
    const QString end = format_time_us(latency_us_);
    if (x1 - x0 > fm.horizontalAdvance(end) + fm.horizontalAdvance(QStringLiteral("0")) + 24)  // else "0 7.11 ms"
      p.drawText(QRect(x0, axis + 1, 60, kLaneHeight), Qt::AlignLeft, QStringLiteral("0"));
    p.drawText(QRect(x1 - 100, axis + 1, 100, kLaneHeight), Qt::AlignRight, end);
    p.setPen(QColor(0xbb, 0xbb, 0xbb));
    p.drawLine(4, top - kLaneHeight / 4, x1, top - kLaneHeight / 4);
  }
  for (int i = 0; i < lanes(); ++i) {
    const auto& l = links_[static_cast<std::size_t>(i)];
    const int y = top + i * kLaneHeight;
    p.setPen(Qt::black);
    p.drawText(QRect(4, y, label_width_ - 8, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
               QString::fromStdString(l.link));
    p.drawText(QRect(x1 + 4, y, util_width_ - 4, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
               format_percent(l.utilization));
    p.setPen(QColor(0xdd, 0xdd, 0xdd));
    p.drawLine(x0, y + kLaneHeight - 1, x1, y + kLaneHeight - 1);
  }
  for (const Bar& b : bars_) {
    const int xa = x_of(b.start_us), xb = std::max(xa + 1, x_of(b.end_us));
    p.fillRect(QRect(xa, top + b.row * kLaneHeight + 3, xb - xa, kLaneHeight - 6), colors[b.colour]);
  }
  const int axis = top + lanes() * kLaneHeight + 2;
  p.setPen(Qt::darkGray);
  p.drawLine(x0, axis, x1, axis);
  p.drawText(QRect(x0, axis + 2, 60, kLaneHeight), Qt::AlignLeft, QStringLiteral("0"));
  p.drawText(QRect(x1 - 100, axis + 2, 100, kLaneHeight), Qt::AlignRight,
             format_time_us(latency_us_));
}

}  // namespace tilesight::ui
