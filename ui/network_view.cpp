#include "ui/network_view.h"

#include <algorithm>
#include <map>

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include "ui/format.h"

namespace tilesight::ui {

// The lanes themselves: a plain painted canvas (at most kMaxLanes links, busiest first).
class NetworkLanes : public QWidget {
 public:
  static constexpr int kMaxLanes = 16;
  static constexpr int kLaneHeight = 18;

  explicit NetworkLanes(QWidget* parent) : QWidget(parent) { setMinimumHeight(kLaneHeight * 2); }

  void setNetwork(const report::NetworkReport& n, double latency_us) {
    links_.clear();
    for (const auto& l : n.links) {
      if (static_cast<int>(links_.size()) >= kMaxLanes) break;
      links_.push_back(l);
    }
    events_ = n.events;
    latency_us_ = latency_us;
    // The names as wide as the longest needs (not a fixed column that leaves a narrow dock
    // no room for the bars), the percentages as wide as "100%".
    const QFontMetrics fm(font());
    label_width_ = 0;
    for (const auto& l : links_)
      label_width_ = std::max(label_width_, fm.horizontalAdvance(QString::fromStdString(l.link)) + 10);
    util_width_ = fm.horizontalAdvance(QStringLiteral("100%")) + 8;
    setMinimumHeight(kLaneHeight * (static_cast<int>(links_.size()) + 2));
    update();
  }
  int lanes() const { return static_cast<int>(links_.size()); }
  int barWidth() const { return std::max(10, width() - util_width_ - label_width_); }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    if (links_.empty() || latency_us_ <= 0) return;
    const int x0 = label_width_, x1 = std::max(x0 + 10, width() - util_width_);
    auto x_of = [&](double us) { return x0 + static_cast<int>((x1 - x0) * std::clamp(us / latency_us_, 0.0, 1.0)); };
    std::map<std::string, int> row;
    for (int i = 0; i < lanes(); ++i) row[links_[static_cast<std::size_t>(i)].link] = i;
    const QColor colors[] = {QColor(0x4c, 0x78, 0xa8), QColor(0xf5, 0x85, 0x18), QColor(0x54, 0xa2, 0x4b)};
    std::map<std::string, int> collective_color;
    for (int i = 0; i < lanes(); ++i) {
      const auto& l = links_[static_cast<std::size_t>(i)];
      const int y = i * kLaneHeight;
      p.setPen(Qt::black);
      p.drawText(QRect(4, y, label_width_ - 8, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                 QString::fromStdString(l.link));
      p.drawText(QRect(x1 + 4, y, util_width_ - 4, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                 format_percent(l.utilization));
      p.setPen(QColor(0xdd, 0xdd, 0xdd));
      p.drawLine(x0, y + kLaneHeight - 1, x1, y + kLaneHeight - 1);
    }
    for (const auto& e : events_) {
      auto it = row.find(e.link);
      if (it == row.end()) continue;
      const int c = collective_color.emplace(e.collective, static_cast<int>(collective_color.size()) % 3).first->second;
      const int xa = x_of(e.start_us), xb = std::max(xa + 1, x_of(e.end_us));
      p.fillRect(QRect(xa, it->second * kLaneHeight + 3, xb - xa, kLaneHeight - 6), colors[c]);
    }
    const int axis = lanes() * kLaneHeight + 2;
    p.setPen(Qt::darkGray);
    p.drawLine(x0, axis, x1, axis);
    p.drawText(QRect(x0, axis + 2, 60, kLaneHeight), Qt::AlignLeft, QStringLiteral("0"));
    p.drawText(QRect(x1 - 100, axis + 2, 100, kLaneHeight), Qt::AlignRight, format_time_us(latency_us_));
  }

 private:
  std::vector<report::LinkUtilization> links_;
  std::vector<report::NetworkStageEvent> events_;
  double latency_us_ = 0;
  int label_width_ = 0, util_width_ = 0;
};

NetworkView::NetworkView(QWidget* parent)
    : QWidget(parent), headline_(new QLabel(this)), details_(new QLabel(this)), lanes_(new NetworkLanes(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(headline_);
  layout->addWidget(details_);
  layout->addWidget(lanes_, 1);
  QFont font = headline_->font();
  font.setPointSizeF(font.pointSizeF() * 1.2);
  headline_->setFont(font);
  headline_->setAlignment(Qt::AlignCenter);
  headline_->setWordWrap(true);  // a long list of collectives must not widen the dock
  headline_->setStyleSheet(QStringLiteral("color: #555;"));
  details_->setAlignment(Qt::AlignCenter);
  details_->setWordWrap(true);
  details_->setStyleSheet(QStringLiteral("color: gray;"));
  headline_->setText(tr("no prediction yet"));
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
}

void NetworkView::setPrediction(const report::Prediction& p) {
  lanes_->setNetwork(p.network, p.latency_us);
  if (p.network.empty()) {
    headline_->setText(tr("no cross-device traffic"));
    details_->setText(tr("A single-GPU plan on %1: nothing crosses a link. Multi-GPU plans "
                         "(collectives, ag_gemm, gemm_rs) show their stages here, one lane per link.")
                          .arg(QString::fromStdString(p.hardware)));
    return;
  }
  // Identical collectives (llm_decode's two all-reduces per layer) are said once, counted.
  QStringList parts;
  QList<int> counts;
  for (const auto& c : p.network.collectives) {
    const QString part = tr("%1 %2 on %3 GPUs: %4/%5, busbw %6 GB/s")
                             .arg(QString::fromStdString(c.collective), format_bytes(c.bytes))
                             .arg(c.devices)
                             .arg(QString::fromStdString(c.algorithm), QString::fromStdString(c.protocol))
                             .arg(c.busbw_gbps, 0, 'f', 0);
    if (const auto i = parts.indexOf(part); i >= 0) ++counts[i];
    else parts << part, counts << 1;
  }
  for (qsizetype i = 0; i < parts.size(); ++i)
    if (counts[i] > 1) parts[i] = QStringLiteral("%1 × %2").arg(counts[i]).arg(parts[i]);
  headline_->setText(parts.join(QStringLiteral("; ")));
  QString details = tr("bottleneck link %1; %2 links carried traffic")
                        .arg(QString::fromStdString(p.network.bottleneck_link))
                        .arg(p.network.links.size());
  if (!p.network.overlap.empty())
    details += tr("; overlap %1 hides %2 of the communication")
                   .arg(QString::fromStdString(p.network.overlap), format_percent(p.network.overlap_rate));
  details_->setText(details);
}

QString NetworkView::headline() const {
  return headline_->text();
}

int NetworkView::laneCount() const {
  return lanes_->lanes();
}

int NetworkView::laneBarWidth() const {
  return lanes_->barWidth();
}

}  // namespace tilesight::ui
